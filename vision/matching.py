"""Which reported item stands for which true one: the pairing behind every accuracy figure of
``oxeye evaluate`` (``vision.evaluate``), held apart because the figures are only as fair as it."""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

from oxeye.vision.decode import intersections, iou_matrix
from oxeye.vision.reading import Item

MATCH_IOU = 0.5
MARK_REACH = 0.25  # a keypoint this near an index, as a share of the item's two indices' distance, marks it
SHOWING = 0.5  # an index (or a tile's half) at least this visible is one a reader could see


def as_boxes(values: list) -> np.ndarray:
    """Boxes (N, 4) x1 y1 x2 y2 as floats, from any sequence of four numbers each (none gives (0, 4))."""
    return np.asarray(values, dtype=np.float64).reshape(-1, 4)


def alike(truth: list[str], found: list[str]) -> np.ndarray:
    """(true, found) booleans: whether each found item reads as each true one (``matches``' ``same``)."""
    return np.array([[t == f for f in found] for t in truth], bool).reshape(len(truth), len(found))


def matches(truth: np.ndarray, found: np.ndarray, strays: np.ndarray | None = None,
            same: np.ndarray | None = None) -> list[list[int]]:
    """For each true box, the found boxes that stand for it: first one each, paired so that as many
    true boxes as possible are covered (IoU >= 0.5, or a lone corner index mostly inside); among
    such pairings, the one in which most found items read their true item's code (``same``, true by
    found), and then the one whose keypoints stray least (``strays``, true by found, as
    ``keypoint_stray``) or else overlap most; then each found box left over goes to the true box it
    overlaps most, as that item reported twice.

    A best-overlap-first pairing would let one found box of a fanned card take its neighbour's
    true box, losing two items to one loose box; an optimal assignment (scipy) does not. Where one
    found box covers two fanned cards alike and reads one of them, it stands for that one, as
    ultralytics' mAP pairs only boxes of one class; failing that, where a found item read the
    indices says which card it is.
    """
    if not len(truth) or not len(found):
        return [[] for _ in truth]
    ious = iou_matrix(truth, found)
    inside = intersections(truth, found) / np.prod(found[:, 2:] - found[:, :2], axis=1)[None, :].clip(1e-9)
    eligible = (ious >= MATCH_IOU) | (inside >= 0.9)
    fit = ious if strays is None else 1.0 - np.minimum(strays, 1.0)
    reads = np.zeros_like(fit) if same is None else same.astype(np.float64)
    # Ranked by the count of pairs, then of pairs read right, then fit: each weight exceeds the most
    # that everything ranked below it can add up to over the pairs.
    most = min(len(truth), len(found)) + 1.0
    value = most * (most + 1.0) + most * reads + np.clip(fit, 0.0, 1.0)
    rows, cols = linear_sum_assignment(np.where(eligible, value, 0.0), maximize=True)
    matched: list[list[int]] = [[] for _ in truth]
    for t, f in zip(rows, cols):
        if eligible[t, f]:
            matched[t].append(int(f))
    paired = {f for m in matched for f in m}
    for f in range(len(found)):
        if f not in paired and eligible[:, f].any():
            matched[int(np.where(eligible[:, f], ious[:, f] + inside[:, f], -1.0).argmax())].append(f)
    return matched


def keypoint_stray(truth: list[dict], found: list[Item]) -> np.ndarray | None:
    """How far each found item's keypoints lie from each true item's (true by found), in either
    order (the worse of the two points), as a share of the true keypoints' distance; None when the
    found items carry no keypoints."""
    if not found or any(len(item.keypoints) != 2 for item in found):
        return None
    true_points = np.array([[c["centre"] for c in item["corner_boxes"]] for item in truth], np.float64).reshape(-1, 2, 2)
    seen = np.array([item.keypoints for item in found], np.float64)[None]
    ahead = np.linalg.norm(seen - true_points[:, None], axis=3).max(axis=2)
    turned = np.linalg.norm(seen[:, :, ::-1] - true_points[:, None], axis=3).max(axis=2)
    spans = np.linalg.norm(true_points[:, 1] - true_points[:, 0], axis=1).clip(1e-9)
    return np.minimum(ahead, turned) / spans[:, None]


def index_reach(truth: list[dict], found: list[Item]) -> np.ndarray:
    """(true, found): how near the found item's nearest keypoint lies to one of the true item's showing
    indices (or a tile's halves), as a share of the true indices' distance, where the found item reads the
    true item's code; infinite where it reads another, or the item shows no index, or has no keypoints."""
    reach = np.full((len(truth), len(found)), np.inf)
    for t, item in enumerate(truth):
        centres = np.array([c["centre"] for c in item["corner_boxes"]], np.float64).reshape(-1, 2)
        showing = centres[[c["visible"] >= SHOWING for c in item["corner_boxes"]]]
        if len(centres) != 2 or not len(showing):
            continue
        span = max(float(np.linalg.norm(centres[1] - centres[0])), 1e-9)
        for f, report in enumerate(found):
            if report.code == item["code"] and report.keypoints:
                points = np.asarray(report.keypoints, np.float64)
                reach[t, f] = np.linalg.norm(points[:, None] - showing[None], axis=2).min() / span
    return reach


def standing_for(matched: list[list[int]], reach: np.ndarray) -> list[list[int]]:
    """For each true item, the found items that stand for it as a reader of the output sees them: a
    found item naming a true item at one of its showing indices (``index_reach`` within
    ``MARK_REACH``) stands for that item, the nearest so named; any other for the item ``matches``
    gave it. A fanned card's report boxed off its strip so lies over its neighbour's box, which
    ``matches`` counts as the neighbour reported twice; it is the card it names, reported once."""
    given = {f: t for t, m in enumerate(matched) for f in m}
    standing: list[list[int]] = [[] for _ in matched]
    for f in range(reach.shape[1]):
        nearest = int(reach[:, f].argmin()) if reach.shape[0] else -1
        if nearest >= 0 and reach[nearest, f] <= MARK_REACH:
            standing[nearest].append(f)
        elif f in given:
            standing[given[f]].append(f)
    return standing
