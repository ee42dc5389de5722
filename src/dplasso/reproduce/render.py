"""A rendered view of one executed notebook: a standalone HTML page beside its results.

A custom run (``dplasso reproduce ... -p``) writes an executed notebook that the book does not
show. :func:`render_notebook` builds that one notebook as a Jupyter Book page, with the book's
own Markdown, figure, table and math settings and its stylesheets (so glued numbers, captioned
tables and offline math render as in the book, and tables fit the text column at 1280 px),
into ``<folder>/html/<name>.html``. The page says what made it: under its title, a note names
the notebook, the profile and every ``-p`` value from the run's record (:func:`run_note`); its
sidebar title is the notebook's title and the kind of run, never a path of this machine.
References to the book's other chapters (``{doc}`` paths, labels of other chapters) become
the chapter's title, linked to the published book's page (``_build/html/``) when it exists
(``book/_ext/book_standalone.py``). A sentence (or table row) that shows a number the run did
not compute, a glue key the executed notebook does not hold, is left out rather than shown
with a gap (:mod:`dplasso.reproduce.unglued`); a run that glued every key keeps its text as it
is.
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

from .record import CUSTOM_PARAMETERS, read_record
from .registry import Registry
from .unglued import without_unglued

HTML_FOLDER = "html"
PUBLISHED_BOOK = Path("_build") / "html"
"""Where ``make book`` writes the book, relative to the checkout."""
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_CAUSE = re.compile(r"^(?:[A-Za-z_][\w.]*(?:Error|Exception)|[A-Z][a-z]+ error):\s*\S")
_HEADING = re.compile(r"^#\s+(?P<title>\S.*?)\s*$", re.M)
_SECTION = re.compile(r"^#+\s+(?P<title>\S.*?)\s*$")
_TARGET = re.compile(r"^\((?P<label>[\w.:-]+)\)=\s*$")
_NAME = re.compile(r"^\s*:?name:\s*(?P<label>[\w.:-]+)\s*$")


class RenderFailed(RuntimeError):
    """The page builder failed: a one-line message naming the notebook and the cause;
    ``detail`` holds the builder's whole output."""

    def __init__(self, message: str, detail: str):
        super().__init__(message)
        self.detail = detail


def _config(root: Path, title: str, docname: str, chapters: dict, labels: dict) -> dict:
    """The book's ``_config.yml`` settings that shape a page, for a one-page build."""
    book = yaml.safe_load((root / "_config.yml").read_text())
    return {
        "title": title,
        "only_build_toc_files": False,
        "execute": {"execute_notebooks": "off"},
        "parse": book["parse"],
        "bibtex_bibfiles": [str(root / path) for path in book["bibtex_bibfiles"]],
        "html": {"use_repository_button": False},
        "launch_buttons": {"notebook_interface": "classic", "thebe": False},
        "sphinx": {
            "local_extensions": {name: str(root / "book" / "_ext")
                                 for name in ("book_cite", "book_html", "book_standalone")},
            "extra_extensions": book["sphinx"]["extra_extensions"],
            "config": {**book["sphinx"]["config"],
                       "suppress_warnings": ["ref", "myst.xref_missing"],
                       "standalone_docname": docname, "standalone_chapters": chapters,
                       "standalone_labels": labels},
        },
    }


def _title(path: Path) -> str | None:
    """The first ``# `` heading of a MyST source, None without one."""
    try:
        found = _HEADING.search(path.read_text())
    except OSError:
        return None
    return found["title"] if found else None


def _checkout_path(path: Path, root: Path) -> str | None:
    """``path`` relative to the checkout, None outside it."""
    try:
        return Path(path).resolve().relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        return None


def _book_sources(registry: Registry) -> dict[str, Path]:
    """Each chapter of the book (its docname, as in ``_toc.yml``) and its MyST source: the
    pages under ``book/`` and each notebook, shown at ``book/generated/<name>/<name>``."""
    root = registry.root
    sources = {f"book/{path.stem}": path for path in sorted((root / "book").glob("*.md"))}
    sources.update({f"book/generated/{name}/{name}": nb.source
                    for name, nb in registry.notebooks.items()})
    return sources


