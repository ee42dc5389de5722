"""The papermill runner: execution, skip keys, overrides, failures, atomic swaps."""
import json
import subprocess
import textwrap

import pytest
import yaml

from tiny_notebook import myst_notebook
from dplasso.cli import main as cli_main
from dplasso.reproduce.parameters import parse_overrides
from dplasso.reproduce.registry import load_registry
from dplasso.reproduce.runner import (
    NotebookFailed,
    declared_parameters,
    execute_notebook,
    longest_first,
    plan,
    reproduce,
    source_commit,
)

NOTEBOOK = myst_notebook(
    'value = 1\nfail = False\nprofile = "?"',
    """\
    import json, pathlib
    if fail:
        raise RuntimeError("deliberate failure " + str(value))
    pathlib.Path("result.json").write_text(json.dumps({"value": value, "profile": profile}))
    """, title="Tiny")


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    (root / "notebooks").mkdir(parents=True)
    (root / "params").mkdir()
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "__init__.py").write_text("X = 1\n")
    (root / "constraints.txt").write_text("numpy==2\n")
    (root / "notebooks" / "tiny.md").write_text(NOTEBOOK)
    (root / "artifacts.yaml").write_text(textwrap.dedent("""\
        notebooks:
          tiny: {source: notebooks/tiny.md, title: Tiny}
        artifacts:
          - {id: tiny-art, notebook: tiny, label: tiny-label, results: result.json,
             kind: table, claim: value is echoed}
        """))
    (root / "params" / "schema.yaml").write_text(textwrap.dedent("""\
        notebooks:
          tiny:
            value: {type: int, meaning: echoed}
            fail: {type: bool, meaning: raise in the kernel}
            profile: {type: choice, values: [ci, paper], settable: false, meaning: profile}
        """))
    (root / "params" / "ci.yaml").write_text("tiny:\n  value: 2\n")
    (root / "params" / "paper.yaml").write_text("tiny:\n  value: 3\n")
    return root


def _result(out, name="tiny"):
    return json.loads((out / name / "result.json").read_text())


def test_runs_skips_and_reruns_on_change(project):
    reg = load_registry(project)
    out = project / "out"
    first = reproduce(reg, ["tiny-art"], profile="ci", out_dir=out)
    assert not first[0].skipped
    assert _result(out) == {"value": 2, "profile": "ci"}
    assert (out / "tiny" / "tiny.ipynb").is_file()
    assert "tiny" in (out / "runtimes.md").read_text()

    record, runtimes = (out / "last-run.json").read_bytes(), (out / "runtimes.md").read_bytes()
    again = reproduce(reg, None, profile="ci", out_dir=out, jobs=2)
    assert again[0].skipped
    # a run that executes nothing keeps the last run's record
    assert (out / "last-run.json").read_bytes() == record
    assert (out / "runtimes.md").read_bytes() == runtimes
    assert "`--jobs 1`; 1 notebook(s) executed, 0 skipped" in runtimes.decode()

    (project / "src" / "pkg" / "__init__.py").write_text("X = 2\n")  # code it never imports
    assert reproduce(reg, None, profile="ci", out_dir=out)[0].skipped
    (project / "constraints.txt").write_text("numpy==3\n")  # the pins changed
    assert not reproduce(reg, None, profile="ci", out_dir=out)[0].skipped

    changed = reproduce(reg, None, profile="paper", out_dir=out)  # parameters changed
    assert not changed[0].skipped and _result(out)["value"] == 3


def test_override_goes_to_declared_parameter_only(project):
    reg = load_registry(project)
    out = project / "custom"
    reproduce(reg, None, profile="ci", overrides={"value": 7}, out_dir=out)
    assert _result(out)["value"] == 7
    with pytest.raises(ValueError, match="no selected notebook declares"):
        reproduce(reg, None, profile="ci", overrides={"nope": 1}, out_dir=out)


def test_failure_names_notebook_and_keeps_previous_results(project):
    reg = load_registry(project)
    out = project / "out"
    reproduce(reg, None, profile="ci", out_dir=out)
    with pytest.raises(NotebookFailed) as err:
        reproduce(reg, None, profile="ci", overrides={"fail": True}, out_dir=out)
    message = str(err.value)
    assert "'tiny'" in message and "RuntimeError" in message and "deliberate failure 2" in message
    assert _result(out)["value"] == 2  # the good run is still where the book reads
    assert "0 notebook(s) executed, 0 skipped (unchanged), 1 failed" in (
        out / "runtimes.md").read_text()
    assert (out / "_failed" / "tiny.ipynb").is_file()
    assert not list(out.glob(".tiny.partial*"))


def test_interrupted_swap_is_restored(project):
    reg = load_registry(project)
    out = project / "out"
    reproduce(reg, None, profile="ci", out_dir=out)
    (out / "tiny").rename(out / ".tiny.old")  # as if killed between the two renames
    rec = execute_notebook(reg, "tiny", plan(reg, None, "ci", {})["tiny"], out, "ci")
    assert rec.skipped and _result(out)["value"] == 2


