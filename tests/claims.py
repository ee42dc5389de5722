"""Which artifacts a claim test checks, and the record of claim-test outcomes (``claims.json``)
that the findings page is generated from (``dplasso.reproduce.pages``).

A test in ``tests/reproduction`` checks the artifacts quoted in backticks in its docstring;
without any, those its name spells (``p1_dense_rules`` for ``p1-dense-rules``, longest first,
parameter ids included); without any, those quoted in its module's docstring. A test that names
no artifact (the paper-runtime record's checks) is no claim test; ``test_findings.py``, which
checks the findings page against these outcomes, is run apart (``make pages`` ignores it).

The claim tests run once per set of results: a record carries the digest of everything its
outcomes depend on (:func:`inputs_digest`), and :func:`outcomes_for` (``python
tests/claims.py RESULTS OUT``, what ``make pages`` and ``make book-check`` run) reuses a record
only when that digest is the present one, and runs the tests otherwise.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INPUTS = ("src", "tests", "notebooks", "params", "book", "artifacts.yaml", "constraints.txt",
          "pyproject.toml")
"""What the claim tests read besides the results folder (the library, the tests themselves,
the registry and profiles, the committed records under ``book/``, the pins), without
``book/generated``, hidden entries and ``__pycache__``. OpenML data are fixed by their ids."""
_LEFT_OUT = ROOT / "book" / "generated"
PYTEST_ARGS = ("-m", "book", "tests/reproduction", "-q", "-p", "no:cacheprovider",
               "--ignore=tests/reproduction/test_findings.py",
               "--ignore=tests/reproduction/test_paper_record.py")
"""The claim tests: ``tests/reproduction`` but the findings page's and the record's checks."""
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


def _files(base: Path, top: Path):
    """Every file under ``top`` (or ``top`` itself), sorted, without entries hidden or in
    ``__pycache__`` below ``base`` and, below the checkout, without ``book/generated``."""
    for path in [top] if top.is_file() else sorted(top.rglob("*")):
        parts = path.relative_to(base).parts
        if (path.is_file() and not (base == ROOT and path.is_relative_to(_LEFT_OUT))
                and not any(p.startswith(".") or p == "__pycache__" for p in parts)):
            yield path


def inputs_digest(results: Path, notebooks) -> str:
    """SHA-256 of what the claim tests' outcomes on ``results`` depend on: the Python version,
    :data:`INPUTS`, and every file of each of ``notebooks``' folders under ``results`` (by its
    path inside ``results``, so a copy of a record digests like the record)."""
    digest = hashlib.sha256(sys.version.encode())
    results = Path(results).resolve()
    groups = [(ROOT, ROOT / name) for name in INPUTS]
    groups += [(results, results / name) for name in notebooks]
    for base, top in groups:
        for path in _files(base, top):
            digest.update(f"\0{path.relative_to(base).as_posix()}\0".encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def write(outcomes: dict, path: Path, *, inputs: str, exitstatus: int, failed) -> None:
    """Write the record: the artifacts' outcomes, every failed test (claim test or not), the
    pytest session's exit status and the digest of its inputs taken before its first test."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"python": sys.version.split()[0], "inputs": inputs,
                                "exitstatus": int(exitstatus), "failed": list(failed),
                                "artifacts": outcomes}, indent=2, sort_keys=True))


def _current(path: Path, digest: str) -> dict | None:
    """The record in ``path`` if it was made from inputs with ``digest`` by a session that
    ran to its end (exit status 0 or 1); else None."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError):
        return None
    return data if data.get("inputs") == digest and data.get("exitstatus") in (0, 1) else None


def outcomes_for(results: Path, out: Path, reuse=()) -> dict:
    """The claim tests' record on ``results``, written to ``out``: ``out`` or the first of
    ``reuse`` that is current (same :func:`inputs_digest`), else a new run of the tests.

    Raises
    ------
    RuntimeError
        When the tests did not run to their end (pytest's exit status above 1).
    """
    from dplasso.reproduce.registry import load_registry

    results, out = Path(results).resolve(), Path(out)
    digest = inputs_digest(results, load_registry(ROOT).notebooks)
    for path in (out, *reuse):
        data = _current(path, digest)
        if data is not None:
            if Path(path).resolve() != out.resolve():
                out.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, out)
            print(f"claim tests on {results}: reused {path} (same inputs, "
                  f"sha256 {digest[:12]}); {len(data['failed'])} failed")
            return data
    env = {**os.environ, "DPLASSO_RESULTS": str(results)}
    status = subprocess.run([sys.executable, "-m", "pytest", *PYTEST_ARGS,
                             f"--claims-out={out.resolve()}"], cwd=ROOT, env=env).returncode
    if status > 1:
        raise RuntimeError(f"claim tests on {results} ended with exit status {status}")
    return json.loads(out.read_text())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Run the claim tests on a results folder "
                                     "once: reuse a current record of them, else run them.")
    parser.add_argument("results", help="the results folder (DPLASSO_RESULTS)")
    parser.add_argument("out", help="the record to write (claims.json)")
    parser.add_argument("--reuse", action="append", default=[], metavar="JSON",
                        help="another record to reuse when it is current for these results")
    parser.add_argument("--strict", action="store_true",
                        help="exit status 1 when a test failed (else 0: the page marks it)")
    args = parser.parse_args(argv)
    try:
        data = outcomes_for(Path(args.results), Path(args.out), args.reuse)
    except RuntimeError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.strict and (data["failed"] or data["exitstatus"]):
        print(f"error: claim tests failed on {args.results}: {data['failed']}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
