"""Subcommands over the rules engine: hand, settle, stats, rules."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from oxeye.engine import EngineError, HouseRules, Participant, evaluate, settle
from oxeye.engine.amounts import amount_from_text
from oxeye.engine.settlement import Onlooker
from oxeye.engine.stats import frequencies
from oxeye.service.engine_json import evaluation_json, json_number, settlement_json
from oxeye.service.errors import refuse_unknown_or_repeated
from oxeye.service.exact_json import exact_loads
from oxeye.service.names import plain_name
from oxeye.service.rules_files import load_rules, preset_names, preset_text, rules_from_mapping


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``hand``, ``settle``, ``stats`` and ``rules``."""
    rules_help = f"a preset ({', '.join(preset_names())}) or a .toml/.json house-rules file"

    hand = subparsers.add_parser("hand", help="read one five-card or five-tile hand: its best ox and alternatives")
    hand.add_argument("--rules", required=True, help=rules_help)
    hand.add_argument("codes", nargs="+", metavar="CODE", help="five codes: cards like AS 10H QD, or tiles like 6-6 4-2; one quoted argument, spaced or comma-separated, is read too")
    hand.add_argument("--json", action="store_true", help="print one JSON object")
    hand.set_defaults(handler=_hand)

    round_ = subparsers.add_parser("settle", help="settle a round read as JSON from standard input")
    round_.add_argument("--json", action="store_true", help="print one JSON object")
    round_.set_defaults(handler=_settle)

    stats = subparsers.add_parser("stats", help="exact frequency of every category over all hands")
    stats.add_argument("--rules", required=True, help=rules_help)
    stats.add_argument("--json", action="store_true", help="print JSON")
    stats.set_defaults(handler=_stats)

    rules = subparsers.add_parser("rules", help="list the presets, or print one to copy and edit")
    rules.add_argument("preset", nargs="?", help="the preset to print")
    rules.set_defaults(handler=_rules)


def _dump(data: object) -> None:
    print(json.dumps(data, ensure_ascii=False))


def _hand(args: argparse.Namespace) -> int:
    # "AS 2S 3S 4S 5S" quoted as one argument, or "AS,2S,...", reads as five codes too.
    codes = [code for argument in args.codes for code in argument.replace(",", " ").split()]
    evaluation = evaluate(codes, load_rules(args.rules))
    if args.json:
        _dump(evaluation_json(evaluation))
        return 0
    pays = f", pays {evaluation.multiplier}x" if evaluation.multiplier is not None else ""
    print(f"{' '.join(i.code for i in evaluation.items)}: {evaluation.label}{pays}  [{evaluation.rules.name}]")
    for n, alt in enumerate(evaluation.alternatives):
        print(f"  {'best' if n == 0 else 'also'}: {alt.explanation}")
    return 0


def _settle(args: argparse.Namespace) -> int:
    if sys.stdin is None:  # started with standard input closed (<&-): an AttributeError's traceback
        raise ValueError("standard input is closed: send the round on it as JSON")
    try:
        data = exact_loads(sys.stdin.read())
    except json.JSONDecodeError as error:
        raise ValueError(f"the round is not valid JSON: {error}") from None
    rules, banker, players = read_round(data)
    settlement = settle(banker, players, rules)
    data = settlement_json(settlement)  # refuses an amount too large to settle to the cent, printed either way
    if args.json:
        _dump(data)
        return 0
    bank = settlement.banker_evaluation
    # amounts as --json writes them: a Decimal's own text printed a stake of 1E2's win as +7E+2, and 3.50 for 3.5
    print(f"banker {settlement.banker}: {bank.label}, {json_number(settlement.banker_delta):+}")
    for result in settlement.results:
        hand = f"{result.evaluation.label}, " if result.evaluation else f"with {result.backs}, "
        print(f"  {result.name}: {hand}{result.outcome} {json_number(result.delta):+}")
    print(f"next banker: {settlement.next_banker}")
    return 0


