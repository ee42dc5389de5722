"""Execute the book's notebooks with papermill, skipping work whose inputs are unchanged.

Each notebook ``name`` is executed into ``<out>/<name>/`` (the executed ``<name>.ipynb``, its results
files and ``run.json``). The skip key hashes the notebook text, its parameters, the library code it can import,
the committed records under ``book/paper-results/`` and the dependency pins; a notebook whose
``run.json`` holds the same key is not run again. Execution happens in
``<out>/.<name>.partial-<pid>/``, which gets its ``run.json`` and is then swapped in with renames
(the previous folder moved to ``.<name>.old-<stamp>`` first, removed after), so an interrupted or
failed run never leaves a half-written folder where the book reads, results never exist without
their record, and a rerun resumes with the notebooks that did not finish (a swap a kill cut
between its two renames is completed; an ``.old`` folder that cannot be removed is reported, not
fatal). The invocation's record (``last-run.json``, ``runtimes.md``; :mod:`.record`) is written
before the first notebook starts and after each one, and completed by the next run if a kill
stopped this one. Notebooks whose parameters cell declares ``cache_dir`` also get a per-notebook
folder that survives interruptions, for trial-level checkpoints. With ``--jobs N > 1`` notebooks
are started longest first, by their last recorded wall time (else by the committed paper record
``book/paper-run.md``). The progress bar shows an estimate of the time left from the records
of the same parameters (its own folder's, else the committed paper record's), none when a
notebook has no such record (a custom run), and moves inside a notebook too: the experiments'
progress bars (tqdm, on the kernel's standard error) are read as they arrive
(:class:`ProgressSink`), and the bar shows each running notebook's current count (per dataset,
or per trial group) with the time its stage has left at its units' pace.

Every notebook runs in a worker process of its own session (:mod:`.worker`), with a kernel
runtime folder of its own (connection files and IPC sockets) that is removed when the worker
ends, however it ends. The runner alone receives a terminal's Ctrl-C. SIGINT, SIGTERM or SIGHUP
stops a run promptly: no new notebook starts, the workers and their kernels are terminated
(killed after a grace period), finished notebooks stay, and :class:`RunInterrupted` says what
finished (a signal that arrives when every notebook has finished stops nothing: the run ends
normally). A worker whose runner dies (even by ``kill -9``) gets SIGTERM from the operating
system (Linux ``PR_SET_PDEATHSIG``) and takes its kernel down with it. One run at a time holds
``<out>/.lock`` (an ``flock``, which the system releases when its holder dies, so a lock left by
``kill -9`` is never stale); a second run on the same folder is refused with the holder's PID.
Half-written folders of killed runs are removed under the lock.

The module imports nothing heavy: papermill, jupytext and tqdm are imported where a notebook is
executed or a bar drawn, so the command line's checks answer before they load.
"""
from __future__ import annotations

import contextlib
import fcntl
import functools
import glob
import hashlib
import json
import multiprocessing.connection
import os
import pickle
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from dplasso.data.openml import _environ
from dplasso.experiments.execution import SCHEDULER_ENV_VAR, UNIT_STATS_ENV_VAR, scheduler_address

from .parameters import (
    declaring,
    load_relations,
    load_schema,
    notebook_code,
    parameter_defaults,
    parameters_cell,
    resolve,
)
from .record import (
    PAPER_RECORD,
    RECORD_DIR,
    RUN_FILE,
    Invocation,
    RunRecord,
    eta_seconds,
    longest_first,
    read_record,
    read_runtimes,
    recover,
    scheduled_times,
    source_commit,
    write_json_atomic,
)
from .registry import Registry

INJECTED_TAGS = ["injected-parameters", "remove-input"]
BLAS_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
# The kernel talks to papermill over local IPC sockets, not TCP (which ipykernel warns is
# unencrypted), and draws inline figures as PNG at twice the screen resolution (200 dpi),
# tagged with their on-screen size so the book shows them at that size.
KERNEL_CONFIG = {"KernelManager": {"transport": "ipc"}}
KERNEL_ARGUMENTS = ["--InlineBackend.figure_formats=retina"]
LOCK_FILE = ".lock"
UNIT_STATS_FILE = ".units.jsonl"
"""In a running notebook's partial folder: its units' statistics (:func:`read_unit_stats`)."""
PROGRESS_FILE = "progress.txt"
"""In a running notebook's partial folder: its experiments' current progress (one line)."""
KERNEL_LOG = "kernel-stderr.log"
"""In a notebook's folder: what its kernel process wrote to its standard error (ipykernel's
own messages, a crash's last words), kept only when not empty; never the operator's
terminal, which an orphaned kernel could otherwise still write to."""
_KERNEL_LOG_TAIL = 20
_TQDM_BAR = re.compile(r"(?P<desc>[^\r\n:|]+):\s*\d+%\|[^|\r\n]*\|\s*(?P<n>\d+)/(?P<total>\d+)")
_SEGMENTS = re.compile(r"[\r\n]")
_CURSOR_MOVES = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
"""What tqdm writes between a bar's lines: line starts, and cursor moves of nested bars."""
STOP_GRACE_SECONDS = 4.0
"""How long stopped workers and kernels get to exit after SIGTERM before SIGKILL."""
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""The signals that stop a run (and its workers) cleanly."""
RUNTIME_PREFIX = "dplasso-"
"""Each worker's kernel runtime folder is ``<tmp>/dplasso-<runner pid>-<random>`` (short: a
socket's path has at most 107 characters)."""


