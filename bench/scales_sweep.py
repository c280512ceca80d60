"""The input sizes a frame is read at (``vision.detector.Scales``) swept.

Prints `oxeye evaluate`'s synthetic figures for each setting FIRST:LARGE (the first reading's input
size in pixels, and the median short side of what it finds, as a share of the frame's long side,
over which the frame is read again at the model's own size; a FIRST equal to the model's size reads
once, as trained), and with ``--real`` the real cards' figures too. Pick on builds that are neither
trained on nor held out (MODEL_CARD.md uses seeds 555 and 556). Run:
python -m bench.scales_sweep runs/tunegmain 416:0.15 448:0.15 480:0.15 544:0.15
"""

from __future__ import annotations

from bench.sweep import Setting, command


def main(argv: list[str] | None = None) -> dict[Setting, dict[str, object]]:
    return command(argv, __doc__, "scales", ("first", "large"))


if __name__ == "__main__":
    main()
