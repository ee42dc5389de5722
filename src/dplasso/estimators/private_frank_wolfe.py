r"""Private Frank-Wolfe LASSO logistic regression (Talwar, Thakurta & Zhang 2015), batched.

:func:`private_frank_wolfe_trials` runs ``K`` independent private fits of one dataset in one
engine call (one gradient product per step for all trials, independent noise per trial); the
estimators call it with ``K = 1``. :func:`private_frank_wolfe_runs` puts several such calls
on one dataset (other budgets, step counts, starts and generators) into one engine call, each
drawing what it would draw alone. :func:`calibrate_selection` turns a total budget into the
engine's selector and the composition rule that accounts for it.
"""
from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

from dplasso.estimators.composition import compose_parts, pure_part
from dplasso.estimators.problem import classification_loss, prepare_design, split_intercept
from dplasso.estimators.threshold import (
    DEFAULT_THRESHOLD_FRACTION,
    release_threshold,
    split_threshold_budget,
)
from dplasso.estimators.params import (
    MAX_AUTO_N_ITER,
    check_choice,
    check_delta,
    check_epsilon,
    check_n_iter_or_auto,
    resolve_delta,
)
from dplasso.optim.column_selector import ColumnSelector
from dplasso.optim.frank_wolfe import frank_wolfe
from dplasso.optim.l1_ball import random_l1_ball_init
from dplasso.optim.validation import check_lam, check_n_trials
from dplasso.privacy.accounting import PrivacyGuarantee, PrivacyLedger, basic_composition
from dplasso.privacy.calibration import (
    calibrate_exponential_mechanism,
    calibrate_report_noisy_min,
    fw_score_sensitivity,
    talwar_laplace_scale,
)
from dplasso.privacy.rng import as_generator
from dplasso.privacy.selection import ExponentialMechanismSelector, ReportNoisyMinSelector
from dplasso.privacy.ulps import nudge

__all__ = [
    "SELECTIONS",
    "CALIBRATIONS",
    "INITS",
    "PrivateRun",
    "TrialsResult",
    "calibrate_selection",
    "auto_n_iter",
    "talwar_n_iter",
    "resolve_n_iter",
    "private_frank_wolfe_runs",
    "private_frank_wolfe_trials",
]

SELECTIONS = ("laplace", "exponential")
"""Private vertex selections: report-noisy-min with Laplace noise, or the exponential mechanism."""

CALIBRATIONS = ("proven", "talwar")
"""How the selection noise follows the budget: ``"proven"`` by :func:`calibrate_selection`
(replace-one, every estimator's); ``"talwar"``, an experiment option, Talwar et al.'s
closed-form Laplace scale :func:`~dplasso.privacy.calibration.talwar_laplace_scale`, which
the authors' public code uses (their add/remove-one reading). The ledger records what either
spends under replace-one: about twice the budget for ``"talwar"``."""

INITS = ("zero", "random")
"""Starting points: zero (P1) or uniform in the ball (Talwar et al.'s original, "naive" in P1)."""

_SELECTORS = {"laplace": ReportNoisyMinSelector, "exponential": ExponentialMechanismSelector}
_CALIBRATIONS = {"laplace": (calibrate_report_noisy_min, "advanced"),
                 "exponential": (calibrate_exponential_mechanism, "zcdp")}
_AUTO_GRID_POINTS = 64
"""Candidate step counts of :func:`auto_n_iter`, geometrically spaced in ``[1, T_max]``."""


