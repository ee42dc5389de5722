"""The standalone page of a run (``dplasso reproduce --html``, ``dplasso render``): it says
what made it, shows no path of this machine, turns references to other chapters into their
titles (linked to the published book when it exists), uses the book's table styles, and its
errors are one line with nothing left in the temporary folder."""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tiny_notebook import myst_notebook, write_schema
from dplasso.cli import build_parser, custom_folder
from dplasso.cli import main as cli_main
from dplasso.reproduce.registry import load_registry
from dplasso.reproduce.render import chapter_links, run_note

ROOT = Path(__file__).resolve().parents[3]

NOTEBOOK = myst_notebook(
    'value = 1\nfail = False\nprofile = "?"',
    """\
    from IPython.display import Markdown
    Markdown("~~~{table} A table of eight wide columns\\n:name: wide-table\\n\\n"
             + "| " + " | ".join(f"column number {i}" for i in range(8)) + " |\\n"
             + "|" + "---:|" * 8 + "\\n"
             + "| " + " | ".join(f"{value * 1234.5678:.4f}" for _ in range(8)) + " |\\n~~~\\n")
    """, title="A page of its own")
PROSE = """
The method is the one of {doc}`../../other` and {doc}`its neighbour <../../other>`; the
counts are in {doc}`../b/b`, its figure ({numref}`b-figure`), and the proof in
{ref}`other-proof`.
"""


def book_project(root: Path) -> Path:
    """A project of the book's page settings (``_config.yml``, ``book/_ext``, the
    bibliography, ``_static``) with two notebooks, ``a`` (titled, referring to the chapter
    ``book/other`` and to ``b``) and ``b`` (defining the label ``b-figure``)."""
    for folder in ("notebooks", "params", "src/pkg", "book"):
        (root / folder).mkdir(parents=True)
    shutil.copy(ROOT / "_config.yml", root)
    shutil.copytree(ROOT / "book" / "_ext", root / "book" / "_ext")
    shutil.copy(ROOT / "book" / "references.bib", root / "book")
    shutil.copytree(ROOT / "_static", root / "_static")
    (root / "src" / "pkg" / "__init__.py").write_text("")
    (root / "constraints.txt").write_text("")
    (root / "book" / "other.md").write_text(
        "# The other chapter\n\nText.\n\n(other-proof)=\n## A proof elsewhere\n\nQED.\n")
    head, cells = NOTEBOOK.split("# A page of its own\n")
    (root / "notebooks" / "a.md").write_text(head + "# A page of its own\n" + PROSE + cells)
    (root / "notebooks" / "b.md").write_text(myst_notebook(
        'value = 1\nfail = False\nprofile = "?"',
        "print(value)\n```\n\n```{figure} nothing.png\n:name: b-figure\n\nA figure.",
        title="The neighbour notebook"))
    (root / "artifacts.yaml").write_text(
        "notebooks:\n  a: {source: notebooks/a.md, title: A page of its own}\n"
        "  b: {source: notebooks/b.md, title: The neighbour notebook}\nartifacts: []\n")
    (root / "params" / "paper.yaml").write_text("")
    (root / "params" / "ci.yaml").write_text("a: {value: 1}\nb: {value: 1}\n")
    write_schema(root, ("a", "b"))
    return root


def _record(folder: Path, **fields) -> Path:
    folder.mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps({
        "notebook": folder.name, "profile": "ci", "key": "k", "seconds": 1.0,
        "finished": "2026-01-01 00:00:00 UTC", "commit": "abc1234",
        "parameters": {"value": 7, "fail": False, "profile": "ci"}, **fields}))
    return folder


def test_the_note_names_the_notebook_the_profile_and_every_p_value(tmp_path):
    root = book_project(tmp_path / "proj")
    registry = load_registry(root)
    folder = _record(root / "results" / "custom" / "ci-x" / "a",
                     overrides={"value": 7, "fail": False})
    note, custom = run_note(folder, registry)
    assert custom and "`a`" in note and "`ci` profile" in note
    assert "`value=7`" in note and "`fail=false`" in note and "abc1234" in note
    assert "`results/custom/ci-x/a/`" in note and str(tmp_path) not in note
    # the rerun command it prints runs from the checkout with the same values
    command = re.search(r"Rerun from the checkout: `([^`]+)`", note)[1]
    program, *argv = shlex.split(command)
    assert program == ".venv/bin/dplasso"
    args = build_parser().parse_args(argv)
    assert (args.artifacts, args.profile, args.html) == (["a"], "ci", True)
    assert {k: yaml.safe_load(v) for k, v in (p.split("=", 1) for p in args.param)} == {
        "value": 7, "fail": False}


