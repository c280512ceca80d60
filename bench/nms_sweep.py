"""The suppression of overlapping boxes (``vision.detector.Suppression``) swept.

Prints `oxeye evaluate`'s synthetic figures for each setting IOU:CROSS (the IoU at which a box
gives way to a better one of its class, and at which a card's box and a tile's are one item), and
with ``--real`` the real cards' figures too. Boxed by every visible pixel (``--boxes visible``),
fanned cards' boxes overlap so much that at IOU 0.7 a perfect detector could keep at most 98.5% of
the held-out items; boxed by the part that shows (``--boxes main``), all of them (``python -m
bench.nms_ceiling``). Pick on builds that are neither trained on nor held out (MODEL_CARD.md uses
seeds 555 and 556). Run:
python -m bench.nms_sweep runs/tunegmain 0.6:0.8 0.65:0.8 0.7:0.8 --real ../shared/real/cards-edje
"""

from __future__ import annotations

from bench.sweep import Setting, command


def main(argv: list[str] | None = None) -> dict[Setting, dict[str, object]]:
    return command(argv, __doc__, "suppression", ("iou", "cross"))


if __name__ == "__main__":
    main()
