"""The serving runtime compared: the shipped pipeline on onnxruntime against the same ONNX files on OpenVINO.

Serving may use OpenVINO where it measures faster. This times a decoded 1280x720 frame (``bench.frames``)
to items and hands with the detector and its classifier run by each runtime, alternated in one process
(medians, and OpenVINO's time as a share of onnxruntime's); ``--precision bf16`` lets OpenVINO run the
detector in bfloat16 where the processor has it. With ``--data`` it also reads a generated build with
both, paired photo by photo, since a faster runtime must read as well. OpenVINO is not a dependency
(MODEL_CARD.md, Speed, says why): ``pip install openvino`` first.
Run: python -m bench.openvino_speed --data runs/heldout
"""

from __future__ import annotations

import argparse
import json
from functools import partial
from pathlib import Path

import numpy as np

from bench.frames import table_photo
from bench.timing import alternated_medians
from oxeye.models import DEFAULT_MODEL
from oxeye.vision.classifier import CLASSIFIER_NAME
from oxeye.vision.cli import whole_number
from oxeye.vision.detector import Detector


class OpenVinoSession:
    """An ONNX model compiled by OpenVINO for 2 CPU threads, answering ``run`` as an onnxruntime session does."""

    def __init__(self, model: Path, precision: str) -> None:
        import openvino

        config = {"INFERENCE_NUM_THREADS": 2, "PERFORMANCE_HINT": "LATENCY", "INFERENCE_PRECISION_HINT": precision}
        self.request = openvino.Core().compile_model(str(model), "CPU", config).create_infer_request()

    def run(self, _outputs: None, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        (blob,) = feeds.values()
        return [self.request.infer({0: blob})[0].copy()]


def on_openvino(model: Path, precision: str) -> Detector:
    """The pipeline of ``model`` with its detector (in ``precision``) and classifier (as exported) run by OpenVINO."""
    detector = Detector(model)
    detector.session = OpenVinoSession(model, precision)
    if detector.classifier is not None:
        detector.classifier.session = OpenVinoSession(model.with_name(CLASSIFIER_NAME), "f32")
    return detector


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="ONNX detector, classifier beside it (shipped)")
    parser.add_argument("--precision", choices=("f32", "bf16"), default="f32", help="OpenVINO's for the detector")
    parser.add_argument("--repeats", type=whole_number(1), default=40)
    parser.add_argument("--data", type=Path, help="also read this 'oxeye dataset build' folder with both, paired")
    args = parser.parse_args(argv)
    try:
        import openvino  # noqa: F401
    except ImportError:
        parser.error("OpenVINO is not installed (it is not a dependency): pip install openvino")
    theirs, ours = Detector(args.model), on_openvino(args.model, args.precision)
    frame = table_photo()
    medians = alternated_medians({"onnxruntime": partial(theirs.read, frame), "openvino": partial(ours.read, frame)},
                                 args.repeats)
    result: dict[str, object] = {"model": str(args.model), "precision": args.precision, "frame": "1280x720",
                                 "onnxruntime_ms": round(medians["onnxruntime"] * 1e3, 2),
                                 "openvino_ms": round(medians["openvino"] * 1e3, 2),
                                 "ratio_openvino_to_onnxruntime": round(medians["openvino"] / medians["onnxruntime"], 3)}
    if args.data is not None:
        from oxeye.vision.evaluate import interval, synthetic_by_photo

        figures, items, rights = synthetic_by_photo(ours, args.data)
        baseline, _, their_rights = synthetic_by_photo(theirs, args.data)
        result |= {"items": figures["items"], "onnxruntime_item_accuracy": round(baseline["item_accuracy"], 4),
                   "openvino_item_accuracy": round(figures["item_accuracy"], 4),
                   "openvino_gain_95": interval(items, rights, their_rights),
                   "reported_twice": [baseline["reported_twice"], figures["reported_twice"]]}
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
