"""How well an index can be named from what a detector reading the frame at a given size sees.

Why the detector does not name what it finds (MODEL_CARD.md, Why two stages): each photo of a build is
shrunk as the letterbox shrinks it (``letterbox.fitted``: long side to SIZE) and enlarged back, then the
classifier names every item from crops at its true keypoints (``evaluate.naming_by_kind``), as a corner-index
detector reading at SIZE would have to. ``full`` leaves the photos as they are: the two-stage pipeline's own
view. Prints, for each size, the share of cards and of tiles named right. Run on a tuning build:
python -m bench.index_resolution runs/tunegmain full 416 640
"""

from __future__ import annotations

import argparse
import json
from functools import partial
from pathlib import Path

import cv2
import numpy as np

from oxeye.models import DEFAULT_MODEL
from oxeye.vision.cli import build_folder, whole_number
from oxeye.vision.letterbox import fitted

FULL = "full"  # the photos as they are


def shrunk(image: np.ndarray, size: int) -> np.ndarray:
    """``image`` with only the detail left that a reading at ``size`` px (its long side) keeps, at its own size."""
    height, width = image.shape[:2]
    return cv2.resize(fitted(image, size)[0], (width, height), interpolation=cv2.INTER_LINEAR)


def size_or_full(text: str) -> int | None:
    """A size in pixels, at least 32, or ``full`` (None)."""
    return None if text == FULL else whole_number(32)(text)


size_or_full.__name__ = "size or 'full'"  # argparse names the type in its refusal


def main(argv: list[str] | None = None) -> dict[str, dict[str, object]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=build_folder, help="a folder written by 'oxeye dataset build'")
    parser.add_argument("sizes", type=size_or_full, nargs="+", metavar="SIZE", help="long sides in px, or 'full'")
    parser.add_argument("--classifier", type=Path, help="the classifier's ONNX (the shipped one)")
    args = parser.parse_args(argv)

    from oxeye.vision.classifier import CLASSIFIER_NAME, Classifier
    from oxeye.vision.evaluate import naming_by_kind

    classifier = Classifier(args.classifier or DEFAULT_MODEL.with_name(CLASSIFIER_NAME))
    figures: dict[str, dict[str, object]] = {}
    for size in args.sizes:
        seen = partial(shrunk, size=size) if size is not None else None
        counts = naming_by_kind(classifier, args.data, seen)
        name = FULL if size is None else str(size)
        figures[name] = {f"{kind}s_named": right / total for kind, (right, total) in counts.items()}
        figures[name] |= {f"{kind}s": total for kind, (_, total) in counts.items()}
        print(json.dumps({"size": name, **{k: round(v, 4) for k, v in figures[name].items()}}), flush=True)
    return figures


if __name__ == "__main__":
    main()
