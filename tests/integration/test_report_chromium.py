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

WINDOW = (1280, 1800)  # tall enough for the decision, its document and the heatmap below them
EVIL = ("</script><script>document.body.setAttribute('data-pwned','script')</script>"
        "<img src=x onerror=\"document.body.setAttribute('data-pwned','img')\">")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--force-device-scale-factor=1", f"--window-size={WINDOW[0]},{WINDOW[1]}"]


def _chromium() -> str:
    path = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
    if path:
        return path
    if os.environ.get("CI") == "true":
        pytest.fail("chromium is not installed (CI installs Debian's `chromium` package in .ci/run)")
    pytest.skip("chromium is not installed: apt-get install -y chromium")


def _run(chromium: str, profile, *args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([chromium, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-2000:]
    return proc


# ---- a tiny PNG decoder (8-bit RGB/RGBA, non-interlaced: what Chromium writes) -------------


def decode_png(data: bytes) -> "tuple[int, int, int, list[bytes]]":
    """(width, height, bytes per pixel, rows of raw pixel bytes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, []
    width = height = bpp = 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        tag, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
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
        ftype, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
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
        _run(chromium, tmp_path / "profile-docs", "--window-size=1280,1500",
             f"--screenshot={os.path.abspath(os.environ['REPORT_SCREENSHOT'])}", clean.as_uri())

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

    print(f"\nchromium: dom {t_dom:.1f}s, screenshot {t_shot:.1f}s; 15/15 cells drawn; "
          f"scores {samples[0][0]:.2f}..{samples[-1][0]:.2f} -> RGB {samples[0][1]}..{samples[-1][1]}; "
          f"{len({c for _, c in samples})} distinct colours")


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
