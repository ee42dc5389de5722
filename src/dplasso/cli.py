"""Command line: ``dplasso list``, ``dplasso reproduce``, ``dplasso render``, ``dplasso pages``,
``dplasso record`` and ``dplasso cache``.

An error is one line on standard error, ``error: ...``, naming the argument or the path and the
cause; the exit status is 2 for a usage error (a bad argument, or a path given that cannot be
used: read-only, no permission, a file in the way) and 1 for a failure (a notebook failed, a
worker died, the disk is full, a page could not be built). ``--debug`` adds the traceback (or
the page builder's output). The command loads only light modules before its arguments are
checked (numpy, papermill and dask load where a notebook or a cluster needs them), so an error
answers in a fraction of a second, before anything is written. Every command it prints (the
resume command after a stop, a hint to rerun with ``--debug``, ``dplasso list`` in a message)
starts as this one was started (:func:`invocation`), so it runs as printed where it was typed.
A command whose extra is not installed (``reproduce``: the ``reproduce`` extra; ``render`` and
``--html``: ``book``; ``--scheduler``: ``dask``) says so first, in one line naming the extra
(exit status 2). A Ctrl-C is one line at any moment, from the command's first import on
(:func:`main`). ``dplasso --version`` prints the installed version.
"""
from __future__ import annotations

import os
import signal
import sys


def _stopped_while_starting(signum, frame):
    """Ctrl-C before :func:`main` takes over: the line :func:`main` would print, no traceback
    from whatever module was loading."""
    print("\nstopped by SIGINT", file=sys.stderr)
    raise SystemExit(128 + signum)


_LAUNCHED = (__name__ == "__main__"
             or os.path.basename(sys.argv[0] if sys.argv else "") == "dplasso")
"""Whether this process is the command (``python -m dplasso.cli`` or the ``dplasso`` script),
not a program that imports it: only then does Ctrl-C get the command's own handling from
its first line to its last (:func:`main`)."""
if _LAUNCHED:
    signal.signal(signal.SIGINT, _stopped_while_starting)

# The other imports come after the handler, so a Ctrl-C while they load is quiet too.
import argparse
import errno
import hashlib
import json
import shlex
import shutil
import traceback
from pathlib import Path

import yaml

from ._extras import MissingExtraError, require_extra
from .data.openml import SEED_ENV_VAR
from .experiments.execution import SCHEDULER_ENV_VAR, check_scheduler_address, connect
from .reproduce.pages import CLAIMS_FILE, PAGES_DIR, RECORD_CLAIMS_FILE, PaperRecord, write_pages
from .reproduce.paper_record import RECORD_DIR, restore_record, stale_records, write_record
from .reproduce.parameters import (
    describe,
    load_relations,
    load_schema,
    parameter_defaults,
    parameters_cell,
    parse_overrides,
)
from .reproduce.record import CUSTOM_PARAMETERS, write_text_atomic
from .reproduce.registry import PROFILES, load_registry
from .reproduce.render import RenderFailed, render_notebook
from .reproduce.runner import (
    UNIT_CACHE_ENV_VAR,
    UNIT_CACHE_LIMIT_ENV_VAR,
    NotebookFailed,
    RunInterrupted,
    RunLocked,
    check_output_folder,
    describe_os_error,
    make_folder,
    plan,
    reproduce,
    unit_cache_folder,
    unit_cache_limit,
)

PUBLISHED = Path("book") / "generated"
CUSTOM = Path("results") / "custom"
SHARED_SEED = Path("..") / "shared" / "data" / "openml"  # beside the checkout, as in the Makefile


def _command_word(path: Path) -> str:
    """``path`` (an executable) as the first word of a command typed where this one was: its
    name when the ``PATH`` finds this very file by it, else its path relative to the working
    directory when below it, else its absolute path."""
    path = Path(path).absolute()
    found = shutil.which(path.name)
    if found and Path(found).absolute() == path:  # not resolved: a venv's python is a link
        return path.name
    try:
        return path.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return str(path)


