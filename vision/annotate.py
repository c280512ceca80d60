"""Draw a reading onto the photo (``oxeye detect --annotate``) so a person can check it by eye.

supervision's annotators, composed: hands' boxes with their names and notes below, then items'
boxes, the keypoints where each was read, and its code and confidence in its middle (so the corner
indices stay in view). Colours follow the hand; doubtful items are red.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import supervision as sv

from oxeye.vision.images import write_picture
from oxeye.vision.reading import Reading

HAND_COLOURS = ("#00c2ff", "#48f90a", "#ffb21d", "#c86bff", "#00d4bb", "#ff9df0", "#cfd231", "#6f8bff",
                "#92cc17", "#ffffff")  # no reds: red is for doubt
DOUBT = len(HAND_COLOURS)  # the palette's last colour, red, marks doubtful items
PALETTE = sv.ColorPalette.from_hex([*HAND_COLOURS, "#ff0000"])


def annotate(image: np.ndarray, reading: Reading, out: Path) -> None:
    """Write ``image`` with the reading drawn on it (see ``draw``), whole or not at all."""
    write_picture(out, draw(image, reading))


def draw(image: np.ndarray, reading: Reading, notes: Mapping[int, str] | None = None,
         held: Sequence[bool] = ()) -> np.ndarray:
    """A copy of ``image`` with each hand's box, its index and its note from ``notes`` (hand index to
    text, e.g. what the hand scores) under it, and each item's box, keypoints, code and confidence (a
    "?" after doubtful ones); labels are moved apart so that none hides another of its kind. Items
    ``held`` (by item: not seen in this live frame, shown where their hand last saw them) get their box's
    corners alone and "held" for a confidence, as the live page dashes them."""
    canvas, notes = image.copy(), notes or {}
    thick = max(1, round(max(image.shape[:2]) / 640))
    if reading.hands:
        hands = sv.Detections(xyxy=np.array([h.box for h in reading.hands], np.float32) + (-4, -4, 4, 4))
        labels = [": ".join(filter(None, (f"hand {h.index}", notes.get(h.index)))) for h in reading.hands]
        colours = np.array([h.index % DOUBT for h in reading.hands])
        _draw(canvas, hands, labels, colours, thick, sv.Position.BOTTOM_LEFT)
    if reading.items:
        held = list(held) or [False] * len(reading.items)
        colours = np.array([DOUBT if i.flag else (i.hand or 0) % DOUBT for i in reading.items])
        labels = [f"{i.code} " + ("held" if kept else f"{i.confidence:.2f}") + ("?" if i.flag else "")
                  for i, kept in zip(reading.items, held)]
        for corners in (False, True):
            chosen = [n for n, kept in enumerate(held) if kept == corners]
            if chosen:
                items = sv.Detections(xyxy=np.array([reading.items[n].box for n in chosen], np.float32))
                _draw(canvas, items, [labels[n] for n in chosen], colours[chosen], thick, sv.Position.CENTER, corners)
        read_at = [n for n, item in enumerate(reading.items) if item.keypoints and not held[n]]  # two-stage models only
        for colour in np.unique(colours[read_at]):
            chosen = [n for n in read_at if colours[n] == colour]
            points = sv.KeyPoints(xy=np.array([reading.items[n].keypoints for n in chosen], np.float32))
            sv.VertexAnnotator(PALETTE.by_idx(int(colour)), radius=2 * thick).annotate(canvas, points)
    return canvas


def _draw(canvas: np.ndarray, boxes: sv.Detections, labels: list[str], colours: np.ndarray, thick: int,
          position: sv.Position, corners: bool = False) -> None:
    """Boxes (or their ``corners`` alone), and their labels at ``position``, onto ``canvas`` in place, each
    in its palette colour."""
    outline = sv.BoxCornerAnnotator(PALETTE, thickness=thick, corner_length=8 * thick) if corners else \
        sv.BoxAnnotator(PALETTE, thickness=thick)
    outline.annotate(canvas, boxes, custom_color_lookup=colours)
    sv.LabelAnnotator(PALETTE, text_color=sv.Color.BLACK, text_scale=0.45 * thick, text_thickness=thick,
                      text_padding=3 * thick, text_position=position, smart_position=True).annotate(
        canvas, boxes, labels, custom_color_lookup=colours)
