"""The flags of doubt about what an item is (``vision.classifier.Doubt``) swept.

Prints `oxeye evaluate`'s synthetic figures for each setting NAME:RIVAL (the name's score under
which an item is flagged low-confidence, and the runner-up's share of it from which it is flagged
ambiguous), and with ``--real`` the real cards' figures too. The flags' own figures
(wrong_reports_flagged, right_reports_flagged, unflagged_reports_right) and the sure hands are what
move. Pick on builds that are neither trained on nor held out (MODEL_CARD.md uses seeds 555 and
556). Run:
python -m bench.doubt_sweep runs/tuneg 0.5:0.6 0.7:0.6 0.8:0.6 0.85:0.6 0.9:0.6 0.8:0.5 0.8:0.7
"""

from __future__ import annotations

from bench.sweep import Setting, command


def main(argv: list[str] | None = None) -> dict[Setting, dict[str, object]]:
    return command(argv, __doc__, "doubt", ("name", "rival"))


if __name__ == "__main__":
    main()
