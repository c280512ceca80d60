"""The detector's own parts on constructed cases: letterbox, decoding and suppression, corners, hands."""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Collection
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from oxeye.vision.annotate import DOUBT, PALETTE, annotate, draw
from oxeye.vision.classes import BACKGROUND, CARD_CLASSES, CLASS_ID, CLASSES, CROP_CLASSES, TILE_CLASSES, label_classes
from oxeye.vision.classifier import Doubt, Shown, Twins, name_items
from oxeye.vision.completion import spots
from oxeye.vision.corners import collapse
from oxeye.vision.crops import SIDE, Pyramid, item_crops, key_crop, moved_crops, to_blob
from oxeye.vision.decode import Detections, cross_class_suppression, decode, iou_matrix, proposed_once
from oxeye.vision.grouping import group_hands
from oxeye.vision.letterbox import letterbox
from oxeye.vision.matching import as_boxes
from oxeye.vision.reading import AMBIGUOUS, LOW_CONFIDENCE, UNSURE_HAND, Hand, Item, Reading
from oxeye.vision.train import label_text
from readings import write_labelled_photo

NAMES = label_classes("both")


def _output(rows: list[tuple[float, float, float, float, int, float]], classes: int = len(CLASSES),
            anchors: int = 50) -> np.ndarray:
    """A model output (1, 4 + classes, anchors) holding the given boxes (x1 y1 x2 y2, class, score)."""
    out = np.zeros((1, 4 + classes, anchors), dtype=np.float32)
    for a, (x1, y1, x2, y2, c, score) in enumerate(rows):
        out[0, :4, a] = [(x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1]
        out[0, 4 + c, a] = score
    return out


def _detections(rows: list[tuple[float, float, float, float, str, float]]) -> Detections:
    return Detections(np.array([r[:4] for r in rows], dtype=np.float32), np.array([r[5] for r in rows], np.float32),
                      np.array([NAMES.index(r[4]) for r in rows]), np.zeros(len(rows), np.float32),
                      np.zeros(len(rows), dtype=np.int64), np.zeros((len(rows), 0, 3), np.float32))


def test_detections_are_kept_by_the_kind_of_their_class_whatever_the_label_mode() -> None:
    from oxeye.vision.classes import KINDS
    from oxeye.vision.detector import of_kinds

    found = _detections([(0, 0, 10, 10, "AS", 0.9), (20, 0, 30, 10, "6-6", 0.8), (40, 0, 50, 10, "10H/corner", 0.7)])
    assert of_kinds(found, NAMES, None) is found
    assert [NAMES[c] for c in of_kinds(found, NAMES, ["card"]).class_ids] == ["AS", "10H/corner"]
    assert [NAMES[c] for c in of_kinds(found, NAMES, ("tile",)).class_ids] == ["6-6"]
    assert len(of_kinds(found, NAMES, ["card", "tile"])) == 3 and len(of_kinds(found, NAMES, [])) == 0
    two_stage = replace(found, class_ids=np.array([0, 1, 1]))  # a pose detector's classes are the kinds
    assert of_kinds(two_stage, KINDS, ["tile"]).scores.tolist() == pytest.approx([0.8, 0.7])
    with pytest.raises(ValueError, match="item kinds are card and tile, not cards"):
        of_kinds(found, NAMES, ["cards"])


def test_letterbox_maps_boxes_back_to_the_frame() -> None:
    frame = np.full((720, 1280, 3), 40, dtype=np.uint8)
    frame[100:300, 200:400] = 250
    blob, fit = letterbox(frame, 320)
    assert blob.shape == (1, 3, 320, 320) and blob.dtype == np.float32
    assert (fit.scale, fit.pad_x, fit.pad_y) == (0.25, 0, 70)
    assert blob[0, 0, 0, 0] == pytest.approx(114 / 255, abs=1e-6) and blob[0, 0, 120, 75] == pytest.approx(250 / 255, abs=1e-6)
    box = np.array([[200 * 0.25, 100 * 0.25 + 70, 400 * 0.25, 300 * 0.25 + 70]])
    assert fit.to_frame(box, 1280, 720).tolist() == [[200, 100, 400, 300]]
    rectangle, fit = letterbox(frame, 320, stride=32)
    assert rectangle.shape == (1, 3, 192, 320) and (fit.pad_x, fit.pad_y) == (0, 6)


@pytest.mark.parametrize("shape", [(2000, 3, 3), (3, 2000, 3), (1, 1, 3)])
def test_letterbox_takes_a_sliver_of_a_frame(shape: tuple[int, int, int]) -> None:
    blob, fit = letterbox(np.full(shape, 90, dtype=np.uint8), 320, stride=32)
    assert blob.shape[:2] == (1, 3) and min(blob.shape[2:]) >= 32 and max(blob.shape[2:]) == 320
    assert set(np.unique(np.round(blob * 255)).tolist()) <= {90.0, 114.0}  # the frame's grey and the padding


def test_decode_keeps_the_best_box_per_class_and_reads_corners() -> None:
    out = _output([(10, 10, 50, 90, 3, 0.9), (12, 11, 50, 92, 3, 0.8), (12, 11, 50, 92, 7, 0.85),
                   (100, 10, 140, 90, 60, 0.6), (200, 10, 240, 90, 5, 0.1)])
    found = decode(out, conf=0.25, iou=0.7)
    assert found.class_ids.tolist() == [3, 7, 60]
    assert found.scores.tolist() == pytest.approx([0.9, 0.85, 0.6])
    assert found.boxes[0].tolist() == pytest.approx([10, 10, 50, 90])


def test_a_head_that_proposes_each_item_once_is_read_best_first_with_nothing_suppressed() -> None:
    rows = np.zeros((1, 300, 12), np.float32)  # x1 y1 x2 y2, score, class, two keypoints (x, y, visibility)
    rows[0, 0] = [10, 10, 50, 90, 0.6, 1, 12, 14, 0.9, 48, 86, 0.8]
    rows[0, 1] = [12, 10, 52, 90, 0.9, 0, 14, 14, 0.9, 50, 86, 0.9]  # overlaps the first at IoU 0.9: both stay
    rows[0, 2] = [200, 10, 240, 90, 0.2, 0, 0, 0, 0, 0, 0, 0]  # under the threshold
    found = proposed_once(rows, conf=0.25, keypoints=2)
    assert found.scores.tolist() == pytest.approx([0.9, 0.6]) and found.class_ids.tolist() == [0, 1]
    assert found.boxes.tolist() == [[12, 10, 52, 90], [10, 10, 50, 90]]
    assert np.allclose(found.keypoints[1], [[12, 14, 0.9], [48, 86, 0.8]])
    assert found.rival_scores.tolist() == [0, 0] and found.rival_ids.tolist() == [0, 1]


def test_cross_class_suppression_reports_one_item_and_keeps_the_rival() -> None:
    found = decode(_output([(10, 10, 50, 90, 3, 0.9), (11, 10, 50, 91, 7, 0.85), (100, 10, 140, 90, 60, 0.6)]))
    one_each = cross_class_suppression(found, 0.8)
    assert one_each.class_ids.tolist() == [3, 60]
    assert one_each.rival_ids[0] == 7 and one_each.rival_scores[0] == pytest.approx(0.85)
    items = collapse(one_each, CLASSES)
    assert [(i.code, i.flag, i.rival) for i in items] == [(CLASSES[3], AMBIGUOUS, CLASSES[7]), (CLASSES[60], None, None)]


def test_low_confidence_items_are_flagged_not_dropped() -> None:
    items = collapse(_detections([(0, 0, 40, 60, "QH", 0.3)]), NAMES)
    assert [(i.code, i.kind, i.flag) for i in items] == [("QH", "card", LOW_CONFIDENCE)]


def test_two_corner_indices_of_one_card_are_one_item() -> None:
    found = _detections([(10, 10, 20, 30, "10H/corner", 0.9), (70, 90, 80, 110, "10H/corner", 0.8),
                         (300, 10, 310, 30, "10H/corner", 0.7)])
    items = collapse(found, NAMES)
    assert [(i.code, i.box) for i in items] == [("10H", (10, 10, 80, 110)), ("10H", (300, 10, 310, 30))]
    assert items[0].confidence == pytest.approx(0.9)


def test_corners_inside_their_whole_card_are_absorbed_others_stay() -> None:
    found = _detections([(0, 0, 60, 90, "AS", 0.7), (2, 2, 12, 20, "AS/corner", 0.95), (48, 70, 58, 88, "AS/corner", 0.9),
                         (40, 5, 50, 22, "KD/corner", 0.8)])
    items = collapse(found, NAMES)
    assert [(i.code, i.box, round(i.confidence, 2)) for i in items] == [("AS", (0, 0, 60, 90), 0.95),
                                                                       ("KD", (40, 5, 50, 22), 0.8)]


def _row(x: float, y: float, codes: list[str], step: float = 45, size: tuple[float, float] = (40, 60)) -> list[Item]:
    return [Item(c, "card", (x + n * step, y, x + n * step + size[0], y + size[1]), 0.9) for n, c in enumerate(codes)]


def test_two_rows_far_apart_are_two_hands() -> None:
    items = _row(400, 50, CARD_CLASSES[5:10]) + _row(10, 300, CARD_CLASSES[:5])
    hands = group_hands(items)
    assert [h.codes for h in hands] == [list(CARD_CLASSES[5:10]), list(CARD_CLASSES[:5])]
    assert all(h.complete for h in hands) and items[0].hand == 0 and items[5].hand == 1
    assert hands[1].box == (10, 300, 10 + 4 * 45 + 40, 360)


def test_a_hand_laid_top_to_bottom_lists_its_codes_top_to_bottom() -> None:
    """A column's codes were listed left to right, in the order of their centres' sub-pixel offsets: a rendered
    hand of 6S to 10S laid downwards, its cards 0.05 px apart across, read 6S 7S 9S 8S 10S."""
    offsets = [0.0, 5.9, 7.85, 7.8, 21.7]  # as the rendered hand's centres lay across
    items = [Item(code, "card", (600 + dx, 300 + 36 * n, 660 + dx, 390 + 36 * n), 0.9)
             for n, (code, dx) in enumerate(zip(["6S", "7S", "8S", "9S", "10S"], offsets))]
    assert [hand.codes for hand in group_hands(items)] == [["6S", "7S", "8S", "9S", "10S"]]
    assert [hand.codes for hand in group_hands(items[::-1])] == [["6S", "7S", "8S", "9S", "10S"]]


def test_touching_fans_split_into_hands_of_five_and_a_short_hand_is_kept() -> None:
    left = _row(0, 0, CARD_CLASSES[:5], step=12)
    right = _row(left[-1].box[2] + 3, 10, CARD_CLASSES[13:18], step=12)
    short = _row(0, 400, list(TILE_CLASSES[:3]), step=30, size=(25, 55))
    hands = group_hands(left + right + short)
    assert sorted(tuple(h.codes) for h in hands) == sorted([CARD_CLASSES[:5], CARD_CLASSES[13:18], TILE_CLASSES[:3]])
    assert [h.complete for h in hands] == [True, True, False]


def test_a_member_of_a_hand_lying_as_near_another_hand_is_flagged() -> None:
    """Nine cards evenly in a row are five and four, but which five no one can say: the complete
    hand's card next to the short hand may be the short hand's, and is flagged so."""
    items = _row(0, 0, CARD_CLASSES[:9])
    items[0].flag = LOW_CONFIDENCE
    hands = group_hands(items)
    assert sorted(len(h.codes) for h in hands) == [4, 5]
    (complete,) = [h for h in hands if h.complete]
    (short,) = [h for h in hands if not h.complete]
    flagged = [i for i, item in enumerate(items) if item.flag == UNSURE_HAND]
    assert len(flagged) == 1 and flagged[0] in complete.items
    assert min(abs(flagged[0] - j) for j in short.items) == 1  # the one next to the short hand
    assert items[0].flag == LOW_CONFIDENCE  # a doubt already there stays
    moved = [60.0 * (n in short.items) for n in range(len(items))]  # the short hand moved off, grouped again
    apart_now = [replace(i, box=(i.box[0] + dx, i.box[1], i.box[2] + dx, i.box[3])) for i, dx in zip(items, moved)]
    assert [i.flag for i in apart_now].count(UNSURE_HAND) == 1  # as the first grouping left them
    group_hands(apart_now)
    assert [i.flag for i in apart_now].count(UNSURE_HAND) == 0 and apart_now[0].flag == LOW_CONFIDENCE
    apart = _row(0, 0, CARD_CLASSES[:5]) + _row(0, 200, CARD_CLASSES[13:17])
    group_hands(apart)
    assert not any(item.flag for item in apart)


def _upright(x: float, y: float, code: str) -> Item:
    """A 40 x 60 card with its two index keypoints on its diagonal."""
    return Item(code, "card", (x, y, x + 40, y + 60), 0.9, keypoints=((x + 5, y + 8), (x + 35, y + 52)))


def _sideways(x: float, y: float, code: str) -> Item:
    """The same card turned a quarter."""
    return Item(code, "card", (x, y, x + 60, y + 40), 0.9, keypoints=((x + 52, y + 5), (x + 8, y + 35)))


def test_a_column_and_a_row_meeting_at_a_corner_are_told_apart_by_how_their_cards_lie() -> None:
    column = [_upright(0, 68 * n, code) for n, code in enumerate(CARD_CLASSES[:5])]
    row = [_sideways(42 + 70 * n, 10, code) for n, code in enumerate(CARD_CLASSES[13:18])]
    hands = {tuple(h.codes) for h in group_hands(column + row)}
    assert hands == {CARD_CLASSES[:5], CARD_CLASSES[13:18]}
    # Without keypoints the corner's two cards are nearest of all, and the chain runs round the corner; the
    # refinement parts them again, moving two cards at once (one at a time, it left the chain as it was).
    bare = [Item(i.code, i.kind, i.box, i.confidence) for i in column + row]
    assert {tuple(h.codes) for h in group_hands(bare)} == hands


def test_a_card_lying_across_a_row_s_end_is_told_from_the_row_by_how_it_lies() -> None:
    row = [_upright(60 * n, 0, code) for n, code in enumerate(CARD_CLASSES[:5])]
    across = _sideways(0, 62, CARD_CLASSES[13])
    hands = {tuple(h.codes) for h in group_hands([*row, across])}
    assert hands == {CARD_CLASSES[:5], (CARD_CLASSES[13],)}
    # Without keypoints it lies nearer the row's first card than the second does, and takes it.
    bare = [Item(i.code, i.kind, i.box, i.confidence) for i in [*row, across]]
    assert {tuple(h.codes) for h in group_hands(bare)} == {(CARD_CLASSES[0], CARD_CLASSES[13]), CARD_CLASSES[1:5]}


def _turned(x: float, y: float, degrees: float, code: str) -> Item:
    """A 70 x 100 card with its two index keypoints on its diagonal, turned ``degrees`` on the table."""
    turn = np.radians(degrees)
    dx, dy = 25 * np.cos(turn) - 40 * np.sin(turn), 25 * np.sin(turn) + 40 * np.cos(turn)
    return Item(code, "card", (x, y, x + 70, y + 100), 0.9,
                keypoints=((x + 35 - dx, y + 50 - dy), (x + 35 + dx, y + 50 + dy)))


def test_two_rows_laid_close_are_read_row_by_row_though_their_cards_turn_a_little() -> None:
    """A drill's rows, their cards 95 apart along them and 107 across, each turned a few degrees as the detector's
    keypoints say: the split joined the rows' first two cards down their columns (one group was AS AH 2S 2H 3S),
    and the two groups were never compared, their nearest cards lying over a card's length apart counting
    the turns; nor could one move or swap part them."""
    top = [_turned(95 * n, 0, turn, code) for n, (turn, code) in enumerate(zip((0, 0, 8, -8, 0), CARD_CLASSES))]
    bottom = [_turned(95 * n, 107, turn, code) for n, (turn, code) in enumerate(zip((-8, -8, 0, 0, 0), CARD_CLASSES[13:]))]
    assert [h.codes for h in group_hands(top + bottom)] == [list(CARD_CLASSES[:5]), list(CARD_CLASSES[13:18])]


def test_the_cards_two_rows_meet_at_go_back_each_to_its_row() -> None:
    """Two rows drawing together at their right ends, the lower one's last card turned from its row: the split
    paired the two last cards, leaving hands of 4, 2 and 4, none of which a single move made cheaper."""
    top = [_turned(85 * n, 6 * n, 4, code) for n, code in enumerate(CARD_CLASSES[:5])]
    bottom = [_turned(85 * n, 125 - 5 * n, 3 if n == 4 else -6, code) for n, code in enumerate(CARD_CLASSES[13:18])]
    hands = group_hands(top + bottom)
    assert [h.codes for h in hands] == [list(CARD_CLASSES[:5]), list(CARD_CLASSES[13:18])]
    assert all(h.complete for h in hands)


def test_a_short_hand_is_looked_at_in_every_gap_and_a_step_past_each_end() -> None:
    """A spread of five upright cards 30 px apart, the middle one missed: one spot holds exactly its
    keypoints and box; every gap is looked at, halfway, and each end a step on."""
    row = [_upright(30 * n, 0, code) for n, code in enumerate(CARD_CLASSES[:5])]
    found = row[:2] + row[3:]
    looked = spots(found, group_hands(found))
    assert len(looked) == 3 + 2
    assert sum(np.allclose(spot.keypoints, row[2].keypoints) and np.allclose(spot.box, row[2].box) for spot in looked) == 1
    past = [_upright(x, 0, "AS") for x in (-30, 150)]
    assert all(any(np.allclose(spot.keypoints, item.keypoints) and np.allclose(spot.box, item.box) for spot in looked)
               for item in past)
    assert len(spots(found, group_hands(found), reach=0)) == 3


def test_a_gap_three_steps_wide_is_looked_at_once_for_each_missing_card() -> None:
    fan = [_upright(x, 0, code) for x, code in zip((0, 10, 40, 50), CARD_CLASSES)]
    between = spots(fan, group_hands(fan), reach=0)
    assert [round(float(spot.box[0]), 6) for spot in between] == [5, 20, 30, 45]
    assert np.allclose(between[1].keypoints, _upright(20, 0, "AS").keypoints)


def test_a_whole_hand_a_lone_card_or_tiles_are_not_looked_at() -> None:
    row = [_upright(30 * n, 0, code) for n, code in enumerate(CARD_CLASSES[:5])]
    assert spots(row, group_hands(row)) == []
    assert spots(row[:1], group_hands(row[:1])) == []
    mixed = row[:3]
    mixed[1].kind = "tile"
    assert spots(mixed, group_hands(mixed)) == []


def test_no_items_no_hands() -> None:
    assert group_hands([]) == [] and Reading(4, 3).to_json() == {"width": 4, "height": 3, "items": [], "hands": []}


def test_reading_json_holds_the_contract() -> None:
    items = _row(0, 0, ["10H", "AS", "4-2", "QD", "2C"])
    items[2].kind = "tile"
    reading = Reading(640, 480, items, group_hands(items))
    data = json.loads(json.dumps(reading.to_json()))
    assert set(data) == {"width", "height", "items", "hands"}
    assert set(data["items"][0]) >= {"code", "kind", "box", "confidence", "hand"}
    assert data["items"][2]["kind"] == "tile" and data["items"][0]["box"] == [0, 0, 40, 60]
    assert data["hands"] == [{"index": 0, "codes": ["10H", "AS", "4-2", "QD", "2C"], "box": [0, 0, 220, 60]}]


def test_the_annotation_colours_items_by_hand_doubt_in_red_and_leaves_the_photo_alone() -> None:
    photo = np.full((200, 300, 3), 40, np.uint8)
    sure = Item("AS", "card", (20, 40, 80, 120), 0.9, hand=0, keypoints=((30, 50), (70, 110)))
    unsure = Item("10H", "card", (180, 40, 240, 120), 0.3, hand=1, flag=LOW_CONFIDENCE)
    hands = [Hand(0, [0], ["AS"], sure.box), Hand(1, [1], ["10H"], unsure.box)]
    drawn = draw(photo, Reading(300, 200, [sure, unsure], hands))
    assert (photo == 40).all()
    first, second = (PALETTE.by_idx(n).as_bgr() for n in (0, 1))
    assert tuple(drawn[45, 20]) == first and tuple(drawn[45, 180]) == PALETTE.by_idx(DOUBT).as_bgr() == (0, 0, 255)
    assert tuple(drawn[60, 16]) == first and tuple(drawn[60, 176]) == second  # each hand's box, 4 px out
    assert tuple(drawn[50, 30]) == first and tuple(drawn[110, 70]) == first  # where the indices were read
    assert (drawn[75:85, 40:60] != 40).any() and (drawn[75:85, 100:160] == 40).all()  # codes in the boxes
    assert (drawn[126:140, 16:50] == first).all(axis=2).any() and (drawn[126:140, 100:170] == 40).all()  # "hand 0"
    noted = draw(photo, Reading(300, 200, [sure, unsure], hands), {0: "ox 7  win +1"})
    assert (noted[126:140, 100:170] == first).all(axis=2).any()  # its note follows, under the hand
    assert (noted[:, 176:] == drawn[:, 176:]).all()  # hand 1 has none



def test_an_item_held_in_view_is_drawn_at_its_corners_only_without_a_confidence() -> None:
    """The live stream drew a card held where its hand last saw it (``vision.steady``: under an arm now) boxed
    and labelled with a confidence, as if read in this frame; the live page dashes it. Held, it is marked so."""
    photo = np.full((200, 300, 3), 40, np.uint8)
    seen = Item("AS", "card", (20, 40, 80, 120), 0.9, hand=0, keypoints=((30, 50), (70, 110)))
    held = Item("10H", "card", (180, 40, 240, 120), 0.8, hand=0, keypoints=((190, 50), (230, 110)))
    reading = Reading(300, 200, [seen, held], [Hand(0, [0, 1], ["AS", "10H"], (20, 40, 240, 120))])
    drawn = draw(photo, reading, held=[False, True])
    colour = PALETTE.by_idx(0).as_bgr()
    assert tuple(drawn[80, 20]) == colour and tuple(drawn[40, 182]) == colour  # a side seen, a corner held
    assert (drawn[70:90, 179:182] == 40).all() and tuple(drawn[50, 190]) != colour  # no side, no keypoint held
    assert (drawn[75:85, 185:235] != draw(photo, reading)[75:85, 185:235]).any()  # not its confidence: "held"

def test_annotating_to_a_name_no_picture_can_have_says_so(tmp_path: Path) -> None:
    reading = Reading(30, 20)
    for name in ("seen.xyz", "grey.pgm"):  # a .pgm holds greys alone, not a colour drawing
        with pytest.raises(OSError, match="end it in .jpg or .png"):
            annotate(np.zeros((20, 30, 3), np.uint8), reading, tmp_path / name)
    annotate(np.zeros((20, 30, 3), np.uint8), reading, tmp_path / "deeper" / "seen.png")
    assert (tmp_path / "deeper" / "seen.png").stat().st_size > 0


@pytest.mark.parametrize(("name", "side"), [("wide.jpg", 65_600), ("wide.webp", 16_400)])
def test_a_picture_its_format_cannot_hold_is_refused_in_one_line_saying_so(
        tmp_path: Path, capfd: pytest.CaptureFixture[str], name: str, side: int) -> None:
    """A panorama over JPEG's 65,500 pixels a side (WebP's 16,383) was 'cannot write (an unwritable folder?)',
    after OpenCV's own line for a WebP; a .png of it is written."""
    panorama = np.zeros((4, side, 3), np.uint8)
    with pytest.raises(OSError) as raised:
        annotate(panorama, Reading(side, 4), tmp_path / name)
    assert str(raised.value) == (f"cannot write {tmp_path / name}: OpenCV cannot encode a {side} x 4 colour picture "
                                 f"as {Path(name).suffix} (a JPEG holds 65,500 pixels a side, a WebP 16,383): "
                                 f"name a .png")
    assert capfd.readouterr().err == "" and not (tmp_path / name).exists()
    annotate(panorama, Reading(side, 4), tmp_path / "wide.png")
    assert (tmp_path / "wide.png").stat().st_size > 0


def test_label_modes_name_corner_classes_after_the_items() -> None:
    assert label_classes("pose") == ("card", "tile") and label_classes("items") == CLASSES
    assert len(label_classes("corners")) == 52 + 21 and label_classes("corners")[0] == "AS/corner"
    assert label_classes("both")[len(CLASSES)] == "AS/corner"
    with pytest.raises(ValueError, match="label mode"):
        label_classes("pips")


def test_label_text_per_mode() -> None:
    meta = {"width": 100, "height": 200, "items": [
        {"code": "KD", "kind": "card", "box": [10, 20, 30, 60],
         "corner_boxes": [{"box": [26, 50, 30, 60], "centre": [28, 55], "visible": 0.2},
                          {"box": [10, 20, 14, 30], "centre": [12, 25], "visible": 1.0}]},
        {"code": "6-6", "kind": "tile", "box": [50, 50, 70, 90],
         "corner_boxes": [{"box": [50, 50, 70, 70], "centre": [60, 60], "visible": 1.0},
                          {"box": [50, 70, 70, 90], "centre": [60, 220], "visible": 1.0}]}]}
    items = label_text(meta, "items").splitlines()
    assert [line.split()[0] for line in items] == [str(CLASS_ID["KD"]), str(CLASS_ID["6-6"])]
    assert items[0].split()[1:] == ["0.200000", "0.200000", "0.200000", "0.200000"]
    corners = [int(line.split()[0]) for line in label_text(meta, "corners").splitlines()]
    assert [label_classes("corners")[c] for c in corners] == ["KD/corner", "6-6"]
    both = [int(line.split()[0]) for line in label_text(meta, "both").splitlines()]
    assert [NAMES[c] for c in both] == ["KD", "KD/corner", "6-6"]
    # pose: the kind's box, then each keypoint (x y visibility), the upper one first; the covered
    # index is a keypoint all the same, one outside the image is unlabelled
    pose = [line.split() for line in label_text(meta, "pose").splitlines()]
    assert [line[0] for line in pose] == ["0", "1"] and pose[0][1:5] == items[0].split()[1:]
    assert pose[0][5:] == ["0.120000", "0.125000", "2", "0.280000", "0.275000", "2"]
    assert pose[1][5:] == ["0.600000", "0.300000", "2", "0", "0", "0"]


def test_an_item_glare_alone_hides_is_found_by_the_pose_detector_and_named_by_no_label() -> None:
    """A burnt-out tile is there to be found (its hand is short without it) but has no name to read."""
    tile = {"code": "5-1", "kind": "tile", "box": [50, 50, 70, 90],
            "corner_boxes": [{"box": [50, 50, 70, 70], "centre": [60, 60], "visible": 0.0},
                             {"box": [50, 70, 70, 90], "centre": [60, 80], "visible": 0.0}]}
    meta = {"width": 100, "height": 200, "items": [], "burnt_out": [tile]}
    assert label_text(meta, "pose").split() == ["1", "0.600000", "0.350000", "0.200000", "0.200000",
                                                 "0.600000", "0.300000", "2", "0.600000", "0.400000", "2"]
    assert [label_text(meta, mode) for mode in ("items", "corners", "both")] == ["", "", ""]
    del meta["burnt_out"]  # builds before stop 44 list none
    assert label_text(meta, "pose") == ""


def test_a_keypoint_crop_is_centred_turned_and_scaled_by_the_two_keypoints() -> None:
    image = np.zeros((400, 600, 3), np.uint8)
    image[100:110, 200:210] = (0, 0, 255)  # a red mark at (205, 105) and a green one 100 px to its right
    image[100:110, 300:310] = (0, 255, 0)
    levels = Pyramid(image)
    assert [level.shape[:2] for level in levels] == [(400, 600), (200, 300), (100, 150), (50, 75)]
    assert np.array_equal(Pyramid(image)[2], cv2.pyrDown(cv2.pyrDown(image)))  # made when asked for, as up front
    with pytest.raises(IndexError):
        levels[-1]
    red, green = np.array([204.5, 104.5]), np.array([304.5, 104.5])
    crop = key_crop(levels, red, green, 40.0, 40)  # one frame pixel a crop pixel; green turned to below
    assert crop.shape == (40, 40, 3)
    assert crop[15:25, 15:25, 2].min() > 200 and crop[:, :, 1].max() == 0  # red centred, green 100 px away
    below = key_crop(levels, red, green, 240.0, 24)  # 10 frame pixels a crop pixel: green straight below
    weights = below[:, :, 1].astype(float)
    ys, xs = np.mgrid[0:24, 0:24]
    assert abs((weights * xs).sum() / weights.sum() - 11.5) < 0.5 and abs((weights * ys).sum() / weights.sum() - 21.5) < 0.5
    far = key_crop(levels, red, green, 320.0, 24)  # cut from the eighth-size level, the mark still shows
    assert far[:, :, 2].max() > 5
    outside = key_crop(levels, np.array([-500.0, -500.0]), red, 40.0, 16)  # past the edge: the border repeats
    assert outside.shape == (16, 16, 3)
    pair = item_crops(levels, "tile", np.array([[204.5, 104.5, 0.9], [304.5, 104.5, 0.9]]), 20)
    assert pair.shape == (2, 20, 20, 3) and SIDE["tile"] == 1.0
    assert pair[0, 9:11, 9:11, 2].min() > 150 and pair[1, 9:11, 9:11, 1].min() > 150  # one crop on each
    points = np.array([[204.5, 104.5], [304.5, 104.5]])
    assert np.array_equal(item_crops(levels, "tile", points, 20, (False, True)), pair[1:])  # the second alone
    assert item_crops(levels, "tile", points, 20, (False, False)).shape == (0, 20, 20, 3)
    blob = to_blob(pair)
    assert blob.shape == (2, 3, 20, 20) and blob.dtype == np.float32 and blob[0, 0, 10, 10] == pytest.approx(pair[0, 10, 10, 2] / 255)


def test_a_crop_s_six_variants_move_its_content_each_way_and_zoom_it_about_the_centre() -> None:
    crops = np.zeros((2, 32, 32, 3), np.uint8)
    crops[0, 10, 20] = 255  # a dot right of and above the centre (15.5, 15.5), in the first crop only
    moved = moved_crops(crops, 3.0, 0.25)
    assert moved.shape == (6, 2, 32, 32, 3) and not moved[:, 1].any()  # variant by variant, the second crop dark
    dots = [np.unravel_index(variant[..., 0].argmax(), (32, 32)) for variant in moved[:, 0]]
    assert dots[:4] == [(10, 23), (10, 17), (13, 20), (7, 20)]  # right, left, down, up
    (y_in, x_in), (y_out, x_out) = dots[4:]
    assert x_in > 20 and y_in < 10 and 20 > x_out > 15.5 and 15.5 > y_out > 10  # away from, toward the centre
    assert moved_crops(crops[:0], 3.0, 0.25).shape == (6, 0, 32, 32, 3)
    assert np.array_equal(moved_crops(crops, 3.0, 0.0), moved[:4]) and np.array_equal(moved_crops(crops, 0.0, 0.25), moved[4:])
    assert moved_crops(crops, 0.0, 0.0).shape == (0, 2, 32, 32, 3)


def _pairs(*readings: tuple[tuple[str, float], ...]) -> np.ndarray:
    """Two crops' probabilities per item: each crop a few (class, probability) pairs."""
    out = np.zeros((len(readings), 2, len(CROP_CLASSES)), np.float32)
    for row, crops in enumerate(readings):
        for end, crop in enumerate(crops):
            for name, probability in crop:
                out[row, end, CROP_CLASSES.index(name)] = probability
    return out


def _found(boxes: list[list[float]], scores: list[float], kinds: list[int]) -> Detections:
    n = len(boxes)
    return Detections(np.array(boxes, np.float32), np.array(scores, np.float32), np.array(kinds, np.int64),
                      np.zeros(n, np.float32), np.zeros(n, np.int64), np.zeros((n, 2, 3), np.float32))


def test_the_classifier_names_items_by_their_keypoint_crops_drops_bare_table_and_flags_doubt() -> None:
    found = _found([[0, 0, 10, 10], [20, 0, 30, 10], [40, 0, 50, 10], [60, 0, 70, 10], [80, 0, 90, 10],
                    [100, 0, 110, 10], [120, 0, 130, 10]], [0.9, 0.4, 0.9, 0.3, 0.9, 0.9, 0.95], [0, 0, 0, 1, 1, 1, 0])
    probabilities = _pairs(
        ((("QH", 0.97),), ((BACKGROUND, 0.9),)),  # one index shows, the other is covered
        (((BACKGROUND, 0.9),), ((BACKGROUND, 0.8),)),  # an unsure box on bare table: dropped
        ((("KH", 0.5), ("QH", 0.45)), (("KH", 0.3),)),  # contested
        ((("pips6", 0.99),), (("pips2", 0.98),)),  # a sure tile in a doubtful box
        ((("pips1", 0.95),), (("pips3", 0.9),)),  # halves name the tile high first
        ((("pips4", 0.6), ("pips5", 0.38)), (("pips2", 0.97),)),  # a contested half
        (((BACKGROUND, 0.9),), ((BACKGROUND, 0.9),)),  # a sure box whose indices both hide: kept, flagged
    )
    items = name_items(found, probabilities)
    assert [(i.code, i.kind, i.flag, i.rival) for i in items] == [
        ("QH", "card", None, None), ("3-1", "tile", None, None), ("4-2", "tile", AMBIGUOUS, "5-2"),
        ("KH", "card", AMBIGUOUS, "QH"), ("6-2", "tile", LOW_CONFIDENCE, None), ("AS", "card", LOW_CONFIDENCE, None)]
    assert items[4].confidence == pytest.approx(0.3) and items[1].confidence == pytest.approx(0.9)


def test_a_name_read_under_the_doubt_bar_is_flagged_low_confidence_as_chosen() -> None:
    """Doubt's defaults, chosen on a tuning build (MODEL_CARD.md): a name under 0.85 is flagged, and
    one whose runner-up scores 0.6 of it is ambiguous; the box's own doubt flags as before."""
    found = _found([[0, 0, 10, 10], [20, 0, 30, 10], [40, 0, 50, 10], [60, 0, 70, 10], [80, 0, 90, 10]],
                   [0.9, 0.9, 0.9, 0.9, 0.45], [0, 0, 0, 0, 0])
    probabilities = _pairs(
        ((("QH", 0.84), ("QD", 0.1)), ((BACKGROUND, 0.9),)),  # under the bar, uncontested
        ((("JS", 0.86), ("JC", 0.1)), ((BACKGROUND, 0.9),)),  # over it
        ((("9D", 0.9), ("9H", 0.55)), ((BACKGROUND, 0.9),)),  # over it, contested
        ((("8C", 0.9), ("8S", 0.53)), ((BACKGROUND, 0.9),)),  # a runner-up just under 0.6 of it
        ((("AS", 0.99),), (("AS", 0.99),)),  # a sure name in a doubtful box
    )
    flags = {i.code: i.flag for i in name_items(found, probabilities)}
    assert flags == {"QH": LOW_CONFIDENCE, "JS": None, "9D": AMBIGUOUS, "8C": None, "AS": LOW_CONFIDENCE}
    lenient = {i.code: i.flag for i in name_items(found, probabilities, doubts=Doubt(name=0.5, rival=0.6))}
    assert lenient == {**flags, "QH": None}


def test_a_card_is_named_by_the_crops_its_box_shows_not_by_a_hidden_index_under_another_card() -> None:
    """A tucked card is boxed by the part that shows; the crop at its hidden index, off that box, shows
    the card over it and reads it surely: it counts for nothing (``Shown``). A keypoint just past the
    box's edge, within the margin, is on it; a card with both keypoints off its box is named by both."""
    found = _found([[0, 0, 40, 30], [100, 0, 140, 30], [200, 0, 240, 30]], [0.9, 0.8, 0.7], [0, 0, 0])
    found.keypoints[:, :, :2] = [[[8, 8], [60, 70]], [[108, 8], [143, 33]], [[180, 50], [260, 60]]]
    probabilities = _pairs(((("7D", 0.9),), (("KS", 0.99),)), ((("5H", 0.6),), (("9C", 0.99),)),
                           ((("2C", 0.9),), (("3C", 0.95),)))
    assert [i.code for i in name_items(found, probabilities)] == ["7D", "9C", "3C"]
    assert [i.code for i in name_items(found, probabilities, shown=Shown(weight=1.0))] == ["KS", "9C", "3C"]
    # With no margin the second card's lower keypoint lies off its box: 5H, its surest name on it, the least sure item.
    assert [i.code for i in name_items(found, probabilities, shown=Shown(margin=0.0))] == ["7D", "3C", "5H"]


def test_an_item_inside_a_surer_one_of_its_kind_is_that_item_seen_twice() -> None:
    found = _found([[0, 0, 60, 90], [5, 5, 40, 50], [10, 10, 50, 60], [100, 0, 160, 90]], [0.9, 0.2, 0.8, 0.7],
                   [0, 0, 1, 0])
    # an unsure part named otherwise; a tile on it; a twin apart
    probabilities = _pairs(*[(((name, 0.95),), ((name, 0.95),)) for name in ("QH", "QS", "pips6", "QH")])
    assert [i.code for i in name_items(found, probabilities)] == ["QH", "6-6", "QH"]


def test_a_fanned_card_inside_its_neighbour_stays_unless_it_reads_the_same_or_is_unsure() -> None:
    # The top card; under it, boxes that lie inside its box.
    boxes = [[0, 0, 60, 90]] + [[10, 10, 50, 60]] * 4
    found = _found(boxes, [0.9, 0.8, 0.8, 0.25, 0.35], [0] * 5)
    names = ("QH", "JS", "QH", "9D", "8C")  # a fanned neighbour; the top card again; an unsure part; a sure one
    probabilities = _pairs(*[(((name, 0.95),), ((name, 0.95),)) for name in names])
    assert [i.code for i in name_items(found, probabilities)] == ["QH", "JS", "8C"]
    assert [i.code for i in name_items(found, probabilities, Twins(inside=1.1))] == ["QH", "JS", "QH", "8C", "9D"]
    assert [i.code for i in name_items(found, probabilities, Twins(unsure=0.0))] == ["QH", "JS", "8C", "9D"]


def test_a_card_read_surely_on_its_strip_and_again_over_its_outline_is_one_card() -> None:
    # A tucked card's strip read surely; its whole outline, the strip within it, read again less surely.
    found = _found([[0, 0, 20, 90], [0, 0, 60, 90], [0, 0, 62, 90]], [0.9, 0.6, 0.5], [0, 0, 0])
    probabilities = _pairs(*[(((name, 0.95),), ((name, 0.95),)) for name in ("QH", "QH", "JS")])
    # The outline of the same name goes, though only a third of it lies in the strip; a sure card of
    # another name under it stays.
    assert [i.code for i in name_items(found, probabilities)] == ["QH", "JS"]
    assert [i.code for i in name_items(found, probabilities, Twins(inside=1.1))] == ["QH", "QH", "JS"]


def test_one_index_read_twice_by_boxes_apart_is_one_card() -> None:
    from oxeye.vision.classifier import without_twins

    card = Item("10D", "card", (0, 0, 60, 90), 0.8, keypoints=((10, 10), (50, 80)))
    like = Item("10D", "card", (100, 0, 160, 90), 0.6, keypoints=((110, 10), (150, 80)))  # a like card apart
    # Boxed again mostly below it (a fifth of its box in the card's), one keypoint on the card's index.
    again = Item("10D", "card", (0, 70, 60, 160), 0.5, keypoints=((48, 84), (90, 150)))
    other = replace(again, code="9D")  # the same boxes and keypoints read as another card
    assert without_twins([card, like, again, other], Twins()) == [card, like, other]
    assert without_twins([card, like, again], Twins(meet=0.0)) == [card, like, again]
    lower = replace(again, keypoints=((48, 104), (90, 150)))  # a third of the keypoints' distance away
    assert without_twins([card, like, lower], Twins()) == [card, like, lower]


def test_the_twin_rule_as_chosen_takes_parts_from_two_fifths_inside_and_under_three_tenths_sure() -> None:
    """Twins' defaults, chosen on a tuning build (MODEL_CARD.md): 40% inside, confidence under 0.3."""
    boxes = [[0, 0, 60, 90], [52, 0, 72, 10], [53, 20, 73, 30], [50, 40, 70, 50]]  # 40%, 35%, 50% inside
    found = _found(boxes, [0.9, 0.29, 0.29, 0.31], [0] * 4)
    probabilities = _pairs(*[(((name, 0.95),), ((name, 0.95),)) for name in ("QH", "JS", "9D", "8C")])
    assert [i.code for i in name_items(found, probabilities)] == ["QH", "8C", "9D"]


def test_a_detection_under_the_threshold_stays_only_where_its_crops_read_it_surely() -> None:
    found = _found([[0, 0, 60, 90], [100, 0, 160, 90], [200, 0, 260, 90], [300, 0, 330, 30]],
                   [0.1, 0.1, 0.6, 0.1], [0, 0, 0, 1])
    probabilities = _pairs(
        ((("KS", 0.95),), ((BACKGROUND, 0.9),)),  # a lone card on a rug whose index reads plainly: kept
        ((("KS", 0.7),), ((BACKGROUND, 0.9),)),  # clutter that reads as a card, unsurely: dropped
        ((("9D", 0.7),), ((BACKGROUND, 0.9),)),  # over the threshold: kept however it reads (flagged)
        ((("pips5", 0.99),), (("pips2", 0.85),)),  # a tile scores by its less sure half: dropped
    )
    items = name_items(found, probabilities, threshold=0.25, sure=0.9)
    assert [(i.code, i.flag) for i in items] == [("9D", LOW_CONFIDENCE), ("KS", LOW_CONFIDENCE)]
    assert items[1].confidence == pytest.approx(0.1)  # the detector's doubt is what it reports
    assert [i.code for i in name_items(found, probabilities, threshold=0.25, sure=0.8)] == ["9D", "KS", "5-2"]
    assert len(name_items(found, probabilities)) == 4  # no threshold: every detection named


@pytest.fixture(scope="module")
def scenes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Generated photos whose per-image JSON says which items form which hand."""
    from scenes import build_scenes

    return build_scenes(tmp_path_factory.mktemp("scenes") / "ds", 40, 12, 320)


def test_grouping_reads_most_generated_hands_from_their_true_boxes(scenes: Path) -> None:
    """At least 95% of hands come out exact from true boxes and keypoints: 88 of these 91 (85 before
    items' turns counted); 63 of their 64 five-item hands, evaluate's figure."""
    from oxeye.vision.evaluate import grouping, true_items

    exact = total = 0
    for path in sorted((scenes / "meta").glob("*.json")):
        meta = json.loads(path.read_text())
        found = {frozenset(h.items) for h in group_hands(true_items(meta))}
        truth = {frozenset(h["items"]) for h in meta["hands"] if h["items"]}
        total, exact = total + len(truth), exact + len(truth & found)
    assert exact / total >= 0.95, f"{exact} of {total} hands exact"
    assert grouping(scenes) >= 0.95


def test_the_grouping_sweep_measures_each_turn_weight_and_puts_the_shipped_one_back(scenes: Path) -> None:
    from bench.grouping_sweep import main
    from oxeye.vision import grouping

    shipped = grouping.TURN
    figures = main([str(scenes), "0", str(shipped)])
    assert figures[0.0]["grouping_accuracy_on_true_items"] < figures[shipped]["grouping_accuracy_on_true_items"]
    assert grouping.TURN == shipped


class _Oracle:
    """Reads every photo of a build exactly as its per-image JSON says (in the order evaluate visits them),
    then passes each reading through ``change``: a reader with a fault of one's choosing."""

    def __init__(self, data: Path, stray: float = 0.0, change: Callable[[Reading], Reading] = lambda r: r) -> None:
        self.metas = iter(json.loads(p.read_text()) for p in sorted((data / "meta").glob("*.json")))
        self.stray = stray  # keypoints moved right by this share of the distance between them
        self.change = change

    def read(self, image: np.ndarray, conf: float = 0.25, kinds: Collection[str] | None = None) -> Reading:
        from oxeye.vision.reading import Hand

        meta = next(self.metas)
        items = [Item(i["code"], i["kind"], tuple(i["box"]), 0.99, hand=i["hand"], keypoints=self._keypoints(i))
                 for i in meta["items"]]
        hands = [Hand(h["index"], h["items"], [items[i].code for i in h["items"]], (0, 0, 1, 1)) for h in meta["hands"]]
        return self.change(Reading(meta["width"], meta["height"], items, hands))

    def _keypoints(self, item: dict) -> tuple[tuple[float, float], ...]:
        points = np.array([c["centre"] for c in item["corner_boxes"]], np.float64)
        points[:, 0] += self.stray * np.linalg.norm(points[1] - points[0])
        return tuple((float(x), float(y)) for x, y in points)


def test_the_suppression_ceiling_keeps_the_most_items_no_two_of_which_clash() -> None:
    """A chain of three fanned cards, each overlapping the next at IoU 0.8 and the one after at 0.6:
    suppression at 0.7 must lose the middle one (not two, as keeping the middle would), at 0.85 none,
    at 0.5 two; a tile over a card never clashes with it."""
    from bench.nms_ceiling import lost_to_suppression

    def card(x: float) -> dict:
        return {"kind": "card", "box": [x, 0.0, x + 90.0, 100.0]}

    chain = [card(0.0), card(10.0), card(20.0)]  # IoU 80/100 = 0.8 between neighbours, 70/110 ~ 0.64 across
    assert [lost_to_suppression(chain, iou) for iou in (0.85, 0.7, 0.5)] == [0, 1, 2]
    assert lost_to_suppression([card(0.0), {"kind": "tile", "box": [0.0, 0.0, 90.0, 100.0]}], 0.5) == 0
    assert lost_to_suppression([], 0.7) == 0


@pytest.mark.parametrize(("bench", "setting"), [("nms_ceiling", "0.7"), ("index_resolution", "416"),
                                                ("recheck_sweep", "0:3:0.1"), ("grouping_sweep", "0.5"),
                                                ("unsure_sweep", "0.5"), ("panorama", "1:0.2")])
def test_a_benchmark_refuses_a_folder_that_is_not_a_build_of_images(bench: str, setting: str, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """``cli.build_folder``: a folder without meta/, or with an empty one, is refused as the arguments are read,
    in ``train.require_build``'s words, not measured as 0 of 0 items (the sweeps so measured it)."""
    main = importlib.import_module(f"bench.{bench}").main

    for problem in ("is not a folder written by 'oxeye dataset build' (no meta/)", "holds no images (meta/ is empty)"):
        with pytest.raises(SystemExit):
            main([str(tmp_path), setting])
        assert f"{tmp_path} {problem}" in capsys.readouterr().err
        (tmp_path / "meta").mkdir(exist_ok=True)


def test_evaluation_gives_full_marks_to_a_perfect_reader_and_catches_doubles(scenes: Path) -> None:
    from oxeye.vision.evaluate import synthetic

    perfect = synthetic(_Oracle(scenes), scenes)
    assert perfect["item_accuracy"] == 1.0 and perfect["hands_exact"] == 1.0 and perfect["reported_twice"] == 0
    assert perfect["item_accuracy_95"] == [1.0, 1.0]
    assert perfect["five_item_hands"] > 20 and perfect["missed"] == 0.0
    groups = {key for key in perfect if key.startswith("accuracy_")}
    assert {"accuracy_cards", "accuracy_tiles", "accuracy_half_visible", "accuracy_medium", "accuracy_large"} <= groups
    assert all(perfect[key] == 1.0 for key in groups)
    sizes = [perfect.get(f"items_{size}", 0) for size in ("small", "medium", "large")]
    assert sum(sizes) == perfect["items"] and perfect["items_cards"] + perfect["items_tiles"] == perfect["items"]
    assert perfect["keypoint_error_median"] == perfect["keypoint_error_p90"] == 0.0
    strayed = synthetic(_Oracle(scenes, stray=0.1), scenes)
    assert strayed["keypoint_error_median"] == pytest.approx(0.1) and strayed["item_accuracy"] == 1.0

    worse = synthetic(_Oracle(scenes, change=lambda r: replace(r, items=r.items + r.items[:1])), scenes)
    with_items = sum(bool(json.loads(path.read_text())["items"]) for path in (scenes / "meta").glob("*.json"))
    assert with_items > 30  # each image's first item reported again is one double
    assert worse["reported_twice"] == with_items and worse["item_accuracy"] < 1.0 and worse["missed"] == 0.0
    low, high = worse["item_accuracy_95"]
    assert low < worse["item_accuracy"] < high < 1.0
    # An unflagged double is a wrong report no flag warns of; flagged, every wrong report is flagged.
    assert perfect["unflagged_reports_right"] == 1.0 and perfect["wrong_reports_flagged"] is None
    assert perfect["right_reports_flagged"] == 0.0
    assert perfect["sure_hands"] == perfect["five_item_hands"] and perfect["sure_hands_right"] == 1.0
    assert worse["wrong_reports_flagged"] == 0.0 and worse["unflagged_reports_right"] < 1.0
    flagged = _Oracle(scenes, change=lambda r: replace(r, items=r.items + [replace(i, flag=LOW_CONFIDENCE)
                                                                          for i in r.items[:1]]))
    warned = synthetic(flagged, scenes)
    assert warned["wrong_reports_flagged"] == 1.0 and warned["unflagged_reports_right"] == 1.0
    assert warned["right_reports_flagged"] == 0.0
    # A card of a hand misnamed, unflagged: the hand is still sure, and wrong.
    misnamed = _Oracle(scenes, change=lambda r: replace(r, items=[replace(r.items[0], code="?")] + r.items[1:])
                       if r.items else r)
    wrong = synthetic(misnamed, scenes)
    assert wrong["sure_hands"] == perfect["sure_hands"] and 0.0 < wrong["sure_hands_right"] < 1.0
    assert wrong["hands_exact"] == wrong["sure_hands_right"] * wrong["sure_hands"] / wrong["five_item_hands"]

    # No hands: theirs would index tiles gone.
    halved = _Oracle(scenes, change=lambda r: replace(r, items=[i for i in r.items if i.kind == "card"], hands=[]))
    cards_only = synthetic(halved, scenes)
    assert cards_only["accuracy_cards"] == 1.0 and cards_only["accuracy_tiles"] == 0.0
    assert cards_only["missed"] == pytest.approx(1 - cards_only["item_accuracy"]) and 0 < cards_only["missed"] < 1


def test_items_are_sized_by_their_short_side_against_the_photos_long_side() -> None:
    """Small under 4% of the photo's long side, large from 10%, whichever way the photo or the box lies: a
    fanned card's strip 40 pixels wide in a 1280-pixel frame is small however tall it is."""
    from oxeye.vision.evaluate import _size

    assert _size([0.0, 0.0, 51.0, 300.0], 1280) == "small"
    assert _size([10.0, 20.0, 61.2, 71.2], 1280) == "medium"  # 51.2 pixels: 4% exactly
    assert _size([0.0, 0.0, 300.0, 127.9], 1280) == "medium"
    assert _size([0.0, 0.0, 128.0, 128.0], 1280) == "large"
    assert _size([0.0, 0.0, 30.0, 30.0], 720) == "medium"  # a portrait photo's long side is its height


def test_an_item_named_at_its_index_but_boxed_off_it_reads_its_hand_right_though_not_found_by_box(
        scenes: Path) -> None:
    """Each photo's first report moved off its item, keypoints kept: by boxes that item is lost, but where
    an index of it shows, the report names it there, so it is named once at its place and its hand,
    scored by names, is read exactly; one whose indices are hidden is lost both ways."""
    from oxeye.vision.evaluate import synthetic
    from oxeye.vision.matching import SHOWING

    def moved(reading: Reading) -> Reading:
        if not reading.items:
            return reading
        first = reading.items[0]
        far = (first.box[0] + 5000, first.box[1], first.box[2] + 5000, first.box[3])
        return replace(reading, items=[replace(first, box=far)] + reading.items[1:])

    metas = [json.loads(path.read_text()) for path in sorted((scenes / "meta").glob("*.json"))]
    firsts = [meta["items"][0] for meta in metas if meta["items"]]
    hidden = sum(max(c["visible"] for c in item["corner_boxes"]) < SHOWING for item in firsts)
    perfect, off = synthetic(_Oracle(scenes), scenes), synthetic(_Oracle(scenes, change=moved), scenes)
    assert off["item_accuracy"] == pytest.approx(1 - len(firsts) / off["items"])
    assert off["item_accuracy_named"] == pytest.approx(1 - hidden / off["items"])
    assert off["item_accuracy_named"] > off["item_accuracy"]
    assert off["reported_twice"] == 0 and off["sure_hands"] == perfect["sure_hands"]
    assert off["hands_exact"] >= 1 - hidden / perfect["five_item_hands"] and off["sure_hands_right"] == off["hands_exact"]


def _unlabel_one_hand_item(scenes: Path, out: Path, unlabelled: int, burnt_out: bool = False) -> None:
    """A copy of the build with one five-item hand's loose item (its box touching no other) taken out
    of the labels, as the generator leaves out an item too hidden or cut off to name; the hand then
    says ``unlabelled`` of its items went unlabelled. ``burnt_out``: the item is listed as one glare
    alone hid, as the generator lists those."""
    import shutil

    shutil.copytree(scenes, out)
    for path in sorted((out / "meta").glob("*.json")):
        meta = json.loads(path.read_text())
        boxes = as_boxes([i["box"] for i in meta["items"]])
        for hand in (h for h in meta["hands"] if len(h["items"]) == 5):
            loose = [n for n in hand["items"] if np.count_nonzero(iou_matrix(boxes[n:n + 1], boxes)) == 1]
            if loose:
                gone = loose[0]
                meta["burnt_out"] = [meta["items"][gone]] if burnt_out else []
                del meta["items"][gone]
                for h in meta["hands"]:
                    h["items"] = [n - (n > gone) for n in h["items"] if n != gone]
                hand["unlabelled"] = unlabelled
                path.write_text(json.dumps(meta))
                return
    raise AssertionError("no five-item hand with a loose item")


def test_a_sure_hand_holding_an_unlabelled_item_is_left_unjudged_not_counted_wrong(scenes: Path,
                                                                                    tmp_path: Path) -> None:
    """A hand of four labelled items read with its fifth, which the labels left out, cannot be
    judged from them; were no item of that hand unlabelled, the fifth report is a stray: wrong."""
    from oxeye.vision.evaluate import synthetic

    perfect = synthetic(_Oracle(scenes), scenes)
    _unlabel_one_hand_item(scenes, tmp_path / "hidden", unlabelled=1)
    hidden = synthetic(_Oracle(scenes), tmp_path / "hidden")
    assert perfect["sure_hands_unjudged"] == 0 and hidden["sure_hands_unjudged"] == 1
    assert hidden["sure_hands"] == perfect["sure_hands"] - 1 and hidden["sure_hands_right"] == 1.0
    _unlabel_one_hand_item(scenes, tmp_path / "stray", unlabelled=0)
    stray = synthetic(_Oracle(scenes), tmp_path / "stray")
    assert stray["sure_hands_unjudged"] == 0 and stray["sure_hands"] == perfect["sure_hands"]
    assert stray["sure_hands_right"] == pytest.approx(1 - 1 / perfect["sure_hands"])


def test_a_report_of_an_item_glare_burnt_out_counts_neither_right_nor_wrong(scenes: Path, tmp_path: Path) -> None:
    """A reader may guess an item whose index glare burnt out: no label says it is right, nor should its
    report count wrong or as matching nothing (as VOC's difficult objects); left out unlisted, it does."""
    from oxeye.vision.evaluate import pipeline_map50_95, synthetic

    perfect = synthetic(_Oracle(scenes), scenes)
    _unlabel_one_hand_item(scenes, tmp_path / "hidden", unlabelled=1)
    _unlabel_one_hand_item(scenes, tmp_path / "burnt", unlabelled=1, burnt_out=True)
    hidden, burnt = synthetic(_Oracle(scenes), tmp_path / "hidden"), synthetic(_Oracle(scenes), tmp_path / "burnt")
    assert hidden["unmatched_reports"] == 1 and hidden["unflagged_reports_right"] < 1.0
    assert burnt["unmatched_reports"] == 0 and burnt["unflagged_reports_right"] == 1.0
    assert burnt["items"] == hidden["items"] == perfect["items"] - 1
    assert burnt["sure_hands_unjudged"] == hidden["sure_hands_unjudged"] == 1
    assert pipeline_map50_95(_Oracle(scenes), tmp_path / "burnt") > pipeline_map50_95(_Oracle(scenes), tmp_path / "hidden")


def test_told_evaluation_tells_each_photo_the_kind_it_was_generated_with(scenes: Path) -> None:
    """As a table's rules tell the service: a photo whose one tile lies off the frame holds no labelled
    item, and is still told "tile", not nothing."""
    from oxeye.vision.evaluate import synthetic

    class Told(_Oracle):
        def read(self, image: np.ndarray, conf: float = 0.25, kinds: Collection[str] | None = None) -> Reading:
            told.append(kinds)
            return super().read(image, conf, kinds)

    told: list[Collection[str] | None] = []
    metas = [json.loads(path.read_text()) for path in sorted((scenes / "meta").glob("*.json"))]
    assert synthetic(Told(scenes), scenes, told=True)["item_accuracy"] == 1.0
    assert [set(kinds) for kinds in told] == [{meta["kind"].removesuffix("s")} for meta in metas]
    assert any(not meta["items"] for meta in metas)  # such photos are among them


def test_matching_pairs_overlapping_cards_one_to_one_and_counts_a_third_box_as_twice() -> None:
    from oxeye.vision.matching import matches

    truth = np.array([[0, 0, 100, 100], [20, 0, 120, 100]], np.float64)  # a fanned card and the one beside it
    # Both found boxes overlap the first card most; the second one is still the only cover of the other.
    found = np.array([[5, 0, 105, 100], [0, 0, 100, 100]], np.float64)
    assert matches(truth, found) == [[1], [0]]
    assert matches(truth, np.vstack([found, [[0, 0, 99, 100]]])) == [[1, 2], [0]]
    assert matches(truth, np.array([[300, 0, 400, 100]], np.float64)) == [[], []]
    # Boxes alike: the overlap pairs each found box with the true one it fits, the keypoints overrule it.
    alike = np.array([[0, 0, 100, 100], [10, 0, 110, 100]], np.float64)
    found = np.array([[8, 0, 108, 100], [2, 0, 102, 100]], np.float64)
    assert matches(alike, found) == [[1], [0]]
    assert matches(alike, found, strays=np.array([[0.05, 0.6], [0.5, 0.1]])) == [[0], [1]]
    # A found box covering two cards alike stands for the one it reads, before any keypoint fit.
    assert matches(alike, found, np.array([[0.05, 0.6], [0.5, 0.1]]), np.array([[0, 1], [1, 0]], bool)) == [[1], [0]]
    # More items paired comes first, however many of fewer pairs would read right: the shifted boxes
    # read the first two cards, but only the pairing that leaves no card out is taken.
    row = np.array([[0, 0, 100, 100], [60, 0, 160, 100], [120, 0, 220, 100]], np.float64)
    seen = np.array([[30, 0, 130, 100], [90, 0, 190, 100], [0, 0, 100, 100]], np.float64)
    reads = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 0]], bool)
    assert matches(row, seen, None, reads) == [[2], [0], [1]]
    assert matches(row[:2], seen[:2], None, reads[:2, :2]) == [[0], [1]]


