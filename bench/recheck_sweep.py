"""The second reading of unsure crops (``vision.classifier.Recheck``) swept on a tuning build.

Prints `oxeye evaluate`'s synthetic figures for each setting BELOW:SHIFT[:ZOOM] (the best class's score
under which a crop is read again, how many pixels its four moved variants move it, and by what share its
two zoomed ones zoom it; a BELOW of 0 turns it off), and with ``--real`` the real cards' figures too. Pick
on builds that are neither trained on nor held out (the three tuning builds of MODEL_CARD.md, Data). Run:
python -m bench.recheck_sweep runs/tunegmain 0:2 0.6:2:0.1 0.75:2:0.1 0.75:3:0.1 0.9:3:0.1 \
    --real ../shared/real/cards-edje
"""

from __future__ import annotations

from bench.sweep import Setting, command


def main(argv: list[str] | None = None) -> dict[Setting, dict[str, object]]:
    return command(argv, __doc__, "recheck", ("below", "shift", "zoom"))


if __name__ == "__main__":
    main()
