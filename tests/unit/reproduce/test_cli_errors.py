"""The command line's error layer, run as a user runs it (a process of its own).

Every filesystem or usage error answers within 1 s of CPU time from the command's start, in
one line (``error: ...``, naming the path or the argument and the cause), with exit status 2
(a path or argument that cannot be used) or 1 (a failure: a full disk, an I/O error), no
traceback, and writes nothing. Filesystem faults the test user cannot cause for real (it may be
root, for whom permissions do not apply) come from ``faults/sitecustomize.py``, which raises the
``OSError`` the operating system would, in every process of the run. Below the table: failures
of workers and notebooks (one line each, nothing half-written left, the traceback only with
``--debug``) and an ``.old`` folder that cannot be removed (reported, not fatal).
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli_process import CPU_LIMIT, run_cli
from tiny_notebook import myst_notebook, two_notebook_project
from dplasso.reproduce.cluster import start_cluster, stop_cluster
from dplasso.reproduce.registry import load_registry
from dplasso.reproduce.runner import reproduce, run_lock

@pytest.fixture(scope="module")
def done(tmp_path_factory):
    """An output folder holding a complete run of the tiny project (copied by the cases)."""
    root = two_notebook_project(tmp_path_factory.mktemp("done") / "proj")
    reproduce(load_registry(root), None, profile="ci", out_dir=root / "out")
    return root / "out"


def snapshot(folder: Path) -> dict:
    """Every path under ``folder`` with its kind, size and modification time."""
    return {str(p.relative_to(folder)): (p.is_dir(), p.lstat().st_size, p.lstat().st_mtime_ns)
            for p in sorted(folder.rglob("*"))}


def _file(tmp, *_):
    (tmp / "afile").write_text("not a folder\n")


def _link_to_nothing(tmp, *_):
    (tmp / "out").symlink_to(tmp / "missing")


def _link_to_file(tmp, *_):
    _file(tmp)
    (tmp / "out").symlink_to(tmp / "afile")


def _link_loop(tmp, *_):
    (tmp / "out").symlink_to(tmp / "out")


def _empty_out(tmp, *_):
    (tmp / "out").mkdir()


def _file_for_a(tmp, *_):
    (tmp / "out").mkdir()
    (tmp / "out" / "a").write_text("in the way\n")


def _lock_folder(tmp, *_):
    (tmp / "out" / ".lock").mkdir(parents=True)


def needs_done(setup):
    """Mark a setup that copies the ``done`` fixture's complete run."""
    setup.needs_done = True
    return setup


@needs_done
def _done_out(tmp, done):
    shutil.copytree(done, tmp / "out")


def _ro_parent(tmp, *_):
    (tmp / "ro").mkdir()


def _bad_yaml(name):
    def setup(tmp, *_):
        (tmp / "proj" / name).write_text("notebooks: [unclosed\n")
    return setup


def _no_notebook(tmp, *_):
    (tmp / "proj" / "notebooks" / "b.md").unlink()


def _claims(text):
    @needs_done
    def setup(tmp, done):
        _done_out(tmp, done)
        (tmp / "claims.json").write_text(text)
    return setup


REPRO = ["reproduce", "--profile", "ci"]
OUT = ["--out", "{tmp}/out"]


def fault(errno_name, under, **extra):
    return {"errno": errno_name, "under": under, **extra}


