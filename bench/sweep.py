"""What the post-processing sweeps share: settings as A:B pairs, and each one read with `oxeye evaluate`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from oxeye.vision.classifier import Classifier

Setting = tuple[float, float]


def setting(text: str) -> Setting:
    """A:B as two numbers."""
    first, second = text.split(":")
    return float(first), float(second)


def rounded(figures: dict[str, object]) -> dict[str, object]:
    """Figures for printing: floats to 4 places; intervals, counts and absent figures (None) as they are."""
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in figures.items()}


def sweep(model: Path, data: Path, settings: list[Setting], names: tuple[str, str],
          apply: Callable[[Classifier, Setting], None], real: Path | None = None) -> dict[Setting, dict[str, object]]:
    """`oxeye evaluate`'s synthetic figures on ``data`` (and the real cards' in ``real``, prefixed
    ``real_``) for each setting, which ``apply`` puts on the model's classifier; printed as it goes,
    the setting's two numbers under ``names``."""
    from oxeye.vision.detector import Detector
    from oxeye.vision.evaluate import real_cards, synthetic

    detector = Detector(model)
    figures: dict[Setting, dict[str, object]] = {}
    for chosen in settings:
        apply(detector.classifier, chosen)
        figures[chosen] = synthetic(detector, data)
        if real is not None:
            figures[chosen] |= {f"real_{k}": v for k, v in real_cards(detector, real).items()}
        print(json.dumps({**dict(zip(names, chosen)), **rounded(figures[chosen])}), flush=True)
    return figures
