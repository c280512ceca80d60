"""The twin rule (``vision.classifier.Twins``) swept on a tuning build.

Prints `oxeye evaluate`'s synthetic figures for each setting INSIDE:POINTS (how far inside a surer
item, and how near its keypoints, an item must lie to be that item seen twice; POINTS 0 asks for a
same code only, INSIDE above 1 turns the rule off). Pick on a build that is neither trained on nor
held out (MODEL_CARD.md uses seed 555). Run:
python -m bench.twins_sweep runs/tune 0.5:0.3 0.6:0.3 0.5:0.2 1.1:0
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from oxeye.models import DEFAULT_MODEL


def setting(text: str) -> tuple[float, float]:
    """INSIDE:POINTS as two numbers."""
    inside, points = text.split(":")
    return float(inside), float(points)


def main(argv: list[str] | None = None) -> dict[tuple[float, float], dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="a folder written by 'oxeye dataset build'")
    parser.add_argument("settings", type=setting, nargs="+", metavar="INSIDE:POINTS", help="twin rules to try")
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="ONNX model (shipped)")
    args = parser.parse_args(argv)
    from oxeye.vision.classifier import Twins
    from oxeye.vision.detector import Detector
    from oxeye.vision.evaluate import synthetic

    detector = Detector(args.model)
    figures = {}
    for inside, points in args.settings:
        detector.classifier.twins = Twins(inside, points)
        figures[inside, points] = synthetic(detector, args.data)
        print(json.dumps({"inside": inside, "points": points,
                          **{k: round(v, 4) for k, v in figures[inside, points].items()}}), flush=True)
    return figures


if __name__ == "__main__":
    main()
