"""Nudging a float by ulps until the ledger's arithmetic agrees.

A calibration computes a noise scale or a budget share by a formula, then checks it in the
ledger's own float arithmetic, which may disagree with the formula by an ulp or two. Every
such check moves the value one ulp at a time (a scale up, a share down) with :func:`nudge`,
and a bounded number of times: a disagreement of more than :data:`MAX_ULP_STEPS` ulps is a
mismatch between the formula and the privacy map (a bug), and raises.
"""
from __future__ import annotations

import math

__all__ = ["MAX_ULP_STEPS", "nudge"]

MAX_ULP_STEPS = 64
"""Most ulps :func:`nudge` moves a value by: rounding moves a composed total by a few ulps,
more means the formula and the ledger's arithmetic disagree."""


def nudge(value, accept, *, up, what, why=None, max_steps=MAX_ULP_STEPS):
    """The first of ``value`` and its next ``max_steps`` floats that ``accept`` accepts.

    Parameters
    ----------
    value : float
        The start, tried first.
    accept : callable
        ``accept(v) -> bool``, called once per value tried, in order.
    up : bool
        Move toward ``+inf`` (a noise scale) if true, else toward ``0`` (a budget share).
    what : str
        What is nudged, opening the error message (e.g. ``"the Laplace scale"``).
    why : callable or None, default=None
        ``why(last) -> str`` ends the error message in place of "is still refused" (e.g.
        ``"still composes to epsilon=..."``).
    max_steps : int, default=MAX_ULP_STEPS
        Most ulps moved: ``max_steps + 1`` values are tried.

    Returns
    -------
    float

    Raises
    ------
    RuntimeError
        If no value is accepted: "``{what} {value} raised|lowered by {max_steps} ulps to
        {last} {why(last)}``".
    """
    start = value
    toward = math.inf if up else 0.0
    for step in range(max_steps + 1):
        if step:
            value = math.nextafter(value, toward)
        if accept(value):
            return value
    reason = why(value) if why is not None else "is still refused"
    raise RuntimeError(f"{what} {start!r} {'raised' if up else 'lowered'} by {max_steps} ulps "
                       f"to {value!r} {reason}")