def test_a_report_named_at_a_showing_index_stands_for_that_item_not_the_box_it_lies_over() -> None:
    from oxeye.vision.matching import index_reach, matches, standing_for

    def card(code: str, box: list[float], centres: list[tuple[float, float]], visible: tuple[float, float]) -> dict:
        return {"code": code, "box": box, "corner_boxes": [{"centre": c, "visible": v} for c, v in zip(centres, visible)]}

    # A fanned 6H shows a strip left of the 10S over it, its top index only; the 10S shows whole.
    under = card("6H", [0, 0, 40, 140], [(20, 15), (80, 125)], (1.0, 0.0))
    over = card("10S", [30, 0, 130, 140], [(45, 15), (115, 125)], (1.0, 1.0))
    top = Item("10S", "card", (30, 0, 130, 140), 0.9, keypoints=((45, 15), (115, 125)))
    strip = Item("6H", "card", (32, 0, 70, 140), 0.5, keypoints=((22, 16), (81, 124)))  # boxed off its strip
    truth = np.array([under["box"], over["box"]], np.float64)
    found = [top, strip]
    matched = matches(truth, np.array([i.box for i in found], np.float64))
    assert matched == [[], [0, 1]]  # by boxes alone: the 6H lost, the 10S reported twice
    reach = index_reach([under, over], found)
    assert reach[0, 1] == pytest.approx(np.hypot(2, 1) / np.hypot(60, 110))
    assert np.isinf(reach[1, 1]) and np.isinf(reach[0, 0])  # another code marks nothing
    assert standing_for(matched, reach) == [[1], [0]]
    # A report named 6H over the hidden index alone marks nothing: it stays the 10S's second report.
    hidden = replace(strip, keypoints=((80, 125), (100, 130)))
    assert standing_for(matched, index_reach([under, over], [top, hidden])) == [[], [0, 1]]
    # So does a report of another name lying over the 10S (a misreading): the 10S is reported twice.
    ghost = Item("8D", "card", (40, 10, 120, 130), 0.4, keypoints=((50, 20), (110, 120)))
    assert standing_for(matched, index_reach([under, over], [top, ghost])) == [[], [0, 1]]
    # Two reports naming the 6H at its index are the 6H twice; a report standing for nothing stays so.
    again = replace(strip, box=(0, 0, 40, 140))
    stray = Item("2C", "card", (300, 300, 340, 340), 0.5, keypoints=((310, 310), (330, 330)))
    found = [top, strip, again, stray]
    matched = matches(truth, np.array([i.box for i in found], np.float64))
    assert standing_for(matched, index_reach([under, over], found)) == [[1, 2], [0]]
    # Without keypoints (a detector naming whole items), the boxes decide, as ``matches`` does.
    assert standing_for(matched, index_reach([under, over], [replace(i, keypoints=()) for i in found])) == matched


