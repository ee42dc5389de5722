"""Which library source a piece of code runs: import closures read from the source text.

The unit cache (:mod:`.checkpoint`) and the runner's notebook keys
(:func:`dplasso.reproduce.runner.run_key`) are keyed by the code of the library modules a
computation can reach, not by the whole library, so a change to one module invalidates only
the units and notebooks that import it, and a change to its docstrings or comments none
(:func:`code_digest`). The closure is computed from the source with
:mod:`ast` (as ``tests/unit/test_layering.py`` reads imports): every ``import`` statement
anywhere in a module (inside functions too) counts, a package's ``__init__`` counts for each of
its modules, and ``from <package> import <name>`` of a lazily exported name
(:func:`dplasso._lazy.lazy_exports`) reaches the submodule that defines it. Imports of other
distributions are covered by their versions (:func:`environment_digest`). Standard library only.
"""
from __future__ import annotations

import ast
import functools
import hashlib
import sys
from pathlib import Path

__all__ = ["PACKAGE", "RECORDS_NAME", "closure", "closure_digest", "code_digest",
           "environment_digest", "imported_modules", "module_file", "records_read"]

PACKAGE = "dplasso"
_ROOT = Path(__file__).resolve().parents[1]
"""The package folder, ``src/dplasso``."""
VERSIONED = ("numpy", "scipy", "scikit-learn", "pandas", "joblib", "openml")
"""The distributions whose versions enter :func:`environment_digest` (what the library's
numbers depend on besides its own source and Python)."""


def module_file(module: str) -> Path | None:
    """The source file of library module ``module`` (``dplasso.x.y``), or None if it is not
    one."""
    parts = module.split(".")
    if parts[0] != PACKAGE:
        return None
    base = _ROOT.joinpath(*parts[1:])
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _is_package(module: str) -> bool:
    path = module_file(module)
    return path is not None and path.name == "__init__.py"


@functools.lru_cache(maxsize=None)
def _lazy_table(package: str) -> dict[str, str]:
    """``{name: submodule}`` of a package's ``lazy_exports(__name__, {...})`` call (empty
    without one)."""
    tree = ast.parse(module_file(package).read_text())
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "lazy_exports"
                and len(node.args) == 2):
            exports = ast.literal_eval(node.args[1])
            return {name: sub for sub, names in exports.items() for name in names}
    return {}


def _targets(module: str, names) -> set[str]:
    """The library modules ``from <module> import <names>`` runs."""
    out = {module}
    if _is_package(module):
        lazy = _lazy_table(module)
        for name in names:
            if module_file(f"{module}.{name}") is not None:
                out.add(f"{module}.{name}")
            elif name in lazy:
                out.add(f"{module}.{lazy[name]}")
            elif name == "*":
                out |= {f"{module}.{sub}" for sub in lazy.values()}
    return out


def imported_modules(source: str, package: str = PACKAGE) -> set[str]:
    """The library modules named by the import statements of ``source`` (a module's or a
    notebook cell's text); ``package`` resolves relative imports."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = parts[: len(parts) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found |= _targets(module, [alias.name for alias in node.names])
    return {name for name in found if module_file(name) is not None}


def _with_parents(module: str) -> set[str]:
    """``module`` and the packages above it, whose ``__init__`` runs when it is imported."""
    parts = module.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts) + 1)}


@functools.lru_cache(maxsize=None)
def _direct(module: str) -> frozenset[str]:
    path = module_file(module)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    return frozenset(imported_modules(path.read_text(), package))


def closure(modules) -> tuple[str, ...]:
    """Every library module that importing ``modules`` can run, sorted (``modules`` outside
    the library are ignored)."""
    todo = [m for name in modules for m in _with_parents(name) if module_file(m) is not None]
    seen: set[str] = set()
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        for other in _direct(module):
            todo += [m for m in _with_parents(other) if m not in seen]
    return tuple(sorted(seen))


RECORDS_NAME = "READS_RECORDS"
"""A module that reads committed record files of ``book/paper-results/`` (not a notebook's own
folder) names them, as glob patterns, in a top-level tuple of this name; the runner's key of a
notebook covers the files its closure names (:func:`records_read`), and no other."""


@functools.lru_cache(maxsize=None)
def _declared_records(module: str) -> tuple[str, ...]:
    for node in ast.parse(module_file(module).read_text()).body:
        target = (node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1
                  else node.target if isinstance(node, ast.AnnAssign) else None)
        if isinstance(target, ast.Name) and target.id == RECORDS_NAME:
            return tuple(ast.literal_eval(node.value))
    return ()


def records_read(modules) -> tuple[str, ...]:
    """The record-file patterns (:data:`RECORDS_NAME`) the closure of ``modules`` declares,
    sorted."""
    return tuple(sorted({pattern for module in closure(modules)
                         for pattern in _declared_records(module)}))


def _is_prose(statement: ast.stmt) -> bool:
    """A statement that is a string literal alone (a docstring): it computes nothing."""
    return (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
            and isinstance(statement.value.value, str))


@functools.lru_cache(maxsize=512)
def _code_digest(path: Path, mtime_ns: int, size: int) -> str:
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list) and any(map(_is_prose, body)):
                setattr(node, field, [s for s in body if not _is_prose(s)] or [ast.Pass()])
    return hashlib.sha256(ast.dump(tree).encode()).hexdigest()


def code_digest(module: str) -> str:
    """SHA-256 of library module ``module``'s code: its syntax tree without comments,
    docstrings, other string-only statements or layout, so an edit to its prose leaves the
    digest (and every key built on it) unchanged. The tree's form depends on the Python
    version, which :func:`environment_digest` and the runner's pins cover."""
    path = module_file(module)
    stat = path.stat()
    return _code_digest(path, stat.st_mtime_ns, stat.st_size)


def closure_digest(modules) -> str:
    """SHA-256 of the closure of ``modules``: each module's name and :func:`code_digest`."""
    digest = hashlib.sha256()
    for module in closure(modules):
        digest.update(f"{module}\0{code_digest(module)}\0".encode())
    return digest.hexdigest()


@functools.lru_cache(maxsize=None)
def environment_digest() -> str:
    """SHA-256 of the Python version and the versions of :data:`VERSIONED`."""
    from importlib.metadata import PackageNotFoundError, version

    parts = [sys.version.split()[0]]
    for name in VERSIONED:
        try:
            parts.append(f"{name}=={version(name)}")
        except PackageNotFoundError:
            parts.append(f"{name} absent")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()