# (id, argv, setup, faults, exit status, text the line must hold)
CASES = [
    ("out is a file", [*REPRO, "--out", "{tmp}/afile"], _file, [], 2,
     "{tmp}/afile: not a folder (a file is in the way)"),
    ("out below a file", [*REPRO, "--out", "{tmp}/afile/sub"], _file, [], 2,
     "({tmp}/afile is a file)"),
    ("out a link to nothing", [*REPRO, *OUT], _link_to_nothing, [], 2, "a link to nothing"),
    ("out a link to a file", [*REPRO, *OUT], _link_to_file, [], 2, "a link to a file"),
    ("out a link to itself", [*REPRO, *OUT], _link_loop, [], 2, "{tmp}/out: not a folder"),
    ("a file where a notebook's folder goes", [*REPRO, *OUT], _file_for_a, [], 2,
     "{tmp}/out/a: a file is where notebook 'a' writes its results"),
    ("the lock is a folder", [*REPRO, *OUT], _lock_folder, [], 2,
     "{tmp}/out/.lock: Is a directory"),
    ("out read-only", [*REPRO, *OUT], _empty_out, [fault("EROFS", "{tmp}/out")], 2,
     "{tmp}/out/.lock: Read-only file system"),
    ("out read-only, every notebook unchanged", [*REPRO, *OUT], _done_out,
     [fault("EROFS", "{tmp}/out")], 2, "{tmp}/out/.lock: Read-only file system"),
    ("out in a read-only folder", [*REPRO, "--out", "{tmp}/ro/new/out"], _ro_parent,
     [fault("EROFS", "{tmp}/ro")], 2, "{tmp}/ro/new/out: Read-only file system"),
    ("out not permitted", [*REPRO, *OUT], _empty_out, [fault("EACCES", "{tmp}/out")], 2,
     "{tmp}/out/.lock: Permission denied"),
    ("out in a folder not permitted", [*REPRO, "--out", "{tmp}/ro/out"], _ro_parent,
     [fault("EACCES", "{tmp}/ro")], 2, "{tmp}/ro/out: Permission denied"),
    ("out operation not permitted", [*REPRO, *OUT], _empty_out,
     [fault("EPERM", "{tmp}/out")], 2, "{tmp}/out/.lock: Operation not permitted"),
    ("out on a full disk", [*REPRO, *OUT], _empty_out, [fault("ENOSPC", "{tmp}/out")], 1,
     "{tmp}/out/.lock: No space left on device"),
    ("out to be made on a full disk", [*REPRO, "--out", "{tmp}/ro/out"], _ro_parent,
     [fault("ENOSPC", "{tmp}/ro")], 1, "{tmp}/ro/out: No space left on device"),
    ("out over quota", [*REPRO, *OUT], _empty_out, [fault("EDQUOT", "{tmp}/out")], 1,
     "{tmp}/out/.lock: Disk quota exceeded"),
    ("out with an I/O error", [*REPRO, *OUT], _empty_out, [fault("EIO", "{tmp}/out")], 1,
     "{tmp}/out/.lock: Input/output error"),
    ("out name too long", [*REPRO, "--out", "{tmp}/" + "x" * 300], None, [], 2,
     "File name too long"),
    ("published folder read-only", REPRO, None, [fault("EROFS", "{tmp}/proj/book")], 2,
     "{tmp}/proj/book/generated: Read-only file system"),
    ("custom results read-only", [*REPRO, "-p", "value=5"], None,
     [fault("EROFS", "{tmp}/proj/results")], 2, "{tmp}/proj/results/custom"),
    ("profile unreadable", [*REPRO, *OUT], None,
     [fault("EACCES", "{tmp}/proj/params/ci.yaml", ops=["open-read"])], 2,
     "{tmp}/proj/params/ci.yaml: Permission denied"),
    ("registry unreadable", [*REPRO, *OUT], None,
     [fault("EACCES", "{tmp}/proj/artifacts.yaml", ops=["open-read"])], 2,
     "{tmp}/proj/artifacts.yaml: Permission denied"),
    ("registry not YAML", [*REPRO, *OUT], _bad_yaml("artifacts.yaml"), [], 2,
     "{tmp}/proj/artifacts.yaml, line 2: not valid YAML"),
    ("profile not YAML", [*REPRO, *OUT], _bad_yaml("params/ci.yaml"), [], 2,
     "{tmp}/proj/params/ci.yaml, line 2: not valid YAML"),
    ("notebook unreadable", [*REPRO, *OUT], None,
     [fault("EACCES", "{tmp}/proj/notebooks/a.md", ops=["open-read"])], 2,
     "{tmp}/proj/notebooks/a.md: Permission denied"),
    ("notebook missing", [*REPRO, *OUT], _no_notebook, [], 2,
     "notebook source {tmp}/proj/notebooks/b.md listed in artifacts.yaml is missing"),
    ("project missing", [*REPRO, *OUT, "--root-missing"], None, [], 2, "--root-missing"),
    ("claims missing", ["pages", *OUT, "--claims", "{tmp}/none.json"], _done_out, [], 2,
     "{tmp}/none.json: No such file or directory"),
    ("claims not JSON", ["pages", *OUT, "--claims", "{tmp}/claims.json"], _claims("{oops"),
     [], 2, "{tmp}/claims.json: not valid JSON"),
    ("claims unreadable", ["pages", *OUT, "--claims", "{tmp}/claims.json"],
     _claims('{"artifacts": {}}'), [fault("EACCES", "{tmp}/claims.json", ops=["open-read"])],
     2, "{tmp}/claims.json: Permission denied"),
    ("pages into a read-only folder", ["pages", *OUT, "--claims", "{tmp}/claims.json"],
     _claims('{"artifacts": {}}'), [fault("EROFS", "{tmp}/out")], 2,
     "{tmp}/out/pages: Read-only file system"),
    ("no command", [], None, [], 2, "the following arguments are required: command"),
    ("unknown command", ["frob"], None, [], 2, "invalid choice: 'frob'"),
    ("unknown option", [*REPRO, "--frob"], None, [], 2, "unrecognized arguments: --frob"),
    ("no jobs", [*REPRO, *OUT, "--jobs", "0"], None, [], 2, "--jobs 0"),
    ("jobs not a number", [*REPRO, *OUT, "--jobs", "two"], None, [], 2, "argument --jobs"),
    ("unknown profile", ["reproduce", "--profile", "fast", *OUT], None, [], 2,
     "argument --profile"),
    ("unknown artifact", [*REPRO, *OUT, "bogus"], None, [], 2, "'bogus'"),
    ("override without a value", [*REPRO, *OUT, "-p", "value"], None, [], 2, "key=value"),
    ("override not YAML", [*REPRO, *OUT, "-p", "value=[1,"], None, [], 2, "-p value"),
    ("override nobody declares", [*REPRO, *OUT, "-p", "nope=1"], None, [], 2, "['nope']"),
    ("scheduler not an address", [*REPRO, *OUT, "--scheduler", "nonsense"], None, [], 2,
     "--scheduler 'nonsense'"),
    ("scheduler port out of range", [*REPRO, *OUT, "--scheduler", "tcp://127.0.0.1:99999"],
     None, [], 2, "--scheduler 'tcp://127.0.0.1:99999'"),
    ("scheduler unknown scheme", [*REPRO, *OUT, "--scheduler", "foo://1.2.3.4:1"], None, [],
     2, "--scheduler 'foo://1.2.3.4:1'"),
    ("list an unknown profile", ["list", "--profile", "fast"], None, [], 2,
     "argument --profile"),
]


