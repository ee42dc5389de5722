"""The papers' result sentences (``paper-sentences.yaml``): every sentence of the two seed texts
is either quoted by one result row or listed once as not a result.

The sentences come from the seed texts themselves (``../shared/seeds/`` beside the checkout),
split by :func:`seed_sentences`, not from the registry, so a result sentence whose row is
removed, a row added for a sentence already listed as not a result, and a quote that is not in
the text are all caught (shown below on a copy of the registry). The seeds live outside the
repository: the test skips when they are absent, except where the shared folder is (CI, this
machine) or ``CI`` is set, where it fails. Not statistical.
"""
import os
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from dplasso.reproduce.registry import (
    NOT_TESTED, SENTENCES_FILE, Sentence, load_registry, read_sentences)

ROOT = Path(__file__).resolve().parents[3]
SHARED = ROOT.parent / "shared"
SEEDS = SHARED / "seeds"

_MARKER = re.compile(r"^(?:\d+\.|\([A-Z]\))(?:\s+(?:\d+\.|\([A-Z]\)))*$")
_BOUNDARY = re.compile(r"(?<=[.?!])\s+(?=[A-Z(\[]|\d\)\s)")
_ABBREVIATIONS = {"al.", "Eq.", "eg.", "e.g.", "i.e.", "vs.", "Fig."}


def seed_sentences(text: str) -> list[str]:
    """The sentences of a seed text, whitespace-normalised, in order.

    Paragraphs (blank-line separated; the seeds drop equations, so a sentence cut by one ends
    at the paragraph) split after ``.``, ``?`` or ``!`` followed by a capital, a bracket or a
    numbered question (``1) ...``), except after the abbreviations the texts use
    (``et al.``, ``Eq.``, ...); list markers alone on a line (``1. 1.``, ``1. (A)``) are no
    sentence.
    """
    sentences = []
    for paragraph in re.split(r"\n\s*\n", text):
        paragraph = " ".join(paragraph.split())
        if not paragraph or _MARKER.match(paragraph):
            continue
        merged: list[str] = []
        for part in _BOUNDARY.split(paragraph):
            if merged and merged[-1].split()[-1] in _ABBREVIATIONS:
                merged[-1] += " " + part
            else:
                merged.append(part)
        sentences += merged
    return sentences


def quotes(sentence: Sentence, text: str) -> bool:
    """Whether every quoted part of ``sentence`` lies, in order, in ``text``."""
    start = 0
    for part in sentence.parts:
        found = text.find(part, start)
        if found < 0:
            return False
        start = found + len(part)
    return True


def classification_problems(texts: dict[str, list[str]], sentences, not_results) -> list[str]:
    """Where the result rows (``sentences``) and the sentences listed as no result
    (``not_results``: paper -> texts) do not classify each sentence of ``texts`` (paper ->
    its sentences) exactly once."""
    problems = []
    for paper, text in texts.items():
        covered = Counter()
        for row in (s for s in sentences if s.paper == paper):
            where = [k for k, sentence in enumerate(text) if quotes(row, sentence)]
            if len({text[k] for k in where}) != 1:
                problems.append(f"{paper}: {len({text[k] for k in where})} sentences hold the "
                                f"quote “{row.says}” (must be one)")
                continue
            covered.update(where)
        problems += [f"{paper}: {n} result rows quote “{text[k]}”"
                     for k, n in covered.items() if n > 1]
        rest = Counter(sentence for k, sentence in enumerate(text) if k not in covered)
        listed = Counter(not_results.get(paper, ()))
        problems += [f"{paper}: neither a result row nor listed as not a result: “{t}”"
                     for t in rest - listed]
        quoted = {text[k] for k in covered}
        problems += [f"{paper}: listed as not a result but "
                     + ("a result row quotes it" if t in quoted else "not a sentence of the text")
                     + f": “{t}”" for t in listed - rest]
    return problems


@pytest.fixture(scope="module")
def registry():
    return load_registry(ROOT)


@pytest.fixture(scope="module")
def texts(registry):
    """Each paper's sentences, from its seed text."""
    if not SEEDS.is_dir():
        if os.environ.get("CI") or SHARED.is_dir():
            pytest.fail(f"the papers' seed texts are not at {SEEDS}, though {SHARED} is (or CI "
                        "is set): CI must have them")
        pytest.skip(f"the papers' seed texts ({SEEDS}) are not beside this checkout")
    return {paper: seed_sentences((SEEDS / name).read_text())
            for paper, name in registry.seeds.items()}