@dataclass(frozen=True)
class Failure:
    """Why one notebook (or the run's record) failed: a one-line ``summary`` naming the
    notebook, the path and the cause, and the full ``detail`` (cell source, traceback)."""

    notebook: str
    summary: str
    detail: str = ""


class NotebookFailed(RuntimeError):
    """One or more notebooks failed; ``failures`` holds a :class:`Failure` for each."""

    def __init__(self, failures):
        self.failures = list(failures)
        super().__init__("\n".join(f.summary for f in self.failures))


class RunLocked(RuntimeError):
    """Another run holds the output folder's lock."""


class OutputFolderError(ValueError):
    """The output folder (or a notebook's folder in it) cannot hold results."""


class RunInterrupted(RuntimeError):
    """A stop signal ended a run; ``finished`` and ``unfinished`` say how far it got."""

    def __init__(self, signum, finished, unfinished, out_dir):
        self.signum, self.finished, self.unfinished = signum, finished, unfinished
        self.out_dir = out_dir
        super().__init__(
            f"interrupted by {signal.Signals(signum).name}: {len(finished)} notebook(s) "
            f"finished, {len(unfinished)} not finished")


def describe_os_error(err: OSError) -> str:
    """``"<path>: <cause>"`` (both paths of a rename) for an ``OSError``, on one line."""
    cause = err.strerror or str(err)
    paths = [str(p) for p in (err.filename, err.filename2) if p is not None]
    return f"{' -> '.join(paths)}: {cause}" if paths else cause


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def run_inputs(root: Path, notebook_text: str, parameters: dict) -> dict:
    """What one notebook execution depends on, each as a digest: the notebook's text, its
    parameters, every library module its code cells can import
    (:func:`dplasso.experiments.closure.closure`, one digest per module, so a change names
    the modules it touched), the committed record files those modules read (their
    ``READS_RECORDS``, :func:`dplasso.experiments.closure.records_read`: ``mutants.json`` for
    the proofs, the design tables for beyond-p1; a notebook's own folder under
    ``book/paper-results/`` is the record of its run, :mod:`.paper_record`), and the dependency
    pins with the Python version."""
    from dplasso.experiments.closure import (closure, code_digest, imported_modules,
                                             records_read)

    def sha(data: bytes) -> str:
        return hashlib.sha256(data).hexdigest()

    imported = set()
    for code in notebook_code(notebook_text):
        with contextlib.suppress(SyntaxError):  # IPython magics: the cell imports nothing here
            imported |= imported_modules(code)
    modules = closure(imported)
    folder = root / "book" / "paper-results"
    files = sorted({path for pattern in records_read(modules) for path in folder.glob(pattern)
                    if path.is_file()})
    pins = root / "constraints.txt"
    return {
        "notebook": sha(notebook_text.encode()),
        "parameters": sha(json.dumps(parameters, sort_keys=True, default=str).encode()),
        "modules": {name: code_digest(name)[:16] for name in modules},
        "records": _files_digest(tuple((p, p.stat().st_mtime_ns, p.stat().st_size)
                                       for p in files)),
        "pins": sha((pins.read_bytes() if pins.is_file() else b"")
                    + sys.version.split()[0].encode()),
    }


@functools.lru_cache(maxsize=8)
def _files_digest(files) -> str:
    """SHA-256 of ``(path, mtime, size)`` files' names and contents (read again only when a
    file's time or size moved)."""
    digest = hashlib.sha256()
    for path, _, _ in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def run_key(inputs: dict) -> str:
    """The skip key of one notebook execution: a digest of its :func:`run_inputs`."""
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()


UNIT_CACHE_ENV_VAR = "DPLASSO_UNIT_CACHE"
"""Environment variable naming the unit cache's folder (empty: no unit cache)."""
UNIT_CACHE_LIMIT_ENV_VAR = "DPLASSO_UNIT_CACHE_GB"
UNIT_CACHE_GB = 4.0
"""The unit cache's default bound: after each run its least recently used files go until at
most this many gigabytes remain (:data:`UNIT_CACHE_LIMIT_ENV_VAR` sets another)."""


def unit_cache_folder() -> Path | None:
    """The unit cache (:mod:`dplasso.experiments.checkpoint`) the runner gives the notebooks:
    :data:`UNIT_CACHE_ENV_VAR`, else ``$XDG_CACHE_HOME/dplasso/units`` (``~/.cache`` without
    it); None when the variable is set but empty. It lives outside every output folder, so a
    unit computed once serves every later run (any profile, any ``--out``) with the same key."""
    folder = os.environ.get(UNIT_CACHE_ENV_VAR)
    if folder is not None:
        return Path(folder).expanduser().resolve() if folder else None
    home = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(home) / "dplasso" / "units"


