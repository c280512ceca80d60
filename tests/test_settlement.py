"""Settling rounds: ties, multipliers, onlookers, commission, several decks, the bank passing."""

from __future__ import annotations

from decimal import Decimal

import pytest

from oxeye.engine import HandError, Participant, evaluate, settle
from oxeye.engine.settlement import Onlooker
from oxeye.service.rules_files import rules_from_mapping


def _rules(base: str, **options):
    return rules_from_mapping({"base": base, **options})


def _play(rules, banker: str, *players: str, stake: int | Decimal = 10):
    seats = [Participant(f"p{i}", hand, Decimal(stake)) for i, hand in enumerate(players)]
    return settle(Participant("bank", banker), seats, rules)


def test_niuniu_ties_by_high_card_then_suit(niuniu) -> None:
    # Both Niu 5 (K + Q + J, then 9 + 6 = 15); the highest card decides: KS beats KH.
    result = _play(niuniu, "KH QD JC 9D 6C", "KS QC JD 9S 6S")
    assert [p.evaluation.label for p in result.players] == ["Niu 5 (牛5)"]
    assert result.banker_evaluation.label == "Niu 5 (牛5)"
    assert result.players[0].outcome == "win"
    assert _play(niuniu, "KS QC JD 9S 6S", "KH QD JC 9D 6C").players[0].outcome == "lose"


@pytest.mark.parametrize(("ties", "outcome"), [("push", "push"), ("banker", "lose")])
def test_niuniu_tie_options(ties: str, outcome: str) -> None:
    result = _play(_rules("niuniu", ties=ties), "KH QD JC 9D 6C", "KS QC JD 9S 6S")
    assert result.players[0].outcome == outcome


@pytest.mark.parametrize(("no_ox_ties", "outcome"), [("push", "push"), ("banker", "lose"), ("as_ties", "win")])
def test_no_ox_ties_decide_between_two_hands_without_an_ox(no_ox_ties: str, outcome: str) -> None:
    """`no_ox_ties` is 'the rule when both have no ox': under niuniu's high-card ties it was only
    consulted when the high cards tied too, so a player's JH beat the banker's 8S even with "banker".
    The strengths agree: equal lists tie, so two hands without an ox show equal ones unless `as_ties`."""
    result = _play(_rules("niuniu", no_ox_ties=no_ox_ties), "AS 2S 3S 4S 8S", "AH 2H 3H 4H JH")
    bank, player = result.banker_evaluation, result.players[0].evaluation
    assert [bank.has_ox, player.has_ox] == [False, False]
    assert result.players[0].outcome == outcome
    assert (bank.strength == player.strength) == (no_ox_ties != "as_ties")


def test_loser_pays_the_winners_multiplier(niuniu) -> None:
    result = _play(niuniu, "KH QD JC 9D 6C",  # Niu 5, x1
                   "KS QC JS 9S 10S",  # Niu 9, x2: wins 2 stakes
                   "AH 2H 3H AD 2D",  # Five Small, x8
                   "7S 8S 9H 4C 3S")  # 7+9+4 = 20, 8+3 = 11: Niu 1, loses the banker's x1
    assert [p.units for p in result.players] == [2, 8, -1]
    assert result.banker_delta == -90


def test_suited_ox_pays_double(gnau) -> None:
    doubled = _rules("gnau", suited_ox_pays_double=True)
    # Ox 10 + 4 + 6, power 8S + 5S (suited) = Single-Ox 3; the banker has No Ox.
    hand = "10C 4S 6D 8S 5S"
    assert evaluate(hand, doubled).multiplier == 2 and evaluate(hand, gnau).multiplier == 1
    assert _play(doubled, "10S 9H 8D 4C 4H", hand).players[0].units == 2


@pytest.mark.parametrize(("base", "banker"), [
    ("gnau", "10S 9H 8D 4C 4H"),  # multiplier payment: No Ox was shown "pays 1x"
    ("tau-ngau-pagat", "6-6 4-4 3-1 2-2 1-1"),  # even payment: it was shown 1
    ("tau-ngau-macau", "6-6 4-4 3-1 2-2 1-1"),  # point difference: it was shown null
])
def test_a_hand_with_no_ox_shows_the_stakes_no_ox_pays(base: str, banker: str) -> None:
    """Under `no_ox_pays` a hand with no ox pays those stakes whatever the banker holds: its multiplier says so."""
    rules = _rules(base, no_ox_pays=2)
    hand = "AS 2H 4D 8C 9S" if rules.items == "cards" else "6-6 6-5 6-4 5-5 1-1"
    player = evaluate(hand, rules)
    assert not player.has_ox and player.multiplier == 2
    assert _play(rules, banker, hand).players[0].units == -player.multiplier


def test_suited_reading_preferred_among_equals() -> None:
    doubled = _rules("gnau", suited_ox_pays_double=True)
    # Any Duke + 4 + 6 is an ox and leaves two ten-point cards, Single-Ox 0; only KS + QS is suited.
    reading = evaluate("KS QS JH 4D 6D", doubled)
    assert reading.label == "Single-Ox 0" and reading.best.suited


