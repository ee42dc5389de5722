"""Optimisation over the L1 ball: losses, the Frank-Wolfe engine, the Wolfe gap, certified solvers.

``lam`` is always the radius of the L1-ball constraint, not a penalty weight. Weights are
batched over trials: ``(p, K)`` for binary and regression losses, ``(p, C, K)`` multinomial.
"""
from dplasso._lazy import lazy_exports

__all__ = [
    "FrankWolfeHistory",
    "FrankWolfeResult",
    "LogisticLoss",
    "Loss",
    "MultinomialLoss",
    "ReferenceSolution",
    "SquaredLoss",
    "exact_select",
    "frank_wolfe",
    "project_l1_ball",
    "random_l1_ball_init",
    "solve_reference",
    "solve_working_set",
    "squared_spectral_norm",
    "wolfe_gap",
]

lazy_exports(__name__, {
    "frank_wolfe": ("FrankWolfeHistory", "FrankWolfeResult", "exact_select", "frank_wolfe"),
    "l1_ball": ("random_l1_ball_init",),
    "losses": ("LogisticLoss", "Loss", "MultinomialLoss", "SquaredLoss", "squared_spectral_norm"),
    "reference": ("ReferenceSolution", "project_l1_ball", "solve_reference"),
    "wolfe_gap": ("wolfe_gap",),
    "working_set": ("solve_working_set",),
})
