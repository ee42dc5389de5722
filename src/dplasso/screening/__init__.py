"""Safe screening for the L1-ball problem and its private version (paper P2).

Modules: :mod:`~dplasso.screening.constants` (loss curvature and range bounds),
:mod:`~dplasso.screening.rule` (the two safe radii, the floating-point guard, the rule),
:mod:`~dplasso.screening.private` (the Gaussian release and its replace-one sensitivity),
:mod:`~dplasso.screening.schedule` (screening rounds and the budget split),
:mod:`~dplasso.screening.callback` (the Frank-Wolfe screening hook),
:mod:`~dplasso.screening.noisy_min` (a round screening at most one coordinate, by
report-noisy-min) and :mod:`~dplasso.screening.iterative` (private Frank-Wolfe with such
rounds, its budget split and ledger).
"""
from dplasso.screening.callback import ScreeningCallback, make_screening_callback
from dplasso.screening.constants import Curvature, LossRange, curvature, loss_range
from dplasso.screening.iterative import (
    IterativeScreeningResult,
    NoisyMinScreeningCallback,
    NoisyMinScreeningPlan,
    plan_noisy_min_screening,
    private_frank_wolfe_screening,
)
from dplasso.screening.noisy_min import (
    NoisyMinScreeningInfo,
    NoisyMinScreeningSensitivity,
    noisy_min_screening_sensitivity,
    private_screen_one,
)
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
    "IterativeScreeningResult",
    "LossRange",
    "NoisyMinScreeningCallback",
    "NoisyMinScreeningInfo",
    "NoisyMinScreeningPlan",
    "NoisyMinScreeningSensitivity",
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
    "noisy_min_screening_sensitivity",
    "plan_noisy_min_screening",
    "primal_radius",
    "private_frank_wolfe_screening",
    "private_screen",
    "private_screen_one",
    "private_screen_split",
    "safe_radius",
    "screen",
    "screening_sensitivity",
    "split_rule",
    "split_screening_sensitivity",
]
