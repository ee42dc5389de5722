"""Preprocessing to ``||x_i||_inf <= 1``: scaling, one-hot, missing values, labels."""
import numpy as np
import pandas as pd
import pytest
import scipy.sparse

from dplasso.data.openml import RawDataset, load_openml
from dplasso.data.preprocess import STANDARD_CLIP_Z, Dataset, _assert_unit_rows, preprocess


def _raw(X, y, categorical=None, name="toy"):
    names = tuple(map(str, X.columns)) if isinstance(X, pd.DataFrame) else tuple(
        f"f{j}" for j in range(X.shape[1]))
    flags = tuple(categorical) if categorical is not None else (False,) * X.shape[1]
    return RawDataset(id=1, name=name, X=X, y=pd.Series(y), categorical=flags,
                      feature_names=names, target="class")


def _row_sup_norms(X):
    return abs(X).max(axis=1).toarray().ravel() if scipy.sparse.issparse(X) \
        else np.abs(X).max(axis=1)


def test_numeric_columns_divided_by_max_abs_and_missing_set_to_zero():
    frame = pd.DataFrame({"a": [-4.0, 2.0, 0.0, 1.0],
                          "zero": [0.0, 0.0, 0.0, 0.0],
                          "c": [3.0, np.nan, -1.5, 0.0]})
    out = preprocess(_raw(frame, ["u", "v", "u", "v"]))
    expected = np.column_stack([frame["a"] / 4.0, frame["zero"],
                                frame["c"].fillna(0.0) / 3.0])
    np.testing.assert_array_equal(out.X, expected)
    assert out.feature_names == ("a", "zero", "c")  # the all-zero column is kept
    assert out.n_features_raw == 3
    assert "1 values in 1 rows set to 0" in out.preprocessing


def test_one_hot_block_over_declared_values_with_missing_row_all_zero():
    colour = pd.Categorical(["red", "blue", None, "red"], categories=["red", "blue", "green"])
    frame = pd.DataFrame({"x": [1.0, -2.0, 0.5, 0.0], "colour": colour, "z": [0.0, 1.0, 2.0, 4.0]})
    out = preprocess(_raw(frame, [0, 1, 0, 1], categorical=[False, True, False]))
    assert out.feature_names == ("x", "colour=red", "colour=blue", "colour=green", "z")
    block = out.X[:, 1:4]
    np.testing.assert_array_equal(block, [[1, 0, 0], [0, 1, 0], [0, 0, 0], [1, 0, 0]])
    np.testing.assert_array_equal(out.X[:, 0], frame["x"] / 2.0)  # order of columns kept
    np.testing.assert_array_equal(out.X[:, 4], frame["z"] / 4.0)


def test_nominal_column_without_category_dtype_uses_sorted_observed_values():
    frame = pd.DataFrame({"s": ["b", "a", "b"]})
    out = preprocess(_raw(frame, [0, 1, 1], categorical=[True]))
    assert out.feature_names == ("s=a", "s=b")
    np.testing.assert_array_equal(out.X, [[0, 1], [1, 0], [0, 1]])


def test_sparse_input_stays_sparse_keeps_its_zeros_and_scales_each_column():
    rng = np.random.default_rng(3)
    X = scipy.sparse.random(50, 30, density=0.1, format="csr", random_state=rng,
                            data_rvs=lambda k: rng.normal(scale=7.0, size=k))
    out = preprocess(_raw(X, rng.integers(0, 3, size=50)))
    assert scipy.sparse.isspmatrix_csr(out.X)
    np.testing.assert_array_equal(out.X.indptr, X.indptr)
    np.testing.assert_array_equal(out.X.indices, X.indices)
    col_max = abs(X).max(axis=0).toarray().ravel()
    expected = X.toarray() / np.where(col_max > 0, col_max, 1.0)
    np.testing.assert_allclose(out.X.toarray(), expected, rtol=1e-15, atol=0)
    nonzero_cols = col_max > 0
    np.testing.assert_array_equal(abs(out.X).max(axis=0).toarray().ravel()[nonzero_cols], 1.0)


def test_sparse_missing_values_become_structural_zeros():
    X = scipy.sparse.csr_matrix(np.array([[np.nan, 2.0], [4.0, 0.0], [0.0, -1.0]]))
    out = preprocess(_raw(X, [0, 1, 0]))
    np.testing.assert_array_equal(out.X.toarray(), [[0.0, 1.0], [1.0, 0.0], [0.0, -0.5]])
    assert out.X.nnz == 3


