"""Generated book pages: the findings at a glance, each chapter's verdict list and the
execution statistics.

Everything on them comes from the registry (``artifacts.yaml``: the paper's words, the verdict
a claim establishes and its one-line reason, the template of our number), the executed notebooks (the numbers are their
glued values, formatted by the template) and the outcomes of the claim tests run on the same
results (``claims.json``, written by ``pytest tests/reproduction --claims-out``). An artifact
shows its registry verdict only when every claim test of it passed; a failing test shows
:data:`FAILED` instead, and an artifact no test ran shows :data:`UNCHECKED`. Each result
sentence of the papers (``paper-sentences.yaml``) is listed with its verdict by the same rule over
the artifacts that test it, or as not tested here.

When the build is not at the paper profile (CI builds ``ci``) and the committed paper record
(:mod:`.paper_record`) is given with its claim outcomes (``claims-paper.json``), a row shows the
paper record's verdict and number first and this build's beside them; a row whose record is
stale shows this build's first and says that the record is stale.
"""
from __future__ import annotations

import ast
import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .registry import NOT_TESTED, SENTENCE_VERDICTS, VERDICTS, Artifact, Registry, Sentence

PAGES_DIR = "pages"
"""Folder of the generated pages inside the published results folder (``book/generated/``)."""
CLAIMS_FILE = "claims.json"
RECORD_CLAIMS_FILE = "claims-paper.json"
"""The claim tests' outcomes on the committed paper record (beside :data:`CLAIMS_FILE`)."""
STALE = "stale record"
FINDINGS_LABEL = "findings"
FAILED = "claim test fails"
UNCHECKED = "not checked"
CHAPTERS = ("P1", "P2", "beyond")
GLUE_MIME = "application/papermill.record/"
_FIELD = re.compile(r"\{([A-Za-z0-9_.-]+)(?::([^{}]*))?\}")


def glued_values(notebook: Path) -> dict[str, object]:
    """The values glued in an executed notebook: Markdown as text, the rest as Python literals."""
    values: dict[str, object] = {}
    for cell in json.loads(Path(notebook).read_text())["cells"]:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if name is None:
                continue
            data = output.get("data", {})
            markdown = data.get(GLUE_MIME + "text/markdown")
            values[name] = markdown if markdown is not None else _literal(
                data.get(GLUE_MIME + "text/plain", ""))
    return values


def _literal(text: str) -> object:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def fill(template: str, values: dict[str, object], *, where: str = "template") -> str:
    """``template`` with each ``{key}`` or ``{key:spec}`` replaced by ``format(values[key], spec)``."""
    def replace(match):
        key, spec = match.group(1), match.group(2) or ""
        if key not in values:
            raise ValueError(f"{where}: glue key {key!r} is not in the executed notebook")
        return format(values[key], spec)

    return _FIELD.sub(replace, template)


def verdict(artifact: Artifact, outcomes: dict[str, dict]) -> str:
    """The registry verdict when every claim test of ``artifact`` passed (and some ran)."""
    outcome = outcomes.get(artifact.id) or {}
    if outcome.get("failed"):
        return FAILED
    if not outcome.get("passed"):
        return UNCHECKED
    return artifact.verdict


def chapter(artifact: Artifact) -> str | None:
    """Which chapter's verdict list shows ``artifact`` (``None``: the findings page only)."""
    if artifact.notebook.startswith("beyond"):
        return "beyond"
    for paper in ("P1", "P2"):
        if artifact.paper == paper or artifact.notebook.startswith(paper.lower() + "-"):
            return paper
    return None


GROUPS = {
    "P1": ("P1", "P1: Sparse private LASSO logistic regression"),
    "P2": ("P2", "P2: Differentially private screening rules"),
    "beyond": ("Beyond the papers", "Beyond the papers"),
    None: ("Data, audits, performance", "Data, privacy audits and performance"),
}
"""The findings page's groups, by :func:`chapter`: (short name for the tally, heading)."""
NOT_ESTABLISHED = f"{FAILED} or {UNCHECKED}"
TALLY_COLUMNS = {"reproduced": "reproduced", "differs, explained": "differs",
                 "not reproduced": "not reproduced", "beyond the papers": "beyond",
                 NOT_ESTABLISHED: "test fails"}
"""The tally's columns: each verdict of :data:`VERDICTS` and the rows none was established
for, with the short header the tally shows."""
REASON_MAX = 160
"""A verdict's reason is one line of at most this many characters."""