def _fill(value, tmp):
    if isinstance(value, dict):
        return {k: _fill(v, tmp) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, tmp) for v in value]
    return value.replace("{tmp}", str(tmp)) if isinstance(value, str) else value


@pytest.mark.parametrize("case, argv, setup, faults, code, text", CASES,
                         ids=[c[0] for c in CASES])
def test_an_error_is_one_line_within_a_second_and_writes_nothing(case, argv, setup, faults,
                                                                 code, text, tmp_path, request):
    two_notebook_project(tmp_path / "proj")
    if setup is not None:
        setup(tmp_path, request.getfixturevalue("done")
              if getattr(setup, "needs_done", False) else None)
    root = tmp_path / "proj"
    if "--root-missing" in argv:  # the project folder itself is missing
        argv, root, text = [a for a in argv if a != "--root-missing"], tmp_path / "none", \
            f"{tmp_path / 'none'}/artifacts.yaml: No such file or directory"
    before = snapshot(tmp_path)
    status, stdout, stderr, cpu = run_cli(_fill(argv, tmp_path), root,
                                          faults=_fill(faults, tmp_path))
    line = stderr.strip()
    assert status == code, stderr
    assert line.startswith("error: ") and "\n" not in line, stderr
    assert "Traceback" not in stderr and stdout == ""
    assert _fill(text, tmp_path) in line, line
    assert cpu < CPU_LIMIT, f"{cpu:.2f} s of CPU before the answer"
    assert snapshot(tmp_path) == before, "the refused command wrote something"


def test_at_least_thirty_filesystem_and_usage_cases():
    assert len(CASES) >= 30


