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
import operator
import os
import re
from pathlib import Path

import yaml

from dplasso.data.catalog import catalog_ids, dataset_info

__all__ = ["RELATION_FUNCTIONS", "SCHEMA_FILE", "SYNTHETIC", "declaring", "describe",
           "load_relations", "load_schema", "notebook_code", "parameter_defaults",
           "parameters_cell", "parse_overrides", "resolve"]

SCHEMA_FILE = Path("params") / "schema.yaml"
SYNTHETIC = "synthetic"
TYPES = ("any", "int", "number", "bool", "choice", "list", "mapping", "map", "dataset",
         "datasets", "file", "any_of")


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader with YAML 1.2's core schema for plain scalars: ``1e-3`` and
    ``5E+2`` are numbers, ``010`` is ten, and ``1:30`` (YAML 1.1's sexagesimal 90), ``1_000``,
    ``yes``, ``off`` and ``2024-01-01`` are strings, which a number's or a flag's check then
    refuses by name."""


_CORE_TAGS = {f"tag:yaml.org,2002:{kind}" for kind in ("bool", "int", "float", "null",
                                                        "timestamp")}
_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag not in _CORE_TAGS]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
for _kind, _pattern, _first in (  # YAML 1.2.2, section 10.3.2 (the core schema)
        ("null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
        ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
        ("int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
        ("float", r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
                  r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$", "-+0123456789.")):
    _Loader.add_implicit_resolver(f"tag:yaml.org,2002:{_kind}", re.compile(_pattern),
                                  list(_first))


def _core_int(loader, node) -> int:
    """An int of YAML 1.2's core schema: decimal (leading zeros too), ``0o`` octal or ``0x``
    hexadecimal."""
    text = loader.construct_scalar(node)
    return int(text[2:], 8 if text[1] == "o" else 16) if text[:2] in ("0o", "0x") else int(text)


_Loader.add_constructor("tag:yaml.org,2002:int", _core_int)


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
                f"-p {key}: {_shown(value)} is not a YAML value ({problem}); quote a "
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


def _read_schema(root: Path) -> tuple[Path, dict]:
    path = Path(root) / SCHEMA_FILE
    if not path.is_file():
        return path, {}
    return path, yaml.load(path.read_text(), Loader=_Loader) or {}  # noqa: S506


def load_schema(root: Path) -> dict[str, dict[str, dict]]:
    """``{notebook: {parameter: spec}}`` from ``root/params/schema.yaml`` (empty without it);
    every list spec without its own ``max_items`` gets the schema's."""
    path, data = _read_schema(root)
    limit = data.get("max_items")
    notebooks = data.get("notebooks") or {}
    for notebook, specs in notebooks.items():
        for name, spec in specs.items():
            _check_spec(spec, f"{path}: {notebook}.{name}", limit)
            _check_ties(spec, specs, f"{path}: {notebook}.{name}")
    return notebooks


def load_relations(root: Path) -> dict[str, list[dict]]:
    """``{notebook: [relation, ...]}`` from the schema's ``relations:``, each relation a
    ``{check, meaning}`` mapping whose ``check`` is an expression over the notebook's
    parameters (:data:`RELATION_FUNCTIONS` lists what it may call), parsed here and evaluated
    by :func:`resolve` without ``eval``.

    Raises
    ------
    ValueError
        Naming the file, the notebook and the expression, if it is not one this module
        evaluates or names a value the notebook does not take.
    """
    path, data = _read_schema(root)
    notebooks = data.get("notebooks") or {}
    out = {}
    for notebook, relations in (data.get("relations") or {}).items():
        where = f"{path}: relations of {notebook}"
        if notebook not in notebooks:
            raise ValueError(f"{where}: no such notebook in the schema")
        out[notebook] = [_relation(item, notebooks[notebook], where) for item in relations]
    return out


def _check_spec(spec, where: str, limit=None) -> None:
    if not isinstance(spec, dict) or spec.get("type") not in TYPES:
        raise ValueError(f"{where}: a spec needs a type among {TYPES}, got {spec!r}")
    if limit is not None and spec["type"] in ("list", "datasets"):
        spec.setdefault("max_items", limit)
    for inner in ([spec["of"]] if spec["type"] == "list" else spec.get("of", [])
                  if spec["type"] == "any_of" else
                  spec.get("keys", {}).values() if spec["type"] == "mapping" else
                  [spec["key"], spec["value"]] if spec["type"] == "map" else []):
        _check_spec(inner, where, limit)


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


SHOWN_CHARS = 60
"""A value longer than this many characters is cut in a message (with its number of items),
so that a refusal of a long list stays one short line."""


def _shown(value) -> str:
    """``repr(value)``, cut to about :data:`SHOWN_CHARS` characters when longer."""
    text = repr(value)
    if len(text) <= SHOWN_CHARS:
        return text
    if isinstance(value, (list, dict)):
        return f"{text[:SHOWN_CHARS].rstrip(', ')}, ...{text[-1]} ({len(value)} items)"
    return f"{text[:SHOWN_CHARS]}... ({len(text)} characters)"


def _range(spec) -> str:
    low = (f"> {_number(spec['above'])}" if "above" in spec and "min" not in spec
           else f">= {_number(spec['min'])}" if "min" in spec else "")
    high = f"<= {_number(spec['max'])}" if "max" in spec else ""
    return " and ".join(part for part in (low, high) if part)


def _check_scalar_range(value, spec) -> None:
    if ("above" in spec and not value > spec["above"]) or ("min" in spec and value < spec["min"]) \
            or ("max" in spec and value > spec["max"]):
        raise ValueError(f"must be {_range(spec)}, got {_shown(value)}")


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
        raise ValueError(f"{_shown(value)} is not an OpenML dataset id (a positive integer)"
                         f"{extra}; the book's {'' if task == 'any' else task + ' '}datasets are "
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
        raise ValueError(f"must be a list, got {_shown(value)}")
    least, most = spec.get("min_items", 1), spec.get("max_items")
    if len(value) < least:
        raise ValueError(("must not be empty" if least == 1 else f"must hold at least {least} "
                          "items") + f", got {_shown(value)}")
    if most is not None and len(value) > most:
        raise ValueError(f"must hold at most {most} items, got {len(value)}")
    for item in value:
        _check_value(item, spec["of"])
    keys = [repr(v) for v in value]
    repeated = sorted({k for k in keys if keys.count(k) > 1})
    if spec.get("distinct", True) and repeated:
        listed = ", ".join(repeated[:5]) + (f" and {len(repeated) - 5} more"
                                            if len(repeated) > 5 else "")
        raise ValueError(f"lists {listed} more than once: {_shown(value)}")


def _check_mapping(value, spec) -> None:
    if not isinstance(value, dict):
        example = ", ".join(f"{k}: ..." for k in spec["keys"])
        raise ValueError(f"must be a mapping such as {{{example}}}, got {_shown(value)}")
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
        raise ValueError(f"must be a mapping {{key: value}}, got {_shown(value)}")
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
            raise ValueError(f"must be an integer, got {type(value).__name__} {_shown(value)}")
        _check_scalar_range(value, spec)
    elif kind == "number":
        if not _is_number(value) or not math.isfinite(value):
            raise ValueError(f"must be a finite number, got {type(value).__name__} {_shown(value)}")
        _check_scalar_range(value, spec)
    elif kind == "bool":
        if not isinstance(value, bool):
            raise ValueError(f"must be true or false, got {_shown(value)}")
    elif kind == "choice":
        if not isinstance(value, (str, int, float)) or value not in spec["values"]:
            raise ValueError(f"must be one of {spec['values']}, got {_shown(value)}")
    elif kind == "list":
        _check_list(value, spec)
    elif kind == "mapping":
        _check_mapping(value, spec)
    elif kind == "map":
        _check_map(value, spec)
    elif kind == "dataset":
        if isinstance(value, list):
            raise ValueError(f"must be one dataset, not a list: {_shown(value)}")
        _check_dataset(value, spec)
    elif kind == "datasets":
        if spec.get("all") and value == "all":
            return
        if not isinstance(value, list):
            raise ValueError(f"must be a list of datasets{' or all' if spec.get('all') else ''}"
                             f", e.g. [{_dataset_ids(spec)[0]}], got {_shown(value)}")
        _check_list(value, {"of": {**spec, "type": "dataset"},
                            "min_items": spec.get("min_items", 1),
                            "max_items": spec.get("max_items")})
    elif kind == "file":
        if not isinstance(value, str) or not Path(value).is_file():
            raise ValueError(f"must name an existing file, got {_shown(value)}")
    elif kind == "any_of":
        for option in spec["of"]:
            try:
                return _check_value(value, option)
            except ValueError:
                continue
        raise ValueError(f"must be {describe(spec)}, got {_shown(value)}")


# --- relations between a notebook's parameters ---------------------------------------------

TEST_SHARE = 0.2
"""The test share of the experiments' stratified 80/20 splits (``experiments.p1``), whose
training rows, ``n - ceil(0.2 n)``, set a real dataset's number of Frank-Wolfe steps."""


def _openml_ids(datasets) -> list:
    """The OpenML ids among ``datasets`` (``synthetic`` and ``all`` left out)."""
    return [d for d in datasets if _is_int(d)] if isinstance(datasets, list) else []


def _fw_steps(lam, rows, columns, epsilons) -> int:
    """The fewest private Frank-Wolfe steps :func:`dplasso.estimators.private_frank_wolfe.
    auto_n_iter` takes at any budget of ``epsilons`` on ``rows`` x ``columns``, at
    ``delta = 1/rows`` (what the experiments use without an ``n_iter``)."""
    from dplasso.estimators.private_frank_wolfe import auto_n_iter

    budgets = epsilons if isinstance(epsilons, list) else [epsilons]
    return min(auto_n_iter(lam, rows, epsilon, 1 / rows, columns) for epsilon in budgets)


def _openml_fw_steps(lam, datasets, epsilons) -> float:
    """:func:`_fw_steps` on the training rows of each OpenML dataset of ``datasets`` and its
    columns after one-hot encoding (read from its metadata); the fewest, infinity without
    one."""
    from dplasso.data.metadata import describe_openml

    return min((_fw_steps(lam, d.n - math.ceil(TEST_SHARE * d.n), d.n_columns, epsilons)
                for d in map(describe_openml, _openml_ids(datasets))), default=math.inf)


RELATION_FUNCTIONS = {"min": min, "max": max, "len": len, "openml_ids": _openml_ids,
                      "fw_steps": _fw_steps, "openml_fw_steps": _openml_fw_steps}
"""What a relation's ``check`` may call: ``min``, ``max``, ``len``; ``openml_ids(datasets)``
(the OpenML ids of a datasets list); ``fw_steps(lam, rows, columns, epsilons)`` (the fewest
automatic private Frank-Wolfe steps over the budgets, at delta 1/rows) and
``openml_fw_steps(lam, datasets, epsilons)`` (the same on each OpenML dataset's training
split, the fewest)."""
_ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
               ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv}
_COMPARISONS = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
                ast.GtE: operator.ge, ast.Eq: operator.eq, ast.NotEq: operator.ne,
                ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
_SYMBOLS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==",
            ast.NotEq: "!=", ast.In: "in", ast.NotIn: "not in"}
