"""The synthetic table-photo generator: labels agree with the drawing, builds repeat, every class appears."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest

from oxeye.datasets.backgrounds import KINDS, table_texture
from oxeye.service.cli import main
from oxeye.vision.classes import CARD_CLASSES, CLASSES, kind_of
from oxeye.vision.decode import iou_matrix

N_IMAGES = 32  # 11 card and 5 tile hand scenes (every third scene of a kind is loose) hold every class


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One modest build with only the project's own decks (no fetched cache needed)."""
    out = tmp_path_factory.mktemp("ds") / "build"
    assert main(["dataset", "build", "--out", str(out), "--images", str(N_IMAGES), "--seed", "7",
                 "--imgsz", "320", "--drawn-only"]) == 0
    return out


def _metas(root: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((root / "meta").glob("*.json"))]


def test_layout_and_yaml(built: Path) -> None:
    names = [f"{i:06d}" for i in range(N_IMAGES)]
    assert sorted(p.stem for p in (built / "images").glob("*.jpg")) == names
    assert sorted(p.stem for p in (built / "labels").glob("*.txt")) == names
    yaml = (built / "data.yaml").read_text()
    assert f'path: "{built.resolve()}"' in yaml and f"  {len(CLASSES) - 1}: '{CLASSES[-1]}'" in yaml


def test_labels_agree_with_the_drawing(built: Path) -> None:
    for meta in _metas(built):
        image = cv2.imread(str(built / meta["image"]))
        h, w = image.shape[:2]
        assert (w, h) == (meta["width"], meta["height"])
        yolo = (built / "labels" / f"{meta['index']:06d}.txt").read_text().split("\n")[:-1]
        assert len(yolo) == len(meta["items"])
        for line, item in zip(yolo, meta["items"]):
            cls, cx, cy, bw, bh = line.split()
            assert int(cls) == item["class_id"] == CLASSES.index(item["code"])
            assert kind_of(item["code"]) == item["kind"] == meta["kind"][:-1]
            x1, y1, x2, y2 = item["box"]
            assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
            assert abs(float(cx) * w - (x1 + x2) / 2) < 0.01 and abs(float(bw) * w - (x2 - x1)) < 0.01
            assert 0 < item["visible_fraction"] <= 1
            # The box is the bounds of the visible outline (simplified by up to a pixel), and not flat.
            pts = np.concatenate([np.array(p) for p in item["visible_outline"]])
            assert (np.abs(pts.min(axis=0) - (x1, y1)) <= 2).all() and (np.abs(pts.max(axis=0) + 1 - (x2, y2)) <= 2).all()
            assert (pts.min(axis=0) >= (x1, y1)).all() and (pts.max(axis=0) < (x2, y2)).all()
            assert image[y1:y2, x1:x2].std() > 1
            assert len(item["outline"]) == 4 and len(item["corner_boxes"]) == 2
            for corner in item["corner_boxes"]:  # the centre of an index (or half) lies inside it
                bx1, by1, bx2, by2 = corner["box"]
                if 0 < bx1 and 0 < by1 and bx2 < w and by2 < h:  # not cut by the image's edge
                    assert bx1 < corner["centre"][0] < bx2 and by1 < corner["centre"][1] < by2
            a, b = (np.array(c["centre"]) for c in item["corner_boxes"])  # the two lie on opposite ends
            assert np.linalg.norm(a - b) > 0.3 * np.linalg.norm(np.subtract(item["outline"][0], item["outline"][2]))
            if item["kind"] == "card":
                assert max(c["visible"] for c in item["corner_boxes"]) >= 0.6 or item["visible_fraction"] >= 0.6
            else:
                assert min(c["visible"] for c in item["corner_boxes"]) >= 0.5
            assert 0 <= item["hand"] < len(meta["hands"])
        listed = sorted(i for hand in meta["hands"] for i in hand["items"])
        assert listed == list(range(len(meta["items"])))


def test_every_class_appears(built: Path) -> None:
    seen = {item["code"] for meta in _metas(built) for item in meta["items"]}
    assert seen == set(CLASSES)


