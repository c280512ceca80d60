"""Annotation speed: drawing the shipped model's reading of a 1280x720 frame, against reading it.

Every annotated photo and every frame of the live stream is read, then drawn; the ratio says what the
drawing (supervision's annotators, labels moved apart) adds to the reading, timed in the same run.
Run: python -m bench.annotate_speed
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bench.frames import table_photo
from bench.timing import median_seconds
from oxeye.models import DEFAULT_MODEL
from oxeye.vision.cli import whole_number


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="ONNX model (shipped)")
    parser.add_argument("--repeats", type=whole_number(1), default=50)
    args = parser.parse_args(argv)
    if not args.model.is_file():
        parser.error(f"no model at {args.model}: train one (see models/MODEL_CARD.md) or pass --model")

    from oxeye.vision.annotate import draw
    from oxeye.vision.detector import Detector

    frame = table_photo()
    detector = Detector(args.model, threads=2)
    reading = detector.read(frame)
    read_s = median_seconds(lambda: detector.read(frame), args.repeats)
    draw_s = median_seconds(lambda: draw(frame, reading), args.repeats)
    result = {"model": str(args.model), "frame": "1280x720", "items": len(reading.items),
              "draw_ms": round(draw_s * 1e3, 2), "read_ms": round(read_s * 1e3, 2),
              "ratio_draw_to_read": round(draw_s / read_s, 3)}
    print(f"{result['items']} items on a 1280x720 frame, median of {args.repeats}: drawn in {result['draw_ms']} ms, "
          f"read in {result['read_ms']} ms ({result['ratio_draw_to_read']}x)")
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
