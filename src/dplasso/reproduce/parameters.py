"""The notebooks' parameter schema: ``-p`` values checked before any kernel starts.

``params/schema.yaml`` gives every parameter of every notebook a type, its allowed values and
its meaning (its header lists the types). It is the single source of the check and of
``dplasso list``. :func:`resolve` merges a profile's values with the ``-p`` overrides and checks
the result: every failure is a ``ValueError`` with a one-line message naming the parameter, the
notebook and the value. This module imports only the standard library, ``yaml`` and the dataset
catalogue, so a refused value answers in a fraction of a second.
"""
from __future__ import annotations

import ast
import copy
import math
import numbers
import os
import re
from pathlib import Path

import yaml

from dplasso.data.catalog import catalog_ids, dataset_info

__all__ = ["SCHEMA_FILE", "SYNTHETIC", "declaring", "describe", "load_schema", "notebook_code",
           "parameter_defaults", "parameters_cell", "parse_overrides", "resolve"]

SCHEMA_FILE = Path("params") / "schema.yaml"
SYNTHETIC = "synthetic"
TYPES = ("any", "int", "number", "bool", "choice", "list", "mapping", "map", "dataset",
         "datasets", "file", "any_of")


class _Loader(yaml.SafeLoader):
    """YAML 1.1's safe loader, reading ``1e-3`` and ``5E+2`` as numbers (YAML 1.2 does;
    PyYAML's 1.1 resolver wants a dot and a signed exponent)."""


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789."))


def parse_overrides(pairs: list[str]) -> dict:
    """``["key=value", ...]`` to a dict; values are YAML (``0.5``, ``1e-3``, ``[1, 2]``, ``true``).

    Raises
    ------
    ValueError
        One line naming the key and the text, if a pair is not ``key=value``, a value is not
        YAML, or a key is given twice.
    """
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise ValueError(f"parameter override must look like key=value, got {pair!r}")
        if key in out:
            raise ValueError(f"-p {key} is given twice")
        try:
            out[key] = yaml.load(value, Loader=_Loader)  # noqa: S506 (a SafeLoader subclass)
        except yaml.YAMLError as err:
            problem = getattr(err, "problem", None) or type(err).__name__
            raise ValueError(
                f"-p {key}: {value!r} is not a YAML value ({problem}); quote a "
                "string, write a list as [1, 2]"
            ) from None
    return out


_MYST_CELL = re.compile(r"^(?P<fence>`{3,}|~{3,})\{code-cell\}[^\n]*\n(?P<body>.*?)^(?P=fence)[ \t]*$",
                        re.M | re.S)
_MYST_OPTION = re.compile(r"^:(?P<key>[\w-]+):[ \t]*(?P<value>.*)$")


def _myst_cell(body: str) -> tuple[dict, str]:
    """A MyST ``{code-cell}`` body's options (a ``---`` YAML block or ``:key: value`` lines)
    and its code."""
    lines = body.split("\n")
    options = {}
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), 0)
        options = yaml.safe_load("\n".join(lines[1:end])) or {}
        lines = lines[end + 1:]
    else:
        while lines and (match := _MYST_OPTION.match(lines[0])):
            options[match["key"]] = yaml.safe_load(match["value"])
            lines = lines[1:]
    return options, "\n".join(lines).strip("\n")


def _cells(text: str, suffix: str) -> list[tuple[list, str]]:
    """``(tags, code)`` of every code cell of a notebook's text. MyST notebooks (every notebook
    of the book) are read here, without jupytext, so the command line checks ``-p`` values
    before loading it; other formats (``suffix``: the file's) go through jupytext."""
    if suffix == ".md" and "format_name: myst" in text:
        cells = []
        for match in _MYST_CELL.finditer(text):
            options, code = _myst_cell(match["body"])
            cells.append((options.get("tags") or [], code))
        return cells
    import jupytext

    return [(cell.get("metadata", {}).get("tags", []), cell.source)
            for cell in jupytext.reads(text, fmt=suffix.lstrip(".")).cells
            if cell.cell_type == "code"]


