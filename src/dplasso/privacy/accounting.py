r"""Privacy events, the ledger that records them, composition, and a budget accountant.

A :class:`PrivacyEvent` says what was released: which mechanism, the sensitivity it was
calibrated to, the neighbouring relation, its per-use guarantee (``epsilon``/``delta`` and/or
``rho``) and how many times it ran. A :class:`PrivacyLedger` keeps the events of one fit and
composes them on request:

``"basic"``
    :math:`\varepsilon = \sum_i k_i \varepsilon_i`, :math:`\delta = \sum_i k_i \delta_i`
    (Dwork & Roth 2014, Thm 3.16).
``"advanced"``
    for a slack :math:`\delta' > 0`,

    .. math::
        \varepsilon = \sqrt{2 \ln(1/\delta') \textstyle\sum_i k_i \varepsilon_i^2}
        + \textstyle\sum_i k_i \varepsilon_i (e^{\varepsilon_i} - 1), \qquad
        \delta = \textstyle\sum_i k_i \delta_i + \delta'.

    With one event used ``k`` times this is Dwork, Rothblum & Vadhan (2010, Thm III.3):
    :math:`\sqrt{2k\ln(1/\delta')}\,\varepsilon_0 + k\varepsilon_0(e^{\varepsilon_0}-1)`.
    The heterogeneous form comes from the same proof (Dwork & Roth 2014, Thm 3.20): the
    privacy loss of an :math:`\varepsilon_i`-DP step has mean at most
    :math:`\varepsilon_i(e^{\varepsilon_i}-1)` and lies in an interval of width
    :math:`2\varepsilon_i`, and Azuma--Hoeffding bounds the sum of the centred losses by
    :math:`\sqrt{2\ln(1/\delta')\sum_i \varepsilon_i^2}` except with probability
    :math:`\delta'`.
``"zcdp"``
    :math:`\rho = \sum_i k_i \rho_i` (Bun & Steinke 2016, Lemma 2.3), converted for a target
    :math:`\delta \in (0, 1)` by :math:`\varepsilon = \rho + 2\sqrt{\rho \ln(1/\delta)}`
    (Bun & Steinke 2016, Prop 1.3). An event with no stated ``rho`` enters as
    :math:`\varepsilon^2/2` when it is pure :math:`\varepsilon`-DP (Bun & Steinke 2016,
    Prop 1.4); mechanisms with a tighter statement (the exponential mechanism,
    :math:`\varepsilon^2/8` by bounded range, Cesar & Rogers 2021) record it in ``rho``.

All three hold under adaptive composition. Events under different neighbouring relations are
never composed. A :class:`BudgetAccountant` holds a total ``(epsilon, delta)`` budget across
fits, refuses a fit *before* any work (:meth:`BudgetAccountant.check`) and records what each
fit's ledger spent (:meth:`BudgetAccountant.spend`), the check-fit-spend flow.

References
----------
.. [1] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential Privacy", 2014.
.. [2] C. Dwork, G. N. Rothblum and S. Vadhan, "Boosting and Differential Privacy", FOCS 2010.
.. [3] M. Bun and T. Steinke, "Concentrated Differential Privacy: Simplifications,
   Extensions, and Lower Bounds", TCC 2016.
.. [4] M. Cesar and R. Rogers, "Bounding, Concentrating, and Truncating: Unifying Privacy
   Loss Composition for Data Analytics", ALT 2021.
"""
from __future__ import annotations

import dataclasses
import math
import threading
from dataclasses import dataclass

from dplasso.privacy._validation import (
    check_count,
    check_delta,
    check_nonnegative,
    check_positive,
)
from dplasso.privacy.neighbours import REPLACE_ONE

__all__ = [
    "NUMERICS",
    "PrivacyEvent",
    "PrivacyGuarantee",
    "PrivacyLedger",
    "BudgetAccountant",
    "BudgetExceededError",
    "DetachedAccountantError",
    "COMPOSITION_METHODS",
    "basic_composition",
    "advanced_composition",
    "advanced_composition_epsilon",
    "zcdp_rho",
    "zcdp_to_epsilon",
    "zcdp_composition",
    "compose",
]

