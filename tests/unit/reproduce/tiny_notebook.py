"""The tiny jupytext (MyST) notebooks the runner tests execute."""
import textwrap
from pathlib import Path

import yaml

HEADER = """\
---
jupytext:
  text_representation: {extension: .md, format_name: myst}
kernelspec: {name: python3, display_name: Python 3, language: python}
---
"""


def myst_notebook(parameters, code, *, title=None):
    """A notebook source: the header, an optional ``# title``, the parameters cell and one code
    cell (both sources dedented)."""
    heading = f"# {title}\n\n" if title else ""
    return (HEADER + heading
            + "```{code-cell} ipython3\n:tags: [parameters]\n"
            + textwrap.dedent(parameters).strip("\n") + "\n```\n\n"
            + "```{code-cell} ipython3\n" + textwrap.dedent(code).strip("\n") + "\n```\n")


PROJECT_NAMES = ("a", "b")
PROJECT_NOTEBOOK = myst_notebook(
    'value = 1\nfail = False\nprofile = "?"',
    """\
    import json, pathlib
    if fail:
        raise RuntimeError("deliberate failure " + str(value))
    pathlib.Path("result.json").write_text(json.dumps({"value": value, "profile": profile}))
    """)


PROJECT_SCHEMA = {
    "value": {"type": "int", "meaning": "echoed"},
    "fail": {"type": "bool", "meaning": "raise in the kernel"},
    "profile": {"type": "choice", "values": ["ci", "paper"], "settable": False,
                "meaning": "the profile"},
}
"""The parameter schema of :data:`PROJECT_NOTEBOOK` (its ``params/schema.yaml`` entry)."""


def write_schema(root: Path, names) -> None:
    """``params/schema.yaml`` declaring :data:`PROJECT_SCHEMA` for each notebook of ``names``."""
    (root / "params" / "schema.yaml").write_text(
        yaml.safe_dump({"notebooks": {name: PROJECT_SCHEMA for name in names}}))


def set_value(root: Path, value) -> None:
    """Every notebook of :func:`two_notebook_project` at ``value`` in the ``ci`` profile."""
    (root / "params" / "ci.yaml").write_text(
        "".join(f"{n}: {{value: {value}}}\n" for n in PROJECT_NAMES))


def two_notebook_project(root: Path) -> Path:
    """A project of two tiny notebooks, ``a`` and ``b`` (each writes ``result.json``; ``fail``
    makes it raise), ``ci`` profile at ``value = 1``."""
    root = Path(root)
    for folder in ("notebooks", "params", "src/pkg"):
        (root / folder).mkdir(parents=True)
    (root / "src" / "pkg" / "__init__.py").write_text("X = 1\n")
    (root / "constraints.txt").write_text("")
    for name in PROJECT_NAMES:
        (root / "notebooks" / f"{name}.md").write_text(PROJECT_NOTEBOOK)
    (root / "artifacts.yaml").write_text(
        "notebooks:\n"
        + "".join(f"  {n}: {{source: notebooks/{n}.md, title: {n}}}\n" for n in PROJECT_NAMES)
        + "artifacts: []\n")
    (root / "params" / "paper.yaml").write_text("")
    write_schema(root, PROJECT_NAMES)
    set_value(root, 1)
    return root