def chapter_links(registry: Registry, page_folder: Path) -> tuple[dict, dict]:
    """``(chapters, labels)`` for ``book/_ext/book_standalone.py``: each chapter's title and
    its published page relative to ``page_folder`` (None when the book is not built, or when
    ``page_folder`` is outside the checkout: the link would hold this machine's path), and
    each label of a chapter (a ``(label)=`` target or a figure's or table's ``name:``) with
    its chapter and, for a target, the title of the section it marks."""
    published = registry.root / PUBLISHED_BOOK
    inside = _checkout_path(page_folder, registry.root) is not None
    chapters, labels = {}, {}
    for docname, source in _book_sources(registry).items():
        page = published / f"{docname}.html"
        chapters[docname] = {
            "title": _title(source) or docname.rsplit("/", 1)[-1],
            "href": (Path(os.path.relpath(page, page_folder)).as_posix()
                     if inside and page.is_file() else None)}
        lines = source.read_text().splitlines()
        start = lines.index("---", 1) + 1 if lines[:1] == ["---"] and "---" in lines[1:] else 0
        for i, line in enumerate(lines[start:], start):  # after the front matter
            target, name = _TARGET.match(line), _NAME.match(line)
            if target:
                heading = next((_SECTION.match(rest) for rest in lines[i + 1:i + 4]
                                if _SECTION.match(rest)), None)
                labels[target["label"]] = {"docname": docname,
                                           "title": heading["title"] if heading else None}
            elif name:
                labels.setdefault(name["label"], {"docname": docname, "title": None})
    return chapters, labels


def _yaml(value) -> str:
    """``value`` as one line of YAML, as ``-p`` reads it."""
    return yaml.safe_dump(value, default_flow_style=True, width=10**6).strip().removesuffix(
        "\n...").strip()


def run_note(folder: Path, registry: Registry) -> tuple[str, bool]:
    """``(MyST note, custom)``: what made the run in ``folder`` (a notebook's results folder),
    from its ``run.json`` (the ``-p`` values it recorded) or, for older records, the run's
    ``parameters.yaml`` one folder up; ``custom`` when ``-p`` changed a parameter."""
    folder = Path(folder)
    name = folder.name
    record = read_record(folder)
    if record is None:
        return (f":::{{note}}\nThe notebook `{name}` as executed; no run record (`run.json`) "
                "beside it, so its profile and parameters are not known.\n:::\n"), False
    overrides = record.get("overrides")
    if overrides is None:
        try:
            custom = yaml.safe_load((folder.parent / CUSTOM_PARAMETERS).read_text())
            overrides = {key: record["parameters"][key] for key in custom["overrides"]
                         if key in record["parameters"]}
        except (OSError, yaml.YAMLError, KeyError, TypeError):
            pass
    profile = record["profile"]
    ran = (f"source commit `{record['commit']}`, " if record.get("commit") else "") + \
        f"finished {record['finished']}"
    where = _checkout_path(folder, registry.root)
    results = f" Results files: `{where}/` in the checkout." if where else ""
    if not overrides:
        which = ("its record does not say which parameters `-p` changed" if overrides is None
                 else "with the profile's parameters")
        return (f":::{{note}}\nThe notebook `{name}` executed at the `{profile}` profile, "
                f"{which} ({ran}).{results}\n:::\n"), False
    values = ", ".join(f"`{key}={_yaml(value)}`" for key, value in overrides.items())
    command = shlex.join([".venv/bin/dplasso", "reproduce", name, "--profile", profile,
                          *(word for key, value in overrides.items()
                            for word in ("-p", f"{key}={_yaml(value)}")), "--html"])
    return (f":::{{admonition}} Custom run: not the book's results\n:class: note\n"
            f"The notebook `{name}` executed at the `{profile}` profile with {values} "
            f"(`-p`); every other parameter is the profile's ({ran}).{results} "
            f"Rerun from the checkout: `{command}`\n:::\n"), True


