"""Steadying a camera's readings across frames: items tracked, codes voted, hands settled.

One frame's reading flickers: a code misread for a frame, an item missed for a frame. Items are
followed from frame to frame by supervision's ByteTrack (boxes and scores only: no game rules
here); each track's code is the confidence-weighted vote of its last few reads; and a hand is
settled once it has held the same tracked items with the same voted codes for ``settle_frames``
frames in a row (a frame or two where it was not seen at all breaking no row; an item's first frame, before
ByteTrack confirms its track, counting), so that a score is given only for a hand that has stopped moving.
A settled hand out of sight for such a frame or two (a card of it missed, an arm over it) is held in
view as it was last seen whole, its unseen items marked ``held``.
"""

from __future__ import annotations

import warnings
from collections import Counter, deque
from dataclasses import dataclass, replace

import numpy as np
import supervision as sv

from oxeye.vision.grouping import numbered
from oxeye.vision.reading import Hand, Item, Reading

SETTLE_FRAMES = 5  # frames a hand must read the same before it counts as settled
VOTES = 5  # the last reads of a track that vote on its code
LOST_FRAMES = 30  # a track unseen for longer is forgotten (ByteTrack's own buffer)
GAP_FRAMES = 2  # a hand unseen for this many frames (a card missed, an arm over it) keeps its streak

Read = tuple[str, float, str | None]  # code, confidence, flag
Key = tuple[tuple[int, str], ...]  # a hand's tracked items and their codes
Sketch = tuple[Key, tuple[str, ...]]  # a hand's items tracked before this frame with their codes, the others' codes


@dataclass
class Steady:
    """A frame's reading with voted codes, each item's track id (None: not tracked yet) and each hand's state."""

    reading: Reading
    tracks: list[int | None]
    settled: list[bool]  # by hand, in ``reading.hands`` order
    streaks: list[int]  # frames in a row each hand has read the same, gaps of up to GAP_FRAMES unseen passed over
    settle_frames: int  # the streak that settles a hand
    hidden: int  # settled hands not in this frame (within GAP_FRAMES) nor held: the hands' numbers may have moved
    held: list[bool]  # by item: not seen in this frame, shown where its settled hand last saw it

    def to_json(self) -> dict[str, object]:
        """``Reading.to_json`` with ``track`` and ``held`` on every item, ``settled`` and ``streak`` on every hand."""
        data = self.reading.to_json()
        for item, track, held in zip(data["items"], self.tracks, self.held):
            item["track"], item["held"] = track, held
        for hand, settled, streak in zip(data["hands"], self.settled, self.streaks):
            hand["settled"], hand["streak"] = settled, streak
        return data


