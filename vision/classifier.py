"""The second stage: a small image classifier names each box the detector found (ONNX, CPU).

The detector only says where cards and tiles lie; names come from crops of the full-resolution
frame, where a card's index is many times larger than in the detector's 320-pixel input.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from oxeye.vision.classes import BACKGROUND, CROP_CLASSES, kind_of
from oxeye.vision.crops import crop_batch
from oxeye.vision.decode import Detections, intersections
from oxeye.vision.reading import AMBIGUOUS, LOW_CONFIDENCE, LOW_SCORE, Item, doubt
from oxeye.vision.runtime import open_session

NESTED = 0.6  # an item this much inside a surer item of its kind is that item seen twice
CLASSIFIER_NAME = "oxeye-cls.onnx"  # the classifier lives beside the detector it serves
CLASSIFIER_WEIGHTS = "oxeye-cls.pt"  # its torch weights, beside it


class Classifier:
    """The exported crop classifier (``vision.crop_net``) over ``CROP_CLASSES``: crops in, class probabilities out."""

    def __init__(self, model: Path, threads: int = 2) -> None:
        self.session, metadata = open_session(model, threads, "train it with 'oxeye train-classifier'")
        self.input_name = self.session.get_inputs()[0].name
        self.size = int(np.max(metadata["imgsz"]))
        names = metadata["names"]
        self.names = tuple(names[i] for i in range(len(names)))
        if set(self.names) != set(CROP_CLASSES):
            raise OSError(f"{model} does not classify oxeye's items (its classes: {', '.join(self.names[:5])}, ...)")

    def probabilities(self, image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """(N, classes) probabilities for the crops of ``boxes`` (frame pixels) of a BGR frame."""
        if not len(boxes):
            return np.zeros((0, len(self.names)), np.float32)
        return self.session.run(None, {self.input_name: crop_batch(image, boxes, self.size)})[0]

    def name(self, image: np.ndarray, found: Detections) -> list[Item]:
        """One item per box whose crop shows a card or tile, best first; doubts flagged, never guessed."""
        return name_items(found, self.probabilities(image, found.boxes), self.names)


def name_items(found: Detections, probabilities: np.ndarray, names: tuple[str, ...]) -> list[Item]:
    """Items from boxes and their crops' class probabilities: "none" drops a box; doubt about where
    (the box's score) or about what (a weak or contested name) flags the item."""
    items = []
    for box, box_score, scores in zip(found.boxes, found.scores, probabilities):
        first, second = np.argsort(-scores, kind="stable")[:2]
        code, rival = names[first], names[second]
        if code == BACKGROUND:
            continue
        flag = LOW_CONFIDENCE if box_score < LOW_SCORE else doubt(float(scores[first]), float(scores[second]))
        items.append(Item(code, kind_of(code), tuple(float(v) for v in box), float(min(box_score, scores[first])),
                          flag=flag, rival=rival if flag == AMBIGUOUS and rival != BACKGROUND else None))
    items.sort(key=lambda item: -item.confidence)
    return _without_nested_twins(items)


def _without_nested_twins(items: list[Item]) -> list[Item]:
    """Drop an item lying mostly inside a surer one of the same kind: one card seen whole and again as
    a part, often under another name. (On a tuning build, seed 555, this took items reported twice
    from 96 to 13 and item accuracy from 62% to 66%; a fan's cards overlap less than this.)"""
    boxes = np.asarray([item.box for item in items], np.float64).reshape(-1, 4)
    inside = intersections(boxes, boxes) / np.prod((boxes[:, 2:] - boxes[:, :2]).clip(0), axis=1)[:, None].clip(1e-9)
    kept: list[int] = []
    for i, item in enumerate(items):  # surest first
        if not any(items[k].kind == item.kind and inside[i, k] >= NESTED for k in kept):
            kept.append(i)
    return [items[i] for i in kept]
