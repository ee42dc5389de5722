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
fit's ledger spent (:meth:`BudgetAccountant.spend`), the check-fit-spend flow; an estimator
holds its whole budget at its check (:meth:`BudgetAccountant.reserve`) and spends against the
hold, so that fits running at once never overspend and a refused fit spends nothing. No copy of
an accountant, in this process or another, can spend its budget a second time.

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

import contextlib
import dataclasses
import math
import mmap
import multiprocessing
import os
import struct
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
    "BudgetHold",
    "BudgetExceededError",
    "DetachedAccountantError",
    "MAX_SPENDS",
    "MAX_HOLDS",
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
"""Allowed values of the ``numerics`` of a :class:`PrivacyEvent`: an exact (integer/rational)
sampler, or a floating-point sampler whose guarantee assumes real arithmetic (Mironov 2012)."""

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
    """Raised when a copy of a :class:`BudgetAccountant` that cannot reach the original's
    spends (a pickled copy, or one in another process) is asked to check or spend."""


MAX_SPENDS = 65536
"""Most spends one :class:`BudgetAccountant` records (its spend log has a fixed size, so that
forked processes can share it); a spend beyond raises :class:`BudgetExceededError`."""

MAX_HOLDS = 1024
"""Most budget holds (:meth:`BudgetAccountant.reserve`) one accountant keeps open at once (one
per fit running); a hold beyond raises :class:`BudgetExceededError`."""

_LOCK_TIMEOUT = 60.0
"""Seconds a spend waits for the log's lock before it raises (a holder killed mid-spend)."""

_HEADER = struct.Struct("<Q")  # number of spends
_RECORD = struct.Struct("<ddB7x")  # epsilon, delta, index in COMPOSITION_METHODS
_HOLD = struct.Struct("<ddB7x")  # epsilon, delta, 1 while held (0: a free slot)


