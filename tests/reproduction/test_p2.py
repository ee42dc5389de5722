"""Claims of paper P2 checked against the results files of the P2 notebooks.

The screening files hold both semantics (``dplasso.experiments.p2.SEMANTICS``); every claim
is checked on P2's reading, ``P2_SEMANTICS`` (zero-and-may-return), and P2's words are read
as written. Where a margin is needed it comes from the spread over runs (seeds x noise
trials): a comparison "A below B" means the largest run of A is below the smallest run of B.
``test_p2_claims_fail_with_the_other_semantics`` runs the semantics-dependent claims on a
copy of the results with the two semantics' rows swapped, and they fail.
"""
import numpy as np
import pandas as pd
import pytest
from scipy.stats import hypergeom

from dplasso.experiments.p2 import P2_SEMANTICS, SEMANTICS, final_counts
from statistical import ALPHA

TASKS = {"linear", "logistic"}

A_FEW = 5
"""P2's "up to a few nonzero coefficients", read as at most five; "up to a few ... which have
not been screened to zero" also means at least one."""

P2_EXPB_KEPT = 0.10
"""P2's experiment B: "nonzero components in approximately 10% of the true nonzero components"."""


def _finals(results, artifact):
    """Rows and per-run finals of P2's reading (the file must hold both semantics)."""
    rounds = pd.read_csv(results(artifact))
    assert set(rounds["task"]) == TASKS, f"{artifact} must cover both tasks"
    assert set(rounds["semantics"]) == set(SEMANTICS), f"{artifact} must hold both semantics"
    rounds = rounds[rounds["semantics"] == P2_SEMANTICS]
    return rounds, final_counts(rounds)


def _middle_schedule(finals):
    """Rows of the every-k-th schedule (neither every iteration nor last only)."""
    middle = finals[finals["every"].notna() & (finals["every"] > 1)]
    assert middle["every"].nunique() == 1, "expected one every-k-th schedule"
    return middle


def _total_nnz(finals):
    return finals["final_nnz_true_nonzero"] + finals["final_nnz_true_zero"]


def test_p2_nonprivate_keeps_nonzeros_only_on_the_true_support(results):
    """Artifact `p2-nonprivate`: non-private FW with the safe rule every iteration.

    P2: nonzeros only on the true support, and 55% of the true nonzeros kept. We check the
    first exactly (every run, nothing random given the data), that the rule does screen
    (some true zeros in every run), and the second as the book reports it: the share of true
    nonzeros kept lies strictly between none and all (lam = 5 < ||w*||_1 = 70 makes the
    constrained optimum sparser than w*); its value is reported, not tested against 55%,
    beside the exact optimum's share, whose support must be certified for every data set.
    """
    _, finals = _finals(results, "p2-nonprivate")
    every_iteration = finals[finals["schedule"] == "every iteration"]
    assert set(every_iteration["task"]) == TASKS
    assert (every_iteration["final_nnz_true_zero"] == 0).all()
    assert (every_iteration["n_screened_true_zero"] > 0).all()
    kept = every_iteration["frac_true_nonzero_kept"]
    assert ((kept > 0) & (kept < 1)).all(), kept.tolist()
    # the exact optimum's share the book states beside P2's 55%: one certified solve per
    # data set (the safe rule at the solution screens every feature it has at zero)
    optimum = pd.read_csv(results("p2-nonprivate").with_name("p2-nonprivate-optimum.csv"))
    assert set(optimum["task"]) == TASKS and optimum["certified"].all()
    assert set(zip(optimum["task"], optimum["seed"])) == set(zip(finals["task"], finals["seed"]))


def _enrichment_p_values(finals):
    """One-sided p-value per run: P(at most the observed true nonzeros among the screened).

    Under screening that ignores the truth, the screened set of size S is a uniformly random
    S-subset of the p features, so the number of true nonzeros in it is hypergeometric.
    """
    screened = finals["n_screened_true_zero"] + finals["n_screened_true_nonzero"]
    total = finals["n_true_zero"] + finals["n_true_nonzero"]
    informative = (screened > 0) & (screened < total)
    f = finals[informative]
    return hypergeom.cdf(f["n_screened_true_nonzero"], total[informative],
                         f["n_true_nonzero"], screened[informative])


@pytest.mark.statistical
def test_p2_fig1_algorithm1_cannot_discriminate(results):
    """Artifact `p2-fig1`: Algorithm 1 screens true zeros and true nonzeros alike.

    After the last iteration only, each run's screened set is tested for enrichment in true
    zeros with the one-sided hypergeometric test (``_enrichment_p_values``); the claim fails
    if any run has p-value below ``ALPHA / R`` (Bonferroni over the R runs). False-failure
    probability at most ``ALPHA`` when the screening ignores the truth; the private margins
    are ~1e-3 noise sds apart (`p2-noise`), so the residual bias is negligible. Power: the
    same test rejects every non-private run (the safe rule screens zeros only), checked
    below, so the test can fail.
    """
    check_cannot_discriminate(results, "p2-fig1")
    _, reference = _finals(results, "p2-nonprivate")
    reference_last = reference[reference["schedule"] == "last iteration"]
    reference_p = _enrichment_p_values(reference_last)
    assert len(reference_p) == len(reference_last)
    assert reference_p.max() < ALPHA / len(reference_p), reference_p


