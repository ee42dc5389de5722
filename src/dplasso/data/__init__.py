"""Datasets: OpenML loading (offline seed support), preprocessing to ``||x_i||_inf <= 1``,
synthetic generators and the dataset catalogue. Imports nothing else from ``dplasso``."""

from dplasso.data.catalog import (
    CATALOG,
    CatalogEntry,
    catalog_entry,
    catalog_ids,
    dataset_table,
    load_dataset,
)
from dplasso.data.openml import OpenMLUnavailableError, RawDataset, load_openml
from dplasso.data.preprocess import Dataset, map_public_ranges, preprocess
from dplasso.data.synthetic import (
    SyntheticDataset,
    raj_response_bound,
    raj_synthetic,
    sparse_logistic_synthetic,
)

__all__ = [
    "CATALOG",
    "CatalogEntry",
    "Dataset",
    "OpenMLUnavailableError",
    "RawDataset",
    "SyntheticDataset",
    "catalog_entry",
    "catalog_ids",
    "dataset_table",
    "load_dataset",
    "load_openml",
    "map_public_ranges",
    "preprocess",
    "raj_response_bound",
    "raj_synthetic",
    "sparse_logistic_synthetic",
]
