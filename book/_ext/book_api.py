"""Sphinx extension: the API reference's docstrings, as autodoc and napoleon render them.

The API pages (``book/api/``) document each object once, in the module that defines it.

- **Cross-references resolve as Python resolves the name.** Docstrings name objects as their
  own module sees them: ``:func:`split_share``` where the module imported it,
  ``:class:`~dplasso.data.PublicRangeScaler``` by a package's public path. A reference Sphinx
  cannot find by its name is looked up in Python (in the class and the module it was written
  in, the packages above that module, then as an absolute path) and resolved to the
  documented entry that holds that same object under the same name. A reference to an object
  no page documents stays missing, which the book's build (``-n -W``) fails on.
- **Proof labels link to their proofs.** Docstrings cite the book's lemmas and theorems as
  literals ("the book's ``lemma-threshold``", "theorem ``thm-split-screening``"); on these
  pages each becomes a ``prf:ref`` to it, which reads "Lemma 12" (a kind word before the
  literal is dropped), and a label the book does not define fails the build
  (``tests/unit/test_proof_labels.py`` checks every module's labels, rendered or not).
- **Footnotes stay apart.** Numbered references (``[1]_``, ``.. [1]``) restart in every
  docstring; on one page they would collide, so each docstring's become auto-numbered
  footnotes of its own.
- **A constant's docstring is text.** Napoleon reads the first line of the docstring of a
  constant or a property as ``type: description``; a colon in its first sentence would become
  a type. Such a docstring is opened with an empty comment, which napoleon takes as the
  description.
- **Generated members are left out**: scikit-learn's metadata-request methods
  (``set_fit_request`` and its kind, with references into scikit-learn's own documentation)
  and a named tuple's field aliases ("Alias for field number 0"; the class's "Attributes"
  section describes the fields).
"""
from __future__ import annotations

import importlib
import re

from sphinx.util.nodes import make_refnode

_FOOTNOTE = re.compile(r"^(\s*\.\. )\[(\d+)\]|\[(\d+)\]_")
_PROOF_LITERAL = re.compile(
    r"(?:\b(?:lemma|theorem|proposition|remark|definition|corollary)\s+)?"
    r"``((?:lem|lemma|thm|prop|rem|def|cor)-[a-z0-9]+(?:-[a-z0-9]+)*)``", re.IGNORECASE)
_FIELD_COLON = re.compile(r"(?<!:):(?!:)")
_INLINE_MARKUP = re.compile(r"(:\w+:`[^`]*`|``[^`]*``|`[^`]*`)")


def python_object(path):
    """The object at the dotted ``path`` (a ``dplasso`` module or an attribute of one), or
    None."""
    parts = path.split(".")
    if parts[0] != "dplasso":
        return None
    for end in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:end]))
        except ImportError:
            continue
        for name in parts[end:]:
            obj = getattr(obj, name, None)
            if obj is None:
                return None
        return obj
    return None


class ResolveByObject:
    """``missing-reference`` handler: the documented entry of the Python object named."""

    def __init__(self):
        self._size, self._names = -1, {}

    def documented(self, domain, obj, name):
        """The documented full names of ``obj`` whose last component is ``name``."""
        if self._size != len(domain.objects):  # read once the domain is complete
            self._names = {}
            for full, entry in domain.objects.items():
                found = None if entry.aliased else python_object(full)
                if found is not None:
                    key = (id(found), full.rpartition(".")[2])
                    self._names.setdefault(key, []).append(full)
            self._size = len(domain.objects)
        return self._names.get((id(obj), name), [])

    def __call__(self, app, env, node, contnode):
        if node.get("refdomain") != "py":
            return None
        target = node["reftarget"]
        module, cls = node.get("py:module") or "", node.get("py:class")
        candidates = [f"{module}.{cls}.{target}"] if module and cls else []
        while module:  # the module, then each package above it
            candidates.append(f"{module}.{target}")
            module = module.rpartition(".")[0]
        candidates.append(target)
        domain = env.get_domain("py")
        kinds = domain.objtypes_for_role(node["reftype"]) or []
        for candidate in candidates:
            obj = python_object(candidate)
            if obj is None:
                continue
            names = [name for name in self.documented(domain, obj, target.rpartition(".")[2])
                     if domain.objects[name].objtype in kinds]
            if len(names) == 1:
                entry = domain.objects[names[0]]
                return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id,
                                    contnode, names[0])
        return None


def link_proofs_and_separate_footnotes(app, what, name, obj, options, lines):
    """Link each cited proof label, and give the docstring's numbered footnotes labels of
    its own (after napoleon)."""
    key = name.replace(".", "-")
    for i, line in enumerate(lines):
        line = _PROOF_LITERAL.sub(r":prf:ref:`\1`", line)
        lines[i] = _FOOTNOTE.sub(
            lambda m: (f"{m[1]}[#{key}-{m[2]}]" if m[1] else f"[#{key}-{m[3]}]_"), line)


def protect_first_sentence(app, what, name, obj, options, lines):
    """Open the docstring of a constant or property with an empty comment when napoleon
    would read a type off its first line (before napoleon)."""
    if what not in ("data", "attribute", "property") or not lines:
        return
    first = _INLINE_MARKUP.sub("", next((line for line in lines if line.strip()), ""))
    if _FIELD_COLON.search(first.rstrip().rstrip(":")):
        lines[:0] = ["..", ""]


def skip_generated_members(app, what, name, obj, skip, options):
    """Leave out the members of a documented class that its machinery generates."""
    if what == "class" and (getattr(obj, "__module__", "").startswith("sklearn.")
                            or (obj.__doc__ or "").startswith("Alias for field number")):
        return True
    return None


def setup(app):
    app.connect("missing-reference", ResolveByObject())
    app.connect("autodoc-process-docstring", protect_first_sentence, priority=400)
    app.connect("autodoc-process-docstring", link_proofs_and_separate_footnotes, priority=600)
    app.connect("autodoc-skip-member", skip_generated_members)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