def test_an_older_record_takes_the_p_values_from_parameters_yaml_or_says_it_cannot(tmp_path):
    root = book_project(tmp_path / "proj")
    registry = load_registry(root)
    custom = root / "results" / "custom" / "ci-y"
    folder = _record(custom / "a")  # no "overrides": written before they were recorded
    (custom / "parameters.yaml").write_text(yaml.safe_dump(
        {"profile": "ci", "overrides": {"value": 7, "datasets": [29]}}))
    note, is_custom = run_note(folder, registry)
    assert is_custom and "`value=7`" in note and "datasets" not in note  # not a's parameter
    (custom / "parameters.yaml").unlink()
    note, is_custom = run_note(folder, registry)
    assert not is_custom and "does not say which parameters `-p` changed" in note
    note, is_custom = run_note(_record(tmp_path / "out" / "a", overrides={}), registry)
    assert not is_custom and "with the profile's parameters" in note
    assert str(tmp_path) not in note  # outside the checkout: no path at all
    note, _ = run_note(tmp_path / "elsewhere" / "a", registry)
    assert "no run record" in note


def test_chapters_and_labels_link_to_the_published_book_only_where_it_exists(tmp_path):
    root = book_project(tmp_path / "proj")
    published = root / "_build" / "html" / "book" / "other.html"
    published.parent.mkdir(parents=True)
    published.write_text("<html></html>")
    chapters, labels = chapter_links(load_registry(root), root / "results" / "x" / "a" / "html")
    assert chapters["book/other"] == {"title": "The other chapter",
                                      "href": "../../../../_build/html/book/other.html"}
    assert chapters["book/generated/b/b"] == {"title": "The neighbour notebook", "href": None}
    assert labels["other-proof"] == {"docname": "book/other", "title": "A proof elsewhere"}
    assert labels["b-figure"] == {"docname": "book/generated/b/b", "title": None}
    assert "python3" not in labels  # the notebooks' front matter names no label
    chapters, _ = chapter_links(load_registry(root), tmp_path / "elsewhere" / "a" / "html")
    assert chapters["book/other"]["href"] is None  # the link would name this machine's path


def _run(root, *argv, tmp=None):
    env = {**os.environ, "DPLASSO_ROOT": str(root)}
    if tmp is not None:
        env["TMPDIR"] = str(tmp)
    return subprocess.run([sys.executable, "-m", "dplasso.cli", *argv], env=env,
                          capture_output=True, text=True, timeout=600)


def test_a_custom_run_renders_a_page_that_says_what_made_it_and_resolves_references(
        tmp_path, monkeypatch, capsys):
    root = book_project(tmp_path / "proj")
    published = root / "_build" / "html" / "book" / "other.html"
    published.parent.mkdir(parents=True)
    published.write_text("<html></html>")
    monkeypatch.setenv("DPLASSO_ROOT", str(root))
    assert cli_main(["reproduce", "a", "--profile", "ci", "-p", "value=3", "--html"]) == 0
    folder = custom_folder(root, "ci", {"value": 3}) / "a"
    page = folder / "html" / "a.html"
    assert f"rendered -> {page}" in capsys.readouterr().out
    html = page.read_text()
    text = re.sub(r"<[^>]+>", "", re.sub(r"<(script|style)\b.*?</\1>", "", html, flags=re.S))
    # what made it, at the top: the notebook, the profile, the -p value
    note = text.index("Custom run: not the book")
    assert note < text.index("The method is the one of")
    assert "a executed at the ci profile with value=3" in " ".join(text.split())
    # no path of this machine anywhere in the page; its title says what kind of run it is
    assert str(tmp_path) not in html and "/proj" not in html
    assert "<title>A page of its own &#8212; A page of its own (custom run)</title>" in html
    # references to other chapters: titles, linked where the book is published
    assert "../../other" not in text and "../b/b" not in text and "b-figure" not in text
    assert re.search(r'<a class="[^"]*standalone-xref[^"]*" href="../../../../../_build/html/'
                     r'book/other.html"><span>The other chapter</span></a>', html)
    assert "its neighbour</span></a>" in html  # an explicit title is kept
    assert "counts are in The neighbour notebook, its figure (in “The neighbour notebook”)" \
        in " ".join(text.split())  # not published: the title, unlinked
    assert 'href="../../../../../_build/html/book/other.html#other-proof"><span>A proof ' \
           'elsewhere</span>' in html
    # the book's table styles (tables fit the text column at 1280 px)
    assert (page.parent / "_static" / "tables.css").is_file() and "tables.css" in html
    # `dplasso render` rebuilds the page from the results folder alone
    assert cli_main(["render", str(folder)]) == 0 and page.is_file()


