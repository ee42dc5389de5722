r"""Sensitivity searches and a privacy audit of the default Sparsifier's joint release.

:func:`dplasso.estimators.joint_release.release_size_and_threshold` draws the released model
(a constant, or a public size with an offset of its threshold grid) by the exponential
mechanism over training-accuracy counts with a public base measure (the book's
``lemma-joint-release``). :class:`JointUtility` computes those counts from the lemma's
definition; :func:`joint_sensitivity_cases` searches them; :func:`joint_release_cases`
audits the release with its budget right and doubled.
"""
from __future__ import annotations

import numpy as np

from dplasso.audit.broken import wrong_count_epsilon
from dplasso.audit.cases import AuditCase, SensitivityCase
from dplasso.audit.statistics import AccuracyCountUtility, ThresholdUtility
from dplasso.estimators.joint_release import release_size_and_threshold
from dplasso.estimators.problem import prepare_design
from dplasso.optim.l1_ball import random_l1_ball_init
from dplasso.privacy.neighbours import REPLACE_ONE
from dplasso.privacy.rng import as_generator

__all__ = ["JointUtility", "joint_sensitivity_cases", "joint_release_cases"]


class JointUtility:
    r"""The joint release's utilities, from the definition of ``lemma-joint-release``.

    For fixed released weights (a public input), the correct training rows of every
    candidate, in the release's order: each constant :math:`c` (the rows of class
    :math:`c`), then for each public size :math:`k` (ascending) the cut model's threshold
    candidates (:class:`~dplasso.audit.statistics.ThresholdUtility` of the weights cut to
    their :math:`k` largest entries, :meth:`AccuracyCountUtility.cut
    <dplasso.audit.statistics.AccuracyCountUtility.cut>`). Each row adds 0 or 1 to every
    entry: sup-norm sensitivity 1 (theorem).

    Parameters
    ----------
    W_full : ndarray of shape (q,) or (q, C)
        Released weights of every design column, the intercept last (``fit_intercept``).
    fit_intercept : bool, default=True
    """

    def __init__(self, W_full, fit_intercept=True):
        self.sizes_of = AccuracyCountUtility(W_full, fit_intercept=fit_intercept)
        self.fit_intercept = bool(fit_intercept)
        self.n_classes = self.sizes_of.n_classes

    @property
    def label_values(self):
        """The class labels ``0..C-1``."""
        return self.sizes_of.label_values

    def sizes(self):
        """The public sizes ``1, 2, 4, ..., m``."""
        return self.sizes_of.sizes()

    def blocks(self):
        """``ThresholdUtility`` of each size's cut model, in size order."""
        return [ThresholdUtility(self.sizes_of.cut(k), fit_intercept=self.fit_intercept)
                for k in self.sizes()]

    def __call__(self, X, y):
        y = np.asarray(y).astype(np.int64)
        constants = np.bincount(y, minlength=self.n_classes).astype(np.float64)
        return np.concatenate([constants] + [block(X, y) for block in self.blocks()])

    def search_directions(self, X, y):
        """The weight columns without the intercept entry."""
        return self.sizes_of.search_directions(X, y)


def joint_sensitivity_cases(random_state=0, n=40, p=6, lam=5.0):
    r"""The joint release's utility vectors, binary and three classes (theorem 1).

    Rademacher rows (every entry :math:`\pm 1`) and released weights drawn in the ball of
    radius ``lam`` (the intercept entry included), held fixed. Every entry is a count, so a
    label flip of a row that a candidate classifies correctly moves that entry by exactly 1:
    the bound is attained (tight).

    Returns
    -------
    list of SensitivityCase
    """
    rng = as_generator(random_state)
    X = rng.choice(np.array([-1.0, 1.0]), size=(n, p))
    labels = rng.integers(0, 2, n).astype(np.float64)
    classes = rng.integers(0, 3, n).astype(np.float64)
    w = random_l1_ball_init((p + 1, 1), lam, rng)[:, 0]
    W = random_l1_ball_init((p + 1, 3, 1), lam, rng)[..., 0]
    return [
        SensitivityCase("joint release utility u(a), binary (2 constants, 4 sizes x 256 "
                        "offsets)", JointUtility(w), X, labels, 1.0, "inf", theorem=True,
                        tight=True, proven=1.0),
        SensitivityCase("joint release utility u(a), 3 classes (3 constants, 6 sizes x 768 "
                        "pairs)", JointUtility(W), X, classes, 1.0, "inf", theorem=True,
                        tight=True, proven=1.0),
    ]


def _code(sizes, intercept):
    """0/1 for the constant classes, 2 + [offset > 0] for a size-1 model."""
    return np.where(sizes == 0, (intercept > 0).astype(int), 2 + (intercept > 0)).astype(
        np.float64)


def joint_release_cases(epsilon=1.0, n_agreeing=4):
    r"""The joint release on one feature, correct and with twice its budget.

    Mechanism: :func:`~dplasso.estimators.joint_release.release_size_and_threshold` on the
    design with its constant column, for the public released weights :math:`w = (1, 0)`
    (feature weight 1, intercept 0), batched as ``K`` identical columns; the candidates are
    the two constants and the size-1 model with its 256 offsets. Output, as a code: the
    constant's class (0, 1), or 2 + [offset > 0] (set events).

    Worst-case pair. Every row is zero, so the size-1 model's scores are 0 and its offsets
    split into predicting 1 (:math:`g > 0`) and 0 (:math:`g \le 0`); the constants predict
    their class. Row 0 has label 1 in :math:`D` and 0 in :math:`D'`, the ``n_agreeing`` others
    label 0: the flip moves every candidate that predicts 1 by :math:`+1` and every one that
    predicts 0 by :math:`-1`, so the events "predicts 1" approach the bound as in the
    threshold's audit (the base measure, public, weighs the candidates the same on both
    datasets).

    Variant ``count-wrong-epsilon``: the release called with twice its budget (true
    :math:`2\varepsilon_j`).
    """
    X = np.zeros((n_agreeing + 1, 1))
    y = np.zeros(n_agreeing + 1, dtype=np.int64)
    y[0] = 1
    y_prime = np.zeros_like(y)
    w = np.array([1.0])
    cases = []
    for release in (release_size_and_threshold,
                    wrong_count_epsilon(release_size_and_threshold, 2.0)):

        def mechanism(data, size, rng, release=release):
            X_data, labels = data
            design = prepare_design(X_data, fit_intercept=True, bounds="error")
            _, intercept, sizes, _ = release(
                design, labels, np.repeat(w[:, np.newaxis], size, axis=1), np.zeros(size),
                n_classes=2, epsilon=epsilon, rng=rng)
            return _code(sizes, intercept)

        cases.append(AuditCase(
            f"Sparsifier joint release (eps_j={epsilon:g}, 2 constants and 1 size x 256 "
            "offsets)", getattr(release, "broken_variant", "correct"), mechanism, (X, y),
            (X.copy(), y_prime), epsilon, 0.0, "set", None,
            f"{REPLACE_ONE}: crafted, one label flipped among {n_agreeing + 1} zero rows; "
            "u moves by +1 on the candidates predicting 1 and -1 on the others",
            release=release_size_and_threshold))
    return cases
