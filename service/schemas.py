"""Typed request and response models of the HTTP API (they make the OpenAPI docs at /docs)."""

from __future__ import annotations

import re
from collections import Counter
from datetime import datetime
from decimal import Decimal
from typing import Annotated, Any, Literal, TypeVar

from fastapi import Path
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema
from pydantic_core import PydanticCustomError, PydanticKnownError

from oxeye.engine.amounts import AMOUNT_TEXT, amount_from_text, read_amount
from oxeye.service.db import PAYOUT_CHARS
from oxeye.service.names import NAME_CHARS, REORDERING, normal_name, plain_name
from oxeye.service.rules_files import preset_names


def _rules_shape(rules: object) -> object:
    """Rules that are neither a preset's name nor a table are refused in those words: pydantic's named the
    union's first member alone, 'rules.str: Input should be a valid string', as if a table could not be sent."""
    if not isinstance(rules, (str, dict)):
        raise PydanticCustomError("rules_type", "should be a preset's name or a table of options with an optional 'base'")
    return rules


def _hand_shape(hand: object) -> object:
    """A hand that is neither a list of codes nor one string of them is refused in those words: pydantic's
    named the union's first member, 'hand.list[str]: Input should be a valid list'."""
    if not (isinstance(hand, str) or isinstance(hand, list) and all(isinstance(code, str) for code in hand)):
        raise PydanticCustomError("hand_type", "should be five codes: a list of strings, or one string split on spaces")
    return hand


# The presets named in the schema: it took any string, where one no preset is named is refused (400).
RulesSpec = Annotated[str | dict[str, Any], BeforeValidator(_rules_shape),
                      WithJsonSchema({"anyOf": [{"type": "string", "enum": preset_names()}, {"type": "object"}]}),
                      Field(description="a preset name, or a table of options with an optional 'base' preset")]
Hand = Annotated[list[str] | str, BeforeValidator(_hand_shape),
                 Field(description="five codes: a list, or one string split on spaces", examples=[["3S", "6H", "8D", "4C", "8H"]])]


def _amount_if_text(stake: object) -> object:
    """A stake sent as text read by the one grammar every amount is read by: pydantic's Decimal took "1_000", " 5 "
    and "１２" as 1000, 5 and 12. A number is left to pydantic."""
    return amount_from_text(stake) if isinstance(stake, str) else stake


# Money as a JSON number, or its text as AMOUNT_TEXT has it (the schema took any string).
AMOUNT_AS_TEXT = {"type": "string", "pattern": f"^{AMOUNT_TEXT}$"}
Stake = Annotated[Decimal, BeforeValidator(_amount_if_text),
                  WithJsonSchema({"anyOf": [{"type": "number", "exclusiveMinimum": 0}, AMOUNT_AS_TEXT]}),
                  Field(gt=0, description="a positive amount: a number, or its text (10 or \"2.5\")", examples=[10])]


def _named_apart(named: object) -> object:
    """An object keyed by name (a round's hands, stakes, onlookers) that names one person twice, written two ways,
    is refused, as a key sent twice is: read as one, the last one's hand or stake silently won."""
    if isinstance(named, dict):
        twice = [name for name, count in Counter(map(normal_name, named)).items() if count > 1]
        if twice:
            raise PydanticCustomError("name_twice", "{names} named more than once (written two ways)",
                                      {"names": ", ".join(map(repr, twice))})
    return named


def _kept_length(name: str) -> str:
    """A name of at most NAME_CHARS characters as kept, in its normal form: measured as sent, 'a' * 100 with the space
    a phone's keyboard leaves after it was refused as too long, though it is kept as 100."""
    if len(name) > NAME_CHARS:
        raise PydanticKnownError("string_too_long", {"max_length": NAME_CHARS})
    return name


