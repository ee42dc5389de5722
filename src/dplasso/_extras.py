"""The package's extras (optional dependencies) and the one-line error when one is missing.

``pip install dplasso`` installs what the estimators, the privacy ledger and the audits need;
the notebooks, the book, OpenML loading and Dask run on extras (``pyproject.toml``). A command
or function that needs one checks for it at its entry with :func:`require_extra` or
:func:`import_extra`, so a core install answers with one line naming the extra to install
instead of a traceback from deep inside a run. This module imports only the standard library.
"""
import importlib
import importlib.util

_OPENML = ("openml", "pandas")
_REPRODUCE = ("papermill", "jupytext", "ipykernel", "matplotlib", "tqdm", "tabulate",
              "psutil") + _OPENML
EXTRAS = {
    "openml": _OPENML,
    "reproduce": _REPRODUCE,
    "book": ("jupyter_book", "sphinx_proof", "sphinx-mathjax-offline") + _REPRODUCE,
    "dask": ("dask", "distributed"),
}
"""The top-level modules each extra of ``pyproject.toml`` installs, those of the extras it
includes too (``tests/unit/test_extras.py`` keeps this table and that file in step)."""


class MissingExtraError(ImportError):
    """A command or function needs an extra that is not installed; the message says which
    and how to install it."""


def _missing(extra, what, module):
    return MissingExtraError(f"{what} needs the {extra!r} extra: pip install "
                             f"'dplasso[{extra}]' ({module} is not installed)")


def require_extra(extra, what):
    """Check that every module of ``extra`` can be imported, without importing any.

    Parameters
    ----------
    extra : str
        A key of :data:`EXTRAS`.
    what : str
        The command or function that needs it, for the message (``"dplasso reproduce"``).

    Raises
    ------
    MissingExtraError
        Naming ``what``, the extra, the ``pip install`` line and the first missing module.
    """
    for module in EXTRAS[extra]:
        if importlib.util.find_spec(module) is None:
            raise _missing(extra, what, module)


def import_extra(module, extra, what):
    """``module`` imported, or :class:`MissingExtraError` naming ``extra`` when it is not
    installed (an error raised inside an installed module passes through)."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name != module:
            raise
        raise _missing(extra, what, module) from None
