"""The rule for a card's crop off its box (``vision.classifier.Shown``) swept on a tuning build.

Prints `oxeye evaluate`'s synthetic figures for each setting MARGIN:WEIGHT (how far past the card's
box, as a share of its keypoints' distance, a keypoint still lies on it; and what a crop off it
counts, 1 turning the rule off). Pick on builds that are neither trained on nor held out
(MODEL_CARD.md uses seeds 555 and 556). Run:
python -m bench.shown_sweep runs/tunegmain 0:1 0.1:0 0:0 0.2:0 0.1:0.5 --real ../shared/real/cards-edje
"""

from __future__ import annotations

from bench.sweep import Setting, command


def main(argv: list[str] | None = None) -> dict[Setting, dict[str, object]]:
    return command(argv, __doc__, "shown", ("margin", "weight"))


if __name__ == "__main__":
    main()
