"""The unit cache: experiment units of work kept across runs, keyed by what they compute from.

An experiment cuts its grid into *units* (a dataset's split, a budget, a seed), each a call
``compute(*args)`` that returns a ``pandas.DataFrame``. With a ``cache_dir`` each unit's frame
is stored as ``<cache_dir>/<name>-<key>.pkl`` (pickled with the seconds it took, so a frame
read back is the frame that was computed, dtypes and bits included) and reused by any later call, in any run, whose key is
the same. The key (:func:`unit_key`) is a digest of

- the unit's ``name`` and ``settings`` (what the experiment declares it depends on: a unit
  that computes from values its function closes over, not from arguments, names them there),
- the content of its arguments (:func:`content_digest`: arrays by their bytes, frames by
  their values, functions by their name, defaults and closure),
- the code of every library module ``compute``'s module (``compute.__module__``) can import
  (:func:`dplasso.experiments.closure.closure_digest`: syntax trees, so docstrings and comments
  do not count), the Python and dependency versions
  (:func:`~dplasso.experiments.closure.environment_digest`) and the offline OpenML seed in
  use (``DPLASSO_OPENML_SEED``: a seed's reconstructed files may differ from OpenML's),

so a change to a notebook's prose or display code never recomputes a unit, and a change to
one library module recomputes only the units whose code can reach it. A file is written
atomically (a killed run never leaves half of one) and its modification time is renewed when
it is read, so :func:`prune` drops the least recently used files first.
"""
from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import os
import pickle
import time
from pathlib import Path

from tqdm import tqdm

from dplasso.data.openml import SEED_ENV_VAR
from dplasso.experiments.closure import closure_digest, environment_digest
from dplasso.experiments.execution import UNIT_STATS_ENV_VAR, run_tasks

__all__ = ["cached", "cached_tasks", "chunks", "content_digest", "prune", "settings_hash",
           "unit_key"]

SUFFIX = ".pkl"


def settings_hash(settings) -> str:
    """A short, stable hash of a settings dict (order-independent)."""
    return content_digest(settings)[:12]


def content_digest(obj) -> str:
    """SHA-256 of ``obj``'s content, the same in every process for equal content.

    Numbers, strings, bytes and None by type and value; containers by their items (dicts and
    sets in sorted order); numpy arrays and scalars by dtype, shape and bytes; scipy sparse
    matrices by their CSR arrays; pandas objects by their values, index, names and dtypes;
    dataclasses by their fields; random generators by their state; functions by module,
    qualified name, defaults and closure. Anything else by its pickle.
    """
    digest = hashlib.sha256()
    _feed(digest, obj, set())
    return digest.hexdigest()


def _feed(digest, obj, seen) -> None:
    import numpy as np
    import pandas as pd
    import scipy.sparse

    def tag(text):
        digest.update(f"<{text}>".encode())

    if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes)):
        tag(type(obj).__name__)
        digest.update(repr(obj).encode())
    elif isinstance(obj, (np.ndarray, np.generic)):
        array = np.asarray(obj)
        tag(f"ndarray {array.dtype.str} {array.shape}")
        if array.dtype.hasobject:
            _feed(digest, array.tolist(), seen)
        else:
            digest.update(np.ascontiguousarray(array).tobytes())
    elif scipy.sparse.issparse(obj):
        csr = scipy.sparse.csr_array(obj)
        csr.sort_indices()
        tag(f"sparse {obj.format} {csr.shape}")
        for part in (csr.data, csr.indices, csr.indptr):
            _feed(digest, part, seen)
    elif isinstance(obj, (pd.DataFrame, pd.Series, pd.Index)):
        tag(type(obj).__name__)
        _feed(digest, pickle.dumps(obj, protocol=5), seen)
    elif isinstance(obj, dict):
        tag(f"dict {len(obj)}")
        for key, value in sorted(obj.items(), key=lambda item: repr(item[0])):
            _feed(digest, key, seen)
            _feed(digest, value, seen)
    elif isinstance(obj, (list, tuple)):
        tag(f"{type(obj).__name__} {len(obj)}")
        for item in obj:
            _feed(digest, item, seen)
    elif isinstance(obj, (set, frozenset)):
        tag(f"set {len(obj)}")
        for item in sorted(content_digest(item) for item in obj):
            digest.update(item.encode())
    elif isinstance(obj, np.random.Generator):
        tag(f"generator {type(obj.bit_generator).__name__}")
        _feed(digest, obj.bit_generator.state, seen)
    elif isinstance(obj, np.random.SeedSequence):
        tag("seed sequence")
        _feed(digest, (obj.entropy, obj.spawn_key, obj.pool_size, obj.n_children_spawned),
              seen)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        tag(f"dataclass {type(obj).__module__}.{type(obj).__qualname__}")
        _feed(digest, {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}, seen)
    elif callable(obj) and hasattr(obj, "__code__"):
        tag(f"function {obj.__module__}.{obj.__qualname__}")
        if id(obj) in seen:  # a recursive closure: its name is enough the second time
            return
        seen.add(id(obj))
        _feed(digest, obj.__defaults__, seen)
        _feed(digest, obj.__kwdefaults__, seen)
        _feed(digest, [cell.cell_contents for cell in obj.__closure__ or ()], seen)
    else:
        tag(f"pickle {type(obj).__module__}.{type(obj).__qualname__}")
        digest.update(pickle.dumps(obj, protocol=5))