GLUING = myst_notebook(
    'value = 1\nfail = False\nprofile = "?"',
    """\
    from myst_nb import glue
    glue("rows", 100 * value, display=False)
    if value > 1:  # a side table this run computes only when asked
        glue("side", 7 * value, display=False)
    """, title="A page that glues") + """
The run has {glue:text}`rows:d` rows. Its side table counts {glue:text}`side:d` cells, all
of them. It ends here.

- **The side table** has {glue:text}`side:d` cells.
"""


@pytest.mark.parametrize("value, shown", [(1, "The run has 100 rows. It ends here."),
                                          (2, "The run has 200 rows. Its side table counts "
                                              "14 cells, all of them. It ends here.")])
def test_a_page_leaves_out_the_sentences_of_numbers_its_run_did_not_compute(
        value, shown, tmp_path, monkeypatch):
    """Run with value=1, the notebook does not glue ``side``: its sentence and its list item
    go, with no gap, and the rest of the paragraph stays; with value=2 all of it shows."""
    root = book_project(tmp_path / "proj")
    (root / "notebooks" / "a.md").write_text(GLUING)
    monkeypatch.setenv("DPLASSO_ROOT", str(root))
    assert cli_main(["reproduce", "a", "--profile", "ci", "-p", f"value={value}", "--html"]) == 0
    html = (custom_folder(root, "ci", {"value": value}) / "a" / "html" / "a.html").read_text()
    text = " ".join(re.sub(r"<[^>]+>", " ", re.sub(r"<(script|style)\b.*?</\1>", "", html,
                                                   flags=re.S)).split())
    assert shown in text
    assert ("The side table has 14 cells" in text) == (value == 2)
    assert "counts cells" not in text and "has cells" not in text  # no gap


def test_a_page_that_cannot_be_built_is_one_line_and_leaves_no_crash_log(tmp_path):
    root = book_project(tmp_path / "proj")
    folder = _record(root / "out" / "a", overrides={})
    (folder / "a.ipynb").write_text(json.dumps({
        "cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    (root / "book" / "_ext" / "book_html.py").write_text(  # Sphinx's crash: it writes a log
        "from sphinx.transforms import SphinxTransform\n\n"
        "class Broken(SphinxTransform):\n    default_priority = 500\n\n"
        "    def apply(self):\n        raise ValueError('a broken extension')\n\n"
        "def setup(app):\n    app.add_transform(Broken)\n")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    done = _run(root, "render", str(folder), tmp=tmp)
    assert done.returncode == 1, done
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"error: rendering {folder / 'a.ipynb'} failed: ") and "\x1b" not in line
    assert "a broken extension" in line
    assert list(tmp.iterdir()) == []  # no sphinx-err-*.log, no build folder
    hint = re.search(r"\(the builder's output: (.+)\)$", line)[1]
    debug = subprocess.run(shlex.split(hint), env={**os.environ, "DPLASSO_ROOT": str(root),
                                                    "TMPDIR": str(tmp)},
                           capture_output=True, text=True, timeout=600)
    assert debug.returncode == 1 and "Traceback" in debug.stderr  # the hint runs as printed


def test_a_bad_path_or_a_file_that_is_not_a_notebook_is_exit_2(tmp_path):
    root = book_project(tmp_path / "proj")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    done = _run(root, "render", str(tmp_path / "nothing"), tmp=tmp)
    assert done.returncode == 2 and done.stderr.startswith("error: no executed notebook in ")
    bad = tmp_path / "bad.ipynb"
    bad.write_text("{")
    done = _run(root, "render", str(bad), tmp=tmp)
    assert done.returncode == 2, done
    assert done.stderr.startswith(f"error: {bad}: not a Jupyter notebook")
    assert len(done.stderr.splitlines()) == 1
    assert list(tmp.iterdir()) == [] and not (tmp_path / "html").exists()


@pytest.mark.skipif(not Path("/usr/bin/chromium").is_file(),
                    reason="needs Debian's chromium (`make browser`)")
def test_the_page_and_its_tables_fit_1280_px(tmp_path, monkeypatch):
    sys.path.insert(0, str(ROOT / "tests" / "book"))
    from book_browser import chromium

    root = book_project(tmp_path / "proj")
    monkeypatch.setenv("DPLASSO_ROOT", str(root))
    out = tmp_path / "out"
    assert cli_main(["reproduce", "a", "--profile", "ci", "--out", str(out), "--html"]) == 0
    with chromium() as browser:
        page = browser.context.new_page()
        page.goto((out / "a" / "html" / "a.html").as_uri(), wait_until="load")
        widths = page.evaluate("""() => {
          const t = document.querySelector("table");
          const wrap = t.closest(".pst-scrollable-table-container") || t.parentElement;
          return [document.documentElement.scrollWidth, wrap.scrollWidth, wrap.clientWidth];
        }""")
        page.close()
    page_width, table_width, column = widths
    assert page_width <= 1280 and table_width <= column + 1, widths