@dataclass(frozen=True)
class Measured:
    """One run's number for an artifact: the filled ``ours`` template and the profile that
    made it."""

    text: str
    profile: str


@dataclass(frozen=True)
class PaperRecord:
    """The committed paper record as the findings page reads it: its folder, the claim tests'
    outcomes on it, and the notebooks whose record is stale (notebook -> why)."""

    folder: Path
    outcomes: dict[str, dict]
    stale: dict[str, str]


@dataclass(frozen=True)
class Finding:
    """One row of the findings page: the verdict of the claim tests run on ``profile``'s
    results, its one-line reason, our numbers (the one shown first first) and, when the
    verdict is the paper record's, this build's ``(verdict, profile)`` beside it."""

    artifact: Artifact
    verdict: str
    profile: str
    reason: str
    measured: tuple[Measured, ...]
    build: tuple[str, str] | None = None
    glued: dict[str, object] = field(default_factory=dict, compare=False, repr=False)
    """The glued values the reason and the first number were filled from."""

    @property
    def ours(self) -> str:
        """The number shown first."""
        return self.measured[0].text

    @property
    def group(self) -> str | None:
        """The key of :data:`GROUPS` this row is listed under."""
        return chapter(self.artifact)


def findings(registry: Registry, out_dir: Path, outcomes: dict[str, dict],
             record: PaperRecord | None = None) -> list[Finding]:
    """One :class:`Finding` per registry artifact, in registry order (the paper record's
    verdict first where ``record`` holds a current record and the build is not ``paper``)."""
    rows, runs = [], {}

    def run(folder: Path, name: str):
        if (folder, name) not in runs:
            runs[folder, name] = (glued_values(folder / name / f"{name}.ipynb"),
                                  json.loads((folder / name / "run.json").read_text())["profile"])
        return runs[folder, name]

    for art in registry.artifacts.values():
        for key in ("ours", "reason"):
            if not getattr(art, key):
                raise ValueError(f"artifact {art.id!r} has no {key!r} in the registry")
        where = f"artifact {art.id!r}"
        glued, profile = run(Path(out_dir), art.notebook)
        ours = Measured(fill(art.ours, glued, where=where), profile)
        row_verdict, row_glued, measured, build = verdict(art, outcomes), glued, (ours,), None
        recorded = (record is not None and profile != "paper"
                    and (record.folder / art.notebook / "run.json").is_file())
        if recorded:
            paper_glued, _ = run(record.folder, art.notebook)
            paper = fill(art.ours, paper_glued, where=f"{where} (paper record)")
            if art.notebook in record.stale:
                measured = (ours, Measured(paper, f"paper, {STALE}"))
            else:
                build = (row_verdict, profile)
                row_verdict, row_glued, profile = (verdict(art, record.outcomes), paper_glued,
                                                   "paper")
                measured = (Measured(paper, "paper"), ours)
        reason = _one_line(fill(art.reason, row_glued, where=where), where)
        rows.append(Finding(art, row_verdict, profile, reason, measured, build, row_glued))
    return rows


def _one_line(reason: str, where: str) -> str:
    if len(reason) > REASON_MAX or "\n" in reason:
        raise ValueError(f"{where}: reason must be one line of at most {REASON_MAX} "
                         f"characters, got {len(reason)}")
    return reason


@dataclass(frozen=True)
class SentenceFinding:
    """One result sentence on the findings page: its verdict, the profiles of the runs it rests
    on (empty when no artifact tests it) and its one-line reason."""

    sentence: Sentence
    verdict: str
    profile: str
    reason: str


def sentence_findings(registry: Registry, rows: list[Finding]) -> list[SentenceFinding]:
    """One :class:`SentenceFinding` per result sentence of ``registry``, in its order: the
    sentence's verdict when every artifact that tests it shows its own registry verdict in
    ``rows`` (all its claim tests passed), else :data:`FAILED` (some failed) or
    :data:`UNCHECKED`; :data:`NOT_TESTED` when no artifact tests it. The reason is filled from
    those rows' glued values."""
    by_id = {row.artifact.id: row for row in rows}
    found = []
    for sentence in registry.sentences:
        where = f"sentence {sentence.says[:40]!r}"
        mine = [by_id[art] for art in sentence.artifacts]
        values = {key: value for row in mine for key, value in row.glued.items()}
        if sentence.verdict == NOT_TESTED:
            verdict = NOT_TESTED
        elif all(row.verdict == row.artifact.verdict for row in mine):
            verdict = sentence.verdict
        else:
            verdict = FAILED if any(row.verdict == FAILED for row in mine) else UNCHECKED
        profile = ", ".join(sorted({row.profile for row in mine}))
        reason = _one_line(fill(sentence.reason, values, where=where), where)
        found.append(SentenceFinding(sentence, verdict, profile, reason))
    return found


