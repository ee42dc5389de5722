"""The run record: what each notebook's execution and each invocation of the runner wrote.

Three files, each replaced atomically (written beside, then renamed):

- ``<out>/<notebook>/run.json`` (:class:`RunRecord`): one notebook's execution, written into
  the notebook's folder before it is swapped in, so results never exist without it;
- ``<out>/last-run.json``: the last invocation that executed something. It is written with
  state ``running`` *before* its first notebook starts, updated after each one finishes, and
  finished at the end; every ``run.json`` names the invocation (``run``) that executed it;
- ``<out>/runtimes.md``: the Markdown table the book includes, rendered from the two above.

So a run killed at any point (even between a notebook's swap and the record's update) leaves a
record the next run completes: :func:`recover` counts what the dead invocation finished from
the ``run.json`` files that name it, marks it ``killed`` and re-renders ``runtimes.md`` when it
differs from what the files say (or is missing). The per-notebook times also order the next
run (:func:`longest_first`) and, where a record's parameters are the ones scheduled
(:func:`scheduled_times`), give its progress bar an estimate (:func:`eta_seconds`).
"""
from __future__ import annotations

import contextlib
import json
import math
import os
import platform
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from dplasso.experiments.runtimes import read_runtimes

__all__ = ["RunRecord", "Invocation", "CUSTOM_PARAMETERS", "PAPER_RECORD", "RECORD_DIR",
           "RUN_FILE", "RUNTIMES_FILE", "LAST_RUN_FILE", "eta_seconds", "longest_first",
           "read_record", "read_runtimes", "recorded_times", "recover", "render_runtimes",
           "scheduled_times", "source_commit", "write_runtimes", "write_json_atomic",
           "write_text_atomic"]

RUN_FILE = "run.json"
RUNTIMES_FILE = "runtimes.md"
LAST_RUN_FILE = "last-run.json"
PAPER_RECORD = Path("book") / "paper-run.md"  # committed times of one paper-profile run
RECORD_DIR = Path("book") / "paper-results"
"""The committed paper record's folder, relative to the checkout (one subfolder per notebook,
each with its ``run.json``; :mod:`.paper_record`)."""
CUSTOM_PARAMETERS = "parameters.yaml"
"""In a custom run's folder (``results/custom/<profile>-<hash>/``): its profile and ``-p``
values."""
RUN_INPUTS = ("src", "notebooks", "params", "artifacts.yaml", "constraints.txt")
"""What the results depend on: a run with uncommitted changes here is marked ``+changes``."""


@dataclass(frozen=True)
class RunRecord:
    """What ``run.json`` records for one executed notebook."""

    notebook: str
    profile: str
    key: str
    parameters: dict
    seconds: float
    finished: str
    skipped: bool = False
    commit: str = ""
    """The source commit (:func:`source_commit`) the notebook ran at; empty in older records."""
    run: str = ""
    """The invocation that executed it (``last-run.json``'s ``run``); empty in older records."""
    finished_at: float = 0.0
    """When it finished, seconds since the epoch (0 in older records)."""
    inputs: dict | None = None
    """What ``key`` digests (:func:`dplasso.reproduce.runner.run_inputs`), so a stale record
    can say what changed; None in older records."""
    units: dict | None = None
    """Its experiment units: how many were read from the unit cache and how many computed,
    and the seconds each kind took when computed (:func:`dplasso.reproduce.runner.read_unit_stats`);
    None when it ran none (or in older records)."""
    overrides: dict | None = None
    """The ``-p`` values among ``parameters`` (empty without any); None in older records."""


def read_record(folder: Path) -> dict | None:
    """The ``run.json`` in ``folder`` as a dict, None if there is none (or it is unreadable)."""
    try:
        return json.loads((Path(folder) / RUN_FILE).read_text())
    except (OSError, json.JSONDecodeError):
        return None


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file beside it and one rename: readers
    see the old or the new content, never a part, and a failed write leaves nothing behind
    (its ``OSError`` names ``path``)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    except BaseException as err:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(err, OSError):  # name the file being written, not its temporary
            raise OSError(err.errno, err.strerror, str(path)) from err
        raise


def write_json_atomic(path: Path, data: dict) -> None:
    write_text_atomic(path, json.dumps(data, indent=2, default=str))


