"""The proofs' call-site rule for law tests.

Every statistical test here (a law test or an audit) names, with
``@pytest.mark.release.with_args(f, ...)`` (``with_args``: a lone function argument would be
taken for the decorated test), the library functions whose output it tests; the test fails
if it calls none of them. A test that rebuilt the release (``exact + scale * noise(...)`` beside the library's
``private_screen_split``) would test a copy, and a change to the library's noise or
sensitivity would pass it unseen.
"""
import pytest

from calls import qualified_name, recording_calls


@pytest.fixture(autouse=True)
def _calls_the_library_release(request):
    if request.node.get_closest_marker("statistical") is None:
        yield
        return
    marker = request.node.get_closest_marker("release")
    if marker is None or not marker.args:
        pytest.fail("a statistical test in tests/proofs names the library release it tests: "
                    "@pytest.mark.release.with_args(function, ...)")
    releases = marker.args
    if any(qualified_name(f).startswith(("dplasso.audit.", "test")) or
           not qualified_name(f).startswith("dplasso.") for f in releases):
        pytest.fail(f"release must name library functions, got "
                    f"{[qualified_name(f) for f in releases]}")
    with recording_calls(releases) as seen:
        yield
    assert seen, (f"{request.node.name} never called the library release it names: "
                  f"{[qualified_name(f) for f in releases]}")
