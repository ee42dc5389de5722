"""Settings shared by every statistical test (importable: tests/ is on pytest's pythonpath)."""

ALPHA = 1e-6
"""Per-test false-failure probability for every statistical test (thresholds derive from it)."""
