"""Load OpenML datasets with openml-python, online or from an offline seed.

Three modes, chosen per call:

* **seed** (``seed_dir=...`` or the environment variable ``DPLASSO_OPENML_SEED``): the seed
  is a folder laid out as openml-python's own cache (``<seed>/org/openml/www/datasets/<id>/``
  holding ``description.xml`` and ``dataset.arff``). The dataset's folder is copied into a fresh
  temporary cache root and loaded from there; the network is never used, and an id missing
  from the seed is an error. openml is never pointed at the seed itself: any exception inside
  ``openml.datasets.get_dataset`` deletes the dataset's cache folder, and ``get_data`` writes a
  pickle beside the ARFF. Parsing an ARFF file takes up to seconds (arcene: about 4), so the
  parsed dataset is kept in :func:`parsed_seed_folder` under a digest of the entry's files,
  of this module and of the openml and pandas versions, and read back by the next load in
  any process (set :data:`PARSED_ENV_VAR` empty to keep none).
* **cache** (``cache_dir=...``, or neither argument nor environment variable: openml's
  configured cache): openml's normal behaviour, downloading what is not cached. When the
  dataset is not cached and the OpenML server does not answer within :data:`PROBE_TIMEOUT`
  seconds, :class:`OpenMLUnavailableError` says what to do instead of retrying for minutes.

openml's cache root is process-global; every call sets it and restores the previous value
(a module lock serialises loads between threads). numpy, pandas and scipy are imported by the
functions that use them, so the module is light to import (the command line reads
:data:`SEED_ENV_VAR`).
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import numbers
import os
import pickle
import shutil
import tempfile
import threading
import urllib.error
import urllib.request
import warnings
from dataclasses import dataclass
from pathlib import Path

from dplasso._extras import require_extra

SEED_ENV_VAR = "DPLASSO_OPENML_SEED"
"""Environment variable naming an offline seed folder (empty or unset: no seed)."""

PARSED_ENV_VAR = "DPLASSO_PARSED_SEED"
"""Environment variable naming the folder of parsed seed datasets (empty: keep none)."""

PROBE_TIMEOUT = 5.0
"""Seconds to wait for the OpenML server before declaring it unreachable."""

DATASETS_SUBDIR = Path("org", "openml", "www", "datasets")
"""Where openml-python keeps datasets of the public server under a cache root."""

_LOCK = threading.Lock()


class OpenMLUnavailableError(ConnectionError):
    """The dataset is not cached and the OpenML server cannot be reached."""


@dataclass(frozen=True, eq=False)
class RawDataset:
    """An OpenML dataset as loaded, before preprocessing.

    Attributes
    ----------
    id : int
        OpenML dataset id.
    name : str
        OpenML dataset name.
    X : pandas.DataFrame or scipy.sparse.csr_matrix, shape (n, p)
        Features. Dense datasets: a DataFrame whose numeric columns are ``float64`` (NaN marks a
        missing value) and whose nominal columns are ``category`` with the categories declared
        in the ARFF header. Sparse ARFF datasets: a ``float64`` CSR matrix.
    y : pandas.Series, shape (n,)
        Target values. Nominal targets are ``category`` Series of the label strings, also for
        sparse ARFF files, where openml returns integer codes (they are mapped back to the
        labels declared in the ARFF header).
    categorical : tuple of bool, length p
        Whether each feature is nominal.
    feature_names : tuple of str, length p
        Column names.
    target : str
        Name of the target attribute (OpenML's default target).
    """

    id: int
    name: str
    X: pd.DataFrame | scipy.sparse.csr_matrix
    y: pd.Series
    categorical: tuple[bool, ...]
    feature_names: tuple[str, ...]
    target: str


def load_openml(data_id: int, *, cache_dir=None, seed_dir=None) -> RawDataset:
    """Load an OpenML dataset by integer id with openml-python.

    Parameters
    ----------
    data_id : int
        OpenML dataset id. Names are refused: resolving a name needs the server.
    cache_dir : str or path-like, default=None
        openml cache root to use (and fill) instead of openml's configured one. Cannot be
        combined with ``seed_dir``; when given, ``DPLASSO_OPENML_SEED`` is ignored.
    seed_dir : str or path-like, default=None
        Offline seed folder (contains ``org/openml/www/datasets/<id>/``). Defaults to the
        environment variable ``DPLASSO_OPENML_SEED`` when ``cache_dir`` is not given.

    Returns
    -------
    RawDataset

    Raises
    ------
    TypeError
        If ``data_id`` is not an integer.
    ValueError
        If ``data_id <= 0``, both ``cache_dir`` and ``seed_dir`` are given, or the seed
        folder is not laid out as an openml cache.
    FileNotFoundError
        In seed mode, if the seed has no complete entry for ``data_id``.
    OpenMLUnavailableError
        Outside seed mode, if the dataset is not cached and the server is unreachable.
    ImportError
        If the ``openml`` extra (openml, pandas) is not installed: one line naming it.
    """
    data_id = _check_data_id(data_id)
    require_extra("openml", "load_openml")
    if cache_dir is not None and seed_dir is not None:
        raise ValueError("give either cache_dir or seed_dir, not both")
    if cache_dir is None and seed_dir is None:
        seed_dir = os.environ.get(SEED_ENV_VAR) or None
    if seed_dir is not None:
        entry = _seed_entry(Path(seed_dir), data_id)
        parsed = _parsed_path(entry, data_id)
        raw = _read_parsed(parsed)
        if raw is None:
            raw = _load_seed_entry(entry, data_id)
            _write_parsed(parsed, raw)
        return raw
    # openml takes about two seconds to import; only loading needs it.
    import openml

    with _LOCK, _restored_openml_config(openml):
        root = Path(cache_dir) if cache_dir is not None else Path(
            openml.config.get_config_as_dict()["cachedir"])
        openml.config.set_root_cache_directory(root)
        if not _is_cached(_cached_entry(openml, data_id)):
            _probe_server(openml.config.server, data_id, root)
        return _fetch(openml, data_id)


def _load_seed_entry(entry: Path, data_id: int) -> RawDataset:
    """Parse a seed entry with openml, from a copy in a fresh temporary cache root."""
    import openml

    with _LOCK, _restored_openml_config(openml):
        with tempfile.TemporaryDirectory(prefix=f"dplasso_openml_{data_id}_") as root:
            openml.config.set_root_cache_directory(root)
            shutil.copytree(entry, _cached_entry(openml, data_id))
            # Both files are local: never try parquet, never retry a request.
            openml.config.set_retry_policy(openml.config.retry_policy, 1)
            with _environ("OPENML_SKIP_PARQUET", "true"):
                return _fetch(openml, data_id)


def parsed_seed_folder() -> Path | None:
    """Where parsed seed datasets are kept: :data:`PARSED_ENV_VAR`, else
    ``$XDG_CACHE_HOME/dplasso/openml-seed`` (``~/.cache`` without it); None when the variable
    is set but empty (no parsed copies)."""
    folder = os.environ.get(PARSED_ENV_VAR)
    if folder is not None:
        return Path(folder) if folder else None
    home = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(home) / "dplasso" / "openml-seed"


def _parsed_path(entry: Path, data_id: int) -> Path | None:
    """The parsed copy's file, named by a digest of the entry's two files, this module and the
    versions of openml and pandas (a change to any of them parses again)."""
    folder = parsed_seed_folder()
    if folder is None:
        return None
    from importlib.metadata import version

    digest = hashlib.blake2b(digest_size=16)
    for part in (entry / "description.xml", entry / "dataset.arff", Path(__file__)):
        digest.update(part.read_bytes())
    digest.update(f"{version('openml')} {version('pandas')}".encode())
    return folder / f"{data_id}-{digest.hexdigest()}.pickle"


def _read_parsed(path: Path | None) -> RawDataset | None:
    """The parsed copy at ``path``, or None when there is none or it cannot be read."""
    if path is None or not path.is_file():
        return None
    try:
        with open(path, "rb") as handle:
            raw = pickle.load(handle)
    except Exception:  # a damaged copy is parsed again and replaced
        return None
    return raw if isinstance(raw, RawDataset) else None


def _write_parsed(path: Path | None, raw: RawDataset) -> None:
    """Keep ``raw`` at ``path``, written atomically (a folder that cannot be written is
    skipped: the copy only saves time)."""
    if path is None:
        return
    partial = path.with_name(f"{path.name}.{os.getpid()}-{threading.get_ident()}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(partial, "wb") as handle:
            pickle.dump(raw, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(partial, path)
    except OSError:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)


def _check_data_id(data_id) -> int:
    if isinstance(data_id, bool) or not isinstance(data_id, numbers.Integral):
        raise TypeError(
            f"data_id must be an integer OpenML dataset id, got {type(data_id).__name__} "
            f"{data_id!r}; names need the OpenML server to resolve, use the id "
            "(see dplasso.data.catalog.CATALOG)"
        )
    if data_id <= 0:
        raise ValueError(f"data_id must be a positive OpenML dataset id, got {data_id}")
    return int(data_id)


def _seed_entry(seed: Path, data_id: int) -> Path:
    datasets = seed / DATASETS_SUBDIR
    if not datasets.is_dir():
        raise ValueError(
            f"seed folder {seed} has no {DATASETS_SUBDIR.as_posix()}/; point seed_dir or "
            f"{SEED_ENV_VAR} at a folder laid out as an openml cache (e.g. shared/data/openml)"
        )
    entry = datasets / str(data_id)
    if not (entry / "description.xml").is_file() or not (entry / "dataset.arff").is_file():
        held = sorted(int(p.name) for p in datasets.iterdir() if p.name.isdigit())
        raise FileNotFoundError(
            f"OpenML dataset {data_id} is not in the offline seed {seed} (needs "
            f"{DATASETS_SUBDIR.as_posix()}/{data_id}/description.xml and dataset.arff; the seed "
            f"holds ids {held}); the seed mode never downloads: unset {SEED_ENV_VAR} (or pass "
            "cache_dir) and connect to the internet to fetch it"
        )
    return entry


def _cached_entry(openml, data_id: int) -> Path:
    """Where openml keeps ``data_id`` under the current cache root (for the configured server)."""
    return Path(openml.config.get_cache_directory()) / "datasets" / str(data_id)


def _is_cached(entry: Path) -> bool:
    has_data = (entry / "dataset.arff").is_file() or (entry / "dataset.pq").is_file()
    return (entry / "description.xml").is_file() and has_data


def _probe_server(server: str, data_id: int, root: Path) -> None:
    """Raise :class:`OpenMLUnavailableError` unless ``server`` answers within the timeout."""
    request = urllib.request.Request(server, method="HEAD")
    try:
        urllib.request.urlopen(request, timeout=PROBE_TIMEOUT).close()
    except urllib.error.HTTPError:
        return  # the server answered (with an HTTP status): it is reachable
    except OSError as err:  # URLError, socket errors and timeouts
        raise OpenMLUnavailableError(
            f"OpenML dataset {data_id} is not in the openml cache under {root} and the "
            f"OpenML server {server} cannot be reached ({err}). Either set {SEED_ENV_VAR} to an "
            "offline seed folder (one containing org/openml/www/datasets/<id>/, such as "
            "shared/data/openml), or connect to the internet."
        ) from err


@contextlib.contextmanager
def _restored_openml_config(openml):
    """Restore openml's process-global cache root and retry policy on exit."""
    config = openml.config.get_config_as_dict()
    try:
        yield
    finally:
        openml.config.set_root_cache_directory(config["cachedir"])
        openml.config.set_retry_policy(config["retry_policy"], config["connection_n_retries"])


@contextlib.contextmanager
def _environ(name: str, value: str):
    """The environment variable ``name`` set to ``value`` for the block, then restored (the
    runner sets its per-notebook variables with it too)."""
    previous = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = previous


def _fetch(openml, data_id: int) -> RawDataset:
    import numpy as np
    import pandas as pd

    ds = openml.datasets.get_dataset(
        data_id, download_data=True, download_qualities=False,
        download_features_meta_data=False,
    )
    target = ds.default_target_attribute
    if not target or "," in target:
        raise ValueError(
            f"OpenML dataset {data_id} ({ds.name}) has default target {target!r}; "
            "a single target attribute is needed"
        )
    with warnings.catch_warnings():
        # openml 0.15.1 hands pandas.factorize a list when it parses a sparse ARFF nominal
        # attribute (fbis.wc); harmless under pandas < 3, which pyproject.toml pins.
        warnings.filterwarnings("ignore", "factorize with argument", FutureWarning)
        X, y, categorical, names = ds.get_data(target=target)
    if all(isinstance(dtype, pd.SparseDtype) for dtype in X.dtypes):
        X = X.sparse.to_coo().tocsr().astype(np.float64)
        if isinstance(y.dtype, pd.SparseDtype):
            y = _labels_from_codes(y.sparse.to_dense(), _arff_nominal_values(ds.data_file, target))
    elif not any(categorical):
        X = X.astype(np.float64)  # one cast: arcene mixes uint8 and float64 columns
    else:
        numeric = [c for c, is_cat in zip(X.columns, categorical) if not is_cat]
        X = X.astype(dict.fromkeys(numeric, np.float64))
    return RawDataset(
        id=data_id, name=ds.name, X=X, y=y, categorical=tuple(bool(c) for c in categorical),
        feature_names=tuple(str(c) for c in names), target=target,
    )


def _arff_nominal_values(arff_file, attribute: str) -> tuple[str, ...]:
    """The nominal values an ARFF header declares for ``attribute`` (in declared order)."""
    from scipy.io import arff as scipy_arff

    header = io.StringIO()
    with open(arff_file, encoding="utf-8") as lines:
        for line in lines:
            if line.strip().lower().startswith("@data"):
                break
            header.write(line)
    header.write("@data\n")
    header.seek(0)
    _, meta = scipy_arff.loadarff(header)
    kind, values = meta[attribute]
    if kind != "nominal":
        raise ValueError(f"attribute {attribute!r} of {arff_file} is {kind}, not nominal")
    return tuple(values)


def _labels_from_codes(codes: pd.Series, labels: tuple[str, ...]) -> pd.Series:
    """Integer codes (positions in the declared nominal list) to a categorical label Series."""
    import numpy as np
    import pandas as pd

    return pd.Series(
        pd.Categorical.from_codes(codes.to_numpy(dtype=np.int64), categories=list(labels)),
        index=codes.index, name=codes.name,
    )
