"""``tests/claims.py`` runs the claim tests once per set of results: a record of their outcomes
is reused only when the digest of its inputs is the present one and its session ran to its end,
so a stale record is never taken for a pass (a changed, added or renamed results file changes
the digest; a copy of the results elsewhere does not). ``--strict`` fails on a recorded
failure. Not statistical."""
import json
import shutil
import subprocess
from pathlib import Path

import pytest

import claims


@pytest.fixture()
def results(tmp_path):
    folder = tmp_path / "results"
    (folder / "nb").mkdir(parents=True)
    (folder / "nb" / "nb.csv").write_text("a,b\n1,2\n")
    (folder / "pages").mkdir()  # not a notebook's folder: not an input
    return folder


def test_the_digest_follows_the_results_files_not_their_folder(results, tmp_path):
    digest = claims.inputs_digest(results, ["nb"])
    copy = tmp_path / "copy"
    shutil.copytree(results, copy)
    (copy / "pages" / "claims.json").write_text("{}")
    assert claims.inputs_digest(copy, ["nb"]) == digest
    (copy / "nb" / "nb.csv").write_text("a,b\n1,3\n")
    changed = claims.inputs_digest(copy, ["nb"])
    (copy / "nb" / "nb.csv").rename(copy / "nb" / "other.csv")
    renamed = claims.inputs_digest(copy, ["nb"])
    (copy / "nb" / "extra.json").write_text("{}")
    assert len({digest, changed, renamed, claims.inputs_digest(copy, ["nb"])}) == 4


def _record(path, *, inputs, exitstatus=0, failed=()):
    claims.write({}, path, inputs=inputs, exitstatus=exitstatus, failed=failed)


@pytest.fixture()
def runs(monkeypatch):
    """The pytest sessions ``outcomes_for`` starts (faked: each writes a passing record)."""
    started = []

    def run(args, cwd, env):
        out = next(a.split("=", 1)[1] for a in args if a.startswith("--claims-out="))
        started.append(env["DPLASSO_RESULTS"])
        _record(Path(out), inputs="now")
        return subprocess.CompletedProcess(args, 0)

    monkeypatch.setattr(claims, "inputs_digest", lambda results, notebooks: "now")
    monkeypatch.setattr(claims.subprocess, "run", run)
    return started


def test_a_current_record_is_reused_and_a_stale_or_unfinished_one_is_not(results, tmp_path,
                                                                         runs):
    current, out = tmp_path / "current.json", tmp_path / "pages" / "claims.json"
    _record(current, inputs="now", exitstatus=1, failed=["t::x"])
    assert claims.outcomes_for(results, out, [current])["failed"] == ["t::x"]
    assert runs == [] and json.loads(out.read_text())["failed"] == ["t::x"]

    for stale in ({"inputs": "before"}, {"inputs": "now", "exitstatus": 2}):
        _record(current, **stale)
        out.unlink()
        assert claims.outcomes_for(results, out, [current])["failed"] == []
        assert json.loads(out.read_text())["inputs"] == "now"
    assert runs == [str(results)] * 2


def test_strict_fails_on_a_recorded_failure(results, tmp_path, runs):
    out = tmp_path / "claims.json"
    _record(out, inputs="now", exitstatus=1, failed=["t::x"])
    assert claims.main([str(results), str(out)]) == 0
    assert claims.main(["--strict", str(results), str(out)]) == 1
    _record(out, inputs="now")
    assert claims.main(["--strict", str(results), str(out)]) == 0
    assert runs == []
