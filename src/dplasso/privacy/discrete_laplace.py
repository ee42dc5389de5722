r"""The discrete Laplace (double-geometric, two-sided geometric) mechanism, sampled exactly.

The discrete Laplace distribution with scale :math:`b > 0` on the integers has

.. math::
    P(Z = k) = \frac{1 - \alpha}{1 + \alpha}\, \alpha^{|k|}, \qquad \alpha = e^{-1/b},
    \qquad \operatorname{Var} Z = \frac{2\alpha}{(1 - \alpha)^2}.

Adding it to an integer-valued query with sensitivity :math:`\Delta` (``|f(D) - f(D')| <=
Delta``) is :math:`(\Delta/b)`-DP, because :math:`P(k)/P(k') \le \alpha^{-|k-k'|}`. With
:math:`b = \Delta/\varepsilon`, i.e. :math:`\alpha = e^{-\varepsilon/\Delta}`, it is pure
:math:`\varepsilon`-DP (P1 uses it for the noisy support size).

**Why this sampler.** The obvious route, the difference of two geometric variables drawn by
``numpy.random.Generator.geometric`` with :math:`p = 1 - \alpha`, returns integers but its
law is only as exact as the float :math:`\alpha` and numpy's float inversion
(``ceil(log(U) / log1p(-p))``) make it. We implement instead the sampler of Canonne, Kamath &
Steinke (2020, Alg. 2), which for a rational scale :math:`b = t/s` uses only uniform integers
(``Generator.integers``, an unbiased bounded-integer sampler) and integer comparisons, so its
output law is *exactly* the discrete Laplace law of :math:`b`:

1. draw :math:`U` uniform on :math:`\{0, \dots, t-1\}` and keep it with probability
   :math:`e^{-U/t}` (exact Bernoulli, below), else restart;
2. draw :math:`V \ge 0` with :math:`P(V = v) = (1 - e^{-1}) e^{-v}` (count successes of exact
   Bernoulli(:math:`e^{-1}`) trials); :math:`X = U + tV` then has :math:`P(X = x) \propto
   e^{-x/t}`, and :math:`Y = \lfloor X/s \rfloor` has :math:`P(Y = y) \propto e^{-ys/t}`;
3. draw a fair sign; reject "negative zero"; return :math:`\pm Y`.

Bernoulli(:math:`e^{-\gamma}`) for rational :math:`\gamma = a/d \in [0, 1]` (CKS 2020,
Alg. 1): draw :math:`A_k \sim \mathrm{Bernoulli}(\gamma/k)` for :math:`k = 1, 2, \dots` until
the first failure at :math:`k = K`; :math:`P(K > k) = \gamma^k/k!`, so
:math:`P(K \text{ odd}) = e^{-\gamma}`. Each :math:`A_k` is the conjunction of
:math:`\mathrm{Bernoulli}(a/d)` (``integers(0, d) < a``) and :math:`\mathrm{Bernoulli}(1/k)`
(``integers(0, k) == 0``), so no product :math:`dk` can overflow.

**What is and is not exact.** The scale the sampler uses is a rational
(:func:`discrete_laplace_sampled_scale`): an ``int`` or ``fractions.Fraction`` scale, or a
float (taken at its exact binary value), is used as is when numerator and denominator are at
most :math:`2^{32}`; otherwise it is rounded *up* to a multiple of :math:`2^{-20}` when
:math:`b \le 2^{20}`, and of :math:`2^{e - 40}` with :math:`e = \lceil \log_2 b \rceil` when
:math:`2^{20} < b \le 2^{40}` (more noise, so the guarantee computed from the requested scale
still holds; the relative change is at most :math:`2^{-20}/b`, resp. :math:`2^{-39}`). Either
way the numerator :math:`t` of the sampled scale is at most :math:`2^{40}`. The float value of a decimal epsilon such as ``0.1`` is not exactly
:math:`1/10`; pass ``fractions.Fraction(1, 10)`` to get the rational you mean. The vectorised
rejection loops run until every output is accepted (no truncation). Since
:math:`t \le 2^{40}`, integers stay below :math:`2^{63}` unless some :math:`V \ge 2^{23}`, an
event of probability :math:`e^{-2^{23}}`. Scales above :math:`2^{40}` are refused.

References
----------
.. [1] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for Differential
   Privacy", NeurIPS 2020 (Algorithms 1 and 2).
"""
from __future__ import annotations

import math
import numbers
from fractions import Fraction

import numpy as np

from dplasso.privacy.accounting import PrivacyEvent