NUMERICS = ("exact", "idealised-float")
"""Allowed values of :attr:`PrivacyEvent.numerics`: an exact (integer/rational) sampler, or a
floating-point sampler whose guarantee assumes real arithmetic (Mironov 2012)."""

COMPOSITION_METHODS = ("basic", "advanced", "zcdp")
"""Composition rules understood by :func:`compose` and :meth:`PrivacyLedger.total`."""

_BUDGET_RTOL = 1e-9
"""Relative tolerance of :class:`BudgetAccountant` comparisons (absorbs float rounding of a
composed total calibrated to hit the budget exactly)."""


@dataclass(frozen=True, kw_only=True)
class PrivacyEvent:
    """One released mechanism, possibly repeated: what a ledger records.

    Parameters
    ----------
    mechanism : str
        Name of the mechanism, e.g. ``"laplace"`` or ``"report-noisy-min"``.
    sensitivity : float
        The sensitivity the mechanism was calibrated to, in the mechanism's own norm (L1 for
        Laplace and discrete Laplace, L2 for Gaussian, the largest change of any one score
        for selection), under ``relation``.
    relation : str, default=REPLACE_ONE
        Neighbouring relation the guarantee is stated for.
    epsilon : float or None, default=None
        Per-use ``epsilon`` of an ``(epsilon, delta)``-DP guarantee; ``None`` when the
        mechanism states only ``rho``.
    delta : float, default=0.0
        Per-use ``delta`` in ``[0, 1)``; must be 0 when ``epsilon`` is ``None``.
    rho : float or None, default=None
        Per-use zCDP parameter; ``None`` means "derive it": ``epsilon**2 / 2`` for a pure
        event, unavailable for an event with ``delta > 0``.
    count : int, default=1
        Number of (adaptive) uses of the mechanism.
    note : str, default=""
        Free text: what was released, which lemma gives the guarantee.
    numerics : {"exact", "idealised-float"}
        Whether the sampler is exact or a float path whose guarantee assumes real arithmetic.

    Raises
    ------
    ValueError
        If a number is out of range, neither ``epsilon`` nor ``rho`` is given, ``delta > 0``
        without ``epsilon``, or ``numerics`` is not one of :data:`NUMERICS`.
    """

    mechanism: str
    sensitivity: float
    relation: str = REPLACE_ONE
    epsilon: float | None = None
    delta: float = 0.0
    rho: float | None = None
    count: int = 1
    note: str = ""
    numerics: str

    def __post_init__(self):
        if not isinstance(self.mechanism, str) or not self.mechanism:
            raise ValueError(f"mechanism must be a non-empty string, got {self.mechanism!r}")
        if not isinstance(self.relation, str) or not self.relation:
            raise ValueError(f"relation must be a non-empty string, got {self.relation!r}")
        if self.numerics not in NUMERICS:
            raise ValueError(f"numerics must be one of {NUMERICS}, got {self.numerics!r}")
        set_ = object.__setattr__
        set_(self, "sensitivity", check_nonnegative("sensitivity", self.sensitivity))
        set_(self, "delta", check_delta("delta", self.delta, allow_zero=True))
        set_(self, "count", check_count("count", self.count))
        if self.epsilon is None and self.rho is None:
            raise ValueError("an event needs epsilon, rho, or both")
        if self.epsilon is not None:
            set_(self, "epsilon", check_nonnegative("epsilon", self.epsilon))
        elif self.delta > 0:
            raise ValueError("delta > 0 was given without epsilon")
        if self.rho is not None:
            set_(self, "rho", check_nonnegative("rho", self.rho))

    @property
    def zcdp_rho(self) -> float:
        """Per-use zCDP parameter: ``rho``, else ``epsilon**2 / 2`` for a pure event.

        Raises
        ------
        ValueError
            For an ``(epsilon, delta)`` event with ``delta > 0`` and no stated ``rho``.
        """
        if self.rho is not None:
            return self.rho
        if self.delta == 0:
            return self.epsilon**2 / 2.0
        raise ValueError(
            f"event {self.mechanism!r} is (epsilon, delta)-DP with delta={self.delta!r} > 0 "
            "and states no rho: zCDP composition does not apply"
        )

    def repeated(self, times: int) -> PrivacyEvent:
        """The same event with its ``count`` multiplied by ``times``."""
        return dataclasses.replace(self, count=self.count * check_count("times", times))


