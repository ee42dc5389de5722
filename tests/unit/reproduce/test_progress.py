"""Progress inside a notebook: the kernel's tqdm bars reach the runner (``ProgressSink``)."""
import json
import types

from tqdm import tqdm

from tiny_notebook import myst_notebook
from dplasso.reproduce.registry import load_registry
from dplasso.reproduce.runner import (
    PROGRESS_FILE,
    ProgressSink,
    execute_notebook,
    read_progress,
    running_status,
)


def test_sink_keeps_the_outer_bar_while_it_runs_then_the_last(tmp_path):
    sink = ProgressSink(tmp_path / PROGRESS_FILE)
    outer = tqdm(total=3, desc="p1 datasets", file=sink, mininterval=0, ascii=True)
    outer.update()
    for _ in tqdm(range(4), desc="splits", file=sink, mininterval=0, leave=False):
        pass
    assert read_progress(tmp_path) == "p1 datasets 1/3"
    outer.update(2)
    outer.close()
    assert read_progress(tmp_path) == "splits 4/4"  # nothing running: the last bar seen
    sink.write("a warning: 50% of nothing\n")
    assert read_progress(tmp_path) == "splits 4/4"


def test_no_progress_before_a_bar(tmp_path):
    ProgressSink(tmp_path / PROGRESS_FILE).write("no bar here\n")
    assert read_progress(tmp_path) == ""
    worker = types.SimpleNamespace(pid=12)
    assert running_status([(worker, "nb")], tmp_path) == "nb: started"
    (tmp_path / ".nb.partial-12").mkdir()
    (tmp_path / ".nb.partial-12" / PROGRESS_FILE).write_text("grid 2/5")
    assert running_status([(worker, "nb")], tmp_path) == "nb: grid 2/5"


NOTEBOOK = myst_notebook(
    'profile = "?"',
    """\
    import json, pathlib, time
    from tqdm import tqdm
    for _ in tqdm(range(3), desc="demo grid", mininterval=0):
        time.sleep(0.05)
    seen = ""
    for _ in range(100):  # the runner reads the kernel's stderr while this cell still runs
        time.sleep(0.05)
        seen = pathlib.Path("progress.txt").read_text() if pathlib.Path("progress.txt").exists() else ""
        if seen == "demo grid 3/3":
            break
    pathlib.Path("seen.json").write_text(json.dumps(seen))
    """)


def test_a_running_notebook_reports_its_bar_and_the_folder_keeps_no_progress_file(tmp_path):
    root = tmp_path / "proj"
    (root / "notebooks").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "constraints.txt").write_text("")
    (root / "notebooks" / "bar.md").write_text(NOTEBOOK)
    (root / "artifacts.yaml").write_text(
        "notebooks:\n  bar: {source: notebooks/bar.md, title: Bar}\nartifacts: []\n")
    out = tmp_path / "out"
    execute_notebook(load_registry(root), "bar", {}, out, "ci")
    assert json.loads((out / "bar" / "seen.json").read_text()) == "demo grid 3/3"
    assert not (out / "bar" / PROGRESS_FILE).exists()


def test_a_bar_closed_before_its_last_count_was_shown_is_finished(tmp_path):
    """tqdm with ``leave=False`` blanks its line on close without printing a count that came
    faster than its display interval: the next stage is shown, not the stale one."""
    sink = ProgressSink(tmp_path / PROGRESS_FILE)
    sink.write("\rgrid references:  94%|#########4| 66/70 [00:01<00:00, 50.0it/s]")
    assert read_progress(tmp_path) == "grid references 66/70"
    sink.write("\r" + " " * 60 + "\r")
    sink.write("\rgrid private:  10%|#         | 1/10 [00:04<00:39,  4.39s/it]")
    assert read_progress(tmp_path) == "grid private 1/10"
    slow = tqdm(total=70, desc="cached units", file=sink, mininterval=3600, leave=False)
    slow.update(70)  # within the display interval: the count 70/70 is never printed
    slow.close()
    sink.write("\rgrid private:  20%|##        | 2/10 [00:05<00:21,  2.73s/it]")
    assert read_progress(tmp_path) == "grid private 2/10"
