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
from collections.abc import Collection
from pathlib import Path

import numpy as np

from oxeye.vision import grouping
from oxeye.vision.cli import build_folder, real_number
from oxeye.vision.detector import Detector
from oxeye.vision.evaluate import grouping as grouping_alone
from oxeye.vision.evaluate import synthetic
from oxeye.vision.grouping import group_hands
from oxeye.vision.reading import Reading


class ReadOnce:
    """Reads each photo with the model once, in the order ``synthetic`` visits them; each later pass
    regroups the items it kept under the weight of the moment, as only the grouping changes. (The
    search of short hands, ``vision.completion``, follows the grouping; it is not redone, so the
    cards it found under the shipped weight stay at every weight.)"""

    def __init__(self, detector: Detector) -> None:
        self.detector, self.kept, self.calls = detector, [], 0

    def rewind(self) -> None:
        self.calls = 0

    def read(self, image: np.ndarray, kinds: Collection[str] | None = None) -> Reading:
        if self.calls == len(self.kept):
            self.kept.append(self.detector.read(image, kinds=kinds).items)
        items = self.kept[self.calls]
        self.calls += 1
        return Reading(image.shape[1], image.shape[0], items, group_hands(items))


def main(argv: list[str] | None = None) -> dict[float, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=build_folder, help="a folder written by 'oxeye dataset build'")
    parser.add_argument("turns", type=real_number, nargs="+", metavar="TURN", help="weights to try")
    parser.add_argument("--model", type=Path, help="also read the photos with this ONNX model")
    args = parser.parse_args(argv)
    reader = ReadOnce(Detector(args.model)) if args.model is not None else None
    shipped, figures = grouping.TURN, {}
    try:
        for turn in args.turns:
            grouping.TURN = turn
            figures[turn] = {"grouping_accuracy_on_true_items": grouping_alone(args.data)}
            if reader is not None:
                reader.rewind()
                figures[turn]["hands_exact"] = synthetic(reader, args.data)["hands_exact"]
            print(json.dumps({"turn": turn, **{k: round(v, 4) for k, v in figures[turn].items()}}), flush=True)
    finally:
        grouping.TURN = shipped
    return figures


if __name__ == "__main__":
    main()
