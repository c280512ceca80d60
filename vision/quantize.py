"""``oxeye quantize-classifier``: the crop classifier in 8-bit integers, for serving.

onnxruntime's static quantization (QDQ, weights per channel) of the classifier exported from its
``oxeye-cls.pt``, calibrated on crops cut from a build as for training. The classifier names every
item's two crops, and every spot a short hand is searched at, so it is most of a frame's time; on the
2 cores here the 8-bit network names a batch of crops 1.6 to 2.2 times as fast and reads as many items
(MODEL_CARD.md has both figures). Its weights take 7 bits of the 8, so that it reads alike on every CPU.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from oxeye.vision.crops import to_blob
from oxeye.vision.images import file_in_the_way, make_folder, written_aside
from oxeye.vision.train import require_build

if TYPE_CHECKING:
    import onnx

# The widest 8-bit weight two 8-bit activations (up to 255) can be multiplied by and summed within a signed
# 16-bit register, as onnxruntime does on an x86 CPU without VNNI: 2 x 255 x 64 = 32,640 <= 32,767.
PAIR_SAFE_WEIGHT = 64


def widest_weight(graph: onnx.ModelProto) -> int:
    """The largest magnitude among a quantized graph's 8-bit weights (0 for a float graph): at most
    ``PAIR_SAFE_WEIGHT`` where it reads alike on every CPU."""
    from onnx import TensorProto, numpy_helper

    eight_bit = [numpy_helper.to_array(tensor) for tensor in graph.graph.initializer
                 if tensor.data_type == TensorProto.INT8]
    return max((int(np.abs(weights.astype(np.int16)).max()) for weights in eight_bit if weights.size), default=0)


def quantize_classifier(weights: Path, data: tuple[Path, ...], out: Path, per_class: int = 20, seed: int = 0) -> int:
    """Write the 8-bit classifier of ``weights`` to ``out`` (only once it is whole), calibrated on at
    most ``per_class`` crops of each class from the builds ``data``; returns how many crops that was."""
    import onnx
    from onnxruntime.quantization import (CalibrationDataReader, CalibrationMethod, QuantFormat, QuantType,
                                          quantize_static)
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
        """The calibration crops as the classifier takes them, in one batch: the percentile calibration
        gathers its histograms batch by batch and fails on a last batch of another size."""

        def __init__(self) -> None:
            self.batches = iter([to_blob(crops)])

        def get_next(self) -> dict[str, np.ndarray] | None:
            batch = next(self.batches, None)
            return None if batch is None else {"images": batch}

    with tempfile.TemporaryDirectory() as work:
        exported, prepared, quantized = (Path(work) / name for name in ("float.onnx", "prepared.onnx", "int8.onnx"))
        export_onnx(model, size, exported)
        quant_pre_process(str(exported), str(prepared))  # shapes inferred and the graph simplified, as advised
        nodes = onnx.load(str(prepared)).graph.node
        # Left in floats: the softmax (8-bit probabilities would step by 1/255 and sum short of 1), and the
        # first convolution and the last layer, which cost a few per cent of the network's work.
        convolutions = [node.name for node in nodes if node.op_type == "Conv"]
        in_floats = [node.name for node in nodes if node.op_type in ("Softmax", "Gemm", "MatMul")] + convolutions[:1]
        # Weights in 7 bits (reduce_range): on an x86 CPU without VNNI, onnxruntime multiplies 8-bit
        # activations by 8-bit weights in pairs summed to 16 bits, which saturate. With these choices the
        # network names 99.7% to 99.9% of tuning crops as in floats, on every CPU (MODEL_CARD.md, Recipe).
        with contextlib.redirect_stdout(io.StringIO()):  # its calibration's progress lines, not ours to print
            quantize_static(str(prepared), str(quantized), Crops(), quant_format=QuantFormat.QDQ, per_channel=True,
                            reduce_range=True, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                            calibrate_method=CalibrationMethod.Percentile, nodes_to_exclude=in_floats)
        graph = onnx.load(str(quantized))
        if (widest := widest_weight(graph)) > PAIR_SAFE_WEIGHT:
            raise ValueError(f"onnxruntime quantized a weight to {widest}, past {PAIR_SAFE_WEIGHT}: "
                             "CPUs without VNNI would read the classifier wrong; nothing written")
        del graph.metadata_props[:]
        graph.metadata_props.extend(onnx.load(str(exported)).metadata_props)  # the names and crop size
    make_folder(out.parent)
    with written_aside(out) as partial:
        onnx.save(graph, str(partial))
    return len(crops)