def test_pipeline_map_is_one_for_a_perfect_reader_and_falls_for_loose_boxes(scenes: Path) -> None:
    from oxeye.vision.evaluate import pipeline_map50_95

    # ultralytics' 101-point interpolation tops out at 0.995 for a perfect reader.
    assert pipeline_map50_95(_Oracle(scenes), scenes) == pytest.approx(0.995, abs=1e-3)

    def widened(item: Item) -> Item:  # 20% wider: IoU 0.83, a hit at 0.5 to 0.8 and a miss above
        x1, y1, x2, y2 = item.box
        return replace(item, box=(x1, y1, x2 + 0.2 * (x2 - x1), y2))

    loose = _Oracle(scenes, change=lambda r: replace(r, items=[widened(i) for i in r.items]))
    assert 0.6 < pipeline_map50_95(loose, scenes) < 0.8


class _Fixed:
    """Reads every photo as the same items."""

    def __init__(self, items: list[Item]) -> None:
        self.items = items

    def read(self, image: np.ndarray, kinds: Collection[str] | None = None) -> Reading:
        return Reading(image.shape[1], image.shape[0], [i for i in self.items if kinds is None or i.kind in kinds], [])


def test_real_card_figures_from_pascal_voc_labels(tmp_path: Path) -> None:
    from oxeye.vision.evaluate import real_cards

    write_labelled_photo(tmp_path, "IMG_1", np.zeros((100, 200, 3), np.uint8),
                         [(name, (x, 10, x + 40, 70)) for name, x in (("ace", 10), ("ten", 60), ("king", 140))])
    reader = _Fixed([Item("AH", "card", (11, 11, 50, 70), 0.9), Item("9S", "card", (60, 10, 100, 69), 0.9),
                     Item("4-2", "tile", (140, 10, 180, 70), 0.9)])
    figures = real_cards(reader, tmp_path)
    assert figures["cards"] == 3 and figures["localisation_recall"] == pytest.approx(2 / 3)
    assert figures["rank_accuracy_of_located"] == 0.5 and figures["rank_accuracy"] == pytest.approx(1 / 3)
    assert figures["rank_accuracy_95"] is None  # one photo: nothing to resample
    # The photos hold no tiles: the tile over the king is a false report, unflagged.
    assert figures["unmatched_reports"] == 1 and figures["unflagged_reports_right"] == pytest.approx(1 / 3)
    assert real_cards(reader, tmp_path, told=True)["unmatched_reports"] == 0  # told: cards only
    # The ace read right but flagged; the ten misread and unflagged; a second ace over the first, and
    # a card where no card lies, both flagged.
    reader.items = [replace(reader.items[0], flag=LOW_CONFIDENCE), reader.items[1],
                    Item("AS", "card", (10, 12, 50, 70), 0.4, flag=LOW_CONFIDENCE),
                    Item("4C", "card", (100, 75, 140, 100), 0.3, flag=LOW_CONFIDENCE)]
    flagged = real_cards(reader, tmp_path)
    assert flagged["reported_twice"] == 1 and flagged["unmatched_reports"] == 1
    assert flagged["right_reports_flagged"] == 1.0 and flagged["unflagged_reports_right"] == 0.0
    assert flagged["wrong_reports_flagged"] == pytest.approx(2 / 3)