def invocation() -> list[str]:
    """The words that start this command again: the ``dplasso`` script as it was run
    (``.venv/bin/dplasso`` from a checkout, ``dplasso`` with the environment active), else
    ``<python> -m dplasso.cli``."""
    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if script is not None and script.name == "dplasso" and script.is_file():
        return [_command_word(script)]
    return [_command_word(Path(sys.executable)), "-m", "dplasso.cli"]


def _default_seed(root: Path) -> Path | None:
    """Use the offline OpenML seed beside the checkout when the user set none (the Makefile's
    rule), so that the checks of dataset ids read it too; ``DPLASSO_OPENML_SEED=`` (empty)
    keeps it off. Returns the seed when it was set here."""
    seed = (root / SHARED_SEED).resolve()
    if os.environ.get(SEED_ENV_VAR) is None and seed.is_dir():
        os.environ[SEED_ENV_VAR] = str(seed)
        return seed
    return None


def _warn_if_replacing_another_profile(out: Path, profile: str, names) -> None:
    """Say so when a run will overwrite published results made under another profile."""
    other = {}
    for name in names:
        try:
            was = json.loads((out / name / "run.json").read_text())["profile"]
        except (OSError, json.JSONDecodeError, KeyError):
            continue
        if was != profile:
            other.setdefault(was, []).append(name)
    for was, replaced in sorted(other.items()):
        print(f"warning: {out} holds {was}-profile results of {len(replaced)} notebook(s) "
              f"({', '.join(replaced)}); this {profile} run replaces them. To keep them, "
              f"pass --out another folder.", file=sys.stderr)


def custom_folder(root: Path, profile: str, overrides: dict) -> Path:
    """``results/custom/<profile>-<hash>/``: one folder per parameter set, so custom runs with
    different ``-p`` values never replace each other's results."""
    payload = json.dumps({"profile": profile, "overrides": overrides}, sort_keys=True,
                         default=str)
    return root / CUSTOM / f"{profile}-{hashlib.sha256(payload.encode()).hexdigest()[:12]}"


def _write_custom_parameters(folder: Path, profile: str, overrides: dict) -> None:
    """``parameters.yaml`` in a custom run's folder (made here; nothing is left if it cannot
    be written)."""
    with make_folder(folder):
        write_text_atomic(folder / CUSTOM_PARAMETERS, yaml.safe_dump(
            {"profile": profile, "overrides": overrides}, sort_keys=True))


def _cmd_list(args) -> int:
    registry = load_registry()
    params = registry.params(args.profile)
    schema, relations = load_schema(registry.root), load_relations(registry.root)
    for name, nb in registry.notebooks.items():
        print(f"{name}  ({nb.source.relative_to(registry.root)})  -- {nb.title}")
        defaults = parameter_defaults(parameters_cell(nb.source))
        print(f"  parameters ({args.profile} profile; -p name=value changes one):")
        for key, spec in schema.get(name, {}).items():
            value = args.profile if key == "profile" else params[name].get(key, defaults.get(key))
            fixed = "  (set by the runner)" if spec.get("settable", True) is False else ""
            default = (f"  (notebook default {defaults[key]!r})"
                       if key in params[name] and defaults.get(key) != value else "")
            print(f"    {key} = {value!r}{default}{fixed}\n"
                  f"        {describe(spec)}: {spec.get('meaning', '')}")
        _print_narrowing(schema.get(name, {}))
        for relation in relations.get(name, ()):
            print(f"  must hold: {relation['check']} ({relation['meaning']})")
        for art in registry.artifacts.values():
            if art.notebook == name:
                print(f"  [{art.kind}] {art.id}: label {art.label}, results {art.results}")
                print(f"      claim: {art.claim}")
    print(f"\nPublished results: {PUBLISHED}/<notebook>/. Runs with -p write to "
          f"{CUSTOM}/<profile>-<hash>/<notebook>/, one folder per parameter set, its "
          f"parameters in {CUSTOM_PARAMETERS}:")
    custom = sorted((registry.root / CUSTOM).glob(f"*/{CUSTOM_PARAMETERS}"))
    for path in custom:
        print(f"  {path.parent.relative_to(registry.root)}: "
              f"{yaml.safe_load(path.read_text())}")
    if not custom:
        print("  (none yet)")
    return 0


