"""Input checks: clear errors naming the argument and the problem."""
import numpy as np
import pytest
import scipy.sparse as sp

from dplasso.optim.validation import (
    check_binary_labels,
    check_class_labels,
    check_lam,
    check_n_iter,
    check_n_trials,
    check_real_target,
    check_X_bounded,
)


def test_check_X_bounded_accepts_and_converts():
    X = np.array([[1, 0], [-1, 1]])
    out = check_X_bounded(X)
    assert out.dtype == np.float64 and isinstance(out, np.ndarray)
    for fmt in ("csr", "csc"):
        S = sp.random(30, 20, density=0.2, format=fmt, random_state=0)
        out = check_X_bounded(S)
        assert sp.issparse(out) and out.format == fmt and out.dtype == np.float64
        assert out is S  # no copy when nothing needs converting
    out = check_X_bounded(sp.coo_matrix(np.eye(3)))
    assert sp.issparse(out) and out.format == "csr"
    out = check_X_bounded(sp.csr_array(np.eye(3, dtype=np.int64)))
    assert sp.issparse(out) and out.dtype == np.float64


@pytest.mark.parametrize("to_input", [np.asarray, sp.csr_matrix, sp.csc_matrix])
def test_check_X_bounded_rejects_nan_inf(to_input):
    for bad in (np.nan, np.inf, -np.inf):
        X = np.zeros((3, 2))
        X[1, 1] = bad
        with pytest.raises(ValueError, match="X contains NaN or infinity"):
            check_X_bounded(to_input(X))


@pytest.mark.parametrize("to_input", [np.asarray, sp.csr_matrix, sp.csc_matrix])
def test_check_X_bounded_names_first_offending_row(to_input):
    X = np.zeros((6, 3))
    X[4, 0] = 1.5
    X[2, 2] = -1.0000001
    X[0, 1] = 1.0  # the bound itself is allowed
    with pytest.raises(ValueError, match=r"row 2 has sup norm 1\.0000001 \(2 offending"):
        check_X_bounded(to_input(X))


def test_check_X_bounded_sums_duplicate_sparse_entries_first():
    X = sp.csr_matrix((np.array([0.6, 0.6]), np.array([1, 1]), np.array([0, 2, 2])),
                      shape=(2, 3))
    assert not X.has_canonical_format
    with pytest.raises(ValueError, match="row 0 has sup norm 1.2"):
        check_X_bounded(X)


def test_check_X_bounded_shape_and_type_errors():
    with pytest.raises(ValueError, match=r"X is empty: shape \(0, 3\)"):
        check_X_bounded(np.zeros((0, 3)))
    with pytest.raises(ValueError, match=r"X is empty: shape \(3, 0\)"):
        check_X_bounded(sp.csr_matrix((3, 0)))
    with pytest.raises(ValueError, match="two-dimensional"):
        check_X_bounded(np.zeros(3))
    with pytest.raises(TypeError, match="numeric"):
        check_X_bounded(np.array([["a"]]))


def test_scalar_checks():
    assert check_lam(2) == 2.0 and isinstance(check_lam(2), float)
    for bad in (0, -1.0, np.nan, np.inf):
        with pytest.raises(ValueError, match="lam must be a finite number > 0"):
            check_lam(bad)
    for bad in ("1", True, None):
        with pytest.raises(TypeError, match="lam must be a real number"):
            check_lam(bad)
    assert check_n_iter(np.int64(5)) == 5
    with pytest.raises(ValueError, match="n_iter must be >= 1, got 0"):
        check_n_iter(0)
    with pytest.raises(TypeError, match="n_iter must be an integer"):
        check_n_iter(2.0)
    with pytest.raises(TypeError, match="n_trials must be an integer"):
        check_n_trials(True)
    with pytest.raises(ValueError, match="n_trials must be >= 1"):
        check_n_trials(-3)


def test_target_checks():
    np.testing.assert_array_equal(check_binary_labels([0, 1, 1], 3), [0.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="entry 1 is -1"):
        check_binary_labels([0, -1], 2)
    with pytest.raises(ValueError, match="y has 2 entries but X has 3 rows"):
        check_binary_labels([0, 1], 3)
    with pytest.raises(ValueError, match="one-dimensional"):
        check_binary_labels([[0, 1]], 1)
    with pytest.raises(ValueError, match="y contains NaN"):
        check_binary_labels([0.0, np.nan], 2)
    labels = check_class_labels([0.0, 2.0, 1.0], 3, 3)
    assert labels.dtype == np.intp
    with pytest.raises(ValueError, match=r"0\.\.2: entry 1 is 1\.5"):
        check_class_labels([0.0, 1.5], 2, 3)
    with pytest.raises(ValueError, match=r"entry 0 is 3"):
        check_class_labels([3, 0], 2, 3)
    with pytest.raises(ValueError, match="y contains NaN or infinity"):
        check_real_target([0.0, np.inf], 2)
    with pytest.raises(TypeError, match="numeric"):
        check_real_target(["a", "b"], 2)
    np.testing.assert_array_equal(check_real_target([1, -2], 2, y_bound=2.0), [1.0, -2.0])


@pytest.mark.parametrize("to_input", [np.asarray, sp.csr_matrix, sp.csc_matrix])
def test_check_X_bounded_clips_within_the_tolerance_and_never_writes_the_input(to_input):
    from dplasso.optim.validation import DOMAIN_TOLERANCE

    X = np.array([[1.0000000000000002, -0.5], [0.25, -(1 + DOMAIN_TOLERANCE)]])
    given = to_input(X.copy())
    out = check_X_bounded(given)
    dense = out.toarray() if sp.issparse(out) else out
    np.testing.assert_array_equal(dense, [[1.0, -0.5], [0.25, -1.0]])
    np.testing.assert_array_equal(given.toarray() if sp.issparse(given) else given, X)
    with pytest.raises(ValueError, match="row 0 has sup norm"):
        check_X_bounded(to_input(np.array([[1 + 2 * DOMAIN_TOLERANCE]])))


def test_domain_error_names_the_clip_option_and_the_scaler_caveat():
    with pytest.raises(ValueError, match=r'bounds="clip".*fitted on the private data'):
        check_X_bounded(np.array([[1.5, 0.0]]))


def test_check_X_bounded_makes_no_dense_temporary():
    """Dense float64 input is checked in place: the peak of traced allocations stays far
    below the matrix (np.abs(X) would allocate all of it), and the input is returned."""
    import tracemalloc

    X = np.random.default_rng(0).uniform(-1.0, 1.0, size=(2000, 500))
    tracemalloc.start()
    out = check_X_bounded(X)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert out is X
    assert peak < 0.05 * X.nbytes
