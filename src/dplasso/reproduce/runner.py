"""Execute the book's notebooks with papermill, skipping work whose inputs are unchanged.

Each notebook ``name`` is executed into ``<out>/<name>/`` (the executed ``<name>.ipynb``, its results
files and ``run.json``). The skip key hashes the notebook text, its parameters, the library source,
the committed records under ``book/paper-results/`` and the dependency pins; a notebook whose
``run.json`` holds the same key is not run again. Execution
happens in ``<out>/.<name>.partial/`` and is swapped in with renames only when it succeeds, so an
interrupted or failed run never leaves a half-written folder where the book reads, and a rerun
resumes with the notebooks that did not finish. Notebooks whose parameters cell declares
``cache_dir`` also get a per-notebook folder that survives interruptions, for trial-level checkpoints.
With ``--jobs N > 1`` notebooks are started longest first, by their last recorded wall time (on a
fresh clone, by the committed paper record ``book/paper-run.md``). The progress bar moves inside
a notebook too: the experiments' progress bars (tqdm, on the kernel's standard error) are read
as they arrive (:class:`ProgressSink`), and the bar shows each running notebook's current
count (per dataset, or per trial group).

Every notebook runs in a worker process of its own session (:mod:`.worker`), so the
runner alone receives a terminal's Ctrl-C. SIGINT or SIGTERM stops a run promptly: no new
notebook starts, the workers and their kernels are terminated (killed after a grace period),
finished notebooks stay, and :class:`RunInterrupted` says what finished. A worker whose
runner dies (even by ``kill -9``) gets SIGTERM from the operating system (Linux
``PR_SET_PDEATHSIG``) and takes its kernel down with it. One run at a time holds
``<out>/.lock`` (an ``flock``, which the system releases when its holder dies, so a lock
left by ``kill -9`` is never stale); a second run on the same folder is refused with the
holder's PID. Half-written folders of killed runs are removed under the lock.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import math
import multiprocessing.connection
import os
import pickle
import platform
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import jupytext
import papermill
import psutil
from papermill.exceptions import PapermillExecutionError
from tqdm.auto import tqdm
from traitlets.config import Config

from .parameters import load_schema, parameter_defaults, parameters_cell, resolve
from .registry import Registry

INJECTED_TAGS = ["injected-parameters", "remove-input"]
BLAS_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
RUNTIMES_FILE = "runtimes.md"
LAST_RUN_FILE = "last-run.json"
PAPER_RECORD = Path("book") / "paper-run.md"  # committed times of one paper-profile run
# The kernel talks to papermill over local IPC sockets, not TCP (which ipykernel warns is
# unencrypted), and draws inline figures as PNG at twice the screen resolution (200 dpi),
# tagged with their on-screen size so the book shows them at that size.
KERNEL_CONFIG = {"KernelManager": {"transport": "ipc"}}
KERNEL_ARGUMENTS = ["--InlineBackend.figure_formats=retina"]
LOCK_FILE = ".lock"
PROGRESS_FILE = "progress.txt"
"""In a running notebook's partial folder: its experiments' current progress (one line)."""
_TQDM_BAR = re.compile(r"(?P<desc>[^\r\n:|]+):\s*\d+%\|[^|\r\n]*\|\s*(?P<n>\d+)/(?P<total>\d+)")
STOP_GRACE_SECONDS = 4.0
"""How long stopped workers and kernels get to exit after SIGTERM before SIGKILL."""


class NotebookFailed(RuntimeError):
    """A notebook raised while executing; the message names it and carries the cell traceback."""


class RunLocked(RuntimeError):
    """Another run holds the output folder's lock."""


class RunInterrupted(RuntimeError):
    """SIGINT or SIGTERM stopped a run; ``finished`` and ``unfinished`` say how far it got."""

    def __init__(self, signum, finished, unfinished, out_dir):
        self.signum, self.finished, self.unfinished = signum, finished, unfinished
        self.out_dir = out_dir
        super().__init__(
            f"interrupted by {signal.Signals(signum).name}: {len(finished)} notebook(s) "
            f"finished, {len(unfinished)} not finished")


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


def library_hash(root: Path) -> str:
    """SHA-256 over the library source (``src/**/*.py``), the committed records the notebooks
    read (``book/paper-results/*``) and the dependency pins."""
    digest = hashlib.sha256()
    files = (sorted((root / "src").rglob("*.py"))
             + sorted((root / "book" / "paper-results").glob("*")) + [root / "constraints.txt"])
    for path in files:
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    digest.update(sys.version.split()[0].encode())
    return digest.hexdigest()