# Documented as checked, control characters by a pattern: the schema said any string, a NUL or a tab as good as a letter.
Name = Annotated[str, Field(min_length=1, json_schema_extra={
                                "pattern": rf"^[{REORDERING}]*[^\u0000-\u001f\u007f-\u009f\ufffd{REORDERING}]*[{REORDERING}]*$"},
                            description="a name one can see: not spaces or zero-width characters alone, no control "
                                        "character (a line break, a tab, a NUL) nor U+FFFD, no direction override, "
                                        "embedding or isolate but around it; kept in Unicode's NFC, without "
                                        "the spaces and zero-width characters around it, one space between its "
                                        f"words; at most {NAME_CHARS} characters so kept"),
                 AfterValidator(plain_name), AfterValidator(_kept_length)]
Value = TypeVar("Value")
# By name, each written as a Name is: a round's names, matched to the seats', were matched as typed.
ByName = Annotated[dict[Name, Value], BeforeValidator(_named_apart)]
# Money out as `oxeye settle --json` writes it: whole amounts as integers (a float field wrote 70 as 70.0).
Amount = Annotated[int | float, Field(description="whole amounts as integers", examples=[70, 69.825])]


def _whole_number_text(number: object) -> object:
    """A whole number sent as text (an id in a path, a page in a query, the banker's hand in a form) read only as
    ASCII digits, with a minus for the range check to refuse: pydantic read "1_0" as 10 and "+1" or " 1" as 1, so
    GET /v1/tables/1_0 answered table 10."""
    if isinstance(number, str) and number and not re.fullmatch(r"-?[0-9]+", number):
        raise PydanticCustomError("whole_number_text", "should be a whole number in digits, like 3, not '{text}'",
                                  {"text": number})
    return number


# Every whole number a path, a query or a form sends, as text.
DIGITS = BeforeValidator(_whole_number_text)
# A table's or drill's number in a path: the database's integers end at 2**63 - 1, where a larger one was a 500.
RowId = Annotated[int, Path(ge=1, le=2**63 - 1, description="its id, as created"), DIGITS]


class RequestModel(BaseModel):
    """A request's body: a field it does not know is refused, not ignored (a misspelt "onlookers"
    would settle the round without their bets)."""

    model_config = ConfigDict(extra="forbid")


class Problem(BaseModel):
    """An error, as data: what went wrong, in words fit to show a user."""

    error: str
    detail: list[dict[str, Any]] | None = None


# Answered by a route that changes the ledger where the database refuses the change: it was left undocumented.
UNWRITTEN: dict[int | str, dict[str, Any]] = {503: {
    "model": Problem, "description": "the ledger could not be written (read-only, a full disk): nothing was recorded"}}


