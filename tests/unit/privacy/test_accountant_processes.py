"""An accountant is one budget across processes: a forked process spends on the original's log
(the budget holds across all of them), and a copy that cannot reach it (pickled: spawn,
forkserver, a pool's task arguments) refuses to check or spend."""
import math
import mmap
import multiprocessing
import os
import pickle
import sys

import pytest

from accountant_child import try_check
from dplasso.data.synthetic import sparse_logistic_synthetic
from dplasso.estimators import PrivateFrankWolfeLassoClassifier
from dplasso.privacy import BudgetAccountant
from dplasso.privacy import accounting
from dplasso.privacy.accounting import BudgetExceededError, DetachedAccountantError

DATA = sparse_logistic_synthetic(n=200, p=8, k=3, random_state=0)
ACCOUNTANT = None  # set before forking: the children inherit it, as a global


def _fit_three_times(results):
    """Three private fits of epsilon 0.5 on the inherited accountant; one result each."""
    for i in range(3):
        model = PrivateFrankWolfeLassoClassifier(epsilon=0.5, n_iter=5, accountant=ACCOUNTANT,
                                                 threshold="none", classes=[0, 1],
                                                 random_state=i)
        try:
            model.fit(DATA.X, DATA.y)
            results.put((os.getpid(), "fitted"))
        except BudgetExceededError:
            results.put((os.getpid(), "refused"))


def _run_children(target, n, *args):
    ctx = multiprocessing.get_context("fork")
    results = ctx.Queue()
    children = [ctx.Process(target=target, args=(*args, results)) for _ in range(n)]
    for child in children:
        child.start()
    return children, results


