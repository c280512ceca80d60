"""How far a large JPEG may be reduced as it is decoded (``vision.images.WORKING_SIDE``) and still read as
the photo itself, and what reducing it saves.

Three parts. Rendered tables (hands of cards in rows, known codes) at 4032 x 3024, each JPEG decoded at every
working side given and whole: the items read right and unflagged, and how far their boxes lie from those
read whole (median, in photo pixels). The real card photos upscaled 4x: the photos read with the same
codes and flags as the photo itself, and how far the boxes lie from its own (median and 95th percentile,
in the real photo's pixels). A 48-megapixel JPEG (8064 x 6048, a phone's): the time to decode it and
to decode and read it, whole and at ``WORKING_SIDE`` (medians, in turn), and the peak memory of each (a
fresh process's peak RSS over its RSS before, its modules loaded). Run:
python -m bench.big_photos [--real ../shared/real/cards-edje] [--sides 250 500 1000 2000] [--rows 5 10]
[--scenes 6] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from bench.timing import alternated_medians
from oxeye.models import DEFAULT_MODEL
from oxeye.vision.classes import CARD_CLASSES
from oxeye.vision.cli import whole_number
from oxeye.vision.detector import Detector
from oxeye.vision.evaluate import labelled_photos
from oxeye.vision.images import WORKING_SIDE, decode_photo, decode_reduced, read_image, reduction
from oxeye.vision.reading import Reading

RENDERED = (4032, 3024)  # a 12-megapixel phone's photo
PHONE = (8064, 6048)  # a 48-megapixel phone's
UPSCALE = 4
PEAK = """import sys
from pathlib import Path
from oxeye.vision.images import decode_reduced
from oxeye.vision.detector import Detector

def status(field):
    return int(next(line.split()[1] for line in open("/proc/self/status") if line.startswith(field)))

data = Path(sys.argv[1]).read_bytes()
side = None if sys.argv[2] == "whole" else int(sys.argv[2])
detector = Detector() if sys.argv[3] == "read" else None
from PIL import ExifTags, Image, ImageOps, JpegImagePlugin  # loaded as a server has them loaded
if detector:
    import numpy
    detector.read(numpy.zeros((480, 640, 3), numpy.uint8))  # onnxruntime's buffers, as a server has them
Path("/proc/self/clear_refs").write_text("5")  # the peak RSS starts again from the RSS now
start = status("VmRSS:")
photo = decode_reduced(data, working_side=side)
if detector:
    detector.read(photo.pixels)
print((status("VmHWM:") - start) / 1024)
"""


def jpeg(image: np.ndarray) -> bytes:
    """``image`` as a phone would store it (JPEG, quality 92)."""
    return cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes()


def read(detector: Detector, data: bytes, side: int | None) -> Reading:
    """``data`` decoded at working side ``side`` (None: whole) and read, in the photo's own pixels."""
    photo = decode_reduced(data, working_side=side)
    return photo.in_photo(detector.read(photo.pixels))


def box_shifts(reading: Reading, reference: Reading) -> list[float]:
    """How far each box of ``reading`` lies from the box of the same code in ``reference`` (its largest corner
    shift), for the codes both read once."""
    boxes = {item.code: item.box for item in reference.items}
    once = [item for item in reading.items if sum(i.code == item.code for i in reading.items) == 1]
    return [float(np.abs(np.subtract(item.box, boxes[item.code])).max()) for item in once if item.code in boxes]


def rendered(detector: Detector, sides: list[int | None], scenes: int, rows: int) -> dict[str, dict[str, object]]:
    """Per working side: the rendered tables' cards read right (in their own row's hand) and unflagged, and the
    box shifts from the tables read whole."""
    from oxeye.datasets.build import load_library
    from oxeye.datasets.scene import render_hands

    rng = np.random.default_rng(2026)
    library = load_library(None)
    right = {side: 0 for side in sides}
    shifts: dict[int | None, list[float]] = {side: [] for side in sides}
    for _ in range(scenes):
        deck = rng.permutation(CARD_CLASSES)
        hands = [list(deck[row * 5:row * 5 + 5]) for row in range(rows)]
        data = jpeg(render_hands(rng, library, "cards", hands, RENDERED).image)
        whole = read(detector, data, None)
        for side in sides:
            reading = whole if side is None else read(detector, data, side)
            right[side] += _read_right(reading, hands)
            shifts[side] += box_shifts(reading, whole)
    return {_name(side): {"decoded_side": _decoded(max(RENDERED), side), "right": f"{right[side]}/{scenes * rows * 5}",
                          "box_shift_median": _median(shifts[side])} for side in sides}


def _read_right(reading: Reading, rows: list[list[str]]) -> int:
    """The cards of ``rows`` (top to bottom) read unflagged in the hand lying in their row."""
    hands = sorted(reading.hands, key=lambda hand: hand.box[1] + hand.box[3])
    return sum(len({reading.items[i].code for i in hand.items if not reading.items[i].flag} & set(row))
               for hand, row in zip(hands, rows)) if len(hands) == len(rows) else 0


