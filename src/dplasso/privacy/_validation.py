"""Argument checks shared by the privacy modules.

Each check raises ``ValueError`` (``TypeError`` for a wrong kind of object) with a message
naming the argument and the problem, and returns the value converted to the type used.
"""
from __future__ import annotations

import math
import numbers


def _real(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    return value


def check_positive(name, value):
    """``value`` as a float, required finite and ``> 0``."""
    value = float(_real(name, value))
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return value


def check_nonnegative(name, value):
    """``value`` as a float, required finite and ``>= 0``."""
    value = float(_real(name, value))
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return value


def check_delta(name, value, *, allow_zero):
    """A failure probability: ``value`` in ``[0, 1)`` (``(0, 1)`` when ``allow_zero`` is false)."""
    value = float(_real(name, value))
    low_ok = value >= 0 if allow_zero else value > 0
    if not (math.isfinite(value) and low_ok and value < 1):
        interval = "[0, 1)" if allow_zero else "(0, 1)"
        raise ValueError(f"{name} must lie in {interval}, got {value!r}")
    return value


def check_count(name, value):
    """A repetition count: an integer ``>= 1``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    return int(value)
