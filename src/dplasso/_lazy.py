"""Package attributes imported on first use.

The packages on the command line's path (``privacy``, ``data``, ``optim``, ``estimators``)
name their public attributes here instead of importing every submodule, so that importing one
light submodule (``dplasso.data.catalog`` for the dataset ids, ``dplasso.estimators.params``
for the budget checks) does not load numpy, scipy, pandas or scikit-learn, and ``dplasso``'s
error messages answer in a fraction of a second. This module imports only the standard library.
"""
import importlib
import sys
import types


class _LazyPackage(types.ModuleType):
    """A package whose public names are imported from their submodules when first read."""

    def __getattr__(self, name):
        where = self.__dict__["_lazy_exports"]
        if name not in where:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{self.__name__}.{where[name]}"), name)
        super().__setattr__(name, value)
        return value

    def __setattr__(self, name, value):
        # The import system binds each imported submodule to its name on the package; where
        # the submodule exports an object of that same name (optim.frank_wolfe), the package
        # keeps the object, as ``from .frank_wolfe import frank_wolfe`` did.
        if isinstance(value, types.ModuleType) and self._lazy_exports.get(name) == name:
            value = getattr(value, name)
        super().__setattr__(name, value)

    def __dir__(self):
        return sorted(set(self.__dict__) | set(self._lazy_exports))


def lazy_exports(package: str, exports: dict[str, tuple[str, ...]]) -> None:
    """Make ``package`` import its public names on first use: ``exports`` maps each submodule
    (its name relative to the package) to the names it provides."""
    module = sys.modules[package]
    module.__dict__["_lazy_exports"] = {
        name: submodule for submodule, names in exports.items() for name in names}
    module.__class__ = _LazyPackage
