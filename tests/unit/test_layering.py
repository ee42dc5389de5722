"""Imports inside the package point one way only (ARCHITECTURE.md)."""
import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "dplasso"
# Each layer may import only the layers listed before it.
ORDER = ["privacy", "data", "optim", "screening", "estimators", "baselines", "audit",
         "experiments", "reproduce", "cli"]


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "dplasso" else None


def _imports(path: Path, package: str):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                yield ".".join(base + ([node.module] if node.module else []))
            elif node.module:
                yield node.module


def test_imports_point_one_way():
    bad = []
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        module = ".".join(rel.parts)
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        own = _layer(module.replace(".__init__", ""))
        if own not in ORDER:
            continue
        for target in _imports(path, package):
            other = _layer(target)
            if other in ORDER and other != own and ORDER.index(other) > ORDER.index(own):
                bad.append(f"{module} imports {target}")
    assert not bad, "imports against the layering:\n" + "\n".join(bad)


def test_data_and_privacy_import_nothing_else_from_the_package():
    """But the standard-library helpers ``dplasso._lazy`` (lazy package attributes) and
    ``dplasso._extras`` (the missing-extra error)."""
    for layer in ("data", "privacy"):
        for path in (PACKAGE / layer).rglob("*.py"):
            pkg = "dplasso." + layer
            others = {_layer(t) for t in _imports(path, pkg)} - {None, layer, "_lazy", "_extras"}
            assert not others, f"{path} imports {others}"


def test_the_helpers_import_only_the_standard_library():
    for helper in ("_lazy.py", "_extras.py", "__init__.py"):
        top = {name.split(".")[0] for name in _imports(PACKAGE / helper, "dplasso")}
        assert top <= set(sys.stdlib_module_names), helper
