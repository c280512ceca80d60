"""Engine speed: every one of the 2,598,960 card hands under gnau, against the brute force.

The engine's exact statistics (every hand judged through its rank class) are timed whole; the
plain brute-force evaluator of tests/brute_force.py is timed per hand on a random sample and
scaled to all hands, in the same process. Run: python -m bench.engine_speed
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from math import comb
from pathlib import Path

from bench.timing import median_seconds
from oxeye.engine.cards import full_deck
from oxeye.engine.ox import classify, evaluate
from oxeye.engine.stats import frequencies
from oxeye.service.rules_files import load_rules
from oxeye.vision.cli import whole_number

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from brute_force import brute_force  # noqa: E402  (the reference evaluator lives with the tests)

ALL_HANDS = comb(52, 5)


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="gnau")
    parser.add_argument("--sample", type=whole_number(1), default=20_000, help="hands in the per-hand sample")
    parser.add_argument("--repeats", type=whole_number(1), default=5)
    args = parser.parse_args(argv)
    rules = load_rules(args.rules)
    rng = random.Random(2026)
    deck = full_deck()
    sample = [tuple(rng.sample(deck, 5)) for _ in range(args.sample)]

    all_hands_s = median_seconds(lambda: frequencies(rules), args.repeats)
    brute_s = median_seconds(lambda: [brute_force(h, rules) for h in sample], 3) / len(sample)
    classify_s = median_seconds(lambda: [classify(h, rules) for h in sample], 3) / len(sample)
    evaluate_s = median_seconds(lambda: [evaluate(h, rules) for h in sample[:5000]], 3) / 5000
    brute_all_s = brute_s * ALL_HANDS
    result = {
        "rules": args.rules,
        "all_hands_s": round(all_hands_s, 4),
        "brute_force_all_hands_s": round(brute_all_s, 1),
        "speedup_vs_brute_force": round(brute_all_s / all_hands_s, 1),
        "brute_force_us_per_hand": round(brute_s * 1e6, 2),
        "classify_us_per_hand": round(classify_s * 1e6, 2),
        "evaluate_us_per_hand": round(evaluate_s * 1e6, 2),
    }
    print(f"all {ALL_HANDS:,} hands under {args.rules}: median {all_hands_s:.3f} s "
          f"(brute force: {brute_all_s:.0f} s, {result['speedup_vs_brute_force']:.0f}x slower)")
    print(f"per hand: classify {result['classify_us_per_hand']} us, evaluate with alternatives "
          f"{result['evaluate_us_per_hand']} us, brute force {result['brute_force_us_per_hand']} us")
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