def notebook_code(text: str, suffix: str = ".md") -> list[str]:
    """The source of every code cell of a notebook's ``text`` (``suffix``: its file's)."""
    return [code for _, code in _cells(text, suffix)]


def parameters_cell(source: Path) -> str:
    """The source of the notebook's code cell tagged ``parameters``."""
    source = Path(source)
    for tags, code in _cells(source.read_text(), source.suffix):
        if "parameters" in tags:
            return code
    raise ValueError(f"{source} has no code cell tagged 'parameters'")


def parameter_defaults(cell_source: str) -> dict:
    """``{name: default}`` of the assignments in a parameters cell; a default that is not a
    literal (``1 / 6000`` is one) maps to its source text."""
    out = {}
    for node in ast.parse(cell_source).body:
        target = (node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1
                  else node.target if isinstance(node, ast.AnnAssign) and node.value else None)
        if isinstance(target, ast.Name):
            out[target.id] = _literal(node.value)
    return out


def _literal(node):
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError):
        pass
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        left, right = _literal(node.left), _literal(node.right)
        if _is_number(left) and _is_number(right) and right:
            return left / right
    return ast.unparse(node)


def load_schema(root: Path) -> dict[str, dict[str, dict]]:
    """``{notebook: {parameter: spec}}`` from ``root/params/schema.yaml`` (empty without it)."""
    path = Path(root) / SCHEMA_FILE
    if not path.is_file():
        return {}
    data = yaml.load(path.read_text(), Loader=_Loader) or {}  # noqa: S506
    notebooks = data.get("notebooks") or {}
    for notebook, specs in notebooks.items():
        for name, spec in specs.items():
            _check_spec(spec, f"{path}: {notebook}.{name}")
            _check_ties(spec, specs, f"{path}: {notebook}.{name}")
    return notebooks


def _check_spec(spec, where: str) -> None:
    if not isinstance(spec, dict) or spec.get("type") not in TYPES:
        raise ValueError(f"{where}: a spec needs a type among {TYPES}, got {spec!r}")
    for inner in ([spec["of"]] if spec["type"] == "list" else spec.get("of", [])
                  if spec["type"] == "any_of" else
                  spec.get("keys", {}).values() if spec["type"] == "mapping" else
                  [spec["key"], spec["value"]] if spec["type"] == "map" else []):
        _check_spec(inner, where)


TIES = ("at_most", "subset_of", "keys_in", "off_with", "same_as")


def _check_ties(spec: dict, specs: dict, where: str) -> None:
    """A tie names another parameter of the same notebook; ``off_with`` needs a list spec
    that admits its off value, the empty list."""
    for key in TIES:
        if key in spec and spec[key] not in specs:
            raise ValueError(f"{where}: {key} names {spec[key]!r}, not a parameter of the "
                             "notebook")
    if "off_with" in spec and (spec["type"] not in ("list", "datasets")
                               or spec.get("min_items", 1) != 0):
        raise ValueError(f"{where}: off_with needs a list or datasets spec with min_items: 0 "
                         "(its off value is the empty list)")


# --- one value against one spec -------------------------------------------------------------

def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _number(x) -> str:
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e12 else f"{x:g}"


def _range(spec) -> str:
    low = (f"> {_number(spec['above'])}" if "above" in spec and "min" not in spec
           else f">= {_number(spec['min'])}" if "min" in spec else "")
    high = f"<= {_number(spec['max'])}" if "max" in spec else ""
    return " and ".join(part for part in (low, high) if part)


def _check_scalar_range(value, spec) -> None:
    if ("above" in spec and not value > spec["above"]) or ("min" in spec and value < spec["min"]) \
            or ("max" in spec and value > spec["max"]):
        raise ValueError(f"must be {_range(spec)}, got {value!r}")


def _dataset_ids(spec) -> tuple[int, ...]:
    task = spec.get("task", "any")
    return catalog_ids(None if task == "any" else task)


MAX_CELLS = 20_000_000
"""The largest dataset (rows x columns after one-hot encoding) a run accepts: a dense copy is
8 bytes a cell and the experiments hold several (splits, data maps, trials), so 20 million
cells keep a run within a few GB. ``DPLASSO_MAX_CELLS`` sets another bound."""
MAX_CELLS_ENV_VAR = "DPLASSO_MAX_CELLS"


