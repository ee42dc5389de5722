"""Shared test settings."""
import os
from pathlib import Path

import pytest


SHARED_SEED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "openml"
if SHARED_SEED.is_dir():  # tests never use the network: the offline seed is the default
    os.environ.setdefault("DPLASSO_OPENML_SEED", str(SHARED_SEED))


@pytest.fixture(scope="session")
def openml_seed():
    """The offline OpenML seed folder (``DPLASSO_OPENML_SEED`` or ``../shared/data/openml``)."""
    seed = Path(os.environ.get("DPLASSO_OPENML_SEED") or SHARED_SEED)
    if not seed.is_dir():
        pytest.fail(f"offline OpenML seed not found at {seed}; set DPLASSO_OPENML_SEED")
    return seed


def pytest_addoption(parser):
    parser.addoption("--claims-out", default=None, metavar="PATH",
                     help="write the outcome of each artifact's claim tests (tests/reproduction) "
                          "to PATH as JSON, for the findings page")