def unit_key(name, settings, compute, args=()) -> str:
    """The cache key of unit ``name`` (see the module docstring), 24 hexadecimal digits."""
    module = getattr(compute, "__module__", None) or ""
    parts = (name, content_digest(settings), content_digest(tuple(args)),
             closure_digest([module]), environment_digest(),
             os.environ.get(SEED_ENV_VAR, ""))
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]


def _path(cache_dir, name, key) -> Path:
    return Path(cache_dir) / f"{name}-{key}{SUFFIX}"


def _read(path: Path):
    """The unit stored at ``path`` (``{"frame", "seconds"}``), or None when there is none (or
    it cannot be read: a damaged file is computed again and replaced)."""
    try:
        with open(path, "rb") as handle:
            unit = pickle.load(handle)
    except Exception:
        return None
    if not isinstance(unit, dict) or "frame" not in unit:
        return None
    try:
        os.utime(path)  # recently used: pruned last
    except OSError:
        pass
    return unit


def _write(unit, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as handle:
        pickle.dump(unit, handle, protocol=5)
    os.replace(tmp, path)


def _timed(compute, *args):
    """``{"frame": compute(*args), "seconds": its CPU-bound wall time}`` (where it ran)."""
    started = time.perf_counter()
    frame = compute(*args)
    return {"frame": frame, "seconds": time.perf_counter() - started}


def _report(desc, units, read, computed, wall) -> None:
    """Append this call's statistics to the file ``UNIT_STATS_ENV_VAR`` names, if any: its
    units read and computed (the seconds each took when computed) and its own wall time."""
    target = os.environ.get(UNIT_STATS_ENV_VAR)
    if not target:
        return
    line = json.dumps({"desc": desc or (units[0][0] if units else ""), "units": len(units),
                       "read": [unit["seconds"] for unit in read],
                       "computed": [unit["seconds"] for unit in computed], "wall": wall})
    try:
        with open(target, "a") as handle:
            handle.write(line + "\n")
    except OSError:  # statistics only: never the reason a run fails
        pass


def cached(cache_dir, name, settings, compute):
    """``compute()``, or the unit's frame from ``cache_dir`` (nothing is stored without
    one)."""
    return cached_tasks(cache_dir, [(name, settings, ())], compute)[0]


def cached_tasks(cache_dir, units, compute, *, n_jobs=1, desc=None, progress=False):
    """``[compute(*args) for name, settings, args in units]``, each unit read from
    ``cache_dir`` when a frame with its key is there; the others run as tasks of
    :func:`dplasso.experiments.execution.run_tasks` (this process, joblib or a Dask cluster).

    Frames are read and written in this process, each as soon as its task's result arrives:
    workers never need ``cache_dir``, and an interrupted run, local or distributed, resumes
    with every unit that finished.
    """
    started = time.perf_counter()
    units = [(name, settings, tuple(args)) for name, settings, args in units]
    results = [None] * len(units)
    paths = [None if cache_dir is None else _path(cache_dir, name,
                                                    unit_key(name, settings, compute, args))
             for name, settings, args in units]
    with tqdm(total=len(units), desc=desc, disable=not progress, leave=False) as bar:
        for i, path in enumerate(paths):
            if path is not None and path.is_file():
                results[i] = _read(path)
                if results[i] is not None:
                    bar.update()
        read = [unit for unit in results if unit is not None]
        todo = [i for i, unit in enumerate(results) if unit is None]

        def arrived(k, unit):
            i = todo[k]
            if paths[i] is not None:
                _write(unit, paths[i])
            results[i] = unit
            bar.update()

        run_tasks(_timed, [(compute, *units[i][2]) for i in todo], n_jobs=n_jobs,
                  on_result=arrived)
    _report(desc, units, read, [results[i] for i in todo], time.perf_counter() - started)
    return [unit["frame"] for unit in results]


def prune(cache_dir, max_bytes: int) -> tuple[int, int]:
    """Remove the least recently used files of ``cache_dir`` until at most ``max_bytes``
    remain; ``(files removed, bytes removed)``."""
    files = []
    for path in Path(cache_dir).glob(f"*{SUFFIX}"):
        try:
            stat = path.stat()
        except OSError:
            continue
        files.append((stat.st_mtime, stat.st_size, path))
    total = sum(size for _, size, _ in files)
    removed = freed = 0
    for _, size, path in sorted(files):
        if total <= max_bytes:
            break
        try:
            path.unlink()
        except OSError:
            continue
        total -= size
        removed += 1
        freed += size
    return removed, freed


def chunks(items, sizes) -> list[list]:
    """``items`` cut into consecutive lists of the given ``sizes`` (a grid's results back into
    its rows)."""
    items = iter(items)
    return [list(itertools.islice(items, size)) for size in sizes]
