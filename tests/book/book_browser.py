"""Open built book pages in headless Chromium (Debian's ``/usr/bin/chromium``) and list what a
reader would see broken.

The browser runs from a fresh profile with the network blocked: only ``file://`` requests are
served, any other request is aborted and reported. :func:`inspect` returns one message per
problem found on a page (console errors, failed requests, images not loaded or not drawn at
their file's aspect ratio at any of :data:`WIDTHS`, TeX left unrendered, tables that scroll
sideways or clip their caption at 1280 px, MathJax errors), folded content opened first (as a
reader who opens it sees it); an empty list is a clean page.
"""
from __future__ import annotations

import contextlib
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import sync_playwright

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
VIEWPORT = {"width": 1280, "height": 800}
WIDTHS = (1280, 768, 400)
"""Page widths at which every image's aspect ratio is checked (the first is the viewport's)."""

# Runs in the page once it has loaded and MathJax has typeset. Text inside MathJax output,
# code and scripts is not prose; everything else is checked for TeX that was never rendered.
_CHECKS_JS = r"""
async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
  // Folded content (hidden cell outputs, dropdown admonitions) is checked as a reader who
  // opens it sees it.
  for (const fold of document.querySelectorAll("details")) fold.open = true;
  for (const fold of document.querySelectorAll(".toggle-hidden")) {
    fold.classList.remove("toggle-hidden");
  }
  const problems = [];
  const article = document.querySelector("article.bd-article") || document.body;
  const box = article.getBoundingClientRect(), style = getComputedStyle(article);
  const col = {left: box.left + parseFloat(style.paddingLeft),
               right: box.right - parseFloat(style.paddingRight)};
  col.width = col.right - col.left;

  for (const img of document.images) {
    if (img.loading === "lazy") img.loading = "eager";
    try { await img.decode(); } catch (e) { /* reported below */ }
    if (!img.complete || img.naturalWidth === 0) {
      problems.push(`image not loaded: ${img.getAttribute("src")}`);
    }
  }

  for (const err of document.querySelectorAll("mjx-merror")) {
    problems.push(`MathJax error: ${err.getAttribute("data-mjx-error") || err.textContent}`);
  }

  const SKIP = "mjx-container, script, style, pre, code, kbd, samp, textarea, .highlight";
  const BLOCK = "p, li, td, th, dt, dd, h1, h2, h3, h4, h5, h6, caption, figcaption, div";
  const texts = new Map();
  const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest(SKIP)) continue;
    const block = parent.closest(BLOCK) || article;
    texts.set(block, (texts.get(block) || "") + node.textContent);
  }
  const TEX = [/\\[A-Za-z]{2,}/, /\\[()\[\]{}|]/, /\$\$/, /\$[^\s$][^$]*\$/];
  for (const text of texts.values()) {
    const hit = TEX.find((re) => re.test(text));
    if (hit) {
      const at = text.search(hit);
      problems.push(`raw TeX: ...${text.slice(Math.max(0, at - 30), at + 50).trim()}...`);
    }
  }

  for (const table of article.querySelectorAll("table")) {
    const name = (table.id || (table.querySelector("caption") || {}).textContent || "a table")
      .trim().replace(/\s+/g, " ").slice(0, 60);
    const wrap = table.closest(".pst-scrollable-table-container") || table.parentElement;
    const tbox = table.getBoundingClientRect(), wbox = wrap.getBoundingClientRect();
    if (wrap.scrollWidth > wrap.clientWidth + 1 || tbox.left < col.left - 1
        || tbox.right > col.right + 1) {
      problems.push(`table scrolls sideways: ${name} is ${Math.round(tbox.width)} px in a `
                    + `${Math.round(col.width)} px column`);
    }
    const caption = table.querySelector("caption");
    if (caption) {
      const cbox = caption.getBoundingClientRect();
      if (caption.scrollWidth > caption.clientWidth + 1 || cbox.left < wbox.left - 1
          || cbox.right > wbox.right + 1) {
        problems.push(`caption clipped: ${name}`);
      }
    }
  }
  return problems;
}
"""

