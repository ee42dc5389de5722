"""Malformed or awkward calls, as a new user makes them: each raises the stated exception type
with a message that names the argument, from our checks (never from inside numpy, scipy or a
notebook kernel)."""
import re
from contextlib import nullcontext
from pathlib import Path

import numpy as np
import pytest

from dplasso.baselines.estimators import DPIGHTClassifier, PrivateADMMClassifier, \
    TwoStageClassifier
from dplasso.cli import main as cli_main
from dplasso.estimators import FrankWolfeLassoClassifier, PrivacyLeakWarning, \
    PrivateFrankWolfeLassoClassifier, SparsifierClassifier
from dplasso.privacy import BudgetAccountant

ROOT = Path(__file__).resolve().parents[2]
FW, PFW, SP = FrankWolfeLassoClassifier, PrivateFrankWolfeLassoClassifier, SparsifierClassifier
TS, IGHT, ADMM = TwoStageClassifier, DPIGHTClassifier, PrivateADMMClassifier


def _data():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(40, 4))
    return X, (X[:, 0] + 0.3 * rng.standard_normal(40) > 0).astype(int)


def _names(message, name):
    return re.search(rf"(?<![\w-]){re.escape(name)}(?!\w)", message) is not None


# (estimator, parameters, exception, argument named in the message)
PARAMETER_CASES = [
    (FW, {"lam": 0}, ValueError, "lam"),
    (FW, {"lam": -1.0}, ValueError, "lam"),
    (FW, {"lam": "big"}, TypeError, "lam"),
    (FW, {"lam": np.nan}, ValueError, "lam"),
    (FW, {"n_iter": 0}, ValueError, "n_iter"),
    (FW, {"n_iter": 2.5}, TypeError, "n_iter"),
    (FW, {"n_iter": "many"}, TypeError, "n_iter"),
    (FW, {"fit_intercept": "yes"}, TypeError, "fit_intercept"),
    (FW, {"bounds": "clipped"}, ValueError, "bounds"),
    (FW, {"bounds": None}, ValueError, "bounds"),
    (PFW, {"epsilon": 0}, ValueError, "epsilon"),
    (PFW, {"epsilon": -1.0}, ValueError, "epsilon"),
    (PFW, {"epsilon": np.inf}, ValueError, "epsilon"),
    (PFW, {"epsilon": "1"}, TypeError, "epsilon"),
    (PFW, {"epsilon": None}, TypeError, "epsilon"),
    (PFW, {"delta": 1.0}, ValueError, "delta"),
    (PFW, {"delta": -0.1}, ValueError, "delta"),
    (PFW, {"delta": "small"}, TypeError, "delta"),
    (PFW, {"selection": "gumbel"}, ValueError, "selection"),
    (PFW, {"init": "ones"}, ValueError, "init"),
    (PFW, {"accountant": "acc"}, TypeError, "accountant"),
    (PFW, {"accountant": 2.0}, TypeError, "accountant"),
    (PFW, {"random_state": -1}, ValueError, "random_state"),
    (PFW, {"random_state": "seed"}, TypeError, "random_state"),
    (PFW, {"random_state": 1.5}, TypeError, "random_state"),
    (PFW, {"random_state": np.random.RandomState(0)}, TypeError, "random_state"),
    (PFW, {"n_iter": "autos"}, ValueError, "n_iter"),
    (PFW, {"n_iter": 0}, ValueError, "n_iter"),
    (PFW, {"lam": [1.0]}, TypeError, "lam"),
    (SP, {"count_fraction": 0}, ValueError, "count_fraction"),
    (SP, {"count_fraction": 1}, ValueError, "count_fraction"),
    (SP, {"count_fraction": "half"}, TypeError, "count_fraction"),
    (SP, {"count_sensitivity": "maxx"}, ValueError, "count_sensitivity"),
    (SP, {"count_sensitivity": 0}, ValueError, "count_sensitivity"),
    (SP, {"count_sensitivity": 1.5}, TypeError, "count_sensitivity"),
    (SP, {"epsilon": 0}, ValueError, "epsilon"),
    (SP, {"delta": 2}, ValueError, "delta"),
    (SP, {"random_state": -5}, ValueError, "random_state"),
    (TS, {"n_nonzero": 0}, ValueError, "n_nonzero"),
    (TS, {"n_nonzero": "all"}, ValueError, "n_nonzero"),
    (TS, {"n_nonzero": 100}, ValueError, "n_nonzero"),
    (TS, {"noise": "laplace"}, ValueError, "noise"),
    (TS, {"n_blocks": 0}, ValueError, "n_blocks"),
    (TS, {"block_C": 0}, ValueError, "block_C"),
    (TS, {"selection_share": 1.0}, ValueError, "selection_share"),
    (TS, {"count_lam": 0}, ValueError, "count_lam"),
    (TS, {"tol": -1.0}, ValueError, "tol"),
    (TS, {"epsilon": 0}, ValueError, "epsilon"),
    (TS, {"noise": "gaussian", "delta": 0.0}, ValueError, "delta"),
    (IGHT, {"n_nonzero": 0}, ValueError, "n_nonzero"),
    (IGHT, {"n_iter": 0}, ValueError, "n_iter"),
    (IGHT, {"step_size": "fast"}, ValueError, "step_size"),
    (IGHT, {"step_size": -1.0}, ValueError, "step_size"),
    (IGHT, {"count_fraction": 2}, ValueError, "count_fraction"),
    (ADMM, {"alpha": "x"}, ValueError, "alpha"),
    (ADMM, {"rho": "y"}, ValueError, "rho"),
    (ADMM, {"alpha": -1.0}, ValueError, "alpha"),
    (ADMM, {"n_iter": 0}, ValueError, "n_iter"),
    (ADMM, {"tol": "t"}, TypeError, "tol"),
]


