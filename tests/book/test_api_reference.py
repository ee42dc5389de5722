"""The built API reference (``book/api/``, the book's "Reference" part): every public name of
the documented packages has its entry, the shared docstring sections are filled in, and each
public class's parameters are rendered one by one (run after the book is built; marker
``book``)."""
import html
import importlib
import inspect
import re
from pathlib import Path

import pytest

from dplasso.estimators.docs import SECTIONS

pytestmark = pytest.mark.book
ROOT = Path(__file__).resolve().parents[2]
API = ROOT / "_build" / "html" / "book" / "api"
PAGES = {"estimators": "dplasso.estimators", "baselines": "dplasso.baselines",
         "privacy": "dplasso.privacy", "data": "dplasso.data", "optim": "dplasso.optim"}
"""Each API page and the package whose ``__all__`` it documents."""


def _page(name: str) -> str:
    path = API / f"{name}.html"
    assert path.is_file(), f"no {path}: was the book built?"
    return path.read_text()


def _text(fragment: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", fragment)))


def _entry_id(package, name: str) -> str:
    """The HTML id of ``package.name``'s entry: the object's name in its defining module."""
    obj = getattr(package, name)
    if inspect.isclass(obj) or inspect.isfunction(obj):
        return f"{obj.__module__}.{obj.__qualname__}"
    return f"{package.__name__}.{package._lazy_exports[name]}.{name}"  # a constant


def _entry(page: str, entry_id: str) -> str:
    """The HTML of one documented object: its signature to the end of its ``<dl>``."""
    start = page.index(f'id="{entry_id}"')
    end = page.find('<dl class="py class">', start)
    return page[start:end if end > 0 else len(page)]


@pytest.mark.parametrize("name", PAGES)
def test_every_public_name_of_the_package_has_its_entry(name):
    page, package = _page(name), importlib.import_module(PAGES[name])
    missing = [n for n in package.__all__ if f'id="{_entry_id(package, n)}"' not in page]
    assert not missing, f"book/api/{name}.md documents none of {missing}"


def test_shared_docstring_sections_are_filled_in():
    pages = {name: _text(_page(name)) for name in PAGES}
    assert not [name for name, text in pages.items() if "{{" in text]
    for section in ("prediction", "private_classes", "rounding"):
        opening = _text(re.sub(r"``|:\w+:`[^`]*`", "", SECTIONS[section]).split(".")[0])
        assert opening[:40] in pages["estimators"], section


@pytest.mark.parametrize("name", ["estimators", "baselines"])
def test_each_classifier_lists_every_constructor_parameter(name):
    page, package = _page(name), importlib.import_module(PAGES[name])
    classifiers = [getattr(package, n) for n in package.__all__
                   if inspect.isclass(getattr(package, n)) and n.endswith("Classifier")]
    assert classifiers
    for cls in classifiers:
        entry = _entry(page, f"{cls.__module__}.{cls.__qualname__}")
        listed = entry[entry.index(">Parameters<"):]
        for parameter in inspect.signature(cls).parameters:
            assert f"<strong>{parameter}</strong>" in listed, f"{cls.__name__}: {parameter}"
