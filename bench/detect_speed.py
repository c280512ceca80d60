"""Detector speed: a decoded 1280x720 frame to items and hands, against ultralytics predict on the same .pt.

Uses the shipped model (models/oxeye.onnx and .pt, with the classifier oxeye-cls.onnx and .pt beside
them) or --model. For a two-stage model the reference is ultralytics predict on the detector's .pt,
then the classifier's .pt in torch (floats; ours serves it in 8 bits, ``vision.quantize``) over the
crops at the keypoints it found; ours is also timed without the rescue of doubted detections
(``classifier.Rescue``), the second reading of unsure crops (``classifier.Recheck``) and the search of
short hands (``vision.completion``), which the reference does not do, to show what they cost. The
frame, a table seen whole, is read at ``Scales.first``, so the reference predicts at that size too;
ours is also timed reading it once at the model's own size, to show what reading at the other size
costs (nothing for the shipped detector, which learnt at 416).
Run: python -m bench.detect_speed
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bench.frames import table_photo
from bench.timing import host_cpu, median_seconds
from oxeye.models import DEFAULT_MODEL
from oxeye.vision.cli import whole_number


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="ONNX model with its .pt beside it (shipped)")
    parser.add_argument("--repeats", type=whole_number(1), default=50)
    args = parser.parse_args(argv)
    onnx = args.model
    if not onnx.is_file():
        parser.error(f"no model at {onnx}: train one (see models/MODEL_CARD.md) or pass --model")
    shipped = onnx.resolve() == DEFAULT_MODEL.resolve()

    from oxeye.vision.classifier import CLASSIFIER_WEIGHTS, Recheck, Rescue, detection_crops
    from oxeye.vision.completion import Completion
    from oxeye.vision.crops import Pyramid, to_blob
    from oxeye.vision.detector import Detector, Scales
    from oxeye.vision.offline import ultralytics_offline
    from oxeye.vision.train_classifier import load_classifier

    frame = table_photo()
    detector = Detector(onnx, threads=2)
    items = len(detector.read(frame).items)
    ours_s = median_seconds(lambda: detector.read(frame), args.repeats)
    read_at, served, detector.scales = detector.first_size, detector.scales, Scales(first=detector.size)
    own_size_s = median_seconds(lambda: detector.read(frame), args.repeats)
    detector.scales = served
    if detector.classifier is not None:  # then the same detector without them
        detector.classifier.rescue = Rescue(floor=1.0)  # off: nothing under the threshold is looked at
        detector.classifier.recheck = Recheck(below=0.0)  # off: each crop is read once
        detector.classifier.completion = Completion(sure=2.0)  # off: no short hand is looked at again
    plain_s = median_seconds(lambda: detector.read(frame), args.repeats)

    ultralytics_offline()
    import torch
    from ultralytics import YOLO

    torch.set_num_threads(2)
    reference = YOLO(str(onnx.with_suffix(".pt")))
    namer = load_classifier(onnx.with_name(CLASSIFIER_WEIGHTS))[0] if detector.classifier else None

    def theirs() -> None:
        found = reference.predict(frame, imgsz=read_at, conf=0.25, iou=0.7, verbose=False)[0]
        if namer is not None and len(found.boxes):
            crops = detection_crops(Pyramid(frame), found.boxes.cls.numpy(), found.keypoints.data.numpy(),
                                    detector.classifier.size)
            with torch.no_grad():
                namer(torch.from_numpy(to_blob(crops))).softmax(dim=1)

    theirs_s = median_seconds(theirs, args.repeats)
    result = {"model": str(onnx), "shipped": shipped, "imgsz": read_at, "model_imgsz": detector.size,
              "frame": "1280x720", "items": items,
              "ours_ms": round(ours_s * 1e3, 2), "ours_without_rescue_recheck_or_search_ms": round(plain_s * 1e3, 2),
              "ours_at_model_size_ms": round(own_size_s * 1e3, 2),
              "ultralytics_pt_ms": round(theirs_s * 1e3, 2),
              "ratio_ours_to_ultralytics": round(ours_s / theirs_s, 3), **host_cpu()}
    what = "the shipped model" if shipped else "not the shipped model"
    vnni = {True: "with VNNI", False: "without VNNI", None: "VNNI unknown"}[result["vnni"]]
    print(f"{onnx} ({what}), read at {read_at} px (trained at {detector.size}), 1280x720 frame, "
          f"median of {args.repeats}, on {result['cpu'] or 'an unnamed CPU'} ({vnni}):")
    print(f"  ours (onnxruntime, 2 threads), frame to items and hands: {result['ours_ms']} ms "
          f"({result['ours_without_rescue_recheck_or_search_ms']} ms without the rescue, recheck and search, "
          f"{result['ours_at_model_size_ms']} ms read at {detector.size} px)")
    print(f"  ultralytics predict on the .pt files (torch, 2 threads):  {result['ultralytics_pt_ms']} ms "
          f"(ours takes {result['ratio_ours_to_ultralytics']}x its time)")
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
