"""The hand viewer: a self-contained page per hand, readable (every bid, announcement and
score in words, the hands as played, the upcard labelled, one card notation), checked in a
real headless Chromium for every game.

``REFEREE_VIEWER_SHOTS=DIR`` keeps the browser's screenshots there, to look at.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import zlib
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest

from referee.rules.render import FACE, FELT, RED, card_svg, render_hand
from referee.rules.words import card
from referee_clients.records import hand_of, load_file, replay
from tests.browser import run_browser

GOLDEN = Path(__file__).parent.parent / "golden"
RECORDS = sorted(GOLDEN.glob("*/*.json"))
PLAYERS = ["Anna", "Béla", "Cili", "Dani"]
ONE_HAND_PER_GAME = {  # the browser's pages: each game with its auction, announcements, score
    "belot": ("belot/valat_spades.json", 1), "coinche": ("coinche/hand_announce_belote_"
                                                         "coinche.json", 1),
    "euchre": ("euchre/e-t12.json", 1), "pedro": ("pedro/hand_001.json", 1),
    "ulti": ("ulti/teritett_betli_kontra.json", 1),
}


class Sections(HTMLParser):
    """The text of a page by the ``id`` of the element it is in (``auction``, ``score``, ...),
    and the ``data-card`` of each card picture by that element too."""

    def __init__(self) -> None:
        super().__init__()
        self.text: dict[str, str] = {}
        self.cards: dict[str, list[str]] = {}
        self.groups: dict[str, list[str]] = {}
        self._stack: list[tuple[str, str | None, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        where = a.get("id") or (self._stack[-1][1] if self._stack else None)
        group = a.get("data-group") or (self._stack[-1][2] if self._stack else None)
        if tag == "svg" and a.get("data-card"):
            self.cards.setdefault(where or "", []).append(a["data-card"] or "")
            if group:
                self.groups.setdefault(group, []).append(a["data-card"] or "")
        if tag not in ("br", "meta"):  # void elements: no end tag
            self._stack.append((tag, where, group))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        pass  # <rect .../>: nothing to read

    def handle_endtag(self, tag: str) -> None:
        while self._stack:
            if self._stack.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        if self._stack and self._stack[-1][0] not in ("style", "title", "text"):
            where = self._stack[-1][1] or ""
            self.text[where] = self.text.get(where, "") + data


def sections(page: str) -> Sections:
    parsed = Sections()
    parsed.feed(page)
    return parsed


def every_hand() -> list[tuple[Path, int]]:
    out = []
    for path in RECORDS:
        data = load_file(path)
        out += [(path, h) for h in range(1, len(data.get("hands") or [None]) + 1)]
    return out


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_golden_hand_renders_self_contained(path: Path) -> None:
    rep = replay(hand_of(load_file(path), 1))
    page = render_hand(rep, players=["a", "b", "c", "d"][: len(rep.hands)])
    cards = re.findall(r'<svg class="card" data-card="(\w\w)"', page)
    dealt = Counter(c for h in rep.hands for c in h) + Counter(rep.stock)
    assert Counter(cards) >= dealt  # every dealt card drawn (tricks draw them again)
    assert len(re.findall(r'data-trick="', page)) == len(rep.tricks)
    assert rep.result is None or ('id="score"' in page and "Points this hand" in page)
    assert not re.search(r'(src|href)=|url\(|@import|<script|<link', page)


@pytest.mark.parametrize(("path", "hand"), every_hand(),
                         ids=lambda x: f"{x.parent.name}/{x.name}" if isinstance(x, Path) else
                         str(x))
def test_every_bid_announcement_and_score_is_in_words(path: Path, hand: int) -> None:
    rep = replay(hand_of(load_file(path), hand))
    page = sections(render_hand(rep, players=PLAYERS[: len(rep.hands)]))
    for where in ("auction", "score"):
        text = page.text.get(where, "")
        assert not re.search(r'[{}\[\]"]', text), (where, text)  # no JSON
    shown = " ".join(page.text.values())
    assert not re.search(r"\b[2-9TJQKA][CDHS]\b", shown), "cards in text are 10♦, not TD"
    assert "T♦" not in shown and "T♠" not in shown
    if rep.result is not None and not rep.result.get("void"):
        assert "Points this hand" in page.text["score"]
        for n in rep.result["points"]:
            assert str(n) in page.text["score"]
    for step in rep.auction:  # each decision is a row, in words
        assert f"{step.index + 1}" in page.text["auction"]


@pytest.mark.parametrize(("path", "hand"), every_hand(),
                         ids=lambda x: f"{x.parent.name}/{x.name}" if isinstance(x, Path) else
                         str(x))
def test_the_hands_in_play_are_shown_for_every_game(path: Path, hand: int) -> None:
    """Each seat's cards at the first lead: every card it played is among them (Belot's
    8-card hands, the Euchre dealer's hand after the pick-up, Pedro's after the refill)."""
    rep = replay(hand_of(load_file(path), hand))
    html = render_hand(rep, players=PLAYERS[: len(rep.hands)])
    if not rep.tricks:
        assert "No card was played" in html
        return
    in_play = html[html.index('id="in-play"'):html.index('id="tricks"')]
    seats = re.split(r'data-seat="(\d)"', in_play)[1:]
    held = {int(seats[i]): re.findall(r'data-card="(\w\w)"', seats[i + 1].split(
        'class="centre"')[0]) for i in range(0, len(seats), 2)}
    played: dict[int, list[str]] = {}
    for t in rep.tricks:
        for p in t["plays"]:
            played.setdefault(p["seat"], []).append(p["card"])
    for seat, cards in played.items():
        assert set(cards) <= set(held[seat]), (seat, cards, held[seat])
    if rep.game == "belot" and len(rep.tricks) == 8:
        assert all(len(h) == 8 for h in held.values()), held


def test_the_euchre_upcard_and_kitty_are_labelled() -> None:
    rep = replay(load_file(GOLDEN / "euchre" / "e-t12.json"))
    page = sections(render_hand(rep))
    assert page.groups["Upcard (face up)"] == rep.stock[:1]
    assert page.groups["Kitty (face down)"] == rep.stock[1:]
    assert page.groups["Discarded by the dealer"] == ["AD"]  # the dealer picked up 10♣
    assert "orders up the upcard" in page.text["auction"]
    assert f"{card(rep.stock[0])} is" not in page.text["auction"]  # a picture, not text


def test_names_are_escaped_in_the_page() -> None:
    rep = replay(load_file(GOLDEN / "euchre" / "e-t12.json"))
    page = render_hand(rep, players=["<script>x</script>", "A & B", "C", "D"], title="<b>")
    assert "<script>x" not in page and "&lt;script&gt;x" in page and "A &amp; B" in page


def test_a_card_is_a_picture_not_a_glyph() -> None:
    svg = card_svg("TH")
    assert "<path" in svg and RED in svg and "♥" not in svg and 'data-card="TH"' in svg


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


@pytest.mark.parametrize("game", sorted(ONE_HAND_PER_GAME))
def test_the_viewer_in_a_headlessrun_browser(game: str, tmp_path: Path) -> None:
    name, hand = ONE_HAND_PER_GAME[game]
    rep = replay(hand_of(load_file(GOLDEN / name), hand))
    page = tmp_path / f"{game}.html"
    page.write_text(render_hand(rep, players=PLAYERS[: len(rep.hands)], title=f"{game} hand"),
                    encoding="utf-8")

    dom = run_browser(tmp_path, "--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    drawn = sections(dom.stdout)
    assert set(drawn.cards["deal"]) >= {c for h in rep.hands for c in h} | set(rep.stock)
    for heading in ("The deal", "The auction", "The hands in play", "The tricks", "The score"):
        assert heading in dom.stdout
    assert "Trick 1:" in drawn.text["tricks"] and "Points this hand" in drawn.text["score"]
    assert drawn.cards["in-play"], "the hands as played are drawn"

    shot = tmp_path / f"{game}.png"
    run = run_browser(tmp_path, f"--screenshot={shot}", page.as_uri(), size="1200,3400")
    assert run.returncode == 0 and shot.exists(), run.stderr[-2000:]
    keep = os.environ.get("REFEREE_VIEWER_SHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(keep) / shot.name)
    counts = _pixels(shot.read_bytes())
    face, red, felt = counts[_rgb(FACE)], counts[_rgb(RED)], counts[_rgb(FELT)]
    dealt = [c for h in rep.hands for c in h] + list(rep.stock)
    assert felt > 500_000, "the page background is drawn"
    assert face > 1000 * len(dealt), "every card face of the deal (and more) is drawn"
    assert red > 100 * sum(c[1] in "DH" for c in dealt), "red pips are drawn"
