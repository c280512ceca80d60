"""A camera's frames in turn: each read, steadied by the ones before it, its settled hands scored and settled.

Only a settled hand (read the same for ``settle_frames`` frames) is scored, so that a hand being
dealt or picked up is never announced; the others say how far they are from settling.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from typing import Any

from oxeye.engine import HouseRules
from oxeye.service.photo import score_photo, table_kinds
from oxeye.vision.detector import Detector
from oxeye.vision.images import Decoded
from oxeye.vision.steady import Steadier, Steady


def score_steady(steady: Steady, rules: HouseRules, banker: int, stakes: dict[int, Decimal]) -> dict[str, Any]:
    """The steadied reading, every hand with its state; settled hands read as ``score_photo`` reads a photo's."""
    settled = [hand for hand, done in zip(steady.reading.hands, steady.settled) if done]
    scored = score_photo(replace(steady.reading, hands=settled), rules, banker, stakes)
    by_index = {hand["index"]: hand for hand in scored["hands"]}
    data = steady.to_json()
    for hand in data["hands"]:
        hand.update(by_index.get(hand["index"]) or {
            "reading": None, "problem": f"settling: read the same in {hand['streak']} of {steady.settle_frames} frames"})
    if steady.hidden:  # the banker's number, or a player's, may be another hand's in this frame
        scored["settlement"] = {"problem": "a settled hand is out of sight in this frame: hands are numbered by "
                                           "where they lie, so the round waits for it", "result": None}
    return {**scored, **data}


class LiveTable:
    """One camera's reading state; frames must come one at a time and in order."""

    def __init__(self, detector: Detector, rules: HouseRules, banker: int, stakes: dict[int, Decimal],
                 settle_frames: int) -> None:
        self.detector, self.rules, self.banker, self.stakes = detector, rules, banker, stakes
        self.steadier = Steadier(settle_frames)
        self.read_at: int | None = None  # the size the last frame was read at: the next is read at it first

    def restart(self) -> None:
        """Steady the frames to come afresh, as a camera's first: the table may have changed since the last."""
        self.steadier.restart()
        self.read_at = None

    def frame(self, photo: Decoded) -> tuple[Steady, dict[str, Any]]:
        """The frame steadied, and its scored JSON (see ``score_steady``), in the pixels of the frame sent."""
        reading = self.detector.read(photo.pixels, kinds=table_kinds(self.rules), start=self.read_at)
        self.read_at = reading.read_at
        steady = self.steadier.update(photo.in_photo(reading))
        return steady, score_steady(steady, self.rules, self.banker, self.stakes)
