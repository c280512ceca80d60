"""Where a short hand's missing cards would lie: spots for the classifier to look at.

In a held fan or a spread most of a card is hidden, and the detector, seeing one box over two cards,
often misses the hidden one though its index shows. A hand's cards lie a regular step apart along a
row, a spread or a fan's arc, so the cards missing from a hand of two to four lie in a gap between
two of its cards, or a step past an end. Tiles are not looked for: they lie side by side and seldom
hide one another (on a tuning build the search found 8 tiles right against 13 wrong reports).
Hand-written: it rests on how hands are laid, which no library knows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from oxeye.vision.grouping import HAND_SIZE
from oxeye.vision.reading import Hand, Item


@dataclass(frozen=True)
class Completion:
    """Which cards looked for in a short hand are reported: those whose crops name them ``sure`` or
    more with a code the hand does not already hold; ``reach`` is how many steps past each end of the
    hand are looked at (0: only gaps). A ``sure`` over 1 turns it off. Chosen on tuning builds with
    ``python -m bench.completion_sweep``; MODEL_CARD.md has the figures."""

    sure: float = 0.9
    reach: float = 1.0


@dataclass(frozen=True)
class Spot:
    """Where a card missing from hand ``hand`` would lie: its keypoints (2, 2) and box (4,) in frame pixels."""

    keypoints: np.ndarray
    box: np.ndarray
    hand: int


def spots(items: list[Item], hands: list[Hand], reach: float = Completion.reach) -> list[Spot]:
    """The spots of every hand of two to four cards, each with its two keypoints."""
    found = []
    for hand in hands:
        members = [items[i] for i in hand.items]
        if 2 <= len(members) < HAND_SIZE and all(m.kind == "card" and len(m.keypoints) == 2 for m in members):
            found += [Spot(points, box, hand.index) for points, box in _hand_spots(members, reach)]
    return found


def _hand_spots(members: list[Item], reach: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """Keypoints and boxes of a short hand's spots: its cards ordered along the hand's main axis, each
    gap looked at once per step it lacks (a step being the median gap), and at least once (a card
    hidden under two neighbours a step apart is missed as often as one in a wider gap), and ``reach``
    steps past either end, following the last step's turn."""
    points = np.array([m.keypoints for m in members], np.float64)
    boxes = np.array([m.box for m in members], np.float64)
    centres = points.mean(axis=1)
    offsets = centres - centres.mean(axis=0)
    axis = np.linalg.svd(offsets)[2][0]
    order = np.argsort(offsets @ axis, kind="stable")
    points, boxes, centres = points[order], boxes[order], centres[order]
    gaps = np.linalg.norm(np.diff(centres, axis=0), axis=1)
    step = float(np.median(gaps))
    if step < 1e-6:
        return []
    found = []
    for a, gap in enumerate(gaps):
        missing = max(1, round(gap / step) - 1)
        found += [(points[a] + t * (points[a + 1] - points[a]), boxes[a] + t * (boxes[a + 1] - boxes[a]))
                  for t in (k / (missing + 1) for k in range(1, missing + 1))]
    if reach > 0:
        for end, inner in ((0, 1), (-1, -2)):
            shift = points[end] - points[inner]
            shift *= reach * step / max(float(np.linalg.norm(shift.mean(axis=0))), 1e-6)
            found.append((points[end] + shift, boxes[end] + np.tile(shift.mean(axis=0), 2)))
    return found
