"""What a child process does with an accountant it was given (the process tests' targets;
a module of its own, light to import, so that spawn and forkserver children load it fast)."""


def try_check(accountant, results):
    """Put ``(kind, message)`` on ``results``: ``("ok", "")`` if ``accountant.check(0.1)``
    passed, else the error's class name and message."""
    try:
        accountant.check(0.1)
        results.put(("ok", ""))
    except Exception as err:  # reported to the parent, which asserts on it
        results.put((type(err).__name__, str(err)))
