"""The findings page (`book/generated/pages/findings.md`, rendered to HTML) and the chapters'
verdict lists agree with the registry and with the claim tests.

The test takes the claim tests' outcomes from the record ``make pages`` wrote when that record
is current for the same inputs (``tests/claims.py``), else runs the claim tests itself, computes
every row from the registry, the executed notebooks and those outcomes
(:func:`dplasso.reproduce.pages.findings`), and compares the built page with it: one row per
registry artifact, nothing else, each with that verdict and that number. The comparison is shown
to catch a page with one verdict changed and one with a row missing. The page opens with the
tally per paper and lists every row under its paper with its verdict and one-line reason;
that check is shown to catch a wrong count and a row moved out of its group. When the build is
not at the paper profile, the rows are computed with the committed paper record too (its claim
tests' outcomes taken the same way), whose verdict and number come first. Not statistical.
"""
import json
import os
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

import claims

from dplasso.reproduce import pages
from dplasso.reproduce.paper_record import RECORD_DIR, stale_records
from dplasso.reproduce.registry import load_registry

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "_build" / "html"
GENERATED = Path(os.environ.get("DPLASSO_RESULTS") or ROOT / "book" / "generated")
FINDINGS_HTML = HTML / "book" / "generated" / pages.PAGES_DIR / "findings.html"
CHAPTER_PAGES = {"P1": HTML / "book" / "p1.html", "P2": HTML / "book" / "p2.html",
                 "beyond": HTML / "book" / "generated" / "beyond-p1" / "beyond-p1.html"}


_SMART = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"'})


def _text(node) -> str:
    """A cell's text as the Markdown wrote it (Sphinx's smart quotes undone)."""
    return " ".join(node.get_text(" ").split()).translate(_SMART)


def _claim_outcomes(tmp: Path, results: Path, name: str):
    """Each artifact's claim-test outcomes on ``results``: the record ``make pages`` wrote
    (``pages/<name>`` in the book's results folder) when it is current for these inputs
    (``claims.outcomes_for``), else a new run of the claim tests."""
    reuse = [GENERATED / pages.PAGES_DIR / name]
    return claims.outcomes_for(results, tmp / name, reuse)["artifacts"]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    return _claim_outcomes(tmp_path_factory.mktemp("claims"), GENERATED, pages.CLAIMS_FILE)


@pytest.fixture(scope="module")
def record(tmp_path_factory):
    """The committed paper record with its claim outcomes, as ``make pages`` gives it to the
    page (None when this build is itself at the paper profile: the page then shows it alone)."""
    registry = load_registry(ROOT)
    profiles = {json.loads((GENERATED / name / "run.json").read_text())["profile"]
                for name in registry.notebooks}
    folder = ROOT / RECORD_DIR
    if profiles == {"paper"} or not folder.is_dir():
        return None
    outcomes = _claim_outcomes(tmp_path_factory.mktemp("claims"), folder,
                               pages.RECORD_CLAIMS_FILE)
    return pages.PaperRecord(folder, outcomes, stale_records(registry, folder))


@pytest.fixture(scope="module")
def expected(outcomes, record):
    return pages.findings(load_registry(ROOT), GENERATED, outcomes, record)


def _we_find(row) -> str:
    if len(row.measured) == 1:
        return " ".join(row.ours.split()).translate(_SMART)
    return "; ".join(f"{' '.join(m.text.split())} ({m.profile})"
                     for m in row.measured).translate(_SMART)


def page_rows(html: str) -> dict[str, dict[str, str]]:
    """The findings table of a built page: artifact id -> its cells by column name."""
    table = BeautifulSoup(html, "html.parser").find(id=f"{pages.FINDINGS_LABEL}-table")
    assert table is not None, "no findings table on the page"
    table = table if table.name == "table" else table.find("table")
    header = [_text(th) for th in table.find("thead").find_all("th")]
    rows = {}
    for tr in table.find("tbody").find_all("tr"):
        cells = dict(zip(header, (_text(td) for td in tr.find_all("td"))))
        rows[cells["artifact"].split(",")[0].strip()] = cells
    return rows


