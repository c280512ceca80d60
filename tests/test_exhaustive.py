"""Every hand, checked: the engine agrees with the plain brute-force evaluator in brute_force.py.

All 2,598,960 card hands under gnau and niuniu and all 201,376 tile hands under both Tau Ngau
presets. Per preset, also: the exact statistics equal the brute-force tally, and the engine's
strength lists order categories exactly as the rules' ranking does. With several decks, the
statistics against the hands' classes counted another way.
"""

from __future__ import annotations

import multiprocessing
from collections import Counter
from dataclasses import replace
from itertools import combinations, combinations_with_replacement
from math import comb, prod

import pytest

from brute_force import brute_force, order_key
from oxeye.engine.cards import Card, full_deck
from oxeye.engine.ox import classify
from oxeye.engine.stats import frequencies, hand_classes
from oxeye.engine.tiles import chinese_set
from oxeye.service.rules_files import load_rules

pytestmark = pytest.mark.slow


def _what_brute_force_reads(hand: tuple) -> tuple:
    """All that ``brute_force`` reads of a hand, in any order: each card's rank and whether it is the ace of
    spades, or each tile's two halves. It is a function of this alone, so hands alike in it are worked out
    once (the engine still judges every hand): the test then takes half the time."""
    if isinstance(hand[0], Card):
        return tuple(sorted((card.rank, card.rank == Card.ACE and card.suit == "S") for card in hand))
    return tuple(sorted((tile.high, tile.low) for tile in hand))


def _check_chunk(job: tuple[str, int]) -> tuple[list, Counter, dict]:
    """Hands whose lowest item is ``first``: mismatches, the brute-force tally, engine strengths seen."""
    preset, first = job
    rules = load_rules(preset)
    items = full_deck() if rules.items == "cards" else chinese_set()
    mismatches, tally, strengths, answers = [], Counter(), {}, {}
    head = items[first]
    for rest in combinations(items[first + 1:], 4):
        hand = (head, *rest)
        category, value, strength = classify(hand, rules)
        if (expected := answers.get(key := _what_brute_force_reads(hand))) is None:
            expected = answers[key] = brute_force(hand, rules)
        tally[expected] += 1
        strengths[category, value] = strength[:2]
        if (category, value) != expected and len(mismatches) < 5:
            mismatches.append(([i.code for i in hand], (category, value), expected))
    return mismatches, tally, strengths


@pytest.mark.parametrize("preset", ["gnau", "niuniu", "tau-ngau-macau", "tau-ngau-pagat"])
def test_engine_agrees_with_brute_force_on_every_hand(preset: str) -> None:
    rules = load_rules(preset)
    size = 52 if rules.items == "cards" else 32
    mismatches, tally, strengths = [], Counter(), {}
    with multiprocessing.get_context("fork").Pool(2) as pool:
        for found, counts, seen in pool.imap_unordered(_check_chunk, [(preset, i) for i in range(size - 4)]):
            mismatches += found
            tally += counts
            strengths.update(seen)
    assert not mismatches, f"engine and brute force disagree, e.g. {mismatches[:5]}"
    assert sum(tally.values()) == (2_598_960 if size == 52 else 201_376)
    assert {(f.category, f.value): f.hands for f in frequencies(rules)} == dict(tally)
    by_engine = sorted(strengths, key=strengths.get)
    by_rules = sorted(strengths, key=lambda cv: order_key(rules, *cv))
    assert by_engine == by_rules
    assert len(set(strengths.values())) == len(strengths), "two categories share one strength"


@pytest.mark.parametrize("decks", [2, 3])
def test_several_decks_card_statistics_agree_with_hands_counted_by_their_aces_of_spades(decks: int) -> None:
    """Counted another way: each rank multiset split by how many aces of spades it holds (not only
    whether one), each such class judged on its own; this also checks that a second ace of spades
    changes no hand's category."""
    rules = replace(load_rules("gnau"), decks=decks)
    tally: Counter = Counter()
    for ranks in combinations_with_replacement(range(1, 14), 5):
        counts = Counter(ranks)
        if max(counts.values()) > 4 * decks:
            continue
        others = prod(comb(4 * decks, n) for rank, n in counts.items() if rank != Card.ACE)
        aces = counts.get(Card.ACE, 0)
        for spades in range(min(aces, decks) + 1):
            ways = comb(decks, spades) * comb(3 * decks, aces - spades)
            if not ways:
                continue
            hand = [Card(Card.ACE, "S")] * spades + [Card(Card.ACE, "HDC"[i % 3]) for i in range(aces - spades)]
            hand += [Card(rank, "SHDC"[i % 4]) for rank, n in counts.items() if rank != Card.ACE for i in range(n)]
            tally[classify(tuple(hand), rules)[:2]] += others * ways
    assert sum(tally.values()) == comb(52 * decks, 5)
    assert {(f.category, f.value): f.hands for f in frequencies(rules)} == dict(tally)


def test_several_sets_of_tiles_weigh_each_hand_of_faces_as_the_tiles_counted_one_by_one() -> None:
    """Two sets: the 32 tiles of a set as 32 distinct pieces, each at most twice in a hand; every
    such multiset of pieces, weighted by the ways to pick its copies, summed by faces."""
    pieces = chinese_set()
    by_faces: Counter = Counter()
    for hand in combinations_with_replacement(range(len(pieces)), 5):
        counts = Counter(hand)
        if max(counts.values()) <= 2:
            by_faces[tuple(sorted(pieces[i] for i in hand))] += prod(comb(2, n) for n in counts.values())
    classes = {tuple(sorted(hand)): weight for hand, weight in hand_classes("tiles", 2)}
    assert classes == dict(by_faces) and sum(classes.values()) == comb(64, 5)