def _check(excinfo, name):
    message = str(excinfo.value)
    assert _names(message, name), f"{message!r} does not name {name!r}"
    innermost = str(excinfo.traceback[-1].path)
    assert not re.search(r"site-packages/(numpy|scipy)/", innermost), innermost


def _id(value):
    """A test id that is the same in every pytest-xdist worker (no memory addresses)."""
    text = repr(value)
    return type(value).__name__ if " at 0x" in text else text


@pytest.mark.parametrize(
    "estimator, params, error, name", PARAMETER_CASES,
    ids=[f"{e.__name__}-{'-'.join(f'{k}={_id(v)}' for k, v in p.items())}"
         for e, p, _, _ in PARAMETER_CASES])
def test_bad_parameter(estimator, params, error, name):
    X, y = _data()
    with pytest.raises(error) as excinfo:
        estimator(**{"classes": [0, 1], **params}).fit(X, y)
    _check(excinfo, name)


def _with(X, i, j, value):
    X = X.astype(float).copy()
    X[i, j] = value
    return X


X0, Y0 = _data()
DATA_CASES = [
    ("nan", lambda: (_with(X0, 3, 1, np.nan), Y0), ValueError, "X"),
    ("inf", lambda: (_with(X0, 3, 1, np.inf), Y0), ValueError, "X"),
    ("outside-domain", lambda: (_with(X0, 3, 1, 1.5), Y0), ValueError, "X"),
    ("one-dimensional", lambda: (X0[:, 0], Y0), ValueError, "X"),
    ("no-rows", lambda: (X0[:0], Y0[:0]), ValueError, "X"),
    ("strings", lambda: (np.full((40, 4), "a"), Y0), ValueError, "X"),
    ("one-class", lambda: (X0, np.ones(40)), ValueError, "y"),
    ("length-mismatch", lambda: (X0, Y0[:-1]), ValueError, "y"),
    ("continuous-target", lambda: (X0, Y0 + 0.5), ValueError, "y"),
    ("y-2d", lambda: (X0, np.column_stack([Y0, Y0, Y0])), ValueError, "y"),
]