@pytest.mark.parametrize(("xml", "message"), [
    ("<annotation><object><name>ace</name>", "is not Pascal VOC labels (no element found"),
    ("<annotation><object><name>ace</name></object></annotation>", "an object has no <bndbox> of four numbers"),
    ("<annotation><object><name>ace</name><bndbox><xmin>x</xmin></bndbox></object></annotation>",
     "an object has no <bndbox> of four numbers"),
    ("<annotation><object><name>dog</name><bndbox><xmin>1</xmin><ymin>1</ymin><xmax>5</xmax><ymax>5</ymax></bndbox>"
     "</object></annotation>", "labels 'dog': a real card is one of nine, ten, jack, queen, king, ace"),
])
def test_real_labels_that_cannot_be_read_are_refused_naming_the_file(tmp_path: Path, xml: str, message: str) -> None:
    """Each ended oxeye evaluate --real in a traceback (the unknown rank only after reading photos)."""
    from oxeye.vision.evaluate import labelled_photos

    write_labelled_photo(tmp_path, "IMG_1", np.zeros((100, 200, 3), np.uint8), [])
    (tmp_path / "photos" / "IMG_1.xml").write_text(xml)
    with pytest.raises(ValueError) as raised:
        labelled_photos(tmp_path)
    assert str(raised.value).startswith(str(tmp_path / "photos" / "IMG_1.xml")) and message in str(raised.value)


