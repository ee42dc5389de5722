"""Synthetic sparse regression and classification data in the domain ``||x_i||_inf <= 1``.

Both generators share one design: ``Z`` with i.i.d. N(0, 1) entries, divided by the single
constant ``max_ij |Z_ij|``, so ``X = Z / max|Z|``. Every row then satisfies
``||x_i||_inf <= 1`` (the largest entry of the whole matrix is exactly ±1), and ``X`` is still
an isotropic Gaussian design, only scaled: ``X w`` is a scaled Gaussian linear predictor and
``1[X w > 0]`` is unchanged by the scaling. Normalising each row by its own sup norm would
instead change the distribution of every row (each would have an entry at ±1). The constant
depends on all of ``Z``, but the data are synthetic, so nothing private is involved; the bound
1 is the public domain every method assumes. With ``n p`` draws ``max|Z|`` is about
``sqrt(2 ln(2 n p))`` (5.5 for 3000 x 600), so entries of ``X`` have standard deviation about
0.18.

Randomness: ``random_state`` (None, int or ``numpy.random.Generator``) goes through
``numpy.random.default_rng``, which treats these three as
:func:`dplasso.privacy.rng.as_generator` does (``dplasso.data`` imports nothing from
``dplasso.privacy``).
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from scipy.special import expit
from scipy.stats import norm

RESPONSE_BOUNDS = ("generator", "worst-case")
"""Public response bounds of :func:`raj_synthetic`'s linear task: ``"generator"``
(:func:`raj_response_bound`) or ``"worst-case"`` (``||w_true||_1``, every row of the domain)."""

RESPONSE_BOUND_FAILURE = 1e-6
"""Probability, over the generator, that a data set exceeds the ``"generator"`` bound."""


@dataclass(frozen=True, eq=False)
class SyntheticDataset:
    """A synthetic dataset with its true coefficients.

    Attributes
    ----------
    name : str
        Short name (``"raj-linear"``, ``"raj-logistic"``, ``"sparse-logistic"``).
    X : ndarray of float64, shape (n, p)
        Features; ``max_ij |X_ij| = 1``.
    y : ndarray, shape (n,)
        ``float64`` responses (task ``"linear"``) or ``int64`` labels in {0, 1}.
    w_true : ndarray of float64, shape (p,)
        The sparse coefficient vector the labels come from.
    task : {"linear", "logistic"}
        Regression (squared loss) or binary classification.
    y_bound : float or None
        Public bound on ``|y_i|`` for the linear task (:func:`raj_synthetic`'s
        ``response_bound``); ``None`` for labels.
    description : str
        How the data were generated, in words.
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    w_true: np.ndarray
    task: str
    y_bound: float | None
    description: str


