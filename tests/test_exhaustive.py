"""Every hand, checked: the engine agrees with the plain brute-force evaluator in brute_force.py.

All 2,598,960 card hands under gnau and niuniu and all 201,376 tile hands under both Tau Ngau
presets. Per preset, also: the exact statistics equal the brute-force tally, and the engine's
strength lists order categories exactly as the rules' ranking does.
"""

from __future__ import annotations

import multiprocessing
from collections import Counter
from itertools import combinations

import pytest

from brute_force import brute_force, order_key
from oxeye.engine.cards import full_deck
from oxeye.engine.ox import classify
from oxeye.engine.stats import frequencies
from oxeye.engine.tiles import chinese_set
from oxeye.service.rules_files import load_rules

pytestmark = pytest.mark.slow


def _check_chunk(job: tuple[str, int]) -> tuple[list, Counter, dict]:
    """Hands whose lowest item is ``first``: mismatches, the brute-force tally, engine strengths seen."""
    preset, first = job
    rules = load_rules(preset)
    items = full_deck() if rules.items == "cards" else chinese_set()
    mismatches, tally, strengths = [], Counter(), {}
    head = items[first]
    for rest in combinations(items[first + 1:], 4):
        hand = (head, *rest)
        category, value, strength = classify(hand, rules)
        expected = brute_force(hand, rules)
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
