"""Datasets: OpenML loading (offline seed support), preprocessing to ``||x_i||_inf <= 1``,
synthetic generators and the dataset catalogue. Imports nothing else from ``dplasso``.

Names are imported on first use (PEP 562), so ``from dplasso.data import catalog_ids`` does not
load openml, pandas or scipy.
"""
import importlib

_MODULE_OF = {
    **dict.fromkeys(("CATALOG", "CatalogEntry", "catalog_entry", "catalog_ids", "dataset_table",
                     "load_dataset"), "catalog"),
    **dict.fromkeys(("OpenMLUnavailableError", "RawDataset", "load_openml"), "openml"),
    **dict.fromkeys(("Dataset", "preprocess"), "preprocess"),
    **dict.fromkeys(("SyntheticDataset", "raj_response_bound", "raj_synthetic",
                     "sparse_logistic_synthetic"), "synthetic"),
}

__all__ = sorted(_MODULE_OF)


def __getattr__(name):
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_MODULE_OF[name]}"), name)


def __dir__():
    return __all__
