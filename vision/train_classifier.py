"""``oxeye train-classifier``: the second stage, a small classifier on keypoint crops of a generator build.

Crops are cut by ``vision.crops.item_crops`` (the function serving uses) around each labelled item's
two keypoints, moved, turned and scaled a little as a detector's keypoints are: a card's index names
the card when it shows, a tile's half its pips, and an index hidden under another card is "none", as
are crops of bare table. The classifier is exported to ONNX as ``oxeye-cls.onnx`` beside the detector
(``oxeye.onnx``) it completes. The network and its training loop are in ``vision.crop_net``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from oxeye.vision.classes import BACKGROUND, CROP_CLASSES, PIP_CLASSES
from oxeye.vision.classifier import CLASSIFIER_NAME, CLASSIFIER_WEIGHTS
from oxeye.vision.crops import Pyramid, item_crops
from oxeye.vision.decode import iou_matrix
from oxeye.vision.images import read_image, written_aside
from oxeye.vision.train import read_record, require_build, require_run_folder

if TYPE_CHECKING:  # torch is imported only when training
    from torch import nn

KEYPOINT_JITTER = 0.07  # each keypoint moves by about this share of the distance between the two,
# a Gaussian with the detector's median error on visible keypoints (MODEL_CARD.md)
SIDE_JITTER = 0.15  # and the crop grows or shrinks by up to this share, as a detector's keypoints would
SHOWN = {"card": 0.6, "tile": 0.5}  # an index or half at least this visible is named (the generator's rules)
HIDDEN = 0.25  # one at most this visible is "none"; those in between are left out of training
BACKGROUND_IOU = 0.05  # a bare-table crop overlaps no item more than this
CROPS = "crops"  # the run folder's crops: train.npz and val.npz, each images (N, size, size, 3) and labels


@dataclass(frozen=True)
class ClassifierConfig:
    """One classifier run; ``validate`` turns bad values into one clear ValueError."""

    data: tuple[Path, ...]
    out: Path
    imgsz: int = 64
    epochs: int = 20
    batch: int = 128
    per_class: int = 3000
    hidden: int | None = None  # "none" crops of hidden indices may number this many (default: per_class)
    val_fraction: float = 0.1
    seed: int = 0
    model: Path | None = None  # an oxeye-cls.pt to fine-tune from
    overwrite: bool = False  # replace a classifier trained in ``out`` before (refused otherwise)
    widths: tuple[int, ...] | None = None  # channels per stage (crop_net.WIDTHS); narrows a ``model``
    teacher: Path | None = None  # an oxeye-cls.pt whose readings the network learns from too (distillation)

    def validate(self) -> None:
        """Raise ValueError naming the first bad argument."""
        for folder in self.data:
            require_build(folder)
        if self.imgsz < 16 or self.imgsz % 8:
            raise ValueError(f"--imgsz must be a multiple of 8 and at least 16, got {self.imgsz}")
        if min(self.epochs, self.batch, self.per_class) < 1:
            raise ValueError("--epochs, --batch and --per-class must be at least 1")
        if self.hidden is not None and self.hidden < self.per_class:
            raise ValueError(f"--hidden-per-class must be at least --per-class ({self.per_class}), got {self.hidden}")
        if not 0 < self.val_fraction < 1:
            raise ValueError(f"--val-fraction must be between 0 and 1, got {self.val_fraction}")
        if self.model is not None and not self.model.is_file():
            raise ValueError(f"--model {self.model}: no such file")
        if self.widths is not None and (not self.widths or min(self.widths) < 1):
            raise ValueError(f"--widths takes channel counts of at least 1, got {self.widths}")
        if self.teacher is not None and not self.teacher.is_file():
            raise ValueError(f"--teacher {self.teacher}: no such file")
        require_run_folder(self.out)
        if (self.out / CLASSIFIER_WEIGHTS).exists() and not self.overwrite:
            raise ValueError(f"--out {self.out} holds a classifier trained before ({CLASSIFIER_WEIGHTS}): choose "
                             f"another folder, or pass --overwrite to replace it")


def _start(config: ClassifierConfig) -> nn.Module:
    """A fresh network, or the one in ``--model`` when its classes and crop size are this run's (narrowed to
    ``--widths`` where given)."""
    from oxeye.vision.crop_net import WIDTHS, crop_net, narrowed

    if config.model is None:
        return crop_net(len(CROP_CLASSES), config.widths or WIDTHS)
    model = load_classifier(config.model, config.imgsz)[0]
    return narrowed(model, config.widths) if config.widths else model


def load_classifier(weights: Path, imgsz: int | None = None, option: str = "--model") -> tuple[nn.Module, int]:
    """The network saved in an ``oxeye-cls.pt`` and its crop size; a file that is no such classifier,
    or whose crops are not ``imgsz`` (when given), is one clear ValueError naming ``option``."""
    import torch

    from oxeye.vision.crop_net import WIDTHS, crop_net

    try:
        saved = torch.load(weights, map_location="cpu", weights_only=True)
    except Exception:  # torch raises many kinds, at length, for a file that is not its checkpoint
        raise ValueError(f"{option} {weights} is not a classifier written by 'oxeye train-classifier'") from None
    if tuple(saved.get("names", ())) != CROP_CLASSES:
        raise ValueError(f"{option} {weights} names other classes than oxeye's crops")
    if imgsz is not None and saved.get("imgsz") != imgsz:
        raise ValueError(f"{option} {weights} names crops of another size than --imgsz {imgsz}")
    model = crop_net(len(CROP_CLASSES), tuple(saved.get("widths", WIDTHS)))  # files before widths were saved: WIDTHS
    model.load_state_dict(saved["state_dict"])
    return model.eval(), int(saved["imgsz"])


def crop_label(item: dict, end: int) -> str | None:
    """What the crop around keypoint ``end`` (0 or 1, as listed in ``corner_boxes``) of a labelled
    item shows: the card, the half's pips, "none" when hidden, or None when too doubtful to teach."""
    visible = item["corner_boxes"][end]["visible"]
    if visible <= HIDDEN:
        return BACKGROUND
    if visible < SHOWN[item["kind"]]:
        return None
    if item["kind"] == "card":
        return item["code"]
    return PIP_CLASSES[int(item["code"].split("-")[end]) - 1]


