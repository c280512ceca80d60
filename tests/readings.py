"""Readings made by hand for tests: hands of items laid in rows, as the detector would report them."""

from __future__ import annotations

from oxeye.vision.grouping import group_hands
from oxeye.vision.reading import Item, Reading


def rows_reading(rows: list[list[str]], shift: float = 0.0, flags: dict[str, str] | None = None) -> Reading:
    """One hand of cards per row, top to bottom, on a 640x480 frame (``shift`` moves the camera a little)."""
    items = [Item(code, "card", (100 + 80 * col + shift, 60 + 200 * row, 160 + 80 * col + shift, 150 + 200 * row),
                  0.9, flag=(flags or {}).get(code))
             for row, codes in enumerate(rows) for col, code in enumerate(codes)]
    return Reading(640, 480, items, group_hands(items))
