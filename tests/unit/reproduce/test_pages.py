"""dplasso.reproduce.pages: glued values, templates, verdicts and the registry fields they read."""
import json
from dataclasses import replace

import nbformat
import pytest

from dplasso.reproduce import pages
from dplasso.reproduce.registry import Artifact, Registry

ART = Artifact(id="a-one", notebook="a", label="a-one", results="a.csv", kind="table",
               claim="c", paper="P1", says="it works", verdict="reproduced",
               reason="it works on {a-name}",
               ours="{a-n:d} of {a-total:d} at {a-share:.0%}, on {a-name}",
               conventions="this project's")


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
    assert pages.chapter(replace(ART, notebook="p2-screening", paper="P2",
                                 conventions="")) == "P2"
    assert pages.chapter(replace(ART, notebook="beyond-p1", paper="none", says="",
                                 verdict="beyond the papers", conventions="")) == "beyond"
    assert pages.chapter(replace(ART, notebook="datasets", paper="none", says="",
                                 verdict="beyond the papers", conventions="")) is None


@pytest.mark.parametrize("change, match", [
    ({"verdict": "sort of"}, "verdict must be one of"),
    ({"paper": "P3"}, "paper must be one of"),
    ({"verdict": "beyond the papers"}, "goes with paper 'none'"),
    ({"paper": "none", "says": "", "verdict": "reproduced"}, "goes with paper 'none'"),
    ({"says": ""}, "says"),
    ({"conventions": ""}, "conventions .* required for paper P1"),
    ({"paper": "P2", "conventions": "ours"}, "conventions .* required for paper P1"),
])
def test_registry_rejects_inconsistent_findings_fields(change, match):
    with pytest.raises(ValueError, match=match):
        replace(ART, **change)


def _run(tmp_path, artifacts, outcomes, notebooks=("a",)):
    """Write an executed notebook and run record per notebook, a claims file, and the pages."""
    from dplasso.reproduce.registry import Notebook
    src = tmp_path / "a.md"
    src.write_text("x")
    out = tmp_path / "generated"
    for name in notebooks:
        (out / name).mkdir(parents=True)
        _notebook(out / name / f"{name}.ipynb", [
            _glue_output("a-n", "3"), _glue_output("a-total", "4"),
            _glue_output("a-share", "0.25"), _glue_output("a-name", markdown="sonar")])
        (out / name / "run.json").write_text(json.dumps({
            "notebook": name, "profile": "ci", "key": "f" * 64, "parameters": {"n": 1},
            "seconds": 1.5, "finished": "then", "skipped": False, "commit": "abc1234"}))
    claims = tmp_path / "claims.json"
    claims.write_text(json.dumps({"artifacts": outcomes}))
    registry = Registry(root=tmp_path,
                        notebooks={name: Notebook(name, src, name.upper()) for name in notebooks},
                        artifacts={art.id: art for art in artifacts})
    return {p.name: p.read_text() for p in pages.write_pages(registry, out, claims)}


def test_write_pages_from_a_run(tmp_path):
    written = _run(tmp_path, [ART], {"a-one": {"passed": ["t"], "failed": []}})
    assert ("| `a-one`, {numref}`a-one` | **reproduced** (ci) | P1: “it works” | "
            "3 of 4 at 25%, on sonar |") in written["findings.md"]
    assert ("| **reproduced** | it works on sonar *Holds under:* this project's. "
            "({numref}`a-one`, `a-one`) |") in written["findings.md"]
    assert "**reproduced** (ci), {numref}`a-one`" in written["verdicts-p1.md"]
    assert "(`a-one`)" not in written["verdicts-p2.md"]
    assert "`abc1234`" in written["execution.md"]
    assert f"`{pages.parameter_hash({'n': 1})}`" in written["execution.md"]


def _paper_record(tmp_path, outcomes, stale=()):
    """A paper record of notebook ``a`` (glued numbers 7 of 8) beside the ``ci`` build."""
    folder = tmp_path / "record"
    (folder / "a").mkdir(parents=True)
    _notebook(folder / "a" / "a.ipynb", [
        _glue_output("a-n", "7"), _glue_output("a-total", "8"),
        _glue_output("a-share", "0.5"), _glue_output("a-name", markdown="wdbc")])
    (folder / "a" / "run.json").write_text(json.dumps({"notebook": "a", "profile": "paper"}))
    return pages.PaperRecord(folder, outcomes, {name: "stale: changed" for name in stale})


