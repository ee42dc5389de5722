"""A run's page without the sentences whose numbers the run did not compute.

A notebook's Markdown cells show its computed numbers with myst-nb's glue roles
(``{glue}`key```, ``{glue:}``, ``{glue:any}``, ``{glue:text}`key:format```,
``{glue:md}`key```). A run that lacks some data (a custom run without the synthetic family, a
table it was not asked for) glues none of that data's keys, and a page built from it would
show a gap where each number was. :func:`drop_unglued` drops every sentence that names a key
the run did not glue, keeping the rest of its paragraph or list item; a paragraph or item
left empty (or with only its bold lead-in) goes, and so does a table row (a table left with
no row goes whole). Text whose every key was glued is returned as it is, so a page of a run
that computed everything (the published book's) is unchanged. Only what is outside fenced
blocks (code, directives) is read.
"""
from __future__ import annotations

import re

__all__ = ["drop_unglued", "glued_keys", "named_keys", "without_unglued"]

_ROLE = re.compile(r"\{glue(?::(?P<kind>[\w-]*))?\}`(?P<content>[^`]*)`")
_FENCE = re.compile(r"^\s*(?P<mark>`{3,}|~{3,}|:{3,})")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_PROTECTED = re.compile(r"`[^`]*`|\$\$.*?\$\$|\$[^$]*\$", re.S)
_END = re.compile(r"[.!?][)\]*_\"”’']*(?P<space>\s+)(?=\S)")
_ABBREVIATION = re.compile(r"(?:\b(?:e\.g|i\.e|cf|vs|al|Fig|Eq|resp|approx|No))\.$")
_LEAD_IN = re.compile(r"^\s*(?:\*\*[^*]+\*\*|__[^_]+__|\*[^*]+\*|_[^_]+_)\s*$")


def glued_keys(nb) -> set[str]:
    """The keys an executed notebook (an ``nbformat`` node or its JSON dict) glued: the
    ``scrapbook`` names in its code cells' output metadata."""
    return {output["metadata"]["scrapbook"]["name"]
            for cell in nb["cells"] if cell["cell_type"] == "code"
            for output in cell.get("outputs", [])
            if "scrapbook" in output.get("metadata", {})}


def named_keys(text: str) -> list[str]:
    """The glue keys ``text`` names, in order (``{glue:text}`key:.2f``` names ``key``)."""
    keys = []
    for match in _ROLE.finditer(text):
        content = match["content"]
        if match["kind"] in ("text", "md") and ":" in content:
            content = content.rsplit(":", 1)[0]
        keys.append(content.strip())
    return keys


def _missing(text: str, glued: set[str]) -> bool:
    return any(key not in glued for key in named_keys(text))


def _sentences(text: str) -> list[str]:
    """``text`` cut after each sentence (each piece keeps the space that follows it): at a
    ``.``, ``!`` or ``?`` (closing marks after it allowed) and a space, outside code, roles
    and math, unless the next word starts lower-case or the period ends an abbreviation."""
    mask = _PROTECTED.sub(lambda m: "x" * len(m.group()), text)
    pieces, start = [], 0
    for end in _END.finditer(mask):
        after = end.end()
        if mask[after].islower() or _ABBREVIATION.search(mask[:end.start() + 1]):
            continue
        pieces.append(text[start:after])
        start = after
    return pieces + [text[start:]]


def _kept(text: str, glued: set[str]) -> str:
    """``text`` (a paragraph or a list item's content) without its sentences that name a key
    not glued; empty when nothing but a lead-in is left."""
    kept = [piece for piece in _sentences(text) if not _missing(piece, glued)]
    if all(_LEAD_IN.match(piece) or not piece.strip() for piece in kept):
        return ""
    return "".join(kept).rstrip()


def _unit(lines: list[str], glued: set[str]) -> list[str]:
    """One paragraph or list item (its first line holds the marker) without its unglued
    sentences: its lines, or none when nothing is left."""
    text = "\n".join(lines)
    if not _missing(text, glued):
        return lines
    marker = _ITEM.match(lines[0])
    head = marker.group() if marker else ""
    kept = _kept(text[len(head):], glued)
    return (head + kept.lstrip()).split("\n") if kept else []


def _table(lines: list[str], glued: set[str]) -> list[str]:
    """A pipe table without its rows that name a key not glued; none when its header does or
    no row is left."""
    if _missing("\n".join(lines[:2]), glued):
        return []
    rows = [line for line in lines[2:] if not _missing(line, glued)]
    return lines[:2] + rows if rows or len(lines) == 2 else []


def _block(lines: list[str], glued: set[str]) -> list[str]:
    """A block of non-blank lines (paragraphs, headings, list items or a table)."""
    if lines[0].lstrip().startswith("|"):
        return _table(lines, glued)
    out, unit = [], []
    for line in lines:
        if line.lstrip().startswith("#") or _ITEM.match(line):
            out += _unit(unit, glued) if unit else []
            unit = []
            if line.lstrip().startswith("#"):
                out.append(line)
                continue
        unit.append(line)
    return out + (_unit(unit, glued) if unit else [])


def drop_unglued(markdown: str, glued: set[str]) -> str:
    """``markdown`` without its sentences (and table rows) that name a glue key not in
    ``glued`` (the module docstring says how); the very same text when it names none."""
    if not _missing(markdown, glued):
        return markdown
    out, block, fence, dropped = [], [], None, False

    def flush():
        nonlocal block, dropped
        kept = _block(block, glued) if block else []
        dropped, block = bool(block) and not kept, []
        out.extend(kept)

    for line in markdown.split("\n"):
        if fence is not None:  # inside a fenced block: as it is
            out.append(line)
            if line.strip().startswith(fence) and set(line.strip()) == {fence[0]}:
                fence = None
            continue
        opening = _FENCE.match(line)
        if opening or not line.strip():
            flush()
            if not opening and dropped and (not out or not out[-1].strip()):
                continue  # a dropped block's blank line goes with it
            out.append(line)
            fence = opening["mark"] if opening else None
            continue
        block.append(line)
    flush()
    trailing = len(markdown) - len(markdown.rstrip("\n"))
    return "\n".join(out).rstrip("\n") + "\n" * trailing


def without_unglued(nb):
    """The executed notebook ``nb`` (an ``nbformat`` node, changed in place and returned)
    with every Markdown cell through :func:`drop_unglued`; a cell left empty goes."""
    glued = glued_keys(nb)
    cells = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = drop_unglued(cell.source, glued)
            if not cell.source.strip():
                continue
        cells.append(cell)
    nb.cells = cells
    return nb