def raj_response_bound(n, p, n_nonzero, failure_probability=RESPONSE_BOUND_FAILURE):
    r"""Public bound on ``max_i |y_i|`` of :func:`raj_synthetic`'s linear task, from the generator.

    .. math::

        y_i = \frac{s_i}{M}, \quad s_i = \sum_j w^\star_j Z_{ij} \sim \mathcal N(0, k),
        \quad M = \max_{a,b} |Z_{ab}|, \qquad
        P\Big(\max_i |y_i| > \frac{s}{m}\Big) \le 2n\,\bar\Phi\big(s/\sqrt k\big)
        + \big(1 - 2\bar\Phi(m)\big)^{np},

    with :math:`k` the number of entries :math:`\pm 1` of :math:`w^\star` (their positions are
    drawn independently of :math:`Z`, so each :math:`s_i` is exactly :math:`\mathcal N(0, k)`).
    The event :math:`\max_i |y_i| > s/m` needs :math:`\max_i |s_i| > s` (union bound over the
    rows) or :math:`M < m` (the ``np`` independent entries all below ``m``). Each term gets half
    of ``failure_probability``; the bound is :math:`s/m`.

    Parameters
    ----------
    n, p : int
        Rows and features.
    n_nonzero : int
        ``n_pos + n_neg``, the number of entries :math:`\pm 1` of ``w_true``.
    failure_probability : float, default=RESPONSE_BOUND_FAILURE
        In ``(0, 1)``: the generator exceeds the bound with at most this probability.

    Returns
    -------
    float
        The bound, a function of ``(n, p, n_nonzero, failure_probability)`` only: public.

    Notes
    -----
    The worst-case bound over the domain, :math:`|x \cdot w^\star| \le \|w^\star\|_1
    \max|x| = k`, holds for every row; this one holds for the generator's rows with
    probability at least ``1 - failure_probability`` (:func:`raj_synthetic` raises when a
    draw exceeds it). About 12 for P2's 3000 x 600 with ``k = 70``, against 70.

    Examples
    --------
    >>> round(raj_response_bound(3000, 600, 70), 2)
    11.98
    """
    n, p, k = (_check_count(v, name, 1) for v, name in ((n, "n"), (p, "p"),
                                                        (n_nonzero, "n_nonzero")))
    if not (isinstance(failure_probability, numbers.Real) and 0 < failure_probability < 1):
        raise ValueError(f"failure_probability must be in (0, 1), got {failure_probability!r}")
    half = 0.5 * float(failure_probability)
    s = np.sqrt(k) * norm.isf(half / (2 * n))
    # (1 - 2 q)^(np) = half  <=>  q = -expm1(log(half) / (np)) / 2, computed without rounding
    m = norm.isf(-np.expm1(np.log(half) / (n * p)) / 2)
    return float(s / m)


def raj_synthetic(n=3000, p=600, n_pos=35, n_neg=35, task="linear", random_state=None,
                  response_bound="generator"):
    """P2's synthetic data (from Raj et al. 2016): Gaussian design, ±1 sparse coefficients.

    Parameters
    ----------
    n, p : int, default=3000, 600
        Rows and features.
    n_pos, n_neg : int, default=35, 35
        Number of coefficients equal to +1 and to -1 (at random positions; the rest are 0).
    task : {"linear", "logistic"}, default="linear"
        ``y = X w_true`` (linear) or ``y = 1[X w_true > 0]`` (logistic, labels in {0, 1}).
    random_state : None, int or numpy.random.Generator, default=None
        Seed. The same seed gives the same ``X`` and ``w_true`` for both tasks.
    response_bound : {"generator", "worst-case"}, default="generator"
        The linear task's public ``y_bound``: :func:`raj_response_bound` (holds for the
        generator's data with probability ``1 - RESPONSE_BOUND_FAILURE``) or
        ``n_pos + n_neg`` (``||w_true||_1``, every row of the domain).

    Returns
    -------
    SyntheticDataset
        ``X = Z / max|Z|`` with ``Z`` i.i.d. N(0, 1) (see the module docstring).

    Raises
    ------
    ValueError
        On bad arguments, or when a linear draw exceeds the ``"generator"`` bound (an event
        of probability at most ``RESPONSE_BOUND_FAILURE``).
    """
    n, p, n_pos, n_neg = (_check_count(v, name, minimum) for v, name, minimum in (
        (n, "n", 1), (p, "p", 1), (n_pos, "n_pos", 0), (n_neg, "n_neg", 0)))
    if not 1 <= n_pos + n_neg <= p:
        raise ValueError(f"n_pos + n_neg must be in [1, p={p}], got {n_pos + n_neg}")
    if task not in ("linear", "logistic"):
        raise ValueError(f"task must be 'linear' or 'logistic', got {task!r}")
    if response_bound not in RESPONSE_BOUNDS:
        raise ValueError(f"response_bound must be one of {RESPONSE_BOUNDS}, got {response_bound!r}")
    rng = np.random.default_rng(random_state)
    X = _scaled_gaussian_design(rng, n, p)
    support = rng.choice(p, size=n_pos + n_neg, replace=False)
    w_true = np.zeros(p)
    w_true[support[:n_pos]] = 1.0
    w_true[support[n_pos:]] = -1.0
    margin = X @ w_true
    if task == "linear":
        y, labels = margin, "y = X w"
        y_bound = (float(n_pos + n_neg) if response_bound == "worst-case"
                   else raj_response_bound(n, p, n_pos + n_neg))
        if np.abs(y).max() > y_bound:
            raise ValueError(
                f"this draw has max |y_i| = {np.abs(y).max():.4g} above the generator bound "
                f"{y_bound:.4g} (probability <= {RESPONSE_BOUND_FAILURE:g}); use another "
                "random_state or response_bound='worst-case'")
    else:
        y, y_bound, labels = (margin > 0).astype(np.int64), None, "y = 1[X w > 0]"
    return SyntheticDataset(
        name=f"raj-{task}", X=X, y=y, w_true=w_true, task=task, y_bound=y_bound,
        description=(f"Raj et al. design: N(0,1) entries divided by their global max |.|; "
                     f"w: {n_pos} x (+1), {n_neg} x (-1) at random positions; {labels}"),
    )