class TrialsResult(NamedTuple):
    """``K`` independent fits of one dataset (trailing axis), and what one fit released.

    Attributes
    ----------
    W : ndarray of shape (p, K) or (p, C, K)
        Coefficients of the ``p`` input features (the intercept excluded).
    intercept : ndarray of shape (K,) or (C, K)
        Coefficient of the constant feature (zeros when ``fit_intercept=False``).
    ledger : PrivacyLedger
        The events of *one* trial. The ``K`` trials are independent repetitions for
        experiments; publishing all of them would cost ``K`` times the guarantee.
    guarantee : PrivacyGuarantee
        The ``(epsilon, delta)`` guarantee of one trial: the basic composition of the
        guarantees in ``accounting``.
    accounting : tuple of (PrivacyLedger, PrivacyGuarantee)
        The ledger split into the parts that were composed separately, each with its own
        guarantee (one part for private Frank-Wolfe; the count and the Frank-Wolfe steps
        for the Sparsifier). A budget accountant spends each part.
    n_iter : int
        Frank-Wolfe steps ``T`` of every trial.
    n_nonzero_target : ndarray of int of shape (K,) or None
        The Sparsifier's noisy support size :math:`\\tilde c` of each trial (None for plain
        private Frank-Wolfe).
    weights_nnz : ndarray of int of shape (K,) or None
        The Sparsifier's nonzero weights of each trial before its cut (post-processing of
        the private weights; None for plain private Frank-Wolfe).
    """

    W: np.ndarray
    intercept: np.ndarray
    ledger: PrivacyLedger
    guarantee: PrivacyGuarantee
    accounting: tuple
    n_iter: int
    n_nonzero_target: np.ndarray | None
    weights_nnz: np.ndarray | None = None


def calibrate_selection(selection, epsilon, delta, n_iter, sensitivity):
    r"""The selector of ``n_iter`` private steps totalling ``(epsilon, delta)``, and its rule.

    Parameters
    ----------
    selection : {"laplace", "exponential"}
        Report-noisy-min with Laplace noise, or the exponential mechanism.
    epsilon : float
        Total budget of the ``n_iter`` selections, ``> 0``.
    delta : float
        Total ``delta`` in ``[0, 1)``.
    n_iter : int
        Number of selections ``T``.
    sensitivity : float
        Replace-one sensitivity :math:`\Delta` of every vertex score
        (:func:`dplasso.privacy.calibration.fw_score_sensitivity`).

    Returns
    -------
    selector : ReportNoisyMinSelector or ExponentialMechanismSelector
    method : {"advanced", "zcdp", "basic"}
        The composition rule whose total of ``selector.event(sensitivity, n_iter)`` is at
        most ``(epsilon, delta)``, whichever of two gives the smaller noise scale: basic
        composition (pure :math:`\varepsilon`-DP, per step :math:`\varepsilon/T`, its
        guarantee's ``delta`` 0), or with ``delta > 0`` ``"advanced"`` (slack ``delta``) for
        Laplace and ``"zcdp"`` for the exponential mechanism. Basic wins a tie.

    Notes
    -----
    Each step is :math:`\varepsilon_0 = 2\Delta/b`-DP (both mechanisms; the exponential
    mechanism also :math:`\varepsilon_0^2/8`-zCDP), see :mod:`dplasso.privacy.selection`.
    The basic scale is :math:`b = 2\Delta T/\varepsilon`, raised by ulps until the ledger's
    own basic-composition arithmetic gives at most ``epsilon``; the other comes from
    :mod:`dplasso.privacy.calibration`. Basic composition wins at few steps or a large budget
    per step (for Laplace roughly :math:`T < 2\ln(1/\delta)`).
    """
    selection = check_choice(selection, "selection", SELECTIONS)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)

    def composed(scale):
        return basic_composition([_SELECTORS[selection](scale).event(sensitivity, n_iter)]).epsilon

    scale = nudge(2.0 * sensitivity * n_iter / epsilon, lambda b: composed(b) <= epsilon, up=True,
                  what=f"scale/privacy-map mismatch: the {selection} scale",
                  why=lambda b: (f"still composes (basic, T={n_iter}) to epsilon={composed(b)!r} "
                                 f"> the target epsilon={epsilon!r}"))
    if delta > 0:
        calibrate, method = _CALIBRATIONS[selection]
        approximate = calibrate(epsilon, delta, n_iter, sensitivity)
        if approximate < scale:
            return _SELECTORS[selection](approximate), method
    return _SELECTORS[selection](scale), "basic"