def _print_narrowing(specs: dict) -> None:
    """How a run with -p values narrows a notebook's side tables, and how to ask for one."""
    for tie, words in (("off_with", "turns off {names} (ask for one: -p name=[...])"),
                       ("same_as", "sets {names} to the same value (unless given)")):
        tied: dict[str, list[str]] = {}
        for key, spec in specs.items():
            if tie in spec:
                tied.setdefault(spec[tie], []).append(key)
        for other, names in tied.items():
            print(f"  a run with -p {other}=... {words.format(names=', '.join(names))}")


def _use_scheduler(address: str) -> None:
    """Check that the Dask scheduler at ``address`` answers, then hand it to every kernel
    (``DPLASSO_SCHEDULER``), whose experiment tasks then run on its workers."""
    with connect(address) as client:
        workers = len(client.scheduler_info()["workers"])
    os.environ[SCHEDULER_ENV_VAR] = address
    print(f"Dask scheduler {address} ({workers} worker(s) now): experiment tasks run there",
          file=sys.stderr)


def _cmd_reproduce(args) -> int:
    if args.html:
        require_extra("book", "dplasso reproduce --html")
    if args.scheduler is not None:
        require_extra("dask", "dplasso reproduce --scheduler")
    registry = load_registry()
    if args.jobs < 1:
        raise ValueError(f"--jobs {args.jobs}: the number of jobs must be >= 1")
    if args.scheduler is not None:
        check_scheduler_address(args.scheduler)
    overrides = parse_overrides(args.param)
    seed = _default_seed(registry.root)
    custom = args.out is None and bool(overrides)
    if args.out is not None:
        out = Path(args.out)
    elif custom:
        out = custom_folder(registry.root, args.profile, overrides)
    else:
        out = registry.root / PUBLISHED
    # Every check that needs nothing written comes first: a refused command writes nothing.
    left_out = []
    check_output_folder(out, plan(registry, args.artifacts, args.profile, overrides,
                                  left_out=left_out))
    if args.scheduler is not None:
        try:
            _use_scheduler(args.scheduler)
        except (ImportError, ConnectionError) as err:
            print(f"error: --scheduler: {err}", file=sys.stderr)
            return 2
    if custom:
        _write_custom_parameters(out, args.profile, overrides)
        print(f"custom parameters: writing to {out} (parameters in {CUSTOM_PARAMETERS}), "
              "the published book is left untouched", file=sys.stderr)
    elif args.out is None:
        _warn_if_replacing_another_profile(out, args.profile,
                                           registry.notebooks_for(args.artifacts))
    if seed is not None:
        print(f"offline OpenML seed: {seed} ({SEED_ENV_VAR} unset)", file=sys.stderr)
    for name, why in left_out:
        print(f"{name}: left out, its check refuses the -p values ({why})", file=sys.stderr)
    try:
        records = reproduce(
            registry, args.artifacts, profile=args.profile, overrides=overrides, out_dir=out,
            jobs=args.jobs, force=args.force,
        )
    except NotebookFailed as err:
        for failure in err.failures:
            if args.debug and failure.detail:
                print(failure.detail, file=sys.stderr)
            print(f"error: {_with_lost_scheduler(failure.summary, args.scheduler)}",
                  file=sys.stderr)
        return 1
    except RunLocked as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except RunInterrupted as err:
        _report_interrupt(err, args.argv)
        return 128 + err.signum
    for rec in records:
        state = "unchanged, skipped" if rec.skipped else f"ran in {rec.seconds:.1f} s"
        print(f"{rec.notebook}: {state} -> {out / rec.notebook}")
    if args.html:
        return _render(registry, [out / rec.notebook / f"{rec.notebook}.ipynb"
                                  for rec in records], args)
    return 0


