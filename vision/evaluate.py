"""``oxeye evaluate``: the accuracy figures of models/MODEL_CARD.md, each from one command.

Held-out synthetic build (``oxeye dataset build`` with a seed no training build used):
mAP50-95 over the 73 item classes of what the pipeline reports, mAP50-95 of the raw detector
in its own classes (ultralytics val on the same ONNX), per-item identification
accuracy of the full pipeline (every labelled item must be found once by its box and named right;
and, as ``item_accuracy_named``, named once at its own place whatever its box), items reported twice
(two reports standing for one item, a report standing for the item it names at one of its showing
indices where it names one: ``vision.matching.standing_for``), and the share of five-item hands read
exactly (each item named once at its place: a table scores names, not boxes); how far the flags can
be trusted, and how many of the sure hands (five items, none flagged: those a table scores) are
right, those holding an item too hidden to be labelled counted apart (unjudged); a report of an item
that glare alone left unlabelled (the build's ``burnt_out``) counts nowhere, as VOC's difficult; the grouping's
accuracy on the true items alone; for a two-stage model, also the
classifier's accuracy on crops around the true keypoints. Real photos
(../shared/real/cards-edje, Pascal VOC, ranks 9 to A): whole-card localisation recall, rank
accuracy, the reports matching no card and the flags' trust; skipped when the folder has no photos.
Each accuracy comes with its 95% interval (``..._95``), resampling whole photos: the items of one
photo are not independent of each other. Given another model (``--against``), its accuracies on the
same photos and the gain over it, with the gain's interval from the same resampling applied to both
models at once (paired). Which report stands for which true item is ``vision.matching``'s to say.
"""

from __future__ import annotations

import json
import tempfile
import xml.etree.ElementTree as ElementTree
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path, PureWindowsPath

import numpy as np
from scipy.stats import bootstrap

from oxeye.vision.classes import CLASS_ID, CROP_CLASSES, KIND_OF_PLURAL, LABEL_MODES, label_classes
from oxeye.vision.classifier import Classifier, item_name
from oxeye.vision.crops import Pyramid, item_crops
from oxeye.vision.decode import iou_matrix
from oxeye.vision.detector import Detector
from oxeye.vision.grouping import group_hands
from oxeye.vision.images import read_image
from oxeye.vision.matching import alike, as_boxes, index_reach, keypoint_stray, matches, standing_for
from oxeye.vision.reading import Item, Reading
from oxeye.vision.train import read_record

PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png")  # a real photo beside its labels, these in either case
SMALL, LARGE = 0.04, 0.10  # an item's size group by its box's short side over the photo's long side (``_size``)
RANKS = {"nine": "9", "ten": "10", "jack": "J", "queen": "Q", "king": "K", "ace": "A"}


def interval(total: list[int], right: list[int], baseline: list[int] | None = None) -> list[float] | None:
    """The 95% interval of ``sum(right) / sum(total)`` over photos (counts per photo), or with
    ``baseline`` (another model's ``right`` on the same photos) of the gain ``(sum(right) -
    sum(baseline)) / sum(total)``: a bootstrap that resamples whole photos; None from fewer than two."""
    if len(total) < 2:
        return None
    samples = tuple(np.asarray(v) for v in (total, right, baseline or [0] * len(total)))
    found = bootstrap(samples, lambda t, r, b: (r.sum() - b.sum()) / max(t.sum(), 1), paired=True, vectorized=False,
                      n_resamples=2000, method="percentile", rng=np.random.default_rng(0))
    return [round(float(v), 4) for v in found.confidence_interval]


def _flag_figures(reports: Counter[tuple[bool, bool]]) -> dict[str, float | None]:
    """How far the flags can be trusted, from reports counted by (read right, flagged)."""
    return {"wrong_reports_flagged": _share(reports[False, True], reports[False, False]),
            "unflagged_reports_right": _share(reports[True, False], reports[False, False]),
            "right_reports_flagged": _share(reports[True, True], reports[True, False])}


def _share(these: int, others: int) -> float | None:
    """``these`` as a share of ``these`` and ``others``; None when there are none of either."""
    return these / (these + others) if these + others else None


def label_mode(names: tuple[str, ...]) -> str:
    """Which label mode a detector's class list belongs to."""
    return next(mode for mode in LABEL_MODES if label_classes(mode) == names)


