"""House rules as data: one frozen object, one named field per option, validated on the way in."""

from __future__ import annotations

import dataclasses
import string
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal, TypeVar

from oxeye.engine.amounts import amount_from_text
from oxeye.engine.cards import RANK_CODES
from oxeye.engine.errors import EngineError, RulesError, written

# The category vocabulary. Whole-hand specials look at all five items; split categories judge the
# two items left after three are set aside as the ox; the fallback is the hand with no ox at all.
CARD_SPECIALS = ("five_dukes", "five_flowers", "four_flowers", "five_small", "bomb")
CARD_SPLITS = ("ngau_tonku", "double_ox", "niu_niu", "single_ox")
TILE_SPLITS = ("bull",)
POINT_CATEGORIES = ("single_ox", "bull")  # the categories whose power is worth points, as point difference pays
FALLBACK = {"cards": "no_ox", "tiles": "no_bull"}
# Options that only cards can use: set on tiles they would be silently ignored
CARD_OPTIONS = ("triple_is_ox", "ten_is_duke", "five_small_max_total", "double_ox_three_six", "nenku_label",
                "suit_order", "suited_ox_pays_double")
T = TypeVar("T")
MOST_DECKS = 8  # a deck deals ten seats; a casino's shoe holds eight (and a billion would be a billion copies to deal from)
MOST_STAKES = 1000  # the most stakes one hand may win or pay: no table plays more, and far more overflows a float
# The longest label: words to read at a glance; a drill's answer keeps its label in 100 characters (PostgreSQL
# refuses more, a 500), and a label had no limit.
MOST_LABEL_CHARACTERS = 40

DEFAULT_LABELS: Mapping[str, str] = types.MappingProxyType({
    "five_dukes": "Five Dukes",
    "five_flowers": "Five Flowers",
    "four_flowers": "Four Flowers",
    "five_small": "Five Small",
    "bomb": "Bomb {value}",
    "ngau_tonku": "Ngau Tonku",
    "nenku": "Nenku",
    "double_ox": "Double-Ox {value}",
    "niu_niu": "Niu Niu",
    "single_ox": "Single-Ox {value}",
    "no_ox": "No Ox",
    "bull": "Bull {value}",
    "no_bull": "No Bull",
})


