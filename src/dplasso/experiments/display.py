"""Showing results in the book: labelled tables and atomic results files."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
from IPython.display import Markdown


MISSING = "n/a"
"""What a table shows for a missing value (NaN or None), never a raw "nan"."""


def table(df: pd.DataFrame, label: str, caption: str, *, floatfmt: str = ".3g",
          missing: str | None = None) -> Markdown:
    """A numbered, captioned book table: a MyST ``{table}`` block named ``label``.

    The book renders notebook Markdown output as MyST (``nb_render_markdown_format: myst``), so
    the table gets a number, a caption and a label that ``{numref}`` can point at. A ``|`` in a
    header or text cell is escaped, so it shows as itself instead of ending the cell. A missing
    value (NaN or None) shows as :data:`MISSING`; ``missing`` says why, after the caption
    ("n/a: ..."), when the table has one.
    """
    shown = _escape_pipes(df)
    gaps = shown.isna()
    if gaps.to_numpy().any():
        shown = shown.astype({c: object for c in shown.columns[gaps.any()]})
        shown = shown.where(~gaps, None)
        if missing:
            caption = f"{caption} {MISSING}: {missing}."
    body = shown.to_markdown(index=False, floatfmt=floatfmt, missingval=MISSING)
    # A tilde fence: a backtick fence may not have backticks (inline code) in its caption.
    return Markdown(f"~~~{{table}} {caption}\n:name: {label}\n\n{body}\n~~~\n")


def not_in_run(what: str, reason: str) -> Markdown:
    """The sentence that stands where a table or figure of ``what`` would be when the run has
    not computed it: "*what*: n/a: reason." (``reason`` says what the run lacks and how to ask
    for it)."""
    return Markdown(f"*{what}*: {MISSING}: {reason}.")


FULL_TABLE_SUFFIX = "-full.csv"
"""A compact table's whole is saved as ``<label>-full.csv`` beside the notebook's results;
the book links that file under the table (``book/_ext/book_artifacts.py``)."""


def compact_table(df: pd.DataFrame, label: str, caption: str, columns, *,
                  folder: str | os.PathLike = ".", floatfmt: str = ".3g",
                  missing: str | None = None) -> Markdown:
    """A book table of ``columns`` of ``df`` only (the ones a reader decides by), so that it
    fits the page; all of ``df`` is saved as ``<folder>/<label>-full.csv`` and the caption
    names the columns left out and that file.

    Raises
    ------
    ValueError
        When ``columns`` names a column ``df`` lacks, or leaves nothing out.
    """
    columns = list(columns)
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"columns: {missing} not in the table's columns {list(df.columns)}")
    rest = [c for c in df.columns if c not in columns]
    if not rest:
        raise ValueError("columns: every column is shown; use table() for a table that fits")
    path = save_atomic(df, Path(folder) / f"{label}{FULL_TABLE_SUFFIX}")
    note = (f" Not shown here: {', '.join(f'`{c}`' for c in rest)}; the full table is "
            f"`{path.name}` (linked below).")
    return table(df[columns], label, caption + note, floatfmt=floatfmt, missing=missing)


def _escape_pipes(df: pd.DataFrame) -> pd.DataFrame:
    def escape(value):
        return value.replace("|", r"\|") if isinstance(value, str) else value

    out = df.rename(columns=escape)
    for i in range(out.shape[1]):
        if pd.api.types.is_object_dtype(out.dtypes.iloc[i]) or pd.api.types.is_string_dtype(
                out.dtypes.iloc[i]):
            out.iloc[:, i] = out.iloc[:, i].map(escape)
    return out


def save_atomic(obj, path: str | os.PathLike) -> Path:
    """Write a DataFrame (``.csv``) or a JSON-serialisable object (``.json``) atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    if path.suffix == ".csv":
        obj.to_csv(tmp, index=False)
    elif path.suffix == ".json":
        tmp.write_text(json.dumps(obj, indent=2, default=float))
    else:
        raise ValueError(f"results file must end in .csv or .json, got {path.name}")
    os.replace(tmp, path)
    return path
