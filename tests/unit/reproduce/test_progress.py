"""Progress inside a notebook: the kernel's tqdm bars reach the runner (``ProgressSink``), with
their own estimate of the time their stage has left; the run's estimate comes from records of
the parameters scheduled only (a custom run's is not the profile's record)."""
import json
import re
import types

import pytest
import yaml
from tqdm import tqdm

from tiny_notebook import myst_notebook
from dplasso.reproduce.record import scheduled_times
from dplasso.reproduce.registry import load_registry
from dplasso.reproduce.runner import (
    PROGRESS_FILE,
    ProgressSink,
    execute_notebook,
    read_progress,
    reproduce,
    running_status,
    stage_seconds_left,
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


def test_the_sink_estimates_a_stage_at_its_units_pace_not_counting_the_cached_ones(tmp_path):
    now = [1000.0]
    sink = ProgressSink(tmp_path / PROGRESS_FILE, clock=lambda: now[0])
    sink.write("\rgrid private:   0%|          | 0/10 [00:00<?, ?it/s]")
    now[0] += 4.0  # four units from the cache at once, then one computed in 4 s
    sink.write("\rgrid private:  50%|#####     | 5/10 [00:04<00:04,  1.2it/s]")
    assert read_progress(tmp_path) == "grid private 5/10" and stage_seconds_left(tmp_path) is None
    now[0] += 8.0  # two more, 4 s each: 3 to go, 12 s (tqdm's own rate would say about 5 s)
    sink.write("\rgrid private:  70%|#######   | 7/10 [00:12<00:05,  0.6it/s]")
    assert read_progress(tmp_path) == "grid private 7/10"
    assert 10 <= stage_seconds_left(tmp_path) <= 12  # counted down since it was written
    worker = types.SimpleNamespace(pid=7)
    (tmp_path / ".nb.partial-7").mkdir()
    (tmp_path / PROGRESS_FILE).rename(tmp_path / ".nb.partial-7" / PROGRESS_FILE)
    assert re.fullmatch(r"nb: grid private 7/10 \(00:1[01] left in this stage\)",
                        running_status([(worker, "nb")], tmp_path))
    sink.write("\rgrid private: 100%|##########| 10/10 [00:24<00:00,  0.4it/s]")
    assert stage_seconds_left(tmp_path) is None  # finished: nothing left to estimate
    sink.write("\rsplits:   0%|          | 0/3 [00:00<?, ?it/s]")
    now[0] += 1.0
    sink.write("\rsplits:  33%|###       | 1/3 [00:01<00:02, 1.0it/s]")
    assert read_progress(tmp_path) == "splits 1/3" and stage_seconds_left(tmp_path) is None
    now[0] += 3600.0  # one move: no pace yet; two: the pace
    sink.write("\rsplits:  67%|######    | 2/3 [1:00:01<1:00:00, 3600s/it]")
    assert stage_seconds_left(tmp_path) == pytest.approx(3600, abs=2)
    sink.write("\rsplits:   0%|          | 0/3 [00:00<?, ?it/s]")  # down: the bar anew
    now[0] += 10.0
    sink.write("\rsplits:  33%|###       | 1/3 [00:10<00:20, 10s/it]")
    assert stage_seconds_left(tmp_path) is None


def _planned(tmp_path, folder, params):
    (tmp_path / folder / "nb").mkdir(parents=True)
    (tmp_path / folder / "nb" / "run.json").write_text(json.dumps(
        {"notebook": "nb", "profile": "paper", "seconds": 600.0, "parameters": params}))


def test_a_recorded_time_counts_only_for_the_parameters_scheduled(tmp_path):
    paper = {"profile": "paper", "datasets": [37, 44], "epsilons": [0.5, 1.0]}
    _planned(tmp_path, "record", paper)  # the committed paper record
    record = tmp_path / "record"
    assert scheduled_times({"nb": paper}, tmp_path / "out", record) == {"nb": 600.0}
    custom = {**paper, "datasets": [1462]}  # -p datasets=[1462]: other work
    assert scheduled_times({"nb": custom}, tmp_path / "out", record) == {}
    _planned(tmp_path, "out", custom)  # its own earlier run of the same parameters
    (tmp_path / "out" / "nb" / "run.json").write_text(json.dumps(
        {"seconds": 37.0, "parameters": custom}))
    assert scheduled_times({"nb": custom}, tmp_path / "out", record) == {"nb": 37.0}
    assert scheduled_times({"nb": (1, 2)}, tmp_path / "none") == {}


def test_a_custom_run_shows_no_estimate_from_the_record_but_its_stage_estimate(
        tmp_path, capsys):
    root = tmp_path / "proj"
    (root / "notebooks").mkdir(parents=True)
    (root / "params").mkdir()
    (root / "src").mkdir()
    (root / "constraints.txt").write_text("")
    (root / "notebooks" / "bar.md").write_text(myst_notebook("steps = 3", """\
        import time
        from tqdm import tqdm
        for _ in tqdm(range(steps), desc="demo grid", mininterval=0):
            time.sleep(1.0)
        """))
    (root / "artifacts.yaml").write_text(
        "notebooks:\n  bar: {source: notebooks/bar.md, title: Bar}\nartifacts: []\n")
    (root / "params" / "ci.yaml").write_text("bar: {steps: 3}\n")
    (root / "params" / "schema.yaml").write_text(yaml.safe_dump(
        {"notebooks": {"bar": {"steps": {"type": "int", "meaning": "loop length"}}}}))
    out = tmp_path / "out"
    (out / "bar").mkdir(parents=True)  # a record of the ci profile's parameters: 10 minutes
    (out / "bar" / "run.json").write_text(json.dumps(
        {"notebook": "bar", "profile": "ci", "key": "older", "seconds": 600.0,
         "finished": "earlier", "parameters": {"steps": 3}}))
    (record,) = reproduce(load_registry(root), None, profile="ci", overrides={"steps": 4},
                          out_dir=out)
    err = capsys.readouterr().err
    assert "left by the record" not in err and "longer than the record" not in err
    assert re.search(r"bar: demo grid [123]/4 \(00:0\d left in this stage\)", err), err
    assert record.overrides == {"steps": 4}
    assert json.loads((out / "bar" / "run.json").read_text())["overrides"] == {"steps": 4}