def page_problems(rows: dict[str, dict[str, str]], expected) -> list[str]:
    """Where the built rows disagree with the expected findings."""
    problems = []
    ids = [row.artifact.id for row in expected]
    if sorted(rows) != sorted(ids):
        problems.append(f"rows {sorted(rows)} are not the registry's artifacts {sorted(ids)}")
    for row in expected:
        got = rows.get(row.artifact.id)
        if got is None:
            continue
        want = pages.verdict_label(row)
        if got["verdict"] != want:
            problems.append(f"{row.artifact.id}: verdict {got['verdict']!r}, claim tests say {want!r}")
        if got["we find"] != _we_find(row):
            problems.append(f"{row.artifact.id}: number {got['we find']!r} is not {_we_find(row)!r}")
    return problems


@pytest.fixture(scope="module")
def built_rows():
    assert FINDINGS_HTML.is_file(), f"no {FINDINGS_HTML}: was the book built?"
    return page_rows(FINDINGS_HTML.read_text())


def test_every_registry_claim_has_claim_tests(outcomes):
    """Every registry artifact: some claim test checks it, and it ran."""
    missing = [a for a in load_registry(ROOT).artifacts
               if not (outcomes.get(a, {}).get("passed") or outcomes.get(a, {}).get("failed"))]
    assert not missing, f"artifacts without a claim test that ran: {missing}"


def test_findings_page_has_one_row_per_claim_with_its_tests_verdict(built_rows, expected):
    assert page_problems(built_rows, expected) == []


def test_findings_comparison_catches_a_changed_verdict_and_a_missing_row(built_rows, expected):
    changed = {k: dict(v) for k, v in built_rows.items()}
    first = expected[0].artifact.id
    changed[first]["verdict"] = f"{pages.FAILED} ({expected[0].profile})"
    if expected[0].verdict == pages.FAILED:
        changed[first]["verdict"] = f"reproduced ({expected[0].profile})"
    assert any(first in p and "verdict" in p for p in page_problems(changed, expected))
    missing = {k: v for k, v in built_rows.items() if k != first}
    assert page_problems(missing, expected)


def test_introduction_links_to_the_findings_first():
    soup = BeautifulSoup((HTML / "book" / "intro.html").read_text(), "html.parser")
    article = soup.find("article") or soup
    links = [a["href"] for a in article.find_all("a", href=True)
             if not a["href"].startswith("#") and "reference internal" in " ".join(a.get("class", []))]
    assert links and links[0].split("#")[0].endswith(f"{pages.PAGES_DIR}/findings.html"), links[:3]


@pytest.mark.parametrize("which", pages.CHAPTERS)
def test_each_chapter_opens_with_its_verdict_list(which, expected):
    """The chapter's first admonition lists exactly its artifacts, each with its verdict."""
    soup = BeautifulSoup(CHAPTER_PAGES[which].read_text(), "html.parser")
    box = soup.find("div", class_="admonition")
    assert box is not None and "Verdicts at a glance" in _text(box), which
    items = [_text(li) for li in box.find_all("li")]
    mine = [row for row in expected if pages.chapter(row.artifact) == which]
    assert len(items) == len(mine) > 0
    for item, row in zip(items, mine):
        assert item.startswith(f"{row.verdict} ({row.profile})"), (item, row.verdict)
        assert row.artifact.id in item


def opening_problems(html: str, expected) -> list[str]:
    """Where the built findings page does not open with the tally of ``expected``, or does
    not list each row under its paper's heading with its verdict and reason."""
    article = BeautifulSoup(html, "html.parser").find("article")
    tally = article.find("table")
    if tally is None or tally.get("id") != f"{pages.FINDINGS_LABEL}-tally":
        return [f"the first table is {tally and tally.get('id')!r}, not the tally"]
    problems = []
    first_p = article.find("h1").find_next("p")
    if first_p is not None and tally not in first_p.parents \
            and first_p.find_previous("table") is not tally:
        problems.append(f"text before the tally: {_text(first_p)[:80]!r}")
    want = {pages.GROUPS[key][0]: [str(n) for n in counts.values()]
            for key, counts in pages.tally(expected).items()}
    got = {}
    for tr in tally.find("tbody").find_all("tr"):
        cells = [_text(td) for td in tr.find_all("td")]
        got[cells[0]] = cells[1:-1]
    got.pop("all", None)
    if got != want:
        problems.append(f"tally {got} is not {want}")
    for row in expected:
        anchor = article.find(id=pages.group_label(row.group))
        if anchor is None:
            problems.append(f"no section {pages.group_label(row.group)}")
            continue
        group = anchor.find_next("table")  # the group's table, right under its heading
        cells = next(([_text(td) for td in tr.find_all("td")] for tr in group.find_all("tr")
                      if row.artifact.id in [_text(c) for c in tr.find_all("code")]), None)
        if cells is None:
            problems.append(f"{row.artifact.id} not under {pages.GROUPS[row.group][1]}")
        elif cells[0] != row.verdict:
            problems.append(f"{row.artifact.id}: grouped verdict {cells[0]!r} is not {row.verdict!r}")
        elif row.verdict == row.artifact.verdict and \
                not cells[1].startswith(" ".join(row.reason.split()).translate(_SMART)):
            problems.append(f"{row.artifact.id}: reason {cells[1]!r} is not {row.reason!r}")
    return problems