def test_onlookers_share_their_players_fate_and_commission_is_taken(gnau) -> None:
    rules = _rules("gnau", commission=0.05)
    banker = Participant("bank", "10S 9H 8D 4C 4H")  # No Ox
    player = Participant("ann", "10H 4D 6C 8C 8H", Decimal(10), (Onlooker("bob", Decimal(4)),))  # Double-Ox 8, x3
    loser = Participant("cy", "7S 7H 7D KC 5H", Decimal(20))  # Single-Ox 5 beats No Ox too
    result = settle(banker, [player, loser], rules)
    ann, bob = result.results[0], result.results[1]
    assert (ann.units, ann.delta, ann.commission) == (3, Decimal("28.50"), Decimal("1.50"))
    assert (bob.backs, bob.outcome, bob.delta) == ("ann", "win", Decimal("11.40"))
    assert result.banker_delta == -(30 + 12 + 20) and result.banker_commission == 0
    assert result.house == Decimal("1.50") + Decimal("0.60") + Decimal("1.00")


def test_commission_is_taken_in_whole_cents_rounded_down() -> None:
    """At a share of 12.3456789% a win of 864,197,523.07 paid 106,691,051.2599756... in commission: amounts of
    eleven decimals, which the JSON written (a float) rounded, so that a player's delta and commission no
    longer added up to the win. The house takes whole cents, no fraction of one."""
    rules = _rules("gnau", commission="0.123456789")
    result = settle(Participant("bank", "10S 9H 8D 4C 4H"), [Participant("ann", "KS QH JD KC QD", Decimal("123456789.01"))],
                    rules)  # Five Dukes, 7 stakes
    ann = result.players[0]
    assert (ann.commission, ann.delta, result.banker_delta) == (Decimal("106691051.25"), Decimal("757506471.82"),
                                                                Decimal("-864197523.07"))
    small = _play(_rules("gnau", commission=0.05), "10S 9H 8D 4C 4H", "7S 7H 7D KC 5H", stake=Decimal("0.19"))
    assert (small.players[0].commission, small.players[0].delta) == (0, Decimal("0.19"))  # 5% of 0.19 is 0.0095


def test_commission_is_worked_out_exactly_before_it_is_rounded_down() -> None:
    """A share of 30 digits, read digit for digit, was multiplied at Python's 28: 7 stakes of 1 at
    1.99999...% (31 digits) came to 0.14 exactly, and the house took 0.14 where the rule, rounded down, gives 0.13."""
    rules = _rules("gnau", commission="0.0199999999999999999999999999999")
    ann = _play(rules, "10S 9H 8D 4C 4H", "KS QH JD KC QD", stake=1).players[0]  # Five Dukes, 7 stakes
    assert (ann.commission, ann.delta) == (Decimal("0.13"), Decimal("6.87"))
    zeros = _play(_rules("gnau", commission="0.05" + "0" * 40), "10S 9H 8D 4C 4H", "KS QH JD KC QD", stake=1).players[0]
    assert (str(zeros.commission), str(zeros.delta)) == ("0.35", "6.65")  # kept to the cent, as a balance is stored


def test_several_decks_allow_repeats(gnau) -> None:
    one_deck_round = ("KS QS JS 10S 9S", "KS 2H 3H 4H 5H")
    with pytest.raises(HandError, match="KS appears 2 times"):
        _play(gnau, *one_deck_round)
    assert _play(_rules("gnau", decks=2), *one_deck_round).players[0].outcome in ("win", "lose", "push")


def test_bank_passing_options(gnau) -> None:
    hands = ("10S 9H 8D 4C 4H", "KS QH JD KC QD", "10H 4D 6C 8C 8H")
    assert _play(gnau, *hands).next_banker == "bank"
    assert _play(_rules("gnau", bank_passes="every_round"), *hands).next_banker == "p0"
    no_ox_banker = _rules("gnau", bank_passes="after_banker_ox")
    assert _play(no_ox_banker, *hands).next_banker == "bank"


@pytest.mark.parametrize(("players", "message"), [
    ([], "at least one player"),
    # who is named twice: an onlooker named as a seat (ann backing bob, ann banking) was not said
    ([Participant("bank", "2H 3H 4H 5H 7H", Decimal(1))], "^bank is named twice: every banker, player and onlooker needs a distinct name$"),
    ([Participant("ann", "2H 3H 4H 5H 7H", Decimal(1), (Onlooker("bank", Decimal(1)),))], "^bank is named twice"),
    ([Participant(" ", "2H 3H 4H 5H 7H", Decimal(1))], "^every banker, player and onlooker needs a name$"),
    ([Participant("ann", "2H 3H 4H 5H 7H", Decimal(0))], "stake must be a positive number"),
    ([Participant("ann", "2H 3H 4H 5H 7H", Decimal("NaN"))], "stake must be a positive number"),
    ([Participant("ann", "2H 3H 4H 5H 7H", -5)], "stake must be a positive number"),
    ([Participant("ann", "2H 3H 4H 5H 7H", Decimal("0.005"))], "ann's stake of 0.005 is finer than a cent"),
    # whose hand it is: at a table of six, "unknown card code" alone left the dealer to find the typo
    ([Participant("ann", "2H 3H 4H 5H", Decimal(1))], "^ann's hand: a hand has 5 items, got 4$"),
    ([Participant("ann", "2H 3H 4H 5H 7-7", Decimal(1))], "^ann's hand: unknown card code '7-7'"),  # a card table's words
    ([Participant("ann", "2H 3H 4H 5H KS", Decimal(1))], "^KS appears 2 times, in bank's and ann's hands, but"),
    ([Participant("ann", "2H 2H 4H 5H 6H", Decimal(1))], "^2H appears 2 times, in ann's hand, but"),
])
def test_bad_rounds(players, message: str, gnau) -> None:
    with pytest.raises(HandError if "code" not in message else ValueError, match=message):
        settle(Participant("bank", "KS QS JS 10S 9S"), players, gnau)