def map50_95(model: Path, data: Path, mode: str, imgsz: int) -> dict[str, float]:
    """mAP50-95 of the raw detector's boxes (and of its keypoints, for a pose model) on every image of
    a build, by ultralytics val on the ONNX model."""
    from oxeye.vision.offline import said_on_stderr, ultralytics_offline
    from oxeye.vision.train import prepare_dataset

    ultralytics_offline()
    from ultralytics import YOLO

    with tempfile.TemporaryDirectory() as scratch, said_on_stderr():
        yaml = prepare_dataset(data, Path(scratch), mode, 0.5)
        splits = [f"images/{split}" for split in ("train", "val") if (Path(scratch) / "images" / split).is_dir()]
        text = yaml.read_text().replace("val: images/val", f"val: {json.dumps(splits)}")  # a build of one has no train
        yaml.write_text(text)
        task = "pose" if mode == "pose" else "detect"
        metrics = YOLO(str(model), task=task).val(data=str(yaml), imgsz=imgsz, batch=1, conf=0.001,
                                                    iou=0.7, plots=False, verbose=False, device="cpu")
    figures = {"detector_map50_95": float(metrics.box.map)}
    if task == "pose":
        figures["keypoints_map50_95"] = float(metrics.pose.map)
    return figures


def _correct(truth: np.ndarray, truth_classes: np.ndarray, found: np.ndarray, found_classes: np.ndarray) -> np.ndarray:
    """(found, 10) whether each found box, best first, is a true positive at IoU 0.50, 0.55, ... 0.95
    (greedy one-to-one matching of the same class, as ultralytics' validator matches)."""
    thresholds = np.linspace(0.5, 0.95, 10)
    correct = np.zeros((len(found), len(thresholds)), dtype=bool)
    if not len(truth) or not len(found):
        return correct
    ious = iou_matrix(truth, found) * (truth_classes[:, None] == found_classes[None, :])
    claimed = np.zeros((len(truth), len(thresholds)), dtype=bool)
    for j in range(len(found)):
        available = np.where(claimed, 0.0, ious[:, j, None])
        best = available.argmax(axis=0)
        correct[j] = available[best, np.arange(len(thresholds))] >= thresholds
        claimed[best, np.arange(len(thresholds))] |= correct[j]
    return correct


def pipeline_map50_95(detector: Detector, data: Path, conf: float = 0.05) -> float:
    """mAP50-95 over the 73 item classes of what the whole pipeline reports (named, suppressed,
    collapsed items), confidences down to ``conf``; AP by ultralytics' ``ap_per_class``."""
    from oxeye.vision.offline import ultralytics_offline

    ultralytics_offline()
    from ultralytics.utils.metrics import ap_per_class

    correct, confidences, found_classes, true_classes = [], [], [], []
    for path in sorted((data / "meta").glob("*.json")):
        meta = read_record(path)
        reading = detector.read(read_image(data / meta["image"]), conf)
        truth = np.array([CLASS_ID[i["code"]] for i in meta["items"]], dtype=np.int64)
        found = np.array([CLASS_ID[i.code] for i in reading.items], dtype=np.int64)
        right = _correct(as_boxes([i["box"] for i in meta["items"]]), truth, as_boxes([i.box for i in reading.items]),
                         found)
        kept = ~(_on_burnt_out(reading.items, meta) & ~right[:, 0])  # a miss on a burnt-out item: difficult
        correct.append(right[kept])
        confidences += [i.confidence for i, keep in zip(reading.items, kept) if keep]
        found_classes.append(found[kept])
        true_classes.append(truth)
    ap = ap_per_class(np.concatenate(correct), np.array(confidences), np.concatenate(found_classes),
                      np.concatenate(true_classes))[5]
    return float(ap.mean()) if ap.size else 0.0


def _on_burnt_out(items: list[Item], meta: dict) -> np.ndarray:
    """Whether each report's box lies on an item glare alone left unlabelled (IoU 0.5; the build's ``burnt_out``)."""
    burnt_out = meta.get("burnt_out", [])
    if not items or not burnt_out:
        return np.zeros(len(items), dtype=bool)
    return iou_matrix(as_boxes([i.box for i in items]), as_boxes([b["box"] for b in burnt_out])).max(axis=1) >= 0.5


def _groups(meta: dict) -> list[tuple[str, ...]]:
    """The groups each labelled item of a generated image is tallied in: its kind, its hand's
    arrangement, whether at least half of it shows, and its size (``_size``)."""
    arrangement = {i: hand["arrangement"] for hand in meta["hands"] for i in hand["items"]}
    long_side = max(meta["width"], meta["height"])
    return [(f"{item['kind']}s", arrangement.get(n, "no_hand"),
             "half_visible" if item["visible_fraction"] >= 0.5 else "under_half_visible",
             _size(item["box"], long_side))
            for n, item in enumerate(meta["items"])]


