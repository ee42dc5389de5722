"""The design an estimator poses: data-domain contract, explicit clipping, intercept column;
and the parameter checks."""
import numpy as np
import pytest
import scipy.sparse as sp

from dplasso.estimators.params import (
    check_accountant,
    check_bool,
    check_count_sensitivity,
    check_delta,
    check_epsilon,
    check_fraction,
    check_n_iter_or_auto,
    resolve_delta,
)
from dplasso.estimators.problem import (
    apply_bounds,
    classification_loss,
    clip_to_domain,
    prepare_design,
    split_intercept,
    with_intercept_column,
)
from dplasso.optim import LogisticLoss, MultinomialLoss
from dplasso.privacy import BudgetAccountant


def test_error_mode_names_the_first_offending_row():
    X = np.zeros((5, 3))
    X[3, 1] = -1.25
    X[4, 0] = 2.0
    with pytest.raises(ValueError, match=r"row 3 has sup norm 1\.25 \(2 offending"):
        apply_bounds(X, "error")
    with pytest.raises(ValueError, match="bounds must be one of"):
        apply_bounds(X, "rescale")


def test_clip_mode_clips_entries_on_a_copy():
    X = np.array([[0.5, -3.0], [2.0, 0.25]])
    before = X.copy()
    np.testing.assert_array_equal(apply_bounds(X, "clip"), [[0.5, -1.0], [1.0, 0.25]])
    np.testing.assert_array_equal(X, before)
    np.testing.assert_array_equal(clip_to_domain(np.array([[3, -4]])), [[1.0, -1.0]])
    for bad in (np.nan, np.inf, -np.inf):
        with pytest.raises(ValueError, match="NaN or infinity"):
            apply_bounds(np.array([[0.0, bad]]), "clip")


def test_sparse_clip_keeps_sparsity_and_sums_duplicates_first():
    duplicated = sp.coo_matrix(([0.8, 0.8, -5.0], ([0, 0, 1], [1, 1, 0])), shape=(2, 3))
    clipped = apply_bounds(duplicated, "clip")
    assert sp.issparse(clipped) and clipped.nnz == 2
    np.testing.assert_array_equal(clipped.toarray(), [[0, 1.0, 0], [-1.0, 0, 0]])
    csc = sp.csc_matrix(np.array([[0.0, 4.0], [0.5, 0.0]]))
    out = apply_bounds(csc, "clip")
    assert out.format == "csc" and csc.data.max() == 4.0  # the input is untouched
    with pytest.raises(ValueError, match="NaN or infinity"):
        apply_bounds(sp.csr_matrix(np.array([[np.inf, 0.0]])), "clip")


def test_intercept_column_is_last_and_sparse_stays_sparse():
    X = np.array([[0.5, 0.0], [0.0, -1.0]])
    np.testing.assert_array_equal(with_intercept_column(X), [[0.5, 0, 1], [0, -1.0, 1]])
    for fmt in ("csr", "csc"):
        design = prepare_design(sp.csr_matrix(X).asformat(fmt), fit_intercept=True,
                                bounds="error")
        assert design.format == fmt
        np.testing.assert_array_equal(design.toarray(), [[0.5, 0, 1], [0, -1.0, 1]])
    assert prepare_design(X, fit_intercept=False, bounds="error").shape == (2, 2)


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_sparse_intercept_column_equals_scipys_hstack(fmt):
    """Built from the arrays directly; empty rows and columns included; indices stay sorted."""
    rng = np.random.default_rng(4)
    dense = sp.random(50, 30, density=0.1, random_state=rng).toarray()
    dense[[3, 17]] = 0.0  # empty rows
    X = sp.csr_matrix(dense).asformat(fmt)
    design = with_intercept_column(X)
    expected = sp.hstack([X, sp.csc_matrix(np.ones((50, 1)))], format=design.format)
    assert design.format == ("csr" if fmt == "coo" else fmt)
    np.testing.assert_array_equal(design.toarray(), expected.toarray())
    assert design.nnz == X.nnz + 50 and design.has_sorted_indices
    design.check_format(full_check=True)
    assert type(with_intercept_column(sp.csr_array(X))) is sp.csr_array


def test_loss_choice_and_intercept_split():
    assert isinstance(classification_loss(2)[0], LogisticLoss)
    loss, name = classification_loss(4)
    assert isinstance(loss, MultinomialLoss) and loss.n_classes == 4 and name == "multinomial"
    with pytest.raises(ValueError, match="n_classes must be >= 2"):
        classification_loss(1)
    W = np.arange(12.0).reshape(3, 2, 2)
    coef, intercept = split_intercept(W, True)
    np.testing.assert_array_equal(coef, W[:2])
    np.testing.assert_array_equal(intercept, W[2])
    np.testing.assert_array_equal(split_intercept(W, False)[1], np.zeros((2, 2)))


