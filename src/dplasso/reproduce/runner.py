"""Execute the book's notebooks with papermill, skipping work whose inputs are unchanged.

Each notebook ``name`` is executed into ``<out>/<name>/`` (the executed ``<name>.ipynb``, its results
files and ``run.json``). The skip key hashes the notebook text, its parameters, the library source and
the dependency pins; a notebook whose ``run.json`` holds the same key is not run again. Execution
happens in ``<out>/.<name>.partial/`` and is swapped in with renames only when it succeeds, so an
interrupted or failed run never leaves a half-written folder where the book reads, and a rerun
resumes with the notebooks that did not finish. Notebooks whose parameters cell declares
``cache_dir`` also get a per-notebook folder that survives interruptions, for trial-level checkpoints.
With ``--jobs N > 1`` notebooks are started longest first, by their last recorded wall time.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path

import jupytext
import papermill
import yaml
from papermill.exceptions import PapermillExecutionError
from tqdm.auto import tqdm

from .parameters import check_override, parameter_defaults
from .registry import Registry

INJECTED_TAGS = ["injected-parameters", "remove-input"]
BLAS_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
RUNTIMES_FILE = "runtimes.md"
LAST_RUN_FILE = "last-run.json"


class NotebookFailed(RuntimeError):
    """A notebook raised while executing; the message names it and carries the cell traceback."""


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


def library_hash(root: Path) -> str:
    """SHA-256 over the library source (``src/**/*.py``) and the dependency pins."""
    digest = hashlib.sha256()
    files = sorted((root / "src").rglob("*.py")) + [root / "constraints.txt"]
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


def parameters_cell(source: Path) -> str:
    """The source of the notebook's code cell tagged ``parameters``."""
    nb = jupytext.read(source)
    for cell in nb.cells:
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            return cell.source
    raise ValueError(f"{source} has no code cell tagged 'parameters'")


def declared_parameters(source: Path) -> set[str]:
    """Names assigned in the notebook's cell tagged ``parameters``."""
    return set(parameter_defaults(parameters_cell(source)))


def parse_overrides(pairs: list[str]) -> dict:
    """``["key=value", ...]`` to a dict; values are parsed as YAML (``0.5``, ``[1, 2]``, ``true``).

    A value that is not YAML is a one-line ``ValueError`` naming the key and the text.
    """
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip().isidentifier():
            raise ValueError(f"parameter override must look like key=value, got {pair!r}")
        try:
            out[key.strip()] = yaml.safe_load(value)
        except yaml.YAMLError as err:
            problem = getattr(err, "problem", None) or type(err).__name__
            raise ValueError(
                f"-p {key.strip()}: {value!r} is not a YAML value ({problem}); quote a "
                "string, write a list as [1, 2]"
            ) from None
    return out


def plan(registry: Registry, ids, profile: str, overrides: dict) -> dict[str, dict]:
    """Parameters for each notebook to run: the profile's, then ``overrides`` where declared."""
    names = registry.notebooks_for(ids)
    base = registry.params(profile)
    used: set[str] = set()
    out = {}
    for name in names:
        defaults = parameter_defaults(parameters_cell(registry.notebooks[name].source))
        declared = set(defaults)
        params = dict(base[name])
        unknown = sorted(set(params) - declared)
        if unknown:
            raise ValueError(
                f"params/{profile}.yaml sets {unknown} for notebook {name!r}, "
                f"whose parameters cell declares only {sorted(declared)}"
            )
        for key, value in overrides.items():
            if key in declared:
                check_override(name, key, value, defaults)
                params[key] = value
                used.add(key)
        if "profile" in declared:
            params["profile"] = profile
        out[name] = params
    unused = sorted(set(overrides) - used)
    if unused:
        raise ValueError(f"no selected notebook declares the parameter(s) {unused}")
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