def check_cannot_discriminate(results, artifact):
    """After the last iteration no run of ``artifact`` (P2's reading) has a screened set
    enriched in true zeros (``_enrichment_p_values`` above ``ALPHA / R`` for its R runs)."""
    _, finals = _finals(results, artifact)
    last = finals[finals["schedule"] == "last iteration"]
    p_values = _enrichment_p_values(last)
    assert len(p_values) >= len(TASKS)
    assert p_values.min() > ALPHA / len(p_values), p_values


def check_frequent_screening_leaves_a_few(results, artifact):
    """Every run of ``artifact`` screening every iteration (P2's reading) ends with 1 to
    ``A_FEW`` nonzeros and, after the first 10 iterations, has at least one nonzero in every
    round and at most ``A_FEW`` on average; every output is smaller than the smallest
    non-private one (``p2-nonprivate``, same schedule), and every run screens more true
    nonzeros than any non-private run."""
    rounds, finals = _finals(results, artifact)
    _, reference = _finals(results, "p2-nonprivate")
    frequent = finals[finals["schedule"] == "every iteration"]
    frequent_reference = reference[reference["schedule"] == "every iteration"]
    assert len(frequent) >= len(TASKS)
    nnz = _total_nnz(frequent)
    assert ((nnz >= 1) & (nnz <= A_FEW)).all(), nnz.tolist()
    trajectory = rounds[(rounds["schedule"] == "every iteration") & (rounds["t"] > 10)]
    assert (trajectory["nnz"] >= 1).all()
    per_run = trajectory.groupby(["task", "seed", "trial"])["nnz"].mean()
    assert (per_run <= A_FEW).all(), per_run.max()
    assert nnz.max() < _total_nnz(frequent_reference).min()
    assert (frequent["n_screened_true_nonzero"].min()
            > frequent_reference["n_screened_true_nonzero"].max())


def test_p2_fig1_frequent_screening_leaves_a_few(results):
    """Artifact `p2-fig1`: screening every iteration leaves "up to a few" coefficients.

    P2: "after a few iterations, the weight vector is only able to have up to a few nonzero
    coefficients which have not been screened to zero". Read as written, for every
    Algorithm 1 run screening every iteration: the output has at least one and at most
    ``A_FEW`` nonzeros; after the first 10 iterations every round sees at least one nonzero
    coefficient, and the run's mean over those rounds is at most ``A_FEW``. And "it screens
    too many coefficients": every such output is smaller than the smallest non-private
    output (``p2-nonprivate``, same schedule), and every run screens more true nonzeros than
    any non-private run (``check_frequent_screening_leaves_a_few``).
    """
    check_frequent_screening_leaves_a_few(results, "p2-fig1")


def test_p2_expA_screens_nothing(results):
    """Artifact `p2-expA`: private FW with the exact rule screens nothing, at every schedule.

    Exact check over every round of every run (no randomness in the rule itself).
    """
    rounds, finals = _finals(results, "p2-expA")
    assert rounds["schedule"].nunique() == 3
    assert (rounds["n_screened_round"] == 0).all() and (rounds["n_screened"] == 0).all()
    assert (finals["final_nnz_true_zero"] > 0).all()  # the outputs are dense, not screened


def test_p2_expB_periodic_private_screening(results):
    """Artifact `p2-expB`: non-private FW with private screening every k-th iteration.

    P2: the output has "nonzero components in approximately 10% of the true nonzero
    components and none of the true zero components". "None": no run has a nonzero off the
    true support. "Approximately 10%", with a margin from the seed spread: for each task, the
    mean over data sets of the per-seed mean share of true nonzeros kept is within twice the
    standard deviation of those per-seed means of ``P2_EXPB_KEPT``. And "much stronger than
    its nonprivate counterpart": the largest share any private run keeps is below the
    smallest share any non-private run keeps.
    """
    _, finals = _finals(results, "p2-expB")
    _, reference = _finals(results, "p2-nonprivate")
    periodic = _middle_schedule(finals)
    periodic_reference = _middle_schedule(reference)
    assert (periodic["final_nnz_true_zero"] == 0).all()
    for task, part in periodic.groupby("task"):
        per_seed = part.groupby("seed")["frac_true_nonzero_kept"].mean()
        assert len(per_seed) >= 2, "the margin needs at least two data sets"
        margin = 2.0 * per_seed.std(ddof=1)
        assert abs(per_seed.mean() - P2_EXPB_KEPT) <= margin, (task, per_seed.tolist())
    assert (periodic["frac_true_nonzero_kept"].max()
            < periodic_reference["frac_true_nonzero_kept"].min())