def test_a_real_photo_is_the_one_its_labels_name_or_any_photo_of_their_name(tmp_path: Path) -> None:
    """Only NAME.JPG or NAME.jpg beside NAME.xml was looked for: a NAME.png or NAME.jpeg, or the photo the labels
    name in their <filename>, ended evaluate --real in 'no such image: NAME.jpg', naming a file never there."""
    from oxeye.vision.evaluate import labelled_photos

    for name in ("IMG_1", "IMG_2"):
        write_labelled_photo(tmp_path, name, np.zeros((100, 200, 3), np.uint8), [("ace", (10, 10, 50, 70))])
    photos = tmp_path / "photos"
    (photos / "IMG_1.JPG").rename(photos / "table 1.png")
    (photos / "IMG_1.xml").write_text((photos / "IMG_1.xml").read_text().replace(
        "<annotation>", r"<annotation><filename>C:\cards\table 1.png</filename>"))
    (photos / "IMG_2.JPG").rename(photos / "IMG_2.jpeg")
    assert [photo for photo, _ in labelled_photos(tmp_path)] == [photos / "table 1.png", photos / "IMG_2.jpeg"]
    (photos / "IMG_2.jpeg").unlink()
    with pytest.raises(ValueError) as raised:
        labelled_photos(tmp_path)
    assert str(raised.value) == (f"{photos / 'IMG_2.xml'} labels no photo found beside it: looked for IMG_2.jpg, "
                                 f"IMG_2.JPG, IMG_2.jpeg, IMG_2.JPEG, IMG_2.png, IMG_2.PNG")


