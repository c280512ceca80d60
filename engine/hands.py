"""Items (a card or a tile), reading hands of them, and the deck-size check for repeats."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from oxeye.engine.cards import Card
from oxeye.engine.errors import HandError, ParseError
from oxeye.engine.tiles import Tile

Item = Card | Tile
HAND_SIZE = 5


def parse_item(text: str) -> Item:
    """Read a card code (``10H``) or a tile code (``4-2``, ``[2:4]``)."""
    if any(mark in text for mark in "-:[]|/"):
        return Tile.parse(text)
    if not isinstance(text, str):
        raise ParseError(f"expected a card or tile code, got {text!r}")
    return Card.parse(text)


def kind_of(item: Item) -> str:
    """'cards' or 'tiles': what a rules object calls the items a game is played with."""
    return "cards" if isinstance(item, Card) else "tiles"


def parse_hand(codes: str | Iterable[str] | Iterable[Item], kind: str | None = None) -> tuple[Item, ...]:
    """Read five codes (a list, or one string split on spaces or commas) into items of one kind."""
    if isinstance(codes, str):
        codes = codes.replace(",", " ").split()
    items = tuple(code if isinstance(code, (Card, Tile)) else _parse_for(str(code), kind) for code in codes)
    if len(items) != HAND_SIZE:
        raise HandError(f"a hand has {HAND_SIZE} items, got {len(items)}")
    kinds = {kind_of(item) for item in items}
    if len(kinds) > 1:
        raise HandError("a hand mixes cards and tiles")
    if kind is not None and kinds != {kind}:
        raise HandError(f"these rules are played with {kind}, but the hand holds {kinds.pop()}")
    return items


def _parse_for(text: str, kind: str | None) -> Item:
    """An item read as ``parse_item`` reads it; a code that is neither is refused in the words of the
    rules' ``kind``: a domino table's '66' was told of card ranks and suits, a card table's '10-S' of pips."""
    try:
        return parse_item(text)
    except ParseError:
        if kind is None:
            raise
        return Card.parse(text) if kind == "cards" else Tile.parse(text)


def check_repeats(items: Sequence[Item], decks: int, holders: Sequence[str] = ()) -> None:
    """Raise HandError if any item appears more often than ``decks`` decks (or tile sets) hold it; ``holders``,
    whose hand each item is in, are named: at a table of six, "8D appears 2 times" left the dealer to find where."""
    for item, count in Counter(items).items():
        allowed = decks * (item.copies_per_set if isinstance(item, Tile) else 1)
        if count > allowed:
            unit = "tile set" if isinstance(item, Tile) else "deck"
            raise HandError(f"{item.code} appears {count} times{_held_by(item, items, holders)}, but the rules allow "
                            f"{decks} {unit}{'s, which hold' if decks > 1 else ', which holds'} only {allowed}")


def _held_by(item: Item, items: Sequence[Item], holders: Sequence[str]) -> str:
    """", in ann's and cy's hands": whose hands hold ``item`` (nothing where no holders are known)."""
    names = [f"{name}'s" for name in dict.fromkeys(h for i, h in zip(items, holders) if i == item)]
    if not names:
        return ""
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return f", in {listed} hand{'s' if len(names) > 1 else ''}"
