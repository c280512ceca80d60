"""Labels from a rendered scene's id map: visible boxes, outlines, corner indices, and the rule for hiding.

Rule: a card is labelled when at least one of its two corner indices is at least
``INDEX_VISIBLE`` visible, or when at least ``ITEM_VISIBLE`` of the card is; a tile when
each of its halves is at least ``HALF_VISIBLE`` visible. An index, half or card is visible where
the item owns the pixel and no glare burnt it out (``Scene.burnt``): a burnt-out index has
nothing left to read, and labelled it asked a reader to name what no eye could (the shipped
detector failed most such items, nearly a third of its failures: models/EXPERIMENTS.md).
The YOLO box is the box of the item's visible pixels (``boxes="visible"``), or of its main
visible part (``"main"``): its visible pixels less any strip thinner than ``STRIP`` of the
item's short side, as a person boxes a card tucked under another by the part that shows, not
by the edge peeking out beside the card over it (the real photos' labels do:
models/EXPERIMENTS.md). Glare burns the ink, not the item: the box bounds burnt pixels too.
"""

from __future__ import annotations

import cv2
import numpy as np

from oxeye.datasets.scene import Scene
from oxeye.vision.classes import CLASS_ID, kind_of

INDEX_VISIBLE = 0.6
ITEM_VISIBLE = 0.6
HALF_VISIBLE = 0.5
OPEN_KERNEL = np.ones((3, 3), np.uint8)
STRIP = 0.1  # a visible strip thinner than this share of the item's short side is left out of its box
BOXES = ("visible", "main")  # what an item's box bounds: all its visible pixels, or its main visible part


def _quad(matrix: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray:
    """A face-pixel box through a homography: four points."""
    x1, y1, x2, y2 = box
    pts = np.array([[[x1, y1]], [[x2, y1]], [[x2, y2]], [[x1, y2]]], np.float64)
    return cv2.perspectiveTransform(pts, matrix).reshape(4, 2)


def _point(matrix: np.ndarray, point: tuple[float, float]) -> np.ndarray:
    """A face-pixel point through a homography, wherever it lands (inside the image or not)."""
    return cv2.perspectiveTransform(np.array([[point]], np.float64), matrix).reshape(2)


def _visible_in(quad: np.ndarray, owned: np.ndarray) -> float:
    """Fraction of a quad's area whose pixels the item owns (parts outside the image count as hidden)."""
    area = abs(cv2.contourArea(quad.astype(np.float32)))
    if area < 1:
        return 0.0
    mask = np.zeros(owned.shape, np.uint8)
    cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 1)
    return float(min(1.0, np.count_nonzero(mask & owned) / area))


def _main_part(solid: np.ndarray, outline: np.ndarray) -> np.ndarray:
    """``solid`` less its strips thinner than ``STRIP`` of the item's short side (``outline``, its
    four corners); ``solid`` itself where nothing thicker shows. An opening alone would also round
    off a turned card's corners, so what it keeps is grown back within the kernel, inside ``solid``:
    a strip joining the main part adds at most the kernel's side to the box."""
    short = min(np.linalg.norm(outline - np.roll(outline, 1, axis=0), axis=1))
    kernel = np.ones((max(3, int(round(STRIP * short))),) * 2, np.uint8)
    # Outside the region counts as unset: OpenCV's default border when eroding is set, which would
    # keep a strip lying along the region's edge.
    main = cv2.morphologyEx(solid, cv2.MORPH_OPEN, kernel, borderType=cv2.BORDER_CONSTANT, borderValue=0)
    return cv2.dilate(main, kernel) & solid if main.any() else solid


def _rounded(values: np.ndarray | list[float]) -> list[float]:
    return [round(float(v), 1) for v in np.asarray(values).reshape(-1)]


def _recognisable(is_card: bool, corner_visible: list[float], visible: float) -> bool:
    """The labelling rule (the module's docstring) for an item with these visible shares."""
    if is_card:
        return max(corner_visible) >= INDEX_VISIBLE or visible >= ITEM_VISIBLE
    return min(corner_visible) >= HALF_VISIBLE


