"""The detector at serving time: onnxruntime only, no torch. Frame in, a ``Reading`` out."""

from __future__ import annotations

import ast
from pathlib import Path

import cv2
import numpy as np

from oxeye.models import DEFAULT_MODEL
from oxeye.vision.classes import CLASSES
from oxeye.vision.corners import collapse
from oxeye.vision.decode import Detections, cross_class_suppression, decode
from oxeye.vision.grouping import group_hands
from oxeye.vision.letterbox import Letterbox, letterbox
from oxeye.vision.reading import Reading

CONF = 0.25  # candidates below this are dropped; up to corners.LOW_SCORE they are reported as low-confidence
IOU = 0.7  # class-aware suppression, as ultralytics predicts
# Boxes of different classes overlapping this much are one physical item. Of 21,712 pairs of
# distinct true items in 160 generated photos, 2 overlap above 0.8 and none above 0.9: tune
# between the two with `oxeye evaluate` (reported_twice against item_accuracy).
CROSS_IOU = 0.8


def read_image(path: Path) -> np.ndarray:
    """A photo as a BGR array; OSError with the path when it is missing or not an image."""
    if not Path(path).is_file():
        raise OSError(f"no such image: {path}")
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise OSError(f"cannot read {path} as an image")
    return image


class Detector:
    """An exported YOLO detector (ONNX) with its class names, run on 2 CPU threads."""

    def __init__(self, model: Path = DEFAULT_MODEL, threads: int = 2) -> None:
        import onnxruntime as ort

        if not Path(model).is_file():
            raise OSError(f"no model at {model}: train one with 'oxeye train' or pass --model PATH.onnx")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # Spinning worker threads cost more than they save on 2 shared cores (measured 37 ms vs 25 ms at 320 px).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            self.session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        except Exception as error:  # onnxruntime raises its own types for a corrupt file
            raise OSError(f"cannot load model {model}: {str(error).strip().splitlines()[0]}") from error
        feed = self.session.get_inputs()[0]
        metadata = self.session.get_modelmeta().custom_metadata_map
        self.input_name = feed.name
        # A dynamic input (exported with dynamic=True) takes the smallest stride-padded rectangle.
        dynamic = not isinstance(feed.shape[2], int)
        self.size = max(ast.literal_eval(metadata["imgsz"])) if dynamic else int(feed.shape[2])
        self.stride = int(metadata.get("stride", 32)) if dynamic else None
        names = ast.literal_eval(metadata["names"]) if "names" in metadata else dict(enumerate(CLASSES))
        self.names = tuple(names[i] for i in range(len(names)))

    def raw(self, image: np.ndarray) -> tuple[np.ndarray, Letterbox]:
        """The model's raw output for a BGR frame, and the letterbox used."""
        blob, fit = letterbox(image, self.size, self.stride)
        return self.session.run(None, {self.input_name: blob})[0], fit

    def detect(self, image: np.ndarray, conf: float = CONF, iou: float = IOU) -> Detections:
        """Class-aware NMS'd detections in frame pixels (the part that must agree with ultralytics)."""
        output, fit = self.raw(image)
        found = decode(output, conf, iou)
        height, width = image.shape[:2]
        return Detections(fit.to_frame(found.boxes, width, height), found.scores, found.class_ids,
                           found.rival_scores, found.rival_ids)

    def read(self, image: np.ndarray, conf: float = CONF) -> Reading:
        """Items named, each physical item once, grouped into hands."""
        found = cross_class_suppression(self.detect(image, conf), CROSS_IOU)
        items = collapse(found, self.names)
        hands = group_hands(items)
        height, width = image.shape[:2]
        return Reading(width, height, items, hands)
