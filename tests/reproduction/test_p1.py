"""Claims of P1's method artifacts, checked against their results files.

Artifacts: `p1-dense`, `p1-dense-rules`, `p1-sparsity`, `p1-count-noise`, `p1-rate`, `p1-multinomial` (the claims
are the ``claim`` entries of ``artifacts.yaml``). The checks hold at the ``ci`` profile's sizes
and at the ``paper`` profile's.

**Margins.** A claim compares an estimate with a threshold ("A is at least B"); the check fails
only when the results contradict the claim beyond the noise of the estimate: it allows a slack
of ``q * se`` in the claim's favour, where ``se`` is the standard error of the estimate from
the spread over trials (or over data sets, or a bootstrap over them, as each check says) and
``q`` the one-sided quantile at ``ALPHA / m`` (``tests/statistical.py``; ``m`` the number of
comparisons in that test, a Bonferroni split): Student's t with ``trials - 1`` degrees of
freedom for a mean over trials, the standard normal for pooled means over hundreds of pairs and
for bootstrap spreads. So each test fails with probability at most ``ALPHA`` when its claim
holds (up to the normal approximation where used). Deterministic properties (counts that follow
from the construction) are checked exactly. Every check also runs on a deliberately broken copy
of the same results, which it must reject: the companion ``*_rejects_*`` tests.
"""
import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dplasso.estimators import MAX_AUTO_N_ITER
from dplasso.experiments.p1_rate import fit_rate_slope
from statistical import ALPHA, t_quantile

FAR = 5
"""``p1-dense``: "far denser than the true support" means at least five times as many nonzeros."""
COMPARABLE = 0.05
"""``p1-sparsity``: "comparable accuracy" means an average loss of less than 5 points."""
SPARSE_SHARE = 0.10
"""``p1-multinomial``: a "sparse weight matrix" has at most 10% of its pC entries nonzero."""


def _z(m):
    """One-sided standard-normal quantile at ALPHA / m."""
    return stats.norm.ppf(1.0 - ALPHA / m)


def _private(frame, method):
    return frame[frame["method"] == method]


def _paired(frame, metric, method, baseline):
    """Per (dataset, epsilon, trial): ``method`` minus ``baseline`` (same split)."""
    keys = ["dataset", "epsilon", "trial"]
    left = _private(frame, method).set_index(keys)[metric]
    right = _private(frame, baseline).set_index(keys)[metric]
    return (left - right).dropna().rename("d").reset_index()


# ---------------------------------------------------------------------------------------
# p1-dense


def check_dense(fits):
    """Random start dense; zero start far denser than the true support; Sparsifier at c~."""
    random_start = _private(fits, "random-init")
    assert len(random_start) > 0
    assert (random_start["nnz"] == random_start["n_coef"]).all(), \
        "a run from a random start has zero coefficients"

    zero = _private(fits, "zero-init")
    synthetic = zero[zero["dataset"] == "synthetic"].groupby("epsilon")["nnz"]
    support = fits.loc[fits["dataset"] == "synthetic", "true_support"].iloc[0]
    real = zero[zero["dataset"] != "synthetic"]
    counts = _private(fits, "non-private").groupby("dataset")["nnz"].mean()
    m = synthetic.ngroups + real.groupby(["dataset", "epsilon"]).ngroups
    for epsilon, nnz in synthetic:
        upper = nnz.mean() + t_quantile(m, nnz.size - 1) * nnz.std(ddof=1) / math.sqrt(nnz.size)
        assert upper >= FAR * support, (
            f"synthetic, eps={epsilon}: zero start has {nnz.mean():.1f} nonzeros, not "
            f"{FAR} x the true support {support:g}")
    for (dataset, epsilon), part in real.groupby(["dataset", "epsilon"]):
        nnz = part["nnz"]
        upper = nnz.mean() + t_quantile(m, nnz.size - 1) * nnz.std(ddof=1) / math.sqrt(nnz.size)
        assert upper > counts[dataset], (
            f"{dataset}, eps={epsilon}: zero start ({nnz.mean():.1f} nonzeros) is not denser "
            f"than the non-private solution ({counts[dataset]:.1f})")

    sparsifier = _private(fits, "sparsifier")
    assert len(sparsifier) > 0
    assert (sparsifier["nnz"] == np.minimum(sparsifier["target"], sparsifier["fw_nnz"])).all(), \
        "the Sparsifier does not keep min(c~, nonzeros of its private fit) coefficients"


