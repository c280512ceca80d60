"""Every worked example in ../shared/rules, as a test. Where an example contradicts the stated
rules, the test follows the rules and says why.

The article's tables lost their card pictures: a "10" there stands for any ten-point card, so
distinct ten-point cards (10, J, Q, K) are used where a pair of equal ranks would change the hand.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from oxeye.engine import Participant, evaluate, settle
from oxeye.service.rules_files import load_rules


def _alternative_summary(hand: str, preset: str) -> list[tuple[str, list[tuple[str, int]]]]:
    return [(alt.label, sorted((c.item.code, c.as_value) for c in alt.ox))
            for alt in evaluate(hand, load_rules(preset)).alternatives]


def test_three_ways_to_form_an_ox_double_ox_8_first() -> None:
    """Gnau article, 'Ox formation alternatives': 3,6,8,4,8 has exactly three ways."""
    assert _alternative_summary("3S 6H 8D 4C 8H", "gnau") == [
        ("Double-Ox 8", [("3S", 3), ("4C", 4), ("6H", 3)]),  # 3 + 6 (counted as 3) + 4 = 10
        ("Single-Ox 9", [("4C", 4), ("8D", 8), ("8H", 8)]),  # 8 + 4 + 8 = 20, then 3 + 6
        ("Single-Ox 2", [("3S", 6), ("6H", 6), ("8D", 8)]),  # 3 (counted as 6) + 6 + 8 = 20
    ]
    # "strength is 3 + 6 = Single-Ox 9 (note this also could be 3+3 or 6+6 ... both of these
    # combinations give lower strength scores)": the 3 and the 6 keep their own values.
    single_9 = evaluate("3S 6H 8D 4C 8H", load_rules("gnau")).alternatives[1]
    assert sorted((c.item.code, c.as_value) for c in single_9.power) == [("3S", 3), ("6H", 6)]


# The article's "Increasing strength" table, in its order.
INCREASING = [
    ("10S 9H 8D 4C 4H", "No Ox"),
    ("10S 9H AH 7D 4C", "Single-Ox 1"),
    ("10S 9H AH 2D 10C", "Single-Ox 2"),
    ("10S 8H 2D 8D 5C", "Single-Ox 3"),
    ("10S JH QD 9C 5C", "Single-Ox 4"),
    ("10S 8H 2D 9C 6C", "Single-Ox 5"),
    ("10S 8H 2D 9C 3C", "Single-Ox 5"),  # "6 (or 3)": the 3 counts as 6 in the power
    ("10S 6H 4D 9C 7C", "Single-Ox 6"),
    ("10S 3H 4D 9C 7C", "Single-Ox 6"),  # "6 (or 3)" in the ox: 10 + 3 (as 6) + 4 = 20
    ("10S JH QD 7C AC", "Single-Ox 8"),
    ("7S AH 2D 3C 6C", "Single-Ox 9"),
    ("10S JH QD 9C AC", "Single-Ox 0"),
    ("6S 4H 10D 9C 9H", "Double-Ox 9"),
    ("3S 4H 10D 9C 9H", "Double-Ox 9"),
    ("KS QH JD KC QD", "Five Dukes"),
]


@pytest.mark.parametrize(("hand", "label"), INCREASING)
def test_increasing_strength_table(hand: str, label: str, gnau) -> None:
    assert evaluate(hand, gnau).label == label


def test_increasing_strength_table_is_in_increasing_order(gnau) -> None:
    strengths = [evaluate(hand, gnau).strength for hand, _ in INCREASING]
    assert strengths == sorted(strengths)


def test_single_ox_7_example_is_really_single_ox_0(gnau) -> None:
    """The table's 'Single-Ox 7' (10 7 3 10 7, ox 10+7+3) misses a stronger way the article's own
    rules allow: 7 + 3 (as 6) + 7 = 20 leaves the two ten-point cards, Single-Ox 0 (or, with two
    real 10s, Double-Ox 10). The player "should choose the way that makes the most powerful Ox"."""
    for hand in ("10S 7H 3D JC 7C", "10S 7H 6D JC 7C"):  # the table's "3 (or 6)": a 6 (as 3) reads alike
        reading = evaluate(hand, gnau)
        assert reading.label == "Single-Ox 0"
        assert "Single-Ox 7" in [alt.label for alt in reading.alternatives]
    assert evaluate("10S 7H 3D 10C 7C", gnau).label == "Double-Ox 10"


@pytest.mark.parametrize(("hand", "label", "category"), [
    ("KS QH JD KC QD", "Five Dukes", "five_dukes"),
    ("3S 4H 3D AC 2H", "Five Small", "five_small"),
    ("10S 4H 6D AS JC", "Ngau Tonku", "ngau_tonku"),
    ("10S 4H 6D AH JC", "Nenku", "single_ox"),
    ("10S 4H 6D 8C 8H", "Double-Ox 8", "double_ox"),
    ("10S 4H 6D 8C 5H", "Single-Ox 3", "single_ox"),
    ("4S 4H 3D 8C 5H", "No Ox", "no_ox"),
    ("4S 4H 6D 8C 5H", "No Ox", "no_ox"),
])
def test_ox_power_table(hand: str, label: str, category: str, gnau) -> None:
    reading = evaluate(hand, gnau)
    assert (reading.label, reading.category) == (label, category)


def test_five_small_needs_no_ox(gnau) -> None:
    """'if all five cards are low-Ox-value (A, 2, 3, or 4), this condition is called "All-Small"':
    no ox is asked of it, and no three of A A 2 2 4 make one."""
    assert [alt.label for alt in evaluate("AH AD 2S 2H 4C", gnau).alternatives] == ["Five Small"]


def test_nenku_scores_as_single_ox_1(gnau) -> None:
    """'if the ace is anything other than spades, this situation is called "Nenku" and the ace is scored
    normally, with one point', and the Hierarchy of Oxen names no Nenku: a Single-Ox 1, below every Double-Ox,
    although the variant's Ox-power table lists it (worth 'X') between Ngau Tonku and Double-Ox."""
    assert evaluate("10S 4H 6D AH JC", gnau).strength == evaluate("10S 9H AH 7D 4C", gnau).strength
    assert evaluate("10S 4H 6D AH JC", gnau).strength < evaluate("10S 4D 6C AC AS", gnau).strength  # Double-Ox A


