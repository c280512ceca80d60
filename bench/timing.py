"""The one way benchmarks here time things: the median of several runs of a callable, or of several in turn."""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from oxeye.vision.cli import whole_number


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


def host_cpu(cpuinfo: str | None = None) -> dict[str, object]:
    """The CPU a timing ran on, from Linux's /proc/cpuinfo (or ``cpuinfo``'s text): its model name and whether it
    has VNNI, without which onnxruntime's 8-bit kernels gain far less and a frame took twice as long
    (MODEL_CARD.md, Speed); None for either where it does not say."""
    if cpuinfo is None:
        info = Path("/proc/cpuinfo")
        cpuinfo = info.read_text(errors="replace") if info.is_file() else ""
    pairs = (line.split(":", 1) for line in cpuinfo.splitlines() if ":" in line)
    fields = {key.strip(): value.strip() for key, value in pairs}
    flags = fields["flags"].split() if "flags" in fields else None
    return {"cpu": fields.get("model name"),
            "vnni": None if flags is None else bool({"avx512_vnni", "avx_vnni"} & set(flags))}


def small_and_large(description: str, what: str, large: int, repeats: int, argv: list[str] | None) -> argparse.Namespace:
    """The options of a benchmark timing a store of few ``what`` against one of many: --small, --large, --repeats."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--small", type=whole_number(0), default=10, help=f"{what} in the small one (10)")
    parser.add_argument("--large", type=whole_number(0), default=large, help=f"{what} in the large one ({large})")
    parser.add_argument("--repeats", type=whole_number(1), default=repeats)
    return parser.parse_args(argv)
