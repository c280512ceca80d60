"""Exact category frequencies over every five-item hand: all C(52,5) card hands or C(32,5) tile hands.

Rather than judge 2,598,960 hands one by one, each class of hands that the rules cannot tell
apart is judged once and weighted by how many hands it holds. For cards a hand's category
depends only on its ranks and whether the ace of spades is among them (Ngau Tonku is the only
category that looks at a suit); for tiles only on its faces. tests/ checks this hand by hand.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations_with_replacement
from math import comb, prod

from oxeye.engine.cards import SUIT_CODES, Card
from oxeye.engine.hands import HAND_SIZE, Item
from oxeye.engine.ox import classify
from oxeye.engine.rules import HouseRules
from oxeye.engine.tiles import Tile, chinese_set


@dataclass(frozen=True)
class Frequency:
    """How many of all hands read as one category and value."""

    category: str
    value: str | None
    label: str
    strength: tuple[int, ...]
    hands: int
    share: float


def frequencies(rules: HouseRules) -> tuple[Frequency, ...]:
    """Every (category, value) with its exact count over all hands, strongest first."""
    counts: Counter[tuple[str, str | None, tuple[int, ...]]] = Counter()
    for hand, weight in hand_classes(rules.items):
        category, value, strength = classify(hand, rules)
        counts[category, value, strength[:2]] += weight
    total = sum(counts.values())
    rows = [Frequency(c, v, rules.label(c, v), s, n, n / total) for (c, v, s), n in counts.items()]
    return tuple(sorted(rows, key=lambda row: row.strength, reverse=True))


def hand_classes(items: str) -> Iterator[tuple[tuple[Item, ...], int]]:
    """One representative hand per class of hands with equal ranks (cards) or faces (tiles), and its size."""
    if items == "cards":
        yield from _card_classes()
    else:
        yield from _tile_classes()


def _card_classes() -> Iterator[tuple[tuple[Card, ...], int]]:
    for ranks in combinations_with_replacement(range(1, 14), HAND_SIZE):
        counts = Counter(ranks)
        if max(counts.values()) > len(SUIT_CODES):
            continue
        others = prod(comb(4, n) for rank, n in counts.items() if rank != Card.ACE)
        aces = counts.get(Card.ACE, 0)
        # Aces split into hands holding the ace of spades and hands without it.
        for with_spade in (False, True) if aces else (False,):
            suits_for_aces = ("S", "H", "D", "C") if with_spade else ("H", "D", "C", "S")
            if not with_spade and aces == 4:
                continue
            weight = others * (comb(3, aces - 1) if with_spade else comb(3, aces))
            hand = [Card(Card.ACE, suits_for_aces[i]) for i in range(aces)]
            hand += [Card(rank, SUIT_CODES[i]) for rank, n in sorted(counts.items()) if rank != Card.ACE
                     for i in range(n)]
            yield tuple(hand), weight


def _tile_classes() -> Iterator[tuple[tuple[Tile, ...], int]]:
    faces = sorted(set(chinese_set()))
    for hand in combinations_with_replacement(faces, HAND_SIZE):
        counts = Counter(hand)
        if all(n <= tile.copies_per_set for tile, n in counts.items()):
            yield hand, prod(comb(tile.copies_per_set, n) for tile, n in counts.items())


def labels(rules: HouseRules) -> tuple[str, ...]:
    """Every label a hand can carry under ``rules``, strongest first; Nenku (a name for some
    Single-Ox 1 hands, not a category of its own) right after Single-Ox 1."""
    found: list[str] = []
    for row in frequencies(rules):
        found.append(row.label)
        if rules.nenku_label and (row.category, row.value) == ("single_ox", "1"):
            found.append(rules.label("nenku", row.value))
    return tuple(dict.fromkeys(found))
