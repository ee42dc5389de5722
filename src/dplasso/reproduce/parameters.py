"""Check ``-p`` overrides against a notebook's parameters cell before any kernel starts.

An override must have the kind of the value the cell assigns (its default): ``None`` admits
anything, a float admits an int, a list admits a list whose items have the kinds of the
default's items, and so on. Parameters with a value set that a kind cannot express are checked
by the library's own validators instead (:data:`CHECKS`: ``count_sensitivity`` is ``"max"``
or an integer, a budget a finite number ``> 0``, a dataset an id of the catalogue). Every
failure is a ``ValueError`` whose one-line message names the parameter, the notebook and the
value.
"""
from __future__ import annotations

import ast
import numbers

from dplasso.data.catalog import catalog_ids
from dplasso.estimators.params import (
    check_count_sensitivity,
    check_delta,
    check_epsilon,
    check_fraction,
)
from dplasso.optim.validation import check_lam

__all__ = ["CHECKS", "parameter_defaults", "check_override"]

_NOT_LITERAL = object()


def _literal(node):
    """The value of a literal expression (``1 / 6000`` included), else ``_NOT_LITERAL``."""
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError):
        pass
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.Mult, ast.Add, ast.Sub)):
        left, right = _literal(node.left), _literal(node.right)
        if all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in (left, right)):
            return {ast.Div: left / right if right else _NOT_LITERAL, ast.Mult: left * right,
                    ast.Add: left + right, ast.Sub: left - right}[type(node.op)]
    return _NOT_LITERAL


def parameter_defaults(cell_source: str) -> dict:
    """``{name: default}`` of the assignments in a parameters cell (defaults that are not
    literals map to a marker that admits any override)."""
    out = {}
    for node in ast.parse(cell_source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target = node.target
        else:
            continue
        if isinstance(target, ast.Name):
            out[target.id] = _literal(node.value)
    return out


def _kind(value) -> str:
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, numbers.Integral):
        return "int"
    if isinstance(value, numbers.Real):
        return "float"
    return {str: "str", list: "list", tuple: "list", dict: "dict"}.get(type(value), "other")


def _fits_kind(value, default) -> bool:
    want, got = _kind(default), _kind(value)
    if default is _NOT_LITERAL or want == "None":
        return True
    if want == "float":
        return got in ("int", "float")
    if want == "list":
        item_kinds = {_kind(item) for item in default}
        return got == "list" and (not item_kinds or all(
            any(_fits_kind(item, example) for example in default) for item in value))
    return got == want


def _describe(default) -> str:
    kind = _kind(default)
    if kind == "list" and default:
        items = sorted({"number" if _kind(i) in ("int", "float") else _kind(i) for i in default})
        return f"a list of {' or '.join(items)}"
    return {"int": "an integer", "float": "a number", "bool": "true or false", "str": "a string",
            "dict": "a mapping", "list": "a list"}.get(kind, kind)


def _each(check):
    def run(value, name, default):
        if not isinstance(value, list) or not value:
            raise ValueError(f"{name} must be a non-empty list, got {value!r}")
        for item in value:
            check(item, name)
    return run


def _datasets(value, name, default):
    """Catalogue ids (``"synthetic"`` where the default has it; ``"all"`` where it is the
    default)."""
    if isinstance(value, str) and value == default:
        return
    allowed_names = [d for d in (default if isinstance(default, list) else [default])
                     if isinstance(d, str)]
    items = value if isinstance(value, list) else [value]
    if isinstance(default, list) and not isinstance(value, list):
        raise ValueError(f"{name} must be a list of datasets, got {value!r}")
    ids = catalog_ids()
    for item in items:
        if item in allowed_names and isinstance(item, str):
            continue
        if isinstance(item, bool) or not isinstance(item, numbers.Integral) or item not in ids:
            choices = " or ".join(repr(a) for a in allowed_names)
            raise ValueError(
                f"{name}: {item!r} is not an OpenML id of the catalogue {list(ids)}"
                + (f" nor {choices}" if choices else "") + " (`dplasso list` shows them)")


def _scalar(check):
    return lambda value, name, default: check(value, name)


CHECKS = {
    "count_sensitivity": _scalar(check_count_sensitivity),
    "declared": _scalar(check_count_sensitivity),
    "count_fraction": _scalar(check_fraction),
    "lam": _scalar(lambda value, name: check_lam(value, name=name)),
    **{name: _scalar(check_epsilon) for name in
       ("epsilon", "epsilon1", "epsilon2", "epsilon_fw", "default_epsilon")},
    **{name: _scalar(check_delta) for name in ("delta", "delta1", "delta2")},
    "epsilons": _each(check_epsilon),
    "epsilons_count": _each(check_epsilon),
    **{name: _datasets for name in ("datasets", "dataset_ids", "dense_datasets", "dataset")},
}
"""Parameters checked by a library validator (value set beyond a kind), by name."""


def check_override(notebook: str, name: str, value, defaults: dict) -> None:
    """Refuse ``-p name=value`` for ``notebook`` whose parameters cell assigns ``defaults``.

    Raises
    ------
    ValueError
        One line naming the parameter, the notebook, the value and what it should be.
    """
    default = defaults[name]
    try:
        if name in CHECKS:
            CHECKS[name](value, name, default)
        elif not _fits_kind(value, default):
            raise ValueError(f"{name} must be {_describe(default)} (its default is {default!r}),"
                             f" got {_kind(value)} {value!r}")
    except (TypeError, ValueError) as err:
        raise ValueError(f"-p {name}={value!r} does not fit notebook {notebook!r}: {err}") \
            from None
