"""Face textures: the image of one card or tile face, its shape mask and its index boxes.

Every renderer (drawn cards, fetched decks, tiles) produces a ``Face``; the scene only
ever warps faces, so it never needs to know where a face came from.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

CARD_SIZE = (200, 280)  # width, height in texture pixels: a 2.5 x 3.5 inch poker card
TILE_SIZE = (120, 264)  # a Chinese domino is about 1 : 2.2
MIP_LEVELS = 3  # full, half and quarter size, so small items are not aliased


@dataclass(frozen=True)
class Face:
    """One face texture (BGRA, alpha = the rounded outline) with its printed index boxes."""

    code: str
    levels: tuple[np.ndarray, ...]  # BGRA images, each half the size of the one before
    index_boxes: tuple[tuple[float, float, float, float], ...]  # x1, y1, x2, y2 at level 0
    glossy: bool

    @property
    def size(self) -> tuple[int, int]:
        """Width and height of the full-size texture."""
        return self.levels[0].shape[1], self.levels[0].shape[0]


def make_face(code: str, bgra: np.ndarray, index_boxes: list[tuple[float, float, float, float]], glossy: bool) -> Face:
    """A Face with its mip levels built by area averaging."""
    levels = [bgra]
    for _ in range(MIP_LEVELS - 1):
        levels.append(cv2.resize(levels[-1], None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA))
    return Face(code, tuple(levels), tuple(index_boxes), glossy)


def rounded_mask(width: int, height: int, radius: float) -> np.ndarray:
    """An anti-aliased uint8 mask of a rounded rectangle filling the whole texture."""
    scale = 4
    big = np.zeros((height * scale, width * scale), np.uint8)
    r = int(radius * scale)
    w, h = width * scale - 1, height * scale - 1
    cv2.rectangle(big, (r, 0), (w - r, h), 255, -1)
    cv2.rectangle(big, (0, r), (w, h - r), 255, -1)
    for cx, cy in ((r, r), (w - r, r), (r, h - r), (w - r, h - r)):
        cv2.circle(big, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return cv2.resize(big, (width, height), interpolation=cv2.INTER_AREA)


def rotate_box_180(box: tuple[float, float, float, float], width: int, height: int) -> tuple[float, float, float, float]:
    """The box that a half-turn of the face maps ``box`` to (the mirrored corner index)."""
    x1, y1, x2, y2 = box
    return (width - x2, height - y2, width - x1, height - y1)