def sparse_logistic_synthetic(n=5000, p=500, k=10, coef_value=5.0, random_state=None,
                              intercept=0.0):
    """P1's synthetic family: the same design, Bernoulli labels from a ``k``-sparse model.

    Parameters
    ----------
    n, p : int, default=5000, 500
        Rows and features.
    k : int, default=10
        Support size of ``w_true`` (random positions).
    coef_value : float, default=5.0
        Magnitude of each nonzero coefficient; signs are random ±1, so
        ``||w_true||_1 = k * coef_value``. ``0`` gives labels independent of ``X`` (a task
        with no signal).
    random_state : None, int or numpy.random.Generator, default=None
        Seed.
    intercept : float, default=0.0
        Added to every logit (0: classes about balanced; larger values make class 1 the
        majority). The draws of ``X`` and ``w_true`` do not depend on it.

    Returns
    -------
    SyntheticDataset
        ``y_i ~ Bernoulli(sigmoid(<x_i, w_true> + intercept))``, independent given ``X``.

    Notes
    -----
    The defaults are chosen to show P1's effect: a support of 10 among 500 features is far
    sparser than the dense output of private Frank-Wolfe, and with entries of ``X`` of
    standard deviation about 0.18 the logit ``<x_i, w_true>`` has standard deviation about
    ``0.18 * sqrt(k) * coef_value`` (2.9 here), so labels are informative without being
    separable, and 5000 rows are enough for a non-private L1-constrained fit to find the
    support.
    """
    n, p, k = (_check_count(v, name, 1) for v, name in ((n, "n"), (p, "p"), (k, "k")))
    if k > p:
        raise ValueError(f"k must be <= p={p}, got {k}")
    if not (isinstance(coef_value, numbers.Real) and np.isfinite(coef_value)
            and coef_value >= 0):
        raise ValueError(f"coef_value must be a finite number >= 0, got {coef_value!r}")
    if not (isinstance(intercept, numbers.Real) and np.isfinite(intercept)):
        raise ValueError(f"intercept must be a finite number, got {intercept!r}")
    rng = np.random.default_rng(random_state)
    X = _scaled_gaussian_design(rng, n, p)
    w_true = np.zeros(p)
    w_true[rng.choice(p, size=k, replace=False)] = coef_value * rng.choice([-1.0, 1.0], size=k)
    y = (rng.random(n) < expit(X @ w_true + intercept)).astype(np.int64)
    offset = f" + {intercept:g}" if intercept else ""
    return SyntheticDataset(
        name="sparse-logistic", X=X, y=y, w_true=w_true, task="logistic", y_bound=None,
        description=(f"N(0,1) entries divided by their global max |.|; w: {k} entries "
                     f"±{coef_value:g} at random positions; y ~ Bernoulli(sigmoid(X w"
                     f"{offset}))"),
    )


def _scaled_gaussian_design(rng: np.random.Generator, n: int, p: int) -> np.ndarray:
    Z = rng.standard_normal((n, p))
    return Z / np.abs(Z).max()


def _check_count(value, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)
