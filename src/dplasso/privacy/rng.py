"""Random number generators: one conversion used by every public entry point."""
from __future__ import annotations

import numbers

import numpy as np


def as_generator(random_state=None) -> np.random.Generator:
    """Return a ``numpy.random.Generator`` for ``random_state``.

    ``None`` draws fresh OS entropy, an integer seeds a new PCG64 generator, and a
    ``Generator`` is returned unchanged (so callers can share one stream).
    """
    if random_state is None or isinstance(random_state, numbers.Integral):
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.Generator):
        return random_state
    raise TypeError(
        "random_state must be None, an int or a numpy.random.Generator, "
        f"got {type(random_state).__name__}"
    )
