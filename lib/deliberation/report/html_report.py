"""The HTML decision report: one self-contained file a person can open, print or attach
(docs/CLI.md, "`report --format html`", says what it shows).

`render_html` (or `html`, given the typed record) lays out the same typed record as the Markdown
(`decision_record.build`: a `record_model.DecisionRecord`), its sections and their contents from
one list (`SECTIONS`),
deterministic for the same state, with stable anchors tests and tooling read (`id="prd"`,
`id="heatmap"` with a `<rect data-score=…>` per cell, `id="findings"` with each finding anchored
by its citable id, `id="usage"`). Inline CSS and SVG, one inline script allowed by hash in the
Content-Security-Policy (it writes `data-rendered` / `data-box`), nothing fetched; every
model-written text goes through `html.escape`.
"""

from __future__ import annotations

from deliberation.state import record_model as R

import base64
import hashlib
import html as _html
import re
from typing import Any, Callable

from deliberation.report import decision_record as dr
from deliberation.report import outcome as oc
from deliberation.state.models import Deliberation, Lineage
from deliberation.text import conformity as conformity_words
from deliberation.text.depth import hot_spot_line
from deliberation.text.notes import TWO_AGENT_OUTCOME as OUTCOME_TEXT

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from deliberation.state.config import PriceTable

# score → colour: burnt orange (0) → warm paper (5) → steel blue → deep blue (10); colour-blind
# safe, prints; the extra stop at 7.5 spreads the 5-10 range where most scores fall
_STOPS = ((0.0, (178, 74, 36)), (5.0, (244, 240, 230)), (7.5, (110, 154, 196)), (10.0, (24, 66, 112)))
_BAND_CLASS = {"strong": "ok", "moderate": "mid", "weak": "bad"}

_SCRIPT = (
    "(function(){var h=document.getElementById('heatmap');if(!h)return;"
    "var c=h.querySelectorAll('[data-score]'),n=0;"
    "for(var i=0;i<c.length;i++){var r=c[i].getBoundingClientRect();"
    "if(r.width>0&&r.height>0){n++;c[i].setAttribute('data-box',[Math.round(r.left+window.scrollX),"
    "Math.round(r.top+window.scrollY),Math.round(r.width),Math.round(r.height)].join(','));}}"
    "h.setAttribute('data-rendered',String(n));})();"
)
SCRIPT_HASH = "sha256-" + base64.b64encode(hashlib.sha256(_SCRIPT.encode()).digest()).decode()
CSP = (
    f"default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src '{SCRIPT_HASH}'; "
    "base-uri 'none'; form-action 'none'"
)

