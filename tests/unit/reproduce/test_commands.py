"""The command printed under each table and figure of the book runs as printed."""
import shlex
import sys
from pathlib import Path

from dplasso.cli import build_parser
from dplasso.reproduce.registry import load_registry

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "book" / "_ext"))
from book_artifacts import REPRODUCED, reproduce_command  # noqa: E402


def test_the_printed_command_is_the_installed_cli_with_a_fresh_output_folder():
    registry = load_registry(ROOT)
    for art in registry.artifacts.values():
        program, *argv = shlex.split(reproduce_command(art.id, "ci"))
        assert (ROOT / program).is_file(), f"{program} is what `make install` writes"
        args = build_parser().parse_args(argv)
        assert args.artifacts == [art.id] and args.profile == "ci" and args.html
        # not the book's own folder: the command executes even in a built checkout
        assert args.out == REPRODUCED and not REPRODUCED.startswith("book/")
        assert registry.notebooks_for(args.artifacts) == [art.notebook]
