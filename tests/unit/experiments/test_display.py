"""Book tables from ``dplasso.experiments.display``."""
import pandas as pd
import pytest
from markdown_it import MarkdownIt

from dplasso.experiments.display import FULL_TABLE_SUFFIX, compact_table, not_in_run, table


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


def test_compact_table_shows_its_columns_and_saves_the_whole(tmp_path):
    df = pd.DataFrame({"dataset": ["a", "b"], "ε": [1, 5], "runs": [3, 3],
                       "accuracy": [0.5, 0.75]})
    md = compact_table(df, "t-one", "Caption.", ["dataset", "accuracy"], folder=tmp_path).data
    header = next(line for line in md.splitlines() if line.startswith("|"))
    assert [c.strip() for c in header.strip("|").split("|")] == ["dataset", "accuracy"]
    assert ":name: t-one" in md
    assert "Not shown here: `ε`, `runs`; the full table is `t-one-full.csv`" in md
    saved = pd.read_csv(tmp_path / f"t-one{FULL_TABLE_SUFFIX}")
    assert list(saved.columns) == list(df.columns) and len(saved) == 2


def test_compact_table_refuses_an_unknown_column_and_one_that_hides_nothing(tmp_path):
    df = pd.DataFrame({"dataset": ["a"], "accuracy": [0.5]})
    with pytest.raises(ValueError, match=r"columns: \['auroc'\] not in"):
        compact_table(df, "t", "c", ["dataset", "auroc"], folder=tmp_path)
    with pytest.raises(ValueError, match="every column is shown"):
        compact_table(df, "t", "c", ["dataset", "accuracy"], folder=tmp_path)


def test_a_missing_value_shows_as_n_a_with_its_reason_and_the_other_cells_keep_their_format():
    df = pd.DataFrame({"release": ["Algorithm 1", "split"], "gap sd": [float("nan"), 0.189123],
                       "runs": pd.array([None, 3], dtype="Int64")})
    out = table(df, "t", "A caption.", missing="Algorithm 1 releases no gap").data
    assert _cells(out)[1:] == [["Algorithm 1", "n/a", "n/a"], ["split", "0.189", "3"]]
    assert "A caption. n/a: Algorithm 1 releases no gap." in out and "nan" not in out
    full = table(df.dropna(), "t", "A caption.", missing="Algorithm 1 releases no gap").data
    assert "n/a" not in full  # the reason only where a value is missing


def test_not_in_run_says_what_is_missing_and_why():
    assert not_in_run("Support recovery", "this run has no synthetic family").data == (
        "*Support recovery*: n/a: this run has no synthetic family.")