@dataclass(frozen=True)
class HouseRules:
    """Every option a table can set. Presets are TOML files of these fields (engine/presets/)."""

    name: str
    items: Literal["cards", "tiles"]
    description: str = ""
    # Forming the ox
    three_six_wild: bool = False  # cards 3 and 6 (tiles 2-1 and 4-2) count 3 or 6, in the ox and the power
    triple_is_ox: bool = False  # three of one rank make an ox whatever they add up to
    # Ranking, strongest first; see the vocabulary above
    ranking: tuple[str, ...] = ("single_ox", "no_ox")
    ten_is_duke: bool = False  # a 10 counts as a Duke beside J, Q and K
    five_small_max_total: int | None = None  # Five Small also needs the five to total at most this
    double_ox_three_six: bool = False  # a 3 and a 6 make a pair (Double-Ox 6)
    nenku_label: bool = False  # a non-spade ace with a Duke is labelled Nenku (it scores as Single-Ox 1)
    zero_counts_as_ten: bool = True  # a remainder of 0 is worth 10: the best single ox or bull
    # Ties
    ties: Literal["push", "banker", "high_card"] = "push"
    no_ox_ties: Literal["push", "banker", "as_ties"] = "as_ties"  # when both have no ox
    suit_order: str = "SHCD"  # strongest first, for high-card ties
    # Paying
    payment: Literal["multiplier", "point_difference", "even"] = "multiplier"
    multipliers: Mapping[str, int] = field(default_factory=dict)  # "category" or "category:value" -> stakes
    no_ox_pays: int | None = None  # a player with no ox pays this many stakes whatever the banker holds
    suited_ox_pays_double: bool = False  # the two power cards share a suit: the win pays double
    commission: Decimal = Decimal(0)  # share of each win taken by the house
    # The table
    decks: int = 1
    bank_passes: Literal["never", "after_banker_ox", "every_round"] = "never"
    labels: Mapping[str, str] = field(default_factory=dict)  # overrides of DEFAULT_LABELS

    def __post_init__(self) -> None:
        object.__setattr__(self, "multipliers", types.MappingProxyType(dict(self.multipliers)))
        object.__setattr__(self, "labels", types.MappingProxyType(dict(self.labels)))
        object.__setattr__(self, "ranking", tuple(self.ranking))
        self._check()

    def __hash__(self) -> int:
        return hash((self.name, self.ranking, tuple(sorted(self.multipliers.items()))))

    @property
    def fallback(self) -> str:
        """The category of a hand with no ox: ``no_ox`` for cards, ``no_bull`` for tiles."""
        return FALLBACK[self.items]

    def multiplier(self, category: str, value: str | None) -> int:
        """Stakes a hand of this category and value wins when paid by multiplier (default 1)."""
        return self.multipliers.get(f"{category}:{value}", self.multipliers.get(category, 1))

    def values(self, category: str) -> tuple[str, ...]:
        """The values a hand of this category is read with, as ``category:value`` multipliers name them."""
        if category in ("double_ox", "bomb"):
            return RANK_CODES
        if category == "single_ox":
            return tuple(map(str, range(10)))
        if category == "bull":  # a domino hand's zero is written 10 where it counts ten
            return tuple(map(str, range(1, 11) if self.zero_counts_as_ten else range(10)))
        if category == "nenku":  # a Single-Ox 1 so named
            return ("1",)
        return ("0",) if category == "no_bull" else ()

    def label(self, category: str, value: str | None) -> str:
        """The words for a category, e.g. 'Double-Ox 8'."""
        return self.labels.get(category, DEFAULT_LABELS[category]).format(value=value)

    @classmethod
    def from_mapping(cls, data: Mapping[str, object], base: HouseRules | None = None) -> HouseRules:
        """Build rules from plain data (a parsed TOML or JSON file), over ``base`` when given.

        Raises RulesError naming the field for an unknown or ill-typed option.
        """
        hints = typing.get_type_hints(cls)
        values = {f.name: getattr(base, f.name) for f in dataclasses.fields(cls)} if base is not None else {}
        for key, raw in data.items():
            if key not in hints:
                known = ", ".join(sorted(hints))
                raise RulesError(f"unknown house-rule option {key!r} (known options: {known})")
            value = _coerce(key, raw, hints[key])
            # a table (multipliers, labels) changes the base's entries it names and keeps the others
            values[key] = {**values[key], **value} if isinstance(value, dict) and key in values else value
        if base is not None:
            for key in ("multipliers", "labels"):
                values[key] = _ranked_or_given(values[key], values["ranking"], data.get(key, {}))
            values.update(_idle_inherited(values, data))
            if "name" not in data:
                values["name"] = _changed_name(base, values)
        missing = [f.name for f in dataclasses.fields(cls) if f.name not in values and f.default is dataclasses.MISSING
                   and f.default_factory is dataclasses.MISSING]
        if missing:
            # rules sent as {} (or a preset's options alone) were told this without the usual mend
            raise RulesError(f"house rules need the option(s) {', '.join(missing)}, or a 'base' preset to "
                             "start from (gnau, say)")
        try:
            return cls(**values)
        except TypeError as error:  # pragma: no cover - every field is covered by hints above
            raise RulesError(str(error)) from None

    def _check(self) -> None:
        """Raise RulesError for options that contradict each other."""
        if self.items not in FALLBACK:
            raise RulesError(f"option 'items' must be 'cards' or 'tiles', not {self.items!r}")
        allowed = (CARD_SPECIALS + CARD_SPLITS) if self.items == "cards" else TILE_SPLITS
        for name in self.ranking[:-1]:
            if name not in allowed:
                raise RulesError(f"option 'ranking': {name!r} is not a category for {self.items} "
                                 f"(choose from {', '.join(allowed)})")
        if not self.ranking or self.ranking[-1] != self.fallback:
            raise RulesError(f"option 'ranking' must end with {self.fallback!r}")
        if len(set(self.ranking)) != len(self.ranking):
            raise RulesError("option 'ranking' names a category twice")
        if "single_ox" not in self.ranking and "bull" not in self.ranking:
            raise RulesError("option 'ranking' must hold 'single_ox' (cards) or 'bull' (tiles)")
        for key in self.multipliers:
            category, value = key.split(":", 1) if ":" in key else (key, None)
            if category not in self.ranking:
                raise RulesError(f"option 'multipliers': {key!r} names no category of this ranking")
            if value is not None and value not in self.values(category):  # else paid 1 without a word
                values = ", ".join(self.values(category)) or "none"
                raise RulesError(f"option 'multipliers': {key!r} names no value of {category} (its values: {values})")
        for key, text in self.labels.items():
            if key not in DEFAULT_LABELS:
                raise RulesError(f"option 'labels': unknown category {key!r}")
            if key == "nenku" and not self.nenku_label:
                raise RulesError("option 'labels': 'nenku' is shown only with 'nenku_label' set")
            if key not in self.ranking and key != "nenku":  # else words never shown, a typo's or a misplaced table's
                raise RulesError(f"option 'labels': {key!r} names no category of this ranking")
            _check_label(key, text, bool(self.values(key)))
        self._check_labels_apart()
        if self.ties == "high_card" and self.items != "cards":
            raise RulesError("option 'ties': 'high_card' needs cards")
        pointless = [name for name in self.ranking[:-1] if name not in POINT_CATEGORIES]
        if self.payment == "point_difference" and pointless:
            # such a hand counted 0 points: Five Dukes paid 7 stakes to a Single-Ox 7
            raise RulesError(f"option 'payment': 'point_difference' pays by points, which {pointless[0]!r} has none of "
                             f"(rank only {' or '.join(map(repr, POINT_CATEGORIES))} above the fallback)")
        if sorted(self.suit_order) != sorted("SHDC"):
            raise RulesError(f"option 'suit_order' must order the four suits S H D C, not {self.suit_order!r}")
        needs = self._needs()
        for name in self._options_set(needs):
            if self.items == "tiles" and name in CARD_OPTIONS:
                raise RulesError(f"option {name!r} is for cards; these rules deal tiles")
            need = needs.get(name)
            if need is not None and not need[1]:
                # a table that sets it believes it plays a rule that never changes a hand or a payment
                raise RulesError(f"option {name!r} does nothing without {need[0]}")
        if not 1 <= self.decks <= MOST_DECKS:
            raise RulesError(f"option 'decks' must be 1 to {MOST_DECKS}")
        if not Decimal(0) <= self.commission < Decimal(1):
            raise RulesError("option 'commission' must be a share from 0 up to (not including) 1")
        if self.no_ox_pays is not None and not 0 <= self.no_ox_pays <= MOST_STAKES:
            raise RulesError(f"option 'no_ox_pays' must be 0 to {MOST_STAKES} stakes")
        if any(not 0 <= m <= MOST_STAKES for m in self.multipliers.values()):
            raise RulesError(f"option 'multipliers' must each be 0 to {MOST_STAKES} stakes")

    def _check_labels_apart(self) -> None:
        """RulesError where two categories' words read alike (labels double_ox and single_ox both "Ox {value}",
        or five_small "Five Dukes"): a hand so labelled, printed or named in a drill, could be either."""
        seen: dict[str, str] = {}
        for category in (*self.ranking, *(("nenku",) if self.nenku_label else ())):
            for value in self.values(category) or (None,):
                words = self.label(category, value)
                other = seen.setdefault(" ".join(words.casefold().split()), category)
                if other != category:
                    raise RulesError(f"option 'labels': {other!r} and {category!r} both read {words!r}: "
                                     f"a hand so labelled could be either")

    def _options_set(self, needs: Mapping[str, object]) -> list[str]:
        """The options only cards use (CARD_OPTIONS) or only some rules let act (``needs``) that these rules set
        otherwise than their defaults."""
        return [f.name for f in dataclasses.fields(self)
                if (f.name in CARD_OPTIONS or f.name in needs) and getattr(self, f.name) != f.default]

    def _needs(self) -> dict[str, tuple[str, bool]]:
        """Per option that only some rules let act, what it needs (in words) and whether these rules have it."""
        return _option_needs(vars(self))


