"""Privacy mutants: a fixed list of source changes that each break a privacy claim, and a
runner that applies each one to a copy of the source and reports which ones the tests kill.

A mutant *survives* when the tests still pass with it: then nothing in the suite checks the
property it breaks. Every mutant here halves a noise scale, understates a sensitivity, takes
a tail bound with the wrong degrees of freedom, changes a noise's law (its shape or
direction), reads from the data what must be public (a margin, a base measure, a grid),
spends more than a budget share, calls a release with the wrong budget, understates a
privacy map, lets an accountant spend a budget twice, or stops a draw early. Most keep the
ledger claiming the budget asked for, so only a check of the noise itself (a law test, an
audit, a declared sensitivity compared with its lemma) can catch them; a few (the ``T/2``
calibrations, the overspending splits, a screening round at the whole budget, weights at the
whole budget) show in the ledger's total, which the budget tests compare with the budget.
The list covers every mechanism of the public estimators: the selections, counts,
thresholds and screening releases; the joint release (``joint-*``); objective perturbation
with both noises, the L2 reference's and the default Sparsifier's small designs' (``op-*``);
one-coordinate noisy-min screening (``nms-*``); the exact shares; the accountant and the
composition rules. It includes the reviews' mutants: the lazy draw's late draws stopping
before the last row (``lazy-stop-early``), the split screening release at half its sigma
(``split-sigma-half``) or with the lemma's sqrt 2 declared as 1 (``split-l2-1``), the engine
calibrated for ``T/2`` steps (``fw-T-half*``) or ``Delta/2`` (``fw-sensitivity-half``), a
count noised at ``2 eps1`` (``count-2eps1-*``), objective perturbation's Gaussian noise at
half its sigma (``op-gaussian-sigma-half``) or with the tail radius of one degree of freedom
(``op-gaussian-tail-one-dof``), and the joint release's margin computed from the positive
labels (``joint-margin-positives``).

Run (from the repository root, after ``make install``; CPU-heavy, so niced)::

    nice -n 10 .venv/bin/python tests/mutants.py --json book/paper-results/mutants.json

Each mutant runs in a fresh copy of ``src/`` and ``tests/`` (``PYTHONPATH`` puts the copy's
``src`` first), first against the tests expected to kill it, then, if it survives them,
against everything ``make test`` runs (``-m "not slow and not book"``); ``-x`` stops at the
first failure, which is recorded as the killer. ``--jobs 2`` runs two mutants at once. The
record is rewritten after every mutant, so an interrupted run keeps what it finished
(``"complete": false``). ``tests/unit/test_mutants.py`` checks that every mutant still
applies to the current source; the proofs chapter shows the committed record and
``tests/reproduction/test_proofs.py`` requires it to cover this list with no survivor.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAKE_TEST = ["tests", "-m", "not slow and not book"]
"""What ``make test`` runs (the Makefile's marker expression)."""


@dataclasses.dataclass(frozen=True)
class Mutant:
    """One source change: ``edits`` are ``(find, replace)`` pairs in ``path`` (under
    ``src/dplasso``), each ``find`` occurring exactly once; ``tests`` are run first."""

    id: str
    kind: str
    description: str
    path: str
    edits: tuple
    tests: tuple


MUTANTS = (
    # noise scale
    Mutant("laplace-noise-half", "noise scale", "Laplace sampler at half its scale",
           "privacy/laplace.py",
           (("return rng.laplace(0.0, scale, size)",
             "return rng.laplace(0.0, 0.5 * scale, size)"),),
           ("tests/proofs/test_audit_primitives.py", "tests/unit/privacy/test_laplace.py")),
    Mutant("gaussian-noise-half", "noise scale", "Gaussian sampler at half its sigma",
           "privacy/gaussian.py",
           (("return rng.normal(0.0, sigma, size)", "return rng.normal(0.0, 0.5 * sigma, size)"),),
           ("tests/proofs/test_audit_primitives.py", "tests/unit/privacy/test_gaussian.py")),
    Mutant("discrete-laplace-scale-half", "noise scale",
           "double-geometric scale Delta / (2 eps) for Delta / eps", "privacy/discrete_laplace.py",
           (('return _as_fraction("sensitivity", sensitivity) / _as_fraction("epsilon", epsilon)',
             'return _as_fraction("sensitivity", sensitivity) / _as_fraction("epsilon", epsilon)'
             ' / 2'),),
           ("tests/proofs/test_privacy_maps.py", "tests/proofs/test_audit_primitives.py")),
    Mutant("rnm-scale-half", "noise scale", "report-noisy-min draws at half its scale",
           "privacy/selection.py",
           (("return _noisy_argmin(scores, scale, rng, _LAPLACE)",
             "return _noisy_argmin(scores, 0.5 * scale, rng, _LAPLACE)"),),
           ("tests/proofs/test_selection_law.py",)),
    Mutant("em-scale-half", "noise scale", "exponential mechanism at half its temperature",
           "privacy/selection.py",
           (("return _noisy_argmin(scores, scale, rng, _GUMBEL_MIN)",
             "return _noisy_argmin(scores, 0.5 * scale, rng, _GUMBEL_MIN)"),),
           ("tests/proofs/test_selection_law.py",)),
    Mutant("threshold-scale-half", "noise scale",
           "threshold drawn at half the temperature its ledger records",
           "estimators/threshold.py",
           (("chosen = exponential_mechanism_min(-utilities, scale, rng)",
             "chosen = exponential_mechanism_min(-utilities, 0.5 * scale, rng)"),),
           ("tests/proofs/test_audit_threshold.py",)),
    Mutant("accuracy-count-scale-half", "noise scale",
           "accuracy count drawn at half the temperature its ledger records",
           "estimators/private_count.py",
           (("chosen = exponential_mechanism_min(-utilities, count_scale(epsilon), rng)",
             "chosen = exponential_mechanism_min(-utilities, 0.5 * count_scale(epsilon), rng)"),),
           ("tests/proofs/test_audit_private_count.py",)),
    Mutant("split-sigma-half", "noise scale",
           "split screening release at half its sigma", "screening/private.py",
           (("    sigma = gaussian_sigma_analytic(sensitivity.l2, epsilon, delta)\n"
             "    sigma_gradient, sigma_gap",
             "    sigma = 0.5 * gaussian_sigma_analytic(sensitivity.l2, epsilon, delta)\n"
             "    sigma_gradient, sigma_gap"),),
           ("tests/proofs/test_split_screening.py",)),
    # sensitivity
    Mutant("fw-sensitivity-half", "sensitivity", "vertex-score sensitivity Delta/2",
           "privacy/calibration.py",
           (("return 2.0 * lam * gradient_bound / n", "return lam * gradient_bound / n"),),
           ("tests/proofs/test_sensitivity_search.py", "tests/proofs/test_audit_selection.py")),
    Mutant("split-l2-1", "sensitivity", "the split lemma's L2 sensitivity sqrt 2 declared as 1",
           "screening/private.py",
           (("radius_scale=base.radius_scale, l2=math.sqrt(2.0),",
             "radius_scale=base.radius_scale, l2=1.0,"),),
           ("tests/proofs/test_sensitivity_search.py", "tests/proofs/test_split_screening.py")),
    Mutant("screening-l2-sqrt-p", "sensitivity",
           "screening release's L2 sensitivity sqrt(p) Delta_u for sqrt(p + 1) Delta_u",
           "screening/private.py",
           (("coordinate=coordinate, l2=math.sqrt(p + 1) * coordinate,",
             "coordinate=coordinate, l2=math.sqrt(p) * coordinate,"),),
           ("tests/proofs/test_screening_sensitivity.py", "tests/proofs/test_audit_screening.py")),
    Mutant("threshold-sensitivity-half", "sensitivity",
           "threshold calibrated (scale and ledger) for sensitivity 1/2",
           "estimators/threshold.py",
           (("        return basic_composition([exponential_mechanism_event(1.0, scale)]).epsilon"
             "\n\n    return nudge(2.0 / epsilon,",
             "        return basic_composition([exponential_mechanism_event(0.5, scale)]).epsilon"
             "\n\n    return nudge(1.0 / epsilon,"),
            ("    return exponential_mechanism_event(\n        1.0, threshold_scale(epsilon),",
             "    return exponential_mechanism_event(\n        0.5, threshold_scale(epsilon),")),
           ("tests/proofs/test_sensitivity_search.py", "tests/proofs/test_audit_threshold.py")),
    Mutant("count-sensitivity-max-half", "sensitivity",
           'count_sensitivity="max" resolved to m // 2', "estimators/count.py",
           (('return n_countable if sensitivity == "max" else sensitivity',
             'return max(1, n_countable // 2) if sensitivity == "max" else sensitivity'),),
           ("tests/proofs/test_sensitivity_search.py", "tests/proofs/test_sensitivity_count.py")),
    # budget share
    Mutant("count-2eps1-lasso-support", "budget share",
           "P1's count noised at 2 eps1 (ledger: eps1)", "estimators/sparsifier.py",
           (("targets = noisy_count(support_size(), plan.epsilon_count,",
             "targets = noisy_count(support_size(), 2 * plan.epsilon_count,"),),
           ("tests/proofs/test_estimator_laws.py"
            "::test_sparsifier_count_and_selection_follow_its_ledger",)),
    Mutant("count-2eps1-accuracy", "budget share",
           "accuracy count released at 2 eps1 (ledger: eps1)", "estimators/sparsifier.py",
           (("epsilon=plan.epsilon_count, rng=plan.rng)",
             "epsilon=2 * plan.epsilon_count, rng=plan.rng)"),),
           ("tests/proofs/test_estimator_laws.py::test_accuracy_count_follows_its_ledger",)),
    Mutant("count-2eps1-block-median", "budget share",
           "block-median count released at 2 eps1 (ledger: eps1)", "estimators/sparsifier.py",
           (("n_countable=n_countable, epsilon=plan.epsilon_count,",
             "n_countable=n_countable, epsilon=2 * plan.epsilon_count,"),),
           ("tests/proofs/test_estimator_laws.py::test_block_median_count_follows_its_ledger",)),
    Mutant("baseline-count-2eps1", "budget share",
           "the baselines' count noised at 2 eps1 (ledger: eps1)",
           "baselines/estimators/accounting.py",
           (("    s = noisy_count(count, epsilon_count, count_sensitivity",
             "    s = noisy_count(count, 2 * epsilon_count, count_sensitivity"),),
           ("tests/proofs/test_estimator_laws.py"
            "::test_baseline_sparsity_release_follows_its_ledger",)),
    Mutant("split-share-overspends", "budget share",
           "a budget split whose rest ignores the share by an ulp (rounding up, unchecked)",
           "privacy/shares.py",
           (("lambda r: Fraction(share) + Fraction(r) <= Fraction(total),",
             "lambda r: True,"),
            ("    rest = total - share\n", "    rest = math.nextafter(total - share, math.inf)\n")),
           ("tests/proofs/test_budget_splits.py",)),
    # call site
    Mutant("threshold-call-2eps", "call site",
           "release_threshold draws its offsets at 2 eps_b (ledger: eps_b)",
           "estimators/threshold.py",
           (("offsets = private_offsets(scores, y, radius=radius, epsilon=epsilon, rng=rng)",
             "offsets = private_offsets(scores, y, radius=radius, epsilon=2 * epsilon, rng=rng)"),),
           ("tests/proofs/test_audit_threshold.py",
            "tests/proofs/test_estimator_laws.py::test_private_threshold_follows_its_ledger")),
    Mutant("screening-round-whole-budget", "call site",
           "every screening round at the whole (epsilon, delta) instead of its share",
           "screening/callback.py",
           (("self._round_epsilon, self._round_delta = schedule.round_budget(epsilon, delta)",
             "self._round_epsilon, self._round_delta = epsilon, delta"),),
           ("tests/screening/test_screening_callback.py",
            "tests/screening/test_private_screening.py")),
    # T/2 (the engine's calibration)
    Mutant("fw-T-half", "budget share",
           "selection calibrated for T/2 steps (advanced composition / zCDP path)",
           "estimators/private_frank_wolfe.py",
           (("approximate = calibrate(epsilon, delta, n_iter, sensitivity)",
             "approximate = calibrate(epsilon, delta, max(1, n_iter // 2), sensitivity)"),),
           ("tests/proofs/test_sparsifier_budget.py", "tests/proofs/test_estimator_laws.py")),
    Mutant("fw-rule-miscredited", "budget share",
           "the advanced composition / zCDP scale taken, but its steps accounted by basic "
           "composition (no delta spent)",
           "estimators/private_frank_wolfe.py",
           (("return _SELECTORS[selection](approximate), method",
             "return _SELECTORS[selection](approximate), \"basic\""),),
           ("tests/proofs/test_sparsifier_budget.py",
            "tests/unit/estimators/test_estimators_classifiers.py")),
    Mutant("fw-T-half-basic", "budget share",
           "selection calibrated (and checked) for T/2 steps (basic composition path)",
           "estimators/private_frank_wolfe.py",
           (("scale = nudge(2.0 * sensitivity * n_iter / epsilon,",
             "scale = nudge(2.0 * sensitivity * max(1, n_iter // 2) / epsilon,"),
            (".event(sensitivity, n_iter)]).epsilon",
             ".event(sensitivity, max(1, n_iter // 2))]).epsilon")),
           ("tests/proofs/test_estimator_laws.py", "tests/proofs/test_budget_splits.py")),
    # early stop
    Mutant("lazy-stop-early", "early stop",
           "the lazy draw's late draws scan rows 0..m-2 (the last candidate never drawn late)",
           "privacy/selection.py",
           (("block = scores[start : start + rows_per_block, trials]",
             "block = scores[start : min(start + rows_per_block, m - 1), trials]"),),
           ("tests/proofs/test_selection_law.py",)),
    Mutant("full-draw-stop-early", "early stop",
           "the full draw's block loop stops before the last block", "privacy/selection.py",
           (("for start in range(0, m, rows):  # about m K / 2**15 blocks, each vectorised",
             "for start in range(0, max(m - rows, 1), rows):"),),
           ("tests/proofs/test_selection_law.py", "tests/unit/privacy/test_selection.py")),
    Mutant("lazy-rejection-once", "early stop",
           "the late draws' rejection loop runs once (rejected draws left unset)",
           "privacy/selection.py",
           (("while pending.size:  # rejection: keep draws N >= -c",
             "if pending.size:  # rejection: keep draws N >= -c"),),
           ("tests/proofs/test_selection_law.py",)),
    # the joint release (estimators/joint_release.py)
    Mutant("joint-margin-positives", "data-dependent",
           "the constants' margin computed from the count of positive labels instead of n",
           "estimators/joint_release.py",
           (("odds = constant_log_odds(np.asarray(y).size, epsilon, odds=constant_odds,",
             "odds = constant_log_odds(int(np.count_nonzero(np.asarray(y) == 1)), epsilon, "
             "odds=constant_odds,"),),
           ("tests/proofs/test_joint_release_law.py",)),
    Mutant("joint-constants-by-frequency", "data-dependent",
           "the constants' base measure spread by the classes' frequencies in y (a prior "
           "read from the data)", "estimators/joint_release.py",
           (("                                constant_odds=odds)\n",
             "                                constant_odds=odds)\n"
             "    log_pi[:n_classes] += np.log(n_classes * np.bincount(np.asarray(y), "
             "minlength=n_classes) / np.asarray(y).size)\n"),),
           ("tests/proofs/test_joint_release_law.py",)),
    Mutant("joint-grid-from-scores", "data-dependent",
           "each size's offset grid spread over the training scores' range instead of the "
           "public ||w^(k)||_1", "estimators/joint_release.py",
           (("utilities, grid = offset_utilities(scores, y, radius=radius, grid_size=grid_size)",
             "utilities, grid = offset_utilities(scores, y, radius=np.abs(scores).reshape("
             "-1, scores.shape[-1]).max(axis=0), grid_size=grid_size)"),),
           ("tests/proofs/test_joint_release_law.py",
            "tests/proofs/test_estimator_laws.py::test_joint_release_follows_its_ledger")),
    Mutant("joint-draw-2eps", "noise scale",
           "the joint release drawn at the temperature of 2 eps_j (ledger: eps_j)",
           "estimators/joint_release.py",
           (("    scale = count_scale(epsilon)\n", "    scale = count_scale(2.0 * epsilon)\n"),),
           ("tests/proofs/test_joint_release_law.py",
            "tests/proofs/test_audit_joint_release.py")),
    Mutant("joint-event-half", "budget share",
           "the joint release's ledger event at eps_j / 2 (the draw at eps_j)",
           "estimators/joint_release.py",
           (("joint_event(epsilon, utilities.shape[0]))",
             "joint_event(0.5 * epsilon, utilities.shape[0]))"),),
           ("tests/proofs/test_estimator_laws.py::test_joint_release_follows_its_ledger",
            "tests/proofs/test_joint_release_law.py")),
    # objective perturbation: the L2 reference and the default Sparsifier's small designs
    Mutant("op-gaussian-sigma-half", "noise scale",
           "objective perturbation's Gaussian noise at half its sigma",
           "estimators/objective_perturbation.py",
           (("    return R / u\n", "    return 0.5 * R / u\n"),),
           ("tests/proofs/test_audit_objective_perturbation.py",)),
    Mutant("op-gaussian-tail-one-dof", "degrees of freedom",
           "the Gaussian noise's tail radius r = sqrt(ln(1/delta)), a chi-square with one "
           "degree of freedom for two (true delta sqrt(delta))",
           "estimators/objective_perturbation.py",
           (("r = math.sqrt(2.0 * math.log(1.0 / delta))",
             "r = math.sqrt(math.log(1.0 / delta))"),),
           ("tests/proofs/test_audit_objective_perturbation.py",)),
    Mutant("op-gaussian-loss-linear", "noise scale",
           "the Gaussian noise's loss bound without its quadratic term (2ru = eps_b for "
           "2u^2 + 2ru)", "estimators/objective_perturbation.py",
           (("u = epsilon_noise / (math.sqrt(r * r + 2.0 * epsilon_noise) + r)",
             "u = epsilon_noise / (2.0 * r)"),),
           ("tests/proofs/test_audit_objective_perturbation.py",)),
    Mutant("op-one-vs-rest-whole-budget", "budget share",
           "each one-vs-rest release of the multiclass L2 reference at the weights' whole "
           "budget (C times it in all)", "baselines/l2_objective_perturbation.py",
           (("epsilon, delta = even_share(epsilon, n_classes), even_share(delta, n_classes)",
             "delta = even_share(delta, n_classes)"),),
           ("tests/proofs/test_budget_splits.py",)),
    Mutant("op-gamma-sensitivity-R", "sensitivity",
           "Gamma-norm noise scale R / eps_b (sensitivity R for the lemma's 2R)",
           "estimators/objective_perturbation.py",
           (("scale = 2.0 * R / epsilon_noise", "scale = R / epsilon_noise"),),
           ("tests/proofs/test_audit_objective_perturbation.py",)),
    Mutant("op-gamma-shape", "noise law",
           "the Gamma-norm noise's norm drawn Gamma(d - 1) for Gamma(d)",
           "estimators/objective_perturbation.py",
           (("rng.gamma(dim, scale, size=count)", "rng.gamma(dim - 1, scale, size=count)"),),
           ("tests/proofs/test_audit_objective_perturbation.py",)),
    Mutant("op-gamma-direction-orthant", "noise law",
           "the Gamma-norm noise's direction folded into the positive orthant",
           "estimators/objective_perturbation.py",
           (("direction = rng.standard_normal((count, dim))",
             "direction = np.abs(rng.standard_normal((count, dim)))"),),
           ("tests/proofs/test_audit_objective_perturbation.py",)),
    Mutant("op-quad-weight-R", "sensitivity",
           "the quadratic weight for the Jacobian's share computed with R for R^2",
           "estimators/objective_perturbation.py",
           (("value = R * R * math.exp(-epsilon_jacobian)",
             "value = R * math.exp(-epsilon_jacobian)"),),
           ("tests/proofs/test_audit_objective_perturbation.py",)),
    Mutant("op-jacobian-eighth", "sensitivity",
           "a given quadratic weight's Jacobian term log(1 + R^2 / (8 Lambda)) (sigma' <= 1/8 "
           "for 1/4)", "estimators/objective_perturbation.py",
           (("return math.log1p(R * R / (4.0 * quad_weight))",
             "return math.log1p(R * R / (8.0 * quad_weight))"),),
           ("tests/proofs/test_audit_objective_perturbation.py",)),
    Mutant("op-noise-whole-epsilon", "budget share",
           "the noise calibrated to the whole epsilon, the Jacobian term's share not paid "
           "(ledger: eps_J + eps_b)", "estimators/objective_perturbation.py",
           (("        scale = 2.0 * R / epsilon_noise\n", "        scale = 2.0 * R / epsilon\n"),
            ("        scale = gaussian_noise_std(R, epsilon_noise, delta)\n",
             "        scale = gaussian_noise_std(R, epsilon, delta)\n")),
           ("tests/proofs/test_audit_objective_perturbation.py",)),
    Mutant("op-jacobian-not-charged", "budget share",
           "the noise's budget the whole epsilon (the Jacobian term's share spent again; the "
           "ledger shows eps_J + eps)", "estimators/objective_perturbation.py",
           (("    epsilon_noise = epsilon - epsilon_jacobian\n",
             "    epsilon_noise = epsilon\n"),),
           ("tests/proofs/test_budget_splits.py",
            "tests/proofs/test_audit_objective_perturbation.py")),
    Mutant("op-row-bound-no-constant", "sensitivity",
           "the row norm bound R = sqrt(d - 1), the constant column left out",
           "estimators/objective_perturbation.py",
           (('math.sqrt(n_columns), epsilon, delta if noise == "gaussian" else 0.0',
             'math.sqrt(n_columns - 1), epsilon, delta if noise == "gaussian" else 0.0'),),
           ("tests/proofs/test_audit_objective_perturbation.py",)),
    Mutant("op-noise-over-n", "call site",
           "the drawn noise passed to the solve divided by n (b/n for the n-scaled b: the "
           "mean-scaled objective's noise term scaled twice)",
           "estimators/objective_perturbation.py",
           (("linear_term=noise[k], tol=tol)",
             "linear_term=noise[k] / design.shape[0], tol=tol)"),),
           ("tests/proofs/test_audit_objective_perturbation.py",)),
    Mutant("op-reference-whole-budget", "budget share",
           "the L2 reference's weights at the whole epsilon, the threshold's share spent again",
           "baselines/l2_objective_perturbation.py",
           (("    mechanism = reference_mechanism(n_columns, epsilon_fit, resolve_delta(",
             "    mechanism = reference_mechanism(n_columns, epsilon, resolve_delta("),),
           ("tests/proofs/test_budget_splits.py",)),
    Mutant("op-sparsifier-whole-budget", "budget share",
           "the default Sparsifier's objective-perturbation weights at the whole epsilon, "
           "the joint release's share spent again", "estimators/sparsifier.py",
           (("design, y, epsilon=plan.epsilon_weights, delta=plan.delta,",
             "design, y, epsilon=run.epsilon, delta=plan.delta,"),),
           ("tests/proofs/test_budget_splits.py",)),
    # noisy-min screening (screening/noisy_min.py, screening/iterative.py, privacy/selection.py)
    Mutant("nms-scale-half", "noise scale",
           "one-coordinate screening round at half its Laplace scale", "screening/noisy_min.py",
           (("chosen = report_noisy_min(candidate_scores(W, gradient), scale, rng)",
             "chosen = report_noisy_min(candidate_scores(W, gradient), 0.5 * scale, rng)"),),
           ("tests/proofs/test_noisy_min_screening.py",)),
    Mutant("nms-sensitivity-half", "sensitivity",
           "the screening round's score sensitivity declared Delta_g / 2",
           "screening/noisy_min.py",
           (("lam=base.lam, score=base.gradient)", "lam=base.lam, score=0.5 * base.gradient)"),),
           ("tests/proofs/test_noisy_min_screening.py",)),
    Mutant("nms-nothing-l1", "sensitivity",
           "the 'screen nothing' score ||g||_1 (sensitivity p Delta_g) for ||g||_inf",
           "screening/noisy_min.py",
           (("scores[-1] = magnitude.max(axis=0)", "scores[-1] = magnitude.sum(axis=0)"),),
           ("tests/proofs/test_noisy_min_screening.py",)),
    Mutant("nms-round-2eps", "call site",
           "every screening round of private Frank-Wolfe at twice its share",
           "screening/iterative.py",
           (("self._sensitivity, self._epsilon, self._rng,",
             "self._sensitivity, 2 * self._epsilon, self._rng,"),),
           ("tests/screening/test_iterative_screening.py",)),
    Mutant("nms-steps-scale-half", "noise scale",
           "private Frank-Wolfe's steps (with screening rounds) at half their Laplace scale",
           "screening/iterative.py",
           (("return ReportNoisyMinSelector(self.fw_scale)",
             "return ReportNoisyMinSelector(0.5 * self.fw_scale)"),),
           ("tests/proofs/test_noisy_min_screening.py",)),
    Mutant("rnm-scale-map-half", "sensitivity",
           "report-noisy-min's calibration Delta / eps for 2 Delta / eps",
           "privacy/selection.py",
           (("r\"\"\"Laplace scale for a per-selection :math:`\\varepsilon_0`: :math:`2\\Delta/"
             "\\varepsilon_0`.\"\"\"\n    return 2.0 *",
             "r\"\"\"Laplace scale for a per-selection :math:`\\varepsilon_0`: :math:`2\\Delta/"
             "\\varepsilon_0`.\"\"\"\n    return 1.0 *"),),
           ("tests/proofs/test_noisy_min_screening.py", "tests/proofs/test_privacy_maps.py")),
    Mutant("rnm-epsilon-map-half", "privacy map",
           "report-noisy-min's privacy map eps = Delta / b for 2 Delta / b",
           "privacy/selection.py",
           (("    return 2.0 * check_nonnegative(\"sensitivity\", sensitivity) / check_positive("
             "\"scale\", scale)\n\n\ndef report_noisy_min_scale",
             "    return 1.0 * check_nonnegative(\"sensitivity\", sensitivity) / check_positive("
             "\"scale\", scale)\n\n\ndef report_noisy_min_scale"),),
           ("tests/proofs/test_noisy_min_screening.py",
            "tests/proofs/test_privacy_maps.py"
            "::test_report_noisy_min_is_2_delta_over_b_dp_and_not_delta_over_b")),
    Mutant("em-epsilon-map-half", "privacy map",
           "the exponential mechanism's privacy map eps = Delta / scale for 2 Delta / scale",
           "privacy/selection.py",
           (("    return 2.0 * check_nonnegative(\"sensitivity\", sensitivity) / check_positive("
             "\"scale\", scale)\n\n\ndef exponential_mechanism_rho",
             "    return 1.0 * check_nonnegative(\"sensitivity\", sensitivity) / check_positive("
             "\"scale\", scale)\n\n\ndef exponential_mechanism_rho"),),
           ("tests/proofs/test_privacy_maps.py"
            "::test_exponential_mechanism_dp_bounded_range_and_zcdp",
            "tests/proofs/test_joint_release_law.py")),
    Mutant("em-rho-half", "privacy map",
           "the exponential mechanism's zCDP rho = eps^2 / 16 for eps^2 / 8",
           "privacy/selection.py",
           (("return exponential_mechanism_epsilon(sensitivity, scale) ** 2 / 8.0",
             "return exponential_mechanism_epsilon(sensitivity, scale) ** 2 / 16.0"),),
           ("tests/proofs/test_privacy_maps.py"
            "::test_exponential_mechanism_dp_bounded_range_and_zcdp",)),
    # the exact shares (privacy/shares.py)
    Mutant("even-share-overspends", "budget share",
           "R equal shares rounded up by an ulp (unchecked)", "privacy/shares.py",
           (("lambda s: parts * Fraction(s) <= Fraction(total),",
             "lambda s: True,"),
            ("    share = total / parts\n",
             "    share = math.nextafter(total / parts, math.inf)\n")),
           ("tests/proofs/test_budget_splits.py",)),
    Mutant("remaining-share-overspends", "budget share",
           "the rest after the shares spent rounded up by an ulp (unchecked)",
           "privacy/shares.py",
           (("lambda r: Fraction(r) <= exact,",
             "lambda r: True,"),
            ("    rest = max(total - math.fsum(spent), 0.0)\n",
             "    rest = math.nextafter(max(total - math.fsum(spent), 0.0), math.inf)\n")),
           ("tests/proofs/test_budget_splits.py",
            "tests/proofs/test_sparsifier_budget.py"
            "::test_remaining_share_rounds_down_and_checks_its_arguments")),
    # the accountant and composition (privacy/accounting.py, estimators/base.py)
    Mutant("accountant-pickle-fresh", "accountant",
           "a pickled accountant comes back with a fresh budget (not detached)",
           "privacy/accounting.py",
           (("return _detached_accountant, (self._epsilon, self._delta, self.spent)",
             "return BudgetAccountant, (self._epsilon, self._delta)"),),
           ("tests/unit/privacy/test_accountant_sharing.py",
            "tests/unit/privacy/test_accountant_processes.py")),
    Mutant("accountant-hold-ignores-holds", "accountant",
           "a reservation not counted by the next one (a hold checks the spends only)",
           "privacy/accounting.py",
           (("if not fits(spent, (*holds.values(), request)):",
             "if not fits(spent, (request,)):"),),
           ("tests/unit/privacy/test_accounting.py",
            "tests/unit/privacy/test_accountant_processes.py")),
    Mutant("accountant-spend-ignores-holds", "accountant",
           "a spend checked against the spends only, other fits' reservations not counted",
           "privacy/accounting.py",
           (("if not fits((*spent, guarantee), held_after):",
             "if not fits((*spent, guarantee), ()):"),),
           ("tests/unit/privacy/test_accounting.py",
            "tests/unit/privacy/test_accountant_processes.py")),
    Mutant("accountant-hold-spend-unrecorded", "accountant",
           "a spend against a hold not recorded (the hold closes and its budget is free again)",
           "privacy/accounting.py",
           (("_HEADER.pack_into(self._memory, 0, len(spent) + 1)",
             "_HEADER.pack_into(self._memory, 0, len(spent) + (slot is None))"),),
           ("tests/unit/privacy/test_accounting.py",
            "tests/unit/privacy/test_accountant_sharing.py")),
    Mutant("accountant-refused-fit-spends", "accountant",
           "a fit checks the budget and spends part by part without a hold (a refused fit "
           "has spent its first parts)", "estimators/base.py",
           (("    with accountant.reserve(epsilon, delta) as hold:\n"
             "        yield lambda accounting: spend_budget(hold, accounting)\n",
             "    accountant.check(epsilon, delta)\n"
             "    yield lambda accounting: spend_budget(accountant, accounting)\n"),),
           ("tests/unit/privacy/test_accountant_processes.py",)),
    Mutant("accountant-tolerance", "accountant",
           "the accountant's tolerance 1e-3 relative for 1e-9 (overspends by 0.1%)",
           "privacy/accounting.py",
           (("_BUDGET_RTOL = 1e-9\n", "_BUDGET_RTOL = 1e-3\n"),),
           ("tests/unit/privacy/test_accounting.py",)),
    Mutant("basic-composition-once", "accountant",
           "basic composition counts a repeated event once", "privacy/accounting.py",
           (("epsilon = math.fsum(e.count * e.epsilon for e in events)",
             "epsilon = math.fsum(e.epsilon for e in events)"),),
           ("tests/unit/privacy/test_accounting.py",)),
    Mutant("advanced-composition-slack", "privacy map",
           "advanced composition's sqrt(ln(1/delta') ...) for sqrt(2 ln(1/delta') ...)",
           "privacy/accounting.py",
           (("return math.sqrt(2.0 * math.log(1.0 / delta_slack) * sum_sq) + drift",
             "return math.sqrt(math.log(1.0 / delta_slack) * sum_sq) + drift"),),
           ("tests/proofs/test_privacy_maps.py",)),
    Mutant("zcdp-conversion-half", "privacy map",
           "zCDP to (eps, delta) as rho + sqrt(rho ln(1/delta)) for rho + 2 sqrt(...)",
           "privacy/accounting.py",
           (("return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))",
             "return rho + math.sqrt(rho * math.log(1.0 / delta))"),),
           ("tests/proofs/test_privacy_maps.py",)),
    # the Gaussian mechanism's maps (privacy/gaussian.py)
    Mutant("gaussian-profile-half", "privacy map",
           "the Gaussian privacy profile with a = Delta / (4 sigma) for Delta / (2 sigma) "
           "(the analytic calibration too small)", "privacy/gaussian.py",
           (("a = l2_sensitivity / (2.0 * sigma)", "a = l2_sensitivity / (4.0 * sigma)"),),
           ("tests/proofs/test_audit_primitives.py",)),
    Mutant("gaussian-rho-half", "privacy map",
           "the Gaussian zCDP map rho = Delta^2 / (4 sigma^2) for Delta^2 / (2 sigma^2)",
           "privacy/gaussian.py",
           (("return l2_sensitivity**2 / (2.0 * sigma**2)",
             "return l2_sensitivity**2 / (4.0 * sigma**2)"),),
           ("tests/proofs/test_privacy_maps.py"
            "::test_gaussian_rho_is_the_renyi_divergence_of_the_shifted_normal",)),
)


def _copy_tree(destination):
    """``src/``, ``tests/`` and the pytest configuration, without caches."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")
    for name in ("src", "tests"):
        shutil.copytree(ROOT / name, destination / name, ignore=ignore)
    shutil.copy2(ROOT / "pyproject.toml", destination / "pyproject.toml")


def apply(mutant, root):
    """Apply ``mutant`` to the tree under ``root``; ``ValueError`` if a find does not occur
    exactly once (the list is stale)."""
    path = root / "src" / "dplasso" / mutant.path
    text = path.read_text()
    for find, replace in mutant.edits:
        count = text.count(find)
        if count != 1:
            raise ValueError(f"mutant {mutant.id}: {find!r} occurs {count} times in "
                             f"src/dplasso/{mutant.path}")
        text = text.replace(find, replace)
    path.write_text(text)


def _pytest(root, targets):
    """Run pytest in ``root`` on ``targets``; ``(passed, first failure, seconds)``."""
    env = dict(os.environ, PYTHONPATH=str(root / "src"), PYTHONDONTWRITEBYTECODE="1")
    shared = ROOT.parent / "shared" / "data" / "openml"
    if shared.is_dir():
        env.setdefault("DPLASSO_OPENML_SEED", str(shared))
    command = [sys.executable, "-m", "pytest", *targets, "-x", "-q", "--tb=no", "-rfE",
               "-n", "0", "-p", "no:cacheprovider"]
    if "-m" not in targets:
        command += ["-m", "not slow and not book"]
    start = time.perf_counter()
    run = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    failure = re.search(r"^(?:FAILED|ERROR) ([^\s\[]+(?:\[.*?\])?)(?= - |$)", run.stdout,
                        re.MULTILINE)  # the node id, its parameters included
    if run.returncode == 5:
        raise RuntimeError(f"pytest collected no test in {targets}:\n{run.stdout[-2000:]}")
    return run.returncode == 0, failure.group(1) if failure else None, seconds


def run_mutant(mutant):
    """Apply ``mutant`` in a fresh copy and run its tests, then (if it survives) ``make
    test``'s selection; returns the record entry."""
    with tempfile.TemporaryDirectory(prefix=f"mutant-{mutant.id}-") as directory:
        root = Path(directory)
        _copy_tree(root)
        apply(mutant, root)
        passed, killer, seconds = _pytest(root, list(mutant.tests))
        stage = "targeted"
        if passed:
            passed, killer, more = _pytest(root, MAKE_TEST)
            seconds, stage = seconds + more, "make test"
    return {"id": mutant.id, "kind": mutant.kind, "description": mutant.description,
            "file": f"src/dplasso/{mutant.path}", "edits": [list(e) for e in mutant.edits],
            "killed": not passed, "killed_by": killer, "stage": stage,
            "seconds": round(seconds, 1)}


def _git_commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, check=True,
                              capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _write(path, record):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(path.suffix + ".partial")
    partial.write_text(json.dumps(record, indent=1) + "\n")
    partial.replace(path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", default=None, help="write the record to this file")
    parser.add_argument("--jobs", type=int, default=1, help="mutants run at once (default 1)")
    parser.add_argument("--only", nargs="*", default=None, metavar="ID",
                        help="run only these mutants (the record is then not complete)")
    args = parser.parse_args(argv)
    known = {m.id for m in MUTANTS}
    unknown = set(args.only or ()) - known
    if unknown:
        parser.error(f"unknown mutant(s) {sorted(unknown)}; known: {sorted(known)}")
    if args.jobs < 1:
        parser.error(f"--jobs must be >= 1, got {args.jobs}")
    chosen = [m for m in MUTANTS if args.only is None or m.id in args.only]
    record = {"commit": _git_commit(), "started": time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                                  time.gmtime()),
              "command": " ".join(["tests/mutants.py"] + (argv or sys.argv[1:])),
              "make_test": " ".join(MAKE_TEST), "complete": False, "mutants": []}
    by_id = {}
    try:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futures = {pool.submit(run_mutant, m): m for m in chosen}
            for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
                entry = future.result()
                by_id[entry["id"]] = entry
                verdict = f"killed by {entry['killed_by']}" if entry["killed"] else "SURVIVED"
                print(f"[{done}/{len(chosen)}] {entry['id']}: {verdict} ({entry['stage']}, "
                      f"{entry['seconds']:.0f} s)", flush=True)
                record["mutants"] = [by_id[m.id] for m in chosen if m.id in by_id]
                if args.json:
                    _write(args.json, record)
    except KeyboardInterrupt:
        print(f"interrupted: {len(by_id)} of {len(chosen)} mutants recorded", flush=True)
        return 130
    record["complete"] = args.only is None and len(by_id) == len(MUTANTS)
    record["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    if args.json:
        _write(args.json, record)
    survivors = [e["id"] for e in record["mutants"] if not e["killed"]]
    print(f"{len(record['mutants']) - len(survivors)} of {len(record['mutants'])} mutants "
          f"killed; survivors: {survivors or 'none'}", flush=True)
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
