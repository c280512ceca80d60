"""Exact category frequencies over every five-item hand dealt from the rules' decks: all C(52k,5)
card hands or C(32k,5) tile hands from k decks or sets shuffled together.

Rather than judge 2,598,960 hands (one deck) one by one, each class of hands that the rules cannot
tell apart is judged once and weighted by how many hands it holds. For cards a hand's category
depends only on its ranks and whether an ace of spades is among them (Ngau Tonku is the only
category that looks at a suit); for tiles only on its faces. tests/ checks this hand by hand for
one deck, and against classes counted another way for several.
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
    """Every (category, value) with its exact count over all hands of the rules' decks, strongest first."""
    counts: Counter[tuple[str, str | None, tuple[int, ...]]] = Counter()
    for hand, weight in hand_classes(rules.items, rules.decks):
        category, value, strength = classify(hand, rules)
        counts[category, value, strength[:2]] += weight
    total = sum(counts.values())
    rows = [Frequency(c, v, rules.label(c, v), s, n, n / total) for (c, v, s), n in counts.items()]
    return tuple(sorted(rows, key=lambda row: row.strength, reverse=True))


def hand_classes(items: str, decks: int = 1) -> Iterator[tuple[tuple[Item, ...], int]]:
    """One representative hand per class of hands with equal ranks (cards) or faces (tiles), and how
    many hands dealt from ``decks`` decks or sets it holds."""
    if items == "cards":
        yield from _card_classes(decks)
    else:
        yield from _tile_classes(decks)


def _card_classes(decks: int) -> Iterator[tuple[tuple[Card, ...], int]]:
    copies = len(SUIT_CODES) * decks  # of each rank
    for ranks in combinations_with_replacement(range(1, 14), HAND_SIZE):
        counts = Counter(ranks)
        if max(counts.values()) > copies:
            continue
        others = prod(comb(copies, n) for rank, n in counts.items() if rank != Card.ACE)
        aces = counts.get(Card.ACE, 0)
        not_spades = comb(copies - decks, aces)  # the aces of spades are `decks` of the aces
        # Aces split into hands holding an ace of spades and hands without one.
        for with_spade in (False, True) if aces else (False,):
            if not with_spade and not not_spades:
                continue
            weight = others * (comb(copies, aces) - not_spades if with_spade else not_spades)
            suits_for_aces = ("SHDC" if with_spade else "HDC") * HAND_SIZE
            hand = [Card(Card.ACE, suits_for_aces[i]) for i in range(aces)]
            hand += [Card(rank, (SUIT_CODES * HAND_SIZE)[i]) for rank, n in sorted(counts.items()) if rank != Card.ACE
                     for i in range(n)]
            yield tuple(hand), weight


def _tile_classes(decks: int) -> Iterator[tuple[tuple[Tile, ...], int]]:
    faces = sorted(set(chinese_set()))
    for hand in combinations_with_replacement(faces, HAND_SIZE):
        counts = Counter(hand)
        if all(n <= tile.copies_per_set * decks for tile, n in counts.items()):
            yield hand, prod(comb(tile.copies_per_set * decks, n) for tile, n in counts.items())


def labels(rules: HouseRules) -> tuple[str, ...]:
    """Every label a hand can carry under ``rules``, strongest first; Nenku (a name for some
    Single-Ox 1 hands, not a category of its own) right after Single-Ox 1."""
    found: list[str] = []
    for row in frequencies(rules):
        found.append(row.label)
        if rules.nenku_label and (row.category, row.value) == ("single_ox", "1"):
            found.append(rules.label("nenku", row.value))
    return tuple(dict.fromkeys(found))
