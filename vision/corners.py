"""Detections -> one item per physical card or tile, whatever the detector was trained on.

A card may be seen as a whole-card box, as one or two corner-index boxes, or both. Corner
boxes of a code inside a whole-card box of that code are absorbed into it; the remaining
corner boxes of one code pair up when close enough to be the two indices of one card.
"""

from __future__ import annotations

import numpy as np

from oxeye.vision.classes import CORNER_SUFFIX, kind_of
from oxeye.vision.decode import Detections
from oxeye.vision.reading import AMBIGUOUS, Item, doubt

PAIR_REACH = 12.0  # two indices of one card lie within this many index sizes of each other
ABSORB_MARGIN = 0.1  # a corner belongs to a card box grown by this share of its size


def _code(name: str) -> str:
    return name.removesuffix(CORNER_SUFFIX)


def _item(name: str, box: np.ndarray, score: float, rival_name: str, rival_score: float) -> Item:
    flag = doubt(score, rival_score)
    return Item(_code(name), kind_of(name), tuple(float(v) for v in box), float(score),
                flag=flag, rival=_code(rival_name) if flag == AMBIGUOUS else None)


def _inside(point: np.ndarray, box: np.ndarray) -> bool:
    margin = ABSORB_MARGIN * (box[2:] - box[:2])
    return bool(np.all(point >= box[:2] - margin) and np.all(point <= box[2:] + margin))


def _pairs(boxes: np.ndarray) -> list[tuple[int, ...]]:
    """Greedy nearest pairing of corner boxes of one code; unpaired ones stand alone."""
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    sizes = np.sqrt(np.prod(boxes[:, 2:] - boxes[:, :2], axis=1))
    links = []
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            distance = float(np.linalg.norm(centres[i] - centres[j]))
            if distance <= PAIR_REACH * max(sizes[i], sizes[j]):
                links.append((distance, i, j))
    used: set[int] = set()
    groups: list[tuple[int, ...]] = []
    for _, i, j in sorted(links):
        if i not in used and j not in used:
            used.update((i, j))
            groups.append((i, j))
    return groups + [(i,) for i in range(len(boxes)) if i not in used]


def collapse(detections: Detections, names: tuple[str, ...]) -> list[Item]:
    """One item per physical card or tile, best first; corner indices merged into their card."""
    is_corner = np.array([names[c].endswith(CORNER_SUFFIX) for c in detections.class_ids], dtype=bool)
    wholes, corners = np.flatnonzero(~is_corner), np.flatnonzero(is_corner)
    found: list[tuple[np.ndarray, float, int, float, int]] = [
        (detections.boxes[i], float(detections.scores[i]), int(detections.class_ids[i]),
         float(detections.rival_scores[i]), int(detections.rival_ids[i])) for i in wholes]
    loose = []
    for i in corners:
        code = _code(names[detections.class_ids[i]])
        centre = (detections.boxes[i, :2] + detections.boxes[i, 2:]) / 2
        owner = next((n for n, w in enumerate(found) if names[w[2]] == code and _inside(centre, w[0])), None)
        if owner is None:
            loose.append(i)
        elif detections.scores[i] > found[owner][1]:
            box, _, class_id, rival_score, rival_id = found[owner]
            found[owner] = (box, float(detections.scores[i]), class_id, rival_score, rival_id)
    for class_id in sorted({int(detections.class_ids[i]) for i in loose}):
        members = np.array([i for i in loose if detections.class_ids[i] == class_id])
        for group in _pairs(detections.boxes[members]):
            chosen = members[list(group)]
            box = np.concatenate([detections.boxes[chosen, :2].min(0), detections.boxes[chosen, 2:].max(0)])
            best = chosen[int(detections.scores[chosen].argmax())]
            found.append((box, float(detections.scores[best]), class_id,
                          float(detections.rival_scores[best]), int(detections.rival_ids[best])))
    found.sort(key=lambda f: -f[1])
    return [_item(names[c], box, score, names[rc], rs) for box, score, c, rs, rc in found]