def test_hierarchy_of_oxen(gnau) -> None:
    """Five Dukes > Ngau Tonku > Double-Ox K ... A > Ox of 9 ... 1; Five Small sits below Five Dukes."""
    hands = ["KS QH JD KC QD", "3S 4H 3D AC 2H", "10S 4H 6D AS JC"]
    hands += [f"10S 4D 6D {r}C {r}H" for r in "K Q J 10 9 8 7 6 5 4 3 2 A".split()]
    # Single-Ox 0 ("the strongest possible Single-Ox"), then the hierarchy's Ox of 9 down to Ox of 1.
    hands += [f"10S JH QD {pair}" for pair in ("9C AD", "7C 2D", "7C AD", "5C 2D", "4C 2D", "4C AD", "5C 9D",
                                               "5C 8D", "4C 8D", "2C 9D")]
    strengths = [evaluate(h, gnau).strength for h in hands]
    assert strengths == sorted(strengths, reverse=True) and len(set(strengths)) == len(strengths)


def test_three_of_a_kind_is_an_ox(gnau) -> None:
    """'There are three cards with identical values (i.e., three-of-a-kind such as 7-7-7)'."""
    reading = evaluate("7S 7H 7D KC 5H", gnau)
    assert reading.label == "Single-Ox 5"
    assert "three of a kind" in reading.best.explanation


def test_a_duke_may_include_10(gnau) -> None:
    """PS1: 'a Duke can be designated to include 10 or picture only card'."""
    ten_dukes = gnau.from_mapping({"ten_is_duke": True}, gnau)
    assert evaluate("10S JH QD KC 10D", gnau).label != "Five Dukes"
    assert evaluate("10S JH QD KC 10D", ten_dukes).label == "Five Dukes"


