"""Which artifacts a claim test checks, and the record of claim-test outcomes (``claims.json``)
that the findings page is generated from (``dplasso.reproduce.pages``).

A test in ``tests/reproduction`` checks the artifacts quoted in backticks in its docstring;
without any, those its name spells (``p1_dense_rules`` for ``p1-dense-rules``, longest first,
parameter ids included); without any, those quoted in its module's docstring. A test that names
no artifact (the paper-runtime record's checks) is no claim test; ``test_findings.py``, which
checks the findings page against these outcomes, is run apart (``make pages`` ignores it).
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

_QUOTED = re.compile(r"`([A-Za-z0-9-]+)`")


def _quoted(text: str | None, ids) -> list[str]:
    return [m for m in dict.fromkeys(_QUOTED.findall(text or "")) if m in ids]


def _spelled(name: str, ids) -> list[str]:
    found, rest = [], name
    for art in sorted(ids, key=len, reverse=True):
        spelled = art.replace("-", "_")
        if re.search(rf"(?<![A-Za-z0-9]){re.escape(spelled)}(?![A-Za-z0-9])", rest):
            found.append(art)
            rest = rest.replace(spelled, "#")
    return sorted(found, key=list(ids).index)


def claim_artifacts(item, ids) -> list[str]:
    """The artifact ids (of ``ids``) that test ``item`` checks, by the rules above."""
    doc = getattr(getattr(item, "function", None), "__doc__", None)
    return (_quoted(doc, ids) or _spelled(item.name, ids)
            or _quoted(getattr(item.module, "__doc__", None), ids))


def record(outcomes: dict, item, report, ids) -> None:
    """Add one test phase's outcome to ``outcomes`` (artifact -> passed/failed node ids)."""
    if report.when != "call" and not report.failed and not report.skipped:
        return
    state = "failed" if report.failed else "skipped" if report.skipped else "passed"
    for art in claim_artifacts(item, ids):
        lists = outcomes.setdefault(art, {"passed": [], "failed": [], "skipped": []})
        if item.nodeid not in lists[state]:
            lists[state].append(item.nodeid)


def write(outcomes: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"python": sys.version.split()[0], "artifacts": outcomes},
                               indent=2, sort_keys=True))
