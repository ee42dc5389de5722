r"""Searches and audits of the Sparsifier's counts: P1's noisy support size, the block
median, the accuracy count and the noise floor.

P1's count has no small proven sensitivity (``prop-count-sensitivity``: one row moves it from
1 to ``p``); the three designs of :mod:`dplasso.estimators.private_count` have utilities of
sensitivity 1 (the accuracy count and the block median, read from their ledger events) or
none (the noise floor, post-processing).
"""
from __future__ import annotations

import numpy as np

from dplasso.audit.broken import reads_data, wrong_count_epsilon
from dplasso.audit.cases._base import AuditCase, SensitivityCase, released_weights_problem
from dplasso.audit.cases.frank_wolfe import _fit_pair
from dplasso.audit.statistics import AccuracyCountUtility, BlockMedianUtility, LassoSupportSize
from dplasso.data.synthetic import sparse_logistic_synthetic
from dplasso.estimators.count import noisy_count, resolve_count_sensitivity
from dplasso.estimators.params import DEFAULT_COUNT_FRACTION, DEFAULT_LAM
from dplasso.estimators.private_count import (
    accuracy_count,
    accuracy_count_event,
    accuracy_count_sizes,
    block_median_count,
    block_median_event,
    block_support_sizes,
    noise_floor_count,
)
from dplasso.estimators.private_frank_wolfe import private_frank_wolfe_trials
from dplasso.estimators.problem import prepare_design
from dplasso.optim.losses import LogisticLoss
from dplasso.privacy.neighbours import REPLACE_ONE
from dplasso.privacy.rng import as_generator

__all__ = ["count_sensitivity_case", "count_worst_case_pair", "sparsifier_count_cases",
           "block_median_sensitivity_case", "accuracy_count_sensitivity_cases",
           "block_median_cases", "accuracy_count_cases", "noise_floor_cases"]


def count_sensitivity_case(count_sensitivity=1, lam=5.0, n=60, p=8, random_state=0):
    """The Sparsifier count: nonzeros of the non-private L1-ball logistic fit (no theorem).

    The count is :func:`dplasso.estimators.count.lasso_support_size` (radius ``lam``,
    intercept column not counted) on :func:`dplasso.data.synthetic.sparse_logistic_synthetic`
    data (``k = 3`` true nonzeros). The declared value is the library's resolution of
    ``count_sensitivity`` (:func:`~dplasso.estimators.count.resolve_count_sensitivity`), by
    default P1's 1; the proven bound is ``p`` (``prop-count-sensitivity``); the search reports
    what it finds, possibly more.
    Every evaluation is a certified solve, so the search is kept small (two ascent starts of
    two rounds).

    Returns
    -------
    SensitivityCase
    """
    data = sparse_logistic_synthetic(n=n, p=p, k=3, random_state=random_state)
    declared = float(resolve_count_sensitivity(count_sensitivity, p))
    return SensitivityCase(
        "Sparsifier count (nnz of the non-private L1-ball fit)", LassoSupportSize(lam),
        data.X, data.y, declared, "1", theorem=count_sensitivity == "max" or declared >= p,
        tight=False,
        search={"ascent_starts": 2, "ascent_rounds": 2}, proven=float(p))


def count_worst_case_pair(p, m=20):
    r"""The book's ``prop-count-sensitivity``: replace-one neighbours with counts 1 and ``p``.

    :math:`D`: ``m/2`` rows :math:`(+e_1, 1)` and ``m/2`` rows :math:`(-e_1, 0)`; for each
    :math:`j \ge 2`, ``m/2`` rows :math:`(e_j, 1)` and ``m/2`` rows :math:`(e_j, 0)`; two zero
    rows labelled 1 and 0. :math:`D'` replaces the zero row labelled 0 by
    :math:`((0, 1, \dots, 1), 1)`. Only feature 1 carries signal in :math:`D`; in :math:`D'`
    every feature does, equally.

    Parameters
    ----------
    p : int
        Number of features, ``>= 2``.
    m : int, default=20
        Rows per feature, even and ``>= 2``.

    Returns
    -------
    tuple
        ``((X, y), (X_prime, y_prime))`` with ``n = m p + 2`` rows in
        :math:`\|x\|_\infty \le 1` and labels ``{0, 1}``.
    """
    if p < 2 or m < 2 or m % 2:
        raise ValueError(f"need p >= 2 and an even m >= 2, got p={p}, m={m}")
    half = m // 2
    X = np.zeros((m * p + 2, p))
    y = np.zeros(m * p + 2, dtype=np.int64)
    X[np.arange(m * p), np.repeat(np.arange(p), m)] = 1.0
    y[: m * p] = np.tile(np.r_[np.ones(half), np.zeros(half)], p).astype(np.int64)
    X[half:m, 0] = -1.0  # feature 1: the label-0 rows point the other way
    y[m * p] = 1
    X_prime, y_prime = X.copy(), y.copy()
    X_prime[-1, 1:] = 1.0
    y_prime[-1] = 1
    return (X, y), (X_prime, y_prime)


