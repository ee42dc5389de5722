r"""Design runs of the library's defaults, on the synthetic family only.

Every default that the "Beyond P1" chapter does not derive from a formula was set here, on
draws of :func:`dplasso.data.sparse_logistic_synthetic`, never on the datasets the chapter
evaluates. ``benchmarks/design_defaults.py`` runs them and commits their tables
(``book/paper-results/design-*.csv``), which the chapter shows.

- :func:`joint_design`: the default Sparsifier's last step
  (:mod:`dplasso.estimators.joint_release`): the scale :math:`c` of its budget share's rule
  :math:`f = c/\sqrt{n\varepsilon}`, its size decay :math:`\alpha` and the constants' odds
  :math:`\beta`;
- :func:`l2_design`: the L2 reference's Jacobian share
  (:data:`dplasso.estimators.objective_perturbation.L2_JACOBIAN_SHARE`);
- :func:`selection_design`: the default model's private vertex selection
  (:data:`dplasso.estimators.params.DEFAULT_SELECTION`), its weights from Frank-Wolfe;
- :func:`weights_design`: the scale :math:`c` of the rule that takes objective-perturbation
  weights when :math:`d \le c\,(n\varepsilon)^{1/3}`
  (:data:`dplasso.estimators.weights.OBJECTIVE_PERTURBATION_SCALE`);
- :func:`margin_design`: the constants' log-odds :math:`\beta + \varepsilon_j M/2`, margin
  :math:`M = \gamma\sqrt{n}\,(n\varepsilon_j/\nu)^a` rows, of the joint release
  (:data:`dplasso.estimators.joint_release.CONSTANT_ODDS`,
  :data:`~dplasso.estimators.joint_release.CONSTANT_MARGIN`,
  :data:`~dplasso.estimators.joint_release.MARGIN_GROWTH`) at the joint design's
  :math:`c, \alpha`, on the family and on :data:`NULL_FAMILY`;
- :func:`radius_design`: the L1 ball's radius :math:`\lambda` of the Frank-Wolfe weights
  (:data:`dplasso.estimators.params.DEFAULT_LAM`, P1's 10, kept unless another radius of
  :data:`RADIUS_GRID` is more accurate beyond :data:`ACCURACY_TOLERANCE`).

The joint design runs the weights the default releases (the weights' rule at its scale),
and the weights' design runs the joint release at its constants: each record was made with
the other's choice.

**The radius and the private selection.** A vertex's score :math:`\pm\lambda g_j` and its
sensitivity :math:`2\lambda/n` scale together, so the selection's noise against the scores
does not depend on :math:`\lambda`: the radius enters the private fit only through the
loss's curvature at the iterates (and the joint release then chooses the threshold and the
size). :func:`radius_design` measures what that leaves.

**Configurations** (:data:`BINARY_FAMILY`): sizes ``n``, ``p``, the true support ``k`` (4 or
all ``p``) and its coefficient magnitude, and an intercept that makes one class the majority;
each drawn once with ``random_state = seed`` and split 80/20 (stratified).

**Exact expectations.** The joint release's candidates and their training utilities are
functions of the released Frank-Wolfe weights only, so for each trial's weights the release's
law is computed exactly (a softmax, :func:`dplasso.privacy.selection.
exponential_mechanism_probabilities`), and every (share, :math:`\alpha`, :math:`\beta`) is
scored by its expected test accuracy, its probability of falling below the majority rate and
the quantiles of its released size, without sampling the last draw.
"""
from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm import tqdm

from dplasso.baselines.l2_objective_perturbation import objective_perturbation_trials
from dplasso.data import sparse_logistic_synthetic
from dplasso.estimators import private_frank_wolfe_trials, sparsify_trials
from dplasso.estimators.params import DEFAULT_LAM, DEFAULT_SELECTION, resolve_delta
from dplasso.estimators.private_frank_wolfe import SELECTIONS
from dplasso.estimators.joint_release import (
    JOINT_SHARE_RANGE,
    JOINT_SHARE_SCALE,
    SIZE_DECAY,
    constant_log_odds,
    joint_base_measure,
    joint_share,
    joint_sizes,
    joint_utilities,
)
from dplasso.estimators.objective_perturbation import L2_JACOBIAN_SHARE
from dplasso.estimators.private_count import count_scale
from dplasso.estimators.problem import prepare_design, split_intercept
from dplasso.estimators.recommended import RECOMMENDED_SETTINGS, SparseDPLogisticRegression
from dplasso.estimators.threshold import split_threshold_budget
from dplasso.estimators.weights import (
    DEFAULT_WEIGHTS,
    OBJECTIVE_PERTURBATION_SCALE,
    objective_perturbation_weights,
    prefers_objective_perturbation,
    resolve_weights,
)
from dplasso.experiments.p1 import evaluate_weights, stratified_splits
from dplasso.privacy.selection import exponential_mechanism_probabilities
from dplasso.privacy.shares import remaining_share

