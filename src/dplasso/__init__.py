"""dplasso: differentially private sparse logistic regression (P1, P2) and their reproduction.

The library is :mod:`dplasso.estimators`, :mod:`dplasso.baselines`, :mod:`dplasso.privacy`,
:mod:`dplasso.data` and :mod:`dplasso.audit` (ARCHITECTURE.md); ``dplasso.__version__`` is the
installed distribution's version, read from its metadata on first use.
"""

UNKNOWN_VERSION = "0+unknown"
"""``__version__`` when the package runs from a source tree that is not installed."""


def __getattr__(name):
    if name != "__version__":
        raise AttributeError(f"module 'dplasso' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("dplasso")
    except PackageNotFoundError:
        return UNKNOWN_VERSION