def test_every_sentence_of_the_papers_is_classified_once(registry, texts):
    assert set(texts) == {"P1", "P2"}
    assert classification_problems(texts, registry.sentences, registry.not_results) == []


def test_classification_catches_a_removed_row_an_added_row_and_a_wrong_quote(registry, texts):
    rows, listed = list(registry.sentences), registry.not_results
    first = rows[0]
    problems = classification_problems(texts, rows[1:], listed)
    assert len(problems) == 1 and "neither a result row nor listed" in problems[0], problems
    assert first.parts[0] in problems[0]
    other = listed["P2"][3]
    added = Sentence("P2", other, NOT_TESTED, "a row for a sentence listed as not a result")
    problems = classification_problems(texts, rows + [added], listed)
    assert problems == [f"P2: listed as not a result but a result row quotes it: “{other}”"]
    wrong = replace(first, says=first.says + " (not in the paper)")
    problems = classification_problems(texts, [wrong] + rows[1:], listed)
    assert any("0 sentences hold the quote" in p for p in problems), problems
    duplicate = classification_problems(texts, rows + [replace(first, reason="again")], listed)
    assert any("2 result rows quote" in p for p in duplicate), duplicate


def test_seed_sentences_splits_at_sentence_ends_only():
    text = ("Kifer et al. use a rule. Results hold (Raj et al. 2016). Eq. 1 to\n\n"
            "where it is. Open questions. 1) Can it? 2) How?\n\n1. (A)\n\n   We tested it.")
    assert seed_sentences(text) == [
        "Kifer et al. use a rule.", "Results hold (Raj et al. 2016).", "Eq. 1 to",
        "where it is.", "Open questions.", "1) Can it?", "2) How?", "We tested it."]


def test_registry_holds_rows_of_both_papers_and_each_verdict_has_its_artifacts(registry):
    papers = Counter(s.paper for s in registry.sentences)
    assert papers["P1"] > 0 and papers["P2"] > 0
    assert set(registry.seeds) == {"P1", "P2"}
    for s in registry.sentences:
        assert (s.verdict == NOT_TESTED) == (not s.artifacts), s


def _entry(**change):
    return {"paper": "P1", "says": "It works.", "artifacts": ["a-one"], "verdict": "reproduced",
            "reason": "it does", **change}


@pytest.mark.parametrize("change, match", [
    ({"paper": "none"}, "paper must be one of"),
    ({"verdict": "beyond the papers"}, "verdict must be one of"),
    ({"says": "It  works."}, "whitespace-normalised"),
    ({"reason": ""}, "reason must be one non-empty line"),
    ({"artifacts": []}, "artifacts are required"),
    ({"verdict": NOT_TESTED}, "must be empty"),
    ({"artifacts": ["nope"]}, "unknown artifacts"),
    ({"ours": "x"}, "unexpected keyword"),
])
def test_read_sentences_rejects_a_malformed_row(tmp_path, change, match):
    import yaml
    papers = {p: {"seed": f"{p}.txt", "not_results": []} for p in ("P1", "P2")}
    path = tmp_path / SENTENCES_FILE
    path.write_text(yaml.safe_dump({"papers": papers, "results": [_entry(**change)]}))
    with pytest.raises(ValueError, match=match):
        read_sentences(path, {"a-one": object()})


def test_read_sentences_rejects_a_row_listed_twice_and_a_missing_paper(tmp_path):
    import yaml
    papers = {p: {"seed": f"{p}.txt", "not_results": []} for p in ("P1", "P2")}
    path = tmp_path / SENTENCES_FILE
    path.write_text(yaml.safe_dump({"papers": papers, "results": [_entry(), _entry()]}))
    with pytest.raises(ValueError, match="listed twice"):
        read_sentences(path, {"a-one": object()})
    path.write_text(yaml.safe_dump({"papers": {"P1": papers["P1"]}, "results": []}))
    with pytest.raises(ValueError, match="expected 'papers'"):
        read_sentences(path, {})
