"""A light core: ``pip install dplasso`` installs the library alone, and what needs an extra says
which, in one line.

The core install is checked here without a second environment: a process of its own marks
every module an extra installs as absent (``sys.modules[name] = None``, which makes ``import``
raise ``ModuleNotFoundError`` and ``importlib.util.find_spec`` answer None, as in a venv that
lacks them), then imports every library module, fits an estimator in a pipeline and runs the
command line. The fresh-venv measurement of the real core install is in the commit message
and README.md.
"""
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from breast_cancer import documented_ranges
from dplasso._extras import EXTRAS, MissingExtraError, import_extra, require_extra
from dplasso.cli import main as cli_main

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
MODULE_OF = {"sphinx-mathjax-offline": "sphinx-mathjax-offline"}
"""The distributions whose top-level module is not their name with ``_`` for ``-``."""
ABSENT = sorted({m for modules in EXTRAS.values() for m in modules} | {"nbformat", "IPython"})
"""What a core install lacks: every extra's modules, and two the extras bring along that the
library imports by name (papermill's nbformat, ipykernel's IPython)."""


def _distribution(requirement):
    return requirement.split(";")[0].split("[")[0].split("<")[0].split(">")[0].split("=")[
        0].strip().lower()


def _modules(extra):
    """The top-level modules ``pyproject.toml``'s ``extra`` installs, included extras too."""
    modules = set()
    for requirement in PYPROJECT["optional-dependencies"][extra]:
        if requirement.startswith("dplasso["):
            for included in requirement[len("dplasso["):-1].split(","):
                modules |= _modules(included)
        else:
            name = _distribution(requirement)
            modules.add(MODULE_OF.get(name, name.replace("-", "_")))
    return modules


@pytest.mark.parametrize("extra", sorted(EXTRAS))
def test_the_extras_table_is_the_projects(extra):
    assert set(EXTRAS[extra]) == _modules(extra)


def test_the_core_is_the_library_alone_and_dev_installs_every_extra():
    assert sorted(map(_distribution, PYPROJECT["dependencies"])) == [
        "numpy", "pyyaml", "scikit-learn", "scipy"]
    dev = PYPROJECT["optional-dependencies"]["dev"]
    assert set(EXTRAS) <= _modules("dev") | set(dev[0][len("dplasso["):-1].split(","))
    assert _modules("dev") >= {m for modules in EXTRAS.values() for m in modules}


def test_a_missing_module_is_one_line_naming_the_extra(monkeypatch):
    monkeypatch.setitem(EXTRAS, "dask", ("dask", "no_such_module_of_dplasso"))
    with pytest.raises(MissingExtraError) as caught:
        require_extra("dask", "dplasso reproduce --scheduler")
    assert str(caught.value) == (
        "dplasso reproduce --scheduler needs the 'dask' extra: pip install 'dplasso[dask]' "
        "(no_such_module_of_dplasso is not installed)")
    with pytest.raises(MissingExtraError, match=r"^f needs the 'openml' extra: .*\[openml\]"):
        import_extra("no_such_module_of_dplasso", "openml", "f")
    assert import_extra("json", "openml", "f") is sys.modules["json"]


@pytest.mark.parametrize("argv, extra, what", [
    (["reproduce"], "reproduce", "dplasso reproduce"),
    (["reproduce", "--html"], "book", "dplasso reproduce --html"),
    (["reproduce", "--scheduler", "tcp://127.0.0.1:1"], "dask", "dplasso reproduce --scheduler"),
    (["render", "nowhere"], "book", "dplasso render"),
])
def test_a_command_without_its_extra_says_which_first(monkeypatch, capsys, argv, extra, what):
    """``--jobs 0`` makes a command that skipped the check stop at its argument check."""
    if argv[0] == "reproduce":
        argv = argv + ["--jobs", "0"]
    monkeypatch.setitem(EXTRAS, extra, ("no_such_module_of_dplasso",))
    assert cli_main(argv) == 2
    assert capsys.readouterr().err == (
        f"error: {what} needs the '{extra}' extra: pip install 'dplasso[{extra}]' "
        "(no_such_module_of_dplasso is not installed)\n")


CORE = textwrap.dedent("""
    import sys
    for name in {absent!r}:
        sys.modules[name] = None
    import importlib, pkgutil
    import dplasso
    for layer in ("privacy", "data", "optim", "screening", "estimators", "baselines", "audit"):
        package = importlib.import_module(f"dplasso.{{layer}}")
        for info in pkgutil.walk_packages(package.__path__, f"dplasso.{{layer}}."):
            importlib.import_module(info.name)

    import numpy as np
    from sklearn.datasets import load_breast_cancer
    from sklearn.pipeline import make_pipeline
    from dplasso.data import PublicRangeScaler, load_openml
    from dplasso.estimators import SparseDPLogisticRegression
    X, y = load_breast_cancer(return_X_y=True)
    model = make_pipeline(PublicRangeScaler({low!r}, {high!r}),
                          SparseDPLogisticRegression(epsilon=1.0, classes=[0, 1],
                                                     random_state=0))
    print(model.fit(X, y).predict(np.full((1, 30), 10.0)))
    try:
        load_openml(61)
    except ImportError as err:
        print(err)
    from dplasso.cli import main
    print(main(["reproduce"]))
""")


def test_the_library_runs_without_any_extra():
    low, high = documented_ranges()
    code = CORE.format(absent=ABSENT, low=low.tolist(), high=high.tolist())
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() in (
        [prediction, "load_openml needs the 'openml' extra: pip install 'dplasso[openml]' "
         "(openml is not installed)", "2"] for prediction in ("[0]", "[1]"))
    assert done.stderr == ("error: dplasso reproduce needs the 'reproduce' extra: pip install "
                           "'dplasso[reproduce]' (papermill is not installed)\n")


def test_version_is_the_installed_distributions():
    import dplasso
    from importlib.metadata import version

    assert dplasso.__version__ == version("dplasso")
    done = subprocess.run([sys.executable, "-m", "dplasso.cli", "--version"],
                          capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout == f"dplasso {version('dplasso')}\n"


def test_a_source_tree_that_is_not_installed_has_an_unknown_version(monkeypatch):
    import importlib.metadata

    import dplasso

    def not_installed(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", not_installed)
    assert dplasso.__version__ == dplasso.UNKNOWN_VERSION == "0+unknown"
