"""The artifact registry (``artifacts.yaml``), the papers' result sentences
(``paper-sentences.yaml``) and the parameter profiles (``params/*.yaml``)."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import yaml

PROFILES = ("ci", "paper")
REGISTRY_FILE = "artifacts.yaml"
SENTENCES_FILE = "paper-sentences.yaml"
PAPERS = ("P1", "P2", "none")
VERDICTS = ("reproduced", "differs, explained", "not reproduced", "beyond the papers")
"""What an artifact's claim, when its claim tests pass, says of the paper's words."""
NOT_TESTED = "not tested here"
SENTENCE_VERDICTS = ("reproduced", "differs, explained", "not reproduced", NOT_TESTED)
"""What the claim tests of a result sentence's artifacts, when they pass, say of it; or that no
artifact tests it."""
ELISION = " ... "
"""Marks words of a sentence left out of a quote."""


@dataclass(frozen=True)
class Notebook:
    """A papermill-parameterised notebook that produces one or more artifacts."""

    name: str
    source: Path
    title: str


@dataclass(frozen=True)
class Artifact:
    """One table or figure of the book: where it comes from and what claim it must support."""

    id: str
    notebook: str
    label: str
    results: str
    kind: str
    claim: str
    paper: str = "none"
    """``P1``, ``P2`` or ``none`` (a check of ours, beyond the papers)."""
    says: str = ""
    """The paper's words this artifact reproduces (quoted from its text), empty for ``none``."""
    verdict: str = "beyond the papers"
    """One of :data:`VERDICTS`: what the claim establishes about ``says`` when its tests pass."""
    reason: str = ""
    """Why the verdict, in one line (a template like ``ours``)."""
    ours: str = ""
    """Our number, as a template over the notebook's glue keys: ``{key}`` or ``{key:.2f}``."""
    conventions: str = ""
    """P1's artifacts only: the conventions the verdict holds under, this project's, the
    authors' or both (``p1-conventions`` compares them), in a few words."""

    def __post_init__(self):
        if self.paper not in PAPERS:
            raise ValueError(f"artifact {self.id!r}: paper must be one of {PAPERS}, "
                             f"got {self.paper!r}")
        if self.verdict not in VERDICTS:
            raise ValueError(f"artifact {self.id!r}: verdict must be one of {VERDICTS}, "
                             f"got {self.verdict!r}")
        if (self.paper == "none") != (self.verdict == "beyond the papers"):
            raise ValueError(f"artifact {self.id!r}: verdict 'beyond the papers' goes with "
                             f"paper 'none' and only with it (got {self.paper!r}, "
                             f"{self.verdict!r})")
        if (self.paper == "none") == bool(self.says):
            raise ValueError(f"artifact {self.id!r}: says (the paper's words) is required for "
                             "paper P1 or P2 and must be empty for none")
        if (self.paper == "P1") != bool(self.conventions):
            raise ValueError(f"artifact {self.id!r}: conventions (what its verdict holds "
                             "under) is required for paper P1 and only there")


@dataclass(frozen=True)
class Sentence:
    """One sentence (or clauses of it) of a paper's text that states a result, quoted, with the
    artifacts whose claim tests test it and what they say of it, or why none does."""

    paper: str
    """``P1`` or ``P2``."""
    says: str
    """The words quoted exactly, whitespace-normalised; :data:`ELISION` marks words left out
    (every part lies, in order, in one sentence of the paper)."""
    verdict: str
    """One of :data:`SENTENCE_VERDICTS`."""
    reason: str
    """Why the verdict, in one line: a template over the glue keys of the artifacts'
    notebooks like :attr:`Artifact.ours`; for :data:`NOT_TESTED`, why not and what would test
    it (plain text)."""
    artifacts: tuple[str, ...] = ()
    """Ids of the artifacts whose claim tests test it (none for :data:`NOT_TESTED`)."""

    def __post_init__(self):
        where = f"sentence {self.says[:40]!r}"
        if self.paper not in PAPERS[:2]:
            raise ValueError(f"{where}: paper must be one of {PAPERS[:2]}, got {self.paper!r}")
        if self.verdict not in SENTENCE_VERDICTS:
            raise ValueError(f"{where}: verdict must be one of {SENTENCE_VERDICTS}, "
                             f"got {self.verdict!r}")
        if not self.says or " ".join(self.says.split()) != self.says:
            raise ValueError(f"{where}: says must be non-empty and whitespace-normalised")
        if not self.reason or "\n" in self.reason:
            raise ValueError(f"{where}: reason must be one non-empty line")
        if (self.verdict == NOT_TESTED) == bool(self.artifacts):
            raise ValueError(f"{where}: artifacts are required for a verdict and must be empty "
                             f"for {NOT_TESTED!r} (got {list(self.artifacts)}, {self.verdict!r})")

    @property
    def parts(self) -> list[str]:
        """The quoted parts, in order (one unless :data:`ELISION` leaves words out)."""
        return self.says.split(ELISION)