def max_cells() -> int:
    """:data:`MAX_CELLS`, or the bound ``DPLASSO_MAX_CELLS`` sets."""
    text = os.environ.get(MAX_CELLS_ENV_VAR, "").strip()
    if not text:
        return MAX_CELLS
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"{MAX_CELLS_ENV_VAR}={text!r} must be a positive whole number of cells")
    return int(text)


def _check_dataset(value, spec) -> None:
    """A dataset id of any OpenML dataset whose task fits ``spec`` (the catalogue's are known;
    another is read from its metadata, :func:`dplasso.data.catalog.dataset_info`), or
    ``synthetic`` where the spec allows it."""
    if spec.get("synthetic") and value == SYNTHETIC:
        return
    task = spec.get("task", "any")
    extra = f" or {SYNTHETIC!r}" if spec.get("synthetic") else ""
    if not _is_int(value) or value <= 0:
        raise ValueError(f"{value!r} is not an OpenML dataset id (a positive integer){extra}; "
                         f"the book's {'' if task == 'any' else task + ' '}datasets are "
                         f"{list(_dataset_ids(spec))} (`dplasso list` shows them)")
    try:
        entry = dataset_info(value)
    except (FileNotFoundError, ConnectionError) as err:
        raise ValueError(f"OpenML dataset {value} cannot be read: {err}") from None
    if task != "any" and entry.task != task:
        raise ValueError(f"{value} ({entry.name}) is a {entry.task} dataset, not a {task} one; "
                         f"the {task} datasets of the book are {list(_dataset_ids(spec))}{extra}")
    if value not in catalog_ids():
        from dplasso.data.metadata import describe_openml

        cells = entry.n * describe_openml(value).n_columns
        if cells > max_cells():
            raise ValueError(
                f"{value} ({entry.name}) has {entry.n} rows x "
                f"{describe_openml(value).n_columns} columns = {cells} cells, more than the "
                f"bound of {max_cells()} a run takes (it holds several dense copies); set "
                f"{MAX_CELLS_ENV_VAR} to a larger number of cells if the memory allows")


def _check_list(value, spec) -> None:
    if not isinstance(value, list):
        raise ValueError(f"must be a list, got {value!r}")
    least, most = spec.get("min_items", 1), spec.get("max_items")
    if len(value) < least:
        raise ValueError(("must not be empty" if least == 1 else f"must hold at least {least} "
                          "items") + f", got {value!r}")
    if most is not None and len(value) > most:
        raise ValueError(f"must hold at most {most} items, got {value!r}")
    for item in value:
        _check_value(item, spec["of"])
    keys = [repr(v) for v in value]
    repeated = sorted({k for k in keys if keys.count(k) > 1})
    if spec.get("distinct", True) and repeated:
        raise ValueError(f"lists {', '.join(repeated)} more than once: {value!r}")


def _check_mapping(value, spec) -> None:
    if not isinstance(value, dict):
        raise ValueError(f"must be a mapping such as {{{', '.join(f'{k}: ...' for k in spec['keys'])}}}"
                         f", got {value!r}")
    unknown = [k for k in value if k not in spec["keys"]]
    if unknown:
        raise ValueError(f"takes the keys {list(spec['keys'])}, got unknown {unknown}")
    for key, item in value.items():
        try:
            _check_value(item, spec["keys"][key])
        except ValueError as err:
            raise ValueError(f"[{key!r}] {err}") from None


def _check_map(value, spec) -> None:
    if not isinstance(value, dict):
        raise ValueError(f"must be a mapping {{key: value}}, got {value!r}")
    for key, item in value.items():
        try:
            _check_value(_id_key(key), spec["key"])
            _check_value(item, spec["value"])
        except ValueError as err:
            raise ValueError(f"[{key!r}] {err}") from None


def _id_key(key):
    """Mapping keys as YAML and papermill give them: an OpenML id may arrive as ``"44"``."""
    return int(key) if isinstance(key, str) and key.isdigit() else key


