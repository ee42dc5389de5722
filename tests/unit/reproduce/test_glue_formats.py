"""Every formatted glue of a chapter formats its value in the committed paper record.

Sphinx formats ``{glue:text}`key:spec``` from the value's ``text/plain``: numpy 2's repr of a
scalar (``np.float64(0.75)``) does not read as a number, and the page broke only when the
book was rendered, after the notebook had run. This reads what the renderer reads."""
import json
import re
from pathlib import Path

import pytest
from myst_nb.core.variables import format_plain_text

ROOT = Path(__file__).resolve().parents[3]
FORMATTED = re.compile(r"\{glue:text\}`([\w-]+):([^`:]+)`")


def glued_text(notebook: Path) -> dict:
    """``{key: text/plain}`` of every glue output of an executed notebook."""
    values = {}
    for cell in json.loads(notebook.read_text())["cells"]:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            text = output.get("data", {}).get("application/papermill.record/text/plain")
            if name and text is not None:
                values[name] = "".join(text) if isinstance(text, list) else text
    return values


@pytest.mark.parametrize("source", sorted((ROOT / "notebooks").glob("*.md")),
                         ids=lambda path: path.stem)
def test_each_formatted_glue_formats_the_record_s_value(source):
    uses = FORMATTED.findall(source.read_text())
    if not uses:
        pytest.skip("no formatted glue")
    values = glued_text(ROOT / "book" / "paper-results" / source.stem / f"{source.stem}.ipynb")
    for key, spec in uses:
        assert key in values, f"{source.name}: {key} is not glued in the record"
        try:
            format_plain_text(values[key], spec)
        except ValueError as err:
            pytest.fail(f"{source.name}: {key} = {values[key]!r} does not format as {spec!r}: "
                        f"{err}")


def test_a_numpy_scalar_s_repr_is_caught():
    """The failure this guards against: ``np.float64(0.75)`` under ``:g``."""
    with pytest.raises(ValueError):
        format_plain_text("np.float64(0.75)", "g")
    assert format_plain_text("0.75", "g") == "0.75"
