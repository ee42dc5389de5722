r"""Dividing a privacy budget into shares that never add up to more than the whole.

In floating point a divided budget can be overspent by rounding: ``f * eps`` and
``eps - f * eps`` may add up to an ulp more than ``eps``, and ``R`` copies of ``eps / R`` to
more than ``eps``. Both splits here round the last share down, an ulp at a time, until the
shares' exact sum (the floats added in exact rational arithmetic) is at most the whole.

Why exact and not ``math.fsum``: a fit's guarantee adds its parts' epsilons with ``math.fsum``
(correctly rounded, so monotone), and each part's calibration keeps that part's epsilon at or
below its share. If the shares' exact sum is at most ``eps``, so is the parts' exact sum, and
its correctly rounded value is at most the float ``eps``. A split whose shares only *round* to
at most ``eps`` gives no such bound once a share is split again (the Sparsifier splits the
threshold's rest between the count and the steps), while exact bounds nest: every split of a
share keeps the total's exact sum at most ``eps``.
"""
from __future__ import annotations

import math
from fractions import Fraction

from dplasso.privacy._validation import check_count, check_nonnegative
from dplasso.privacy.ulps import nudge

__all__ = ["split_share", "even_share", "remaining_share"]

def split_share(total, fraction):
    r"""``(share, rest)``: :math:`(f\,\varepsilon, \varepsilon - f\,\varepsilon)`, with
    ``share + rest <= total`` exactly (``rest`` rounded down by ulps if needed).

    Parameters
    ----------
    total : float
        The budget divided, ``>= 0`` and finite.
    fraction : float
        The share's fraction, in ``[0, 1]``.

    Returns
    -------
    tuple of float

    Raises
    ------
    ValueError
        If ``total`` is negative or not finite, or ``fraction`` is outside ``[0, 1]``.
    """
    total = check_nonnegative("total", total)
    fraction = check_nonnegative("fraction", fraction)
    if fraction > 1:
        raise ValueError(f"fraction must lie in [0, 1], got {fraction!r}")
    share = fraction * total
    rest = total - share
    rest = nudge(rest, lambda r: Fraction(share) + Fraction(r) <= Fraction(total), up=False,
                 what=f"split_share (total={total!r}, share={share!r}): the rest",
                 why=lambda r: "still adds up with the share to more than the total")
    return share, rest


def even_share(total, parts):
    r"""The share of each of ``parts`` equal parts: :math:`\varepsilon / R`, rounded down by
    ulps until ``parts * share <= total`` exactly.

    Parameters
    ----------
    total : float
        The budget divided, ``>= 0`` and finite.
    parts : int
        ``R >= 1``.

    Returns
    -------
    float
    """
    total = check_nonnegative("total", total)
    parts = check_count("parts", parts)
    share = total / parts
    return nudge(share, lambda s: parts * Fraction(s) <= Fraction(total), up=False,
                 what=f"even_share (total={total!r}, parts={parts}): the share",
                 why=lambda s: f"still adds up {parts} times to more than the total")


def remaining_share(total, *spent):
    r"""What is left of ``total`` after the shares ``spent``: :math:`\varepsilon - \sum_i s_i`,
    rounded down by ulps until the shares and the rest add up to at most ``total`` exactly.

    Raises
    ------
    ValueError
        If ``total`` or a share is negative or not finite, or the shares exceed ``total``.
    """
    total = check_nonnegative("total", total)
    spent = [check_nonnegative("spent", share) for share in spent]
    if sum(map(Fraction, spent)) > Fraction(total):
        raise ValueError(f"the shares {spent} add up to more than total={total!r}")
    rest = max(total - math.fsum(spent), 0.0)
    exact = Fraction(total) - sum(map(Fraction, spent))
    return nudge(rest, lambda r: Fraction(r) <= exact, up=False,
                 what=f"remaining_share (total={total!r}, spent={spent}): the rest",
                 why=lambda r: "still adds up with the shares spent to more than the total")
