"""``oxeye train``: a YOLO dataset in the chosen label mode from a generator build, training, ONNX export.

Everything runs offline (see ``vision.offline``); on a machine with CUDA the same recipe uses the GPU.
"""

from __future__ import annotations

import filecmp
import json
import math
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from oxeye.vision.classes import CORNER_SUFFIX, KEYPOINTS, label_classes

CORNER_VISIBLE = 0.6  # a corner index is labelled when this share of it shows (the generator's card rule)
WEIGHTS = "oxeye.pt"  # a run's trained weights, beside their ONNX export
ONCE_NAME = "oxeye-once.onnx"  # a yolo26 detector's head that proposes each item once (no suppression)
KEYPOINT_SIGMA = 0.08  # OKS sigma of a keypoint (COCO's for shoulders and hips): its loss and its mAP
# A new run's options where not given (a resumed run has its own, and refuses them given)
NEW_RUN = {"imgsz": 320, "epochs": 50, "batch": 16, "labels": "pose", "val_fraction": 0.1, "workers": 2,
           "cache": False, "keypoint_sigma": KEYPOINT_SIGMA}
# What the commands read of a build's record (datasets/README.md has it whole), its items' and their corners'
RECORD_KEYS = frozenset({"image", "width", "height", "kind", "hands", "items"})
ITEM_KEYS = frozenset({"code", "kind", "box", "visible_fraction", "corner_boxes"})
CORNER_KEYS = frozenset({"box", "centre", "visible"})


def build_problem(folder: Path) -> str | None:
    """What keeps ``folder`` from being a build of images, said of it ('is not ...'); None where it is one
    (written by 'oxeye dataset build', holding an image: meta/*.json)."""
    if not (Path(folder) / "meta").is_dir():
        return "is not a folder written by 'oxeye dataset build' (no meta/)"
    if next((Path(folder) / "meta").glob("*.json"), None) is None:
        return "holds no images (meta/ is empty)"
    return None


def require_build(folder: Path) -> None:
    """ValueError unless ``folder``, given as --data, is a build of images (``build_problem``)."""
    if problem := build_problem(folder):
        raise ValueError(f"--data {folder} {problem}")


def read_record(path: Path) -> dict:
    """One image's record in a build (meta/NNNNNN.json); ValueError naming the file where it is none: a
    truncated one was refused in JSON's words, naming no file, and another program's in a KeyError's traceback."""
    try:
        record = json.loads(Path(path).read_text())
    except ValueError as error:
        raise ValueError(f"{path} is not a record written by 'oxeye dataset build' ({error})") from None
    items = record.get("items") if isinstance(record, dict) else None
    if (_lacks(record, RECORD_KEYS) or not isinstance(items, list) or any(_lacks(item, ITEM_KEYS) for item in items)
            or any(_lacks(corner, CORNER_KEYS) for item in items for corner in item["corner_boxes"])):
        raise ValueError(f"{path} is not a record written by 'oxeye dataset build' (a field is missing)")
    return record


def _lacks(part: object, keys: frozenset[str]) -> bool:
    """Whether ``part`` of a record is no JSON object holding every one of ``keys``."""
    return not isinstance(part, dict) or not keys <= part.keys()


def require_run_folder(out: Path) -> None:
    """ValueError where ``--out`` cannot be a folder, a file lying in the way: it failed only once work had begun."""
    from oxeye.vision.images import file_in_the_way

    if (in_the_way := file_in_the_way(out)) is not None:
        raise ValueError(f"--out {out} cannot be a folder: {in_the_way} is a file")


