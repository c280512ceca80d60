"""`oxeye detect --json` holds its contract (README, JSON contracts) on every photo it reads: rendered scenes,
the same turned by their EXIF orientation, in other formats, enlarged and laid out as a panorama, and the real
photos where this machine has them.

Skipped until a trained model is shipped (see models/MODEL_CARD.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from oxeye.engine.hands import parse_item
from oxeye.models import DEFAULT_MODEL
from oxeye.service.cli import main
from oxeye.vision.cli import REAL_CARDS
from oxeye.vision.reading import AMBIGUOUS, LOW_CONFIDENCE, NO_COLOUR, UNSURE_HAND
from scenes import build_scenes

pytestmark = pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no model shipped yet in models/")

REAL_TILES = Path(REAL_CARDS).with_name("dominoes-reference")
REAL_EVERY = 25  # one real card photo in this many (of 296): each is read in a process's fraction of a second
FLAGS = {None, LOW_CONFIDENCE, AMBIGUOUS, UNSURE_HAND, NO_COLOUR}
ROUNDING = 0.1  # boxes are given to a tenth of a pixel


def _refuse_constant(name: str) -> None:
    """A JSON reader's ``parse_constant``: NaN and Infinity are no JSON, and a strict reader refuses them."""
    raise ValueError(f"{name} in the output")


def detected(photo: Path, capfd: pytest.CaptureFixture[str]) -> dict:
    """``oxeye detect PHOTO --json``'s answer, which must be one JSON document on stdout, alone, and nothing on stderr."""
    assert main(["detect", str(photo), "--json"]) == 0
    out, err = capfd.readouterr()
    assert err == "" and out.endswith("}\n") and out.count("\n") == 1
    return json.loads(out, parse_constant=_refuse_constant)


def shown_size(photo: Path) -> tuple[int, int]:
    """The photo's width and height as a viewer shows it: upright as its EXIF orientation says."""
    from PIL import Image, ImageOps

    with Image.open(photo) as image:
        return ImageOps.exif_transpose(image).size


def check_box(box: list[float], width: int, height: int) -> None:
    """A box is [x1, y1, x2, y2] in the photo's pixels, inside it, with x1 < x2 and y1 < y2."""
    assert len(box) == 4 and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in box), box
    x1, y1, x2, y2 = box
    assert 0 <= x1 < x2 <= width and 0 <= y1 < y2 <= height, (box, width, height)


def check_item(item: dict, width: int, height: int, hands: int) -> None:
    """An item's fields: its code in the engine's notation, its kind the code's, its box, confidence, hand and flag."""
    assert set(item) == {"code", "kind", "box", "confidence", "hand", "flag"}
    assert parse_item(item["code"]).code == item["code"]  # read by the engine and written back the same
    assert item["kind"] == ("tile" if "-" in item["code"] else "card")
    check_box(item["box"], width, height)
    assert 0 <= item["confidence"] <= 1 and item["hand"] in range(hands) and item["flag"] in FLAGS


def centres(members: list[dict]) -> np.ndarray:
    """The centres (N, 2) of the ``members``' boxes."""
    return np.array([item["box"] for item in members]).reshape(-1, 2, 2).mean(axis=1)


def runs_along(members: list[dict], axis: int) -> list[list[str]]:
    """The ``members``' codes in the order they lie along ``axis`` (0: left to right, 1: top to bottom; then across
    it), in runs of members whose centres lie within the boxes' rounding of each other along it: either order."""
    at = centres(members)
    order = sorted(range(len(members)), key=lambda i: (at[i, axis], at[i, 1 - axis]))
    runs = [[order[0]]]
    for last, i in zip(order, order[1:]):
        if at[i, axis] - at[last, axis] <= ROUNDING:
            runs[-1].append(i)
        else:
            runs.append([i])
    return [sorted(members[i]["code"] for i in run) for run in runs]


