"""Sphinx extension: what a reader needs beside each artifact, generated from the registry.

- Under every table and figure of a notebook page, the one command that reproduces it at the
  profile this book was built with (:func:`reproduce_command`, runnable as printed) for a
  registry artifact, with a link to its results file (every run, as CSV or JSON), and the same
  with the notebook's name for the page's other tables and figures.
- At the top of every notebook page, downloads of the executed notebook, its jupytext source and
  its results files. They are copied into the HTML build (``downloads/<notebook>/``) and linked
  by relative paths, so they work from ``file://`` with no server.

The profile of each notebook is read from the runner's ``run.json`` beside it.
"""
from __future__ import annotations

import functools
import json
import shutil
from pathlib import Path, PurePosixPath

from docutils import nodes

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
    depth = len(PurePosixPath(docname).parts) - 1
    return "../" * depth + target


def _download_line(root: Path, docname: str, name: str, files: list[Path]) -> nodes.paragraph:
    para = nodes.paragraph(classes=["artifact-downloads"])
    para += nodes.strong(text="Download: ")
    labels = ["executed notebook (.ipynb)", "jupytext source (.md)"]
    for i, path in enumerate(files):
        if i:
            para += nodes.Text(" · ")
        label = labels[i] if i < len(labels) else path.name
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


def _command(target: str, profile: str, docname: str, results: str | None) -> nodes.paragraph:
    para = nodes.paragraph(classes=["artifact-command"])
    para += nodes.Text("Reproduce (from the checkout): ")
    para += nodes.literal(text=reproduce_command(target, profile))
    para += nodes.Text(" (add ")
    para += nodes.literal(text="-p name=value")
    para += nodes.Text(" to change a parameter; ")
    para += nodes.literal(text=".venv/bin/dplasso list")
    para += nodes.Text(" shows them).")
    if results is not None:
        para += nodes.Text(" Every run: ")
        uri = _relative(docname, f"{DOWNLOADS}/{results}")
        para += nodes.reference(Path(results).name, Path(results).name, refuri=uri,
                                internal=False)
        para += nodes.Text(".")
    return para


def annotate(app, doctree, docname) -> None:
    """Add the downloads to a notebook page and a command under each of its tables and
    figures."""
    root = Path(app.srcdir)
    registry = load_registry(root)
    parts = PurePosixPath(docname).parts
    if len(parts) != 4 or parts[:2] != ("book", "generated") or parts[2] != parts[3]:
        return
    name = parts[2]
    if name not in registry.notebooks:
        return
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is not None:
        files = _notebook_files(root, name, registry.notebooks[name].source)
        title = next(iter(section.findall(nodes.title)))
        section.insert(section.index(title) + 1, _download_line(root, docname, name, files))
    labels = {art.label.lower(): art for art in registry.artifacts.values()
              if art.notebook == name}
    profile = _profile(root, name)
    for node in list(doctree.findall(lambda n: isinstance(n, (nodes.table, nodes.figure)))):
        found = [labels[i] for i in node.get("ids", []) if i in labels]
        command = (_command(found[0].id, profile, docname, f"{name}/{found[0].results}")
                   if found else _command(name, profile, docname, None))
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