@dataclass(frozen=True)
class PrivacyGuarantee:
    """A composed ``(epsilon, delta)`` guarantee and the rule that produced it.

    Attributes
    ----------
    epsilon : float
    delta : float
    method : str
        One of :data:`COMPOSITION_METHODS`.
    """

    epsilon: float
    delta: float
    method: str


def _check_events(events):
    events = tuple(events)
    for event in events:
        if not isinstance(event, PrivacyEvent):
            raise TypeError(f"expected PrivacyEvent, got {type(event).__name__}")
    relations = sorted({event.relation for event in events})
    if len(relations) > 1:
        raise ValueError(
            f"cannot compose events under different neighbouring relations: {relations}"
        )
    return events


def _approximate_dp(events, method):
    for event in events:
        if event.epsilon is None:
            raise ValueError(
                f"event {event.mechanism!r} states only rho (no epsilon): "
                f"{method} composition does not apply, use method='zcdp'"
            )
    return events


def basic_composition(events) -> PrivacyGuarantee:
    """Basic composition: epsilons and deltas add up (each weighted by its count).

    Parameters
    ----------
    events : iterable of PrivacyEvent

    Returns
    -------
    PrivacyGuarantee
    """
    events = _approximate_dp(_check_events(events), "basic")
    epsilon = math.fsum(e.count * e.epsilon for e in events)
    delta = math.fsum(e.count * e.delta for e in events)
    return PrivacyGuarantee(epsilon, delta, "basic")


def advanced_composition(events, delta_slack) -> PrivacyGuarantee:
    r"""Advanced composition (Dwork-Rothblum-Vadhan, heterogeneous form; module docstring).

    Parameters
    ----------
    events : iterable of PrivacyEvent
    delta_slack : float
        The extra failure probability :math:`\delta' \in (0, 1)`.

    Returns
    -------
    PrivacyGuarantee
        ``epsilon = sqrt(2 ln(1/delta_slack) sum k eps^2) + sum k eps (e^eps - 1)``,
        ``delta = sum k delta_i + delta_slack``.
    """
    events = _approximate_dp(_check_events(events), "advanced")
    epsilon = advanced_composition_epsilon(
        [e.epsilon for e in events], [e.count for e in events], delta_slack
    )
    delta = math.fsum(e.count * e.delta for e in events) + delta_slack
    return PrivacyGuarantee(epsilon, delta, "advanced")


def advanced_composition_epsilon(epsilons, counts, delta_slack) -> float:
    r"""The epsilon of advanced composition for per-use ``epsilons`` used ``counts`` times.

    :math:`\sqrt{2\ln(1/\delta')\sum_i k_i\varepsilon_i^2} + \sum_i k_i\varepsilon_i
    (e^{\varepsilon_i} - 1)` (module docstring); :func:`advanced_composition` and the
    calibration solvers share this arithmetic.

    Parameters
    ----------
    epsilons : sequence of float
        Per-use epsilons, ``>= 0``.
    counts : sequence of int
        Uses of each, ``>= 1``.
    delta_slack : float
        :math:`\delta' \in (0, 1)`.

    Returns
    -------
    float
    """
    delta_slack = check_delta("delta_slack", delta_slack, allow_zero=False)
    if len(epsilons) != len(counts):
        raise ValueError(f"got {len(epsilons)} epsilons but {len(counts)} counts")
    epsilons = [check_nonnegative("epsilon", e) for e in epsilons]
    counts = [check_count("count", k) for k in counts]
    sum_sq = math.fsum(k * e**2 for e, k in zip(epsilons, counts))
    drift = math.fsum(k * e * math.expm1(e) for e, k in zip(epsilons, counts))
    return math.sqrt(2.0 * math.log(1.0 / delta_slack) * sum_sq) + drift