__all__ = [
    "BINARY_FAMILY",
    "NULL_FAMILY",
    "WIDE_FAMILY",
    "WIDE_NULL_FAMILY",
    "DESIGN_EPSILONS",
    "JOINT_FRACTIONS",
    "JOINT_SHARE_SCALES",
    "DESIGN_RECORDS",
    "ACCURACY_TOLERANCE",
    "design_split",
    "joint_design",
    "margin_design",
    "MARGIN_ODDS",
    "MARGIN_SCALES",
    "MARGIN_GROWTHS",
    "MARGIN_KEYS",
    "NULL_BELOW_TARGET",
    "margin_summary",
    "choose_margin",
    "l2_design",
    "selection_design",
    "weights_design",
    "radius_design",
    "RADIUS_GRID",
    "radius_summary",
    "choose_radius",
    "WEIGHT_VARIANTS",
    "WEIGHTS_SCALES",
    "weights_summary",
    "choose_weights_scale",
    "design_record",
    "joint_summary",
    "choose_joint",
    "choose_l2_share",
    "choose_selection",
]

BINARY_FAMILY = tuple(
    {"n": n, "p": p, "k": k, "coef_value": value * math.sqrt(4 / k), "intercept": intercept}
    for dense in (False, True) for n in (250, 1000, 4000) for p in (8, 32, 128)
    for k in [p if dense else 4] for value in (2.0, 5.0, 10.0) for intercept in (0.0, 1.0))
r"""Binary configurations: 108 = 2 supports x 3 sizes x 3 widths x 3 signal strengths x 2 class
balances. The support is 4 features (sparse truth) or all ``p`` (dense truth, every magnitude
scaled by :math:`\sqrt{4/p}`), at the same logit standard deviations, about 0.8, 2 and 4 for
the signal strengths 2, 5 and 10. The dense half was added after the held-out datasets showed
the sparse half blind to dense signal (the "Beyond P1" chapter says so)."""

NULL_FAMILY = tuple(
    {"n": n, "p": p, "k": 4, "coef_value": 0.0, "intercept": intercept}
    for n in (250, 1000, 4000) for p in (8, 32, 128, 512) for intercept in (0.0, 1.0))
"""Configurations whose labels carry no signal (24 = 3 sizes x 4 widths x 2 class balances):
the majority rate is the best any model can do, so they show how often the release falls
below it by chance, which the signal family (:data:`BINARY_FAMILY`) cannot. The widest
(512 features) is wider than the family, because the chance lead of the best of the
candidates grows with the number of features Frank-Wolfe chooses among."""

WIDE_FAMILY = tuple(
    {"n": n, "p": p, "k": k, "coef_value": 5.0 * math.sqrt(4 / k), "intercept": 0.0}
    for dense in (False, True) for n in (1000, 5000, 20000) for p in (512, 1024)
    for k in [p if dense else 4])
r"""Wide binary configurations (12 = 2 supports x 3 sizes x 2 widths, balanced, the
family's middle signal strength): where objective perturbation's error bound
(:math:`d/(n\varepsilon)`) and Frank-Wolfe's cross, for the weights' rule and the joint
release's share (issue 47 asked the family widened to :math:`p \ge 1000` and
:math:`n` up to 20,000). The joint, margin, L2 and weights designs run on
:data:`BINARY_FAMILY` and these."""

WIDE_NULL_FAMILY = tuple(
    {"n": n, "p": 1024, "k": 4, "coef_value": 0.0, "intercept": intercept}
    for n in (5000, 20000) for intercept in (0.0, 1.0))
"""Configurations without signal at the wide family's sizes (4 = 2 sizes x 2 class
balances), beside :data:`NULL_FAMILY` in the margin design."""

DESIGN_EPSILONS = (0.5, 1.0, 2.0, 5.0)
"""Budgets of the design runs."""

JOINT_FRACTIONS = tuple(round(0.1 * k, 1) for k in range(round(10 * JOINT_SHARE_RANGE[0]),
                                                        round(10 * JOINT_SHARE_RANGE[1]) + 1))
"""The joint release's shares :math:`f` the design runs: every tenth that
:func:`dplasso.estimators.joint_release.joint_share` can give."""

JOINT_SHARE_SCALES = (4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 12.0)
r"""Candidate scales :math:`c` of the share rule :math:`f = c/\sqrt{n\varepsilon}`."""

WEIGHT_VARIANTS = ("frank-wolfe", "objective-perturbation")
"""The two weights' releases :func:`weights_design` runs."""

WEIGHTS_SCALES = (0.0, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 32.0)
r"""Candidate scales :math:`c` of the rule :math:`d \le c\,(n\varepsilon)^{1/3}`: 0 never
takes objective perturbation, 32 always does on the family (:math:`d \le 129`,
:math:`n\varepsilon \ge 100`)."""


MARGIN_ODDS = (0.0, 2.0, 4.0, 6.0, 8.0, 10.0)
r"""Candidate :math:`\beta` of :func:`margin_design` (the joint design's choice among them)."""

