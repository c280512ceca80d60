"""Cards and tiles: parse and format round-trip for every item; aliases; clear errors."""

from __future__ import annotations

import pytest

from oxeye.engine import Card, ParseError, Tile, parse_hand, parse_item
from oxeye.engine.cards import full_deck
from oxeye.engine.hands import check_repeats
from oxeye.engine.errors import HandError
from oxeye.engine.tiles import chinese_set
from oxeye.vision.classes import CARD_CLASSES, CLASSES, TILE_CLASSES


@pytest.mark.parametrize("card", full_deck(), ids=str)
def test_every_card_round_trips(card: Card) -> None:
    assert Card.parse(card.code) == card
    assert Card.parse(card.code.lower()) == card
    assert parse_item(str(card)) == card


def test_card_aliases() -> None:
    assert Card.parse("TH") == Card.parse("10h") == Card(10, "H")
    assert Card.parse("A♠") == Card.parse("a♤") == Card(1, "S")
    assert Card.parse("Q♦").code == "QD"
    assert Card.parse(" 7♣ ").code == "7C"
    assert Card.parse("K♡").code == "KH"


@pytest.mark.parametrize("bad", ["", "1S", "11H", "AX", "A", "S", "10", "AS2", "ZZ", "0D", "JJ"])
def test_bad_card_codes(bad: str) -> None:
    with pytest.raises(ParseError, match="unknown card code"):
        Card.parse(bad)


def test_chinese_set() -> None:
    tiles = chinese_set()
    assert len(tiles) == 32 and len(set(tiles)) == 21
    assert sum(t.is_civil for t in tiles) == 22
    assert [t.code for t in tiles if not t.is_civil] == ["6-3", "5-4", "6-2", "5-3", "5-2", "4-3", "4-2", "4-1", "3-2", "2-1"]


@pytest.mark.parametrize("tile", sorted(set(chinese_set())), ids=str)
def test_every_tile_round_trips(tile: Tile) -> None:
    assert Tile.parse(tile.code) == tile
    flipped = f"{tile.low}:{tile.high}"
    assert Tile.parse(flipped) == Tile.parse(f"[{flipped}]") == parse_item(flipped) == tile


@pytest.mark.parametrize("bad", ["7-1", "0-0", "6-", "66", "[6:6", "6--6", "a-b", "6-6-6"])
def test_bad_tile_codes(bad: str) -> None:
    with pytest.raises(ParseError):
        parse_item(bad)


@pytest.mark.parametrize(("kind", "bad", "message"), [
    ("tiles", "66", "unknown tile code '66' .expected two halves"),  # was: unknown card code, expected rank A 2-10
    ("tiles", "6", "unknown tile code '6'"),
    ("cards", "10-S", "unknown card code '10-S' .expected rank"),  # was: unknown tile code, expected two halves
])
def test_a_code_that_is_neither_is_refused_in_the_words_of_the_rules_kind(kind: str, bad: str, message: str) -> None:
    good = "6-6 4-4 3-1 2-2" if kind == "tiles" else "4H 6D AS JC"
    with pytest.raises(ParseError, match=message):
        parse_hand(f"{good} {bad}", kind)


def test_hands() -> None:
    assert [i.code for i in parse_hand("AS, 10H qd 2c 3♥")] == ["AS", "10H", "QD", "2C", "3H"]
    with pytest.raises(HandError, match="5 items, got 4"):
        parse_hand("AS 2S 3S 4S")
    with pytest.raises(HandError, match="mixes"):
        parse_hand("AS 2S 3S 4S 6-6")
    with pytest.raises(HandError, match="played with tiles"):
        parse_hand("AS 2S 3S 4S 5S", "tiles")


def test_repeats_depend_on_decks() -> None:
    twice = parse_hand("AS AS 3S 4S 5S")
    with pytest.raises(HandError, match="AS appears 2 times"):
        check_repeats(twice, 1)
    check_repeats(twice, 2)
    civil_twice = parse_hand("6-6 6-6 5-5 4-4 1-1")
    check_repeats(civil_twice, 1)
    with pytest.raises(HandError, match="4-2 appears 2 times"):
        check_repeats(parse_hand("4-2 2:4 5-5 4-4 1-1"), 1)
    with pytest.raises(HandError, match="6-6 appears 3 times"):
        check_repeats(parse_hand("6-6 6-6 6-6 4-4 1-1"), 1)


def test_vision_class_list_is_the_engine_notation() -> None:
    assert set(CARD_CLASSES) == {c.code for c in full_deck()}
    assert list(TILE_CLASSES) == [t.code for t in dict.fromkeys(chinese_set())]
    assert len(CLASSES) == 73 == len(set(CLASSES))