def _size(box: list[float], long_side: int) -> str:
    """``small``, ``medium`` or ``large``: the labelled box's short side under 4%, under 10% or at least 10% of
    the photo's long side, about 16 and 42 pixels of a frame read at 416 (``detector.Scales``). A share of the
    photo, not of any detector's input, so that two detectors read at two sizes are judged on the same items."""
    share = min(box[2] - box[0], box[3] - box[1]) / long_side
    return "small" if share < SMALL else "medium" if share < LARGE else "large"


def _first(matched: list[int], standing: list[int]) -> int:
    """Of the reports standing for an item, the one a reader takes first: the one its box was paired
    with where that one stands for it, else the first; any other is the item reported twice."""
    return matched[0] if matched and matched[0] in standing else standing[0]


def _sure_verdict(hand: frozenset[int], read_right: set[frozenset[int]], stood: dict[int, int], named: list[bool],
                  true_hands: list[dict]) -> bool | None:
    """Whether a sure hand (its reports' indices) is read right, or None where the labels cannot say: its
    reports of labelled items are each named right and are all of one true hand's labelled items, and its
    other reports, no more than that hand's unlabelled items (too hidden, or cut off by the frame, to
    label), stand for no labelled item (``stood``: the labelled item each report stands for). Such a hand
    was counted wrong, though most are read right."""
    if hand in read_right:
        return True
    known = {stood[f] for f in hand if f in stood}
    unknown = [f for f in hand if f not in stood]
    if not unknown or not all(named[t] for t in known):
        return False
    if any(set(h["items"]) == known and len(unknown) <= h["unlabelled"] for h in true_hands):
        return None
    return False


def synthetic(detector: Detector, data: Path, told: bool = False) -> dict[str, object]:
    """Per-item accuracy (overall, and as ``accuracy_GROUP`` by kind, arrangement, visibility and size,
    each group's count as ``items_GROUP``), the share of items never found, items reported twice,
    exact five-item hands, how far the flags can be trusted (the shares of wrong reports flagged, of
    unflagged reports right, and of right reports flagged all the same; and of the sure hands, five
    items and none flagged, the hands a table would score, those read exactly) and, for a model with
    keypoints, the median and 90th percentile of the keypoint error of the items found once, over a
    held-out build. ``told``: the detector is told each photo's item kinds, as a table's rules tell the
    service."""
    return synthetic_by_photo(detector, data, told)[0]


