"""``oxeye quantize-classifier``: the crop classifier in 8-bit integers, for serving.

onnxruntime's static quantization (QDQ, weights per channel) of the classifier exported from its
``oxeye-cls.pt``, calibrated on crops cut from a build as for training. The classifier names every
item's two crops, and every spot a short hand is searched at, so it is most of a frame's time; on the
2 cores here the 8-bit network names a batch of crops 2.2 times as fast and reads as many items
(MODEL_CARD.md has both figures).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from oxeye.vision.crops import to_blob
from oxeye.vision.images import file_in_the_way, make_folder, written_aside
from oxeye.vision.train import require_build


def quantize_classifier(weights: Path, data: tuple[Path, ...], out: Path, per_class: int = 20, seed: int = 0) -> int:
    """Write the 8-bit classifier of ``weights`` to ``out`` (only once it is whole), calibrated on at
    most ``per_class`` crops of each class from the builds ``data``; returns how many crops that was."""
    import onnx
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    from oxeye.vision.train_classifier import export_onnx, load_classifier, prepare_crops

    for folder in data:
        require_build(folder)
    if per_class < 1:
        raise ValueError(f"--per-class must be at least 1, got {per_class}")
    if out.suffix != ".onnx" or out.is_dir():
        raise ValueError(f"--out {out} must name the .onnx file to write, e.g. RUN/oxeye-cls.onnx")
    if (in_the_way := file_in_the_way(out.parent)) is not None:  # found once the calibration was done
        raise ValueError(f"--out {out} cannot be written: {in_the_way} is a file")
    if not Path(weights).is_file():
        raise ValueError(f"--model {weights}: no such file")
    model, size = load_classifier(weights)
    crops = prepare_crops(data, size, per_class, 0.1, seed)["train"][0]

    class Crops(CalibrationDataReader):
        """The calibration crops, a batch at a time, as the classifier takes them."""

        def __init__(self) -> None:
            self.batches = iter(to_blob(crops[start:start + 64]) for start in range(0, len(crops), 64))

        def get_next(self) -> dict[str, np.ndarray] | None:
            batch = next(self.batches, None)
            return None if batch is None else {"images": batch}

    with tempfile.TemporaryDirectory() as work:
        exported, prepared, quantized = (Path(work) / name for name in ("float.onnx", "prepared.onnx", "int8.onnx"))
        export_onnx(model, size, exported)
        quant_pre_process(str(exported), str(prepared))  # shapes inferred and the graph simplified, as advised
        # The softmax stays in floats: 8-bit probabilities would step by 1/255 and sum short of 1.
        softmax = [node.name for node in onnx.load(str(prepared)).graph.node if node.op_type == "Softmax"]
        quantize_static(str(prepared), str(quantized), Crops(), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, nodes_to_exclude=softmax)
        graph = onnx.load(str(quantized))
        del graph.metadata_props[:]
        graph.metadata_props.extend(onnx.load(str(exported)).metadata_props)  # the names and crop size
    make_folder(out.parent)
    with written_aside(out) as partial:
        onnx.save(graph, str(partial))
    return len(crops)
