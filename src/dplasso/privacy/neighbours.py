"""The project's neighbouring relation.

Every sensitivity, privacy map and event in :mod:`dplasso.privacy` is stated for one relation,
*replace-one* (bounded differential privacy): two datasets are neighbouring when they have the
same number of rows ``n`` and differ in exactly one row ``(x_i, y_i)``.
"""

REPLACE_ONE = "replace-one"
"""The project's neighbouring relation: same ``n``, one row ``(x_i, y_i)`` replaced."""
