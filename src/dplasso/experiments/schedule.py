"""How long a run's work takes on ``W`` workers: a schedule of its recorded notebooks and units.

A notebook's record (``run.json``'s ``units``, :func:`dplasso.reproduce.runner.read_unit_stats`)
says how long each of its experiment units took when computed and how much of the notebook's
wall time went to its unit grids; the rest is its own serial work. :func:`makespan` schedules
that work on ``W`` identical workers, longest first (list scheduling), in one of two ways:

- ``"notebooks"``: each notebook is one task (its serial work and all its units in a row), as
  a run does without a shared pool of unit workers;
- ``"units"``: each notebook's serial work is one task and each of its units another, ready
  once that serial work is done (a simplification: a notebook's serial stretches also fall
  between its grids), as ``dplasso reproduce --jobs W`` does with its shared cluster.

Both answer for a run computing everything (a cold unit cache), from the recorded unit times.
Standard library only.
"""
from __future__ import annotations

import heapq

__all__ = ["MODES", "Work", "makespan", "work_of"]

MODES = ("notebooks", "units")


class Work:
    """One notebook's work: ``serial`` seconds, then independent ``units`` (seconds each)."""

    def __init__(self, name: str, serial: float, units=()):
        self.name, self.serial, self.units = name, max(0.0, float(serial)), \
            sorted((float(u) for u in units), reverse=True)

    @property
    def total(self) -> float:
        return self.serial + sum(self.units)


def work_of(record: dict) -> Work:
    """A notebook's :class:`Work` from its ``run.json`` (no units: all of it serial)."""
    units = record.get("units") or {}
    seconds = float(record.get("seconds", 0.0))
    return Work(record.get("notebook", "?"), seconds - units.get("grid_seconds", 0.0),
                units.get("unit_seconds", ()))


def makespan(works, workers: int, mode: str = "units") -> float:
    """The wall time of ``works`` on ``workers`` workers, longest first (module docstring)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    works = sorted(works, key=lambda w: -w.total)
    if mode == "notebooks":
        free = [0.0] * workers
        for work in works:
            start = heapq.heappop(free)
            heapq.heappush(free, start + work.total)
        return max(free)
    free = [0.0] * workers          # when each worker is next free
    ready = []                      # (-seconds, order, ready time) of units released so far
    serial = list(works)            # serial parts still to start, longest notebook first
    end = 0.0
    order = 0
    while serial or ready:
        now = heapq.heappop(free)
        if serial:  # a notebook's serial work first: it releases that notebook's units
            work = serial.pop(0)
            done = now + work.serial
            for seconds in work.units:
                order += 1
                heapq.heappush(ready, (done, -seconds, order))
            heapq.heappush(free, done)
            end = max(end, done)
            continue
        released, negative, _ = heapq.heappop(ready)
        start = max(now, released)
        heapq.heappush(free, start - negative)
        end = max(end, start - negative)
    return end