def zcdp_rho(events) -> float:
    """Total zCDP parameter: ``sum count * rho`` (per event :attr:`PrivacyEvent.zcdp_rho`)."""
    events = _check_events(events)
    return math.fsum(e.count * e.zcdp_rho for e in events)


def zcdp_to_epsilon(rho, delta) -> float:
    r"""Convert :math:`\rho`-zCDP to :math:`(\varepsilon, \delta)`-DP.

    :math:`\varepsilon = \rho + 2\sqrt{\rho\ln(1/\delta)}` (Bun & Steinke 2016, Prop 1.3).

    Parameters
    ----------
    rho : float
        ``>= 0``.
    delta : float
        Target ``delta`` in ``(0, 1)``.

    Returns
    -------
    float
    """
    rho = check_nonnegative("rho", rho)
    delta = check_delta("delta", delta, allow_zero=False)
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


def zcdp_composition(events, delta) -> PrivacyGuarantee:
    """Compose in zCDP (rhos add up), then convert to ``(epsilon, delta)`` for ``delta``."""
    return PrivacyGuarantee(zcdp_to_epsilon(zcdp_rho(events), delta), float(delta), "zcdp")


def compose(events, method="basic", delta=None) -> PrivacyGuarantee:
    r"""Compose events with one of :data:`COMPOSITION_METHODS`.

    Parameters
    ----------
    events : iterable of PrivacyEvent
        Events under one neighbouring relation.
    method : {"basic", "advanced", "zcdp"}, default="basic"
    delta : float or None, default=None
        Must be ``None`` for ``"basic"``; the slack :math:`\delta'` for ``"advanced"``; the
        target ``delta`` of the conversion for ``"zcdp"``.

    Returns
    -------
    PrivacyGuarantee

    Raises
    ------
    ValueError
        On an unknown method, a missing or superfluous ``delta``, events under different
        relations, or an event the method cannot account for.
    """
    if method not in COMPOSITION_METHODS:
        raise ValueError(f"method must be one of {COMPOSITION_METHODS}, got {method!r}")
    if method == "basic":
        if delta is not None:
            raise ValueError("basic composition takes no delta (pass delta=None)")
        return basic_composition(events)
    if delta is None:
        raise ValueError(f"{method} composition needs delta")
    if method == "advanced":
        return advanced_composition(events, delta)
    return zcdp_composition(events, delta)


class PrivacyLedger:
    """The events one fit released, under one neighbouring relation, and their totals.

    Parameters
    ----------
    relation : str, default=REPLACE_ONE
        The neighbouring relation every recorded event must carry.

    Examples
    --------
    >>> from dplasso.privacy import PrivacyEvent, PrivacyLedger
    >>> ledger = PrivacyLedger()
    >>> _ = ledger.record(PrivacyEvent(mechanism="laplace", sensitivity=1.0, epsilon=0.5,
    ...                                count=4, numerics="idealised-float"))
    >>> ledger.total("basic")
    PrivacyGuarantee(epsilon=2.0, delta=0.0, method='basic')
    """

    def __init__(self, relation=REPLACE_ONE):
        if not isinstance(relation, str) or not relation:
            raise ValueError(f"relation must be a non-empty string, got {relation!r}")
        self._relation = relation
        self._events = []

    @property
    def relation(self) -> str:
        """The neighbouring relation of this ledger."""
        return self._relation

    @property
    def events(self) -> tuple:
        """The recorded events, in order."""
        return tuple(self._events)

    def __len__(self):
        return len(self._events)

    def __repr__(self):
        return f"PrivacyLedger(relation={self._relation!r}, events={len(self._events)})"

    def record(self, event: PrivacyEvent) -> PrivacyEvent:
        """Append ``event``; refuse it if its relation differs from the ledger's.

        Returns
        -------
        PrivacyEvent
            ``event`` itself.
        """
        if not isinstance(event, PrivacyEvent):
            raise TypeError(f"expected PrivacyEvent, got {type(event).__name__}")
        if event.relation != self._relation:
            raise ValueError(
                f"event {event.mechanism!r} is stated for relation {event.relation!r}, "
                f"the ledger for {self._relation!r}: they cannot be composed"
            )
        self._events.append(event)
        return event

    def merge(self, other: PrivacyLedger) -> None:
        """Record every event of ``other`` (e.g. a sub-fit's ledger), in order."""
        if not isinstance(other, PrivacyLedger):
            raise TypeError(f"expected PrivacyLedger, got {type(other).__name__}")
        if other.relation != self._relation:
            raise ValueError(
                f"cannot merge a ledger for relation {other.relation!r} into one for "
                f"{self._relation!r}"
            )
        self._events.extend(other.events)

    def total(self, method="basic", delta=None) -> PrivacyGuarantee:
        """Composed total of the recorded events; arguments as in :func:`compose`."""
        return compose(self._events, method, delta)

    def rho(self) -> float:
        """Total zCDP parameter of the recorded events."""
        return zcdp_rho(self._events)

    def as_records(self) -> list:
        """The events as dictionaries (one per event, ready for ``pandas.DataFrame``)."""
        return [dataclasses.asdict(event) for event in self._events]


