"""The twin rule (``vision.classifier.Twins``) swept on a tuning build.

Prints `oxeye evaluate`'s synthetic figures for each setting INSIDE:UNSURE (how far inside a surer
item an item must lie to be that item seen twice, and under what confidence it counts as one even
when it reads another code; UNSURE 0 asks for the same code, INSIDE above 1 turns the rule off).
Pick on a build that is neither trained on nor held out (MODEL_CARD.md uses seed 555). Run:
python -m bench.twins_sweep runs/tune 0.5:0 0.5:0.2 0.5:0.3 0.5:0.4 0.4:0.3 0.6:0.3 1.1:0
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
    parser.add_argument("settings", type=setting, nargs="+", metavar="INSIDE:UNSURE", help="twin rules to try")
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="ONNX model (shipped)")
    args = parser.parse_args(argv)
    from oxeye.vision.classifier import Twins

    def apply(classifier: Classifier, chosen: Setting) -> None:
        classifier.twins = Twins(*chosen)

    return sweep(args.model, args.data, args.settings, ("inside", "unsure"), apply)


if __name__ == "__main__":
    main()