def read_round(data: Any) -> tuple[HouseRules, Participant, list[Participant]]:
    """A round from JSON data: ``{"rules", "banker": {"name", "hand"}, "players": [{"name", "hand", "stake"}]}``."""
    if not isinstance(data, Mapping):
        raise ValueError("the round must be a JSON object with rules, banker and players")
    missing = [key for key in ("rules", "banker", "players") if key not in data]
    if missing:
        raise ValueError(f"the round lacks {', '.join(missing)}")
    refuse_unknown_or_repeated(data, ("rules", "banker", "players"), "key of the round")
    rules = load_rules(data["rules"]) if isinstance(data["rules"], str) else rules_from_mapping(data["rules"])
    if not isinstance(data["players"], list):
        raise ValueError("'players' must be a list")
    banker = _participant(data["banker"], "banker", stake_needed=False)
    players = [_participant(p, f"players[{i}]", stake_needed=True) for i, p in enumerate(data["players"])]
    return rules, banker, players


def _participant(data: Any, where: str, stake_needed: bool) -> Participant:
    if not isinstance(data, Mapping) or "name" not in data or "hand" not in data:
        raise ValueError(f"{where} must be an object with name and hand")
    if stake_needed and "stake" not in data:
        raise ValueError(f"{where} ({data['name']}) has no stake")
    known = ("name", "hand", "stake", "onlookers") if stake_needed else ("name", "hand")
    refuse_unknown_or_repeated(data, known, f"key of {where}")
    hand = data["hand"]
    if not isinstance(hand, (str, list)) or (isinstance(hand, list) and not all(isinstance(c, str) for c in hand)):
        raise ValueError(f"{where} ({data['name']}): hand must be a list of codes or one string of codes")
    onlookers = data.get("onlookers", [])
    if not isinstance(onlookers, list) or not all(isinstance(o, Mapping) and {"name", "stake"} == o.keys()
                                                  for o in onlookers):
        raise ValueError(f"{where} ({data['name']}): onlookers must be a list of objects with name and stake")
    name = _name(data["name"], where)
    return Participant(name, hand, _amount(data.get("stake", Decimal(0)), name),
                       tuple(_onlooker(o, f"{where}'s onlookers") for o in onlookers))


def _onlooker(data: Mapping[str, Any], where: str) -> Onlooker:
    """An onlooker's bet, its name and stake read as a seat's are."""
    name = _name(data["name"], where)
    return Onlooker(name, _amount(data["stake"], name))


def _name(name: Any, where: str) -> str:
    """A name read as the service reads it, refused as it refuses it: "Ann" and "Ann " were two players, both
    shown "Ann", and a line break in one split the printed lines."""
    try:
        return plain_name(str(name))
    except ValueError as error:
        raise ValueError(f"{where}: {error}") from None


def _amount(value: Any, name: str) -> Any:
    """A stake written as its text ("10") read as that number, as /v1/settle reads it (by ``amount_from_text``);
    anything else is left for the engine to judge, which refuses all but a positive number."""
    if not isinstance(value, str):
        return value
    try:
        return amount_from_text(value)
    except EngineError as error:
        raise EngineError(f"{name}'s stake: {error}") from None


def _stats(args: argparse.Namespace) -> int:
    rules = load_rules(args.rules)
    rows = frequencies(rules)
    if args.json:
        _dump({"rules": rules.name, "hands": sum(r.hands for r in rows), "categories": [
            {"category": r.category, "value": r.value, "label": r.label, "hands": r.hands, "share": r.share}
            for r in rows]})
        return 0
    total = sum(r.hands for r in rows)
    print(f"{rules.name}: {total:,} hands")
    for r in rows:
        print(f"  {r.label:<28} {r.hands:>10,}  {100 * r.share:8.4f}%")
    return 0


def _rules(args: argparse.Namespace) -> int:
    if args.preset is None:
        for name in preset_names():
            print(f"{name}: {load_rules(name).description}")
    else:
        print(preset_text(args.preset), end="")
    return 0