def _check_value(value, spec) -> None:
    """Raise ``ValueError`` (message without the parameter's name) unless ``value`` fits."""
    kind = spec["type"]
    if value is None:
        if spec.get("optional"):
            return
        raise ValueError("may not be null")
    if kind == "any":
        return
    if kind == "int":
        if not _is_int(value):
            raise ValueError(f"must be an integer, got {type(value).__name__} {value!r}")
        _check_scalar_range(value, spec)
    elif kind == "number":
        if not _is_number(value) or not math.isfinite(value):
            raise ValueError(f"must be a finite number, got {type(value).__name__} {value!r}")
        _check_scalar_range(value, spec)
    elif kind == "bool":
        if not isinstance(value, bool):
            raise ValueError(f"must be true or false, got {value!r}")
    elif kind == "choice":
        if not isinstance(value, (str, int, float)) or value not in spec["values"]:
            raise ValueError(f"must be one of {spec['values']}, got {value!r}")
    elif kind == "list":
        _check_list(value, spec)
    elif kind == "mapping":
        _check_mapping(value, spec)
    elif kind == "map":
        _check_map(value, spec)
    elif kind == "dataset":
        if isinstance(value, list):
            raise ValueError(f"must be one dataset, not a list: {value!r}")
        _check_dataset(value, spec)
    elif kind == "datasets":
        if spec.get("all") and value == "all":
            return
        if not isinstance(value, list):
            raise ValueError(f"must be a list of datasets{' or all' if spec.get('all') else ''}"
                             f", e.g. [{_dataset_ids(spec)[0]}], got {value!r}")
        _check_list(value, {"of": {**spec, "type": "dataset"},
                            "min_items": spec.get("min_items", 1)})
    elif kind == "file":
        if not isinstance(value, str) or not Path(value).is_file():
            raise ValueError(f"must name an existing file, got {value!r}")
    elif kind == "any_of":
        for option in spec["of"]:
            try:
                return _check_value(value, option)
            except ValueError:
                continue
        raise ValueError(f"must be {describe(spec)}, got {value!r}")


# --- a notebook's parameters together --------------------------------------------------------

def _fail(notebook: str, name: str, value, problem: str, source: str):
    where = {"override": f"-p {name}={value!r}", "profile": f"the profile's {name}={value!r}",
             "default": f"the notebook's default {name}={value!r}"}.get(
        source, f"{name}={value!r} (following -p {source.removeprefix('follows ')})")
    return ValueError(f"{where} does not fit notebook {notebook!r}: {name}"
                      f"{'' if problem.startswith('[') else ' '}{problem}")


def _members(value) -> list:
    return list(value) if isinstance(value, (list, dict)) else [value]


def resolve(notebook: str, specs: dict[str, dict], defaults: dict, profile_values: dict,
            overrides: dict) -> dict:
    """The parameters of one run: the cell's ``defaults``, updated by the profile's values, then
    by the ``overrides`` (only the ``-p`` values meant for this notebook), checked.

    A parameter the schema marks ``settable: false`` may not be overridden (the runner sets
    it); every other value must fit its spec; ``at_most``, ``subset_of`` and ``keys_in`` tie
    values together. A default or profile value that names datasets the run does not have is
    narrowed to those it has (null when none are left, so the notebook derives it); an override
    that does is refused. A parameter not overridden follows an overridden one it is tied to
    (narrow means narrow): ``off_with: other`` turns it off (the empty list: its side table is
    not built) when ``other`` is overridden; else ``same_as: other`` takes ``other``'s
    override (a side table's budgets follow the main table's).

    Raises
    ------
    ValueError
        One line naming the parameter, the notebook, the value and where it came from.
    """
    params = {**defaults, **profile_values, **overrides}
    source = {name: "override" if name in overrides else "profile" if name in profile_values
              else "default" for name in params}
    for name, spec in specs.items():
        if name in overrides:
            continue
        if spec.get("off_with") in overrides:
            params[name], source[name] = [], f"follows {spec['off_with']}"
        elif spec.get("same_as") in overrides:
            params[name] = copy.deepcopy(overrides[spec["same_as"]])
            source[name] = f"follows {spec['same_as']}"
    for name, value in overrides.items():
        if specs.get(name, {}).get("settable", True) is False:
            raise _fail(notebook, name, value, "is set by the runner, not by -p ("
                        + ("use --profile" if name == "profile" else "use --out") + ")",
                        "override")
    unknown = sorted(set(params) - set(specs))
    if unknown:
        where = {"override": "-p", "profile": "the profile", "default": "the notebook"}[
            source[unknown[0]]]
        raise ValueError(f"{where} sets {unknown} for notebook {notebook!r}, whose schema "
                         f"(params/schema.yaml) declares only {sorted(specs)}")
    for name, value in params.items():
        if specs[name].get("settable", True) is False:
            continue
        try:
            _check_value(value, specs[name])
        except ValueError as err:
            raise _fail(notebook, name, value, str(err), source[name]) from None
    for name, spec in specs.items():
        if params.get(name) is None:
            continue
        if "at_most" in spec and spec["at_most"] in params:
            bound = params[spec["at_most"]]
            if params[name] > bound:
                raise _fail(notebook, name, params[name],
                            f"must be at most {spec['at_most']} ({bound})", source[name])
        other = spec.get("subset_of") or spec.get("keys_in")
        if other and isinstance(params.get(other), list):
            allowed = {repr(_id_key(v)) for v in params[other]}
            outside = [v for v in _members(params[name]) if repr(_id_key(v)) not in allowed]
            if outside and source[name] == "override":
                raise _fail(notebook, name, params[name],
                            f"names {outside}, which {other} does not hold", "override")
            if outside:
                params[name] = _narrowed(params[name], allowed)
    return params