class Counted(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    code: str
    as_: int = Field(alias="as", description="the ox points the item counted as")


class Reading(BaseModel):
    """One way to read a hand."""

    category: str
    value: str | None
    label: str
    strength: list[int] = Field(description="a stronger hand has a lexicographically larger list")
    ox: list[Counted]
    power: list[Counted]
    explanation: str


class HandReading(Reading):
    """A hand's best reading and every distinct alternative, strongest first."""

    cards: list[str]
    rules: str
    multiplier: int | None
    alternatives: list[Reading]


class HandRequest(RequestModel):
    rules: RulesSpec
    hand: Hand


class OnlookerIn(RequestModel):
    name: Name
    stake: Stake


class SeatIn(RequestModel):
    name: Name
    hand: Hand


class PlayerIn(SeatIn):
    stake: Stake
    onlookers: list[OnlookerIn] = []


class SettleRequest(RequestModel):
    """A round: the banker's hand and each player's hand and stake, players from the banker's right."""

    rules: RulesSpec
    banker: SeatIn
    players: list[PlayerIn] = Field(min_length=1)


class PersonOut(BaseModel):
    """A player (with the hand's cards and reading) or an onlooker (with whom they back); the Macau
    declaring advice only under its rules. A field that does not apply is left out, as the command line does."""

    name: str
    outcome: Literal["win", "lose", "push"]
    delta: Amount
    stake: Amount
    units: int
    commission: Amount
    cards: list[str] | None = None
    category: str | None = None
    value: str | None = None
    label: str | None = None
    backs: str | None = None
    declare_worth_it: bool | None = None
    units_if_not_declared: int | None = None


class BankerOut(BaseModel):
    name: str
    cards: list[str]
    category: str
    value: str | None
    label: str
    delta: Amount
    commission: Amount


class Settlement(BaseModel):
    """Everyone's result; before commission the deltas sum to zero."""

    rules: str
    banker: BankerOut
    players: list[PersonOut]
    onlookers: list[PersonOut]
    banker_delta: Amount
    house: Amount
    next_banker: str


class TableIn(RequestModel):
    """A new table: its rules, its seats in order around the table to the right, and the first banker."""

    name: Name
    rules: RulesSpec
    seats: list[Name] = Field(min_length=2)
    banker: Name


class TableChange(RequestModel):
    """A table's new seats (in order around the table to the right) or banker, or both; what is not sent stays."""

    seats: list[Name] | None = Field(default=None, min_length=2)
    banker: Name | None = None


class TableOut(BaseModel):
    id: int
    name: str
    rules: str | dict[str, Any]
    seats: list[str]
    banker: str
    rounds: int
    balances: dict[str, Amount] = Field(description="each person's total over all recorded rounds")


class RoundIn(RequestModel):
    """A round at a table: hands by seat name (the banker's included), stakes of the players who play."""

    hands: ByName[Hand]
    stakes: ByName[Stake]
    onlookers: ByName[list[OnlookerIn]] = Field(default={}, description="by the name of the player they back")


class RoundOut(BaseModel):
    number: int
    banker: str
    settlement: Settlement
    created: datetime


class Health(BaseModel):
    status: Literal["ok"]
    version: str
    database: str


def _reachable(trainee: str) -> str:
    """A trainee's record is at /v1/trainer/trainees/{name}, where "." and ".." are taken for the path's own."""
    if trainee in (".", ".."):
        raise PydanticCustomError("trainee_name", "cannot be '{name}': no URL reaches that record", {"name": trainee})
    return trainee


TraineeName = Annotated[Name, AfterValidator(_reachable)]


class DrillIn(RequestModel):
    """Ask for a new drill for a trainee."""

    trainee: TraineeName
    rules: RulesSpec = "gnau"


class DrillOut(BaseModel):
    """A dealt drill: look at the picture, then name the player's best ox and payout."""

    id: int
    trainee: str
    rules: str | dict[str, Any]
    stake: int
    image: str = Field(description="URL of the picture of both hands")
    choices: list[str] = Field(description="every label a hand can have under these rules, strongest first")
    question: str


def _payout(payout: object) -> Decimal:
    """A payout sent as a JSON number (read digit for digit: the answer's route is an ``ExactNumbersRoute``) or as
    its text, read as every amount is; at most as long as a drill keeps it, as Decimal writes it (PostgreSQL
    refused a longer one, a 500)."""
    if isinstance(payout, bool) or not isinstance(payout, (str, int, Decimal)):
        raise PydanticCustomError("payout_type", "should be a number of chips or its text, like -10 or \"30\"")
    given = read_amount(payout)
    if len(str(given)) > PAYOUT_CHARS:
        raise PydanticCustomError("payout_length", "has more digits than a drill keeps ({most} characters)",
                                  {"most": PAYOUT_CHARS})
    return given


class AnswerIn(RequestModel):
    label: str = Field(description="the player's best ox, one of the drill's choices")
    payout: Annotated[Decimal, BeforeValidator(_payout), WithJsonSchema({"anyOf": [{"type": "number"}, AMOUNT_AS_TEXT]}),
                      Field(description="what the player wins (negative: pays), in chips: a number or its text",
                            examples=[-10, "30"])]


class GradeOut(BaseModel):
    """How the answer fared, the right answers and why, and the time taken."""

    ox_correct: bool
    payout_correct: bool
    label: str
    payout: Amount
    payout_explanation: str = Field(description="who pays whom how many stakes, less the house's commission",
                                    examples=["the banker pays the player 2 × the stake of 10"])
    player_explanation: str
    banker_label: str
    banker_explanation: str
    seconds: float
    banker: str
    player: str


class HistoryOut(BaseModel):
    trainee: str
    drills: int
    correct: float = Field(description="share of drills with both answers right")
    median_seconds: float
    skipped: int = Field(description="drills dealt and left unanswered for a later one (not in drills)")
    recent: list[GradeOut]