def test_each_real_card_lost_is_told_by_how(tmp_path: Path) -> None:
    """Six labelled cards: one read right, one misread, one twice, one under a box of its rank that
    takes in its neighbour, one under a box of another rank, one with nothing over it."""
    from bench.real_losses import losses, main

    labels = [("ace", (0, 0, 40, 60)), ("ten", (50, 0, 90, 60)), ("king", (100, 0, 140, 60)),
              ("queen", (150, 0, 190, 60)), ("jack", (200, 0, 240, 60)), ("nine", (250, 0, 290, 60))]
    write_labelled_photo(tmp_path, "IMG_1", np.zeros((100, 300, 3), np.uint8), labels)
    reader = _Fixed([Item("AH", "card", (0, 0, 40, 60), 0.9), Item("9D", "card", (50, 0, 90, 60), 0.9),
                     Item("KS", "card", (100, 0, 140, 60), 0.9), Item("KC", "card", (101, 1, 139, 59), 0.4),
                     Item("QH", "card", (110, 0, 192, 60), 0.3),  # over the queen and most of the king
                     Item("5S", "card", (180, 0, 262, 60), 0.6),  # over the jack and beyond, another rank
                     Item("2-1", "tile", (250, 0, 290, 60), 0.9)])  # a tile is no card
    count, lost = losses(reader, tmp_path)
    assert count == 6
    assert lost == {"misread": ["IMG_1.JPG ten"], "twice": ["IMG_1.JPG king"], "boxed with another": ["IMG_1.JPG queen"],
                    "taken by another": ["IMG_1.JPG jack"], "not reported": ["IMG_1.JPG nine"]}
    with pytest.raises(SystemExit, match="no labelled photos"):
        main(["--real", str(tmp_path / "elsewhere")])