def lie_along(codes: list[str], members: list[dict]) -> bool:
    """Whether ``codes`` are the ``members``' in the order they lie along their hand: left to right, or top to
    bottom where the hand lies more upright than across (either where its spans differ by no more than rounding)."""
    spans = np.ptp(centres(members), axis=0)
    for axis in (axis for axis in (0, 1) if spans[axis] >= spans[1 - axis] - ROUNDING):
        runs = runs_along(members, axis)
        starts = np.cumsum([0] + [len(run) for run in runs])
        if all(sorted(codes[start:start + len(run)]) == run for start, run in zip(starts, runs)):
            return True
    return False


def check_hand(hand: dict, index: int, items: list[dict], width: int, height: int) -> None:
    """Hand ``index``: its codes its items' in the order they lie along it, its box their boxes' union."""
    assert set(hand) == {"index", "codes", "box"} and hand["index"] == index
    members = [item for item in items if item["hand"] == index]
    assert 1 <= len(members) <= 5 and lie_along(hand["codes"], members), (hand, members)
    corners = np.array([item["box"] for item in members])
    assert hand["box"] == [*corners[:, :2].min(axis=0).tolist(), *corners[:, 2:].max(axis=0).tolist()]
    check_box(hand["box"], width, height)


def check_contract(photo: Path, capfd: pytest.CaptureFixture[str]) -> dict:
    """Read ``photo`` with ``oxeye detect --json`` and check its answer field by field; the answer."""
    data = detected(photo, capfd)
    assert set(data) == {"width", "height", "items", "hands"}
    width, height = shown_size(photo)
    assert (data["width"], data["height"]) == (width, height)
    for item in data["items"]:
        check_item(item, width, height, len(data["hands"]))
    for index, hand in enumerate(data["hands"]):
        check_hand(hand, index, data["items"], width, height)
    return data


@pytest.fixture(scope="module")
def scenes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four held-out rendered photos (a seed the training builds do not use) at 1280 px."""
    return build_scenes(tmp_path_factory.mktemp("contract") / "ds", 4, 90017, 1280)


def test_every_rendered_photo_read_holds_the_contract(scenes: Path, capfd: pytest.CaptureFixture[str]) -> None:
    photos = sorted((scenes / "images").glob("*.jpg"))
    assert sum(len(check_contract(photo, capfd)["hands"]) for photo in photos) >= 4


def _variants(scene: Path, out: Path) -> list[Path]:
    """``scene`` turned by EXIF orientations 3, 6 and 8, in grey and in other formats, enlarged five times (decoded
    reduced, its boxes scaled back) and three times side by side (a panorama, read in windows)."""
    from PIL import Image

    with Image.open(scene) as image:
        photo = image.copy()
    variants = []
    for orientation in (3, 6, 8):
        exif = Image.Exif()
        exif[0x0112] = orientation
        photo.save(path := out / f"turned-{orientation}.jpg", exif=exif.tobytes())
        variants.append(path)
    for name, picture in (("grey.png", photo.convert("L")), ("rgba.webp", photo.convert("RGBA")),
                          ("palette.gif", photo.convert("P")), ("photo.tiff", photo),
                          ("enlarged.jpg", photo.resize((photo.width * 5, photo.height * 5))),
                          ("panorama.jpg", Image.fromarray(np.hstack([np.asarray(photo)] * 3)))):
        picture.save(path := out / name)
        variants.append(path)
    return variants


def test_a_photo_turned_enlarged_or_otherwise_encoded_holds_the_contract(scenes: Path, tmp_path: Path,
                                                                         capfd: pytest.CaptureFixture[str]) -> None:
    for photo in _variants(scenes / "images" / "000000.jpg", tmp_path):
        check_contract(photo, capfd)


@pytest.mark.parametrize("folder", [Path(REAL_CARDS) / "photos", REAL_TILES])
def test_the_real_photos_hold_the_contract(folder: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """The real card photos (one in ``REAL_EVERY``) and the three of a domino set; run from a checkout
    beside ../shared, as oxeye evaluate --real is."""
    photos = sorted(p for p in folder.glob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
    if not photos:
        pytest.skip(f"no real photos in {folder.resolve()} (../shared of the checkout) on this machine")
    for photo in photos[::REAL_EVERY if len(photos) > REAL_EVERY else 1]:
        check_contract(photo, capfd)
