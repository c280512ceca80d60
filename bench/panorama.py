"""Panoramas read whole and in windows (``vision.tiles``): items read right, reported twice, and the time.

A phone's panorama of a long table is made here of rendered scenes of one size laid side by side (2, 3,
4 scenes: 2.7:1 to 7.3:1 for 1280 x 960 and 1280 x 704 ones, 1.5:1 to 3:1 for 960 x 1280), their labels
moved with them, and written as a build of its own; `oxeye evaluate`'s synthetic figures are then taken
on it with the windows off (read whole, as before) and at each setting WINDOW:OVERLAP (a window's long
side as a multiple of the frame's short side, and the share of it the next one overlaps), with the
median time to read one panorama of each. One scene alone (1) is the ordinary frame, read alike either
way. Pick on a build that is neither trained on nor held out. Run:
oxeye dataset build --out runs/pano_src --images 150 --seed 5 --imgsz 1280
python -m bench.panorama runs/pano_src 1:0.2 1.333:0.2 1.778:0.2 [--scenes 1 2 3 4] [--beyond 2]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from bench.sweep import Setting, rounded, settings_of
from bench.timing import alternated_medians
from oxeye.models import DEFAULT_MODEL
from oxeye.vision.cli import build_folder, real_number, whole_number
from oxeye.vision.detector import Detector
from oxeye.vision.evaluate import synthetic
from oxeye.vision.images import read_image
from oxeye.vision.tiles import Tiling

FIGURES = ("items", "item_accuracy", "missed", "reported_twice", "unmatched_reports", "hands_exact",
           "sure_hands", "sure_hands_right")
WHOLE = Tiling(beyond=float("inf"))  # every frame read whole, as before the windows


def scenes_by_size(source: Path) -> dict[tuple[int, int], list[dict]]:
    """The metadata of every scene of a build, by its width and height, in the build's order."""
    sizes: dict[tuple[int, int], list[dict]] = {}
    for path in sorted((source / "meta").glob("*.json")):
        meta = json.loads(path.read_text())
        sizes.setdefault((meta["width"], meta["height"]), []).append(meta)
    return sizes


def shifted_labels(meta: dict, dx: int, first: int) -> tuple[list[dict], list[dict]]:
    """A scene's items and hands laid ``dx`` pixels to the right in a panorama whose items before them number
    ``first``: boxes and keypoints moved, hands' item numbers counted on."""
    def moved(box: list[float]) -> list[float]:
        return [box[0] + dx, box[1], box[2] + dx, box[3]]

    items = [{**item, "box": moved(item["box"]),
              "corner_boxes": [{**c, "box": moved(c["box"]), "centre": [c["centre"][0] + dx, c["centre"][1]]}
                               for c in item["corner_boxes"]]} for item in meta["items"]]
    hands = [{**hand, "items": [first + i for i in hand["items"]]} for hand in meta["hands"]]
    return items, hands


def write_panoramas(metas: list[dict], source: Path, count: int, out: Path) -> Path:
    """Panoramas of ``count`` scenes of one size (``metas``, of ``source``) side by side, written with their
    labels as a build in ``out``; the first one's image."""
    (out / "images").mkdir(parents=True)
    (out / "meta").mkdir()
    for start in range(0, len(metas) - count + 1, count):
        group = metas[start:start + count]
        items: list[dict] = []
        hands: list[dict] = []
        for n, meta in enumerate(group):
            more_items, more_hands = shifted_labels(meta, n * meta["width"], len(items))
            items, hands = items + more_items, hands + more_hands
        name = f"{start // count:06d}"
        image = np.hstack([read_image(source / meta["image"]) for meta in group])
        cv2.imwrite(str(out / "images" / f"{name}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 95])
        meta = {**group[0], "image": f"images/{name}.jpg", "width": image.shape[1], "items": items, "hands": hands}
        (out / "meta" / f"{name}.json").write_text(json.dumps(meta))
    return out / "images" / "000000.jpg"


def measure(detector: Detector, source: Path, counts: list[int], tilings: dict[str, Tiling],
            repeats: int) -> dict[str, dict[str, dict[str, object]]]:
    """Per panorama size (scenes of one size, ``counts`` of them side by side): its windows, the synthetic
    figures and the median milliseconds to read one panorama under each tiling; printed as it goes."""
    figures: dict[str, dict[str, dict[str, object]]] = {}
    for (width, height), metas in scenes_by_size(source).items():
        for count in counts:
            if len(metas) < count:
                continue
            with tempfile.TemporaryDirectory() as scratch:
                image = read_image(write_panoramas(metas, source, count, Path(scratch)))
                row: dict[str, dict[str, object]] = {}
                for name, tiling in tilings.items():
                    detector.tiling = tiling
                    row[name] = {"windows": len(tiling.windows(width * count, height)),
                                 **{k: v for k, v in rounded(synthetic(detector, Path(scratch))).items() if k in FIGURES}}
                seconds = alternated_medians({name: _reading(detector, tiling, image)
                                              for name, tiling in tilings.items()}, repeats)
                for name in tilings:
                    row[name]["read_ms"] = round(seconds[name] * 1000, 1)
            key = f"{width * count}x{height} ({width * count / height:.2f}:1)"
            figures[key] = row
            print(json.dumps({key: row}), flush=True)
    return figures


def _reading(detector: Detector, tiling: Tiling, image: np.ndarray) -> Callable[[], object]:
    """A call that reads ``image`` by ``tiling``."""
    def read() -> object:
        detector.tiling = tiling
        return detector.read(image)

    return read


def main(argv: list[str] | None = None) -> dict[str, dict[str, dict[str, object]]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=build_folder, help="a folder written by 'oxeye dataset build' (--imgsz 1280)")
    parser.add_argument("settings", type=settings_of(("window", "overlap")), nargs="*", metavar="WINDOW:OVERLAP",
                        help="window shapes and overlaps to try (the shipped one when none)")
    parser.add_argument("--scenes", type=whole_number(1), nargs="+", default=[1, 2, 3, 4], help="scenes side by side (1 2 3 4)")
    parser.add_argument("--beyond", type=real_number, default=Tiling.beyond,
                        help=f"read in windows a frame longer than this many times its short side ({Tiling.beyond})")
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="ONNX model (shipped)")
    parser.add_argument("--repeats", type=whole_number(1), default=3, help="timed rounds (3)")
    args = parser.parse_args(argv)
    chosen: list[Setting] = args.settings or [(Tiling.window, Tiling.overlap)]
    tilings = {"whole": WHOLE, **{f"{window:g}:{overlap:g}": Tiling(args.beyond, window, overlap)
                                  for window, overlap in chosen}}
    return measure(Detector(args.model), args.data, args.scenes, tilings, args.repeats)


if __name__ == "__main__":
    main()
