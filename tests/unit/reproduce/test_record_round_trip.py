"""dplasso.reproduce.paper_record on a one-notebook project: a paper run is recorded, the
record is current until an input changes, a run that is not one current paper run is refused,
and the record restores into a results folder."""
import json

import pytest

from test_runner import NOTEBOOK, project  # noqa: F401 (the fixture)
from dplasso.reproduce.paper_record import restore_record, stale_records, write_record
from dplasso.reproduce.registry import load_registry
from dplasso.reproduce.runner import KERNEL_LOG, reproduce


def test_record_round_trip_and_staleness(project):  # noqa: F811
    registry = load_registry(project)
    out, record = project / "out", project / "record"
    reproduce(registry, None, profile="ci", out_dir=out)
    with pytest.raises(ValueError, match="profile 'ci'"):
        write_record(registry, out, record)
    assert not record.exists()

    reproduce(registry, None, profile="paper", out_dir=out)
    (out / "tiny" / "html").mkdir()  # a rendered page is not part of the record
    (out / "tiny" / KERNEL_LOG).write_text("a kernel's message\n")  # nor the kernel's log
    assert write_record(registry, out, record) == ["tiny"]
    assert sorted(p.name for p in (record / "tiny").iterdir()) == [
        "result.json", "run.json", "tiny.ipynb"]
    assert stale_records(registry, record) == {}

    (project / "notebooks" / "tiny.md").write_text(NOTEBOOK + "\n")  # the notebook changed
    assert "stale" in stale_records(registry, record)["tiny"]
    with pytest.raises(ValueError, match="stale"):
        write_record(registry, out, record)
    (project / "notebooks" / "tiny.md").write_text(NOTEBOOK)

    restored = project / "restored"
    assert restore_record(registry, restored, record) == ["tiny"]
    assert json.loads((restored / "tiny" / "result.json").read_text())["profile"] == "paper"
    with pytest.raises(ValueError, match="no paper record"):
        restore_record(registry, restored, project / "nothing")


def test_the_runtimes_header_carries_the_host_speed_probe(project):  # noqa: F811
    """The run records a positive probe time and the BLAS that ran it; the header prints
    both, so records from hosts of different speed can be compared."""
    from dplasso.reproduce.record import read_runtimes, speed_probe

    probe = speed_probe(rounds=3)
    assert probe["probe_ms"] > 0 and probe["blas"] != "unknown"
    assert probe["exp_ms"] > 0 and probe["small_op_us"] > 0
    out = project / "out"
    reproduce(load_registry(project), None, profile="ci", out_dir=out)
    machine = json.loads((out / "last-run.json").read_text())["machine"]
    assert machine["probe_ms"] > 0
    text = (out / "runtimes.md").read_text()
    assert f"took {machine['probe_ms']:.2f} ms" in text and machine["blas"] in text
    assert f"entries {machine['exp_ms']:.2f} ms" in text
    assert f"8 entries {machine['small_op_us']:.2f} µs" in text
    assert set(read_runtimes(out / "runtimes.md")) == {"tiny"}


def test_a_record_from_before_the_exp_probe_keeps_its_one_reading(tmp_path):
    """Records written before the elementwise and interpreter readings render as they did."""
    from dplasso.reproduce.record import LAST_RUN_FILE, render_runtimes

    machine = {"machine": "x86_64", "cpus": 2, "python": "3.11.7", "probe_ms": 4.08,
               "blas": "openblas"}
    (tmp_path / LAST_RUN_FILE).write_text(json.dumps({
        "run": "r", "state": "finished", "profile": "paper", "jobs": 2, "executed": 0,
        "skipped": 0, "failed": 0, "started_at": 0.0, "wall_seconds": 1.0,
        "finished": "then", "commit": "c", "machine": machine}))
    assert "took 4.08 ms (median of 25)." in render_runtimes(tmp_path)
