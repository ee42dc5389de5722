"""``-p`` overrides are checked against the notebooks' parameters before any kernel starts."""
import time
from pathlib import Path

import pytest

from dplasso.reproduce.parameters import check_override, parameter_defaults
from dplasso.reproduce.registry import load_registry
from dplasso.reproduce.runner import parse_overrides, plan

ROOT = Path(__file__).resolve().parents[3]

CELL = """\
profile = "paper"
cache_dir = None
datasets = ["synthetic", 40, 59]
epsilons = [0.1, 0.5]
n_trials = 20
lam = 10.0
delta = 1 / 6000
flag = False
synthetic = {"n": 25000}
count_sensitivity = 1  # or "max"
"""


def test_parameter_defaults_reads_literals_and_simple_arithmetic():
    defaults = parameter_defaults(CELL)
    assert defaults["delta"] == 1 / 6000 and defaults["datasets"] == ["synthetic", 40, 59]
    assert defaults["cache_dir"] is None and set(defaults) >= {"flag", "synthetic"}


@pytest.mark.parametrize("name, value", [
    ("n_trials", 3), ("lam", 2), ("lam", 2.5), ("flag", True), ("cache_dir", "/tmp/x"),
    ("epsilons", [1, 2.5]), ("datasets", [44, "synthetic"]), ("count_sensitivity", "max"),
    ("count_sensitivity", 3), ("synthetic", {"n": 10}), ("delta", 0.0),
])
def test_good_overrides_pass(name, value):
    check_override("nb", name, value, parameter_defaults(CELL))


@pytest.mark.parametrize("name, value, message", [
    ("n_trials", 2.5, r"n_trials=2.5 does not fit notebook 'nb': n_trials must be an integer"),
    ("n_trials", "x", "n_trials must be an integer"),
    ("flag", 1, "flag must be true or false"),
    ("synthetic", [1], "synthetic must be a mapping"),
    ("lam", "abc", "lam must be a real number"),
    ("lam", -1.0, "lam must be a finite number > 0"),
    ("epsilons", "foo", "epsilons must be a non-empty list"),
    ("epsilons", [0.5, 0], "epsilons must be a finite number > 0"),
    ("datasets", "foo", "datasets must be a list of datasets"),
    ("datasets", [44, 99999], "datasets: 99999 is not an OpenML id of the catalogue"),
    ("datasets", ["synthetc"], "'synthetc' is not an OpenML id.*nor 'synthetic'"),
    ("count_sensitivity", "maxx", 'count_sensitivity must be "max" or an integer >= 1'),
    ("count_sensitivity", 0, "count_sensitivity must be >= 1"),
    ("delta", 1.5, r"delta must lie in \[0, 1\)"),
])
def test_bad_overrides_are_one_line_value_errors_naming_the_parameter(name, value, message):
    with pytest.raises(ValueError, match=message) as err:
        check_override("nb", name, value, parameter_defaults(CELL))
    assert str(err.value).startswith(f"-p {name}=") and "\n" not in str(err.value)


@pytest.mark.parametrize("text", ["[1, 2", "{a: 1", "a: b: c", "'open"])
def test_yaml_errors_are_one_line_naming_the_text(text):
    with pytest.raises(ValueError, match=r"^-p datasets: .* is not a YAML value") as err:
        parse_overrides([f"datasets={text}"])
    assert text in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("override, message", [
    ("datasets=foo", "notebook 'datasets'.*'foo' is not an OpenML id.*nor 'all'"),
    ("count_sensitivity=maxx", "notebook 'p1-sparsity'.*\"max\" or an integer"),
])
def test_the_project_notebooks_refuse_bad_values_well_under_a_second(override, message):
    registry = load_registry(ROOT)
    ids = ["datasets"] if override.startswith("datasets") else ["p1-sparsity"]
    started = time.perf_counter()
    with pytest.raises(ValueError, match=message):
        plan(registry, ids, "ci", parse_overrides([override]))
    assert time.perf_counter() - started < 0.5
