"""Best ox: try every choice of three and every wild value; keep the strongest reading and the rest.

A reading is either a whole-hand special (Five Dukes, Bomb, ...) or a split: three items set
aside as the ox (a multiple of 10, or three of one rank where the rules allow) and the two
left over, the power, judged by the categories the rules rank.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations, product

from oxeye.engine.cards import RANK_CODES, Card
from oxeye.engine.hands import Item, check_repeats, parse_hand
from oxeye.engine.rules import CARD_SPECIALS, POINT_CATEGORIES, HouseRules
from oxeye.engine.tiles import Tile

_WILD_TILES = (Tile(2, 1), Tile(4, 2))
_TRIPLES: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = tuple(
    (triple, tuple(i for i in range(5) if i not in triple)) for triple in combinations(range(5), 3)
)


@dataclass(frozen=True, slots=True)
class Counted:
    """An item and the ox points it counted as (a 3 may count as 6, a king as 10)."""

    item: Item
    as_value: int


@dataclass(frozen=True, slots=True)
class Alternative:
    """One way to read a hand: its category, the ox set aside, the power, and why."""

    category: str
    value: str | None
    label: str
    strength: tuple[int, ...]
    ox: tuple[Counted, ...]
    power: tuple[Counted, ...]
    points: int  # the power's points where it has them (single ox, bull), else 0
    suited: bool  # the two power cards share a suit
    explanation: str


@dataclass(frozen=True)
class Evaluation:
    """A hand's best reading under some rules, with every distinct alternative, strongest first."""

    items: tuple[Item, ...]
    rules: HouseRules
    alternatives: tuple[Alternative, ...]

    @property
    def best(self) -> Alternative:
        """The strongest reading: the one the hand scores as."""
        return self.alternatives[0]

    @property
    def category(self) -> str:
        """The best reading's category, which settlement and the rankings key on."""
        return self.best.category

    @property
    def value(self) -> str | None:
        """The best reading's value within its category (a Single Ox's points), or None where it has none."""
        return self.best.value

    @property
    def label(self) -> str:
        """The best reading's name under the table's labels, as shown to players."""
        return self.best.label

    @property
    def strength(self) -> tuple[int, ...]:
        """The best reading's rank key: a larger tuple beats a smaller one under these rules."""
        return self.best.strength

    @property
    def has_ox(self) -> bool:
        """False for a hand with no ox (stuck, in Tau Ngau)."""
        return self.category != self.rules.fallback

    @property
    def multiplier(self) -> int | None:
        """Stakes this hand is settled at: a hand with no ox pays ``no_ox_pays`` where the rules set it,
        whatever the payment; otherwise what it wins by under multiplier or even payment, None under point
        difference."""
        if not self.has_ox and self.rules.no_ox_pays is not None:
            return self.rules.no_ox_pays
        if self.rules.payment == "point_difference":
            return None
        if self.rules.payment == "even":
            return 1
        doubled = self.rules.suited_ox_pays_double and self.best.suited
        return self.rules.multiplier(self.category, self.value) * (2 if doubled else 1)


def evaluate(hand: str | Sequence[str] | Sequence[Item], rules: HouseRules) -> Evaluation:
    """Read a five-item hand under ``rules``: the best ox and every distinct alternative."""
    items = parse_hand(hand, rules.items)
    check_repeats(items, rules.decks)
    return _judge(rules).evaluate(items)


def classify(items: Sequence[Item], rules: HouseRules) -> tuple[str, str | None, tuple[int, ...]]:
    """The best (category, value, strength) of parsed items, without alternatives: the fast path."""
    return _judge(rules).classify(items)


@functools.lru_cache(maxsize=32)
def _judge(rules: HouseRules) -> _Judge:
    return _Judge(rules)


