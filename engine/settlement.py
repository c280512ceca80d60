"""Settling a round: every player (and onlookers beside them) against the banker, and who banks next."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, Decimal, localcontext
from typing import Literal

from oxeye.engine.errors import EngineError, HandError, written
from oxeye.engine.hands import Item, check_repeats, parse_hand
from oxeye.engine.ox import Evaluation, evaluate
from oxeye.engine.rules import HouseRules

Outcome = Literal["win", "lose", "push"]
AMOUNT_LIMIT = Decimal(10) ** 13  # a float, as most JSON readers hold a number, keeps cents up to 2**53 / 100
CENT = Decimal("0.01")  # the finest stake: amounts are kept, and written out, to the cent
FULL_DIGITS = 30  # an amount written in full has no more digits either side of its point


def amount_text(amount: Decimal | int) -> str:
    """An amount as an error quotes it: in full with thousands separators (-69,999,999,999,999.93, where
    -6.999999999999993e+13 was written), unless that is absurdly long (9e999999 would be a million digits)."""
    amount = Decimal(amount)
    exponent = amount.as_tuple().exponent
    if isinstance(exponent, int) and amount.adjusted() < FULL_DIGITS and exponent > -FULL_DIGITS:
        return f"{amount:,f}"
    return f"{amount:e}"


@dataclass(frozen=True)
class Onlooker:
    """Someone staking alongside a player: wins or loses with that player's hand."""

    name: str
    stake: Decimal


@dataclass(frozen=True)
class Participant:
    """A seat at the table. The banker's stake is unused; players are listed from the banker's right."""

    name: str
    hand: tuple[Item, ...] | str | Sequence[str]
    stake: Decimal = Decimal(0)
    onlookers: tuple[Onlooker, ...] = ()


@dataclass(frozen=True)
class PersonResult:
    """What one player or onlooker gets from the round, from their own side (positive: they win)."""

    name: str
    role: Literal["player", "onlooker"]
    backs: str | None  # for an onlooker, the player staked on
    stake: Decimal
    outcome: Outcome
    units: int  # stakes won (negative: paid) before commission
    delta: Decimal  # after commission
    commission: Decimal
    evaluation: Evaluation | None  # the player's hand (None for onlookers)
    declare_worth_it: bool | None = None  # point-difference rules: is declaring the bull at least as good?
    units_if_not_declared: int | None = None


@dataclass(frozen=True)
class Settlement:
    """Everyone's result for one round; before commission it sums to zero."""

    rules: HouseRules
    banker: str
    banker_evaluation: Evaluation
    results: tuple[PersonResult, ...] = field(default_factory=tuple)
    banker_delta: Decimal = Decimal(0)
    banker_commission: Decimal = Decimal(0)
    next_banker: str = ""

    @property
    def players(self) -> tuple[PersonResult, ...]:
        return tuple(r for r in self.results if r.role == "player")

    @property
    def onlookers(self) -> tuple[PersonResult, ...]:
        return tuple(r for r in self.results if r.role == "onlooker")

    @property
    def house(self) -> Decimal:
        """What the house takes in commission."""
        return self.banker_commission + sum((r.commission for r in self.results), Decimal(0))


def settle(banker: Participant, players: Sequence[Participant], rules: HouseRules) -> Settlement:
    """Settle a round under ``rules``; raise HandError for bad hands, stakes or names."""
    if not players:
        raise HandError("a round needs at least one player besides the banker")
    seats = (banker, *players)
    _check_names([seat.name for seat in seats] + [o.name for seat in players for o in seat.onlookers])
    hands = [_read_hand(seat, rules) for seat in seats]
    check_repeats([item for hand in hands for item in hand], rules.decks,
                  [seat.name for seat, hand in zip(seats, hands) for _ in hand])
    bank = evaluate(hands[0], rules)
    results: list[PersonResult] = []
    for seat, hand in zip(players, hands[1:]):
        check_stake(seat.name, seat.stake)
        player = evaluate(hand, rules)
        outcome, units = _units(player, bank, rules)
        advice = _declare_advice(player, bank, rules)
        results.append(_result(seat.name, "player", None, seat.stake, outcome, units, player, rules, *advice))
        for onlooker in seat.onlookers:
            check_stake(onlooker.name, onlooker.stake)
            results.append(_result(onlooker.name, "onlooker", seat.name, onlooker.stake, outcome, units, None, rules))
    gross = -sum((r.stake * r.units for r in results), Decimal(0))
    banker_commission = _commission(gross, rules)
    return Settlement(rules, banker.name, bank, tuple(results), gross - banker_commission, banker_commission,
                      players[0].name if bank_passes(bank, rules) else banker.name)


