"""The proofs chapter's tables: sensitivity searches, privacy audits, the mutation run.

:func:`proofs_tables` runs every case of :mod:`dplasso.audit.cases` at the trial counts
of a profile (``"ci"``: fast, same code paths; ``"paper"``: full power) and returns tidy
``pandas.DataFrame`` tables for the proofs notebook; :func:`mutation_table` reads the
committed record of the mutation run (``tests/mutants.py``). Both need pandas (the
``reproduce`` extra); the audits themselves run on the core install.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from dplasso._extras import import_extra
from dplasso.audit.cases import (
    SELECTORS,
    count_sensitivity_case,
    discrete_laplace_cases,
    frank_wolfe_fit_cases,
    gaussian_cases,
    accuracy_count_cases,
    block_median_cases,
    laplace_cases,
    noise_floor_cases,
    screening_cases,
    selection_cases,
    split_screening_cases,
    sensitivity_cases,
    sparsifier_count_cases,
    threshold_cases,
)
from dplasso.audit.joint_release_cases import joint_release_cases, joint_sensitivity_cases
from dplasso.audit.objective_perturbation_cases import (
    objective_perturbation_cases,
    objective_perturbation_sensitivity_cases,
)
from dplasso.privacy.neighbours import REPLACE_ONE
from dplasso.privacy.rng import as_generator

__all__ = ["PROFILE_SIZES", "proofs_tables", "MUTATION_RECORD", "MUTATION_COLUMNS",
           "mutation_table"]

READS_RECORDS = ("mutants.json",)
"""The committed record files this module reads (:data:`dplasso.experiments.closure.RECORDS_NAME`)."""
MUTATION_RECORD = (Path(__file__).resolve().parents[3] / "book" / "paper-results"
                   / "mutants.json")
"""The committed record of the mutation run (written by ``tests/mutants.py --json``)."""
MUTATION_COLUMNS = ["mutant", "kind", "what it breaks", "file", "killed", "killed by",
                    "stage", "seconds"]

PROFILE_SIZES = {
    "ci": {
        "search_rows": 16, "search_random": 16,
        "count_search_rows": 8, "count_search_random": 8,
        "scalar_trials": 100_000, "gaussian_trials": 1_000_000,
        "selection_trials": 2_000_000, "fit_trials": 100_000, "count_trials": 100_000,
        "threshold_trials": 100_000, "block_median_trials": 200_000,
        "accuracy_count_trials": 200_000, "noise_floor_trials": 50_000,
        "screening_trials": 1_000_000, "objective_perturbation_trials": 100_000,
        "joint_trials": 50_000,
    },
    "paper": {
        "search_rows": 40, "search_random": 128,
        "count_search_rows": 60, "count_search_random": 16,
        "scalar_trials": 1_000_000, "gaussian_trials": 4_000_000,
        "selection_trials": 5_000_000, "fit_trials": 200_000, "count_trials": 1_000_000,
        "threshold_trials": 1_000_000, "block_median_trials": 1_000_000,
        "accuracy_count_trials": 1_000_000, "noise_floor_trials": 200_000,
        "screening_trials": 4_000_000, "objective_perturbation_trials": 400_000,
        "joint_trials": 200_000,
    },
}
"""Search sizes and audit trial counts (runs per dataset) of the two profiles.