def tally(rows: list[Finding]) -> dict[str | None, dict[str, int]]:
    """Per group of :data:`GROUPS` (in order, groups without rows left out): how many rows
    have each verdict of :data:`TALLY_COLUMNS`."""
    counts = {}
    for key in GROUPS:
        mine = [row for row in rows if row.group == key]
        if mine:
            counts[key] = {column: sum(_tally_column(row) == column for row in mine)
                           for column in TALLY_COLUMNS}
    return counts


def _tally_column(row: Finding) -> str:
    return row.verdict if row.verdict in VERDICTS else NOT_ESTABLISHED


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", r"\|")


def _beside(row: Finding) -> str:
    return "" if row.build is None else f"; this build: {row.build[0]} ({row.build[1]})"


def verdict_label(row: Finding) -> str:
    """The row's verdict as the page prints it (plain text): with its profile, and this
    build's verdict beside a paper-record verdict."""
    return f"{row.verdict} ({row.profile}){_beside(row)}"


def _verdict_text(row: Finding) -> str:
    return f"**{row.verdict}** ({row.profile}){_beside(row)}"


def _we_find(row: Finding) -> str:
    """Our numbers for the row: the first alone, or each with its profile when there are more."""
    if len(row.measured) == 1:
        return _cell(row.ours)
    return "; ".join(f"{_cell(m.text)} ({m.profile})" for m in row.measured)


def _reason_text(row: Finding) -> str:
    if row.verdict == row.artifact.verdict:
        held = row.artifact.conventions
        return _cell(row.reason + (f" *Holds under:* {held}." if held else ""))
    return (f"*{row.verdict}* on these results, so the registry's reading "
            f"(*{row.artifact.verdict}*) does not stand")


def group_label(key: str | None) -> str:
    """The label of group ``key``'s heading on the findings page."""
    return f"{FINDINGS_LABEL}-{key.lower() if key else 'checks'}"


SENTENCE_COLUMNS = {"reproduced": "reproduced", "differs, explained": "differ",
                    "not reproduced": "not reproduced", NOT_TESTED: NOT_TESTED,
                    NOT_ESTABLISHED: "with a failing or missing claim test"}
"""How the result sentences' count names each verdict of :data:`SENTENCE_VERDICTS` and the
sentences none was established for."""


def sentence_counts(found: list[SentenceFinding]) -> dict[str, int]:
    """How many result sentences have each verdict of :data:`SENTENCE_COLUMNS`."""
    column = [f.verdict if f.verdict in SENTENCE_VERDICTS else NOT_ESTABLISHED for f in found]
    return {key: column.count(key) for key in SENTENCE_COLUMNS}


def sentence_verdict_label(found: SentenceFinding) -> str:
    """A result sentence's verdict as the page prints it (plain text), with the profiles of
    the runs it rests on."""
    return f"{found.verdict} ({found.profile})" if found.profile else found.verdict


def _sentences_section(found: list[SentenceFinding], rows: list[Finding]) -> list[str]:
    """The result sentences of both papers: a one-line count, then the table, folded."""
    labels = {row.artifact.id: row.artifact.label for row in rows}
    counts = ", ".join(f"{n} {SENTENCE_COLUMNS[key]}"
                       for key, n in sentence_counts(found).items() if n)
    lines = [
        f"({FINDINGS_LABEL}-sentences)=",
        "## Every result the papers state",
        "",
        f"{len(found)} sentences of P1's and P2's text state a result: {counts}. Each is quoted, "
        "with the artifacts that test it, in `paper-sentences.yaml`, which also lists every "
        "other sentence of the two texts as not a result (a test keeps the two lists "
        "complete); a verdict shows only when every claim test of those artifacts passed.",
        "",
        f":::{{dropdown}} The {len(found)} result sentences, each with its verdict",
        "~~~{table} Every sentence of P1 and P2 that states a result: the paper's words, the "
        "verdict of the claim tests of the artifacts that test it (or *not tested here*), why, "
        "and those artifacts.",
        f":name: {FINDINGS_LABEL}-sentences-table",
        "",
        "| paper | the paper says | verdict | why | tested by |",
        "|---|---|---|---|---|",
    ]
    for f in found:
        verdict = sentence_verdict_label(f).replace(f.verdict, f"**{f.verdict}**", 1)
        tested = ", ".join(f"{{numref}}`{labels[art]}` (`{art}`)" for art in f.sentence.artifacts)
        lines.append(f"| {f.sentence.paper} | “{_cell(f.sentence.says)}” | {verdict} "
                     f"| {_cell(f.reason)} | {tested or '–'} |")
    return lines + ["~~~", ":::", ""]


