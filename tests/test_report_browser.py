"""report.html in a real browser: headless Chromium renders every figure of a `foundation
--quick` report with no console error and no dangling link; the checker catches a broken
figure, a script error and bad links. report.md's links are relative and resolve."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from fanin.report import render_html

CHROMIUM = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (`make setup` installs it as root where apt-get exists)"
)

# Injected first in <head>, so it sees every later error. After `load` it writes what it found
# into <pre id="fanin-check">, which --dump-dom hands back. A figure is an <img> or an outermost
# <svg>; an inline SVG counts as rendered when it has a box and loads as an image on its own.
CHECKER = r"""
(() => {
  const errors = [];
  const note = (msg) => errors.push(String(msg).slice(0, 160));
  const consoleError = console.error;
  console.error = (...args) => { note(args.join(" ")); consoleError.apply(console, args); };
  window.addEventListener("error", (e) => {
    const el = e.target;
    note(el instanceof Element ? `cannot load <${el.localName}> ${el.getAttribute("src") || el.getAttribute("href")}`
                               : e.message);
  }, true);
  window.addEventListener("unhandledrejection", (e) => note(`unhandled rejection: ${e.reason}`));

  const hasBox = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const loadsAlone = (svg) => new Promise((resolve) => {
    const img = new Image();
    img.onload = () => resolve(img.naturalWidth > 0);
    img.onerror = () => resolve(false);
    img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(new XMLSerializer().serializeToString(svg));
  });
  const renders = async (el) =>
    el.localName === "img" ? el.complete && el.naturalWidth > 0 && hasBox(el) : hasBox(el) && await loadsAlone(el);

  const references = () => {
    const refs = new Set();
    for (const el of document.querySelectorAll("*")) {
      for (const a of el.attributes) {
        if (["href", "src", "xlink:href"].includes(a.name)) refs.add(a.value);
        for (const m of a.value.matchAll(/url\(\s*['"]?(#[^'")\s]+)/g)) refs.add(m[1]);
      }
    }
    return [...refs];
  };

  window.addEventListener("load", async () => {
    const figures = [...document.querySelectorAll("img, svg")].filter((el) => !el.parentElement.closest("svg"));
    const rendered = await Promise.all(figures.map(renders));
    const refs = references();
    const missing = (r) => r.startsWith("#") && !document.getElementById(decodeURIComponent(r.slice(1)));
    const out = document.createElement("pre");
    out.id = "fanin-check";
    out.textContent = JSON.stringify({
      figures: figures.map((el, i) => ({ tag: el.localName, renders: rendered[i] })),
      dangling_anchors: refs.filter(missing),
      links: refs.filter((r) => !r.startsWith("#") && !r.startsWith("data:")),
      errors,
    });
    document.body.append(out);
  });
})();
"""


def link_problem(folder: Path, link: str) -> str | None:
    """Why `link` (as written in a report in `folder`) does not resolve, or None when it does."""
    parts = urlsplit(link)
    if parts.scheme or parts.netloc or parts.path.startswith("/"):
        return "not relative"
    if parts.path and not (folder / unquote(parts.path)).exists():
        return "no such file"
    return None


def run_chromium(url: str, profile: Path) -> tuple[str, str]:
    """The DOM Chromium dumps after loading `url`, and its stderr. Its own process group, so
    whatever it started goes with it when it overruns."""
    cmd = [CHROMIUM or "chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run"]
    cmd += [f"--user-data-dir={profile}", "--virtual-time-budget=10000", "--dump-dom", url]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        return proc.communicate(timeout=60)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # what it left running, or all of it on a timeout
        except ProcessLookupError:
            pass
        proc.communicate()


def browser_problems(report: Path, profile: Path) -> tuple[int, list[str]]:
    """Renders `report` with the checker (a sibling copy, so relative links resolve as in the
    original) and returns the number of figures and what is wrong in the rendered page."""
    page = report.read_text(encoding="utf-8")
    head = page.index("<head>") + len("<head>")
    checked = report.with_name(report.stem + ".check.html")
    checked.write_text(page[:head] + f"<script>{CHECKER}</script>" + page[head:], encoding="utf-8")
    dom, stderr = run_chromium(checked.as_uri(), profile)
    found = re.search(r'<pre id="fanin-check">(.*?)</pre>', dom, re.S)
    assert found, f"the checker wrote nothing; chromium said:\n{stderr[-3000:]}"
    check: dict[str, Any] = json.loads(html.unescape(found.group(1)))
    problems = [f"figure {i} ({f['tag']}) does not render" for i, f in enumerate(check["figures"]) if not f["renders"]]
    problems += [f"console: {e}" for e in check["errors"]]
    problems += [f"anchor {a}: no such id" for a in check["dangling_anchors"]]
    problems += [f"link {x}: {why}" for x in check["links"] if (why := link_problem(report.parent, x))]
    return len(check["figures"]), problems


def figure_files(out: Path) -> int:
    doc = json.loads((out / "claims.json").read_text())
    return sum(len(f["images"]) for f in doc["figures"])


@pytest.fixture(scope="module")
def foundation(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from fanin.catalog.repro import repro

    out = tmp_path_factory.mktemp("report") / "foundation"
    repro("foundation", out=out, quick=True, jobs=2)
    return out


@pytest.fixture
def profile(tmp_path: Path) -> Path:
    return tmp_path / "chromium-profile"


@needs_chromium
def test_report_renders_in_chromium(foundation: Path, profile: Path) -> None:
    figures, problems = browser_problems(foundation / "report.html", profile)
    assert problems == []
    assert figures == figure_files(foundation) == 3  # each figure file is in the page, inline


def test_reports_name_no_absolute_path(foundation: Path) -> None:
    md = (foundation / "report.md").read_text()
    page = (foundation / "report.html").read_text()
    for text in (md, page):
        assert str(foundation) not in text and "file:" not in text
    links = re.findall(r"\]\(([^)\s]+)\)", md)
    assert any(x.startswith("figures/") for x in links)
    assert [(x, link_problem(foundation, x)) for x in links if link_problem(foundation, x)] == []
    # Every link stays inside the report folder, so the folder can be moved or uploaded whole.
    assert all(not x.startswith("..") for x in links), links
    assert any(x.startswith("readme/") for x in links)


@pytest.fixture
def png_report(foundation: Path, tmp_path: Path) -> Path:
    """The same report from the PNG files only: its figures are <img> with base64 data."""
    out = tmp_path / "png"
    (out / "figures").mkdir(parents=True)
    for png in (foundation / "figures").glob("*.png"):
        shutil.copy(png, out / "figures")
    shutil.copy(foundation / "claims.json", out)
    doc = json.loads((out / "claims.json").read_text())
    (out / "report.html").write_text(render_html(doc, out), encoding="utf-8")
    return out


@needs_chromium
def test_png_figures_render(png_report: Path, profile: Path) -> None:
    page = (png_report / "report.html").read_text()
    assert page.count('<img src="data:image/png;base64,') == figure_files(png_report) and "<svg" not in page
    assert browser_problems(png_report / "report.html", profile) == (3, [])


@needs_chromium
def test_checker_reports_a_broken_figure_and_bad_links(png_report: Path, profile: Path) -> None:
    report = png_report / "report.html"
    page = report.read_text()
    png = "data:image/png;base64,iVBORw0KGgo"  # the PNG signature, base64
    assert page.count(png) == 3
    broken = page.replace(png, "data:image/png;base64,AAAAAAAAAAA", 1)
    faults = (
        '<a href="figures/lone_flow.png">fine</a> <a href="#lone_flow">fine</a>'
        '<a href="#no-such-figure">x</a> <a href="gone.html">x</a> <a href="/etc/hostname">x</a>'
        '<script>console.error("boom"); undefinedFunction();</script>'
    )
    report.write_text(broken.replace("</body>", faults + "</body>"))
    figures, problems = browser_problems(report, profile)
    assert figures == 3
    load_error = "console: cannot load <img> data:image/png;base64,AAAAAAAAAAA"
    assert [p for p in problems if p.startswith(load_error)] != []
    assert sorted(p for p in problems if not p.startswith(load_error)) == [
        "anchor #no-such-figure: no such id",
        "console: Uncaught ReferenceError: undefinedFunction is not defined",
        "console: boom",
        "figure 0 (img) does not render",
        "link /etc/hostname: not relative",
        "link gone.html: no such file",
    ]
