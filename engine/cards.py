"""Playing cards: an immutable value type with parse and format that round-trip."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from oxeye.engine.errors import ParseError

RANK_CODES: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUIT_CODES: tuple[str, ...] = ("S", "H", "D", "C")
_SUIT_ALIASES: dict[str, str] = {
    **{s: s for s in SUIT_CODES},
    "♠": "S", "♤": "S", "♥": "H", "♡": "H", "♦": "D", "♢": "D", "♣": "C", "♧": "C",
}
_RANK_ALIASES: dict[str, int] = {**{code: i + 1 for i, code in enumerate(RANK_CODES)}, "T": 10}


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """One card: rank 1 (ace) to 13 (king) and a suit letter S, H, D or C."""

    rank: int
    suit: str

    ACE: ClassVar[int] = 1
    JACK: ClassVar[int] = 11
    KING: ClassVar[int] = 13

    def __post_init__(self) -> None:
        if not self.ACE <= self.rank <= self.KING or self.suit not in SUIT_CODES:
            raise ParseError(f"no such card: rank {self.rank!r}, suit {self.suit!r}")

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read ``AS``, ``10H``, ``TD``, ``qc``, ``7♥``; raise ParseError naming the text otherwise."""
        code = text.strip().upper()
        if len(code) >= 2 and code[-1] in _SUIT_ALIASES and code[:-1] in _RANK_ALIASES:
            return cls(_RANK_ALIASES[code[:-1]], _SUIT_ALIASES[code[-1]])
        raise ParseError(f"unknown card code {text!r} (expected rank A 2-10 J Q K then suit S H D C, e.g. 10H)")

    @property
    def code(self) -> str:
        """The canonical code, e.g. ``10H``."""
        return RANK_CODES[self.rank - 1] + self.suit

    @property
    def rank_code(self) -> str:
        """The rank as written in codes: ``A``, ``2`` ... ``10``, ``J``, ``Q``, ``K``."""
        return RANK_CODES[self.rank - 1]

    @property
    def is_face(self) -> bool:
        """J, Q or K."""
        return self.rank >= self.JACK

    @property
    def points(self) -> int:
        """Ox points before any wild choice: face value, with 10, J, Q and K worth 10."""
        return min(self.rank, 10)

    def __str__(self) -> str:
        return self.code


def full_deck() -> tuple[Card, ...]:
    """The 52 cards, suit by suit."""
    return tuple(Card(rank, suit) for suit in SUIT_CODES for rank in range(1, 14))