def test_accuracy_intervals_resample_whole_photos() -> None:
    from oxeye.vision.evaluate import interval

    assert interval([10] * 40, [5] * 40) == [0.5, 0.5]  # every photo alike: no doubt left
    low, high = interval([10] * 40, [10] * 20 + [0] * 20)  # the same 400 items, each photo all right or all wrong
    assert low < 0.4 and high > 0.6  # items counted as independent would give about 0.45 to 0.55
    right = [9, 8, 10, 9, 7, 10, 9, 9]
    low, high = interval([10] * 8, right)
    assert 0.8 <= low < 0.8875 < high <= 0.95
    assert interval([10] * 8, right, right) == [0.0, 0.0]  # a model against itself gains nothing, surely
    low, high = interval([10] * 8, right, [r - 1 for r in right])  # one item more in every photo
    assert low == high == 0.1
    low, high = interval([10] * 8, right, [8, 7, 9, 8, 6, 9, 8, 10])  # one more in seven photos, one fewer in one
    assert 0 < low < 0.075 < high


def test_a_training_crop_names_what_its_keypoint_shows() -> None:
    from oxeye.vision.train_classifier import crop_label

    def item(code: str, kind: str, *visible: float) -> dict:
        return {"code": code, "kind": kind, "corner_boxes": [{"visible": v} for v in visible]}

    card = item("QH", "card", 1.0, 0.1)  # one index shows, the other lies under another card
    assert (crop_label(card, 0), crop_label(card, 1)) == ("QH", BACKGROUND)
    assert crop_label(item("QH", "card", 0.4, 1.0), 0) is None  # half hidden: taught neither way
    tile = item("6-2", "tile", 0.55, 1.0)  # halves read from the top one: six pips, then two
    assert (crop_label(tile, 0), crop_label(tile, 1)) == ("pips6", "pips2")


