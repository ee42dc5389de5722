"""Loading OpenML datasets: seed mode, cache mode, fail-fast without network, id checks."""
import re
import shutil
import socket
import time

import numpy as np
import openml
import pandas as pd
import pytest
import scipy.sparse

from dplasso.data.catalog import catalog_entry
from dplasso.data import openml as openml_module
from dplasso.data.openml import (
    DATASETS_SUBDIR,
    PARSED_ENV_VAR,
    SEED_ENV_VAR,
    OpenMLUnavailableError,
    RawDataset,
    load_openml,
)


@pytest.fixture
def no_network(monkeypatch):
    """Every socket connection and name lookup fails, as on a machine without network."""
    def refuse(*args, **kwargs):
        raise OSError("network disabled by the no_network test fixture")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def _snapshot(folder):
    """Every file under ``folder`` with its size and modification time."""
    return {p.relative_to(folder): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in folder.rglob("*")}


@pytest.mark.parametrize("data_id", [15, 40, 389])
def test_seed_load_matches_catalogue(openml_seed, data_id):
    raw = load_openml(data_id, seed_dir=openml_seed)
    entry = catalog_entry(data_id)
    assert isinstance(raw, RawDataset)
    assert (raw.id, raw.name) == (data_id, entry.name)
    assert raw.X.shape == (entry.n, entry.p)
    assert raw.y.shape == (entry.n,)
    assert raw.y.nunique() == entry.n_classes
    assert len(raw.categorical) == len(raw.feature_names) == entry.p


def test_seed_mode_never_touches_the_network(openml_seed, no_network, monkeypatch, tmp_path):
    monkeypatch.setenv(SEED_ENV_VAR, str(openml_seed))
    raw = load_openml(40)
    assert raw.X.shape == (208, 60)
    # The cut is real: the same call without the seed has to go online and fails.
    monkeypatch.delenv(SEED_ENV_VAR)
    with pytest.raises(OpenMLUnavailableError):
        load_openml(40, cache_dir=tmp_path)


def test_seed_folder_and_openml_config_left_as_they_were(openml_seed):
    entry = openml_seed / DATASETS_SUBDIR / "40"
    before_files = _snapshot(entry)
    before_config = openml.config.get_config_as_dict()
    load_openml(40, seed_dir=openml_seed)
    assert _snapshot(entry) == before_files
    assert openml.config.get_config_as_dict() == before_config


def test_failure_inside_openml_keeps_the_seed(tmp_path, openml_seed):
    """openml deletes the cache folder of a dataset it fails on: the seed must survive."""
    broken = tmp_path / "seed" / DATASETS_SUBDIR / "40"
    shutil.copytree(openml_seed / DATASETS_SUBDIR / "40", broken)
    (broken / "dataset.arff").write_text("this is not an ARFF file\n")
    before_config = openml.config.get_config_as_dict()
    with pytest.raises(Exception):  # whatever openml raises on a corrupt ARFF
        load_openml(40, seed_dir=tmp_path / "seed")
    assert sorted(p.name for p in broken.iterdir()) == ["dataset.arff", "description.xml"]
    assert openml.config.get_config_as_dict() == before_config


def test_id_missing_from_seed_is_a_clear_error(openml_seed):
    with pytest.raises(FileNotFoundError, match=r"dataset 2 is not in the offline seed"):
        load_openml(2, seed_dir=openml_seed)


def test_seed_without_cache_layout_is_rejected(tmp_path):
    with pytest.raises(ValueError, match="org/openml/www/datasets"):
        load_openml(40, seed_dir=tmp_path)


@pytest.mark.parametrize("bad_id", ["sonar", "40", 40.0, True, None])
def test_non_integer_id_is_rejected(bad_id, openml_seed):
    with pytest.raises(TypeError, match="data_id must be an integer"):
        load_openml(bad_id, seed_dir=openml_seed)


@pytest.mark.parametrize("bad_id", [0, -40])
def test_non_positive_id_is_rejected(bad_id, openml_seed):
    with pytest.raises(ValueError, match="positive"):
        load_openml(bad_id, seed_dir=openml_seed)


def test_numpy_integer_id_is_accepted(openml_seed):
    assert load_openml(np.int64(15), seed_dir=openml_seed).id == 15


def test_cache_dir_and_seed_dir_together_are_rejected(tmp_path, openml_seed):
    with pytest.raises(ValueError, match="either cache_dir or seed_dir"):
        load_openml(40, cache_dir=tmp_path, seed_dir=openml_seed)


def test_no_seed_and_no_network_fails_fast_with_instructions(tmp_path, no_network, monkeypatch):
    monkeypatch.delenv(SEED_ENV_VAR, raising=False)
    start = time.monotonic()
    with pytest.raises(OpenMLUnavailableError) as info:
        load_openml(40, cache_dir=tmp_path)
    assert time.monotonic() - start < 10.0
    message = str(info.value)
    assert "DPLASSO_OPENML_SEED" in message and "connect to the internet" in message
    assert not (tmp_path / DATASETS_SUBDIR / "40").exists()


def test_populated_cache_dir_loads_without_network(tmp_path, openml_seed, no_network,
                                                   monkeypatch):
    monkeypatch.delenv(SEED_ENV_VAR, raising=False)
    shutil.copytree(openml_seed / DATASETS_SUBDIR / "15", tmp_path / DATASETS_SUBDIR / "15")
    raw = load_openml(15, cache_dir=tmp_path)
    assert raw.X.shape == (699, 9)


