"""``oxeye train`` and ``oxeye detect``: the detector's commands (heavy imports inside the handlers)."""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from oxeye.models import DEFAULT_MODEL
from oxeye.vision.classes import KINDS, LABEL_MODES
from oxeye.vision.train import KEYPOINT_SIGMA, NEW_RUN, build_problem

if TYPE_CHECKING:
    from oxeye.vision.images import Decoded

REAL_CARDS = "../shared/real/cards-edje"
_WHOLE = re.compile(r"-?[0-9]+")  # as a path's, a query's or a form's whole number is read
# As every amount is written (engine.amounts' AMOUNT_TEXT, which vision, knowing no rules, does not import), with
# a power of ten after it as a learning rate is written (1e-4).
_REAL = re.compile(r"-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?")


def _train(args: argparse.Namespace) -> int:
    from oxeye.vision.images import terminate_as_interrupt
    from oxeye.vision.train import TrainConfig, train

    config = TrainConfig(args.data, args.out, args.model, args.imgsz, args.epochs, args.batch, args.labels,
                         args.val_fraction, args.workers, args.resume, args.transfer, args.cache, args.lr0,
                         args.hours, args.keypoint_sigma, args.overwrite)
    with terminate_as_interrupt():  # its export is removed, not left beside the run's model
        print(f"trained: {', '.join(map(str, train(config)))}")
    return 0


def _train_classifier(args: argparse.Namespace) -> int:
    from oxeye.vision.images import terminate_as_interrupt
    from oxeye.vision.train_classifier import ClassifierConfig, train_classifier

    config = ClassifierConfig(tuple(args.data), args.out, args.imgsz, args.epochs, args.batch, args.per_class,
                              args.hidden_per_class, args.val_fraction, args.seed, args.model, args.overwrite,
                              args.widths, args.teacher)
    from oxeye.vision.classifier import CLASSIFIER_NAME

    with terminate_as_interrupt():
        figures = train_classifier(config)
    print(f"trained: {args.out / CLASSIFIER_NAME} ({figures['val_accuracy']:.2%} of {figures['val_crops']} "
          f"validation crops named right)")
    return 0


def _quantize_classifier(args: argparse.Namespace) -> int:
    from oxeye.vision.images import terminate_as_interrupt
    from oxeye.vision.quantize import quantize_classifier

    with terminate_as_interrupt():
        crops = quantize_classifier(args.model, tuple(args.data), args.out, args.per_class, args.seed)
    print(f"quantized: {args.out} (8-bit, calibrated on {crops} crops)")
    return 0


def picture_argument(text: str) -> Path:
    """An argparse type for a picture to write, so that a bad name is refused before any work
    (OpenCV is imported only then: the engine's commands run without it)."""
    from oxeye.vision.images import picture_problem

    if problem := picture_problem(text):
        raise argparse.ArgumentTypeError(problem)
    return Path(text)


def _refuse_drawing_over(photo: Path | None, annotate: Path | None) -> None:
    """ValueError where ``--annotate`` names the photo itself, which the drawing would replace for good."""
    if annotate is None or photo is None:  # nothing drawn, or the photo piped in
        return
    if annotate.is_file() and photo.is_file() and annotate.samefile(photo):
        raise ValueError(f"--annotate {annotate} is the photo being read: name another picture to draw on")


def typed_whole(text: str, what: str = "a whole number") -> int:
    """``text`` read as a whole number in ASCII digits, a minus left for the option's range check to refuse, else an
    ArgumentTypeError saying it is not ``what``: int() read full-width '１０' and '1_0' as 10, and ' 3' or '+3' as 3."""
    if not _WHOLE.fullmatch(text):
        raise argparse.ArgumentTypeError(f"not {what}: {text!r} (write it in the digits 0 to 9)")
    try:
        return int(text)
    except ValueError:  # more digits than int() reads: argparse would name the parsing function
        raise argparse.ArgumentTypeError(f"not {what}: it has more than {sys.get_int_max_str_digits()} digits") from None


