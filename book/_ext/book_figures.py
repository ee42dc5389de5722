"""Sphinx extension: figures keep their aspect ratio at every page width.

The notebooks' kernels draw figures as retina PNGs (``--InlineBackend.figure_formats=retina``,
200 dpi): IPython stores the display size, half the pixel size, as the output's ``width`` and
``height`` metadata; myst-nb copies both onto the image node, and docutils writes them as an
inline ``style="width: ...px; height: ...px"``. The theme caps an image's width at its column
(``max-width: 100%``) but nothing caps that fixed height, so a figure wider than the column was
squeezed sideways at its full height (the Beyond P1 figure showed at 672 x 1260 px where its
file is 672 x 475 at that width). Every image given a width keeps it (its size at 100 dpi, or
the column's width when that is narrower) and loses its height, which the browser then takes
from the file's aspect ratio.
"""
from __future__ import annotations

from docutils import nodes


def drop_fixed_heights(app, doctree, docname) -> None:
    """Remove ``height`` from every image of ``doctree`` that also has a ``width``."""
    for image in doctree.findall(nodes.image):
        if "width" in image and "height" in image:
            del image["height"]


def setup(app):
    # After the post-transforms: myst-nb picks each output's MIME type, and makes its image, there.
    app.connect("doctree-resolved", drop_fixed_heights)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
