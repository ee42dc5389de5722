"""``nudge``: the first accepted float, one ulp at a time, and a bounded search that raises."""
import math

import pytest

from dplasso.privacy.ulps import MAX_ULP_STEPS, nudge


def _ulps_from(value, steps, toward):
    for _ in range(steps):
        value = math.nextafter(value, toward)
    return value


def test_the_start_is_returned_when_accepted_and_accept_is_called_once():
    tried = []
    assert nudge(0.3, lambda v: tried.append(v) or True, up=True, what="x") == 0.3
    assert tried == [0.3]


@pytest.mark.parametrize("up, toward", [(True, math.inf), (False, 0.0)])
def test_it_moves_one_ulp_at_a_time_to_the_first_accepted_value(up, toward):
    target = _ulps_from(1.0, 3, toward)
    tried = []

    def accept(v):
        tried.append(v)
        return v == target

    assert nudge(1.0, accept, up=up, what="x") == target
    assert tried == [_ulps_from(1.0, k, toward) for k in range(4)]


def test_it_tries_max_steps_ulps_beyond_the_start():
    last = _ulps_from(1.0, MAX_ULP_STEPS, math.inf)
    assert nudge(1.0, lambda v: v == last, up=True, what="x") == last
    assert nudge(1.0, lambda v: v >= _ulps_from(1.0, 5, math.inf), up=True, what="x",
                 max_steps=5) == _ulps_from(1.0, 5, math.inf)


@pytest.mark.parametrize("up, verb, toward", [(True, "raised", math.inf),
                                              (False, "lowered", 0.0)])
def test_it_raises_after_max_steps_naming_what_the_start_the_steps_and_the_last(up, verb,
                                                                               toward):
    calls = []
    last = _ulps_from(2.0, 7, toward)
    with pytest.raises(RuntimeError) as error:
        nudge(2.0, lambda v: calls.append(v) and False, up=up, what="the scale", max_steps=7)
    assert str(error.value) == f"the scale 2.0 {verb} by 7 ulps to {last!r} is still refused"
    assert len(calls) == 8 and calls[-1] == last


def test_why_ends_the_message_with_the_reason_at_the_last_value():
    with pytest.raises(RuntimeError, match=r"^the share 1\.0 lowered by 64 ulps to "
                                           r"0\.99999999999999\d+ still costs 3\.0$"):
        nudge(1.0, lambda v: False, up=False, what="the share",
              why=lambda v: f"still costs {3.0 * round(v)!r}")