def test_p1_dense_claim(results):
    """`p1-dense` (deterministic parts exact; per-epsilon means at ALPHA over all cells)."""
    check_dense(pd.read_csv(results("p1-dense")))


def test_p1_dense_check_rejects_broken_results(results):
    fits = pd.read_csv(results("p1-dense"))
    broken = fits.copy()
    random_rows = broken["method"] == "random-init"
    broken.loc[random_rows, "nnz"] = broken.loc[random_rows, "n_coef"] - 1
    with pytest.raises(AssertionError, match="random start"):
        check_dense(broken)
    broken = fits.copy()  # a "private LASSO" as sparse as the Sparsifier
    zero_rows = broken["method"] == "zero-init"
    sparse_rows = broken["method"] == "sparsifier"
    broken.loc[zero_rows, "nnz"] = broken.loc[sparse_rows, "nnz"].to_numpy()
    with pytest.raises(AssertionError, match="nonzeros"):
        check_dense(broken)
    broken = fits.copy()
    sparse_rows = broken["method"] == "sparsifier"
    broken.loc[sparse_rows, "nnz"] = broken.loc[sparse_rows, "fw_nnz"]
    with pytest.raises(AssertionError, match="min"):
        check_dense(broken)


def check_dense_rules(rules):
    """Talwar's T >= the automatic T (same dataset, budget, split); nnz <= T under both rules;
    under Talwar's T, more nonzeros than the non-private solution at every budget (per-cell
    means at ALPHA over all cells)."""
    zero = _private(rules, "zero-init")
    assert (zero["nnz"] <= zero["n_iter"]).all(), "private LASSO from zero has more than T nonzeros"
    steps = zero.groupby(["n_iter_rule", "dataset", "epsilon"])["n_iter"].first()
    assert (steps.loc["talwar"] >= steps.loc["auto"]).all(), "Talwar's T is below the automatic T"
    counts = _private(rules, "non-private").groupby("dataset")["nnz"].mean()
    talwar = zero[zero["n_iter_rule"] == "talwar"].groupby(["dataset", "epsilon"])["nnz"]
    for (dataset, epsilon), nnz in talwar:
        se = nnz.std(ddof=1) / math.sqrt(nnz.size) if nnz.size > 1 else 0.0
        assert nnz.mean() + t_quantile(talwar.ngroups, nnz.size - 1) * se > counts[dataset], (
            f"{dataset}, eps={epsilon}: under Talwar's T private LASSO from zero has "
            f"{nnz.mean():.1f} nonzeros, not more than the non-private {counts[dataset]:.1f}")


def test_p1_dense_rules_claim(results):
    check_dense_rules(pd.read_csv(results("p1-dense-rules")))


def test_p1_dense_rules_check_rejects_broken_results(results):
    rules = pd.read_csv(results("p1-dense-rules"))
    broken = rules.copy()
    talwar = (broken["method"] == "zero-init") & (broken["n_iter_rule"] == "talwar")
    broken.loc[talwar, "nnz"] = 0
    with pytest.raises(AssertionError, match="not more than the non-private"):
        check_dense_rules(broken)
    broken = rules.copy()
    broken.loc[talwar, "n_iter"] = 0
    with pytest.raises(AssertionError, match="T nonzeros|below the automatic"):
        check_dense_rules(broken)


# ---------------------------------------------------------------------------------------
# p1-sparsity