def sparsifier_count_cases(count_case, search, epsilon_count=1, count_sensitivity=1,
                           count_fraction=DEFAULT_COUNT_FRACTION):
    r"""The Sparsifier's noisy count, correct and with the wrong epsilon.

    Mechanism: :func:`dplasso.estimators.count.noisy_count` (P1's
    :math:`\tilde c = \mathrm{clip}(c + Z, 1, p)`, :math:`Z` double-geometric of scale
    ``count_sensitivity / epsilon_count``, exact sampler) applied to the non-private count
    ``count_case.statistic`` of the dataset.

    Pair: the witness of the count search ``search`` (run on ``count_case``), the
    neighbour that moved the count most. When that change exceeds ``count_sensitivity``
    the claim ``epsilon_count`` is false, and the audit of the *correct* variant can show it.

    Variant ``count-wrong-epsilon``: ``noisy_count`` called with the whole budget
    ``epsilon_count / count_fraction`` instead of the count's share.

    Parameters
    ----------
    count_case : SensitivityCase
        From :func:`count_sensitivity_case`.
    search : SearchResult
        ``count_case.run(...)``.
    epsilon_count : int, float or fractions.Fraction, default=1
        The count's share of the budget.
    count_sensitivity : int, default=1
        The declared count sensitivity the noise is calibrated to.
    count_fraction : float, default=DEFAULT_COUNT_FRACTION
        The count's share of the total budget (the Sparsifier's default, 0.25).

    Returns
    -------
    list of AuditCase
    """
    D = (count_case.X, count_case.y)
    D_prime = search.witness.apply(*D)
    count = count_case.statistic
    n_features = count_case.X.shape[1]
    cases = []
    for release in [noisy_count, wrong_count_epsilon(noisy_count, 1.0 / count_fraction)]:

        def mechanism(data, size, rng, release=release):
            return release(int(count(*data)[0]), epsilon_count, count_sensitivity, "geometric",
                           rng, n_max=n_features, size=size)

        cases.append(AuditCase(
            f"Sparsifier count (eps1={float(epsilon_count):g}, declared sensitivity "
            f"{count_sensitivity:g})", getattr(release, "broken_variant", "correct"),
            mechanism, D, D_prime, float(epsilon_count), 0.0, "threshold", None,
            f"{REPLACE_ONE}: count-search witness, count moves by {search.found:g}",
            release=noisy_count))
    return cases


def block_median_sensitivity_case(random_state=0, n=60, p=8, n_blocks=4, lam=DEFAULT_LAM):
    r"""The block-median count's rank utility :math:`u(k)`, ``k = 1..p`` (theorem 1).

    :func:`dplasso.data.synthetic.sparse_logistic_synthetic` data (``k = 3`` true
    nonzeros) in ``n_blocks`` blocks of ``n / n_blocks`` rows, the intercept column inside
    the ball and not counted. Tight: a neighbour that changes one block's support size moves
    :math:`u` by 1 at the candidates next to the median, and small blocks' support sizes
    move easily. Every evaluation solves one block (the others are cached).

    Returns
    -------
    SensitivityCase
    """
    data = sparse_logistic_synthetic(n=n, p=p, k=3, random_state=random_state)
    return SensitivityCase(
        f"block-median rank utility u(k) ({n_blocks} blocks of {n // n_blocks} rows)",
        BlockMedianUtility(lam, n_blocks), data.X, data.y,
        block_median_event(1.0, n_blocks).sensitivity, "inf", theorem=True, tight=True,
        proven=1.0)


def accuracy_count_sensitivity_cases(random_state=0):
    r"""The accuracy count's utility vectors :math:`u(k)` over the public sizes (theorem 1).

    Rademacher rows (``n = 40``, ``p = 12``, the constant column appended) and released
    weights drawn in the ball of radius ``lam = 5`` (intercept entry included), held fixed
    (a public input of the release, the book's ``lemma-accuracy-count``): binary (sizes 1,
    2, 4, 8, 12), and three classes (sizes 1 to 36). Every entry is a count, or the largest
    of a size's counts over its offsets, so a label flip of a row that one size classifies
    correctly at its best offset moves that entry by exactly 1: the bound is attained.

    Returns
    -------
    list of SensitivityCase
    """
    rng = as_generator(random_state)
    X, labels, w, W = released_weights_problem(rng, 40, 12)
    classes = rng.integers(0, 3, X.shape[0]).astype(np.float64)
    declared = {n_classes: accuracy_count_event(1.0, accuracy_count_sizes(
        X.shape[1] * (n_classes if n_classes > 2 else 1)).size).sensitivity
        for n_classes in (2, 3)}
    return [
        SensitivityCase("accuracy-count utility u(k), binary (5 sizes)",
                        AccuracyCountUtility(w), X, labels, declared[2], "inf", theorem=True,
                        tight=True, proven=1.0),
        SensitivityCase("accuracy-count utility u(k), 3 classes (7 sizes)",
                        AccuracyCountUtility(W), X, classes, declared[3], "inf",
                        theorem=True, tight=True, proven=1.0),
    ]


