"""Claim tests read the results files of the executed notebooks (run after the book is built).

With ``--claims-out PATH`` the outcome of every claim test is recorded per artifact
(``tests/claims.py``) and written to PATH when the session ends.
"""
import os
from pathlib import Path

import pytest

import claims
from dplasso.reproduce.registry import load_registry

ROOT = Path(__file__).resolve().parents[2]
_IDS = list(load_registry(ROOT).artifacts)
_OUTCOMES: dict = {}


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/reproduction" in str(item.fspath):
            item.add_marker(pytest.mark.book)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if item.config.getoption("--claims-out") and "tests/reproduction" in str(item.fspath):
        claims.record(_OUTCOMES, item, report, _IDS)
    return report


def pytest_sessionfinish(session):
    path = session.config.getoption("--claims-out")
    if path:
        claims.write(_OUTCOMES, Path(path))


@pytest.fixture(scope="session")
def registry():
    return load_registry(ROOT)


@pytest.fixture(scope="session")
def results(registry):
    """``results(artifact_id)`` -> path of that artifact's results file (must exist)."""
    out = Path(os.environ.get("DPLASSO_RESULTS") or ROOT / "book" / "generated")

    def path(artifact_id):
        p = registry.results_path(artifact_id, out)
        assert p.is_file(), f"results of {artifact_id} not found at {p}; run `dplasso reproduce`"
        return p

    return path
