"""The twin rule (``vision.classifier.Twins``) swept on a tuning build.

Prints `oxeye evaluate`'s synthetic figures for each setting INSIDE:UNSURE[:MEET] (how far inside a
surer item an item must lie to be that item seen twice, and under what confidence it counts as one even
when it reads another code; UNSURE 0 asks for the same code, INSIDE above 1 turns the box tests off;
and how near, as a share of the surer item's keypoints' distance, a keypoint of an item of the same
code must lie to one of the surer's to be the same index read twice, 0 turning that test off; MEET
left out keeps the shipped value).
Pick on builds that are neither trained on nor held out (MODEL_CARD.md uses seeds 555 and 556). Run:
python -m bench.twins_sweep runs/tuneg 0.4:0.3 0.5:0.3 0.4:0.2 0.4:0.3:0 0.4:0.3:0.5
"""

from __future__ import annotations

from bench.sweep import Setting, command


def main(argv: list[str] | None = None) -> dict[Setting, dict[str, object]]:
    return command(argv, __doc__, "twins", ("inside", "unsure", "meet"))


if __name__ == "__main__":
    main()
