"""The doubt of neighbouring hands (``vision.grouping.UNSURE``) swept on a tuning build.

For each value (a member of a complete hand is flagged ``unsure_hand`` where another hand's item lies
within that many times as far from it as its nearest fellow; 0 flags none) prints the figures of
`oxeye evaluate` that the flag moves: the sure hands (five items, none flagged: what a table scores
unasked), the share of them read right, and the flags' own shares. Each photo is read with the model
once and its items grouped again at each value (``bench.grouping_sweep.ReadOnce``). Pick on builds
that are neither trained on nor held out (MODEL_CARD.md uses seeds 555 and 556). Run:
python -m bench.unsure_sweep runs/tunegmain 1.25 1.5 2
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bench.grouping_sweep import ReadOnce
from oxeye.models import DEFAULT_MODEL
from oxeye.vision import grouping
from oxeye.vision.cli import build_folder, real_number
from oxeye.vision.detector import Detector
from oxeye.vision.evaluate import synthetic

MOVED = ("sure_hands", "sure_hands_right", "sure_hands_unjudged", "wrong_reports_flagged",
         "unflagged_reports_right", "right_reports_flagged")


def main(argv: list[str] | None = None) -> dict[float, dict[str, object]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=build_folder, help="a folder written by 'oxeye dataset build'")
    parser.add_argument("values", type=real_number, nargs="+", metavar="UNSURE", help="values to try")
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="ONNX model (shipped)")
    args = parser.parse_args(argv)
    reader = ReadOnce(Detector(args.model))
    shipped, figures = grouping.UNSURE, {}
    try:
        for value in args.values:
            grouping.UNSURE = value
            reader.rewind()
            found = synthetic(reader, args.data)
            figures[value] = {name: found[name] for name in MOVED}
            print(json.dumps({"unsure": value, **figures[value]}), flush=True)
    finally:
        grouping.UNSURE = shipped
    return figures


if __name__ == "__main__":
    main()
