"""Make ultralytics work here without the network: no downloads, no probes, a working torchvision NMS, no polars.

Training, export and the comparison tests import ultralytics through ``ultralytics_offline()``;
serving never does. The fixes are those measured in ../shared/notes/ultralytics-offline.md.
"""

from __future__ import annotations

import contextlib
import csv
import importlib.util
import logging
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np

from oxeye.vision.folders import working_folder

CONFIG_DIR = working_folder("runs/ultralytics-config", "ultralytics-config")  # its settings and fonts
_SHIM: list[object] = []  # the torch.library handle, kept alive; a second registration would crash


def _torchvision_extension_loads() -> bool:
    """Whether torchvision's compiled operators load beside this torch (the CUDA-only 0.28.0 wheel does not on CPU)."""
    import torch

    spec = importlib.util.find_spec("torchvision")
    library = next(Path(spec.origin).parent.glob("_C.*"), None) if spec and spec.origin else None
    if library is None:
        return False
    try:
        torch.ops.load_library(str(library))
    except OSError:
        return False
    return True


def _cv2_nms(boxes: object, scores: object, iou_threshold: float) -> object:
    """torchvision.ops.nms on the CPU through OpenCV (faster than a torch loop, same result as ultralytics' NMS)."""
    import cv2
    import torch

    if boxes.numel() == 0:
        return torch.empty(0, dtype=torch.int64)
    xyxy = boxes.detach().cpu().double().numpy()
    xywh = np.concatenate([xyxy[:, :2], xyxy[:, 2:] - xyxy[:, :2]], axis=1)
    keep = cv2.dnn.NMSBoxes(xywh.tolist(), scores.detach().cpu().double().numpy().tolist(), 0.0, float(iou_threshold))
    return torch.as_tensor(np.asarray(keep, dtype=np.int64).reshape(-1))


def _install_nms_shim() -> None:
    """Define torchvision::nms (and qnms) before torchvision loads, once per process."""
    import torch

    if _SHIM:
        return
    library = torch.library.Library("torchvision", "DEF")
    library.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    library.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    library.impl("nms", _cv2_nms, "CPU")
    _SHIM.append(library)


def _install_font(config_dir: Path) -> None:
    """ultralytics fetches Arial.ttf on every train/val call; any .ttf in its settings folder stops that."""
    import matplotlib

    target = config_dir / "Ultralytics"
    target.mkdir(parents=True, exist_ok=True)
    font = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        if not (target / name).exists():
            shutil.copyfile(font, target / name)


def _column(values: list[str]) -> list[int] | list[float] | list[str]:
    """One column of a CSV as polars infers it: integers, else numbers, else the text."""
    for kind in (int, float):
        try:
            return [kind(value) for value in values]
        except ValueError:
            pass
    return values


def results_columns(path: Path) -> dict[str, list]:
    """An ultralytics results.csv as ``BaseTrainer.read_results_csv`` gives it, but without polars:
    the lent GPU machines lack that 54 MB wheel and cannot carry it. {} where unreadable, as there."""
    try:
        header, *rows = csv.reader(path.read_text().splitlines())
        return {name: _column([row[n] for row in rows]) for n, name in enumerate(header)}
    except (OSError, ValueError, IndexError):
        return {}


def _threads_asked(value: str) -> int:
    """The threads OMP_NUM_THREADS asks for (its first number, as OpenMP reads "4,2"), or every core
    where it asks for none that can be used: OpenMP warns of a bad value and goes on, and so does this."""
    first = value.split(",")[0].strip()
    asked = int(first) if first.isascii() and first.isdigit() else 0
    return asked or os.cpu_count() or 1


def ultralytics_offline(config_dir: Path | None = None) -> ModuleType:
    """Import ultralytics with every network path closed and torchvision's NMS working; returns the module."""
    config_dir = Path(os.environ.get("YOLO_CONFIG_DIR") or config_dir or CONFIG_DIR)
    os.environ.update({"YOLO_OFFLINE": "1", "YOLO_AUTOINSTALL": "0", "YOLO_CONFIG_DIR": str(config_dir),
                       "YOLO_VERBOSE": os.environ.get("YOLO_VERBOSE", "False")})
    _install_font(config_dir)
    threads = _threads_asked(os.environ.get("OMP_NUM_THREADS", ""))
    if not _SHIM and not _torchvision_extension_loads():
        _install_nms_shim()
        import torchvision.extension

        torchvision.extension._has_ops = lambda: True
    import ultralytics
    from PIL import Image
    from ultralytics.engine.trainer import BaseTrainer
    from ultralytics.utils import patches, torch_utils

    # ultralytics trains on the CPU with one thread fewer than there are cores (1 of the 2 here):
    # use them all, or as many as OMP_NUM_THREADS said before ultralytics set it to 1.
    torch_utils.NUM_THREADS = threads

    # Importing ultralytics replaces PIL.Image.open for the whole process with one that, on a file Pillow
    # cannot identify, tries to pip-install pi-heif: put Pillow's own back (no run-time installs here).
    Image.open = patches._image_open
    # With plots off (as vision.train trains), this is training's one use of polars.
    BaseTrainer.read_results_csv = lambda trainer: results_columns(trainer.csv)
    return ultralytics


@contextlib.contextmanager
def said_on_stderr() -> Iterator[None]:
    """ultralytics' log and progress bars written to stderr while inside, where they go to stdout (its log to the
    stdout of its import): with YOLO_VERBOSE=True, or ultralytics imported before its verbosity was set (by a
    checkpoint unpickled), ``oxeye evaluate``'s JSON came after its lines on stdout, no longer JSON to read."""
    from ultralytics.utils import LOGGER

    # each handler's stream swapped, not by setStream, which flushes the one it replaces: under pytest, that was an
    # earlier test's captured stdout, closed ('I/O operation on closed file')
    handlers = {handler: handler.stream for handler in LOGGER.handlers if isinstance(handler, logging.StreamHandler)}
    for handler in handlers:
        handler.stream = sys.stderr
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        for handler, stream in handlers.items():
            handler.stream = stream