# Runs at each width of WIDTHS: every image shown is drawn at its file's aspect ratio (to within
# a pixel and a half of height, the rounding of a layout).
_IMAGES_JS = r"""
() => {
  const problems = [];
  for (const img of document.images) {
    const box = img.getBoundingClientRect();
    if (!img.naturalWidth || !img.naturalHeight || box.width < 1 || box.height < 1) continue;
    const height = box.width * img.naturalHeight / img.naturalWidth;
    if (Math.abs(box.height - height) > 1.5) {
      problems.push(`image stretched at ${window.innerWidth} px: ${img.getAttribute("src")} `
        + `(${img.naturalWidth} x ${img.naturalHeight}) shown at `
        + `${Math.round(box.width)} x ${Math.round(box.height)}, not x ${Math.round(height)}`);
    }
  }
  return problems;
}
"""


@dataclass
class Browser:
    """A Chromium context that serves ``file://`` only and records what went wrong."""

    context: object
    events: list[str] = field(default_factory=list)

    def inspect(self, url: str, screenshot: Path | None = None) -> list[str]:
        """Problems a reader meets on ``url`` (empty when none); optionally save its first
        screen as a PNG."""
        self.events.clear()
        page = self.context.new_page()
        page.on("console", self._on_console)
        page.on("pageerror", lambda e: self.events.append(f"JavaScript error: {e}"))
        page.on("requestfailed", lambda r: self.events.append(
            f"failed request: {r.url} ({r.failure})"))
        try:
            page.goto(url, wait_until="load", timeout=30_000)
            problems = page.evaluate(_CHECKS_JS)
            if screenshot is not None:
                screenshot.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(screenshot))
            for width in WIDTHS:
                page.set_viewport_size({"width": width, "height": VIEWPORT["height"]})
                problems += page.evaluate(_IMAGES_JS)
        finally:
            page.close()
        return [*self.events, *problems]

    def print_pdf(self, url: str, pdf: Path) -> list[str]:
        """Print ``url`` to ``pdf`` (A4, the page's print style) once its images have loaded
        and MathJax has typeset; returns the problems :meth:`inspect` would report."""
        self.events.clear()
        page = self.context.new_page()
        page.on("console", self._on_console)
        page.on("requestfailed", lambda r: self.events.append(
            f"failed request: {r.url} ({r.failure})"))
        try:
            page.goto(url, wait_until="load", timeout=300_000)
            problems = page.evaluate(_CHECKS_JS)
            page.emulate_media(media="print")
            pdf.parent.mkdir(parents=True, exist_ok=True)
            page.pdf(path=str(pdf), format="A4", print_background=True, outline=True,
                     tagged=True, margin={"top": "15mm", "bottom": "15mm",
                                          "left": "12mm", "right": "12mm"})
        finally:
            page.close()
        return [*self.events, *problems]

    def _on_console(self, message) -> None:
        if message.type == "error":
            self.events.append(f"console error: {message.text}")


def _only_files(route):
    if route.request.url.startswith("file:"):
        route.continue_()
    else:
        route.abort("blockedbyclient")


@contextlib.contextmanager
def chromium():
    """Yield a :class:`Browser` on Debian's Chromium, fresh profile, network blocked."""
    if not CHROMIUM.is_file():
        raise FileNotFoundError(f"{CHROMIUM} not found: run `make browser` (Debian's chromium)")
    with sync_playwright() as pw, tempfile.TemporaryDirectory(prefix="dplasso-chromium-") as profile:
        context = pw.chromium.launch_persistent_context(
            profile, executable_path=str(CHROMIUM), headless=True, args=FLAGS,
            viewport=VIEWPORT, service_workers="block",
        )
        try:
            context.route("**/*", _only_files)
            yield Browser(context)
        finally:
            context.close()


MISSING = ("image not loaded", "failed request", "console error", "JavaScript error")
"""Problems that leave something out of a printed page: :func:`main` fails on them."""


def main(argv: list[str] | None = None) -> int:
    """``python book_browser.py PAGE.html OUT.pdf``: print a built page to PDF, offline
    (exit status 1 when something is missing from it, see :data:`MISSING`)."""
    import argparse
    import time

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("html", type=Path)
    parser.add_argument("pdf", type=Path)
    args = parser.parse_args(argv)
    if not args.html.is_file():
        parser.error(f"html: {args.html} not found (build it first)")
    start = time.monotonic()
    with chromium() as browser:
        problems = browser.print_pdf(args.html.resolve().as_uri(), args.pdf)
    missing = [p for p in problems if p.startswith(MISSING)]
    for problem in problems:
        print(f"{'error' if problem in missing else 'warning'}: {problem}")
    size = args.pdf.stat().st_size / 1e6
    print(f"{args.pdf}: {size:.1f} MB in {time.monotonic() - start:.0f} s")
    return 1 if missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