@pytest.mark.parametrize("sparse_in", [False, True])
@pytest.mark.parametrize("sparse_out", [None, False, True])
def test_output_format_follows_the_sparse_argument(sparse_in, sparse_out):
    dense = np.array([[0.0, 3.0], [-1.0, 0.0], [2.0, 6.0]])
    X = scipy.sparse.csr_matrix(dense) if sparse_in else pd.DataFrame(dense)
    out = preprocess(_raw(X, ["a", "b", "a"]), sparse=sparse_out)
    want_sparse = sparse_in if sparse_out is None else sparse_out
    assert scipy.sparse.isspmatrix_csr(out.X) == want_sparse
    values = out.X.toarray() if want_sparse else out.X
    np.testing.assert_array_equal(values, dense / np.array([2.0, 6.0]))


def test_labels_sorted_and_encoded_as_positions():
    out = preprocess(_raw(pd.DataFrame({"x": [1.0, 2, 3, 4]}), ["b", "a", "c", "a"]))
    np.testing.assert_array_equal(out.classes, ["a", "b", "c"])
    np.testing.assert_array_equal(out.y, [1, 0, 2, 0])
    assert out.y.dtype == np.int64 and out.n_classes == 3
    numeric = preprocess(_raw(pd.DataFrame({"x": [1.0, 2, 3]}), [10, 2, 2]))
    np.testing.assert_array_equal(numeric.classes, [2, 10])  # numbers sort as numbers
    np.testing.assert_array_equal(numeric.y, [1, 0, 0])


@pytest.mark.parametrize("y, match", [
    (["a", None, "b"], "missing labels"),
    (["a", "a", "a"], "need at least two classes"),
    ([0.5, 1.25, 3.0], "non-integer numbers"),
    (["a", "b"], "one label per row"),
])
def test_bad_labels_are_rejected(y, match):
    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0]})
    raw = RawDataset(id=1, name="toy", X=frame, y=pd.Series(y), categorical=(False,),
                     feature_names=("x",), target="class")
    with pytest.raises(ValueError, match=match):
        preprocess(raw)


def test_bad_features_are_rejected():
    with pytest.raises(ValueError, match="infinity"):
        preprocess(_raw(pd.DataFrame({"x": [1.0, np.inf]}), [0, 1]))
    with pytest.raises(ValueError, match="infinity"):
        preprocess(_raw(scipy.sparse.csr_matrix([[1.0, -np.inf], [0, 1]]), [0, 1]))
    with pytest.raises(ValueError, match="neither numeric nor flagged nominal"):
        preprocess(_raw(pd.DataFrame({"s": ["a", "b"]}), [0, 1]))
    with pytest.raises(ValueError, match="one flag per column"):
        preprocess(_raw(pd.DataFrame({"x": [1.0, 2.0]}), [0, 1], categorical=[False, True]))
    with pytest.raises(ValueError, match="nominal features is not supported"):
        preprocess(_raw(scipy.sparse.csr_matrix([[1.0], [0.0]]), [0, 1], categorical=[True]))
    with pytest.raises(TypeError, match="RawDataset"):
        preprocess(pd.DataFrame({"x": [1.0]}))


def test_final_check_names_the_offending_row():
    _assert_unit_rows(np.array([[1.0, -1.0], [0.5, 0.0]]))
    with pytest.raises(AssertionError, match=r"row \[1\]"):
        _assert_unit_rows(np.array([[1.0, -1.0], [0.5, -1.0 - 1e-12]]))
    with pytest.raises(AssertionError, match=r"row \[0\]"):
        _assert_unit_rows(scipy.sparse.csr_matrix([[2.0, 0.0], [0.0, 1.0]]))
    with pytest.raises(AssertionError, match="finite entries: False"):
        _assert_unit_rows(np.array([[np.nan, 0.0]]))


@pytest.fixture(scope="module")
def real(openml_seed):
    """arrhythmia (NaNs, nominal), credit-g (nominal), fbis.wc (sparse), raw and processed."""
    loaded = {i: load_openml(i, seed_dir=openml_seed) for i in (5, 31, 389)}
    return {i: (raw, preprocess(raw)) for i, raw in loaded.items()}


@pytest.mark.parametrize("data_id", [5, 31, 389])
def test_real_data_meet_the_contract(real, data_id):
    raw, out = real[data_id]
    assert isinstance(out, Dataset)
    assert (out.id, out.name, out.n_samples) == (raw.id, raw.name, raw.X.shape[0])
    assert np.all(_row_sup_norms(out.X) <= 1.0)
    assert out.X.dtype == np.float64
    assert scipy.sparse.issparse(out.X) == scipy.sparse.issparse(raw.X)
    assert len(out.feature_names) == out.n_features
    # Every numeric feature with a nonzero value reaches exactly 1 in absolute value.
    numeric = [j for j, name in enumerate(out.feature_names) if name in raw.feature_names]
    col_max = np.asarray(abs(out.X[:, numeric]).max(axis=0).todense()).ravel() \
        if scipy.sparse.issparse(out.X) else np.abs(out.X[:, numeric]).max(axis=0)
    assert np.all((col_max == 1.0) | (col_max == 0.0))
    assert np.any(col_max == 1.0)


