"""The common return type of every baseline fit function."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from dplasso.privacy.accounting import PrivacyLedger

__all__ = ["BaselineFit"]


class BaselineFit(NamedTuple):
    """What a baseline ``fit_*`` function returns; unpacks as ``coef, intercept, ledger, info``.

    Attributes
    ----------
    coef : ndarray of float64 of shape (p,)
        Coefficients of the ``p`` input features (the intercept column excluded).
    intercept : float or None
        Coefficient of the constant feature when ``fit_intercept=True``, else None.
    ledger : PrivacyLedger or None
        The releases the fit made (None for the non-private reference).
    info : dict
        Public hyperparameters, the calibration derived from them (noise scales, budget
        split, composition used) and diagnostics of the private output. Never contains a
        non-private function of the data.
    """

    coef: np.ndarray
    intercept: float | None
    ledger: PrivacyLedger | None
    info: dict
