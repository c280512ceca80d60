"""How often a live table's round is settled: tables of a build played as a camera's frames.

Each table photo of a build (at least ``--hands`` five-item hands) is played as ``--frames`` frames of a
camera held still: the photo moved by up to 3 px, its light and noise varied, and JPEG-encoded afresh,
each frame. Prints, over all tables, in how many frames a round was settled; in how many of those a
settled hand was held in view (a card of it missed in that frame: ``vision.steady``; before hands were
held, the round waited in every such frame); in how many the round waited for a hand out of sight;
and in how many the banker's hand (hand 0) was not read (not settled, not five items, or doubted).
Run: python -m bench.live_rounds runs/heldout --frames 25
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

from oxeye.vision.cli import whole_number

KIND_RULES = {"cards": "gnau", "tiles": "tau-ngau-dominoes"}


def camera_frames(photo: np.ndarray, frames: int, rng: np.random.Generator) -> list[np.ndarray]:
    """``frames`` frames of ``photo`` as a still camera gives them: shifted a pixel or three, light and noise varied."""
    height, width = photo.shape[:2]
    shown = []
    for _ in range(frames):
        moved = cv2.warpAffine(photo, np.float32([[1, 0, rng.uniform(-3, 3)], [0, 1, rng.uniform(-3, 3)]]), (width, height),
                               borderMode=cv2.BORDER_REPLICATE)
        lit = moved.astype(np.float32) * rng.uniform(0.95, 1.05) + rng.normal(0, 2, moved.shape)
        jpeg = cv2.imencode(".jpg", lit.clip(0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(80, 96))])[1]
        shown.append(cv2.imdecode(jpeg, cv2.IMREAD_COLOR))
    return shown


def tables(build: Path, hands: int) -> list[tuple[Path, str]]:
    """The build's photos with at least ``hands`` five-item hands, and their kind."""
    found = []
    for meta in sorted((build / "meta").glob("*.json")):
        record = json.loads(meta.read_text())
        if sum(len(hand["items"]) == 5 for hand in record["hands"]) >= hands:
            found.append((build / record["image"], record["kind"]))
    return found


def main(argv: list[str] | None = None) -> dict[str, int]:
    from oxeye.service.live import LiveTable
    from oxeye.service.rules_files import load_rules
    from oxeye.vision.detector import Detector
    from oxeye.vision.images import Decoded, read_image

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", type=Path)
    parser.add_argument("--hands", type=whole_number(1), default=4, help="the fewest five-item hands a table shows (4)")
    parser.add_argument("--frames", type=whole_number(1), default=25, help="frames each table is played for (25)")
    parser.add_argument("--model", type=Path, default=None, help="the detector (the shipped one)")
    args = parser.parse_args(argv)
    detector = Detector(args.model) if args.model else Detector()
    counts = {"tables": 0, "frames": 0, "settled": 0, "settled_holding": 0, "waiting_for_hidden": 0,
              "banker_unread": 0}
    rng = np.random.default_rng(0)
    for path, kind in tables(args.build, args.hands):
        table = LiveTable(detector, load_rules(KIND_RULES[kind]), 0, {}, 5)
        counts["tables"] += 1
        for frame in camera_frames(read_image(path), args.frames, rng):
            steady, scored = table.frame(Decoded.whole(frame))
            counts["frames"] += 1
            counts["waiting_for_hidden"] += steady.hidden > 0
            counts["banker_unread"] += scored["settlement"]["problem"] == "the banker's hand 0 was not read"
            if scored["settlement"]["result"] is not None:
                counts["settled"] += 1
                counts["settled_holding"] += any(steady.held)
    print(json.dumps(counts))
    return counts


if __name__ == "__main__":
    main()
