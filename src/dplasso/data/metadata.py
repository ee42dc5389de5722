"""What an OpenML dataset is, from its metadata alone: rows, features, default target, classes.

The command line checks a dataset id a user names (``-p "datasets=[1461]"``) before any kernel
starts: that the dataset exists, that its default target is a class label (binary or
multiclass) and how large it is. :func:`describe_openml` answers without loading the data:

* with an offline seed (``DPLASSO_OPENML_SEED``): from the entry's ``description.xml`` and its
  ARFF header, the rows counted from the data section (standard library only, a fraction of a
  second even for 45,000 rows);
* otherwise: from OpenML's own metadata calls (``openml.datasets.get_dataset`` without the
  data: its description, feature list and qualities).

Both count columns as :func:`dplasso.data.preprocess.preprocess` makes them: a nominal
feature with ``k`` declared values gives ``k`` one-hot columns, a numeric one a column. The
declared values of the target are the public label set.
"""
from __future__ import annotations

import functools
import os
import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

from dplasso._extras import import_extra
from dplasso.data.openml import (
    SEED_ENV_VAR,
    OpenMLUnavailableError,
    _check_data_id,
    _seed_entry,
)

__all__ = ["OpenMLDescription", "describe_openml"]

_OML = "{http://openml.org/openml}"
_ATTRIBUTE = re.compile(r"^@attribute\s+('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|\S+)\s+(.*)$",
                        re.I)


@dataclass(frozen=True)
class OpenMLDescription:
    """An OpenML dataset's metadata.

    Attributes
    ----------
    id : int
    name : str
    target : str
        The default target attribute.
    classes : tuple of str
        The target's declared values (the public label set), in declared order.
    n : int
        Rows.
    p : int
        Features (target, row id and ignored attributes excluded).
    n_columns : int
        Columns after one-hot encoding of the nominal features.
    """

    id: int
    name: str
    target: str
    classes: tuple[str, ...]
    n: int
    p: int
    n_columns: int

    @property
    def task(self) -> str:
        """``"binary"`` or ``"multiclass"``, from the number of declared classes."""
        return "binary" if len(self.classes) == 2 else "multiclass"


def describe_openml(data_id: int, *, seed_dir=None) -> OpenMLDescription:
    """The metadata of OpenML dataset ``data_id`` (seed: ``seed_dir``, else
    ``DPLASSO_OPENML_SEED``; without either, the OpenML server).

    Raises
    ------
    TypeError, ValueError
        If ``data_id`` is not a positive integer, or the dataset has no single default target
        with at least two declared class values (a regression or unlabelled dataset).
    FileNotFoundError
        With a seed, if the seed does not hold the dataset (the message names the seed
        variable).
    OpenMLUnavailableError
        Without a seed, if the OpenML server cannot be reached.
    """
    data_id = _check_data_id(data_id)
    seed_dir = seed_dir if seed_dir is not None else os.environ.get(SEED_ENV_VAR) or None
    return _describe(data_id, None if seed_dir is None else str(seed_dir))


@functools.lru_cache(maxsize=None)
def _describe(data_id: int, seed_dir: str | None) -> OpenMLDescription:
    if seed_dir is not None:
        return _from_seed(_seed_entry(Path(seed_dir), data_id), data_id)
    return _from_server(data_id)


def _classes(data_id, name, target, kind, values) -> tuple[str, ...]:
    if not target or "," in target:
        raise ValueError(f"OpenML dataset {data_id} ({name}) has default target {target!r}; "
                         "the notebooks need a single class-label target")
    if kind != "nominal" or len(values) < 2:
        raise ValueError(f"OpenML dataset {data_id} ({name}): its default target {target!r} is "
                         f"{kind if kind != 'nominal' else 'nominal with one value'}, not a "
                         "class label; the notebooks fit classifiers (binary or multiclass)")
    return tuple(values)


def _from_seed(entry: Path, data_id: int) -> OpenMLDescription:
    root = ElementTree.parse(entry / "description.xml").getroot()

    def field(tag):
        found = root.find(f"{_OML}{tag}")
        return found.text.strip() if found is not None and found.text else ""

    name, target = field("name") or str(data_id), field("default_target_attribute")
    excluded = {target, field("row_id_attribute"),
                *field("ignore_attribute").split(",")} - {""}
    attributes, n = _arff_schema(entry / "dataset.arff")
    kinds = dict(attributes)
    classes = _classes(data_id, name, target, *_kind(kinds.get(target)))
    features = [(a, t) for a, t in attributes if a not in excluded]
    columns = sum(len(_kind(t)[1]) if _kind(t)[0] == "nominal" else 1 for _, t in features)
    return OpenMLDescription(data_id, name, target, classes, n, len(features), columns)


def _kind(arff_type: str | None) -> tuple[str, tuple[str, ...]]:
    """``("nominal", values)``, or ``(type, ())`` for another ARFF type."""
    if arff_type is None:
        return "missing", ()
    text = arff_type.strip()
    if text.startswith("{"):
        values = [v.strip().strip("'\"") for v in text.strip("{}").split(",")]
        return "nominal", tuple(v for v in values if v)
    return text.split()[0].lower(), ()


def _unquote(name: str) -> str:
    return name[1:-1] if name[:1] in "'\"" and name[-1:] == name[:1] else name


def _arff_schema(path: Path) -> tuple[list[tuple[str, str]], int]:
    """``([(attribute, ARFF type)], rows)`` of an ARFF file, the rows counted, not parsed."""
    attributes, rows, in_data = [], 0, False
    with open(path, encoding="utf-8", errors="replace") as lines:
        for line in lines:
            text = line.strip()
            if not text or text.startswith("%"):
                continue
            if in_data:
                rows += 1
            elif text.lower().startswith("@data"):
                in_data = True
            elif (match := _ATTRIBUTE.match(text)) is not None:
                attributes.append((_unquote(match[1]), match[2]))
    return attributes, rows


def _from_server(data_id: int) -> OpenMLDescription:
    openml = import_extra("openml", "openml", "reading an OpenML dataset's metadata")
    from dplasso.data.openml import _probe_server

    _probe_server(openml.config.server, data_id, Path(
        openml.config.get_config_as_dict()["cachedir"]))
    try:
        ds = openml.datasets.get_dataset(data_id, download_data=False, download_qualities=True,
                                         download_features_meta_data=True)
    except openml.exceptions.OpenMLServerException as err:
        raise ValueError(f"OpenML has no dataset {data_id} ({err})") from None
    except OSError as err:
        raise OpenMLUnavailableError(f"OpenML dataset {data_id}: the metadata could not be "
                                     f"read ({err})") from err
    target = ds.default_target_attribute or ""
    features = {f.name: f for f in ds.features.values()}
    kind = features[target].data_type if target in features else "missing"
    classes = _classes(data_id, ds.name, target, kind,
                       tuple(features[target].nominal_values or ()) if target in features else ())
    ignored = ds.ignore_attribute or []
    excluded = {target, ds.row_id_attribute,
                *([ignored] if isinstance(ignored, str) else ignored)} - {None, ""}
    kept = [f for name, f in features.items() if name not in excluded]
    columns = sum(len(f.nominal_values or ()) if f.data_type == "nominal" else 1 for f in kept)
    return OpenMLDescription(data_id, ds.name, target, classes,
                             int(ds.qualities["NumberOfInstances"]), len(kept), columns)