@dataclass(frozen=True)
class TrainConfig:
    """One training run; ``validate`` turns bad values into one clear ValueError."""

    data: Path | None  # None only with resume
    out: Path
    model: str = ""  # "" is yolov8n of the label mode's task: yolov8n-pose.yaml for pose, else yolov8n.yaml
    # None where not given, so that --resume can tell them given; a new run starts at NEW_RUN's
    imgsz: int | None = None
    epochs: int | None = None
    batch: int | None = None
    labels: str | None = None
    val_fraction: float | None = None
    workers: int | None = None
    resume: bool = False
    transfer: Path | None = None  # start from the layers of this .pt that fit (e.g. a detector of another mode)
    cache: bool | None = None  # hold the resized training images in memory (fast epochs, about 1 GB per 5,000 at 320)
    lr0: float | None = None  # AdamW's starting rate; None lets ultralytics choose (too high to fine-tune briefly)
    hours: float | None = None  # train this long instead of ``epochs`` (ultralytics fits the schedule to the time)
    keypoint_sigma: float | None = None  # the shipped detector's first 3 epochs ran at ultralytics' 0.5
    overwrite: bool = False  # replace a detector trained in ``out`` before (refused otherwise)

    def __post_init__(self) -> None:
        """Give a new run NEW_RUN's options where they were not given (a resumed run has its own)."""
        for name, default in NEW_RUN.items():
            if getattr(self, name) is None and not self.resume:
                object.__setattr__(self, name, default)  # frozen: set once, as it is made

    @property
    def architecture(self) -> str:
        """The model .yaml or .pt to train."""
        return self.model or ("yolov8n-pose.yaml" if self.labels == "pose" else "yolov8n.yaml")

    def validate(self) -> None:
        """Raise ValueError naming the first bad argument."""
        if self.resume:  # the interrupted run holds its own arguments: others given were silently not used
            given = [option for option, value in (("--data", self.data), ("--model", self.model),
                                                  ("--transfer", self.transfer), ("--lr0", self.lr0),
                                                  ("--hours", self.hours))
                     if value is not None and value != ""]
            given += [f"--{name.replace('_', '-')}" for name in NEW_RUN if getattr(self, name) is not None]
            if given:
                last = self.out / "train" / "weights" / "last.pt"
                raise ValueError(f"--resume continues the run as it was started: leave out {', '.join(given)} (to "
                                 f"train on otherwise, fine-tune from it with --model {last})")
            return
        label_classes(self.labels)
        if self.lr0 is not None and not 0 < self.lr0 < 1:
            raise ValueError(f"--lr0 must be between 0 and 1, got {self.lr0}")
        if self.hours is not None and not 0 < self.hours < math.inf:  # inf: ultralytics' epochs overflow, hours in
            raise ValueError(f"--hours must be above 0 and finite, got {self.hours}")
        if self.workers < 0:
            raise ValueError(f"--workers must be 0 or more, got {self.workers}")
        if not 0 < self.keypoint_sigma <= 1:
            raise ValueError(f"--keypoint-sigma must be above 0 and at most 1, got {self.keypoint_sigma}")
        if self.data is None:
            raise ValueError("--data is required (except with --resume, which takes the run's own)")
        require_build(self.data)
        if self.imgsz < 64 or self.imgsz % 32:
            raise ValueError(f"--imgsz must be a multiple of 32 and at least 64, got {self.imgsz}")
        if self.epochs < 1 or self.batch < 1:
            raise ValueError(f"--epochs and --batch must be at least 1, got {self.epochs} and {self.batch}")
        if not 0 < self.val_fraction < 1:
            raise ValueError(f"--val-fraction must be between 0 and 1, got {self.val_fraction}")
        weights = self.architecture.endswith(".pt") and Path(self.architecture).is_file()
        if not (self.architecture.endswith(".yaml") or weights):  # a photo once went on to ultralytics' traceback
            raise ValueError(f"--model {self.model} is neither a model .yaml nor an existing .pt file")
        if self.transfer is not None and not (self.transfer.is_file() and self.architecture.endswith(".yaml")):
            raise ValueError(f"--transfer {self.transfer} needs an existing .pt and a model .yaml to build")
        require_run_folder(self.out)
        trained = [p for p in (self.out / WEIGHTS, self.out / "train" / "weights" / "last.pt") if p.exists()]
        if trained and not self.overwrite:  # a training run writes over them, and takes hours to make again
            raise ValueError(f"--out {self.out} holds a detector trained before ({trained[0]}): choose another "
                             f"folder, --resume an interrupted run, or pass --overwrite to replace it")
        # checked here, not where the split is made: evaluate reads a build of one
        if len(list((self.data / "meta").glob("*.json"))) < 2:
            raise ValueError(f"--data {self.data} holds one image: training needs one more to validate on")


def _yolo_line(class_id: int, box: list[float], width: int, height: int) -> str | None:
    x1, y1, x2, y2 = max(box[0], 0), max(box[1], 0), min(box[2], width), min(box[3], height)
    if x2 - x1 < 1 or y2 - y1 < 1:
        return None
    return (f"{class_id} {(x1 + x2) / 2 / width:.6f} {(y1 + y2) / 2 / height:.6f} "
            f"{(x2 - x1) / width:.6f} {(y2 - y1) / height:.6f}")


def keypoints(item: dict) -> list[list[float]]:
    """An item's two keypoints in pixels, the centres of its corner indices (card) or halves (tile),
    the upper one first: an order the image itself shows (a card looks the same turned half round)
    and that a left-right flip keeps."""
    return sorted((c["centre"] for c in item["corner_boxes"]), key=lambda point: (point[1], point[0]))


def _keypoint_text(item: dict, width: int, height: int) -> str:
    """' x y v' per keypoint, normalised; one outside the image is unlabelled (0 0 0)."""
    text = ""
    for x, y in keypoints(item):
        inside = 0 <= x < width and 0 <= y < height
        text += f" {x / width:.6f} {y / height:.6f} 2" if inside else " 0 0 0"
    return text


