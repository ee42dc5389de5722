"""Claim tests read the results files of the executed notebooks (run after the book is built)."""
import os
from pathlib import Path

import pytest

from dplasso.reproduce.registry import load_registry

ROOT = Path(__file__).resolve().parents[2]


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/reproduction" in str(item.fspath):
            item.add_marker(pytest.mark.book)


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
