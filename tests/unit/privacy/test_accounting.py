"""Events, ledger, composition rules and the budget accountant."""
import math

import pytest

from dplasso.privacy import REPLACE_ONE
from dplasso.privacy.accounting import (
    BudgetAccountant,
    BudgetExceededError,
    PrivacyEvent,
    PrivacyGuarantee,
    PrivacyLedger,
    advanced_composition,
    advanced_composition_epsilon,
    basic_composition,
    compose,
    zcdp_composition,
    zcdp_rho,
    zcdp_to_epsilon,
)


def pure(epsilon, count=1, relation=REPLACE_ONE, mechanism="laplace"):
    return PrivacyEvent(mechanism=mechanism, sensitivity=1.0, relation=relation,
                        epsilon=epsilon, count=count, numerics="idealised-float")


# -- events ---------------------------------------------------------------------------------

def test_event_defaults_to_replace_one_and_is_frozen():
    event = pure(0.5)
    assert event.relation == REPLACE_ONE == "replace-one"
    with pytest.raises(AttributeError):
        event.epsilon = 1.0


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(epsilon=-1.0), "epsilon must be a finite number >= 0"),
        (dict(epsilon=float("nan")), "epsilon must be a finite number >= 0"),
        (dict(epsilon=1.0, delta=1.0), r"delta must lie in \[0, 1\)"),
        (dict(epsilon=1.0, delta=-0.1), r"delta must lie in \[0, 1\)"),
        (dict(), "needs epsilon, rho, or both"),
        (dict(rho=0.1, delta=1e-5), "delta > 0 was given without epsilon"),
        (dict(epsilon=1.0, count=0), "count must be >= 1"),
        (dict(epsilon=1.0, sensitivity=-2.0), "sensitivity must be a finite number >= 0"),
        (dict(epsilon=1.0, rho=-1.0), "rho must be a finite number >= 0"),
        (dict(epsilon=1.0, numerics="float"), "numerics must be one of"),
        (dict(epsilon=1.0, mechanism=""), "mechanism must be a non-empty string"),
    ],
)
def test_event_rejects_bad_values(kwargs, message):
    base = dict(mechanism="laplace", sensitivity=1.0, numerics="exact")
    base.update(kwargs)
    with pytest.raises(ValueError, match=message):
        PrivacyEvent(**base)


def test_event_count_must_be_an_integer():
    with pytest.raises(TypeError, match="count must be an integer"):
        PrivacyEvent(mechanism="laplace", sensitivity=1.0, epsilon=1.0, count=2.0,
                     numerics="exact")


def test_zcdp_rho_of_events():
    assert pure(0.3).zcdp_rho == 0.3**2 / 2
    bounded_range = PrivacyEvent(mechanism="em", sensitivity=1.0, epsilon=0.3, rho=0.3**2 / 8,
                                 numerics="idealised-float")
    assert bounded_range.zcdp_rho == 0.3**2 / 8
    approximate = PrivacyEvent(mechanism="x", sensitivity=1.0, epsilon=0.3, delta=1e-6,
                               numerics="exact")
    with pytest.raises(ValueError, match="zCDP composition does not apply"):
        approximate.zcdp_rho


# -- composition identities -----------------------------------------------------------------

@pytest.mark.parametrize("method, delta", [("basic", None), ("advanced", 1e-6), ("zcdp", 1e-6)])
def test_k_compositions_equal_one_event_with_count_k(method, delta):
    k = 37
    one_by_one = compose([pure(0.05)] * k, method, delta)
    counted = compose([pure(0.05, count=k)], method, delta)
    repeated = compose([pure(0.05).repeated(k)], method, delta)
    split = compose([pure(0.05, count=20), pure(0.05, count=17)], method, delta)
    for other in (counted, repeated, split):
        assert other.epsilon == pytest.approx(one_by_one.epsilon, rel=1e-14)
        assert other.delta == one_by_one.delta


