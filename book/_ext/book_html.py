"""Sphinx extension for the book's HTML: each page loads each inline script once.

sphinx-thebe registers its inline configuration script (``const THEBE_JS_URL = ...``) through
``app.add_js_file(None, body=...)`` after the builder was initialised; Sphinx 7 then lists it
twice (once with ``filename=None``, once with ``''``), and the second ``const`` declaration is a
JavaScript error on every page. Duplicates are dropped when each page is rendered.
"""
from __future__ import annotations


def _script_key(script) -> tuple:
    attributes = {k: v for k, v in script.attributes.items() if k != "priority"}
    return str(script.filename or ""), tuple(sorted(attributes.items()))


def drop_duplicate_scripts(app, pagename, templatename, context, doctree) -> None:
    """Keep the first of the page's scripts that share a source and attributes."""
    seen, unique = set(), []
    for script in context.get("script_files", []):
        key = _script_key(script) if hasattr(script, "attributes") else (str(script), ())
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


def setup(app):
    app.connect("html-page-context", drop_duplicate_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
