"""A run's page leaves out the sentences whose numbers the run did not compute
(``dplasso.reproduce.unglued``): no gap where a glued number would be, the rest of the
paragraph kept, and the text of a run that glued every key (the published book's) unchanged."""
import json
from pathlib import Path

import nbformat
import pytest

from dplasso.reproduce.registry import load_registry
from dplasso.reproduce.unglued import drop_unglued, glued_keys, named_keys, without_unglued

ROOT = Path(__file__).resolve().parents[3]
RECORD = ROOT / "book" / "paper-results"


def test_the_keys_a_text_names_are_those_of_its_glue_roles():
    text = ("{glue:text}`a-b:.3f` and {glue:}`c` beside {glue}`d`, {glue:any}`e`, "
            "{glue:md}`f` and {glue:md}`g:inline`; `h` and {numref}`i` are not glue")
    assert named_keys(text) == ["a-b", "c", "d", "e", "f", "g"]


PARAGRAPH = """\
The L2 reference wins {glue:text}`wins:d` cells. On the synthetic family it keeps
{glue:text}`synthetic-nnz:.1f` nonzeros (e.g. for {glue:text}`synthetic-k:d` true ones, as in
Fig. 2), which is many. At ε = $2.5$ the gap is {glue:text}`gap:.2f`; see
{numref}`a-table`! Does it hold? It does."""


@pytest.mark.parametrize("missing, expected", [
    (set(), PARAGRAPH),
    ({"synthetic-k"}, """\
The L2 reference wins {glue:text}`wins:d` cells. At ε = $2.5$ the gap is {glue:text}`gap:.2f`; see
{numref}`a-table`! Does it hold? It does."""),
    ({"wins", "gap"}, """\
On the synthetic family it keeps
{glue:text}`synthetic-nnz:.1f` nonzeros (e.g. for {glue:text}`synthetic-k:d` true ones, as in
Fig. 2), which is many. Does it hold? It does."""),
])
def test_a_sentence_that_names_a_key_not_glued_goes_and_the_rest_of_its_paragraph_stays(
        missing, expected):
    glued = {"wins", "synthetic-nnz", "synthetic-k", "gap"} - missing
    assert drop_unglued(PARAGRAPH, glued) == expected


DOCUMENT = """\
**What we find [ours]**, in {glue:text}`cells:d` cells:

| against | better | worse |
|---|---|---|
| DP-IGHT | {glue:text}`ight-better:d` | {glue:text}`ight-worse:d` |
| ADMM | {glue:text}`admm-better:d` | {glue:text}`admm-worse:d` |

- **Beats the L0 method.** It does not, in {glue:text}`ight-worse:d` cells.
- **Private ADMM** keeps {glue:text}`admm-nnz:.1f` nonzeros for {glue:text}`k:d` true ones.
  It is dense. On real data it is {glue:text}`admm-better:d` times better.
- A plain item.

```python
x = "{glue:text}`k:d` in code stays. As does this."
```

## Support recovery

On the synthetic family the support is known ({glue:text}`k:d` of {glue:text}`p:d`
features).

**Ours.** The noise grows with slope {glue:text}`k:d`.

The end.
"""


def test_items_rows_and_paragraphs_left_empty_go_with_their_blank_line_and_code_stays():
    glued = {"cells", "ight-better", "ight-worse", "admm-better", "admm-worse", "admm-nnz"}
    assert drop_unglued(DOCUMENT, glued) == """\
**What we find [ours]**, in {glue:text}`cells:d` cells:

| against | better | worse |
|---|---|---|
| DP-IGHT | {glue:text}`ight-better:d` | {glue:text}`ight-worse:d` |
| ADMM | {glue:text}`admm-better:d` | {glue:text}`admm-worse:d` |

- **Beats the L0 method.** It does not, in {glue:text}`ight-worse:d` cells.
- It is dense. On real data it is {glue:text}`admm-better:d` times better.
- A plain item.

```python
x = "{glue:text}`k:d` in code stays. As does this."
```

## Support recovery

The end.
"""
    rows = drop_unglued(DOCUMENT, glued - {"admm-worse", "cells"})
    assert "| ADMM |" not in rows and "| DP-IGHT |" in rows and "What we find" not in rows
    assert "|---|" not in drop_unglued(DOCUMENT, glued - {"admm-worse", "ight-worse"})


def _notebook(glue_synthetic: bool):
    """A tiny executed notebook: a code cell that glues ``n`` always and ``k`` only when
    ``glue_synthetic``, and a Markdown cell that shows both."""
    outputs = [{"output_type": "display_data", "data": {
        "application/papermill.record/text/plain": value},
        "metadata": {"scrapbook": {"name": key, "mime_prefix": "application/papermill.record/"}}}
        for key, value in (("n", "100"), ("k", "5"))[:2 if glue_synthetic else 1]]
    code = nbformat.v4.new_code_cell("glue(...)")
    code.outputs = [nbformat.from_dict(output) for output in outputs]
    return nbformat.v4.new_notebook(cells=[
        code,
        nbformat.v4.new_markdown_cell("There are {glue:text}`n:d` rows. The synthetic family "
                                      "has {glue:text}`k:d` true nonzeros."),
        nbformat.v4.new_markdown_cell("Only {glue:text}`k:d` here.")])


def test_a_notebook_keeps_only_what_it_glued_and_a_cell_left_empty_goes():
    page = without_unglued(_notebook(glue_synthetic=False))
    assert [cell.source for cell in page.cells[1:]] == ["There are {glue:text}`n:d` rows."]
    full = _notebook(glue_synthetic=True)
    sources = [cell.source for cell in full.cells]
    assert [cell.source for cell in without_unglued(full).cells] == sources


@pytest.mark.parametrize("name", sorted(load_registry(ROOT).notebooks))
def test_a_run_that_glued_every_key_keeps_its_text_as_it_is(name):
    """The committed paper record glues every key its text names: its pages, and the book,
    are unchanged."""
    path = RECORD / name / f"{name}.ipynb"
    if not path.is_file():
        pytest.skip(f"no paper record of {name}")
    nb = json.loads(path.read_text())
    glued = glued_keys(nb)
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            assert set(named_keys(source)) <= glued
            assert drop_unglued(source, glued) is source