def test_findings_page_opens_with_the_tally_and_groups_every_row(expected):
    assert opening_problems(FINDINGS_HTML.read_text(), expected) == []


def test_opening_check_catches_a_wrong_count_and_a_row_in_the_wrong_group(expected):
    soup = BeautifulSoup(FINDINGS_HTML.read_text(), "html.parser")
    cell = soup.find(id=f"{pages.FINDINGS_LABEL}-tally").find("tbody").find_all("td")[1]
    cell.string = str(int(_text(cell)) + 1)
    assert any(p.startswith("tally") for p in opening_problems(str(soup), expected))
    soup = BeautifulSoup(FINDINGS_HTML.read_text(), "html.parser")
    first = expected[0]
    group = soup.find(id=pages.group_label(first.group)).find_next("table")
    for code in group.find_all("code"):
        if _text(code) == first.artifact.id:
            code.string = "moved"
    assert any(first.artifact.id in p and "not under" in p
               for p in opening_problems(str(soup), expected))


@pytest.fixture(scope="module")
def expected_sentences(expected):
    return pages.sentence_findings(load_registry(ROOT), expected)


def sentence_rows(html: str) -> list[dict[str, str]]:
    """The result-sentence table of a built findings page, its rows in order (cells by
    column name)."""
    table = BeautifulSoup(html, "html.parser").find(id=f"{pages.FINDINGS_LABEL}-sentences-table")
    assert table is not None, "no result-sentence table on the page"
    table = table if table.name == "table" else table.find("table")
    header = [_text(th) for th in table.find("thead").find_all("th")]
    return [dict(zip(header, (_text(td) for td in tr.find_all("td"))))
            for tr in table.find("tbody").find_all("tr")]


def sentence_problems(rows: list[dict[str, str]], expected_sentences) -> list[str]:
    """Where the built result-sentence rows disagree with the expected ones (in order: the
    paper, the verdict with its profiles, the artifacts that test it)."""
    if len(rows) != len(expected_sentences):
        return [f"{len(rows)} result-sentence rows, the registry has {len(expected_sentences)}"]
    problems = []
    for got, want in zip(rows, expected_sentences):
        says = want.sentence.says[:40]
        if got["paper"] != want.sentence.paper:
            problems.append(f"{says!r}: paper {got['paper']!r}, not {want.sentence.paper!r}")
        if got["verdict"] != pages.sentence_verdict_label(want):
            problems.append(f"{says!r}: verdict {got['verdict']!r}, claim tests say "
                            f"{pages.sentence_verdict_label(want)!r}")
        missing = [art for art in want.sentence.artifacts if art not in got["tested by"]]
        if missing:
            problems.append(f"{says!r}: tested by {got['tested by']!r} lacks {missing}")
    return problems


def test_findings_page_lists_every_result_sentence_with_its_verdict(expected_sentences):
    """Every result sentence of `paper-sentences.yaml`, in order, with the verdict its
    artifacts' claim tests give (or not tested here)."""
    rows = sentence_rows(FINDINGS_HTML.read_text())
    assert sentence_problems(rows, expected_sentences) == []


def test_sentence_check_catches_a_changed_verdict_and_a_missing_row(expected_sentences):
    rows = sentence_rows(FINDINGS_HTML.read_text())
    changed = [dict(row) for row in rows]
    changed[0]["verdict"] = pages.FAILED
    assert any("verdict" in p for p in sentence_problems(changed, expected_sentences))
    assert sentence_problems(rows[1:], expected_sentences)
