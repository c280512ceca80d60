"""A plain brute-force evaluator, written straight from the rule texts, to check the engine against.

It shares no code with the engine's ox module: it tries every wild value of all five items at
once, then every three of them, and keeps the strongest reading by the rules' ranking.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations, product

from oxeye.engine import Card, HouseRules, Tile

RANKS = "A 2 3 4 5 6 7 8 9 10 J Q K".split()


# Every way to part five items into three and two, by their indices.
SPLITS = [(triple, tuple(i for i in range(5) if i not in triple)) for triple in combinations(range(5), 3)]


def _same_rank(hand: tuple, triple: tuple[int, ...]) -> bool:
    """Whether the three items are cards of one rank."""
    return isinstance(hand[0], Card) and len({hand[i].rank for i in triple}) == 1


def item_values(item: Card | Tile, rules: HouseRules) -> list[int]:
    """The ox points an item may count as."""
    if isinstance(item, Card):
        base = min(item.rank, 10)
        wild = item.rank in (3, 6)
    else:
        base = item.high + item.low
        wild = (item.high, item.low) in ((2, 1), (4, 2))
    return [3, 6] if wild and rules.three_six_wild else [base]


def order_key(rules: HouseRules, category: str, value: str | None) -> tuple[int, int]:
    """How strong a (category, value) is: earlier in the ranking is stronger, then the value."""
    position = len(rules.ranking) - rules.ranking.index(category)
    if value is None:
        return position, 0
    if category in ("double_ox", "bomb"):
        return position, RANKS.index(value) + 1
    points = int(value)
    if category == "single_ox" and points == 0 and rules.zero_counts_as_ten:
        points = 10
    return position, points


def brute_force(hand: tuple, rules: HouseRules) -> tuple[str, str | None]:
    """The strongest (category, value) of a hand, by trying everything."""
    found: list[tuple[str, str | None]] = []
    if isinstance(hand[0], Card):
        ranks = [c.rank for c in hand]
        faces = [r for r in ranks if r >= 11]
        dukes = [r for r in ranks if r >= 11 or (rules.ten_is_duke and r == 10)]
        if "five_dukes" in rules.ranking and len(dukes) == 5:
            found.append(("five_dukes", None))
        if "five_flowers" in rules.ranking and len(faces) == 5:
            found.append(("five_flowers", None))
        if "four_flowers" in rules.ranking and len(faces) == 4 and 10 in ranks:
            found.append(("four_flowers", None))
        if "five_small" in rules.ranking and max(ranks) <= 4:
            if rules.five_small_max_total is None or sum(ranks) <= rules.five_small_max_total:
                found.append(("five_small", None))
        if "bomb" in rules.ranking:
            for rank, n in Counter(ranks).items():
                if n == 4:
                    found.append(("bomb", RANKS[rank - 1]))
    for values in product(*(item_values(item, rules) for item in hand)):
        for triple, (a, b) in SPLITS:
            total = sum(values[i] for i in triple)
            if total % 10 != 0 and not (rules.triple_is_ox and _same_rank(hand, triple)):
                continue
            points = (values[a] + values[b]) % 10
            if isinstance(hand[0], Tile):
                found.append(("bull", str(10 if points == 0 and rules.zero_counts_as_ten else points)))
                continue
            x, y = hand[a], hand[b]
            found.append(("single_ox", str(points)))
            if "niu_niu" in rules.ranking and points == 0:
                found.append(("niu_niu", None))
            if "double_ox" in rules.ranking:
                if x.rank == y.rank:
                    found.append(("double_ox", RANKS[x.rank - 1]))
                elif rules.double_ox_three_six and {x.rank, y.rank} == {3, 6} and values[a] == values[b] == 6:
                    found.append(("double_ox", "6"))
            if "ngau_tonku" in rules.ranking:
                for ace, other in ((x, y), (y, x)):
                    if ace.rank == 1 and ace.suit == "S" and (other.rank >= 11 or (rules.ten_is_duke and other.rank == 10)):
                        found.append(("ngau_tonku", None))
    if not found:
        return (rules.fallback, "0" if isinstance(hand[0], Tile) else None)
    return max(found, key=lambda cv: order_key(rules, *cv))
