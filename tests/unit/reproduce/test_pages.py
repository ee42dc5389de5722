"""dplasso.reproduce.pages: glued values, templates, verdicts and the registry fields they read."""
import json
from dataclasses import replace

import nbformat
import pytest

from dplasso.reproduce import pages
from dplasso.reproduce.registry import Artifact, Registry

ART = Artifact(id="a-one", notebook="a", label="a-one", results="a.csv", kind="table",
               claim="c", paper="P1", says="it works", verdict="reproduced",
               ours="{a-n:d} of {a-total:d} at {a-share:.0%}, on {a-name}")


def _glue_output(name, plain=None, markdown=None):
    data = {}
    if markdown is not None:
        data[pages.GLUE_MIME + "text/markdown"] = markdown
    data[pages.GLUE_MIME + "text/plain"] = plain if plain is not None else repr(markdown)
    return nbformat.v4.new_output("display_data", data=data,
                                  metadata={"scrapbook": {"name": name, "mime_prefix": ""}})


def _notebook(path, outputs):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("glue(...)")
    cell.outputs = outputs
    nb.cells.append(cell)
    nbformat.write(nb, str(path))
    return path


def test_glued_values_reads_numbers_strings_and_markdown(tmp_path):
    path = _notebook(tmp_path / "a.ipynb", [
        _glue_output("a-n", "3"), _glue_output("a-share", "0.25"),
        _glue_output("a-word", "'spambase'"), _glue_output("a-name", markdown="*sonar*")])
    assert pages.glued_values(path) == {"a-n": 3, "a-share": 0.25, "a-word": "spambase",
                                        "a-name": "*sonar*"}


def test_fill_formats_each_key_and_names_a_missing_one():
    values = {"a-n": 3, "a-total": 4, "a-share": 0.25, "a-name": "sonar"}
    assert pages.fill(ART.ours, values) == "3 of 4 at 25%, on sonar"
    with pytest.raises(ValueError, match="'a-total'"):
        pages.fill(ART.ours, {"a-n": 3}, where="artifact 'a-one'")


def test_verdict_is_the_registry_one_only_when_every_claim_test_passed():
    assert pages.verdict(ART, {"a-one": {"passed": ["t1", "t2"], "failed": []}}) == "reproduced"
    assert pages.verdict(ART, {"a-one": {"passed": ["t1"], "failed": ["t2"]}}) == pages.FAILED
    assert pages.verdict(ART, {"a-one": {"passed": [], "failed": []}}) == pages.UNCHECKED
    assert pages.verdict(ART, {}) == pages.UNCHECKED


def test_chapter_of_an_artifact():
    assert pages.chapter(ART) == "P1"
    assert pages.chapter(replace(ART, notebook="p2-screening", paper="P2")) == "P2"
    assert pages.chapter(replace(ART, notebook="beyond-p1", paper="none", says="",
                                 verdict="beyond the papers")) == "beyond"
    assert pages.chapter(replace(ART, notebook="datasets", paper="none", says="",
                                 verdict="beyond the papers")) is None


@pytest.mark.parametrize("change, match", [
    ({"verdict": "sort of"}, "verdict must be one of"),
    ({"paper": "P3"}, "paper must be one of"),
    ({"verdict": "beyond the papers"}, "goes with paper 'none'"),
    ({"paper": "none", "says": "", "verdict": "reproduced"}, "goes with paper 'none'"),
    ({"says": ""}, "says"),
])
def test_registry_rejects_inconsistent_findings_fields(change, match):
    with pytest.raises(ValueError, match=match):
        replace(ART, **change)


def test_write_pages_from_a_run(tmp_path):
    src = tmp_path / "a.md"
    src.write_text("x")
    out = tmp_path / "generated"
    (out / "a").mkdir(parents=True)
    _notebook(out / "a" / "a.ipynb", [
        _glue_output("a-n", "3"), _glue_output("a-total", "4"), _glue_output("a-share", "0.25"),
        _glue_output("a-name", markdown="sonar")])
    (out / "a" / "run.json").write_text(json.dumps({
        "notebook": "a", "profile": "ci", "key": "f" * 64, "parameters": {"n": 1},
        "seconds": 1.5, "finished": "then", "skipped": False, "commit": "abc1234"}))
    claims = tmp_path / "claims.json"
    claims.write_text(json.dumps({"artifacts": {"a-one": {"passed": ["t"], "failed": []}}}))
    from dplasso.reproduce.registry import Notebook
    registry = Registry(root=tmp_path, notebooks={"a": Notebook("a", src, "A")},
                        artifacts={"a-one": ART})
    written = {p.name: p.read_text() for p in pages.write_pages(registry, out, claims)}
    assert ("| `a-one`, {numref}`a-one` | **reproduced** (ci) | P1: “it works” | "
            "3 of 4 at 25%, on sonar |") in written["findings.md"]
    assert "**reproduced** (ci), {numref}`a-one`" in written["verdicts-p1.md"]
    assert "(`a-one`)" not in written["verdicts-p2.md"]
    assert "`abc1234`" in written["execution.md"]
    assert f"`{pages.parameter_hash({'n': 1})}`" in written["execution.md"]
