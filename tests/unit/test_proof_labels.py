"""Every proof label the library cites is a label of the book.

Docstrings (and comments) under ``src/`` cite the book's lemmas, theorems, propositions and
remarks by label, as plain text: "the book's ``lemma-joint-release``", "theorem
``thm-noisy-min-screening``". Sphinx sees few of them (only the API pages' modules are
rendered, and there as literals), so nothing else checks that they resolve. Each cited label
must be defined in a chapter ``book/*.md``, by a sphinx-proof directive's ``:label:`` or a
MyST target ``(label)=``. The check is shown to catch a made-up label.
"""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROOF_LABEL = re.compile(
    r"(?<![\w-])(?:lem|lemma|thm|prop|rem|def|cor)-[a-z0-9]+(?:-[a-z0-9]+)*")
"""A label of the book's proof directives: a kind prefix, then words joined by hyphens."""
DEFINITION = re.compile(r"^:label:[ \t]*(\S+)[ \t]*$|^\(([^)\s]+)\)=[ \t]*$", re.MULTILINE)


def cited_labels(text: str) -> set[str]:
    """The proof labels ``text`` cites."""
    return set(PROOF_LABEL.findall(text))


def defined_labels(text: str) -> set[str]:
    """The labels a MyST chapter ``text`` defines."""
    return {directive or target for directive, target in DEFINITION.findall(text)}


def book_labels() -> set[str]:
    return set().union(*(defined_labels(path.read_text())
                         for path in (ROOT / "book").glob("*.md")))


def missing_labels(sources: dict[str, str], defined: set[str]) -> dict[str, list[str]]:
    """Each label cited in ``sources`` (name -> text) but not ``defined``, with its citers."""
    missing = {}
    for name, text in sources.items():
        for label in cited_labels(text) - defined:
            missing.setdefault(label, []).append(name)
    return missing


def library_sources() -> dict[str, str]:
    return {str(path.relative_to(ROOT)): path.read_text()
            for path in sorted((ROOT / "src").rglob("*.py"))}


def test_every_cited_proof_label_is_defined_in_the_book():
    sources = library_sources()
    assert sum(len(cited_labels(text)) for text in sources.values()) >= 20  # the scan reads
    assert missing_labels(sources, book_labels()) == {}


def test_the_book_defines_the_labels_of_its_proof_directives_and_targets():
    chapter = ("(proofs-counts)=\n# Counts\n\n```{prf:lemma} Joint release\n"
               ":label: lemma-joint-release\n\nText.\n```\n")
    assert defined_labels(chapter) == {"proofs-counts", "lemma-joint-release"}


def test_a_made_up_label_is_reported_with_the_file_citing_it():
    sources = {"src/dplasso/x.py": '"""As the book\'s ``lemma-made-up`` shows, and '
                                   '``thm-noisy-min-screening``."""'}
    assert missing_labels(sources, book_labels()) == {"lemma-made-up": ["src/dplasso/x.py"]}
