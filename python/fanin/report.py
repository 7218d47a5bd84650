"""Paper-vs-fanin reports: ``report.md`` and a self-contained ``report.html``.

Both are rendered from ``claims.json`` (written by ``fanin repro``) and the figure files
beside it, so every number in them comes from the runs; nothing is typed in by hand.
"""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path
from typing import Any

from fanin.catalog.claims import fmt_value

_STATUS_MARK = {"pass": "pass", "fail": "FAIL", "error": "ERROR"}


def counts(claims: list[dict[str, Any]]) -> dict[str, int]:
    """Pass / fail / error counts, gating and report-only."""
    c = {"claims": len(claims), "pass": 0, "fail": 0, "error": 0, "gating": 0, "gating_failed": 0}
    for r in claims:
        c[r["status"]] += 1
        if r["gating"]:
            c["gating"] += 1
            c["gating_failed"] += r["status"] != "pass"
    return c


def _summary_line(c: dict[str, int]) -> str:
    return (
        f"{c['claims']} claims: {c['pass']} pass, {c['fail']} fail, {c['error']} error "
        f"({c['gating'] - c['gating_failed']} of {c['gating']} gating claims pass)"
    )


def _rows(claims: list[dict[str, Any]]) -> list[list[str]]:
    return [
        [
            r["id"],
            r["text"],
            fmt_value(r["paper"], r.get("unit", "")),
            fmt_value(r["fanin"], r.get("unit", "")),
            r["tolerance"],
            "gating" if r["gating"] else "report-only",
            _STATUS_MARK[r["status"]],
            r.get("note", ""),
        ]
        for r in claims
    ]


_HEAD = ["claim", "text", "paper", "fanin", "tolerance", "kind", "result", "note"]


def _summary_of(readme: str) -> str:
    """The README's first paragraph after its title: what the figure shows."""
    paras = [p.strip() for p in re.split(r"\n\s*\n", readme) if p.strip()]
    paras = [p for p in paras if not p.startswith("#")]
    return paras[0] if paras else ""


def _md_cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def render_markdown(doc: dict[str, Any]) -> str:
    all_claims = [c for f in doc["figures"] for c in f["claims"]]
    lines = [f"# {doc['title']}: paper vs fanin", ""]
    if doc.get("citation"):
        lines += [doc["citation"], ""]
    mode = "quick (reduced) runs" if doc["quick"] else "full runs"
    lines += [f"fanin {doc['fanin_version']}, {mode}. {_summary_line(counts(all_claims))}.", ""]
    for f in doc["figures"]:
        lines += [f"## {f['name']}: {f['title']}", ""]
        summary = _summary_of(f.get("readme", ""))
        if summary:
            lines += [summary, ""]
        see = f" See [README]({f['readme_path']})." if f.get("readme_path") else ""
        lines += [f"{f['runs']} runs ({f['executed']} executed now).{see}", ""]
        if f.get("plot_error"):
            lines += [f"**plot failed:** {f['plot_error']}", ""]
        for img in f["images"]:
            lines += [f"![{f['name']}]({img}.png)", ""]
        if f["claims"]:
            lines += ["| " + " | ".join(_HEAD) + " |", "|" + "---|" * len(_HEAD)]
            lines += ["| " + " | ".join(_md_cell(x) for x in row) + " |" for row in _rows(f["claims"])]
            lines.append("")
    return "\n".join(lines)


_CSS = """
body { font-family: system-ui, sans-serif; max-width: 1400px; margin: 2em auto; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
.fig { display: flex; flex-wrap: wrap; gap: 1.5em; align-items: flex-start; }
.fig .img { flex: 1 1 480px; max-width: 640px; } .fig .img svg, .fig .img img { width: 100%; height: auto; }
.fig .claims { flex: 1 1 560px; }
table { border-collapse: collapse; font-size: 0.85em; } td, th { border: 1px solid #ddd; padding: 3px 6px; }
th { background: #f4f4f4; } td.num { text-align: right; white-space: nowrap; }
tr.pass td.res { background: #d8f5d8; } tr.fail td.res, tr.error td.res { background: #f8d0d0; font-weight: bold; }
tr.reportonly { color: #666; } .summary { font-weight: bold; } .err { color: #b00; }
"""


def _inline_image(path: Path) -> str:
    svg = path.with_suffix(".svg")
    if svg.is_file():
        text = svg.read_text(encoding="utf-8")
        return text[text.find("<svg") :]  # drop the XML prolog and doctype
    png = path.with_suffix(".png")
    if png.is_file():
        data = base64.b64encode(png.read_bytes()).decode()
        return f'<img src="data:image/png;base64,{data}" alt="{html.escape(path.name)}">'
    return f'<p class="err">missing figure file {html.escape(path.name)}</p>'


def render_html(doc: dict[str, Any], root: Path) -> str:
    e = html.escape
    all_claims = [c for f in doc["figures"] for c in f["claims"]]
    mode = "quick (reduced) runs" if doc["quick"] else "full runs"
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>",
        f"<title>{e(doc['title'])}: paper vs fanin</title><style>{_CSS}</style></head><body>",
        f"<h1>{e(doc['title'])}: paper vs fanin</h1>",
    ]
    if doc.get("citation"):
        parts.append(f"<p>{e(doc['citation'])}</p>")
    parts.append(f"<p>fanin {e(doc['fanin_version'])}, {mode}. ")
    parts.append(f"<span class='summary'>{e(_summary_line(counts(all_claims)))}</span></p>")
    for f in doc["figures"]:
        parts.append(f"<h2 id='{e(f['name'])}'>{e(f['name'])}: {e(f['title'])}</h2>")
        summary = _summary_of(f.get("readme", ""))
        if summary:
            parts.append(f"<p>{e(summary)}</p>")
        parts.append(f"<p>{f['runs']} runs ({f['executed']} executed now).</p>")
        if f.get("plot_error"):
            parts.append(f"<p class='err'>plot failed: {e(f['plot_error'])}</p>")
        parts.append("<div class='fig'><div class='img'>")
        parts += [_inline_image(root / img) for img in f["images"]]
        parts.append("</div><div class='claims'>")
        if f["claims"]:
            parts.append("<table><tr>" + "".join(f"<th>{h}</th>" for h in _HEAD) + "</tr>")
            for r, row in zip(f["claims"], _rows(f["claims"]), strict=True):
                cls = r["status"] + ("" if r["gating"] else " reportonly")
                cells = [f"<td>{e(row[0])}</td>", f"<td>{e(row[1])}</td>"]
                cells += [f"<td class='num'>{e(x)}</td>" for x in row[2:5]]
                cells += [f"<td>{e(row[5])}</td>", f"<td class='res'>{e(row[6])}</td>", f"<td>{e(row[7])}</td>"]
                parts.append(f"<tr class='{cls}'>" + "".join(cells) + "</tr>")
            parts.append("</table>")
        parts.append("</div></div>")
    parts.append("</body></html>\n")
    return "\n".join(parts)