_NODES = (ast.Expression, ast.Constant, ast.Name, ast.Load, ast.Attribute, ast.BinOp,
          ast.UnaryOp, ast.USub, ast.Not, ast.BoolOp, ast.And, ast.Or, ast.Compare, ast.Call,
          *_ARITHMETIC, *_COMPARISONS)


def _relation(item, specs: dict, where: str) -> dict:
    """A relation of the schema, checked and parsed: ``{check, meaning, tree, names}``
    (``names``: the parameters it reads, in order)."""
    if not isinstance(item, dict) or not isinstance(item.get("check"), str) \
            or not item.get("meaning"):
        raise ValueError(f"{where}: a relation is {{check: <expression>, meaning: <why>}}, "
                         f"got {item!r}")
    text = item["check"]
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as err:
        raise ValueError(f"{where}: {text!r} is not an expression ({err.msg})") from None
    calls = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    names = []
    for node in sorted(ast.walk(tree), key=lambda n: getattr(n, "col_offset", -1)):
        bad = (not isinstance(node, _NODES)
               or isinstance(node, ast.Constant) and not isinstance(node.value, (int, float, str))
               or isinstance(node, ast.Call) and (node.keywords or not isinstance(
                   node.func, ast.Name) or node.func.id not in RELATION_FUNCTIONS))
        if bad:
            raise ValueError(f"{where}: {text!r} uses {ast.unparse(node)!r}, which a relation "
                             f"may not (parameters, numbers, arithmetic, comparisons, and, or, "
                             f"not, a mapping's key as .key, and {sorted(RELATION_FUNCTIONS)})")
        if isinstance(node, ast.Name) and id(node) not in calls:
            if node.id not in specs:
                raise ValueError(f"{where}: {text!r} names {node.id!r}, not a parameter of "
                                 "the notebook")
            names.append(node.id)
    return {"check": text, "meaning": item["meaning"], "tree": tree.body,
            "names": list(dict.fromkeys(names))}