def whole_number(least: int | None = None) -> Callable[[str], int]:
    """An argparse type for a whole number (``typed_whole``) of at least ``least`` where given, refused in one line
    as it is parsed (a preview --count of -1 once drew all but the last image; a --seed of -1 failed in numpy's
    words); an option with no ``least`` is checked where it is used, in its own words."""

    def parse(text: str) -> int:
        value = typed_whole(text)
        if least is not None and value < least:
            raise argparse.ArgumentTypeError(f"must be at least {least}, got {value}")
        return value

    return parse


def build_folder(text: str) -> Path:
    """An argparse type for a build of images given as an argument (``train.build_problem``), refused as it is
    parsed: read, an empty folder gave every figure as 0 of 0."""
    if problem := build_problem(Path(text)):
        raise argparse.ArgumentTypeError(f"{text} {problem}")
    return Path(text)


def real_number(text: str) -> float:
    """An argparse type for a number that may have a fraction (--hours 0.5, --lr0 0.0003 or 3e-4), written in ASCII
    digits, a point before any fraction, a power of ten after it where wanted, a minus for the range check: float()
    read '1_0' as 10 and full-width '０.５' as 0.5, and took 'nan', 'inf' and '1e400', which is inf."""
    if not _REAL.fullmatch(text) or not math.isfinite(float(text)):
        raise argparse.ArgumentTypeError(f"not a number: {text!r} (write it in the digits 0 to 9, a point before "
                                         f"any fraction, like 0.5 or 3e-4)")
    return float(text)


def _widths(text: str) -> tuple[int, ...]:
    """An argparse type for a network's channels per stage, comma-separated whole numbers of at least 1."""
    parse = whole_number(1)
    return tuple(parse(part) for part in text.split(","))


def _detect(args: argparse.Namespace) -> int:
    from oxeye.vision.detector import Detector

    _refuse_drawing_over(args.photo, args.annotate)
    photo = _read_photo(args.photo)
    decoded = Detector(args.model).read(photo.pixels, kinds=args.kinds)
    if args.annotate:  # drawn on the photo as decoded: a large JPEG reduced
        from oxeye.vision.annotate import annotate

        annotate(photo.pixels, decoded, args.annotate)
    reading = photo.in_photo(decoded)
    if args.json:
        print(json.dumps(reading.to_json()))
        return 0
    named = "stdin" if args.photo is None else args.photo
    print(f"{named}: {counted(len(reading.items), 'item')} in {counted(len(reading.hands), 'hand')}")
    for hand in reading.hands:
        note = "" if hand.complete else f"  (incomplete: {len(hand.codes)} of 5)"
        print(f"  hand {hand.index}: {' '.join(hand.codes)}{note}")
    for item in reading.items:
        if item.flag:
            rival = f", or {item.rival}" if item.rival else ""
            print(f"  doubtful: {item.code} ({item.flag}, {item.confidence:.2f}{rival}) in hand {item.hand}")
    return 0


def _photo_argument(text: str) -> Path | None:
    """oxeye detect's PHOTO: a path, or None where it is ``-``, which names stdin as most commands read it (a
    file called - is ./-, which pathlib makes the same path as -, so the text itself is looked at here)."""
    return None if text == "-" else Path(text)


def _read_photo(photo: Path | None) -> Decoded:
    """The photo named, decoded as the service decodes one; or (None) the one piped in."""
    from oxeye.vision.images import PhotoError, decode_reduced, read_reduced

    if photo is not None:
        return read_reduced(photo)
    if sys.stdin is None or sys.stdin.isatty():  # else it would wait for a photo typed in
        raise OSError("- reads the photo piped in, and none is: oxeye detect - < photo.jpg, or name the photo")
    data = sys.stdin.buffer.read()
    if not data:
        raise OSError("- reads the photo piped in, and nothing came: oxeye detect - < photo.jpg")
    try:
        return decode_reduced(data)
    except PhotoError as error:
        raise OSError(f"cannot read the photo piped in: {error}") from None


