"""Author-year citations that tell two papers of the same authors and year apart.

Both papers this book reproduces are "Khanna et al., 2023" in plain author-year style. An entry
of ``book/references.bib`` may carry a ``shorthand`` field (biblatex's name for a citation
label); this style prints it after the year: "[Khanna et al., 2023 (P1)]". Entries without one
are cited as in sphinxcontrib-bibtex's ``author_year`` style. Selected in ``_config.yml`` as
``bibtex_reference_style: author_year_shorthand``.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

from pybtex.style.template import field, first_of, join, node, optional
from sphinxcontrib.bibtex.plugin import register_plugin
from sphinxcontrib.bibtex.style.referencing.author_year import AuthorYearReferenceStyle
from sphinxcontrib.bibtex.style.referencing.basic_author_year import (
    BasicAuthorYearParentheticalReferenceStyle,
    BasicAuthorYearTextualReferenceStyle,
)
from sphinxcontrib.bibtex.style.referencing.extra_year import ExtraYearReferenceStyle
from sphinxcontrib.bibtex.style.template import join2, post_text, pre_text, reference

NAME = "author_year_shorthand"


@node
def year_shorthand(children, data):
    """The entry's year, then its ``shorthand`` in parentheses when it has one."""
    assert not children
    return join[
        first_of[optional[field("year")], "n.d."],
        optional[" (", field("shorthand", raw=True), ")"],
    ].format_data(data)


class _Parenthetical(BasicAuthorYearParentheticalReferenceStyle):
    def inner(self, role_name):
        return join2(sep1=self.pre_text_sep, sep2=self.post_text_sep)[
            pre_text,
            reference[join(sep=self.author_year_sep)[
                self.person.author_or_editor_or_title(full="s" in role_name), year_shorthand]],
            post_text,
        ]


class _Textual(BasicAuthorYearTextualReferenceStyle):
    def inner(self, role_name):
        return join(sep=self.text_reference_sep)[
            self.person.author_or_editor_or_title(full="s" in role_name),
            join[self.bracket.left,
                 join2(sep1=self.pre_text_sep, sep2=self.post_text_sep)[
                     pre_text, reference[year_shorthand], post_text],
                 self.bracket.right],
        ]


class _Year(ExtraYearReferenceStyle):
    def inner(self, role_name):
        return reference[year_shorthand]


@dataclass
class AuthorYearShorthandReferenceStyle(AuthorYearReferenceStyle):
    """``author_year`` with each entry's ``shorthand`` after the year."""

    def __post_init__(self):
        super().__post_init__()
        replace = {BasicAuthorYearParentheticalReferenceStyle: _Parenthetical,
                   BasicAuthorYearTextualReferenceStyle: _Textual,
                   ExtraYearReferenceStyle: _Year}
        for i, style in enumerate(self.styles):
            new = replace.get(type(style))
            if new is not None:
                self.styles[i] = new(**{f.name: getattr(style, f.name)
                                        for f in fields(style) if f.init})
        self.role_style = {name: style for style in self.styles for name in style.role_names()}


def setup(app):
    register_plugin("sphinxcontrib.bibtex.style.referencing", NAME,
                    AuthorYearShorthandReferenceStyle)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