def test_close_ups_of_loose_items_and_phone_or_webcam_frames(built: Path) -> None:
    metas = _metas(built)
    loose = [m for m in metas if m["hands"][0]["arrangement"] == "loose"]
    assert len(loose) == sum(1 for i in range(N_IMAGES) if i // 2 % 3 == 2)  # every third scene of each kind
    for meta in loose:
        hand = meta["hands"][0]
        assert len(meta["hands"]) == 1 and 1 <= len(hand["items"]) + hand["unlabelled"] <= 5
    tall = [max((it["box"][3] - it["box"][1]) / m["height"] for it in m["items"]) for m in loose if m["items"]]
    assert max(tall) >= 0.3  # large in the frame, as in the real photos
    for meta in metas:
        if meta["hands"][0]["arrangement"] != "loose":
            assert all(len(h["items"]) + h["unlabelled"] == 5 for h in meta["hands"])
    shapes = {(m["width"], m["height"]) for m in metas}
    assert {(320, 224), (224, 320), (320, 160)} <= shapes  # 4:3 either way and 16:9 (short side a multiple of 32)


def test_close_up_layouts_lay_items_strewn_in_a_heap_or_in_an_overlapped_row(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from oxeye.datasets import scene as scenes
    from oxeye.datasets.build import load_library

    library = load_library(tmp_path)  # the project's own decks only

    def overlaps(layout: str) -> list[np.ndarray]:
        """Per close-up of three or more items drawn in ``layout``, the IoU of each item's region with the next
        two's (rows: one per item but the last two)."""
        weights = np.array([name == layout for name in scenes.LOOSE_LAYOUTS], np.float64)
        monkeypatch.setattr(scenes, "LOOSE_LAYOUT_WEIGHTS", weights)
        out = []
        for seed in range(30):
            drawn = scenes.render_scene(np.random.default_rng(seed), library, "cards", [], (320, 240), loose=True)
            rois = np.array([item.roi for item in drawn.items], np.float64)
            if len(rois) > 2:
                ious = iou_matrix(rois, rois)
                out.append(np.array([(ious[k, k + 1], ious[k, k + 2]) for k in range(len(rois) - 2)]))
        return out

    heaped, strewn, rows = overlaps("heap"), overlaps("strewn"), overlaps("row")
    assert heaped and min(pair[:, 0].min() for pair in heaped) > 0.1  # each laid partly on the last
    assert sum(pair[:, 0].min() > 0.1 for pair in strewn) < len(strewn) / 2
    assert rows and min(pair[:, 0].min() for pair in rows) > 0.1
    assert all((pair[:, 1] < pair[:, 0]).all() for pair in rows)  # always on to the same side: the row moves on


def test_same_seed_same_bytes(built: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    assert main(["dataset", "build", "--out", str(again), "--images", "6", "--seed", "7", "--imgsz", "320",
                 "--drawn-only", "--workers", "1"]) == 0
    for path in sorted(again.rglob("*.*")):
        if path.name != "data.yaml":
            assert path.read_bytes() == (built / path.relative_to(again)).read_bytes(), path


def test_preview_draws_a_sheet(built: Path, tmp_path: Path) -> None:
    sheet = tmp_path / "sheet.png"
    assert main(["dataset", "preview", str(built), "--out", str(sheet), "--count", "4"]) == 0
    assert cv2.imread(str(sheet)).shape[:2] == (400, 1600)


@pytest.mark.parametrize("args, message", [
    (["--images", "0"], "--images must be at least 1"),
    (["--imgsz", "650"], "--imgsz must be a multiple of 32"),
    (["--imgsz", "64000"], "--imgsz must be a multiple of 32 from 128 to 4096, got 64000"),  # ran out of memory
    (["--kinds", "cards,dice"], "--kinds must be"),
    (["--boxes", "outline"], "--boxes must be one of visible, main, got 'outline'"),
    (["--decks", "/no/such/decks"], "--decks /no/such/decks holds no fetched deck"),  # once built without them
])
def test_bad_arguments_give_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                                           message: str) -> None:
    base = {"--out": str(tmp_path / "o"), "--images": "3", "--seed": "1"}
    for flag, value in zip(args[::2], args[1::2]):
        base[flag] = value
    assert main(["dataset", "build", *[x for kv in base.items() for x in kv]]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and message in err


def test_unwritable_or_file_out_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "a-file"
    target.write_text("x")
    assert main(["dataset", "build", "--out", str(target), "--images", "1", "--seed", "1"]) == 2
    assert "not a directory" in capsys.readouterr().err
    assert main(["dataset", "build", "--out", str(target / "build"), "--images", "1", "--seed", "1"]) == 2
    assert capsys.readouterr().err == f"oxeye dataset build: error: cannot make the folder {target}: {target} is a file\n"


def test_a_folder_where_nothing_can_be_made_is_named_as_typed(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """/proc passes the access check, root's everywhere too; the error named the hidden staging folder."""
    def refuse(**_: object) -> str:
        raise PermissionError(13, "Permission denied", str(tmp_path / ".out.x1y2"))
    monkeypatch.setattr(tempfile, "mkdtemp", refuse)
    assert main(["dataset", "build", "--out", str(tmp_path / "out"), "--images", "1", "--seed", "1"]) == 2
    assert capsys.readouterr().err == (f"oxeye dataset build: error: --out {tmp_path / 'out'} cannot be written there: "
                                       "Permission denied\n")


@pytest.mark.parametrize("stop, kill", [
    (signal.SIGINT, os.killpg),  # Ctrl-C, to the whole process group as a terminal sends it
    (signal.SIGTERM, os.kill),  # kill or timeout, to the parent alone: it left its staging folder behind
    (signal.SIGTERM, os.killpg),  # a service manager's stop, to every process
])
def test_an_interrupt_ends_a_build_in_one_line_leaving_nothing(tmp_path: Path, stop: signal.Signals,
                                                                kill: Callable[[int, int], None]) -> None:
    """Ctrl-C printed 64 lines of tracebacks, the parent's and each worker's."""
    build = subprocess.Popen([sys.executable, "-m", "oxeye.service.cli", "dataset", "build", "--out",
                              str(tmp_path / "out"), "--images", "5000", "--seed", "1", "--imgsz", "320",
                              "--drawn-only", "--workers", "2"],
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob(".out.*/images/*.jpg")) and time.monotonic() < deadline:
        time.sleep(0.1)
    kill(build.pid, stop)
    err = build.communicate(timeout=60)[1]
    assert build.returncode == 130 and "Traceback" not in err and "oxeye dataset build: interrupted\n" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(shutil.which("npm") is None, reason="fetch-decks needs npm before it makes its folder")
def test_fetching_decks_into_a_file_is_refused_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """It said 'File exists: notes.txt', as though the folder were there."""
    notes = tmp_path / "notes.txt"
    notes.write_text("not a folder")
    assert main(["dataset", "fetch-decks", "--decks", str(notes)]) == 2
    assert capsys.readouterr().err == f"oxeye dataset fetch-decks: error: cannot make the folder {notes}: {notes} is a file\n"


def test_preview_of_an_empty_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dataset", "preview", str(tmp_path), "--out", str(tmp_path / "s.png")]) == 2
    assert "build a dataset there first" in capsys.readouterr().err


@pytest.mark.parametrize("record", ['{"items": []}', '{"image": "images/000000.jpg", "items": [{}]}', "[]", "{"])
def test_preview_of_a_folder_of_other_records_is_refused_naming_one(built: Path, tmp_path: Path, record: str,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """A record with no image or item keys ended in a KeyError's traceback; unreadable JSON named no file."""
    (tmp_path / "other" / "meta").mkdir(parents=True)
    shutil.copytree(built / "images", tmp_path / "other" / "images")
    (tmp_path / "other" / "meta" / "a.json").write_text(record)
    assert main(["dataset", "preview", str(tmp_path / "other"), "--out", str(tmp_path / "s.png")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"oxeye dataset preview: error: {tmp_path / 'other' / 'meta' / 'a.json'} is not a record written by")
    assert err.count("\n") == 1 and not (tmp_path / "s.png").exists()


@pytest.mark.parametrize(("count", "message"), [
    ("0", "must be at least 1, got 0"),  # said the build held no images
    ("-1", "must be at least 1, got -1"),  # drew all but the last
    ("two", "not a whole number: 'two' (write it in the digits 0 to 9)"),  # named the parsing function
])
def test_preview_of_no_images_is_refused(built: Path, tmp_path: Path, count: str, message: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["dataset", "preview", str(built), "--out", str(tmp_path / "sheet.png"), "--count", count])
    assert stop.value.code == 2
    assert capsys.readouterr().err == f"oxeye dataset preview: error: argument --count: {message}\n"
    assert not (tmp_path / "sheet.png").exists()


def test_preview_to_a_name_no_picture_can_have_is_refused_before_any_drawing(built: Path, tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["dataset", "preview", str(built), "--out", str(tmp_path / "sheet.xyz")])
    assert stop.value.code == 2 and "end it in .jpg or .png" in capsys.readouterr().err
    assert not (tmp_path / "sheet.xyz").exists()


@pytest.mark.parametrize("name", ["000000.jpg", "sheet.png"])
def test_preview_among_the_builds_images_is_refused(built: Path, tmp_path: Path, name: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """--out DS/images/000000.jpg wrote the sheet over a labelled image (its labels then described the sheet);
    a new name there added an unlabelled photo that training reads as bare table."""
    copy = tmp_path / "build"
    shutil.copytree(built, copy)
    before = sorted((p.name, p.read_bytes()) for p in (copy / "images").iterdir())
    assert main(["dataset", "preview", str(copy), "--out", str(copy / "images" / name)]) == 2
    assert capsys.readouterr().err == (f"oxeye dataset preview: error: --out {copy / 'images' / name} is among the build's "
                                       f"images in {copy / 'images'}: write the sheet elsewhere\n")
    assert sorted((p.name, p.read_bytes()) for p in (copy / "images").iterdir()) == before


def test_a_build_boxed_by_main_parts_draws_the_same_photos_with_boxes_inside_the_visible_ones(
        built: Path, tmp_path: Path) -> None:
    """``--boxes main`` changes the labels only: the same photos, each box within its item's box of
    all visible pixels, some of them smaller (cards tucked under others), and the build says so."""
    out = tmp_path / "main"
    assert main(["dataset", "build", "--out", str(out), "--images", str(N_IMAGES), "--seed", "7",
                 "--imgsz", "320", "--drawn-only", "--boxes", "main"]) == 0
    smaller = 0
    for visible, boxed in zip(_metas(built), _metas(out)):
        assert (built / visible["image"]).read_bytes() == (out / boxed["image"]).read_bytes()
        assert (visible["boxes"], boxed["boxes"]) == ("visible", "main")
        assert [i["code"] for i in visible["items"]] == [i["code"] for i in boxed["items"]]
        for a, b in zip(visible["items"], boxed["items"]):
            (ax1, ay1, ax2, ay2), (bx1, by1, bx2, by2) = a["box"], b["box"]
            assert ax1 <= bx1 < bx2 <= ax2 and ay1 <= by1 < by2 <= ay2
            smaller += a["box"] != b["box"]
    assert smaller > 0


def test_a_card_tucked_under_another_is_boxed_by_the_part_that_shows() -> None:
    """A card under another shows a strip with its index beside it and a thin edge above it: boxed by
    its main visible part (``boxes="main"``), its box is the strip, as the real photos' labels box
    such a card; by all its visible pixels (the default), its whole outline, which the thin edge
    spans. A card wholly in view keeps the box of all its pixels either way."""
    import numpy as np

    from oxeye.datasets.build import load_library
    from oxeye.datasets.labels import STRIP, scene_labels
    from oxeye.datasets.paths import DEFAULT_CACHE
    from oxeye.datasets.scene import Placed, Scene

    deck = next(iter(load_library(DEFAULT_CACHE).card_decks.values()))
    under, over = deck["9H"], deck["4H"]
    fw, fh = under.size
    scale = 200 / fw  # cards 200 pixels wide
    width, height = round(200 * 1.6 + 200), round(fh * scale * 1.06 + 200)
    idmap = np.full((height, width), -1, np.int32)
    shift = (-0.6 * 200, 0.06 * fh * scale)  # the card on top lies left of the other and a little lower

    def placed(face: object, x: float, y: float, owner: int) -> Placed:
        matrix = np.array([[scale, 0, x], [0, scale, y], [0, 0, 1]])
        x1, y1, x2, y2 = round(x), round(y), round(x + fw * scale), round(y + fh * scale)
        idmap[y1:y2, x1:x2] = owner
        return Placed(face, 0, matrix, (x1, y1, x2, y2))

    items = [placed(under, 220, 100, 0), placed(over, 220 + shift[0], 100 + shift[1], 1)]
    scene = Scene(np.zeros((height, width, 3), np.uint8), idmap, items, [("row", 2)])
    boxes = {r["code"]: r["box"] for r in scene_labels(scene, "main")}
    strip_left = 220 + 200 + shift[0]  # where the card on top ends
    assert strip_left - STRIP * 200 - 1 <= boxes["9H"][0] < strip_left  # within a kernel of the strip, not at 220
    assert boxes["9H"][1:] == [100, 220 + 200, 100 + round(fh * scale)]
    assert boxes["4H"] == list(items[1].roi)
    assert [r["box"] for r in scene_labels(scene)] == [[220, 100, 420, 100 + round(fh * scale)], boxes["4H"]]


def test_glare_marks_the_pixels_it_burns_out_and_a_later_item_covers_them() -> None:
    """Where a lamp's glare leaves ink within a tenth of white the scene marks the pixel burnt, and
    only there; a camera's gain over 1 lifts glared ink with the paper, burning fainter glare out, and
    one under 1 burns nothing more; an item drawn over it later owns the pixel unburnt."""
    import numpy as np

    from oxeye.datasets import scene as scenes

    black = np.zeros((100, 80, 4), np.uint8)
    black[..., 3] = 255
    scene = scenes.Scene(np.full((200, 200, 3), 90, np.uint8), np.full((200, 200), scenes.EMPTY, np.int16))
    place = np.array([[1.0, 0, 60], [0, 1.0, 50], [0, 0, 1]])
    burnt = 0
    for seed in range(20):  # some glares are too faint to burn anything: look until one does
        scenes._composite(scene, np.random.default_rng(seed), black, place, 0, 0.0, True)
        burnt = np.count_nonzero(scene.burnt())
        if burnt:
            break
    assert burnt > 0
    inside = scene.idmap == 0
    assert not (scene.burnt() & ~inside).any()
    whiteness = scene.image.min(axis=2)
    assert whiteness[scene.burnt()].min() >= 255 * scenes.BURNT - 1  # burnt: within a tenth of white
    assert whiteness[inside & ~scene.burnt()].max() < 255 * scenes.BURNT + 1
    brighter = scene.burnt(np.full(scene.idmap.shape, 1.3))
    assert (brighter >= scene.burnt()).all() and np.count_nonzero(brighter) > burnt
    assert whiteness[brighter].min() * 1.3 >= 255 * scenes.BURNT - 1  # clipped to within a tenth of white
    assert (scene.burnt(0.8) == scene.burnt()).all()
    scenes._composite(scene, np.random.default_rng(0), black, place, 1, 0.0, False)
    assert not scene.burnt(1.5).any() and (scene.idmap[inside] == 1).all()


def test_a_card_whose_only_showing_index_glare_burnt_out_is_not_labelled() -> None:
    """A card tucked under another shows one index: labelled while the index reads, unlabelled once
    glare burns it out (here, glare a bright camera lifts to white: no one could name it), and labelled
    again when the glare burns elsewhere."""
    import numpy as np

    from oxeye.datasets.build import load_library
    from oxeye.datasets.labels import label_scene, scene_labels
    from oxeye.datasets.paths import DEFAULT_CACHE
    from oxeye.datasets.scene import Placed, Scene

    deck = next(iter(load_library(DEFAULT_CACHE).card_decks.values()))
    under, over = deck["9H"], deck["4H"]
    fw, fh = under.size
    idmap = np.full((fh + 40, 2 * fw), -1, np.int32)

    def placed(face: object, x: int, owner: int) -> Placed:
        idmap[20:20 + fh, x:x + fw] = owner
        return Placed(face, 0, np.array([[1.0, 0, x], [0, 1.0, 20], [0, 0, 1]]), (x, 20, x + fw, 20 + fh))

    items = [placed(under, 10, 0), placed(over, 10 + round(0.25 * fw), 1)]  # its left quarter shows
    scene = Scene(np.zeros((fh + 40, 2 * fw, 3), np.uint8), idmap, items)
    assert [r["code"] for r in scene_labels(scene)] == ["9H", "4H"]
    x1, y1, x2, y2 = (round(v) for v in under.index_boxes[0])
    scene.glare[20 + y1:20 + y2, 10 + x1:10 + x2] = 0.8  # glare that burns the index out under a bright light
    assert [r["code"] for r in scene_labels(scene)] == ["9H", "4H"]
    records, burnt_out = label_scene(scene, light=1.2)
    assert [r["code"] for r in records] == ["4H"] and [r["code"] for r in burnt_out] == ["9H"]
    scene.glare[:] = 0
    scene.glare[20 + fh // 2:20 + fh, 10:10 + fw // 5] = 1  # the strip's lower half, away from the index
    assert [r["code"] for r in scene_labels(scene)] == ["9H", "4H"]


def test_a_whole_card_is_labelled_while_its_face_shows_and_not_once_glare_burns_it_all_out() -> None:
    """A card in full view is named by its pips or court even with both indices burnt out; glare over the
    whole of it (a lamp's reflection filling a glossy card) leaves nothing to name it by."""
    import numpy as np

    from oxeye.datasets.build import load_library
    from oxeye.datasets.labels import label_scene
    from oxeye.datasets.paths import DEFAULT_CACHE
    from oxeye.datasets.scene import Placed, Scene

    face = next(iter(load_library(DEFAULT_CACHE).card_decks.values()))["KH"]
    fw, fh = face.size
    scene = Scene(np.zeros((fh + 20, fw + 20, 3), np.uint8), np.full((fh + 20, fw + 20), -1, np.int32),
                  [Placed(face, 0, np.array([[1.0, 0, 10], [0, 1.0, 10], [0, 0, 1]]), (10, 10, 10 + fw, 10 + fh))])
    scene.idmap[10:10 + fh, 10:10 + fw] = 0
    for box in face.index_boxes:
        x1, y1, x2, y2 = (round(v) for v in box)
        scene.glare[8 + y1:12 + y2, 8 + x1:12 + x2] = 1  # each index and a pixel or two round it
    records, burnt_out = label_scene(scene)
    assert [r["code"] for r in records] == ["KH"] and not burnt_out
    assert [corner["visible"] for corner in records[0]["corner_boxes"]] == [0, 0]
    scene.glare[10:10 + fh, 10:10 + fw] = 0.8  # white once a camera's gain of 1.2 lifts it
    assert [r["code"] for r in label_scene(scene)[0]] == ["KH"]
    records, burnt_out = label_scene(scene, light=1.2)
    assert not records and [r["code"] for r in burnt_out] == ["KH"]


def test_render_hands_draws_exactly_the_given_hands() -> None:
    """The trainer's and read-back pictures: every given item fully visible, in its row."""
    import numpy as np

    from oxeye.datasets.build import load_library
    from oxeye.datasets.labels import scene_labels
    from oxeye.datasets.paths import DEFAULT_CACHE
    from oxeye.datasets.scene import render_hands

    hands = [["AS", "10H", "QD", "3C", "7S"], ["KC", "2D", "9H", "6S", "JH"]]
    scene = render_hands(np.random.default_rng(4), load_library(DEFAULT_CACHE), "cards", hands, (960, 720))
    records = scene_labels(scene)
    assert sorted((r["hand"], r["code"]) for r in records) == sorted((h, c) for h, codes in enumerate(hands) for c in codes)
    assert all(r["visible_fraction"] > 0.99 for r in records)
    tops = {h: min(r["box"][1] for r in records if r["hand"] == h) for h in (0, 1)}
    assert tops[0] < tops[1]


@pytest.mark.parametrize("kind", ["cards", "tiles"])
def test_render_hands_puts_no_glare_on_a_face(kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lamp's glare burnt a drill's pips and indices out to white (a 6-6 read as ?-6): the trainee could
    not read the hands being asked about. Training scenes keep their glare."""
    import numpy as np

    from oxeye.datasets import scene as scenes
    from oxeye.datasets.build import load_library

    glares: list[bool] = []
    composite = scenes._composite
    monkeypatch.setattr(scenes, "_composite", lambda *args: glares.append(args[6]) or composite(*args))
    library = load_library(tmp_path / "no-decks")
    codes = ["AS", "10H", "QD", "3C", "7S"] if kind == "cards" else ["6-6", "4-2", "5-3", "1-1", "3-2"]
    for seed in range(12):
        scenes.render_hands(np.random.default_rng(seed), library, kind, [codes, codes], (480, 360))
    assert len(glares) == 12 * 10 and not any(glares)


def test_a_full_out_is_refused_unless_overwritten(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ds"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    args = ["dataset", "build", "--out", str(out), "--images", "2", "--seed", "1", "--imgsz", "320", "--workers", "1"]
    assert main(args) == 2
    assert "already holds files" in capsys.readouterr().err
    assert [p.name for p in out.iterdir()] == ["keep.txt"]  # untouched
    # --overwrite replaces an earlier build only: a folder of other files (--out . in one's home) once went whole
    assert main([*args, "--overwrite"]) == 2
    assert "holds files but no build" in capsys.readouterr().err
    assert [p.name for p in out.iterdir()] == ["keep.txt"]
    (out / "keep.txt").unlink()
    assert main(args) == 0
    first = (out / "images" / "000000.jpg").read_bytes()
    assert main([*args[:-4], "--seed", "2", *args[-4:], "--overwrite"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["data.yaml", "images", "labels", "meta"]
    assert (out / "images" / "000000.jpg").read_bytes() != first  # the earlier build replaced
    assert f'path: "{out.resolve()}"' in (out / "data.yaml").read_text()


def test_a_build_interrupted_as_it_replaces_an_earlier_one_leaves_a_whole_build(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """--overwrite removed the earlier build before moving the new one in: an interrupt as it was removed
    (seconds for a large build) left it half removed, records without their images, and the new one gone."""
    out = tmp_path / "ds"
    args = ["dataset", "build", "--out", str(out), "--images", "2", "--seed", "1", "--imgsz", "128", "--workers", "1",
            "--drawn-only"]
    assert main(args) == 0
    remove = shutil.rmtree

    def interrupted(path: object, *rest: object, **options: object) -> None:
        """Remove the first folder asked for, then stop as Ctrl-C stops it; any later one is removed as asked."""
        monkeypatch.setattr(shutil, "rmtree", remove)
        remove(path, *rest, **options)
        raise KeyboardInterrupt

    monkeypatch.setattr(shutil, "rmtree", interrupted)
    assert main([*args, "--overwrite"]) == 130
    assert capsys.readouterr().err.endswith("oxeye dataset build: interrupted\n")
    assert sorted(p.name for p in out.iterdir()) == ["data.yaml", "images", "labels", "meta"]
    for sub, suffix in (("images", ".jpg"), ("labels", ".txt"), ("meta", ".json")):
        assert sorted(p.name for p in (out / sub).iterdir()) == [f"00000{n}{suffix}" for n in range(2)]
    assert list(tmp_path.iterdir()) == [out]  # nothing staged left beside it


def test_a_build_into_the_working_folder_fills_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--out . staged its build inside the folder, which was then emptied: 'Invalid argument: .', nothing written."""
    here = tmp_path / "ds"
    here.mkdir()
    monkeypatch.chdir(here)
    args = ["dataset", "build", "--out", ".", "--images", "2", "--seed", "1", "--imgsz", "320", "--workers", "1"]
    assert main(args) == 0
    assert main([*args, "--overwrite"]) == 0  # and again, over the earlier build
    assert sorted(p.name for p in here.iterdir()) == ["data.yaml", "images", "labels", "meta"]
    assert sorted(p.name for p in (here / "images").iterdir()) == ["000000.jpg", "000001.jpg"]
    assert f'path: "{here.resolve()}"\n' in (here / "data.yaml").read_text()
    assert list(tmp_path.iterdir()) == [here]  # no staging folder left beside it


def test_a_failed_build_leaves_nothing_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    from oxeye.datasets import build as build_module

    calls = []

    def failing(index, config, library):
        calls.append(index)
        if len(calls) == 2:
            raise OSError("disk full")
        return original(index, config, library)

    original = build_module.write_one
    monkeypatch.setattr(build_module, "write_one", failing)
    out = tmp_path / "ds"
    assert main(["dataset", "build", "--out", str(out), "--images", "3", "--seed", "1", "--imgsz", "320",
                 "--workers", "1"]) == 2
    assert "disk full" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # neither the dataset nor its staging folder


@pytest.mark.parametrize("kind", KINDS)
def test_every_table_kind_repeats_and_fills_the_texture(kind: str) -> None:
    for seed in range(4):  # several seeds: clutter near the edges, boards or none, knots and arches
        first = table_texture(np.random.default_rng(seed), (120, 160), kind)
        assert first.shape == (120, 160, 3) and first.dtype == np.uint8
        assert np.array_equal(first, table_texture(np.random.default_rng(seed), (120, 160), kind))
        assert first.std() > 1  # not a flat fill


def test_every_tile_face_shows_its_pips_and_the_long_three_meets_at_the_middle() -> None:
    from oxeye.datasets.tiles import tile_sets

    for name, faces in tile_sets().items():
        for code, face in faces.items():
            rgb = face.levels[0][..., :3].astype(np.int16)
            body = np.median(rgb[rgb.shape[0] // 2 - 2:rgb.shape[0] // 2 + 2, :8].reshape(-1, 3), axis=0)
            inside = cv2.erode((face.levels[0][..., 3] == 255).astype(np.uint8), np.ones((9, 9))).astype(bool)
            inked = (np.abs(rgb - body).sum(axis=2) > 150) & inside  # pips, not the bevel at the rim
            _, _, stats, centres = cv2.connectedComponentsWithStats(inked.astype(np.uint8))
            pips = centres[1:][stats[1:, cv2.CC_STAT_AREA] > 20]
            assert len(pips) == sum(int(n) for n in code.split("-")), (name, code)
            if code == "3-3":  # two pips side by side on the centre line, the rest down the middle
                middle = pips[np.abs(pips[:, 1] - rgb.shape[0] / 2) < 3]
                assert len(middle) == 2 and abs(middle[:, 0].mean() - rgb.shape[1] / 2) < 3


def _fake_package(folder: Path) -> Path:
    """A tarball laid out as the npm deck package: every design's faces as small SVGs with an index."""
    from oxeye.datasets.decks import DESIGNS, _svg_name

    svg = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="2.5in" '
           'height="3.5in" viewBox="-120 -168 240 336"><defs><rect id="V1" width="1" height="1"/>'
           '<rect id="S1" width="1" height="1"/></defs><rect x="-120" y="-168" width="240" height="336" fill="#fff"/>'
           '<use xlink:href="#V1" height="32" x="-114" y="-156"/><use xlink:href="#S1" height="26" x="-111" y="-120"/></svg>')
    tarball = folder / "package.tgz"
    with tarfile.open(tarball, "w:gz") as tar:
        files = {"package/LICENSE": "MIT"} | {f"package/src/images/{d}/{_svg_name(c)}": svg
                                              for d in DESIGNS for c in CARD_CLASSES}
        for name, text in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(text.encode())
            tar.addfile(info, io.BytesIO(text.encode()))
    return tarball


@pytest.fixture
def fake_npm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """fetch_decks offline: 'npm pack' gives the fake package's tarball."""
    from oxeye.datasets import decks

    tarball = _fake_package(tmp_path)

    def pack(command: list[str], **_: object) -> subprocess.CompletedProcess:
        shutil.copy(tarball, Path(command[command.index("--pack-destination") + 1]) / tarball.name)
        return subprocess.CompletedProcess(command, 0, stdout=f"{tarball.name}\n", stderr="")

    monkeypatch.setattr(decks.subprocess, "run", pack)
    monkeypatch.setattr(decks.shutil, "which", lambda name: f"/usr/bin/{name}")


@pytest.mark.usefixtures("fake_npm")
def test_a_fetch_stopped_halfway_leaves_the_design_it_was_rewriting_unlisted(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A second fetch stopped mid-design left the first fetch's boxes beside half-rewritten faces: the design
    was listed (and a face cut short by the stop silently dropped it from every build)."""
    import resvg_py

    from oxeye.datasets import decks

    cache = tmp_path / "decks"
    assert decks.fetch_decks(cache) == list(decks.DESIGNS) == decks.fetched_designs(cache)
    render, rendered = resvg_py.svg_to_bytes, []

    def stopped(**kwargs: object) -> bytes:
        if len(rendered) == 60:  # eight faces into the second design
            raise KeyboardInterrupt
        rendered.append(1)
        return render(**kwargs)

    monkeypatch.setattr(resvg_py, "svg_to_bytes", stopped)
    with pytest.raises(KeyboardInterrupt):
        decks.fetch_decks(cache)
    assert decks.fetched_designs(cache) == [d for d in decks.DESIGNS if d != decks.DESIGNS[1]]


@pytest.mark.usefixtures("fake_npm")
def test_a_fetch_stopped_as_it_writes_a_designs_boxes_leaves_them_unlisted(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """index_boxes.json was written in place: a fetch stopped as it wrote them left them cut short, the design
    listed, and the next build failed in JSON's words, naming no file."""
    from oxeye.datasets import decks

    opened = Path.open

    def stopped(self: Path, mode: str = "r", *args: object, **kwargs: object) -> object:
        file = opened(self, mode, *args, **kwargs)
        if "w" in mode and "index_boxes.json" in self.name:  # the first byte written, then Ctrl-C
            file.write(b"{" if "b" in mode else "{")
            file.close()
            raise KeyboardInterrupt
        return file

    monkeypatch.setattr(Path, "open", stopped)
    with pytest.raises(KeyboardInterrupt):
        decks.fetch_decks(tmp_path / "decks")
    monkeypatch.undo()
    assert decks.fetched_designs(tmp_path / "decks") == []
    assert decks.load_fetched_decks(tmp_path / "decks") == {}
    assert not list((tmp_path / "decks" / decks.DESIGNS[0]).glob(".*"))  # nothing left aside


@pytest.mark.usefixtures("fake_npm")
def test_a_build_refuses_a_fetched_design_not_whole_naming_the_file(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A corrupt face left its design out unsaid: a build naming --decks whose every design was so ran without
    fetched decks (the docs say it never does), and boxes cut short failed in JSON's words, naming no file."""
    from oxeye.datasets import decks

    cache, out = tmp_path / "decks", tmp_path / "build"
    decks.fetch_decks(cache)
    build = ["dataset", "build", "--decks", str(cache), "--out", str(out), "--images", "1", "--seed", "0",
             "--imgsz", "128", "--workers", "1"]
    refetch = f"run 'oxeye dataset fetch-decks --decks {cache}' again, or build with --drawn-only\n"
    (cache / decks.DESIGNS[1] / "AS.png").write_bytes(b"not a PNG")
    assert main(build) == 2
    face = cache / decks.DESIGNS[1] / "AS.png"
    assert capsys.readouterr().err == f"oxeye dataset build: error: {face} is not a face fetched whole: {refetch}"
    (cache / decks.DESIGNS[0] / "index_boxes.json").write_text('{"AS": [1')
    assert main(build) == 2
    assert capsys.readouterr().err.startswith(f"oxeye dataset build: error: {cache / decks.DESIGNS[0] / 'index_boxes.json'} "
                                              f"is not a fetched deck's boxes (")
    assert not out.exists() and not list(tmp_path.glob(".build*"))  # nothing half built
