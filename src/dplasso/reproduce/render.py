"""A rendered view of one executed notebook: a standalone HTML page beside its results.

A custom run (``dplasso reproduce ... -p``) writes an executed notebook that the book does not
show. :func:`render_notebook` builds that one notebook as a Jupyter Book page, with the book's
own Markdown, figure, table and math settings (so glued numbers, captioned tables and offline
math render as in the book), into ``<folder>/html/<name>.html``. Links to the book's other
chapters do not resolve in a single page; they render as plain text.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

HTML_FOLDER = "html"


def _config(root: Path, title: str) -> dict:
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
                                 for name in ("book_cite", "book_html")},
            "extra_extensions": book["sphinx"]["extra_extensions"],
            "config": {**book["sphinx"]["config"], "suppress_warnings": ["ref", "myst.xref_missing"]},
        },
    }


def render_notebook(notebook: Path, root: Path, *, title: str | None = None) -> Path:
    """Build ``notebook`` (an executed ``.ipynb``) as ``<its folder>/html/<name>.html``.

    The previous rendering, if any, is replaced only once the new one is built.

    Raises
    ------
    FileNotFoundError
        If ``notebook`` is not a file.
    RuntimeError
        If the page build fails (the message ends with the builder's last lines).
    """
    notebook = Path(notebook).resolve()
    if not notebook.is_file() or notebook.suffix != ".ipynb":
        raise FileNotFoundError(f"no executed notebook (.ipynb) at {notebook}")
    target = notebook.parent / HTML_FOLDER
    with tempfile.TemporaryDirectory(prefix="dplasso-render-") as tmp:
        work = Path(tmp)
        shutil.copyfile(notebook, work / notebook.name)
        (work / "_config.yml").write_text(yaml.safe_dump(
            _config(Path(root).resolve(), title or notebook.stem), sort_keys=False))
        done = subprocess.run(
            [str(Path(sys.executable).with_name("jupyter-book")), "build", notebook.name,
             "--config", "_config.yml"],
            cwd=work, capture_output=True, text=True)
        built = work / "_build" / "_page" / notebook.stem / "html"
        if done.returncode or not (built / f"{notebook.stem}.html").is_file():
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-8:])
            raise RuntimeError(f"rendering {notebook} failed:\n{tail}")
        staged = notebook.parent / f".{HTML_FOLDER}.tmp"
        shutil.rmtree(staged, ignore_errors=True)
        shutil.copytree(built, staged)
    shutil.rmtree(target, ignore_errors=True)
    staged.rename(target)
    return target / f"{notebook.stem}.html"