@pytest.mark.statistical
def test_p2_expB_every_and_last_iteration_mimic_figure_1(results):
    """Artifact `p2-expB`, P2: "The results of this experiment when screening every iteration
    or only at the last iteration mimicked those found in the respective rows of Figure 1".
    Read as: experiment B's runs pass the checks of Figure 1's two rows, screening every
    iteration (``check_frequent_screening_leaves_a_few``) and after the last iteration
    (``check_cannot_discriminate``, false-failure probability at most ``ALPHA``; its power is
    shown on the non-private runs in ``test_p2_fig1_algorithm1_cannot_discriminate``). The
    every-iteration check fails with the semantics swapped (below).
    """
    check_frequent_screening_leaves_a_few(results, "p2-expB")
    check_cannot_discriminate(results, "p2-expB")


@pytest.mark.parametrize("claim", ["test_p2_fig1_frequent_screening_leaves_a_few",
                                   "test_p2_expB_periodic_private_screening",
                                   "test_p2_expB_every_and_last_iteration_mimic_figure_1"])
def test_p2_claims_fail_with_the_other_semantics(claim, results, registry, tmp_path):
    """The claims that depend on the semantics fail on a copy of the results in which each
    run's ``semantics`` label is swapped (our variant's numbers read as P2's reading)."""
    swap = dict(zip(SEMANTICS, reversed(SEMANTICS)))
    for artifact in ("p2-nonprivate", "p2-fig1", "p2-expB"):
        rounds = pd.read_csv(results(artifact))
        target = registry.results_path(artifact, tmp_path)
        target.parent.mkdir(parents=True, exist_ok=True)
        rounds.assign(semantics=rounds["semantics"].map(swap)).to_csv(target, index=False)
    globals()[claim](results)  # passes on the results as they are
    with pytest.raises(AssertionError):
        globals()[claim](lambda artifact: registry.results_path(artifact, tmp_path))


def test_p2_fig2_gap_larger_under_private_optimisation(results):
    """Artifact `p2-fig2`: the Wolfe gap is larger under private than non-private FW.

    At every logged iteration t >= 1, for each task, the smallest gap over all private runs
    exceeds the largest over all non-private runs (all seeds pooled). At t = 0 both start at
    w = 0, so within a seed the gaps are equal there (checked): that is the only burn-in.
    """
    curves = pd.read_csv(results("p2-fig2"))
    assert set(curves["task"]) == TASKS
    start = curves[curves["t"] == 0].groupby(["task", "seed"])["gap"]
    assert ((start.max() - start.min()) <= 1e-12 * start.max()).all()
    by_t = curves[curves["t"] >= 1].pivot_table(index=["task", "t"], columns="optimiser",
                                               values="gap", aggfunc=["min", "max"])
    separated = by_t[("min", "private")] > by_t[("max", "non-private")]
    assert separated.all(), by_t[~separated]


def test_p2_noise_grows_like_sqrt_d_and_swamps_the_negative_term(results):
    """Artifact `p2-noise`: noise sd ~ sqrt(d), larger than the rule's negative term.

    The noise sd is sqrt(d + 1) times one coordinate's sensitivity Delta_u (L2 sensitivity
    sqrt(d+1) Delta_u). Delta_u is free of d up to the (n+d) eps_mach floor factor (~1e-12
    relative) and, for the linear task, the generator's response bound, which falls slowly
    with d; so the dimension factor is checked on noise / Delta_u. Its least-squares slope in
    log(d) is a weighted average of secant slopes of log sqrt(d + 1), each in
    [d_min / (2 (d_min + 1)), 1/2]; the tolerance 1e-9 covers the calibration's 1e-14
    relative bisection and the floor factor. The noise must exceed the largest negative term
    over all features, for every task, seed and d.
    """
    noise = pd.read_csv(results("p2-noise"))
    assert set(noise["task"]) == TASKS and noise["d"].nunique() >= 3
    noise = noise.assign(factor=noise["noise_sd_margin"] / noise["sensitivity_coordinate"])
    for task, part in noise.groupby("task"):
        per_d = part.groupby("d")["factor"]
        assert (per_d.max() - per_d.min()).max() <= 1e-12 * per_d.max().max()  # free of data
        d = per_d.mean().index.to_numpy(dtype=float)
        slope = np.polyfit(np.log(d), np.log(per_d.mean().to_numpy()), 1)[0]
        low = 0.5 * d.min() / (d.min() + 1)
        assert low - 1e-9 <= slope <= 0.5 + 1e-9, (task, slope)
    assert (noise["noise_sd_margin"] > noise["negative_term_max"]).all()
