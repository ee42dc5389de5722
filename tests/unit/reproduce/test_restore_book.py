"""``dplasso record --restore`` into a results folder that does not exist (a fresh clone has no
``book/generated/``), then ``dplasso pages``, as ``make book-record`` runs them, leave every
file the book includes or reads from that folder: the notebook and generated pages of the table
of contents, the ``{include}``, ``{doc}`` and glue targets of the chapters (``book/*.md``) and
of the notebooks (``notebooks/*.md``, from their own folder), and each notebook's ``run.json``,
which the book's Sphinx extension reads (``book/_ext/book_artifacts.py``). The check is shown
to catch a restore without ``runtimes.md``. Not statistical.
"""
import json
import posixpath
import re
from pathlib import Path

from dplasso.reproduce.pages import write_pages
from dplasso.reproduce.paper_record import RECORD_DIR, restore_record
from dplasso.reproduce.record import RUN_FILE, RUNTIMES_FILE, read_runtimes
from dplasso.reproduce.registry import load_registry

ROOT = Path(__file__).resolve().parents[3]
_TOC = re.compile(r"file:\s*book/(generated/\S+)")
_INCLUDE = re.compile(r"```\{include\}\s*(\S+)")
_ROLE = re.compile(r"\{(?:doc|glue:\w+)\}`(?:[^`<]*<)?([^`<>]+)>?`")


def book_reads(registry) -> set[str]:
    """What the book reads from its results folder, as paths inside it (a page without its
    suffix: ``.md`` or ``.ipynb``)."""
    refs = set(_TOC.findall((ROOT / "_toc.yml").read_text()))
    for page in (ROOT / "book").glob("*.md"):
        text = page.read_text()
        refs.update(ref for ref in _INCLUDE.findall(text) + _ROLE.findall(text)
                    if ref.startswith("generated/"))
    refs = {ref.removeprefix("generated/").split("::")[0] for ref in refs}
    for name, notebook in registry.notebooks.items():
        refs.update(posixpath.normpath(f"{name}/{ref}")
                    for ref in _INCLUDE.findall(notebook.source.read_text()))
        refs.add(f"{name}/{RUN_FILE}")
    return refs


def missing(folder: Path, refs) -> list[str]:
    return sorted(ref for ref in refs if not any(
        (folder / f"{ref}{suffix}").is_file() for suffix in ("", ".md", ".ipynb")))


def test_a_restore_into_a_fresh_clone_gives_the_book_every_file_it_reads(tmp_path):
    registry = load_registry(ROOT)
    generated = tmp_path / "book" / "generated"
    assert restore_record(registry, generated) == list(registry.notebooks)
    claims = tmp_path / "claims.json"
    claims.write_text(json.dumps({"artifacts": {}}))
    write_pages(registry, generated, claims)
    refs = book_reads(registry)
    assert {RUNTIMES_FILE, "pages/findings", "pages/verdicts-beyond.md",
            "proofs/proofs.ipynb"} <= refs
    assert missing(generated, refs) == []

    # the run-time table is the record's own, and names no host
    recorded = {name: json.loads((ROOT / RECORD_DIR / name / RUN_FILE).read_text())["seconds"]
                for name in registry.notebooks}
    assert read_runtimes(generated / RUNTIMES_FILE) == _as_printed(recorded)
    assert "Executed on" not in (generated / RUNTIMES_FILE).read_text()

    (generated / RUNTIMES_FILE).unlink()  # a restore that leaves it out is caught
    assert missing(generated, refs) == [RUNTIMES_FILE]


def _as_printed(times: dict) -> dict:
    """The times as ``runtimes.md`` prints them (one decimal)."""
    return {name: round(seconds, 1) for name, seconds in times.items()}