def compare(player: Evaluation, bank: Evaluation, rules: HouseRules) -> Outcome:
    """Who takes a player-against-banker showdown, ties resolved by the rules."""
    if player.strength != bank.strength:
        return "win" if player.strength > bank.strength else "lose"
    tie_rule = rules.no_ox_ties if not player.has_ox and rules.no_ox_ties != "as_ties" else rules.ties
    return "lose" if tie_rule == "banker" else "push"


def _units(player: Evaluation, bank: Evaluation, rules: HouseRules) -> tuple[Outcome, int]:
    """The outcome and the stakes the player wins (negative: pays)."""
    if not player.has_ox and rules.no_ox_pays is not None:
        return "lose", -rules.no_ox_pays
    if rules.payment == "point_difference":
        units = player.best.points - bank.best.points
        return ("win" if units > 0 else "lose" if units < 0 else "push"), units
    outcome = compare(player, bank, rules)
    if outcome == "push":
        return outcome, 0
    winner = player if outcome == "win" else bank
    units = winner.multiplier or 0
    return outcome, units if outcome == "win" else -units


def _declare_advice(player: Evaluation, bank: Evaluation, rules: HouseRules) -> tuple[bool | None, int | None]:
    """Under point difference with a fixed no-ox payment, whether declaring the bull pays off."""
    if rules.payment != "point_difference" or rules.no_ox_pays is None or not player.has_ox:
        return None, None
    declared = player.best.points - bank.best.points
    return declared >= -rules.no_ox_pays, -rules.no_ox_pays


def _result(name: str, role: Literal["player", "onlooker"], backs: str | None, stake: Decimal, outcome: Outcome,
            units: int, evaluation: Evaluation | None, rules: HouseRules,
            declare_worth_it: bool | None = None, units_if_not_declared: int | None = None) -> PersonResult:
    gross = stake * units
    commission = _commission(gross, rules)
    return PersonResult(name, role, backs, stake, outcome, units, gross - commission, commission, evaluation,
                        declare_worth_it, units_if_not_declared)


def _commission(win: Decimal | int, rules: HouseRules) -> Decimal:
    """The house's share of a net win, in whole cents, rounded down (it takes no fraction of a cent): at 12.3% a
    win had amounts of eleven decimals, which a reader's float, and the JSON written, rounded. The share is
    worked out exactly first: at Python's 28 digits, 7 at a commission of 30 digits read 0.1399...9 as 0.14."""
    if win <= 0:
        return Decimal(0)
    with localcontext() as exact:
        exact.prec = len(Decimal(win).as_tuple().digits) + len(rules.commission.as_tuple().digits)
        share = win * rules.commission
    # to the cent where written finer, exact or not: a commission of 0.05 and forty zeros kept as many in each amount
    return share.quantize(CENT, rounding=ROUND_DOWN) if share.as_tuple().exponent < -2 else share


def _check_names(names: list[str]) -> None:
    """HandError unless everyone has a name of their own, the one named twice named: an onlooker named as a
    seat (ann backing bob while ann banks) was refused without saying who."""
    if not all(isinstance(name, str) and name.strip() for name in names):
        raise HandError("every banker, player and onlooker needs a name")
    twice = [name for name, count in Counter(names).items() if count > 1]
    if twice:
        raise HandError(f"{', '.join(twice)} {'is' if len(twice) == 1 else 'are'} named twice: every banker, player "
                        "and onlooker needs a distinct name")


def _read_hand(seat: Participant, rules: HouseRules) -> tuple[Item, ...]:
    """A seat's hand read, an error in it naming whose it is: at a table of six, "unknown card code 'XX'"
    alone left the dealer to find the hand with the typo."""
    try:
        return parse_hand(seat.hand, rules.items)
    except EngineError as error:
        raise type(error)(f"{seat.name}'s hand: {error}") from None


def check_stake(name: str, stake: object) -> None:
    """HandError unless ``stake`` is a positive amount under AMOUNT_LIMIT, in whole cents: a larger one is
    refused where the round is written out anyway, and one of 9e999999 overflowed the arithmetic (a traceback,
    a 500); a finer one (0.30000000000000001) would be written out rounded, as a float holds it."""
    valid = isinstance(stake, (int, Decimal)) and not isinstance(stake, bool)
    if not (valid and Decimal(stake).is_finite() and stake > 0):
        raise HandError(f"{name}'s stake must be a positive number, not {written(stake)}")
    if stake >= AMOUNT_LIMIT:
        raise HandError(f"{name}'s stake of {amount_text(stake)} is too large to settle to the cent "
                        f"(under 1e13): stake less")
    if stake % CENT:
        raise HandError(f"{name}'s stake of {stake} is finer than a cent: a stake has at most two decimal places")


def bank_passes(bank: Evaluation, rules: HouseRules) -> bool:
    """Whether the bank passes, to the player on the banker's right, after the banker held ``bank``."""
    return rules.bank_passes == "every_round" or (rules.bank_passes == "after_banker_ox" and bank.has_ox)
