"""The detector at serving time: onnxruntime only, no torch. Frame in, a ``Reading`` out."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from oxeye.models import DEFAULT_MODEL
from oxeye.vision.classes import KEYPOINTS, KINDS, kind_of
from oxeye.vision.classifier import CLASSIFIER_NAME, Classifier, Twins, without_twins
from oxeye.vision.corners import collapse
from oxeye.vision.crops import Pyramid
from oxeye.vision.decode import Detections, cross_class_suppression, decode, iou_matrix, proposed_once
from oxeye.vision.grouping import group_hands
from oxeye.vision.images import colourless
from oxeye.vision.letterbox import Letterbox, letterbox
from oxeye.vision.reading import NO_COLOUR, Hand, Item, Reading
from oxeye.vision.runtime import open_session, required
from oxeye.vision.tiles import Tiling, Window

# Candidates below this are dropped (but for the crop classifier's sure reads, ``classifier.Rescue``);
# up to reading.LOW_SCORE they are reported as low-confidence.
CONF = 0.25
# An item whose box lies this near its window's edge (vision.tiles) is cut by it: boxes are clipped to the window.
EDGE = 1.0


@dataclass(frozen=True)
class Suppression:
    """How far two boxes may overlap (IoU) and both stand. ``iou``: boxes of one class, ultralytics'
    default, which the decoder keeps to agree with its predictions. Boxed by every visible pixel, fanned
    cards overlap so that at 0.7 at most 98.5% of the held-out items could stand; boxed by the part that
    shows, as the shipped detector learnt, all of them can (``python -m bench.nms_ceiling``); this
    detector's own duplicates decide (``python -m bench.nms_sweep``).
    ``cross``: a card's box and a tile's overlapping this much are one item read as both kinds, as are two boxes
    of one kind read in two windows of a panorama (``merge_windows``): of 21,712 pairs of distinct true items in
    160 generated photos, 2 overlap above 0.8, none above 0.9."""

    iou: float = 0.7
    cross: float = 0.8


@dataclass(frozen=True)
class Scales:
    """The input sizes a frame is read at (by a two-stage detector with a dynamic input; any other
    reads at its own size). First at ``first`` pixels (rounded to the stride), the size at which a
    table seen whole, 1280x720, shows its small and fanned cards large enough to be found. Where
    the items found there are large (their median short side over ``large`` of the frame's long
    side: a close-up) and the detector learnt at another size, it reads the frame again at its own,
    as enlarged they would lie beyond the sizes it learnt. The shipped detector learnt at 416 px and
    reads each frame once; one that learnt at 320 reads a table at 416 and a close-up again at 320,
    as the detectors shipped before did. Chosen on tuning builds with ``python -m
    bench.scales_sweep``; MODEL_CARD.md has the figures (544 px reads more items, at 1.4 times the
    frame's time)."""

    first: int = 416
    large: float = 0.15


class Detector:
    """An exported YOLO detector (ONNX) with its class names, and its crop classifier when it finds
    kinds with keypoints, run on 2 CPU threads."""

    def __init__(self, model: Path = DEFAULT_MODEL, threads: int = 2) -> None:
        self.session, metadata = open_session(model, threads, "train one with 'oxeye train' or pass --model PATH.onnx")
        feed = self.session.get_inputs()[0]
        if len(self.session.get_outputs()[0].shape) != 3:  # (batch, boxes and scores, anchors)
            raise OSError(f"{model} is not a detector exported by 'oxeye train' (a classifier's file?)")
        self.input_name = feed.name
        # A dynamic input (exported with dynamic=True) takes the smallest stride-padded rectangle.
        dynamic = not isinstance(feed.shape[2], int)
        required(metadata, ("names", "imgsz") if dynamic else ("names",), model, "'oxeye train'")
        self.size = max(metadata["imgsz"]) if dynamic else int(feed.shape[2])
        self.stride = int(metadata.get("stride", 32)) if dynamic else None
        names = metadata["names"]
        self.names = tuple(names[i] for i in range(len(names)))
        self.keypoints = int(metadata.get("kpt_shape", (0,))[0])
        # A head that proposes each item once (exported with nms=False) is read without suppression.
        self.proposes_once = bool(metadata.get("end2end", False))
        # A detector of kinds with keypoints is the first of two stages: its classifier lies beside it.
        two_stage = self.names == KINDS
        if two_stage and self.keypoints != KEYPOINTS:
            raise OSError(f"{model} finds cards and tiles without their {KEYPOINTS} keypoints: retrain it with --labels pose")
        self.classifier = Classifier(Path(model).with_name(CLASSIFIER_NAME), threads) if two_stage else None
        self.scales = Scales() if dynamic and two_stage else Scales(first=self.size)
        self.suppression = Suppression()
        self.tiling = Tiling()

    def raw(self, image: np.ndarray, size: int | None = None) -> tuple[np.ndarray, Letterbox]:
        """The model's raw output for a BGR frame read at ``size`` (its own by default), and the letterbox used."""
        blob, fit = letterbox(image, size or self.size, self.stride)
        return self.session.run(None, {self.input_name: blob})[0], fit

    def detect(self, image: np.ndarray, conf: float = CONF, iou: float | None = None,
               size: int | None = None) -> Detections:
        """Detections in frame pixels (the part that must agree with ultralytics), read at ``size`` (the
        model's own by default): class-aware NMS'd at ``iou`` (``Suppression``'s by default), or as a
        head that proposes each item once proposes them."""
        output, fit = self.raw(image, size)
        if self.proposes_once:
            found = proposed_once(output, conf, self.keypoints)
        else:
            found = decode(output, conf, self.suppression.iou if iou is None else iou, keypoints=self.keypoints)
        height, width = image.shape[:2]
        return Detections(fit.to_frame(found.boxes, width, height), found.scores, found.class_ids,
                          found.rival_scores, found.rival_ids, fit.points_to_frame(found.keypoints))

    @property
    def first_size(self) -> int:
        """The input size a frame is read at first (``Scales.first``, to the stride; a fixed input's own)."""
        if self.stride is None:
            return self.size
        return max(self.stride, round(self.scales.first / self.stride) * self.stride)

    def read(self, image: np.ndarray, conf: float = CONF, kinds: Collection[str] | None = None,
             start: int | None = None) -> Reading:
        """Items named, each physical item once, grouped into hands. The frame is read at ``Scales.first``, and
        again at the model's own size where that differs and what it finds is large (``Scales``); given as
        ``start`` the size a camera's last frame was read at (``Reading.read_at``), it is read at that first,
        and again only where it calls for the other size, so that a camera held over one hand pays one
        reading a frame. Detections under
        ``conf`` are kept where their crops read surely (``classifier.Rescue``); then the items a short hand
        lacks are looked for where they would lie (``vision.completion``). Given the ``kinds`` on the table (a
        table playing with cards knows it holds no tiles), detections of other kinds are dropped before
        suppression: a rug's weave read as dominoes is then never reported. A panorama is read in windows
        (``vision.tiles``), an item seen in two of them kept once."""
        height, width = image.shape[:2]
        windows = self.tiling.windows(width, height)
        if len(windows) == 1:
            items, hands, read_at = self._read_frame(image, conf, kinds, start)
        else:
            items, read_at = self._read_windows(image, windows, conf, kinds, start)
            hands = group_hands(items)
        if colourless(image):
            _doubt_suits(items)
        return Reading(width, height, items, hands, read_at)

    def _read_frame(self, image: np.ndarray, conf: float, kinds: Collection[str] | None,
                    start: int | None) -> tuple[list[Item], list[Hand], int]:
        """``read``'s items and hands of one frame read whole, and the input size it was read at."""
        floor = min(conf, self.classifier.rescue.floor) if self.classifier else conf

        def candidates(size: int) -> Detections:
            return of_kinds(self.detect(image, floor, size=size), self.names, kinds)

        read_at = start if start in (self.size, self.first_size) else self.first_size
        found = candidates(read_at)
        if self.first_size != self.size:
            close_up = _median_short_side(found, conf) > self.scales.large * max(image.shape[:2])
            if (wanted := self.size if close_up else self.first_size) != read_at:
                read_at, found = wanted, candidates(wanted)
        found = cross_class_suppression(found, self.suppression.cross)
        if self.classifier is None:
            items = collapse(found, self.names)
            return items, group_hands(items), read_at
        levels = Pyramid(image)  # both the naming and the search of short hands crop from it
        items = self.classifier.name(levels, found, conf)
        hands = group_hands(items)
        completed = self.classifier.complete(levels, items, hands)
        if len(completed) > len(items):
            items, hands = completed, group_hands(completed)
        return items, hands, read_at

    def _read_windows(self, image: np.ndarray, windows: list[Window], conf: float, kinds: Collection[str] | None,
                      start: int | None) -> tuple[list[Item], int]:
        """The items of each window of ``image`` read as a frame of its own, merged (``merge_windows``); and the
        input size most windows were read at."""
        seen: list[tuple[Window, list[Item]]] = []
        sizes: Counter[int] = Counter()
        for x1, y1, x2, y2 in windows:
            items, _, read_at = self._read_frame(np.ascontiguousarray(image[y1:y2, x1:x2]), conf, kinds, start)
            seen.append(((x1, y1, x2, y2), items))
            sizes[read_at] += 1
        twins = self.classifier.twins if self.classifier else Twins()
        return merge_windows(seen, twins, self.suppression.cross), sizes.most_common(1)[0][0]


def merge_windows(seen: list[tuple[Window, list[Item]]], twins: Twins, same: float = Suppression.cross) -> list[Item]:
    """The items read in each window, in the frame's pixels, surest first. An item cut by its window's edge is
    left to another window that holds it whole, and one seen in two windows where they overlap is kept once, as
    an item seen twice in one frame is (``twins``), or where its two boxes overlap by more than ``same`` (IoU),
    though they read as two codes (``_once``)."""
    windows = [window for window, _ in seen]
    frame = (min(w[0] for w in windows), min(w[1] for w in windows), max(w[2] for w in windows),
             max(w[3] for w in windows))
    items = [moved for window, found in seen for item in found
             if not _held_elsewhere(moved := item.shifted(*window[:2]), window, windows, frame)]
    items.sort(key=lambda item: -item.confidence)
    return without_twins(_once(items, same), twins)


def _once(items: list[Item], same: float) -> list[Item]:
    """``items`` (surest first) less each whose box overlaps a surer one's of its kind by more than ``same``: one
    card read in two windows as KS and KC, which the twin rule keeps as a fanned card and its neighbour, made a
    row of five six and its hands were grouped wrong; distinct items seldom overlap so much (``Suppression``)."""
    boxes = np.asarray([item.box for item in items], np.float64).reshape(-1, 4)
    overlaps = iou_matrix(boxes, boxes)
    kept: list[int] = []
    for i, item in enumerate(items):
        if not any(items[k].kind == item.kind and overlaps[i, k] > same for k in kept):
            kept.append(i)
    return [items[i] for i in kept]


def _held_elsewhere(item: Item, window: Window, windows: list[Window], frame: Window) -> bool:
    """Whether ``item`` (in frame pixels) is cut by an edge of its ``window`` within the ``frame`` the windows
    cover, and another window holds it clear of its own edges within it (an edge of the frame itself cuts it
    in every window)."""

    def clear_of(edges: Window) -> bool:
        x1, y1, x2, y2 = item.box
        return ((x1 > edges[0] + EDGE or edges[0] == frame[0]) and (y1 > edges[1] + EDGE or edges[1] == frame[1])
                and (x2 < edges[2] - EDGE or edges[2] == frame[2]) and (y2 < edges[3] - EDGE or edges[3] == frame[3]))

    return not clear_of(window) and any(clear_of(other) for other in windows if other != window)


def _doubt_suits(items: list[Item]) -> None:
    """Flag each card not doubted already ``NO_COLOUR``: in a frame without colour the classifier, which tells
    a suit by its red or black too, read diamonds as spades, unflagged, and the hands were scored so."""
    for item in items:
        if item.kind == "card" and item.flag is None:
            item.flag = NO_COLOUR


def _median_short_side(found: Detections, conf: float) -> float:
    """The median short side, in frame pixels, of the boxes scoring ``conf`` or more; 0 when there are none."""
    boxes = found.boxes[found.scores >= conf]
    return float(np.median(np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]))) if len(boxes) else 0.0


def of_kinds(found: Detections, names: tuple[str, ...], kinds: Collection[str] | None) -> Detections:
    """The detections whose classes (named by ``names``: kinds, items or corner indices) are of the
    given item kinds; all of them when ``kinds`` is None."""
    if kinds is None:
        return found
    if unknown := set(kinds) - set(KINDS):
        raise ValueError(f"item kinds are {' and '.join(KINDS)}, not {', '.join(sorted(unknown))}")
    return found.take(np.array([kind_of(names[int(c)]) in kinds for c in found.class_ids], bool))
