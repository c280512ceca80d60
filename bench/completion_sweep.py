"""The search for cards missing from short hands (``vision.completion.Completion``) swept.

Prints `oxeye evaluate`'s synthetic figures for each setting SURE:REACH (how surely a spot's crops
must name a card, and how many steps past a hand's ends are looked at; a SURE over 1 turns the
search off), and with ``--real`` the real cards' figures too. Pick on builds that are neither
trained on nor held out (MODEL_CARD.md uses seeds 555 and 556). Run:
python -m bench.completion_sweep runs/tuneg 2:1 0.95:1 0.9:1 0.8:1 0.9:0
"""

from __future__ import annotations

from bench.sweep import Setting, command


def main(argv: list[str] | None = None) -> dict[Setting, dict[str, object]]:
    return command(argv, __doc__, "completion", ("sure", "reach"))


if __name__ == "__main__":
    main()