def synthetic_by_photo(detector: Detector, data: Path,
                       told: bool = False) -> tuple[dict[str, object], list[int], list[int]]:
    """``synthetic``'s figures, and per photo the items and those read right."""
    missed = twice = extra = hands = exact = sure_hands = sure_right = unjudged = named_right = 0
    errors: list[float] = []
    rights: list[int] = []  # per photo, items found once and named right; and items
    items: list[int] = []
    tally: dict[str, list[int]] = {}
    reports: Counter[tuple[bool, bool]] = Counter()  # every report: (read right, flagged)
    for path in sorted((data / "meta").glob("*.json")):
        meta = read_record(path)
        # The photo's kind as generated, not its labels': a tile lying wholly off the frame leaves none.
        kinds = (KIND_OF_PLURAL[meta["kind"]],) if told else None
        reading = detector.read(read_image(data / meta["image"]), kinds=kinds)
        strays = keypoint_stray(meta["items"], reading.items)
        same = alike([t["code"] for t in meta["items"]], [f.code for f in reading.items])
        matched = matches(as_boxes([i["box"] for i in meta["items"]]), as_boxes([i.box for i in reading.items]), strays,
                           same)
        outcomes = [len(m) == 1 and reading.items[m[0]].code == t["code"] for m, t in zip(matched, meta["items"])]
        rights.append(sum(outcomes))
        items.append(len(outcomes))
        for groups, outcome in zip(_groups(meta), outcomes):
            for group in groups:
                tally.setdefault(group, [0, 0])[0] += outcome
                tally[group][1] += 1
        missed += sum(not m for m in matched)
        standing = standing_for(matched, index_reach(meta["items"], reading.items))
        twice += sum(len(s) > 1 for s in standing)
        if strays is not None:
            errors += [float(strays[t, m[0]]) for t, m in enumerate(matched) if len(m) == 1]
        stood = {f: t for t, s in enumerate(standing) for f in s}
        # A report of no labelled item lying on one glare burnt out guesses what no eye can read: neither right
        # nor wrong (a VOC difficult object), as its hand is left unjudged.
        excused = {f for f, on in enumerate(_on_burnt_out(reading.items, meta)) if on and f not in stood}
        extra += len(reading.items) - sum(len(s) for s in standing) - len(excused)
        # Named once at its own place: one report stands for the item and names it, whatever its box; what a
        # table scores a hand by (a fanned card's report boxed off its strip reads its hand right all the same).
        named = [len(s) == 1 and reading.items[s[0]].code == t["code"] for s, t in zip(standing, meta["items"])]
        named_right += sum(named)
        firsts = [(_first(m, s), t["code"]) for m, s, t in zip(matched, standing, meta["items"]) if s]
        right_reports = {f for f, code in firsts if reading.items[f].code == code}
        for f, item in enumerate(reading.items):
            if f not in excused:
                reports[f in right_reports, item.flag is not None] += 1
        read_right = set()  # the reports of each true five-item hand, each item named once at its place
        for hand in meta["hands"]:
            if len(hand["items"]) == 5:
                hands += 1
                if all(named[i] for i in hand["items"]):
                    read_right.add(frozenset(standing[i][0] for i in hand["items"]))
        exact += len(read_right & {frozenset(h.items) for h in reading.hands})
        sure = [frozenset(h.items) for h in reading.hands if h.complete and not any(reading.items[i].flag for i in h.items)]
        verdicts = Counter(_sure_verdict(hand, read_right, stood, named, meta["hands"]) for hand in sure)
        sure_hands, sure_right = sure_hands + verdicts[True] + verdicts[False], sure_right + verdicts[True]
        unjudged += verdicts[None]
    count = sum(items)
    figures = {"items": count, "item_accuracy": sum(rights) / max(count, 1), "item_accuracy_95": interval(items, rights),
               "item_accuracy_named": named_right / max(count, 1),
               "missed": missed / max(count, 1), "reported_twice": twice, "unmatched_reports": extra,
               "five_item_hands": hands, "hands_exact": exact / max(hands, 1),
               **_flag_figures(reports), "sure_hands": sure_hands,
               "sure_hands_right": _share(sure_right, sure_hands - sure_right), "sure_hands_unjudged": unjudged}
    figures |= {f"accuracy_{group}": good / total for group, (good, total) in sorted(tally.items())}
    figures |= {f"items_{group}": total for group, (_, total) in sorted(tally.items())}
    if errors:
        figures["keypoint_error_median"] = float(np.median(errors))
        figures["keypoint_error_p90"] = float(np.percentile(errors, 90))
    return figures, items, rights


def true_items(meta: dict) -> list[Item]:
    """A generated photo's labelled items as a perfect reader would report them: true codes, boxes and keypoints."""
    return [Item(item["code"], item["kind"], tuple(item["box"]), 1.0,
                 keypoints=tuple(tuple(c["centre"]) for c in item["corner_boxes"])) for item in meta["items"]]


def naming(detector: Detector, data: Path) -> float:
    """The second stage alone: the share of items of a held-out build that the classifier names right
    from crops around their true keypoints."""
    counts = naming_by_kind(detector.classifier, data).values()
    return sum(right for right, _ in counts) / max(sum(total for _, total in counts), 1)


def true_crops(data: Path, size: int, seen: Callable[[np.ndarray], np.ndarray] | None = None,
               photos: int | None = None) -> Iterator[tuple[list[Item], np.ndarray]]:
    """Per photo of a build (the first ``photos`` where given) with labelled items: those items, and the
    crops of side ``size`` around their true keypoints, two an item; each photo first passed through
    ``seen`` where given (a benchmark's way of showing the classifier only what a coarser look keeps)."""
    for path in sorted((data / "meta").glob("*.json"))[:photos]:
        meta = read_record(path)
        if items := true_items(meta):
            image = read_image(data / meta["image"])
            levels = Pyramid(seen(image) if seen is not None else image)
            yield items, np.concatenate([item_crops(levels, item.kind, item.keypoints, size) for item in items])


