"""Detector speed: a decoded 1280x720 frame to items and hands, against ultralytics predict on the same .pt.

Uses the shipped model (models/oxeye.onnx and .pt) when present; otherwise a tiny model trained
here for one epoch (kept in runs/bench-tiny-ARCH-SIZE), which has the shipped recipe's architecture and input
size but no accuracy: the timing is what counts. Run: python -m bench.detect_speed
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from bench.frames import table_photo
from bench.timing import median_seconds
from oxeye.models import DEFAULT_MODEL

ROOT = Path(__file__).resolve().parents[1]


def _tiny_model(imgsz: int, model: str) -> Path:
    """A one-epoch model of the recipe's shape (trained once, about 20 s), when nothing is shipped."""
    from oxeye.service.cli import main

    tiny = ROOT / "runs" / f"bench-tiny-{Path(model).stem}-{imgsz}"
    if not (tiny / "oxeye.onnx").is_file():
        with tempfile.TemporaryDirectory() as scratch:
            assert main(["dataset", "build", "--out", f"{scratch}/ds", "--images", "16", "--seed", "3",
                         "--imgsz", "320", "--decks", f"{scratch}/no-decks", "--workers", "1"]) == 0
            assert main(["train", "--data", f"{scratch}/ds", "--out", str(tiny), "--imgsz", str(imgsz),
                         "--model", model, "--epochs", "1", "--batch", "8", "--workers", "0"]) == 0
    return tiny / "oxeye.onnx"


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=None, help="ONNX model with its .pt beside it (shipped, else tiny)")
    parser.add_argument("--tiny-imgsz", type=int, default=320, help="input size of the tiny stand-in model (320)")
    parser.add_argument("--tiny-arch", default="yolov8n.yaml", help="architecture of the tiny stand-in (yolov8n.yaml)")
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args(argv)
    onnx = args.model or (DEFAULT_MODEL if DEFAULT_MODEL.is_file() else _tiny_model(args.tiny_imgsz, args.tiny_arch))
    shipped = onnx.resolve() == DEFAULT_MODEL.resolve()

    from oxeye.vision.detector import Detector
    from oxeye.vision.offline import ultralytics_offline

    frame = table_photo()
    detector = Detector(onnx, threads=2)
    ours_s = median_seconds(lambda: detector.read(frame), args.repeats)

    ultralytics_offline()
    import torch
    from ultralytics import YOLO

    torch.set_num_threads(2)
    reference = YOLO(str(onnx.with_suffix(".pt")))
    theirs_s = median_seconds(lambda: reference.predict(frame, imgsz=detector.size, conf=0.25, iou=0.7,
                                                        verbose=False), args.repeats)
    result = {"model": str(onnx), "shipped": shipped, "imgsz": detector.size, "frame": "1280x720",
              "ours_ms": round(ours_s * 1e3, 2), "ultralytics_pt_ms": round(theirs_s * 1e3, 2),
              "ratio_ours_to_ultralytics": round(ours_s / theirs_s, 3)}
    what = "the shipped model" if shipped else "NOT the shipped model (a stand-in of the recipe's shape)"
    print(f"{onnx} ({what}), input {detector.size} px, 1280x720 frame, median of {args.repeats}:")
    print(f"  ours (onnxruntime, 2 threads), frame to items and hands: {result['ours_ms']} ms")
    print(f"  ultralytics predict on the .pt (torch, 2 threads):        {result['ultralytics_pt_ms']} ms "
          f"(ours takes {result['ratio_ours_to_ultralytics']}x its time)")
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