def _interleave(blocks):
    """Rows of equally long block datasets interleaved: block ``b`` = rows ``i % B == b``."""
    n_blocks = len(blocks)
    X = np.empty((n_blocks * blocks[0][0].shape[0], blocks[0][0].shape[1]))
    y = np.empty(X.shape[0], dtype=np.int64)
    for b, (X_b, y_b) in enumerate(blocks):
        X[b::n_blocks], y[b::n_blocks] = X_b, y_b
    return X, y


def block_median_cases(epsilon_count=1.0, p=32, rows_per_feature=20,
                       count_fraction=DEFAULT_COUNT_FRACTION, lam=DEFAULT_LAM):
    r"""The block-median count release, correct and with the whole budget.

    Mechanism: :func:`~dplasso.estimators.private_count.block_support_sizes` (``B = 2``
    blocks, logistic loss, radius ``lam``, intercept inside the ball and not counted) then
    :func:`~dplasso.estimators.private_count.block_median_count` over :math:`k = 1..p`.

    Worst-case pair. Both blocks are the :math:`D` of :func:`count_worst_case_pair` (support
    size 1); in :math:`D'` block 0 is that pair's :math:`D'` (support size :math:`p`), one
    row replaced. Then :math:`u_D = (2, 0, \dots, 0)` and :math:`u_{D'} = (1, \dots, 1)`: the
    utility falls at :math:`k = 1` and rises everywhere else, and
    :math:`P_D(1)/P_{D'}(1) = p e^{\varepsilon_1}/(e^{\varepsilon_1} + p - 1)`, 0.95 of the
    bound :math:`e^{\varepsilon_1}` at ``p = 32``, ``eps1 = 1``, on an event of probability
    :math:`1/p` under :math:`D'`.

    Variant ``count-wrong-epsilon``: ``block_median_count`` called with the whole budget
    ``epsilon_count / count_fraction`` instead of the count's share.
    """
    block, block_prime = count_worst_case_pair(p, rows_per_feature)
    D = _interleave([block, block])
    D_prime = _interleave([block_prime, block])
    loss = LogisticLoss()
    cases = []
    for release in (block_median_count,
                    wrong_count_epsilon(block_median_count, 1.0 / count_fraction)):

        def mechanism(data, size, rng, release=release):
            X, y = data
            design = prepare_design(X, fit_intercept=True, bounds="error")
            sizes = block_support_sizes(loss, design, y, lam, 2, fit_intercept=True)
            return release(sizes, n_countable=p, epsilon=epsilon_count, rng=rng,
                           n_trials=size)

        cases.append(AuditCase(
            f"block-median count (eps1={epsilon_count:g}, B=2, p={p})",
            getattr(release, "broken_variant", "correct"), mechanism, D, D_prime,
            float(epsilon_count), 0.0, "set", None,
            f"{REPLACE_ONE}: crafted, one row of block 0 replaced; block support sizes "
            f"(1, 1) vs ({p}, 1)", release=block_median_count))
    return cases