@pytest.mark.parametrize(("check", "value", "error", "message"), [
    (check_epsilon, 0, ValueError, "epsilon must be a finite number > 0, got 0.0"),
    (check_epsilon, float("nan"), ValueError, "epsilon must be a finite number > 0"),
    (check_epsilon, "1", TypeError, "epsilon must be a real number"),
    (check_epsilon, True, TypeError, "epsilon must be a real number"),
    (check_delta, 1.0, ValueError, r"delta must lie in \[0, 1\), got 1.0"),
    (check_delta, -1e-9, ValueError, r"delta must lie in \[0, 1\)"),
    (check_count_sensitivity, 0, ValueError, "count_sensitivity must be >= 1"),
    (check_count_sensitivity, 2.0, TypeError, 'count_sensitivity must be "max" or an integer'),
    (check_count_sensitivity, "p", ValueError, 'count_sensitivity must be "max" or an integer'),
    (check_accountant, "budget", TypeError, "accountant must be None or a BudgetAccountant"),
    (check_bool, 1, TypeError, "x must be a bool"),
    (check_n_iter_or_auto, "Auto", ValueError, r"n_iter must be one of \('auto',\)"),
    (check_n_iter_or_auto, 0, ValueError, "n_iter must be >= 1"),
])
def test_parameter_checks(check, value, error, message):
    args = (value, "x") if check is check_bool else (value,)
    with pytest.raises(error, match=message):
        check(*args)


def test_parameter_checks_pass_valid_values():
    assert check_epsilon(2) == 2.0 and check_delta(0) == 0.0
    assert check_fraction(0.25, "count_fraction") == 0.25
    assert check_count_sensitivity(np.int64(3)) == 3
    assert check_count_sensitivity("max") == "max"
    accountant = BudgetAccountant(1.0)
    assert check_accountant(accountant) is accountant and check_accountant(None) is None
    assert check_bool(np.bool_(True), "x") is True
    assert check_n_iter_or_auto("auto") == "auto" and check_n_iter_or_auto(7) == 7
    assert resolve_delta(None, 100) == 1e-4 and resolve_delta(0.0, 100) == 0.0


def test_delta_at_or_above_one_over_n_warns():
    from dplasso.estimators.params import LargeDeltaWarning

    with pytest.warns(LargeDeltaWarning, match=r"delta=0.5 is >= 1/n = 0.5 \(n=2 rows\)"):
        assert resolve_delta(0.5, 2) == 0.5
    with pytest.warns(LargeDeltaWarning, match="delta=0.01"):
        resolve_delta(0.01, 100)
    resolve_delta(0.0099, 100)  # below 1/n: silent (warnings are errors in this suite)
    resolve_delta(None, 2)  # the default 1/n**2 = 0.25 < 1/2


@pytest.mark.parametrize("name", ["PrivateFrankWolfeLassoClassifier", "SparsifierClassifier"])
def test_one_row_without_delta_names_the_default_as_the_cause(name):
    """At n = 1 the default delta 1/n**2 is 1: the error says so (it said "delta must lie in
    [0, 1), got 1.0", a value the user never passed); a given delta fits."""
    import dplasso.estimators as estimators

    with pytest.raises(ValueError, match=r"^delta must be given for a fit on one row: the "
                                         r"default delta 1/n\*\*2 is 1 at n=1, .* pass delta "
                                         r"or fit on more rows$"):
        resolve_delta(None, 1)
    model = getattr(estimators, name)(epsilon=1.0, classes=[0, 1], random_state=0)
    with pytest.raises(ValueError, match="delta must be given for a fit on one row"):
        model.fit(np.array([[0.5, 0.2]]), [1])
    model.set_params(delta=0.0).fit(np.array([[0.5, 0.2]]), [1])


def test_estimator_fit_warns_on_a_large_delta():
    from dplasso.estimators import PrivateFrankWolfeLassoClassifier
    from dplasso.estimators.params import LargeDeltaWarning

    X = np.array([[0.5, -0.5], [-0.5, 0.5], [0.2, 0.1], [-0.1, -0.3]])
    with pytest.warns(LargeDeltaWarning, match="n=4 rows"):
        PrivateFrankWolfeLassoClassifier(epsilon=1.0, delta=0.3, n_iter=3, classes=[0, 1],
                                         random_state=0).fit(X, [0, 1, 0, 1])


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_dense_fit_copies_the_design_at_most_once(fit_intercept):
    """A private fit on dense float64 X allocates the design with its intercept column once
    (none without it) and no other array of X's size: the traced peak stays under one copy
    (two before: np.abs(X) in each of two domain checks)."""
    import tracemalloc

    from dplasso.estimators import PrivateFrankWolfeLassoClassifier

    rng = np.random.default_rng(0)
    X = rng.uniform(-1.0, 1.0, size=(4000, 300))
    y = (X[:, 0] > 0).astype(int)
    model = PrivateFrankWolfeLassoClassifier(epsilon=1.0, classes=[0, 1], n_iter=5,
                                             fit_intercept=fit_intercept, random_state=0)
    tracemalloc.start()
    model.fit(X, y)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    copies = 1 if fit_intercept else 0
    assert peak < (copies + 0.25) * X.nbytes
