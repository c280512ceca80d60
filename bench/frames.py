"""The benchmarks' realistic input: a table photo rendered by the generator, brought to 1280x720."""

from __future__ import annotations

import tempfile
from pathlib import Path

import cv2
import numpy as np


def table_photo() -> np.ndarray:
    """A rendered table photo of cards, decoded and brought to 1280x720 (BGR), the same every time."""
    from oxeye.datasets.build import BuildConfig, load_library, render_one

    with tempfile.TemporaryDirectory() as scratch:
        config = BuildConfig(Path(scratch), 1, 4, 1280, ("cards",), Path(scratch) / "no-decks")
        jpeg, _, _ = render_one(0, config, load_library(config.decks))
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    return cv2.resize(image, (1280, 720), interpolation=cv2.INTER_AREA)