def _option_needs(values: Mapping[str, Any]) -> dict[str, tuple[str, bool]]:
    """Per option that only some rules let act, what it needs (in words) and whether ``values`` have it: point
    difference pushes equal points, and beside no_ox_pays a player with no ox pays it whatever the banker holds,
    so the tie rules are never asked there."""
    ranked = set(values["ranking"])
    by_outcome = values["payment"] != "point_difference"
    return {
        "ties": ("a payment other than 'point_difference' (which pushes equal points)", by_outcome),
        "no_ox_ties": ("a payment other than 'point_difference', and 'no_ox_pays' unset",
                       by_outcome and values["no_ox_pays"] is None),
        "ten_is_duke": ("'five_dukes' or 'ngau_tonku' in 'ranking', or 'nenku_label'",
                        bool(ranked & {"five_dukes", "ngau_tonku"}) or values["nenku_label"]),
        "double_ox_three_six": ("'three_six_wild' and 'double_ox' in 'ranking'",
                                values["three_six_wild"] and "double_ox" in ranked),
        "five_small_max_total": ("'five_small' in 'ranking'", "five_small" in ranked),
        "suit_order": ("ties = 'high_card'", values["ties"] == "high_card"),
        "suited_ox_pays_double": ("payment = 'multiplier'", values["payment"] == "multiplier"),
    }


def _idle_inherited(values: Mapping[str, Any], given: Mapping[str, object]) -> dict[str, object]:
    """The options a base set that these rules give nothing to do and their file never wrote, at their
    defaults: a file dropping five_small from niuniu's ranking was refused over niuniu's five_small_max_total,
    which TOML cannot clear (it has no null), as a dropped category's multiplier once was."""
    defaults = {f.name: f.default for f in dataclasses.fields(HouseRules)}
    return {name: defaults[name] for name, (_, has) in _option_needs(values).items() if not has and name not in given}


