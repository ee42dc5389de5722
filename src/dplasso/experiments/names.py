"""The experiments' names and labels: datasets, methods, variants, tasks (plain values).

The experiment modules and the display modules both read these; this module imports nothing,
so a display module that needs a label does not import an experiment module, and through it
most of the library, into its import closure (:mod:`.closure`: the unit cache's and the
notebooks' keys). The experiment modules re-export each name where it was defined before
(``experiments.p1.SYNTHETIC``, ``experiments.beyond.VARIANTS``, ...).
"""

__all__ = [
    "SYNTHETIC",
    "BASELINE_PRIVATE_METHODS",
    "L2_REFERENCE",
    "BASELINE_REFERENCES",
    "BASELINE_METHODS",
    "BEYOND_VARIANTS",
    "DEFAULT_VARIANT",
    "L2_VARIANT",
    "TASKS",
    "SEMANTICS",
    "P2_SEMANTICS",
    "BEYOND_P2_VARIANTS",
    "BEYOND_P2_REFERENCE",
    "CONVENTION_KNOBS",
    "CONVENTION_METHODS",
    "CONVENTION_OURS",
    "CONVENTION_AUTHORS",
    "CONVENTION_SOURCES",
]

# P1

SYNTHETIC = "synthetic"
"""Dataset name of P1's synthetic family (:func:`dplasso.data.sparse_logistic_synthetic`)."""

# p1-conventions (experiments.conventions: KNOBS)

CONVENTION_KNOBS = ("calibration", "steps", "radius", "map", "intercept", "share",
                    "threshold")
"""The settings on which this project's P1 chapters and the authors' conventions may differ,
in table order."""

CONVENTION_METHODS = ("Sparsifier", "private LASSO")
"""P1's method and its comparator, run under every configuration."""

CONVENTION_OURS = {"calibration": "proven", "steps": "auto", "radius": 10.0,
                   "map": "max-abs", "intercept": True, "share": 0.25, "threshold": "none"}
"""This project's P1 chapters: replace-one calibration, automatic steps, radius 10, max-abs
map, the intercept inside the ball, a quarter of the budget on the count, no threshold."""

CONVENTION_AUTHORS = {"calibration": "talwar", "steps": "talwar", "radius": 1.0,
                      "map": "l1-rows", "intercept": False, "share": 0.5, "threshold": "none"}
"""The authors' conventions where known (:data:`CONVENTION_SOURCES` gives each one's source)."""

CONVENTION_SOURCES = (
    ("calibration", "replace-one; proven calibration (the better of basic and advanced "
     "composition, scores' sensitivity 2λ/n)",
     "Talwar et al.'s closed-form Laplace scale λ√(8T ln(1/δ))/(nε), "
     "read under add/remove-one (about half the noise)", "authors' public code"),
    ("steps", "automatic T (Talwar et al.'s bound with its constants)",
     "Talwar et al.'s T = ⌈(λnε)^(2/3)⌉", "Talwar et al. (P1's building block); the "
     "authors' code picks T in {1, …, 100} on a validation split, a non-private tuning not "
     "adopted"),
    ("radius", "λ = 10", "λ = 1", "authors' public code"),
    ("map", "each feature divided by its largest |x| (training rows)",
     "features standardised, rows divided by the largest row L1 norm (training rows)",
     "authors' public code (norms read from all rows there)"),
    ("intercept", "a constant feature inside the ball", "none", "authors' public code"),
    ("share", "f = 1/4 on the count", "f = 1/2 on the count",
     "assumed (P1 states ε₁ + ε₂, not the split)"),
    ("threshold", "none (P1)", "none (P1)", "the ablation adds the library's private threshold "
     "to either set"),
)
"""``(knob, this project's P1 chapters, the authors', source)`` of each knob."""

# p1-baselines (experiments.p1_baselines: PRIVATE_METHODS, L2_REFERENCE, REFERENCES, METHODS)

BASELINE_PRIVATE_METHODS = ("Sparsifier", "private FW (zero init)", "two-stage",
                            "private ADMM", "DP-IGHT")
"""The private methods compared, in table order."""

L2_REFERENCE = "L2 reference"
"""The private dense alternative beside P1's methods (not one of its comparisons):
``ObjectivePerturbationClassifier()`` at the same total budget, L2 objective perturbation with
its own private threshold at a tenth of epsilon whatever the table's threshold treatment,
from the same split; every coefficient nonzero."""

BASELINE_REFERENCES = ("non-private LASSO", "sklearn L1-LR", "majority")
"""Non-private references: the exact optimum of the private fits' problem, scikit-learn's
L1-penalised logistic regression at its default ``C = 1`` (liblinear), and predicting the
training set's majority class (chance)."""

BASELINE_METHODS = BASELINE_PRIVATE_METHODS + (L2_REFERENCE,) + BASELINE_REFERENCES
"""Every method of the ``p1-baselines`` table."""

# beyond-p1 (experiments.beyond: VARIANTS, DEFAULT_VARIANT, L2_VARIANT)

BEYOND_VARIANTS = (
    ("default", "private"),
    ("L2 reference", "private"),
    ("private LASSO", "private"),
    ("private LASSO", "none"),
    ("accuracy count", "private"),
    ("noise floor", "private"),
    ("block median", "private"),
    ("P1 count (proven m)", "private"),
    ("P1 count (declared 1)", "none"),
)
"""The private variants ``(method, threshold)`` of the ``beyond-p1`` experiment, in the order
their noise streams are numbered (described at :data:`dplasso.experiments.beyond.VARIANTS`)."""

DEFAULT_VARIANT = ("default", "private")
"""The library's default private estimator: ``SparseDPLogisticRegression()``."""

L2_VARIANT = ("L2 reference", "private")
"""The dense reference: ``ObjectivePerturbationClassifier()``."""

# P2 and beyond-p2 (experiments.p2: TASKS, SEMANTICS, P2_SEMANTICS; experiments.beyond_p2:
# TASKS, VARIANTS, REFERENCE)

TASKS = ("linear", "logistic")
"""P2's two problems: squared loss on ``y = X w*``, logistic loss on ``y = 1[X w* > 0]``."""

SEMANTICS = ("zero-and-may-return", "zero-and-exclude")
"""What a screened coefficient becomes (:data:`dplasso.optim.frank_wolfe.MASK_SEMANTICS`):
zero, and Frank-Wolfe may select it again later; or zero and barred from every later step."""

P2_SEMANTICS = "zero-and-may-return"
"""The reading that fits P2's text ("since the Frank-Wolfe algorithm only updates one
coefficient at a time, after a few iterations, the weight vector is only able to have up to
a few nonzero coefficients which have not been screened to zero"): screening zeroes a
coefficient, and Frank-Wolfe's next steps may give it weight again. The other reading is
ours, shown beside it."""

BEYOND_P2_VARIANTS = ("no screening", "Algorithm 1", "one per round")
"""The three private variants of ``beyond-p2``, compared at equal total budget."""

BEYOND_P2_REFERENCE = "non-private"
"""The ``variant`` of ``beyond-p2``'s reference rows: the exact optimum of the same
problem."""
