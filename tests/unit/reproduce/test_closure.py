"""Import closures (:mod:`dplasso.experiments.closure`): what a notebook's key and a unit's key
cover. Not statistical."""
import shutil
from pathlib import Path

import pytest

from dplasso.experiments import closure as closure_module
from dplasso.experiments.closure import closure, closure_digest, imported_modules
from dplasso.reproduce.registry import load_registry
from dplasso.reproduce.runner import changed_inputs, notebook_inputs, run_inputs, run_key


@pytest.fixture(scope="module")
def registry():
    return load_registry()


@pytest.fixture
def library_copy(tmp_path, monkeypatch):
    """The closure module reading a copy of the library, which a test may edit."""
    copy = tmp_path / "dplasso"
    shutil.copytree(Path(closure_module.__file__).resolve().parents[1], copy,
                    ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(closure_module, "_ROOT", copy)
    for cached in (closure_module._direct, closure_module._lazy_table):
        cached.cache_clear()
    yield copy
    for cached in (closure_module._direct, closure_module._lazy_table):
        cached.cache_clear()


def test_imports_resolve_lazy_names_relative_imports_and_nested_imports():
    source = ("from dplasso.estimators import SparsifierClassifier\n"
              "def f():\n    import dplasso.screening.rule as r\n"
              "from dplasso.data.catalog import load_dataset\nimport numpy\n")
    assert imported_modules(source) == {
        "dplasso.estimators", "dplasso.estimators.sparsifier", "dplasso.screening.rule",
        "dplasso.data.catalog"}
    assert imported_modules("from .p1 import SYNTHETIC", "dplasso.experiments") == {
        "dplasso.experiments.p1"}
    # a module's package __init__ files run when it is imported
    assert {"dplasso", "dplasso.screening"} <= set(closure(["dplasso.screening.rule"]))


def test_each_notebooks_closure_is_reported_and_the_p1_chapters_skip_screening_and_audit(
        registry, capsys):
    closures = {name: notebook_inputs(registry, name, {})["modules"]
                for name in registry.notebooks}
    with capsys.disabled():
        print("\nlibrary modules each notebook's code can import:")
        for name, modules in closures.items():
            packages = sorted({m.split(".")[1] for m in modules if m.count(".")})
            print(f"  {name}: {len(modules)} modules ({', '.join(packages)})")
    for name in ("p1-sparsity", "p1-baselines", "p1-multinomial", "p1-rate", "beyond-p1"):
        assert not any(m.startswith(("dplasso.screening", "dplasso.audit"))
                       for m in closures[name]), name
    assert not any(m.startswith(("dplasso.baselines", "dplasso.audit"))
                   for m in closures["p2-screening"])


def test_a_screening_edit_stales_only_the_notebooks_that_import_it(registry, library_copy):
    before = {name: notebook_inputs(registry, name, {}) for name in registry.notebooks}
    rule = library_copy / "screening" / "rule.py"
    rule.write_text(rule.read_text() + "\n_EDITED = 1\n")
    after = {name: notebook_inputs(registry, name, {}) for name in registry.notebooks}
    stale = {name for name in registry.notebooks
             if run_key(before[name]) != run_key(after[name])}
    assert stale == {name for name, inputs in before.items()
                     if "dplasso.screening.rule" in inputs["modules"]}
    assert "p2-screening" in stale and "p1-baselines" not in stale
    assert changed_inputs(before["p2-screening"], after["p2-screening"]) == (
        "the library module(s) dplasso.screening.rule")


def test_a_unit_key_follows_its_modules_closure_only(library_copy):
    p2, p1 = closure_digest(["dplasso.experiments.p2"]), closure_digest(["dplasso.experiments.p1"])
    rule = library_copy / "screening" / "rule.py"
    rule.write_text(rule.read_text() + "\n_EDITED = 1\n")
    assert closure_digest(["dplasso.experiments.p2"]) != p2
    assert closure_digest(["dplasso.experiments.p1"]) == p1


def test_a_library_prose_edit_changes_no_key(registry, library_copy):
    """Docstrings, comments and layout are not code: editing them stales no unit and no
    notebook; the same edit as code does."""
    before = closure_digest(["dplasso.experiments.p1"])
    inputs = notebook_inputs(registry, "p1-sparsity", {})
    module = library_copy / "estimators" / "sparsifier.py"
    text = module.read_text()
    prose = text.replace('"""Keep each trial\'s', '"""Keep, in each trial,', 1)
    prose = prose.replace("def keep_largest_entries(W, k):",
                          "# a comment\ndef keep_largest_entries(W,   k):", 1)
    assert prose != text
    module.write_text(prose + '\n"""An attribute docstring."""\n')
    assert closure_digest(["dplasso.experiments.p1"]) == before
    assert notebook_inputs(registry, "p1-sparsity", {}) == inputs
    module.write_text(text.replace("return np.where(ranks < k,", "return np.where(ranks <= k,"))
    assert closure_digest(["dplasso.experiments.p1"]) != before
    assert changed_inputs(inputs, notebook_inputs(registry, "p1-sparsity", {})) == (
        "the library module(s) dplasso.estimators.sparsifier")


def test_prose_changes_the_notebook_digest_and_nothing_else(registry):
    name = "p1-baselines"
    text = registry.notebooks[name].source.read_text()
    inputs = run_inputs(registry.root, text, {})
    edited = run_inputs(registry.root, text + "\nOne more sentence.\n", {})
    assert changed_inputs(inputs, edited) == "the notebook"
    assert edited["modules"] == inputs["modules"]


def test_a_record_file_keys_only_the_notebooks_whose_code_reads_it(registry, tmp_path):
    """mutants.json is read by the proofs chapter's code (audit.report declares it): a new
    mutation record stales that notebook alone."""
    import shutil as sh

    root = tmp_path / "root"
    (root / "book" / "paper-results").mkdir(parents=True)
    for name in ("mutants.json", "benchmark.json"):
        sh.copy(registry.root / "book" / "paper-results" / name, root / "book" / "paper-results")
    texts = {name: registry.notebooks[name].source.read_text()
             for name in ("proofs", "p1-sparsity", "performance")}
    before = {name: run_inputs(root, text, {}) for name, text in texts.items()}
    mutants = root / "book" / "paper-results" / "mutants.json"
    mutants.write_text(mutants.read_text() + "\n")
    after = {name: run_inputs(root, text, {}) for name, text in texts.items()}
    assert changed_inputs(before["proofs"], after["proofs"]) == "the records"
    assert before["p1-sparsity"] == after["p1-sparsity"]
    assert before["performance"] == after["performance"]


def test_the_paper_run_tables_key_the_performance_page_alone(registry, tmp_path):
    """The performance page reads book/paper-run.md and the table it replaced: a rotation of
    the two (``make paper-record``) stales that page and no other (before, a local build
    skipped it as unchanged and showed the tables before the rotation)."""
    import shutil as sh

    root = tmp_path / "root"
    (root / "book" / "paper-results").mkdir(parents=True)
    sh.copy(registry.root / "book" / "paper-results" / "benchmark.json",
            root / "book" / "paper-results")
    for name in ("paper-run.md", "paper-run-previous.md"):
        sh.copy(registry.root / "book" / name, root / "book")
    texts = {name: registry.notebooks[name].source.read_text()
             for name in ("performance", "p1-sparsity")}
    before = {name: run_inputs(root, text, {}) for name, text in texts.items()}
    table = root / "book" / "paper-run.md"
    table.write_text(table.read_text() + "\n")
    after = {name: run_inputs(root, text, {}) for name, text in texts.items()}
    assert changed_inputs(before["performance"], after["performance"]) == "the records"
    assert before["p1-sparsity"] == after["p1-sparsity"]