def auto_n_iter(lam, n_samples, epsilon, delta, n_coordinates, selection="laplace"):
    r"""Number of private Frank-Wolfe steps minimising Talwar et al.'s error bound.

    .. math::
        T = \arg\min_{1 \le T \le T_{\max}} \; \frac{2\Gamma}{T + 2}
            + 2\, b(T) \ln(2m), \qquad \Gamma = \lambda^2,

    over about 64 geometrically spaced candidates, where :math:`b(T)` is the per-step noise
    scale :func:`calibrate_selection` gives for ``T`` steps and the whole budget, and
    :math:`m` the number of coordinates (``2m`` vertices). The first term bounds the
    optimisation error of Frank-Wolfe with step :math:`2/(t+2)` (curvature constant
    :math:`\Gamma`); the second the expected score excess of a noisy selection among
    :math:`2m` vertices (twice the expected largest of :math:`2m` noise magnitudes, up to
    the harmonic-number constant); a per-step excess :math:`e` adds at most :math:`e` to the
    final error (Talwar, Thakurta & Zhang 2015, proof of Thm 3.1, which balances the same two
    terms to get :math:`T \propto (\lambda n\varepsilon)^{2/3}` up to the logarithms kept
    here). Curvature: :math:`\Gamma = C_f \le \sup_d d^\top \nabla^2 L\, d` over differences
    :math:`d` of ball points (:math:`\|d\|_1 \le 2\lambda`). For the logistic loss
    :math:`d^\top \nabla^2 L\, d = \frac1n\sum_i \sigma'(z_i)(x_i^\top d)^2 \le
    \frac14\|d\|_1^2 \le \lambda^2` on :math:`\|x_i\|_\infty \le 1`; for the multinomial loss
    it is :math:`\frac1n\sum_i \mathrm{Var}_{p_i}(u_i)` with :math:`u_{ic} = x_i^\top d_c`, and
    :math:`\mathrm{Var} \le (\max_c u_c - \min_c u_c)^2/4 \le (\sum_c |u_c|)^2/4 \le
    \lambda^2` too. :math:`T_{\max}` is :data:`dplasso.estimators.params.MAX_AUTO_N_ITER`.

    Everything here is public (``n`` and ``p`` are fixed under replace-one; the data are
    not looked at), so the choice costs no privacy.

    Parameters
    ----------
    lam : float
        L1-ball radius ``> 0``.
    n_samples : int
        Number of rows ``n``.
    epsilon : float
        Budget of the Frank-Wolfe steps, ``> 0``.
    delta : float
        Their ``delta`` in ``[0, 1)``.
    n_coordinates : int
        Number ``m`` of weight entries (``p`` or ``p*C``, the intercept included).
    selection : {"laplace", "exponential"}, default="laplace"

    Returns
    -------
    int
    """
    return _auto_n_iter(check_lam(lam), n_samples, epsilon, delta, n_coordinates, selection)


@functools.lru_cache(maxsize=1024)
def _auto_n_iter(lam, n_samples, epsilon, delta, n_coordinates, selection):
    """:func:`auto_n_iter` on a checked ``lam``; cached (64 calibrations, tens of ms, and
    the experiments ask again for every split and method of one budget)."""
    sensitivity = 2.0 * lam / n_samples
    log_vertices = math.log(2.0 * n_coordinates)
    candidates = np.unique(np.rint(np.geomspace(1, MAX_AUTO_N_ITER, _AUTO_GRID_POINTS)))

    def bound(steps):
        selector, _ = calibrate_selection(selection, epsilon, delta, steps, sensitivity)
        return 2.0 * lam**2 / (steps + 2.0) + 2.0 * selector.scale * log_vertices

    return int(min(candidates.astype(int), key=bound))


def talwar_n_iter(lam, n_samples, epsilon):
    r"""Talwar et al.'s step count :math:`T = \lceil(\lambda n\varepsilon)^{2/3}\rceil`.

    The order of ``T`` in their utility theorem (the logarithmic factors dropped), from public
    quantities only. :func:`auto_n_iter` keeps the logarithms and the constants of the bound,
    which gives far fewer steps on small datasets.
    """
    lam = check_lam(lam)
    epsilon = check_epsilon(epsilon)
    return max(1, math.ceil((lam * n_samples * epsilon) ** (2.0 / 3.0)))


def resolve_n_iter(n_iter, lam, n_samples, epsilon, delta, n_coordinates, selection):
    """``n_iter`` checked, or :func:`auto_n_iter` when it is ``"auto"``."""
    if check_n_iter_or_auto(n_iter) == "auto":
        return auto_n_iter(lam, n_samples, epsilon, delta, n_coordinates, selection)
    return int(n_iter)


