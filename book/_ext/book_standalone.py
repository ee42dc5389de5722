"""Sphinx extension for one notebook built alone (``dplasso render``): its references to the
book's other chapters.

A notebook page names other chapters with ``{doc}`` (a path relative to its place in the book,
``book/generated/<name>/<name>``, e.g. ``../../p1``) and with ``{ref}`` or ``{numref}`` (a
label another chapter defines). Built alone, Sphinx finds neither and prints the raw target.
Each becomes the chapter's title (a ``{ref}`` to a section: the section's title; a
``{numref}``: "in <chapter title>", since its number is the whole book's), linked to the
published book's page when the render found it, else plain text. The render passes what it
knows of the book as configuration values (:func:`dplasso.reproduce.render.chapter_links`):
``standalone_docname`` (this page's place in the book), ``standalone_chapters`` (docname ->
``{title, href}``) and ``standalone_labels`` (label -> ``{docname, title}``).
"""
from __future__ import annotations

import posixpath

from docutils import nodes


def resolve(app, env, node, contnode):
    """The reference ``node`` as a chapter's title (linked when published), or None to leave it
    to Sphinx."""
    config = app.config
    kind, target = node.get("reftype"), node.get("reftarget", "")
    anchor = ""
    if kind == "doc":
        docname = posixpath.normpath(posixpath.join(
            posixpath.dirname(config.standalone_docname), target))
        title = None
    elif kind in ("ref", "numref", "myst") and target in config.standalone_labels:
        label = config.standalone_labels[target]
        docname, title, anchor = label["docname"], label["title"], f"#{target}"
    else:
        return None
    chapter = config.standalone_chapters.get(docname)
    if chapter is None:
        return None
    if node.get("refexplicit") and kind != "numref":
        text = contnode.astext()
    elif kind == "numref":
        text = f"in “{chapter['title']}”"
    else:
        text = title or chapter["title"]
    if not chapter["href"]:
        return nodes.inline(text, text, classes=["standalone-xref"])
    link = nodes.reference("", "", internal=False, refuri=chapter["href"] + anchor,
                           classes=["standalone-xref"])
    link += nodes.inline(text, text)
    return link


def setup(app):
    app.add_config_value("standalone_docname", "", "env")
    app.add_config_value("standalone_chapters", {}, "env")
    app.add_config_value("standalone_labels", {}, "env")
    app.connect("missing-reference", resolve)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
