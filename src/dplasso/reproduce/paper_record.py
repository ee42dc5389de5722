"""The committed paper record: every notebook's paper-profile run, kept in the repository.

``make book`` executes every notebook at the ``paper`` profile into ``book/generated/``;
:func:`write_record` (``dplasso record``, run by ``make paper-record``) then copies each
notebook's folder (the executed notebook, its results files and ``run.json``) into
``book/paper-results/<notebook>/``. A record is *current* when its ``run.json`` holds the
skip key the runner would compute now for a paper-profile run (the notebook text, its
parameters, the library modules its code can import, the pins:
:func:`~dplasso.reproduce.runner.run_inputs`), so a change to any of them makes it *stale*
(:func:`stale_records`, which names what changed); the findings page says so and a test
fails. A change to a library module no notebook's code reaches leaves every record current.
:func:`restore_record` copies the record back into the book's results folder, with the
run-time table the book includes rendered from it, so the book renders with paper-profile
numbers without executing anything (``make book-record``), on a fresh clone too.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from .record import LAST_RUN_FILE, RECORD_DIR, RUN_FILE, read_record, write_runtimes
from .registry import Registry
from .runner import KERNEL_LOG, changed_inputs, notebook_inputs, plan, run_key, run_lock

__all__ = ["RECORD_DIR", "restore_record", "stale_records", "write_record"]
PROFILE = "paper"
_SKIPPED = ("html", KERNEL_LOG)
"""Entries of a notebook's results that are not part of its record (rendered pages, the
kernel's log)."""


def stale_records(registry: Registry, record_dir: Path | None = None) -> dict[str, str]:
    """Notebook -> why its record is missing or stale (empty when every record is current)."""
    record_dir = Path(record_dir) if record_dir else registry.root / RECORD_DIR
    problems = {}
    for name in registry.notebooks:
        folder = record_dir / name
        record = read_record(folder)
        if record is None or not (folder / f"{name}.ipynb").is_file():
            problems[name] = f"no record in {folder}"
        elif record.get("profile") != PROFILE:
            problems[name] = f"recorded at profile {record.get('profile')!r}, not {PROFILE!r}"
        else:
            inputs = notebook_inputs(registry, name, plan(registry, [name], PROFILE, {})[name])
            commit = record.get("commit") or "?"
            if record.get("key") != run_key(inputs):
                problems[name] = (
                    f"stale: {changed_inputs(record['inputs'], inputs)} changed since commit "
                    f"{commit}" if record.get("inputs") else
                    f"stale: recorded at commit {commit} under an older key")
    return problems


def _copy_folder(source: Path, target: Path) -> None:
    """Replace ``target`` by a copy of ``source`` (without :data:`_SKIPPED` and hidden
    entries), written beside it first so that an interrupted copy leaves the old one whole."""
    partial = target.with_name(f".{target.name}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    shutil.copytree(source, partial, ignore=lambda folder, names: [
        n for n in names if n.startswith(".") or (Path(folder) == source and n in _SKIPPED)])
    old = target.with_name(f".{target.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        target.rename(old)
    partial.rename(target)
    shutil.rmtree(old, ignore_errors=True)


def write_record(registry: Registry, generated: Path,
                 record_dir: Path | None = None) -> list[str]:
    """Copy every notebook's paper-profile run from ``generated`` into the record.

    Raises
    ------
    ValueError
        When a notebook has no run in ``generated``, a run at another profile, or a run that
        is not current (made before the last change to its inputs): a record is one complete
        paper run of the present code, never a mixture. Nothing is copied then.
    """
    record_dir = Path(record_dir) if record_dir else registry.root / RECORD_DIR
    problems = stale_records(registry, generated)
    if problems:
        listed = "; ".join(f"{name}: {why}" for name, why in problems.items())
        raise ValueError(f"{generated} is not a current paper run of every notebook "
                         f"(`make paper-record` makes one): {listed}")
    record_dir.mkdir(parents=True, exist_ok=True)
    for name in registry.notebooks:
        _copy_folder(Path(generated) / name, record_dir / name)
    return list(registry.notebooks)


def restore_record(registry: Registry, generated: Path,
                   record_dir: Path | None = None, *, missing_ok: bool = False,
                   keep_current: bool = False) -> list[str]:
    """Copy the committed record of every notebook into ``generated`` (the book's results
    folder), replacing what is there, and write its ``runtimes.md`` from the copied records
    (the ``last-run.json`` of an earlier run there is removed: none of its notebooks is left);
    returns the notebooks copied. Holds the folder's run lock meanwhile.

    Raises
    ------
    ValueError
        When a notebook has no record (unless ``missing_ok``: ``make paper-record`` then runs
        it).

    With ``keep_current``, a notebook whose run in ``generated`` is already current (a paper
    run with the key a run would have now) is kept, not replaced: ``make paper-record``
    interrupted or failed after some notebooks ran resumes with them.
    """
    record_dir = Path(record_dir) if record_dir else registry.root / RECORD_DIR
    held = [name for name in registry.notebooks if (record_dir / name / RUN_FILE).is_file()]
    missing = [name for name in registry.notebooks if name not in held]
    if missing and not missing_ok:
        raise ValueError(f"no paper record of {missing} in {record_dir} "
                         "(`make paper-record` writes it)")
    generated = Path(generated)
    if keep_current:
        kept = set(registry.notebooks) - set(stale_records(registry, generated))
        held = [name for name in held if name not in kept]
    with run_lock(generated):
        for name in held:
            _copy_folder(record_dir / name, generated / name)
        (generated / LAST_RUN_FILE).unlink(missing_ok=True)
        write_runtimes(generated)
    return held
