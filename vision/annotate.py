"""Draw a reading onto the photo (``oxeye detect --annotate``) so a person can check it by eye.

Plain OpenCV drawing: boxes and labels are all it needs, and OpenCV is already a dependency.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from oxeye.vision.reading import Reading

PALETTE = [(56, 56, 255), (151, 157, 255), (31, 112, 255), (29, 178, 255), (49, 210, 207),
           (10, 249, 72), (23, 204, 146), (134, 219, 61), (187, 212, 0), (168, 153, 44)]
DOUBT = (0, 0, 255)


def annotate(image: np.ndarray, reading: Reading, out: Path) -> None:
    """Write ``image`` with the reading drawn on it (see ``draw``)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(out), draw(image, reading)):
        raise OSError(f"cannot write {out} (unknown image extension or unwritable folder)")


def draw(image: np.ndarray, reading: Reading) -> np.ndarray:
    """A copy of ``image`` with each item's box, keypoints, code and confidence (hand colours; doubtful
    items in red)."""
    canvas = image.copy()
    thick = max(1, round(max(image.shape[:2]) / 640))
    for hand in reading.hands:
        x1, y1, x2, y2 = (round(v) for v in hand.box)
        colour = PALETTE[hand.index % len(PALETTE)]
        cv2.rectangle(canvas, (x1 - 4, y1 - 4), (x2 + 4, y2 + 4), colour, thick)
        cv2.putText(canvas, f"hand {hand.index}", (x1, max(12, y1 - 8)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.5 * thick, colour, thick, cv2.LINE_AA)
    for item in reading.items:
        x1, y1, x2, y2 = (round(v) for v in item.box)
        colour = DOUBT if item.flag else PALETTE[(item.hand or 0) % len(PALETTE)]
        cv2.rectangle(canvas, (x1, y1), (x2, y2), colour, thick)
        for x, y in item.keypoints:  # where the corner index or half was read
            cv2.circle(canvas, (round(x), round(y)), 2 * thick, colour, -1, cv2.LINE_AA)
        label = f"{item.code} {item.confidence:.2f}" + ("?" if item.flag else "")
        cv2.putText(canvas, label, (x1 + 2, y1 + 14 * thick), cv2.FONT_HERSHEY_SIMPLEX, 0.45 * thick,
                    colour, thick, cv2.LINE_AA)
    return canvas