def test_basic_composition_values():
    approximate = PrivacyEvent(mechanism="x", sensitivity=1.0, epsilon=0.2, delta=1e-7,
                               count=3, numerics="exact")
    total = basic_composition([pure(0.5, count=2), approximate])
    assert total.epsilon == pytest.approx(1.6, rel=1e-15)
    assert total.delta == pytest.approx(3e-7, rel=1e-15)
    assert total.method == "basic"


def test_advanced_composition_matches_drv_formula():
    k, eps0, slack = 500, 0.01, 1e-6
    total = advanced_composition([pure(eps0, count=k)], slack)
    expected = math.sqrt(2 * k * math.log(1 / slack)) * eps0 + k * eps0 * (math.exp(eps0) - 1)
    assert total.epsilon == pytest.approx(expected, rel=1e-13)
    assert total.delta == slack


def test_advanced_composition_adds_event_deltas_to_the_slack():
    approximate = PrivacyEvent(mechanism="x", sensitivity=1.0, epsilon=0.1, delta=1e-8,
                               count=10, numerics="exact")
    assert advanced_composition([approximate], 1e-6).delta == pytest.approx(1e-6 + 1e-7)


def test_zcdp_conversion_formula():
    assert zcdp_to_epsilon(0.02, 1e-5) == pytest.approx(0.02 + 2 * math.sqrt(0.02 * math.log(1e5)))
    assert zcdp_to_epsilon(0.0, 0.5) == 0.0
    total = zcdp_composition([pure(0.1, count=50)], 1e-5)
    assert total.epsilon == pytest.approx(zcdp_to_epsilon(50 * 0.1**2 / 2, 1e-5), rel=1e-15)


def test_orderings_of_basic_advanced_and_zcdp():
    """Many small steps: zCDP < advanced < basic. Few large steps: basic < advanced."""
    many = [pure(0.01, count=1000)]
    basic, adv, zcdp = (compose(many, "basic"), compose(many, "advanced", 1e-6),
                        compose(many, "zcdp", 1e-6))
    assert zcdp.epsilon < adv.epsilon < basic.epsilon
    few = [pure(1.0, count=3)]
    assert compose(few, "basic").epsilon < compose(few, "advanced", 1e-6).epsilon


def test_advanced_composition_epsilon_checks_lengths():
    with pytest.raises(ValueError, match="2 epsilons but 1 counts"):
        advanced_composition_epsilon([0.1, 0.2], [3], 1e-6)


def test_rho_only_events_compose_in_zcdp_only():
    gaussian = PrivacyEvent(mechanism="gaussian", sensitivity=1.0, rho=0.01, count=4,
                            numerics="idealised-float")
    assert zcdp_rho([gaussian, pure(0.2)]) == pytest.approx(0.04 + 0.02)
    for method, delta in (("basic", None), ("advanced", 1e-6)):
        with pytest.raises(ValueError, match="states only rho"):
            compose([gaussian], method, delta)


def test_compose_argument_errors():
    with pytest.raises(ValueError, match="method must be one of"):
        compose([pure(1.0)], "renyi")
    with pytest.raises(ValueError, match="basic composition takes no delta"):
        compose([pure(1.0)], "basic", 1e-6)
    with pytest.raises(ValueError, match="advanced composition needs delta"):
        compose([pure(1.0)], "advanced")
    with pytest.raises(ValueError, match=r"delta_slack must lie in \(0, 1\)"):
        compose([pure(1.0)], "advanced", 0.0)
    with pytest.raises(ValueError, match=r"delta must lie in \(0, 1\)"):
        compose([pure(1.0)], "zcdp", 1.0)
    with pytest.raises(TypeError, match="expected PrivacyEvent"):
        compose([(1.0, 0.0)], "basic")


def test_composing_different_relations_is_refused():
    add_remove = pure(0.1, relation="add-remove")
    with pytest.raises(ValueError, match="different neighbouring relations"):
        compose([pure(0.1), add_remove], "basic")


