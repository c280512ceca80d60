"""The rescue of detections under the detector's threshold (``vision.classifier.Rescue``) swept.

Prints `oxeye evaluate`'s synthetic figures for each setting FLOOR:SURE (the lowest box score taken,
and how surely the crops must name the item; a FLOOR of 1 turns the rescue off), and with ``--real``
the real cards' figures too. Pick on builds that are neither trained on nor held out (MODEL_CARD.md
uses seeds 555 and 556). Run:
python -m bench.rescue_sweep runs/tuneg 1:1 0.1:0.9 0.05:0.9 0.02:0.9 0.05:0.8 0.05:0.95
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from bench.sweep import Setting, setting, sweep
from oxeye.models import DEFAULT_MODEL

if TYPE_CHECKING:
    from oxeye.vision.classifier import Classifier


def main(argv: list[str] | None = None) -> dict[Setting, dict[str, object]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="a folder written by 'oxeye dataset build'")
    parser.add_argument("settings", type=setting, nargs="+", metavar="FLOOR:SURE", help="rescues to try")
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="ONNX model (shipped)")
    parser.add_argument("--real", type=Path, help="also read these real card photos (a cards-edje folder)")
    args = parser.parse_args(argv)
    from oxeye.vision.classifier import Rescue

    def apply(classifier: Classifier, chosen: Setting) -> None:
        classifier.rescue = Rescue(*chosen)

    return sweep(args.model, args.data, args.settings, ("floor", "sure"), apply, args.real)


if __name__ == "__main__":
    main()