class _Judge:
    """The rules turned into the few checks a reading needs, shared by evaluate and classify."""

    def __init__(self, rules: HouseRules) -> None:
        self.rules = rules
        self.score = {name: len(rules.ranking) - i for i, name in enumerate(rules.ranking)}
        self.specials = tuple(name for name in rules.ranking if name in CARD_SPECIALS)
        self.power_categories = tuple(name for name in rules.ranking if name not in CARD_SPECIALS)
        self.strongest_split = max(self.score[name] for name in self.power_categories)
        self.suit_score = {suit: 4 - i for i, suit in enumerate(rules.suit_order)}

    # Items -----------------------------------------------------------------------------------
    def choices(self, item: Item) -> tuple[int, ...]:
        """The ox points an item may count as, its natural value first."""
        if isinstance(item, Card):
            natural = item.points
            wild = item.rank in (3, 6)
        else:
            natural = item.pips
            wild = item in _WILD_TILES
        if wild and self.rules.three_six_wild:
            return (natural, 9 - natural)
        return (natural,)

    def is_duke(self, item: Item) -> bool:
        """A Duke: a J, Q or K (and a 10 where the rules say so)."""
        return isinstance(item, Card) and (item.is_face or (self.rules.ten_is_duke and item.rank == 10))

    def ace_with_duke(self, pair: Sequence[Card], spade: bool) -> bool:
        """An ace (of spades: Ngau Tonku; of another suit: Nenku) beside a Duke."""
        a, b = pair
        return any(x.rank == Card.ACE and (x.suit == "S") == spade and self.is_duke(y) for x, y in ((a, b), (b, a)))

    def tiebreak(self, items: Sequence[Item]) -> tuple[int, ...]:
        """The high-card tie-break: highest rank, then its suit by the rules' suit order."""
        if self.rules.ties != "high_card":
            return ()
        return max((card.rank, self.suit_score[card.suit]) for card in items)

    # Readings --------------------------------------------------------------------------------
    def ox_values(self, triple: Sequence[Item], options: Sequence[tuple[int, ...]]) -> tuple[int, ...] | None:
        """How three items (with their ``choices``) count to make an ox, or None if they cannot."""
        if len(options[0]) == len(options[1]) == len(options[2]) == 1:  # no wild item: skip product(), the hot path
            values = (options[0][0], options[1][0], options[2][0])
            if sum(values) % 10 == 0:
                return values
        else:
            for values in product(*options):
                if sum(values) % 10 == 0:
                    return values
        if self.rules.triple_is_ox and isinstance(triple[0], Card) and len({c.rank for c in triple}) == 1:
            return tuple(option[0] for option in options)
        return None

    def power(self, pair: Sequence[Item], options: Sequence[tuple[int, ...]]) -> tuple[str, int, str | None, tuple[int, ...]]:
        """The strongest (category, value rank, value, counted values) the two power items make."""
        best: tuple[str, int, str | None, tuple[int, ...]] | None = None
        best_key = (-1, -1)
        for values in product(*options):
            for category, value_rank, value in self._power_candidates(pair, values):
                key = (self.score[category], value_rank)
                if key > best_key:
                    best, best_key = (category, value_rank, value, values), key
        assert best is not None  # single_ox or bull is always in the ranking
        return best

    def _power_candidates(self, pair: Sequence[Item], values: tuple[int, ...]) -> Iterator[tuple[str, int, str | None]]:
        """Every category of the ranking that these two items, counted as ``values``, qualify for."""
        rules = self.rules
        total = sum(values) % 10
        points = 10 if total == 0 and rules.zero_counts_as_ten else total
        for category in self.power_categories:
            if category == "ngau_tonku":
                if self.ace_with_duke(pair, spade=True):
                    yield category, 0, None
            elif category == "double_ox":
                a, b = pair
                if a.rank == b.rank:
                    yield category, a.rank, RANK_CODES[a.rank - 1]
                elif rules.double_ox_three_six and {a.rank, b.rank} == {3, 6} and values == (6, 6):
                    yield category, 6, "6"
            elif category == "niu_niu":
                if total == 0:
                    yield category, 0, None
            elif category == "single_ox":
                yield category, points, str(total)
            elif category == "bull":
                yield category, points, str(points)

    def special(self, category: str, ranks: Sequence[int]) -> tuple[int, str | None] | None:
        """(value rank, value) if a card hand with these sorted ranks is this special category, else None."""
        if category == "five_dukes":
            return (0, None) if ranks[0] >= (10 if self.rules.ten_is_duke else 11) else None
        if category == "five_flowers":
            return (0, None) if ranks[0] >= 11 else None
        if category == "four_flowers":
            return (0, None) if ranks[0] == 10 and ranks[1] >= 11 else None
        if category == "five_small":
            limit = self.rules.five_small_max_total
            return (0, None) if ranks[-1] <= 4 and (limit is None or sum(ranks) <= limit) else None
        if category == "bomb":
            return (ranks[1], RANK_CODES[ranks[1] - 1]) if ranks[0] == ranks[3] or ranks[1] == ranks[4] else None
        raise AssertionError(category)  # pragma: no cover - the ranking was validated

    def strength(self, category: str, value_rank: int, items: Sequence[Item]) -> tuple[int, ...]:
        """Category, value, then the high card, except between hands with no ox where ``no_ox_ties`` decides."""
        no_ox_rule = category == self.rules.fallback and self.rules.no_ox_ties != "as_ties"
        return (self.score[category], value_rank, *(() if no_ox_rule else self.tiebreak(items)))

    # Whole hands -----------------------------------------------------------------------------
    def classify(self, items: Sequence[Item]) -> tuple[str, str | None, tuple[int, ...]]:
        """The best reading's (category, value, strength); a special ranked below a split must still meet the splits."""
        best = (self.rules.fallback, "0" if self.rules.items == "tiles" else None, (self.score[self.rules.fallback], 0))
        ranks = sorted(card.rank for card in items) if self.specials else ()
        for category in self.specials:  # strongest first: the first found is the best special
            found = self.special(category, ranks)
            if found is not None:
                if self.score[category] > self.strongest_split:
                    return category, found[1], self.strength(category, found[0], items)
                best = (category, found[1], (self.score[category], found[0]))
                break
        options = [self.choices(item) for item in items]
        for triple, pair in _TRIPLES:
            if self.ox_values([items[i] for i in triple], [options[i] for i in triple]) is None:
                continue
            category, value_rank, value, _ = self.power([items[i] for i in pair], [options[i] for i in pair])
            key = (self.score[category], value_rank)
            if key > best[2][:2]:
                best = (category, value, key)
        return best[0], best[1], self.strength(best[0], best[2][1], items)

    def evaluate(self, items: tuple[Item, ...]) -> Evaluation:
        ranks = sorted(card.rank for card in items) if self.specials else ()
        readings = [self._special_reading(category, items, ranks) for category in self.specials]
        readings = [r for r in readings if r is not None]
        options = [self.choices(item) for item in items]
        for triple, pair in _TRIPLES:
            ox_items = [items[i] for i in triple]
            ox_values = self.ox_values(ox_items, [options[i] for i in triple])
            if ox_values is not None:
                power = self.power([items[i] for i in pair], [options[i] for i in pair])
                readings.append(self._split_reading(ox_items, ox_values, [items[i] for i in pair], power, items))
        if not readings:
            readings.append(self._no_ox_reading(items))
        return Evaluation(items, self.rules, tuple(_distinct(self._strongest_first(readings))))

    def _strongest_first(self, readings: list[Alternative]) -> list[Alternative]:
        """Order readings by strength; among equals, whatever order the items came in, prefer a suited one
        (where that pays double), then one with a name of its own (Nenku), then the lowest items."""
        readings = sorted(readings, key=lambda r: (sorted(c.item for c in r.ox), sorted(c.item for c in r.power)))
        prefer_suited = self.rules.suited_ox_pays_double
        return sorted(readings, reverse=True, key=lambda r: (
            r.strength, prefer_suited and r.suited, r.label != self.rules.label(r.category, r.value)))

    def _special_reading(self, category: str, items: Sequence[Item], ranks: Sequence[int]) -> Alternative | None:
        found = self.special(category, ranks)
        if found is None:
            return None
        value_rank, value = found
        label = self.rules.label(category, value)
        counted = tuple(Counted(item, self.choices(item)[0]) for item in items)
        return Alternative(category, value, label, self.strength(category, value_rank, items), (), counted, 0,
                           False, f"{self._why_special(category, items, value)} -> {label}")

    def _split_reading(self, ox_items: list[Item], ox_values: tuple[int, ...], pair: list[Item],
                       power: tuple[str, int, str | None, tuple[int, ...]], items: Sequence[Item]) -> Alternative:
        category, value_rank, value, power_values = power
        label = self.rules.label(category, value)
        if category == "single_ox" and self.rules.nenku_label and self.ace_with_duke(pair, spade=False):
            label = self.rules.label("nenku", value)
        ox = tuple(Counted(i, v) for i, v in zip(ox_items, ox_values))
        power = tuple(Counted(i, v) for i, v in zip(pair, power_values))
        suited = all(isinstance(i, Card) for i in pair) and pair[0].suit == pair[1].suit
        if sum(ox_values) % 10 == 0:
            why_ox = f"{_sum_text(ox)} = {sum(ox_values)} is the ox"
        else:
            why_ox = f"{_sum_text(ox)} is three of a kind, an ox"
        why_power = {
            "ngau_tonku": "the ace of spades with a Duke",
            "double_ox": "a pair",
        }.get(category, f"= {sum(power_values)}")
        points = value_rank if category in POINT_CATEGORIES else 0
        return Alternative(category, value, label, self.strength(category, value_rank, items), ox, power, points,
                           suited, f"{why_ox}; {_sum_text(power)} {why_power} -> {label}")

    def _no_ox_reading(self, items: Sequence[Item]) -> Alternative:
        category = self.rules.fallback
        value = "0" if self.rules.items == "tiles" else None
        label = self.rules.label(category, value)
        kind = "cards" if self.rules.items == "cards" else "tiles"
        how = "add up to a multiple of 10" + (" or share a rank" if self.rules.triple_is_ox else "")
        counted = tuple(Counted(item, self.choices(item)[0]) for item in items)
        return Alternative(category, value, label, self.strength(category, 0, items), (), counted, 0, False,
                           f"no three {kind} {how} -> {label}")

    def _why_special(self, category: str, items: Sequence[Item], value: str | None) -> str:
        if category == "five_dukes":
            return "all five are Dukes (" + ("10, " if self.rules.ten_is_duke else "") + "J, Q, K)"
        if category == "five_flowers":
            return "all five are J, Q or K"
        if category == "four_flowers":
            return "four of J, Q, K and a 10"
        if category == "five_small":
            limit = self.rules.five_small_max_total
            total = sum(card.points for card in items)
            return "all five are A to 4" + (f", totalling {total} (at most {limit})" if limit is not None else "")
        return f"four {value}s"


def _sum_text(counted: Sequence[Counted]) -> str:
    """'3S (as 6) + 6H + 8D': each item's code, with the value it counted as where that differs."""
    def one(c: Counted) -> str:
        natural = c.item.points if isinstance(c.item, Card) else c.item.pips
        return c.item.code + (f" (as {c.as_value})" if c.as_value != natural else "")
    return " + ".join(one(c) for c in counted)


def _distinct(readings: Sequence[Alternative]) -> Iterator[Alternative]:
    """Drop readings that differ only in which of two equal items (same rank) was used."""
    seen = set()
    for reading in readings:
        key = (reading.category, reading.value, reading.label, reading.suited,
               tuple(sorted((_face(c.item), c.as_value) for c in reading.ox)),
               tuple(sorted((_face(c.item), c.as_value) for c in reading.power)))
        if key not in seen:
            seen.add(key)
            yield reading


def _face(item: Item) -> str:
    return item.rank_code if isinstance(item, Card) else item.code
