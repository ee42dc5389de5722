"""``dplasso.experiments.names``: plain labels that keep experiment modules out of the display
modules' import closures (the unit cache's and the notebooks' keys)."""
import ast
import inspect

import pytest

from dplasso.experiments import beyond, beyond_p2, names, p1, p1_baselines, p2
from dplasso.experiments.closure import closure

DISPLAYS = ("display", "p1_display", "p2_display", "beyond_display", "beyond_p2_display")


def test_names_imports_nothing_and_holds_plain_values():
    tree = ast.parse(inspect.getsource(names))
    assert not [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]
    for name in names.__all__:
        value = getattr(names, name)
        assert ast.literal_eval(repr(value)) == value, name


@pytest.mark.parametrize("display", DISPLAYS)
def test_a_display_module_reaches_no_experiment_module(display):
    module = f"dplasso.experiments.{display}"
    reached = {m for m in closure([module]) if m.startswith("dplasso.experiments.")}
    assert reached <= {module, "dplasso.experiments.names", "dplasso.experiments.verdicts"}


def test_the_experiment_modules_keep_their_names():
    assert p1.SYNTHETIC == p1_baselines.SYNTHETIC == names.SYNTHETIC
    assert p1_baselines.METHODS is names.BASELINE_METHODS
    assert (beyond.VARIANTS, beyond.DEFAULT_VARIANT, beyond.L2_VARIANT) == (
        names.BEYOND_VARIANTS, names.DEFAULT_VARIANT, names.L2_VARIANT)
    assert (p2.TASKS, p2.SEMANTICS, p2.P2_SEMANTICS) == (
        names.TASKS, names.SEMANTICS, names.P2_SEMANTICS)
    assert (beyond_p2.VARIANTS, beyond_p2.TASKS, beyond_p2.REFERENCE) == (
        names.BEYOND_P2_VARIANTS, names.TASKS, names.BEYOND_P2_REFERENCE)