def check_sparsity(fits):
    """Sparsifier never denser, at most half the nonzeros overall, average loss < 5 points."""
    nnz = _paired(fits, "nnz", "sparsifier", "zero-init")
    cells = nnz.groupby(["dataset", "epsilon"])["d"]
    m = cells.ngroups + 2
    for (dataset, epsilon), d in cells:
        lower = d.mean() - t_quantile(m, d.size - 1) * d.std(ddof=1) / math.sqrt(d.size)
        assert lower <= 0, (f"{dataset}, eps={epsilon}: the Sparsifier is denser than private "
                            f"LASSO by {d.mean():.2f} nonzeros")
    # at most half: sum over cells of mean(nnz_zero / 2 - nnz_sparsifier) >= 0
    keys = ["dataset", "epsilon", "trial"]
    half = (_private(fits, "zero-init").set_index(keys)["nnz"] / 2
            - _private(fits, "sparsifier").set_index(keys)["nnz"]).rename("e").reset_index()
    total, variance = _cell_sum(half, "e")
    assert total + _z(m) * math.sqrt(variance) >= 0, (
        f"the Sparsifier has more than half of private LASSO's nonzeros summed over cells "
        f"(excess {-total:.1f})")
    accuracy = _paired(fits, "accuracy", "sparsifier", "zero-init")
    total, variance = _cell_sum(accuracy, "d")
    n_cells = accuracy.groupby(["dataset", "epsilon"]).ngroups
    assert (total + _z(m) * math.sqrt(variance)) / n_cells >= -COMPARABLE, (
        f"the Sparsifier loses {-total / n_cells:.3f} accuracy on average")


AT_CHANCE = 0.02
"""``p1-sparsity``: "near the majority rate" means within two points of it (the chapter's count)."""


def check_sparsity_against_chance(fits):
    """The synthetic set is where private Frank-Wolfe works: at the largest eps both private
    methods beat the majority rate; on the real data it mostly does not: on at least half of
    the real (dataset, eps) cells private LASSO is not clearly more than AT_CHANCE above it."""
    cells = fits[fits["method"].isin(["zero-init", "sparsifier"])].assign(
        margin=lambda f: f["accuracy"] - f["majority"]).groupby(
        ["dataset", "epsilon", "method"])["margin"]
    half_width = (stats.t.ppf(1.0 - ALPHA / cells.ngroups, cells.size() - 1)
                  * cells.std(ddof=1) / np.sqrt(cells.size()))
    low = cells.mean() - half_width
    top = fits["epsilon"].max()
    synthetic = low.xs(("synthetic", top), level=("dataset", "epsilon"))
    assert (synthetic > 0).all(), (f"on the synthetic set at eps={top:g} a private method is not "
                                   f"above the majority rate: {synthetic.to_dict()}")
    above = low.drop("synthetic", level="dataset", errors="ignore").xs(
        "zero-init", level="method") > AT_CHANCE
    assert above.sum() <= len(above) / 2, (
        f"private LASSO is clearly more than {AT_CHANCE:.0%} above the majority rate on "
        f"{int(above.sum())} of {len(above)} real cells, not at most half")


def check_l2_reference(fits):
    """The L2 reference stands beside every Sparsifier fit (same dataset, budget and trial),
    keeps every coefficient, and on the synthetic set at the largest eps beats the majority
    rate (per-cell t margin at ALPHA)."""
    keys = ["dataset", "epsilon", "trial"]
    l2 = fits[fits["method"] == "l2"]
    sparsifier = fits[fits["method"] == "sparsifier"]
    assert (sorted(map(tuple, l2[keys].to_numpy()))
            == sorted(map(tuple, sparsifier[keys].to_numpy()))), "L2 rows missing"
    assert (l2["nnz"] == l2["n_coef"]).all(), "the L2 reference is not dense"
    top = l2[(l2["dataset"] == "synthetic") & (l2["epsilon"] == l2["epsilon"].max())]
    margin = top["accuracy"] - top["majority"]
    low = margin.mean() - t_quantile(1, len(margin) - 1) * margin.std(ddof=1) / np.sqrt(
        len(margin))
    assert low > 0, f"the L2 reference is not above the majority rate on the synthetic set: {low}"


def test_p1_sparsity_l2_reference_stands_beside(results):
    """`p1-sparsity`: the L2 reference column of the table."""
    check_l2_reference(pd.read_csv(results("p1-sparsity")))


