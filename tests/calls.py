"""Which library functions a piece of code actually calls (importable: tests/ is on the path).

The proofs' rule, that every audit case and law test runs the library's own release and never
a copy of it, is checked by recording the calls: a profile hook notes when the code object of
a named function is entered (``functools.wraps`` wrappers, ``unittest.mock`` patches and
references captured in closures all reach it), and removes itself once every target has been
seen, so it costs nothing after the release's first call.
"""
import contextlib
import sys


@contextlib.contextmanager
def recording_calls(functions):
    """Within the block, record which of ``functions`` are entered.

    Yields
    ------
    set
        The functions of ``functions`` called so far (filled as the block runs).
    """
    targets = {function.__code__: function for function in functions}
    seen = set()
    previous = sys.getprofile()

    def hook(frame, event, arg):
        if event == "call" and frame.f_code in targets:
            seen.add(targets[frame.f_code])
            if len(seen) == len(targets):
                sys.setprofile(previous)

    sys.setprofile(hook)
    try:
        yield seen
    finally:
        sys.setprofile(previous)


def qualified_name(function):
    """``module.qualname`` of a function."""
    return f"{function.__module__}.{function.__qualname__}"
