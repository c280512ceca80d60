"""The twin-suppression threshold (``vision.classifier.NESTED``) swept on a tuning build.

Prints `oxeye evaluate`'s synthetic figures for each threshold; pick on a build that is neither
trained on nor held out (MODEL_CARD.md uses seed 555). Run:
python -m bench.nested_sweep runs/tune 0.4 0.5 0.6 0.7 1.1   (1.1: suppression off)
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from oxeye.models import DEFAULT_MODEL


def main(argv: list[str] | None = None) -> dict[float, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="a folder written by 'oxeye dataset build'")
    parser.add_argument("thresholds", type=float, nargs="+", help="shares of an item inside a surer one")
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="ONNX model (shipped)")
    args = parser.parse_args(argv)
    from oxeye.vision import classifier
    from oxeye.vision.detector import Detector
    from oxeye.vision.evaluate import synthetic

    detector = Detector(args.model)
    figures, shipped = {}, classifier.NESTED
    try:
        for threshold in args.thresholds:
            classifier.NESTED = threshold
            figures[threshold] = synthetic(detector, args.data)
            print(json.dumps({"nested": threshold, **{k: round(v, 4) for k, v in figures[threshold].items()}}),
                  flush=True)
    finally:
        classifier.NESTED = shipped  # a caller in the same process gets the shipped threshold back
    return figures


if __name__ == "__main__":
    main()