def unit_cache_limit() -> int:
    """The unit cache's bound in bytes (:data:`UNIT_CACHE_GB` unless
    :data:`UNIT_CACHE_LIMIT_ENV_VAR` says otherwise)."""
    text = os.environ.get(UNIT_CACHE_LIMIT_ENV_VAR, "").strip()
    try:
        gigabytes = float(text) if text else UNIT_CACHE_GB
    except ValueError:
        raise ValueError(f"{UNIT_CACHE_LIMIT_ENV_VAR}={text!r} is not a number of gigabytes"
                         ) from None
    if not gigabytes >= 0:
        raise ValueError(f"{UNIT_CACHE_LIMIT_ENV_VAR} must be >= 0, got {text}")
    return int(gigabytes * 2**30)


def prune_unit_cache(limit: int) -> None:
    """Keep the unit cache under ``limit`` bytes (least recently used files go first); say
    what went."""
    folder = unit_cache_folder()
    if folder is None or not folder.is_dir():
        return
    from dplasso.experiments.checkpoint import prune

    removed, freed = prune(folder, limit)
    if removed:
        print(f"unit cache {folder}: removed the {removed} least recently used file(s) "
              f"({freed / 2**20:.0f} MB) to stay under {limit / 2**30:g} GB "
              f"({UNIT_CACHE_LIMIT_ENV_VAR})", file=sys.stderr)


def changed_inputs(old: dict | None, new: dict) -> str:
    """What differs between two :func:`run_inputs` (one line), e.g. ``"the library modules
    dplasso.screening.rule"``."""
    if not old:
        return "inputs not recorded"
    parts = [f"the {what}" for what in ("notebook", "parameters", "records", "pins")
             if old.get(what) != new[what]]
    modules = old.get("modules") or {}
    touched = sorted(name for name in set(modules) | set(new["modules"])
                     if modules.get(name) != new["modules"].get(name))
    if touched:
        shown = ", ".join(touched[:4]) + (f" and {len(touched) - 4} more" if len(touched) > 4
                                          else "")
        parts.append(f"the library module(s) {shown}")
    return "; ".join(parts) or "nothing"


def declared_parameters(source: Path) -> set[str]:
    """Names assigned in the notebook's cell tagged ``parameters``."""
    return set(parameter_defaults(parameters_cell(source)))


def plan(registry: Registry, ids, profile: str, overrides: dict, *,
         left_out: list | None = None) -> dict[str, dict]:
    """Parameters for each notebook to run: its cell's defaults, the profile's values, then the
    ``overrides`` its schema declares, checked by :func:`~dplasso.reproduce.parameters.resolve`
    (so a value derived from the others is checked against them too).

    With ``overrides`` and no notebook named (``ids`` empty), the run is the notebooks that
    declare an overridden parameter (:func:`~dplasso.reproduce.parameters.declaring`) and whose
    checks the values pass: ``-p "datasets=[29]"`` reruns the notebooks that take binary
    datasets, and leaves out the one that takes multiclass ones (appended to ``left_out`` as
    ``(notebook, reason)``, when given). A value no such notebook takes is refused with the
    first notebook's reason."""
    names = registry.notebooks_for(ids)
    base = registry.params(profile)
    schema, relations = load_schema(registry.root), load_relations(registry.root)
    chosen = not ids and bool(overrides)
    if chosen:
        names = declaring(names, schema, overrides)
    used: set[str] = set()
    out, refused = {}, []
    for name in names:
        specs = schema.get(name)
        if specs is None:  # a notebook without a schema takes its profile's values, no -p
            out[name] = dict(base[name])
            continue
        mine = {key: value for key, value in overrides.items() if key in specs}
        defaults = parameter_defaults(parameters_cell(registry.notebooks[name].source))
        try:
            params = resolve(name, specs, defaults, base[name], mine,
                             relations.get(name, ()))
        except ValueError as err:
            if not chosen:
                raise
            refused.append((name, err))
            continue
        used |= set(mine)
        if "profile" in specs:
            params["profile"] = profile
        out[name] = params
    if refused and not out:
        raise refused[0][1]
    if left_out is not None:
        left_out += [(name, str(err)) for name, err in refused]
    unused = sorted(set(overrides) - used)
    if unused:
        raise ValueError(f"no selected notebook declares the parameter(s) {unused} in "
                         "params/schema.yaml (`dplasso list` shows each notebook's)")
    return out



def _in_the_way(path: Path) -> str | None:
    """What occupies ``path`` if it is not a folder ("a file", "a link to nothing", ...)."""
    if path.is_dir():
        return None
    if path.is_symlink():
        return "a link to nothing" if not path.exists() else "a link to a file"
    if path.exists():
        return "a file" if path.is_file() else "a special file"
    return None


def check_output_folder(out_dir: Path, names=()) -> None:
    """Refuse an output folder that cannot hold results before anything is written: a file
    (or a link) where it goes, where one of its parents goes, or where notebook ``name``'s
    folder goes in it.

    Raises
    ------
    OutputFolderError
        Naming the path and what is in the way.
    """
    out_dir = Path(out_dir)
    for parent in (out_dir, *out_dir.parents):
        what = _in_the_way(parent)
        if what:
            where = "" if parent == out_dir else f" ({parent} is {what})"
            raise OutputFolderError(
                f"output folder {out_dir}: not a folder{where or f' ({what} is in the way)'}")
        if parent.is_dir():
            break
    for name in names:
        what = _in_the_way(out_dir / name)
        if what:
            raise OutputFolderError(
                f"{out_dir / name}: {what} is where notebook {name!r} writes its results; "
                "move it away or choose another --out")