def label_text(meta: dict, mode: str) -> str:
    """YOLO label lines for one generated image in label mode ``mode`` (see ``classes.label_classes``).

    The pose detector, which finds items and names none, also learns the items glare alone hides
    (``burnt_out``): unseen, such a tile left its hand short and the grouping filled it from a neighbour's."""
    class_id = {name: i for i, name in enumerate(label_classes(mode))}
    lines = []
    for item in meta["items"] + (meta.get("burnt_out", []) if mode == "pose" else []):
        if mode == "pose":
            line = _yolo_line(class_id[item["kind"]], item["box"], meta["width"], meta["height"])
            lines.append(line and line + _keypoint_text(item, meta["width"], meta["height"]))
        elif mode != "corners" or item["kind"] == "tile":
            lines.append(_yolo_line(class_id[item["code"]], item["box"], meta["width"], meta["height"]))
        if mode in ("corners", "both") and item["kind"] == "card":
            lines += [_yolo_line(class_id[item["code"] + CORNER_SUFFIX], c["box"], meta["width"], meta["height"])
                      for c in item["corner_boxes"] if c["visible"] >= CORNER_VISIBLE]
    return "".join(line + "\n" for line in lines if line)


def _link(source: Path, target: Path) -> None:
    """Hard-link the image (no copy of a large build), copying where the filesystems differ."""
    target.unlink(missing_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def prepare_dataset(source: Path, target: Path, mode: str, val_fraction: float,
                    keypoint_sigma: float = KEYPOINT_SIGMA) -> Path:
    """Write ``target`` as an ultralytics dataset (images/, labels/ per split, data.yaml, which gives a pose
    dataset's keypoints ``keypoint_sigma``); returns data.yaml."""
    metas = sorted((source / "meta").glob("*.json"))
    if not metas:
        raise ValueError(f"--data {source} holds no images (meta/ is empty)")
    every = max(2, round(1 / val_fraction))
    # Every ``every``-th image validates; a build smaller than that still holds its last one back.
    val = set(range(every - 1, len(metas), every)) or {len(metas) - 1}
    for sub in ("images", "labels"):  # an earlier run's split (another build, another share) is no part of this one
        shutil.rmtree(target / sub, ignore_errors=True)
    for n, path in enumerate(metas):
        meta = read_record(path)
        split = "val" if n in val else "train"
        for sub in ("images", "labels"):
            (target / sub / split).mkdir(parents=True, exist_ok=True)
        image = source / meta["image"]
        _link(image, target / "images" / split / image.name)
        (target / "labels" / split / f"{image.stem}.txt").write_text(label_text(meta, mode))
    # The keypoints' order (upper first) survives a left-right flip, so a flip keeps them in place.
    # ultralytics' default OKS sigma for keypoints other than COCO's 17 is 1 / count (0.5 here), which
    # scores a keypoint half an item away as nearly right and so barely teaches where it lies.
    pose = (f"kpt_shape: [{KEYPOINTS}, 3]\nflip_idx: {list(range(KEYPOINTS))}\n"
            f"kpt_oks_sigmas: {[keypoint_sigma] * KEYPOINTS}\n") if mode == "pose" else ""
    data = target / "data.yaml"
    data.write_text(data_yaml(target, "images/train", "images/val", label_classes(mode), pose))
    return data


def data_yaml(folder: Path, train: str, val: str, names: tuple[str, ...], extra: str = "") -> str:
    """An ultralytics data.yaml with ``folder`` as its path, quoted (JSON's quotes are YAML's): a folder
    named 'run #2' was read as 'run', and one named 'a: b' not at all."""
    listed = "".join(f"  {i}: '{name}'\n" for i, name in enumerate(names))
    return f"path: {json.dumps(str(folder.resolve()))}\ntrain: {train}\nval: {val}\n{extra}names:\n{listed}"


def run_data(out: Path) -> Path:
    """The dataset ``prepare_dataset`` wrote into the run ``out``, absolute: ultralytics keeps the path a run
    was started with, and one started with a relative --out could not be resumed from another folder."""
    return (out / "yolo" / "data.yaml").resolve()


def train(config: TrainConfig) -> list[Path]:
    """Train (or resume), then export ONNX; returns the files written: oxeye.pt, then ``export``'s.
    ultralytics' log goes to stderr, so that stdout holds what the command says it wrote, whatever
    YOLO_VERBOSE says."""
    from oxeye.vision.offline import said_on_stderr, ultralytics_offline

    config.validate()
    ultralytics_offline()
    with said_on_stderr():
        return _train_and_export(config)


def _train_and_export(config: TrainConfig) -> list[Path]:
    """``train``'s work, once the configuration is known good and ultralytics is imported offline."""
    from oxeye.vision.images import written_aside
    import torch
    from ultralytics import YOLO

    device = 0 if torch.cuda.is_available() else "cpu"  # a resumed run's own (a lent GPU's 0) may be no more
    run = config.out / "train"
    last, best = run / "weights" / "last.pt", run / "weights" / "best.pt"
    if config.resume:
        if not last.is_file():
            raise ValueError(f"--resume: no interrupted run at {last}")
        finished = detector_checkpoint("--resume", last).get("epoch", -1) < 0
        if finished and exported(best, config.out):
            raise ValueError(f"--resume: the run in {run} has finished; fine-tune from it with --model {last}")
        if not finished:  # else only its export was interrupted: it is exported again
            YOLO(str(last)).train(resume=True, data=str(run_data(config.out)), device=device)
    else:
        fine_tune = config.architecture.endswith(".pt")
        if fine_tune:
            detector_checkpoint("--model", Path(config.architecture))
        if config.transfer:
            detector_checkpoint("--transfer", config.transfer)
        data = prepare_dataset(config.data, config.out / "yolo", config.labels, config.val_fraction,
                               config.keypoint_sigma)
        YOLO(config.architecture).train(
            data=str(data), epochs=config.epochs, imgsz=config.imgsz, batch=config.batch,
            workers=config.workers, device=device,
            project=str(config.out.resolve()), name="train", exist_ok=True, cache="ram" if config.cache else False,
            pretrained=str(config.transfer) if config.transfer else fine_tune, plots=False, verbose=False,
            # Weights that were trained already need no warm-up (ultralytics' default is 3 epochs of it).
            warmup_epochs=0 if fine_tune else 3,
            # A lent GPU is lent for a set time: ultralytics then sets the epochs after timing the first.
            **({"time": config.hours} if config.hours else {}),
            # ultralytics' "auto" optimizer ignores lr0, so a chosen rate names its optimizer too.
            **({"optimizer": "AdamW", "lr0": config.lr0} if config.lr0 else {}))
    files = export(best, config.out)
    with written_aside(config.out / WEIGHTS) as partial:  # last: the mark of a run exported whole
        shutil.copyfile(best, partial)
    return [config.out / WEIGHTS, *files]


def detector_checkpoint(option: str, weights: Path) -> dict:
    """The ultralytics checkpoint saved in ``weights``; ValueError naming ``option`` where the file is none (one
    cut short, the classifier's oxeye-cls.pt): each went on to torch's or ultralytics' traceback."""
    import torch

    try:
        saved = torch.load(weights, map_location="cpu", weights_only=False)
    except Exception:  # torch raises many kinds, at length, for a file that is not its checkpoint
        saved = None
    if not (isinstance(saved, dict) and isinstance(saved.get("ema") or saved.get("model"), torch.nn.Module)):
        raise ValueError(f"{option} {weights} is not a detector's weights (an ultralytics checkpoint, as 'oxeye train' "
                         f"writes): a file cut short, or another model's?")
    return saved


def exported(best: Path, folder: Path) -> bool:
    """Whether ``folder`` holds the export of the run's ``best`` weights, whole: its oxeye.pt, copied there
    once every ONNX is in place, is those weights."""
    return (folder / WEIGHTS).is_file() and filecmp.cmp(best, folder / WEIGHTS, shallow=False)


def export(weights: Path, folder: Path) -> list[Path]:
    """ONNX of trained weights into ``folder``: oxeye.onnx, whose proposals the decoder suppresses,
    and for a model that also learnt to propose each item once (yolo26's second head) that head
    alone, oxeye-once.onnx, read with no suppression (``Detector.proposes_once``). Each is exported
    in a hidden folder inside ``folder`` and moved into place once all are whole: an export interrupted
    (it takes seconds) left a file without the metadata the detector reads, over the one before."""
    from ultralytics import YOLO

    with tempfile.TemporaryDirectory(prefix=".export-", dir=folder) as work:
        staged = Path(shutil.copyfile(weights, Path(work) / weights.name))  # each export is written beside it
        model = YOLO(str(staged))
        heads = {"oxeye.onnx": None}  # ultralytics' nms=None: the head whose proposals are suppressed
        if getattr(model.model.model[-1], "one2one_cv2", None) is not None:
            heads = {ONCE_NAME: False, **heads}
        files = []
        for name, nms in heads.items():  # each export works on a copy of the model
            # A dynamic input lets the detector run a 16:9 frame as a rectangle instead of a padded square.
            onnx = model.export(format="onnx", imgsz=model.ckpt["train_args"]["imgsz"], simplify=True, dynamic=True,
                                nms=nms)
            files.append(Path(onnx).rename(Path(work) / name))
        if ONCE_NAME not in heads:  # an earlier model's, trained over (--overwrite): it would read as this one's
            (folder / ONCE_NAME).unlink(missing_ok=True)
        return [file.replace(folder / name) for file, name in zip(files, heads)]
