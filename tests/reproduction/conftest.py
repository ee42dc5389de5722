"""Claim tests read the results files of the executed notebooks (run after the book is built).

With ``--claims-out PATH`` the outcome of every claim test is recorded per artifact
(``tests/claims.py``) and written to PATH when the session ends, with the digest of the
session's inputs (:func:`claims.inputs_digest`, taken before the first test runs).
"""
import os
from pathlib import Path

import pytest

import claims
from dplasso.reproduce.registry import load_registry

ROOT = Path(__file__).resolve().parents[2]
RESULTS = Path(os.environ.get("DPLASSO_RESULTS") or ROOT / "book" / "generated")
_IDS = list(load_registry(ROOT).artifacts)
_OUTCOMES: dict = {}
_FAILED: list = []
_INPUTS: list = []


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "tests/reproduction" in str(item.fspath):
            item.add_marker(pytest.mark.book)
    if config.getoption("--claims-out"):
        _INPUTS.append(claims.inputs_digest(RESULTS, load_registry(ROOT).notebooks))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if item.config.getoption("--claims-out") and "tests/reproduction" in str(item.fspath):
        claims.record(_OUTCOMES, item, report, _IDS)
        if report.failed and item.nodeid not in _FAILED:
            _FAILED.append(item.nodeid)
    return report


def pytest_sessionfinish(session, exitstatus):
    path = session.config.getoption("--claims-out")
    if path:
        claims.write(_OUTCOMES, Path(path), inputs=_INPUTS[0] if _INPUTS else "",
                     exitstatus=exitstatus, failed=_FAILED)


@pytest.fixture(scope="session")
def registry():
    return load_registry(ROOT)


@pytest.fixture(scope="session")
def results(registry):
    """``results(artifact_id)`` -> path of that artifact's results file (must exist)."""
    def path(artifact_id):
        p = registry.results_path(artifact_id, RESULTS)
        assert p.is_file(), f"results of {artifact_id} not found at {p}; run `dplasso reproduce`"
        return p

    return path
