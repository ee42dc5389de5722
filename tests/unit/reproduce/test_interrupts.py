"""Signals sent to real runs of ``dplasso reproduce`` on a tiny notebook set: prompt stop (SIGINT,
SIGTERM and SIGHUP alike), no process and no kernel connection file left behind, finished
notebooks kept, a lock per output folder, clean resumption by the printed command, run as
printed, and exit status 0 when the signal comes after every notebook finished."""
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import pytest

from tiny_notebook import myst_notebook, two_notebook_project
from dplasso.cli import main as cli_main
from dplasso.reproduce.registry import load_registry
from dplasso.reproduce.runner import reproduce, run_lock

NOTEBOOK = myst_notebook(
    'pause = 0.0\nprofile = "?"',
    """\
    import json, pathlib, time
    time.sleep(pause)
    pathlib.Path("result.json").write_text(json.dumps({"pause": pause}))
    """)
NAMES = ("quick", "slow1", "slow2")
SETUP_TIMEOUT = 180  # seconds for kernels to start on a loaded 2-core machine


def _params(project, pause):
    (project / "params" / "ci.yaml").write_text(
        "quick: {pause: 0.0}\n" + "".join(f"{n}: {{pause: {pause}}}\n" for n in NAMES[1:]))


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    for folder in ("notebooks", "params", "src/pkg"):
        (root / folder).mkdir(parents=True)
    (root / "src" / "pkg" / "__init__.py").write_text("X = 1\n")
    (root / "constraints.txt").write_text("numpy==2\n")
    for name in NAMES:
        (root / "notebooks" / f"{name}.md").write_text(NOTEBOOK)
    (root / "artifacts.yaml").write_text(
        "notebooks:\n"
        + "".join(f"  {n}: {{source: notebooks/{n}.md, title: {n}}}\n" for n in NAMES)
        + "artifacts: []\n")
    _params(root, 300)
    (root / "params" / "paper.yaml").write_text("")
    return root