def _with_lost_scheduler(summary: str, address: str | None) -> str:
    """A notebook's failure, said as the loss of the ``--scheduler`` it is: the scheduler
    answered when the run started (:func:`_use_scheduler`), so a stage that then finds none
    at ``address`` lost it (a stage it was lost during says so itself,
    :class:`~dplasso.experiments.execution.SchedulerLost`)."""
    if address is None or f"no Dask scheduler answered at {address!r}" not in summary:
        return summary
    return (f"the Dask scheduler at {address} was lost during the run (it answered when the "
            f"run started): {summary}")


def _render(registry, notebooks, args) -> int:
    """Render each of ``notebooks``; a page that cannot be built is one line (the builder's
    output with ``--debug``) and exit status 1."""
    for notebook in notebooks:
        try:
            page = render_notebook(notebook, registry)
        except RenderFailed as err:
            if args.debug:
                print(err.detail, file=sys.stderr)
            hint = ("" if args.debug else
                    f" (the builder's output: {_with_debug(['render', str(notebook)])})")
            print(f"error: {err}{hint}", file=sys.stderr)
            return 1
        print(f"{notebook.stem}: rendered -> {page}")
    return 0


def _cmd_render(args) -> int:
    registry = load_registry()
    notebooks = []
    for target in map(Path, args.paths):
        found = [target] if target.suffix == ".ipynb" else sorted(
            p for p in target.glob("*/*.ipynb") if p.parent.name == p.stem) or sorted(
            target.glob(f"{target.name}.ipynb"))
        if not found:
            raise FileNotFoundError(f"no executed notebook in {target} (give a .ipynb, a "
                                    "notebook's results folder or a run's --out folder)")
        notebooks += found
    return _render(registry, notebooks, args)


def _cmd_pages(args) -> int:
    registry = load_registry()
    out = Path(args.out) if args.out else registry.root / PUBLISHED
    claims = Path(args.claims) if args.claims else out / PAGES_DIR / CLAIMS_FILE
    try:  # the claims file is the user's argument: name it if it does not read as JSON
        json.loads(claims.read_text())
    except json.JSONDecodeError as err:
        raise ValueError(f"{claims}: not valid JSON ({err})") from None
    record_claims = (Path(args.record_claims) if args.record_claims
                     else out / PAGES_DIR / RECORD_CLAIMS_FILE)
    record = None
    if record_claims.is_file():
        folder = registry.root / RECORD_DIR
        record = PaperRecord(folder, json.loads(record_claims.read_text())["artifacts"],
                             stale_records(registry, folder))
    elif args.record_claims:
        raise ValueError(f"--record-claims: {record_claims} does not exist")
    for path in write_pages(registry, out, claims, record):
        print(f"wrote {path}")
    return 0


def _cmd_record(args) -> int:
    registry = load_registry()
    generated = Path(args.out) if args.out else registry.root / PUBLISHED
    if args.check:
        stale = stale_records(registry)
        for name, why in stale.items():
            print(f"{name}: {why}")
        print(f"{len(registry.notebooks) - len(stale)} of {len(registry.notebooks)} notebooks' "
              "paper records are current" + ("; `make paper-record` reruns the others"
                                             if stale else ""))
        return 1 if stale else 0
    if args.restore:
        try:
            names = restore_record(registry, generated, missing_ok=args.missing_ok,
                                   keep_current=args.keep_current)
        except RunLocked as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
        print(f"copied the paper record of {len(names)} notebooks into {generated}")
    else:
        names = write_record(registry, generated)
        print(f"recorded {len(names)} notebooks from {generated} in "
              f"{registry.root / RECORD_DIR}")
    return 0


