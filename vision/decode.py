"""Decode the YOLOv8/11 ONNX output into boxes, and suppress duplicates.

Hand-written because the issue asks for our own decoding and suppression. The output is
(1, 4 + classes, anchors): centre x, centre y, width, height in input pixels, then class
scores already through a sigmoid (no objectness); a pose model adds x, y and a visibility
score (through a sigmoid) for each of its keypoints, which ride along with their box. A head
trained to propose each item once (yolo26's, exported with ``nms=False``) gives instead
(1, proposals, 6 + 3 x keypoints): corners, score, class, keypoints, and needs no suppression.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Detections:
    """Boxes (N, 4) x1 y1 x2 y2, scores and class ids (N,), the best rival reading of each box, and
    its keypoints (N, K, 3): x, y, visibility score (K is 0 for a model without keypoints)."""

    boxes: np.ndarray
    scores: np.ndarray
    class_ids: np.ndarray
    rival_scores: np.ndarray
    rival_ids: np.ndarray
    keypoints: np.ndarray

    def __len__(self) -> int:
        return len(self.scores)

    def take(self, keep: np.ndarray) -> Detections:
        """The detections at the indices (or mask) ``keep``."""
        return Detections(self.boxes[keep], self.scores[keep], self.class_ids[keep],
                          self.rival_scores[keep], self.rival_ids[keep], self.keypoints[keep])


def candidates(output: np.ndarray, conf: float, keypoints: int = 0) -> Detections:
    """Every anchor whose best class scores above ``conf``, as corner boxes with its runner-up class
    and its ``keypoints`` keypoints (the last 3 x ``keypoints`` rows of the output)."""
    table = output[0]
    classes = table[4:len(table) - 3 * keypoints]
    keep = classes.max(axis=0) > conf  # strictly above, as ultralytics filters
    cx, cy, w, h = table[:4, keep]
    class_scores = classes[:, keep]
    top_two = np.argsort(-class_scores, axis=0, kind="stable")[:2]
    columns = np.arange(class_scores.shape[1])
    scores = class_scores[top_two[0], columns]
    rivals = class_scores[top_two[-1], columns] if len(class_scores) > 1 else np.zeros_like(scores)
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)
    points = table[len(table) - 3 * keypoints:, keep].T.reshape(len(scores), keypoints, 3)
    return Detections(boxes.astype(np.float32), scores.astype(np.float32), top_two[0],
                      rivals.astype(np.float32), top_two[-1], points.astype(np.float32))


def intersections(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Area shared by every box in ``a`` (N, 4) with every box in ``b`` (M, 4): (N, M)."""
    top_left = np.maximum(a[:, None, :2], b[None, :, :2])
    bottom_right = np.minimum(a[:, None, 2:], b[None, :, 2:])
    return np.prod((bottom_right - top_left).clip(0), axis=2)


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Intersection over union of every box in ``a`` (N, 4) with every box in ``b`` (M, 4)."""
    inter = intersections(a, b)
    area_a = np.prod(a[:, 2:] - a[:, :2], axis=1)
    area_b = np.prod(b[:, 2:] - b[:, :2], axis=1)
    return inter / (area_a[:, None] + area_b[None, :] - inter + 1e-9)


def nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> np.ndarray:
    """Greedy non-maximum suppression: indices kept, best score first."""
    order = np.argsort(-scores, kind="stable")
    ious = iou_matrix(boxes[order], boxes[order])
    suppressed = np.zeros(len(order), dtype=bool)
    keep = []
    for i in range(len(order)):
        if suppressed[i]:
            continue
        keep.append(order[i])
        suppressed |= ious[i] > iou
    return np.asarray(keep, dtype=np.int64)


def class_aware_nms(detections: Detections, iou: float, max_det: int = 300) -> Detections:
    """Suppress overlapping boxes of the same class only, like ultralytics' default NMS."""
    if not len(detections):
        return detections
    # Offsetting each class far apart makes one NMS pass act per class.
    offset = detections.class_ids[:, None].astype(np.float32) * 7680.0
    keep = nms(detections.boxes + offset, detections.scores, iou)[:max_det]
    return detections.take(keep)


def cross_class_suppression(detections: Detections, iou: float) -> Detections:
    """Keep one reading per physical item: a box overlapping a better one of another class by more
    than ``iou`` is dropped, and becomes the better one's rival when it outscores the current rival."""
    keep = nms(detections.boxes, detections.scores, iou)
    kept = detections.take(np.sort(keep))
    if len(keep) == len(detections):
        return kept
    ious = iou_matrix(detections.boxes, kept.boxes)
    rival_scores, rival_ids = kept.rival_scores.copy(), kept.rival_ids.copy()
    for i in np.setdiff1d(np.arange(len(detections)), keep):
        j = int(ious[i].argmax())
        if detections.class_ids[i] != kept.class_ids[j] and detections.scores[i] > rival_scores[j]:
            rival_scores[j], rival_ids[j] = detections.scores[i], detections.class_ids[i]
    return Detections(kept.boxes, kept.scores, kept.class_ids, rival_scores, rival_ids, kept.keypoints)


def proposed_once(output: np.ndarray, conf: float, keypoints: int = 0) -> Detections:
    """A one-to-one head's proposals scoring above ``conf``, best first: no suppression, and no
    runner-up class (each is its own rival, at 0)."""
    rows = output[0][output[0][:, 4] > conf]
    rows = rows[np.argsort(-rows[:, 4], kind="stable")]
    classes = rows[:, 5].astype(np.int64)
    return Detections(rows[:, :4].astype(np.float32), rows[:, 4].astype(np.float32), classes,
                      np.zeros(len(rows), np.float32), classes.copy(),
                      rows[:, 6:6 + 3 * keypoints].reshape(len(rows), keypoints, 3).astype(np.float32))


def decode(output: np.ndarray, conf: float = 0.25, iou: float = 0.7, max_det: int = 300,
           keypoints: int = 0) -> Detections:
    """Raw model output -> class-aware NMS'd detections in input pixels, best first."""
    return class_aware_nms(candidates(output, conf, keypoints), iou, max_det)