class _SpendLog:
    """The spends and open holds of one accountant: a fixed-size anonymous shared memory
    mapping (:data:`MAX_SPENDS` spends, then :data:`MAX_HOLDS` hold slots) and a process-shared lock, both
    created here, so that the processes forked from this one write to (and read) the same log.
    Where no process-shared lock can be made (no ``fork`` start method, no POSIX semaphores)
    the log is bound to the process that made it instead: :meth:`reachable` is false in any
    other process."""

    def __init__(self):
        try:
            self._lock = multiprocessing.get_context("fork").Lock()
            self.shared = True
        except (ValueError, ImportError, OSError):
            self._lock = threading.Lock()
            self.shared = False
        self._owner = os.getpid()
        self._max_spends, self._max_holds = MAX_SPENDS, MAX_HOLDS
        self._holds_at = _HEADER.size + self._max_spends * _RECORD.size
        self._memory = mmap.mmap(-1, self._holds_at + self._max_holds * _HOLD.size)

    def reachable(self) -> bool:
        return self.shared or os.getpid() == self._owner

    @contextlib.contextmanager
    def _locked(self):
        if not self._lock.acquire(timeout=_LOCK_TIMEOUT):
            raise RuntimeError(f"the accountant's spend log stayed locked for {_LOCK_TIMEOUT:g} "
                               "s (a process holding it was killed mid-spend?)")
        try:
            yield
        finally:
            self._lock.release()

    def _read(self) -> tuple:
        (count,) = _HEADER.unpack_from(self._memory, 0)
        records = (_RECORD.unpack_from(self._memory, _HEADER.size + i * _RECORD.size)
                   for i in range(count))
        return tuple(PrivacyGuarantee(eps, delta, COMPOSITION_METHODS[method])
                     for eps, delta, method in records)

    def _holds(self) -> dict:
        """``{slot: PrivacyGuarantee}`` of the open holds."""
        slots = _HOLD.iter_unpack(self._memory[self._holds_at:])
        return {slot: PrivacyGuarantee(eps, delta, "basic")
                for slot, (eps, delta, held) in enumerate(slots) if held}

    def _write_hold(self, slot, epsilon, delta, held):
        _HOLD.pack_into(self._memory, self._holds_at + slot * _HOLD.size, epsilon, delta,
                        int(held))

    def read(self) -> tuple:
        """``(spends, open holds)``."""
        with self._locked():
            return self._read(), tuple(self._holds().values())

    def append_if(self, guarantee: PrivacyGuarantee, fits, slot=None) -> tuple | None:
        """Append ``guarantee`` if ``fits(spent, held)`` holds for the spends and holds after
        it (one atomic step), spending it against hold ``slot`` when given (the hold shrinks by
        it, to no less than 0); return ``None`` if appended, else the spends before it and the
        holds it would have left."""
        with self._locked():
            spent, holds = self._read(), self._holds()
            if slot is not None:
                own = holds.pop(slot)
                left = (max(own.epsilon - guarantee.epsilon, 0.0),
                        max(own.delta - guarantee.delta, 0.0))
                held_after = (*holds.values(), PrivacyGuarantee(*left, "basic"))
            else:
                held_after = tuple(holds.values())
            if not fits((*spent, guarantee), held_after):
                return spent, tuple(held_after)
            if len(spent) == self._max_spends:
                raise BudgetExceededError(
                    f"the accountant has recorded its maximum of {self._max_spends} spends")
            _RECORD.pack_into(self._memory, _HEADER.size + len(spent) * _RECORD.size,
                              guarantee.epsilon, guarantee.delta,
                              COMPOSITION_METHODS.index(guarantee.method))
            _HEADER.pack_into(self._memory, 0, len(spent) + 1)
            if slot is not None:
                self._write_hold(slot, *left, True)
            return None

    def hold_if(self, epsilon, delta, fits):
        """Open a hold of ``(epsilon, delta)`` if ``fits(spent, held)`` holds with it (one
        atomic step); return its slot, or ``(spent, held)`` as they were if it does not fit."""
        with self._locked():
            spent, holds = self._read(), self._holds()
            request = PrivacyGuarantee(epsilon, delta, "basic")
            if not fits(spent, (*holds.values(), request)):
                return spent, tuple(holds.values())
            free = next((slot for slot in range(self._max_holds) if slot not in holds), None)
            if free is None:
                raise BudgetExceededError(f"the accountant holds budget for its maximum of "
                                          f"{self._max_holds} fits at once")
            self._write_hold(free, epsilon, delta, True)
            return free

    def release(self, slot):
        """Close hold ``slot``: what it still held is free again."""
        with self._locked():
            self._write_hold(slot, 0.0, 0.0, False)


def _detached_accountant(epsilon, delta, spent):
    """Rebuild a pickled accountant as a read-only, detached copy (see ``__reduce__``)."""
    accountant = BudgetAccountant.__new__(BudgetAccountant)
    accountant._epsilon, accountant._delta = epsilon, delta
    accountant._log, accountant._kept = None, tuple(spent)
    return accountant