def _cmd_cache(args) -> int:
    folder = unit_cache_folder()
    if folder is None:
        print(f"no unit cache ({UNIT_CACHE_ENV_VAR} is set empty)")
        return 0
    files = [p for p in folder.glob("*.pkl") if p.is_file()] if folder.is_dir() else []
    size = sum(p.stat().st_size for p in files)
    if args.clear:
        for path in files:
            path.unlink(missing_ok=True)
        print(f"unit cache {folder}: removed {len(files)} file(s), {size / 2**20:.1f} MB")
    else:
        print(f"unit cache {folder}: {len(files)} unit(s), {size / 2**20:.1f} MB of at most "
              f"{unit_cache_limit() / 2**30:g} GB ({UNIT_CACHE_ENV_VAR} moves it, "
              f"{UNIT_CACHE_LIMIT_ENV_VAR} bounds it; "
              f"`{shlex.join([*invocation(), 'cache', '--clear'])}` empties it)")
    return 0


def _report_interrupt(err: RunInterrupted, argv) -> None:
    finished = ", ".join(
        f"{r.notebook} ({'unchanged' if r.skipped else 'ran'})" for r in err.finished) or "none"
    print(f"\nstopped by {signal.Signals(err.signum).name}; workers and kernels terminated.\n"
          f"finished and kept in {err.out_dir}: {finished}\n"
          f"not finished: {', '.join(err.unfinished) or 'none'}\n"
          f"resume with (finished notebooks are skipped): "
          f"{shlex.join([*invocation(), *argv])}", file=sys.stderr)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line (exit status 2)."""

    def error(self, message):
        self.exit(2, f"error: {message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    from . import __version__  # package metadata, read when a parser is built

    common = _Parser(add_help=False)
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show the traceback of an error")
    parser = _Parser(prog=shlex.join(invocation()), description=__doc__.split("\n\n")[0],
                     parents=[common])
    parser.add_argument("--version", action="version", version=f"dplasso {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p_list = sub.add_parser("list", help="show every artifact, its notebook and parameters",
                            parents=[common])
    p_list.add_argument("--profile", choices=PROFILES, default="paper")
    p_list.set_defaults(func=_cmd_list)

    p_run = sub.add_parser("reproduce", help="execute notebooks with papermill", parents=[common])
    p_run.add_argument("artifacts", nargs="*", help="artifact ids or notebook names (default: all)")
    p_run.add_argument("--profile", choices=PROFILES, default="paper")
    p_run.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE",
                       help="override a notebook parameter (YAML value); implies a separate --out")
    p_run.add_argument("--out", help=f"output folder (default {PUBLISHED}, or {CUSTOM} with -p)")
    p_run.add_argument("--jobs", type=int, default=1, help="notebooks executed in parallel")
    p_run.add_argument("--force", action="store_true", help="run even when nothing changed")
    p_run.add_argument("--scheduler", metavar="ADDRESS",
                       help="run the experiments' tasks on this Dask cluster, e.g. "
                            "tcp://10.0.0.5:8786 (needs the dask extra)")
    p_run.add_argument("--html", action="store_true",
                       help="also render each notebook of the run as a standalone HTML page "
                            "(<out>/<notebook>/html/<notebook>.html)")
    p_run.set_defaults(func=_cmd_reproduce, extra="reproduce")

    p_render = sub.add_parser("render", help="render executed notebooks as standalone HTML "
                              "pages beside their results", parents=[common])
    p_render.add_argument("paths", nargs="+", metavar="PATH",
                          help="an executed .ipynb, a notebook's results folder, or a run's "
                               "output folder (every notebook in it)")
    p_render.set_defaults(func=_cmd_render, extra="book")

    p_pages = sub.add_parser("pages", help="write the findings, verdict-list and execution "
                             "pages from the executed notebooks and the claim-test outcomes",
                             parents=[common])
    p_pages.add_argument("--out", help=f"the executed notebooks' folder (default {PUBLISHED})")
    p_pages.add_argument("--claims", help="claim-test outcomes from pytest --claims-out "
                         f"(default <out>/{PAGES_DIR}/{CLAIMS_FILE})")
    p_pages.add_argument("--record-claims", help="claim-test outcomes on the committed paper "
                         f"record (default <out>/{PAGES_DIR}/{RECORD_CLAIMS_FILE}, if present)")
    p_pages.set_defaults(func=_cmd_pages)

    p_record = sub.add_parser("record", help=f"copy a current paper-profile run of every "
                              f"notebook into the committed record ({RECORD_DIR}/<notebook>/)",
                              parents=[common])
    p_record.add_argument("--out", help=f"the executed notebooks' folder (default {PUBLISHED})")
    p_record.add_argument("--restore", action="store_true",
                          help="copy the record into --out instead (render the book from it "
                               "without executing anything)")
    p_record.add_argument("--missing-ok", action="store_true",
                          help="with --restore: skip notebooks that have no record yet")
    p_record.add_argument("--keep-current", action="store_true",
                          help="with --restore: keep the notebooks whose run in --out is "
                               "already current")
    p_record.add_argument("--check", action="store_true",
                          help="say which notebooks' records are stale, and why (exit status 1 "
                               "if any)")
    p_record.set_defaults(func=_cmd_record)

    p_cache = sub.add_parser("cache", help="show (or clear) the unit cache, where finished "
                             "experiment units are kept across runs", parents=[common])
    p_cache.add_argument("--clear", action="store_true", help="remove every cached unit")
    p_cache.set_defaults(func=_cmd_cache)
    return parser


USAGE_ERRNOS = frozenset({errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOTDIR, errno.EISDIR,
                          errno.EEXIST, errno.ENOENT, errno.ENAMETOOLONG, errno.ELOOP})
"""An ``OSError`` with one of these says a path given cannot be used (exit status 2); any
other (a full disk, an I/O error) is a failure (1)."""


def _with_debug(argv) -> str:
    """The command ``argv`` with ``--debug``, as it runs where this one was typed."""
    return shlex.join([*invocation(), *argv, *([] if "--debug" in argv else ["--debug"])])


def _error_line(err: Exception, argv) -> tuple[int, str]:
    """``(exit status, one-line message)`` for an error that reached :func:`main` (``argv``:
    the command's arguments, for the command that shows the traceback). ``dplasso list`` in a
    message is the command as this one was started."""
    if isinstance(err, OSError):
        usage = isinstance(err, FileNotFoundError) or err.errno in USAGE_ERRNOS
        return (2 if usage else 1), describe_os_error(err)
    if isinstance(err, (ValueError, TypeError, MissingExtraError)):
        return 2, str(err).replace("`dplasso list`", f"`{shlex.join([*invocation(), 'list'])}`")
    return 1, (f"{type(err).__name__}: {err} (an unexpected error; for the traceback, rerun "
               f"with --debug: {_with_debug(argv)})")


def main(argv=None) -> int:
    """Run the command ``argv`` (default: this process's arguments); its exit status.

    Ctrl-C at any moment is one line, ``stopped by SIGINT`` (a run prints what it kept and
    how to resume), and exit status 130: while the command loads (the handler installed
    above when this process is the command), while it checks its arguments or runs, and
    after its work is done, when a Ctrl-C stops nothing and is ignored.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    debug = "--debug" in argv
    try:
        if signal.getsignal(signal.SIGINT) is _stopped_while_starting:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        args = build_parser().parse_args(argv)
        args.argv = argv
        args.debug = debug = getattr(args, "debug", False)
        if getattr(args, "extra", None) is not None:
            require_extra(args.extra, f"dplasso {args.command}")
        return args.func(args)
    except KeyboardInterrupt:
        print("\nstopped by SIGINT", file=sys.stderr)
        return 128 + signal.SIGINT
    except Exception as err:  # the error layer: one line, the traceback only with --debug
        if debug:
            traceback.print_exc()
        code, message = _error_line(err, argv)
        print(f"error: {' '.join(message.split())}", file=sys.stderr)
        return code
    finally:
        if _LAUNCHED:  # the work is done: a Ctrl-C while the process exits stops nothing
            signal.signal(signal.SIGINT, signal.SIG_IGN)


if __name__ == "__main__":
    sys.exit(main())
