"""Steadying readings across frames, on constructed readings: tracks hold, flicker is voted out, hands settle."""

from __future__ import annotations

from dataclasses import replace

from oxeye.vision.grouping import group_hands, numbered
from oxeye.vision.reading import LOW_CONFIDENCE, Reading
from oxeye.vision.steady import Steadier
from readings import rows_reading

BANKER = ["KS", "QH", "JD", "KC", "QD"]
PLAYER = ["3S", "6H", "8D", "4C", "8H"]


def test_items_keep_their_track_from_frame_torows_reading() -> None:
    steadier = Steadier()
    first = steadier.update(rows_reading([BANKER, PLAYER]))
    assert None not in first.tracks and len(set(first.tracks)) == 10
    for shift in (2.0, 4.0, 5.0):
        later = steadier.update(rows_reading([BANKER, PLAYER], shift))
        assert later.tracks == first.tracks
    assert [h["codes"] for h in later.to_json()["hands"]] == [BANKER, PLAYER]
    assert {"track"} <= later.to_json()["items"][0].keys() and {"settled", "streak"} <= later.to_json()["hands"][0].keys()


def test_a_hand_settles_after_n_identical_frames() -> None:
    steadier = Steadier(settle_frames=3)
    states = [steadier.update(rows_reading([BANKER, PLAYER])) for _ in range(4)]
    assert [s.settled for s in states] == [[False, False], [False, False], [True, True], [True, True]]
    assert states[-1].streaks == [4, 4]


def test_a_flickering_code_is_voted_out_and_the_hand_stays_settled() -> None:
    steadier = Steadier(settle_frames=3)
    for _ in range(4):
        steadier.update(rows_reading([BANKER, PLAYER]))
    misread = steadier.update(rows_reading([BANKER, ["3S", "6H", "9D", "4C", "8H"]]))
    assert misread.reading.hands[1].codes == PLAYER and misread.settled == [True, True]
    assert misread.reading.items[7].rival == "9D"  # the frame's own read is kept as the rival
    assert steadier.update(rows_reading([BANKER, PLAYER])).settled == [True, True]


def test_a_changed_card_unsettles_the_hand_until_it_holds_again() -> None:
    steadier = Steadier(settle_frames=3)
    for _ in range(4):
        steadier.update(rows_reading([BANKER, PLAYER]))
    swapped = ["3S", "6H", "8D", "4C", "9H"]
    states = [steadier.update(rows_reading([BANKER, swapped])) for _ in range(6)]
    # Of the last five reads, the new card outweighs the old from the third frame on.
    assert [s.reading.hands[1].codes[-1] for s in states] == ["8H", "8H", "9H", "9H", "9H", "9H"]
    assert [s.settled[1] for s in states] == [True, True, False, False, True, True]
    assert all(s.settled[0] for s in states)  # the other hand never moved
    assert not any(s.hidden for s in states)  # a card changed, none hidden


def test_a_hand_dealt_later_settles_after_n_frames_its_first_untracked_one_counting() -> None:
    """ByteTrack confirms an item first seen after the first frame only in its second: a hand dealt once the
    camera ran read 'the same in 0 of 3 frames' in its first and settled in its fourth."""
    steadier = Steadier(settle_frames=3)
    steadier.update(rows_reading([BANKER]))
    states = [steadier.update(rows_reading([BANKER, PLAYER])) for _ in range(4)]
    assert states[0].tracks[5:] == [None] * 5  # not tracked yet
    assert [s.streaks[1] for s in states] == [1, 2, 3, 4]
    assert [s.settled[1] for s in states] == [False, False, True, True]


def test_a_card_dealt_to_a_hand_counts_its_first_frame_and_not_a_different_read() -> None:
    steadier = Steadier(settle_frames=2)
    for _ in range(3):
        steadier.update(rows_reading([BANKER, PLAYER[:4]]))
    dealt = steadier.update(rows_reading([BANKER, PLAYER]))  # the fifth card appears: ByteTrack confirms it next frame
    assert dealt.tracks[-1] is None and (dealt.streaks, dealt.settled) == ([4, 1], [True, False])
    assert [steadier.update(rows_reading([BANKER, PLAYER])).settled[1] for _ in range(2)] == [True, True]
    steadier = Steadier(settle_frames=2)
    for _ in range(3):
        steadier.update(rows_reading([BANKER, PLAYER[:4]]))
    steadier.update(rows_reading([BANKER, PLAYER]))
    reread = steadier.update(rows_reading([BANKER, [*PLAYER[:4], "9H"]]))  # not the card the untracked frame read
    assert (reread.streaks, reread.settled) == ([5, 1], [True, False])


