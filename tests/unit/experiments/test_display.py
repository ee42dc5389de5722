"""Book tables from ``dplasso.experiments.display``."""
import pandas as pd
from markdown_it import MarkdownIt

from dplasso.experiments.display import table


def _cells(markdown: str) -> list[list[str]]:
    """Rendered cell texts of the table inside a ``{table}`` block, as MyST's parser splits them."""
    body = "\n".join(line for line in markdown.splitlines()
                     if line.startswith("|"))
    tokens = MarkdownIt("commonmark").enable("table").parse(body)
    rows, row = [], None
    for tok in tokens:
        if tok.type == "tr_open":
            row = []
        elif tok.type == "inline" and row is not None:
            row.append(tok.content)
        elif tok.type == "tr_close":
            rows.append(row)
            row = None
    return rows


def test_a_pipe_in_a_text_cell_stays_in_its_cell():
    text = "numeric: 3 features scaled by their max |x_j| (zeros stay zero)"
    df = pd.DataFrame({"name": ["sonar"], "preprocessing": [text], "n": [208]})
    out = table(df, "t", "A caption.").data
    assert _cells(out) == [["name", "preprocessing", "n"], ["sonar", text, "208"]]


def test_a_pipe_in_a_header_and_in_math_reaches_the_cell_as_written():
    df = pd.DataFrame({"$|w|_1$": ["$\\|w\\|_1$"]})
    out = table(df, "t", "A caption.").data
    # The table splitter removes the backslash added before each pipe, so a TeX norm ``\|``
    # reaches MathJax intact.
    assert _cells(out) == [["$|w|_1$"], ["$\\|w\\|_1$"]]


def test_the_frame_passed_in_is_not_changed():
    df = pd.DataFrame({"a": ["x | y"]})
    table(df, "t", "A caption.")
    assert df.loc[0, "a"] == "x | y"
