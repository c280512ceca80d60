"""Where the real card photos' cards are lost: each labelled card the pipeline does not read right
(found once, rank right), by how, so that what to change next is chosen on counts, not on a look.

A card is misread (found once, rank wrong), reported twice, or never located; one never located is
boxed with another (a report of its rank covers half of it or more, but takes in too much else to
match it: one box over it and a card beside it), taken by another (a report of another rank covers
half of it or more), or not reported.
Matching is ``oxeye evaluate``'s (``vision.matching``). Run:
python -m bench.real_losses [--real ../shared/real/cards-edje] [--model models/oxeye.onnx]
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
import numpy as np

from oxeye.models import DEFAULT_MODEL
from oxeye.vision.decode import intersections
from oxeye.vision.detector import Detector
from oxeye.vision.evaluate import RANKS, labelled_photos, read_labelled
from oxeye.vision.matching import as_boxes
from oxeye.vision.reading import Item

LOSSES = ("misread", "twice", "boxed with another", "taken by another", "not reported")
COVERS = 0.5  # a report covering this much of a card's label lies over it


def losses(detector: Detector, folder: Path) -> tuple[int, dict[str, list[str]]]:
    """How many cards the real set labels, and for each way of losing one the cards lost so
    ('PHOTO rank', in the labels' order)."""
    lost: dict[str, list[str]] = {loss: [] for loss in LOSSES}
    count = 0
    for photo, labels in labelled_photos(folder):
        _, cards, matched = read_labelled(detector, photo, labels)
        for (name, box), found in zip(labels, matched):
            count += 1
            loss = _loss(RANKS[name], as_boxes([box])[0], [cards[f] for f in found], cards)
            if loss:
                lost[loss].append(f"{photo.name} {name}")
    return count, lost


def _loss(rank: str, box: np.ndarray, found: list[Item], cards: list[Item]) -> str | None:
    """How a card with this ``rank`` and label ``box`` was lost, given the reports matched to it and
    all the photo's card reports; None when it was read right."""
    if len(found) > 1:
        return "twice"
    if found:
        return None if found[0].code[:-1] == rank else "misread"
    covering = [card for card, share in zip(cards, _covered(box, cards)) if share >= COVERS]
    if any(card.code[:-1] == rank for card in covering):
        return "boxed with another"
    return "taken by another" if covering else "not reported"


def _covered(box: np.ndarray, cards: list[Item]) -> np.ndarray:
    """How much of ``box`` each card's box covers."""
    if not cards:
        return np.zeros(0)
    area = max(float(np.prod(box[2:] - box[:2])), 1e-9)
    return intersections(box[None], as_boxes([card.box for card in cards]))[0] / area


def main(argv: list[str] | None = None) -> dict[str, list[str]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--real", type=Path, default=Path("../shared/real/cards-edje"))
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    args = parser.parse_args(argv)
    if not any(args.real.glob("photos/*.xml")):
        raise SystemExit(f"no labelled photos in {args.real}/photos")
    count, lost = losses(Detector(args.model), args.real)
    tally = Counter({loss: len(cards) for loss, cards in lost.items()})
    print(f"{count} cards, {count - sum(tally.values())} read right; lost: "
          + ", ".join(f"{loss} {tally[loss]}" for loss in LOSSES))
    for loss in LOSSES:
        print(f"{loss}: {'; '.join(lost[loss]) or '-'}")
    return lost


if __name__ == "__main__":
    main()