def check_calibration(calibration, selection, deltas):
    """``calibration`` checked against the selection and the ``delta`` of each run it
    calibrates (Talwar et al.'s scale is a Laplace scale with ``delta > 0``)."""
    calibration = check_choice(calibration, "calibration", CALIBRATIONS)
    if calibration == "talwar" and (selection != "laplace" or not all(deltas)):
        raise ValueError(f"calibration='talwar' is a Laplace scale with delta > 0, got "
                         f"selection={selection!r}, delta={min(deltas, default=None)!r}")
    return calibration


def _run_batch(design, y, runs, *, n_classes, lam, selection, calibration="proven"):
    """``[(W_full, ledger, guarantee)]`` of ``runs`` = ``(epsilon, delta, n_iter, init,
    n_trials, rng)`` checked and resolved, in one engine call; each run's generator draws its
    start, then its selections, as in a call of its own."""
    loss, loss_name = classification_loss(n_classes)
    sensitivity = fw_score_sensitivity(loss_name, lam, design.shape[0])
    selectors, starts, groups, steps = [], [], [], []
    column = 0
    for epsilon, delta, n_iter, init, n_trials, rng in runs:
        if calibration == "talwar":
            selector, method = ReportNoisyMinSelector(talwar_laplace_scale(
                epsilon, delta, n_iter, lam, design.shape[0])), "advanced"
        else:
            selector, method = calibrate_selection(selection, epsilon, delta, n_iter,
                                                   sensitivity)
        selectors.append((selector, method))
        shape = loss.weight_shape(design.shape[1], n_trials)
        starts.append(random_l1_ball_init(shape, lam, rng) if init == "random"
                      else np.zeros(shape))
        groups.append((np.arange(column, column + n_trials), selector, rng, n_iter))
        steps += [n_iter] * n_trials
        column += n_trials
    if len(runs) == 1:
        _, _, n_iter, init, n_trials, rng = runs[0]
        W = frank_wolfe(loss, design, y, lam, n_iter, selectors[0][0],
                        W0=starts[0] if init == "random" else None, n_trials=n_trials,
                        rng=rng, check_input=False).W
    else:
        W0 = np.concatenate(starts, axis=-1)
        W = frank_wolfe(loss, design, y, lam, steps, ColumnSelector(groups),
                        W0=W0 if W0.any() else None, n_trials=column,
                        check_input=False).W
    out = []
    for (epsilon, delta, n_iter, _, _, _), (selector, method), (cols, _, _, _) in zip(
            runs, selectors, groups):
        ledger = PrivacyLedger()
        ledger.record(selector.event(
            sensitivity, n_iter,
            note=f"private Frank-Wolfe vertex selection ({loss_name}, lam={lam!r}, n="
                 f"{design.shape[0]}, {calibration} calibration), {method} composition over "
                 f"T={n_iter} steps"))
        guarantee = ledger.total(method, None if method == "basic" else delta)
        out.append((W[..., cols], ledger, guarantee))
    return out


class PrivateRun(NamedTuple):
    """One run of :func:`private_frank_wolfe_runs`: what one call of
    :func:`private_frank_wolfe_trials` on the same data would take."""

    epsilon: float
    n_iter: object = "auto"
    n_trials: int = 1
    init: str = "zero"
    random_state: object = None
    delta: float | None = None
    threshold: str = "none"
    threshold_fraction: float = DEFAULT_THRESHOLD_FRACTION


class _PlainRun(NamedTuple):
    """A :class:`PrivateRun` checked and resolved on a prepared design."""

    engine: tuple  # (epsilon, delta, n_iter, init, n_trials, rng) of _run_batch
    threshold: str
    epsilon_threshold: float


def _resolve_plain_run(run, *, lam, n_samples, n_coordinates, selection):
    """:class:`PrivateRun` ``run`` checked, its budget split and ``T`` resolved (no draw)."""
    run = PrivateRun(*run)
    epsilon_threshold, epsilon_fw = split_threshold_budget(run.epsilon, run.threshold,
                                                           run.threshold_fraction)
    n_trials = check_n_trials(run.n_trials)
    init = check_choice(run.init, "init", INITS)
    delta = resolve_delta(run.delta, n_samples)
    n_iter = resolve_n_iter(run.n_iter, lam, n_samples, epsilon_fw, delta, n_coordinates,
                            selection)
    engine = (epsilon_fw, delta, n_iter, init, n_trials, as_generator(run.random_state))
    return _PlainRun(engine, run.threshold, epsilon_threshold)