def _warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr, flush=True)


def _remove_reported(path: Path) -> None:
    """Remove the folder ``path``; if it cannot be, say so (one line) and carry on."""
    try:
        shutil.rmtree(path)
    except FileNotFoundError:
        pass
    except OSError as err:
        _warn(f"could not remove {path} ({describe_os_error(err)}); later runs are not "
              "affected, remove it by hand")


def _old_folders(out_dir: Path, name: str) -> list[Path]:
    """``.<name>.old-<stamp>`` folders (and an older ``.<name>.old``), newest first."""
    prefix = f".{name}.old"
    found = []
    for path in out_dir.glob(glob.escape(prefix) + "*"):
        stamp = path.name[len(prefix):].lstrip("-")
        if stamp == "" or stamp.isdigit():
            found.append((int(stamp or 0), path))
    return [path for _, path in sorted(found, reverse=True)]


def _restore_interrupted_swap(out_dir: Path, name: str) -> None:
    """Complete a swap a kill interrupted: when ``<name>`` is missing, the newest ``.old``
    folder (the previous results) goes back; every other ``.old`` folder is removed."""
    olds = _old_folders(out_dir, name)
    final = out_dir / name
    if olds and not final.exists():
        os.replace(olds.pop(0), final)
    for old in olds:
        _remove_reported(old)


def _format_failure(name: str, err, report: str) -> Failure:
    summary = (f"notebook {name!r} failed in cell {err.cell_index}: "
               f"{err.ename}: {_one_line(err.evalue)} ({report})")
    detail = (f"notebook {name!r} failed in cell {err.cell_index} (execution count "
              f"{err.exec_count}):\n{err.source}\n\n{err.ename}: {err.evalue}\n"
              + "\n".join(err.traceback) + f"\n\n{report}")
    return Failure(name, summary, detail)


class ProgressSink:
    """A writable stream for the kernel's standard error (papermill's ``stderr_file``).

    It keeps the latest count of every tqdm bar seen and writes it to ``path`` (replaced
    atomically) whenever it changes: the first bar that has not finished, as
    ``"<description> <n>/<total>"`` (the outer loop, since it starts first), else the last
    bar. While that bar runs, a second line holds the seconds it has left at the pace of its
    units since its count first moved: units read from the cache arrive at once, before the
    first computed one, and tqdm shows them in that first move, so they do not make the pace
    look fast. A bar whose line is blanked (tqdm's close with ``leave=False``, which does not
    print the last count when it came faster than the display interval) is finished; a count
    that goes down starts the bar anew. Other text is ignored. ``clock`` gives the time (in
    seconds since the epoch, as file times are).
    """

    def __init__(self, path: Path, clock=time.time):
        self.path = Path(path)
        self.clock = clock
        self.bars: dict[str, tuple[int, int]] = {}
        self.moved: dict[str, tuple[float, int] | None] = {}  # when and where the count moved
        self.last = None
        self.text = ""

    def _count(self, desc: str, n: int, total: int) -> None:
        before = self.bars.get(desc)
        if before is None or n < before[0]:
            self.moved[desc] = None
        elif n > before[0] and self.moved[desc] is None:
            self.moved[desc] = (self.clock(), n)
        self.bars[desc] = (n, total)

    def _seconds_left(self, desc: str) -> float | None:
        n, total = self.bars[desc]
        moved = self.moved.get(desc)
        if moved is None or not moved[1] < n < total:
            return None
        return (self.clock() - moved[0]) / (n - moved[1]) * (total - n)

    def write(self, text: str) -> int:
        for segment in _SEGMENTS.split(_CURSOR_MOVES.sub("", text)):
            match = _TQDM_BAR.search(segment)
            if match:
                self.last = match["desc"].strip()
                self._count(self.last, int(match["n"]), int(match["total"]))
            elif segment and not segment.strip(" ") and self.last is not None:
                total = self.bars[self.last][1]
                self.bars[self.last] = (total, total)
        if self.bars:
            running = [d for d, (n, total) in self.bars.items() if n < total]
            desc = running[0] if running else list(self.bars)[-1]
            left = self._seconds_left(desc)
            line = f"{desc} {self.bars[desc][0]}/{self.bars[desc][1]}"
            text = line if left is None else f"{line}\n{left:.1f}"
            if text != self.text:
                self.text = text
                tmp = self.path.with_name(f".{self.path.name}.tmp")
                tmp.write_text(text)
                os.replace(tmp, self.path)
        return len(text)

    def flush(self) -> None:
        pass


def read_progress(partial: Path) -> str:
    """The progress line a running notebook's :class:`ProgressSink` wrote ("" if none yet)."""
    try:
        return (Path(partial) / PROGRESS_FILE).read_text().split("\n")[0]
    except OSError:
        return ""


