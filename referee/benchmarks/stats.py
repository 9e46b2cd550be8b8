"""What the benchmarks compute from their samples."""

from __future__ import annotations

from collections.abc import Sequence


def percentile(values: Sequence[float], p: float) -> float:
    """The ``p`` quantile (0..1) of ``values`` by the nearest rank below; 0.0 for none."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))] if ordered else 0.0