@pytest.fixture
def run_tmp():
    """The run's temporary folder (kernel runtime folders, connection files, IPC sockets);
    short, below /tmp, since a socket's path has at most 107 characters."""
    folder = Path(tempfile.mkdtemp(prefix="dpl-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _env(project, tmp):
    """A user's environment: the project, the temporary folder ``tmp``, and a ``PATH`` that
    finds no ``dplasso`` (a checkout's virtual environment is not activated)."""
    return {**os.environ, "DPLASSO_ROOT": str(project), "TMPDIR": str(tmp), "PATH": os.defpath}


def _start(project, out, jobs, tmp):
    """The run, with its temporary files in ``tmp``."""
    env = _env(project, tmp)
    return subprocess.Popen(
        [sys.executable, "-m", "dplasso.cli", "reproduce", "--profile", "ci", "--jobs",
         str(jobs), "--out", str(out)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _kernels(proc):
    try:
        tree = psutil.Process(proc.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return [], []
    kernels = []
    for child in tree:
        try:
            if "ipykernel_launcher" in " ".join(child.cmdline()):
                kernels.append(child)
        except psutil.Error:
            pass
    return tree, kernels


def _wait_until_slow_ones_run(proc, out, n_slow):
    """Wait until ``quick`` finished and ``n_slow`` kernels run slow notebooks; return the
    runner's descendants (workers and kernels)."""
    deadline = time.monotonic() + SETUP_TIMEOUT
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        tree, kernels = _kernels(proc)
        partials = list(out.glob(".slow*.partial-*"))
        if (out / "quick" / "result.json").is_file() and len(kernels) >= n_slow \
                and len(partials) >= n_slow:
            time.sleep(2.0)  # let the kernels reach the sleeping cell
            return _kernels(proc)[0]
        time.sleep(0.3)
    proc.kill()
    pytest.fail(f"the run did not reach {n_slow} running slow notebook(s): {proc.communicate()}")


def _alive(procs):
    alive = []
    for proc in procs:
        try:
            if proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE:
                alive.append(proc)
        except psutil.NoSuchProcess:
            pass
    return alive


@pytest.mark.parametrize("signum, jobs", [(signal.SIGINT, 2), (signal.SIGTERM, 1),
                                          (signal.SIGHUP, 1)])
def test_signal_stops_the_run_promptly_keeps_finished_and_resumes(project, signum, jobs,
                                                                 run_tmp):
    out = project / "out"
    proc = _start(project, out, jobs, run_tmp)
    descendants = _wait_until_slow_ones_run(proc, out, n_slow=jobs)
    assert len(descendants) >= 2 * jobs  # a worker and a kernel per running notebook
    sent = time.monotonic()
    proc.send_signal(signum)
    _, stderr = proc.communicate(timeout=30)
    elapsed = time.monotonic() - sent
    assert elapsed < 10, f"control came back after {elapsed:.1f} s"
    assert proc.returncode == 128 + signum
    assert _alive(descendants) == []
    assert list(run_tmp.iterdir()) == []  # no runtime folder, connection file or socket
    name = signal.Signals(signum).name
    assert f"stopped by {name}; workers and kernels terminated" in stderr
    assert "quick (ran)" in stderr and "not finished: slow1" in stderr
    resume = re.search(r"resume with \(finished notebooks are skipped\): (.+)", stderr)[1]
    assert shlex.split(resume)[-7:] == ["reproduce", "--profile", "ci", "--jobs", str(jobs),
                                        "--out", str(out)]
    assert "Traceback" not in stderr
    assert json.loads((out / "quick" / "result.json").read_text()) == {"pause": 0.0}
    assert not (out / "slow1").exists() and not (out / "slow2").exists()
    last = json.loads((out / "last-run.json").read_text())
    assert last["executed"] == 1 and last["interrupted"] == 2

    _params(project, 0.0)  # the printed command, run as printed: quick skipped, the others run
    done = subprocess.run(shlex.split(resume), env=_env(project, run_tmp), capture_output=True,
                          text=True, timeout=SETUP_TIMEOUT)
    assert done.returncode == 0, done.stderr
    assert f"quick: unchanged, skipped -> {out / 'quick'}" in done.stdout
    assert "slow1: ran in" in done.stdout and "slow2: ran in" in done.stdout
    assert json.loads((out / "slow2" / "result.json").read_text()) == {"pause": 0.0}
    assert not list(out.glob(".*.partial*"))


def test_kill_9_leaves_no_worker_or_kernel_and_no_stale_lock(project, run_tmp):
    out = project / "out"
    proc = _start(project, out, 2, run_tmp)
    descendants = _wait_until_slow_ones_run(proc, out, n_slow=2)
    proc.kill()
    proc.communicate()
    _, alive = psutil.wait_procs(descendants, timeout=10)
    assert _alive(alive) == []
    assert list(run_tmp.iterdir()) == []  # the workers removed them as they went down
    assert (out / ".lock").read_text().strip() == str(proc.pid)  # left behind, not stale
    assert list(out.glob(".slow*.partial-*"))  # the killed run's half-written folders
    _params(project, 0.0)
    records = reproduce(load_registry(project), None, profile="ci", out_dir=out, jobs=2)
    assert sorted(r.notebook for r in records if not r.skipped) == ["slow1", "slow2"]
    assert not list(out.glob(".*.partial*"))


def test_a_second_run_on_the_same_folder_is_refused(project, monkeypatch, capsys):
    monkeypatch.setenv("DPLASSO_ROOT", str(project))
    out = project / "out"
    with run_lock(out):
        assert cli_main(["reproduce", "--profile", "ci", "--out", str(out)]) == 2
    message = capsys.readouterr().err
    assert f"another `dplasso reproduce` (PID {os.getpid()}) is running on {out}" in message
    assert not (out / "quick").exists()


def test_leftovers_of_a_killed_run_do_not_break_a_rerun(project):
    out = project / "out"
    _params(project, 0.0)
    reproduce(load_registry(project), ["quick"], profile="ci", out_dir=out)
    for junk in (".quick.partial", ".slow1.partial-999999", ".slow2.partial"):
        (out / junk).mkdir()
        (out / junk / "half.ipynb").write_text("{")
    (out / ".quick.old").mkdir()  # killed between the two renames of a swap
    (out / ".lock").write_text("999999\n")  # a dead holder's PID
    records = reproduce(load_registry(project), None, profile="ci", out_dir=out, jobs=2)
    assert {r.notebook: r.skipped for r in records} == {
        "quick": True, "slow1": False, "slow2": False}
    assert not list(out.glob(".*.partial*")) and not (out / ".quick.old").exists()


def test_a_signal_after_every_notebook_finished_stops_nothing_and_exits_0(tmp_path):
    """SIGINT once both notebooks are done (as the record is written): a normal end."""
    root = two_notebook_project(tmp_path / "proj")
    faults = Path(__file__).resolve().parent / "faults"
    env = {**os.environ, "DPLASSO_ROOT": str(root),
           "PYTHONPATH": os.pathsep.join([str(faults), os.environ.get("PYTHONPATH", "")]),
           "DPLASSO_TEST_KILL": json.dumps({"op": "replace", "match": r"/runtimes\.md$",
                                            "nth": 3, "signal": "SIGINT", "who": "self"})}
    done = subprocess.run([sys.executable, "-m", "dplasso.cli", "reproduce", "--profile", "ci",
                           "--out", str(tmp_path / "out")], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "SIGINT arrived after every notebook had finished: nothing was stopped" in done.stderr
    assert "a: ran in" in done.stdout and "b: ran in" in done.stdout
    last = json.loads((tmp_path / "out" / "last-run.json").read_text())
    assert (last["state"], last["executed"], last["interrupted"]) == ("finished", 2, 0)


@pytest.mark.parametrize("launch", ["module", "script"])
@pytest.mark.parametrize("module", [
    "yaml",  # the command's first imports
    "dplasso.reproduce.runner",  # its last ones
    "tabulate",  # inside main, as it looks for the reproduce extra, before the run starts
])
def test_a_ctrl_c_while_the_command_starts_is_one_quiet_line(module, launch, tmp_path):
    """Ctrl-C 0.3 s after launch printed a traceback of whatever module was loading. Here the
    signal arrives as ``module`` starts to load (faults/sitecustomize.py), in ``python -m
    dplasso.cli`` and in the console script pip writes."""
    root = two_notebook_project(tmp_path / "proj")
    faults = Path(__file__).resolve().parent / "faults"
    script = tmp_path / "bin" / "dplasso"
    script.parent.mkdir()
    script.write_text(f"#!{sys.executable}\nimport sys\nfrom dplasso.cli import main\n"
                      "sys.exit(main())\n")
    script.chmod(0o755)
    env = {**os.environ, "DPLASSO_ROOT": str(root),
           "PYTHONPATH": os.pathsep.join([str(faults), os.environ.get("PYTHONPATH", "")]),
           "DPLASSO_TEST_KILL": json.dumps({"op": "import", "match": f"^{re.escape(module)}$",
                                            "when": "before", "signal": "SIGINT",
                                            "who": "self"})}
    command = [str(script)] if launch == "script" else [sys.executable, "-m", "dplasso.cli"]
    done = subprocess.run([*command, "reproduce", "--profile", "ci", "--out",
                           str(tmp_path / "out")], env=env, capture_output=True, text=True,
                          timeout=120)
    assert (done.returncode, done.stderr) == (128 + signal.SIGINT, "\nstopped by SIGINT\n")
    assert done.stdout == "" and not (tmp_path / "out").exists()
