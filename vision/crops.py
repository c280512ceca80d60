"""Keypoint crops for the second stage: a small square of the full-resolution frame around one of an
item's two keypoints (a card's corner index, a tile's half), turned so that the other keypoint lies
straight below it and scaled by their distance.

So every crop shows its index or half upright-ish and at one size, whatever the item's rotation, tilt
or distance, and centred on this item's own index even in a fan where a neighbour's index lies close
by. The classifier is trained on crops made by this same function from generated photos, so training
and serving see identical pixels.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

# Crop side as a share of the distance between an item's keypoints: a card's two index centres lie
# about a card's height apart and an index is about 0.2 of that across, so 0.6 holds the index even
# when the detector's keypoint strays by its 90th-percentile error (0.2 for the detector it was chosen
# with, 0.1 for the shipped one: MODEL_CARD.md, Accuracy); a tile's two half centres lie half a tile
# apart, and the crop holds one half.
SIDE = {"card": 0.6, "tile": 1.0}
PYRAMID_LEVELS = 4  # a crop is cut from the level where it shrinks by at most 2x, so it is never aliased


class Pyramid:
    """The frame at full, half, quarter and eighth size (each a Gaussian-smoothed halving), each level made when
    first asked for: most frames' crops are all cut at full size (the speed benchmark's frame: all 41), and
    the three halvings of a 1280x720 frame made up front cost 1.3 ms of its 39."""

    def __init__(self, image: np.ndarray) -> None:
        self._levels = [image]

    def __len__(self) -> int:
        return PYRAMID_LEVELS

    def __getitem__(self, level: int) -> np.ndarray:
        if not 0 <= level < PYRAMID_LEVELS:
            raise IndexError(f"a pyramid has levels 0 to {PYRAMID_LEVELS - 1}, not {level}")
        while len(self._levels) <= level:
            self._levels.append(cv2.pyrDown(self._levels[-1]))
        return self._levels[level]


def key_crop(levels: Pyramid, point: np.ndarray, partner: np.ndarray, side: float, size: int) -> np.ndarray:
    """The ``size`` x ``size`` BGR crop centred on ``point``, ``side`` frame pixels across, turned so
    that ``partner`` lies straight below the centre (border pixels repeat past the frame's edge)."""
    direction = np.asarray(partner, np.float64) - np.asarray(point, np.float64)
    length = float(np.hypot(*direction))
    down = direction / length if length > 1e-6 else np.array([0.0, 1.0])
    level = 0
    while level + 1 < len(levels) and side / 2 ** (level + 1) >= size:
        level += 1
    shrink = 2.0 ** level
    # Crop pixel (u, v) samples the level at centre + step * R (u - c, v - c), R turning (0, 1) onto ``down``.
    step = side / size / shrink
    turn = step * np.array([[down[1], down[0]], [-down[0], down[1]]])
    middle = np.full(2, size / 2 - 0.5)
    centre = np.asarray(point, np.float64) / shrink  # cv2.pyrDown centres pixel j of a level on pixel 2j below
    matrix = np.hstack([turn, (centre - turn @ middle)[:, None]])
    return cv2.warpAffine(levels[level], matrix, (size, size), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)


def item_crops(levels: Pyramid, kind: str, points: np.ndarray, size: int,
               which: Sequence[bool] = (True, True)) -> np.ndarray:
    """The two crops of one item (2, size, size, 3): one centred on each of its keypoints (2, 2); only
    those ``which`` keeps, in order."""
    first, second = np.asarray(points, np.float64)[:, :2]
    side = SIDE[kind] * float(np.hypot(*(second - first)))
    crops = [key_crop(levels, point, partner, side, size)
             for point, partner, kept in ((first, second, which[0]), (second, first, which[1])) if kept]
    return np.stack(crops) if crops else np.zeros((0, size, size, 3), levels[0].dtype)


def moved_crops(crops: np.ndarray, shift: float, zoom: float) -> np.ndarray:
    """Variants of each crop (N, size, size, 3) as (V, N, size, size, 3): its content moved ``shift`` pixels
    right, left, down and up, then enlarged and shrunk by ``zoom`` about its centre (border pixels repeat),
    as a keypoint a little off its index or a crop a little large would have cut it; a ``shift`` or ``zoom``
    of 0 leaves its variants out."""
    size = crops.shape[1]
    middle = size / 2 - 0.5
    moves = [(shift, 0.0, 1.0), (-shift, 0.0, 1.0), (0.0, shift, 1.0), (0.0, -shift, 1.0)] if shift else []
    moves += [(0.0, 0.0, 1.0 + zoom), (0.0, 0.0, 1.0 - zoom)] if zoom else []
    variants = np.zeros((len(moves), *crops.shape), crops.dtype)
    for n, (dx, dy, scale) in enumerate(moves):
        matrix = np.array([[scale, 0.0, middle * (1 - scale) + dx], [0.0, scale, middle * (1 - scale) + dy]])
        for m, crop in enumerate(crops):
            variants[n, m] = cv2.warpAffine(crop, matrix, (size, size), flags=cv2.INTER_LINEAR,
                                            borderMode=cv2.BORDER_REPLICATE)
    return variants


def to_blob(crops: np.ndarray) -> np.ndarray:
    """BGR uint8 crops (N, H, W, 3) as the classifier takes them, in training and serving alike:
    float32 RGB (N, 3, H, W) in [0, 1]."""
    return np.ascontiguousarray(crops[..., ::-1].transpose(0, 3, 1, 2), dtype=np.float32) / 255.0
