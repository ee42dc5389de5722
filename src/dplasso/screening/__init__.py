"""Safe screening for the L1-ball problem and its private version (paper P2).

Modules: :mod:`~dplasso.screening.constants` (loss curvature and range bounds),
:mod:`~dplasso.screening.rule` (the two safe radii, the floating-point guard, the rule),
:mod:`~dplasso.screening.private` (the Gaussian release and its replace-one sensitivity),
:mod:`~dplasso.screening.schedule` (screening rounds and the budget split),
:mod:`~dplasso.screening.callback` (the Frank-Wolfe screening hook).
"""
from dplasso.screening.callback import ScreeningCallback, make_screening_callback
from dplasso.screening.constants import Curvature, LossRange, curvature, loss_range
from dplasso.screening.private import (
    PrivateScreeningInfo,
    ScreeningSensitivity,
    SplitScreeningInfo,
    SplitScreeningSensitivity,
    private_screen,
    private_screen_split,
    screening_sensitivity,
    split_rule,
    split_screening_sensitivity,
)
from dplasso.screening.rule import (
    RADIUS_KINDS,
    ScreeningResult,
    dual_radius,
    gap_rounding_floor,
    primal_radius,
    safe_radius,
    screen,
)
from dplasso.screening.schedule import ScreeningSchedule

__all__ = [
    "Curvature",
    "LossRange",
    "PrivateScreeningInfo",
    "RADIUS_KINDS",
    "ScreeningCallback",
    "ScreeningResult",
    "ScreeningSchedule",
    "ScreeningSensitivity",
    "SplitScreeningInfo",
    "SplitScreeningSensitivity",
    "curvature",
    "dual_radius",
    "gap_rounding_floor",
    "loss_range",
    "make_screening_callback",
    "primal_radius",
    "private_screen",
    "private_screen_split",
    "safe_radius",
    "screen",
    "screening_sensitivity",
    "split_rule",
    "split_screening_sensitivity",
]
