"""The engine's results as plain JSON-ready data: the contract of `oxeye hand/settle --json`."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from oxeye.engine.ox import Alternative, Counted, Evaluation
from oxeye.engine.settlement import AMOUNT_LIMIT, PersonResult, Settlement, amount_text
from oxeye.service.errors import ServiceError


def number(value: Decimal | int) -> int | float:
    """A money amount as a JSON number: whole amounts as integers. An amount of 10^13 or more is
    refused: a reader's float would lose its cents, and the service's float past 1.8e308 all of it."""
    value = Decimal(value)
    if abs(value) >= AMOUNT_LIMIT:
        raise ServiceError(f"an amount of {amount_text(value)} is too large to settle to the cent (under 1e13): stake less")
    return json_number(value)


def json_number(value: Decimal) -> int | float:
    """An amount as a JSON number, whole ones as integers (a float wrote 70 as 70.0), however large: a
    balance stored before balances were held under 10^13 is still shown, as near as a float comes."""
    return int(value) if value == value.to_integral_value() else float(value)


def _counted(items: tuple[Counted, ...]) -> list[dict[str, Any]]:
    return [{"code": c.item.code, "as": c.as_value} for c in items]


def alternative_json(alt: Alternative) -> dict[str, Any]:
    """One reading of a hand."""
    return {
        "category": alt.category,
        "value": alt.value,
        "label": alt.label,
        "strength": list(alt.strength),
        "ox": _counted(alt.ox),
        "power": _counted(alt.power),
        "explanation": alt.explanation,
    }


def evaluation_json(evaluation: Evaluation) -> dict[str, Any]:
    """A hand's best reading with its alternatives, strongest first (the first is the best)."""
    best = alternative_json(evaluation.best)
    return {
        "cards": [item.code for item in evaluation.items],
        "rules": evaluation.rules.name,
        **{key: best[key] for key in ("category", "value", "label", "strength")},
        "multiplier": evaluation.multiplier,
        "ox": best["ox"],
        "power": best["power"],
        "explanation": best["explanation"],
        "alternatives": [alternative_json(alt) for alt in evaluation.alternatives],
    }


def _person_json(result: PersonResult) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": result.name,
        "outcome": result.outcome,
        "delta": number(result.delta),
        "stake": number(result.stake),
        "units": result.units,
        "commission": number(result.commission),
    }
    if result.evaluation is not None:
        ev = result.evaluation
        data.update(cards=[i.code for i in ev.items], category=ev.category, value=ev.value, label=ev.label)
    if result.backs is not None:
        data["backs"] = result.backs
    if result.declare_worth_it is not None:
        data.update(declare_worth_it=result.declare_worth_it, units_if_not_declared=result.units_if_not_declared)
    return data


def settlement_json(settlement: Settlement) -> dict[str, Any]:
    """A settled round: per person the outcome and delta, the banker's total, and who banks next."""
    bank = settlement.banker_evaluation
    return {
        "rules": settlement.rules.name,
        "banker": {
            "name": settlement.banker,
            "cards": [i.code for i in bank.items],
            "category": bank.category,
            "value": bank.value,
            "label": bank.label,
            "delta": number(settlement.banker_delta),
            "commission": number(settlement.banker_commission),
        },
        "players": [_person_json(r) for r in settlement.players],
        "onlookers": [_person_json(r) for r in settlement.onlookers],
        "banker_delta": number(settlement.banker_delta),
        "house": number(settlement.house),
        "next_banker": settlement.next_banker,
    }
