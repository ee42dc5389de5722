"""How a fit's separately composed parts add up: one ledger, one basic-composition total.

A private fit may release several things one after another (a count, the weights, a
threshold). Each *part* is a ledger with the guarantee of its own composition rule (pure
releases: basic; Frank-Wolfe steps: the better of basic and advanced composition or zCDP); the
fit's guarantee is the basic composition of the parts' guarantees, and a budget accountant
spends each part (:func:`dplasso.estimators.base.spend_budget`).
"""
from __future__ import annotations

import math

from dplasso.privacy.accounting import PrivacyGuarantee, PrivacyLedger

__all__ = ["pure_part", "compose_parts"]


def pure_part(event):
    """One pure release as a part: ``(ledger holding event, its basic total)``."""
    ledger = PrivacyLedger()
    ledger.record(event)
    return ledger, ledger.total("basic")


def compose_parts(parts):
    """``(ledger, guarantee)`` of parts released in order.

    Parameters
    ----------
    parts : sequence of (PrivacyLedger, PrivacyGuarantee)

    Returns
    -------
    ledger : PrivacyLedger
        Every part's events, in order.
    guarantee : PrivacyGuarantee
        Epsilons and deltas of the parts' guarantees added (``"basic"``).
    """
    ledger = PrivacyLedger()
    for part_ledger, _ in parts:
        ledger.merge(part_ledger)
    guarantee = PrivacyGuarantee(math.fsum(g.epsilon for _, g in parts),
                                 math.fsum(g.delta for _, g in parts), "basic")
    return ledger, guarantee
