"""The second stage: a small image classifier names each item the detector found (ONNX, CPU).

The detector says where cards and tiles lie and where each one's two keypoints are (a card's corner
indices, a tile's halves). A crop of the full-resolution frame around each keypoint (``vision.crops``)
is named: a card by whichever of its indices reads best, a tile by the pips of its two halves.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from oxeye.vision.classes import BACKGROUND, CARD_CLASSES, CROP_CLASSES, KINDS, PIP_CLASSES
from oxeye.vision.completion import Completion, Spot, spots
from oxeye.vision.crops import Pyramid, item_crops, moved_crops, to_blob
from oxeye.vision.decode import Detections, intersections
from oxeye.vision.reading import AMBIGUOUS, LOW_CONFIDENCE, LOW_SCORE, RIVAL_RATIO, Hand, Item, doubt
from oxeye.vision.runtime import open_session, required

CLASSIFIER_NAME = "oxeye-cls.onnx"  # the classifier lives beside the detector it serves
CLASSIFIER_WEIGHTS = "oxeye-cls.pt"  # its torch weights, beside it


@dataclass(frozen=True)
class Twins:
    """When an item is a surer item of its kind seen twice (whole, and again as a part): it reads
    the same code and either box lies at least ``inside`` within the other (the part may be the
    surer one: a tucked card's strip, and its whole outline again) or a keypoint of it lies within
    ``meet`` of the keypoints' distance of one of the surer's (one index read twice, by boxes apart);
    or it lies ``inside`` within the surer one's box and is itself unsure (confidence under
    ``unsure``). A fanned card lies as far inside its neighbour, but reads otherwise, and mostly
    surely. Chosen on tuning builds with ``python -m bench.twins_sweep``; MODEL_CARD.md has the
    figures. (Two like cards of two decks, one half over the other, would read as one.)"""

    inside: float = 0.4
    unsure: float = 0.3
    meet: float = 0.25


@dataclass(frozen=True)
class Rescue:
    """Which detections scoring under the detector's threshold are kept all the same: those scoring
    at least ``floor`` whose name, read from their crops, scores ``sure`` or more. A card alone on a
    busy ground (a rug, a printed page) can score under the threshold while its index reads plainly;
    bare table and clutter rarely read as an index that surely. Chosen on tuning builds with
    ``python -m bench.rescue_sweep``; MODEL_CARD.md has the figures. A ``floor`` at or above the
    threshold turns it off."""

    floor: float = 0.05
    sure: float = 0.9


@dataclass(frozen=True)
class Doubt:
    """When a named item is flagged for what it is: its name scores under ``name`` (low-confidence),
    or its runner-up scores ``rival`` of the name or more (ambiguous). A name read at 0.7 with no
    close runner-up is wrong far more often than one read at 0.95, and the service scores only hands
    with no flag. Chosen on a tuning build with ``python -m bench.doubt_sweep``; MODEL_CARD.md has
    the figures."""

    name: float = 0.85
    rival: float = RIVAL_RATIO


@dataclass(frozen=True)
class Recheck:
    """Which crops are read again, and how: one whose best class scores under ``below`` is read again moved
    ``shift`` pixels each way and zoomed by ``zoom`` either way (``crops.moved_crops``; 0 leaves either out),
    and all its readings' probabilities averaged. A crop cut a little off its index, or with a neighbour's
    index at its edge, is read sure of the wrong class less often so: fewer doubles and misnamed fanned
    cards. Chosen on tuning builds with ``python -m bench.recheck_sweep``; MODEL_CARD.md has the figures.
    A ``below`` of 0 turns it off."""

    below: float = 0.75
    shift: float = 3.0
    zoom: float = 0.1


@dataclass(frozen=True)
class Shown:
    """Which of a card's two index crops name it. The detector boxes a card by the part of it that shows,
    so a card tucked under another has its hidden index off its box, and the crop there shows the card
    over it, whose index reads surely: where one keypoint lies on the box (grown by ``margin`` of the
    keypoints' distance) and the other off it, the crop off it counts ``weight`` times its scores. A
    ``weight`` of 1 turns it off. Chosen on tuning builds with ``python -m bench.shown_sweep``;
    MODEL_CARD.md has the figures."""

    margin: float = 0.1
    weight: float = 0.0

    def weights(self, boxes: np.ndarray, keypoints: np.ndarray) -> np.ndarray:
        """Each card's two crops' weights (N, 2), from its box (N, 4) and its two keypoints (N, 2, 2 or more);
        all at once, as one card at a time cost 2.7 ms of a 39 ms frame of 37 detections."""
        points = np.asarray(keypoints, np.float64)[:, :2, :2]
        boxes = np.asarray(boxes, np.float64).reshape(-1, 1, 4)
        grow = self.margin * np.linalg.norm(points[:, 1] - points[:, 0], axis=1)[:, None, None]
        on = ((points >= boxes[..., :2] - grow) & (points <= boxes[..., 2:] + grow)).all(axis=2)
        return np.where(on | ~on.any(axis=1, keepdims=True), 1.0, self.weight)


class Classifier:
    """The exported crop classifier (``vision.crop_net``) over ``CROP_CLASSES``: crops in, class probabilities out."""

    def __init__(self, model: Path, threads: int = 2) -> None:
        self.session, metadata = open_session(model, threads, "train it with 'oxeye train-classifier'")
        self.input_name = self.session.get_inputs()[0].name
        self.twins = Twins()
        self.shown = Shown()
        self.rescue = Rescue()
        self.doubt = Doubt()
        self.completion = Completion()
        self.recheck = Recheck()
        required(metadata, ("names", "imgsz"), model, "'oxeye train-classifier'")
        self.size = int(np.max(metadata["imgsz"]))
        names = metadata["names"]
        self.names = tuple(names[i] for i in range(len(names)))
        if self.names != CROP_CLASSES:
            raise OSError(f"{model} does not classify oxeye's item crops (its classes: {', '.join(self.names[:5])}, ...)")

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        """(N, classes) probabilities for BGR crops (N, size, size, 3); those read unsure, read again as
        ``self.recheck`` says."""
        if not len(crops):
            return np.zeros((0, len(self.names)), np.float32)
        read = self._run(crops)
        unsure = read.max(axis=1) < self.recheck.below
        variants = moved_crops(crops[unsure], self.recheck.shift, self.recheck.zoom)
        if variants.size:
            again = self._run(variants.reshape(-1, *crops.shape[1:])).reshape(len(variants), -1, len(self.names))
            read[unsure] = (read[unsure] + again.sum(axis=0)) / (len(variants) + 1)
        return read

    def _run(self, crops: np.ndarray) -> np.ndarray:
        """The network's (N, classes) probabilities for BGR crops (N, size, size, 3), read once each."""
        return self.session.run(None, {self.input_name: to_blob(crops)})[0]

    def name(self, levels: Pyramid, found: Detections, threshold: float = 0.0) -> list[Item]:
        """One item per detection whose crops (cut from the frame's ``crops.Pyramid``) show a card or
        tile, best first; doubts flagged, never guessed. Detections scoring under ``threshold`` stay
        only as ``self.rescue`` allows."""
        read = self._read(found)
        probabilities = np.zeros((len(found), 2, len(self.names)), np.float32)
        probabilities[..., _NONE] = 1.0
        crops = detection_crops(levels, found.class_ids, found.keypoints, self.size, read)
        probabilities[read] = self.probabilities(crops)
        return name_items(found, probabilities, self.twins, threshold, self.rescue.sure, self.doubt, self.shown)

    def _read(self, found: Detections) -> np.ndarray:
        """Which of the detections' two crops (N, 2) are cut and read: not a card's crop that ``shown`` weighs at 0
        (its index under the card over it; 34 of the 74 crops of the speed benchmark's fanned frame), which counts
        as showing nothing of the card."""
        cards = np.asarray([KINDS[class_id] == "card" for class_id in found.class_ids], bool).reshape(-1, 1)
        return ~cards | (self.shown.weights(found.boxes, found.keypoints) > 0)

    def complete(self, levels: Pyramid, items: list[Item], hands: list[Hand]) -> list[Item]:
        """``items`` and after them the cards found where short hands' missing cards would lie
        (``vision.completion``; crops cut from the frame's ``crops.Pyramid``), each flagged
        low-confidence; a find that is a found item seen twice (``twins``) is left out."""
        looked = spots(items, hands, self.completion.reach) if self.completion.sure <= 1 else []
        if not looked:
            return items
        crops = np.concatenate([item_crops(levels, "card", spot.keypoints, self.size) for spot in looked])
        pairs = self.probabilities(crops).reshape(len(looked), 2, len(self.names))
        height, width = levels[0].shape[:2]
        finds = [find for spot, pair in zip(looked, pairs)
                 if (find := _find(spot, pair, hands[spot.hand].codes, self.completion.sure, width, height))]
        finds.sort(key=lambda item: -item.confidence)
        return without_twins(items + finds, self.twins) if finds else items


def detection_crops(levels: Pyramid, class_ids: np.ndarray, keypoints: np.ndarray, size: int,
                    read: np.ndarray | None = None) -> np.ndarray:
    """The two keypoint crops (N * 2, size, size, 3) of N detections of a two-stage detector, item by
    item, cut from the frame's ``crops.Pyramid``: their kinds' indices and keypoints (N, 2, 2 or 3)
    in frame pixels; only those ``read`` (N, 2) keeps, where given."""
    which = np.ones((len(class_ids), 2), bool) if read is None else read
    return np.concatenate([item_crops(levels, KINDS[int(c)], points, size, kept)
                           for c, points, kept in zip(class_ids, keypoints, which)]
                          or [np.zeros((0, size, size, 3), np.uint8)])


_CARDS = slice(0, len(CARD_CLASSES))
_PIPS = slice(len(CARD_CLASSES), len(CARD_CLASSES) + len(PIP_CLASSES))
_NONE = CROP_CLASSES.index(BACKGROUND)


def _card_name(pair: np.ndarray, weights: np.ndarray | None = None) -> tuple[str, float, str, float]:
    """A card from its two index crops' probabilities (2, classes), each crop's scores times its weight
    (``Shown``; 1 each by default): the code either index reads best, and the runner-up."""
    scores = (pair[:, _CARDS] * (1.0 if weights is None else weights[:, None])).max(axis=0)
    first, second = np.argsort(-scores, kind="stable")[:2]
    return CARD_CLASSES[first], float(scores[first]), CARD_CLASSES[second], float(scores[second])


def _tile_name(pair: np.ndarray) -> tuple[str, float, str, float]:
    """A tile from its two half crops' probabilities (2, classes): the pips each half reads best, as
    'high-low', scored by the less sure half; the runner-up changes that half's reading."""
    pips = pair[:, _PIPS]
    best = pips.argmax(axis=1)
    weak = int(pips[np.arange(2), best].argmin())
    runner = pips[weak].copy()
    runner[best[weak]] = -1.0
    other = best.copy()
    other[weak] = runner.argmax()

    def code(counts: np.ndarray) -> str:
        high, low = sorted((int(n) + 1 for n in counts), reverse=True)
        return f"{high}-{low}"

    return code(best), float(pips[weak, best[weak]]), code(other), float(runner.max())


def item_name(kind: str, pair: np.ndarray, weights: np.ndarray | None = None) -> tuple[str, float, str, float]:
    """The code, its score, the runner-up and its score of an item of ``kind`` from its two crops'
    probabilities (2, classes); a card's crops weighted by ``weights`` (``Shown``)."""
    return _card_name(pair, weights) if kind == "card" else _tile_name(pair)


def _unread(pair: np.ndarray) -> bool:
    """Whether neither of an item's two crops (2, classes) shows an index or a half."""
    return bool((pair.argmax(axis=1) == _NONE).all())


def _points(keypoints: np.ndarray) -> tuple[tuple[float, float], ...]:
    """Keypoints (K, 2 or more) as an ``Item`` holds them: (x, y) in frame pixels."""
    return tuple((float(x), float(y)) for x, y in np.asarray(keypoints)[:, :2])


def _find(spot: Spot, pair: np.ndarray, codes: list[str], sure: float, width: int, height: int) -> Item | None:
    """The card a spot's two crops (2, classes) name ``sure`` or more, unless its hand holds that code
    already or the spot lies off the frame. Where it lies is a guess, so it is flagged low-confidence
    and its confidence is its name's score scaled under the flag's bar (``LOW_SCORE``)."""
    if _unread(pair):
        return None
    code, score, _, _ = _card_name(pair)
    x1, y1, x2, y2 = spot.box
    if score < sure or code in codes or not (0 <= (x1 + x2) / 2 <= width and 0 <= (y1 + y2) / 2 <= height):
        return None
    box = (max(0.0, x1), max(0.0, y1), min(float(width), x2), min(float(height), y2))
    return Item(code, "card", tuple(float(v) for v in box), LOW_SCORE * score, flag=LOW_CONFIDENCE,
                keypoints=_points(spot.keypoints))


def name_items(found: Detections, probabilities: np.ndarray, twins: Twins = Twins(), threshold: float = 0.0,
               sure: float = Rescue.sure, doubts: Doubt = Doubt(), shown: Shown = Shown()) -> list[Item]:
    """Items from detections and their two crops' class probabilities (N, 2, classes).

    A detection is dropped when neither crop shows an index or half and the detector itself was
    unsure of it (the table under a false detection); when the detector was sure, the item stays,
    flagged. One scoring under ``threshold`` stays only when its name scores ``sure`` or more (see
    ``Rescue``). Doubt about where (the box's score) or about what (a weak or contested name,
    ``doubts``) flags it. A card is named from the crops its box shows (``shown``). An item that is a
    surer one seen twice (``twins``) is dropped.
    """
    items = []
    weights = shown.weights(found.boxes, found.keypoints)
    for box, box_score, class_id, points, pair, weight in zip(found.boxes, found.scores, found.class_ids,
                                                              found.keypoints, probabilities, weights):
        kind = KINDS[class_id]
        unread = _unread(pair)
        if unread and box_score < LOW_SCORE:
            continue
        code, score, rival, rival_score = item_name(kind, pair, weight if kind == "card" else None)
        if box_score < threshold and score < sure:
            continue
        doubtful = unread or box_score < LOW_SCORE
        flag = LOW_CONFIDENCE if doubtful else doubt(score, rival_score, doubts.name, doubts.rival)
        items.append(Item(code, kind, tuple(float(v) for v in box), float(min(box_score, score)),
                          flag=flag, rival=rival if flag == AMBIGUOUS else None,
                          keypoints=_points(points)))
    items.sort(key=lambda item: -item.confidence)
    return without_twins(items, twins)


def without_twins(items: list[Item], twins: Twins) -> list[Item]:
    """Drop each item that is an earlier (surer) one seen twice (see ``Twins``), in the items' order."""
    boxes = np.asarray([item.box for item in items], np.float64).reshape(-1, 4)
    inside = intersections(boxes, boxes) / np.prod((boxes[:, 2:] - boxes[:, :2]).clip(0), axis=1)[:, None].clip(1e-9)
    kept: list[int] = []
    for i, item in enumerate(items):
        if not any(items[k].kind == item.kind and (
                (items[k].code == item.code and (max(inside[i, k], inside[k, i]) >= twins.inside
                                                  or _meet(items[k], item, twins.meet)))
                or (inside[i, k] >= twins.inside and item.confidence < twins.unsure)) for k in kept):
            kept.append(i)
    return [items[i] for i in kept]


def _meet(surer: Item, item: Item, reach: float) -> bool:
    """Whether a keypoint of ``item`` lies within ``reach`` of ``surer``'s keypoints' distance of one of
    them (never where the surer's two keypoints coincide: there is no distance to measure by)."""
    if len(surer.keypoints) != 2 or not item.keypoints:
        return False
    ours, theirs = np.asarray(surer.keypoints, np.float64), np.asarray(item.keypoints, np.float64)
    span = float(np.linalg.norm(ours[1] - ours[0]))
    return span > 0 and bool(np.linalg.norm(ours[:, None] - theirs[None], axis=2).min() <= reach * span)
