"""Item crops for the second stage: one box of a frame cut out, with a margin, and stretched to a square.

The classifier is trained on crops made by this same function from generated photos, so training
and serving see identical pixels. Stretching (not padding) keeps every pixel of a narrow strip, such
as the visible edge of a fanned card.
"""

from __future__ import annotations

import cv2
import numpy as np

MARGIN = 0.08  # share of the box's size added on each side: a detector's box may cut an index short


def crop(image: np.ndarray, box: tuple[float, float, float, float] | np.ndarray, size: int) -> np.ndarray:
    """The ``size`` x ``size`` BGR crop of ``box`` (x1, y1, x2, y2 in pixels) grown by ``MARGIN``."""
    height, width = image.shape[:2]
    x1, y1, x2, y2 = (float(v) for v in box)
    grow_x, grow_y = MARGIN * (x2 - x1), MARGIN * (y2 - y1)
    left, top = max(0, int(np.floor(x1 - grow_x))), max(0, int(np.floor(y1 - grow_y)))
    right, bottom = min(width, int(np.ceil(x2 + grow_x))), min(height, int(np.ceil(y2 + grow_y)))
    if right - left < 1 or bottom - top < 1:
        return np.zeros((size, size, 3), np.uint8)
    part = image[top:bottom, left:right]
    shrinking = part.shape[0] > size or part.shape[1] > size
    return cv2.resize(part, (size, size), interpolation=cv2.INTER_AREA if shrinking else cv2.INTER_LINEAR)


def to_blob(crops: np.ndarray) -> np.ndarray:
    """BGR uint8 crops (N, H, W, 3) as the classifier takes them, in training and serving alike:
    float32 RGB (N, 3, H, W) in [0, 1]."""
    return np.ascontiguousarray(crops[..., ::-1].transpose(0, 3, 1, 2), dtype=np.float32) / 255.0


def crop_batch(image: np.ndarray, boxes: np.ndarray, size: int) -> np.ndarray:
    """The crops of ``boxes`` as one classifier input (see ``to_blob``)."""
    return to_blob(np.stack([crop(image, box, size) for box in boxes]) if len(boxes)
                   else np.zeros((0, size, size, 3), np.uint8))
