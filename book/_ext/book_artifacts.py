"""Sphinx extension: what a reader needs beside each artifact, generated from the registry.

- Under every table and figure of a notebook page, the one command that reproduces it at the
  profile this book was built with (:func:`reproduce_command`, runnable as printed) for a
  registry artifact, with a link to its results file (every run, as CSV or JSON), and the same
  with the notebook's name for the page's other tables and figures.
- At the top of every notebook page, its source's path in the repository (``notebooks/...``,
  linked to a copy) and downloads of the executed notebook and its results files. They are
  copied into the HTML build (``downloads/<notebook>/``) and linked by relative paths, so they
  work from ``file://`` with no server. The single-page build (``singlehtml``) gets the same,
  page by page, linked from its one page.

The profile of each notebook is read from the runner's ``run.json`` beside it.
"""
from __future__ import annotations

import functools
import json
import shutil
from pathlib import Path, PurePosixPath

from docutils import nodes
from sphinx import addnodes

from dplasso.experiments.display import FULL_TABLE_SUFFIX
from dplasso.reproduce.registry import load_registry as _load_registry

GENERATED = Path("book") / "generated"
load_registry = functools.lru_cache(maxsize=None)(_load_registry)
DOWNLOADS = "downloads"
RESULT_SUFFIXES = (".csv", ".json")


def _notebook_files(root: Path, name: str, source: Path) -> list[Path]:
    folder = root / GENERATED / name
    results = sorted(p for p in folder.iterdir()
                     if p.suffix in RESULT_SUFFIXES and p.name != "run.json")
    return [folder / f"{name}.ipynb", source, *results]


def _profile(root: Path, name: str) -> str:
    return json.loads((root / GENERATED / name / "run.json").read_text())["profile"]


def _relative(docname: str, target: str) -> str:
    """``target`` (a path from the build's root) as seen from ``docname``'s page; ``docname``
    ``None``: from the root (the single-page build's one page)."""
    depth = len(PurePosixPath(docname).parts) - 1 if docname else 0
    return "../" * depth + target


def _download_line(root: Path, docname: str | None, name: str,
                   files: list[Path]) -> nodes.paragraph:
    """The notebook's source in the repository, then the downloads."""
    executed, source, *results = files
    para = nodes.paragraph(classes=["artifact-downloads"])
    para += nodes.strong(text="Source: ")
    path = source.relative_to(root).as_posix()
    link = nodes.reference("", "", refuri=_relative(docname, f"{DOWNLOADS}/{name}/{source.name}"),
                           internal=False)
    link += nodes.literal(text=path)
    para += link
    para += nodes.Text(" in the repository (jupytext; the runner executes it). ")
    para += nodes.strong(text="Download: ")
    for i, (label, path) in enumerate([("executed notebook (.ipynb)", executed),
                                       *((p.name, p) for p in results)]):
        if i:
            para += nodes.Text(" · ")
        uri = _relative(docname, f"{DOWNLOADS}/{name}/{path.name}")
        para += nodes.reference(label, label, refuri=uri, internal=False)
    return para


REPRODUCED = "results/reproduced"
"""Where the printed commands write: beside the book's own results, never over them."""


def reproduce_command(target: str, profile: str) -> str:
    """The command under a table or figure, as it runs from the checkout after ``make
    install``: a fresh output folder (so it executes even where the book is built) and a
    rendered page of the run."""
    return (f".venv/bin/dplasso reproduce {target} --profile {profile} --out {REPRODUCED} "
            "--html")


def _command(target: str, profile: str, docname: str | None, results: str | None,
             full: str | None = None) -> nodes.paragraph:
    para = nodes.paragraph(classes=["artifact-command"])
    para += nodes.Text("Reproduce (from the checkout): ")
    para += nodes.literal(text=reproduce_command(target, profile))
    para += nodes.Text(" (add ")
    para += nodes.literal(text="-p name=value")
    para += nodes.Text(" to change a parameter; ")
    para += nodes.literal(text=".venv/bin/dplasso list")
    para += nodes.Text(" shows them).")
    for label, path in (("Every run", results), ("Full table", full)):
        if path is not None:
            para += nodes.Text(f" {label}: ")
            uri = _relative(docname, f"{DOWNLOADS}/{path}")
            para += nodes.reference(Path(path).name, Path(path).name, refuri=uri,
                                    internal=False)
            para += nodes.Text(".")
    return para


def _documents(app, doctree, docname):
    """(docname, subtree) of each page in ``doctree``: the page itself, or, in the single-page
    build (one doctree with every page inlined), each page inlined in it."""
    if app.builder.name != "singlehtml":
        yield docname, doctree
        return
    for start in doctree.findall(addnodes.start_of_file):
        yield start["docname"], start


def annotate(app, doctree, docname) -> None:
    """Add the source and downloads to each notebook page and a command under each of its
    tables and figures."""
    root = Path(app.srcdir)
    registry = load_registry(root)
    single = app.builder.name == "singlehtml"
    for page, tree in list(_documents(app, doctree, docname)):
        parts = PurePosixPath(page).parts
        if len(parts) == 4 and parts[:2] == ("book", "generated") and parts[2] == parts[3] \
                and parts[2] in registry.notebooks:
            _annotate_notebook(root, registry, tree, None if single else page, parts[2])


def _annotate_notebook(root: Path, registry, tree, docname: str | None, name: str) -> None:
    section = next(iter(tree.findall(nodes.section)), None)
    if section is not None:
        files = _notebook_files(root, name, registry.notebooks[name].source)
        title = next(iter(section.findall(nodes.title)))
        section.insert(section.index(title) + 1, _download_line(root, docname, name, files))
    labels = {art.label.lower(): art for art in registry.artifacts.values()
              if art.notebook == name}
    profile = _profile(root, name)
    full = {p.name[:-len(FULL_TABLE_SUFFIX)].lower(): f"{name}/{p.name}"
            for p in (root / GENERATED / name).glob(f"*{FULL_TABLE_SUFFIX}")}
    for node in list(tree.findall(lambda n: isinstance(n, (nodes.table, nodes.figure)))):
        found = [labels[i] for i in node.get("ids", []) if i in labels]
        whole = next((full[i] for i in node.get("ids", []) if i in full), None)
        command = (_command(found[0].id, profile, docname, f"{name}/{found[0].results}", whole)
                   if found else _command(name, profile, docname, None, whole))
        node.parent.insert(node.parent.index(node) + 1, command)


def copy_downloads(app, exception) -> None:
    """Copy each notebook's files to ``<html>/downloads/<notebook>/``."""
    if exception is not None or app.builder.format != "html":
        return
    root, registry = Path(app.srcdir), load_registry(Path(app.srcdir))
    for name, notebook in registry.notebooks.items():
        target = Path(app.outdir) / DOWNLOADS / name
        target.mkdir(parents=True, exist_ok=True)
        for path in _notebook_files(root, name, notebook.source):
            shutil.copyfile(path, target / path.name)


def setup(app):
    app.connect("doctree-resolved", annotate)
    app.connect("build-finished", copy_downloads)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