def test_a_doubt_that_persists_is_kept_and_a_passing_one_is_not() -> None:
    steadier = Steadier()
    steadier.update(rows_reading([BANKER]))
    once = steadier.update(rows_reading([BANKER], flags={"QH": LOW_CONFIDENCE}))
    assert once.reading.items[1].flag is None
    for _ in range(3):
        doubted = steadier.update(rows_reading([BANKER], flags={"QH": LOW_CONFIDENCE}))
    assert doubted.reading.items[1].flag == LOW_CONFIDENCE


def test_an_empty_frame_is_fine() -> None:
    steady = Steadier().update(Reading(640, 480))
    assert steady.to_json() == {"width": 640, "height": 480, "items": [], "hands": []}


def test_an_item_the_detector_doubted_is_tracked_and_its_hand_settles() -> None:
    """A card the detector scored low but whose index read surely (``classifier.Rescue``) carries that
    low score as its confidence; its hand must still settle."""
    steadier = Steadier(settle_frames=2)
    doubted = rows_reading([BANKER, PLAYER])
    doubted.items[-1] = replace(doubted.items[-1], confidence=0.05, flag=LOW_CONFIDENCE)
    states = [steadier.update(doubted) for _ in range(3)]
    assert None not in states[-1].tracks and [s.settled for s in states][1:] == [[True, True]] * 2


def test_a_hand_unseen_for_a_frame_or_two_is_held_as_it_settled_and_goes_on_when_it_is_back() -> None:
    """A card missed for one frame, or an arm passing over the table, cost a settled hand its streak: it
    was 'settling' again for ``settle_frames`` frames once back, its settlement gone meanwhile. Then it was
    settled again once back but out of the round meanwhile: with six hands, a card of one of them missed in
    most frames, a round was settled in 4 frames of 25. Now it is held in view as it settled."""
    steadier = Steadier(settle_frames=3)
    for _ in range(4):
        whole = steadier.update(rows_reading([BANKER, PLAYER]))
    once = steadier.update(rows_reading([BANKER, PLAYER[:4]]))  # the player's last card missed
    assert (once.settled, once.hidden, once.streaks) == ([True, True], 0, [5, 4])  # held, not read again
    assert once.reading.hands[1].codes == PLAYER and once.held == [False] * 9 + [True]
    assert once.reading.items[9].box == whole.reading.items[9].box and once.tracks[9] == whole.tracks[9]
    assert once.to_json()["items"][9]["held"] and not once.to_json()["items"][8]["held"]
    back = steadier.update(rows_reading([BANKER, PLAYER]))
    assert back.settled == [True, True] and back.streaks == [6, 5] and not any(back.held)
    for _ in range(2):  # nothing seen for two frames: both held whole
        gone = steadier.update(Reading(640, 480))
        assert [h.codes for h in gone.reading.hands] == [BANKER, PLAYER] and all(gone.held) and gone.settled == [True, True]
    assert steadier.update(rows_reading([BANKER, PLAYER])).streaks == [7, 6]
    for _ in range(3):  # three is a hand gone: it settles anew
        gone = steadier.update(Reading(640, 480))
    assert gone.reading.hands == [] and gone.hidden == 0
    assert [steadier.update(rows_reading([BANKER, PLAYER])).settled for _ in range(3)] == [
        [False, False], [False, False], [True, True]]


