"""`make paper-record`'s pieces: a restore that skips notebooks without a record, and
`dplasso record --check`, which names the stale ones. Not statistical."""
import shutil

import pytest

from dplasso.cli import main as cli_main
from dplasso.reproduce.paper_record import RECORD_DIR, restore_record
from dplasso.reproduce.record import RUN_FILE
from dplasso.reproduce.registry import load_registry


@pytest.fixture(scope="module")
def registry():
    return load_registry()


def test_a_restore_can_skip_notebooks_that_have_no_record_yet(registry, tmp_path):
    name = "datasets"
    shutil.copytree(registry.root / RECORD_DIR / name, tmp_path / "record" / name)
    with pytest.raises(ValueError, match="no paper record of"):
        restore_record(registry, tmp_path / "out", tmp_path / "record")
    assert restore_record(registry, tmp_path / "out", tmp_path / "record",
                          missing_ok=True) == [name]
    assert (tmp_path / "out" / name / RUN_FILE).is_file()
    assert sorted(p.name for p in (tmp_path / "out").iterdir() if p.is_dir()) == [name]


def test_record_check_names_each_stale_record_and_exits_1(registry, capsys, monkeypatch):
    import dplasso.cli as cli

    monkeypatch.setattr(cli, "stale_records", lambda reg: {"datasets": "stale: the notebook "
                                                                      "changed since commit x"})
    assert cli_main(["record", "--check"]) == 1
    out = capsys.readouterr().out
    assert "datasets: stale: the notebook changed" in out
    assert f"{len(registry.notebooks) - 1} of {len(registry.notebooks)}" in out
    monkeypatch.setattr(cli, "stale_records", lambda reg: {})
    assert cli_main(["record", "--check"]) == 0


def test_a_run_naming_no_notebook_runs_those_that_take_the_values(registry):
    """``-p "datasets=[29]"`` (credit-approval, binary): every notebook whose `datasets` takes
    binary ids, not p1-multinomial (multiclass), which is left out with its reason; nothing
    else."""
    from dplasso.reproduce.runner import plan

    left_out = []
    todo = plan(registry, None, "ci", {"datasets": [29]}, left_out=left_out)
    assert "p1-multinomial" not in todo and {"p1-sparsity", "p1-baselines", "beyond-p1"} <= set(todo)
    assert all(params["datasets"] == [29] for params in todo.values())
    assert [name for name, _ in left_out] == ["p1-multinomial"]
    assert "is a binary dataset, not a multiclass one" in left_out[0][1]
    with pytest.raises(ValueError, match="does not fit notebook 'p1-multinomial'"):
        plan(registry, ["p1-multinomial"], "ci", {"datasets": [29]})


def test_a_restore_keeps_a_run_that_is_already_current(registry, tmp_path, monkeypatch):
    """An interrupted `make paper-record` resumes: the scratch folder's current runs stay."""
    import dplasso.reproduce.paper_record as paper_record

    name = "datasets"
    shutil.copytree(registry.root / RECORD_DIR / name, tmp_path / "record" / name)
    (tmp_path / "out" / name).mkdir(parents=True)
    (tmp_path / "out" / name / "mine.txt").write_text("a newer run")
    monkeypatch.setattr(paper_record, "stale_records",
                        lambda reg, folder=None: {n: "stale" for n in reg.notebooks if n != name})
    assert restore_record(registry, tmp_path / "out", tmp_path / "record", missing_ok=True,
                          keep_current=True) == []
    assert (tmp_path / "out" / name / "mine.txt").is_file()
    assert restore_record(registry, tmp_path / "out", tmp_path / "record",
                          missing_ok=True) == [name]
    assert not (tmp_path / "out" / name / "mine.txt").exists()
