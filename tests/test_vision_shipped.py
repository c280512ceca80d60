"""The shipped model (models/oxeye.onnx): agrees with ultralytics, reads a rendered scene's hands exactly.

Skipped until a trained model is shipped (see models/MODEL_CARD.md).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest

from oxeye.models import DEFAULT_MODEL
from readings import write_labelled_photo
from scenes import build_scenes

if TYPE_CHECKING:
    from oxeye.datasets.scene import Scene
    from oxeye.vision.detector import Detector
    from oxeye.vision.reading import Item

pytestmark = pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no model shipped yet in models/")
# The bar for a busy scene, which the shipped model does not reach yet (the reason says how far; see
# models/MODEL_CARD.md). Strict: the suite fails once a model reads it back, so that the mark goes.
NOT_YET = pytest.mark.xfail(strict=True, reason="the shipped model reads 94.9% of held-out items (MODEL_CARD.md)")


@pytest.fixture(scope="module")
def scenes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six held-out rendered photos (a seed the training builds do not use)."""
    return build_scenes(tmp_path_factory.mktemp("held-out") / "ds", 6, 90001, 640)


def test_detections_agree_with_ultralytics_predict_on_the_shipped_model(scenes: Path) -> None:
    from oxeye.vision.decode import iou_matrix
    from oxeye.vision.detector import Detector
    from oxeye.vision.images import read_image
    from oxeye.vision.offline import ultralytics_offline

    ultralytics_offline()
    from ultralytics import YOLO

    detector = Detector()
    theirs = YOLO(str(DEFAULT_MODEL), task="pose")
    for path in sorted((scenes / "images").glob("*.jpg")):
        image = read_image(path)
        ours = detector.detect(image, conf=0.25, iou=0.7)
        result = theirs.predict(image, imgsz=detector.size, conf=0.25, iou=0.7, verbose=False)[0]
        assert len(ours) == len(result.boxes)
        if len(ours):
            same_class = ours.class_ids[:, None] == result.boxes.cls.numpy()[None, :].astype(int)
            overlap = iou_matrix(ours.boxes, result.boxes.xyxy.numpy()) * same_class
            assert overlap.max(axis=1).min() > 0.99
            # each box's keypoints land within a pixel of ultralytics' own (which it clips to the frame)
            partner = result.keypoints.data.numpy()[overlap.argmax(axis=1)]
            clipped = ours.keypoints[..., :2].clip(0, [image.shape[1], image.shape[0]])
            assert np.abs(clipped - partner[..., :2]).max() < 1.0


def test_the_shipped_classifier_is_eight_bit_and_names_crops_as_its_weights_do(scenes: Path) -> None:
    """models/oxeye-cls.onnx is ``oxeye quantize-classifier`` of models/oxeye-cls.pt: its weights fit the 7 bits
    that CPUs with and without VNNI multiply alike, and on the crops at the true keypoints of six held-out photos
    it names at least 98% as the float network does, read as this CPU runs it and unfused, as exact integer
    arithmetic would (``bench.quantized_agreement``), the two within a crop of each other. Quantized with full
    8-bit weights, it named 64% so on a CPU without VNNI, and 99% unfused."""
    import onnx

    from bench.quantized_agreement import agreement
    from oxeye.vision.classifier import CLASSIFIER_NAME, CLASSIFIER_WEIGHTS
    from oxeye.vision.quantize import PAIR_SAFE_WEIGHT, widest_weight

    served = DEFAULT_MODEL.with_name(CLASSIFIER_NAME)
    graph = onnx.load(str(served))
    assert "QuantizeLinear" in {node.op_type for node in graph.graph.node}
    assert 32 < widest_weight(graph) <= PAIR_SAFE_WEIGHT
    figures = agreement(served, DEFAULT_MODEL.with_name(CLASSIFIER_WEIGHTS), scenes)
    assert figures["crops"] > 100 and min(figures["fused"], figures["unfused"]) >= 0.98
    assert abs(figures["fused"] - figures["unfused"]) <= 1 / figures["crops"]


