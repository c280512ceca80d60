"""The input sizes a frame is read at (``vision.detector.Scales``) swept.

Prints `oxeye evaluate`'s synthetic figures for each setting ZOOM:LARGE (the first reading's size as
a multiple of the model's own, and the median short side of what it finds, as a share of the
frame's long side, over which the frame is read again at the model's own size; a ZOOM of 1 reads
once, as trained), and with ``--real`` the real cards' figures too. Pick on builds that are neither
trained on nor held out (MODEL_CARD.md uses seeds 555 and 556). Run:
python -m bench.scales_sweep runs/tuneg 1:1 1.3:1 1.3:0.12 1.3:0.15 1.3:0.2 1.2:0.15 1.4:0.15
"""

from __future__ import annotations

from bench.sweep import Setting, command


def main(argv: list[str] | None = None) -> dict[Setting, dict[str, object]]:
    return command(argv, __doc__, "scales", ("zoom", "large"))


if __name__ == "__main__":
    main()
