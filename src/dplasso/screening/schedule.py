"""When screening runs inside Frank-Wolfe, and how a screening budget splits over the rounds."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dplasso.optim.validation import check_n_iter
from dplasso.privacy.shares import even_share

__all__ = ["ScreeningSchedule"]


@dataclass(frozen=True)
class ScreeningSchedule:
    """Screening rounds of a Frank-Wolfe run of ``n_iter`` steps.

    The engine calls its callback before each step ``t = 1, ..., n_iter`` with the iterate
    after ``t - 1`` steps. A round happens at every ``t`` divisible by ``every`` (so
    ``every=1`` screens before every step and the last round is before step ``n_iter``
    whenever ``every`` divides it), or only at ``t = n_iter`` when ``every`` is ``None``
    (the "last iteration" schedule of P2).

    Parameters
    ----------
    n_iter : int
        Number of Frank-Wolfe steps ``T >= 1``.
    every : int or None, default=None
        Screen every ``every`` steps (``1 <= every <= n_iter``); ``None`` means last only.

    Examples
    --------
    >>> ScreeningSchedule(1000, every=50).rounds
    20
    >>> ScreeningSchedule(1000).rounds
    1
    """

    n_iter: int
    every: int | None = None

    def __post_init__(self):
        object.__setattr__(self, "n_iter", check_n_iter(self.n_iter))
        if self.every is not None:
            every = check_n_iter(self.every, name="every")
            if every > self.n_iter:
                raise ValueError(
                    f"every={every} exceeds n_iter={self.n_iter}: the schedule has no round"
                )
            object.__setattr__(self, "every", every)

    @property
    def rounds(self) -> int:
        """Number of screening rounds ``R``."""
        return 1 if self.every is None else self.n_iter // self.every

    @property
    def iterations(self) -> np.ndarray:
        """The steps ``t`` (1-based, before the step) at which a round happens."""
        if self.every is None:
            return np.array([self.n_iter])
        return np.arange(self.every, self.n_iter + 1, self.every)

    def is_round(self, t) -> bool:
        """Whether the callback call before step ``t`` is a screening round."""
        if not 1 <= t <= self.n_iter:
            return False
        return t == self.n_iter if self.every is None else t % self.every == 0

    def round_budget(self, epsilon, delta):
        """Split a total ``(epsilon, delta)`` evenly over the rounds (basic composition).

        Returns
        -------
        tuple of float
            ``(epsilon / R, delta / R)``, rounded down by ulps where needed
            (:func:`dplasso.privacy.shares.even_share`): ``R`` rounds at this level compose
            (basic) to at most ``(epsilon, delta)``, exactly.
        """
        return even_share(epsilon, self.rounds), even_share(delta, self.rounds)
