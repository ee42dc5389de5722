"""The book's record of a full `paper` run (issue: both papers under 60 minutes on 2 cores).

`book/paper-run.md` is the runner's `runtimes.md` from one `make book` run of the `paper`
profile, copied by `make paper-record` and committed, because CI builds the `ci` profile. These
checks fail if the record is not one complete, successful `paper` invocation of every notebook
in the registry, or if that invocation took an hour or more. Not statistical.
"""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "book" / "paper-run.md"
TARGET_SECONDS = 3600
INVOCATION = re.compile(
    r"profile `(?P<profile>\w+)`, `--jobs (?P<jobs>\d+)`; (?P<executed>\d+) notebook\(s\) "
    r"executed, (?P<skipped>\d+) skipped \(unchanged\), (?P<failed>\d+) failed; wall time "
    r"\*\*\d+ min \d+ s\*\* \((?P<seconds>\d+) s\)")
ROW = re.compile(r"^\| (?P<notebook>[\w-]+) \| (?P<profile>\w+) \| (?P<seconds>[\d.]+) \|", re.M)


@pytest.fixture(scope="module")
def record():
    assert RECORD.is_file(), "no paper-run record: run `make book` then `make paper-record`"
    return RECORD.read_text()


def test_record_is_one_complete_paper_invocation(record, registry):
    match = INVOCATION.search(record)
    assert match, "the record has no invocation line (written by dplasso reproduce)"
    assert match["profile"] == "paper"
    assert (int(match["executed"]), int(match["skipped"]), int(match["failed"])) == (
        len(registry.notebooks), 0, 0), "the record must be one run that executed every notebook"
    rows = {m["notebook"]: m["profile"] for m in ROW.finditer(record)}
    assert rows == {name: "paper" for name in registry.notebooks}


def test_paper_profile_runs_in_under_an_hour(record):
    seconds = int(INVOCATION.search(record)["seconds"])
    assert seconds < TARGET_SECONDS, f"the paper run took {seconds} s >= {TARGET_SECONDS} s"