def test_a_reading_of_a_photo_decoded_reduced_is_given_in_the_photo_s_own_pixels() -> None:
    """Boxes (clipped to the photo) and keypoints (not) scaled up, so that the JSON contract's boxes lie on the
    photo sent, whatever size it was decoded at."""
    items = [Item("AS", "card", (10.0, 20.0, 30.5, 40.0), 0.9, hand=0, keypoints=((12.0, 22.0), (28.0, 41.0))),
             Item("KH", "card", (40.0, 20.0, 50.0, 38.0), 0.8, hand=0)]
    reading = Reading(50, 38, items, [Hand(0, [0, 1], ["AS", "KH"], (10.0, 20.0, 50.0, 40.0))], read_at=416)
    scaled = reading.scaled(4, 198, 150)  # 198 x 150 decoded at a quarter: 50 x 38, its last pixels partly off it
    assert (scaled.width, scaled.height, scaled.read_at) == (198, 150, 416)
    assert [item.box for item in scaled.items] == [(40.0, 80.0, 122.0, 150.0), (160.0, 80.0, 198.0, 150.0)]
    assert scaled.items[0].keypoints == ((48.0, 88.0), (112.0, 164.0))
    assert scaled.hands[0].box == (40.0, 80.0, 198.0, 150.0)
    assert [i.code for i in scaled.items] == ["AS", "KH"] and scaled.hands[0].codes == ["AS", "KH"]
    assert reading.items[0].box == (10.0, 20.0, 30.5, 40.0)  # the reading drawn on the decoded pixels is kept
    assert reading.scaled(1, 50, 38) is reading


@pytest.mark.parametrize("size", [(640, 480), (1280, 704), (704, 1280), (2000, 1000), (1000, 2000)])
def test_an_ordinary_frame_is_read_whole_in_one_window(size: tuple[int, int]) -> None:
    """A frame up to twice as long as it is high, either way round, is one window, the frame itself."""
    from oxeye.vision.tiles import Tiling

    assert Tiling().windows(*size) == [(0, 0, *size)]
    assert Tiling().window_side(*size) == max(size)


@pytest.mark.parametrize(("width", "height"), [(6000, 1500), (2001, 1000), (15000, 1200), (1500, 6000), (1000, 13000)])
def test_a_panorama_is_read_in_overlapping_windows_of_an_ordinary_frame_s_shape(width: int, height: int) -> None:
    """Windows 4:3 (3:4 for a tall frame) across the frame's whole short side, from one end to the other, each
    overlapping the next by at least a fifth of it, so that a card cut by one window's edge lies whole in the next."""
    from oxeye.vision.tiles import Tiling

    windows = Tiling().windows(width, height)
    along = 0 if width > height else 1  # the coordinate the windows step along
    short = min(width, height)
    assert len(windows) >= 2
    assert all(w[2] - w[0] == (round(4 / 3 * short) if along == 0 else width) for w in windows)
    assert all(w[3] - w[1] == (height if along == 0 else round(4 / 3 * short)) for w in windows)
    assert windows[0][along] == 0 and windows[-1][along + 2] == (width, height)[along]
    span = windows[0][along + 2] - windows[0][along]
    overlaps = [a[along + 2] - b[along] for a, b in zip(windows, windows[1:])]
    assert min(overlaps) >= 0.2 * span
    assert (len(windows) - 1) * span - (len(windows) - 2) * 0.2 * span < max(width, height)  # one fewer would not do
    assert Tiling().window_side(width, height) == span


def test_a_sliver_of_a_frame_is_read_in_at_most_twelve_windows_each_longer() -> None:
    """Each window costs a frame's reading: a 60,000 x 100 sliver would have been read in 564 windows."""
    from oxeye.vision.tiles import Tiling

    windows = Tiling().windows(60_000, 100)
    assert len(windows) == 12 and windows[0][0] == 0 and windows[-1][2] == 60_000
    assert min(a[2] - b[0] for a, b in zip(windows, windows[1:])) >= 0.2 * (windows[0][2] - windows[0][0])


def test_items_seen_in_two_windows_are_kept_once_in_the_frame_s_pixels() -> None:
    """Each window's items are moved into the frame, keypoints too. A card seen whole in both windows where they
    overlap is kept once (the surer reading); one cut by a window's edge is left to the window that holds it
    whole, even where the cut part reads as another card (as where the frame's own edge cuts it too), which the
    twin rule keeps; two cards side by side in the overlap both stay, as do two of one code far apart."""
    from oxeye.vision.detector import merge_windows

    def card(code: str, box: tuple[float, float, float, float], confidence: float) -> Item:
        x1, y1, x2, y2 = box
        return Item(code, "card", box, confidence, keypoints=((x1 + 5, y1 + 5), (x2 - 5, y2 - 5)))

    left = [card("AS", (10, 10, 70, 100), 0.9), card("KH", (800, 10, 860, 100), 0.8),
            card("QH", (950, 200, 1000, 290), 0.7), card("9S", (980, 0, 1000, 90), 0.75)]  # QD and 9C, cut
    right = [card("KH", (100, 12, 160, 101), 0.85), card("QD", (250, 200, 310, 290), 0.9),
             card("9C", (270, 0, 330, 90), 0.8), card("5C", (170, 10, 230, 100), 0.9),
             card("AS", (900, 10, 960, 100), 0.6)]
    merged = merge_windows([((0, 0, 1000, 400), left), ((700, 0, 1700, 400), right)], Twins())
    assert [(item.code, item.box) for item in merged] == [
        ("AS", (10, 10, 70, 100)), ("QD", (950, 200, 1010, 290)), ("5C", (870, 10, 930, 100)),
        ("KH", (800, 12, 860, 101)), ("9C", (970, 0, 1030, 90)), ("AS", (1600, 10, 1660, 100))]
    assert merged[1].keypoints == ((955, 205), (1005, 285))
    assert [item.box for item in left][2:] == [(950, 200, 1000, 290), (980, 0, 1000, 90)]


def test_a_card_read_as_two_codes_in_two_windows_is_kept_once() -> None:
    """One card in the windows' overlap read KS in one and KC in the other, boxes all but alike (IoU 0.89): the
    twin rule, which keeps a card inside another read otherwise as a fanned neighbour, kept both, and a row of
    five became six. A neighbour partly under it, read in the other window, stays; so do alike boxes of a
    card and a tile."""
    from oxeye.vision.detector import merge_windows

    left = [Item("KS", "card", (700, 22, 811, 162), 0.83), Item("5H", "card", (631, 20, 741, 160), 0.8)]
    right = [Item("KC", "card", (72, 19, 171, 161), 0.56), Item("6-6", "tile", (73, 20, 172, 160), 0.5)]
    merged = merge_windows([((0, 0, 960, 720), left), ((640, 0, 1600, 720), right)], Twins())
    assert [(item.code, item.box) for item in merged] == [
        ("KS", (700, 22, 811, 162)), ("5H", (631, 20, 741, 160)), ("6-6", (713, 20, 812, 160))]
