"""Shared test settings, and the proofs' call-site rule for law tests.

Every statistical test of a mechanism (the law tests and audits of ``tests/proofs`` and
``tests/screening``; the unit tests of a sampler call the sampler itself, some of them check a
check's power on a broken sampler of their own, and the claim tests of ``tests/reproduction``
read results files) names, with
``@pytest.mark.release.with_args(f, ...)`` (``with_args``: a lone function argument would be
taken for the decorated test), the library functions whose output it tests, and fails if it
calls none of them. A test that rebuilt the release (``exact + scale * noise(...)`` beside the
library's ``private_screen_split``) would test a copy, and a change to the library's noise or
sensitivity would pass it unseen.
"""
import os
from pathlib import Path

import pytest

from calls import qualified_name, recording_calls


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


@pytest.fixture(autouse=True)
def _calls_the_library_release(request):
    """The call-site rule (module docstring)."""
    if (request.node.get_closest_marker("statistical") is None
            or not any(f"tests/{part}/" in str(request.node.fspath)
                       for part in ("proofs", "screening"))):
        yield
        return
    marker = request.node.get_closest_marker("release")
    if marker is None or not marker.args:
        pytest.fail("a statistical test names the library release it tests: "
                    "@pytest.mark.release.with_args(function, ...)")
    releases = marker.args
    names = [qualified_name(f) for f in releases]
    if any(not name.startswith("dplasso.") or name.startswith("dplasso.audit.")
           for name in names):
        pytest.fail(f"release must name library functions (not the audit's), got {names}")
    with recording_calls(releases) as seen:
        yield
    assert seen, f"{request.node.name} never called the library release it names: {names}"
