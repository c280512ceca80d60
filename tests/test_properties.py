"""Properties over random hands, rounds and house-rule options."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from brute_force import brute_force
from oxeye.engine import Participant, evaluate, settle
from oxeye.engine.cards import full_deck
from oxeye.engine.ox import classify
from oxeye.engine.settlement import CENT, Onlooker
from oxeye.engine.tiles import chinese_set
from oxeye.service.rules_files import load_rules, preset_names, rules_from_mapping

PRESETS = {name: load_rules(name) for name in preset_names()}
DECK, TILES = full_deck(), chinese_set()


def _pool(rules):
    return DECK if rules.items == "cards" else TILES


@st.composite
def hand_and_rules(draw):
    rules = PRESETS[draw(st.sampled_from(sorted(PRESETS)))]
    hand = draw(st.permutations(_pool(rules)))[:5]
    return tuple(hand), rules


@given(hand_and_rules(), st.randoms(use_true_random=False))
@settings(max_examples=300, deadline=None)
def test_order_never_matters(case, random) -> None:
    hand, rules = case
    shuffled = list(hand)
    random.shuffle(shuffled)
    a, b = evaluate(hand, rules), evaluate(shuffled, rules)
    assert (a.category, a.value, a.label, a.strength) == (b.category, b.value, b.label, b.strength)
    assert sorted(x.label for x in a.alternatives) == sorted(x.label for x in b.alternatives)


@given(hand_and_rules())
@settings(max_examples=300, deadline=None)
def test_alternatives_are_valid_distinct_and_strongest_first(case) -> None:
    hand, rules = case
    reading = evaluate(hand, rules)
    assert (reading.category, reading.value, reading.strength) == classify(hand, rules)
    strengths = [alt.strength for alt in reading.alternatives]
    assert strengths == sorted(strengths, reverse=True)
    for alt in reading.alternatives:
        assert sorted(map(str, [c.item for c in alt.ox + alt.power])) == sorted(map(str, hand))
        if alt.ox:
            total = sum(c.as_value for c in alt.ox)
            same_rank = len({getattr(c.item, "rank", None) for c in alt.ox}) == 1 and rules.triple_is_ox
            assert total % 10 == 0 or same_rank
        assert alt.explanation.endswith(alt.label)


OPTION_TOGGLES = st.fixed_dictionaries({}, optional={
    "ten_is_duke": st.booleans(),
    "double_ox_three_six": st.booleans(),
    "triple_is_ox": st.booleans(),
    "three_six_wild": st.booleans(),
    "zero_counts_as_ten": st.booleans(),
    "nenku_label": st.booleans(),
    "five_small_max_total": st.one_of(st.none(), st.integers(5, 16)),
})


def _meaningful(preset: str, options: dict) -> dict:
    """The drawn options that can change a hand over ``preset``: tiles take only their own, and a card option
    is kept set only where the rest gives it work (the engine refuses one that could change nothing)."""
    base = PRESETS[preset]
    if base.items == "tiles":
        return {k: v for k, v in options.items() if k in ("three_six_wild", "zero_counts_as_ten")}
    ranked = set(base.ranking)
    has_work = {
        "ten_is_duke": bool(ranked & {"five_dukes", "ngau_tonku"}) or options.get("nenku_label", base.nenku_label),
        "double_ox_three_six": options.get("three_six_wild", base.three_six_wild) and "double_ox" in ranked,
    }
    return {k: v for k, v in options.items() if has_work.get(k, True) or not v}


@given(st.sampled_from(["gnau", "niuniu", "tau-ngau-macau"]), OPTION_TOGGLES, st.data())
@settings(max_examples=400, deadline=None)
def test_engine_agrees_with_brute_force_under_any_options(preset, options, data) -> None:
    rules = rules_from_mapping({"base": preset, **_meaningful(preset, options)})
    hand = tuple(data.draw(st.permutations(_pool(rules)))[:5])
    assert classify(hand, rules)[:2] == brute_force(hand, rules)


@st.composite
def rounds(draw):
    rules = PRESETS[draw(st.sampled_from(sorted(PRESETS)))]
    seats = draw(st.integers(2, 6))
    items = draw(st.permutations(_pool(rules)))[: 5 * seats]
    stakes = st.decimals(min_value=Decimal("0.5"), max_value=Decimal(500), places=2)
    players = [
        Participant(f"p{i}", tuple(items[5 * i: 5 * i + 5]), draw(stakes),
                    tuple(Onlooker(f"o{i}-{j}", draw(stakes)) for j in range(draw(st.integers(0, 2)))))
        for i in range(1, seats)
    ]
    commission = draw(st.one_of(st.sampled_from([Decimal(0), Decimal("0.05")]),
                                st.decimals(min_value=0, max_value=Decimal("0.5"), places=6)))
    return rules_from_mapping({"base": rules.name, "commission": str(commission)}), Participant("bank", items[:5]), players


@given(rounds())
@settings(max_examples=200, deadline=None)
def test_settlement_is_zero_sum_before_commission_and_in_whole_cents(case) -> None:
    rules, banker, players = case
    result = settle(banker, players, rules)
    gross = [r.stake * r.units for r in result.results]
    assert result.banker_delta + result.banker_commission + sum(gross) == 0
    assert result.banker_delta + sum(r.delta for r in result.results) + result.house == 0
    assert all(r.commission >= 0 and (r.commission == 0 or r.units > 0) for r in result.results)
    amounts = [result.banker_delta, result.banker_commission, *(a for r in result.results for a in (r.delta, r.commission))]
    assert all(amount % CENT == 0 for amount in amounts)  # whole cents, which the JSON's floats hold exactly
    for player in result.players:
        backers = [r for r in result.onlookers if r.backs == player.name]
        assert all((r.outcome, r.units) == (player.outcome, player.units) for r in backers)
    assert result.next_banker in {"bank", players[0].name}
