"""``oxeye train-classifier``: the second stage, a small classifier on item crops of a generator build.

Crops are cut by ``vision.crops.crop`` (the function serving uses) around each labelled item's box,
jittered as a detector's boxes are, plus "none" crops of bare table. The classifier is exported to
ONNX as ``oxeye-cls.onnx`` beside the detector (``oxeye.onnx``) it completes. The network and its
training loop are in ``vision.crop_net``.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from oxeye.vision.classes import BACKGROUND, CROP_CLASSES
from oxeye.vision.classifier import CLASSIFIER_NAME, CLASSIFIER_WEIGHTS
from oxeye.vision.crops import crop
from oxeye.vision.decode import iou_matrix

JITTER = 0.05  # each box edge moves by up to this share of the box's size, as a detector's would
BACKGROUND_IOU = 0.05  # a "none" crop overlaps no item more than this


@dataclass(frozen=True)
class ClassifierConfig:
    """One classifier run; ``validate`` turns bad values into one clear ValueError."""

    data: Path
    out: Path
    imgsz: int = 64
    epochs: int = 20
    batch: int = 128
    per_class: int = 400
    val_fraction: float = 0.1
    seed: int = 0

    def validate(self) -> None:
        """Raise ValueError naming the first bad argument."""
        if not (self.data / "meta").is_dir():
            raise ValueError(f"--data {self.data} is not a folder written by 'oxeye dataset build' (no meta/)")
        if self.imgsz < 16 or self.imgsz % 8:
            raise ValueError(f"--imgsz must be a multiple of 8 and at least 16, got {self.imgsz}")
        if min(self.epochs, self.batch, self.per_class) < 1:
            raise ValueError("--epochs, --batch and --per-class must be at least 1")
        if not 0 < self.val_fraction < 1:
            raise ValueError(f"--val-fraction must be between 0 and 1, got {self.val_fraction}")


def _jittered(box: list[float], rng: np.random.Generator) -> np.ndarray:
    x1, y1, x2, y2 = box
    size = np.array([x2 - x1, y2 - y1, x2 - x1, y2 - y1])
    return np.asarray(box, np.float64) + rng.uniform(-JITTER, JITTER, 4) * size


def _bare_boxes(meta: dict, rng: np.random.Generator, count: int) -> list[np.ndarray]:
    """Boxes of item size on bare table (props and fingers included): what a false detection looks like."""
    items = np.asarray([i["box"] for i in meta["items"]], np.float64).reshape(-1, 4)
    sizes = items[:, 2:] - items[:, :2] if len(items) else np.array([[60.0, 90.0]])
    found = []
    for _ in range(count * 10):
        w, h = sizes[rng.integers(len(sizes))] * rng.uniform(0.6, 1.4, 2)
        x, y = rng.uniform(0, max(1, meta["width"] - w)), rng.uniform(0, max(1, meta["height"] - h))
        box = np.array([x, y, x + w, y + h])
        if not len(items) or iou_matrix(box[None], items).max() <= BACKGROUND_IOU:
            found.append(box)
            if len(found) == count:
                break
    return found


def prepare_crops(source: Path, target: Path, size: int, per_class: int, val_fraction: float, seed: int) -> Path:
    """Write ``target`` as a classification set (train/ and val/ of class folders); returns it.

    Crops, not images, are split: each class's first crop and then every ``1 / val_fraction``-th go to
    val, so that val holds every class even on a small build. (Accuracy is measured on a held-out build.)
    """
    metas = sorted((source / "meta").glob("*.json"))
    if not metas:
        raise ValueError(f"--data {source} holds no images (meta/ is empty)")
    rng = np.random.default_rng(seed)
    counts = {"train": Counter(), "val": Counter()}
    for split in counts:
        for name in CROP_CLASSES:
            (target / split / name).mkdir(parents=True, exist_ok=True)
    for n in rng.permutation(len(metas)):  # a random order, so that capped classes draw from every image
        meta = json.loads(metas[n].read_text())
        wanted = [(i["code"], _jittered(i["box"], rng)) for i in meta["items"] if counts["train"][i["code"]] < per_class]
        if counts["train"][BACKGROUND] < per_class:
            wanted += [(BACKGROUND, box) for box in _bare_boxes(meta, rng, 2)]
        if not wanted:
            continue
        image = cv2.imread(str(source / meta["image"]), cv2.IMREAD_COLOR)
        for k, (name, box) in enumerate(wanted):
            split = "val" if counts["val"][name] <= val_fraction * counts["train"][name] else "train"
            if counts[split][name] < per_class:
                counts[split][name] += 1
                cv2.imwrite(str(target / split / name / f"{metas[n].stem}-{k}.png"), crop(image, box, size))
    short = sorted(name for name in CROP_CLASSES if counts["train"][name] == 0)
    if short:
        raise ValueError(f"--data {source} shows no {', '.join(short[:5])}: build more images")
    return target


def _load(folder: Path) -> tuple[np.ndarray, np.ndarray]:
    """Every crop of a split as uint8 BGR NHWC (as ``crop`` cuts them), with its index in ``CROP_CLASSES``."""
    images, labels = [], []
    for index, name in enumerate(CROP_CLASSES):
        for path in sorted((folder / name).glob("*.png")):
            images.append(cv2.imread(str(path), cv2.IMREAD_COLOR))
            labels.append(index)
    return np.stack(images), np.asarray(labels, np.int64)


def _export(model: object, size: int, path: Path) -> None:
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
    """Cut the crops, train, export ``oxeye-cls.onnx`` (and ``oxeye-cls.pt``) into ``--out``; returns
    the validation accuracy and the final training loss."""
    config.validate()
    import torch
    from tqdm import tqdm

    from oxeye.vision.crop_net import accuracy, crop_net, fit

    torch.manual_seed(config.seed)
    crops = config.out / "crops"
    if crops.exists():
        shutil.rmtree(crops)
    prepare_crops(config.data, crops, config.imgsz, config.per_class, config.val_fraction, config.seed)
    images, labels = _load(crops / "train")
    model = crop_net(len(CROP_CLASSES))
    with tqdm(total=config.epochs, desc="classifier", unit="epoch") as bar:
        losses = fit(model, images, labels, config.epochs, config.batch, config.seed,
                     lambda loss: (bar.update(), bar.set_postfix(loss=f"{loss:.3f}")))
    val_images, val_labels = _load(crops / "val")
    figures = {"val_accuracy": accuracy(model, val_images, val_labels), "train_loss": losses[-1],
               "train_crops": len(images), "val_crops": len(val_images)}
    config.out.mkdir(parents=True, exist_ok=True)
    torch.save({"state_dict": model.state_dict(), "names": CROP_CLASSES, "imgsz": config.imgsz, **figures},
               config.out / CLASSIFIER_WEIGHTS)
    _export(model, config.imgsz, config.out / CLASSIFIER_NAME)
    return figures
