"""What the post-processing sweeps share: settings as A:B pairs, each one put on the classifier's
rule and read with `oxeye evaluate`; and the command line around it."""

from __future__ import annotations

import argparse
import functools
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np

from oxeye.models import DEFAULT_MODEL
from oxeye.vision.cli import build_folder, real_number, whole_number

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
          real: Path | None = None, paired: bool = False, repeats: int = 0) -> dict[Setting, dict[str, object]]:
    """`oxeye evaluate`'s synthetic figures on ``data`` (and the real cards' in ``real``, prefixed
    ``real_``) for each setting, put in the ``fields`` of the detector's or else its classifier's
    ``rule`` (a frozen dataclass such as ``Scales`` or ``Twins``); printed as it goes. ``paired``: each
    later setting's gain in items over the first (``gain_over_first``) with its 95% interval, the same
    photos resampled for both (``evaluate.interval``). ``repeats``: the median time of the benchmark frame
    (``bench.frames``) read under each setting (``frame_ms``) and its ratio to the first's
    (``time_over_first``), the settings read by turns (``bench.timing.alternated_medians``)."""
    from oxeye.vision.detector import Detector
    from oxeye.vision.evaluate import interval, real_cards, synthetic_by_photo

    detector = Detector(model)
    owner = detector if hasattr(detector, rule) else detector.classifier
    served = getattr(owner, rule)

    def put(chosen: Setting) -> dict[str, float]:
        values = dict(zip(fields, chosen))
        setattr(owner, rule, replace(served, **values))
        return values

    figures: dict[Setting, dict[str, object]] = {}
    for n, chosen in enumerate(settings):
        values = put(chosen)
        figures[chosen], items, rights = synthetic_by_photo(detector, data)
        if n == 0:
            first = rights
        elif paired:
            figures[chosen] |= {"gain_over_first": (sum(rights) - sum(first)) / max(sum(items), 1),
                                "gain_over_first_95": interval(items, rights, first)}
        if real is not None:
            figures[chosen] |= {f"real_{k}": v for k, v in real_cards(detector, real).items()}
        print(json.dumps({**values, **rounded(figures[chosen])}), flush=True)
    if repeats:
        def read(chosen: Setting, frame: np.ndarray) -> None:
            put(chosen)
            detector.read(frame)

        _time(read, settings, repeats, figures)
    return figures


def _time(read: Callable[[Setting, np.ndarray], object], settings: list[Setting], repeats: int,
          figures: dict[Setting, dict[str, object]]) -> None:
    """Adds each setting's median time reading the benchmark frame (``read(setting, frame)``), and its ratio
    to the first's, to its figures."""
    from bench.frames import table_photo
    from bench.timing import alternated_medians

    frame = table_photo()
    runs = {chosen: functools.partial(read, chosen, frame) for chosen in settings}
    medians = alternated_medians(runs, repeats)
    for chosen, seconds in medians.items():
        figures[chosen] |= {"frame_ms": round(seconds * 1e3, 2), "time_over_first": round(seconds / medians[settings[0]], 3)}
        print(json.dumps({"setting": ":".join(f"{v:g}" for v in chosen), "frame_ms": figures[chosen]["frame_ms"],
                          "time_over_first": figures[chosen]["time_over_first"]}), flush=True)


def command(argv: list[str] | None, doc: str, rule: str, fields: tuple[str, ...]) -> dict[Setting, dict[str, object]]:
    """A sweep's command line (its module's ``doc`` as help): a build, settings as FIELD:FIELD[:FIELD...],
    --model, --real, --paired, --time."""
    metavar = ":".join(field.upper() for field in fields[:2]) + "".join(f"[:{field.upper()}]" for field in fields[2:])
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("data", type=build_folder, help="a folder written by 'oxeye dataset build'")
    parser.add_argument("settings", type=settings_of(fields), nargs="+", metavar=metavar,
                        help=f"settings of the {rule} rule to try")
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="ONNX model (shipped)")
    parser.add_argument("--real", type=Path, help="also read these real card photos (a cards-edje folder)")
    parser.add_argument("--paired", action="store_true",
                        help="also each later setting's gain in items over the first, with its 95%% interval")
    parser.add_argument("--time", type=whole_number(0), default=0, metavar="REPEATS",
                        help="also time the benchmark frame under each setting, by turns, over REPEATS rounds")
    args = parser.parse_args(argv)
    return sweep(args.model, args.data, args.settings, rule, fields, args.real, args.paired, args.time)
