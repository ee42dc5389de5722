"""Privacy mutants: a fixed list of source changes that each break a privacy claim, and a
runner that applies each one to a copy of the source and reports which ones the tests kill.

A mutant *survives* when the tests still pass with it: then nothing in the suite checks the
property it breaks. Every mutant here halves a noise scale, understates a sensitivity, spends
more than a budget share, calls a release with the wrong budget, or stops a draw early. Most
keep the ledger claiming the budget asked for, so only a check of the noise itself (a law
test, an audit, a declared sensitivity compared with its lemma) can catch them; a few (the
``T/2`` calibrations, the overspending split, a screening round at the whole budget) show in
the ledger's total, which the budget tests compare with the budget. The list includes the
reviews' mutants: the lazy draw's late draws stopping before the last row
(``lazy-stop-early``), the split screening release at half its sigma (``split-sigma-half``)
or with the lemma's sqrt 2 declared as 1 (``split-l2-1``), the engine calibrated for ``T/2``
steps (``fw-T-half*``) or ``Delta/2`` (``fw-sensitivity-half``), and a count noised at
``2 eps1`` (``count-2eps1-*``).

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
           (("    scale = 2.0 / epsilon\n    for _ in range(_MAX_ULP_STEPS):\n"
             "        event = exponential_mechanism_event(1.0, scale)",
             "    scale = 1.0 / epsilon\n    for _ in range(_MAX_ULP_STEPS):\n"
             "        event = exponential_mechanism_event(0.5, scale)"),
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
           (("targets = noisy_count(c, epsilon_count, count_sensitivity",
             "targets = noisy_count(c, 2 * epsilon_count, count_sensitivity"),),
           ("tests/proofs/test_estimator_laws.py"
            "::test_sparsifier_count_and_selection_follow_its_ledger",)),
    Mutant("count-2eps1-accuracy", "budget share",
           "accuracy count released at 2 eps1 (ledger: eps1)", "estimators/sparsifier.py",
           (("                                 epsilon=epsilon_count, rng=rng)",
             "                                 epsilon=2 * epsilon_count, rng=rng)"),),
           ("tests/proofs/test_estimator_laws.py::test_accuracy_count_follows_its_ledger",)),
    Mutant("count-2eps1-block-median", "budget share",
           "block-median count released at 2 eps1 (ledger: eps1)", "estimators/sparsifier.py",
           (("n_countable=n_countable, epsilon=epsilon_count,",
             "n_countable=n_countable, epsilon=2 * epsilon_count,"),),
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
           (("        if Fraction(share) + Fraction(rest) <= Fraction(total):",
             "        if True:  # mutant: no check"),
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
           (("return _SELECTORS[selection](calibrate(epsilon, delta, n_iter, sensitivity)), method",
             "return _SELECTORS[selection](calibrate(epsilon, delta, max(1, n_iter // 2), "
             "sensitivity)), method"),),
           ("tests/proofs/test_sparsifier_budget.py", "tests/proofs/test_estimator_laws.py")),
    Mutant("fw-T-half-basic", "budget share",
           "selection calibrated (and checked) for T/2 steps (basic composition path)",
           "estimators/private_frank_wolfe.py",
           (("start = scale = 2.0 * sensitivity * n_iter / epsilon",
             "start = scale = 2.0 * sensitivity * max(1, n_iter // 2) / epsilon"),
            ("composed = basic_composition([selector.event(sensitivity, n_iter)]).epsilon",
             "composed = basic_composition([selector.event(sensitivity, max(1, n_iter // 2))])"
             ".epsilon")),
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
