"""Per-unit checkpoints of experiment tables, so an interrupted run resumes where it stopped."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd

from dplasso.experiments.display import save_atomic


def settings_hash(settings) -> str:
    """A short, stable hash of a JSON-serialisable settings dict (order-independent)."""
    text = json.dumps(settings, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def cached(cache_dir, name, settings, compute) -> pd.DataFrame:
    """``compute()``, or the checkpoint ``cache_dir/<name>-<settings_hash(settings)>.csv``.

    Without ``cache_dir`` nothing is stored. A checkpoint is written atomically, so a killed
    run never leaves a half-written one; different settings never share a file.
    """
    if cache_dir is None:
        return compute()
    path = Path(cache_dir) / f"{name}-{settings_hash(settings)}.csv"
    if path.is_file():
        return pd.read_csv(path, float_precision="round_trip")
    frame = compute()
    save_atomic(frame, path)
    return frame