MARGIN_SCALES = (0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0)
r"""Candidate :math:`\gamma` of :func:`margin_design` (0: the margin fixed in rows)."""

MARGIN_GROWTHS = (0.0, 0.25, 0.5)
r"""Candidate :math:`a` of :func:`margin_design` (0: a margin of :math:`\gamma\sqrt{n}` rows
at every budget)."""

NULL_BELOW_TARGET = 0.05
"""The margin design's bar: on every configuration without signal and at every budget of at
least 1, at most this share of fits release a model that scores below the majority rate."""

RADIUS_GRID = (1.0, 2.5, 5.0, 10.0, 20.0, 40.0)
r"""Radii :math:`\lambda` of the L1 ball that :func:`radius_design` runs (P1's 10 among them)."""


def design_split(config, seed=0):
    """``(X_train, y_train, X_test, y_test, n_classes)`` of one configuration's draw."""
    data = sparse_logistic_synthetic(**config, random_state=seed)
    (train, test), = stratified_splits(data.y, 1, random_state=seed)
    return data.X[train], data.y[train], data.X[test], data.y[test], 2


def _majority(y_train, y_test, n_classes):
    return float(np.mean(y_test == np.bincount(y_train, minlength=n_classes).argmax()))


def _config_splits(configs, seed, desc, progress):
    """Each configuration with its split, training rows, classes and majority rate."""
    for config in tqdm(configs, desc=desc, disable=not progress):
        split = design_split(config, seed)
        n_train, n_classes = split[1].size, split[4]
        yield config, split, n_train, n_classes, _majority(split[1], split[3], n_classes)


def _joint_candidates(X_train, y_train, X_test, y_test, n_classes, *, epsilon, fraction,
                      lam, n_trials, threshold_fraction, selection, weights, seed):
    """One cell of the joint release's design: ``n_trials`` releases of the weights at the
    budget the share ``fraction`` leaves them, and every candidate's training utility and
    test accuracy per trial, with what :func:`_law_metrics` reads."""
    train_design = prepare_design(X_train, fit_intercept=True, bounds="error")
    test_design = prepare_design(X_test, fit_intercept=True, bounds="error")
    _, rest = split_threshold_budget(epsilon, "private", threshold_fraction)
    epsilon_fw = rest - fraction * rest
    rng = np.random.default_rng([seed, int(1000 * epsilon), int(1000 * fraction)])
    released = resolve_weights(weights, n_samples=y_train.size,
                               n_columns=train_design.shape[1], epsilon=epsilon,
                               n_classes=n_classes, count="joint")
    if released == "objective-perturbation":
        W_full, _ = objective_perturbation_weights(
            train_design, y_train, epsilon=epsilon_fw,
            delta=resolve_delta(None, y_train.size), n_trials=n_trials, rng=rng)
        W, intercept = split_intercept(W_full, True)
    else:
        fit = private_frank_wolfe_trials(
            X_train, y_train, lam=lam, n_iter="auto", epsilon=epsilon_fw,
            n_trials=n_trials, n_classes=n_classes, selection=selection, random_state=rng)
        W, intercept = fit.W, fit.intercept
    train_u, grids = joint_utilities(train_design, y_train, W, intercept, n_classes=n_classes)
    test_u, _ = joint_utilities(test_design, y_test, W, intercept, n_classes=n_classes)
    sizes = joint_sizes(W[..., 0].size)
    n_sizes = grids.shape[0]
    block = (train_u.shape[0] - n_classes) // n_sizes
    size_of = np.concatenate([np.zeros(n_classes, dtype=int),
                              np.repeat(np.arange(1, n_sizes + 1), block)])
    return {"released": released, "train_u": train_u, "accuracy": test_u / y_test.size,
            "n_sizes": n_sizes, "block": block, "size_of": size_of,
            "nnz_of": np.concatenate([[0], sizes])[size_of],
            "epsilon_joint": remaining_share(epsilon, epsilon_fw)}


def _law_metrics(cell, majority, n_classes, *, size_decay, constant_odds):
    r"""Expected test accuracy, share below the majority rate (of them, the share where the
    release is a model, not a constant), share of constants, size quantiles and nonzeros of
    the joint release's exact law at :math:`(\alpha, \beta)` (``constant_odds`` the
    constants' log-odds), mean over the cell's trials."""
    train_u, accuracy, size_of = cell["train_u"], cell["accuracy"], cell["size_of"]
    n_trials = train_u.shape[1]
    log_pi = joint_base_measure(cell["n_sizes"], cell["block"], n_classes,
                                size_decay=size_decay, constant_odds=constant_odds)
    scale = count_scale(cell["epsilon_joint"])
    law = exponential_mechanism_probabilities(-(train_u + scale * log_pi[:, np.newaxis]),
                                              scale)
    size_law = np.stack([np.bincount(size_of, weights=law[:, k],
                                     minlength=cell["n_sizes"] + 1)
                         for k in range(n_trials)]).mean(axis=0)
    cumulative = np.cumsum(size_law)
    q25, q50, q75 = (int(np.searchsorted(cumulative, q - 1e-12)) for q in (0.25, 0.5, 0.75))
    below = law * (accuracy < majority - 1e-12)
    return {"majority": majority,
            "accuracy": float(np.mean(np.sum(law * accuracy, axis=0))),
            "below": float(np.mean(below.sum(axis=0))),
            "model_below": float(np.mean(below[n_classes:].sum(axis=0))),
            "constant": float(np.mean(law[:n_classes].sum(axis=0))),
            "size_q25": q25, "size_q50": q50, "size_q75": q75,
            "nnz": float(np.mean(np.sum(law * cell["nnz_of"][:, np.newaxis], axis=0)))}


