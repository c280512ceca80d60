"""One way to open an ONNX model for serving: onnxruntime on the CPU, a clear OSError when it cannot."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any


def open_session(model: Path, threads: int, missing_hint: str, fused: bool = True) -> tuple[Any, dict[str, Any]]:
    """An onnxruntime session on ``threads`` CPU threads, and the model's metadata with values parsed. Not
    ``fused``, its graph is run as written: an 8-bit model's quantize-dequantize pairs in floats, which is what
    exact integer arithmetic gives, whatever kernels this CPU's onnxruntime would fuse them into."""
    import onnxruntime as ort

    if Path(model).is_dir():  # a run's folder: it was "no model at RUN", as if the path were mistyped
        raise OSError(f"{model} is a folder, not a model: name the .onnx file in it")
    if not Path(model).is_file():
        raise OSError(f"no model at {model}: {missing_hint}")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Spinning worker threads cost more than they save on 2 shared cores (measured 37 ms vs 25 ms at 320 px).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if not fused:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    try:
        session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    except Exception as error:  # onnxruntime raises its own types for a corrupt file
        raise OSError(f"cannot load model {model}: {str(error).strip().splitlines()[0]}") from error
    metadata = session.get_modelmeta().custom_metadata_map
    return session, {key: _parse(value) for key, value in metadata.items()}


def required(metadata: dict[str, Any], keys: tuple[str, ...], model: Path, how: str) -> None:
    """OSError unless the model's metadata holds ``keys``: an ONNX exported otherwise than ``how`` lacks them, and
    was a KeyError traceback."""
    missing = [key for key in keys if key not in metadata]
    if missing:
        raise OSError(f"{model} lacks the metadata {', '.join(missing)} that {how} writes: export it that way")


def _parse(value: str) -> Any:
    """ultralytics writes metadata values as Python literals (names, imgsz); others stay text."""
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return value