def naming_by_kind(classifier: Classifier, data: Path,
                   seen: Callable[[np.ndarray], np.ndarray] | None = None) -> dict[str, tuple[int, int]]:
    """Per kind, the items of a build that ``classifier`` names right from crops around their true keypoints
    (``true_crops``, each photo passed through ``seen`` where given), and the items."""
    counts: dict[str, list[int]] = {}
    for items, crops in true_crops(data, classifier.size, seen):
        pairs = classifier.probabilities(crops).reshape(len(items), 2, len(CROP_CLASSES))
        for item, pair in zip(items, pairs):
            tally = counts.setdefault(item.kind, [0, 0])
            tally[0] += item_name(item.kind, pair)[0] == item.code
            tally[1] += 1
    return {kind: (right, total) for kind, (right, total) in sorted(counts.items())}


def grouping(data: Path) -> float:
    """The grouping alone: the share of five-item hands of a held-out build that come out exact when
    their photo's true items are grouped."""
    right = total = 0
    for path in sorted((data / "meta").glob("*.json")):
        meta = read_record(path)
        found = {frozenset(hand.items) for hand in group_hands(true_items(meta))}
        hands = [frozenset(hand["items"]) for hand in meta["hands"] if len(hand["items"]) == 5]
        right += sum(hand in found for hand in hands)
        total += len(hands)
    return right / max(total, 1)


def labelled_photos(folder: Path) -> list[tuple[Path, list[tuple[str, list[float]]]]]:
    """Each photo of a real set (``folder/photos``, Pascal VOC beside each) with its labels: rank name
    and box (x1, y1, x2, y2), in the labels' order."""
    found = []
    for xml in sorted(folder.glob("photos/*.xml")):
        annotation = _annotation(xml)
        found.append((_labelled_photo(xml, annotation.findtext("filename")), _voc_labels(xml, annotation)))
    return found


def _annotation(xml: Path) -> ElementTree.Element:
    """One Pascal VOC file's root; ValueError naming the file where it is no XML."""
    try:
        return ElementTree.parse(xml).getroot()
    except ElementTree.ParseError as error:
        raise ValueError(f"{xml} is not Pascal VOC labels ({error})") from None


def _labelled_photo(xml: Path, named: str | None) -> Path:
    """The photo beside ``xml`` that it labels: the one its <filename> ``named``, else its own name with any of
    PHOTO_SUFFIXES in either case; ValueError naming those looked for (only NAME.JPG or NAME.jpg was, and
    a NAME.png or NAME.jpeg was said to be 'no such image: NAME.jpg')."""
    names = [PureWindowsPath(named).name] if named else []  # labelling tools on Windows wrote it with its folders
    names += [f"{xml.stem}{suffix}" for lower in PHOTO_SUFFIXES for suffix in (lower, lower.upper())]
    if (photo := next((xml.with_name(name) for name in names if xml.with_name(name).is_file()), None)) is None:
        raise ValueError(f"{xml} labels no photo found beside it: looked for {', '.join(dict.fromkeys(names))}")
    return photo


def _voc_labels(xml: Path, annotation: ElementTree.Element) -> list[tuple[str, list[float]]]:
    """The rank names and boxes of ``xml``'s ``annotation``; ValueError naming the file where it is not such a
    file or names no rank of the real set (evaluate once stopped there with a traceback)."""
    objects = list(annotation.iter("object"))
    try:
        labels = [(o.findtext("name"), [float(o.find("bndbox").findtext(k)) for k in ("xmin", "ymin", "xmax", "ymax")])
                  for o in objects]
    except (AttributeError, TypeError, ValueError):
        raise ValueError(f"{xml}: an object has no <bndbox> of four numbers") from None
    if unknown := sorted({name for name, _ in labels if name not in RANKS}, key=str):
        raise ValueError(f"{xml} labels {', '.join(map(repr, unknown))}: a real card is one of {', '.join(RANKS)}")
    return labels


def read_labelled(detector: Detector, photo: Path, labels: list[tuple[str, list[float]]],
                  told: bool = False) -> tuple[Reading, list[Item], list[list[int]]]:
    """One labelled real photo read: the reading, its card reports, and for each label the reports that
    stand for it (``matches``, reading the rank right as the tie-break). ``told``: cards only."""
    reading: Reading = detector.read(read_image(photo), kinds=("card",) if told else None)
    cards = [item for item in reading.items if item.kind == "card"]
    same = alike([RANKS[name] for name, _ in labels], [item.code[:-1] for item in cards])
    return reading, cards, matches(as_boxes([box for _, box in labels]), as_boxes([i.box for i in cards]), None, same)


