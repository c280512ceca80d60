"""The shipped detector: ``oxeye.onnx`` for serving and ``oxeye.pt`` to fine-tune from (see MODEL_CARD.md)."""

from pathlib import Path

DEFAULT_MODEL = Path(__file__).resolve().parent / "oxeye.onnx"
