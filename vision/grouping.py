"""Group items into hands: one hand is the five items of one seat, many hands per frame.

Items touching or nearly touching (relative to the typical item size) form a cluster; a
cluster of more than five, as when fans overlap, is split by capped single-linkage
clustering of the item centres into groups of at most five (single linkage follows the
chain of items along a row, spread or fan; it beat average and complete linkage on the
generator's ground-truth boxes: 80% of hands exact against 65-73%), then refined by moving
or swapping one or two items between neighbouring groups while that leaves fewer groups (a
hand's last card the split left alone joins it) or lowers each group's spanning-tree length plus
its thickness across its main axis, as a hand lies along a line or in a compact fan. Where the
items' keypoints say how each lies, two items turned from each other are further apart by the
turn: a row's or a spread's items lie parallel and a fan's turn a little from one to the next,
while two hands that meet mostly lie at an angle to each other. MODEL_CARD.md has the figures.
Groups of fewer than five stay hands of their own (``Hand.complete`` is False) rather than
being padded (the detector then looks for a short hand's missing cards, ``vision.completion``,
and groups again); and a member of a complete hand that lies about as near another hand as
its own is flagged ``unsure_hand``, as where a hand's own item was missed the split makes up five
from a neighbour's.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations, permutations
from math import sqrt

import numpy as np

from oxeye.vision.reading import UNSURE_HAND, Hand, Item

HAND_SIZE = 5
GAP = 0.4  # items whose boxes are closer than this many item lengths belong to one cluster
THICKNESS = 4.0  # weight of a group's spread across its main axis (per item) against its tree length
TURN = 1.5  # item lengths added to the distance between two items per radian they are turned from each other
# A member of a complete hand whose nearest item of another hand lies at most this many times as far
# as its nearest fellow member is flagged: it may be the other hand's (chosen on tuning builds with
# python -m bench.unsure_sweep).
UNSURE = 1.4


def _clusters(boxes: np.ndarray, reach: float) -> list[list[int]]:
    """Connected components of 'the boxes are within ``reach`` pixels of each other'."""
    gaps_x = np.maximum(boxes[:, None, 0] - boxes[None, :, 2], boxes[None, :, 0] - boxes[:, None, 2])
    gaps_y = np.maximum(boxes[:, None, 1] - boxes[None, :, 3], boxes[None, :, 1] - boxes[:, None, 3])
    near = np.hypot(gaps_x.clip(0), gaps_y.clip(0)) <= reach
    label = list(range(len(boxes)))
    for i, j in zip(*np.nonzero(np.triu(near, 1))):
        a, b = label[i], label[j]
        if a != b:
            label = [a if x == b else x for x in label]
    groups: dict[int, list[int]] = {}
    for i, x in enumerate(label):
        groups.setdefault(x, []).append(i)
    return list(groups.values())


def _split(members: list[int], distance: np.ndarray) -> list[list[int]]:
    """Capped single linkage: join the nearest two groups whose union holds at most five, until none can.

    Kruskal's order gives the same result: a join refused for size stays refused, as groups only grow.
    """
    group = {m: [m] for m in members}
    pairs = [(distance[i, j], i, j) for n, i in enumerate(members) for j in members[n + 1:]]
    for _, i, j in sorted(pairs):
        a, b = group[i], group[j]
        if a is not b and len(a) + len(b) <= HAND_SIZE:
            a += b
            for m in b:
                group[m] = a
    return list({id(g): g for g in group.values()}.values())


def _tree_length(group: list[int], distance: np.ndarray) -> float:
    """Length of the minimum spanning tree over the group's centres (Prim; groups hold at most five)."""
    if len(group) < 2:
        return 0.0
    reach = {i: distance[group[0], i] for i in group[1:]}
    total = 0.0
    while reach:
        nearest = min(reach, key=reach.get)
        total += reach.pop(nearest)
        reach = {i: min(d, distance[nearest, i]) for i, d in reach.items()}
    return total


def _thickness(group: list[int], centres: list[list[float]]) -> float:
    """Standard deviation of the centres across their main axis (0 for a straight row); plain Python, as
    groups hold at most five points and numpy's per-call cost would dominate."""
    n = len(group)
    if n < 3:
        return 0.0
    sx = sy = sxx = sxy = syy = 0.0
    for i in group:
        x, y = centres[i]
        sx, sy, sxx, sxy, syy = sx + x, sy + y, sxx + x * x, sxy + x * y, syy + y * y
    a, b, c = sxx - sx * sx / n, sxy - sx * sy / n, syy - sy * sy / n
    return sqrt(max((a + c) / 2 - sqrt(((a - c) / 2) ** 2 + b * b), 0.0) / (n - 1))


def _moves(a: list[int], b: list[int]) -> Iterator[tuple[list[int], list[int]]]:
    """Every way to move one or two items of group a into group b, or to swap them with as many of b's: two
    rows lying close are mixed by the split two and three a side, which no single move or swap undoes."""
    for count in (1, 2):
        for taken in combinations(a, count):
            rest = [x for x in a if x not in taken]
            if len(b) + count <= HAND_SIZE:
                yield rest, b + list(taken)
            for given in combinations(b, count):
                yield rest + list(given), [x for x in b if x not in given] + list(taken)