def test_p1_sparsity_l2_check_rejects_broken_results(results):
    fits = pd.read_csv(results("p1-sparsity"))
    l2 = fits["method"] == "l2"
    with pytest.raises(AssertionError, match="missing"):
        check_l2_reference(fits[~(l2 & (fits["epsilon"] == fits["epsilon"].min()))])
    broken = fits.copy()
    broken.loc[l2, "nnz"] -= 1
    with pytest.raises(AssertionError, match="not dense"):
        check_l2_reference(broken)
    broken = fits.copy()
    broken.loc[l2 & (broken["dataset"] == "synthetic"), "accuracy"] -= 0.5
    with pytest.raises(AssertionError, match="not above the majority"):
        check_l2_reference(broken)


def _cell_sum(frame, column):
    """Sum over (dataset, epsilon) cells of the mean of ``column``, and its variance."""
    grouped = frame.groupby(["dataset", "epsilon"])[column]
    means, variances, sizes = grouped.mean(), grouped.var(ddof=1).fillna(0.0), grouped.size()
    return float(means.sum()), float((variances / sizes).sum())


def test_p1_sparsity_claim(results):
    """`p1-sparsity` (per-cell t margins and pooled normal margins, ALPHA over all checks)."""
    check_sparsity(pd.read_csv(results("p1-sparsity")))


def test_p1_sparsity_accuracy_stands_beside_the_majority_rate(results):
    """`p1-sparsity`: above chance where it works, near it on most real cells (per-cell t
    margins, Bonferroni over the cells)."""
    check_sparsity_against_chance(pd.read_csv(results("p1-sparsity")))


def test_p1_sparsity_chance_check_rejects_broken_results(results):
    fits = pd.read_csv(results("p1-sparsity"))
    broken = fits.copy()  # private Frank-Wolfe no better than chance on the synthetic set
    synthetic = broken["dataset"] == "synthetic"
    broken.loc[synthetic, "accuracy"] = broken.loc[synthetic, "majority"] - 0.01
    with pytest.raises(AssertionError, match="not above the majority rate"):
        check_sparsity_against_chance(broken)
    broken = fits.copy()  # accurate on every real cell
    broken["accuracy"] = np.where(synthetic, broken["accuracy"], broken["majority"] + 0.2)
    with pytest.raises(AssertionError, match="not at most half"):
        check_sparsity_against_chance(broken)


def test_p1_sparsity_check_rejects_broken_results(results):
    fits = pd.read_csv(results("p1-sparsity"))
    zero = fits["method"] == "zero-init"
    sparsifier = fits["method"] == "sparsifier"
    broken = fits.copy()  # a Sparsifier that keeps everything its private fit has, plus some
    broken.loc[sparsifier, "nnz"] = broken.loc[zero, "nnz"].to_numpy() + 3
    with pytest.raises(AssertionError, match="denser"):
        check_sparsity(broken)
    broken = fits.copy()
    broken.loc[sparsifier, "accuracy"] = broken.loc[zero, "accuracy"].to_numpy() - 0.1
    with pytest.raises(AssertionError, match="loses"):
        check_sparsity(broken)


# ---------------------------------------------------------------------------------------
# p1-count-noise


def _sd_and_se(values):
    """Sample sd and its large-sample standard error sd * sqrt((kurtosis - 1) / (4 n))."""
    values = np.asarray(values, dtype=float)
    sd = values.std(ddof=1)
    if sd == 0:
        return 0.0, 0.0
    kurtosis = np.mean((values - values.mean()) ** 4) / values.var() ** 2
    return sd, sd * math.sqrt(max(kurtosis - 1.0, 0.0) / (4 * values.size))


