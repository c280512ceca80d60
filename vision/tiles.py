"""A panorama read in windows: the detector reads every frame letterboxed to about 416 pixels, so in a
phone's panorama of a long table (4:1 or wider) every card shrinks to a few pixels and the frame reads
nearly empty. A frame longer than ``Tiling.beyond`` times its short side is read instead in overlapping
windows of an ordinary frame's shape, each read as a frame of its own (``detector.Detector.read``).
``python -m bench.panorama`` chose the figures; README.md has them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Window = tuple[int, int, int, int]  # x1, y1, x2, y2 in frame pixels


@dataclass(frozen=True)
class Tiling:
    """When and how a long frame is read in windows: one longer than ``beyond`` times its short side is
    read in windows as long as ``window`` times that short side (an ordinary frame's shape), overlapping
    by at least ``overlap`` of a window, so that an item cut by one window's edge lies whole in the next; in
    ``most`` windows at most, each made longer where more would be needed (each costs a frame's reading: a
    sliver of a frame, 60,000 x 100 pixels, would cost 564)."""

    beyond: float = 2.0
    window: float = 4 / 3
    overlap: float = 0.2
    most: int = 12

    def windows(self, width: int, height: int) -> list[Window]:
        """The windows a ``width`` x ``height`` frame is read in, along its long side: the whole frame
        alone where it is no longer than ``beyond`` times its short side."""
        long, short = max(width, height), min(width, height)
        span = round(self.window * short)
        if long <= self.beyond * short or long <= span:
            return [(0, 0, width, height)]
        count = math.ceil((long - self.overlap * span) / ((1 - self.overlap) * span))
        if count > self.most:
            count, span = self.most, math.ceil(long / (self.most - (self.most - 1) * self.overlap))
        starts = [round(i * (long - span) / (count - 1)) for i in range(count)]
        if width >= height:
            return [(start, 0, start + span, height) for start in starts]
        return [(0, start, width, start + span) for start in starts]

    def window_side(self, width: int, height: int) -> int:
        """The long side of the windows a ``width`` x ``height`` frame is read in (the frame's own where it
        is read whole): what a large photo may be reduced to no less than (``images.reduction``)."""
        x1, y1, x2, y2 = self.windows(width, height)[0]
        return max(x2 - x1, y2 - y1)
