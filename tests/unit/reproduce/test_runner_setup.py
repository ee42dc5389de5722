"""How the runner starts kernels (IPC transport, print-resolution figures), orders notebooks by
their records and the committed paper record (a fresh clone, a resumed run), and estimates the
time left from them; the README states the record's times."""
import base64
import io
import json
import os
import re
import textwrap
from pathlib import Path

import nbformat
import pytest
from PIL import Image

from tiny_notebook import myst_notebook
from dplasso.cli import _default_seed
from dplasso.cli import main as cli_main
from dplasso.data.openml import SEED_ENV_VAR
from dplasso.reproduce.registry import load_registry
from dplasso.reproduce.record import PAPER_RECORD, eta_seconds, longest_first, read_runtimes
from dplasso.reproduce.runner import KERNEL_LOG, execute_notebook, reproduce

NOTEBOOK = myst_notebook(
    "width = 3.0",
    """\
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(width, 2.0))
    ax.plot([0, 1], [0, 1])
    plt.show()
    """, title="Figure")


def _project(tmp_path):
    root = tmp_path / "proj"
    for folder in ("notebooks", "params", "src/pkg"):
        (root / folder).mkdir(parents=True)
    (root / "src" / "pkg" / "__init__.py").write_text("")
    (root / "constraints.txt").write_text("")
    (root / "notebooks" / "fig.md").write_text(NOTEBOOK)
    (root / "artifacts.yaml").write_text(textwrap.dedent("""\
        notebooks:
          fig: {source: notebooks/fig.md, title: Figure}
        artifacts: []
        """))
    for profile, width in (("ci", 2.0), ("paper", 3.0)):
        (root / "params" / f"{profile}.yaml").write_text(f"fig:\n  width: {width}\n")
    return root


def _earlier_record(root, seconds, parameters=None):
    """``root/out``, holding an earlier record of the notebook ``fig`` that took ``seconds``
    with ``parameters`` (default: the ``ci`` profile's, which a ``ci`` run schedules)."""
    out = root / "out"
    (out / "fig").mkdir(parents=True)
    (out / "fig" / "run.json").write_text(json.dumps(
        {"notebook": "fig", "profile": "ci", "key": "older", "seconds": seconds,
         "finished": "earlier", "parameters": parameters or {"width": 2.0}}))
    return out


def test_a_run_that_outlasts_its_record_says_so_and_its_clock_keeps_moving(tmp_path, capsys):
    root = _project(tmp_path)
    (root / "notebooks" / "fig.md").write_text(myst_notebook(
        "width = 3.0", "import time\ntime.sleep(4)", title="Figure"))
    out = _earlier_record(root, seconds=0.5)
    reproduce(load_registry(root), None, profile="ci", out_dir=out)
    err = capsys.readouterr().err
    assert "00:00 left" not in err
    # No progress of its own and no estimate left to count down: only the redraw moves the clock.
    clocks = re.findall(r"\[(\d\d:\d\d), longer than the record; fig: started\]", err)
    assert len(set(clocks)) >= 3, clocks


def test_the_kernel_writes_its_stderr_to_a_log_not_to_the_operators(tmp_path, capfd):
    root = _project(tmp_path)
    (root / "notebooks" / "fig.md").write_text(myst_notebook(
        "width = 3.0", "import sys\nsys.__stderr__.write('kernel says\\n')\n"
        "sys.__stderr__.flush()", title="Figure"))
    execute_notebook(load_registry(root), "fig", {"width": 3.0}, root / "out", "ci")
    assert "kernel says" not in capfd.readouterr().err
    # the kernel's own shutdown messages (e.g. a ZMQ error on a loaded machine) may follow
    assert (root / "out" / "fig" / KERNEL_LOG).read_text().startswith("kernel says\n")


def test_a_kernel_that_dies_leaves_its_last_words_in_the_error(tmp_path, capfd):
    root = _project(tmp_path)
    (root / "notebooks" / "fig.md").write_text(myst_notebook(
        "width = 3.0", "import os, sys, time\nsys.__stderr__.write('last words\\n')\n"
        "sys.__stderr__.flush()\ntime.sleep(0.5)\nos._exit(3)", title="Figure"))
    with pytest.raises(Exception, match="Kernel died") as raised:
        execute_notebook(load_registry(root), "fig", {"width": 3.0}, root / "out", "ci")
    assert raised.value.__notes__ == ["the kernel's standard error ended with:\nlast words"]
    assert "last words" not in capfd.readouterr().err