def joint_design(configs=BINARY_FAMILY, *, epsilons=DESIGN_EPSILONS,
                 fractions=JOINT_FRACTIONS, size_decays=(0.0, 1.0, 2.0, 3.0),
                 constant_odds=(0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.0), lam=10.0,
                 n_trials=16, threshold_fraction=0.1, selection=DEFAULT_SELECTION,
                 weights=DEFAULT_WEIGHTS, seed=0, progress=False):
    r"""Expected behaviour of the joint release for every (share, :math:`\alpha`, :math:`\beta`).

    For each configuration, budget and share ``f`` (of the budget left after the
    threshold's share, as ``count_fraction``), ``n_trials`` releases of the weights are run
    at the budget the default leaves them: the weights' release ``weights`` gives (with
    ``"auto"``, the default's rule: objective perturbation where it prefers it, else private
    Frank-Wolfe from zero with the vertex selection ``selection``); then, per trial, the
    exact law of the release for each :math:`(\alpha, \beta)`, the constants' log-odds
    :math:`\beta` fixed in rows (:math:`\gamma = 0`; :func:`margin_design` sets both).

    Returns
    -------
    pandas.DataFrame
        One row per (configuration, epsilon, fraction, size_decay, constant_odds):
        the configuration's keys, ``n_train`` (its training rows, the ``n`` of the share
        rule), ``weights`` (the release the weights came from), ``majority``, ``accuracy``
        (expected test accuracy, mean over trials), ``below`` (probability that a fit's test
        accuracy is below the majority rate, mean over trials), ``constant`` (probability of
        a constant), ``model_below`` (probability that the release is a model, not a
        constant, and scores below the majority rate; the committed ``design-joint.csv``
        predates this column),
        ``size_q25, size_q50, size_q75`` (quantiles of the released size over trials and
        draws, as indices of the candidate list ``0, 1, 2, 4, ..., m``), ``nnz`` (expected
        nonzeros).
    """
    rows = []
    for config, split, n_train, n_classes, majority in _config_splits(
            configs, seed, "joint design", progress):
        for epsilon in epsilons:
            for fraction in fractions:
                cell = _joint_candidates(
                    *split, epsilon=epsilon, fraction=fraction, lam=lam, n_trials=n_trials,
                    threshold_fraction=threshold_fraction, selection=selection,
                    weights=weights, seed=seed)
                for alpha in size_decays:
                    for beta in constant_odds:
                        rows.append({
                            **config, "n_train": n_train, "n_classes": n_classes,
                            "epsilon": epsilon, "weights": cell["released"],
                            "fraction": fraction, "size_decay": alpha,
                            "constant_odds": beta,
                            **_law_metrics(cell, majority, n_classes, size_decay=alpha,
                                           constant_odds=beta)})
    return pd.DataFrame(rows)


def margin_design(configs=BINARY_FAMILY + NULL_FAMILY, *, epsilons=DESIGN_EPSILONS,
                  odds=MARGIN_ODDS, margins=MARGIN_SCALES, growths=MARGIN_GROWTHS,
                  share_scale=JOINT_SHARE_SCALE,
                  size_decay=SIZE_DECAY, lam=10.0, n_trials=16, threshold_fraction=0.1,
                  selection=DEFAULT_SELECTION, weights=DEFAULT_WEIGHTS, seed=0,
                  progress=False):
    r"""Expected behaviour of the joint release for every constants' log-odds
    :math:`(\beta, \gamma, a)`
    (:func:`dplasso.estimators.joint_release.constant_log_odds`), at the share its rule
    gives (scale ``share_scale``) and the size decay ``size_decay``; weights as in
    :func:`joint_design` (each cell's draws are the joint design's at that share).

    Returns
    -------
    pandas.DataFrame
        One row per (configuration, epsilon, constant_odds :math:`\beta`, constant_margin
        :math:`\gamma`, margin_growth :math:`a`): the configuration's keys, ``signal`` (False for
        :data:`NULL_FAMILY`'s), ``n_train``, ``weights``, ``fraction``, and the columns of
        :func:`joint_design` from ``majority`` on.
    """
    rows = []
    for config, split, n_train, n_classes, majority in _config_splits(
            configs, seed, "margin design", progress):
        for epsilon in epsilons:
            fraction = joint_share(n_train, epsilon, scale=share_scale)
            cell = _joint_candidates(
                *split, epsilon=epsilon, fraction=fraction, lam=lam, n_trials=n_trials,
                threshold_fraction=threshold_fraction, selection=selection, weights=weights,
                seed=seed)
            for beta, gamma, growth in itertools.product(odds, margins, growths):
                log_odds = constant_log_odds(n_train, cell["epsilon_joint"], odds=beta,
                                             margin=gamma, growth=growth)
                rows.append({
                    **config, "signal": config["coef_value"] > 0, "n_train": n_train,
                    "n_classes": n_classes, "epsilon": epsilon,
                    "weights": cell["released"], "fraction": fraction,
                    "constant_odds": beta, "constant_margin": gamma, "margin_growth": growth,
                    **_law_metrics(cell, majority, n_classes, size_decay=size_decay,
                                   constant_odds=log_odds)})
    return pd.DataFrame(rows)


