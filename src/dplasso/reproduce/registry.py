"""The artifact registry (``artifacts.yaml``) and the parameter profiles (``params/*.yaml``)."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import yaml

PROFILES = ("ci", "paper")
REGISTRY_FILE = "artifacts.yaml"
PAPERS = ("P1", "P2", "none")
VERDICTS = ("reproduced", "differs, explained", "not reproduced", "beyond the papers")
"""What an artifact's claim, when its claim tests pass, says of the paper's words."""


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


@dataclass(frozen=True)
class Registry:
    """Notebooks and artifacts of a project checkout rooted at ``root``."""

    root: Path
    notebooks: dict[str, Notebook]
    artifacts: dict[str, Artifact] = field(default_factory=dict)

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
    return Registry(root=root, notebooks=notebooks, artifacts=artifacts)