def test_three_and_six_inter_pair_when_designated(gnau) -> None:
    """'3 can be changed to 6 & can be inter-paired, if designated': 8 + 4 + 8 leaves 3 and 6."""
    inter = gnau.from_mapping({"double_ox_three_six": True}, gnau)
    assert evaluate("3S 6H 8D 4C 8H", inter).label == "Double-Ox 8"  # still the best
    assert evaluate("3S 6H 10D 2C 8C", inter).label == "Double-Ox 6"  # 10 + 2 + 8 = 20, then 3 + 6
    assert evaluate("3S 6H 10D 2C 8C", gnau).label == "Single-Ox 9"


def _round(preset: str, banker: str, *players: tuple[str, int]):
    seats = [Participant(f"p{i}", hand, Decimal(stake)) for i, (hand, stake) in enumerate(players)]
    return settle(Participant("banker", banker), seats, load_rules(preset))


def test_gnau_points_loser_pays_the_winners_worth() -> None:
    """'if your Ox cannot beat the dealer's Ox, the dealer will deduct the number of pts the
    dealer's Ox worths from you ... Vice-Versa. If both own Five Dukes, it's a tie.'"""
    result = _round("gnau-points", "10S 4H 6D 8C 8H",  # banker: Double-Ox 8, worth 2
                    ("KS QH JD KC QD", 1),  # Five Dukes: wins 10
                    ("10C 9H AH 7D 4C", 1),  # Single-Ox 1: loses the banker's 2
                    ("3S 4S 3D AC 2H", 1))  # Five Small: wins 10
    assert [(p.outcome, p.units) for p in result.players] == [("win", 10), ("lose", -2), ("win", 10)]
    tie = _round("gnau-points", "KS QH JD KC QD", ("KH QS JC KD QC", 1))
    assert tie.players[0].outcome == "push" and tie.banker_delta == 0


def test_gnau_payouts_7_5_3_1() -> None:
    result = _round("gnau", "10S 9H 8D 4C 4H",  # banker: No Ox
                    ("KS QH JD KC QD", 2), ("10H 4D 6C AS JC", 2), ("10D 4S 6H 8C 8H", 2), ("7S AH 2D 3C 6S", 2))
    assert [p.delta for p in result.players] == [14, 10, 6, 2]
    assert result.banker_delta == -32


def test_gnau_points_scoring_list() -> None:
    """'Scoring: No Ox: 0 pt. Ordinary Ox: 1 pt. ... Ngau Tonku : 5 pts': a banker with No Ox pays each ox
    its points; a player with No Ox against him has nothing to beat and nothing to pay."""
    result = _round("gnau-points", "10S 9H 8D 4C 4H",  # banker: No Ox, worth 0
                    ("10H 4D 6C AS JC", 1), ("7S AH 2D 3C 6S", 1), ("9S 9C 8H 5D 5H", 1))
    assert [(p.evaluation.label, p.outcome, p.units) for p in result.players] == [
        ("Ngau Tonku", "win", 5), ("Single-Ox 9", "win", 1), ("No Ox", "push", 0)]


@pytest.mark.parametrize("preset", ["gnau", "gnau-points"])
def test_the_dealer_deducts_what_his_ox_is_worth(preset: str) -> None:
    """'if your Ox cannot beat the dealer's Ox, the dealer will deduct the number of pts the dealer's Ox
    worths from you': his Ngau Tonku takes 5 (both schedules give it 5) from a Single-Ox 1, a Single-Ox 9
    and a No Ox alike."""
    result = _round(preset, "10S 4H 6D AS JC", ("10H 9H AH 7D 4C", 1), ("7S AD 2D 3C 6S", 1), ("9S 9C 8H 5D 5H", 1))
    assert result.banker_evaluation.label == "Ngau Tonku"
    assert [(p.outcome, p.units) for p in result.players] == [("lose", -5)] * 3
    assert result.banker_delta == 15


TAU_NGAU_OXEN = [
    ("3-1 2-2 1-1 6-6 5-5", ["3-1", "2-2", "1-1"], {}),  # 3-1 + 2-2 + 1-1 = 10
    ("6-6 3-3 1-1 6-5 5-5", ["6-6", "3-3", "1-1"], {}),  # 6-6 + 3-3 + 1-1 = 20
    ("2-1 6-5 3-3 6-6 5-5", ["2-1", "6-5", "3-3"], {"2-1": 3}),  # the 2-1 counting as 3
    ("2-1 4-4 3-3 6-6 5-5", ["2-1", "4-4", "3-3"], {"2-1": 6}),  # the 2-1 counting as 6
]