_CSS = """
:root{--ink:#1f2328;--muted:#5f6670;--line:#e3ded3;--paper:#fbfaf7;--card:#fff;
--ok:#2d6a4f;--ok-bg:#e4f1ea;--bad:#a4372c;--bad-bg:#f8e6e2;--mid:#8a5a00;--mid-bg:#fbefd6;--accent:#26609a}
*{box-sizing:border-box}
html{-webkit-print-color-adjust:exact;print-color-adjust:exact}
body{margin:0;background:var(--paper);color:var(--ink);
font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:1080px;margin:0 auto;padding:28px 28px 48px}
header .kicker{text-transform:uppercase;letter-spacing:.08em;font-size:12px;color:var(--muted)}
h1{font-size:24px;line-height:1.3;margin:4px 0 12px;font-weight:650}
h2{font-size:17px;margin:0 0 12px;font-weight:650}
h3{font-size:15px;margin:0 0 8px;font-weight:600}
.meta{display:flex;flex-wrap:wrap;gap:6px 16px;color:var(--muted);font-size:13px;margin-bottom:18px}
.meta b{color:var(--ink);font-weight:600}
section{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:18px 20px;margin:0 0 16px;
break-inside:avoid;page-break-inside:avoid}
.grid2{display:grid;grid-template-columns:1fr 1fr;gap:16px}
.grid2>section{margin:0}
.decision .title{font-size:21px;font-weight:650;margin:0 0 4px}
.decision .summary{color:var(--muted);margin:0 0 12px}
.badge{display:inline-block;font-size:12px;font-weight:600;padding:1px 8px;border-radius:10px;vertical-align:middle}
.badge.ok{color:var(--ok);background:var(--ok-bg)}.badge.bad{color:var(--bad);background:var(--bad-bg)}
.badge.mid{color:var(--mid);background:var(--mid-bg)}.badge.plain{color:var(--muted);background:#efede7}
.meter{position:relative;height:12px;background:#ece8df;border-radius:6px;margin:10px 0 4px;max-width:520px}
.meter .fill{position:absolute;left:0;top:0;bottom:0;border-radius:6px;background:var(--accent)}
.meter .tick{position:absolute;top:-4px;bottom:-4px;width:2px;background:var(--ink)}
.meter-legend{position:relative;font-size:12px;color:var(--muted);max-width:520px;display:flex;justify-content:space-between;
height:34px}
.meter-legend .at{position:absolute;top:16px;white-space:nowrap}
.figures{font-variant-numeric:tabular-nums}
table{border-collapse:collapse;width:100%;font-size:14px;font-variant-numeric:tabular-nums}
th,td{padding:5px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{font-weight:600;color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.04em}
td.num,th.num{text-align:right}
.bar{height:8px;background:var(--accent);border-radius:4px;min-width:1px}
.heatwrap,.scroll{overflow-x:auto;max-width:100%}
.scroll{background:linear-gradient(to right,var(--card) 30%,rgba(255,255,255,0)),
linear-gradient(to left,var(--card) 30%,rgba(255,255,255,0)) 100% 0,
radial-gradient(farthest-side at 0 50%,rgba(31,35,40,.22),rgba(31,35,40,0)),
radial-gradient(farthest-side at 100% 50%,rgba(31,35,40,.22),rgba(31,35,40,0)) 100% 0;
background-repeat:no-repeat;background-size:40px 100%,40px 100%,14px 100%,14px 100%;
background-attachment:local,local,scroll,scroll}
.scroll-hint{display:none;font-size:12px;color:var(--muted);margin:0 0 4px}
body{overflow-wrap:break-word}
.outcome{border-width:2px}.outcome.act{border-color:#d9a21b;background:#fffaf0}.outcome.failed{border-color:var(--bad)}
.outcome .headline{font-size:20px;line-height:1.3;font-weight:650;margin:0 0 10px}
.question{margin:0 0 16px}.question .label{text-transform:uppercase;letter-spacing:.08em;font-size:12px;color:var(--muted)}
.question p{font-size:16px;margin:2px 0 8px}
.outcome dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 12px;margin:0}
.outcome dt{font-weight:600;color:var(--muted)}.outcome dd{margin:0;min-width:0}
.outcome pre{margin:6px 0 0;white-space:pre-wrap;word-break:normal;overflow-wrap:normal;overflow-x:auto;
font:13px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;
background:#f1efe9;padding:6px 8px;border-radius:6px}
nav.toc{font-size:13px;margin:0 0 16px;color:var(--muted)}nav.toc a{color:var(--accent);text-decoration:none;margin-right:10px;
display:inline-block}
.warnc .mark{color:var(--mid)}
#heatmap{display:block;max-width:100%;height:auto}
#heatmap text{font-family:inherit}
.legend{display:flex;align-items:center;gap:8px;font-size:12px;color:var(--muted);margin-top:8px}
.legend .scale{width:180px;height:10px;border-radius:5px;background:linear-gradient(90deg,rgb(178,74,36) 0%,rgb(244,240,230) 50%,rgb(110,154,196) 75%,rgb(24,66,112) 100%)}
.approaches{margin:10px 0 0;padding:0;list-style:none;font-size:13px;color:var(--muted)}
.approaches code{color:var(--ink)}
ul.checks{list-style:none;margin:0;padding:0}
ul.checks li{display:grid;grid-template-columns:22px 1fr;gap:2px 6px;padding:5px 0;border-bottom:1px solid var(--line)}
ul.checks li:last-child{border-bottom:0}
.mark{font-weight:700;text-align:center}
.pass .mark{color:var(--ok)}.fail .mark{color:var(--bad)}
.figure{font-variant-numeric:tabular-nums;color:var(--ink)}
.detail,.note{color:var(--muted);font-size:13px}
.next{margin-top:8px;font-size:13px;background:var(--mid-bg);padding:6px 10px;border-radius:6px}
code{font:13px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f1efe9;padding:0 4px;border-radius:4px}
ul.items{margin:0;padding-left:18px}ul.items li{margin:4px 0}
.warn{border-left:3px solid #d9a21b;padding-left:10px;margin:8px 0}
.why{color:var(--muted)}
ol.trail{margin:0;padding-left:20px}ol.trail>li{margin:6px 0}
ul.tree,ul.tree ul{list-style:none;margin:0;padding-left:18px}
ul.tree{padding-left:0}
ul.tree li{position:relative;padding:2px 0 2px 14px;font-size:14px}
ul.tree li::before{content:"";position:absolute;left:0;top:0;bottom:0;border-left:1px solid #cfc9bc}
ul.tree li::after{content:"";position:absolute;left:0;top:13px;width:10px;border-top:1px solid #cfc9bc}
ul.tree li:last-child::before{bottom:auto;height:13px}
.st-running,.st-requested{color:var(--accent);font-weight:600}.st-failed{color:var(--bad);font-weight:600}
footer{color:var(--muted);font-size:12px;text-align:center;margin-top:20px}
.cites{font-size:12px;color:var(--muted)}.cites a{color:var(--accent);text-decoration:none}
.sev-critical,.sev-high{color:var(--bad);font-weight:600}.sev-medium{color:var(--mid);font-weight:600}
.sev-low,.sev-info{color:var(--muted)}
.prd h3{margin-top:14px}.prd .lead{font-size:16px;margin:0 0 8px}
.prd-missing{background:var(--bad-bg);border-left:3px solid var(--bad);padding:8px 12px;border-radius:6px}
@media (max-width:760px){.grid2{grid-template-columns:1fr}main{padding:16px 10px 32px}section{padding:14px 12px}
.outcome dl{grid-template-columns:1fr}.scroll-hint{display:block}}
@media print{body{background:#fff;font-size:12px}main{max-width:none;padding:0}
section{border-color:#ccc;padding:10px 12px;margin-bottom:10px}.grid2{grid-template-columns:1fr 1fr}
.scroll,.heatwrap{overflow:visible}nav.toc,.scroll-hint{display:none}
@page{margin:14mm}}
"""


def esc(text: Any) -> str:
    """Escape anything for HTML text and attribute values."""
    return _html.escape("" if text is None else str(text), quote=True)


def score_colour(score: float) -> "tuple[int, int, int]":
    """RGB of a 0-10 score on the report's diverging scale (linear between the stops)."""
    x = max(0.0, min(10.0, float(score)))
    for (x0, c0), (x1, c1) in zip(_STOPS, _STOPS[1:]):
        if x <= x1:
            t = (x - x0) / (x1 - x0)
            r, g, b = (round(a + (z - a) * t) for a, z in zip(c0, c1))
            return r, g, b
    return _STOPS[-1][1]


def _hex(rgb: "tuple[int, int, int]") -> str:
    return "#%02x%02x%02x" % rgb


def luminance(colour: str) -> float:
    """WCAG 2 relative luminance of `#rrggbb` (or `#rgb`)."""
    h = colour.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)

    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(int(h[i : i + 2], 16) / 255) for i in (0, 2, 4))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two colours (1-21; AA for body text: at least 4.5)."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _text_colour(rgb: "tuple[int, int, int]") -> str:
    """White or black, whichever contrasts more with the cell's colour: one of the two reaches
    4.58:1 on any colour (WCAG AA asks 4.5), where the page's ink (#1f2328) does not always."""
    cell = _hex(rgb)
    return max(("#ffffff", "#000000"), key=lambda text: contrast(text, cell))


def _badge(text: str, cls: str) -> str:
    return f'<span class="badge {cls}">{esc(text)}</span>'


# --------------------------------------------------------------------------------------------
# sections


def _header(rec: R.DecisionRecord) -> str:
    """The page's first line: what this is. The decision comes next (the outcome card), before
    the question, so that on a phone it is on the first screen."""
    return '<header><div class="kicker">Decision record · ' + esc(rec.deliberation_id) + "</div></header>"


def _question(rec: R.DecisionRecord) -> str:
    """The question and the deliberation's facts, after the outcome."""
    over = " (overridden)" if rec.task_type_overridden else ""
    return (
        '<div class="question"><div class="label">Question</div>'
        f"<p>{esc(rec.question) or 'No question recorded'}</p>"
        '<div class="meta">'
        f"<span>task type <b>{esc(rec.task_type)}{over}</b></span>"
        f"<span>threshold <b>{rec.threshold:.2f}</b></span>"
        f"<span>phase <b>{esc(rec.phase)}</b></span>"
        f"<span>session <b>{esc(rec.session_id)}</b></span>"
        f"<span>opened <b>{esc(rec.created_at)}</b></span>"
        f"<span>updated <b>{esc(rec.updated_at)}</b></span>"
        "</div></div>"
    )