def _nine_fits_in_three_forked_processes(accountant, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ACCOUNTANT", accountant)
    children, results = _run_children(_fit_three_times, 3)
    outcomes = [results.get(timeout=120) for _ in range(9)]
    for child in children:
        child.join(timeout=60)
        assert child.exitcode == 0
    assert len({pid for pid, _ in outcomes}) == 3  # three processes, three fits each
    return sorted(kind for _, kind in outcomes)


def test_nine_fits_in_three_forked_processes_spend_the_budget_once(monkeypatch):
    """The issue's reproducer: 9 fits of epsilon 0.5 against a budget of 1 in 3 forked
    processes. Before the fix each process had a copy: 6 fits, none recorded in the parent."""
    accountant = BudgetAccountant(epsilon=1.0, delta=0.5)
    outcomes = _nine_fits_in_three_forked_processes(accountant, monkeypatch)
    assert outcomes == ["fitted"] * 2 + ["refused"] * 7
    assert [g.epsilon for g in accountant.spent] == pytest.approx([0.5, 0.5])  # the parent sees both
    assert accountant.remaining().epsilon == pytest.approx(0.0)
    with pytest.raises(BudgetExceededError):
        accountant.check(0.1)


def test_the_reproducer_catches_a_log_each_process_copies(monkeypatch):
    """The broken variant: a private mapping, which fork copies, gives the issue's 6 fits."""
    shared = mmap.mmap
    monkeypatch.setattr(accounting.mmap, "mmap", lambda fileno, size: shared(
        fileno, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS))
    accountant = BudgetAccountant(epsilon=1.0, delta=0.5)
    monkeypatch.undo()
    outcomes = _nine_fits_in_three_forked_processes(accountant, monkeypatch)
    assert outcomes == ["fitted"] * 6 + ["refused"] * 3
    assert accountant.spent == ()


def test_a_forked_process_sees_and_spends_the_same_budget():
    accountant = BudgetAccountant(epsilon=1.0)
    children, results = _run_children(try_check, 1, accountant)
    assert results.get(timeout=60) == ("ok", "")
    children[0].join(timeout=60)
    assert not accountant.detached


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_a_copy_sent_to_a_spawned_or_forkserver_process_refuses(method):
    accountant = BudgetAccountant(epsilon=1.0)
    ctx = multiprocessing.get_context(method)
    results = ctx.Queue()
    child = ctx.Process(target=try_check, args=(accountant, results))
    child.start()
    kind, message = results.get(timeout=120)
    child.join(timeout=60)
    assert kind == "DetachedAccountantError" and "pickled copy" in message
    assert accountant.spent == () and not accountant.detached


def test_a_copy_sent_as_a_pool_task_argument_under_fork_refuses():
    """Under fork too, what a pool sends its workers is pickled: that copy is detached."""
    accountant = BudgetAccountant(epsilon=1.0)
    ctx = multiprocessing.get_context("fork")
    with ctx.Manager() as manager:
        results = manager.Queue()
        with ctx.Pool(2) as pool:
            pool.starmap(try_check, [(accountant, results)] * 2)
        kinds = [results.get(timeout=10)[0] for _ in range(2)]
    assert kinds == ["DetachedAccountantError"] * 2


def test_a_pickled_copy_refuses_in_this_process_too():
    accountant = BudgetAccountant(epsilon=1.0)
    copy_ = pickle.loads(pickle.dumps(accountant))
    with pytest.raises(DetachedAccountantError, match="pickled copy"):
        copy_.check(0.1)


def test_without_a_process_shared_lock_a_forked_copy_refuses(monkeypatch):
    """Where no process-shared lock can be made, the accountant is bound to its process."""
    def no_fork(method):
        raise ValueError(f"cannot find context for {method!r}")
    monkeypatch.setattr(accounting.multiprocessing, "get_context", no_fork)
    accountant = BudgetAccountant(epsilon=1.0)
    accountant.check(0.5)  # its own process: fine
    monkeypatch.undo()
    children, results = _run_children(try_check, 1, accountant)
    kind, message = results.get(timeout=60)
    children[0].join(timeout=60)
    assert kind == "DetachedAccountantError"
    assert f"belongs to process {os.getpid()}" in message
    assert accountant.spent == () and not accountant.detached


def test_spends_from_many_threads_never_overspend():
    import threading

    from dplasso.privacy import PrivacyLedger
    from dplasso.privacy.laplace import laplace_event

    accountant = BudgetAccountant(epsilon=10.0)
    ledger = PrivacyLedger()
    ledger.record(laplace_event(1.0, 1.0))
    outcomes = []

    def spend():
        for _ in range(5):
            try:
                accountant.spend(ledger)
                outcomes.append("spent")
            except BudgetExceededError:
                outcomes.append("refused")

    threads = [threading.Thread(target=spend) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes.count("spent") == 10 and outcomes.count("refused") == 30
    assert len(accountant.spent) == 10


def test_the_log_holds_max_spends_then_refuses(monkeypatch):
    from dplasso.privacy import PrivacyLedger
    from dplasso.privacy.laplace import laplace_event

    monkeypatch.setattr(accounting, "MAX_SPENDS", 3)
    accountant = BudgetAccountant(epsilon=10.0)
    ledger = PrivacyLedger()
    ledger.record(laplace_event(0.1, 1.0))  # epsilon 0.1
    for _ in range(3):
        accountant.spend(ledger)
    with pytest.raises(BudgetExceededError, match="maximum of 3 spends"):
        accountant.spend(ledger)
    assert len(accountant.spent) == 3


def test_six_threads_fitting_at_once_spend_only_what_the_released_fits_spent():
    """Six default Sparsifier fits of epsilon 0.3 started together against a budget of 1
    (their ledgers spend two parts each, 0.054 and 0.246). Each fit holds its whole 0.3 at its
    check, so three fit and three are refused there, before any work, having spent nothing:
    the accountant's total is exactly the three released guarantees. Before the holds every
    fit passed its check, and a refused fit had spent its first part when its second was
    refused: 0.954 spent for three released fits."""
    import threading

    from dplasso.estimators import SparseDPLogisticRegression

    accountant = BudgetAccountant(epsilon=1.0, delta=0.5)
    start = threading.Barrier(6)
    released, refused = [], []

    def fit(seed):
        model = SparseDPLogisticRegression(epsilon=0.3, accountant=accountant,
                                           classes=[0, 1], random_state=seed)
        start.wait()
        try:
            released.append(model.fit(DATA.X, DATA.y).privacy_guarantee_)
        except BudgetExceededError as err:
            refused.append((str(err), hasattr(model, "coef_")))

    threads = [threading.Thread(target=fit, args=(seed,)) for seed in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(released) == len(refused) == 3
    assert all(message.startswith("requested (epsilon=0.3,") and not fitted
               for message, fitted in refused)
    assert len(accountant.spent) == 2 * 3
    assert accountant.total_spent().epsilon == pytest.approx(
        math.fsum(g.epsilon for g in released), rel=1e-12, abs=0.0)
    assert accountant.held.epsilon == 0.0


def test_a_fit_that_raises_spends_nothing_and_frees_its_hold(monkeypatch):
    import dplasso.estimators.frank_wolfe as frank_wolfe

    accountant = BudgetAccountant(epsilon=1.0, delta=0.5)

    def fails(*args, **kwargs):
        assert accountant.held.epsilon == 0.6  # held while the fit runs
        raise RuntimeError("the fit failed")

    monkeypatch.setattr(frank_wolfe, "private_frank_wolfe_trials", fails)
    model = PrivateFrankWolfeLassoClassifier(epsilon=0.6, n_iter=5, accountant=accountant,
                                             threshold="none", classes=[0, 1], random_state=0)
    with pytest.raises(RuntimeError, match="the fit failed"):
        model.fit(DATA.X, DATA.y)
    assert accountant.spent == () and accountant.held.epsilon == 0.0
    assert accountant.remaining().epsilon == 1.0
