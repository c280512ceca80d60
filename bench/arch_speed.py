"""Detector architectures timed at the frame's input, so that the model's size is chosen by measurement.

Each candidate is built untrained from ultralytics' model file with oxeye's two classes and two
keypoints, exported to ONNX as ``oxeye train`` exports (dynamic input), and timed with the serving
runtime (``vision.runtime``, 2 threads) beside the shipped detector, the models alternated run by run
so that each meets the same load. Weights do not change the time, only the shape does. Run:
python -m bench.arch_speed yolov8n-pose yolo11n-pose yolo26n-pose yolov8s-pose yolo11s-pose
"""

from __future__ import annotations

import argparse
import contextlib
import json
import tempfile
from functools import partial
from pathlib import Path

import numpy as np

from bench.timing import alternated_medians
from oxeye.models import DEFAULT_MODEL
from oxeye.vision.classes import KEYPOINTS, KINDS
from oxeye.vision.cli import whole_number
from oxeye.vision.runtime import open_session

SHAPES = ((256, 416), (320, 320))  # a 1280x720 frame read at 416 px (a table), a square one at 320 px


def export_untrained(name: str, folder: Path) -> Path:
    """ONNX of ultralytics' ``name`` (e.g. yolo11n-pose) with oxeye's classes and keypoints, untrained."""
    from oxeye.vision.offline import ultralytics_offline

    ultralytics_offline()
    import yaml
    from ultralytics import YOLO
    from ultralytics.nn.tasks import guess_model_scale, yaml_model_load

    spec = yaml_model_load(f"{name}.yaml")
    spec |= {"nc": len(KINDS), "kpt_shape": [KEYPOINTS, 3], "scale": guess_model_scale(f"{name}.yaml")}
    path = folder / f"{name}-oxeye.yaml"  # ultralytics reads the scale from the file's name too
    path.write_text(yaml.safe_dump(spec))
    with contextlib.chdir(folder):  # an untrained model exports into the working folder
        return folder / YOLO(str(path)).export(format="onnx", imgsz=320, dynamic=True, simplify=True, verbose=False)


def main(argv: list[str] | None = None) -> dict[str, dict[str, object]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+", help="ultralytics pose model names, e.g. yolo11n-pose")
    parser.add_argument("--repeats", type=whole_number(1), default=30)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        files = {"shipped": DEFAULT_MODEL} | {name: export_untrained(name, Path(scratch)) for name in args.models}
        hint = "train one (models/MODEL_CARD.md)"
        sessions = {name: open_session(path, 2, hint)[0] for name, path in files.items()}
        parameters = {name: _parameters(path) for name, path in files.items()}
    result: dict[str, dict[str, object]] = {name: {"parameters_m": parameters[name]} for name in files}
    for height, width in SHAPES:
        blob = np.random.default_rng(0).random((1, 3, height, width), np.float32)
        runs = {name: partial(session.run, None, {session.get_inputs()[0].name: blob})
                for name, session in sessions.items()}
        medians = alternated_medians(runs, args.repeats)
        for name, median in medians.items():
            result[name][f"{width}x{height}_ms"] = round(median * 1e3, 2)
            result[name][f"{width}x{height}_ratio_to_shipped"] = round(median / medians["shipped"], 3)
    for name, figures in result.items():
        print(json.dumps({"model": name, **figures}))
    return result


def _parameters(model: Path) -> float:
    """Millions of weights in an ONNX file."""
    import onnx

    return round(sum(int(np.prod(t.dims)) for t in onnx.load(str(model)).graph.initializer) / 1e6, 2)


if __name__ == "__main__":
    main()