def real(detector: Detector, folder: Path, sides: list[int | None]) -> dict[str, dict[str, object]]:
    """Per working side: the real photos upscaled ``UPSCALE`` times read as the photo itself, and the box shifts."""
    same = {side: 0 for side in sides}
    shifts: dict[int | None, list[float]] = {side: [] for side in sides}
    photos = labelled_photos(folder)
    sides_seen = set()
    for path, _ in photos:
        image = read_image(path)
        sides_seen.add(max(image.shape[:2]) * UPSCALE)
        own = detector.read(image)
        data = jpeg(cv2.resize(image, None, fx=UPSCALE, fy=UPSCALE, interpolation=cv2.INTER_CUBIC))
        for side in sides:
            reading = read(detector, data, side)
            same[side] += _codes(reading) == _codes(own)
            upscaled = own.scaled(UPSCALE, reading.width, reading.height)
            shifts[side] += [shift / UPSCALE for shift in box_shifts(reading, upscaled)]
    return {_name(side): {"decoded_side": sorted({_decoded(s, side) for s in sides_seen}),
                          "same_reading": f"{same[side]}/{len(photos)}", "box_shift_median": _median(shifts[side]),
                          "box_shift_p95": round(float(np.percentile(shifts[side] or [0], 95)), 1)} for side in sides}


def phone_photo(detector: Detector, folder: Path, repeats: int) -> dict[str, object]:
    """A 48-megapixel JPEG decoded, and decoded and read, whole and reduced: medians and peak memory."""
    source = read_image(labelled_photos(folder)[-1][0]) if folder.is_dir() else np.full((540, 960, 3), 90, np.uint8)
    big = cv2.resize(source, PHONE, interpolation=cv2.INTER_CUBIC)
    noise = np.random.default_rng(0).integers(0, 12, big.shape, dtype=np.uint8)  # a sensor's, so that it weighs as one
    data = jpeg(cv2.add(big, noise))
    runs: dict[str, Callable[[], object]] = {
        "decode whole": lambda: decode_photo(data),
        "decode reduced": lambda: decode_reduced(data),
        "decode and read whole": lambda: detector.read(decode_photo(data)),
        "decode and read reduced": lambda: detector.read(decode_reduced(data).pixels)}
    medians = alternated_medians(runs, repeats)
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "phone.jpg"
        path.write_bytes(data)
        peaks = {f"{name} MB": _peak(path, "whole" if name.endswith("whole") else str(WORKING_SIDE),
                                     "read" if "read" in name else "decode") for name in runs}
    return {"jpeg_bytes": len(data), **{f"{name} ms": round(seconds * 1000, 1) for name, seconds in medians.items()},
            "decode ratio": round(medians["decode whole"] / medians["decode reduced"], 2),
            "decode and read ratio": round(medians["decode and read whole"] / medians["decode and read reduced"], 2),
            **peaks}


def _peak(path: Path, side: str, what: str) -> float:
    """The peak RSS (MB) a fresh process adds, its modules loaded, to decode (or decode and read) ``path``."""
    done = subprocess.run([sys.executable, "-c", PEAK, str(path), side, what], capture_output=True, text=True,
                          check=True)
    return round(float(done.stdout), 1)


def _codes(reading: Reading) -> list[tuple[str, str | None]]:
    """A reading's codes with their flags, sorted: what the service scores."""
    return sorted((item.code, item.flag or "") for item in reading.items)


def _decoded(side: int, working_side: int | None) -> int:
    """The long side a JPEG with long side ``side`` is decoded to at ``working_side`` (None: whole)."""
    return -(-side // reduction(side, working_side))


def _median(values: list[float]) -> float:
    return round(float(np.median(values or [0])), 1)


def _name(side: int | None) -> str:
    return "whole" if side is None else str(side)


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--real", type=Path, default=Path("../shared/real/cards-edje"))
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--sides", type=whole_number(1), nargs="+", default=[250, 500, 1000, 2000])
    parser.add_argument("--scenes", type=whole_number(1), default=6, help="rendered tables of each --rows (6)")
    parser.add_argument("--rows", type=whole_number(1), nargs="+", default=[5, 10],
                        help="hands on a rendered table, one a row: its cards 12%% or 6%% of its long side (5 10)")
    parser.add_argument("--repeats", type=whole_number(1), default=5, help="timed rounds (5)")
    args = parser.parse_args(argv)
    detector = Detector(args.model)
    sides: list[int | None] = [*args.sides, None]
    figures: dict[str, object] = {f"rendered, {rows} rows": rendered(detector, sides, args.scenes, rows)
                                  for rows in args.rows}
    if args.real.is_dir():
        figures["real"] = real(detector, args.real, sides)
    figures["phone"] = phone_photo(detector, args.real, args.repeats)
    print(json.dumps(figures, indent=2))
    return figures


if __name__ == "__main__":
    main()
