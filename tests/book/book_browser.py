"""Open built book pages in headless Chromium (Debian's ``/usr/bin/chromium``) and list what a
reader would see broken.

The browser runs from a fresh profile with the network blocked: only ``file://`` requests are
served, any other request is aborted and reported. :func:`inspect` returns one message per
problem found on a page (console errors, failed requests, images not loaded, TeX left
unrendered, tables wider than the text column, MathJax errors); an empty list is a clean page.
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

# Runs in the page once it has loaded and MathJax has typeset. Text inside MathJax output,
# code and scripts is not prose; everything else is checked for TeX that was never rendered.
_CHECKS_JS = r"""
async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
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
    const name = table.id || (table.querySelector("caption") || {}).textContent || "a table";
    const tbox = table.getBoundingClientRect();
    if (tbox.left >= col.left - 1 && tbox.right <= col.right + 1) continue;
    const wrap = table.closest(".pst-scrollable-table-container");
    const scrolls = wrap && ["auto", "scroll"].includes(getComputedStyle(wrap).overflowX)
      && wrap.getBoundingClientRect().right <= col.right + 1;
    const firsts = [...table.rows].map((row) => row.cells[0]).filter(Boolean);
    const sticky = firsts.length > 0
      && firsts.every((cell) => getComputedStyle(cell).position === "sticky")
      && Math.max(...firsts.map((c) => c.getBoundingClientRect().width)) <= col.width / 2;
    if (!(scrolls && sticky)) {
      problems.push(
        `table wider than its column: ${name.trim().slice(0, 60)} is ${Math.round(tbox.width)} px`
        + ` in a ${Math.round(col.width)} px column`
        + (scrolls ? " (it scrolls, but its first column does not stay in view)" : ""));
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