def _refine(groups: list[list[int]], centres: np.ndarray, distance: np.ndarray, reach: float) -> list[list[int]]:
    """Between groups within ``reach`` of each other, apply moves that leave fewer groups, or as many at a lower
    summed cost, until none does: a hand's item the split left alone, or two, join it where the hand has room."""
    points = centres.tolist()
    spreads: dict[frozenset[int], float] = {}
    known: dict[frozenset[int], float] = {}

    def spread(group: list[int]) -> float:
        """The group's thickness term, never above its cost: most moves are ruled out by it before a tree is measured."""
        key = frozenset(group)
        if key not in spreads:
            spreads[key] = THICKNESS * _thickness(group, points) * len(group)
        return spreads[key]

    def cost(group: list[int]) -> float:
        """The group's spanning-tree length plus its thickness term."""
        key = frozenset(group)
        if key not in known:
            known[key] = _tree_length(group, distance) + spread(group)
        return known[key]

    def improve(a: int, b: int) -> bool:
        if not groups[a] or not groups[b] or distance[np.ix_(groups[a], groups[b])].min() > reach:
            return False
        bar = cost(groups[a]) + cost(groups[b]) - 1e-9  # to lower by more than rounding
        for new_a, new_b in _moves(groups[a], groups[b]):
            if not (new_a and new_b) or (spread(new_a) + spread(new_b) < bar and cost(new_a) + cost(new_b) < bar):
                groups[a], groups[b] = new_a, new_b
                return True
        return False

    changed = True
    while changed:
        changed = False
        for a, b in permutations(range(len(groups)), 2):
            while improve(a, b):
                changed = True
    return [g for g in groups if g]


def _turns(items: list[Item]) -> np.ndarray:
    """(N, N) radians by which each two items are turned from each other (0 to pi/2, either way
    round), from the line through each one's two keypoints; 0 where an item has no keypoints."""
    angles = np.array([np.arctan2(k[1][1] - k[0][1], k[1][0] - k[0][0]) if len(k) == 2 else np.nan
                       for k in (item.keypoints for item in items)])
    return np.nan_to_num(np.abs((angles[:, None] - angles[None] + np.pi / 2) % np.pi - np.pi / 2))


def _unsure_members(groups: list[list[int]], distance: np.ndarray) -> list[int]:
    """Members of complete hands lying nearly as near another hand as their own (see ``UNSURE``): where a
    hand's own item was missed, the grouping makes up its five from a neighbour's."""
    owner = np.empty(len(distance), int)
    for n, group in enumerate(groups):
        owner[group] = n
    unsure = []
    for n, group in enumerate(groups):
        if len(group) < HAND_SIZE or (owner == n).all():
            continue
        for i in group:
            own = min(distance[i, j] for j in group if j != i)
            if distance[i, owner != n].min() <= UNSURE * own:
                unsure.append(i)
    return unsure


def group_hands(items: list[Item]) -> list[Hand]:
    """Assign ``item.hand`` for every item (and ``UNSURE_HAND`` to a doubtful member, see ``UNSURE``)
    and return the hands in reading order (top to bottom, left to right)."""
    if not items:
        return []
    boxes = np.array([item.box for item in items], dtype=np.float64)
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    length = float(np.median((boxes[:, 2:] - boxes[:, :2]).max(axis=1)))
    distance = np.linalg.norm(centres[:, None] - centres[None], axis=2) + TURN * length * _turns(items)
    groups = []
    for cluster in _clusters(boxes, GAP * length):
        if len(cluster) <= HAND_SIZE:
            groups.append(cluster)
        else:
            # Groups whose nearest items lie as far apart as the clustering joins items: a card's length and a gap.
            groups += _refine(_split(cluster, distance), centres, distance, (1 + GAP) * length)
    for item in items:  # a flag of an earlier grouping of these items goes: this one decides
        item.flag = None if item.flag == UNSURE_HAND else item.flag
    for i in _unsure_members(groups, distance):
        items[i].flag = items[i].flag or UNSURE_HAND
    return numbered(items, groups)


def numbered(items: list[Item], groups: list[list[int]]) -> list[Hand]:
    """``groups`` of ``items`` (by index) as hands in reading order, top to bottom by rows an item long,
    then left to right, each hand's items in the order they lie along it (``along``); sets every grouped
    ``item.hand``. Apart from ``group_hands`` for a live frame's hands made up again (``vision.steady``: one
    held in view)."""
    if not groups:
        return []
    boxes = np.array([item.box for item in items], dtype=np.float64)
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    length = float(np.median((boxes[:, 2:] - boxes[:, :2]).max(axis=1)))
    groups = sorted(groups, key=lambda g: (round(float(centres[g, 1].mean()) / length), float(centres[g, 0].mean())))
    hands = []
    for index, group in enumerate(groups):
        group = along(group, centres)
        for i in group:
            items[i].hand = index
        box = (*boxes[group, :2].min(0), *boxes[group, 2:].max(0))
        hands.append(Hand(index, group, [items[i].code for i in group], tuple(float(v) for v in box)))
    return hands


def along(group: list[int], centres: np.ndarray) -> list[int]:
    """The items of ``group`` (by index into ``centres``) in the order they lie along their hand: left to right, or
    top to bottom where the hand lies more upright than across (a column's items, read left to right, came in
    the order of their centres' sub-pixel offsets: 6S 7S 9S 8S 10S)."""
    spans = np.ptp(centres[group], axis=0)
    first, then = (1, 0) if spans[1] > spans[0] else (0, 1)
    return sorted(group, key=lambda i: (centres[i, first], centres[i, then]))