``search_rows``/``search_random``: rows replaced and random candidate rows of each
sensitivity search (``count_*`` for the Sparsifier count, whose every evaluation is a
certified L1-ball solve, ~10 ms); ``*_trials``: runs per dataset of the audits of the scalar mechanisms (Laplace,
double-geometric), the Gaussian mechanism, the one-step selections, the whole
Frank-Wolfe fits, the Sparsifier count and the private screening release. The one-step selection audits need 2e6 runs even
in ``ci`` to catch a 20% sensitivity understatement (the privacy loss nears its bound only on
events of probability ~1e-3); the whole-fit audits take 1e5 in ``ci``, where 2e4 left the
exponential-mechanism fit's broken variant at the edge of its claim (1.99 against 2 on one
seed). ``threshold_trials``, ``block_median_trials``,
``accuracy_count_trials`` and ``noise_floor_trials``: the private threshold, the block-median
count, the accuracy count and the noise-floor coupling audit (:func:`_private_release_audits`); the threshold's release sorts each run's
scores, about 20 microseconds a run. ``objective_perturbation_trials``: the L2 reference's
release on one column, with Gamma-norm and with Gaussian noise (a batched bisection per
run; 1e5 runs already flag each broken variant, at about 2.5 and 2.4 against the claim 2).
``joint_trials``: the default Sparsifier's joint
release (one sort per run and candidate size, about 1 ms a run on a busy machine; 5e4 runs
flag its doubled budget, true 2 against the claim 1)."""

SENSITIVITY_COLUMNS = ["quantity", "declared", "proven", "found", "ratio",
                       "neighbouring relation", "search", "declared is"]
AUDIT_COLUMNS = ["mechanism", "variant", "claimed eps", "delta", "audited lower bound",
                 "confidence", "trials", "event", "neighbouring pair", "verdict"]


def _sizes(profile_sizes):
    if profile_sizes is None:
        profile_sizes = "ci"
    if isinstance(profile_sizes, str):
        if profile_sizes not in PROFILE_SIZES:
            raise ValueError(
                f"profile_sizes must be one of {sorted(PROFILE_SIZES)} or a dict, got "
                f"{profile_sizes!r}")
        return dict(PROFILE_SIZES[profile_sizes])
    sizes = dict(PROFILE_SIZES["ci"])
    unknown = set(profile_sizes) - set(sizes)
    if unknown:
        raise ValueError(f"unknown profile size(s) {sorted(unknown)}; known: {sorted(sizes)}")
    sizes.update(profile_sizes)
    return sizes


def _search_row(case, result, rows, random):
    return {
        "quantity": case.quantity,
        "declared": result.declared,
        "proven": case.proven,
        "found": result.found,
        "ratio": result.ratio,
        "neighbouring relation": result.relation,
        "search": (f"{result.n_evaluations} neighbours ({result.norm}-norm; rows={rows}, "
                   f"random={random}, aligned, duplicates, label flips, ascent); "
                   f"witness: {result.witness.kind}"),
        "declared is": "theorem" if case.theorem else "parameter (no theorem)",
    }


def _audit_row(case, result):
    return {
        "mechanism": case.mechanism_name,
        "variant": case.variant,
        "claimed eps": result.eps_claimed,
        "delta": result.delta,
        "audited lower bound": result.eps_lower,
        "confidence": 1.0 - result.alpha,
        "trials": result.n_trials,
        "event": str(result.event),
        "neighbouring pair": case.pair,
        "verdict": result.verdict,
    }


def _private_release_audits(sizes):
    """The private threshold, the block-median and accuracy counts, the noise-floor coupling
    audit, the L2 reference's objective perturbation (Gamma-norm noise), the joint release and
    the Gaussian objective perturbation (last, so that the earlier audits' draws stay as they
    were), each correct and broken, with their trial counts."""
    return ([(case, sizes["threshold_trials"]) for case in threshold_cases()]
            + [(case, sizes["block_median_trials"]) for case in block_median_cases()]
            + [(case, sizes["accuracy_count_trials"]) for case in accuracy_count_cases()]
            + [(case, sizes["noise_floor_trials"]) for case in noise_floor_cases()]
            + [(case, sizes["objective_perturbation_trials"])
               for case in objective_perturbation_cases()]
            + [(case, sizes["joint_trials"]) for case in joint_release_cases()]
            + [(case, sizes["objective_perturbation_trials"])
               for case in objective_perturbation_cases(noise="gaussian")])


def proofs_tables(profile_sizes="ci", alpha=1e-6, random_state=0):
    """Run the sensitivity searches and the privacy audits of the proofs chapter.

    Parameters
    ----------
    profile_sizes : {"ci", "paper"} or dict, default="ci"
        A profile name of :data:`PROFILE_SIZES`, or a dict overriding some of the ``ci``
        sizes.
    alpha : float, default=1e-6
        Failure probability of each audit's lower bound (confidence ``1 - alpha``).
    random_state : int, numpy.random.Generator or None, default=0
        Seeds the datasets, searches and audits.

    Returns
    -------
    sensitivity_table : pandas.DataFrame
        Columns ``quantity, declared, proven, found, ratio, neighbouring relation, search,
        declared is``: one row per privatised quantity (replace-one); ``declared`` is the
        library's, ``proven`` the lemma's bound.
    audit_table : pandas.DataFrame
        Columns ``mechanism, variant, claimed eps, delta, audited lower bound, confidence,
        trials, event, neighbouring pair, verdict``: every mechanism in its correct form and
        in each broken variant; ``verdict`` is ``"violation"`` when the audited lower bound
        exceeds the claim.

    Notes
    -----
    The Sparsifier count appears twice in the audits: with P1's declared count
    sensitivity 1, and calibrated to the largest change the search found, on the same
    worst pair. The first row's verdict shows whether the declared sensitivity survives.
    """
    sizes = _sizes(profile_sizes)
    pd = import_extra("pandas", "reproduce", "proofs_tables")  # checked before the searches run
    rng = as_generator(random_state)
    seed = int(rng.integers(2**31))

    search_rows = []
    for case in (sensitivity_cases(random_state=seed)
                 + objective_perturbation_sensitivity_cases(random_state=seed)
                 + joint_sensitivity_cases(random_state=seed)):
        result = case.run(n_random=sizes["search_random"], n_rows=sizes["search_rows"],
                          rng=rng)
        search_rows.append(_search_row(case, result, sizes["search_rows"],
                                       sizes["search_random"]))
    count_case = count_sensitivity_case(random_state=seed)
    count_search = count_case.run(n_random=sizes["count_search_random"],
                                  n_rows=sizes["count_search_rows"], rng=rng)
    search_rows.append(_search_row(count_case, count_search, sizes["count_search_rows"],
                                   sizes["count_search_random"]))

    audits = [(case, sizes["scalar_trials"]) for case in
              laplace_cases(random_state=seed) + discrete_laplace_cases(random_state=seed)]
    audits += [(case, sizes["gaussian_trials"]) for case in gaussian_cases(random_state=seed)]
    audits += [(case, sizes["screening_trials"])
               for case in screening_cases(random_state=seed) + split_screening_cases()]
    for selector in SELECTORS:
        audits += [(case, sizes["selection_trials"]) for case in selection_cases(selector)]
        audits += [(case, sizes["fit_trials"]) for case in frank_wolfe_fit_cases(selector)]
    calibrated = max(1, int(np.ceil(count_search.found)))
    for count_sensitivity in sorted({1, calibrated}):
        audits += [(case, sizes["count_trials"]) for case in sparsifier_count_cases(
            count_case, count_search, count_sensitivity=count_sensitivity)]
    audits += _private_release_audits(sizes)
    audit_rows = [_audit_row(case, case.run(trials, alpha, rng)) for case, trials in audits]

    sensitivity_table = pd.DataFrame(search_rows, columns=SENSITIVITY_COLUMNS)
    audit_table = pd.DataFrame(audit_rows, columns=AUDIT_COLUMNS)
    sensitivity_table.attrs["neighbouring relation"] = REPLACE_ONE
    audit_table.attrs["alpha"] = alpha
    return sensitivity_table, audit_table


def mutation_table(path=MUTATION_RECORD):
    """The mutation run's record as a table, one row per mutant (:data:`MUTATION_COLUMNS`).

    ``attrs`` holds the record's ``commit``, ``complete`` (every mutant of the list was run),
    ``started``/``finished`` and ``make_test`` (the marker selection of the second stage).

    Raises
    ------
    ValueError
        If the record holds no mutant.
    """
    record = json.loads(Path(path).read_text())
    if not record.get("mutants"):
        raise ValueError(f"mutation record {path} holds no mutant; run tests/mutants.py --json")
    rows = [{"mutant": e["id"], "kind": e["kind"], "what it breaks": e["description"],
             "file": e["file"], "killed": bool(e["killed"]), "killed by": e["killed_by"],
             "stage": e["stage"], "seconds": e["seconds"]} for e in record["mutants"]]
    table = import_extra("pandas", "reproduce", "mutation_table").DataFrame(
        rows, columns=MUTATION_COLUMNS)
    table.attrs.update({key: record.get(key) for key in
                        ("commit", "complete", "started", "finished", "make_test")})
    return table
