"""One epoch on a tiny generated set: training exports ONNX, and our decoder agrees with ultralytics on it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from oxeye.models import DEFAULT_MODEL
from oxeye.service.cli import main
from oxeye.vision.classifier import CLASSIFIER_NAME
from oxeye.vision.classes import CLASSES, CROP_CLASSES, KEYPOINTS, KINDS
from conftest import OXEYE_WITHOUT_POLARS, TINY_CROP, TINY_IMAGES
from scenes import build_scenes
from conftest import TINY_IMGSZ as IMGSZ
from oxeye.vision.decode import decode


def test_training_exports_a_model_the_detector_loads(tiny: Path) -> None:
    from oxeye.vision.detector import Detector

    run = tiny / "run"
    assert all((run / name).is_file() for name in ("oxeye.pt", "oxeye.onnx", "oxeye-cls.pt", "oxeye-cls.onnx"))
    assert sorted(p.name for p in (run / "yolo" / "images" / "val").iterdir()) == [
        f"{n:06d}.jpg" for n in range(9, TINY_IMAGES, 10)]
    assert "kpt_oks_sigmas: [0.08, 0.08]" in (run / "yolo" / "data.yaml").read_text()  # ultralytics reads it
    detector = Detector(run / "oxeye.onnx")
    assert detector.size == IMGSZ and detector.stride == 32 and detector.names == KINDS
    assert detector.keypoints == KEYPOINTS
    assert detector.classifier.size == TINY_CROP and detector.classifier.names == CROP_CLASSES
    found = detector.detect(np.zeros((224, 320, 3), np.uint8), conf=0.0)
    assert found.keypoints.shape == (len(found), KEYPOINTS, 3)


def test_a_yolo26_detector_exports_its_head_that_proposes_each_item_once_too(tiny: Path, tmp_path: Path) -> None:
    """yolo26 trains a second head that proposes each item once: exported beside the usual one (a
    yolov8 has none), it is read with no suppression, row for row as ultralytics reads it."""
    from oxeye.vision.detector import Detector
    from oxeye.vision.images import read_image
    from oxeye.vision.offline import ultralytics_offline

    run = tmp_path / "run26"
    done = subprocess.run([*OXEYE_WITHOUT_POLARS, "train", "--data", str(tiny / "ds"), "--out", str(run), "--epochs", "1",
                           "--imgsz", str(IMGSZ), "--batch", "8", "--workers", "0", "--model", "yolo26n-pose.yaml"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"{run / 'oxeye-once.onnx'}" in done.stdout and not (tiny / "run" / "oxeye-once.onnx").exists()
    (run / CLASSIFIER_NAME).write_bytes((tiny / "run" / CLASSIFIER_NAME).read_bytes())
    assert not Detector(run / "oxeye.onnx").proposes_once
    once = Detector(run / "oxeye-once.onnx")
    assert once.proposes_once and once.names == KINDS and once.keypoints == KEYPOINTS
    ultralytics_offline()
    from ultralytics import YOLO

    theirs = YOLO(str(run / "oxeye-once.onnx"), task="pose")
    for path in sorted((tiny / "ds" / "images").glob("*.jpg"))[:3]:
        image = read_image(path)
        ours = once.detect(image, conf=0.001)  # one epoch: its scores are all low
        result = theirs.predict(image, imgsz=once.size, conf=0.001, verbose=False)[0]
        assert len(ours) == len(result.boxes) > 0
        assert np.abs(ours.boxes - result.boxes.xyxy.numpy()).max() < 0.01
        assert (ours.class_ids == result.boxes.cls.numpy()).all() and np.allclose(ours.scores, result.boxes.conf.numpy())
        clipped = ours.keypoints[..., :2].clip(0, [image.shape[1], image.shape[0]])  # ultralytics clips them
        assert np.abs(clipped - result.keypoints.data.numpy()[..., :2]).max() < 0.01


def test_the_classifier_trains_on_every_class_and_validates_on_every_class(tiny: Path) -> None:
    for split in ("train", "val"):
        crops = np.load(tiny / "run" / "crops" / f"{split}.npz")
        assert crops["images"].shape[1:] == (TINY_CROP, TINY_CROP, 3) and len(crops["images"]) == len(crops["labels"])
        assert sorted(set(crops["labels"].tolist())) == list(range(len(CROP_CLASSES)))


def test_hidden_indices_may_outnumber_the_other_classes_as_none(tiny: Path, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from oxeye.vision.classes import BACKGROUND
    from oxeye.vision.train_classifier import crop_label, prepare_crops

    none = CROP_CLASSES.index(BACKGROUND)
    hidden = sum(crop_label(item, end) == BACKGROUND for meta in (tiny / "ds" / "meta").glob("*.json")
                 for item in json.loads(meta.read_text())["items"] for end in (0, 1))
    assert hidden > 8  # the tiny build has fans and overlaps enough to test the cap
    capped = prepare_crops((tiny / "ds",), TINY_CROP, 3, 0.1, 0)["train"][1]
    more = prepare_crops((tiny / "ds",), TINY_CROP, 3, 0.1, 0, hidden=8)["train"][1]
    assert (capped == none).sum() == 3 and (more == none).sum() == 8
    assert all((capped == k).sum() == (more == k).sum() for k in range(len(CROP_CLASSES)) if k != none)
    assert main(["train-classifier", "--data", str(tiny / "ds"), "--out", str(tmp_path / "run"), "--per-class", "5",
                 "--hidden-per-class", "4"]) == 2
    assert "--hidden-per-class must be at least --per-class (5), got 4" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_the_classifier_fine_tunes_from_its_weights_of_the_same_crop_size(tiny: Path, tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    import torch

    weights = tiny / "run" / "oxeye-cls.pt"
    common = ["train-classifier", "--data", str(tiny / "ds"), "--epochs", "1", "--batch", "32", "--per-class", "3",
              "--model", str(weights)]
    assert main([*common, "--out", str(tmp_path / "other"), "--imgsz", str(TINY_CROP * 2)]) == 2
    assert "crops of another size than --imgsz 64" in capsys.readouterr().err
    assert not (tmp_path / "other").exists()
    assert main([*common, "--out", str(tmp_path / "tuned"), "--imgsz", str(TINY_CROP)]) == 0
    before = torch.load(weights, weights_only=True)["state_dict"]
    after = torch.load(tmp_path / "tuned" / "oxeye-cls.pt", weights_only=True)["state_dict"]
    assert (tmp_path / "tuned" / "oxeye-cls.onnx").is_file() and before.keys() == after.keys()
    assert any(not torch.equal(before[k], after[k]) for k in before)


def test_the_classifier_narrows_a_trained_one_taught_by_it_and_serving_loads_it(tiny: Path, tmp_path: Path) -> None:
    import torch

    from oxeye.vision.classifier import Classifier

    weights = tiny / "run" / "oxeye-cls.pt"
    assert main(["train-classifier", "--data", str(tiny / "ds"), "--out", str(tmp_path / "narrow"), "--epochs", "1",
                 "--batch", "32", "--per-class", "3", "--imgsz", str(TINY_CROP), "--model", str(weights),
                 "--widths", "8,16,32,64", "--teacher", str(weights)]) == 0
    assert tuple(torch.load(tmp_path / "narrow" / "oxeye-cls.pt", weights_only=True)["widths"]) == (8, 16, 32, 64)
    classifier = Classifier(tmp_path / "narrow" / "oxeye-cls.onnx", threads=1)
    crops = np.zeros((3, TINY_CROP, TINY_CROP, 3), np.uint8)
    assert classifier.probabilities(crops).shape == (3, len(classifier.names))


@pytest.mark.parametrize(("change", "message"), [
    (("--widths", "8,16"), "--widths 8,16 cannot narrow a network of widths 24,48,96,192"),
    (("--teacher", "missing.pt"), "--teacher missing.pt: no such file"),
])
def test_narrowing_or_teaching_refuses_what_cannot_be_and_writes_nothing(
        tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], change: tuple[str, str], message: str) -> None:
    assert main(["train-classifier", "--data", str(tiny / "ds"), "--out", str(tmp_path / "narrow"), "--epochs", "1",
                 "--per-class", "3", "--imgsz", str(TINY_CROP), "--model", str(tiny / "run" / "oxeye-cls.pt"),
                 *change]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "narrow").exists()


@pytest.mark.parametrize(("widths", "message"), [("0,16,32,64", "must be at least 1, got 0"),
                                                 ("8,,16", "not a whole number: ''")])
def test_widths_not_whole_numbers_of_at_least_one_are_refused_as_read(
        tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], widths: str, message: str) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["train-classifier", "--data", str(tiny / "ds"), "--out", str(tmp_path / "narrow"), "--widths", widths])
    assert stop.value.code == 2 and f"argument --widths: {message}" in capsys.readouterr().err
    assert not (tmp_path / "narrow").exists()


def test_the_classifier_quantizes_to_eight_bits_that_serving_loads(tiny: Path, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    import onnx

    from oxeye.vision.classifier import Classifier
    from oxeye.vision.quantize import PAIR_SAFE_WEIGHT, widest_weight

    out = tmp_path / "served" / "oxeye-cls.onnx"
    command = ["quantize-classifier", "--model", str(tiny / "run" / "oxeye-cls.pt"), "--data", str(tiny / "ds"),
               "--out", str(out), "--per-class", "3"]
    assert main(command) == 0
    assert f"quantized: {out} (8-bit, calibrated on " in capsys.readouterr().out
    assert [p.name for p in out.parent.iterdir()] == ["oxeye-cls.onnx"]  # nothing partial left beside it
    graph = onnx.load(str(out))
    assert {node.op_type for node in graph.graph.node} >= {"QuantizeLinear", "DequantizeLinear"}
    assert 32 < widest_weight(graph) <= PAIR_SAFE_WEIGHT  # 7 bits used, so no CPU's 16-bit pair sums saturate
    classifier = Classifier(out)
    assert classifier.size == TINY_CROP and classifier.names == CROP_CLASSES
    crops = np.load(tiny / "run" / "crops" / "val.npz")["images"]
    probabilities = classifier.probabilities(crops)
    assert probabilities.shape == (len(crops), len(CROP_CLASSES)) and np.allclose(probabilities.sum(axis=1), 1, atol=1e-3)


def test_a_classifier_interrupted_as_it_is_exported_leaves_the_one_trained_before_whole(
        tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C during the export (seconds) left an ONNX without the metadata the detector reads where it
    loads it ('oxeye detect' then ended in a KeyError), and new weights beside it."""
    import onnx

    run = tmp_path / "run"
    run.mkdir()
    before = {name: (tiny / "run" / name).read_bytes() for name in (CLASSIFIER_NAME, "oxeye-cls.pt")}
    for name, data in before.items():
        (run / name).write_bytes(data)

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(onnx, "save", interrupted)  # as the metadata is written into the exported file
    assert main(["train-classifier", "--data", str(tiny / "ds"), "--out", str(run), "--epochs", "1", "--imgsz",
                 str(TINY_CROP), "--batch", "32", "--per-class", "3", "--overwrite"]) == 130
    assert capsys.readouterr().err.endswith("oxeye train-classifier: interrupted\n")
    assert {name: (run / name).read_bytes() for name in before} == before
    assert sorted(p.name for p in run.iterdir()) == sorted([*before, "crops"])  # nothing partial beside them