def _finish_plain_run(plan, design, y, W_full, ledger, guarantee, *, n_classes, fit_intercept):
    """The :class:`TrialsResult` of a resolved run from its engine output: the weights split
    from the intercept, then the threshold's release when the run has one."""
    _, _, n_iter, _, _, rng = plan.engine
    parts = [(ledger, guarantee)]
    W, intercept = split_intercept(W_full, fit_intercept)
    if plan.threshold == "private":
        intercept, event = release_threshold(design, y, W, intercept, n_classes=n_classes,
                                             epsilon=plan.epsilon_threshold, rng=rng)
        parts.append(pure_part(event))
        ledger, guarantee = compose_parts(parts)
    return TrialsResult(W, intercept, ledger, guarantee, tuple(parts), n_iter, None)


def private_frank_wolfe_runs(X, y, runs, *, lam, n_classes=2, selection="laplace",
                             fit_intercept=True, bounds="error"):
    r"""Several :func:`private_frank_wolfe_trials` calls on one dataset, in one engine call.

    Each run (:class:`PrivateRun`) has its own budget, step count, start, number of trials,
    generator and threshold; all run as the columns of one batched weight matrix, so every
    step costs one product :math:`X^\top R` for all of them (the engine's per-trial
    ``n_iter``: a run stops at its own ``T``). Each run's generator draws its start, then its
    ``T`` selections, on scores of its own columns only, then its threshold, exactly as its
    own call would: the output equals that call's but for the rounding of the batched
    product (which moves a noisy argmin only on a tie at the last bit).

    Parameters
    ----------
    X, y, lam, n_classes, selection, fit_intercept, bounds
        As in :func:`private_frank_wolfe_trials`, shared by every run.
    runs : sequence of PrivateRun
        ``epsilon`` (total budget of one trial), ``n_iter`` (int or ``"auto"``),
        ``n_trials``, ``init``, ``random_state`` (give each run its own generator: one
        generator shared by several runs would be drawn from in another order than in
        separate calls), ``delta`` (None: ``1/n**2``), ``threshold`` and
        ``threshold_fraction``.

    Returns
    -------
    list of TrialsResult
        One per run, in order; as :func:`private_frank_wolfe_trials`.

    Notes
    -----
    Privacy: each run is what its own call would be (same mechanism, calibration and
    ledger); batching changes only where the arithmetic happens.
    """
    lam = check_lam(lam)
    selection = check_choice(selection, "selection", SELECTIONS)
    runs = list(runs)
    if not runs:
        raise ValueError("runs must hold at least one PrivateRun")
    design = prepare_design(X, fit_intercept=fit_intercept, bounds=bounds)
    loss, _ = classification_loss(n_classes)
    plans = [_resolve_plain_run(run, lam=lam, n_samples=design.shape[0],
                                n_coordinates=design.shape[1] * loss.n_classes,
                                selection=selection) for run in runs]
    fits = _run_batch(design, y, [plan.engine for plan in plans], n_classes=n_classes,
                      lam=lam, selection=selection)
    return [_finish_plain_run(plan, design, y, *fit, n_classes=n_classes,
                              fit_intercept=fit_intercept) for plan, fit in zip(plans, fits)]