@pytest.mark.parametrize("estimator", [FW, PFW, SP, TS])
@pytest.mark.parametrize("case, make, error, name", DATA_CASES, ids=[c[0] for c in DATA_CASES])
def test_bad_data(estimator, case, make, error, name):
    """The public label set is passed, except for ``one-class``: with ``classes=[0, 1]`` a
    single class is a valid dataset; read from ``y`` (the private ones warn that this is not
    private) it is an error naming ``y``."""
    X, y = make()
    params = {} if estimator is FW else {"random_state": 0}
    leak = nullcontext()
    if case != "one-class":
        params["classes"] = [0, 1]
    elif estimator is not FW:
        leak = pytest.warns(PrivacyLeakWarning)
    with leak, pytest.raises(error) as excinfo:
        estimator(**params).fit(X, y)
    _check(excinfo, name)


@pytest.mark.parametrize("estimator", [FW, PFW, SP, TS, IGHT, ADMM])
@pytest.mark.parametrize("X, name", [(np.full((3, 4), np.inf), "X"), (np.zeros((3, 5)), "X"),
                                     (np.full((3, 4), np.nan), "X")],
                         ids=["inf", "wrong-width", "nan"])
def test_bad_predict(estimator, X, name):
    """A finite row outside the data domain is no error at prediction (it is clipped;
    tests/test_pipelines.py)."""
    model = estimator(classes=[0, 1],
                      **({} if estimator is FW else {"random_state": 0, "epsilon": 5.0}))
    model.fit(*_data())
    with pytest.raises(ValueError) as excinfo:
        model.predict(X)
    _check(excinfo, name)


def test_budget_exceeded_names_the_accountant():
    from dplasso.privacy.accounting import BudgetExceededError

    with pytest.raises(BudgetExceededError) as excinfo:
        PFW(epsilon=2.0, accountant=BudgetAccountant(epsilon=1.0, delta=0.1),
            classes=[0, 1]).fit(*_data())
    _check(excinfo, "BudgetAccountant")


CLI_CASES = [
    (["reproduce", "-p", "novalue"], "key=value"),
    (["reproduce", "-p", "datasets=[1,"], "datasets"),
    (["reproduce", "datasets", "-p", "datasets=foo"], "datasets"),
    (["reproduce", "p1-sparsity", "-p", "count_sensitivity=maxx"], "count_sensitivity"),
    (["reproduce", "p1-sparsity", "-p", "n_trials=2.5"], "n_trials"),
    (["reproduce", "p1-sparsity", "-p", "epsilons=[0]"], "epsilons"),
    (["reproduce", "p1-sparsity", "-p", "epsilons=1"], "epsilons"),
    (["reproduce", "p1-sparsity", "-p", "nope=1"], "nope"),
    (["reproduce", "p1-sparsity", "-p", "lam=abc"], "lam"),
    (["reproduce", "p1-sparsity", "-p", "synthetic=5"], "synthetic"),
    (["reproduce", "p1-sparsity", "-p", "datasets=[synthetic, 99999]"], "datasets"),
    (["reproduce", "p1-sparsity", "-p", "seed=[1]"], "seed"),
    (["reproduce", "p2-analysis", "-p", "delta=2"], "delta"),
    (["reproduce", "p2-screening", "-p", "epsilons=[-1]"], "epsilons"),
    (["reproduce", "p1-count-noise", "-p", "dataset=abc"], "dataset"),
    (["reproduce", "bogus"], "bogus"),
    (["reproduce", "--jobs", "0", "--profile", "ci"], "jobs"),
]


@pytest.mark.parametrize("argv, name", CLI_CASES, ids=[" ".join(a[1:]) for a, _ in CLI_CASES])
def test_bad_cli_call(argv, name, monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("DPLASSO_ROOT", str(ROOT))
    assert cli_main([*argv, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "\n" not in err and "Traceback" not in err
    assert _names(err, name), err
    assert not (tmp_path / "out").exists()  # refused before anything ran


@pytest.mark.parametrize("argv, name", [
    (["reproduce", "--jobs", "abc"], "--jobs"), (["reproduce", "--profile", "fast"], "--profile"),
    (["list", "--profile", "fast"], "--profile"), (["frobnicate"], "command"),
])
def test_bad_cli_option(argv, name, capsys):
    with pytest.raises(SystemExit) as excinfo:
        cli_main(argv)
    assert excinfo.value.code == 2
    err = capsys.readouterr().err
    assert name in err and "Traceback" not in err