def execute_notebook(
    registry: Registry, name: str, params: dict, out_dir: Path, profile: str,
    *, force: bool = False, cell_progress: bool = False,
) -> RunRecord:
    """Execute notebook ``name`` into ``out_dir/name`` unless its key is unchanged."""
    out_dir = Path(out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    source = registry.notebooks[name].source
    text = source.read_text()
    key = run_key(text, params, library_hash(registry.root))
    _restore_interrupted_swap(out_dir, name)
    final = out_dir / name
    previous = _read_record(final)
    if not force and previous and previous["key"] == key and (final / f"{name}.ipynb").is_file():
        return RunRecord(**{**previous, "skipped": True})

    partial = out_dir / f".{name}.partial"
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
        )
    except PapermillExecutionError as err:
        failed_dir = out_dir / "_failed"
        failed_dir.mkdir(exist_ok=True)
        report = failed_dir / f"{name}.ipynb"
        shutil.copyfile(partial / f"{name}.ipynb", report)
        shutil.rmtree(partial, ignore_errors=True)
        raise NotebookFailed(_format_failure(name, err, report)) from None
    seconds = time.perf_counter() - started
    _retag_injected_cell(executed, partial / f"{name}.ipynb")
    record = RunRecord(
        notebook=name, profile=profile, key=key, parameters=params, seconds=round(seconds, 2),
        finished=time.strftime("%Y-%m-%d %H:%M:%S %Z"),
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


def _limit_blas_threads(jobs: int) -> None:
    """Give each of ``jobs`` concurrent kernels its share of the cores (unless the user chose).

    Kernels inherit this process's environment; oversubscribed BLAS threads slowed a notebook
    several-fold on the 2-core machines this project is built on.
    """
    threads = str(max(1, (os.cpu_count() or 1) // jobs))
    for var in BLAS_THREAD_VARS:
        os.environ.setdefault(var, threads)


def _execute_in_worker(args):
    root, name, params, out_dir, profile, force, jobs = args
    from .registry import load_registry

    _limit_blas_threads(jobs)
    return execute_notebook(load_registry(root), name, params, out_dir, profile, force=force)


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
        f"(unchanged), {run['failed']} failed; wall time **{minutes} min {seconds} s** "
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


def longest_first(names, out_dir: Path, profile: str) -> list[str]:
    """``names`` ordered by their last recorded wall time under ``profile``, longest first.

    With several workers taking notebooks in this order, the long ones start at once instead of
    after the short ones (longest-processing-time scheduling). Notebooks without a record keep
    their registry order, ahead of the recorded ones (their time is unknown).
    """
    def recorded_seconds(name):
        record = _read_record(Path(out_dir) / name)
        return record["seconds"] if record and record["profile"] == profile else math.inf

    return sorted(names, key=recorded_seconds, reverse=True)  # stable: ties keep their order


def reproduce(
    registry: Registry, ids=None, *, profile: str = "ci", overrides: dict | None = None,
    out_dir: Path, jobs: int = 1, force: bool = False,
) -> list[RunRecord]:
    """Run every notebook needed for ``ids`` (all when empty); raise if any failed.

    Notebooks that succeed are kept even when another fails, so a rerun resumes.
    """
    if jobs < 1:
        raise ValueError(f"jobs must be >= 1, got {jobs}")
    todo = plan(registry, ids, profile, overrides or {})
    started = time.perf_counter()
    out_dir = Path(out_dir).resolve()
    records: list[RunRecord] = []
    failures: list[str] = []
    bar = tqdm(total=len(todo), desc=f"notebooks ({profile})", unit="nb", file=sys.stderr)
    if jobs == 1 or len(todo) == 1:
        _limit_blas_threads(1)
        for name, params in todo.items():
            bar.set_postfix_str(name)
            try:
                records.append(execute_notebook(
                    registry, name, params, out_dir, profile, force=force, cell_progress=True))
            except NotebookFailed as err:
                failures.append(str(err))
            bar.update()
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = {
                pool.submit(_execute_in_worker,
                            (registry.root, name, todo[name], out_dir, profile, force, jobs)): name
                for name in longest_first(todo, out_dir, profile)
            }
            for fut in as_completed(futures):
                try:
                    records.append(fut.result())
                except NotebookFailed as err:
                    failures.append(str(err))
                bar.set_postfix_str(futures[fut])
                bar.update()
    bar.close()
    out_dir.mkdir(parents=True, exist_ok=True)
    _write_json_atomic(out_dir / LAST_RUN_FILE, {
        "profile": profile, "jobs": jobs, "executed": sum(not r.skipped for r in records),
        "skipped": sum(r.skipped for r in records), "failed": len(failures),
        "wall_seconds": time.perf_counter() - started,
        "finished": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "commit": source_commit(registry.root)})
    write_runtimes(out_dir)
    if failures:
        raise NotebookFailed("\n\n".join(failures))
    return records