class Steadier:
    """The state kept over one camera's frames; feed it every frame's reading, in order."""

    def __init__(self, settle_frames: int = SETTLE_FRAMES, votes: int = VOTES) -> None:
        self.settle_frames, self.votes = settle_frames, votes
        self.restart()

    def restart(self, size: tuple[int, int] = (0, 0)) -> None:
        """Nothing seen yet, in frames of ``size`` (width, height): the frames to come steadied afresh."""
        with warnings.catch_warnings():
            # supervision 0.31 moves ByteTrack to the `trackers` package, whose wheel needs the GUI
            # build of OpenCV; pyproject.toml keeps supervision below 0.31 until that changes.
            warnings.simplefilter("ignore", FutureWarning)
            self._tracker = sv.ByteTrack(lost_track_buffer=LOST_FRAMES)
        self._size = size
        self._reads: dict[int, deque[Read]] = {}
        self._seen: dict[int, int] = {}  # track -> the frame it was last seen in
        self._streaks: dict[Key, tuple[int, int]] = {}  # a hand's key -> its streak and the frame it was last seen in
        self._untracked: set[Sketch] = set()  # last frame's hands with an item not tracked yet
        self._whole: dict[Key, list[Item]] = {}  # a settled hand's items, in key order, as last seen whole
        self._codes: dict[int, Counter[str]] = {}  # the last GAP_FRAMES frames, by number: how often each code was read
        self._frame = 0

    def update(self, reading: Reading) -> Steady:
        """This frame steadied by the ones before it; by none where they were of another size (a camera's
        resolution changed: their boxes, tracked and held, were in other pixels)."""
        if (reading.width, reading.height) != self._size:
            self.restart((reading.width, reading.height))
        self._frame += 1
        known = set(self._seen)
        tracks = self._track(reading.items)
        items = [self._vote(item, track) for item, track in zip(reading.items, tracks)]
        hands = [replace(hand, codes=[items[i].code for i in hand.items]) for hand in reading.hands]
        keys = [self._key(hand, tracks) for hand in hands]
        fresh = {track for track in tracks if track not in known}  # None, and the tracks confirmed in this frame
        streaks = self._hold(keys, [self._sketch(hand, tracks, {None} if key is None else fresh)
                                    for hand, key in zip(hands, keys)])
        self._whole = {key: whole for key, whole in self._whole.items() if key in self._streaks}
        for hand, key, streak in zip(hands, keys, streaks):
            if key is not None and streak >= self.settle_frames:
                self._whole[key] = [items[i] for i in sorted(hand.items, key=lambda i: (tracks[i], items[i].code))]
        self._forget()
        steady = self._in_view(Reading(reading.width, reading.height, items, hands), tracks, keys, streaks)
        self._codes = {frame: codes for frame, codes in self._codes.items() if self._frame - frame < GAP_FRAMES}
        self._codes[self._frame] = Counter(item.code for item in items)
        return steady

    def _track(self, items: list[Item]) -> list[int | None]:
        """Each item's ByteTrack id; None for one not (yet) tracked, as an item seen for the first time.

        ByteTrack is told every item is sure: the reading has chosen what to report, and an item's
        doubt is its flag's business, not the track's. Given the items' confidences it would drop a
        doubtful one (it pairs a box with a track by their IoU times the box's score, at least 0.2).
        """
        boxes = np.array([item.box for item in items], dtype=np.float32).reshape(-1, 4)
        found = sv.Detections(xyxy=boxes, confidence=np.ones(len(items), np.float32), data={"item": np.arange(len(items))})
        tracked = self._tracker.update_with_detections(found)
        tracks: list[int | None] = [None] * len(items)
        for index, track in zip(tracked.data.get("item", []), tracked.tracker_id):
            tracks[int(index)] = int(track)
        return tracks

    def _vote(self, item: Item, track: int | None) -> Item:
        """The item with its track's voted code, that code's mean confidence and its most common flag."""
        if track is None:
            return item
        reads = self._reads.setdefault(track, deque(maxlen=self.votes))
        reads.append((item.code, item.confidence, item.flag))
        self._seen[track] = self._frame
        weight: Counter[str] = Counter()
        for code, confidence, _ in reads:
            weight[code] += confidence
        code = max(weight, key=weight.__getitem__)
        agreeing = [read for read in reads if read[0] == code]
        flag = Counter(read[2] for read in agreeing).most_common(1)[0][0]
        rival = item.rival if code == item.code else item.code
        return replace(item, code=code, confidence=weight[code] / len(agreeing), flag=flag, rival=rival)

    def _hold(self, keys: list[Key | None], sketches: list[Sketch]) -> list[int]:
        """Each hand's streak, one more than when it was last seen if that was at most ``GAP_FRAMES`` frames
        ago: a hand missed for a frame was 'settling' again for ``settle_frames`` frames once back. A hand
        with an item not tracked yet has read once; tracked in the next frame as it read, it has read twice (a
        hand dealt once the camera ran read 'the same in 0 of 5 frames' and settled in its sixth)."""
        kept = {key: held for key, held in self._streaks.items() if self._frame - held[1] <= GAP_FRAMES + 1}
        for key, sketch in zip(keys, sketches):
            if key is not None:
                kept[key] = (kept.get(key, (int(sketch in self._untracked), 0))[0] + 1, self._frame)
        self._streaks = kept
        self._untracked = {sketch for key, sketch in zip(keys, sketches) if key is None}
        return [1 if key is None else kept[key][0] for key in keys]

    def _in_view(self, reading: Reading, tracks: list[int | None], keys: list[Key | None], streaks: list[int]) -> Steady:
        """The frame with every settled hand out of sight (within ``GAP_FRAMES``) held in view as last seen whole,
        in place of what this frame shows of it. A hand is out of sight when an item of it is (a code changed is
        no hand out of sight); one whose items in sight are grouped with another's, or read otherwise, or whose
        unseen items are read elsewhere (see ``_read_elsewhere``), is not held but counted ``hidden``: then the
        hands' numbers may have moved."""
        read = Counter(item.code for item in reading.items)
        owner = {tracks[i]: n for n, hand in enumerate(reading.hands) for i in hand.items if tracks[i] is not None}
        items, tracks, held = list(reading.items), list(tracks), [False] * len(reading.items)
        kept: list[tuple[list[int], int]] = []  # the held hands' items and streaks
        taken: set[int] = set()  # the frame's hands a held hand stands in for
        hidden = 0
        for key, (streak, frame) in self._streaks.items():
            if (self._frame - frame not in range(1, GAP_FRAMES + 1) or streak < self.settle_frames
                    or {t for t, _ in key} <= owner.keys()):
                continue
            parts = {owner[t] for t, _ in key if t in owner}
            unseen = [(track, replace(item)) for (track, _), item in zip(key, self._whole[key]) if track not in owner]
            if (parts & taken or any(keys[n] is None or not set(keys[n]) <= set(key) for n in parts)
                    or self._read_elsewhere([item.code for _, item in unseen], read, self._codes[frame])):
                hidden += 1
                continue
            taken |= parts
            group = [i for n in sorted(parts) for i in reading.hands[n].items]
            kept.append((group + list(range(len(items), len(items) + len(unseen))), streak))
            items += [item for _, item in unseen]
            tracks += [track for track, _ in unseen]
            held += [True] * len(unseen)
        hands = reading.hands
        if kept:  # numbered again with the held hands in place, as the frame's own hands were
            groups = [(hand.items, streak) for n, (hand, streak) in enumerate(zip(hands, streaks)) if n not in taken]
            hands = numbered(items, [group for group, _ in groups + kept])
            streak_of = {frozenset(group): streak for group, streak in groups + kept}
            streaks = [streak_of[frozenset(hand.items)] for hand in hands]
        return Steady(Reading(reading.width, reading.height, items, hands), tracks,
                      [streak >= self.settle_frames for streak in streaks], streaks, self.settle_frames, hidden, held)

    @staticmethod
    def _read_elsewhere(unseen: list[str], read: Counter[str], then: Counter[str]) -> bool:
        """Whether a hand's ``unseen`` codes are read by other items in this frame (``read``: every item's code,
        counted), more often than in the frame it was last seen whole in (``then``): the camera, or the hand,
        moved further than the tracker follows, and the hand lies elsewhere; held, it was shown twice and
        numbered among its own copy. Counted, not merely found, as a domino set holds twins."""
        return any(read[code] + count > then[code] for code, count in Counter(unseen).items())

    @staticmethod
    def _key(hand: Hand, tracks: list[int | None]) -> Key | None:
        """What must stay the same for the hand to settle: its tracked items and their codes."""
        held = [(tracks[i], code) for i, code in zip(hand.items, hand.codes)]
        if any(track is None for track, _ in held):
            return None
        return tuple(sorted(held))  # type: ignore[arg-type]

    @staticmethod
    def _sketch(hand: Hand, tracks: list[int | None], fresh: set[int | None]) -> Sketch:
        """The hand with its ``fresh`` items (those not tracked in the frame before) told apart only by their
        codes: how a hand tracked from this frame on read in the frame before, when ByteTrack had not yet
        confirmed its newest items."""
        held = [(tracks[i], code) for i, code in zip(hand.items, hand.codes)]
        return (tuple(sorted((track, code) for track, code in held if track not in fresh)),
                tuple(sorted(code for track, code in held if track in fresh)))

    def _forget(self) -> None:
        """Drop the reads of tracks ByteTrack has given up on."""
        for track in [t for t, frame in self._seen.items() if self._frame - frame > LOST_FRAMES]:
            del self._seen[track], self._reads[track]