def run_key(notebook_text: str, parameters: dict, lib_hash: str) -> str:
    """The skip key of one notebook execution."""
    payload = json.dumps(
        {"notebook": notebook_text, "parameters": parameters, "library": lib_hash},
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(payload.encode()).hexdigest()


def declared_parameters(source: Path) -> set[str]:
    """Names assigned in the notebook's cell tagged ``parameters``."""
    return set(parameter_defaults(parameters_cell(source)))


def plan(registry: Registry, ids, profile: str, overrides: dict) -> dict[str, dict]:
    """Parameters for each notebook to run: its cell's defaults, the profile's values, then the
    ``overrides`` its schema declares, checked by :func:`~dplasso.reproduce.parameters.resolve`
    (so a value derived from the others is checked against them too)."""
    names = registry.notebooks_for(ids)
    base = registry.params(profile)
    schema = load_schema(registry.root)
    used: set[str] = set()
    out = {}
    for name in names:
        specs = schema.get(name)
        if specs is None:  # a notebook without a schema takes its profile's values, no -p
            out[name] = dict(base[name])
            continue
        mine = {key: value for key, value in overrides.items() if key in specs}
        defaults = parameter_defaults(parameters_cell(registry.notebooks[name].source))
        params = resolve(name, specs, defaults, base[name], mine)
        used |= set(mine)
        if "profile" in specs:
            params["profile"] = profile
        out[name] = params
    unused = sorted(set(overrides) - used)
    if unused:
        raise ValueError(f"no selected notebook declares the parameter(s) {unused} in "
                         "params/schema.yaml (`dplasso list` shows each notebook's)")
    return out


def _restore_interrupted_swap(out_dir: Path, name: str) -> None:
    final, old = out_dir / name, out_dir / f".{name}.old"
    if old.exists():
        if final.exists():
            shutil.rmtree(old)
        else:
            os.replace(old, final)


def _read_record(folder: Path) -> dict | None:
    try:
        return json.loads((folder / "run.json").read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None


def _format_failure(name: str, err: PapermillExecutionError, report: Path) -> str:
    return (
        f"notebook {name!r} failed in cell {err.cell_index} (execution count {err.exec_count}):\n"
        f"{err.source}\n\n{err.ename}: {err.evalue}\n"
        + "\n".join(err.traceback)
        + f"\n\nexecuted notebook with the error output: {report}"
    )


class ProgressSink:
    """A writable stream for the kernel's standard error (papermill's ``stderr_file``).

    It keeps the latest count of every tqdm bar seen and writes one line to ``path`` (replaced
    atomically) whenever it changes: the first bar that has not finished, as
    ``"<description> <n>/<total>"`` (the outer loop, since it starts first), else the last
    bar. Other text is ignored.
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self.bars: dict[str, tuple[int, int]] = {}
        self.line = ""

    def write(self, text: str) -> int:
        for match in _TQDM_BAR.finditer(text):
            self.bars[match["desc"].strip()] = (int(match["n"]), int(match["total"]))
        if self.bars:
            running = [(d, c) for d, c in self.bars.items() if c[0] < c[1]]
            desc, (n, total) = running[0] if running else list(self.bars.items())[-1]
            line = f"{desc} {n}/{total}"
            if line != self.line:
                self.line = line
                tmp = self.path.with_name(f".{self.path.name}.tmp")
                tmp.write_text(line)
                os.replace(tmp, self.path)
        return len(text)

    def flush(self) -> None:
        pass


def read_progress(partial: Path) -> str:
    """The progress line a running notebook's :class:`ProgressSink` wrote ("" if none yet)."""
    try:
        return (Path(partial) / PROGRESS_FILE).read_text()
    except OSError:
        return ""


def unchanged_record(registry: Registry, name: str, params: dict, out_dir: Path, *,
                     key: str | None = None) -> RunRecord | None:
    """The skipped record of ``name`` if ``out_dir`` holds a run with the same key, else None."""
    out_dir = Path(out_dir)
    if key is None:
        key = run_key(registry.notebooks[name].source.read_text(), params,
                      library_hash(registry.root))
    _restore_interrupted_swap(out_dir, name)
    final = out_dir / name
    previous = _read_record(final)
    if previous and previous["key"] == key and (final / f"{name}.ipynb").is_file():
        return RunRecord(**{**previous, "skipped": True})
    return None


def execute_notebook(
    registry: Registry, name: str, params: dict, out_dir: Path, profile: str,
    *, force: bool = False, cell_progress: bool = False,
) -> RunRecord:
    """Execute notebook ``name`` into ``out_dir/name`` unless its key is unchanged."""
    out_dir = Path(out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    source = registry.notebooks[name].source
    key = run_key(source.read_text(), params, library_hash(registry.root))
    unchanged = unchanged_record(registry, name, params, out_dir, key=key)
    if unchanged and not force:
        return unchanged
    final = out_dir / name

    partial = out_dir / f".{name}.partial-{os.getpid()}"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir()
    run_params = dict(params)
    if "cache_dir" in declared_parameters(source):
        cache = out_dir / ".cache" / name / key[:16]
        cache.mkdir(parents=True, exist_ok=True)
        run_params["cache_dir"] = str(cache)
    nb = jupytext.read(source)
    started = time.perf_counter()
    try:
        executed = papermill.execute_notebook(
            nb, str(partial / f"{name}.ipynb"), parameters=run_params, kernel_name="python3",
            progress_bar=cell_progress, cwd=str(partial),
            config=Config(KERNEL_CONFIG), extra_arguments=KERNEL_ARGUMENTS,
            stderr_file=ProgressSink(partial / PROGRESS_FILE),
        )
    except PapermillExecutionError as err:
        failed_dir = out_dir / "_failed"
        failed_dir.mkdir(exist_ok=True)
        report = failed_dir / f"{name}.ipynb"
        shutil.copyfile(partial / f"{name}.ipynb", report)
        shutil.rmtree(partial, ignore_errors=True)
        raise NotebookFailed(_format_failure(name, err, report)) from None
    seconds = time.perf_counter() - started
    (partial / PROGRESS_FILE).unlink(missing_ok=True)
    _retag_injected_cell(executed, partial / f"{name}.ipynb")
    record = RunRecord(
        notebook=name, profile=profile, key=key, parameters=params, seconds=round(seconds, 2),
        finished=time.strftime("%Y-%m-%d %H:%M:%S %Z"), commit=source_commit(registry.root),
    )
    (partial / "run.json").write_text(json.dumps(asdict(record), indent=2, default=str))
    old = out_dir / f".{name}.old"
    if final.exists():
        os.replace(final, old)
    os.replace(partial, final)
    shutil.rmtree(old, ignore_errors=True)
    for stale in (out_dir / ".cache" / name).glob("*"):
        shutil.rmtree(stale, ignore_errors=True)
    (out_dir / "_failed" / f"{name}.ipynb").unlink(missing_ok=True)
    return record


def _retag_injected_cell(nb, path: Path) -> None:
    """Papermill does not carry the ``parameters`` cell's tags over: hide the injected cell."""
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        if "injected-parameters" in tags:
            cell.metadata["tags"] = sorted(set(tags) | set(INJECTED_TAGS))
        elif "parameters" in tags:
            cell.metadata["tags"] = sorted(set(tags) | {"remove-cell"})
    import nbformat

    nbformat.write(nb, str(path))


def limit_blas_threads(jobs: int) -> None:
    """Give each of ``jobs`` concurrent kernels its share of the cores (unless the user chose).

    Kernels inherit this process's environment; oversubscribed BLAS threads slowed a notebook
    several-fold on the 2-core machines this project is built on.
    """
    threads = str(max(1, (os.cpu_count() or 1) // jobs))
    for var in BLAS_THREAD_VARS:
        os.environ.setdefault(var, threads)


def kill_tree(procs, grace: float) -> None:
    """SIGTERM ``procs`` (psutil processes), SIGKILL whatever is left after ``grace`` s."""
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            proc.terminate()
    _, alive = psutil.wait_procs(procs, timeout=grace)
    for proc in alive:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    psutil.wait_procs(alive, timeout=grace)


@contextlib.contextmanager
def run_lock(out_dir: Path):
    """Hold ``out_dir/.lock`` for one run; :class:`RunLocked` names the holder otherwise.

    The lock is an ``flock`` on the file (which also records the holder's PID): the
    system drops it when the holder exits in any way, so a lock file left by ``kill -9``
    does not block the next run.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / LOCK_FILE
    with open(path, "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown"
            raise RunLocked(
                f"another `dplasso reproduce` (PID {holder}) is running on {out_dir}; wait for "
                f"it to finish or stop it (kill {holder}), or choose another --out"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        try:
            yield
        finally:
            handle.seek(0)
            handle.truncate()


def _remove_partials(out_dir: Path) -> None:
    """Drop half-written ``.<name>.partial*`` folders of earlier runs (the lock is held)."""
    for stale in out_dir.glob(".*.partial*"):
        shutil.rmtree(stale, ignore_errors=True)


@contextlib.contextmanager
def _stop_requests():
    """Record SIGINT/SIGTERM in ``flag[0]`` instead of raising (main thread only)."""
    flag = [None]
    if sys.platform == "win32" or not _in_main_thread():
        yield flag
        return

    def request_stop(signum, frame):
        flag[0] = signum

    previous = {s: signal.signal(s, request_stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield flag
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _in_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _start_worker(args) -> subprocess.Popen:
    """A :mod:`~dplasso.reproduce.worker` process, in a session of its own, given ``args``."""
    worker = subprocess.Popen([sys.executable, "-m", "dplasso.reproduce.worker"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              start_new_session=True)
    with contextlib.suppress(BrokenPipeError):  # a worker that died is reported as such
        pickle.dump(args, worker.stdin)
        worker.stdin.close()
    return worker


def _worker_report(worker: subprocess.Popen, name: str):
    """``(kind, payload)`` read from a worker that closed its output, then reaped."""
    data = worker.stdout.read()
    worker.stdout.close()
    code = worker.wait()
    try:
        return pickle.loads(data)
    except (pickle.UnpicklingError, EOFError):
        return "failed", f"notebook {name!r}: its worker process died (exit code {code})"


def _run_workers(registry, todo, out_dir, profile, jobs, force, stop, bar):
    """Run ``todo`` with at most ``jobs`` workers; ``(records, failures, unfinished)``.

    Stops starting notebooks once ``stop[0]`` is set, then terminates the running workers and
    every process below them (the kernels run in sessions of their own).
    """
    pending = (longest_first(todo, out_dir, profile,
                             read_runtimes(registry.root / PAPER_RECORD))
               if jobs > 1 else list(todo))
    running: dict = {}
    records, failures = [], []
    try:
        while (pending or running) and stop[0] is None:
            while pending and len(running) < jobs:
                name = pending.pop(0)
                skipped = None if force else unchanged_record(registry, name, todo[name],
                                                              out_dir)
                if skipped:
                    records.append(skipped)
                    bar.update()
                    continue
                worker = _start_worker((os.getpid(), registry.root, name, todo[name], out_dir,
                                        profile, force, jobs))
                running[worker.stdout] = (worker, name)
            for output in multiprocessing.connection.wait(list(running), timeout=0.2):
                worker, name = running.pop(output)
                kind, payload = _worker_report(worker, name)
                (records if kind == "ok" else failures).append(payload)
                bar.update()
            status = running_status(running.values(), out_dir)
            if status != bar.postfix:
                bar.set_postfix_str(status)
    finally:
        if running:
            _stop_workers([worker for worker, _ in running.values()])
    unfinished = [name for _, name in running.values()] + pending
    return records, failures, unfinished if stop[0] is not None else []


def running_status(running, out_dir: Path) -> str:
    """``"<notebook>: <progress>"`` for each running ``(worker, notebook)``, as the bar shows."""
    return ", ".join(
        f"{name}: {read_progress(out_dir / f'.{name}.partial-{worker.pid}') or 'started'}"
        for worker, name in running)


def _stop_workers(workers) -> None:
    """Terminate the workers, their process groups and all their descendants."""
    procs = []
    for worker in workers:
        with contextlib.suppress(psutil.Error):
            proc = psutil.Process(worker.pid)
            procs += [proc, *proc.children(recursive=True)]
        with contextlib.suppress(OSError):
            os.killpg(worker.pid, signal.SIGTERM)
    kill_tree(procs, grace=STOP_GRACE_SECONDS)
    for worker in workers:
        with contextlib.suppress(subprocess.TimeoutExpired):
            worker.wait(timeout=STOP_GRACE_SECONDS)
        worker.stdout.close()


def _write_json_atomic(path: Path, data: dict) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2))
    os.replace(tmp, path)


RUN_INPUTS = ("src", "notebooks", "params", "artifacts.yaml", "constraints.txt")
"""What the results depend on: a run with uncommitted changes here is marked ``+changes``."""


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


def _last_run_line(out_dir: Path) -> list[str]:
    path = out_dir / LAST_RUN_FILE
    if not path.exists():
        return []
    run = json.loads(path.read_text())
    minutes, seconds = divmod(round(run["wall_seconds"]), 60)
    return [
        f"Last `dplasso reproduce` invocation: profile `{run['profile']}`, `--jobs "
        f"{run['jobs']}`; {run['executed']} notebook(s) executed, {run['skipped']} skipped "
        f"(unchanged), {run['failed']} failed"
        + (f", {run['interrupted']} interrupted" if run.get("interrupted") else "")
        + f"; wall time **{minutes} min {seconds} s** "
        f"({run['wall_seconds']:.0f} s), finished {run['finished']}; source commit "
        f"`{run['commit']}`.",
        "",
    ]


def write_runtimes(out_dir: Path) -> Path:
    """Summarise every ``run.json`` under ``out_dir``, and the last invocation's wall time, as
    Markdown the book includes."""
    out_dir = Path(out_dir)
    rows = [r for r in (_read_record(p) for p in sorted(out_dir.iterdir()) if p.is_dir()) if r]
    total = sum(r["seconds"] for r in rows)
    lines = [
        *_last_run_line(out_dir),
        "| notebook | profile | wall time (s) | finished |",
        "|---|---|---:|---|",
        *(f"| {r['notebook']} | {r['profile']} | {r['seconds']:.1f} | {r['finished']} |" for r in rows),
        f"| **total** | | **{total:.1f}** | |",
        "",
        f"Executed on {platform.machine()} with {os.cpu_count()} CPU cores, Python "
        f"{platform.python_version()}; one notebook per process, times are each notebook's own wall time.",
        "",
    ]
    path = out_dir / RUNTIMES_FILE
    tmp = path.with_suffix(".tmp")
    tmp.write_text("\n".join(lines))
    os.replace(tmp, path)
    return path


def read_runtimes(path: Path) -> dict[str, float]:
    """Each notebook's wall time (s) in a :func:`write_runtimes` table; empty without the file."""
    try:
        lines = Path(path).read_text().splitlines()
    except FileNotFoundError:
        return {}
    times = {}
    for line in lines:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and not cells[0].startswith("*"):
            try:
                times[cells[0]] = float(cells[2])
            except ValueError:
                continue  # the header and the rule
    return times


def longest_first(names, out_dir: Path, profile: str, fallback: dict | None = None) -> list[str]:
    """``names`` ordered by their last recorded wall time under ``profile``, longest first.

    With several workers taking notebooks in this order, the long ones start at once instead of
    after the short ones (longest-processing-time scheduling). When ``out_dir`` holds no record
    under ``profile`` (a fresh clone), the times in ``fallback`` order them (the committed paper
    record). Notebooks without a time keep their registry order, ahead of the others (their
    time is unknown).
    """
    records = {name: _read_record(Path(out_dir) / name) for name in names}
    times = {name: r["seconds"] for name, r in records.items() if r and r["profile"] == profile}
    if not times:
        times = {name: fallback[name] for name in names if name in (fallback or {})}
    return sorted(names, key=lambda name: times.get(name, math.inf), reverse=True)  # stable


def reproduce(
    registry: Registry, ids=None, *, profile: str = "ci", overrides: dict | None = None,
    out_dir: Path, jobs: int = 1, force: bool = False,
) -> list[RunRecord]:
    """Run every notebook needed for ``ids`` (all when empty); raise if any failed.

    Notebooks that succeed are kept even when another fails or the run is interrupted, so a
    rerun resumes. ``last-run.json`` and ``runtimes.md`` are rewritten only when a notebook
    was executed (or failed).

    Raises
    ------
    RunLocked
        If another run holds ``out_dir``'s lock.
    RunInterrupted
        On SIGINT/SIGTERM, after the workers and kernels are stopped.
    NotebookFailed
        If a notebook failed (the others still ran).
    """
    if jobs < 1:
        raise ValueError(f"jobs must be >= 1, got {jobs}")
    todo = plan(registry, ids, profile, overrides or {})
    started = time.perf_counter()
    out_dir = Path(out_dir).resolve()
    workers = min(jobs, max(len(todo), 1))
    with run_lock(out_dir), _stop_requests() as stop:
        _remove_partials(out_dir)
        bar = tqdm(total=len(todo), desc=f"notebooks ({profile})", unit="nb", file=sys.stderr)
        try:
            records, failures, unfinished = _run_workers(
                registry, todo, out_dir, profile, workers, force, stop, bar)
        finally:
            bar.close()
        executed = sum(not r.skipped for r in records)
        if executed or failures:  # a run that executed nothing keeps the last run's record
            _write_json_atomic(out_dir / LAST_RUN_FILE, {
                "profile": profile, "jobs": jobs, "executed": executed,
                "skipped": sum(r.skipped for r in records), "failed": len(failures),
                "interrupted": len(unfinished),
                "wall_seconds": time.perf_counter() - started,
                "finished": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
                "commit": source_commit(registry.root)})
            write_runtimes(out_dir)
    if stop[0] is not None:
        raise RunInterrupted(stop[0], records, unfinished, out_dir)
    if failures:
        raise NotebookFailed("\n\n".join(failures))
    return records
