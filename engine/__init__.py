"""The rules engine: cards and tiles, house rules as data, best ox, settlement, statistics.

Standard library only and free of I/O, so that it can be checked exhaustively and used anywhere.
"""

from oxeye.engine.cards import Card
from oxeye.engine.errors import EngineError, HandError, ParseError, RulesError
from oxeye.engine.hands import Item, parse_hand, parse_item
from oxeye.engine.ox import Alternative, Counted, Evaluation, evaluate
from oxeye.engine.rules import HouseRules
from oxeye.engine.settlement import Participant, PersonResult, Settlement, settle
from oxeye.engine.tiles import Tile

__all__ = [
    "Alternative",
    "Card",
    "Counted",
    "EngineError",
    "Evaluation",
    "HandError",
    "HouseRules",
    "Item",
    "ParseError",
    "Participant",
    "PersonResult",
    "RulesError",
    "Settlement",
    "Tile",
    "evaluate",
    "parse_hand",
    "parse_item",
    "settle",
]