def _total(spent) -> PrivacyGuarantee:
    return PrivacyGuarantee(math.fsum(g.epsilon for g in spent),
                            math.fsum(g.delta for g in spent), "basic")


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

    The library's estimators *hold* their whole ``(epsilon, delta)`` at the check instead
    (:meth:`reserve`, refused before any work like :meth:`check`), spend each part of their
    ledger against the hold, and give back what they did not spend when they end, all of it
    when they raise. Every check, spend and hold counts the open holds as spent, so fits
    running at once (threads, forked processes) never spend more than the budget together,
    and a fit refused for want of budget has spent nothing: six threads fitting ``epsilon=0.3``
    against a budget of 1 give three fits that spend 0.9 and three refusals that spend 0. A
    process killed during a fit leaves its hold open: that budget stays reserved (counted as
    spent), never spent twice.

    An accountant is one budget, wherever it is used; no copy can spend it twice:

    - ``copy.copy`` and ``copy.deepcopy`` return the accountant itself, so scikit-learn's
      ``clone`` (which deep-copies parameters that are not estimators), ``cross_val_score``
      and ``GridSearchCV`` with ``n_jobs=1`` (or a thread-based joblib backend) spend on the
      very object the user passed; :meth:`spend` and :meth:`reserve` are atomic across
      threads;
    - a process forked after the accountant was made (``multiprocessing`` with the ``fork``
      start method, ``ProcessPoolExecutor``, ``os.fork``) inherits the accountant's spend log
      itself, a shared memory mapping under a process-shared lock: its spends and holds land
      in the original's log and every process sees the same remaining budget (9 fits of
      ``epsilon=0.5`` against a budget of 1 in three forked processes: 2 spend, 7 are
      refused);
    - a pickled accountant (what the ``spawn`` and ``forkserver`` start methods, a pool's
      task arguments and joblib's process backend, e.g. ``GridSearchCV(n_jobs=2)``, send)
      comes back *detached*: it keeps the spends it had as a record and raises
      :class:`DetachedAccountantError` on :meth:`check`, :meth:`reserve` and :meth:`spend`,
      so a fit refuses before any work instead of spending on a copy the original never sees.

    Where the platform offers no process-shared lock (no ``fork``, no POSIX semaphores) the
    accountant is bound to the process that made it, and a forked copy is detached too.
    An accountant records at most :data:`MAX_SPENDS` spends and keeps at most
    :data:`MAX_HOLDS` holds open at once.

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
        self._log, self._kept = _SpendLog(), ()

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return _detached_accountant, (self._epsilon, self._delta, self.spent)

    @property
    def detached(self) -> bool:
        """Whether this copy cannot reach the original's spends (a pickled copy, or a forked
        one where the log is bound to its process); it refuses :meth:`check`,
        :meth:`reserve` and :meth:`spend`."""
        return self._log is None or not self._log.reachable()

    def _refuse_if_detached(self):
        if self._log is None:
            raise DetachedAccountantError(
                f"accountant {self!r} is a pickled copy (made e.g. by process-based "
                "parallelism such as GridSearchCV(n_jobs>1), cross_val_score(n_jobs>1) or a "
                "spawn/forkserver process); spending on it would never reach the original's "
                "ledger. Fit in one process (n_jobs=1 or joblib's threading backend), or pass "
                "accountant=None and spend each fit's privacy_ledger_ on the accountant yourself"
            )
        if not self._log.reachable():
            raise DetachedAccountantError(
                f"accountant {self!r} belongs to process {self._log._owner} and this is "
                f"process {os.getpid()}, a copy (this platform offers no process-shared lock, "
                "so a forked copy cannot spend on the original). Fit in the accountant's "
                "process, or pass accountant=None and spend each fit's privacy_ledger_ on the "
                "accountant yourself"
            )

    @property
    def epsilon(self) -> float:
        """Total ``epsilon`` budget."""
        return self._epsilon

    @property
    def delta(self) -> float:
        """Total ``delta`` budget."""
        return self._delta

    def _state(self) -> tuple:
        """``(spends, open holds)``; a detached copy has its kept spends and no hold."""
        return (self._kept, ()) if self.detached else self._log.read()

    @property
    def spent(self) -> tuple:
        """The guarantees spent so far, one per :meth:`spend` (in every process sharing the
        log)."""
        return self._state()[0]

    @property
    def held(self) -> PrivacyGuarantee:
        """What the open holds (:meth:`reserve`) reserve but have not spent, in total."""
        return _total(self._state()[1])

    def __repr__(self):
        detached = ", detached" if self.detached else ""
        return f"BudgetAccountant(epsilon={self._epsilon!r}, delta={self._delta!r}{detached})"

    def total_spent(self) -> PrivacyGuarantee:
        """Basic composition of everything spent."""
        return _total(self.spent)

    def remaining(self) -> PrivacyGuarantee:
        """Budget left (clipped at 0): neither spent nor held."""
        return self._remaining(*self._state())

    def _remaining(self, spent, held=()) -> PrivacyGuarantee:
        total = _total((*spent, *held))
        return PrivacyGuarantee(max(self._epsilon - total.epsilon, 0.0),
                                max(self._delta - total.delta, 0.0), "basic")

    def _within(self, spent, held) -> bool:
        total = _total((*spent, *held))
        slack = 1.0 + _BUDGET_RTOL
        return (total.epsilon <= self._epsilon * slack
                and total.delta <= self._delta * slack)

    def _request(self, epsilon, delta) -> tuple:
        self._refuse_if_detached()
        return (check_nonnegative("epsilon", epsilon),
                check_delta("delta", delta, allow_zero=True))

    def _exceeded(self, epsilon, delta, state) -> BudgetExceededError:
        left = self._remaining(*state)
        return BudgetExceededError(
            f"requested (epsilon={epsilon!r}, delta={delta!r}) exceeds the remaining "
            f"budget (epsilon={left.epsilon!r}, delta={left.delta!r}) of {self!r}"
        )

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
            If spent and held plus requested exceeds the budget in ``epsilon`` or ``delta``.
        DetachedAccountantError
            If this accountant is a detached copy.
        """
        epsilon, delta = self._request(epsilon, delta)
        spent, held = self._state()
        request = PrivacyGuarantee(epsilon, delta, "basic")
        if not self._within(spent, (*held, request)):
            raise self._exceeded(epsilon, delta, (spent, held))

    def reserve(self, epsilon, delta=0.0) -> BudgetHold:
        """Hold ``(epsilon, delta)`` for one fit, atomically; call it *before* any work.

        Parameters
        ----------
        epsilon : float
            The fit's whole ``epsilon``, ``>= 0``.
        delta : float, default=0.0
            Its whole ``delta`` in ``[0, 1)``.

        Returns
        -------
        BudgetHold
            Spend the fit's ledger with its :meth:`~BudgetHold.spend`, then close it (a
            ``with`` block closes it): what it did not spend is free again.

        Raises
        ------
        BudgetExceededError
            If spent and held plus requested exceeds the budget (nothing is held).
        DetachedAccountantError
            If this accountant is a detached copy.
        """
        epsilon, delta = self._request(epsilon, delta)
        slot = self._log.hold_if(epsilon, delta, self._within)
        if isinstance(slot, tuple):
            raise self._exceeded(epsilon, delta, slot)
        return BudgetHold(self, slot)

    def spend(self, ledger: PrivacyLedger, method="basic", delta=None) -> PrivacyGuarantee:
        """Record the composed total of ``ledger`` (arguments as in :meth:`PrivacyLedger.total`).

        Returns
        -------
        PrivacyGuarantee
            What was spent.

        Raises
        ------
        BudgetExceededError
            If the ledger's total does not fit the budget left after the spends and open
            holds (nothing is recorded).
        DetachedAccountantError
            If this accountant is a detached copy (nothing is recorded).
        """
        return self._spend(ledger, method, delta, None)

    def _spend(self, ledger, method, delta, slot) -> PrivacyGuarantee:
        self._refuse_if_detached()
        if not isinstance(ledger, PrivacyLedger):
            raise TypeError(f"expected PrivacyLedger, got {type(ledger).__name__}")
        guarantee = ledger.total(method, delta)
        refused = self._log.append_if(guarantee, self._within, slot)
        if refused is not None:
            left = self._remaining(*refused)
            raise BudgetExceededError(
                f"the ledger's {method} total (epsilon={guarantee.epsilon!r}, "
                f"delta={guarantee.delta!r}) exceeds the remaining budget "
                f"(epsilon={left.epsilon!r}, delta={left.delta!r}) of {self!r}"
            )
        return guarantee


class BudgetHold:
    """Budget one fit holds on a :class:`BudgetAccountant` (:meth:`BudgetAccountant.reserve`).

    :meth:`spend` records a ledger's total on the accountant, taken from the hold (a total
    beyond what the hold has left must fit the accountant's free budget); :meth:`close`
    (at the end of a ``with`` block, whether it raised or not) frees what the hold has left.
    """

    def __init__(self, accountant, slot):
        self._accountant, self._slot = accountant, slot

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def spend(self, ledger: PrivacyLedger, method="basic", delta=None) -> PrivacyGuarantee:
        """:meth:`BudgetAccountant.spend`, against this hold.

        Raises
        ------
        RuntimeError
            If the hold is closed.
        """
        if self._slot is None:
            raise RuntimeError("this budget hold is closed: reserve a new one")
        return self._accountant._spend(ledger, method, delta, self._slot)

    def close(self) -> None:
        """Free what the hold has not spent (nothing if it is closed already)."""
        if self._slot is not None:
            self._accountant._log.release(self._slot)
            self._slot = None