def stage_seconds_left(partial: Path) -> float | None:
    """Seconds the running stage of a notebook (its :class:`ProgressSink`'s bar) has left at
    its units' pace, counted down since it was written; None without an estimate (no bar yet,
    its count has not moved twice, the bar finished, or the estimate has run out)."""
    path = Path(partial) / PROGRESS_FILE
    try:
        lines = path.read_text().split("\n")
        written = path.stat().st_mtime
    except OSError:
        return None
    if len(lines) < 2:
        return None
    left = float(lines[1]) - max(time.time() - written, 0.0)
    return left if left >= 1 else None


def notebook_inputs(registry: Registry, name: str, params: dict) -> dict:
    """:func:`run_inputs` of notebook ``name`` with ``params``."""
    return run_inputs(registry.root, registry.notebooks[name].source.read_text(), params)


def unchanged_record(registry: Registry, name: str, params: dict, out_dir: Path, *,
                     key: str | None = None) -> RunRecord | None:
    """The skipped record of ``name`` if ``out_dir`` holds a run with the same key, else None."""
    out_dir = Path(out_dir)
    if key is None:
        key = run_key(notebook_inputs(registry, name, params))
    _restore_interrupted_swap(out_dir, name)
    final = out_dir / name
    previous = read_record(final)
    if previous and previous["key"] == key and (final / f"{name}.ipynb").is_file():
        known = {f.name for f in fields(RunRecord)}
        return RunRecord(**{**{k: v for k, v in previous.items() if k in known},
                            "skipped": True})
    return None


