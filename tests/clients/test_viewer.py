"""The hand viewer: a self-contained page per hand, checked in a real headless Chromium."""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import zlib
from collections import Counter
from pathlib import Path

import pytest

from clients.records import hand_of, load_file, replay
from referee.rules.render import FACE, FELT, RED, card_svg, render_hand

GOLDEN = Path(__file__).parent.parent / "golden"
RECORDS = sorted(GOLDEN.glob("*/*.json"))


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_golden_hand_renders_self_contained(path: Path) -> None:
    rep = replay(hand_of(load_file(path), 1))
    page = render_hand(rep, players=["a", "b", "c", "d"][: len(rep.hands)])
    cards = re.findall(r'<svg class="card" data-card="(\w\w)"', page)
    dealt = Counter(c for h in rep.hands for c in h) + Counter(rep.stock)
    assert Counter(cards) >= dealt  # every dealt card drawn (tricks draw them again)
    assert len(re.findall(r'data-trick="', page)) == len(rep.tricks)
    assert rep.result is None or ('id="score"' in page and "points" in page)
    assert not re.search(r'(src|href)=|url\(|@import|<script|<link', page)


def test_a_card_is_a_picture_not_a_glyph() -> None:
    svg = card_svg("TH")
    assert "<path" in svg and RED in svg and "♥" not in svg and 'data-card="TH"' in svg


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    if os.environ.get("CI") == "true":
        pytest.fail("chromium is missing (.ci/run installs it)")
    pytest.skip("chromium is not installed")


def _browser(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", f"--user-data-dir={tmp / 'profile'}", "--window-size=1200,900",
           *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)


def _pixels(png: bytes) -> Counter[tuple[int, int, int]]:
    """Colour counts of an 8-bit RGB/RGBA PNG, decoded with zlib (no imaging library)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    height = channels = 0
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos:pos + 8])
        body = png[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), (depth, ctype)
            channels = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    prev = bytearray(stride)
    counts: Counter[tuple[int, int, int]] = Counter()
    for y in range(height):
        start = y * (stride + 1)
        ftype, row = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if ftype == 1:
            for i in range(channels, stride):
                row[i] = (row[i] + row[i - channels]) & 255
        elif ftype == 2:
            row = bytearray((a + b) & 255 for a, b in zip(row, prev, strict=True))
        elif ftype == 3:
            for i in range(stride):
                left = row[i - channels] if i >= channels else 0
                row[i] = (row[i] + ((left + prev[i]) >> 1)) & 255
        elif ftype == 4:
            for i in range(stride):
                a = row[i - channels] if i >= channels else 0
                b, c = prev[i], prev[i - channels] if i >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                row[i] = (row[i] + pred) & 255
        counts.update(zip(row[0::channels], row[1::channels], row[2::channels], strict=True))
        prev = row
    return counts


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    value = int(hex_colour.lstrip("#"), 16)
    return value >> 16, (value >> 8) & 255, value & 255


def test_the_viewer_in_a_headless_browser(tmp_path: Path) -> None:
    rep = replay(load_file(GOLDEN / "euchre" / "e-t12.json"))
    page = tmp_path / "hand.html"
    page.write_text(render_hand(rep, title="Euchre e-t12"), encoding="utf-8")

    dom = _browser(tmp_path, "--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    drawn = set(re.findall(r'<svg class="card" data-card="(\w\w)"', dom.stdout))
    assert drawn >= {c for h in rep.hands for c in h}
    assert "Trick 1" in dom.stdout and "The auction" in dom.stdout

    shot = tmp_path / "hand.png"
    run = _browser(tmp_path, f"--screenshot={shot}", page.as_uri())
    assert run.returncode == 0 and shot.exists(), run.stderr[-2000:]
    counts = _pixels(shot.read_bytes())
    face, red, felt = counts[_rgb(FACE)], counts[_rgb(RED)], counts[_rgb(FELT)]
    assert felt > 100_000, "the page background is drawn"
    assert face > 20 * 2000, "twenty card faces are drawn in the deal"
    assert red > 20 * 100, "red pips are drawn"