def check_count_noise(draws):
    """Spread grows as eps1 shrinks; double geometric narrower (exactly), and not wider (draws).

    The draws of one column are independent in the count; the Frank-Wolfe part is a fixed set
    of runs cycled through, the same in every column.
    """
    epsilons = sorted(draws["epsilon_count"].unique())
    noises = sorted(draws["noise"].unique())
    assert noises == ["geometric", "laplace"]
    column = {(noise, e): part for (noise, e), part in draws.groupby(["noise", "epsilon_count"])}
    m = 2 * (len(epsilons) - 1) + len(epsilons) + 2
    z = _z(m)
    for noise in noises:
        for small, large in zip(epsilons[:-1], epsilons[1:]):
            sd_small, se_small = _sd_and_se(column[(noise, small)]["nnz"])
            sd_large, se_large = _sd_and_se(column[(noise, large)]["nnz"])
            assert sd_small - sd_large + z * math.hypot(se_small, se_large) > 0, (
                f"{noise}: the spread does not grow from eps1={large} ({sd_large:.3f}) to "
                f"eps1={small} ({sd_small:.3f})")
    for e in epsilons:
        exact_geometric = column[("geometric", e)]["noise_sd"].iloc[0]
        exact_laplace = column[("laplace", e)]["noise_sd"].iloc[0]
        assert exact_geometric < exact_laplace, f"eps1={e}: double geometric not narrower"
        sd_g, se_g = _sd_and_se(column[("geometric", e)]["target"])
        sd_l, se_l = _sd_and_se(column[("laplace", e)]["target"])
        assert sd_g - sd_l - z * math.hypot(se_g, se_l) < 0, (
            f"eps1={e}: the released double-geometric counts spread wider ({sd_g:.3f}) than "
            f"the Laplace ones ({sd_l:.3f})")
    largest = epsilons[-1]  # clipping negligible there: the draws follow the exact noise law
    for noise in noises:
        part = column[(noise, largest)]
        clipped = np.mean((part["target"] == 1) | (part["target"] == part["n_coef"]))
        assert clipped < 0.01
        sd, se = _sd_and_se(part["target"])
        assert abs(sd - part["noise_sd"].iloc[0]) <= z * se, (
            f"{noise}, eps1={largest}: released counts spread {sd:.3f}, exact noise sd "
            f"{part['noise_sd'].iloc[0]:.3f}")


def test_p1_count_noise_claim(results):
    """`p1-count-noise` (sd standard errors from the sample kurtosis, ALPHA over all checks)."""
    check_count_noise(pd.read_csv(results("p1-count-noise")))


def test_p1_count_noise_check_rejects_broken_results(results):
    draws = pd.read_csv(results("p1-count-noise"))
    swapped = draws.assign(noise=draws["noise"].map({"geometric": "laplace",
                                                     "laplace": "geometric"}))
    with pytest.raises(AssertionError, match="narrower"):
        check_count_noise(swapped)
    # a double-geometric sampler at twice the scale (e.g. a sensitivity of 2 applied twice)
    widened = draws.copy()
    rows = widened["noise"] == "geometric"
    doubled = widened.loc[rows, "count"] + 2 * (widened.loc[rows, "target"]
                                                - widened.loc[rows, "count"])
    widened.loc[rows, "target"] = doubled.clip(1, widened["n_coef"].iloc[0])
    with pytest.raises(AssertionError, match="spread"):
        check_count_noise(widened)
    reversed_ = draws.copy()  # the spread shrinking as eps1 shrinks
    epsilons = sorted(draws["epsilon_count"].unique())
    reversed_["epsilon_count"] = draws["epsilon_count"].map(dict(zip(epsilons, epsilons[::-1])))
    with pytest.raises(AssertionError, match="does not grow"):
        check_count_noise(reversed_)


# ---------------------------------------------------------------------------------------
# p1-rate