def _with_note(notebook: Path, note: str):
    """``(notebook, title)``: the executed notebook with ``note`` under its title (or first,
    without one), and that title (None without one)."""
    import nbformat

    try:
        nb = nbformat.read(notebook, as_version=4)
    except Exception as err:  # nbformat's errors (not JSON, not a notebook) share no base
        raise ValueError(f"{notebook}: not a Jupyter notebook "
                         f"({' '.join(str(err).split())[:200]})") from None
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            lines = cell.source.splitlines()
            at = next((i for i, line in enumerate(lines) if _HEADING.match(line)), None)
            if at is not None:
                cell.source = "\n".join([*lines[:at + 1], "", note, *lines[at + 1:]])
                return nb, _HEADING.match(lines[at])["title"]
    nb.cells.insert(0, nbformat.v4.new_markdown_cell(note))
    return nb, None


def _cause(output: str) -> str:
    """The builder's reason for failing: the first exception line of its output (else its
    last line), without colour codes."""
    lines = [line.strip() for line in _ANSI.sub("", output).splitlines() if line.strip()]
    for line in lines:
        if _CAUSE.match(line):
            return line
    return next((line for line in reversed(lines) if not set(line) <= set("=-")),
                "no output")


def render_notebook(notebook: Path, registry: Registry) -> Path:
    """Build ``notebook`` (an executed ``.ipynb``) as ``<its folder>/html/<name>.html``.

    The previous rendering, if any, is replaced only once the new one is built. Nothing is
    left in the temporary folder, whatever happens.

    Raises
    ------
    FileNotFoundError
        If ``notebook`` is not a ``.ipynb`` file.
    ValueError
        If it is not a Jupyter notebook.
    RenderFailed
        If the page build fails (one line; the builder's output in ``detail``).
    """
    notebook = Path(notebook).resolve()
    if not notebook.is_file() or notebook.suffix != ".ipynb":
        raise FileNotFoundError(f"no executed notebook (.ipynb) at {notebook}")
    import nbformat

    root = registry.root.resolve()
    name = notebook.stem
    target = notebook.parent / HTML_FOLDER
    note, custom = run_note(notebook.parent, registry)
    page, title = _with_note(notebook, note)
    without_unglued(page)
    title = title or (registry.notebooks[name].title if name in registry.notebooks else name)
    record = read_record(notebook.parent) or {}
    kind = "custom run" if custom else f"{record['profile']}-profile run" if record else "run"
    chapters, labels = chapter_links(registry, target)
    with tempfile.TemporaryDirectory(prefix="dplasso-render-") as tmp:
        work = Path(tmp)
        nbformat.write(page, work / notebook.name)
        if (root / "_static").is_dir():  # the book's stylesheets (tables.css)
            shutil.copytree(root / "_static", work / "_static")
        (work / "_config.yml").write_text(yaml.safe_dump(
            _config(root, f"{title} ({kind})", f"book/generated/{name}/{name}", chapters,
                    labels), sort_keys=False))
        done = subprocess.run(
            [str(Path(sys.executable).with_name("jupyter-book")), "build", notebook.name,
             "--config", "_config.yml"],
            cwd=work, capture_output=True, text=True,
            env={**os.environ, "TMPDIR": str(work)})  # Sphinx's crash log goes here too
        built = work / "_build" / "_page" / name / "html"
        if done.returncode or not (built / f"{name}.html").is_file():
            output = _ANSI.sub("", done.stdout + done.stderr)
            raise RenderFailed(f"rendering {notebook} failed: {_cause(output)}", output)
        staged = notebook.parent / f".{HTML_FOLDER}.tmp"
        shutil.rmtree(staged, ignore_errors=True)
        shutil.copytree(built, staged)
    shutil.rmtree(target, ignore_errors=True)
    staged.rename(target)
    return target / f"{name}.html"
