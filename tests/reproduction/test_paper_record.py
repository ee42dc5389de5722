"""The committed paper record (``book/paper-results/<notebook>/``,
:mod:`dplasso.reproduce.paper_record`) is one current paper-profile run of every notebook: each record's skip key is the key a paper
run would have now, so a record made before a change to its notebook, its parameters, the
library or the pins fails here (the claim tests also run on the record, ``make book-check``).
The check is shown to catch a changed library and a record at another profile. Not
statistical.
"""
import json
import shutil

import pytest

from dplasso.reproduce import paper_record
from dplasso.reproduce.paper_record import RECORD_DIR, stale_records
from dplasso.reproduce.record import RUN_FILE
from dplasso.reproduce.registry import load_registry


@pytest.fixture(scope="module")
def registry():
    return load_registry()


def test_every_notebook_has_a_current_paper_record(registry):
    stale = stale_records(registry)
    assert not stale, ("paper record missing or stale (run `make book`, then "
                       f"`make paper-record`): {stale}")


def test_staleness_check_catches_a_changed_library_and_another_profile(registry, tmp_path,
                                                                       monkeypatch):
    name = next(iter(registry.notebooks))
    source = registry.root / RECORD_DIR / name
    if not (source / RUN_FILE).is_file():
        pytest.fail(f"no paper record of {name} to test the check on")
    shutil.copytree(source, tmp_path / name)
    assert name not in stale_records(registry, tmp_path)
    honest = paper_record.notebook_inputs

    def edited(*args):  # the library as one edit of one module the notebook imports would leave it
        inputs = honest(*args)
        module = sorted(inputs["modules"])[-1]
        return {**inputs, "modules": {**inputs["modules"], module: "edited"}}

    with monkeypatch.context() as patch:
        patch.setattr(paper_record, "notebook_inputs", edited)
        why = stale_records(registry, tmp_path)[name]
        module = sorted(honest(registry, name, {})["modules"])[-1]
        assert why.startswith("stale: the library module(s) ") and module in why
    record = json.loads((tmp_path / name / RUN_FILE).read_text())
    (tmp_path / name / RUN_FILE).write_text(json.dumps({**record, "profile": "ci"}))
    assert "profile 'ci'" in stale_records(registry, tmp_path)[name]