def test_the_agreement_benchmark_reads_some_photos_and_refuses_a_missing_classifier(
        scenes: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bench.quantized_agreement import main

    figures = main([str(scenes), "--photos", "2"])[str(scenes)]
    items = sum(len(json.loads(path.read_text())["items"]) for path in sorted((scenes / "meta").glob("*.json"))[:2])
    assert figures["crops"] == 2 * items and json.loads(capsys.readouterr().out)["crops"] == figures["crops"]
    with pytest.raises(SystemExit) as refused:
        main([str(scenes), "--classifier", str(tmp_path / "none.onnx")])
    assert refused.value.code == 2 and f"no model at {tmp_path / 'none.onnx'}" in capsys.readouterr().err


def test_crops_read_unsure_are_read_again_moved_and_their_readings_averaged(scenes: Path) -> None:
    """``Recheck``: a crop whose best class scores under ``below`` reads as the mean of its own reading and
    its six moved variants'; a sure one as it read once; at a ``below`` of 0 every crop reads once."""
    from oxeye.vision.classifier import CLASSIFIER_NAME, Classifier, Recheck
    from oxeye.vision.crops import Pyramid, item_crops, moved_crops
    from oxeye.vision.evaluate import true_items
    from oxeye.vision.images import read_image

    classifier = Classifier(DEFAULT_MODEL.with_name(CLASSIFIER_NAME))
    meta = json.loads(next((scenes / "meta").glob("*.json")).read_text())
    levels = Pyramid(read_image(scenes / meta["image"]))
    crops = np.concatenate([item_crops(levels, item.kind, item.keypoints, classifier.size) for item in true_items(meta)])
    once = classifier._run(crops)
    unsure = once.max(axis=1) < Recheck().below
    assert 0 < unsure.sum() < len(crops)  # both kinds in one photo
    read = classifier.probabilities(crops)
    moved = moved_crops(crops[unsure], Recheck().shift, Recheck().zoom)
    variants = np.stack([classifier._run(variant) for variant in moved])
    assert np.allclose(read[unsure], (once[unsure] + variants.sum(axis=0)) / (len(moved) + 1), atol=1e-5)
    assert np.array_equal(read[~unsure], once[~unsure])
    classifier.recheck = Recheck(below=0.0)
    assert np.array_equal(classifier.probabilities(crops), once)


def test_the_recheck_sweep_scores_each_setting_as_evaluate_does(hidden: Path) -> None:
    """``recheck_sweep`` BELOW:SHIFT[:ZOOM]: the shipped setting reads as ``evaluate`` does, and a BELOW of 0
    as a detector whose classifier reads each crop once."""
    from bench.recheck_sweep import main
    from oxeye.vision.classifier import Recheck
    from oxeye.vision.detector import Detector
    from oxeye.vision.evaluate import synthetic

    chosen = Recheck()
    figures = main([str(hidden), f"{chosen.below}:{chosen.shift}:{chosen.zoom}", "0:2"])
    assert figures[chosen.below, chosen.shift, chosen.zoom] == synthetic(Detector(), hidden)
    once = Detector()
    once.classifier.recheck = Recheck(below=0.0)
    assert figures[0.0, 2.0] == synthetic(once, hidden)


def test_a_paired_sweep_gives_each_later_setting_s_gain_over_the_first_and_a_timed_one_its_cost(scenes: Path) -> None:
    """``--paired``: a later setting's gain is its items read right less the first's, over the items, with the
    interval ``evaluate.interval`` gives the two readings of the same photos; ``--time``: each setting's
    median time on the benchmark frame, and its ratio to the first's."""
    from bench.recheck_sweep import main
    from oxeye.vision.classifier import Recheck
    from oxeye.vision.detector import Detector
    from oxeye.vision.evaluate import interval, synthetic_by_photo

    figures = main([str(scenes), "0:3", "0.99:3:0.1", "--paired", "--time", "2"])
    off, fussy = figures[0.0, 3.0], figures[0.99, 3.0, 0.1]
    assert "gain_over_first" not in off
    assert fussy["gain_over_first"] == pytest.approx(fussy["item_accuracy"] - off["item_accuracy"])
    readers = [Detector(), Detector()]
    readers[0].classifier.recheck, readers[1].classifier.recheck = Recheck(below=0.0), Recheck(0.99, 3.0, 0.1)
    (_, items, before), (_, _, after) = (synthetic_by_photo(reader, scenes) for reader in readers)
    low, high = fussy["gain_over_first_95"]
    assert [low, high] == interval(items, after, before) and low <= fussy["gain_over_first"] <= high
    assert off["time_over_first"] == 1.0 and off["frame_ms"] > 0 and fussy["frame_ms"] > 0
    assert fussy["time_over_first"] == pytest.approx(fussy["frame_ms"] / off["frame_ms"], rel=0.01)


def test_a_card_s_crop_off_its_box_is_not_read_and_the_items_are_those_read_from_every_crop(
        scenes: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The crop its box does not show counts for nothing (``Shown``), so it is not classified: on six held-out
    photos fewer crops are read, and each photo's items (codes, boxes, scores, flags) are those read from every crop."""
    from oxeye.vision.classifier import Classifier
    from oxeye.vision.detector import Detector
    from oxeye.vision.images import read_image

    detector = Detector()
    classify = detector.classifier.probabilities
    read: list[int] = []

    def counted(crops: np.ndarray) -> np.ndarray:
        read.append(len(crops))
        return classify(crops)

    monkeypatch.setattr(detector.classifier, "probabilities", counted)
    images = [read_image(path) for path in sorted((scenes / "images").glob("*.jpg"))]
    skipping = [detector.read(image).items for image in images]
    fewer = sum(read)
    read.clear()
    monkeypatch.setattr(Classifier, "_read", lambda self, found: np.ones((len(found), 2), bool))
    every = [detector.read(image).items for image in images]
    assert fewer < sum(read) and skipping == every


@NOT_YET
def test_a_rendered_scene_is_read_back_hand_by_hand(scenes: Path) -> None:
    from oxeye.vision.detector import Detector
    from oxeye.vision.images import read_image

    detector = Detector()
    meta = json.loads((scenes / "meta" / "000000.json").read_text())
    reading = detector.read(read_image(scenes / meta["image"]))
    truth = sorted(sorted(meta["items"][i]["code"] for i in hand["items"]) for hand in meta["hands"])
    assert sorted(sorted(hand.codes) for hand in reading.hands) == truth
    assert not any(item.flag for item in reading.items)
    assert len({tuple(np.round(item.box)) for item in reading.items}) == len(reading.items)


def test_a_detector_told_the_tables_kind_reports_no_other(scenes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Told a photo's own kind it reads that kind as before; told the other, it reports none of this
    one; and so does ``oxeye detect --kind``."""
    from oxeye.service.cli import main
    from oxeye.vision.detector import Detector
    from oxeye.vision.classes import KIND_OF_PLURAL
    from oxeye.vision.images import read_image

    detector = Detector()
    kinds_seen = set()
    for path in sorted((scenes / "meta").glob("*.json")):
        meta = json.loads(path.read_text())
        image = read_image(scenes / meta["image"])
        kind = KIND_OF_PLURAL[meta["kind"]]
        kinds_seen.add(kind)
        (other,) = {"card", "tile"} - {kind}
        free, own, wrong = detector.read(image), detector.read(image, kinds=[kind]), detector.read(image, kinds=[other])
        assert [(i.code, i.box) for i in own.items] == [(i.code, i.box) for i in free.items if i.kind == kind]
        assert [h.codes for h in own.hands] == [h.codes for h in free.hands if free.items[h.items[0]].kind == kind]
        assert all(item.kind == other for item in wrong.items)
        assert main(["detect", str(scenes / meta["image"]), "--json", "--kind", other]) == 0
        assert json.loads(capsys.readouterr().out)["items"] == [item.to_json() for item in wrong.items]
    assert kinds_seen == {"card", "tile"}
    with pytest.raises(ValueError, match="item kinds are card and tile, not dice"):
        detector.read(image, kinds=["dice"])


@pytest.mark.parametrize(("kind", "hands"), [
    ("cards", [["AS", "10H", "QD", "7C", "3S"], ["KH", "2D", "9S", "JC", "5H"]]),
    ("tiles", [["6-6", "4-2", "5-3", "1-1", "3-2"], ["2-2", "6-1", "5-5", "4-1", "6-4"]]),
])
def test_a_dealer_drill_picture_is_read_back_exactly(kind: str, hands: list[list[str]], tmp_path: Path) -> None:
    """The trainer's pictures (two known hands in rows, camera straight above) read as dealt."""
    from oxeye.datasets.build import load_library
    from oxeye.datasets.scene import render_hands
    from oxeye.vision.detector import Detector

    scene = render_hands(np.random.default_rng(11), load_library(tmp_path / "no-decks"), kind, hands, (960, 720))
    reading = Detector().read(scene.image)
    assert [sorted(hand.codes) for hand in reading.hands] == [sorted(hand) for hand in hands]
    assert not any(item.flag for item in reading.items)


def _four_rows_laid_close(tmp_path: Path) -> tuple[list[list[str]], Scene]:
    """Four drill rows of five cards in 640 x 480, neighbouring rows drawing together at their ends."""
    from oxeye.datasets.build import load_library
    from oxeye.datasets.scene import render_hands
    from oxeye.vision.classes import CARD_CLASSES

    rng = np.random.default_rng(8)
    deck = rng.permutation(CARD_CLASSES)
    hands = [list(deck[row * 5:row * 5 + 5]) for row in range(4)]
    return hands, render_hands(rng, load_library(tmp_path / "no-decks"), "cards", hands, (640, 480))


def test_a_picture_of_four_rows_laid_close_is_read_row_by_row(tmp_path: Path) -> None:
    """The second row was read as four cards and one, its last card alone (first grouped with the first
    row's last two)."""
    from oxeye.vision.detector import Detector

    hands, scene = _four_rows_laid_close(tmp_path)
    assert [sorted(hand.codes) for hand in Detector().read(scene.image).hands] == [sorted(hand) for hand in hands]


def test_four_rows_laid_close_are_grouped_as_laid_and_a_card_misread_among_them_is_flagged(tmp_path: Path) -> None:
    """The rows' grouping, whatever the names: each hand read holds the reports lying over one row's
    five cards (IoU 0.5 or more with each card's box), and a report naming its card otherwise is flagged."""
    from oxeye.datasets.labels import scene_labels
    from oxeye.vision.decode import iou_matrix
    from oxeye.vision.detector import Detector

    hands, scene = _four_rows_laid_close(tmp_path)
    cards = scene_labels(scene)
    reading = Detector().read(scene.image)
    overlaps = iou_matrix(np.array([item.box for item in reading.items]), np.array([card["box"] for card in cards]))
    under = [cards[int(row.argmax())]["code"] if row.max() >= 0.5 else None for row in overlaps]
    assert [sorted(under[i] for i in hand.items) for hand in reading.hands] == [sorted(hand) for hand in hands]
    assert all(item.flag for item, card in zip(reading.items, under) if item.code != card)


def test_a_wide_picture_read_in_two_windows_is_read_as_laid(tmp_path: Path) -> None:
    """Four rows of five in 1600 x 720 (2.2:1, read in two windows): a card where the windows overlap was read
    KS in one and KC in the other and both were kept, so that its row was read as hands of four and two."""
    from oxeye.datasets.build import load_library
    from oxeye.datasets.scene import render_hands
    from oxeye.vision.classes import CARD_CLASSES
    from oxeye.vision.detector import Detector

    hands = [list(hand) for hand in np.random.default_rng(12).permutation(CARD_CLASSES)[:20].reshape(4, 5)]
    picture = render_hands(np.random.default_rng(12), load_library(tmp_path / "no-decks"), "cards", hands, (1600, 720))
    detector = Detector()
    assert len(detector.tiling.windows(1600, 720)) == 2
    reading = detector.read(picture.image)
    assert [sorted(hand.codes) for hand in reading.hands] == [sorted(hand) for hand in hands]


def test_a_phone_s_48_megapixel_jpeg_is_read_as_the_photo_it_enlarges(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A drill enlarged 8.4 times to a phone's 8064 x 6048 (refused before by the service, at 40 megapixels) is
    read by oxeye detect as the drill itself, decoded at a quarter: its boxes are the quarter's read boxes
    times 4, in the enlarged photo's pixels, and overlap the drill's boxes enlarged (IoU 0.9 or more: the
    two resamplings move an edge by a pixel or three of the drill's); --annotate draws it as decoded."""
    import cv2

    from oxeye.datasets.build import load_library
    from oxeye.datasets.scene import render_hands
    from oxeye.service.cli import main
    from oxeye.vision.decode import iou_matrix
    from oxeye.vision.detector import Detector
    from oxeye.vision.images import read_reduced

    hands = [["AS", "10H", "QD", "7C", "3S"], ["KH", "2D", "9S", "JC", "5H"]]
    scene = render_hands(np.random.default_rng(11), load_library(tmp_path / "no-decks"), "cards", hands, (960, 720))
    small = Detector().read(scene.image)
    photo = tmp_path / "phone.jpg"
    enlarged = cv2.resize(scene.image, (8064, 6048), interpolation=cv2.INTER_CUBIC)
    photo.write_bytes(cv2.imencode(".jpg", enlarged, [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes())
    assert main(["detect", str(photo), "--json", "--annotate", str(tmp_path / "drawn.jpg")]) == 0
    big = json.loads(capsys.readouterr().out)
    assert cv2.imread(str(tmp_path / "drawn.jpg")).shape == (1512, 2016, 3)
    assert (big["width"], big["height"]) == (8064, 6048)
    assert [hand["codes"] for hand in big["hands"]] == [hand.codes for hand in small.hands]
    assert sorted((item["code"], item["flag"]) for item in big["items"]) == sorted((i.code, i.flag) for i in small.items)
    decoded = read_reduced(photo)
    quarter = {item.code: np.array(item.box) * 4 for item in Detector().read(decoded.pixels).items}
    assert decoded.scale == 4
    assert all(np.abs(np.array(item["box"]) - quarter[item["code"]]).max() <= 1 for item in big["items"])
    drill = {item.code: np.array(item.box) * 8.4 for item in small.items}
    assert all(iou_matrix(np.array([item["box"]]), np.array([drill[item["code"]]]))[0, 0] >= 0.9 for item in big["items"])


def test_a_panorama_of_a_long_table_is_read_in_windows_hand_by_hand(tmp_path: Path) -> None:
    """Four drill pictures of four hands each side by side, 3200 x 480 as a phone's panorama: read in windows,
    every hand is read as laid, in its own picture; read whole, at about 416 pixels, 46 of its 80 cards were
    reported, each flagged, and no hand as laid."""
    from oxeye.datasets.build import load_library
    from oxeye.datasets.scene import render_hands
    from oxeye.vision.classes import CARD_CLASSES
    from oxeye.vision.detector import Detector
    from oxeye.vision.tiles import Tiling

    rng = np.random.default_rng(7)
    library = load_library(tmp_path / "no-decks")
    laid: dict[tuple[str, ...], int] = {}  # each hand's codes, sorted: the picture it lies in
    pictures = []
    for picture in range(4):
        deck = rng.permutation(CARD_CLASSES)
        hands = [list(deck[row * 5:row * 5 + 5]) for row in range(4)]
        laid |= {tuple(sorted(hand)): picture for hand in hands}
        pictures.append(render_hands(rng, library, "cards", hands, (800, 480)).image)
    panorama = np.hstack(pictures)
    detector = Detector()
    reading = detector.read(panorama)
    assert (reading.width, reading.height, len(reading.hands)) == (3200, 480, 16)
    for hand in reading.hands:
        picture = laid[tuple(sorted(hand.codes))]
        assert 800 * picture <= hand.box[0] < hand.box[2] <= 800 * (picture + 1)
    detector.tiling = Tiling(beyond=float("inf"))
    assert sum(tuple(sorted(hand.codes)) in laid for hand in detector.read(panorama).hands) < 8


def test_the_cards_of_a_photo_without_colour_are_all_doubted(tmp_path: Path) -> None:
    """A black-and-white photo (a phone's mono filter, a camera's night view) hides a suit's red or black, by
    which the classifier tells suits too: this drill's 2D read as 2S, unflagged, and was scored so."""
    import cv2

    from oxeye.datasets.build import load_library
    from oxeye.datasets.scene import render_hands
    from oxeye.vision.detector import Detector
    from oxeye.vision.reading import NO_COLOUR

    hands = [["AS", "10H", "QD", "7C", "3S"], ["KH", "2D", "9S", "JC", "5H"]]
    scene = render_hands(np.random.default_rng(11), load_library(tmp_path / "no-decks"), "cards", hands, (960, 720))
    grey = cv2.cvtColor(cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    reading = Detector().read(grey)
    assert len(reading.items) == 10 and all(item.flag for item in reading.items)
    assert {item.code for item in reading.items if item.flag == NO_COLOUR} >= {"2S", "AS", "3S"}


def test_evaluate_against_another_model_pairs_them_photo_by_photo(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """`oxeye evaluate --real DIR --against MODEL --told-kinds` on two drill pictures labelled as the
    real photos are (Pascal VOC, ranks 9 to A): the shipped model against itself gains nothing, and
    surely so."""
    from oxeye.datasets.build import load_library
    from oxeye.datasets.scene import render_hands
    from oxeye.service.cli import main
    from oxeye.vision.evaluate import RANKS

    names = {rank: name for name, rank in RANKS.items()}
    hands = [["AS", "10H", "QD", "7C", "3S"], ["KH", "2D", "9S", "JC", "5H"]]
    for seed in (11, 12):
        scene = render_hands(np.random.default_rng(seed), load_library(tmp_path / "no-decks"), "cards", hands, (960, 720))
        write_labelled_photo(tmp_path, f"IMG_{seed}", scene.image, [(names[item.face.code[:-1]], item.roi)
                                                                   for item in scene.items if item.face.code[:-1] in names])
    assert main(["evaluate", "--real", str(tmp_path), "--against", str(DEFAULT_MODEL), "--told-kinds"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["told_kinds"] is True
    real = result["real_cards_edje"]
    assert real["cards"] == 12 and real["rank_accuracy"] > 0.5 and len(real["rank_accuracy_95"]) == 2
    assert result["against"] == {"model": str(DEFAULT_MODEL), "rank_accuracy": real["rank_accuracy"],
                                 "rank_accuracy_gain": 0.0, "rank_accuracy_gain_95": [0.0, 0.0]}


def test_evaluate_reads_a_held_out_build_of_one_image(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """It was refused, as training refuses one: 'training needs one more to validate on'."""
    from oxeye.service.cli import main

    assert main(["dataset", "build", "--out", str(tmp_path / "one"), "--images", "1", "--seed", "3", "--imgsz", "128",
                 "--drawn-only", "--workers", "1"]) == 0
    capsys.readouterr()
    assert main(["evaluate", "--data", str(tmp_path / "one")]) == 0, capsys.readouterr().err
    synthetic = json.loads(capsys.readouterr().out)["synthetic"]
    assert synthetic["items"] == 5 and 0 <= synthetic["detector_map50_95"] <= 1
    # ultralytics' own lines (its version, its progress) on stderr, where they came before the JSON on stdout
    told = subprocess.run([sys.executable, "-m", "oxeye.service.cli", "evaluate", "--data", str(tmp_path / "one")],
                          capture_output=True, text=True, env={**os.environ, "YOLO_VERBOSE": "True"}, timeout=300)
    assert told.returncode == 0, told.stderr
    assert json.loads(told.stdout)["synthetic"].keys() == synthetic.keys()  # the JSON alone: readable, whole
    assert "Ultralytics" in told.stderr


def test_ultralytics_is_heard_on_stderr_whatever_stream_its_log_held(capsys: pytest.CaptureFixture[str]) -> None:
    """Its log's stream, under pytest an earlier test's captured stdout, is closed: swapped by setStream, which flushes
    the stream it replaces, oxeye evaluate failed ('I/O operation on closed file')."""
    import io
    import logging

    from oxeye.vision.offline import said_on_stderr, ultralytics_offline

    ultralytics_offline()
    from ultralytics.utils import LOGGER

    handler = next(h for h in LOGGER.handlers if isinstance(h, logging.StreamHandler))
    kept, closed = handler.stream, io.TextIOWrapper(io.BytesIO(), encoding="utf-8")  # as pytest captures
    closed.close()
    handler.stream = closed
    try:
        with said_on_stderr():
            LOGGER.error("measured")
            print("a progress bar")
        assert handler.stream is closed
    finally:
        handler.stream = kept
    told = capsys.readouterr()
    assert told.out == "" and "measured" in told.err and "a progress bar" in told.err


@pytest.mark.parametrize(("asked", "threads"), [("1", 1), ("3,1", 3), (" 2 ", 2), ("abc", None), ("0", None),
                                                ("-2", None), ("", None), ("\u0663", None)])
def test_ultralytics_threads_follow_omp_num_threads_and_a_bad_value_is_passed_over(
        monkeypatch: pytest.MonkeyPatch, asked: str, threads: int | None) -> None:
    """OMP_NUM_THREADS sets the threads ultralytics trains with; a value no thread count can be read from
    ('abc' once ended `oxeye train` in a ValueError) means every core, as OpenMP warns and goes on."""
    from oxeye.vision.offline import ultralytics_offline

    ultralytics_offline()
    from ultralytics.utils import torch_utils

    monkeypatch.setattr(torch_utils, "NUM_THREADS", torch_utils.NUM_THREADS)  # put back after
    monkeypatch.setenv("OMP_NUM_THREADS", asked)
    ultralytics_offline()
    assert torch_utils.NUM_THREADS == (threads or os.cpu_count())


def test_the_grouping_sweep_reads_each_photo_once_and_scores_as_evaluate_does(scenes: Path) -> None:
    """Its later weights regroup the items kept from the first reading; at the shipped weight that
    must score exactly as a fresh reading of every photo."""
    from bench.grouping_sweep import main
    from oxeye.vision import grouping
    from oxeye.vision.detector import Detector
    from oxeye.vision.evaluate import synthetic

    figures = main([str(scenes), "0", str(grouping.TURN), "--model", str(DEFAULT_MODEL)])
    assert figures[grouping.TURN]["hands_exact"] == synthetic(Detector(), scenes)["hands_exact"]
    assert set(figures[0.0]) == {"grouping_accuracy_on_true_items", "hands_exact"}


def test_the_unsure_sweep_scores_as_evaluate_does_and_puts_the_shipped_value_back(scenes: Path) -> None:
    """At the shipped value its regrouping of the items kept from the first reading scores the sure hands
    and flags exactly as a fresh reading of every photo; flagging no neighbour reads at least as many
    hands surely, and the shipped value is back in place after."""
    from bench.unsure_sweep import MOVED, main
    from oxeye.vision import grouping
    from oxeye.vision.detector import Detector
    from oxeye.vision.evaluate import synthetic

    shipped = grouping.UNSURE
    figures = main([str(scenes), "0", str(shipped)])
    fresh = synthetic(Detector(), scenes)
    assert figures[shipped] == {name: fresh[name] for name in MOVED}
    assert figures[0.0]["sure_hands"] >= figures[shipped]["sure_hands"]
    assert grouping.UNSURE == shipped


def test_the_panorama_benchmark_lays_scenes_side_by_side_with_their_labels(scenes: Path) -> None:
    """One scene alone is the build itself, read as evaluate reads it, whole and in windows alike; two side by
    side hold both scenes' items, the second's moved right by the first's width, and read as many of them."""
    from bench.panorama import main, scenes_by_size, write_panoramas
    from oxeye.vision.detector import Detector
    from oxeye.vision.evaluate import synthetic

    figures = main([str(scenes), "--scenes", "1", "2", "--repeats", "1"])
    (width, height), metas = max(scenes_by_size(scenes).items(), key=lambda size: len(size[1]))
    alone = figures[f"{width}x{height} ({width / height:.2f}:1)"]
    assert alone["whole"] | {"read_ms": 0} == alone["1.33333:0.2"] | {"read_ms": 0}
    assert alone["whole"]["items"] == sum(len(meta["items"]) for meta in metas)
    detector = Detector()
    pair = scenes.parent / "pair"
    image = write_panoramas(metas[:2], scenes, 2, pair)
    labels = json.loads((pair / "meta" / "000000.json").read_text())
    first, second = metas[0]["items"], metas[1]["items"]
    assert labels["width"] == 2 * width and len(labels["items"]) == len(first) + len(second)
    assert [item["box"][0] for item in labels["items"]] == [i["box"][0] for i in first] + [
        i["box"][0] + width for i in second]
    assert image.is_file() and synthetic(detector, pair)["items"] == len(first) + len(second)


def test_the_live_rounds_benchmark_plays_each_table_as_a_still_cameras_frames(scenes: Path) -> None:
    """Each table of enough hands is played for the frames asked; a frame is the photo a few pixels off, not the same twice."""
    from bench.live_rounds import camera_frames, main
    from oxeye.vision.images import read_image

    metas = [json.loads(path.read_text()) for path in sorted((scenes / "meta").glob("*.json"))]
    tables = sum(any(len(hand["items"]) == 5 for hand in meta["hands"]) for meta in metas)
    counts = main([str(scenes), "--hands", "1", "--frames", "6"])
    assert tables and counts["tables"] == tables and counts["frames"] == 6 * tables
    assert 0 <= counts["settled_holding"] <= counts["settled"] <= counts["frames"] - 4 * tables  # 5 frames to settle
    photo = read_image(scenes / metas[0]["image"])
    first, second = camera_frames(photo, 2, np.random.default_rng(1))
    assert first.shape == photo.shape and 0.5 < np.abs(first.astype(float) - photo).mean() < 15
    assert np.abs(first.astype(float) - second).mean() > 0.5


def _one_photo(out: Path, index: int) -> Path:
    """A build in ``out`` of one photo: image ``index`` of a 960 px build (seed 31, drawn decks)."""
    from oxeye.datasets.build import BuildConfig, load_library, write_one

    for folder in ("images", "labels", "meta"):
        (out / folder).mkdir()
    write_one(index, BuildConfig(out, 60, 31, 960, decks=None), load_library(None))
    return out


def _the_photo(build: Path) -> tuple[dict, np.ndarray]:
    """The labels and the image of a one-photo build."""
    from oxeye.vision.images import read_image

    (path,) = (build / "meta").glob("*.json")
    meta = json.loads(path.read_text())
    return meta, read_image(build / meta["image"])


def _reports_over(build: Path, code: str) -> Callable[[Detector], tuple[list[Item], list[Item]]]:
    """For the one photo of ``build``: what a detector reports as ``code`` over that card's true box
    (IoU 0.5 or more), and everything it reports."""
    from oxeye.vision.decode import iou_matrix

    meta, image = _the_photo(build)
    card = np.array([next(item["box"] for item in meta["items"] if item["code"] == code)])

    def reports(detector: Detector) -> tuple[list[Item], list[Item]]:
        items = detector.read(image).items
        return [i for i in items if i.code == code and iou_matrix(np.array([i.box]), card)[0, 0] >= 0.5], items

    return reports


@pytest.fixture(scope="module")
def doubted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Image 1388: it holds an ace of clubs the shipped detector scores under its threshold but whose
    index reads surely."""
    return _one_photo(tmp_path_factory.mktemp("doubted"), 1388)


@pytest.fixture(scope="module")
def close_up_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Image 238, a close-up of cards large in the frame, which ``detector.Scales`` read first at 544 px reads again at 416."""
    return _one_photo(tmp_path_factory.mktemp("close_up"), 238)


def test_a_card_the_detector_doubts_is_kept_where_its_index_reads_surely(doubted: Path) -> None:
    """The rescue (``classifier.Rescue``) reports the ace, flagged, with the detector's doubt as its
    confidence; without the rescue it is missed (the search of short hands is off, so that only the
    rescue could report it)."""
    from oxeye.vision.classifier import Rescue
    from oxeye.vision.completion import Completion
    from oxeye.vision.detector import CONF, Detector
    from oxeye.vision.reading import LOW_CONFIDENCE

    aces = _reports_over(doubted, "AC")
    detector = Detector()
    detector.classifier.completion = Completion(sure=2.0)
    (found,), _ = aces(detector)
    assert found.flag == LOW_CONFIDENCE and found.confidence < CONF
    detector.classifier.rescue = Rescue(floor=1.0)
    assert aces(detector)[0] == []


def test_the_rescue_sweep_scores_each_setting_as_evaluate_does(doubted: Path) -> None:
    from bench.rescue_sweep import main
    from oxeye.vision.classifier import Rescue
    from oxeye.vision.detector import Detector
    from oxeye.vision.evaluate import synthetic

    figures = main([str(doubted), "1:1", "0.05:0.9"])
    assert figures[0.05, 0.9] == synthetic(Detector(), doubted)  # the shipped rescue
    off = Detector()
    off.classifier.rescue = Rescue(floor=1.0)
    assert figures[1.0, 1.0] == synthetic(off, doubted) and figures[1.0, 1.0] != figures[0.05, 0.9]


def _sizes_read(detector: Detector, read: Callable[[], object]) -> list[int]:
    """The input sizes ``detector`` runs its model at while ``read`` reads with it."""
    sizes: list[int] = []
    run = detector.raw
    detector.raw = lambda frame, size=None: sizes.append(size or detector.size) or run(frame, size)
    try:
        read()
    finally:
        del detector.raw  # the class's own again
    return sizes


def test_every_frame_is_read_once_at_the_model_s_size_unless_read_larger(close_up_build: Path) -> None:
    """``detector.Scales``: the shipped detector learnt at 416 px and reads every frame once there.
    Read first at 544 px, the benchmark's table (cards a few percent of the frame) is read once; a
    close-up's cards are large there, so it is read again at the model's own 416."""
    from bench.frames import table_photo
    from oxeye.vision.detector import Detector, Scales

    detector = Detector()
    table, (_, close_up) = table_photo(), _the_photo(close_up_build)
    assert (detector.size, detector.first_size) == (416, 416)
    assert _sizes_read(detector, lambda: detector.read(table)) == [416]
    assert _sizes_read(detector, lambda: detector.read(close_up)) == [416]
    detector.scales = Scales(first=540)
    assert detector.first_size == 544  # to the stride
    assert _sizes_read(detector, lambda: detector.read(table)) == [544]
    assert _sizes_read(detector, lambda: detector.read(close_up)) == [544, 416]
    assert detector.read(table).read_at == 544 and detector.read(close_up).read_at == 416


def test_a_detector_that_learnt_at_320_px_reads_a_table_at_416_and_a_close_up_again_at_320(
        tmp_path: Path, close_up_build: Path) -> None:
    """The detectors shipped before learnt at 320 px: with their input size in the metadata the same
    ``Scales`` reads them as they were served, so that ``oxeye evaluate --against`` compares like with like."""
    import onnx

    from bench.frames import table_photo
    from oxeye.models import DEFAULT_MODEL
    from oxeye.vision.classifier import CLASSIFIER_NAME
    from oxeye.vision.detector import Detector

    model = onnx.load(str(DEFAULT_MODEL))
    (entry,) = [e for e in model.metadata_props if e.key == "imgsz"]
    entry.value = "[320, 320]"
    onnx.save(model, str(tmp_path / "oxeye.onnx"))
    (tmp_path / CLASSIFIER_NAME).write_bytes(DEFAULT_MODEL.with_name(CLASSIFIER_NAME).read_bytes())
    detector = Detector(tmp_path / "oxeye.onnx")
    table, (_, close_up) = table_photo(), _the_photo(close_up_build)
    assert (detector.size, detector.first_size) == (320, 416)
    assert _sizes_read(detector, lambda: detector.read(table)) == [416]
    assert _sizes_read(detector, lambda: detector.read(close_up)) == [416, 320]


def test_a_camera_s_frame_is_read_first_at_the_size_its_last_frame_was(close_up_build: Path) -> None:
    """A live table passes each frame's size on to the next (``Detector.read``'s ``start``): read at two
    sizes (first at 544 px), a camera held over one hand is read once a frame at the model's 416 px, and a
    change of view costs one frame a second reading; the readings are those of a frame read afresh."""
    from bench.frames import table_photo
    from oxeye.service.live import LiveTable
    from oxeye.service.rules_files import load_preset
    from oxeye.vision.detector import Detector, Scales
    from oxeye.vision.images import Decoded

    detector = Detector()
    detector.scales = Scales(first=544)
    live = LiveTable(detector, load_preset("niuniu"), 0, {}, settle_frames=3)
    table, (_, close_up) = table_photo(), _the_photo(close_up_build)
    views = [close_up, close_up, table, table, close_up]
    assert [_sizes_read(detector, lambda view=view: live.frame(Decoded.whole(view))) for view in views] == [
        [544, 416], [416], [416, 544], [544], [544, 416]]
    assert detector.read(close_up, start=416).to_json() == detector.read(close_up).to_json()
    assert detector.read(table, start=416).to_json() == detector.read(table).to_json()


def test_the_scales_sweep_scores_each_setting_as_evaluate_does(hidden: Path) -> None:
    from bench.scales_sweep import main
    from oxeye.vision.detector import Detector, Scales
    from oxeye.vision.evaluate import synthetic

    chosen = Scales()
    figures = main([str(hidden), "544:0.15", f"{chosen.first}:{chosen.large}"])
    assert figures[chosen.first, chosen.large] == synthetic(Detector(), hidden)
    larger = Detector()
    larger.scales = Scales(first=544, large=0.15)
    assert figures[544, 0.15] == synthetic(larger, hidden)


def test_the_suppression_sweep_scores_each_setting_as_evaluate_does(hidden: Path) -> None:
    from bench.nms_sweep import main
    from oxeye.vision.detector import Detector, Suppression
    from oxeye.vision.evaluate import synthetic
    from oxeye.vision.images import read_image

    chosen = Suppression()
    figures = main([str(hidden), f"{chosen.iou}:{chosen.cross}", "0.9:0.8"])
    assert figures[chosen.iou, chosen.cross] == synthetic(Detector(), hidden)
    looser = Detector()
    looser.suppression = Suppression(iou=0.9)
    assert figures[0.9, 0.8] == synthetic(looser, hidden)
    image = read_image(next((hidden / "images").iterdir()))
    assert len(looser.detect(image)) > len(Detector().detect(image))  # a fan's overlapping boxes stand


def test_the_shown_sweep_scores_each_setting_as_evaluate_does(hidden: Path) -> None:
    """``shown_sweep`` MARGIN:WEIGHT: the shipped setting reads as ``evaluate`` does, and a weight of 1
    as a detector whose classifier reads both crops of every card."""
    from bench.shown_sweep import main
    from oxeye.vision.classifier import Shown
    from oxeye.vision.detector import Detector
    from oxeye.vision.evaluate import synthetic

    chosen = Shown()
    figures = main([str(hidden), f"{chosen.margin}:{chosen.weight}", "0:1"])
    assert figures[chosen.margin, chosen.weight] == synthetic(Detector(), hidden)
    both = Detector()
    both.classifier.shown = Shown(weight=1.0)
    assert figures[0.0, 1.0] == synthetic(both, hidden)


def test_the_twins_sweep_prints_figures_that_are_not_numbers(doubted: Path) -> None:
    """``synthetic`` gives its interval as a list (None for a single photo): the sweep prints such
    figures as they are, where it once rounded every figure and failed."""
    from bench.twins_sweep import main
    from oxeye.vision.detector import Detector
    from oxeye.vision.evaluate import synthetic

    figures = main([str(doubted), "0.4:0.3"])  # the shipped rule
    assert figures[0.4, 0.3]["item_accuracy_95"] is None and figures[0.4, 0.3] == synthetic(Detector(), doubted)


def test_a_sweep_takes_a_rule_s_further_fields_where_given_and_refuses_more(doubted: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """``twins_sweep`` settings are INSIDE:UNSURE[:MEET]: a third number sets ``Twins.meet``, its
    absence keeps the shipped one; a fourth is refused, as one number alone is."""
    from bench.twins_sweep import main
    from oxeye.vision.classifier import Twins

    figures = main([str(doubted), "0.4:0.3", f"0.4:0.3:{Twins.meet}", "1.1:0:0"])
    assert figures[0.4, 0.3] == figures[0.4, 0.3, Twins.meet]
    assert '"meet"' not in capsys.readouterr().out.splitlines()[0]  # the fields given are printed
    for wrong in ("0.4:0.3:0.25:1", "0.4"):
        with pytest.raises(SystemExit):
            main([str(doubted), wrong])
        assert "invalid inside:unsure:meet value" in capsys.readouterr().err


def test_a_sweep_s_setting_leaves_the_fields_it_omits_as_the_rule_ships_them(doubted: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A setting short of a rule's further fields reads with the shipped values of those, not with the
    values the setting before it gave."""
    import oxeye.vision.evaluate as evaluate
    from bench.twins_sweep import main
    from oxeye.vision.classifier import Twins

    read_with: list[Twins] = []
    synthetic_by_photo = evaluate.synthetic_by_photo

    def noted(detector: Detector, data: Path, told: bool = False) -> tuple[dict[str, object], list[int], list[int]]:
        read_with.append(detector.classifier.twins)
        return synthetic_by_photo(detector, data, told)

    monkeypatch.setattr(evaluate, "synthetic_by_photo", noted)
    main([str(doubted), "1.1:0:0", "0.4:0.3"])
    assert read_with == [Twins(1.1, 0.0, 0.0), Twins(0.4, 0.3, Twins.meet)]


def test_the_doubt_sweep_flags_more_under_a_higher_bar_and_reads_the_same(hidden: Path) -> None:
    from bench.doubt_sweep import main
    from oxeye.vision.classifier import Doubt
    from oxeye.vision.detector import Detector
    from oxeye.vision.evaluate import synthetic

    chosen = Doubt()
    figures = main([str(hidden), f"{chosen.name}:{chosen.rival}", "0.99:0.6", "0:2"])
    assert figures[chosen.name, chosen.rival] == synthetic(Detector(), hidden)
    settings = ((0.0, 2.0), (chosen.name, chosen.rival), (0.99, 0.6))
    flagged = [figures[setting]["right_reports_flagged"] for setting in settings]
    assert flagged == sorted(flagged) and flagged[0] < flagged[2]
    assert len({figures[setting]["item_accuracy"] for setting in figures}) == 1  # flags change no reading


@pytest.fixture(scope="module")
def hidden(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Image 8: a hand of hearts, three to seven, whose four the shipped detector misses, while its
    index shows."""
    return _one_photo(tmp_path_factory.mktemp("hidden"), 8)


def test_a_card_missing_from_a_short_hand_is_found_where_the_hand_lacks_it(hidden: Path) -> None:
    """The search of short hands (``vision.completion``) reports the four, flagged, in the hand of the
    three, five, six and seven it lies among; without the search it is missed."""
    from oxeye.vision.completion import Completion
    from oxeye.vision.detector import Detector
    from oxeye.vision.reading import LOW_CONFIDENCE, LOW_SCORE

    fours = _reports_over(hidden, "4H")
    detector = Detector()
    (found,), items = fours(detector)
    assert found.flag == LOW_CONFIDENCE and found.confidence < LOW_SCORE
    assert {i.code for i in items if i.hand == found.hand} == {"3H", "4H", "5H", "6H", "7H"}
    detector.classifier.completion = Completion(sure=2.0)
    assert fours(detector)[0] == []


def test_the_completion_sweep_scores_each_setting_as_evaluate_does(hidden: Path) -> None:
    from bench.completion_sweep import main
    from oxeye.vision.detector import Detector
    from oxeye.vision.evaluate import synthetic

    figures = main([str(hidden), "2:1", "0.9:1"])
    assert figures[0.9, 1.0] == synthetic(Detector(), hidden)  # the shipped search
    assert figures[0.9, 1.0]["item_accuracy"] > figures[2.0, 1.0]["item_accuracy"]  # the four, found


def _openvino_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("openvino") is not None


@pytest.mark.skipif(_openvino_installed(), reason="OpenVINO is installed here, so it cannot be found absent")
def test_the_openvino_benchmark_says_how_to_get_openvino_where_it_is_absent(capsys: pytest.CaptureFixture[str]) -> None:
    from bench.openvino_speed import main

    with pytest.raises(SystemExit) as stop:
        main(["--repeats", "1"])
    assert stop.value.code == 2 and "pip install openvino" in capsys.readouterr().err


@pytest.mark.skipif(not _openvino_installed(), reason="OpenVINO is not a dependency (MODEL_CARD.md, Speed): "
                    "pip install openvino to compare the runtimes")
def test_the_openvino_benchmark_reads_the_photos_as_onnxruntime_does(close_up_build: Path) -> None:
    from bench.openvino_speed import main

    result = main(["--repeats", "2", "--data", str(close_up_build)])
    assert result["openvino_ms"] > 0 and result["onnxruntime_ms"] > 0
    assert result["openvino_item_accuracy"] == result["onnxruntime_item_accuracy"] == 1.0


def test_the_architecture_benchmark_times_a_candidate_beside_the_shipped_detector() -> None:
    """An untrained yolov8n-pose has the shipped detector's layers, so its weights count as many (to
    the export's folding: within 1%); a yolo26n-pose is smaller. The shipped one is every ratio's baseline."""
    from bench.arch_speed import SHAPES, main

    result = main(["yolov8n-pose", "yolo26n-pose", "--repeats", "3"])
    assert result["yolov8n-pose"]["parameters_m"] == pytest.approx(result["shipped"]["parameters_m"], rel=0.01)
    assert result["yolo26n-pose"]["parameters_m"] < result["shipped"]["parameters_m"]
    for height, width in SHAPES:
        assert result["shipped"][f"{width}x{height}_ratio_to_shipped"] == 1.0
        assert all(figures[f"{width}x{height}_ms"] > 0 for figures in result.values())


def test_an_index_read_from_a_frame_shrunk_to_a_small_reading_s_detail_is_named_less_often(
        scenes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``bench.index_resolution``: the photos as they are name items as ``evaluate.naming`` does; shrunk to a
    96 px reading's detail (and enlarged back to their size), the cards' indices are named less often."""
    from bench.index_resolution import main, shrunk
    from oxeye.vision.detector import Detector
    from oxeye.vision.evaluate import naming

    figures = main([str(scenes), "full", "96"])
    full, small = figures["full"], figures["96"]
    assert full["cards"] == small["cards"] > 0 and full["tiles"] == small["tiles"] > 0
    named = full["cards_named"] * full["cards"] + full["tiles_named"] * full["tiles"]
    assert named / (full["cards"] + full["tiles"]) == pytest.approx(naming(Detector(), scenes))
    assert small["cards_named"] < full["cards_named"] - 0.2
    frame = np.arange(720 * 1280 * 3, dtype=np.uint8).reshape(720, 1280, 3)
    assert shrunk(frame, 416).shape == frame.shape and not np.array_equal(shrunk(frame, 416), frame)
    with pytest.raises(SystemExit):
        main([str(scenes / "images"), "416"])
    assert "is not a folder written by 'oxeye dataset build'" in capsys.readouterr().err
