"""The one way benchmarks here time things: the median of several runs of a callable, or of several in turn."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping


def median_seconds(run: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``repeats`` calls of ``run``, after one warm-up call."""
    return alternated_medians({"run": run}, repeats)["run"]


def alternated_medians(runs: Mapping[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """Median wall time of each named callable over ``repeats`` rounds, after one warm-up round; each
    round calls every one in turn, so that all of them meet the same load on a shared machine."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    for round_ in range(repeats + 1):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            if round_:
                times[name].append(time.perf_counter() - start)
    return {name: statistics.median(spent) for name, spent in times.items()}