def private_frank_wolfe_trials(X, y, *, lam, n_iter, epsilon, delta=None, n_trials=1,
                               n_classes=2, selection="laplace", init="zero",
                               fit_intercept=True, bounds="error", threshold="none",
                               threshold_fraction=DEFAULT_THRESHOLD_FRACTION,
                               random_state=None):
    r"""``K`` independent private Frank-Wolfe fits of one dataset, in one engine call.

    Solves :math:`\min_{\|w\|_1 \le \lambda} \frac1n \sum_i \ell(w; x_i, y_i)` (logistic, or
    softmax cross-entropy with a weight matrix for more than two classes) by ``T`` Frank-Wolfe
    steps whose vertex is chosen privately:

    .. math::
        s_t = \text{noisy-}\arg\min_{s \in \{\pm\lambda e_j\}} \langle s, \nabla L(w_t)\rangle,
        \qquad w_{t+1} = (1-\mu_t) w_t + \mu_t s_t, \quad \mu_t = \frac{2}{t+2}.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n, p)
        Features (data domain checked or clipped, see ``bounds``); sparse stays sparse.
    y : array-like of shape (n,)
        Encoded labels: ``{0, 1}`` for ``n_classes=2``, else ``0..n_classes-1``.
    lam : float
        L1-ball radius ``> 0`` (a constraint radius, not a penalty weight).
    n_iter : int or "auto"
        Steps ``T``; ``"auto"`` is :func:`auto_n_iter` (public quantities only).
    epsilon : float
        Total budget of one trial, ``> 0``.
    delta : float or None, default=None
        Total ``delta`` of one trial in ``[0, 1)``; None means ``1/n**2``.
    n_trials : int, default=1
        Number ``K`` of independent trials.
    n_classes : int, default=2
        2: logistic loss, weights ``(p, K)``. More: multinomial loss, weights ``(p, C, K)``.
    selection : {"laplace", "exponential"}, default="laplace"
        See :func:`calibrate_selection`.
    init : {"zero", "random"}, default="zero"
        Zero start (P1) or uniform in the ball (Talwar et al.; dense output).
    fit_intercept : bool, default=True
        Append the constant feature inside the ball (ARCHITECTURE.md intercept rule).
    bounds : {"error", "clip"}, default="error"
        See :func:`dplasso.estimators.problem.apply_bounds`.
    threshold : {"none", "private"}, default="none"
        ``"private"``: spend :math:`f_b\varepsilon` on releasing each trial's offset
        (:func:`dplasso.estimators.threshold.release_threshold`, added to the intercept; with
        ``fit_intercept=False`` it is the model's only intercept) and the rest on the steps. The estimator classes
        default to ``"private"``; this batched building block keeps the plain fit by default.
    threshold_fraction : float, default=0.1
        :math:`f_b` (:data:`dplasso.estimators.threshold.DEFAULT_THRESHOLD_FRACTION`).
    random_state : None, int or numpy.random.Generator, default=None
        None draws OS entropy.

    Returns
    -------
    TrialsResult
        ``n_nonzero_target`` is None; with a threshold, ``accounting`` holds the
        Frank-Wolfe part and the threshold part.

    Notes
    -----
    - Neighbouring relation: replace-one (same ``n``; one row ``(x_i, y_i)`` replaced).
    - Data domain: rows :math:`\|x_i\|_\infty \le 1` (the intercept column of ones
      included), labels ``{0, 1}`` or ``0..C-1``.
    - Sensitivity: every vertex score :math:`\pm\lambda g_j` moves by at most
      :math:`\Delta = 2\lambda/n` (per-example gradient entries in :math:`[-1, 1]`,
      :func:`dplasso.privacy.calibration.fw_score_sensitivity`), for both losses.
    - Guarantee: each trial is :math:`(\varepsilon, \delta)`-DP: ``T`` adaptive
      :math:`2\Delta/b`-DP selections, composed by advanced composition (Laplace), zCDP
      (exponential mechanism) or basic composition (``delta = 0``, or less noise); see
      :func:`calibrate_selection`. The random start is data-independent. With a threshold,
      the steps get :math:`(1-f_b)\varepsilon` and the :math:`f_b\varepsilon`-DP offset
      release composes with them (basic composition).
    - Numerics: idealised floats (the selectors' float samplers).
    - Post-processing: the weights are a function of the selected vertices only.
    - Cost: per step one product :math:`X^\top R` for all ``K`` trials and ``2mK`` noise
      draws (``m = p`` or ``pC`` coordinates, plus the intercept).
    """
    (result,) = private_frank_wolfe_runs(
        X, y, [PrivateRun(epsilon, n_iter, n_trials, init, random_state, delta, threshold,
                          threshold_fraction)],
        lam=lam, n_classes=n_classes, selection=selection, fit_intercept=fit_intercept,
        bounds=bounds)
    return result
