"""A run killed (SIGKILL of the runner and its worker, as ``kill -9`` or an out-of-memory kill)
at every phase of the runner, then run again: the results are those of an uninterrupted run and
the record is complete (``runtimes.md`` lists every notebook and says what the files say,
``last-run.json`` counts the notebooks that name it, nothing half-written is left).

Each scenario starts from the same state (a complete run at ``value = 1``) and runs at
``value = 2``, so every swap replaces a previous folder. The kill comes from
``faults/sitecustomize.py`` at the named call (two tiny notebooks, ``a`` then ``b``, one job).
The issue's case is "after the last swap, before the record".
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tiny_notebook import PROJECT_NAMES, set_value, two_notebook_project
from dplasso.reproduce.record import read_record, read_runtimes, render_runtimes
from dplasso.reproduce.registry import load_registry
from dplasso.reproduce.runner import KERNEL_LOG, RUNTIME_PREFIX, reproduce

FAULTS = Path(__file__).resolve().parent / "faults"
NAMES = PROJECT_NAMES


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """The project, ``start`` (a complete run at value 1) and ``reference`` (the run at
    value 2 from ``start``, uninterrupted)."""
    root = two_notebook_project(tmp_path_factory.mktemp("kill") / "proj")
    reproduce(load_registry(root), None, profile="ci", out_dir=root / "start")
    shutil.copytree(root / "start", root / "reference")
    set_value(root, 2)
    reproduce(load_registry(root), None, profile="ci", out_dir=root / "reference")
    return root


def run_killed(root: Path, out: Path, kill: dict, *, jobs: int = 1):
    """``dplasso reproduce`` on ``out``, killed at ``kill`` (faults/sitecustomize.py)."""
    env = {**os.environ, "DPLASSO_ROOT": str(root), "DPLASSO_TEST_KILL": json.dumps(kill),
           "PYTHONPATH": os.pathsep.join([str(FAULTS), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen(
        [sys.executable, "-m", "dplasso.cli", "reproduce", "--profile", "ci", "--jobs",
         str(jobs), "--out", str(out)], env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    _, stderr = proc.communicate(timeout=300)
    return proc.pid, proc.returncode, stderr


def results(out: Path) -> dict:
    """Per notebook: its files and ``result.json``, and its record's key and parameters.

    The kernel's log (:data:`~dplasso.reproduce.runner.KERNEL_LOG`) is a diagnostic, not a
    result (the paper record leaves it out too): a kernel shut down while the run is killed,
    or by jupyter_client's interrupt before its shutdown, may write a line there in either
    run."""
    found = {}
    for name in NAMES:
        record = read_record(out / name)
        found[name] = (sorted(p.name for p in (out / name).iterdir() if p.name != KERNEL_LOG),
                       json.loads((out / name / "result.json").read_text()),
                       record["key"], record["parameters"], record["profile"])
    return found


def assert_complete_record(out: Path) -> None:
    assert (out / "runtimes.md").read_text() == render_runtimes(out)
    assert set(read_runtimes(out / "runtimes.md")) == set(NAMES)
    last = json.loads((out / "last-run.json").read_text())
    assert last["state"] in ("finished", "killed"), last
    named = [n for n in NAMES if read_record(out / n)["run"] == last["run"]]
    assert last["executed"] == len(named) >= 1
    if last["state"] == "killed":
        assert "(killed before its end)" in (out / "runtimes.md").read_text()
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == [".lock"]


KILLS = {
    "after the lock is taken": {"op": "flock", "match": "", "nth": 1},
    "after the run is recorded as started": {"op": "replace", "match": r"/last-run\.json$"},
    "before a's run.json, its kernel done": {"op": "replace", "when": "before",
                                            "match": r"/\.a\.partial-\d+/run\.json$"},
    "between a's two swap renames": {"op": "replace", "match": r"/\.a\.old-\d+$"},
    "after a's swap, its old folder still there": {"op": "replace", "match": r"/out/a$"},
    "after a's old folder is removed, before the record": {"op": "rmtree",
                                                          "match": r"/\.a\.old-\d+$"},
    "after the record of a": {"op": "replace", "match": r"/runtimes\.md$", "nth": 2},
    "between b's two swap renames": {"op": "replace", "match": r"/\.b\.old-\d+$"},
    "after the last swap, before the record": {"op": "rmtree", "match": r"/\.b\.old-\d+$"},
    "between the final last-run.json and runtimes.md": {
        "op": "replace", "match": r"/last-run\.json$", "nth": 4},
    "after the final record": {"op": "replace", "match": r"/runtimes\.md$", "nth": 4},
}


@pytest.mark.parametrize("phase", KILLS)
def test_a_kill_at_any_phase_then_a_rerun_gives_the_uninterrupted_results(project, phase,
                                                                          tmp_path):
    out = tmp_path / "out"
    shutil.copytree(project / "start", out)
    pid, status, stderr = run_killed(project, out, KILLS[phase])
    assert status == -9, (status, stderr[-2000:])
    reproduce(load_registry(project), None, profile="ci", out_dir=out)
    assert results(out) == results(project / "reference")
    assert_complete_record(out)
    # The killed worker could not remove its kernel runtime folder; the rerun did.
    assert not list(Path(tempfile.gettempdir()).glob(f"{RUNTIME_PREFIX}{pid}-*"))


def test_results_without_any_record_get_one_rebuilt(project, tmp_path):
    """The issue's state (results swapped in, then killed before any record was written, by
    the runner before this one): the next run, which executes nothing, writes the record."""
    out = tmp_path / "out"
    shutil.copytree(project / "reference", out)
    (out / "runtimes.md").unlink()
    (out / "last-run.json").unlink()
    records = reproduce(load_registry(project), None, profile="ci", out_dir=out)
    assert all(r.skipped for r in records)
    assert (out / "runtimes.md").read_text() == render_runtimes(out)
    assert set(read_runtimes(out / "runtimes.md")) == set(NAMES)