__all__ = [
    "discrete_laplace_noise",
    "discrete_laplace_sampled_scale",
    "discrete_laplace_scale",
    "discrete_laplace_epsilon",
    "discrete_laplace_alpha",
    "discrete_laplace_pmf",
    "discrete_laplace_variance",
    "discrete_laplace_event",
]

_MAX_EXACT_TERM = 2**32
"""A rational scale whose numerator and denominator are at most this is used unchanged."""
_GRID = 2**20
"""Other scales are rounded up to a multiple of ``1 / _GRID``."""
_MAX_SCALE = 2**40
"""Largest accepted scale; the sampled numerator stays <= 2**40, keeping integers < 2**63."""


def _as_fraction(name, value, *, allow_zero=False) -> Fraction:
    """``value`` (int, Fraction, or float taken exactly) as a finite Fraction ``> 0`` (``>= 0``)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    if not isinstance(value, numbers.Rational):
        value = float(value)
        if not math.isfinite(value):
            raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    fraction = Fraction(value)
    if fraction < 0 or (fraction == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be a finite number {bound}, got {value!r}")
    return fraction


def discrete_laplace_sampled_scale(scale) -> Fraction:
    """The rational scale :func:`discrete_laplace_noise` samples with, ``>= scale``.

    Parameters
    ----------
    scale : int, fractions.Fraction or float
        Requested scale ``b > 0``, at most ``2**40``.

    Returns
    -------
    fractions.Fraction
        ``scale`` itself when its numerator and denominator are at most ``2**32``; otherwise
        ``ceil(scale * g) / g`` with the grid ``g = 2**20`` for ``scale <= 2**20``, else
        ``g = 2**(40 - e)``, ``e = ceil(log2(scale))`` (a numerator ``<= 2**40``).

    Raises
    ------
    ValueError
        If ``scale`` is not a finite number in ``(0, 2**40]``.
    """
    fraction = _as_fraction("scale", scale)
    if fraction > _MAX_SCALE:
        raise ValueError(f"scale must be <= 2**40 for the exact sampler, got {float(fraction)!r}")
    if fraction.numerator <= _MAX_EXACT_TERM and fraction.denominator <= _MAX_EXACT_TERM:
        return fraction
    if fraction <= _GRID:
        grid = _GRID
    else:  # e = ceil(log2(scale)) = ceil(log2(ceil(scale))); then scale * grid <= 2**40
        grid = 2 ** (40 - (math.ceil(fraction) - 1).bit_length())
    return Fraction(math.ceil(fraction * grid), grid)


def _bernoulli_exp_neg(numerator, denominator, rng):
    """Exact Bernoulli(exp(-numerator/denominator)) per entry, for 0 <= numerator <= denominator.

    ``numerator`` is a 1-D int64 array, ``denominator`` a positive int (CKS 2020, Alg. 1).
    """
    k = np.ones(numerator.size, dtype=np.int64)
    active = np.flatnonzero(numerator > 0)
    while active.size:
        # A ~ Bernoulli(gamma / k) as Bernoulli(gamma) AND Bernoulli(1 / k).
        success = (rng.integers(0, denominator, size=active.size) < numerator[active]) & (
            rng.integers(0, k[active]) == 0
        )
        active = active[success]
        k[active] += 1
    return k % 2 == 1


def _geometric_exp_neg_one(n, rng):
    """``n`` draws of V with P(V = v) = (1 - e^-1) e^-v, by exact Bernoulli(e^-1) trials."""
    v = np.zeros(n, dtype=np.int64)
    active = np.arange(n)
    while active.size:
        active = active[_bernoulli_exp_neg(np.ones(active.size, dtype=np.int64), 1, rng)]
        v[active] += 1
    return v


def discrete_laplace_noise(scale, size, rng):
    r"""Draw i.i.d. discrete Laplace (double-geometric) integers, exactly.

    Parameters
    ----------
    scale : int, fractions.Fraction or float
        Scale ``b`` in ``(0, 2**40]``: :math:`P(k) \propto e^{-|k|/b}`. For a query of integer
        sensitivity :math:`\Delta` and target :math:`\varepsilon` use
        :func:`discrete_laplace_scale` (``b = Delta / epsilon``).
    size : int or tuple of int
        Output shape.
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    ndarray of int64
        Noise of shape ``size``.

    Notes
    -----
    - Neighbouring relation: replace-one (the caller's sensitivity must be stated for it).
    - Data domain: integer-valued queries.
    - Sensitivity: :math:`\Delta = \max |f(D) - f(D')|` over neighbouring datasets.
    - Guarantee: pure :math:`(\Delta/b)`-DP (:func:`discrete_laplace_epsilon`).
    - Numerics: exact for the rational scale :func:`discrete_laplace_sampled_scale` returns
      (``>= scale``): only unbiased uniform integers and integer comparisons are used
      (module docstring, Canonne, Kamath & Steinke 2020, Alg. 2).
    - Cost: a few vectorised rounds of integer draws; about 5 uniform integers per output
      on average for moderate scales.

    Examples
    --------
    >>> import numpy as np
    >>> from fractions import Fraction
    >>> z = discrete_laplace_noise(Fraction(5, 2), 4, np.random.default_rng(0))
    >>> z.dtype
    dtype('int64')
    """
    sampled = discrete_laplace_sampled_scale(scale)
    t, s = sampled.numerator, sampled.denominator  # b = t / s
    out = np.empty(size, dtype=np.int64)
    flat = out.reshape(-1)
    pending = np.arange(flat.size)
    while pending.size:
        u = rng.integers(0, t, size=pending.size)
        kept = _bernoulli_exp_neg(u, t, rng)
        u, index = u[kept], pending[kept]
        y = (u + t * _geometric_exp_neg_one(u.size, rng)) // s
        negative = rng.integers(0, 2, size=u.size) == 1
        accepted = ~(negative & (y == 0))
        flat[index[accepted]] = np.where(negative, -y, y)[accepted]
        pending = np.concatenate([pending[~kept], index[~accepted]])
    return out


def discrete_laplace_scale(sensitivity, epsilon) -> Fraction:
    r"""Scale for pure :math:`\varepsilon`-DP: :math:`b = \Delta/\varepsilon`, as an exact rational.

    Parameters
    ----------
    sensitivity : int, fractions.Fraction or float
        Sensitivity :math:`\Delta > 0` of the integer-valued query under replace-one.
    epsilon : int, fractions.Fraction or float
        Target :math:`\varepsilon > 0` (floats are taken at their exact binary value).

    Returns
    -------
    fractions.Fraction
        ``alpha = exp(-epsilon / sensitivity)`` in P1's parametrisation.
    """
    return _as_fraction("sensitivity", sensitivity) / _as_fraction("epsilon", epsilon)


def discrete_laplace_epsilon(sensitivity, scale) -> float:
    r"""Privacy map: :math:`\varepsilon = \Delta / b` (the exact rational, rounded once to float).

    Parameters
    ----------
    sensitivity : int, fractions.Fraction or float
        Sensitivity :math:`\Delta \ge 0` under replace-one.
    scale : int, fractions.Fraction or float
        Scale ``b > 0``.

    Returns
    -------
    float
    """
    return float(
        _as_fraction("sensitivity", sensitivity, allow_zero=True) / _as_fraction("scale", scale)
    )


def discrete_laplace_alpha(scale) -> float:
    """The decay :math:`\\alpha = e^{-1/b}` (P1's parameter of the double-geometric law)."""
    return math.exp(-1.0 / float(_as_fraction("scale", scale)))


def discrete_laplace_pmf(k, scale):
    r"""Probability mass :math:`P(Z = k) = \tanh(1/(2b))\, e^{-|k|/b}`.

    Equal to :math:`\frac{1-\alpha}{1+\alpha}\alpha^{|k|}`, :math:`\alpha = e^{-1/b}`.

    Parameters
    ----------
    k : int or array-like of int
    scale : int, fractions.Fraction or float

    Returns
    -------
    float or ndarray of float64
    """
    inverse = 1.0 / float(_as_fraction("scale", scale))
    return math.tanh(inverse / 2.0) * np.exp(-np.abs(np.asarray(k)) * inverse)


def discrete_laplace_variance(scale) -> float:
    r"""Variance :math:`2\alpha/(1-\alpha)^2` with :math:`\alpha = e^{-1/b}`."""
    inverse = 1.0 / float(_as_fraction("scale", scale))
    return 2.0 * math.exp(-inverse) / math.expm1(-inverse) ** 2


def discrete_laplace_event(sensitivity, scale, count=1, note="") -> PrivacyEvent:
    """Ledger event for ``count`` uses of discrete Laplace noise of scale ``scale``.

    Parameters
    ----------
    sensitivity : int, fractions.Fraction or float
        Sensitivity of the integer-valued query under replace-one.
    scale : int, fractions.Fraction or float
        The *requested* scale; the sampled scale is at least as large, so the recorded
        ``epsilon = sensitivity / scale`` is a valid (possibly slightly loose) bound.
    count : int, default=1
    note : str, default=""

    Returns
    -------
    PrivacyEvent
        Pure ``epsilon``; exact numerics.
    """
    return PrivacyEvent(
        mechanism="discrete-laplace",
        sensitivity=float(sensitivity),
        epsilon=discrete_laplace_epsilon(sensitivity, scale),
        count=count,
        note=note,
        numerics="exact",
    )
