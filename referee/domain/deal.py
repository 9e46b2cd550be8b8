"""Shuffling and deal commitments: pure functions; randomness comes in as key bytes.

The application draws the key from ``secrets`` (mixed with any player entropy); the shuffle is
a Fisher-Yates driven by a SHA-256 counter stream, so it is unbiased (rejection sampling) and
reproducible from the key. The commitment of a pack is ``sha256("<nonce>:<cards>")`` in hex,
``cards`` being the pack in record notation joined by single spaces; it is published when the
hand starts and can be checked once the nonce and pack are revealed.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, Sequence


def _stream(key: bytes) -> Iterator[int]:
    counter = 0
    while True:
        block = hmac.new(key, counter.to_bytes(8, "big"), hashlib.sha256).digest()
        counter += 1
        for i in range(0, 32, 4):
            yield int.from_bytes(block[i : i + 4], "big")


def shuffle(pack: Sequence[str], key: bytes) -> list[str]:
    """The pack shuffled uniformly by a key-driven Fisher-Yates."""
    out = list(pack)
    words = _stream(key)
    for i in range(len(out) - 1, 0, -1):
        n = i + 1
        limit = (1 << 32) - (1 << 32) % n
        while True:
            w = next(words)
            if w < limit:
                break
        j = w % n
        out[i], out[j] = out[j], out[i]
    return out


def commitment(nonce: str, cards: Sequence[str]) -> str:
    """The hex SHA-256 commitment of a pack order under ``nonce``."""
    return hashlib.sha256(f"{nonce}:{' '.join(cards)}".encode()).hexdigest()