def counted(count: int, noun: str) -> str:
    """``1 item``, ``2 items``: the summary once read '1 items in 1 hands', a photo's hand '1 items seen'."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _evaluate(args: argparse.Namespace) -> int:
    from oxeye.vision.evaluate import evaluate, labelled_photos
    from oxeye.vision.train import require_build

    if args.data is None and args.real is None:
        raise ValueError("give --data DIR (a held-out build), --real DIR, or both")
    if args.data is not None:
        require_build(args.data)
    if args.real is not None and (args.real / "photos").is_dir() and not labelled_photos(args.real):
        # measured as photos read with nothing found: every figure 0.0
        raise ValueError(f"--real {args.real}: photos/ holds no photo labelled in Pascal VOC (NAME.xml beside "
                         f"NAME.jpg, .jpeg or .png)")
    if args.against is not None and not args.against.is_file():
        raise ValueError(f"--against {args.against}: no such model")
    print(json.dumps(evaluate(args.model, args.data, args.real, args.against, args.told_kinds), indent=2))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``train``, ``train-classifier``, ``quantize-classifier``, ``detect`` and ``evaluate``."""
    train = subparsers.add_parser("train", help="train the YOLO detector on a generated dataset and export ONNX")
    train.add_argument("--data", type=Path, help="a folder written by 'oxeye dataset build' (not with --resume)")
    train.add_argument("--out", type=Path, required=True, help="run folder; gets oxeye.pt and oxeye.onnx")
    train.add_argument("--model", default="", help="model .yaml (from scratch) or .pt to fine-tune "
                       "(yolov8n-pose.yaml for --labels pose, else yolov8n.yaml; not with --resume)")
    train.add_argument("--transfer", type=Path, metavar="PT", help="start the .yaml model from the layers of this "
                       ".pt that fit, e.g. a detector trained in another label mode (not with --resume)")
    train.add_argument("--imgsz", type=whole_number(), help=f"input size, a multiple of 32 ({NEW_RUN['imgsz']}; not with --resume)")
    train.add_argument("--epochs", type=whole_number(), help=f"epochs ({NEW_RUN['epochs']}; not with --resume)")
    train.add_argument("--batch", type=whole_number(), help=f"batch size ({NEW_RUN['batch']}; not with --resume)")
    train.add_argument("--labels", choices=LABEL_MODES,
                       help="what the detector finds: where items lie and where their two corner indices or halves "
                            "are (pose: the names come from 'oxeye train-classifier'), or whole items named, card "
                            "corner indices, or both (pose; not with --resume)")
    train.add_argument("--val-fraction", type=real_number,
                       help=f"share of images held out for validation ({NEW_RUN['val_fraction']}; not with --resume)")
    train.add_argument("--workers", type=whole_number(), help=f"data-loading processes ({NEW_RUN['workers']}; not with --resume)")
    train.add_argument("--resume", action="store_true", help="resume the interrupted run in --out")
    train.add_argument("--overwrite", action="store_true", help="replace a detector trained in --out before (refused otherwise)")
    train.add_argument("--cache", action="store_true", default=None,
                       help="hold the resized images in memory (faster epochs; not with --resume)")
    train.add_argument("--lr0", type=real_number, help="AdamW's starting learning rate, e.g. 0.0003 to fine-tune a "
                            "trained .pt briefly (default: ultralytics chooses, about 0.0017 here; not with --resume)")
    train.add_argument("--hours", type=real_number, help="train for this long instead of --epochs: ultralytics times "
                       "the first epoch and fits the epochs and their schedule to the time (e.g. a GPU's lease; not with --resume)")
    train.add_argument("--keypoint-sigma", type=real_number, metavar="SIGMA",
                       help=f"OKS sigma of the keypoints, which weights their loss ({KEYPOINT_SIGMA}; the shipped "
                            "detector learnt at it from its first epoch; at ultralytics' 0.5, gpu2 read worse: "
                            "models/EXPERIMENTS.md; not with --resume)")
    train.set_defaults(handler=_train, extra="train")

    classify = subparsers.add_parser("train-classifier", help="train the second stage, which names each item a "
                                     "pose detector finds from crops around its keypoints, on generated datasets; "
                                     "export ONNX")
    classify.add_argument("--data", type=Path, nargs="+", required=True,
                          help="one or more folders written by 'oxeye dataset build'")
    classify.add_argument("--out", type=Path, required=True, help="run folder (the detector's); gets oxeye-cls.onnx")
    classify.add_argument("--imgsz", type=whole_number(), default=64, help="crop size, a multiple of 8 (64)")
    classify.add_argument("--epochs", type=whole_number(), default=20, help="epochs (20)")
    classify.add_argument("--batch", type=whole_number(), default=128, help="batch size (128)")
    classify.add_argument("--per-class", type=whole_number(), default=3000, help="at most this many training crops per class (3000)")
    classify.add_argument("--hidden-per-class", type=whole_number(), metavar="N", help="crops of hidden indices (class \"none\") "
                          "may number up to N, at least --per-class (default: --per-class)")
    classify.add_argument("--val-fraction", type=real_number, default=0.1, help="share of images held out for validation (0.1)")
    classify.add_argument("--seed", type=whole_number(0), default=0, help="seed for the crops' jitter and the training (0)")
    classify.add_argument("--model", type=Path, metavar="PT", help="an oxeye-cls.pt to fine-tune from (e.g. "
                          "models/oxeye-cls.pt); else a fresh network")
    classify.add_argument("--widths", type=_widths, metavar="W,W,...", help="the network's channels per stage "
                          "(24,48,96,192; fewer cost less a crop); with --model, its strongest channels kept")
    classify.add_argument("--teacher", type=Path, metavar="PT", help="an oxeye-cls.pt whose readings of each crop the "
                          "network learns from beside the labels (distillation: a smaller network from a larger)")
    classify.add_argument("--overwrite", action="store_true",
                          help="replace a classifier trained in --out before (refused otherwise)")
    classify.set_defaults(handler=_train_classifier, extra="train")

    quantize = subparsers.add_parser("quantize-classifier", help="write a trained classifier in 8-bit integers for "
                                     "serving (onnxruntime static quantization), calibrated on a generated build")
    quantize.add_argument("--model", type=Path, required=True, metavar="PT", help="an oxeye-cls.pt")
    quantize.add_argument("--data", type=Path, nargs="+", required=True,
                          help="one or more folders written by 'oxeye dataset build' (not the held-out build)")
    quantize.add_argument("--out", type=Path, required=True, help="the ONNX to write, e.g. RUN/oxeye-cls.onnx")
    quantize.add_argument("--per-class", type=whole_number(), default=20, help="at most this many calibration crops per class (20)")
    quantize.add_argument("--seed", type=whole_number(0), default=0, help="seed for the crops' jitter (0)")
    quantize.set_defaults(handler=_quantize_classifier, extra="train")

    detect = subparsers.add_parser("detect", help="read the cards and tiles in a photo, grouped into hands")
    detect.add_argument("photo", type=_photo_argument, help="a photo (JPEG, PNG, ...); - reads one piped in")
    detect.add_argument("--json", action="store_true", help="print one JSON object (the contract)")
    detect.add_argument("--annotate", type=picture_argument, metavar="OUT.jpg",
                        help="also write the photo with the reading drawn")
    detect.add_argument("--model", type=Path, default=DEFAULT_MODEL, help=f"ONNX model ({DEFAULT_MODEL.name} in models/)")
    detect.add_argument("--kind", dest="kinds", action="append", choices=KINDS,
                        help="the table holds only items of this kind (repeatable; any kind by default)")
    detect.set_defaults(handler=_detect, extra="vision")

    evaluate = subparsers.add_parser("evaluate", help="measure the detector: held-out synthetic build, real card photos")
    evaluate.add_argument("--data", type=Path, help="a held-out folder written by 'oxeye dataset build'")
    evaluate.add_argument("--real", type=Path, help=f"real photos with VOC labels (e.g. {REAL_CARDS}); skipped when absent")
    evaluate.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="ONNX model (models/oxeye.onnx)")
    evaluate.add_argument("--against", type=Path, metavar="MODEL", help="another ONNX model read on the same photos: "
                          "its accuracies, and --model's gain over it with a 95%% interval (paired by photo)")
    evaluate.add_argument("--told-kinds", action="store_true", help="read each photo knowing its item kinds (the "
                          "build's labels; cards for the real photos), as the service reads a table's")
    evaluate.set_defaults(handler=_evaluate, extra="vision")
