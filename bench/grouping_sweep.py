"""The grouping's turn weight (``vision.grouping.TURN``) swept on a tuning build.

For each weight (item lengths added to the distance between two items per radian they are turned
from each other; 0 groups by distance alone) prints the share of the build's five-item hands that
come out exact from their true items, and with ``--model`` the share read exactly by that model.
Pick on a build that is neither trained on nor held out (MODEL_CARD.md uses seeds 555 and 556). Run:
python -m bench.grouping_sweep runs/tuneg 0 0.5 1 1.5 2 3 --model models/oxeye.onnx
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main(argv: list[str] | None = None) -> dict[float, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="a folder written by 'oxeye dataset build'")
    parser.add_argument("turns", type=float, nargs="+", metavar="TURN", help="weights to try")
    parser.add_argument("--model", type=Path, help="also read the photos with this ONNX model")
    args = parser.parse_args(argv)
    from oxeye.vision import grouping
    from oxeye.vision.evaluate import grouping as grouping_alone
    from oxeye.vision.evaluate import synthetic

    detector = None
    if args.model is not None:
        from oxeye.vision.detector import Detector

        detector = Detector(args.model)
    shipped, figures = grouping.TURN, {}
    try:
        for turn in args.turns:
            grouping.TURN = turn
            figures[turn] = {"grouping_accuracy_on_true_items": grouping_alone(args.data)}
            if detector is not None:
                figures[turn]["hands_exact"] = synthetic(detector, args.data)["hands_exact"]
            print(json.dumps({"turn": turn, **{k: round(v, 4) for k, v in figures[turn].items()}}), flush=True)
    finally:
        grouping.TURN = shipped
    return figures


if __name__ == "__main__":
    main()
