"""What the post-processing sweeps share: settings as A:B pairs, each one put on the classifier's
rule and read with `oxeye evaluate`; and the command line around it."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from oxeye.models import DEFAULT_MODEL
from oxeye.vision.cli import real_number

Setting = tuple[float, ...]


def settings_of(fields: tuple[str, ...]) -> Callable[[str], Setting]:
    """A:B[:C...] as numbers, each written as the command line's every number is (``real_number``):
    one for each of ``fields``' first two and as many more as given; the fields left out keep the
    rule's own value."""
    def parse(text: str) -> Setting:
        parts = text.split(":")
        if not 2 <= len(parts) <= len(fields):
            raise ValueError(text)
        return tuple(real_number(part) for part in parts)
    parse.__name__ = ":".join(fields)  # argparse names the type in its refusal
    return parse


def rounded(figures: dict[str, object]) -> dict[str, object]:
    """Figures for printing: floats to 4 places; intervals, counts and absent figures (None) as they are."""
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in figures.items()}


def sweep(model: Path, data: Path, settings: list[Setting], rule: str, fields: tuple[str, ...],
          real: Path | None = None) -> dict[Setting, dict[str, object]]:
    """`oxeye evaluate`'s synthetic figures on ``data`` (and the real cards' in ``real``, prefixed
    ``real_``) for each setting, put in the ``fields`` of the detector's or else its classifier's
    ``rule`` (a frozen dataclass such as ``Scales`` or ``Twins``); printed as it goes."""
    from oxeye.vision.detector import Detector
    from oxeye.vision.evaluate import real_cards, synthetic

    detector = Detector(model)
    owner = detector if hasattr(detector, rule) else detector.classifier
    figures: dict[Setting, dict[str, object]] = {}
    for chosen in settings:
        values = dict(zip(fields, chosen))
        setattr(owner, rule, replace(getattr(owner, rule), **values))
        figures[chosen] = synthetic(detector, data)
        if real is not None:
            figures[chosen] |= {f"real_{k}": v for k, v in real_cards(detector, real).items()}
        print(json.dumps({**values, **rounded(figures[chosen])}), flush=True)
    return figures


def command(argv: list[str] | None, doc: str, rule: str, fields: tuple[str, ...]) -> dict[Setting, dict[str, object]]:
    """A sweep's command line (its module's ``doc`` as help): a build, settings as FIELD:FIELD[:FIELD...],
    --model, --real."""
    metavar = ":".join(field.upper() for field in fields[:2]) + "".join(f"[:{field.upper()}]" for field in fields[2:])
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("data", type=Path, help="a folder written by 'oxeye dataset build'")
    parser.add_argument("settings", type=settings_of(fields), nargs="+", metavar=metavar,
                        help=f"settings of the {rule} rule to try")
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="ONNX model (shipped)")
    parser.add_argument("--real", type=Path, help="also read these real card photos (a cards-edje folder)")
    args = parser.parse_args(argv)
    return sweep(args.model, args.data, args.settings, rule, fields, args.real)