@pytest.mark.parametrize(("hand", "ox", "counted"), TAU_NGAU_OXEN)
@pytest.mark.parametrize("preset", ["tau-ngau-macau", "tau-ngau-pagat"])
def test_tau_ngau_discard_examples(hand: str, ox: list[str], counted: dict[str, int], preset: str) -> None:
    """tau-ngau-dominoes.txt: the four example discards are each among the ways found."""
    ways = [{c.item.code: c.as_value for c in alt.ox} for alt in evaluate(hand, load_rules(preset)).alternatives]
    assert any(sorted(way) == sorted(ox) and counted.items() <= way.items() for way in ways)


def test_twelve_pips_count_as_two() -> None:
    """'12 pips would count as 2'."""
    assert evaluate("3-1 2-2 1-1 6-6 6-6", load_rules("tau-ngau-pagat")).value == "4"  # 6-6 + 6-6 = 24
    assert evaluate("3-1 2-2 1-1 6-5 1-1", load_rules("tau-ngau-pagat")).value == "3"  # 11 + 2 = 13


PLAYER_6 = "6-5 4-1 5-5 3-3 2-2"  # [6:5][4:1] left: 6 + 5 + 4 + 1 = 16, worth 6


@pytest.mark.parametrize(("banker", "banker_label", "units"), [
    ("6-6 1-1 4-4 3-1 6-1", "No Bull", 6),  # "If the banker failed to find a Bull, then the player receives six bets"
    ("6-6 4-4 3-1 2-2 1-1", "Bull 10", -4),  # "[6:6][4:4], i.e. 10 points ... the player pays him four bets"
    ("3-1 1-1 6-4 5-5 6-4", "Bull 6", 0),  # "[1:3][1:1] ... also six, then he and the player do not pay"
    ("5-4 2-2 6-4 6-4 5-5", "Bull 3", 3),  # "[5:4][2:2], i.e. 3 points ... he pays the player three bets"
])
def test_macau_settlement_examples(banker: str, banker_label: str, units: int) -> None:
    result = _round("tau-ngau-macau", banker, (PLAYER_6, 1))
    assert result.banker_evaluation.label == banker_label
    assert result.players[0].evaluation.label == "Bull 6"
    assert result.players[0].units == units


def test_macau_declaring_a_low_bull_can_cost_more() -> None:
    """'if the player folds the Bull and gets one point ([5:4][1:1]) and the banker gets ten, then he
    pays the banker nine bets. If he decides not to fold the Bull, then he will pay ... only four'."""
    player = _round("tau-ngau-macau", "6-6 4-4 3-1 2-2 1-1", ("5-4 1-1 6-4 6-4 5-5", 1)).players[0]
    assert player.evaluation.label == "Bull 1"
    assert (player.units, player.units_if_not_declared, player.declare_worth_it) == (-9, -4, False)


def test_macau_no_bull_pays_four_whatever_the_banker_holds() -> None:
    """'a player without a bull pays the banker in any case, even if the banker also does not have a bull'."""
    result = _round("tau-ngau-macau", "6-6 6-6 5-5 5-5 6-5", ("6-4 6-4 6-3 5-1 4-2", 3))
    assert result.players[0].evaluation.label == "No Bull"
    assert (result.players[0].outcome, result.players[0].delta) == ("lose", -12)


@pytest.mark.parametrize(("preset", "stuck_vs_stuck"), [("tau-ngau-pagat", "push"), ("tau-ngau-dominoes", "lose")])
def test_pagat_and_dominoes_settlement(preset: str, stuck_vs_stuck: str) -> None:
    """Pagat: equal stakes, higher wins, equal or both stuck push; a stuck banker pays every bull.
    tau-ngau-dominoes.txt: a stuck player's stake goes to the banker, even a stuck banker."""
    stuck_banker = "6-6 1-1 4-4 3-1 6-1"
    result = _round(preset, stuck_banker, (PLAYER_6, 2), ("3-1 1-1 6-4 4-4 6-4", 2), ("6-6 5-5 3-3 6-5 5-1", 2))
    assert [p.evaluation.has_ox for p in result.players] == [True, True, False]
    assert [p.outcome for p in result.players] == ["win", "win", stuck_vs_stuck]
    assert [p.units for p in result.players][:2] == [1, 1]
    equal = _round(preset, "3-1 1-1 6-4 5-5 6-4", (PLAYER_6, 2))  # both Bull 6
    assert equal.players[0].outcome == "push"