def test_a_run_locked_by_another_is_one_line_and_writes_nothing(tmp_path):
    root = two_notebook_project(tmp_path / "proj")
    with run_lock(tmp_path / "out"):
        before = snapshot(tmp_path)
        status, _, stderr, cpu = run_cli([*REPRO, "--out", str(tmp_path / "out")], root)
        assert snapshot(tmp_path) == before
    assert status == 2 and stderr.count("\n") == 1 and cpu < CPU_LIMIT
    assert f"another `dplasso reproduce` (PID {os.getpid()}) is running on" in stderr


def test_a_restore_into_a_locked_folder_is_one_line_and_writes_nothing(tmp_path):
    root = two_notebook_project(tmp_path / "proj")
    for name in load_registry(root).notebooks:
        (root / "book" / "paper-results" / name).mkdir(parents=True)
        (root / "book" / "paper-results" / name / "run.json").write_text("{}")
    with run_lock(tmp_path / "out"):
        before = snapshot(tmp_path)
        status, _, stderr, _ = run_cli(["record", "--restore", "--out", str(tmp_path / "out")],
                                       root)
        assert snapshot(tmp_path) == before
    assert status == 2 and stderr.count("\n") == 1
    assert f"(PID {os.getpid()}) is running on" in stderr


def _errors(stderr):
    return [line for line in stderr.splitlines() if line.startswith("error: ")]


def _left_behind(out):
    return sorted(p.name for p in out.iterdir() if p.name.startswith(".") and p.name != ".lock"
                  or ".tmp" in p.name)


def test_failed_notebooks_are_one_line_each_and_leave_nothing_half_written(tmp_path):
    root = two_notebook_project(tmp_path / "proj")
    out = tmp_path / "out"
    status, _, stderr, _ = run_cli([*REPRO, "--out", str(out), "-p", "fail=true"], root)
    assert status == 1 and "Traceback" not in stderr
    errors = _errors(stderr)
    assert len(errors) == 2, stderr
    for name, line in zip("ab", errors):
        assert line == (f"error: notebook {name!r} failed in cell 2: RuntimeError: deliberate "
                        f"failure 1 (executed notebook with the error output: "
                        f"{out / '_failed' / f'{name}.ipynb'})")
    assert _left_behind(out) == []
    status, _, stderr, _ = run_cli([*REPRO, "--out", str(out), "-p", "fail=true", "--debug"],
                                   root)
    assert status == 1 and "raise RuntimeError(\"deliberate failure \"" in stderr


def test_a_full_disk_in_one_notebook_names_its_path_and_the_others_still_run(tmp_path):
    root = two_notebook_project(tmp_path / "proj")
    out = tmp_path / "out"
    status, _, stderr, _ = run_cli(
        [*REPRO, "--out", str(out)], root,
        faults=[fault("ENOSPC", str(out), match=r"/\.a\.partial-\d+", ops=["mkdir"])])
    assert status == 1 and "Traceback" not in stderr
    (line,) = _errors(stderr)
    assert line.startswith(f"error: notebook 'a': {out}/.a.partial-")
    assert line.endswith(": No space left on device")
    assert (out / "b" / "result.json").is_file() and not (out / "a").exists()
    assert _left_behind(out) == []
    assert "1 notebook(s) executed, 0 skipped (unchanged), 1 failed" in (
        out / "runtimes.md").read_text()


def test_a_record_that_cannot_be_written_is_one_line_naming_it(tmp_path):
    """A full disk after the lock: the run stops before any notebook, naming the record."""
    root = two_notebook_project(tmp_path / "proj")
    out = tmp_path / "out"
    out.mkdir()
    (out / ".lock").write_text("")
    status, _, stderr, _ = run_cli([*REPRO, "--out", str(out)], root,
                                   faults=[fault("ENOSPC", str(out), match=r"/out/(?!\.lock$)")])
    assert status == 1 and "Traceback" not in stderr
    assert _errors(stderr) == [f"error: {out}/last-run.json: No space left on device"]
    assert sorted(p.name for p in out.iterdir()) == [".lock"]