def _decision(rec: R.DecisionRecord) -> str:
    d = rec.decision
    if d.approach is None and d.outcome != "no-consensus":
        return (
            '<section id="decision" class="decision"><h2>Decision</h2>'
            f"<p>No approach has been ranked yet (phase {esc(rec.phase)}).</p></section>"
        )
    if d.outcome == "no-consensus":
        lead = (
            (
                f"leading approach, not adopted: {esc(d.title)} <code>{esc(d.approach)}</code>, "
                f"consensus {d.consensus:.2f} vs threshold {d.threshold:.2f}"
            )
            if d.consensus is not None
            else ""
        )
        return (
            '<section id="decision" class="decision"><h2>Decision</h2>'
            f'<p class="title">No consensus — handed to the user {_badge("human review", "bad")}</p>'
            '<p class="summary">The panel did not agree; nothing is adopted until a person settles it '
            f"(<code>deliberation approve {esc(rec.deliberation_id)}</code> adopts the leading approach, "
            f"<code>deliberation reject {esc(rec.deliberation_id)}</code> sets it aside).</p>"
            f'<p class="note figures">{lead}</p></section>'
        )
    if d.outcome == "rejected":
        return (
            '<section id="decision" class="decision"><h2>Decision</h2>'
            f'<p class="title">Rejected — no approach adopted {_badge("unanimous reject", "bad")}</p>'
            f'<p class="summary">Every agent that voted rejected: the panel adopts none of the approaches.</p>'
            f'<p class="note figures">{d.approvals} approve · {d.rejections} reject · {d.abstentions} abstain · '
            f"top-scored approach, not adopted: {esc(d.title)} <code>{esc(d.approach)}</code>, "
            f"consensus {d.consensus:.2f}</p></section>"
        )
    meets = d.meets_threshold
    cons, thr, band = d.consensus or 0.0, d.threshold, d.band or "weak"  # set once ranked
    verdict = _badge("meets threshold" if meets else "below threshold", "ok" if meets else "bad")
    return (
        '<section id="decision" class="decision"><h2>Decision</h2>'
        f'<p class="title">{esc(d.title)} <code>{esc(d.approach)}</code></p>'
        + (f'<p class="summary">{esc(d.summary)}</p>' if d.summary else "")
        + f'<div class="figures">consensus <b>{cons:.2f}</b> vs threshold <b>{thr:.2f}</b> '
        f"{verdict} {_badge(band + ' consensus', _BAND_CLASS[band])}</div>"
        f'<div class="meter" role="img" aria-label="consensus {cons:.2f}, threshold {thr:.2f}">'
        f'<div class="fill" style="width:{cons * 100:.1f}%"></div>'
        f'<div class="tick" style="left:calc({thr * 100:.1f}% - 1px)"></div></div>'
        f'<div class="meter-legend"><span>0</span><span class="at" style="{_label_anchor(thr)}">'
        f"threshold {thr:.2f}</span><span>1</span></div>"
        f'<p class="note figures">spread {d.spread:.2f} · stdev {d.stdev:.2f} · {d.agents} scoring agents · '
        f"{d.approvals} approve · {d.rejections} reject · {d.abstentions} abstain</p>"
        + (f'<p class="note">Recorded decision: {esc(d.text)}</p>' if d.text and d.text not in (d.title, d.approach) else "")
        + "</section>"
    )


def _label_anchor(thr: float) -> str:
    """The threshold label sits on its own line under the meter, anchored so that it stays
    inside the meter's width: by its left edge near 0, its right edge near 1, else centred."""
    if thr < 0.25:
        return f"left:{thr * 100:.1f}%"
    if thr > 0.75:
        return f"right:{(1 - thr) * 100:.1f}%"
    return f"left:{thr * 100:.1f}%;transform:translateX(-50%)"


def _outcome(rec: R.DecisionRecord) -> str:
    """The first card: the outcome, the route, what the reader must do (the commands), why."""
    o = oc.outcome(rec)
    cls = "act" if o.must_act else ("failed" if o.kind == "failed" else "")
    commands = "".join(f"<pre>{esc(c)}</pre>" for c in o.commands)
    why = "".join(f"<div>{esc(w)}</div>" for w in o.why) or "—"
    label = "What you must do" if o.must_act else "Action"
    return (
        f'<section id="outcome" class="outcome {cls}"><h2>Outcome</h2>'
        f'<h1 class="headline">{esc(o.headline)}</h1><dl>'
        f"<dt>Route</dt><dd>{esc(o.route)}</dd>"
        f"<dt>{label}</dt><dd>{esc(o.action)}{commands}</dd>"
        f"<dt>Why</dt><dd>{why}</dd></dl></section>"
    )


def _toc(parts: "list[tuple[str, str, str]]") -> str:
    """Links to the sections the body holds, in the body's order (`parts`: id, label, html)."""
    links = "".join(f'<a href="#{key}">{label}</a>' for key, label, _html in parts)
    return f'<nav class="toc" aria-label="Contents">Contents: {links}</nav>' if links else ""


def _cut(text: str, n: int) -> str:
    return dr.one_line(text, n)