@pytest.mark.parametrize(("change", "message"), [
    (("--model", "missing.pt"), "--model missing.pt: no such file"),
    (("--data", "."), "--data . is not a folder written by 'oxeye dataset build'"),
    (("--per-class", "0"), "--per-class must be at least 1, got 0"),
    (("--out", "."), "--out . must name the .onnx file to write"),
])
def test_quantizing_refuses_bad_arguments_and_leaves_the_served_model_alone(
        tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], change: tuple[str, str], message: str) -> None:
    served = tmp_path / "oxeye-cls.onnx"
    served.write_bytes(b"the model in service")
    arguments = {"--model": str(tiny / "run" / "oxeye-cls.pt"), "--data": str(tiny / "ds"), "--out": str(served),
                 "--per-class": "3"} | dict([change])
    assert main(["quantize-classifier", *[part for pair in arguments.items() for part in pair]]) == 2
    assert message in capsys.readouterr().err
    assert served.read_bytes() == b"the model in service"


def test_quantizing_refuses_a_weight_that_saturates_without_vnni_and_leaves_the_served_model_alone(
        tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Should onnxruntime quantize a weight past 64 (which a CPU without VNNI sums wrong), nothing is written."""
    from oxeye.vision import quantize

    monkeypatch.setattr(quantize, "widest_weight", lambda graph: quantize.PAIR_SAFE_WEIGHT + 1)
    served = tmp_path / "oxeye-cls.onnx"
    served.write_bytes(b"the model in service")
    command = ["quantize-classifier", "--model", str(tiny / "run" / "oxeye-cls.pt"), "--data", str(tiny / "ds"),
               "--out", str(served), "--per-class", "3"]
    assert main(command) == 2
    assert "onnxruntime quantized a weight to 65, past 64" in capsys.readouterr().err
    assert served.read_bytes() == b"the model in service" and [p.name for p in tmp_path.iterdir()] == [served.name]


def test_quantizing_below_a_file_is_refused_before_any_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """It was found only where the quantized model was to be written, the calibration done."""
    (tmp_path / "meta").mkdir()
    (tmp_path / "meta" / "000000.json").write_text("{}")
    notes = tmp_path / "notes.txt"
    notes.write_text("not a folder")
    out = notes / "oxeye-cls.onnx"
    assert main(["quantize-classifier", "--model", "cls.pt", "--data", str(tmp_path), "--out", str(out)]) == 2
    assert capsys.readouterr().err == f"oxeye quantize-classifier: error: --out {out} cannot be written: {notes} is a file\n"


def test_a_two_stage_model_without_its_classifier_is_one_clear_error(tiny: Path, tmp_path: Path) -> None:
    from oxeye.vision.detector import Detector

    lonely = tmp_path / "oxeye.onnx"
    lonely.write_bytes((tiny / "run" / "oxeye.onnx").read_bytes())
    with pytest.raises(OSError, match=f"no model at {tmp_path / 'oxeye-cls.onnx'}: train it with 'oxeye train-classifier'"):
        Detector(lonely)


def test_our_letterbox_and_decoder_agree_with_ultralytics(tiny: Path) -> None:
    """Same input tensor as ultralytics' LetterBox and predictor, bit for bit (one last place apart, a barely trained
    model's nearly tied proposals came out in another order), same boxes in the same order as its NMS."""
    from oxeye.vision.offline import ultralytics_offline

    ultralytics_offline()
    import torch
    from ultralytics.data.augment import LetterBox
    from ultralytics.utils.nms import non_max_suppression

    from oxeye.vision.images import read_image
    from oxeye.vision.letterbox import letterbox

    for path in sorted((tiny / "ds" / "images").glob("*.jpg"))[:4]:
        image = read_image(path)
        for stride in (None, 32):
            blob, _ = letterbox(image, IMGSZ, stride)
            padded = LetterBox((IMGSZ, IMGSZ), auto=bool(stride), stride=stride or 32)(image=image)
            rgb = torch.from_numpy(padded).permute(2, 0, 1).flip(0)
            assert np.array_equal(blob[0], rgb.float().div_(255).numpy())  # bit for bit, as its predictor scales it
    # A one-epoch model scores nearly the same everywhere (ties), so the NMS is compared on a
    # structured random output instead: 30 objects, each seen by about a dozen jittered anchors,
    # with many classes, or with two classes and two keypoints riding along (as a pose model).
    rng = np.random.default_rng(5)
    for classes, keypoints in ((len(CLASSES), 0), (len(KINDS), KEYPOINTS)):
        objects = rng.uniform([20, 20, 8, 8], [140, 140, 60, 60], size=(30, 4))
        owner = rng.integers(0, 30, size=400)
        output = np.zeros((1, 4 + classes + 3 * keypoints, 400), dtype=np.float32)
        output[0, :4] = (objects[owner] * rng.uniform(0.9, 1.1, size=(400, 4))).T
        output[0, 4:4 + classes] = rng.uniform(0, 0.2, size=(classes, 400))
        output[0, 4 + classes:] = rng.uniform(-10, 170, size=(3 * keypoints, 400))
        strong = rng.integers(0, classes, size=(30, 2))[owner]
        output[0, 4 + strong[:, 0], np.arange(400)] = rng.uniform(0.2, 0.95, size=400)
        output[0, 4 + strong[:, 1], np.arange(400)] = rng.uniform(0.1, 0.6, size=400)
        ours = decode(output, conf=0.25, iou=0.7, keypoints=keypoints)
        theirs = non_max_suppression(torch.from_numpy(output), conf_thres=0.25, iou_thres=0.7, nc=classes)[0].numpy()
        assert len(ours) == len(theirs) > 20
        assert np.allclose(ours.boxes, theirs[:, :4], atol=1e-3) and np.allclose(ours.scores, theirs[:, 4])
        assert ours.class_ids.tolist() == theirs[:, 5].astype(int).tolist()
        assert np.allclose(ours.keypoints.reshape(len(ours), -1), theirs[:, 6:])


def test_detect_json_follows_the_contract_without_torch(tiny: Path) -> None:
    photo = tiny / "ds" / "images" / "000000.jpg"
    code = ("import sys; from oxeye.service.cli import main; "
            f"rc = main(['detect', {str(photo)!r}, '--json', '--model', {str(tiny / 'run' / 'oxeye.onnx')!r}]); "
            "assert 'torch' not in sys.modules and 'ultralytics' not in sys.modules; sys.exit(rc)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["width"], data["height"]) == (320, 224) and set(data) == {"width", "height", "items", "hands"}


def test_annotate_writes_a_picture(tiny: Path, tmp_path: Path) -> None:
    out = tmp_path / "seen.jpg"
    assert main(["detect", str(tiny / "ds" / "images" / "000001.jpg"), "--model", str(tiny / "run" / "oxeye.onnx"),
                 "--annotate", str(out)]) == 0
    assert out.stat().st_size > 1000


def test_annotate_to_a_name_no_picture_can_have_is_one_clear_line_before_any_reading(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """OpenCV 5 raises on an unknown extension (a traceback, once): the path is checked as it is parsed. A .pgm
    or .pbm, which holds greys alone, was refused once the photo was read, as a drawing too large for it."""
    for name in ("seen.xyz", "folder/", "seen.pgm", "seen.pbm"):
        with pytest.raises(SystemExit) as stop:
            main(["detect", str(tmp_path / "no-such-photo.jpg"), "--annotate", str(tmp_path / name)])
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith("oxeye detect: error: argument --annotate: ") and "end it in .jpg or .png" in err
        assert err.count("\n") == 1


def test_missing_model_or_unreadable_image_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    not_a_photo = tmp_path / "notes.jpg"
    not_a_photo.write_text("not a photo")
    assert main(["detect", str(not_a_photo)]) == 2
    assert capsys.readouterr().err == f"oxeye detect: error: cannot read {not_a_photo} as an image\n"
    assert main(["detect", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"oxeye detect: error: {tmp_path} is a folder: name a photo in it\n"
    assert main(["detect", str(tmp_path / "none.jpg")]) == 2
    assert capsys.readouterr().err == f"oxeye detect: error: no such image: {tmp_path / 'none.jpg'}\n"
    photo = tmp_path / "blank.png"
    import cv2

    cv2.imwrite(str(photo), np.zeros((32, 32, 3), np.uint8))
    assert main(["detect", str(photo), "--model", str(tmp_path / "none.onnx")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"oxeye detect: error: no model at {tmp_path / 'none.onnx'}") and err.count("\n") == 1
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"\x00" * 64)
    assert main(["detect", str(photo), "--model", str(broken)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"oxeye detect: error: cannot load model {broken}") and err.count("\n") == 1
    classifier = DEFAULT_MODEL.with_name(CLASSIFIER_NAME)  # a model, but no detector: it once read a photo as "pips3"
    assert main(["detect", str(photo), "--model", str(classifier)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"oxeye detect: error: {classifier} is not a detector") and err.count("\n") == 1


def test_a_model_without_its_metadata_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An ONNX exported otherwise than by oxeye (without ultralytics' names and input size) was a KeyError traceback."""
    import cv2
    import onnx

    photo = tmp_path / "blank.png"
    cv2.imwrite(str(photo), np.zeros((32, 32, 3), np.uint8))
    for name, how in ((DEFAULT_MODEL.name, "'oxeye train'"), (CLASSIFIER_NAME, "'oxeye train-classifier'")):
        for shipped in (DEFAULT_MODEL, DEFAULT_MODEL.with_name(CLASSIFIER_NAME)):
            model = onnx.load(str(shipped))
            if shipped.name == name:
                del model.metadata_props[:]
            onnx.save(model, str(tmp_path / shipped.name))
        assert main(["detect", str(photo), "--model", str(tmp_path / DEFAULT_MODEL.name)]) == 2
        err = capsys.readouterr().err
        assert err == (f"oxeye detect: error: {tmp_path / name} lacks the metadata names, imgsz that {how} writes: "
                       "export it that way\n")


def test_evaluate_names_a_folder_that_is_no_build_and_a_model_that_is_missing(tmp_path: Path,
                                                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "--data", str(tmp_path)]) == 2
    expected = f"--data {tmp_path} is not a folder written by 'oxeye dataset build' (no meta/)"
    assert capsys.readouterr().err == f"oxeye evaluate: error: {expected}\n"
    (tmp_path / "meta").mkdir()
    assert main(["evaluate", "--data", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"oxeye evaluate: error: --data {tmp_path} holds no images (meta/ is empty)\n"
    assert main(["evaluate", "--real", str(tmp_path), "--against", str(tmp_path / "no.onnx")]) == 2
    assert capsys.readouterr().err == f"oxeye evaluate: error: --against {tmp_path / 'no.onnx'}: no such model\n"
    assert main(["evaluate", "--real", str(tmp_path)]) == 0  # as where the real photos are not on the machine
    assert json.loads(capsys.readouterr().out)["real_cards_edje"].startswith(f"skipped: no photos/ folder in {tmp_path}")
    (tmp_path / "photos").mkdir()  # photos without their labels were measured as none read: recall 0.0
    (tmp_path / "photos" / "IMG_1.jpg").write_bytes(b"a photo")
    assert main(["evaluate", "--real", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (f"oxeye evaluate: error: --real {tmp_path}: photos/ holds no photo labelled "
                                       f"in Pascal VOC (NAME.xml beside NAME.jpg, .jpeg or .png)\n")


def _train_tiny(tiny: Path, out: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """Run ``oxeye train`` on the tiny build into ``out``, with the tiny input size and ``args`` (and
    ``env`` beside this process's environment); it must succeed. Returns what it wrote on stdout."""
    done = subprocess.run([*OXEYE_WITHOUT_POLARS, "train", "--data", str(tiny / "ds"),
                           "--out", str(out), "--imgsz", str(IMGSZ), "--batch", "8", "--workers", "0", *args],
                          capture_output=True, text=True, timeout=600, env={**os.environ, **(env or {})})
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_a_run_keeps_its_results_as_ultralytics_reads_them_though_it_trained_without_polars(tiny: Path) -> None:
    """The checkpoint carries results.csv as polars reads it (the fixture trained with polars unimportable)."""
    import polars
    import torch

    from oxeye.vision.offline import ultralytics_offline

    ultralytics_offline()  # the checkpoint unpickles ultralytics' classes
    kept = torch.load(tiny / "run" / "oxeye.pt", map_location="cpu", weights_only=False)["train_results"]
    csv = (tiny / "run" / "train" / "results.csv").read_bytes()
    assert kept == polars.read_csv(csv, infer_schema_length=None).to_dict(as_series=False)
    assert kept["epoch"] == [1] and "metrics/mAP50-95(P)" in kept


def test_results_are_read_column_by_column_as_numbers_where_they_are(tmp_path: Path) -> None:
    from oxeye.vision.offline import results_columns

    path = tmp_path / "results.csv"
    path.write_text("epoch,time,note\n1,2.5,a\n2,3,b\n")
    assert results_columns(path) == {"epoch": [1, 2], "time": [2.5, 3.0], "note": ["a", "b"]}
    path.write_text("epoch,time\n1,2.5\n2\n")  # a row cut short
    assert results_columns(path) == {}
    path.write_text("")
    assert results_columns(path) == {}
    assert results_columns(tmp_path / "none.csv") == {}


def test_fine_tuning_takes_the_chosen_learning_rate_without_warm_up(tiny: Path) -> None:
    """ultralytics' own choice (about 0.0017 here) undid a trained detector in one epoch; --lr0 sets it."""
    out = tiny / "fine"
    _train_tiny(tiny, out, "--model", str(tiny / "run" / "oxeye.pt"), "--epochs", "1", "--lr0", "0.0003")
    args = (out / "train" / "args.yaml").read_text().splitlines()
    assert {"lr0: 0.0003", "optimizer: AdamW", "warmup_epochs: 0"} <= set(args)
    assert (out / "oxeye.onnx").is_file()


def test_trainings_stdout_says_what_it_wrote_and_nothing_of_ultralytics(tiny: Path) -> None:
    """With YOLO_VERBOSE=True ultralytics logs each step; to stderr, so that stdout stays one line to read."""
    out = tiny / "verbose"
    told = _train_tiny(tiny, out, "--model", str(tiny / "run" / "oxeye.pt"), "--epochs", "1",
                       env={"YOLO_VERBOSE": "True"})
    assert told == f"trained: {out / 'oxeye.pt'}, {out / 'oxeye.onnx'}\n"


def test_a_run_may_be_given_hours_instead_of_epochs_and_its_keypoint_sigma(tiny: Path) -> None:
    """A lent GPU is lent for a set time: --hours hands ultralytics its time limit, which stops the run.
    --keypoint-sigma reaches ultralytics in data.yaml (the shipped detector's first epochs ran at 0.5)."""
    out = tiny / "timed"
    _train_tiny(tiny, out, "--epochs", "50", "--hours", "0.0003", "--keypoint-sigma", "0.5")
    assert "time: 0.0003" in (out / "train" / "args.yaml").read_text().splitlines()
    assert "kpt_oks_sigmas: [0.5, 0.5]" in (out / "yolo" / "data.yaml").read_text().splitlines()
    epochs = len((out / "train" / "results.csv").read_text().splitlines()) - 1
    assert 1 <= epochs < 50
    assert (out / "oxeye.onnx").is_file()


def test_resuming_a_finished_run_is_one_clear_line(tiny: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", "--out", str(tiny / "run"), "--resume"]) == 2  # the run knows its data
    assert "has finished; fine-tune from it with --model" in capsys.readouterr().err


def test_a_detector_interrupted_as_it_is_exported_leaves_the_one_before_and_is_resumed(
        tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C during the export (seconds) left an ONNX without the metadata the detector reads over the
    run's model ('oxeye detect' then ended in a KeyError), and --resume refused the run as finished. An
    earlier yolo26's oxeye-once.onnx was left beside the new model, as though its own."""
    import onnx

    from oxeye.vision.detector import Detector

    run = tmp_path / "run"
    run.mkdir()
    before = {name: (tiny / "run" / name).read_bytes() for name in ("oxeye.pt", "oxeye.onnx", CLASSIFIER_NAME)}
    for name, data in before.items():
        (run / name).write_bytes(data)
    (run / "oxeye-once.onnx").write_bytes(b"an earlier yolo26's head")  # a yolov8 has none: it goes with the rest
    save = onnx.save

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(onnx, "save", interrupted)  # as ultralytics writes the exported file whole
    assert main(["train", "--data", str(tiny / "ds"), "--out", str(run), "--epochs", "1", "--imgsz", str(IMGSZ),
                 "--batch", "8", "--workers", "0", "--overwrite"]) == 130
    assert capsys.readouterr().err.endswith("oxeye train: interrupted\n")
    assert {name: (run / name).read_bytes() for name in before} == before
    assert sorted(p.name for p in run.iterdir()) == sorted([*before, "oxeye-once.onnx", "train", "yolo"])
    monkeypatch.setattr(onnx, "save", save)
    assert main(["train", "--out", str(run), "--resume"]) == 0  # trained: only the export is done again
    assert capsys.readouterr().out == f"trained: {run / 'oxeye.pt'}, {run / 'oxeye.onnx'}\n"
    assert (run / "oxeye.pt").read_bytes() == (run / "train" / "weights" / "best.pt").read_bytes()
    assert (run / "oxeye.onnx").read_bytes() != before["oxeye.onnx"] and Detector(run / "oxeye.onnx").size == IMGSZ
    assert not (run / "oxeye-once.onnx").exists()  # read as this model's, it was the earlier one
    assert main(["train", "--out", str(run), "--resume"]) == 2
    assert "has finished; fine-tune from it with --model" in capsys.readouterr().err


class _Resumed(Exception):
    """Raised by ``_resuming``'s YOLO in place of training on."""


def _resuming(tiny: Path, run: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    """A copy of the tiny run's weights in ``run`` as interrupted after an epoch; returns what ``oxeye train
    --resume`` then gives ultralytics to train on with, filled in as YOLO is asked to train (it is not)."""
    import torch
    import ultralytics

    saved = torch.load(tiny / "run" / "train" / "weights" / "last.pt", map_location="cpu", weights_only=False)
    saved["epoch"] = 0
    (run / "train" / "weights").mkdir(parents=True)
    torch.save(saved, run / "train" / "weights" / "last.pt")
    given: dict = {}

    class YOLO:
        def __init__(self, weights: str) -> None:
            given["weights"] = weights

        def train(self, **kwargs: object) -> None:
            given.update(kwargs)
            raise _Resumed

    monkeypatch.setattr(ultralytics, "YOLO", YOLO)
    return given


def test_a_run_started_with_a_relative_out_is_resumed_from_another_folder(
        tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ultralytics kept the data.yaml the run was started with, relative to where it started ('oxeye train
    --out run' gave it run/yolo/data.yaml): resumed from elsewhere, it ended in RuntimeError's traceback
    ('run/yolo/data.yaml' does not exist). The run's own, absolute, is now given it."""
    given = _resuming(tiny, tmp_path / "run", monkeypatch)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    with pytest.raises(_Resumed):
        main(["train", "--out", "../run", "--resume"])
    assert given["resume"] is True and given["data"] == str(tmp_path / "run" / "yolo" / "data.yaml")


def test_a_run_started_on_a_gpu_is_resumed_on_this_machines(tiny: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """--resume took the device the run was started on: one interrupted on a lent GPU (device 0, its lease
    ended) ended on a machine without one in ultralytics' 'Invalid CUDA device=0 requested', over lines."""
    import torch

    given = _resuming(tiny, tmp_path / "run", monkeypatch)
    with pytest.raises(_Resumed):
        main(["train", "--out", str(tmp_path / "run"), "--resume"])
    assert given["device"] == (0 if torch.cuda.is_available() else "cpu")


TERMINATED_AS_IT_SAVES = ("import os, signal, sys, onnx; onnx.save = lambda *a, **k: os.kill(os.getpid(), signal.SIGTERM); "
                          "from oxeye.service.cli import main; sys.exit(main(sys.argv[1:]))")


@pytest.mark.parametrize("command", [["train", "--imgsz", str(IMGSZ), "--workers", "0"],
                                     ["train-classifier", "--imgsz", str(TINY_CROP), "--per-class", "3"]])
def test_a_run_terminated_as_it_exports_ends_as_interrupted_leaving_nothing_aside(tiny: Path, tmp_path: Path,
                                                                                  command: list[str]) -> None:
    """SIGTERM (a timeout, a lent machine's lease ending) ended the process at once, leaving in the run what
    its export was writing aside: the detector's hidden folder (12 MB), the classifier's partial file."""
    run = tmp_path / "run"
    done = subprocess.run([sys.executable, "-c", TERMINATED_AS_IT_SAVES, *command, "--data", str(tiny / "ds"),
                           "--out", str(run), "--epochs", "1", "--batch", "8"], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 130 and done.stderr.endswith(f"oxeye {command[0]}: interrupted\n"), done.stderr[-2000:]
    assert [p.name for p in run.iterdir() if p.name.startswith(".")] == []


def test_training_into_a_trained_run_is_refused_and_leaves_it_alone(tiny: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A second run into the same --out once wrote over the first's detector or classifier without a word."""
    before = (tiny / "run" / "oxeye.pt").read_bytes()
    assert main(["train", "--data", str(tiny / "ds"), "--out", str(tiny / "run"), "--epochs", "1"]) == 2
    assert "holds a detector trained before" in capsys.readouterr().err
    assert (tiny / "run" / "oxeye.pt").read_bytes() == before
    classifier = (tiny / "run" / "oxeye-cls.pt").read_bytes()
    assert main(["train-classifier", "--data", str(tiny / "ds"), "--out", str(tiny / "run"), "--epochs", "1"]) == 2
    assert "holds a classifier trained before" in capsys.readouterr().err
    assert (tiny / "run" / "oxeye-cls.pt").read_bytes() == classifier


def test_a_build_smaller_than_one_validation_share_still_validates_on_its_last_image(tiny: Path,
                                                                                    tmp_path: Path) -> None:
    from oxeye.vision.train import TrainConfig, prepare_dataset

    prepare_dataset(tiny / "ds", tmp_path / "yolo", "pose", val_fraction=0.01)
    val = sorted(p.name for p in (tmp_path / "yolo" / "images" / "val").iterdir())
    assert val == [f"{TINY_IMAGES - 1:06d}.jpg"]
    assert len(list((tmp_path / "yolo" / "images" / "train").iterdir())) == TINY_IMAGES - 1
    (tmp_path / "one" / "meta").mkdir(parents=True)
    (tmp_path / "one" / "meta" / "000000.json").write_text("{}")
    with pytest.raises(ValueError, match="holds one image: training needs one more"):
        TrainConfig(tmp_path / "one", tmp_path / "run").validate()


def test_a_second_preparation_into_the_same_folder_keeps_nothing_of_the_first(tmp_path: Path) -> None:
    """A rerun (another --val-fraction, another --data, --overwrite) left the first split's images in
    place: images in both train and val, and images of another build trained on."""
    from oxeye.vision.train import prepare_dataset

    for name, images in (("six", "6"), ("four", "4")):
        assert main(["dataset", "build", "--out", str(tmp_path / name), "--images", images, "--seed", "1",
                     "--imgsz", "128", "--drawn-only", "--workers", "1"]) == 0
    yolo = tmp_path / "yolo"
    prepare_dataset(tmp_path / "six", yolo, "pose", val_fraction=0.5)
    prepare_dataset(tmp_path / "four", yolo, "pose", val_fraction=0.34)
    for sub, suffix in (("images", ".jpg"), ("labels", ".txt")):
        assert sorted(p.name for p in (yolo / sub / "train").iterdir()) == [f"00000{n}{suffix}" for n in (0, 1, 3)]
        assert sorted(p.name for p in (yolo / sub / "val").iterdir()) == [f"000002{suffix}"]


def test_a_folder_whose_name_yaml_would_read_otherwise_is_the_data_yaml_path(tmp_path: Path) -> None:
    """A folder named 'run #2' was written unquoted, and read as 'run' (a comment after it); 'a: b' not at all."""
    import yaml

    from oxeye.vision.train import prepare_dataset

    build, yolo = tmp_path / "run #2" / "ds", tmp_path / "a: b" / "yolo"
    assert main(["dataset", "build", "--out", str(build), "--images", "2", "--seed", "1", "--imgsz", "128",
                 "--drawn-only", "--workers", "1"]) == 0
    prepare_dataset(build, yolo, "pose", val_fraction=0.5)
    for folder in (build, yolo):
        assert yaml.safe_load((folder / "data.yaml").read_text())["path"] == str(folder.resolve())


def test_train_refuses_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", "--data", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "is not a folder written by 'oxeye dataset build'" in capsys.readouterr().err
    assert main(["train", "--out", str(tmp_path / "o"), "--resume"]) == 2
    assert "no interrupted run" in capsys.readouterr().err
    # each was taken and not used: the run went on with its own data, schedule and rate
    assert main(["train", "--data", str(tmp_path), "--out", str(tmp_path / "o"), "--resume", "--lr0", "0.001"]) == 2
    assert capsys.readouterr().err == (f"oxeye train: error: --resume continues the run as it was started: leave out "
                                       f"--data, --lr0 (to train on otherwise, fine-tune from it with --model "
                                       f"{tmp_path / 'o' / 'train' / 'weights' / 'last.pt'})\n")
    # their defaults were not None, so these were taken unseen and the run went on at its own size and schedule
    assert main(["train", "--out", str(tmp_path / "o"), "--resume", "--imgsz", "320", "--epochs", "5", "--batch",
                 "8"]) == 2
    assert "leave out --imgsz, --epochs, --batch (to train" in capsys.readouterr().err
    assert main(["train", "--out", str(tmp_path / "o"), "--resume", "--labels", "items", "--val-fraction", "0.2",
                 "--workers", "0", "--cache", "--keypoint-sigma", "0.5"]) == 2  # and these: it trained pose unsaid
    assert "leave out --labels, --val-fraction, --workers, --cache, --keypoint-sigma (to train" in capsys.readouterr().err
    assert main(["train", "--out", str(tmp_path / "o")]) == 2
    assert "--data is required" in capsys.readouterr().err
    assert main(["train", "--data", str(tmp_path), "--out", str(tmp_path / "o"), "--lr0", "0"]) == 2
    assert "--lr0 must be between 0 and 1" in capsys.readouterr().err
    assert main(["train", "--data", str(tmp_path), "--out", str(tmp_path / "o"), "--hours", "0"]) == 2
    assert "--hours must be above 0 and finite, got 0.0" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:  # inf trained until ultralytics' epochs overflowed, in a traceback
        main(["train", "--data", str(tmp_path), "--out", str(tmp_path / "o"), "--hours", "inf"])
    assert stop.value.code == 2 and "argument --hours: not a number: 'inf'" in capsys.readouterr().err
    assert main(["train", "--data", str(tmp_path), "--out", str(tmp_path / "o"), "--workers", "-1"]) == 2
    assert "--workers must be 0 or more, got -1" in capsys.readouterr().err  # once trained
    for sigma in ("0", "1.5"):
        assert main(["train", "--data", str(tmp_path), "--out", str(tmp_path / "o"), "--keypoint-sigma", sigma]) == 2
        assert f"--keypoint-sigma must be above 0 and at most 1, got {float(sigma)}" in capsys.readouterr().err
    (tmp_path / "meta").mkdir()
    (tmp_path / "meta" / "000000.json").write_text("{}")
    photo = tmp_path / "photo.jpg"
    photo.write_bytes(b"a photo, not weights")
    assert main(["train", "--data", str(tmp_path), "--out", str(tmp_path / "o"), "--model", str(photo)]) == 2
    assert "is neither a model .yaml nor an existing .pt file" in capsys.readouterr().err  # once a traceback
    for command in ("train", "train-classifier"):  # each failed in mkdir's words, the classifier's after its crops
        assert main([command, "--data", str(tmp_path), "--out", str(photo / "run")]) == 2
        assert capsys.readouterr().err == (f"oxeye {command}: error: --out {photo / 'run'} cannot be a folder: "
                                           f"{photo} is a file\n")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("record", ["", "{}", '{"image": "images/000001.jpg", "items": [{"code": "AS"}]}'])
def test_a_build_holding_a_garbled_record_is_refused_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                              record: str) -> None:
    """A truncated record was refused in JSON's words, naming no file; another program's JSON ended in a
    KeyError's traceback."""
    build = build_scenes(tmp_path / "ds", 2, 1, 128)
    garbled = build / "meta" / "000001.json"
    garbled.write_text(record)
    capsys.readouterr()
    for command in (["train", "--out", str(tmp_path / "run")], ["train-classifier", "--out", str(tmp_path / "run")],
                    ["evaluate"]):
        assert main([command[0], "--data", str(build), *command[1:]]) == 2
        assert capsys.readouterr().err.startswith(
            f"oxeye {command[0]}: error: {garbled} is not a record written by 'oxeye dataset build' (")


def test_a_build_missing_an_image_is_one_clear_line_to_the_classifier(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """OpenCV's unread image went on to its own assertion's traceback (pyrDown)."""
    build = build_scenes(tmp_path / "ds", 2, 1, 128)
    missing = build / "images" / "000001.jpg"
    missing.unlink()
    capsys.readouterr()
    for command in (["train-classifier", "--out", str(tmp_path / "run")],
                    ["quantize-classifier", "--model", str(DEFAULT_MODEL.with_name("oxeye-cls.pt")),
                     "--out", str(tmp_path / "cls.onnx")]):
        assert main([command[0], "--data", str(build), *command[1:]]) == 2
        assert capsys.readouterr().err == f"oxeye {command[0]}: error: no such image: {missing}\n"
    assert not (tmp_path / "cls.onnx").exists()


def test_weights_that_are_no_detector_are_one_clear_line_before_any_work(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """A .pt cut short (a copy, a save interrupted) or the classifier's went on to torch's or ultralytics' traceback."""
    for n in range(2):
        (tmp_path / "meta").mkdir(exist_ok=True)
        (tmp_path / "meta" / f"00000{n}.json").write_text("{}")
    run, cut, classifier = tmp_path / "run", tmp_path / "cut.pt", DEFAULT_MODEL.with_name("oxeye-cls.pt")
    cut.write_bytes(DEFAULT_MODEL.with_name("oxeye.pt").read_bytes()[:1000])
    for option, weights in (("--model", cut), ("--model", classifier), ("--transfer", cut)):
        model = ["--model", "yolov8n-pose.yaml"] if option == "--transfer" else []
        assert main(["train", "--data", str(tmp_path), "--out", str(run), *model, option, str(weights)]) == 2
        assert capsys.readouterr().err == (f"oxeye train: error: {option} {weights} is not a detector's weights (an "
                                           f"ultralytics checkpoint, as 'oxeye train' writes): a file cut short, or "
                                           f"another model's?\n")
    assert not run.exists()
    (run / "train" / "weights").mkdir(parents=True)
    (run / "train" / "weights" / "last.pt").write_bytes(cut.read_bytes())
    assert main(["train", "--out", str(run), "--resume"]) == 2
    assert capsys.readouterr().err.startswith(f"oxeye train: error: --resume {run / 'train' / 'weights' / 'last.pt'} "
                                              f"is not a detector's weights")


@pytest.mark.parametrize("command", [["train-classifier", "--data", "ds", "--out", "run"],
                                     ["quantize-classifier", "--model", "cls.pt", "--data", "ds", "--out", "cls.onnx"]])
def test_a_negative_seed_is_refused_as_it_is_parsed(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """It failed in numpy's words, naming no argument: 'expected non-negative integer'."""
    with pytest.raises(SystemExit) as stop:
        main([*command, "--seed", "-1"])
    assert stop.value.code == 2
    assert capsys.readouterr().err == f"oxeye {command[0]}: error: argument --seed: must be at least 0, got -1\n"


def test_importing_ultralytics_leaves_pillow_alone() -> None:
    """ultralytics patches PIL.Image.open to pip-install pi-heif on an unknown file; we undo that."""
    import io

    from PIL import Image, UnidentifiedImageError

    from oxeye.vision.offline import ultralytics_offline

    ultralytics_offline()
    with pytest.raises(UnidentifiedImageError):
        Image.open(io.BytesIO(b"not an image"))
