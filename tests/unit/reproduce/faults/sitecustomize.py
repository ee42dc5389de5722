"""Filesystem faults and kill points for the runner tests, in every Python process of a run.

A test puts this folder on ``PYTHONPATH``; Python imports ``sitecustomize`` at start-up, so the
runner, its workers and their kernels all load it. With neither variable below set it does
nothing.

``DPLASSO_TEST_FAULTS``: a JSON list of ``{"errno": "EROFS", "under": "/abs/path", "match":
regex, "ops": [...]}``; each operation on a path at or under ``under`` (and, if given, whose
absolute path ``match`` finds) raises that ``OSError`` (with the path), as the
operating system would on a read-only file system (``EROFS``), without permission (``EACCES``)
or on a full disk (``ENOSPC``). ``ops`` choose among ``open-write`` (an ``open`` for writing,
appending or creating), ``open-read``, ``mkdir``, ``replace`` (``os.replace``/``os.rename``, either
path), ``unlink``, ``rmdir`` and ``rmtree``; the default is every writing operation.

``DPLASSO_TEST_KILL``: ``{"op": "replace"|"rmtree"|"flock", "match": regex, "nth": n,
"when": "before"|"after", "signal": "SIGKILL", "who": "run"|"self"}`` sends the signal at the
``nth`` call whose (destination) path matches: to the process making the call and, in a worker,
to the runner above it (``"run"``, as ``kill -9`` of both or an out-of-memory kill would), or to
the calling process only (``"self"``). ``"op": "import"`` matches the name of a module as it
starts to import (a Ctrl-C while the command loads that module).
"""
import builtins
import errno
import fcntl
import io
import json
import os
import re
import shutil
import signal
import sys

WRITING = ("open-write", "mkdir", "replace", "unlink", "rmdir", "rmtree")
_FAULTS = json.loads(os.environ.get("DPLASSO_TEST_FAULTS", "[]"))
_KILL = json.loads(os.environ.get("DPLASSO_TEST_KILL", "null"))
_seen = [0]


def _applies(rule, path):
    try:
        path = os.path.abspath(os.fsdecode(path))
    except TypeError:  # a file descriptor
        return False
    root = rule.get("under", os.sep)
    return ((path == root or path.startswith(root.rstrip(os.sep) + os.sep))
            and ("match" not in rule or re.search(rule["match"], path) is not None))


def _fault(op, *paths):
    for rule in _FAULTS:
        if op in rule.get("ops", WRITING) and any(
                p is not None and _applies(rule, p) for p in paths):
            code = getattr(errno, rule["errno"])
            raise OSError(code, os.strerror(code), os.fsdecode(paths[0]))


def _kill_point(op, path, when):
    if not _KILL or _KILL["op"] != op or _KILL.get("when", "after") != when:
        return
    if path is not None and not re.search(_KILL["match"], os.fsdecode(path)):
        return
    _seen[0] += 1
    if _seen[0] == _KILL.get("nth", 1):
        signum = getattr(signal, _KILL.get("signal", "SIGKILL"))
        worker = sys.argv and sys.argv[0].endswith(os.path.join("reproduce", "worker.py"))
        if worker and _KILL.get("who", "run") == "run":
            os.kill(os.getppid(), signum)
        os.kill(os.getpid(), signum)


class _ImportPoint:
    """A finder that only watches: the kill point of ``"op": "import"``."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        _kill_point("import", name, "before")


def _wrap_path_op(module, name, op, *, two_paths=False):
    original = getattr(module, name)

    def wrapper(*args, **kwargs):
        paths = args[:2] if two_paths else args[:1]
        _fault(op, *paths)
        target = paths[-1] if paths else None
        _kill_point(op, target, "before")
        result = original(*args, **kwargs)
        _kill_point(op, target, "after")
        return result

    setattr(module, name, wrapper)


def _wrap_open(module):
    original = module.open

    def wrapper(file, mode="r", *args, **kwargs):
        if isinstance(file, (str, bytes, os.PathLike)):
            _fault("open-write" if set(mode) & set("wax+") else "open-read", file)
        return original(file, mode, *args, **kwargs)

    module.open = wrapper
    return wrapper


def _wrap_os_open():
    original = os.open

    def wrapper(path, flags, *args, **kwargs):
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND):
            _fault("open-write", path)
        return original(path, flags, *args, **kwargs)

    os.open = wrapper


def _wrap_flock():
    original = fcntl.flock

    def wrapper(fd, operation):
        result = original(fd, operation)
        if operation & fcntl.LOCK_EX:
            _kill_point("flock", None, "after")
        return result

    fcntl.flock = wrapper


if _FAULTS or _KILL:
    builtins.open = _wrap_open(io)
    _wrap_os_open()
    _wrap_path_op(os, "mkdir", "mkdir")
    _wrap_path_op(os, "replace", "replace", two_paths=True)
    _wrap_path_op(os, "rename", "replace", two_paths=True)
    _wrap_path_op(os, "unlink", "unlink")
    _wrap_path_op(os, "rmdir", "rmdir")
    _wrap_path_op(shutil, "rmtree", "rmtree")
    _wrap_flock()
    sys.meta_path.insert(0, _ImportPoint)
