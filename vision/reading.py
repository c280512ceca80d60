"""What the detector read in one frame: items named and boxed, grouped into hands, doubts flagged."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

Box = tuple[float, float, float, float]

LOW_CONFIDENCE = "low_confidence"
AMBIGUOUS = "ambiguous"
UNSURE_HAND = "unsure_hand"  # an item of a complete hand that may be a neighbouring hand's (vision.grouping)
NO_COLOUR = "no_colour"  # a card in a frame without colour, its suit's red or black unseen (vision.images.colourless)
LOW_SCORE = 0.5  # an item scoring below this is reported but flagged low-confidence
RIVAL_RATIO = 0.6  # a second reading scoring this share of the best makes the item ambiguous


def doubt(score: float, rival_score: float, low: float = LOW_SCORE, ratio: float = RIVAL_RATIO) -> str | None:
    """Why an item scored ``score``, with a runner-up at ``rival_score``, is doubtful (a runner-up at
    ``ratio`` of it or more, which the one checking it is told of; else under ``low``); None when it
    is not."""
    if rival_score >= ratio * score:
        return AMBIGUOUS
    if score < low:
        return LOW_CONFIDENCE
    return None


@dataclass
class Item:
    """One physical card or tile; ``flag`` says why it is doubtful (None when it is not);
    ``keypoints`` where its two corner indices or halves were read (two-stage models only)."""

    code: str
    kind: str
    box: Box
    confidence: float
    hand: int | None = None
    flag: str | None = None
    rival: str | None = None
    keypoints: tuple[tuple[float, float], ...] = ()

    def to_json(self) -> dict[str, object]:
        """The contract's item object, plus ``flag`` so that doubt is never silent."""
        return {"code": self.code, "kind": self.kind, "box": [round(v, 1) for v in self.box],
                "confidence": round(self.confidence, 4), "hand": self.hand, "flag": self.flag}

    def shifted(self, dx: float, dy: float) -> Item:
        """This item moved by (``dx``, ``dy``) pixels, box and keypoints: read in a window of a frame
        (``vision.tiles``), given in the frame's pixels."""
        x1, y1, x2, y2 = self.box
        return replace(self, box=(x1 + dx, y1 + dy, x2 + dx, y2 + dy),
                       keypoints=tuple((x + dx, y + dy) for x, y in self.keypoints))


@dataclass
class Hand:
    """Items of one seat: five when complete, fewer when some are hidden or missed."""

    index: int
    items: list[int]
    codes: list[str]
    box: Box

    @property
    def complete(self) -> bool:
        """Whether all five of the seat's items were read: only a complete hand can be scored."""
        return len(self.codes) == 5

    def to_json(self) -> dict[str, object]:
        """The contract's hand object."""
        return {"index": self.index, "codes": self.codes, "box": [round(v, 1) for v in self.box]}


@dataclass
class Reading:
    """Everything read in one frame of ``width`` x ``height`` pixels; ``read_at``, the input size the
    detector read it at (``detector.Scales``; None where no detector read it). Not in the contract."""

    width: int
    height: int
    items: list[Item] = field(default_factory=list)
    hands: list[Hand] = field(default_factory=list)
    read_at: int | None = None

    def scaled(self, scale: int, width: int, height: int) -> Reading:
        """This reading of a photo decoded at 1/``scale`` of its size (``images.Decoded``) in the pixels of the
        photo itself, ``width`` x ``height``: boxes (clipped to it) and keypoints (not: one may lie off it)."""
        if scale == 1:
            return self

        def box(corners: Box) -> Box:
            x1, y1, x2, y2 = (v * scale for v in corners)
            return min(x1, width), min(y1, height), min(x2, width), min(y2, height)

        items = [replace(item, box=box(item.box), keypoints=tuple((x * scale, y * scale) for x, y in item.keypoints))
                 for item in self.items]
        hands = [replace(hand, box=box(hand.box)) for hand in self.hands]
        return Reading(width, height, items, hands, self.read_at)

    def to_json(self) -> dict[str, object]:
        """The ``oxeye detect --json`` contract."""
        return {"width": self.width, "height": self.height, "items": [i.to_json() for i in self.items],
                "hands": [h.to_json() for h in self.hands]}
