"""Random number generators: one conversion used by every public entry point."""
from __future__ import annotations

import numbers

import numpy as np


def as_generator(random_state=None, name="random_state") -> np.random.Generator:
    """Return a ``numpy.random.Generator`` for ``random_state``.

    ``None`` draws fresh OS entropy, an integer ``>= 0`` seeds a new PCG64 generator, and a
    ``Generator`` is returned unchanged (so callers can share one stream). Anything else
    raises ``TypeError`` (a negative integer ``ValueError``) naming ``name``.
    """
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"{name} must be a non-negative integer seed, got {random_state}")
        return np.random.default_rng(int(random_state))
    if isinstance(random_state, np.random.Generator):
        return random_state
    raise TypeError(
        f"{name} must be None, an int or a numpy.random.Generator, "
        f"got {type(random_state).__name__}"
    )
