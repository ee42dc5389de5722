"""Every command the command line prints starts as the command was started, so it runs as
printed where it was typed: from a checkout, ``.venv/bin/dplasso ...`` (a bare ``dplasso`` is
not found until the environment is activated). The resume command after a stop is run as
printed in ``test_interrupts.py``, the builder-output hint of ``dplasso render`` in
``test_render.py``."""
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from tiny_notebook import two_notebook_project
from dplasso.cli import invocation


def _script(root: Path) -> Path:
    """``root/.venv/bin/dplasso``, the console script pip writes for the package."""
    script = root / ".venv" / "bin" / "dplasso"
    script.parent.mkdir(parents=True)
    script.write_text(f"#!{sys.executable}\nimport sys\nfrom dplasso.cli import main\n"
                      "sys.exit(main())\n")
    script.chmod(0o755)
    return script


def test_the_first_words_are_the_script_or_the_interpreter_as_they_run_from_here(
        tmp_path, monkeypatch):
    script = _script(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", os.defpath)
    for typed in (".venv/bin/dplasso", str(script)):  # relative, or as the shell found it
        monkeypatch.setattr(sys, "argv", [typed, "list"])
        assert invocation() == [".venv/bin/dplasso"]
    monkeypatch.setenv("PATH", os.pathsep.join([str(script.parent), os.defpath]))
    assert invocation() == ["dplasso"]  # the environment is active: its PATH finds it
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    monkeypatch.setenv("PATH", os.defpath)
    assert invocation() == [str(script)]  # not below the working directory: absolute
    monkeypatch.setattr(sys, "argv", [str(Path(__file__)), "list"])  # python -m dplasso.cli
    program, *rest = invocation()
    assert rest == ["-m", "dplasso.cli"] and Path(program).absolute() == Path(
        sys.executable).absolute()


def _user(root, *argv):
    """``argv`` run in the checkout ``root`` as its user would, the environment not active."""
    return subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "DPLASSO_ROOT": str(root), "PATH": os.defpath,
                               "DPLASSO_UNIT_CACHE": str(root / "units")})


def test_commands_printed_by_the_checkout_script_run_as_printed(tmp_path):
    root = two_notebook_project(tmp_path / "proj")
    _script(root)
    (root / "units").mkdir()
    (root / "units" / "unit.pkl").write_bytes(b"x")
    shown = _user(root, ".venv/bin/dplasso", "cache")
    assert shown.returncode == 0, shown.stderr
    clear = re.search(r"`([^`]+)` empties it", shown.stdout)[1]
    assert clear == ".venv/bin/dplasso cache --clear"
    cleared = _user(root, *shlex.split(clear))
    assert cleared.returncode == 0 and "removed 1 file(s)" in cleared.stdout
    # an error's hint names the listing command as it runs
    refused = _user(root, ".venv/bin/dplasso", "reproduce", "nosuch")
    assert refused.returncode == 2
    listing = re.search(r"`([^`]+)` shows the known ones", refused.stderr)[1]
    assert listing == ".venv/bin/dplasso list"
    listed = _user(root, *shlex.split(listing))
    assert listed.returncode == 0 and listed.stdout.startswith("a  (notebooks/a.md)")
