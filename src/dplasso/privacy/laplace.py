r"""The Laplace mechanism: noise sampler, privacy map and ledger event.

Adding independent :math:`\mathrm{Lap}(b)` noise (density :math:`e^{-|z|/b}/(2b)`) to each
coordinate of a vector-valued query with L1 sensitivity :math:`\Delta_1` is
:math:`(\Delta_1/b)`-DP (Dwork & Roth 2014, Thm 3.6).
"""
from __future__ import annotations

from dplasso.privacy._validation import check_nonnegative, check_positive
from dplasso.privacy.accounting import PrivacyEvent

__all__ = ["laplace_noise", "laplace_epsilon", "laplace_scale", "laplace_event"]


def laplace_noise(scale, size, rng):
    r"""Draw i.i.d. :math:`\mathrm{Lap}(\text{scale})` noise.

    Parameters
    ----------
    scale : float
        Noise scale :math:`b > 0`.
    size : int or tuple of int
        Output shape.
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    ndarray of float64
        Noise of shape ``size``.

    Notes
    -----
    - Neighbouring relation: replace-one (the caller's sensitivity must be stated for it).
    - Data domain: any query; the mechanism only sees the query's value.
    - Sensitivity: L1 sensitivity :math:`\Delta_1` of the query the noise is added to.
    - Guarantee: pure :math:`(\Delta_1/b)`-DP (:func:`laplace_epsilon`).
    - Numerics: idealised floats (numpy's inverse-CDF sampler in float64); the guarantee
      assumes real arithmetic (Mironov 2012).
    """
    scale = check_positive("scale", scale)
    return rng.laplace(0.0, scale, size)


def laplace_epsilon(sensitivity, scale) -> float:
    r"""Privacy map of the Laplace mechanism: :math:`\varepsilon = \Delta_1 / b`.

    Parameters
    ----------
    sensitivity : float
        L1 sensitivity :math:`\Delta_1 \ge 0` under replace-one.
    scale : float
        Noise scale :math:`b > 0`.

    Returns
    -------
    float
    """
    return check_nonnegative("sensitivity", sensitivity) / check_positive("scale", scale)


def laplace_scale(sensitivity, epsilon) -> float:
    r"""Noise scale for a target :math:`\varepsilon`: :math:`b = \Delta_1/\varepsilon`.

    Parameters
    ----------
    sensitivity : float
        L1 sensitivity :math:`\Delta_1 > 0` under replace-one.
    epsilon : float
        Target :math:`\varepsilon > 0`.

    Returns
    -------
    float
    """
    return check_positive("sensitivity", sensitivity) / check_positive("epsilon", epsilon)


def laplace_event(sensitivity, scale, count=1, note="") -> PrivacyEvent:
    """Ledger event for ``count`` uses of :math:`\\mathrm{Lap}(b)` on an L1-``sensitivity`` query.

    Parameters
    ----------
    sensitivity : float
        L1 sensitivity under replace-one.
    scale : float
        Noise scale ``b``.
    count : int, default=1
        Number of uses.
    note : str, default=""
        What was released.

    Returns
    -------
    PrivacyEvent
        Pure ``epsilon = sensitivity / scale``; idealised-float numerics.
    """
    return PrivacyEvent(
        mechanism="laplace",
        sensitivity=sensitivity,
        epsilon=laplace_epsilon(sensitivity, scale),
        count=count,
        note=note,
        numerics="idealised-float",
    )