def l2_design(configs=BINARY_FAMILY, *, epsilons=DESIGN_EPSILONS,
              shares=(0.01, 0.05, 0.2, 0.5), n_trials=8, seed=0, progress=False):
    """Test accuracy of the L2 reference for each Jacobian share (with the private threshold).

    Returns
    -------
    pandas.DataFrame
        One row per (configuration, epsilon, share): the configuration's keys, ``majority``,
        ``accuracy`` (mean over trials), ``below`` (share of trials below the majority rate).
    """
    rows = []
    for config, split, _, _, majority in _config_splits(configs, seed, "L2 design", progress):
        X_train, y_train, X_test, y_test, _ = split
        for epsilon in epsilons:
            for share in shares:
                fit = objective_perturbation_trials(
                    X_train, y_train, epsilon=epsilon, n_trials=n_trials,
                    jacobian_share=share, threshold="private",
                    random_state=np.random.default_rng([seed, int(1000 * epsilon),
                                                        int(1000 * share)]))
                accuracy = evaluate_weights(fit.W, fit.intercept, X_test, y_test)["accuracy"]
                rows.append({**config, "epsilon": epsilon, "share": share,
                             "majority": majority, "accuracy": float(accuracy.mean()),
                             "below": float(np.mean(accuracy < majority - 1e-12))})
    return pd.DataFrame(rows)


def _default_variants(name, variants, configs, epsilons, n_trials, seed, progress,
                      fixed=()):
    """Test accuracy of the default model (``SparseDPLogisticRegression()``, batched) for
    each value of its setting ``name``, its others at their defaults
    (:data:`~dplasso.estimators.recommended.RECOMMENDED_SETTINGS`) but ``fixed``."""
    params = {**RECOMMENDED_SETTINGS, **SparseDPLogisticRegression().get_params(),
              **dict(fixed)}
    for key in ("epsilon", "delta", "accountant", "random_state", "classes", name):
        params.pop(key)
    rows = []
    for config, split, _, n_classes, majority in _config_splits(
            configs, seed, f"{name} design", progress):
        X_train, y_train, X_test, y_test, _ = split
        for epsilon in epsilons:
            for index, variant in enumerate(variants):
                fit = sparsify_trials(
                    X_train, y_train, epsilon=epsilon, n_trials=n_trials, n_classes=n_classes,
                    **params, **{name: variant},
                    random_state=np.random.default_rng([seed, int(1000 * epsilon), index]))
                metrics = evaluate_weights(fit.W, fit.intercept, X_test, y_test)
                accuracy = metrics["accuracy"]
                rows.append({**config, "n_train": y_train.size,
                             "n_columns": X_train.shape[1] + 1, "epsilon": epsilon,
                             name: variant, "majority": majority,
                             "accuracy": float(accuracy.mean()),
                             "below": float(np.mean(accuracy < majority - 1e-12)),
                             "nnz": float(np.mean(metrics["nnz"]))})
    return pd.DataFrame(rows)


def selection_design(configs=BINARY_FAMILY, *, epsilons=DESIGN_EPSILONS,
                     selections=SELECTIONS, n_trials=16, seed=0, progress=False):
    """Test accuracy of the default model (``SparseDPLogisticRegression()``, batched) for
    each private vertex selection, its weights from Frank-Wolfe and its other settings at
    their defaults.

    Returns
    -------
    pandas.DataFrame
        One row per (configuration, epsilon, selection): the configuration's keys,
        ``n_train``, ``n_columns`` (``d``, the constant included), ``majority``,
        ``accuracy`` (mean over trials), ``below`` (share of trials below the majority
        rate), ``nnz`` (mean nonzeros).
    """
    return _default_variants("selection", selections, configs, epsilons, n_trials, seed,
                             progress, fixed={"weights": "frank-wolfe"})


def weights_design(configs=BINARY_FAMILY, *, epsilons=DESIGN_EPSILONS,
                   weights=WEIGHT_VARIANTS, n_trials=16, seed=0, progress=False):
    """Test accuracy of the default model (``SparseDPLogisticRegression()``, batched) with
    each weights' release (:data:`WEIGHT_VARIANTS`), its other settings at their defaults;
    columns as :func:`selection_design`'s, ``weights`` for ``selection``."""
    return _default_variants("weights", weights, configs, epsilons, n_trials, seed,
                             progress)


