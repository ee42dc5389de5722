"""The built book as a reader meets it: every page opened in headless Chromium from ``file://``
with the network blocked (marker ``book``; run after ``make book``, Chromium from ``make browser``).

A page fails on a console or JavaScript error, a failed or blocked request, an image not loaded
or drawn at another aspect ratio than its file's (at 1280, 768 and 400 px), TeX left unrendered,
or a table that scrolls sideways or clips its caption at 1280 px. Markdown tables, in the chapters and in the notebooks'
outputs, fail on a row cut by a stray ``|``. The first screen of every chapter is saved under
``_build/screenshots/``. Each check is shown to fail on a copy of a built page broken on purpose.
"""
import re
import shutil
from pathlib import Path

import nbformat
import pytest
import yaml
from PIL import Image

from book_browser import WIDTHS, chromium

pytestmark = pytest.mark.book
ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "_build" / "html"
SCREENSHOTS = ROOT / "_build" / "screenshots"
MIN_FIGURE_DPI = 199.5  # 200 dpi as PNG stores it (pixels per metre, rounded)


def _pages(html: Path) -> list[Path]:
    # index.html only redirects to the root chapter, which is checked itself.
    return sorted(p for p in html.rglob("*.html")
                  if "_static" not in p.relative_to(html).parts and p != html / "index.html")


def _chapters() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]

    def walk(entries):
        for entry in entries:
            files.append(entry["file"])
            walk(entry.get("sections", []))

    for part in toc["parts"]:
        walk(part["chapters"])
    return files


@pytest.fixture(scope="module")
def browser():
    assert (HTML / "index.html").is_file(), f"no {HTML / 'index.html'}: was the book built?"
    with chromium() as b:
        yield b


def test_every_page_reads_cleanly_in_chromium(browser):
    chapters = {HTML / f"{name}.html": name for name in _chapters()}
    problems = {}
    for page in _pages(HTML):
        shot = SCREENSHOTS / f"{chapters[page]}.png" if page in chapters else None
        found = browser.inspect(page.as_uri(), screenshot=shot)
        if found:
            problems[str(page.relative_to(HTML))] = found
    assert not problems, "\n".join(f"{page}:\n  " + "\n  ".join(p) for page, p in problems.items())
    missing = [name for name in chapters.values() if not (SCREENSHOTS / f"{name}.png").is_file()]
    assert not missing, f"chapters without a screenshot (not built?): {missing}"


def test_every_figure_is_at_print_resolution():
    images = sorted((HTML / "_images").glob("*.png"))
    assert images, "no figures in the built book"
    low = {}
    for path in images:
        with Image.open(path) as image:
            dpi = image.info.get("dpi", (0, 0))
        if min(dpi) < MIN_FIGURE_DPI:
            low[path.name] = dpi
    assert not low, f"figures below 200 dpi: {low}"


# -- markdown tables --------------------------------------------------------------------------

_CELL_SPLIT = re.compile(r"(?<!\\)\|")  # the table rule's split: a pipe not after a backslash


def _cells(line: str) -> int:
    parts = _CELL_SPLIT.split(line.strip())
    return len(parts) - (parts[0].strip() == "") - (len(parts) > 1 and parts[-1].strip() == "")


def cut_rows(markdown: str) -> list[str]:
    """Rows of the Markdown tables in ``markdown`` with more cells than their header: an
    unescaped ``|`` inside a cell ended it there, and the rest of the row is dropped."""
    cut, header = [], None
    for line in markdown.splitlines():
        if not line.lstrip().startswith("|"):
            header = None
        elif header is None:
            header = _cells(line)
        elif _cells(line) > header:
            cut.append(line.strip())
    return cut