def heatmap_svg(rec: R.DecisionRecord) -> str:
    """The persona × approach heatmap as inline SVG (id="heatmap", one rect per score)."""
    rows, approaches = rec.scores, rec.approaches
    lead = rec.decision.approach
    label_w, cell_w, cell_h, gap, head_h = 200, 112, 44, 4, 54
    n = len(approaches)
    width = label_w + n * (cell_w + gap)
    height = head_h + (len(rows) + 1) * (cell_h + gap) + 4
    parts = [
        f'<svg id="heatmap" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="weighted score per persona and approach" '
        f'data-cells="{sum(len(r.scores) for r in rows)}">'
    ]
    for j, a in enumerate(approaches):
        x = label_w + j * (cell_w + gap)
        cx = x + cell_w / 2
        star = " ★" if a.id == lead else ""
        parts.append(
            f'<text x="{cx:.0f}" y="22" text-anchor="middle" font-size="14" font-weight="700" '
            f'fill="#1f2328">{esc(_cut(a.id, 12))}{star}</text>'
        )
        parts.append(
            f'<text x="{cx:.0f}" y="40" text-anchor="middle" font-size="11" fill="#5f6670">'
            f"{esc(_cut(a.title, 18))}<title>{esc(a.title)}</title></text>"
        )
        if a.id == lead:
            y0 = head_h - 4
            h = (len(rows) + 1) * (cell_h + gap) + 4
            parts.append(
                f'<rect x="{x - 2}" y="{y0}" width="{cell_w + 4}" height="{h}" rx="6" fill="none" '
                'stroke="#1f2328" stroke-width="2"/>'
            )
    for i, row in enumerate(rows):
        y = head_h + i * (cell_h + gap)
        parts.append(
            f'<text x="{label_w - 12}" y="{y + cell_h / 2 + 5:.0f}" text-anchor="end" font-size="14" '
            f'fill="#1f2328">{esc(_cut(row.label, 26))}<title>{esc(row.label)}</title></text>'
        )
        for j, a in enumerate(approaches):
            x = label_w + j * (cell_w + gap)
            score = row.scores.get(a.id)
            if score is None:
                parts.append(
                    f'<rect class="missing" x="{x}" y="{y}" width="{cell_w}" height="{cell_h}" rx="4" '
                    'fill="#ffffff" stroke="#d8d3c8" stroke-dasharray="4 3"/>'
                    f'<text x="{x + cell_w / 2:.0f}" y="{y + cell_h / 2 + 5:.0f}" text-anchor="middle" '
                    'font-size="13" fill="#5f6670">not scored</text>'
                )
                continue
            rgb = score_colour(score)
            parts.append(
                f'<rect class="cell" x="{x}" y="{y}" width="{cell_w}" height="{cell_h}" rx="4" fill="{_hex(rgb)}" '
                f'data-score="{score:.4g}" data-agent="{esc(row.agent)}" data-approach="{esc(a.id)}">'
                f"<title>{esc(row.label)} → {esc(a.id)}: {score:.2f}</title></rect>"
                f'<text x="{x + cell_w / 2:.0f}" y="{y + cell_h / 2 + 6:.0f}" text-anchor="middle" font-size="16" '
                f'font-weight="{700 if a.id == lead else 500}" fill="{_text_colour(rgb)}" '
                f'pointer-events="none">{score:.2f}</text>'
            )
    y = head_h + len(rows) * (cell_h + gap)
    parts.append(
        f'<text x="{label_w - 12}" y="{y + cell_h / 2 + 5:.0f}" text-anchor="end" font-size="13" '
        'font-style="italic" fill="#5f6670">mean</text>'
    )
    for j, a in enumerate(approaches):
        if a.mean is None:
            continue
        x = label_w + j * (cell_w + gap)
        parts.append(
            f'<text x="{x + cell_w / 2:.0f}" y="{y + cell_h / 2 + 5:.0f}" text-anchor="middle" font-size="14" '
            f'font-style="italic" fill="#1f2328" data-mean="{a.mean:.4g}">{a.mean:.2f}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _scores(rec: R.DecisionRecord) -> str:
    if not rec.scores:
        return '<section id="scores"><h2>Scores</h2><p class="note">No ranking yet.</p></section>'
    items = "".join(
        f"<li><code>{esc(a.id)}</code> {esc(a.title)}"
        + (" — <b>leading</b>" if a.leading else "")
        + (" — struck by the depth axis" if a.struck else "")
        + "</li>"
        for a in rec.approaches
    )
    return (
        '<section id="scores"><h2>Scores: persona × approach (weighted, 0–10)</h2>'
        f'<div class="heatwrap">{heatmap_svg(rec)}</div>'
        '<div class="legend"><span>0</span><span class="scale"></span><span>10</span>'
        "<span>★ leading approach, outlined</span></div>"
        f'<ul class="approaches">{items}</ul></section>'
    )


def _breakdown(rec: R.DecisionRecord) -> str:
    rows = rec.leading_breakdown
    if not rows:
        return ""
    agents = list(rows[0].by_agent)
    head = (
        '<tr><th>Dimension</th><th class="num">Weight</th>'
        + "".join(f'<th class="num">{esc(a)}</th>' for a in agents)
        + '<th class="num">Mean</th><th style="width:22%">Mean (0–10)</th><th class="num">Weighted</th></tr>'
    )
    body = []
    for r in rows:
        cells = []
        for a in agents:
            v = r.by_agent[a]
            if v is None:
                cells.append('<td class="num">—</td>')
            else:
                rgb = score_colour(v)
                cells.append(f'<td class="num" style="background:{_hex(rgb)};color:{_text_colour(rgb)}">{v:.1f}</td>')
        mean = r.mean or 0.0
        body.append(
            f'<tr><td>{esc(r.dimension)}</td><td class="num">{r.weight:.2f}</td>'
            + "".join(cells)
            + f'<td class="num">{dr.fmt_score(r.mean)}</td>'
            f'<td><div class="bar" style="width:{mean * 10:.1f}%"></div></td>'
            f'<td class="num">{dr.fmt_score(r.contribution)}</td></tr>'
        )
    total = rec.decision.mean or 0.0  # = Σ contributions, without a second rounding
    body.append(
        f'<tr><td><b>total</b></td><td class="num">{sum(r.weight for r in rows):.2f}</td>'
        + "<td></td>" * len(agents)
        + f'<td></td><td></td><td class="num"><b>{total:.2f}</b></td></tr>'
    )
    return (
        f'<section id="breakdown"><h2>Five-dimension breakdown of <code>{esc(rec.decision.approach)}</code></h2>'
        f"<table>{head}{''.join(body)}</table></section>"
    )


def _alternatives(rec: R.DecisionRecord) -> str:
    if not rec.alternatives:
        return '<section id="alternatives"><h2>Alternatives</h2><p class="note">None were ranked.</p></section>'
    rows = "".join(
        f"<tr><td><code>{esc(a.id)}</code></td><td>{esc(a.title)}"
        + (f'<div class="detail">{esc(a.summary)}</div>' if a.summary else "")
        + (' <span class="badge bad">struck by the depth axis</span>' if a.struck else "")
        + f'</td><td class="num">{dr.fmt_score(a.mean)}</td>'
        f'<td class="num">{"—" if a.gap is None else format(a.gap, "+.2f")}</td></tr>'
        for a in rec.alternatives
    )
    return (
        '<section id="alternatives"><h2>Alternatives</h2><table><tr><th>Id</th><th>Approach</th>'
        f'<th class="num">Mean</th><th class="num">vs leading</th></tr>{rows}</table></section>'
    )


def _gate(title: str, g: "R.GateRow | None") -> str:
    if g is None:
        return f"<section><h3>{title} {_badge('not run', 'plain')}</h3></section>"
    marks = {"pass": ("pass", "✓"), "warn": ("warnc", "!"), "fail": ("fail", "✗")}
    items = "".join(
        f'<li class="{marks[oc.check_mark(c)][0]}"><span class="mark">{marks[oc.check_mark(c)][1]}</span>'
        f'<span><code>{esc(c.name)}</code> <span class="figure">{esc(c.figure)}</span>'
        + (f'<div class="detail">{esc(c.detail)}</div>' if c.detail else "")
        + "</span></li>"
        for c in g.checks
    )
    nxt = f'<div class="next">Next step: {esc(g.next_step)}</div>' if g.next_step else ""
    mark = oc.gate_mark(g)
    badge = _badge(mark, {"passed": "ok", "passed with warnings": "mid", "failed": "bad"}[mark])
    return f'<section><h3>{title} {badge}</h3><div class="detail">{esc(g.at)}</div><ul class="checks">{items}</ul>{nxt}</section>'


def _gates(rec: R.DecisionRecord) -> str:
    return (
        '<div class="grid2" id="gates" style="margin-bottom:16px">'
        + _gate("Gate 1 — consensus", rec.gates.consensus)
        + _gate("Gate 2 — quality", rec.gates.quality)
        + "</div>"
    )


def _dissent_conformity(rec: R.DecisionRecord) -> "tuple[str, str]":
    if rec.dissent or rec.undocumented_dissent:
        items = "".join(
            (f'<li id="{_anchor(c.id)}"><code>{esc(c.id)}</code> ' if c.id else "<li>")
            + f'<b>{esc(c.label)}</b> <span class="detail">({esc(c.stage)}, verdict {esc(c.verdict)})</span> '
            f'on <code>{esc(c.target)}</code>: {esc(c.concern)}<div class="why">Reason: {esc(c.reason)}</div></li>'
            for c in rec.dissent
        )
        items += "".join(
            f"<li><b>{esc(x.label)}</b> dissented ({esc(x.why)}) "
            f'<span class="badge bad">without documenting a concern</span></li>'
            for x in rec.undocumented_dissent
        )
        dissent = f'<ul class="items">{items}</ul>'
    else:
        dissent = '<p class="note">No agent dissented.</p>'
    if rec.conformity:
        conf = "".join(
            f'<div class="warn"><b>{esc(w.detector.replace("_", " "))}</b> '
            f'<span class="detail">({esc(", ".join(w.agents))})</span><div>{esc(w.evidence)}</div>'
            f'<div class="why">Recommendation: {esc(w.recommendation)}</div></div>'
            for w in rec.conformity
        )
        conf += (
            '<p class="note">The detectors flag herding patterns; they cannot tell genuine agreement '
            "reached for different reasons from herding.</p>"
        )
    else:
        conf = '<p class="note">No herding pattern detected.</p>'
    i = rec.independence
    if i is not None:
        conf = f"<p>{esc(conformity_words.beyond_context(i.findings, len(i.restated), len(i.dropped)))}</p>" + conf
    two = rec.two_agent
    if two:
        conf = (
            f"<p><b>Minimum viable deliberation (2 agents):</b> {esc(OUTCOME_TEXT.get(two.verdict, two.verdict))}"
            f" — {esc(two.detail)}</p>"
        ) + conf
    return (
        f'<section id="dissent"><h2>Dissent</h2>{dissent}</section>',
        f'<section id="conformity"><h2>Conformity warnings</h2>{conf}</section>',
    )


def _depth(rec: R.DecisionRecord) -> str:
    d = rec.depth
    t = d.tokens
    by = t.agents_by_source
    tokens = (
        f' · <span title="{esc(t.counted)}">{t.used} subagent tokens counted '
        f"({by.get('transcript', 0)} from transcripts, {by.get('totalTokens', 0)} totalTokens, "
        f"{by.get('task-notification', 0)} task notifications, {t.agents_not_counted} not counted)</span>"
    )
    basis = f" · planned on the {esc(d.basis)}" if d.basis else ""
    head = (
        f'<p class="figures">posture <b>{esc(d.posture or "—")}</b> · status <b>{esc(d.status)}</b> · '
        f"{d.passes} additional pass(es) · {d.workers_per_wave} workers per wave{basis}{tokens}</p>"
    )
    if d.clamped:
        head += f'<p class="note">Clamped: {esc(d.clamped)}</p>'
    if d.skipped_reason:
        head += f'<div class="warn"><b>Deepening skipped:</b> {esc(d.skipped_reason)}</div>'
    if not d.hot_spots and not d.tier2:
        return f'<section id="depth"><h2>Depth axis</h2>{head}<p class="note">No hot spot was deepened.</p></section>'
    steps = []
    if d.hot_spots:
        found = dr.hot_spot_verdicts(d)
        spots = "".join(
            f"<li><code>{esc(h.id)}</code> {_badge(hot_spot_line(h.kind, found.get(h.id, [])), 'plain')} "
            f"{esc(h.statement)}"
            f'<div class="detail">sources: {esc(", ".join(h.sources))}</div></li>'
            for h in d.hot_spots
        )
        steps.append(f'<li><b>Hot spots</b> from the breadth pass and the red team<ul class="items">{spots}</ul></li>')
    if d.tier2:
        lens = ", ".join(f"{esc(k)} {v}" for k, v in sorted(d.tier2_by_lens.items()))
        workers = []
        for w in d.tier2:
            refs = "".join(
                f"<li>{_badge(x.verdict, 'bad' if x.verdict == 'refuted' else 'plain')} "
                f"<code>{esc(x.target)}</code> {esc(x.claim)}"
                f'<div class="detail">evidence: {esc(x.evidence) or "none"}</div></li>'
                for x in w.refutations
            )
            zero = " " + _badge("zero signal: restated tier 1", "mid") if w.zeroed else ""
            spots = (" on " + ", ".join(f"<code>{esc(h)}</code>" for h in w.hot_spots)) if w.hot_spots else ""
            workers.append(
                f'<li><b>{esc(w.label)}</b>{spots}{zero}<div class="detail">{esc(w.summary)}</div>'
                + (f'<ul class="items">{refs}</ul>' if refs else "")
                + "</li>"
            )
        steps.append(f'<li><b>Tier 2</b> — fresh workers by lens: {lens or "—"}<ul class="items">{"".join(workers)}</ul></li>')
    if d.overrides:
        ov = "".join(
            f"<li><code>{esc(o.hot_spot)}</code> → <code>{esc(o.target)}</code>: <b>{esc(o.effect)}</b>"
            f'<div class="detail">evidence: {esc(o.evidence)}</div></li>'
            for o in d.overrides
        )
        steps.append(
            f"<li><b>Depth-aware synthesis</b>: evidence-backed tier-2 refutations override tier 1"
            f'<ul class="items">{ov}</ul></li>'
        )
    if d.zeroed:
        steps.append(f"<li><b>Zero signal</b> (tier 1 stands): {esc(', '.join(d.zeroed))}</li>")
    return f'<section id="depth"><h2>Depth axis</h2>{head}<ol class="trail">{"".join(steps)}</ol></section>'


def _route(rec: R.DecisionRecord) -> str:
    r = rec.route
    if r is None:
        return '<section id="route"><h2>Route</h2><p class="note">Not routed yet.</p></section>'
    cls = {"auto-execute": "ok", "auto-reject": "ok", "human-review": "mid", "hard-reject": "bad"}[r.route]
    rules = "".join(f"<li><b>{esc(x.rule)}</b> {esc(x.detail)}</li>" for x in r.rules) or "<li>No escalation rule fired.</li>"
    probes = ""
    if r.probes:
        rows = "".join(
            f"<tr><td>{esc(p.name)}</td><td>{_badge('pass', 'ok') if p.passed else _badge('timeout' if p.timed_out else 'fail', 'bad')}</td>"
            f'<td class="num">{"—" if p.exit_code is None else p.exit_code}</td><td class="num">{p.duration_s:.1f}s</td>'
            f"<td>{esc(p.causal_warning) or '—'}</td></tr>"
            for p in r.probes
        )
        probes = (
            '<h3 style="margin-top:12px">Probes</h3><table><tr><th>Probe</th><th>Result</th><th class="num">Exit</th>'
            f'<th class="num">Time</th><th>Causal warning</th></tr>{rows}</table>'
        )
    policy = f" · policy <b>{esc(r.policy)}</b> · decided by <b>{esc(r.decided_by or '—')}</b>" if r.policy else ""
    notes = "".join(f'<p class="note">{esc(n)}</p>' for n in r.notes or [])
    if r.reviewed_by:
        reason = f" Reason: {esc(r.review_reason)}" if r.review_reason else " No reason given."
        notes = (
            f"<p><b>{esc(r.review.capitalize())}</b> by <b>{esc(r.reviewed_by)}</b> at "
            f"{esc(dr.fmt_utc(r.reviewed_at))}.{reason}</p>"
        ) + notes
    return (
        f'<section id="route"><h2>Route {_badge(r.route, cls)}</h2>'
        f"<p>Decision class <code>{esc(r.decision_class)}</code> · vote {'unanimous' if r.unanimous else 'split'} · "
        f'review {esc(r.review.replace("_", " "))}{policy}</p><h3>Why</h3><ul class="items">{rules}</ul>{notes}{probes}</section>'
    )


def lineage_html(lineage: Lineage) -> str:
    """The spawn tree as nested lists, with active/total children per parent."""
    rows = dr.lineage_rows(lineage)
    act, tot = dr.children_counts(lineage).get(dr.MAIN, (0, 0))
    out = [f'<ul class="tree"><li><b>main</b> <span class="detail">{act} active / {tot} spawned</span>']
    level = -1
    for r in rows:
        if r.level > level:
            out.append("<ul>" * (r.level - level))
        else:
            out.append("</li>" + "</ul></li>" * (level - r.level))
        level = r.level
        s = r.spawn
        kids = f' <span class="detail">{r.active} active / {r.total} spawned</span>' if r.total else ""
        orphan = ' <span class="badge mid">parent unknown</span>' if r.orphan else ""
        out.append(
            f"<li>{esc(dr.spawn_label(s))} <code>{esc(dr.one_line(r.node, 40))}</code> "
            f'<span class="detail">depth {s.depth} · {"background" if s.background else "foreground"} ·</span> '
            f'<span class="st-{esc(s.status)}">{esc(s.status)}</span>{kids}{orphan}'
        )
    if level >= 0:
        out.append("</li>" + "</ul></li>" * level + "</ul>")
    out.append("</li></ul>")
    denied = "".join(
        f'<li>{esc(d.subagent_type)} <span class="detail">({esc(d.rule)}, {esc(dr.fmt_utc(d.at))})</span>: {esc(d.reason)}</li>'
        for d in lineage.denied
    )
    if denied:
        out.append(f'<h3 style="margin-top:12px">Denied spawns</h3><ul class="items">{denied}</ul>')
    return "".join(out)


def _anchor(source_id: str) -> str:
    """The element id of a citable item (findings, dissent): `src-` + its id, made id-safe."""
    return "src-" + "".join(c if c.isalnum() or c in "-_" else "_" for c in source_id)


def _cites(sources: "list[R.SourceRef]") -> str:
    if not sources:
        return ""
    links = []
    for x in sources:
        if x.kind == "unknown":
            links.append(f"<code>{esc(x.id)}</code> {_badge('unknown', 'bad')}")
        elif x.kind == "hot_spot":
            links.append(f'<code title="{esc(x.text)}">{esc(x.id)}</code>')
        else:
            links.append(f'<a href="#{_anchor(x.id)}" title="{esc(x.text)}"><code>{esc(x.id)}</code></a>')
    return f'<div class="cites">cites {", ".join(links)}</div>'


def _prd(rec: R.DecisionRecord) -> str:
    p = rec.prd
    doc = p.document
    if doc is None:
        if p.status == "missing":
            return (
                '<section id="prd" class="prd"><h2>Decision document (PRD) ' + _badge("missing", "bad") + "</h2>"
                f'<div class="prd-missing">Recorded without a decision document after {p.send_backs} send-back(s): '
                f"{esc(p.problem)}</div></section>"
            )
        state = (
            "the vote passed; the main agent's concluding answer brings it"
            if p.status == "due"
            else "the vote has not passed yet"
        )
        return (
            f'<section id="prd" class="prd"><h2>Decision document (PRD) {_badge("not written yet", "plain")}</h2>'
            f'<p class="note">{esc(state)}.</p></section>'
        )
    parts = [f'<p class="lead"><b>Decision.</b> {esc(doc.decision)}</p>']
    if doc.problem:
        parts.append(f"<p><b>Problem.</b> {esc(doc.problem)}</p>")
    if doc.requirements:
        rows = "".join(
            f"<tr><td><code>{esc(r.id)}</code></td><td>{esc(r.priority)}</td><td>{esc(r.text)}{_cites(r.sources)}</td>"
            f"<td>{esc(', '.join(r.verified_by)) or '—'}</td></tr>"
            for r in doc.requirements
        )
        parts.append(
            "<h3>Requirements</h3><table><tr><th>Id</th><th>Priority</th><th>Requirement</th>"
            f"<th>Verified by</th></tr>{rows}</table>"
        )
    if doc.non_goals:
        items = "".join(f"<li>{esc(n.text)}{_cites(n.sources)}</li>" for n in doc.non_goals)
        parts.append(f'<h3>Non-goals</h3><ul class="items">{items}</ul>')
    if doc.acceptance_criteria:
        rows = "".join(
            f"<tr><td><code>{esc(a.id)}</code></td><td>{esc(a.text)}{_cites(a.sources)}</td>"
            f"<td>{esc(', '.join(a.verifies)) or '—'}</td></tr>"
            for a in doc.acceptance_criteria
        )
        parts.append(f"<h3>Acceptance criteria</h3><table><tr><th>Id</th><th>Criterion</th><th>Verifies</th></tr>{rows}</table>")
    if doc.risks:
        rows = "".join(
            f'<tr><td><code>{esc(k.id)}</code></td><td class="sev-{esc(k.severity)}">{esc(k.severity)}</td>'
            f"<td>{esc(k.risk)}{_cites(k.sources)}</td><td>{esc(k.mitigation)}</td></tr>"
            for k in doc.risks
        )
        parts.append(
            "<h3>Risks and mitigations</h3><table><tr><th>Id</th><th>Severity</th><th>Risk</th>"
            f"<th>Mitigation</th></tr>{rows}</table>"
        )
    if doc.open_questions:
        items = "".join(f"<li>{esc(q.question)}{_cites(q.sources)}</li>" for q in doc.open_questions)
        parts.append(f'<h3>Open questions</h3><ul class="items">{items}</ul>')
    t = p.trace
    if t:
        kinds = ", ".join(f"{n} {k.replace('_', ' ')}(s)" for k, n in t.by_kind.items() if n)
        parts.append(
            f'<p class="note">Traceability: {t.citations} citation(s) from {t.items} item(s) resolve to '
            f"{esc(kinds) or 'nothing'}"
            + (f"; no acceptance criterion verifies {esc(', '.join(t.uncovered))}" if t.uncovered else "")
            + ".</p>"
        )
    badge = _badge("accepted", "ok") if p.status == "accepted" else _badge(p.status, "plain")
    return f'<section id="prd" class="prd"><h2>Decision document (PRD) {badge}</h2>{"".join(parts)}</section>'


def _findings(rec: R.DecisionRecord) -> str:
    if not rec.findings:
        return ""
    groups = []
    for g in rec.findings:
        items = []
        for f in g.findings:
            sid = f.id or f.local_id
            cited = f' <span class="cites">cited by {esc(", ".join(f.cited_by))}</span>' if f.cited_by else ""
            items.append(
                f'<li id="{_anchor(sid)}"><code>{esc(sid)}</code> <span class="sev-{esc(f.severity)}">'
                f"{esc(f.severity)}</span> {esc(f.claim)}{cited}"
                f'<div class="detail">evidence: {esc(f.evidence) or "none given"}</div></li>'
            )
        for r in g.refutations:
            sid = r.id or "-"
            cited = f' <span class="cites">cited by {esc(", ".join(r.cited_by))}</span>' if r.cited_by else ""
            items.append(
                f'<li id="{_anchor(sid)}"><code>{esc(sid)}</code> '
                f"{_badge(r.verdict, 'bad' if r.verdict == 'refuted' else 'plain')} "
                f"<code>{esc(r.target)}</code> {esc(r.claim)}{cited}"
                f'<div class="detail">evidence: {esc(r.evidence) or "none"}</div></li>'
            )
        groups.append(
            f'<h3>{esc(g.label)} <span class="detail">{esc(g.stage)}</span></h3><ul class="items">{"".join(items)}</ul>'
        )
    return f'<section id="findings"><h2>Findings by persona</h2>{"".join(groups)}</section>'


def _usage(rec: R.DecisionRecord) -> str:
    u = rec.usage

    def n(v: "int | None") -> str:
        return "—" if v is None else f"{v:,}"

    rows = "".join(
        f"<tr><td>{esc(r.label)}</td><td>{esc(r.stage)}</td><td>{'background' if r.background else 'foreground'}</td>"
        f"<td>{esc(r.model or '—')}</td>"
        f'<td class="num">{n(r.calls)}</td><td class="num">{n(r.input_tokens)}</td>'
        f'<td class="num">{n(r.cache_creation_input_tokens)}</td><td class="num">{n(r.cache_read_input_tokens)}</td>'
        f'<td class="num">{n(r.output_tokens)}</td><td class="num"><b>{r.total_tokens:,}</b></td>'
        f'<td>{esc(r.source)}</td><td class="num">{esc(dr.duration(r.wall_s))}</td></tr>'
        for r in u.per_agent
    )
    b = u.breakdown
    rows += (
        f'<tr><td><b>total</b></td><td></td><td></td><td></td><td class="num">{u.calls:,}</td>'
        f'<td class="num">{b["input_tokens"]:,}</td><td class="num">{b["cache_creation_input_tokens"]:,}</td>'
        f'<td class="num">{b["cache_read_input_tokens"]:,}</td><td class="num">{b["output_tokens"]:,}</td>'
        f'<td class="num"><b>{u.total_tokens:,}</b></td><td></td>'
        f'<td class="num">{esc(dr.duration(u.wall_time_s))} wall</td></tr>'
    )
    m = u.money
    prices = ""
    if m is not None:
        rates = "; ".join(
            f"<code>{esc(k)}</code> input {r['input']}, cache write {r['cache_write']}, cache read "
            f"{r['cache_read']}, output {r['output']}"
            for k, r in m.rates_per_mtok.items()
        )
        prices = (
            f'<p class="note">Prices ({esc(m.currency)} per million tokens, as of {esc(m.as_of)}, from '
            f"{esc(m.source)}): {rates}.</p>"
        )
    return (
        '<section id="usage"><h2>Cost and usage</h2>'
        f'<p class="figures">{esc(u.summary)}</p>'
        '<table><tr><th>Agent</th><th>Stage</th><th>Mode</th><th>Model</th><th class="num">Calls</th>'
        '<th class="num">Input</th>'
        '<th class="num">Cache write</th><th class="num">Cache read</th><th class="num">Output</th>'
        f'<th class="num">Total</th><th>Source</th><th class="num">Time</th></tr>{rows}</table>'
        f'<p class="note">Counted: {esc(u.counted)}.</p>{prices}</section>'
    )


def _lineage(lineage: "Lineage | None") -> str:
    if lineage is None:
        return ""
    return f'<section id="lineage"><h2>Lineage</h2>{lineage_html(lineage)}</section>'


def _warnings(rec: R.DecisionRecord) -> str:
    if not (rec.warnings or rec.failure_reasons):
        return ""
    w = "".join(f'<div class="warn">{esc(x)}</div>' for x in rec.warnings)
    f = "".join(f'<div class="warn"><b>failure:</b> {esc(x)}</div>' for x in rec.failure_reasons)
    return f'<section id="warnings"><h2>Warnings</h2>{w}{f}</section>'


def _phases(rec: R.DecisionRecord) -> str:
    if not rec.phase_history:
        return ""
    rows = "".join(
        f'<tr><td class="figures">{esc(p.at)}</td><td>{esc(p.from_)} → {esc(p.to)}</td><td>{esc(p.why)}</td></tr>'
        for p in rec.phase_history
    )
    return (
        f'<section id="phases"><h2>Phase history</h2><table><tr><th>When</th><th>Transition</th>'
        f"<th>Why</th></tr>{rows}</table></section>"
    )


def _participants(rec: R.DecisionRecord) -> str:
    if not rec.participants:
        return ""
    rows = "".join(
        f'<tr><td>{esc(p.label)}</td><td>{esc(p.kind)}</td><td>{esc(p.stage)}</td><td class="num">{p.tier}</td>'
        f"<td>{esc(p.status)}{' (superseded)' if p.superseded else ''}"
        + (f'<div class="detail">{esc(p.problem)}</div>' if p.problem else "")
        + f"</td><td>{esc(p.verdict or '—')}</td><td>{esc(p.preferred or '—')}</td>"
        f'<td class="num">{dr.fmt_score(p.confidence)}</td></tr>'
        for p in rec.participants
    )
    return (
        '<section id="participants"><h2>Participants</h2><table><tr><th>Agent</th><th>Kind</th><th>Stage</th>'
        '<th class="num">Tier</th><th>Status</th><th>Verdict</th><th>Prefers</th>'
        f'<th class="num">Confidence</th></tr>{rows}</table></section>'
    )


# The record's sections in the order the body shows them, each with its id and its label in the
# contents: the body and the contents are both made from this one list (sections() below).
SECTIONS: "tuple[tuple[str, str, Callable[[R.DecisionRecord, Lineage | None], str]], ...]" = (
    ("decision", "Decision", lambda rec, _l: _decision(rec)),
    ("prd", "Document", lambda rec, _l: _prd(rec)),
    ("scores", "Scores", lambda rec, _l: _scores(rec)),
    ("breakdown", "Breakdown", lambda rec, _l: _breakdown(rec)),
    ("alternatives", "Alternatives", lambda rec, _l: _alternatives(rec)),
    ("findings", "Findings", lambda rec, _l: _findings(rec)),
    ("gates", "Gates", lambda rec, _l: _gates(rec)),
    ("dissent", "Dissent", lambda rec, _l: _dissent_conformity(rec)[0]),
    ("conformity", "Conformity", lambda rec, _l: _dissent_conformity(rec)[1]),
    ("depth", "Depth", lambda rec, _l: _depth(rec)),
    ("route", "Route", lambda rec, _l: _route(rec)),
    ("usage", "Cost", lambda rec, _l: _usage(rec)),
    ("lineage", "Lineage", lambda _r, lineage: _lineage(lineage)),
    ("warnings", "Warnings", lambda rec, _l: _warnings(rec)),
    ("phases", "Phases", lambda rec, _l: _phases(rec)),
    ("participants", "Participants", lambda rec, _l: _participants(rec)),
)


def sections(rec: R.DecisionRecord, lineage: "Lineage | None" = None) -> "list[tuple[str, str, str]]":
    """(id, label, html) of every section the record has, in SECTIONS' order; each table in
    its own scrolling box (the record's own tables: model text is escaped)."""
    out = []
    for key, label, render in SECTIONS:
        part = render(rec, lineage)
        if part:
            out.append((key, label, _scrolling(part)))
    return out


def _scrolling(part: str) -> str:
    """Each table in a box that scrolls sideways on a narrow screen, with a visible cue: edge
    shadows where more of it lies out of view, and under 760 px, for a table of four columns or
    more (four columns overflow a phone), a line saying it scrolls."""

    def box(m: "re.Match[str]") -> str:
        table = m.group(0)
        wide = table[: table.find("</tr>")].count("<th") >= 4
        hint = '<div class="scroll-hint" aria-hidden="true">wide table: scroll sideways →</div>' if wide else ""
        return f'{hint}<div class="scroll" tabindex="0">{table}</div>'

    return re.sub(r"<table>.*?</table>", box, part, flags=re.S)


def render_html(
    delib: Deliberation,
    lineage: "Lineage | None" = None,
    strong: float = dr.STRONG,
    moderate: float = dr.MODERATE,
    prices: "PriceTable | None" = None,
) -> str:
    """The whole report as one self-contained HTML document (deterministic)."""
    return html(dr.build(delib, strong, moderate, prices), lineage)


def html(rec: R.DecisionRecord, lineage: "Lineage | None" = None) -> str:
    """The typed record as one self-contained HTML document (deterministic)."""
    title = rec.decision.title or "no decision yet"
    parts = sections(rec, lineage)
    body = _header(rec) + _outcome(rec) + _question(rec) + _toc(parts) + "".join(part for _k, _l, part in parts)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{esc(CSP)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="referrer" content="no-referrer">'
        f"<title>{esc(rec.deliberation_id)} — {esc(dr.one_line(title, 80))}</title>"
        f"<style>{_CSS}</style></head>\n<body><main>{body}"
        f"<footer>Rendered from deliberation {esc(rec.deliberation_id)} (state as of {esc(rec.updated_at)}). "
        "Self-contained: no network resources.</footer></main>"
        f"<script>{_SCRIPT}</script></body></html>\n"
    )