def radius_design(configs=BINARY_FAMILY, *, epsilons=DESIGN_EPSILONS, radii=RADIUS_GRID,
                  n_trials=16, seed=0, progress=False):
    """Test accuracy of the default model (``SparseDPLogisticRegression()``, batched) for
    each radius of :data:`RADIUS_GRID`, its weights from Frank-Wolfe (the only weights the
    radius enters) and its other settings at their defaults; columns as
    :func:`selection_design`'s, ``lam`` for ``selection``."""
    return _default_variants("lam", radii, configs, epsilons, n_trials, seed, progress,
                             fixed={"weights": "frank-wolfe"})


READS_RECORDS = ("design-*.csv",)
"""The committed record files this module reads
(:data:`dplasso.experiments.closure.RECORDS_NAME`)."""
DESIGN_RECORDS = Path(__file__).resolve().parents[3] / "book" / "paper-results"
"""Where ``benchmarks/design_defaults.py`` commits the design tables (``design-<name>.csv``)."""

ACCURACY_TOLERANCE = 0.01
"""A design candidate counts as accurate when its mean test accuracy over the family is
within a point of the best candidate's, at every budget of at least 1."""

REFERENCE_TOLERANCE = 0.005
"""Issue 47's yardstick: a design cell is behind the L2 reference when its mean test
accuracy is more than half a point below the reference's on the same configuration and
budget (:func:`reference_accuracy`)."""

BEHIND_TOLERANCE = 0.01
"""Design candidates whose shares of cells behind the L2 reference are within this of the
fewest count as equal on it (3.6 of the 360 signal cells at budgets of at least 1), so that
the rules below do not trade places on a few cells of a design's noise."""

CONFIG_KEYS = tuple(BINARY_FAMILY[0])
"""The keys that name a configuration of the family in every design record."""


def reference_accuracy(l2_record, *, share=L2_JACOBIAN_SHARE):
    """The L2 reference's mean test accuracy per configuration and budget: the rows of the
    L2 design's record (:func:`l2_design`) at the library's Jacobian share ``share``,
    indexed by :data:`CONFIG_KEYS` and ``epsilon``."""
    rows = l2_record[np.isclose(l2_record["share"], share)]
    if rows.empty:
        raise ValueError(f"the L2 design record has no rows at the Jacobian share {share:g}")
    return rows.set_index([*CONFIG_KEYS, "epsilon"])["accuracy"]


def _fewest_behind(summary):
    """The rows of a design summary within :data:`BEHIND_TOLERANCE` of its fewest cells
    behind the L2 reference."""
    behind = summary["behind_reference"]
    return summary[behind <= behind.min() + BEHIND_TOLERANCE + 1e-12]


def reference_gap(cells, reference):
    """Each design cell's ``accuracy`` minus the L2 reference's (:func:`reference_accuracy`)
    on its configuration and budget; ValueError when the reference lacks one of the cells."""
    index = pd.MultiIndex.from_frame(cells[[*CONFIG_KEYS, "epsilon"]])
    accuracy = reference.reindex(index).to_numpy()
    if np.isnan(accuracy).any():
        raise ValueError(f"the L2 design record lacks {int(np.isnan(accuracy).sum())} of the "
                         "design's (configuration, budget) cells; rerun l2_design on them")
    return pd.Series(cells["accuracy"].to_numpy() - accuracy, index=cells.index)


def behind_reference(cells, reference):
    """Whether each design cell is more than :data:`REFERENCE_TOLERANCE` below the L2
    reference (:func:`reference_gap`)."""
    return reference_gap(cells, reference) < -REFERENCE_TOLERANCE


def design_record(name):
    """The committed design table ``design-<name>.csv`` (``joint``, ``margin``, ``l2``,
    ``selection``, ``weights``, ``radius``)."""
    return pd.read_csv(DESIGN_RECORDS / f"design-{name}.csv")