@pytest.mark.parametrize("stale", [False, True])
def test_findings_show_the_paper_record_first_and_this_build_beside(tmp_path, stale):
    from dplasso.reproduce.registry import Notebook
    _run(tmp_path, [ART], {"a-one": {"passed": ["t"], "failed": []}})
    record = _paper_record(tmp_path, {"a-one": {"passed": [], "failed": ["t"]}},
                           stale=("a",) if stale else ())
    registry = Registry(root=tmp_path, notebooks={"a": Notebook("a", tmp_path / "a.md", "A")},
                        artifacts={ART.id: ART})
    (row,) = pages.findings(registry, tmp_path / "generated",
                            {"a-one": {"passed": ["t"], "failed": []}}, record)
    page = pages.findings_page([row])
    if stale:  # this build's verdict and number first, the stale record's beside
        assert (row.verdict, row.profile, row.build) == ("reproduced", "ci", None)
        assert [m.profile for m in row.measured] == ["ci", f"paper, {pages.STALE}"]
        assert "The paper record of `a` is a *stale record*" in page
    else:  # the record's failing claim test decides the verdict; this build's beside it
        assert pages.verdict_label(row) == f"{pages.FAILED} (paper); this build: reproduced (ci)"
        assert row.ours == "7 of 8 at 50%, on wdbc"
        assert "7 of 8 at 50%, on wdbc (paper); 3 of 4 at 25%, on sonar (ci)" in page
        assert "committed paper-profile record" in page


def _tables(markdown: str) -> list[list[str]]:
    """The page's Markdown tables, each as its lines (header, rule, rows)."""
    tables, current = [], None
    for line in markdown.splitlines():
        if line.startswith("|"):
            current = current if current is not None else []
            current.append(line)
        elif current is not None:
            tables.append(current)
            current = None
    return tables


ARTS = [
    ART,
    replace(ART, id="a-two", label="a-two", verdict="not reproduced", reason="it does not"),
    replace(ART, id="b-one", label="b-one", notebook="p2-b", paper="P2", verdict="reproduced",
            conventions=""),
    replace(ART, id="c-one", label="c-one", notebook="beyond-c", paper="none", says="",
            verdict="beyond the papers", reason="ours", conventions=""),
    replace(ART, id="d-one", label="d-one", notebook="datasets", paper="none", says="",
            verdict="beyond the papers", reason="data", conventions=""),
]
OUTCOMES = {"a-one": {"passed": ["t"], "failed": []}, "a-two": {"passed": ["t"], "failed": []},
            "b-one": {"passed": [], "failed": ["t"]}, "c-one": {"passed": ["t"], "failed": []},
            "d-one": {"passed": ["t"], "failed": []}}


def test_findings_page_opens_with_the_tally_per_paper(tmp_path):
    written = _run(tmp_path, ARTS, OUTCOMES, notebooks=("a", "p2-b", "beyond-c", "datasets"))
    page = written["findings.md"]
    body = page.split("# Findings at a glance", 1)[1]
    assert body.lstrip().startswith("~~~{table} Verdicts per paper")
    tally = _tables(page)[0]
    assert tally[0] == "| | reproduced | differs | not reproduced | beyond | test fails | all |"
    assert tally[2:] == [
        "| {ref}`P1 <findings-p1>` | 1 | 0 | 1 | 0 | 0 | 2 |",
        "| {ref}`P2 <findings-p2>` | 0 | 0 | 0 | 0 | 1 | 1 |",
        "| {ref}`Beyond the papers <findings-beyond>` | 0 | 0 | 0 | 1 | 0 | 1 |",
        "| {ref}`Data, audits, performance <findings-checks>` | 0 | 0 | 0 | 1 | 0 | 1 |",
        "| all | 1 | 0 | 1 | 2 | 1 | 5 |",
    ]


def test_findings_rows_are_grouped_by_paper_with_a_reason_each(tmp_path):
    written = _run(tmp_path, ARTS, OUTCOMES, notebooks=("a", "p2-b", "beyond-c", "datasets"))
    page = written["findings.md"]
    groups = _tables(page)[1:5]
    ids = [[row.split(", `")[1].split("`)")[0] for row in table[2:]] for table in groups]
    assert ids == [["a-one", "a-two"], ["b-one"], ["c-one"], ["d-one"]]
    assert groups[0][3] == ("| **not reproduced** | it does not *Holds under:* this project's. "
                            "({numref}`a-two`, `a-two`) |")
    # a verdict the claim tests did not establish shows no reason for it
    assert "| **claim test fails** | *claim test fails* on these results, so the registry's " \
        "reading (*reproduced*) does not stand ({numref}`b-one`, `b-one`) |" in page
    assert page.index("(findings-p1)=") < page.index("(findings-p2)=") \
        < page.index("(findings-beyond)=") < page.index("(findings-checks)=") \
        < page.index("(findings-full)=")
    assert len(_tables(page)[5]) == 2 + len(ARTS)  # the full table, every row


def test_a_second_number_per_row_is_shown_with_its_profile():
    row = pages.Finding(ART, "reproduced", "ci", "r", (pages.Measured("12 of 13", "paper"),
                                                       pages.Measured("3 of 4", "ci")))
    page = pages.findings_page([row])
    assert "| 12 of 13 (paper); 3 of 4 (ci) |" in page
    assert row.ours == "12 of 13"


