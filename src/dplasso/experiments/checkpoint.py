"""Per-unit checkpoints of experiment tables, so an interrupted run resumes where it stopped."""
from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from dplasso.experiments.display import save_atomic
from dplasso.experiments.execution import run_tasks


def settings_hash(settings) -> str:
    """A short, stable hash of a JSON-serialisable settings dict (order-independent)."""
    text = json.dumps(settings, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _path(cache_dir, name, settings) -> Path:
    return Path(cache_dir) / f"{name}-{settings_hash(settings)}.csv"


def _read(path) -> pd.DataFrame:
    return pd.read_csv(path, float_precision="round_trip")


def cached(cache_dir, name, settings, compute) -> pd.DataFrame:
    """``compute()``, or the checkpoint ``cache_dir/<name>-<settings_hash(settings)>.csv``.

    Without ``cache_dir`` nothing is stored. A checkpoint is written atomically, so a killed
    run never leaves a half-written one; different settings never share a file.
    """
    if cache_dir is None:
        return compute()
    path = _path(cache_dir, name, settings)
    if path.is_file():
        return _read(path)
    frame = compute()
    save_atomic(frame, path)
    return frame


def cached_tasks(cache_dir, units, compute, *, n_jobs=1, desc=None, progress=False):
    """``[cached(cache_dir, name, settings, lambda: compute(*args)) for name, settings, args
    in units]``, the units without a checkpoint run as tasks of
    :func:`dplasso.experiments.execution.run_tasks` (this process, joblib or a Dask cluster).

    Checkpoints are read and written in this process, each as soon as its task's result
    arrives: workers never need ``cache_dir``, and an interrupted run, local or
    distributed, resumes with every unit that finished.
    """
    units = [(name, settings, tuple(args)) for name, settings, args in units]
    frames = [None] * len(units)
    paths = [None if cache_dir is None else _path(cache_dir, name, settings)
             for name, settings, _ in units]
    with tqdm(total=len(units), desc=desc, disable=not progress, leave=False) as bar:
        for i, path in enumerate(paths):
            if path is not None and path.is_file():
                frames[i] = _read(path)
                bar.update()
        todo = [i for i, frame in enumerate(frames) if frame is None]

        def arrived(k, frame):
            i = todo[k]
            if paths[i] is not None:
                save_atomic(frame, paths[i])
            frames[i] = frame
            bar.update()

        run_tasks(compute, [units[i][2] for i in todo], n_jobs=n_jobs, on_result=arrived)
    return frames


def chunks(items, sizes) -> list[list]:
    """``items`` cut into consecutive lists of the given ``sizes`` (a grid's results back into
    its rows)."""
    items = iter(items)
    return [list(itertools.islice(items, size)) for size in sizes]
