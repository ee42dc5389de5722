"""The unit cache (:mod:`dplasso.experiments.checkpoint`): keys by content, frames read back
bit for bit, least recently used files pruned first. Not statistical."""
import os
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from dplasso.experiments.checkpoint import cached_tasks, content_digest, prune, unit_key
from dplasso.experiments.p1_baselines import baselines_experiment


@dataclass
class _Pair:
    a: object
    b: object


def test_equal_content_gives_one_digest_and_any_change_another():
    def build():
        return {"x": np.arange(6.0).reshape(2, 3), "frame": pd.DataFrame({"a": [1, 2]}),
                "pair": _Pair(sp.csr_array(np.eye(3)), {3, 1, 2}),
                "rng": np.random.default_rng(5), "n": 3, "f": 0.1}

    assert content_digest(build()) == content_digest(build())
    for key, other in [("x", np.arange(6.0).reshape(3, 2)), ("x", np.arange(6)),
                       ("frame", pd.DataFrame({"a": [1, 3]})),
                       ("pair", _Pair(sp.csr_array(2 * np.eye(3)), {3, 1, 2})),
                       ("rng", np.random.default_rng(6)), ("n", 3.0), ("f", 0.1 + 1e-17 * 0 + 2e-17)]:
        changed = {**build(), key: other}
        assert content_digest(changed) != content_digest(build()), key


def _unit(x):
    return pd.DataFrame({"sum": [float(np.sum(x))], "x0": [x[0]]})


def test_a_unit_with_new_arguments_is_computed_again_under_the_same_name(tmp_path):
    first = cached_tasks(tmp_path, [("u", {"s": 1}, (np.array([1.0, 2.0]),))], _unit)
    second = cached_tasks(tmp_path, [("u", {"s": 1}, (np.array([1.0, 3.0]),))], _unit)
    assert first[0]["sum"].item() == 3.0 and second[0]["sum"].item() == 4.0
    assert len(list(tmp_path.glob("u-*.pkl"))) == 2
    assert unit_key("u", {"s": 1}, _unit, (np.array([1.0, 2.0]),)) != unit_key(
        "u", {"s": 2}, _unit, (np.array([1.0, 2.0]),))


def test_cached_results_equal_an_uncached_run_bit_for_bit(tmp_path):
    """A cold cache, a warm cache and no cache give the same frame, dtypes and bits (but the
    measured ``seconds``), and the same results file; the warm run is the cold one's."""
    run = dict(dataset_ids=[], epsilons=[1.0, 5.0], n_trials=2,
               synthetic={"n": 400, "p": 10, "k": 3})
    plain = baselines_experiment(**run).drop(columns="seconds")
    cold = baselines_experiment(**run, cache_dir=tmp_path)
    warm = baselines_experiment(**run, cache_dir=tmp_path)
    pd.testing.assert_frame_equal(warm, cold, check_exact=True)
    pd.testing.assert_frame_equal(cold.drop(columns="seconds"), plain, check_exact=True)
    assert plain.to_csv(index=False) == warm.drop(columns="seconds").to_csv(index=False)


def test_prune_drops_the_least_recently_used_files_first(tmp_path):
    sizes = {}
    for i in range(4):
        path = tmp_path / f"unit{i}-k{SUFFIX}"
        path.write_bytes(b"x" * 1000)
        os.utime(path, (1000 + i, 1000 + i))
        sizes[path.name] = 1000
    os.utime(tmp_path / f"unit0-k{SUFFIX}", (5000, 5000))  # read recently
    assert prune(tmp_path, 2500) == (2, 2000)
    assert sorted(p.name for p in tmp_path.glob(f"*{SUFFIX}")) == [f"unit0-k{SUFFIX}",
                                                                   f"unit3-k{SUFFIX}"]
    assert prune(tmp_path, 10**6) == (0, 0)


SUFFIX = ".pkl"


def test_a_damaged_file_is_computed_again(tmp_path):
    units = [("u", {}, (np.array([1.0]),))]
    cached_tasks(tmp_path, units, _unit)
    (path,) = tmp_path.glob("u-*.pkl")
    path.write_bytes(b"not a pickle")
    assert cached_tasks(tmp_path, units, _unit)[0]["sum"].item() == 1.0


@pytest.mark.parametrize("value", [float("nan"), -0.0])
def test_floats_are_keyed_by_their_exact_value(value):
    assert content_digest(value) == content_digest(value)
    assert content_digest(-0.0) != content_digest(0.0)