def execute_notebook(
    registry: Registry, name: str, params: dict, out_dir: Path, profile: str,
    *, force: bool = False, cell_progress: bool = False, run: str = "",
    overrides: dict | None = None,
) -> RunRecord:
    """Execute notebook ``name`` into ``out_dir/name`` unless its key is unchanged.

    ``run`` names the invocation and ``overrides`` the ``-p`` values among ``params`` (both
    recorded in ``run.json``). Whatever fails, the partial folder is removed; a failed cell's
    notebook is kept in ``out_dir/_failed/``.
    """
    out_dir = Path(out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    inputs = notebook_inputs(registry, name, params)
    key = run_key(inputs)
    unchanged = unchanged_record(registry, name, params, out_dir, key=key)
    if unchanged and not force:
        return unchanged
    partial = out_dir / f".{name}.partial-{os.getpid()}"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir()
    try:
        record = _execute_into(partial, registry, name, params, out_dir, profile, inputs,
                               cell_progress=cell_progress, run=run,
                               overrides=overrides or {})
        _swap_in(out_dir, name, partial)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    with contextlib.suppress(OSError):
        (out_dir / "_failed" / f"{name}.ipynb").unlink(missing_ok=True)
    return record


def _execute_into(partial, registry, name, params, out_dir, profile, inputs, *, cell_progress,
                  run, overrides) -> RunRecord:
    """Run the notebook in ``partial`` and write its ``run.json`` there."""
    import jupytext
    import papermill
    from papermill.exceptions import PapermillExecutionError
    from traitlets.config import Config

    source = registry.notebooks[name].source
    run_params = dict(params)
    cache = unit_cache_folder()
    if cache is not None and "cache_dir" in declared_parameters(source):
        run_params["cache_dir"] = str(cache)
    stats = partial / UNIT_STATS_FILE
    started = time.perf_counter()
    kernel_log = partial / KERNEL_LOG
    try:
        with _environ(UNIT_STATS_ENV_VAR, str(stats)):  # the kernel inherits it
            executed = papermill.execute_notebook(
                jupytext.read(source), str(partial / f"{name}.ipynb"), parameters=run_params,
                kernel_name="python3", progress_bar=cell_progress, cwd=str(partial),
                config=Config(KERNEL_CONFIG), extra_arguments=KERNEL_ARGUMENTS,
                kernel_manager_class=_logged_kernel_manager(kernel_log),
                stderr_file=ProgressSink(partial / PROGRESS_FILE),
            )
    except PapermillExecutionError as err:
        raise NotebookFailed([_format_failure(name, err, _keep_failed(partial, out_dir, name))]
                             ) from None
    except Exception as err:  # a dead kernel, a timeout: its last words go with the error
        if tail := _tail(kernel_log):
            err.add_note(f"the kernel's standard error ended with:\n{tail}")
        raise
    seconds = time.perf_counter() - started
    (partial / PROGRESS_FILE).unlink(missing_ok=True)
    units = read_unit_stats(stats)
    stats.unlink(missing_ok=True)
    if kernel_log.exists() and not kernel_log.stat().st_size:
        kernel_log.unlink()
    _retag_injected_cell(executed, partial / f"{name}.ipynb")
    record = RunRecord(
        notebook=name, profile=profile, key=run_key(inputs), parameters=params,
        seconds=round(seconds, 2), finished=time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        commit=source_commit(registry.root), run=run, finished_at=time.time(), inputs=inputs,
        units=units, overrides=overrides,
    )
    write_json_atomic(partial / RUN_FILE, asdict(record))
    return record


def read_unit_stats(path: Path) -> dict | None:
    """A notebook's unit statistics (:data:`~dplasso.experiments.execution.UNIT_STATS_ENV_VAR`):
    how many units were read from the cache and how many computed, the seconds each kind took
    when computed, the seconds of every unit (``unit_seconds``, read or computed: what a
    schedule of the units needs) and the notebook's wall time inside its unit grids
    (``grid_seconds``: the rest of its time is its own serial work); None when the notebook
    ran no units."""
    try:
        lines = [json.loads(line) for line in Path(path).read_text().splitlines() if line]
    except (OSError, json.JSONDecodeError):
        return None
    if not lines:
        return None
    read = [s for line in lines for s in line["read"]]
    computed = [s for line in lines for s in line["computed"]]
    return {"read": len(read), "computed": len(computed),
            "read_seconds": round(sum(read), 2), "computed_seconds": round(sum(computed), 2),
            "longest_seconds": round(max(read + computed, default=0.0), 2),
            "grid_seconds": round(sum(line.get("wall", 0.0) for line in lines), 2),
            "unit_seconds": [round(s, 3) for s in read + computed]}


def _logged_kernel_manager(log: Path):
    """nbclient's kernel manager class (jupyter_client's ``AsyncKernelManager``) with the
    kernel's standard error appended to ``log``, not inherited from this process."""
    from jupyter_client.manager import AsyncKernelManager

    class LoggedKernelManager(AsyncKernelManager):
        async def _async_launch_kernel(self, kernel_cmd, **kw):  # the documented override
            with open(log, "ab") as stream:  # the kernel holds its own copy of the descriptor
                await super()._async_launch_kernel(kernel_cmd, **{**kw, "stderr": stream})

    return LoggedKernelManager


def _tail(path: Path) -> str:
    """The last lines of a text file ('' if it is missing or empty)."""
    with contextlib.suppress(OSError):
        lines = path.read_text(errors="replace").rstrip().splitlines()
        return "\n".join(lines[-_KERNEL_LOG_TAIL:])
    return ""


def _keep_failed(partial: Path, out_dir: Path, name: str) -> str:
    """Copy the failed notebook to ``out_dir/_failed/``; say where it is (or why it is not)."""
    report = out_dir / "_failed" / f"{name}.ipynb"
    try:
        report.parent.mkdir(exist_ok=True)
        shutil.copyfile(partial / f"{name}.ipynb", report)
    except OSError as err:
        return f"the executed notebook could not be kept: {describe_os_error(err)}"
    return f"executed notebook with the error output: {report}"


def _swap_in(out_dir: Path, name: str, partial: Path) -> None:
    """Move ``partial`` to ``out_dir/name`` (the previous folder aside first, removed after)."""
    final = out_dir / name
    old = out_dir / f".{name}.old-{time.time_ns()}"
    if final.exists():
        os.replace(final, old)
    try:
        os.replace(partial, final)
    except BaseException:
        if old.exists() and not final.exists():
            os.replace(old, final)  # the previous results go back
        raise
    if old.exists():
        _remove_reported(old)


def _retag_injected_cell(nb, path: Path) -> None:
    """Papermill does not carry the ``parameters`` cell's tags over: hide the injected cell."""
    import nbformat

    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        if "injected-parameters" in tags:
            cell.metadata["tags"] = sorted(set(tags) | set(INJECTED_TAGS))
        elif "parameters" in tags:
            cell.metadata["tags"] = sorted(set(tags) | {"remove-cell"})
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
    import psutil

    for proc in procs:
        with contextlib.suppress(psutil.Error):
            proc.terminate()
    _, alive = psutil.wait_procs(procs, timeout=grace)
    for proc in alive:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    psutil.wait_procs(alive, timeout=grace)


@contextlib.contextmanager
def make_folder(path: Path):
    """Create ``path`` (and its missing parents) for the block; if creating it or the block
    fails with an ``OSError``, remove the folders made here again (then re-raise)."""
    path = Path(path)
    missing = []
    for folder in (path, *path.parents):
        if folder.exists():
            break
        missing.append(folder)
    try:
        path.mkdir(parents=True, exist_ok=True)
        yield path
    except OSError:
        for folder in missing:
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise


@contextlib.contextmanager
def run_lock(out_dir: Path):
    """Hold ``out_dir/.lock`` for one run; :class:`RunLocked` names the holder otherwise.

    The lock is an ``flock`` on the file (which also records the holder's PID): the
    system drops it when the holder exits in any way, so a lock file left by ``kill -9``
    does not block the next run. If the folder cannot be created or the lock file not
    written, the ``OSError`` propagates and the folders created for it are removed again.
    """
    with make_folder(out_dir):
        handle = open(Path(out_dir) / LOCK_FILE, "a+")
    with handle:
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
    """Drop half-written ``.<name>.partial*`` folders of earlier runs (the lock is held), and
    the kernel runtime folders of runners that died with their workers (both killed at once,
    so neither could remove them)."""
    for stale in out_dir.glob(".*.partial*"):
        _remove_reported(stale)
    for stale in Path(tempfile.gettempdir()).glob(f"{RUNTIME_PREFIX}*-*"):
        pid = stale.name[len(RUNTIME_PREFIX):].split("-")[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(stale, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


@contextlib.contextmanager
def _stop_requests():
    """Record a stop signal (:data:`STOP_SIGNALS`) in ``flag[0]`` instead of raising (main
    thread only)."""
    flag = [None]
    if sys.platform == "win32" or not _in_main_thread():
        yield flag
        return

    def request_stop(signum, frame):
        flag[0] = signum

    previous = {s: signal.signal(s, request_stop) for s in STOP_SIGNALS}
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


def _exit_status(code: int) -> str:
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-code).name}"
    return f"exit code {code}"


def _worker_report(worker: subprocess.Popen, name: str, out_dir: Path):
    """``("ok", RunRecord)`` or ``("failed", Failure)`` from a worker that closed its
    output, then reaped."""
    data = worker.stdout.read()
    worker.stdout.close()
    code = worker.wait()
    try:
        return pickle.loads(data)
    except (pickle.UnpicklingError, EOFError):  # died: what it left half-written goes too
        shutil.rmtree(out_dir / f".{name}.partial-{worker.pid}", ignore_errors=True)
        return "failed", Failure(name, f"notebook {name!r} ({out_dir / name}): its worker "
                                       f"process died ({_exit_status(code)})")


class _Workers:
    """The running workers: each one's notebook, start time and kernel runtime folder."""

    def __init__(self):
        self.running: dict = {}  # worker.stdout -> (worker, name, started, runtime folder)

    def start(self, args_for, name):
        runtime = tempfile.mkdtemp(prefix=f"{RUNTIME_PREFIX}{os.getpid()}-")
        worker = _start_worker(args_for(runtime))
        self.running[worker.stdout] = (worker, name, time.monotonic(), runtime)

    def finished(self, timeout):
        """The workers whose output closed within ``timeout`` s, removed from the running."""
        done = multiprocessing.connection.wait(list(self.running), timeout=timeout)
        return [self.running.pop(output) for output in done]

    def stop(self):
        """Terminate every running worker and its kernel; remove their runtime folders."""
        if self.running:
            _stop_workers([worker for worker, *_ in self.running.values()])
        for _, _, _, runtime in self.running.values():
            shutil.rmtree(runtime, ignore_errors=True)


def _run_workers(registry, todo, applied, out_dir, profile, jobs, force, stop, bar,
                 invocation, *, unit_workers=1):
    """Run ``todo`` with at most ``jobs`` workers; ``(records, failures, unfinished)``.

    With ``unit_workers > 1`` the notebooks' experiment units share a local cluster of that
    many workers (:func:`shared_unit_workers`) while anything runs.

    ``applied`` holds each notebook's ``-p`` values (its records keep them). Notebooks whose
    results are unchanged are skipped first. Stops starting notebooks once ``stop[0]`` is set,
    then terminates the running workers and every process below them (the kernels run in
    sessions of their own). ``invocation`` is recorded as running before the first worker
    starts and updated after each notebook.
    """
    records, failures, record_errors = [], [], []
    pending = []
    for name in todo:
        skipped = None if force else unchanged_record(registry, name, todo[name], out_dir)
        if skipped:
            records.append(skipped)
            bar.update()
        else:
            pending.append(name)
    if jobs > 1:
        pending = longest_first(pending, out_dir, profile,
                                read_runtimes(registry.root / PAPER_RECORD))
    times = scheduled_times({name: todo[name] for name in pending}, out_dir,
                            registry.root / RECORD_DIR)
    workers = _Workers()

    def note(**counts):
        try:
            invocation.update(**counts)
        except OSError as err:
            record_errors.append(Failure("", f"{describe_os_error(err)} (the run record was "
                                             "not written)"))

    units = contextlib.ExitStack()
    try:
        if pending:
            units.enter_context(shared_unit_workers(unit_workers))
        while (pending or workers.running) and stop[0] is None:
            while pending and len(workers.running) < jobs:
                if not invocation.written:
                    invocation.start()
                name = pending.pop(0)
                workers.start(lambda runtime: (os.getpid(), registry.root, name, todo[name],
                                               applied[name], out_dir, profile, force, jobs,
                                               invocation.run, runtime), name)
            for worker, name, _, runtime in workers.finished(timeout=0.2):
                kind, payload = _worker_report(worker, name, out_dir)
                shutil.rmtree(runtime, ignore_errors=True)
                (records if kind == "ok" else failures).append(payload)
                bar.update()
                note(executed=sum(not r.skipped for r in records),
                     skipped=sum(r.skipped for r in records), failed=len(failures))
            _show_status(bar, workers, pending, out_dir, times, jobs)
    finally:
        workers.stop()
        units.close()
    unfinished = [name for _, name, _, _ in workers.running.values()] + pending
    return records, failures + record_errors, unfinished if stop[0] is not None else []


@contextlib.contextmanager
def shared_unit_workers(n_workers: int):
    """For the block, a local cluster of ``n_workers`` unit workers
    (:mod:`dplasso.reproduce.cluster`) whose address the notebooks started meanwhile inherit
    (``DPLASSO_SCHEDULER``). Nothing when ``n_workers`` is 1, a scheduler is already set
    (``--scheduler``) or the ``dask`` extra is not installed (each notebook then runs its units
    itself)."""
    import importlib.util

    if n_workers <= 1 or scheduler_address() is not None or \
            importlib.util.find_spec("distributed") is None:
        yield None
        return
    from .cluster import start_cluster, stop_cluster

    process, address = start_cluster(n_workers)
    try:
        with _environ(SCHEDULER_ENV_VAR, address):
            yield address
    finally:
        stop_cluster(process)


def _show_status(bar, workers, pending, out_dir, times, jobs) -> None:
    """The bar's postfix: the time left by the records of the scheduled parameters (or that
    the run has outlasted them; nothing when a notebook has none), then each running
    notebook's progress; redrawn at least once a second."""
    now = time.monotonic()
    running = [(name, now - started) for _, name, started, _ in workers.running.values()]
    eta = eta_seconds(running, pending, times, jobs)
    status = running_status([(w, name) for w, name, _, _ in workers.running.values()], out_dir)
    estimate = ("" if eta is None else "longer than the record" if eta < 1
                else f"about {bar.format_interval(eta)} left by the record")
    text = "; ".join(part for part in (estimate, status) if part)
    if text != bar.postfix or time.time() - bar.last_print_t >= 1:  # the elapsed clock moves
        bar.set_postfix_str(text)
        bar.last_print_t = time.time()  # tqdm's own record of its last draw


def running_status(running, out_dir: Path) -> str:
    """``"<notebook>: <progress>"`` for each running ``(worker, notebook)``, as the bar shows,
    with its stage's time left (:func:`stage_seconds_left`) when there is an estimate."""
    from tqdm import tqdm

    parts = []
    for worker, name in running:
        partial = out_dir / f".{name}.partial-{worker.pid}"
        left = stage_seconds_left(partial)
        parts.append(f"{name}: {read_progress(partial) or 'started'}" + (
            "" if left is None else f" ({tqdm.format_interval(left)} left in this stage)"))
    return ", ".join(parts)


def _stop_workers(workers) -> None:
    """Terminate the workers, their process groups and all their descendants."""
    import psutil

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


def _progress_bar(total: int, profile: str):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=f"notebooks ({profile})", unit="nb", file=sys.stderr,
                bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]")