def joint_summary(record, reference, scales=JOINT_SHARE_SCALES):
    r"""Per (share rule's scale :math:`c`, :math:`\alpha`, :math:`\beta`), over the family at
    budgets of at least 1, each cell at the share the rule gives it
    (:func:`dplasso.estimators.joint_release.joint_share` of its ``n_train`` and budget): mean
    accuracy per budget, the share of (configuration, budget) cells behind the L2 reference
    (``reference``, :func:`reference_accuracy`; :func:`behind_reference`), the share whose
    fits fall below the majority rate at most 5% of the time and the share whose released
    size has an interquartile range of at most two grid steps."""
    keys = ["share_scale", "size_decay", "constant_odds"]
    cells = record[record["epsilon"] >= 1.0]
    fractions = cells["fraction"].unique()
    cell_budgets = list(zip(cells["n_train"], cells["epsilon"]))
    ruled = []
    for scale in scales:
        share_of = {key: joint_share(*key, scale=scale) for key in set(cell_budgets)}
        shares = np.array([share_of[key] for key in cell_budgets])
        missing = [float(s) for s in np.unique(shares)
                   if not np.isclose(fractions, s).any()]
        if missing:
            raise ValueError(f"the record has no rows at the shares {missing} that the rule "
                             f"with c = {scale:g} gives; rerun joint_design with them")
        ruled.append(cells[np.isclose(cells["fraction"], shares)].assign(share_scale=scale))
    ruled = pd.concat(ruled, ignore_index=True).assign(
        below_ok=lambda d: d["below"] <= 0.05,
        iqr_ok=lambda d: (d["size_q75"] - d["size_q25"]) <= 2)
    ruled["behind"] = behind_reference(ruled, reference)
    accuracy = ruled.pivot_table(index=keys, columns="epsilon", values="accuracy")
    accuracy.columns = [f"accuracy, ε={e:g}" for e in accuracy.columns]
    summary = ruled.groupby(keys).agg(behind_reference=("behind", "mean"),
                                      below_ok=("below_ok", "mean"),
                                      iqr_ok=("iqr_ok", "mean"),
                                      mean_accuracy=("accuracy", "mean"),
                                      nnz=("nnz", "mean"))
    return accuracy.join(summary).reset_index()


def choose_joint(record, reference):
    r"""The design rule of the joint release's constants (issue 47's yardstick): among the
    candidates with the fewest cells behind the L2 reference (:func:`joint_summary`, within
    :data:`BEHIND_TOLERANCE`), the one with the largest share of cells that fall below the
    majority at most 5% of the time (the never-worse-than-a-constant target), then the most
    accurate.

    Returns
    -------
    dict
        ``share_scale``, ``size_decay``, ``constant_odds``.
    """
    ranked = _fewest_behind(joint_summary(record, reference)).sort_values(
        ["below_ok", "mean_accuracy"], ascending=False)
    best = ranked.iloc[0]
    return {key: float(best[key]) for key in ("share_scale", "size_decay", "constant_odds")}


MARGIN_KEYS = ("constant_odds", "constant_margin", "margin_growth")
r"""The margin design's parameters :math:`(\beta, \gamma, a)`, as its record names them."""


def margin_summary(record, reference):
    r"""Per constants' log-odds :math:`(\beta, \gamma, a)`, at budgets of at least 1: the
    mean accuracy per budget on the signal family and its share of cells behind the L2
    reference (``reference``, :func:`behind_reference`); on the configurations without signal,
    per budget, the mean share of fits below the majority rate and the largest share of
    fits that release a model scoring below it (worst configuration); the share of every
    (configuration, budget) cell whose fits fall below the majority at most 5% of the time,
    and whether its worst share meets :data:`NULL_BELOW_TARGET` at every budget."""
    keys = list(MARGIN_KEYS)
    cells = record[record["epsilon"] >= 1.0]
    signal, null = cells[cells["signal"]], cells[~cells["signal"]]
    accuracy = signal.pivot_table(index=keys, columns="epsilon", values="accuracy")
    null_below = null.pivot_table(index=keys, columns="epsilon", values="below")
    worst = null.pivot_table(index=keys, columns="epsilon", values="model_below",
                             aggfunc="max")
    null_ok = (worst <= NULL_BELOW_TARGET).all(axis=1)
    accuracy.columns = [f"accuracy, ε={e:g}" for e in accuracy.columns]
    null_below.columns = [f"no signal: below, ε={e:g}" for e in null_below.columns]
    worst.columns = [f"no signal: worst model below, ε={e:g}" for e in worst.columns]
    behind = behind_reference(signal, reference)
    summary = accuracy.join(null_below).join(worst).assign(
        mean_accuracy=signal.groupby(keys)["accuracy"].mean(),
        behind_reference=behind.groupby([signal[k] for k in keys]).mean(),
        below_ok=(cells["below"] <= 0.05).groupby([cells[k] for k in keys]).mean(),
        null_ok=null_ok)
    return summary.reset_index()


def choose_margin(record, reference):
    r"""The design rule of the constants' log-odds: among the :math:`(\beta, \gamma, a)`
    whose fits release a model scoring below the majority rate at most
    :data:`NULL_BELOW_TARGET` of the time on every configuration without signal at every
    budget of at least 1 and have the fewest signal cells behind the L2 reference
    (``reference``, :func:`margin_summary`, within :data:`BEHIND_TOLERANCE`), the most
    accurate on the signal family (mean over budgets of at least 1). The bar is on
    each configuration, not their mean, because a mean over widths and sizes let the
    widest and largest fall below the majority a fifth of the time; and on models, because
    a released constant falls below it only when the test split's majority is the
    training split's minority, which no margin changes.

    Returns
    -------
    dict
        ``constant_odds``, ``constant_margin``, ``margin_growth``.
    """
    summary = margin_summary(record, reference)
    meeting = summary[summary["null_ok"]]
    if meeting.empty:
        raise ValueError(f"no (beta, gamma, a) of the record meets the bar of "
                         f"{NULL_BELOW_TARGET:g} of models below the majority without signal")
    fewest = _fewest_behind(meeting)
    best = fewest.loc[fewest["mean_accuracy"].idxmax()]
    return {key: float(best[key]) for key in MARGIN_KEYS}