def check_rate(rates, lam):
    """Excess risk below the bound, falling with n, more slowly than n^(-2/3) over the range,
    steepening at the end.

    Below the bound: the mean excess risk of each (n, eps) is at most the bound's first term
    alone, 2 lam^2 / (T + 2) (the bound is on the expected excess risk, and its second term is
    positive); the paper record's largest ratio is 0.21, so the sampling error of a mean over
    runs cannot decide it. Spreads of the slopes: bootstrap over the data sets of each n
    (``fit_rate_slope``), normal quantiles.
    """
    assert rates["n_iter"].max() < MAX_AUTO_N_ITER, "T reached the cap of auto_n_iter"
    assert (rates["excess"] >= -rates["gap"]).all()
    slopes = fit_rate_slope(rates)
    z = _z(2 * len(slopes) + 1)
    for _, fit in slopes.iterrows():
        assert fit["slope"] - z * fit["slope_se"] < 0, \
            f"eps={fit['epsilon']}: the excess risk does not fall with n"
        assert fit["slope"] + z * fit["slope_se"] > -2.0 / 3.0, (
            f"eps={fit['epsilon']}: fitted slope {fit['slope']:.3f} is steeper than -2/3, "
            "not the documented pre-asymptotic finding")
    largest = slopes.loc[slopes["epsilon"].idxmax()]
    assert largest["bend"] - z * largest["bend_se"] < 0, (
        f"eps={largest['epsilon']}: the curve does not steepen at the largest n "
        f"(bend {largest['bend']:.3f})")
    means = rates.groupby(["epsilon", "n"]).agg(excess=("excess", "mean"),
                                                n_iter=("n_iter", "max"))
    first_term = 2 * lam**2 / (means["n_iter"] + 2)
    assert (means["excess"] <= first_term).all(), \
        f"the mean excess risk exceeds the bound: {(means['excess'] / first_term).max():.2f}"


def _rate_lam(results):
    """The L1 radius of the ``p1-rate`` run (its record's parameters)."""
    run = json.loads((results("p1-rate").parent / "run.json").read_text())
    return float(run["parameters"]["lam"])


def test_p1_rate_claim(results):
    """`p1-rate` (bootstrap standard errors over data sets, ALPHA over all checks)."""
    check_rate(pd.read_csv(results("p1-rate")), _rate_lam(results))


def test_p1_rate_check_rejects_broken_results(results):
    rates, lam = pd.read_csv(results("p1-rate")), _rate_lam(results)
    fast = rates.assign(excess=rates["excess"] * (rates["n"] / rates["n"].min()) ** -1.0)
    with pytest.raises(AssertionError, match="steeper than -2/3"):
        check_rate(fast, lam)
    flat = rates.assign(excess=rates["excess"] * (rates["n"] / rates["n"].min()) ** 0.6)
    with pytest.raises(AssertionError, match="does not fall"):
        check_rate(flat, lam)
    above = rates.assign(excess=rates["excess"] * 10)  # the same slopes, above the bound
    with pytest.raises(AssertionError, match="exceeds the bound"):
        check_rate(above, lam)


# ---------------------------------------------------------------------------------------
# p1-multinomial


def check_multinomial(fits, usable=("optdigits",)):
    """Sparse weight matrices; clearly above chance at the largest eps on the ``usable`` sets."""
    sparsifier = _private(fits, "sparsifier")
    assert (sparsifier["nnz"] == np.minimum(sparsifier["target"], sparsifier["fw_nnz"])).all()
    density = sparsifier["nnz"] / sparsifier["n_coef"]
    assert density.max() <= SPARSE_SHARE, \
        f"a Sparsifier weight matrix has {density.max():.1%} of its entries nonzero"
    largest = sparsifier[sparsifier["epsilon"] == sparsifier["epsilon"].max()]
    for dataset in usable:
        gain = largest.loc[largest["dataset"] == dataset]
        d = gain["accuracy"] - gain["majority"]  # paired by split
        assert d.size > 1, f"no {dataset} rows"
        upper = d.mean() + t_quantile(len(usable), d.size - 1) * d.std(ddof=1) / math.sqrt(d.size)
        assert upper > 0, f"{dataset}: the Sparsifier is not above chance ({d.mean():+.3f})"


def check_multinomial_default(fits, usable=("optdigits",)):
    """The default estimator (beyond P1) at the largest eps: clearly above chance on the
    ``usable`` sets, and not clearly below chance on any dataset."""
    default = _private(fits, "default")
    assert len(default), "no default-estimator rows"
    largest = default[default["epsilon"] == default["epsilon"].max()]
    gaps = largest.assign(d=largest["accuracy"] - largest["majority"]).groupby("dataset")["d"]
    for dataset, d in gaps:
        assert d.size > 1, f"{dataset}: one trial"
        margin = t_quantile(2 * gaps.ngroups, d.size - 1) * d.std(ddof=1) / math.sqrt(d.size)
        # >= 0: a fit that releases the majority constant (the joint release's fallback)
        # is at chance, not below it
        assert d.mean() + margin >= 0, (
            f"{dataset}: the default estimator is {-d.mean():.3f} below chance")
        if dataset in usable:
            assert d.mean() - margin > 0, (
                f"{dataset}: the default estimator is not above chance ({d.mean():+.3f})")