def test_declared_parameters_and_overrides_parsing(project):
    assert declared_parameters(project / "notebooks" / "tiny.md") == {"value", "fail", "profile"}
    assert parse_overrides(["a=0.5", "b=[1, 2]", "c=true", "d=x"]) == {
        "a": 0.5, "b": [1, 2], "c": True, "d": "x"}
    with pytest.raises(ValueError, match="key=value"):
        parse_overrides(["novalue"])


def test_registry_rejects_unknown_names(project):
    reg = load_registry(project)
    with pytest.raises(ValueError, match="unknown artifact or notebook 'zzz'"):
        reg.notebooks_for(["zzz"])
    with pytest.raises(ValueError, match="profile must be one of"):
        reg.params("fast")


def test_cli_list_and_custom_out(project, monkeypatch, capsys):
    monkeypatch.setenv("DPLASSO_ROOT", str(project))
    assert cli_main(["list", "--profile", "ci"]) == 0
    shown = capsys.readouterr().out
    assert "tiny-art" in shown and "value = 2" in shown and "claim: value is echoed" in shown
    assert cli_main(["reproduce", "-p", "value=5", "--profile", "ci"]) == 0
    assert cli_main(["reproduce", "-p", "value=6", "--profile", "ci"]) == 0
    folders = sorted((project / "results" / "custom").iterdir())
    assert len(folders) == 2  # one per parameter set: the first custom run is kept
    assert sorted(_result(f)["value"] for f in folders) == [5, 6]
    assert {yaml.safe_load((f / "parameters.yaml").read_text())["overrides"]["value"]
            for f in folders} == {5, 6}
    assert not (project / "book" / "generated").exists()
    capsys.readouterr()
    assert cli_main(["list", "--profile", "ci"]) == 0
    shown = capsys.readouterr().out
    assert "results/custom/<profile>-<hash>/<notebook>/" in shown
    assert all(str(f.relative_to(project)) in shown for f in folders)
    assert cli_main(["reproduce", "bogus"]) == 2


def test_source_commit_marks_changed_inputs_only(project):
    assert source_commit(project) == "unknown"  # not a git checkout

    def git(*args):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
                       cwd=project, check=True, capture_output=True)

    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "x")
    commit = source_commit(project)
    assert commit != "unknown" and not commit.endswith("+changes")
    (project / "README.md").write_text("not an input\n")
    assert source_commit(project) == commit
    (project / "src" / "pkg" / "__init__.py").write_text("X = 3\n")
    assert source_commit(project) == commit + "+changes"


def test_longest_first_orders_by_recorded_time_of_the_profile(tmp_path):
    for name, profile, seconds in [("a", "paper", 5.0), ("b", "paper", 50.0),
                                   ("c", "ci", 500.0), ("d", "paper", 20.0)]:
        (tmp_path / name).mkdir()
        (tmp_path / name / "run.json").write_text(
            json.dumps({"profile": profile, "seconds": seconds}))
    # e has no record, c only a ci one: both unknown, first, in their given order
    assert longest_first(["a", "b", "c", "d", "e"], tmp_path, "paper") == ["c", "e", "b", "d", "a"]
    assert longest_first(["e", "a"], tmp_path, "ci") == ["e", "a"]


UNITS_NOTEBOOK = myst_notebook(
    'cache_dir = None\nvalue = 1',
    """\
    import pandas as pd
    from dplasso.experiments.checkpoint import cached_tasks
    frames = cached_tasks(cache_dir, [(f"unit{i}", {"i": i}, ({"x": [value + i]},))
                                      for i in range(2)], pd.DataFrame)
    pd.concat(frames).to_csv("units.csv", index=False)
    """)


def test_a_notebook_reads_its_units_from_the_persistent_cache_and_records_how_many(
        project, tmp_path, monkeypatch):
    """The unit cache outlives a run: a forced rerun reads both units, a prose edit too, and
    ``run.json`` and ``runtimes.md`` say how many came from the cache."""
    monkeypatch.setenv("DPLASSO_UNIT_CACHE", str(tmp_path / "units"))
    (project / "notebooks" / "tiny.md").write_text(UNITS_NOTEBOOK)
    (project / "params" / "schema.yaml").write_text(textwrap.dedent("""\
        notebooks:
          tiny:
            cache_dir: {type: any, settable: false, optional: true, meaning: unit cache}
            value: {type: int, meaning: echoed}
        """))
    reg = load_registry(project)
    out = project / "out"
    first = reproduce(reg, ["tiny"], profile="ci", out_dir=out)[0]
    assert (first.units["read"], first.units["computed"]) == (0, 2)
    assert len(list((tmp_path / "units").glob("unit*.pkl"))) == 2
    again = reproduce(reg, ["tiny"], profile="ci", out_dir=out, force=True)[0]
    assert (again.units["read"], again.units["computed"]) == (2, 0)
    assert json.loads((out / "tiny" / "run.json").read_text())["units"]["read"] == 2
    assert "| 2 of 2 |" in (out / "runtimes.md").read_text()
    (project / "notebooks" / "tiny.md").write_text(UNITS_NOTEBOOK + "\nOne more sentence.\n")
    edited = reproduce(reg, ["tiny"], profile="ci", out_dir=out)[0]
    assert not edited.skipped and edited.units["computed"] == 0
    assert (out / "tiny" / "units.csv").read_text() == "x\n2\n3\n"
