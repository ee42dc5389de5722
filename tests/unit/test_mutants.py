"""The mutation list (``tests/mutants.py``) stays applicable to the current source.

Each mutant's edits must each match exactly once, change the file, and leave it valid
Python; its first tests must exist. (Whether the suite kills each one is what the mutation
run records; the proofs chapter's claim test reads that record.)
"""
import ast
import shutil
from pathlib import Path

import pytest

import mutants

KINDS = {"noise scale", "sensitivity", "budget share", "call site", "early stop",
         "degrees of freedom", "data-dependent", "noise law", "privacy map", "accountant"}


def test_ids_are_unique_and_kinds_known():
    ids = [m.id for m in mutants.MUTANTS]
    assert len(ids) == len(set(ids))
    assert {m.kind for m in mutants.MUTANTS} == KINDS
    for required in ("lazy-stop-early", "split-sigma-half", "split-l2-1", "fw-T-half",
                     "fw-sensitivity-half", "count-2eps1-lasso-support"):
        assert required in ids


@pytest.mark.parametrize("mutant", mutants.MUTANTS, ids=lambda m: m.id)
def test_mutant_applies_to_the_current_source(mutant, tmp_path):
    source = mutants.ROOT / "src" / "dplasso" / mutant.path
    target = tmp_path / "src" / "dplasso" / mutant.path
    target.parent.mkdir(parents=True)
    shutil.copy2(source, target)
    mutants.apply(mutant, tmp_path)
    mutated = target.read_text()
    assert mutated != source.read_text()
    ast.parse(mutated)
    for test in mutant.tests:
        assert (mutants.ROOT / test.split("::")[0]).is_file(), test


def test_a_stale_edit_is_refused(tmp_path):
    mutant = mutants.MUTANTS[0]
    stale = mutants.Mutant(mutant.id, mutant.kind, mutant.description, mutant.path,
                           (("no such text", "x"),), mutant.tests)
    target = tmp_path / "src" / "dplasso" / mutant.path
    target.parent.mkdir(parents=True)
    shutil.copy2(Path(mutants.ROOT / "src" / "dplasso" / mutant.path), target)
    with pytest.raises(ValueError, match="occurs 0 times"):
        mutants.apply(stale, tmp_path)