# -- ledger ---------------------------------------------------------------------------------

def test_ledger_records_and_totals():
    ledger = PrivacyLedger()
    ledger.record(pure(0.5, count=2, mechanism="discrete-laplace"))
    ledger.record(pure(0.01, count=100, mechanism="report-noisy-min"))
    assert len(ledger) == 2
    assert [e.mechanism for e in ledger.events] == ["discrete-laplace", "report-noisy-min"]
    assert ledger.total().epsilon == pytest.approx(2.0)
    assert ledger.rho() == pytest.approx(2 * 0.125 + 100 * 0.00005)
    records = ledger.as_records()
    assert records[1]["count"] == 100 and records[1]["relation"] == REPLACE_ONE


def test_ledger_refuses_other_relation():
    ledger = PrivacyLedger()
    with pytest.raises(ValueError, match="cannot be composed"):
        ledger.record(pure(0.1, relation="add-remove"))
    assert len(ledger) == 0
    other = PrivacyLedger(relation="add-remove")
    with pytest.raises(ValueError, match="cannot merge"):
        ledger.merge(other)


def test_ledger_merge_keeps_order():
    first, second = PrivacyLedger(), PrivacyLedger()
    first.record(pure(0.1, mechanism="a"))
    second.record(pure(0.2, mechanism="b"))
    second.record(pure(0.3, mechanism="c"))
    first.merge(second)
    assert [e.mechanism for e in first.events] == ["a", "b", "c"]
    assert first.total().epsilon == pytest.approx(0.6)


# -- accountant -----------------------------------------------------------------------------

def test_accountant_check_fit_spend():
    accountant = BudgetAccountant(epsilon=1.0, delta=1e-5)
    accountant.check(0.6, 1e-6)  # before the fit
    ledger = PrivacyLedger()
    ledger.record(pure(0.3, count=2))
    spent = accountant.spend(ledger)
    assert spent.epsilon == pytest.approx(0.6)
    assert accountant.remaining().epsilon == pytest.approx(0.4)
    with pytest.raises(BudgetExceededError, match="exceeds the remaining budget"):
        accountant.check(0.5)
    accountant.check(0.4)


def test_accountant_refuses_before_any_work():
    """A fit that checks first never starts when the budget is short."""
    accountant = BudgetAccountant(epsilon=0.5)
    work_done = []

    def fit(epsilon):
        accountant.check(epsilon)
        work_done.append(epsilon)

    with pytest.raises(BudgetExceededError):
        fit(0.6)
    assert work_done == []
    with pytest.raises(BudgetExceededError, match="delta"):
        accountant.check(0.1, 1e-9)


def test_accountant_spend_over_budget_records_nothing():
    accountant = BudgetAccountant(epsilon=1.0)
    ledger = PrivacyLedger()
    ledger.record(pure(0.6, count=2))
    with pytest.raises(BudgetExceededError, match="basic total"):
        accountant.spend(ledger)
    assert accountant.spent == ()


def test_accountant_spend_with_zcdp_ledger_total():
    accountant = BudgetAccountant(epsilon=2.0, delta=1e-5)
    ledger = PrivacyLedger()
    ledger.record(pure(0.01, count=1000))
    spent = accountant.spend(ledger, "zcdp", 1e-6)
    assert spent == ledger.total("zcdp", 1e-6)
    assert accountant.total_spent().delta == 1e-6


def test_accountant_tolerance_is_relative_1e_9():
    accountant = BudgetAccountant(epsilon=1.0)
    accountant.check(1.0 + 5e-10)
    with pytest.raises(BudgetExceededError):
        accountant.check(1.0 + 2e-9)


@pytest.mark.parametrize("epsilon, delta, message", [
    (0.0, 0.0, "epsilon must be a finite number > 0"),
    (float("inf"), 0.0, "epsilon must be a finite number > 0"),
    (1.0, 1.0, r"delta must lie in \[0, 1\)"),
    (1.0, -1e-3, r"delta must lie in \[0, 1\)"),
])
def test_accountant_rejects_bad_budget(epsilon, delta, message):
    with pytest.raises(ValueError, match=message):
        BudgetAccountant(epsilon, delta)


