"""Optimisation over the L1 ball: losses, the Frank-Wolfe engine, the Wolfe gap, certified solvers.

``lam`` is always the radius of the L1-ball constraint, not a penalty weight. Weights are
batched over trials: ``(p, K)`` for binary and regression losses, ``(p, C, K)`` multinomial.
"""
from dplasso.optim.frank_wolfe import (
    FrankWolfeHistory,
    FrankWolfeResult,
    exact_select,
    frank_wolfe,
)
from dplasso.optim.l1_ball import random_l1_ball_init
from dplasso.optim.losses import (
    LogisticLoss,
    Loss,
    MultinomialLoss,
    SquaredLoss,
    squared_spectral_norm,
)
from dplasso.optim.reference import ReferenceSolution, project_l1_ball, solve_reference
from dplasso.optim.wolfe_gap import wolfe_gap
from dplasso.optim.working_set import solve_working_set

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