def reproduce(
    registry: Registry, ids=None, *, profile: str = "ci", overrides: dict | None = None,
    out_dir: Path, jobs: int = 1, force: bool = False,
) -> list[RunRecord]:
    """Run every notebook needed for ``ids`` (all when empty); raise if any failed.

    Notebooks that succeed are kept even when another fails or the run is interrupted, so a
    rerun resumes. The record (``last-run.json``, ``runtimes.md``) is rewritten only by a run
    that executes a notebook (or fails one), and completed first if an earlier run was killed.

    Raises
    ------
    OutputFolderError
        If ``out_dir`` (or a notebook's folder in it) is not a folder; nothing is written.
    RunLocked
        If another run holds ``out_dir``'s lock.
    OSError
        If ``out_dir`` cannot be created or written (nothing is left behind).
    RunInterrupted
        On SIGINT, SIGTERM or SIGHUP before every notebook finished, after the workers and
        kernels are stopped.
    NotebookFailed
        If a notebook failed (the others still ran), or the record could not be written.
    """
    if jobs < 1:
        raise ValueError(f"jobs must be >= 1, got {jobs}")
    cache_limit = unit_cache_limit()
    overrides = overrides or {}
    todo = plan(registry, ids, profile, overrides)
    schema = load_schema(registry.root)
    applied = {name: {key: params[key] for key in overrides if key in schema.get(name, {})}
               for name, params in todo.items()}
    out_dir = Path(out_dir).resolve()
    check_output_folder(out_dir, todo)
    workers = min(jobs, max(len(todo), 1))
    with run_lock(out_dir), _stop_requests() as stop:
        recover(out_dir)
        _remove_partials(out_dir)
        invocation = Invocation(out_dir, registry.root, profile=profile, jobs=jobs)
        bar = _progress_bar(len(todo), profile)
        try:
            records, failures, unfinished = _run_workers(
                registry, todo, applied, out_dir, profile, workers, force, stop, bar,
                invocation, unit_workers=jobs)
        finally:
            bar.close()
        if invocation.written:  # a run that executed nothing keeps the last run's record
            try:
                invocation.update(
                    executed=sum(not r.skipped for r in records),
                    skipped=sum(r.skipped for r in records), failed=len(failures),
                    interrupted=len(unfinished),
                    state="interrupted" if unfinished else "failed" if failures else "finished")
            except OSError as err:
                failures.append(Failure("", f"{describe_os_error(err)} (the run record was "
                                            "not written)"))
    prune_unit_cache(cache_limit)
    if stop[0] is not None and unfinished:
        raise RunInterrupted(stop[0], records, unfinished, out_dir)
    if stop[0] is not None:
        print(f"{signal.Signals(stop[0]).name} arrived after every notebook had finished: "
              "nothing was stopped", file=sys.stderr)
    if failures:
        raise NotebookFailed(failures)
    return records
