"""The companion's licence and citation file: ``LICENSE`` is the BSD 3-Clause text that
``pyproject.toml`` names, and ``CITATION.cff`` is Citation File Format 1.2.0 with the keys the
format requires, citing P1 and P2 (by the arXiv ids the README gives) as the works reproduced.
The check is shown to catch a file with a required key missing."""
import copy
import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
REQUIRED = ("cff-version", "message", "title", "authors")  # CFF 1.2.0, top level
REFERENCE_REQUIRED = ("type", "title", "authors")
REFERENCE_TYPES = {  # CFF 1.2.0's reference types
    "art", "article", "audiovisual", "bill", "blog", "book", "catalogue", "conference",
    "conference-paper", "data", "database", "dictionary", "edited-work", "encyclopedia",
    "film-broadcast", "generic", "government-document", "grant", "hearing", "historical-work",
    "legal-case", "legal-rule", "magazine-article", "manual", "map", "multimedia", "music",
    "newspaper-article", "pamphlet", "patent", "personal-communication", "proceedings", "quote",
    "report", "serial", "slides", "software", "software-code", "software-container",
    "software-executable", "software-virtual-machine", "sound-recording", "standard", "statute",
    "thesis", "unpublished", "video", "website"}
IDENTIFIER_TYPES = {"doi", "url", "swh", "other"}


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _cff() -> dict:
    return yaml.safe_load((ROOT / "CITATION.cff").read_text())


def _author_problems(authors, where: str) -> list[str]:
    if not isinstance(authors, list) or not authors:
        return [f"{where}: authors must be a non-empty list"]
    return [f"{where}: author {i} has neither name nor family-names"
            for i, a in enumerate(authors)
            if not (isinstance(a, dict) and (a.get("name") or a.get("family-names")))]


def cff_problems(data: dict) -> list[str]:
    """What keeps ``data`` from being a CFF 1.2.0 file (empty when nothing)."""
    problems = [f"missing required key {key!r}" for key in REQUIRED if not data.get(key)]
    if data.get("cff-version") != "1.2.0":
        problems.append(f"cff-version must be '1.2.0', got {data.get('cff-version')!r}")
    if data.get("type", "software") not in ("software", "dataset"):
        problems.append(f"type must be software or dataset, got {data['type']!r}")
    problems += _author_problems(data.get("authors"), "top level")
    for i, ref in enumerate(data.get("references", [])):
        where = f"reference {i} ({ref.get('title', '?')})"
        problems += [f"{where}: missing required key {key!r}"
                     for key in REFERENCE_REQUIRED if not ref.get(key)]
        if ref.get("type") and ref["type"] not in REFERENCE_TYPES:
            problems.append(f"{where}: unknown type {ref['type']!r}")
        problems += _author_problems(ref.get("authors"), where)
        for ident in ref.get("identifiers", []):
            if ident.get("type") not in IDENTIFIER_TYPES or not ident.get("value"):
                problems.append(f"{where}: identifier {ident} needs a type in "
                                f"{sorted(IDENTIFIER_TYPES)} and a value")
    return problems


def test_license_is_the_bsd_3_clause_text_the_package_declares():
    project = _pyproject()
    assert project["license"] == "BSD-3-Clause"
    assert project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("BSD 3-Clause License")
    assert "Neither the name of the copyright holder" in text  # the third clause


def test_citation_file_is_valid_cff():
    assert cff_problems(_cff()) == []


def test_citation_check_catches_a_missing_key_and_a_bad_reference():
    broken = copy.deepcopy(_cff())
    del broken["title"]
    broken["references"][0]["type"] = "preprint"
    del broken["references"][1]["authors"]
    found = cff_problems(broken)
    assert "missing required key 'title'" in found
    assert any("unknown type 'preprint'" in p for p in found)
    assert any("reference 1" in p and "'authors'" in p for p in found)


def test_citation_matches_the_package_and_cites_both_papers():
    data, project = _cff(), _pyproject()
    assert data["version"] == project["version"]
    assert data["license"] == project["license"]
    readme_ids = set(re.findall(r"arXiv (\d{4}\.\d{4,5})", (ROOT / "README.md").read_text()))
    assert len(readme_ids) == 2, readme_ids
    cited = {}
    for ref in data["references"]:
        ids = {i["value"] for i in ref.get("identifiers", [])}
        for arxiv in readme_ids:
            if f"arXiv:{arxiv}" in ids and arxiv in ref["url"]:
                cited[arxiv] = {a["family-names"] for a in ref["authors"]}
    assert set(cited) == readme_ids, f"papers not cited: {readme_ids - set(cited)}"
    assert cited["2304.12429"] == {"Khanna", "Lu", "Raff", "Testa"}  # P1
    assert cited["2303.10303"] == {"Khanna", "Lu", "Raff"}  # P2
