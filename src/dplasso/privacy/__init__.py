"""Privacy mechanisms, events, ledger and accounting (replace-one neighbouring relation)."""

REPLACE_ONE = "replace-one"
"""The project's neighbouring relation: same ``n``, one row ``(x_i, y_i)`` replaced."""
