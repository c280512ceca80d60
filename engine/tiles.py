"""Chinese domino tiles: an immutable value type with parse and format that round-trip."""

from __future__ import annotations

import re
from dataclasses import dataclass

from oxeye.engine.errors import ParseError

CIVIL_FACES: tuple[tuple[int, int], ...] = (
    (6, 6), (1, 1), (4, 4), (3, 1), (5, 5), (3, 3), (2, 2), (6, 5), (6, 4), (6, 1), (5, 1),
)
MILITARY_FACES: tuple[tuple[int, int], ...] = (
    (6, 3), (5, 4), (6, 2), (5, 3), (5, 2), (4, 3), (4, 2), (4, 1), (3, 2), (2, 1),
)
_TILE_RE = re.compile(r"^([1-6])\s*[-:|/]\s*([1-6])$|^\[\s*([1-6])\s*[-:|/]\s*([1-6])\s*\]$")


@dataclass(frozen=True, order=True, slots=True)
class Tile:
    """One Chinese domino tile: the pips of its two halves, high first."""

    high: int
    low: int

    def __post_init__(self) -> None:
        if not (1 <= self.low <= self.high <= 6):
            raise ParseError(f"no such tile: halves {self.high!r} and {self.low!r} (each 1-6, high first)")

    @classmethod
    def of(cls, a: int, b: int) -> Tile:
        """The tile with halves ``a`` and ``b`` in either order."""
        return cls(max(a, b), min(a, b))

    @classmethod
    def parse(cls, text: str) -> Tile:
        """Read ``6-6``, ``4-2``, ``2:4``, ``[4:2]`` (either order); raise ParseError otherwise."""
        match = _TILE_RE.match(text.strip())
        if not match:
            raise ParseError(f"unknown tile code {text!r} (expected two halves of 1-6 pips, e.g. 4-2 or [2:4])")
        a, b = (int(x) for x in match.groups() if x is not None)
        return cls.of(a, b)

    @property
    def code(self) -> str:
        """The canonical code, high half first: ``4-2``."""
        return f"{self.high}-{self.low}"

    @property
    def pips(self) -> int:
        """The number of pips on both halves."""
        return self.high + self.low

    @property
    def is_civil(self) -> bool:
        """Civil faces come twice in the 32-tile set; military faces once."""
        return (self.high, self.low) in CIVIL_FACES

    @property
    def copies_per_set(self) -> int:
        """How many of this face one Chinese set holds."""
        return 2 if self.is_civil else 1

    def __str__(self) -> str:
        return self.code


def chinese_set() -> tuple[Tile, ...]:
    """The 32 tiles: the 11 civil faces twice, then the 10 military faces once."""
    civil = tuple(Tile(*face) for face in CIVIL_FACES)
    return civil + civil + tuple(Tile(*face) for face in MILITARY_FACES)