def test_numeric_columns_become_float64_and_nominal_stay_categorical(openml_seed):
    # breast-w: openml returns uint8 and float64 columns; credit-g adds nominal ones.
    breast = load_openml(15, seed_dir=openml_seed)
    assert set(breast.X.dtypes) == {np.dtype(np.float64)}
    assert int(breast.X.isna().sum().sum()) > 0  # missing values survive as NaN
    credit = load_openml(31, seed_dir=openml_seed)
    nominal = [c for c, f in zip(credit.X.columns, credit.categorical) if f]
    numeric = [c for c, f in zip(credit.X.columns, credit.categorical) if not f]
    assert nominal and numeric
    assert all(isinstance(credit.X[c].dtype, pd.CategoricalDtype) for c in nominal)
    assert set(credit.X[numeric].dtypes) == {np.dtype(np.float64)}


def _parse_sparse_arff(path):
    """Independent reader for fbis.wc: (rows, cols, values) of the features, labels."""
    text = path.read_text()
    header, data = re.split(r"^@data\s*$", text, flags=re.IGNORECASE | re.MULTILINE)
    attributes = re.findall(r"^@attribute\s+(\S+)\s+(.+)$", header, flags=re.I | re.M)
    p = len(attributes) - 1
    declared = [v.strip() for v in attributes[-1][1].strip().strip("{}").split(",")]
    rows, cols, vals, labels = [], [], [], []
    for line in (ln.strip() for ln in data.splitlines()):
        if not line:
            continue
        label = declared[0]  # sparse ARFF omits the first nominal value (code 0)
        for pair in line.strip("{}").split(","):
            index, value = pair.split()
            if int(index) == p:
                label = value
            else:
                rows.append(len(labels))
                cols.append(int(index))
                vals.append(float(value))
        labels.append(label)
    return (rows, cols, vals), labels, declared


def test_sparse_fbis_keeps_sparse_features_and_label_strings(openml_seed):
    raw = load_openml(389, seed_dir=openml_seed)
    (rows, cols, vals), labels, declared = _parse_sparse_arff(
        openml_seed / DATASETS_SUBDIR / "389" / "dataset.arff")
    assert scipy.sparse.isspmatrix_csr(raw.X) and raw.X.dtype == np.float64
    expected = scipy.sparse.csr_matrix((vals, (rows, cols)), shape=raw.X.shape)
    assert (raw.X != expected).nnz == 0
    assert list(raw.y.astype(str)) == labels
    assert list(raw.y.cat.categories) == declared
    assert not any(raw.categorical)


def test_without_arguments_or_seed_openml_configured_cache_is_used(tmp_path, openml_seed,
                                                                   no_network, monkeypatch):
    monkeypatch.delenv(SEED_ENV_VAR, raising=False)
    shutil.copytree(openml_seed / DATASETS_SUBDIR / "15", tmp_path / DATASETS_SUBDIR / "15")
    previous = openml.config.get_config_as_dict()["cachedir"]
    openml.config.set_root_cache_directory(tmp_path)
    try:
        raw = load_openml(15)
        assert raw.X.shape == (699, 9)
        assert openml.config.get_config_as_dict()["cachedir"] == tmp_path
    finally:
        openml.config.set_root_cache_directory(previous)


def _parsed_files(folder):
    return sorted(p.name for p in folder.glob("*.pickle"))


def test_a_parsed_seed_dataset_is_read_back_without_parsing(tmp_path, openml_seed, monkeypatch):
    monkeypatch.setenv(PARSED_ENV_VAR, str(tmp_path / "parsed"))
    first = load_openml(40, seed_dir=openml_seed)
    assert len(_parsed_files(tmp_path / "parsed")) == 1

    def no_parse(*args):
        raise AssertionError("the parsed copy should have been read")

    monkeypatch.setattr(openml_module, "_load_seed_entry", no_parse)
    again = load_openml(40, seed_dir=openml_seed)
    pd.testing.assert_frame_equal(again.X, first.X)
    pd.testing.assert_series_equal(again.y, first.y)
    assert (again.name, again.categorical, again.target) == (first.name, first.categorical,
                                                              first.target)


def test_a_changed_or_damaged_seed_copy_is_parsed_again(tmp_path, openml_seed, monkeypatch):
    monkeypatch.setenv(PARSED_ENV_VAR, str(tmp_path / "parsed"))
    seed = tmp_path / "seed"
    entry = seed / DATASETS_SUBDIR / "40"
    shutil.copytree(openml_seed / DATASETS_SUBDIR / "40", entry)
    load_openml(40, seed_dir=seed)
    (old,) = _parsed_files(tmp_path / "parsed")
    with open(entry / "dataset.arff", "a") as arff:
        arff.write("% a comment changes the file, not the data\n")
    load_openml(40, seed_dir=seed)
    assert len(_parsed_files(tmp_path / "parsed")) == 2  # a new digest, a new copy
    damaged = tmp_path / "parsed" / old
    damaged.write_bytes(b"not a pickle")
    shutil.copy(openml_seed / DATASETS_SUBDIR / "40" / "dataset.arff", entry / "dataset.arff")
    assert load_openml(40, seed_dir=seed).X.shape == (208, 60)
    assert damaged.read_bytes() != b"not a pickle"  # replaced by a good copy


def test_an_empty_parsed_folder_variable_keeps_no_copies(tmp_path, openml_seed, monkeypatch):
    monkeypatch.setenv(PARSED_ENV_VAR, "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    load_openml(40, seed_dir=openml_seed)
    assert not any(tmp_path.rglob("*.pickle"))
