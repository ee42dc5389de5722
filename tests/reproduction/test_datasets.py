"""Artifact `datasets`: the table in the book matches the data loaded through OpenML."""
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse

from dplasso.data.catalog import CATALOG, load_dataset


def test_datasets_table_matches_loaded_data(results):
    table = pd.read_csv(results("datasets"), dtype={"id": str})
    openml_rows = table[table["source"] == "OpenML"].set_index("id")
    assert sorted(openml_rows.index) == sorted(str(e.id) for e in CATALOG)
    for entry in CATALOG:
        row = openml_rows.loc[str(entry.id)]
        data = load_dataset(entry.id)
        nnz = data.X.nnz if scipy.sparse.issparse(data.X) else np.count_nonzero(data.X)
        assert row["name"] == entry.name
        assert (row["n"], row["p"]) == data.X.shape, entry.name
        assert row["p_raw"] == entry.p and row["n"] == entry.n, entry.name
        assert int(row["classes"]) == len(data.classes) == entry.n_classes, entry.name
        assert np.isclose(row["density"], nnz / (data.X.shape[0] * data.X.shape[1])), entry.name


def test_every_artifact_has_a_claim_test(registry):
    texts = " ".join(p.read_text() for p in Path(__file__).parent.glob("test_*.py"))
    missing = [a for a in registry.artifacts if f"`{a}`" not in texts]
    assert not missing, f"artifacts without a claim test in tests/reproduction: {missing}"
