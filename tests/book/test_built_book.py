"""Checks on the rendered book (run after `make book`; marker `book`)."""
import re
from importlib.metadata import version
from pathlib import Path

import pytest

from dplasso.reproduce.registry import load_registry

pytestmark = pytest.mark.book
ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "_build" / "html"
GENERATED = ROOT / "book" / "generated"
ERROR_MARKERS = [
    "Traceback (most recent call last)",
    "output traceback",
    "output stderr",
    "ipythontb",
]


def _pages():
    return sorted(HTML.rglob("*.html"))


def test_jupyter_book_major_version_is_1():
    assert version("jupyter-book").split(".")[0] == "1", (
        "Jupyter Book 2 renders nothing for a 1.x layout and exits 0; pin jupyter-book<2")


def test_index_exists():
    assert (HTML / "index.html").is_file(), f"no {HTML / 'index.html'}: was the book built?"


def test_every_notebook_rendered_and_every_artifact_present():
    reg = load_registry(ROOT)
    for name in reg.notebooks:
        assert (HTML / "book" / "generated" / name / f"{name}.html").is_file(), name
    for art in reg.artifacts.values():
        page = (HTML / "book" / "generated" / art.notebook / f"{art.notebook}.html").read_text()
        # Sphinx lower-cases label ids in HTML
        assert f'id="{art.label.lower()}"' in page, f"label {art.label} of {art.id} not in its page"
        assert reg.results_path(art.id, GENERATED).is_file(), f"results of {art.id} missing"


def test_no_error_output_in_any_page():
    pages = _pages()
    assert pages, "no HTML pages"
    for page in pages:
        text = page.read_text(errors="replace")
        for marker in ERROR_MARKERS:
            assert marker not in text, f"{page.relative_to(HTML)} shows an error output ({marker!r})"


def test_scripts_and_mathjax_are_served_locally():
    """The book must work offline: MathJax included, no script fetched from the network."""
    root_page = HTML / "book" / "intro.html"
    scripts = re.findall(r'<script[^>]+src="([^"]+)"', root_page.read_text())
    assert any("mathjax" in s.lower() for s in scripts), "no MathJax script on the root page"
    for page in _pages():
        for src in re.findall(r'<script[^>]+src="([^"]+)"', page.read_text(errors="replace")):
            assert not src.startswith(("http:", "https:", "//")), f"{page.name} loads {src}"
