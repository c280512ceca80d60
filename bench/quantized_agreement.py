"""Whether the 8-bit classifier names crops alike on every CPU: against its float weights, fused and unfused.

onnxruntime runs an 8-bit network with integer kernels that differ by CPU: on an x86 CPU without VNNI it
multiplies 8-bit activations by 8-bit weights in pairs summed within 16 bits, which saturate where a weight
passes 64 (``vision.quantize``). Read unfused (graph optimisations off), each quantize-dequantize pair runs in
floats: what exact integer arithmetic gives, as on a CPU with VNNI. For each build, the share of crops at its
true keypoints that each reading names as the float network does; the two shares differ where the model
reads otherwise on other CPUs. Run on tuning builds:
python -m bench.quantized_agreement runs/tunemain runs/tunegmain
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from oxeye.models import DEFAULT_MODEL
from oxeye.vision.cli import build_folder, whole_number


def agreement(quantized: Path, weights: Path, data: Path, photos: int | None = None) -> dict[str, float | int]:
    """The crops of ``data``'s first ``photos`` photos, and the shares of them the 8-bit ``quantized`` names
    as the float ``weights`` do, read fused (as this CPU runs it) and unfused."""
    import torch

    from oxeye.vision.crops import to_blob
    from oxeye.vision.evaluate import true_crops
    from oxeye.vision.runtime import open_session
    from oxeye.vision.train_classifier import load_classifier

    hint = "name the 8-bit classifier's .onnx"
    fused, metadata = open_session(quantized, 2, hint)
    unfused, _ = open_session(quantized, 2, hint, fused=False)
    network, size = load_classifier(weights, metadata["imgsz"][0])
    blob = to_blob(np.concatenate([crops for _, crops in true_crops(data, size, photos=photos)]))
    with torch.no_grad():
        floats = network(torch.from_numpy(blob)).numpy().argmax(axis=1)
    feed = {fused.get_inputs()[0].name: blob}
    return {"crops": len(blob),
            "fused": float((fused.run(None, feed)[0].argmax(axis=1) == floats).mean()),
            "unfused": float((unfused.run(None, feed)[0].argmax(axis=1) == floats).mean())}


def main(argv: list[str] | None = None) -> dict[str, dict[str, float | int]]:
    from oxeye.vision.classifier import CLASSIFIER_NAME, CLASSIFIER_WEIGHTS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=build_folder, nargs="+", help="folders written by 'oxeye dataset build'")
    parser.add_argument("--classifier", type=Path, default=DEFAULT_MODEL.with_name(CLASSIFIER_NAME),
                        help="the 8-bit classifier's ONNX (the shipped one)")
    parser.add_argument("--weights", type=Path, default=DEFAULT_MODEL.with_name(CLASSIFIER_WEIGHTS),
                        help="its float weights, an oxeye-cls.pt (the shipped one)")
    parser.add_argument("--photos", type=whole_number(1), help="read only each build's first N photos")
    args = parser.parse_args(argv)
    figures = {}
    for data in args.data:
        try:
            figures[str(data)] = agreement(args.classifier, args.weights, data, args.photos)
        except (ValueError, OSError) as error:  # no such model, or not the classifier's
            parser.error(str(error))
        print(json.dumps({"build": str(data), **{k: round(v, 4) for k, v in figures[str(data)].items()}}), flush=True)
    return figures


if __name__ == "__main__":
    main()
