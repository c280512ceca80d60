"""Dataset generator speed: median images/s of `dataset build` at 640 px, against one process.

Run: `python -m bench.dataset_speed [--images 200] [--repeats 3]`. The face library is made
once before timing (as a build does once per run); each repeat writes a fresh folder.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from oxeye.datasets.build import BuildConfig, build
from oxeye.vision.cli import whole_number


def rate(config: BuildConfig, workers: int) -> float:
    """Images per second of one build."""
    start = time.perf_counter()
    build(config, workers=workers, progress=False)
    return config.images / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    """Print the median rate with 2 workers, the single-process baseline and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--images", type=whole_number(1), default=200)
    parser.add_argument("--repeats", type=whole_number(1), default=3)
    parser.add_argument("--imgsz", type=whole_number(), default=640)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        config = BuildConfig(Path(tmp) / "warm", 2, seed=0, imgsz=args.imgsz)
        build(config, workers=1, progress=False)  # makes the face library once, outside the timing
        runs: dict[int, list[float]] = {1: [], 2: []}
        for repeat in range(args.repeats):
            for workers in runs:
                out = Path(tmp) / f"w{workers}-{repeat}"
                runs[workers].append(rate(BuildConfig(out, args.images, seed=repeat, imgsz=args.imgsz), workers))
    single, pooled = statistics.median(runs[1]), statistics.median(runs[2])
    print(f"dataset build, {args.images} images at {args.imgsz} px, median of {args.repeats}:")
    print(f"  1 process : {single:6.1f} images/s")
    print(f"  2 workers : {pooled:6.1f} images/s  ({pooled / single:.2f}x the single process)")


if __name__ == "__main__":
    main()