def test_a_worker_that_dies_is_one_line_and_its_partial_folder_goes(tmp_path):
    root = two_notebook_project(tmp_path / "proj")
    out = tmp_path / "out"
    status, _, stderr, _ = run_cli(
        [*REPRO, "--out", str(out), "a"], root,
        kill={"op": "replace", "when": "before", "who": "self",
              "match": r"/\.a\.partial-\d+/run\.json$"})
    assert status == 1 and "Traceback" not in stderr
    assert _errors(stderr) == [f"error: notebook 'a' ({out / 'a'}): its worker process died "
                               "(killed by SIGKILL)"]
    assert _left_behind(out) == [] and not (out / "a").exists()


def test_an_old_folder_that_cannot_be_removed_is_reported_not_fatal(tmp_path, done):
    root = two_notebook_project(tmp_path / "proj")
    out = tmp_path / "out"
    shutil.copytree(done, out)
    (out / ".a.old-1").mkdir()  # left by a swap that a kill cut short
    stuck = [fault("EACCES", str(out / ".a.old-1"), ops=["rmtree"])]
    status, stdout, stderr, _ = run_cli([*REPRO, "--out", str(out)], root, faults=stuck)
    assert status == 0, stderr
    assert f"warning: could not remove {out}/.a.old-1 ({out}/.a.old-1: Permission denied)" \
        in stderr
    assert "a: unchanged, skipped" in stdout
    status, stdout, stderr, _ = run_cli([*REPRO, "--out", str(out), "--force"], root,
                                        faults=stuck)
    assert status == 0, stderr
    assert "a: ran in" in stdout and json.loads((out / "a" / "result.json").read_text())
    assert [p.name for p in out.glob(".a.old*")] == [".a.old-1"]  # only the stuck one


def test_with_debug_an_error_shows_its_traceback(tmp_path):
    root = two_notebook_project(tmp_path / "proj")
    (tmp_path / "afile").write_text("")
    status, _, stderr, _ = run_cli(["--debug", *REPRO, "--out", str(tmp_path / "afile")], root)
    assert status == 2 and "Traceback (most recent call last)" in stderr
    assert stderr.rstrip().splitlines()[-1].startswith("error: output folder")


LOST_NOTEBOOK = """\
import pathlib, time
from dplasso.experiments.execution import run_tasks
pathlib.Path("started").write_text("")
time.sleep(pause)
run_tasks(time.sleep, [(1.0,)] * 60)
"""


@pytest.mark.parametrize("pause, said", [
    (0.0, "SchedulerLost: the Dask scheduler at {address} was lost during the run (Dask: "
          "scheduler-connection-lost)"),  # while its tasks ran
    (6.0, "the Dask scheduler at {address} was lost during the run (it answered when the run "
          "started): notebook 'a' failed in cell 1: ConnectionError: no Dask scheduler "
          "answered at '{address}'"),  # between two stages
])
def test_a_scheduler_killed_mid_run_is_one_line_saying_it_was_lost(pause, said, tmp_path):
    """``--scheduler`` on a cluster whose processes are killed (SIGKILL) once the notebook
    started: exit status 1, and the one line says the scheduler was lost."""
    root = tmp_path / "proj"
    for folder in ("notebooks", "params"):
        (root / folder).mkdir(parents=True)
    (root / "notebooks" / "a.md").write_text(myst_notebook(f"pause = {pause}", LOST_NOTEBOOK))
    (root / "artifacts.yaml").write_text("notebooks:\n  a: {source: notebooks/a.md, title: A}\n"
                                         "artifacts: []\n")
    for profile in ("ci", "paper"):
        (root / "params" / f"{profile}.yaml").write_text("a: {}\n")
    cluster, address = start_cluster(1)
    out = tmp_path / "out"
    try:
        run = subprocess.Popen([sys.executable, "-m", "dplasso.cli", "reproduce", "--profile",
                                "ci", "--scheduler", address, "--out", str(out)],
                               env={**os.environ, "DPLASSO_ROOT": str(root)},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while not list(out.glob(".a.partial-*/started")) and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(2.0)  # its first tasks run
        os.killpg(cluster.pid, signal.SIGKILL)
        _, err = run.communicate(timeout=120)
    finally:
        stop_cluster(cluster)
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert run.returncode == 1 and len(errors) == 1, err
    assert errors[0].startswith("error: " + ("notebook 'a' failed in cell 1: " if not pause
                                             else "") + said.format(address=address)), errors