def _markdown_sources():
    for path in sorted((ROOT / "book").rglob("*.md")):
        yield path, path.read_text()
    for path in sorted((ROOT / "book" / "generated").glob("*/*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                yield path, cell.source
            for output in cell.get("outputs", []):
                text = output.get("data", {}).get("text/markdown")
                if text:
                    yield path, text if isinstance(text, str) else "".join(text)


def test_no_table_cell_is_cut_by_a_stray_pipe():
    found = [f"{path.relative_to(ROOT)}: {row}"
             for path, text in _markdown_sources() for row in cut_rows(text)]
    assert not found, "table rows cut by an unescaped |:\n" + "\n".join(found)


def test_a_stray_pipe_is_found_and_an_escaped_one_is_not():
    header = "| name | preprocessing |\n|---|---|\n"
    assert cut_rows(header + "| sonar | scaled by their max |x_j| (zeros stay zero) |\n")
    assert not cut_rows(header + r"| sonar | scaled by their max \|x_j\| (zeros stay zero) |" + "\n")
    assert not cut_rows(header + "| sonar | |\n")


# -- the checks fail on pages broken on purpose ------------------------------------------------

@pytest.fixture
def broken_copy(tmp_path):
    """A copy of the built book to break: returns (copy, path of a page in it)."""
    copy = tmp_path / "html"
    shutil.copytree(HTML, copy)
    return copy


def _insert(page: Path, html: str) -> None:
    text = page.read_text()
    marker = '<article class="bd-article">'
    assert marker in text, f"{page.name}: no article element to insert into"
    page.write_text(text.replace(marker, marker + html, 1))


def _a_page_with_a_figure(html: Path) -> tuple[Path, Path]:
    for page in _pages(html):
        src = re.search(r'<img[^>]+src="([^"]+_images/[^"]+\.png)"', page.read_text())
        if src:
            return page, (page.parent / src.group(1)).resolve()
    pytest.fail("no page of the built book shows a figure")


def test_a_deleted_figure_fails(browser, broken_copy):
    page, image = _a_page_with_a_figure(broken_copy)
    image.unlink()
    found = browser.inspect(page.as_uri())
    assert any(p.startswith("image not loaded") and image.name in p for p in found), found
    assert any(p.startswith("failed request") and image.name in p for p in found), found


def test_a_raw_tex_line_fails(browser, broken_copy):
    # What Lemma 2's proof looked like when a source line starting with "+" became a list item.
    page = broken_copy / "book" / "intro.html"
    _insert(page, r"<ul><li><p>+ \tfrac\mu2 \|z - z^\star\|_2^2 \ge f(z^\star)$ by</p></li></ul>")
    found = browser.inspect(page.as_uri())
    assert any(p.startswith("raw TeX") and r"\tfrac" in p for p in found), found


def test_an_over_wide_table_fails(browser, broken_copy):
    page = broken_copy / "book" / "intro.html"
    cells = "".join(f"<td>column&nbsp;{i}&nbsp;with&nbsp;a&nbsp;long&nbsp;name</td>" for i in range(12))
    _insert(page, f'<table id="too-wide"><tr>{cells}</tr></table>')
    found = browser.inspect(page.as_uri())
    assert any(p.startswith("table scrolls sideways: too-wide") for p in found), found


def test_a_table_that_scrolls_in_its_container_fails_and_its_caption_is_clipped(browser,
                                                                                broken_copy):
    page = broken_copy / "book" / "intro.html"
    cells = "".join(f"<td>column&nbsp;{i}&nbsp;with&nbsp;a&nbsp;long&nbsp;name</td>" for i in range(12))
    caption = "a&nbsp;caption&nbsp;that&nbsp;cannot&nbsp;wrap&nbsp;" * 8
    _insert(page, '<div class="pst-scrollable-table-container">'
                  f'<table id="scrolls"><caption>{caption}</caption><tr>{cells}</tr></table></div>')
    found = browser.inspect(page.as_uri())
    assert any(p.startswith("table scrolls sideways: scrolls") for p in found), found
    assert any(p.startswith("caption clipped: scrolls") for p in found), found
    narrow = "".join(f"<td>{i}</td>" for i in range(3))
    page.write_text(page.read_text().replace(cells, narrow).replace(caption, "short"))
    assert browser.inspect(page.as_uri()) == []


def test_a_stretched_figure_fails_at_every_width(browser, broken_copy):
    """A figure given a fixed height beside its width, as the retina metadata did before
    ``book/_ext/book_figures.py``: squeezed to the column, it keeps its full height."""
    page, image = _a_page_with_a_figure(broken_copy)
    text = page.read_text()
    tag = re.search(r'<img[^>]+src="[^"]+_images/' + re.escape(image.name) + '"[^>]*>', text)
    with Image.open(image) as png:
        width, height = png.size
    stretched = re.sub(r'\sstyle="[^"]*"', "", tag.group(0)).replace(
        "<img", f'<img style="width: {width}px; height: {height}px"', 1)
    page.write_text(text.replace(tag.group(0), stretched))
    found = [p for p in browser.inspect(page.as_uri()) if image.name in p]
    for width in WIDTHS:
        assert any(p.startswith(f"image stretched at {width} px") for p in found), found


def test_a_figure_at_its_own_ratio_passes_at_every_width(browser, tmp_path):
    """A tiny page: one 400 x 100 image given only a width larger than the viewport."""
    Image.new("RGB", (400, 100), "white").save(tmp_path / "wide.png")
    page = tmp_path / "page.html"
    page.write_text('<html><body><article class="bd-article">'
                    '<img src="wide.png" style="width: 1600px; max-width: 100%">'
                    "</article></body></html>")
    assert browser.inspect(page.as_uri()) == []
    page.write_text(page.read_text().replace('width: 1600px;', 'width: 1600px; height: 400px;'))
    found = browser.inspect(page.as_uri())
    assert any(p.startswith("image stretched at 1280 px: wide.png (400 x 100)") for p in found), \
        found


def test_a_script_error_and_a_network_request_fail(browser, broken_copy):
    page = broken_copy / "book" / "intro.html"
    # The duplicated THEBE_JS_URL declaration, and a script from a (loopback) server.
    _insert(page, "<script>const TWICE = 1;</script><script>const TWICE = 2;</script>"
                  '<script src="http://127.0.0.1:9/x.js"></script>')
    found = browser.inspect(page.as_uri())
    assert any(p.startswith("JavaScript error") and "TWICE" in p for p in found), found
    assert any(p.startswith("failed request: http://127.0.0.1:9/x.js") for p in found), found