@pytest.mark.parametrize("data_id", [5, 31])
def test_real_one_hot_blocks_and_zeros(real, data_id):
    raw, out = real[data_id]
    for column, flag in zip(raw.feature_names, raw.categorical):
        if flag:
            declared = list(raw.X[column].cat.categories)
            block = [out.feature_names.index(f"{column}={v}") for v in declared]
            row_sums = out.X[:, block].sum(axis=1)
            np.testing.assert_array_equal(row_sums, raw.X[column].notna().to_numpy())
        else:
            values = raw.X[column].to_numpy()
            processed = out.X[:, out.feature_names.index(column)]
            np.testing.assert_array_equal(processed == 0, np.isnan(values) | (values == 0))


def test_real_sparse_keeps_sparsity_pattern(real):
    raw, out = real[389]
    assert out.X.nnz == raw.X.nnz
    np.testing.assert_array_equal(out.X.indices, raw.X.indices)


def test_arrhythmia_missing_values_imputed_not_dropped(real):
    raw, out = real[5]
    assert raw.X.isna().to_numpy().any()
    assert out.n_samples == raw.X.shape[0]
    assert np.isfinite(out.X).all()
    assert out.n_classes == raw.y.nunique()


def test_standard_scaling_standardises_clips_at_z_and_keeps_the_domain():
    """Each numeric column becomes clip((x - mean)/sd, -z, z)/z; a missing value the mean
    (0); a constant column zero; one-hot columns stay {0, 1}."""
    rng = np.random.default_rng(0)
    heavy = rng.lognormal(sigma=2.0, size=200)
    frame = pd.DataFrame({"heavy": heavy, "constant": np.full(200, 7.0),
                          "colour": pd.Categorical(rng.choice(["r", "g"], 200))})
    frame.loc[3, "heavy"] = np.nan
    y = (heavy > np.median(heavy)).astype(int)
    data = preprocess(_raw(frame, y, categorical=(False, False, True)), scaling="standard")
    observed = heavy[np.arange(200) != 3]
    z = STANDARD_CLIP_Z
    expected = np.clip((heavy - observed.mean()) / observed.std(), -z, z) / z
    expected[3] = 0.0
    np.testing.assert_allclose(data.X[:, 0], expected, rtol=1e-12, atol=1e-15)
    assert np.all(data.X[:, 1] == 0.0)
    assert set(np.unique(data.X[:, 2:])) == {0.0, 1.0}
    assert np.abs(data.X).max() <= 1.0 and "standardised" in data.preprocessing
    # the max-abs map squeezes this column's bulk near zero; the standard one spreads it
    squeezed = preprocess(_raw(frame, y, categorical=(False, False, True))).X[:, 0]
    assert np.median(np.abs(squeezed)) < 0.05 < 0.1 < np.median(np.abs(data.X[:, 0]))


def test_standard_scaling_of_sparse_input_keeps_zeros():
    X = scipy.sparse.random(100, 5, density=0.2, random_state=0, format="csr") * 50.0
    data = preprocess(_raw(X, np.arange(100) % 2), scaling="standard")
    assert scipy.sparse.issparse(data.X) and data.X.nnz == X.nnz
    rms = np.sqrt(np.asarray(X.multiply(X).mean(axis=0)).ravel())
    expected = np.clip(X.toarray() / (STANDARD_CLIP_Z * rms), -1.0, 1.0)
    np.testing.assert_allclose(data.X.toarray(), expected, rtol=1e-12)


def test_unknown_scaling_is_refused():
    with pytest.raises(ValueError, match="scaling must be one of"):
        preprocess(_raw(np.eye(4), [0, 1, 0, 1]), scaling="minmax")