def findings_page(rows: list[Finding], sentences: Sequence[SentenceFinding] = ()) -> str:
    """The findings page (MyST Markdown): the tally per paper first, then the rows grouped by
    paper with a one-line reason each, then the papers' result sentences (``sentences``, folded;
    left out when there are none), then every claim in full."""
    profiles = sorted({m.profile for row in rows for m in row.measured})
    counts = tally(rows)
    lines = [
        f"({FINDINGS_LABEL})=",
        "# Findings at a glance",
        "",
        "~~~{table} Verdicts per paper: how many of its claims are *reproduced*, *differ* "
        "(with the cause shown: *differs, explained*) or are *not reproduced*, and how many "
        "checks of ours go *beyond* the papers; *test fails*: a claim test fails on these "
        "results, or none ran.",
        f":name: {FINDINGS_LABEL}-tally",
        "",
        "| | " + " | ".join(TALLY_COLUMNS.values()) + " | all |",
        "|---|" + "---:|" * (len(TALLY_COLUMNS) + 1),
    ]
    for key, by_column in counts.items():
        name = GROUPS[key][0]
        lines.append(f"| {{ref}}`{name} <{group_label(key)}>` | "
                     + " | ".join(str(by_column[c]) for c in TALLY_COLUMNS)
                     + f" | {sum(by_column.values())} |")
    lines.append("| all | " + " | ".join(str(sum(c[col] for c in counts.values()))
                                        for col in TALLY_COLUMNS) + f" | {len(rows)} |")
    lines += [
        "~~~",
        "",
        "Each verdict is the registry's reading of a claim (`artifacts.yaml`), shown only when "
        f"every claim test of that artifact passed on these results (else *{FAILED}*), with "
        "the reason in one line and a link to the table or figure that shows it. "
        + _profiles_sentence(rows, profiles)
        + " The paper's words and our numbers are in "
        f"{{ref}}`the full table <{FINDINGS_LABEL}-full>`"
        + (f"; every result sentence of the two papers, with its verdict, in "
           f"{{ref}}`its own table <{FINDINGS_LABEL}-sentences>`." if sentences else "."),
        "",
    ]
    for key in counts:
        lines += [f"({group_label(key)})=", f"## {GROUPS[key][1]}", "",
                  "| verdict | why |", "|---|---|"]
        for row in rows:
            if row.group == key:
                art = row.artifact
                lines.append(f"| **{row.verdict}** | {_reason_text(row)} "
                             f"({{numref}}`{art.label}`, `{art.id}`) |")
        lines.append("")
    if sentences:
        lines += _sentences_section(list(sentences), rows)
    lines += [
        f"({FINDINGS_LABEL}-full)=",
        "## Every claim in full",
        "",
        "~~~{table} The claims of P1 and P2 and our checks beyond them: the paper's words, "
        "our number and the verdict.",
        f":name: {FINDINGS_LABEL}-table",
        "",
        "| artifact | verdict | the paper says | we find |",
        "|---|---|---|---|",
    ]
    for row in rows:
        art = row.artifact
        says = f"{art.paper}: “{_cell(art.says)}”" if art.says else "–"
        lines.append(f"| `{art.id}`, {{numref}}`{art.label}` | {_verdict_text(row)} | {says} | "
                     f"{_we_find(row)} |")
    lines += ["~~~", ""]
    return "\n".join(lines)


def _profiles(profiles, noun="profile") -> str:
    """The profiles in words: "`ci` profile", or "`ci` and `paper` profiles" with the reason
    a build can have two."""
    names = [f"`{p}`" for p in profiles]
    if len(names) == 1:
        return f"{names[0]} {noun}"
    return (", ".join(names[:-1]) + f" and {names[-1]} {noun}s (a notebook whose parameters "
            "are the same at several profiles keeps its last run's)")


