"""Reading a run's ``runtimes.md`` table (standard library only): the runner orders and
estimates runs by it, the performance page compares two paper runs with it."""
from __future__ import annotations

from pathlib import Path

__all__ = ["read_runtimes"]


def read_runtimes(path) -> dict[str, float]:
    """Each notebook's wall time (s) in a ``runtimes.md`` table
    (:func:`dplasso.reproduce.record.render_runtimes`, with or without its units column);
    empty without the file."""
    try:
        lines = Path(path).read_text().splitlines()
    except FileNotFoundError:
        return {}
    times = {}
    for line in lines:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) in (4, 5) and not cells[0].startswith("*"):
            try:
                times[cells[0]] = float(cells[2])
            except ValueError:
                continue  # the header and the rule
    return times