def declaring(names: list[str], schema: dict[str, dict], overrides: dict) -> list[str]:
    """The notebooks among ``names`` a run of ``overrides`` that names no notebook runs: those
    whose schema declares at least one of the overridden parameters (``-p datasets=[29]``
    reruns the notebooks that take datasets, not the whole book at its profile's values);
    all of ``names`` without overrides."""
    if not overrides:
        return list(names)
    return [name for name in names if set(overrides) & set(schema.get(name, {}))]


def _narrowed(value, allowed: set):
    if isinstance(value, dict):
        return {k: v for k, v in value.items() if repr(_id_key(k)) in allowed}
    kept = [v for v in value if repr(_id_key(v)) in allowed]
    return kept or None


# --- words for `dplasso list` ----------------------------------------------------------------

def describe(spec: dict) -> str:
    """The allowed values of ``spec`` in a few words ("list of number >= 0.0001 and <= 1000")."""
    kind = spec["type"]
    if kind in ("int", "number"):
        text = ("integer" if kind == "int" else "number") + (f" {_range(spec)}" if _range(spec)
                                                             else "")
    elif kind == "choice":
        text = " | ".join(map(str, spec["values"]))
    elif kind == "list":
        size, item = spec.get("min_items", 1), describe(spec["of"])
        item = f"({item})" if spec["of"]["type"] == "any_of" else item
        text = f"list of {size} {item}" if spec.get("max_items") == size else f"list of {item}"
    elif kind == "mapping":
        text = f"mapping with some of the keys {', '.join(spec['keys'])}"
    elif kind == "map":
        text = f"{{{describe(spec['key'])}: {describe(spec['value'])}}}"
    elif kind in ("dataset", "datasets"):
        task = spec.get("task", "any")
        ids = f"{'' if task == 'any' else task + ' '}dataset id{'s' if kind == 'datasets' else ''}"
        text = ("list of " if kind == "datasets" else "") + ids + (
            " or synthetic" if spec.get("synthetic") else "") + (" | all" if spec.get("all") else "")
    elif kind == "any_of":
        text = " | ".join(describe(option) for option in spec["of"])
    else:
        text = {"bool": "true | false", "file": "path of a file", "any": "any"}[kind]
    for key, words in (("at_most", "at most {}"), ("subset_of", "within {}"),
                       ("keys_in", "keys within {}"),
                       ("off_with", "[] (no table) in a run whose -p sets {} but not this"),
                       ("same_as", "= {} in a run whose -p sets {} but not this")):
        if key in spec:
            text += f", {words.format(spec[key], spec[key])}"
    if spec.get("optional"):
        text += " | null"
    return text
