"""The rescue of detections under the detector's threshold (``vision.classifier.Rescue``) swept.

Prints `oxeye evaluate`'s synthetic figures for each setting FLOOR:SURE (the lowest box score taken,
and how surely the crops must name the item; a FLOOR of 1 turns the rescue off), and with ``--real``
the real cards' figures too. Pick on builds that are neither trained on nor held out (MODEL_CARD.md
uses seeds 555 and 556). Run:
python -m bench.rescue_sweep runs/tuneg 1:1 0.1:0.9 0.05:0.9 0.02:0.9 0.05:0.8 0.05:0.95
"""

from __future__ import annotations

from bench.sweep import Setting, command


def main(argv: list[str] | None = None) -> dict[Setting, dict[str, object]]:
    return command(argv, __doc__, "rescue", ("floor", "sure"))


if __name__ == "__main__":
    main()