class _Unknown(Exception):
    """A value a relation reads is null (the notebook derives it): the relation is not
    checked."""


def _evaluate(node, params: dict):
    """The value of a parsed relation (:func:`_relation`) over ``params``."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if params.get(node.id) is None:
            raise _Unknown
        return params[node.id]
    if isinstance(node, ast.Attribute):
        value = _evaluate(node.value, params)
        if not isinstance(value, dict) or value.get(node.attr) is None:
            raise _Unknown
        return value[node.attr]
    if isinstance(node, ast.BinOp):
        return _ARITHMETIC[type(node.op)](_evaluate(node.left, params),
                                          _evaluate(node.right, params))
    if isinstance(node, ast.UnaryOp):
        value = _evaluate(node.operand, params)
        return -value if isinstance(node.op, ast.USub) else not value
    if isinstance(node, ast.BoolOp):
        wanted = isinstance(node.op, ast.Or)
        for value in node.values:
            if bool(_evaluate(value, params)) is wanted:
                return wanted
        return not wanted
    if isinstance(node, ast.Compare):
        left = _evaluate(node.left, params)
        for op, right_node in zip(node.ops, node.comparators):
            right = _evaluate(right_node, params)
            if not _COMPARISONS[type(op)](left, right):
                return False
            left = right
        return True
    return RELATION_FUNCTIONS[node.func.id](*(_evaluate(arg, params) for arg in node.args))


def _origin(source: str) -> str:
    """Where a value not given with ``-p`` came from, in a few words."""
    return {"profile": "the profile's", "default": "the notebook's default"}.get(
        source, f"following -p {source.removeprefix('follows ')}")


def _check_relations(notebook: str, relations, params: dict, source: dict,
                     overrides: dict) -> None:
    """Raise a one-line ``ValueError`` at the first relation ``params`` break, naming the
    ``-p`` values it reads (or the profile), the relation, the values and why it holds."""
    for relation in relations:
        try:
            if _evaluate(relation["tree"], params):
                continue
            tree = relation["tree"]
            sides = ""
            if isinstance(tree, ast.Compare) and len(tree.ops) == 1:
                sides = (f" (here {_shown(_evaluate(tree.left, params))} "
                         f"{_SYMBOLS[type(tree.ops[0])]} "
                         f"{_shown(_evaluate(tree.comparators[0], params))})")
        except _Unknown:
            continue
        names = relation["names"]
        given = [name for name in names if source.get(name) == "override"]
        where = (" ".join(f"-p {name}={_shown(overrides[name])}" for name in given)
                 or "the profile's values")
        values = ", ".join(f"{name}={_shown(params[name])}" + (
            "" if source[name] == "override" else f" ({_origin(source[name])})")
            for name in names)
        raise ValueError(f"{where} {'does' if len(given) == 1 else 'do'} not fit notebook "
                         f"{notebook!r}: {relation['check']} fails{sides} with {values}: "
                         f"{relation['meaning']}")


# --- a notebook's parameters together --------------------------------------------------------

def _fail(notebook: str, name: str, value, problem: str, source: str):
    where = (f"-p {name}={_shown(value)}" if source == "override" else
             f"{name}={_shown(value)} ({_origin(source)})" if source.startswith("follows ")
             else f"{_origin(source)} {name}={_shown(value)}")
    return ValueError(f"{where} does not fit notebook {notebook!r}: {name}"
                      f"{'' if problem.startswith('[') else ' '}{problem}")


def _members(value) -> list:
    return list(value) if isinstance(value, (list, dict)) else [value]


def resolve(notebook: str, specs: dict[str, dict], defaults: dict, profile_values: dict,
            overrides: dict, relations=()) -> dict:
    """The parameters of one run: the cell's ``defaults``, updated by the profile's values, then
    by the ``overrides`` (only the ``-p`` values meant for this notebook), checked.

    A parameter the schema marks ``settable: false`` may not be overridden (the runner sets
    it); every other value must fit its spec; ``at_most``, ``subset_of`` and ``keys_in`` tie
    values together, and the notebook's ``relations`` (:func:`load_relations`) must hold (a
    relation that reads a null value, which the notebook derives, is not checked). An
    override of a mapping parameter sets only the keys it names (the others keep the
    profile's or the default's). A default or profile value that names datasets the run does
    not have is narrowed to those it has (null when none are left, so the notebook derives
    it); an override that does is refused. A parameter not overridden follows an overridden one it is tied to
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
    for name, value in overrides.items():  # a partial mapping sets only the keys it names
        base = profile_values.get(name, defaults.get(name))
        if specs.get(name, {}).get("type") == "mapping" and isinstance(value, dict) \
                and isinstance(base, dict):
            params[name] = {**base, **value}
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
            raise _fail(notebook, name, overrides.get(name, value), str(err),
                        source[name]) from None
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
    _check_relations(notebook, relations, params, source, overrides)
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