def _ledger(epsilon):
    ledger = PrivacyLedger()
    ledger.record(pure(epsilon))
    return ledger


def test_a_hold_counts_as_spent_until_it_is_spent_or_closed():
    accountant = BudgetAccountant(epsilon=1.0, delta=1e-5)
    hold = accountant.reserve(0.6, 1e-6)
    assert accountant.held == PrivacyGuarantee(0.6, 1e-6, "basic")
    assert accountant.remaining().epsilon == pytest.approx(0.4)
    with pytest.raises(BudgetExceededError, match="exceeds the remaining budget"):
        accountant.reserve(0.5)
    with pytest.raises(BudgetExceededError):
        accountant.check(0.5)
    with pytest.raises(BudgetExceededError):
        accountant.spend(_ledger(0.5))  # a spend without a hold cannot take the held part
    assert hold.spend(_ledger(0.25)).epsilon == 0.25
    assert accountant.held.epsilon == pytest.approx(0.35) and accountant.held.delta == 1e-6
    assert accountant.total_spent().epsilon == 0.25
    hold.close()  # the unspent 0.35 and the delta go back
    assert accountant.held == PrivacyGuarantee(0.0, 0.0, "basic")
    assert accountant.remaining().epsilon == pytest.approx(0.75)
    with pytest.raises(RuntimeError, match="closed"):
        hold.spend(_ledger(0.1))
    hold.close()  # closing twice frees nothing more
    assert accountant.remaining().epsilon == pytest.approx(0.75)


def test_a_hold_spends_beyond_itself_only_from_the_free_budget():
    accountant = BudgetAccountant(epsilon=1.0)
    with accountant.reserve(0.3) as hold:
        other = accountant.reserve(0.5)
        hold.spend(_ledger(0.5))  # 0.3 held + 0.2 of the 0.2 free
        with pytest.raises(BudgetExceededError, match="basic total"):
            hold.spend(_ledger(0.1))
        assert accountant.total_spent().epsilon == 0.5
    other.close()
    assert accountant.remaining().epsilon == pytest.approx(0.5)


def test_a_with_block_that_raises_frees_its_whole_hold():
    accountant = BudgetAccountant(epsilon=1.0)
    with pytest.raises(ZeroDivisionError):
        with accountant.reserve(1.0):
            1 / 0
    assert accountant.spent == () and accountant.remaining().epsilon == 1.0


def test_holds_are_capped_at_max_holds(monkeypatch):
    from dplasso.privacy import accounting

    monkeypatch.setattr(accounting, "MAX_HOLDS", 2)
    accountant = BudgetAccountant(epsilon=1.0)
    first, _ = accountant.reserve(0.1), accountant.reserve(0.1)
    with pytest.raises(BudgetExceededError, match="maximum of 2 fits at once"):
        accountant.reserve(0.1)
    first.close()
    accountant.reserve(0.1)  # a closed hold's slot is free again


def test_a_pickled_accountant_refuses_to_hold():
    import pickle

    from dplasso.privacy.accounting import DetachedAccountantError

    copy_ = pickle.loads(pickle.dumps(BudgetAccountant(epsilon=1.0)))
    with pytest.raises(DetachedAccountantError, match="pickled copy"):
        copy_.reserve(0.1)
    assert copy_.held.epsilon == 0.0


def test_accountant_check_rejects_bad_request():
    accountant = BudgetAccountant(1.0)
    with pytest.raises(ValueError, match="epsilon must be a finite number >= 0"):
        accountant.check(float("nan"))
    with pytest.raises(TypeError, match="expected PrivacyLedger"):
        accountant.spend([pure(0.1)])
    with pytest.raises(ValueError, match=r"delta must lie in \[0, 1\)"):
        accountant.reserve(0.1, 1.0)