def test_a_hand_held_in_view_keeps_its_place_among_the_others() -> None:
    """Hands are numbered by where they lie: the banker's hand held in view is hand 0 still, not the player's."""
    steadier = Steadier(settle_frames=2)
    for _ in range(3):
        steadier.update(rows_reading([BANKER, PLAYER]))
    frame = rows_reading([BANKER, PLAYER])
    players = frame.items[5:]
    for item in players:
        item.hand = None
    held = steadier.update(Reading(640, 480, players, group_hands(players)))
    assert [h.codes for h in held.reading.hands] == [BANKER, PLAYER] and [h.index for h in held.reading.hands] == [0, 1]
    assert [item.hand for item in held.reading.items] == [1] * 5 + [0] * 5 and held.held == [False] * 5 + [True] * 5


def test_a_hand_whose_items_in_sight_join_another_is_not_held_and_the_frame_says_so() -> None:
    """What is in sight of a settled hand grouped with another hand's items is no hand missing a card: it is
    not made up again, and ``hidden`` says a settled hand is out of sight (the neighbour, all in sight, is not)."""
    other = ["2S", "3H", "5D", "9C", "AH"]
    steadier = Steadier(settle_frames=2)
    for _ in range(3):
        steadier.update(rows_reading([BANKER, PLAYER, other]))
    frame = rows_reading([BANKER, PLAYER, other])
    items = frame.items[:9] + frame.items[10:]  # the player's last card missed, its others joined by a neighbour
    steady = steadier.update(Reading(640, 480, items, numbered(items, [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [10, 11, 12, 13]])))
    assert steady.hidden == 1 and not any(steady.held) and len(steady.reading.items) == 14


def lowered(rows: list[list[str]], by: float) -> Reading:
    """``rows_reading`` of a camera moved: every item ``by`` pixels lower."""
    items = [replace(item, box=(item.box[0], item.box[1] + by, item.box[2], item.box[3] + by))
             for item in rows_reading(rows).items]
    return Reading(640, 480, items, group_hands(items))


def test_hands_the_camera_moved_away_from_are_not_held_beside_where_they_lie_now() -> None:
    """The camera moved further than ByteTrack follows: every hand was read a card's length lower, and the
    settled ones were held where they had lain too, two copies of each, the held ones settled and numbered 1
    and 3 (moved back, the tracks of before found again) or 0 and 2 (the player's stake was another hand's).
    A hand whose unseen codes are read elsewhere, more often than in the frame it was last seen in, is not held."""
    steadier = Steadier(settle_frames=3)
    for move, by in enumerate((0, 100, 0)):  # away, and back where ByteTrack finds the hands' tracks of before
        for frame in range(6):
            moved = steadier.update(lowered([BANKER, PLAYER], by))
            assert [h.codes for h in moved.reading.hands] == [BANKER, PLAYER] and not any(moved.held)
            assert moved.hidden == (2 if move and frame < 2 else 0)


def test_a_hand_missing_a_tile_whose_twin_lies_in_another_hand_is_held() -> None:
    """A domino set holds twins: the other hand's twin, read as before, is no sign the hand moved."""
    banker, player = ["6-6", "4-2", "5-3", "1-1", "3-2"], ["6-6", "6-1", "5-5", "4-1", "6-4"]
    steadier = Steadier(settle_frames=3)
    for _ in range(4):
        steadier.update(rows_reading([banker, player]))
    frame = rows_reading([banker, player])
    items = frame.items[1:]  # the banker's 6-6 missed
    held = steadier.update(Reading(640, 480, items, group_hands(items)))
    assert [h.codes for h in held.reading.hands] == [banker, player] and held.held == [False] * 9 + [True]


def test_a_frame_of_another_size_starts_afresh() -> None:
    """A camera's resolution changed (a phone turned, a stream reopened at another size): the hands settled in
    the last frame's pixels were held in this one's, where nothing lay (an 8 x 8 frame's round was settled
    from boxes 600 px outside it), and tracks were matched across the two frames' pixels."""
    steadier = Steadier(settle_frames=3)
    for _ in range(4):
        steadier.update(rows_reading([BANKER, PLAYER]))
    smaller = steadier.update(Reading(8, 8))
    assert (smaller.reading.items, smaller.reading.hands, smaller.hidden) == ([], [], 0)
    again = [steadier.update(rows_reading([BANKER, PLAYER])) for _ in range(3)]
    assert [s.settled for s in again] == [[False, False], [False, False], [True, True]] and not any(again[0].held)