@pytest.mark.parametrize("scaling", ["max-abs", "standard"])
@pytest.mark.parametrize("sparse", [False, True])
def test_fit_rows_read_the_summaries_from_those_rows_only(scaling, sparse):
    """The map fitted on ``fit_rows`` equals the map of those rows alone, applied to every
    row and clipped: changing a row outside ``fit_rows`` changes that row only."""
    rng = np.random.default_rng(1)
    values = rng.lognormal(sigma=1.0, size=(40, 3)) * rng.choice([-1.0, 0.0, 1.0], (40, 3))
    train = np.arange(0, 40, 2)
    other = values.copy()
    other[1] *= 100.0  # a test row far out of the training range
    make = (lambda v: scipy.sparse.csr_matrix(v)) if sparse else pd.DataFrame
    dense = (lambda X: X.toarray()) if sparse else np.asarray
    first = dense(preprocess(_raw(make(values), np.arange(40) % 2), scaling=scaling,
                             fit_rows=train).X)
    second = dense(preprocess(_raw(make(other), np.arange(40) % 2), scaling=scaling,
                              fit_rows=train).X)
    changed = np.flatnonzero(np.any(first != second, axis=1))
    assert set(changed) <= {1}
    alone = dense(preprocess(_raw(make(values[train]), np.arange(20) % 2), scaling=scaling).X)
    np.testing.assert_allclose(first[train], alone, rtol=1e-12, atol=1e-15)
    assert np.abs(second).max() <= 1.0
    everything = dense(preprocess(_raw(make(values), np.arange(40) % 2), scaling=scaling).X)
    assert not np.array_equal(first, everything)


@pytest.mark.parametrize("rows, match", [
    (np.array([0, 0, 1]), "distinct"), (np.array([0, 99]), "distinct row indices"),
    (np.array([], dtype=int), "non-empty"), (np.array([0.5]), "row indices")])
def test_bad_fit_rows_are_refused(rows, match):
    with pytest.raises(ValueError, match=match):
        preprocess(_raw(np.eye(4), [0, 1, 0, 1]), fit_rows=rows)


def test_public_ranges_map_into_the_domain_without_reading_the_data():
    from dplasso.data import map_public_ranges
    X = np.array([[0.0, 10.0], [5.0, 20.0], [20.0, -5.0]])
    mapped = map_public_ranges(X, [0.0, 0.0], [10.0, 20.0])
    np.testing.assert_array_equal(mapped, [[-1.0, 0.0], [0.0, 1.0], [1.0, -1.0]])
    np.testing.assert_array_equal(map_public_ranges(X[:2], [0.0, 0.0], [10.0, 20.0]),
                                  mapped[:2])  # the same map whatever the other rows hold
    with pytest.raises(ValueError, match="low < high"):
        map_public_ranges(X, [1.0, 0.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="one bound per column"):
        map_public_ranges(X, [0.0], [1.0])


def test_the_public_range_scaler_is_the_map_and_fit_reads_no_value():
    from dplasso.data import PublicRangeScaler, map_public_ranges
    X = np.array([[0.0, 10.0], [5.0, 20.0], [20.0, -5.0]])
    scaler = PublicRangeScaler(low=[0.0, 0.0], high=[10.0, 20.0])
    np.testing.assert_array_equal(scaler.fit_transform(X),
                                  map_public_ranges(X, [0.0, 0.0], [10.0, 20.0]))
    other = PublicRangeScaler(low=[0.0, 0.0], high=[10.0, 20.0]).fit(-1e6 * np.ones((7, 2)))
    np.testing.assert_array_equal(other.transform(X), scaler.transform(X))
    np.testing.assert_array_equal(other.low_, [0.0, 0.0])
    np.testing.assert_array_equal(other.high_, [10.0, 20.0])
    one_range = PublicRangeScaler(low=0.0, high=20.0).fit(X)  # a number: every column
    np.testing.assert_array_equal(one_range.transform(X)[:, 1], scaler.transform(X)[:, 1])
    frame = pd.DataFrame(X, columns=["age", "dose"])
    assert list(PublicRangeScaler(0.0, 1.0).fit(frame).get_feature_names_out()) == [
        "age", "dose"]


@pytest.mark.parametrize("low, high, X, match", [
    ([0.0], [1.0], np.ones((2, 2)), "one bound per column of X \\(2\\)"),
    (1.0, 1.0, np.ones((2, 2)), "low < high"),
    (0.0, np.inf, np.ones((2, 2)), "finite"),
    (0.0, 1.0, np.array([[0.0, np.nan]]), "X contains NaN"),
])
def test_the_public_range_scaler_refuses_bad_ranges_and_values(low, high, X, match):
    from dplasso.data import PublicRangeScaler
    with pytest.raises(ValueError, match=match):
        PublicRangeScaler(low, high).fit(X)


def test_the_public_range_scaler_refuses_a_new_number_of_columns():
    from dplasso.data import PublicRangeScaler
    scaler = PublicRangeScaler(0.0, 1.0).fit(np.ones((2, 3)))
    with pytest.raises(ValueError, match="X has 2 features, but PublicRangeScaler is expecting 3"):
        scaler.transform(np.ones((2, 2)))
