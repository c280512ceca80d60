"""``oxeye train-classifier``: the second stage, an ultralytics classifier on item crops of a generator build.

Crops are cut by ``vision.crops.crop`` (the function serving uses) around each labelled item's box,
jittered as a detector's boxes are, plus "none" crops of bare table. The classifier is exported to
ONNX as ``oxeye-cls.onnx`` beside the detector (``oxeye.onnx``) it completes.
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
from oxeye.vision.classifier import CLASSIFIER_NAME
from oxeye.vision.crops import crop
from oxeye.vision.decode import iou_matrix

JITTER = 0.05  # each box edge moves by up to this share of the box's size, as a detector's would
BACKGROUND_IOU = 0.05  # a "none" crop overlaps no item more than this


@dataclass(frozen=True)
class ClassifierConfig:
    """One classifier run; ``validate`` turns bad values into one clear ValueError."""

    data: Path
    out: Path
    model: str = "yolov8n-cls.yaml"
    imgsz: int = 64
    epochs: int = 10
    batch: int = 128
    per_class: int = 400
    val_fraction: float = 0.1
    workers: int = 2
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
        if not self.model.endswith(".yaml") and not Path(self.model).is_file():
            raise ValueError(f"--model {self.model} is neither a model .yaml nor an existing .pt file")


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
    """Write ``target`` as an ultralytics classification set (train/ and val/ of class folders); returns it.

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


def train_classifier(config: ClassifierConfig) -> Path:
    """Cut the crops, train, export ONNX; returns the path of the exported ``oxeye-cls.onnx``."""
    from oxeye.vision.offline import ultralytics_offline

    config.validate()
    ultralytics_offline()
    import torch
    from ultralytics import YOLO

    crops = config.out / "crops"
    if crops.exists():
        shutil.rmtree(crops)
    prepare_crops(config.data, crops, config.imgsz, config.per_class, config.val_fraction, config.seed)
    # No flips (a mirrored index is no index) and no erasing (it could erase the only index shown);
    # random crops stay small, as the crop margin is. Crops stay decoded in memory, colour jitter
    # replaces RandAugment, and AdamW starts at full rate: ultralytics loads and augments each
    # crop in the training process on a CPU, and its defaults (RandAugment, 3 warm-up epochs)
    # made one epoch of 30,000 crops take 9 minutes here and learn next to nothing.
    YOLO(config.model).train(
        data=str(crops.resolve()), epochs=config.epochs, imgsz=config.imgsz, batch=config.batch,
        workers=config.workers, device=0 if torch.cuda.is_available() else "cpu", fliplr=0.0, erasing=0.0,
        scale=0.1, auto_augment=None, cache="ram", optimizer="AdamW", lr0=0.002, warmup_epochs=0,
        project=str(config.out.resolve()), name="classify", exist_ok=True,
        pretrained=config.model.endswith(".pt"), plots=False, verbose=False, seed=config.seed)
    weights = config.out / "classify" / "weights" / "best.pt"
    onnx = Path(YOLO(str(weights)).export(format="onnx", imgsz=config.imgsz, simplify=True, dynamic=True))
    shutil.copyfile(weights, config.out / "oxeye-cls.pt")
    shutil.copyfile(onnx, config.out / CLASSIFIER_NAME)
    return config.out / CLASSIFIER_NAME