def _changed_name(base: HouseRules, values: Mapping[str, object]) -> str:
    """The name of rules left unnamed over ``base``: the base's, with the options they change (a round under
    gnau with a 5% commission answered that it was played under "gnau"), or the base's alone if none."""
    changed = [f.name for f in dataclasses.fields(base) if f.name != "description" and values[f.name] != getattr(base, f.name)]
    return f"{base.name} with {', '.join(changed)}" if changed else base.name


def _ranked_or_given(table: Mapping[str, T], ranking: tuple[str, ...], given: Mapping[str, object]) -> dict[str, T]:
    """The entries of a table (multipliers, labels) a file gives, and its base's for categories its ranking
    still holds: a file that drops a category from its base's ranking drops that category's payout and
    words with it, rather than being refused over an entry it never wrote.
    """
    return {key: entry for key, entry in table.items() if key in given or key.split(":", 1)[0] in ranking}


def _check_label(key: str, text: str, valued: bool) -> None:
    """RulesError unless a label's only field is a plain {value}: another (``{points}``, a lone brace)
    failed each time a hand was labelled, a traceback; unless its category's hands have a value where it shows
    one (``five_small = "FS {value}"`` labelled each such hand 'FS None', a drill's choice too); or unless it
    holds words, at most ``MOST_LABEL_CHARACTERS`` long (a blank one labelled every such hand with nothing, and
    was an empty line among a drill's choices)."""
    if not text.strip():
        raise RulesError(f"option 'labels': {key!r} is blank: a hand so labelled would say nothing")
    if len(text) > MOST_LABEL_CHARACTERS:
        raise RulesError(f"option 'labels': {key!r} may be at most {MOST_LABEL_CHARACTERS} characters, not "
                         f"{len(text)}")
    try:
        fields = [(name, spec, conversion) for _, name, spec, conversion in string.Formatter().parse(text)
                  if name is not None]
    except ValueError:
        fields = [("", "", None)]
    if any(found != ("value", "", None) for found in fields):
        raise RulesError(f"option 'labels': {key!r} may hold no field but {{value}} (a brace is written twice), "
                         f"not {text!r}")
    if fields and not valued:
        raise RulesError(f"option 'labels': {key!r} has no value to show: {text!r} reads {text.format(value=None)!r}")


_PLAIN_TYPES: dict[object, str] = {bool: "true or false", str: "text", int: "a whole number"}  # as refusals name them


def _coerce(key: str, raw: object, hint: object) -> object:
    """Check (and lightly convert) one option's value against its declared type."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is Literal:
        if raw not in args:
            raise RulesError(f"option {key!r} must be one of {', '.join(map(repr, args))}, not {written(raw)}")
        return raw
    if origin in (types.UnionType, typing.Union):
        if raw is None and type(None) in args:
            return None
        return _coerce(key, raw, next(a for a in args if a is not type(None)))
    if hint in _PLAIN_TYPES:
        if type(raw) is not hint:
            raise RulesError(f"option {key!r} must be {_PLAIN_TYPES[hint]}, not {written(raw)}")
        return raw
    if hint is Decimal:
        if isinstance(raw, bool) or not isinstance(raw, (int, float, str, Decimal)):
            raise RulesError(f"option {key!r} must be a number, not {written(raw)}")
        if isinstance(raw, str):  # its text, read as every amount is
            try:
                return amount_from_text(raw)
            except EngineError as error:
                raise RulesError(f"option {key!r}: {error}") from None
        value = Decimal(str(raw))
        # NaN, which JSON and TOML both write, once reached the range checks and raised InvalidOperation there
        if not value.is_finite():  # "must be a number, not nan" read oddly where TOML calls nan a float
            raise RulesError(f"option {key!r} must be a finite number, not {written(raw)}")
        return value
    if origin is tuple:
        if not isinstance(raw, (list, tuple)) or not all(isinstance(x, str) for x in raw):
            raise RulesError(f"option {key!r} must be a list of names, not {written(raw)}")
        return tuple(raw)
    if origin is Mapping:
        value_type = args[1]
        if not isinstance(raw, Mapping) or not all(
            isinstance(k, str) and type(v) is value_type for k, v in raw.items()
        ):
            kind = "whole numbers" if value_type is int else "text"
            raise RulesError(f"option {key!r} must be a table of names to {kind}, not {written(raw)}")
        return dict(raw)
    raise RulesError(f"option {key!r} has a type the engine cannot read")  # pragma: no cover
