"""A photo's reading turned into hands, best oxen and a settlement: vision in, engine out."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from oxeye.engine import EngineError, HouseRules, Participant, evaluate, settle
from oxeye.engine.amounts import read_amount
from oxeye.engine.settlement import bank_passes, check_stake
from oxeye.service.engine_json import evaluation_json, settlement_json
from oxeye.service.errors import ServiceError
from oxeye.service.exact_json import exact_loads
from oxeye.service.rules_files import presets_playing_with
from oxeye.vision.annotate import draw
from oxeye.vision.classes import KIND_OF_PLURAL
from oxeye.vision.cli import counted
from oxeye.vision.reading import UNSURE_HAND, Reading

if TYPE_CHECKING:
    from oxeye.vision.detector import Detector

JPEG_SIDE = 65_500  # OpenCV writes no JPEG wider or taller than this
OTHER_GAME_SURE = 3  # items of the other kind read surely that show a photo of the other game, not a rug's weave


def parse_stakes(text: str, banker: int) -> dict[int, Decimal]:
    """Stakes sent as JSON text, hand index to a positive amount, like ``{"1": 10}``; none on the banker's
    hand, which stakes nothing (such a bet, meant for a player, was dropped and the player settled at 1).
    A hand is named once, as its index is written ("01" or " 1" was hand 1, and of two the last won), and
    an amount is a number or its text (true was a stake of 1, and [0, [5], 0] one of 5, read as Decimal's tuple)."""
    try:
        pairs = exact_loads(text, object_pairs_hook=tuple)  # arrays stay lists
        if not isinstance(pairs, tuple):
            raise TypeError(pairs)
        stakes: dict[int, Decimal] = {}
        for key, amount in pairs:
            number = isinstance(amount, (int, Decimal, str)) and not isinstance(amount, bool)
            if not re.fullmatch(r"0|[1-9][0-9]*", key) or not number or int(key) in stakes:
                raise ValueError(key)
            stakes[int(key)] = read_amount(amount)
    except EngineError as error:  # an amount's text
        raise ServiceError(f"stakes: {error}") from None
    except (json.JSONDecodeError, ValueError, TypeError):
        raise ServiceError(f'stakes must be a JSON object naming each hand once by its index, to an amount, '
                           f'like {{"1": 10}}, not {text!r}') from None
    bad = {k: str(v) for k, v in stakes.items() if v <= 0}
    if bad:
        raise ServiceError(f"stakes must be positive amounts: {bad}")
    if banker in stakes:
        raise ServiceError(f"stakes name the banker's hand {banker}: the banker stakes nothing (banker says which banks)")
    for index, stake in stakes.items():  # refused now, not as every frame's settlement problem
        check_stake(f"hand {index}", stake)
    return stakes


def table_kinds(rules: HouseRules) -> tuple[str]:
    """The one item kind a table under ``rules`` holds, in vision's spelling ("card" or "tile"): told
    it, the detector never reports the other kind (a rug's weave read as dominoes at a card table)."""
    return (KIND_OF_PLURAL[rules.items],)


def read_for_table(reader: Detector, pixels: np.ndarray, rules: HouseRules) -> tuple[Reading, int]:
    """The photo read for the kind of item ``rules`` play with, and, where none is seen, how many items of the other
    kind it holds, read surely: a photo of dominoes sent under the default rules (gnau) was answered that nothing
    was seen, and no more."""
    reading = reader.read(pixels, kinds=table_kinds(rules))
    if reading.items:
        return reading, 0
    other = KIND_OF_PLURAL[_other_items(rules)]
    return reading, sum(item.flag is None for item in reader.read(pixels, kinds=(other,)).items)


def _other_items(rules: HouseRules) -> str:
    """The items of the game ``rules`` do not play: "tiles" for a card game, "cards" for a domino game."""
    return next(items for items in KIND_OF_PLURAL if items != rules.items)


def score_photo(reading: Reading, rules: HouseRules, banker: int, stakes: dict[int, Decimal],
                other_game: int = 0) -> dict[str, Any]:
    """Every complete hand read under ``rules``, and the round settled against hand ``banker`` when it can be; where
    the photo shows ``other_game`` items of the other kind read surely, and none of this kind, the settlement's
    problem says to choose rules played with them (``read_for_table`` counts them only where none of this kind is seen)."""
    hands = []
    for hand in reading.hands:
        entry: dict[str, Any] = {**hand.to_json(), "reading": None, "problem": None}
        doubtful = [reading.items[i].code + (" (perhaps another hand's)" if reading.items[i].flag == UNSURE_HAND else "")
                    for i in hand.items if reading.items[i].flag]
        if not hand.complete:
            entry["problem"] = f"{counted(len(hand.codes), 'item')} seen; a hand has 5"
        elif doubtful:
            entry["problem"] = f"not sure of {', '.join(doubtful)}: check them by eye"
        else:
            try:
                entry["reading"] = evaluation_json(evaluate(hand.codes, rules))
            except EngineError as error:
                entry["problem"] = str(error)
        hands.append(entry)
    settlement = _settlement(reading, hands, rules, banker, stakes)
    if other_game >= OTHER_GAME_SURE:
        other = _other_items(rules)
        settlement["problem"] = (f"no {rules.items} were seen, but {other_game} {other} were: these rules play with "
                                 f"{rules.items}; send the photo with rules for {other} "
                                 f"({', '.join(presets_playing_with(other))}, or a table of options)")
    return {**reading.to_json(), "hands": hands, "settlement": settlement}


def _settlement(reading: Reading, hands: list[dict[str, Any]], rules: HouseRules, banker: int,
                stakes: dict[int, Decimal]) -> dict[str, Any]:
    """The round against the banker's hand, or why it cannot be settled from this photo."""
    read = [h for h in hands if h["reading"] is not None]
    if not any(h["index"] == banker for h in read):
        return {"problem": f"the banker's hand {banker} was not read", "result": None}
    if len(read) < 2:
        return {"problem": "no player's hand was read", "result": None}
    unknown = sorted(set(stakes) - {h["index"] for h in read})
    if unknown:
        return {"problem": f"stakes name hands that were not read: {unknown}", "result": None}
    seats = {h["index"]: Participant(f"hand {h['index']}", h["codes"], stakes.get(h["index"], Decimal(1)))
             for h in read}
    players = [seats[i] for i in sorted(seats) if i != banker]
    try:
        settlement = settle(seats[banker], players, rules)
        result = settlement_json(settlement)
    except (EngineError, ServiceError) as error:  # e.g. one card read twice with one deck; a stake too large
        return {"problem": str(error), "result": None}
    if bank_passes(settlement.banker_evaluation, rules):
        # hands are numbered as they lie in the photo (top to bottom, left to right), not around the table:
        # who sits on the banker's right, to take the bank, is not seen (the lowest-numbered hand was named)
        result["next_banker"] = None
    return {"problem": None, "result": result}


def annotated_jpeg(image: np.ndarray, reading: Reading, scored: dict[str, Any], held: Sequence[bool] = ()) -> bytes:
    """The photo with boxes and codes, and under each hand its ox label and its win or loss; a live frame's
    items ``held`` in view (``Steady.held``) marked so."""
    result = (scored["settlement"] or {}).get("result") or {}
    # in full, as the JSON writes it: formatted to six digits ("g"), 37037.01 lost its cents
    outcomes = {p["name"]: f"{p['outcome']} {p['delta']:+}" for p in result.get("players", [])}
    notes: dict[int, str] = {}
    for hand in scored["hands"]:
        words = hand["reading"]["label"] if hand["reading"] else hand["problem"]
        seat = outcomes.get(f"hand {hand['index']}", "banker" if result and hand["reading"] else "")
        notes[hand["index"]] = f"{words}  {seat}".strip()
    canvas = _fit_jpeg(draw(image, reading, notes, held))
    ok, jpeg = cv2.imencode(".jpg", canvas, [cv2.IMWRITE_JPEG_QUALITY, 90])
    if not ok:
        raise ServiceError("could not encode the annotated photo", 500)
    return jpeg.tobytes()


def _fit_jpeg(canvas: np.ndarray) -> np.ndarray:
    """``canvas`` shrunk to at most ``JPEG_SIDE`` pixels a side: a panorama wider than a JPEG holds,
    accepted as a photo, had no annotated JPEG (a 500)."""
    height, width = canvas.shape[:2]
    scale = JPEG_SIDE / max(height, width)
    if scale >= 1:
        return canvas
    return cv2.resize(canvas, (max(1, int(width * scale)), max(1, int(height * scale))), interpolation=cv2.INTER_AREA)