class BudgetExceededError(ValueError):
    """Raised when a request or a spend would exceed a :class:`BudgetAccountant` budget."""


class DetachedAccountantError(RuntimeError):
    """Raised when a pickled copy of a :class:`BudgetAccountant` is asked to check or spend."""


def _detached_accountant(epsilon, delta, spent):
    """Rebuild a pickled accountant as a read-only, detached copy (see ``__reduce__``)."""
    accountant = BudgetAccountant(epsilon, delta)
    accountant._spent = list(spent)
    accountant._detached = True
    return accountant


class BudgetAccountant:
    """A total ``(epsilon, delta)`` budget spent by successive fits (basic composition).

    Parameters
    ----------
    epsilon : float
        Total budget, ``> 0``.
    delta : float, default=0.0
        Total ``delta`` budget in ``[0, 1)``.

    Notes
    -----
    The flow is *check, fit, spend*: a fit calls :meth:`check` with its declared
    ``(epsilon, delta)`` before touching the data, and :meth:`spend` with its ledger when
    done. Spends compose by basic composition. Comparisons allow a relative excess of
    ``1e-9`` so that a fit calibrated to hit the budget exactly is not refused because of
    float rounding in its composed total.

    An accountant is a shared ledger, not a value: ``copy.copy`` and ``copy.deepcopy``
    return the accountant itself, so scikit-learn's ``clone`` (which deep-copies
    parameters that are not estimators), ``cross_val_score`` and ``GridSearchCV`` with
    ``n_jobs=1`` (or a thread-based joblib backend) spend on the very object the user
    passed; :meth:`spend` is atomic across threads. One in-memory object cannot be shared
    between processes: a pickled accountant (what process-based parallelism such as
    ``GridSearchCV(n_jobs=2)`` sends to its workers) comes back *detached*, keeps the
    spends it had as a record, and raises :class:`DetachedAccountantError` on
    :meth:`check` and :meth:`spend`, so a fit refuses before any work instead of spending
    on a copy whose spends the original never sees.

    Examples
    --------
    >>> from dplasso.privacy import BudgetAccountant
    >>> accountant = BudgetAccountant(epsilon=1.0)
    >>> accountant.check(0.5)
    >>> accountant.check(2.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    dplasso.privacy.accounting.BudgetExceededError: requested (epsilon=2.0, ...) exceeds ...
    """

    def __init__(self, epsilon, delta=0.0):
        self._epsilon = check_positive("epsilon", epsilon)
        self._delta = check_delta("delta", delta, allow_zero=True)
        self._spent = []
        self._detached = False
        self._lock = threading.Lock()

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return _detached_accountant, (self._epsilon, self._delta, tuple(self._spent))

    @property
    def detached(self) -> bool:
        """Whether this is a pickled copy, which refuses :meth:`check` and :meth:`spend`."""
        return self._detached

    def _refuse_if_detached(self):
        if self._detached:
            raise DetachedAccountantError(
                f"accountant {self!r} is a pickled copy (made e.g. by process-based "
                "parallelism such as GridSearchCV(n_jobs>1) or cross_val_score(n_jobs>1)); "
                "spending on it would never reach the original's ledger. Fit in one process "
                "(n_jobs=1 or joblib's threading backend), or pass accountant=None and "
                "spend each fit's privacy_ledger_ on the accountant yourself"
            )

    @property
    def epsilon(self) -> float:
        """Total ``epsilon`` budget."""
        return self._epsilon

    @property
    def delta(self) -> float:
        """Total ``delta`` budget."""
        return self._delta

    @property
    def spent(self) -> tuple:
        """The guarantees spent so far, one per :meth:`spend`."""
        return tuple(self._spent)

    def __repr__(self):
        detached = ", detached" if self._detached else ""
        return f"BudgetAccountant(epsilon={self._epsilon!r}, delta={self._delta!r}{detached})"

    def total_spent(self) -> PrivacyGuarantee:
        """Basic composition of everything spent."""
        return PrivacyGuarantee(
            math.fsum(g.epsilon for g in self._spent),
            math.fsum(g.delta for g in self._spent),
            "basic",
        )

    def remaining(self) -> PrivacyGuarantee:
        """Budget left (clipped at 0)."""
        spent = self.total_spent()
        return PrivacyGuarantee(
            max(self._epsilon - spent.epsilon, 0.0), max(self._delta - spent.delta, 0.0), "basic"
        )

    def _fits(self, epsilon, delta) -> bool:
        spent = self.total_spent()
        slack = 1.0 + _BUDGET_RTOL
        return (spent.epsilon + epsilon <= self._epsilon * slack
                and spent.delta + delta <= self._delta * slack)

    def check(self, epsilon, delta=0.0) -> None:
        """Refuse a request that would exceed the budget; call it *before* any work.

        Parameters
        ----------
        epsilon : float
            Requested ``epsilon``, ``>= 0``.
        delta : float, default=0.0
            Requested ``delta`` in ``[0, 1)``.

        Raises
        ------
        BudgetExceededError
            If spent plus requested exceeds the budget in ``epsilon`` or ``delta``.
        DetachedAccountantError
            If this accountant is a pickled copy.
        """
        self._refuse_if_detached()
        epsilon = check_nonnegative("epsilon", epsilon)
        delta = check_delta("delta", delta, allow_zero=True)
        if not self._fits(epsilon, delta):
            left = self.remaining()
            raise BudgetExceededError(
                f"requested (epsilon={epsilon!r}, delta={delta!r}) exceeds the remaining "
                f"budget (epsilon={left.epsilon!r}, delta={left.delta!r}) of {self!r}"
            )

    def spend(self, ledger: PrivacyLedger, method="basic", delta=None) -> PrivacyGuarantee:
        """Record the composed total of ``ledger`` (arguments as in :meth:`PrivacyLedger.total`).

        Returns
        -------
        PrivacyGuarantee
            What was spent.

        Raises
        ------
        BudgetExceededError
            If the ledger's total does not fit the remaining budget (nothing is recorded).
        DetachedAccountantError
            If this accountant is a pickled copy (nothing is recorded).
        """
        self._refuse_if_detached()
        if not isinstance(ledger, PrivacyLedger):
            raise TypeError(f"expected PrivacyLedger, got {type(ledger).__name__}")
        guarantee = ledger.total(method, delta)
        with self._lock:
            if not self._fits(guarantee.epsilon, guarantee.delta):
                left = self.remaining()
                raise BudgetExceededError(
                    f"the ledger's {method} total (epsilon={guarantee.epsilon!r}, "
                    f"delta={guarantee.delta!r}) exceeds the remaining budget "
                    f"(epsilon={left.epsilon!r}, delta={left.delta!r}) of {self!r}"
                )
            self._spent.append(guarantee)
        return guarantee