def choose_selection(record):
    """The vertex selection of highest mean test accuracy over the family at budgets of at
    least 1."""
    cells = record[record["epsilon"] >= 1.0]
    return str(cells.groupby("selection")["accuracy"].mean().idxmax())


def weights_summary(record, reference, scales=WEIGHTS_SCALES):
    r"""Per scale :math:`c` of the weights' rule, over the family (each cell with the weights
    the rule gives it, :func:`dplasso.estimators.weights.prefers_objective_perturbation` of
    its ``n_train``, ``n_columns`` and budget): mean test accuracy per budget, the mean at
    budgets of at least 1, the share of cells at those budgets behind the L2 reference
    (``reference``, :func:`behind_reference`), the share whose fits fall below the majority
    at most 5% of the time, and the share of cells given objective perturbation."""
    wide = record.pivot_table(index=[*CONFIG_KEYS, "n_train", "n_columns", "epsilon"],
                              columns="weights", values=["accuracy", "below"]).reset_index()
    rows = []
    for scale in scales:
        takes = np.array([prefers_objective_perturbation(n, d, e, scale=scale) for n, d, e in
                          zip(wide["n_train"], wide["n_columns"], wide["epsilon"])])
        pick = {key: np.where(takes, wide[(key, "objective-perturbation")],
                              wide[(key, "frank-wolfe")]) for key in ("accuracy", "below")}
        cells = pd.DataFrame({**{key: wide[key] for key in CONFIG_KEYS},
                              "epsilon": wide["epsilon"], **pick, "takes": takes})
        large = cells[cells["epsilon"] >= 1.0]
        rows.append({"scale": scale,
                     **{f"accuracy, ε={e:g}": a
                        for e, a in cells.groupby("epsilon")["accuracy"].mean().items()},
                     "mean_accuracy": large["accuracy"].mean(),
                     "behind_reference": behind_reference(large, reference).mean(),
                     "below_ok": (large["below"] <= 0.05).mean(),
                     "objective_perturbation": takes.mean()})
    summary = pd.DataFrame(rows)
    accuracy = summary[[f"accuracy, ε={e:g}" for e in sorted(record["epsilon"].unique())
                        if e >= 1.0]]
    summary["accurate"] = (accuracy >= accuracy.max() - ACCURACY_TOLERANCE).all(axis=1)
    return summary


def choose_weights_scale(record, reference, *, keep=OBJECTIVE_PERTURBATION_SCALE):
    """A scale with the fewest cells behind the L2 reference (:func:`weights_summary`, within
    :data:`BEHIND_TOLERANCE`): ``keep``, the scale in use, while it is one of them and
    accurate (within :data:`ACCURACY_TOLERANCE` of the best scale at every budget of at
    least 1), so that near-equal scales do not trade places on a design's noise; else, of
    them, the one of highest mean test accuracy over the family at those budgets (the
    smallest among equals)."""
    fewest = _fewest_behind(weights_summary(record, reference).set_index("scale"))
    if keep in fewest.index and fewest.loc[keep, "accurate"]:
        return float(keep)
    return float(fewest["mean_accuracy"].idxmax())


def choose_l2_share(record):
    """The Jacobian share of highest mean test accuracy over the family and budgets."""
    return float(record.groupby("share")["accuracy"].mean().idxmax())


def radius_summary(record):
    r"""Per radius :math:`\lambda`, over the family: mean test accuracy per budget and over
    budgets of at least 1, the share of cells at budgets of at least 1 whose fits fall below
    the majority at most 5% of the time, and whether it is accurate (within
    :data:`ACCURACY_TOLERANCE` of the best radius at every budget of at least 1)."""
    accuracy = record.pivot_table(index="lam", columns="epsilon", values="accuracy")
    large = record[record["epsilon"] >= 1.0]
    best = accuracy.loc[:, accuracy.columns >= 1.0].max()
    summary = pd.DataFrame({
        "mean_accuracy": large.groupby("lam")["accuracy"].mean(),
        "below_ok": (large["below"] <= 0.05).groupby(large["lam"]).mean(),
        "accurate": (accuracy.loc[:, accuracy.columns >= 1.0]
                     >= best - ACCURACY_TOLERANCE).all(axis=1)})
    accuracy.columns = [f"accuracy, ε={e:g}" for e in accuracy.columns]
    return accuracy.join(summary).reset_index()


def choose_radius(record, *, keep=DEFAULT_LAM):
    """P1's radius ``keep`` when it is accurate (:func:`radius_summary`), else the radius of
    highest mean test accuracy over the family at budgets of at least 1."""
    summary = radius_summary(record).set_index("lam")
    if summary.loc[keep, "accurate"]:
        return float(keep)
    return float(summary["mean_accuracy"].idxmax())