def _jittered(points: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """The two keypoints moved as a detector's may be, and a factor for the crop's side."""
    spread = KEYPOINT_JITTER * float(np.hypot(*(points[1] - points[0])))
    return points + rng.normal(0.0, spread, points.shape), float(rng.uniform(1 - SIDE_JITTER, 1 + SIDE_JITTER))


def _bare_points(meta: dict, rng: np.random.Generator, count: int) -> list[np.ndarray]:
    """Keypoint pairs of item size on bare table (props and fingers included): what a false detection
    shows."""
    items = np.asarray([i["box"] for i in meta["items"]], np.float64).reshape(-1, 4)
    sizes = items[:, 2:] - items[:, :2] if len(items) else np.array([[60.0, 90.0]])
    found = []
    for _ in range(count * 10):
        w, h = sizes[rng.integers(len(sizes))] * rng.uniform(0.6, 1.4, 2)
        x, y = rng.uniform(0, max(1, meta["width"] - w)), rng.uniform(0, max(1, meta["height"] - h))
        box = np.array([x, y, x + w, y + h])
        if not len(items) or iou_matrix(box[None], items).max() <= BACKGROUND_IOU:
            turn = rng.uniform(0, 2 * np.pi)
            first = box[:2] + rng.uniform(0.2, 0.8, 2) * (w, h)
            found.append(np.stack([first, first + max(w, h) * np.array([np.cos(turn), np.sin(turn)])]))
            if len(found) == count:
                break
    return found


def prepare_crops(sources: tuple[Path, ...], size: int, per_class: int, val_fraction: float,
                  seed: int, hidden: int | None = None) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Crops of one or more builds, split into train and val: (images, labels as indices into
    ``CROP_CLASSES``).

    Each class's first crop, and then every ``1 / val_fraction``-th, goes to val, so that val holds
    every class even on a small build. (Accuracy is measured on a held-out build.) "none" takes bare
    table only while it holds fewer than ``per_class`` crops, and hidden indices up to ``hidden``: in a
    fan, every card's hidden corner lies beside a neighbour's index, a crop the classifier must call
    "none" as often as it meets it.
    """
    cap = {name: per_class for name in CROP_CLASSES} | {BACKGROUND: max(per_class, hidden or per_class)}
    metas = [path for source in sources for path in sorted((source / "meta").glob("*.json"))]
    rng = np.random.default_rng(seed)
    index = {name: i for i, name in enumerate(CROP_CLASSES)}
    split: dict[str, tuple[list[np.ndarray], list[int]]] = {"train": ([], []), "val": ([], [])}
    counts = {name: Counter() for name in split}
    for n in rng.permutation(len(metas)):  # a random order, so that capped classes draw from every image
        meta = read_record(metas[n])
        wanted = []  # (kind, keypoints, which end's crop, label)
        for item in meta["items"]:
            points = np.array([c["centre"] for c in item["corner_boxes"]], np.float64)
            for end in (0, 1):
                label = crop_label(item, end)
                if label is not None and counts["train"][label] < cap[label]:
                    wanted.append((item["kind"], points, end, label))
        if counts["train"][BACKGROUND] < per_class:
            wanted += [("card", bare, 0, BACKGROUND) for bare in _bare_points(meta, rng, 2)]
        if not wanted:
            continue
        levels = Pyramid(read_image(metas[n].parent.parent / meta["image"]))  # OSError naming one missing
        for kind, points, end, label in wanted:
            part = "val" if counts["val"][label] <= val_fraction * counts["train"][label] else "train"
            if counts[part][label] < cap[label]:
                moved, grow = _jittered(points, rng)
                centre, partner = moved if end == 0 else moved[::-1]
                crop = item_crops(levels, kind, np.stack([centre, centre + (partner - centre) * grow]), size)[0]
                split[part][0].append(crop)
                split[part][1].append(index[label])
                counts[part][label] += 1
    short = sorted(name for name in CROP_CLASSES if counts["train"][name] == 0)
    if short:
        raise ValueError(f"--data {' '.join(map(str, sources))} shows no {', '.join(short[:5])}: build more images")
    return {part: (np.stack(images), np.asarray(labels, np.int64)) for part, (images, labels) in split.items()}


def export_onnx(model: object, size: int, path: Path) -> None:
    """ONNX with a dynamic batch, softmax included, and the metadata ``Classifier`` reads (names, imgsz)."""
    import onnx
    import torch

    with_softmax = torch.nn.Sequential(model, torch.nn.Softmax(dim=1)).eval()
    torch.onnx.export(with_softmax, torch.zeros(1, 3, size, size), str(path), input_names=["images"],
                      output_names=["output0"], dynamic_axes={"images": {0: "batch"}, "output0": {0: "batch"}},
                      dynamo=False)
    exported = onnx.load(str(path))
    for key, value in {"names": dict(enumerate(CROP_CLASSES)), "imgsz": [size, size]}.items():
        exported.metadata_props.add(key=key, value=repr(value))
    onnx.save(exported, str(path))


def train_classifier(config: ClassifierConfig) -> dict[str, float]:
    """Cut the crops (kept in ``--out``/crops), train, export ``oxeye-cls.onnx`` (and ``oxeye-cls.pt``)
    into ``--out``; returns the validation accuracy and the final training loss."""
    config.validate()
    import torch
    from tqdm import tqdm

    from oxeye.vision.crop_net import accuracy, fit, stage_widths

    torch.manual_seed(config.seed)
    model = _start(config)
    teacher = load_classifier(config.teacher, config.imgsz, "--teacher")[0] if config.teacher is not None else None
    crops = prepare_crops(config.data, config.imgsz, config.per_class, config.val_fraction, config.seed, config.hidden)
    (config.out / CROPS).mkdir(parents=True, exist_ok=True)
    for part, (images, labels) in crops.items():
        np.savez(config.out / CROPS / f"{part}.npz", images=images, labels=labels)
    (images, labels), (val_images, val_labels) = crops["train"], crops["val"]
    with tqdm(total=config.epochs, desc="classifier", unit="epoch") as bar:
        losses = fit(model, images, labels, config.epochs, config.batch, config.seed,
                     lambda loss: (bar.update(), bar.set_postfix(loss=f"{loss:.3f}")), teacher)
    figures = {"val_accuracy": accuracy(model, val_images, val_labels), "train_loss": losses[-1],
               "train_crops": len(images), "val_crops": len(val_images)}
    # Each written aside, the weights last: a run interrupted here (export takes seconds) left an ONNX
    # without its metadata where the detector loads it, and weights that refused a second run.
    with written_aside(config.out / CLASSIFIER_NAME) as partial:
        export_onnx(model, config.imgsz, partial)
    with written_aside(config.out / CLASSIFIER_WEIGHTS) as partial:
        torch.save({"state_dict": model.state_dict(), "names": CROP_CLASSES, "imgsz": config.imgsz,
                    "widths": stage_widths(model), **figures}, partial)
    return figures