@pytest.mark.parametrize("preset", ["tau-ngau-dominoes", "tau-ngau-pagat"])
def test_a_lower_score_loses_the_stake_a_higher_one_is_paid_it(preset: str) -> None:
    """tau-ngau-dominoes.txt: 'If a player's score is less than the banker's, he loses his stake to the banker;
    if his score is more than the banker's, the banker pays him the equivalent of his stake': one stake either
    way, however far apart the scores (Pagat: 'bets are not multiplied')."""
    lower = _round(preset, "6-6 3-3 1-1 6-5 4-4", (PLAYER_6, 2))  # 6-5 + 4-4 = 19: the banker's 9 against 6
    higher = _round(preset, "5-4 2-2 6-4 6-4 5-5", (PLAYER_6, 2))  # 5-4 + 2-2 = 13: the banker's 3 against 6
    assert [r.banker_evaluation.label for r in (lower, higher)] == ["Bull 9", "Bull 3"]
    assert [(r.players[0].outcome, r.players[0].delta) for r in (lower, higher)] == [("lose", -2), ("win", 2)]


def test_pagat_zero_is_zero_but_beats_stuck() -> None:
    pagat = load_rules("tau-ngau-pagat")
    zero = evaluate("6-6 4-4 3-1 2-2 1-1", pagat)  # 6-6 + 4-4 = 20: zero, not ten
    assert (zero.value, zero.has_ox) == ("0", True)
    assert zero.strength < evaluate(PLAYER_6, pagat).strength
    assert zero.strength > evaluate("6-6 6-6 5-5 5-5 6-5", pagat).strength


@pytest.mark.parametrize("preset", ["tau-ngau-dominoes", "tau-ngau-macau", "tau-ngau-pagat"])
def test_bank_passes_right_only_after_the_banker_makes_a_bull(preset: str) -> None:
    """'When a banker scores points, the player on his right becomes the new banker ... if the banker
    is stuck, he remains banker'."""
    assert _round(preset, "6-6 4-4 3-1 2-2 1-1", (PLAYER_6, 1), ("6-3 5-4 4-3 3-2 6-2", 1)).next_banker == "p0"
    assert _round(preset, "6-6 1-1 4-4 3-1 6-1", (PLAYER_6, 1), ("6-3 5-4 4-3 3-2 6-2", 1)).next_banker == "banker"


def test_equal_readings_are_chosen_whatever_the_order(gnau) -> None:
    """3S 10S AH 4S JS is Single-Ox 1 two ways: AH + JS (a Nenku) or AH + 10S. The named reading is
    shown, whatever order the cards come in (found by the property test of order independence)."""
    for hand in ("3S 10S AH 4S JS", "JS 4S AH 10S 3S", "AH JS 10S 3S 4S"):
        assert evaluate(hand, gnau).label == "Nenku"


@pytest.mark.parametrize("preset", ["gnau", "gnau-points", "niuniu", "tau-ngau-macau", "tau-ngau-pagat"])
def test_every_label_a_hand_can_carry_is_listed(preset: str) -> None:
    """The trainer offers these as answers: each hand's label must be among them (Nenku included)."""
    from oxeye.engine.stats import labels

    rules = load_rules(preset)
    listed = labels(rules)
    hands = ["10S 4H 6D AH JC", "3S 6H 8D 4C 8H", "KS QH JD KC QD"] if rules.items == "cards" else \
        ["6-6 4-4 3-1 2-2 1-1", "6-6 1-1 4-4 3-1 6-1"]
    for hand in hands:
        assert evaluate(hand, rules).label in listed
    assert ("Nenku" in listed) == rules.nenku_label
    assert listed.index("Nenku") == listed.index("Single-Ox 1") + 1 if rules.nenku_label else True