def real_cards(detector: Detector, folder: Path, told: bool = False) -> dict[str, object]:
    """Whole-card localisation recall and rank accuracy (ranks 9 to A) on the real photos, the reports
    matching no labelled card, and how far the flags of all reports can be trusted. Every visible card
    is labelled and the photos hold no 2 to 8 and no tiles, so a report matching no label is false.
    ``told``: the detector is told the photos hold cards only."""
    return _real_cards(detector, folder, told)[0]


def _real_cards(detector: Detector, folder: Path, told: bool = False) -> tuple[dict[str, object], list[int], list[int]]:
    """``real_cards``' figures, and per photo the cards and those whose rank was read right."""
    located = twice = unmatched = 0
    ranked: list[int] = []  # per photo, cards found once with their rank right; and cards
    cards: list[int] = []
    reports: Counter[tuple[bool, bool]] = Counter()  # every report: (rank right, flagged)
    for photo, labels in labelled_photos(folder):
        reading, cards_only, matched = read_labelled(detector, photo, labels, told)
        located += sum(bool(m) for m in matched)
        twice += sum(len(m) > 1 for m in matched)
        ranked.append(sum(len(m) == 1 and cards_only[m[0]].code[:-1] == RANKS[name]
                          for m, (name, _) in zip(matched, labels)))
        for m, (name, _) in zip(matched, labels):
            for n, f in enumerate(m):  # the first report of a card stands for it; the others are twice
                reports[n == 0 and cards_only[f].code[:-1] == RANKS[name], cards_only[f].flag is not None] += 1
        paired = {f for m in matched for f in m}
        over_no_label = [item for item in reading.items if item.kind != "card"]
        over_no_label += [item for f, item in enumerate(cards_only) if f not in paired]
        unmatched += len(over_no_label)
        reports.update((False, item.flag is not None) for item in over_no_label)
        cards.append(len(labels))
    count = sum(cards)
    figures = {"cards": count, "localisation_recall": located / max(count, 1),
               "rank_accuracy_of_located": sum(ranked) / max(located, 1), "rank_accuracy": sum(ranked) / max(count, 1),
               "rank_accuracy_95": interval(cards, ranked), "reported_twice": twice, "unmatched_reports": unmatched,
               **_flag_figures(reports)}
    return figures, cards, ranked


def evaluate(model: Path, data: Path | None, real: Path | None, against: Path | None = None,
             told: bool = False) -> dict[str, object]:
    """Every figure the model card reports, for the sources given (real photos skipped when absent);
    with ``against``, that model's item and rank accuracy on the same photos too, and the gain over it
    with its 95% interval (paired: a bootstrap over photos read by both). ``told``: each photo is
    read knowing its item kinds (``Detector.read``'s ``kinds``), as the service reads a table's."""
    detector = Detector(model)
    other = Detector(against) if against is not None else None
    result: dict[str, object] = {"model": str(model), "label_mode": label_mode(detector.names), "told_kinds": told}
    gains: dict[str, object] = {}
    if data is not None:
        figures, items, rights = synthetic_by_photo(detector, data, told)
        result["synthetic"] = {"map50_95": pipeline_map50_95(detector, data),
                               **map50_95(model, data, result["label_mode"], detector.size), **figures}
        if detector.classifier is not None:
            result["synthetic"]["naming_accuracy_on_true_keypoints"] = naming(detector, data)
        result["synthetic"]["grouping_accuracy_on_true_items"] = grouping(data)
        if other is not None:
            theirs, _, their_rights = synthetic_by_photo(other, data, told)
            gains |= _gain("item_accuracy", figures, theirs, interval(items, rights, their_rights))
    if real is not None and (real / "photos").is_dir():
        figures, cards, ranked = _real_cards(detector, real, told)
        result["real_cards_edje"] = figures
        if other is not None:
            theirs, _, their_ranked = _real_cards(other, real, told)
            gains |= _gain("rank_accuracy", figures, theirs, interval(cards, ranked, their_ranked))
    elif real is not None:
        result["real_cards_edje"] = f"skipped: no photos/ folder in {real} (the real photos are not on this machine?)"
    if other is not None:
        result["against"] = {"model": str(against), **gains}
    return result


def _gain(name: str, mine: dict, theirs: dict, spread: list[float] | None) -> dict[str, object]:
    """The other model's accuracy ``name``, this model's gain over it, and the gain's interval."""
    return {name: theirs[name], f"{name}_gain": mine[name] - theirs[name], f"{name}_gain_95": spread}