def _profiles_sentence(rows: list[Finding], profiles: list[str]) -> str:
    """Which runs the verdicts and numbers come from."""
    if not any(row.build for row in rows) and not any(
            m.profile.endswith(STALE) for row in rows for m in row.measured):
        return ("This build ran the " + _profiles(profiles, "parameter profile")
                + " (`ci` is the small one continuous integration builds; its verdicts can "
                "differ from the `paper` profile's).")
    build = sorted({row.build[1] for row in rows if row.build}
                   | {m.profile for row in rows for m in row.measured[:1] if not row.build})
    stale = sorted({row.artifact.notebook for row in rows
                    if any(m.profile.endswith(STALE) for m in row.measured)})
    text = ("Verdicts and numbers marked *(paper)* are the committed paper-profile record's "
            "(`book/paper-results/`, one `make book` at the paper profile kept by "
            "`make paper-record`; its claim tests ran on it for this page); *this build* is "
            "the run this book was rendered from, at the " + _profiles(build)
            + ", which reproduces the pipeline at its own sizes.")
    if stale:
        text += (" The paper record of " + ", ".join(f"`{n}`" for n in stale)
                 + f" is a *{STALE}* (its notebook, parameters or the library changed since "
                 "it was made): those rows show this build's verdict.")
    return text


def verdict_list(rows: list[Finding], which: str) -> str:
    """The short verdict list that opens chapter ``which`` (one of :data:`CHAPTERS`)."""
    if which not in CHAPTERS:
        raise ValueError(f"which must be one of {CHAPTERS}, got {which!r}")
    mine = [row for row in rows if row.group == which]
    lines = [":::{admonition} Verdicts at a glance", ":class: tip", ""]
    for row in mine:
        lines.append(f"- {_verdict_text(row)}, {{numref}}`{row.artifact.label}` "
                     f"(`{row.artifact.id}`): {_cell(row.ours)}.")
    lines += ["", f"Every claim, with the paper's words: {{ref}}`{FINDINGS_LABEL}`.", ":::", ""]
    return "\n".join(lines)


def parameter_hash(parameters: dict) -> str:
    """A short hash of one notebook's parameters (the runner's ``run.json`` values)."""
    payload = json.dumps(parameters, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:12]


def execution_page(registry: Registry, out_dir: Path) -> str:
    """Per notebook: profile, wall time, when, commit and parameter hash, from ``run.json``."""
    lines = [
        "# Execution statistics",
        "",
        "How each notebook of this build was executed, from the record the runner "
        "(`dplasso reproduce`) wrote beside it (`run.json`): the parameter profile, the "
        "notebook's own wall time, when it finished, the source commit (`+changes`: with "
        "uncommitted changes to the library or notebooks) and a hash of its parameters "
        "(the same values give the same hash; `dplasso list` prints them). The skip key "
        "also covers the notebook text, the library code and the pins.",
        "",
        "| notebook | profile | wall time (s) | finished | commit | parameter hash | skip key |",
        "|---|---|---:|---|---|---|---|",
    ]
    for name in registry.notebooks:
        record = json.loads((Path(out_dir) / name / "run.json").read_text())
        lines.append(
            f"| {{doc}}`/book/generated/{name}/{name}` | `{record['profile']}` | "
            f"{record['seconds']:.1f} | {record['finished']} | "
            f"`{record.get('commit') or '–'}` | `{parameter_hash(record['parameters'])}` | "
            f"`{record['key'][:12]}` |")
    lines.append("")
    return "\n".join(lines)


def write_pages(registry: Registry, out_dir: Path, claims: Path,
                record: PaperRecord | None = None) -> list[Path]:
    """Write the findings page, the chapter verdict lists and the execution statistics into
    ``out_dir/pages/``; ``claims`` is the claim tests' outcomes file, ``record`` the paper
    record with its outcomes (optional)."""
    outcomes = json.loads(Path(claims).read_text())["artifacts"]
    rows = findings(registry, out_dir, outcomes, record)
    folder = Path(out_dir) / PAGES_DIR
    folder.mkdir(parents=True, exist_ok=True)
    pages = {"findings.md": findings_page(rows, sentence_findings(registry, rows)),
             "execution.md": execution_page(registry, out_dir)}
    for which in CHAPTERS:
        pages[f"verdicts-{which.lower()}.md"] = verdict_list(rows, which)
    written = []
    for name, text in pages.items():
        path = folder / name
        path.write_text(text)
        written.append(path)
    return written
