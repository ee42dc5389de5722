"""A custom run's checks for .ci/fresh-clone: every results table of the notebook's folder
names only the asked dataset, and its standalone page exists and names the override.

Usage: python check_custom_run.py RESULTS_FOLDER DATASET_NAME OPENML_ID
"""
import sys
from pathlib import Path

import pandas as pd


def main(folder: Path, name: str, data_id: str) -> None:
    tables = [pd.read_csv(path) for path in sorted(folder.glob("*.csv"))]
    if not tables:
        sys.exit(f"fresh clone: {folder} holds no results table")
    seen = {value for table in tables if "dataset" in table.columns
            for value in table["dataset"].dropna().unique()}
    if seen != {name}:
        sys.exit(f"fresh clone: {folder} holds results of {sorted(seen)}, not only {name!r}")
    page = folder / "html" / f"{folder.name}.html"
    if not page.is_file() or f"datasets=[{data_id}]" not in page.read_text():
        sys.exit(f"fresh clone: {page} is missing or does not name datasets=[{data_id}]")
    print(f"fresh clone: {folder.name} on {name} ({data_id}): results and page checked")


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2], sys.argv[3])