def accuracy_count_cases(epsilon_count=1.0, p=64, n_agreeing=3):
    r"""The accuracy-count release, correct and with twice its budget.

    Mechanism: :func:`~dplasso.estimators.private_count.accuracy_count` on the design with
    its constant column, for public released weights :math:`w = (1, 1, 0.01, \dots, 0.01)`
    (``p`` features, intercept 0), runs batched as ``K`` identical weight columns. Sizes
    :math:`1, 2, 4, \dots, p` (7 at ``p = 64``). Output: the released size (threshold events,
    ``{k <= 1}`` among them).

    Worst-case pair. ``n_agreeing`` zero rows of label 0 and ``n_agreeing`` rows
    :math:`e_1` of label 1 pin every size's best offset to :math:`(-1, 0)` (leaving it loses
    ``n_agreeing >= 2`` rows to gain at most one). Row 0 is :math:`(0, 1, \dots, 1)`: score 0
    under size 1 (predicted 0) and at least 1 under every larger size (predicted 1). Its
    label is 0 in :math:`D` and 1 in :math:`D'`, so :math:`u` moves by :math:`+1` on size 1
    and :math:`-1` on the ``S - 1`` others, and
    :math:`P_D(1)/P_{D'}(1) = e^{\varepsilon/2}(1 + (S-1)e^{\varepsilon/2})/(e^{\varepsilon/2}
    + S - 1)`: 0.85 of the bound in log at :math:`\varepsilon_1 = 1`, ``S = 7``, with
    :math:`P_{D'}(1) = 0.09`.

    Variant ``count-wrong-epsilon``: ``accuracy_count`` called with twice its budget (its
    temperature halved; true :math:`2\varepsilon_1`).
    """
    w = np.full(p, 0.01)
    w[:2] = 1.0
    X = np.zeros((2 * n_agreeing + 1, p))
    X[0, 1:] = 1.0
    X[1 + n_agreeing:, 0] = 1.0
    y = np.r_[0, np.zeros(n_agreeing, dtype=np.int64), np.ones(n_agreeing, dtype=np.int64)]
    y_prime = y.copy()
    y_prime[0] = 1
    cases = []
    for release in (accuracy_count, wrong_count_epsilon(accuracy_count, 2.0)):

        def mechanism(data, size, rng, release=release):
            X_data, labels = data
            design = prepare_design(X_data, fit_intercept=True, bounds="error")
            return release(design, labels, np.repeat(w[:, np.newaxis], size, axis=1),
                           np.zeros(size), n_classes=2, epsilon=epsilon_count,
                           rng=rng).astype(np.float64)

        cases.append(AuditCase(
            f"accuracy count (eps1={epsilon_count:g}, p={p}, 7 sizes)",
            getattr(release, "broken_variant", "correct"), mechanism, (X, y),
            (X.copy(), y_prime), epsilon_count, 0.0, "threshold", None,
            f"{REPLACE_ONE}: crafted, label 0 -> 1 on the one row that size 1 and the larger "
            "sizes classify differently; u moves by +1 on size 1 and -1 on the others",
            release=accuracy_count))
    return cases


def noise_floor_cases(epsilon=20.0, n=10, p=5, n_iter=10, lam=5.0):
    r"""The noise-floor count given the released weights: a coupling audit of its claim 0.

    The count (:func:`~dplasso.estimators.private_count.noise_floor_count`) spends nothing:
    it is post-processing of the private Frank-Wolfe weights (the book's
    ``lemma-noise-floor``). The audit holds the weights' release fixed: on both datasets the
    weights are drawn from the same law, private Frank-Wolfe on :math:`D` (zero start,
    intercept column, ``n_iter`` steps, report-noisy-min at ``(epsilon, 1e-5)``), which is
    what the same selection noise would give on both sides; the claim audited is the
    count's extra epsilon, 0. The correct count's output law is then the same on :math:`D`
    and :math:`D'`, whatever the pair.

    Pair: the row :math:`(1, \dots, 1)` with label 0 in :math:`D` and 1 in :math:`D'`,
    every other row zero (as :func:`frank_wolfe_fit_cases`): the flip reverses the sign of
    every coordinate of the non-private gradient. The weights' own budget ``epsilon = 20``
    is large so that they follow :math:`D`'s descent direction (negative entries) and the
    data-reading variant has something to read; the claim audited, 0 extra, does not
    depend on it.

    Variant ``reads-data`` (:func:`~dplasso.audit.broken.reads_data`): the count kept to
    the entries that agree in sign with :math:`-\nabla L(0)` of the dataset at hand.
    """
    D, D_prime = _fit_pair(n, p)
    loss = LogisticLoss()

    def released_weights(size, rng):
        return private_frank_wolfe_trials(
            *D, lam=lam, n_iter=n_iter, epsilon=epsilon, delta=1e-5, n_trials=size,
            selection="laplace", fit_intercept=True, random_state=rng).W

    public = {"n_iter": n_iter, "n_coordinates": p + 1, "lam": lam}

    def correct(data, size, rng):
        return noise_floor_count(released_weights(size, rng), **public)

    def broken(data, size, rng):
        X, y = data
        count = reads_data(noise_floor_count, loss,
                           prepare_design(X, fit_intercept=True, bounds="error"), y)
        return count(released_weights(size, rng), **public)

    pair = (f"{REPLACE_ONE}: crafted, one label flipped on the row (1,...,1); weights "
            "coupled (the same release law on D and D')")
    name = f"noise-floor count given the weights (T={n_iter}, p={p}; claim: 0 extra)"
    return [AuditCase(name, variant, mechanism, D, D_prime, 0.0, 0.0, "threshold", None, pair,
                      release=noise_floor_count)
            for variant, mechanism in (("correct", correct), ("reads-data", broken))]