def test_kernel_runs_over_ipc_and_draws_figures_at_200_dpi(tmp_path, capfd, monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    root = _project(tmp_path)
    execute_notebook(load_registry(root), "fig", {"width": 3.0}, root / "out", "ci")
    # ipykernel logs its transport warning to the kernel's stderr, kept when not empty.
    log = root / "out" / "fig" / KERNEL_LOG
    assert not log.exists() or "without encryption" not in log.read_text()
    assert "without encryption" not in capfd.readouterr().err

    nb = nbformat.read(root / "out" / "fig" / "fig.ipynb", as_version=4)
    (output,) = [o for c in nb.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    image = Image.open(io.BytesIO(base64.b64decode(output["data"]["image/png"])))
    assert min(image.info["dpi"]) >= 199.5, image.info
    # Shown at its 100-dpi size: the on-screen width is half the pixel width.
    assert output["metadata"]["image/png"]["width"] == image.size[0] // 2


def test_read_runtimes_reads_the_table_write_runtimes_writes(tmp_path):
    record = tmp_path / "runtimes.md"
    record.write_text(
        "Last run: profile `paper`.\n\n| notebook | profile | wall time (s) | finished |\n"
        "|---|---|---:|---|\n| a | paper | 10.0 | x |\n| b | paper | 1932.8 | y |\n"
        "| **total** | | **1942.8** | |\n")
    assert read_runtimes(record) == {"a": 10.0, "b": 1932.8}
    assert read_runtimes(tmp_path / "absent.md") == {}


def test_without_records_the_fallback_orders_and_records_win_over_it(tmp_path):
    fallback = {"a": 1000.0, "b": 100.0}
    assert longest_first(["b", "c", "a"], tmp_path, "paper", fallback) == ["c", "a", "b"]
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "run.json").write_text(json.dumps({"profile": "paper", "seconds": 5.0}))
    # With a record under the profile the fallback is not used: b's time is unknown, b first.
    assert longest_first(["a", "b"], tmp_path, "paper", fallback) == ["b", "a"]
    assert longest_first(["a", "b"], tmp_path, "ci", fallback) == ["a", "b"]


def test_a_fresh_clone_starts_the_longest_notebook_of_the_paper_record_first(tmp_path):
    root = Path(__file__).resolve().parents[3]
    names = list(load_registry(root).notebooks)
    times = read_runtimes(root / PAPER_RECORD)
    longest = max(times, key=times.get)  # beyond-p1 in the committed record
    # The record covers every notebook but beyond-p2 (added after it, until the next paper
    # run records it); it names no notebook that no longer exists.
    assert set(times) <= set(names)
    assert set(names) - set(times) <= {"beyond-p2"}
    order = longest_first(names, tmp_path / "empty", "paper", times)
    # Notebooks newer than the record (time unknown) go first; then the record's longest.
    unknown = [name for name in names if name not in times]
    assert order[:len(unknown)] == unknown
    assert order[len(unknown)] == longest
    assert [times[n] for n in order[len(unknown):]] == sorted(
        (times[n] for n in names if n in times), reverse=True)


def test_cli_says_so_when_a_run_replaces_another_profiles_results(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path)
    monkeypatch.setenv("DPLASSO_ROOT", str(root))
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    assert cli_main(["reproduce", "--profile", "paper"]) == 0
    assert "replaces" not in capsys.readouterr().err
    assert cli_main(["reproduce", "--profile", "ci"]) == 0
    err = capsys.readouterr().err
    assert "holds paper-profile results of 1 notebook(s) (fig); this ci run replaces them" in err
    assert cli_main(["reproduce", "--profile", "ci", "--force"]) == 0
    assert "replaces" not in capsys.readouterr().err  # same profile: nothing to warn about


def test_cli_uses_the_seed_beside_the_checkout_unless_told_otherwise(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    root.mkdir()
    seed = tmp_path / "shared" / "data" / "openml"
    monkeypatch.delenv(SEED_ENV_VAR, raising=False)
    _default_seed(root)
    assert SEED_ENV_VAR not in os.environ  # no seed there: nothing set
    seed.mkdir(parents=True)
    _default_seed(root)
    assert os.environ[SEED_ENV_VAR] == str(seed)
    monkeypatch.setenv(SEED_ENV_VAR, "")  # explicitly off, as `make DPLASSO_OPENML_SEED=`
    _default_seed(root)
    assert os.environ[SEED_ENV_VAR] == ""


def _record_wall_time(record_text):
    match = re.search(r"`--jobs (\d+)`;.*wall time \*\*(\d+) min (\d+) s\*\*", record_text)
    return int(match[1]), int(match[2]), int(match[3])


def test_the_readme_states_the_times_of_the_committed_record():
    """The README's `make book` time and its longest notebook are the record's, not typed."""
    root = Path(__file__).resolve().parents[3]
    readme = (root / "README.md").read_text()
    jobs, minutes, seconds = _record_wall_time((root / PAPER_RECORD).read_text())
    row = re.search(r"\| `make book` \(paper profile, `JOBS=(\d+)`\) \| (\d+) min (\d+) s in the "
                    r"committed record \(`book/paper-run\.md`\) \|", readme)
    assert row, "README has no `make book` row with the record's time"
    assert tuple(map(int, row.groups())) == (jobs, minutes, seconds)
    times = read_runtimes(root / PAPER_RECORD)
    longest = max(times, key=times.get)
    said = re.search(r"the longest, `([\w-]+)` \((\d+) min in that\s+record\)", readme)
    assert said and (said[1], int(said[2])) == (longest, round(times[longest] / 60))


def test_a_resumed_run_starts_the_longest_unfinished_notebook_first(tmp_path):
    """After an interruption the finished notebooks have records of their own and are
    skipped; each unfinished one is ordered by the committed record (it used to come after
    the unknown-time ones in registry order, so the longest could start last)."""
    root = Path(__file__).resolve().parents[3]
    names = list(load_registry(root).notebooks)
    times = read_runtimes(root / PAPER_RECORD)
    by_time = sorted(times, key=times.get)
    finished, unfinished = by_time[: len(by_time) // 2], by_time[len(by_time) // 2:]
    for name in finished:  # their own, faster records
        (tmp_path / name).mkdir()
        (tmp_path / name / "run.json").write_text(
            json.dumps({"profile": "paper", "seconds": times[name] / 2}))
    pending = [name for name in names if name in unfinished]
    order = longest_first(pending, tmp_path, "paper", times)
    assert order[0] == max(unfinished, key=times.get)
    assert [times[n] for n in order] == sorted((times[n] for n in pending), reverse=True)


def test_the_estimate_follows_the_record_and_the_schedule():
    times = {"long": 100.0, "mid": 60.0, "short": 10.0}
    # two workers, longest first: long | mid then short -> 100 s
    assert eta_seconds([], ["long", "mid", "short"], times, workers=2) == 100.0
    # one worker: the sum
    assert eta_seconds([], ["long", "mid", "short"], times, workers=1) == 170.0
    # what has run counts: long ran 30 s, mid 55 s; short goes after mid: max(70, 5 + 10)
    assert eta_seconds([("long", 30.0), ("mid", 55.0)], ["short"], times, workers=2) == 70.0
    # over its time a running notebook counts 0
    assert eta_seconds([("mid", 90.0)], ["short"], times, workers=1) == 10.0
    # a notebook without a record of its parameters: no estimate (not the others' mean)
    assert eta_seconds([("mid", 90.0)], ["new"], times, workers=1) is None
    assert eta_seconds([("new", 1.0)], ["mid"], times, workers=2) is None
    assert eta_seconds([], ["new", "other"], {}, workers=2) is None


def test_the_progress_bar_shows_the_time_left_by_the_record(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    root = _project(tmp_path)
    out = _earlier_record(root, seconds=130.0)
    reproduce(load_registry(root), None, profile="ci", out_dir=out)
    shown = re.findall(r"about (\d\d):(\d\d) left by the record", capsys.readouterr().err)
    assert shown, "the bar showed no estimate"
    seconds = [60 * int(m) + int(s) for m, s in shown]
    assert 100 <= seconds[0] <= 130 and seconds == sorted(seconds, reverse=True)
