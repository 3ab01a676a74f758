"""Every text colour of the HTML record meets WCAG AA (at least 4.5:1) against the backgrounds
it can sit on, computed from the report's own CSS and SVG: each rule's `color` against its own
`background` when it sets one, else against every surface a text can sit on (the page, the card,
the outcome card, code, badges, notes); the heatmap's cell text against each cell's colour."""

from __future__ import annotations

import re

from deliberation.report import html_report as hr
from tests.helpers.factories import make_deliberation, make_lineage

AA = 4.5
# colours no text sits on: the meter, the bars, the legend's scale, the tree's lines
DECORATION = ("meter", ".bar", ".scale", "ul.tree li::", ".tick", ".fill")


def css_vars(css: str) -> "dict[str, str]":
    return dict(re.findall(r"--([\w-]+):(#[0-9a-fA-F]{3,6})", css))


def resolve(value: str, names: "dict[str, str]") -> "str | None":
    value = value.strip()
    m = re.fullmatch(r"var\(--([\w-]+)\)", value)
    if m:
        return names.get(m.group(1))
    return value if re.fullmatch(r"#[0-9a-fA-F]{3}|#[0-9a-fA-F]{6}", value) else None


def rules(css: str) -> "list[tuple[str, str]]":
    return [(sel.strip(), body) for sel, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css)]


def pairs() -> "list[tuple[str, str, str]]":
    """(where, text colour, background) of every text colour the CSS sets."""
    css = hr._CSS
    names = css_vars(css)
    surfaces = {"page": names["paper"], "card": names["card"]}
    texts = []
    for sel, body in rules(css):
        bg = re.search(r"(?<![-\w])background(?:-color)?:\s*([^;]+)", body)
        colour = re.search(r"(?<![-\w])color:\s*([^;]+)", body)
        bg_hex = resolve(bg.group(1), names) if bg else None
        if bg_hex and not any(d in sel for d in DECORATION):
            surfaces[sel] = bg_hex
        if colour:
            fg = resolve(colour.group(1), names)
            if fg:
                texts.append((sel, fg, bg_hex))
    out = []
    for sel, fg, own in texts:
        for where, bg in ({sel: own} if own else surfaces).items():
            out.append((f"{sel} on {where}", fg, bg))
    return out


def test_every_css_text_colour_meets_aa_on_every_surface():
    found = [(where, fg, bg, hr.contrast(fg, bg)) for where, fg, bg in pairs()]
    assert len(found) > 40
    low = [f for f in found if f[3] < AA]
    print(f"\nCSS text contrast: minimum {min(f[3] for f in found):.2f}:1 over {len(found)} pairs")
    assert low == [], low


def test_the_svg_text_and_every_heat_cell_meet_aa():
    d = make_deliberation(5, 3)
    page = hr.render_html(d, make_lineage(d))
    svg = page[page.index('<svg id="heatmap"') : page.index("</svg>")]
    card = css_vars(hr._CSS)["card"]
    fills = set(re.findall(r'<text[^>]* fill="(#[0-9a-f]{6})"', svg))
    assert fills
    cells = {hr._hex(hr.score_colour(i / 100)) for i in range(1001)}
    worst = min(hr.contrast(hr._text_colour(tuple(int(c[i : i + 2], 16) for i in (1, 3, 5))), c) for c in cells)
    print(f"\nheat cells: minimum {worst:.2f}:1 over {len(cells)} colours")
    assert worst >= AA
    # the labels outside the cells (ids, titles, 'mean', 'not scored') sit on the card
    outside = {f for f in fills if f not in ("#ffffff", "#000000")}
    assert all(hr.contrast(f, card) >= AA for f in outside), outside