@dataclass(frozen=True)
class Registry:
    """Notebooks and artifacts of a project checkout rooted at ``root``, and the papers'
    result sentences (``sentences``) and the sentences of their text that state none
    (``not_results``: paper -> sentences), with each paper's seed text file name (``seeds``)."""

    root: Path
    notebooks: dict[str, Notebook]
    artifacts: dict[str, Artifact] = field(default_factory=dict)
    sentences: tuple[Sentence, ...] = ()
    not_results: dict[str, tuple[str, ...]] = field(default_factory=dict)
    seeds: dict[str, str] = field(default_factory=dict)

    def params(self, profile: str) -> dict[str, dict]:
        """Per-notebook parameters of ``profile`` (``params/<profile>.yaml``)."""
        if profile not in PROFILES:
            raise ValueError(f"profile must be one of {PROFILES}, got {profile!r}")
        path = self.root / "params" / f"{profile}.yaml"
        data = read_yaml(path) or {}
        unknown = sorted(set(data) - set(self.notebooks))
        if unknown:
            raise ValueError(f"{path} has parameters for unknown notebooks: {unknown}")
        return {name: dict(data.get(name) or {}) for name in self.notebooks}

    def notebooks_for(self, ids: list[str] | None) -> list[str]:
        """Notebook names needed for artifact ids or notebook names ``ids`` (all when empty)."""
        if not ids:
            return list(self.notebooks)
        names: list[str] = []
        for key in ids:
            if key in self.artifacts:
                name = self.artifacts[key].notebook
            elif key in self.notebooks:
                name = key
            else:
                raise ValueError(
                    f"unknown artifact or notebook {key!r}; `dplasso list` shows the known ones"
                )
            if name not in names:
                names.append(name)
        return names

    def results_path(self, artifact_id: str, out_dir: Path) -> Path:
        """Where the results file of ``artifact_id`` lives under an output folder."""
        art = self.artifacts[artifact_id]
        return Path(out_dir) / art.notebook / art.results


def read_yaml(path: Path):
    """The YAML document in ``path``; a ``ValueError`` naming the file and line if it is not
    YAML."""
    try:
        return yaml.safe_load(Path(path).read_text())
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = f", line {mark.line + 1}" if mark else ""
        raise ValueError(f"{path}{line}: not valid YAML "
                         f"({getattr(err, 'problem', None) or err})") from None


def find_root(start: Path | None = None) -> Path:
    """The project root: ``$DPLASSO_ROOT`` or the nearest parent holding ``artifacts.yaml``."""
    if os.environ.get("DPLASSO_ROOT"):
        return Path(os.environ["DPLASSO_ROOT"]).resolve()
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / REGISTRY_FILE).is_file():
            return folder
    raise FileNotFoundError(
        f"no {REGISTRY_FILE} in {here} or its parents; run from the project checkout "
        "or set DPLASSO_ROOT"
    )


def load_registry(root: Path | None = None) -> Registry:
    """Read and validate ``artifacts.yaml`` under ``root`` (default: :func:`find_root`)."""
    root = Path(root) if root is not None else find_root()
    data = read_yaml(root / REGISTRY_FILE)
    notebooks = {
        name: Notebook(name=name, source=root / spec["source"], title=spec["title"])
        for name, spec in data["notebooks"].items()
    }
    artifacts: dict[str, Artifact] = {}
    for entry in data["artifacts"]:
        art = Artifact(**entry)
        if art.id in artifacts:
            raise ValueError(f"duplicate artifact id {art.id!r} in {REGISTRY_FILE}")
        if art.notebook not in notebooks:
            raise ValueError(f"artifact {art.id!r} names unknown notebook {art.notebook!r}")
        artifacts[art.id] = art
    for nb in notebooks.values():
        if not nb.source.is_file():
            raise FileNotFoundError(f"notebook source {nb.source} listed in {REGISTRY_FILE} is missing")
    path = root / SENTENCES_FILE
    sentences, not_results, seeds = (read_sentences(path, artifacts) if path.is_file()
                                     else ((), {}, {}))
    return Registry(root=root, notebooks=notebooks, artifacts=artifacts, sentences=sentences,
                    not_results=not_results, seeds=seeds)


def read_sentences(path: Path, artifacts: dict[str, Artifact]
                   ) -> tuple[tuple[Sentence, ...], dict[str, tuple[str, ...]], dict[str, str]]:
    """The result sentences, the sentences that state none (paper -> sentences) and the seed
    file of each paper in ``path``; every artifact a sentence names must be in ``artifacts``."""
    data = read_yaml(path) or {}
    if set(data) != {"papers", "results"} or set(data["papers"]) != set(PAPERS[:2]):
        raise ValueError(f"{path}: expected 'papers' (P1 and P2) and 'results', "
                         f"got {sorted(data)}")
    seeds, not_results = {}, {}
    for paper, entry in data["papers"].items():
        if set(entry) != {"seed", "not_results"}:
            raise ValueError(f"{path}: paper {paper} needs 'seed' and 'not_results', "
                             f"got {sorted(entry)}")
        seeds[paper] = entry["seed"]
        not_results[paper] = tuple(" ".join(str(text).split()) for text in entry["not_results"])
    sentences = []
    for entry in data["results"]:
        try:
            sentence = Sentence(**{**entry, "artifacts": tuple(entry.get("artifacts") or ())})
        except TypeError as err:
            raise ValueError(f"{path}: {err}") from None
        unknown = [a for a in sentence.artifacts if a not in artifacts]
        if unknown:
            raise ValueError(f"{path}: sentence {sentence.says[:40]!r} names unknown "
                             f"artifacts {unknown}")
        if any((s.paper, s.says) == (sentence.paper, sentence.says) for s in sentences):
            raise ValueError(f"{path}: sentence {sentence.says[:40]!r} is listed twice")
        sentences.append(sentence)
    return tuple(sentences), not_results, seeds