@pytest.mark.parametrize("reason, match", [
    ("", "no 'reason'"),
    ("x" * (pages.REASON_MAX + 1), "one line of at most"),
    ("{a-missing}", "'a-missing'"),
])
def test_a_missing_or_overlong_reason_is_refused(tmp_path, reason, match):
    with pytest.raises(ValueError, match=match):
        _run(tmp_path, [replace(ART, reason=reason)], OUTCOMES)


def test_every_registry_reason_is_one_short_line_on_the_paper_record():
    """Every reason of the registry, the artifacts' and the result sentences', filled from the
    committed paper record's glued values, is one line of at most ``REASON_MAX`` characters
    (``findings`` and ``sentence_findings`` refuse any other)."""
    from dplasso.reproduce.paper_record import RECORD_DIR
    from dplasso.reproduce.registry import load_registry
    registry = load_registry()
    rows = pages.findings(registry, registry.root / RECORD_DIR, {})
    found = pages.sentence_findings(registry, rows)
    assert len(rows) == len(registry.artifacts) and len(found) == len(registry.sentences) > 0


def test_the_profiles_read_as_words():
    assert pages._profiles(["ci"]) == "`ci` profile"
    two = pages._profiles(["ci", "paper"], "parameter profile")
    assert two.startswith("`ci` and `paper` parameter profiles (") and "`ci`, `paper`" not in two


def _sentence(**change):
    from dplasso.reproduce.registry import Sentence
    return Sentence(**{"paper": "P1", "says": "It works.", "verdict": "differs, explained",
                       "reason": "{a-n:d} of {a-total:d}", "artifacts": ("a-one", "a-two"),
                       **change})


def _sentence_rows(tmp_path, outcomes, *sentences):
    """The result sentences' findings over ``ARTS``'s first two (notebook ``a``)."""
    from dplasso.reproduce.registry import Notebook
    _run(tmp_path, ARTS[:2], outcomes)
    registry = Registry(root=tmp_path, notebooks={"a": Notebook("a", tmp_path / "a.md", "A")},
                        artifacts={art.id: art for art in ARTS[:2]}, sentences=sentences)
    rows = pages.findings(registry, tmp_path / "generated", outcomes)
    return rows, pages.sentence_findings(registry, rows)


def test_a_sentence_shows_its_verdict_only_when_every_claim_test_of_its_artifacts_passed(
        tmp_path):
    from dplasso.reproduce.registry import NOT_TESTED
    untested = _sentence(says="Not run.", verdict=NOT_TESTED, artifacts=(),
                         reason="nothing runs it")
    _, found = _sentence_rows(tmp_path, OUTCOMES, _sentence(), untested)
    assert [(f.verdict, f.profile, f.reason) for f in found] == [
        ("differs, explained", "ci", "3 of 4"), (NOT_TESTED, "", "nothing runs it")]
    one_failed = {**OUTCOMES, "a-two": {"passed": ["t"], "failed": ["u"]}}
    assert pages.sentence_findings(*_rerun(tmp_path, one_failed))[0].verdict == pages.FAILED
    none_ran = {"a-one": OUTCOMES["a-one"]}
    assert pages.sentence_findings(*_rerun(tmp_path, none_ran))[0].verdict == pages.UNCHECKED


def _rerun(tmp_path, outcomes):
    from dplasso.reproduce.registry import Notebook
    registry = Registry(root=tmp_path, notebooks={"a": Notebook("a", tmp_path / "a.md", "A")},
                        artifacts={art.id: art for art in ARTS[:2]}, sentences=(_sentence(),))
    return registry, pages.findings(registry, tmp_path / "generated", outcomes)


@pytest.mark.parametrize("reason, match", [
    ("{b-missing}", "'b-missing'"),
    ("x" * (pages.REASON_MAX + 1), "one line of at most"),
])
def test_a_sentence_reason_is_filled_from_its_artifacts_and_kept_short(tmp_path, reason, match):
    with pytest.raises(ValueError, match=match):
        _sentence_rows(tmp_path, OUTCOMES, _sentence(reason=reason))


def test_findings_page_counts_and_folds_the_result_sentences(tmp_path):
    from dplasso.reproduce.registry import NOT_TESTED
    untested = _sentence(says="Not run.", verdict=NOT_TESTED, artifacts=(), reason="none")
    rows, found = _sentence_rows(tmp_path, OUTCOMES, _sentence(), untested)
    page = pages.findings_page(rows, found)
    assert "2 sentences of P1's and P2's text state a result: 1 differ, 1 not tested here." in page
    section = page.split("(findings-sentences)=", 1)[1].split("(findings-full)=")[0]
    assert ":::{dropdown} The 2 result sentences" in section
    assert _tables(section)[0][2:] == [
        "| P1 | “It works.” | **differs, explained** (ci) | 3 of 4 | "
        "{numref}`a-one` (`a-one`), {numref}`a-two` (`a-two`) |",
        f"| P1 | “Not run.” | **{NOT_TESTED}** | none | – |"]
    assert page.index("(findings-p1)=") < page.index("(findings-sentences)=") \
        < page.index("(findings-full)=")
    assert "(findings-sentences)=" not in pages.findings_page(rows)
