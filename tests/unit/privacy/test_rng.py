"""The one random-state conversion used by every public entry point."""
import numpy as np
import pytest

from dplasso.privacy.rng import as_generator


def test_int_seed_is_reproducible_and_generator_passes_through():
    assert as_generator(5).random() == as_generator(np.int64(5)).random()
    rng = np.random.default_rng(0)
    assert as_generator(rng) is rng
    assert isinstance(as_generator(None), np.random.Generator)


def test_other_types_are_refused():
    with pytest.raises(TypeError, match="random_state must be None, an int or a numpy"):
        as_generator(np.random.RandomState(0))


@pytest.mark.parametrize("bad, error", [(-1, ValueError), (True, TypeError), (1.5, TypeError),
                                        ("0", TypeError)])
def test_bad_seeds_name_the_argument(bad, error):
    with pytest.raises(error, match="^random_state must"):
        as_generator(bad)
    with pytest.raises(error, match="^seed must"):
        as_generator(bad, name="seed")