def check_multinomial_l2(fits, from_epsilon=2.0):
    """The L2 reference (one-vs-rest, dense) runs at every (dataset, eps); at every eps >=
    ``from_epsilon`` the default is not clearly less accurate than it (paired by trial: same
    split, other noise; t margin at ALPHA over the cells)."""
    l2, default = _private(fits, "l2"), _private(fits, "default")
    cells = set(zip(default["dataset"], default["epsilon"]))
    assert cells and cells == set(zip(l2["dataset"], l2["epsilon"])), (
        "the L2 reference lacks a cell of the default")
    assert (l2["nnz"] >= 0.9 * l2["n_coef"]).all(), "an L2 reference weight matrix is sparse"
    keys = ["dataset", "epsilon", "trial"]
    paired = (default.set_index(keys)["accuracy"] - l2.set_index(keys)["accuracy"]).dropna()
    paired = paired[paired.index.get_level_values("epsilon") >= from_epsilon]
    groups = paired.groupby(level=["dataset", "epsilon"])
    assert groups.ngroups, f"no budget of at least {from_epsilon}"
    for (dataset, epsilon), d in groups:
        margin = t_quantile(groups.ngroups, d.size - 1) * d.std(ddof=1) / math.sqrt(d.size)
        assert d.mean() + margin >= 0, (
            f"{dataset} at eps {epsilon:g}: the default is {-d.mean():.3f} below the L2 "
            "reference")


def test_p1_multinomial_claim(results):
    """`p1-multinomial` (deterministic parts exact; t margin over trials at ALPHA)."""
    fits = pd.read_csv(results("p1-multinomial"))
    check_multinomial(fits)
    check_multinomial_default(fits)
    check_multinomial_l2(fits)


def test_p1_multinomial_l2_check_rejects_broken_results(results):
    fits = pd.read_csv(results("p1-multinomial"))
    l2 = fits["method"] == "l2"
    with pytest.raises(AssertionError, match="below the L2"):
        check_multinomial_l2(fits.assign(accuracy=np.where(
            fits["method"] == "default", fits["accuracy"] - 0.5, fits["accuracy"])))
    with pytest.raises(AssertionError, match="lacks a cell"):
        check_multinomial_l2(fits[~(l2 & (fits["epsilon"] == fits["epsilon"].max()))])


def test_p1_multinomial_default_check_rejects_broken_results(results):
    fits = pd.read_csv(results("p1-multinomial"))
    is_default = fits["method"] == "default"
    at_chance = fits.assign(accuracy=np.where(is_default, fits["majority"] + np.where(
        np.arange(len(fits)) % 2, 0.01, -0.01), fits["accuracy"]))
    with pytest.raises(AssertionError, match="not above chance"):
        check_multinomial_default(at_chance)
    below = fits.assign(accuracy=np.where(is_default, fits["majority"] - 0.1,
                                          fits["accuracy"]))
    with pytest.raises(AssertionError, match="below chance"):
        check_multinomial_default(below)


def test_p1_multinomial_check_rejects_broken_results(results):
    fits = pd.read_csv(results("p1-multinomial"))
    chance = fits.assign(accuracy=np.where(fits["method"] == "sparsifier",
                                           fits["majority"] - 0.02, fits["accuracy"]))
    with pytest.raises(AssertionError, match="not above chance"):
        check_multinomial(chance)
    dense = fits.assign(nnz=np.where(fits["method"] == "sparsifier", fits["fw_nnz"],
                                     fits["nnz"]))
    with pytest.raises(AssertionError, match="entries nonzero"):
        check_multinomial(dense.assign(target=dense["fw_nnz"] + 1))
