"""The dataset catalogue, the cached loader and the datasets table."""
import numpy as np
import pandas as pd
import pytest
import scipy.sparse

from dplasso.data.catalog import (
    CATALOG,
    HELD_OUT,
    TABLE_COLUMNS,
    catalog_entry,
    catalog_ids,
    dataset_info,
    dataset_table,
    load_dataset,
)
from dplasso.data.openml import SEED_ENV_VAR, load_openml
from dplasso.data.preprocess import preprocess
from dplasso.data.synthetic import raj_synthetic, sparse_logistic_synthetic

# The ids listed in experiments.md ("Real, binary" and "Real, multiclass").
SPEC_BINARY = {40, 59, 1510, 44, 1479, 3, 31, 1494, 1467, 15, 37, 1458, 1485}
SPEC_MULTICLASS = {28, 12, 389, 5}


@pytest.fixture
def seed_env(monkeypatch, openml_seed):
    """``DPLASSO_OPENML_SEED`` pointing at the shared offline seed."""
    monkeypatch.setenv(SEED_ENV_VAR, str(openml_seed))
    return openml_seed


def test_catalogue_lists_the_spec_datasets_once():
    assert set(catalog_ids("binary")) == SPEC_BINARY
    assert set(catalog_ids("multiclass")) == SPEC_MULTICLASS
    assert len(catalog_ids()) == len(CATALOG) == len(SPEC_BINARY | SPEC_MULTICLASS)
    assert len({e.name for e in CATALOG}) == len(CATALOG)
    for entry in CATALOG:
        assert (entry.n_classes == 2) == (entry.task == "binary")


def test_held_out_datasets_are_binary_and_outside_the_catalogue(seed_env):
    assert not set(HELD_OUT) & set(catalog_ids())
    assert [dataset_info(d).task for d in HELD_OUT] == ["binary"] * len(HELD_OUT)


def test_catalogue_lookup_errors():
    assert catalog_entry(40).name == "sonar"
    with pytest.raises(ValueError, match="not in the catalogue"):
        catalog_entry(2)
    with pytest.raises(ValueError, match="task must be"):
        catalog_ids("regression")


def _check_against_catalogue(data_id):
    entry = catalog_entry(data_id)
    d = load_dataset(data_id)
    assert (d.id, d.name, d.n_samples, d.n_features_raw, d.n_classes) == (
        entry.id, entry.name, entry.n, entry.p, entry.n_classes)
    row_max = abs(d.X).max(axis=1).toarray().ravel() if scipy.sparse.issparse(d.X) \
        else np.abs(d.X).max(axis=1)
    assert np.all(row_max <= 1.0)
    return d


@pytest.mark.parametrize("data_id", [15, 40, 31, 389])
def test_small_datasets_match_the_catalogue(seed_env, data_id):
    _check_against_catalogue(data_id)


@pytest.mark.slow
@pytest.mark.parametrize("data_id", catalog_ids())
def test_every_catalogue_dataset_loads_and_matches(seed_env, data_id):
    d = _check_against_catalogue(data_id)
    assert d.X.dtype == np.float64  # arcene's mixed uint8/float64 columns included


def test_load_dataset_is_cached_and_read_only(seed_env):
    first = load_dataset(40)
    assert load_dataset(40) is first
    with pytest.raises(ValueError, match="read-only"):
        first.X[0, 0] = 2.0
    with pytest.raises(ValueError, match="read-only"):
        first.y[0] = 1
    sparse = load_dataset(389)
    with pytest.raises(ValueError, match="read-only"):
        sparse.X.data[0] = 2.0
    np.testing.assert_allclose(sparse.X @ np.ones(sparse.n_features),
                               sparse.X.toarray().sum(axis=1))  # read-only CSR still computes


def _expected_openml_row(data_id):
    """n, p, classes and density recomputed from a fresh load, not from the table code."""
    raw = load_openml(data_id)
    out = preprocess(raw)
    X = out.X.toarray() if scipy.sparse.issparse(out.X) else out.X
    return {"id": data_id, "name": raw.name, "source": "OpenML", "n": raw.X.shape[0],
            "p_raw": raw.X.shape[1], "p": X.shape[1], "classes": raw.y.nunique(),
            "density": (X != 0).sum() / X.size,
            "task": "binary" if raw.y.nunique() == 2 else "multiclass"}


def test_dataset_table_agrees_with_the_loaded_data(seed_env):
    ids = [15, 40, 389]
    table = dataset_table(ids, random_state=3)
    assert tuple(table.columns) == TABLE_COLUMNS
    assert list(table["name"]) == ["breast-w", "sonar", "fbis.wc", "raj-linear",
                                   "raj-logistic", "sparse-logistic"]
    for data_id, (_, row) in zip(ids, table.iloc[:3].iterrows()):
        expected = _expected_openml_row(data_id)
        assert row["density"] == pytest.approx(expected.pop("density"), rel=1e-12)
        for column, value in expected.items():
            assert row[column] == value, (data_id, column)
        assert row["preprocessing"] == load_dataset(data_id).preprocessing
    synthetic = {"raj-linear": raj_synthetic(task="linear", random_state=3),
                 "raj-logistic": raj_synthetic(task="logistic", random_state=3),
                 "sparse-logistic": sparse_logistic_synthetic(random_state=3)}
    for _, row in table.iloc[3:].iterrows():
        s = synthetic[row["name"]]
        assert pd.isna(row["id"]) and row["source"] == "synthetic"
        assert (row["n"], row["p"], row["p_raw"]) == (*s.X.shape, s.X.shape[1])
        assert row["density"] == pytest.approx((s.X != 0).mean(), rel=1e-12)
        if s.task == "linear":
            assert pd.isna(row["classes"]) and row["task"] == "regression"
        else:
            assert row["classes"] == len(np.unique(s.y)) and row["task"] == "binary"
        assert row["preprocessing"] == s.description


def test_dataset_table_without_synthetic_rows(seed_env):
    table = dataset_table([15], synthetic=False)
    assert list(table["id"]) == [15]


@pytest.mark.slow
def test_dataset_table_of_the_whole_catalogue(seed_env):
    table = dataset_table("all", synthetic=False)
    expected = pd.DataFrame([(e.id, e.name, e.task, e.n, e.p, e.n_classes) for e in CATALOG],
                            columns=["id", "name", "task", "n", "p_raw", "classes"])
    pd.testing.assert_frame_equal(table[expected.columns].reset_index(drop=True),
                                  expected, check_dtype=False)
    assert np.all((table["density"] > 0) & (table["density"] <= 1))
    assert np.all(table["p"] >= table["p_raw"])
