"""The command line's path imports nothing heavy: numpy, scipy, pandas, scikit-learn,
papermill, jupytext and dask load where a fit, a notebook or a cluster needs them, so the
CLI's errors answer in a fraction of a second (tests/unit/reproduce/test_cli_errors.py)."""
import importlib
import subprocess
import sys
from pathlib import Path

import jupytext
import pytest

from dplasso.reproduce.parameters import parameter_defaults, parameters_cell
from dplasso.reproduce.registry import load_registry

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("numpy", "scipy", "pandas", "sklearn", "papermill", "jupytext", "nbformat", "openml",
         "distributed", "matplotlib", "tqdm", "psutil")
LAZY_PACKAGES = ("dplasso.privacy", "dplasso.data", "dplasso.optim", "dplasso.estimators")


@pytest.mark.parametrize("module", ["dplasso.cli", "dplasso.reproduce.parameters",
                                    "dplasso.estimators.params", "dplasso.data.catalog",
                                    "dplasso.privacy.accounting"])
def test_the_command_lines_modules_import_nothing_heavy(module):
    code = (f"import sys, {module}\n"
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    assert done.stdout.strip() == "[]", done.stdout


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_every_public_name_of_a_lazy_package_resolves(package):
    module = importlib.import_module(package)
    for name in module.__all__:
        value = getattr(module, name)
        assert value is getattr(importlib.import_module(
            f"{package}.{module._lazy_exports[name]}"), name)
    assert set(module.__all__) == set(module._lazy_exports)
    assert set(module.__all__) <= set(dir(module))
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        module.nope


def test_a_name_that_is_also_its_submodules_name_stays_the_object():
    import dplasso.optim
    import dplasso.optim.frank_wolfe  # the import system binds the submodule on the package
    from dplasso.optim import frank_wolfe, wolfe_gap

    assert callable(frank_wolfe) and callable(wolfe_gap)
    assert dplasso.optim.frank_wolfe is frank_wolfe


@pytest.mark.parametrize("name", list(load_registry(ROOT).notebooks))
def test_the_myst_reader_finds_the_parameters_cell_jupytext_finds(name):
    source = load_registry(ROOT).notebooks[name].source
    (cell,) = [c for c in jupytext.read(source).cells
               if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert parameters_cell(source).strip() == cell.source.strip()
    assert parameter_defaults(parameters_cell(source)) == parameter_defaults(cell.source)


def test_the_myst_reader_takes_a_yaml_options_block_and_other_formats_go_to_jupytext(tmp_path):
    header = "---\njupytext:\n  text_representation: {format_name: myst}\n---\n"
    block = tmp_path / "block.md"
    block.write_text(header + "```{code-cell} ipython3\n---\ntags: [parameters]\n---\nx = 1\n```\n")
    assert parameters_cell(block) == "x = 1"
    script = tmp_path / "script.py"
    script.write_text("# %% tags=[\"parameters\"]\ny = 2\n")
    assert parameters_cell(script).strip() == "y = 2"
    none = tmp_path / "none.md"
    none.write_text(header + "```{code-cell} ipython3\nz = 3\n```\n")
    with pytest.raises(ValueError, match="has no code cell tagged 'parameters'"):
        parameters_cell(none)
