"""The HTML report in a real browser: headless Chromium must DRAW the heatmap.

Two runs of Debian's `chromium` over the report of a 5 personas × 3 approaches deliberation:
1. `--dump-dom` after the inline script ran: the heatmap says `data-rendered="15"` and every
   cell carries its laid-out box (`data-box="x,y,w,h"`); a hostile finding's injected script
   and `onerror` handler did not run;
2. `--screenshot` at the same window size: the pixels inside each cell box have the colour of
   that cell's score (decoded with a stdlib PNG reader), higher scores are bluer, the page
   background is paper-coloured — the heatmap is painted, not merely present in the markup.

Under CI=true a missing chromium fails the test; locally it is skipped with the reason.
Set REPORT_SCREENSHOT=path to also save a screenshot of the same report without the hostile text
(docs/report-screenshot.png is made so).
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import time
import zlib

import pytest

from tests.helpers.factories import make_deliberation, make_lineage

from deliberation.report.html_report import render_html, score_colour

WINDOW = (1280, 2400)  # tall enough for the outcome, the decision, its document and the heatmap below them
EVIL = (
    "</script><script>document.body.setAttribute('data-pwned','script')</script>"
    "<img src=x onerror=\"document.body.setAttribute('data-pwned','img')\">"
)
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--force-device-scale-factor=1",
    f"--window-size={WINDOW[0]},{WINDOW[1]}",
]


def _chromium() -> str:
    path = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
    if path:
        return path
    if os.environ.get("CI") == "true":
        pytest.fail("chromium is not installed (CI installs Debian's `chromium` package in .ci/run)")
    pytest.skip("chromium is not installed: apt-get install -y chromium")


def _run(chromium: str, profile, *args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([chromium, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-2000:]
    return proc


# ---- a tiny PNG decoder (8-bit RGB/RGBA, non-interlaced: what Chromium writes) -------------


def decode_png(data: bytes) -> "tuple[int, int, int, list[bytes]]":
    """(width, height, bytes per pixel, rows of raw pixel bytes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, []
    width = height = bpp = 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        tag, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if tag == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
            bpp = 3 if ctype == 2 else 4
        elif tag == b"IDAT":
            idat.append(body)
        elif tag == b"IEND":
            break
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    rows: list[bytes] = []
    prev = bytearray(stride)
    i = 0
    for _ in range(height):
        ftype, line = raw[i], bytearray(raw[i + 1 : i + 1 + stride])
        i += 1 + stride
        if ftype == 1:
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 255
        elif ftype == 2:
            for x in range(stride):
                line[x] = (line[x] + prev[x]) & 255
        elif ftype == 3:
            for x in range(stride):
                left = line[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + ((left + prev[x]) >> 1)) & 255
        elif ftype == 4:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                b, c = prev[x], (prev[x - bpp] if x >= bpp else 0)
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def pixel(img, x: int, y: int) -> "tuple[int, int, int]":
    _, _, bpp, rows = img
    r = rows[y]
    return r[x * bpp], r[x * bpp + 1], r[x * bpp + 2]


def _close(a, b, tol: int = 4) -> bool:
    return all(abs(p - q) <= tol for p, q in zip(a, b))


# ---- the test -------------------------------------------------------------------------------


def test_heatmap_is_drawn_in_headless_chromium(tmp_path):
    chromium = _chromium()
    d = make_deliberation(5, 3, inject=EVIL)
    report = tmp_path / "report.html"
    report.write_text(render_html(d, make_lineage(d)), encoding="utf-8")
    url = report.as_uri()

    t0 = time.monotonic()
    dom = _run(chromium, tmp_path / "profile-dom", "--dump-dom", url).stdout.decode()
    t_dom = time.monotonic() - t0
    heat = re.search(r'<svg id="heatmap"[^>]*>', dom)
    assert heat, "no heatmap element in the rendered DOM"
    assert 'data-rendered="15"' in heat.group(0), heat.group(0)
    body = re.search(r"<body[^>]*>", dom).group(0)
    assert "data-pwned" not in body, f"model-written text executed in the browser: {body}"
    assert "&lt;/script&gt;&lt;script&gt;document.body.setAttribute" in dom  # shown as text instead
    cells = re.findall(r'<rect class="cell"[^>]*?data-score="([0-9.]+)"[^>]*?data-box="(\d+),(\d+),(\d+),(\d+)"', dom)
    assert len(cells) == 15

    shot = tmp_path / "report.png"
    t0 = time.monotonic()
    _run(chromium, tmp_path / "profile-shot", f"--screenshot={shot}", url)
    t_shot = time.monotonic() - t0
    img = decode_png(shot.read_bytes())
    assert (img[0], img[1]) == WINDOW
    if os.environ.get("REPORT_SCREENSHOT"):  # the README's picture: the same report without the hostile text
        clean = tmp_path / "clean.html"
        clean.write_text(render_html(make_deliberation(5, 3), make_lineage(d)), encoding="utf-8")
        _run(
            chromium,
            tmp_path / "profile-docs",
            "--window-size=1280,1500",
            f"--screenshot={os.path.abspath(os.environ['REPORT_SCREENSHOT'])}",
            clean.as_uri(),
        )

    samples = []
    for score, x, y, w, h in cells:
        score, x, y, w, h = float(score), int(x), int(y), int(w), int(h)
        assert x + w <= WINDOW[0] and y + h <= WINDOW[1], "heatmap cell outside the screenshot"
        # left margin of the cell, vertically centred: clear of the rounded corner and the number
        got = pixel(img, x + 8, y + h // 2)
        assert _close(got, score_colour(score)), (score, got, score_colour(score))
        samples.append((score, got))
    samples.sort()
    for (s1, c1), (s2, c2) in zip(samples, samples[1:]):
        if s2 - s1 >= 0.25:  # clearly different scores are visibly different, higher is bluer
            assert sum(abs(p - q) for p, q in zip(c1, c2)) >= 6, (s1, c1, s2, c2)
            assert c2[0] < c1[0], (s1, c1, s2, c2)
    assert _close(pixel(img, 5, 5), (251, 250, 247), 2)  # page background, outside every card
    assert len({c for _, c in samples}) >= 10

    print(
        f"\nchromium: dom {t_dom:.1f}s, screenshot {t_shot:.1f}s; 15/15 cells drawn; "
        f"scores {samples[0][0]:.2f}..{samples[-1][0]:.2f} -> RGB {samples[0][1]}..{samples[-1][1]}; "
        f"{len({c for _, c in samples})} distinct colours"
    )


def test_report_prints_to_a_few_pdf_pages(tmp_path):
    chromium = _chromium()
    d = make_deliberation(5, 3)
    report = tmp_path / "report.html"
    report.write_text(render_html(d, make_lineage(d)), encoding="utf-8")
    pdf = tmp_path / "report.pdf"
    _run(chromium, tmp_path / "profile-pdf", "--no-pdf-header-footer", f"--print-to-pdf={pdf}", report.as_uri())
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF-")
    pages = [int(n) for n in re.findall(rb"/Count (\d+)", data)]
    assert pages and 2 <= max(pages) <= 10, pages
    print(f"\nprinted: {max(pages)} A4/Letter pages, {len(data)} bytes")


# ---- the record at a phone's width and a desktop's -------------------------------------------

# Injected into a copy of the report (its CSP is replaced for that copy only): measures the
# laid-out page and writes what it found on <body data-layout="…">, which --dump-dom returns.
LAYOUT_PROBE = """
(function(){
  var W = document.documentElement.clientWidth, out = {vw: W, sw: document.documentElement.scrollWidth,
      escapes: [], overlaps: [], tables: 0, boxed: 0, scrolls: 0, first: ""};
  function boxOf(e){ for (var p = e.parentElement; p; p = p.parentElement) {
      if (p.classList && (p.classList.contains('scroll') || p.classList.contains('heatwrap'))) return p; } return null; }
  function inSvg(e){ return !!(e.closest && e.closest('svg')); }
  function name(e){ return e.tagName.toLowerCase() + (e.className && e.className.baseVal === undefined && e.className
      ? '.' + e.className : '') + ' "' + (e.textContent || '').trim().slice(0, 30) + '"'; }
  var all = document.querySelectorAll('main *'), leaves = [];
  for (var i = 0; i < all.length; i++) {
    var e = all[i], r = e.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (!boxOf(e) && !inSvg(e) && (r.right > W + 0.5 || r.left < -0.5))
      out.escapes.push(name(e) + ' ' + Math.round(r.left) + '..' + Math.round(r.right));
    if (!inSvg(e) && ((e.children.length === 0 && (e.textContent || '').trim()) || e.classList.contains('meter')))
      leaves.push([e, Array.prototype.slice.call(e.getClientRects())]);  // one box per line of text
  }
  function hit(p, q){ return Math.min(p.right, q.right) - Math.max(p.left, q.left) > 1
      && Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top) > 1; }
  for (var a = 0; a < leaves.length; a++) for (var b = a + 1; b < leaves.length; b++) {
    if (leaves[a][0].contains(leaves[b][0]) || leaves[b][0].contains(leaves[a][0])) continue;
    var found = false;
    for (var x = 0; x < leaves[a][1].length && !found; x++)
      for (var y = 0; y < leaves[b][1].length && !found; y++) found = hit(leaves[a][1][x], leaves[b][1][y]);
    if (found) out.overlaps.push(name(leaves[a][0]) + ' x ' + name(leaves[b][0]));
  }
  var ts = document.querySelectorAll('table'); out.tables = ts.length;
  for (var t = 0; t < ts.length; t++) { var box = ts[t].parentElement;
    if (box.classList.contains('scroll') && box.getBoundingClientRect().right <= W + 0.5) out.boxed++;
    if (box.scrollWidth > box.clientWidth + 1) out.scrolls++; }
  var first = document.querySelector('main section'); out.first = first ? first.id : '';
  document.body.setAttribute('data-layout', JSON.stringify(out));
})();
"""


def _layout(chromium: str, tmp_path, page: str, width: int) -> dict:
    """The probe's findings for `page` laid out in a viewport `width` px wide. Headless Chromium
    will not make its window narrower than 500 px, so the page is laid out in an iframe of that
    width (its own viewport: the media queries see `width`); the probe reports to the frame's parent."""
    import html as html_lib
    import json

    probed = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page)
    probe = LAYOUT_PROBE.replace("document.body.setAttribute('data-layout'", "parent.document.body.setAttribute('data-layout'")
    probed = probed.replace("</body>", f"<script>{probe}</script></body>")
    wrapper = (
        f'<!DOCTYPE html><html><body style="margin:0"><iframe style="border:0;display:block" width="{width}" '
        f'height="900" srcdoc="{html_lib.escape(probed, quote=True)}"></iframe></body></html>'
    )
    path = tmp_path / f"layout-{width}.html"
    path.write_text(wrapper, encoding="utf-8")
    dom = _run(
        chromium, tmp_path / f"profile-{width}", f"--window-size={max(width, 500) + 100},1000", "--dump-dom", path.as_uri()
    ).stdout.decode()
    found = re.search(r'data-layout="([^"]*)"', dom)
    assert found, "the layout probe did not run"
    return json.loads(html_lib.unescape(found.group(1)))


@pytest.mark.parametrize("width", [390, 1280])
def test_the_record_fits_a_phone_and_a_desktop(tmp_path, width):
    """At 390 px (a phone) and 1280 px: the page is no wider than the window, every table sits
    in its own scrolling box, no text box overlaps another (the threshold label and the meter
    included), and the first card is the outcome."""
    chromium = _chromium()
    # a wide panel (the widest score, breakdown and cost tables) and a threshold near the meter's end
    d = make_deliberation(10, 5, task_type="security", threshold=0.85)
    got = _layout(chromium, tmp_path, render_html(d, make_lineage(d)), width)
    print(
        f"\n{width}px: page {got['sw']}px in a {got['vw']}px viewport; {got['tables']} tables, "
        f"{got['boxed']} in their own box, {got['scrolls']} of them scroll"
    )
    assert got["first"] == "outcome"
    assert got["sw"] <= got["vw"], (got["sw"], got["vw"], got["escapes"][:10])
    assert got["escapes"] == []
    assert got["tables"] >= 5 and got["boxed"] == got["tables"]
    assert got["overlaps"] == [], got["overlaps"][:10]
    if width == 390:
        assert got["scrolls"] >= 1  # the widest tables do not fit a phone: they scroll, the page does not


# what a phone shows: the report in a 390 px frame (headless Chromium's own window is at least
# 500 px wide), measured in the page itself (a test-only copy, its CSP removed and this script
# added), the findings written into an attribute of the framing page, which --dump-dom returns
PHONE = (390, 844)
MEASURE = """<script>
window.addEventListener('load', function () {
  function top(el) { return Math.round(el.getBoundingClientRect().top + window.scrollY); }
  var out = {};
  out.headline = top(document.querySelector('#outcome .headline'));
  out.question = top(document.querySelector('.question'));
  out.width = document.documentElement.scrollWidth; out.viewport = window.innerWidth;
  out.broken = [];
  document.querySelectorAll('#outcome pre').forEach(function (pre) {
    var text = pre.firstChild, re = /\\S+/g, m;
    while ((m = re.exec(text.data))) {
      var r = document.createRange(); r.setStart(text, m.index); r.setEnd(text, m.index + m[0].length);
      if (r.getClientRects().length > 1) out.broken.push(m[0]);
    }
  });
  out.scrolling = []; out.uncued = [];
  document.querySelectorAll('.scroll').forEach(function (box) {
    if (box.scrollWidth > box.clientWidth + 1) {
      var hint = box.previousElementSibling, shown = hint && hint.classList.contains('scroll-hint') && hint.offsetHeight > 0;
      out.scrolling.push(box.closest('section') ? box.closest('section').id : '?');
      if (!shown) out.uncued.push(box.closest('section') ? box.closest('section').id : '?');
    }
  });
  parent.document.body.setAttribute('data-phone', JSON.stringify(out));
});
</script>"""


def test_on_a_phone_the_decision_comes_first_commands_wrap_whole_and_wide_tables_say_they_scroll(tmp_path):
    import json

    chromium = _chromium()
    d = make_deliberation(5, 3)
    page = render_html(d, make_lineage(d))
    page = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page).replace("</body>", MEASURE + "</body>")
    (tmp_path / "phone.html").write_text(page, encoding="utf-8")
    frame = tmp_path / "frame.html"
    frame.write_text(
        f'<html><body style="margin:0"><iframe src="phone.html" style="width:{PHONE[0]}px;height:{PHONE[1]}px;border:0">'
        "</iframe></body></html>",
        encoding="utf-8",
    )
    flags = [f for f in FLAGS if not f.startswith("--window-size")] + ["--window-size=800,900", "--allow-file-access-from-files"]
    proc = subprocess.run(
        [chromium, *flags, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", frame.as_uri()],
        capture_output=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-2000:]
    found = re.search(r"data-phone=\"([^\"]*)\"", proc.stdout.decode())
    assert found, "the measuring script did not run"
    got = json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    print(f"\nat {PHONE[0]} px: {got}")
    assert got["headline"] < 200 and got["headline"] < got["question"], got  # the decision on the first screen
    assert got["viewport"] == PHONE[0] and got["width"] <= PHONE[0], got  # the page itself never scrolls sideways
    assert got["broken"] == [], got  # a command wraps between words, never inside one
    assert got["scrolling"] and got["uncued"] == [], got  # every table that scrolls says so