def scene_labels(scene: Scene, boxes: str = "visible") -> list[dict[str, object]]:
    """One record per recognisable item: code, class, hand, box, outlines (the visible one of the
    part ``boxes`` names, which the box bounds), corner boxes, visible fraction."""
    return label_scene(scene, boxes)[0]


def label_scene(scene: Scene, boxes: str = "visible", light: np.ndarray | float = 1.0,
                ) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """``scene_labels``' records, and those of the items glare alone hides: each would be labelled but for
    its burnt-out index or half, under the camera's ``light`` (``Scene.burnt``). A reader may still guess one
    right, so evaluation counts a report of it neither right nor wrong, as VOC does an object marked difficult."""
    height, width = scene.idmap.shape
    records: list[dict[str, object]] = []
    burnt_out: list[dict[str, object]] = []
    burnt_in_frame = scene.burnt(light)
    for item_id, item in enumerate(scene.items):
        fw, fh = item.face.size
        x0, y0, x1, y1 = item.roi
        to_roi = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]]) @ item.matrix  # work inside the item's region
        owned = (scene.idmap[y0:y1, x0:x1] == item_id).astype(np.uint8)
        if not owned.any():
            continue
        burnt = burnt_in_frame[y0:y1, x0:x1] & (owned > 0)
        whole = _quad(to_roi, (0, 0, fw, fh))  # the item's four corners in its region
        visible = _visible_in(whole, owned)
        corners = [_quad(item.matrix, box) for box in item.face.index_boxes]
        index_quads = [_quad(to_roi, box) for box in item.face.index_boxes]
        corner_owned = [_visible_in(quad, owned) for quad in index_quads]
        if burnt.any():
            corner_visible = [_visible_in(quad, owned & ~burnt) for quad in index_quads]
            unburnt = _visible_in(whole, owned & ~burnt)  # a card's pips and court name it too, where they show
        else:  # most items catch no burning glare
            corner_visible, unburnt = corner_owned, visible
        is_card = kind_of(item.face.code) == "card"
        if _recognisable(is_card, corner_visible, unburnt):
            into = records
        elif _recognisable(is_card, corner_owned, visible):
            into = burnt_out  # glare alone hides it
        else:
            continue
        solid = cv2.morphologyEx(owned, cv2.MORPH_OPEN, OPEN_KERNEL)  # no one-pixel slivers
        if not solid.any():
            continue
        boxed = _main_part(solid, whole) if boxes == "main" else solid
        x, y, w, h = cv2.boundingRect(boxed)
        x, y = x + x0, y + y0
        contours, _ = cv2.findContours(boxed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE, offset=(x0, y0))
        polygons = [cv2.approxPolyDP(c, 1.0, True).reshape(-1, 2).tolist() for c in contours]
        corner_boxes = []
        for box, q, seen in zip(item.face.index_boxes, corners, corner_visible):
            lo = np.clip(q.min(axis=0), 0, (width, height))
            hi = np.clip(q.max(axis=0), 0, (width, height))
            centre = _point(item.matrix, ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2))
            corner_boxes.append({"box": _rounded(np.concatenate([lo, hi])), "centre": _rounded(centre),
                                 "visible": round(seen, 3)})
        into.append({
            "code": item.face.code,
            "class_id": CLASS_ID[item.face.code],
            "kind": kind_of(item.face.code),
            "hand": item.hand,
            "box": [x, y, x + w, y + h],
            "visible_fraction": round(visible, 3),
            "outline": [_rounded(p) for p in _quad(item.matrix, (0, 0, fw, fh))],
            "visible_outline": polygons,
            "corner_boxes": corner_boxes,
        })
    return records, burnt_out


def yolo_lines(records: list[dict[str, object]], width: int, height: int) -> str:
    """YOLO label text: one 'class cx cy w h' line per record, normalised to the image size."""
    lines = []
    for r in records:
        x1, y1, x2, y2 = r["box"]
        lines.append(f"{r['class_id']} {(x1 + x2) / 2 / width:.6f} {(y1 + y2) / 2 / height:.6f} "
                     f"{(x2 - x1) / width:.6f} {(y2 - y1) / height:.6f}")
    return "\n".join(lines) + ("\n" if lines else "")
