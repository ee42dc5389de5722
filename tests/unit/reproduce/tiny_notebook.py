"""The tiny jupytext (MyST) notebooks the runner tests execute."""
import textwrap

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
