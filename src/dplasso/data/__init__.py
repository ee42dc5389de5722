"""Datasets: OpenML loading (offline seed support), preprocessing to ``||x_i||_inf <= 1``
(and :class:`PublicRangeScaler`, a scikit-learn transformer that maps features with public
ranges into it), synthetic generators and the dataset catalogue. Imports nothing else from ``dplasso`` (but
the standard-library helper ``dplasso._lazy``)."""
from dplasso._lazy import lazy_exports

__all__ = [
    "CATALOG",
    "CatalogEntry",
    "Dataset",
    "HELD_OUT",
    "OpenMLUnavailableError",
    "OpenMLDescription",
    "PublicRangeScaler",
    "RawDataset",
    "SyntheticDataset",
    "catalog_entry",
    "catalog_ids",
    "dataset_info",
    "dataset_table",
    "describe_openml",
    "load_dataset",
    "load_openml",
    "map_public_ranges",
    "preprocess",
    "raj_response_bound",
    "raj_synthetic",
    "sparse_logistic_synthetic",
]

lazy_exports(__name__, {
    "catalog": (
        "CATALOG", "CatalogEntry", "HELD_OUT", "catalog_entry", "catalog_ids",
        "dataset_info", "dataset_table", "load_dataset",
    ),
    "metadata": ("OpenMLDescription", "describe_openml"),
    "openml": ("OpenMLUnavailableError", "RawDataset", "load_openml"),
    "preprocess": ("Dataset", "PublicRangeScaler", "map_public_ranges", "preprocess"),
    "synthetic": (
        "SyntheticDataset", "raj_response_bound", "raj_synthetic", "sparse_logistic_synthetic",
    ),
})