def source_commit(root: Path) -> str:
    """Short git commit of ``root``, ``+changes`` if :data:`RUN_INPUTS` differ from it;
    ``unknown`` without git."""
    def git(*args):
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                              check=True).stdout.strip()
    try:
        commit = git("rev-parse", "--short", "HEAD")
        changed = git("status", "--porcelain", "--", *RUN_INPUTS)
        return commit + ("+changes" if changed else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _utc(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(seconds))


class Invocation:
    """The ``last-run.json`` of one runner invocation, written as it goes (module docstring)."""

    def __init__(self, out_dir: Path, root: Path, *, profile: str, jobs: int):
        self.out_dir = Path(out_dir)
        self.data = {
            "run": uuid.uuid4().hex[:12], "state": "running", "profile": profile, "jobs": jobs,
            "executed": 0, "skipped": 0, "failed": 0, "interrupted": 0,
            "started_at": time.time(), "wall_seconds": 0.0, "finished": "", "commit": "",
            "machine": {**_machine(), **speed_probe()}}
        self.root = Path(root)
        self.written = False

    @property
    def run(self) -> str:
        return self.data["run"]

    def start(self) -> None:
        """Record the invocation as running (before its first notebook executes)."""
        if not self.written:
            self.written = True
            self.data.update(started_at=time.time(), commit=source_commit(self.root))
            self._write()

    def update(self, *, executed: int, skipped: int, failed: int, interrupted: int = 0,
               state: str = "running") -> None:
        """Record the counts so far (and the final ``state`` at the end), then re-render
        ``runtimes.md``."""
        now = time.time()
        self.data.update(executed=executed, skipped=skipped, failed=failed,
                         interrupted=interrupted, state=state,
                         wall_seconds=now - self.data["started_at"], finished=_utc(now))
        self._write()

    def _write(self) -> None:
        write_json_atomic(self.out_dir / LAST_RUN_FILE, self.data)
        write_runtimes(self.out_dir)


def _machine() -> dict:
    return {"machine": platform.machine(), "cpus": os.cpu_count(),
            "python": platform.python_version()}


PROBE_SHAPE = (5000, 2000)
"""The speed probe's dense design: one product :math:`X^\top r` reads 80 MB."""
PROBE_ROUNDS = 25
"""Timed rounds of each probe; the probe reports their median."""
PROBE_EXP_SIZE = 1_000_000
"""Entries of the speed probe's elementwise ``exp`` (numpy's own kernel, not BLAS)."""
PROBE_SMALL_OPS = 1000
"""Small-array operations per round of the probe's interpreter timing."""


def _median_seconds(step, rounds):
    step()
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        step()
        times.append(time.perf_counter() - started)
    return sorted(times)[rounds // 2]


def speed_probe(rounds: int = PROBE_ROUNDS) -> dict:
    """The host's speed as three medians over ``rounds``: milliseconds of the dense product
    ``X.T @ r`` (:data:`PROBE_SHAPE`, one BLAS thread; ``probe_ms``), milliseconds of
    numpy's ``exp`` over :data:`PROBE_EXP_SIZE` entries (``exp_ms``) and microseconds of
    one small-array operation (8 entries: interpreter and call overhead; ``small_op_us``),
    and the BLAS library. Records made on hosts of different speed compare through them
    (measured as the run starts, before any notebook): the product alone misses hosts
    whose CPU's instruction set numpy's elementwise kernels use differently, or whose
    interpreter is slower."""
    import numpy as np
    from threadpoolctl import threadpool_info, threadpool_limits

    X = np.random.default_rng(0).standard_normal(PROBE_SHAPE)
    r = X[:, 0].copy()
    z = np.random.default_rng(1).standard_normal(PROBE_EXP_SIZE)
    out = np.empty_like(z)
    a, b, c = np.ones(8), np.ones(8), np.empty(8)

    def small_ops():
        for _ in range(PROBE_SMALL_OPS):
            np.add(a, b, out=c)

    with threadpool_limits(limits=1, user_api="blas"):
        product = _median_seconds(lambda: X.T @ r, rounds)
    exp = _median_seconds(lambda: np.exp(z, out=out), rounds)
    small = _median_seconds(small_ops, rounds) / PROBE_SMALL_OPS
    blas = next((f"{info['internal_api']} {info['version']} ({info.get('architecture')})"
                 for info in threadpool_info() if info["user_api"] == "blas"), "unknown")
    return {"probe_ms": round(1e3 * product, 2), "exp_ms": round(1e3 * exp, 2),
            "small_op_us": round(1e6 * small, 3), "blas": blas}


def _read_last_run(out_dir: Path) -> dict | None:
    try:
        return json.loads((Path(out_dir) / LAST_RUN_FILE).read_text())
    except (OSError, json.JSONDecodeError):
        return None


def _records(out_dir: Path) -> list[dict]:
    return [r for r in (read_record(p) for p in sorted(Path(out_dir).iterdir())
                        if p.is_dir() and not p.name.startswith((".", "_"))) if r]


def recover(out_dir: Path) -> None:
    """Complete the record a killed invocation left (call it holding the run lock).

    A ``last-run.json`` still ``running`` belongs to an invocation that died (the lock is
    ours): its counts become what the ``run.json`` files naming it show (``executed``; the
    notebooks it did not finish are ``interrupted`` as far as it knew them), its state
    ``killed``, its wall time up to its last finished notebook. Then ``runtimes.md`` is
    re-rendered if it is missing or differs from what the files say (a kill between a
    notebook's swap and the record's update, or a record written before this scheme).
    """
    out_dir = Path(out_dir)
    last = _read_last_run(out_dir)
    if last and last.get("state") == "running":
        finished = [r for r in _records(out_dir) if r.get("run") == last["run"]]
        ends = [r.get("finished_at", 0.0) for r in finished] or [last["started_at"]]
        end = max(last["started_at"] + last["wall_seconds"], *ends)
        last.update(state="killed", executed=len(finished),
                    wall_seconds=end - last["started_at"], finished=_utc(end))
        write_json_atomic(out_dir / LAST_RUN_FILE, last)
    if last or _records(out_dir):
        expected = render_runtimes(out_dir)
        try:
            current = (out_dir / RUNTIMES_FILE).read_text()
        except OSError:
            current = None
        if current != expected:
            write_text_atomic(out_dir / RUNTIMES_FILE, expected)


def _last_run_line(run: dict | None) -> list[str]:
    if not run:
        return []
    minutes, seconds = divmod(round(run["wall_seconds"]), 60)
    state = run.get("state", "finished")
    return [
        f"Last `dplasso reproduce` invocation: profile `{run['profile']}`, `--jobs "
        f"{run['jobs']}`; {run['executed']} notebook(s) executed, {run['skipped']} skipped "
        f"(unchanged), {run['failed']} failed"
        + (f", {run['interrupted']} interrupted" if run.get("interrupted") else "")
        + {"killed": " (killed before its end)", "running": " (still running)"}.get(state, "")
        + f"; wall time **{minutes} min {seconds} s** "
        f"({run['wall_seconds']:.0f} s), finished {run['finished']}; source commit "
        f"`{run['commit']}`.",
        "",
    ]


def render_runtimes(out_dir: Path) -> str:
    """The ``runtimes.md`` text for ``out_dir``: the last invocation's line and a row per
    notebook folder's ``run.json`` (a function of those files only; without a
    ``last-run.json``, as after ``dplasso record --restore``, it names no host)."""
    out_dir = Path(out_dir)
    run = _read_last_run(out_dir)
    rows = _records(out_dir)
    total = sum(r["seconds"] for r in rows)
    units = [r.get("units") or {} for r in rows]
    read, computed = (sum(u.get(k, 0) for u in units) for k in ("read", "computed"))
    return "\n".join([
        *_last_run_line(run),
        "| notebook | profile | wall time (s) | units from the cache | finished |",
        "|---|---|---:|---:|---|",
        *(f"| {r['notebook']} | {r['profile']} | {r['seconds']:.1f} | {_units_cell(u)} | "
          f"{r['finished']} |" for r, u in zip(rows, units)),
        f"| **total** | | **{total:.1f}** | {_units_cell({'read': read, 'computed': computed})} | |",
        "",
        _host_text(run),
        "",
        *_schedule_text(rows),
    ])


SCHEDULE_WORKERS = (1, 2, 8)
"""The worker counts whose schedule :func:`render_runtimes` states."""


def _schedule_text(rows) -> list[str]:
    """What the run's work would take on :data:`SCHEDULE_WORKERS` workers, notebook by
    notebook and with shared unit workers (:mod:`dplasso.experiments.schedule`); nothing when
    no record has unit statistics."""
    from dplasso.experiments.schedule import makespan, work_of

    if not any(r.get("units") for r in rows):
        return []
    works = [work_of(r) for r in rows]
    total = sum(w.total for w in works)
    parts = [f"{n} worker{'s' if n > 1 else ''}: {makespan(works, n, 'notebooks'):.0f} s "
             f"notebook by notebook, {makespan(works, n, 'units'):.0f} s with shared unit "
             "workers" for n in SCHEDULE_WORKERS if n > 1]
    return [f"Computing everything (no unit read from the cache), this run's notebooks are "
            f"{total:.0f} s of work on one worker, by their recorded unit times and serial "
            f"parts; a longest-first schedule of it on {'; on '.join(parts)} "
            "(`dplasso.experiments.schedule`).", ""]


def _units_cell(units: dict) -> str:
    """``"<read> of <all>"`` experiment units read from the unit cache ("–" without units)."""
    total = units.get("read", 0) + units.get("computed", 0)
    return f"{units.get('read', 0)} of {total}" if total else "–"


def _host_text(run: dict | None) -> str:
    if run is None:
        return ("No `dplasso reproduce` invocation is recorded in this folder (`dplasso record "
                "--restore` copies the committed paper record in without one): each time is "
                "that notebook's own wall time, on the host that ran it.")
    machine = run.get("machine") or _machine()
    return (f"Executed on {machine['machine']} with {machine['cpus']} CPU cores, Python "
            f"{machine['python']}; one notebook per process, times are each notebook's own wall "
            "time." + _probe_text(machine))


def _probe_text(machine: dict) -> str:
    """The record's sentence on the host's speed (the readings its probe took)."""
    if "probe_ms" not in machine:
        return ""
    text = (f" Host speed as the run started: the dense product X^T r ({PROBE_SHAPE[0]} x "
            f"{PROBE_SHAPE[1]}, one BLAS thread, {machine['blas']}) took "
            f"{machine['probe_ms']:.2f} ms")
    if "exp_ms" in machine:
        text += (f", numpy's exp over {PROBE_EXP_SIZE:,} entries {machine['exp_ms']:.2f} ms "
                 f"and one operation on 8 entries {machine['small_op_us']:.2f} µs (medians "
                 f"of {PROBE_ROUNDS}).")
    else:
        text += f" (median of {PROBE_ROUNDS})."
    return text


def write_runtimes(out_dir: Path) -> Path:
    """Write :func:`render_runtimes` to ``out_dir/runtimes.md`` (atomically)."""
    path = Path(out_dir) / RUNTIMES_FILE
    write_text_atomic(path, render_runtimes(out_dir))
    return path


def recorded_times(names, out_dir: Path, profile: str, fallback: dict | None = None
                   ) -> dict[str, float]:
    """Each notebook's last recorded wall time under ``profile``: its ``run.json`` in
    ``out_dir``, else its time in ``fallback`` (the committed paper record), else none."""
    times = {}
    for name in names:
        record = read_record(Path(out_dir) / name)
        if record and record.get("profile") == profile:
            times[name] = record["seconds"]
        elif name in (fallback or {}):
            times[name] = fallback[name]
    return times


def longest_first(names, out_dir: Path, profile: str, fallback: dict | None = None) -> list[str]:
    """``names`` ordered by :func:`recorded_times`, longest first.

    With several workers taking notebooks in this order, the long ones start at once instead of
    after the short ones (longest-processing-time scheduling). Each notebook's time is its own
    record under ``profile`` where there is one, else the ``fallback``'s, so a run resumed after
    an interruption (records for the notebooks that finished, none for the rest) still starts
    the longest unfinished notebook first. Notebooks without a time keep their registry order,
    ahead of the others (their time is unknown).
    """
    times = recorded_times(names, out_dir, profile, fallback)
    return sorted(names, key=lambda name: times.get(name, math.inf), reverse=True)  # stable


def scheduled_times(planned: dict, out_dir: Path, record_dir: Path | None = None
                    ) -> dict[str, float]:
    """Each notebook's recorded wall time for the work now scheduled.

    ``planned`` maps a notebook to the parameters it will run with. Its time is the one in its
    ``run.json`` in ``out_dir``, else in ``record_dir/<notebook>/`` (the committed paper
    record), from a record whose ``parameters`` are the planned ones: a run with other
    parameters (another dataset, fewer budgets) did other work. A notebook without such a
    record has no time.
    """
    times = {}
    for name, params in planned.items():
        wanted = json.loads(json.dumps(params, default=str))  # as run.json holds them
        for folder in (Path(out_dir), *([Path(record_dir)] if record_dir else [])):
            record = read_record(folder / name)
            if record and record.get("parameters") == wanted:
                times[name] = record["seconds"]
                break
    return times


def eta_seconds(running, pending, times: dict, workers: int) -> float | None:
    """Seconds until the last notebook finishes, from the recorded ``times``.

    ``running`` holds ``(notebook, seconds it has run)``, ``pending`` the notebooks not yet
    started, in the order they will start. Each worker finishes its running notebook after
    its recorded time less what it has run (at least 0), then takes the next pending one (the
    runner's own schedule). None when a running or pending notebook has no recorded time
    (its work is not known, and another notebook's time says nothing about it).
    """
    names = [name for name, _ in running] + list(pending)
    if not names or any(name not in times for name in names):
        return None
    free = sorted(max(times[name] - ran, 0.0) for name, ran in running)
    free += [0.0] * max(workers - len(free), 0)
    for name in pending:
        free.sort()
        free[0] += times[name]
    return max(free)
