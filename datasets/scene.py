"""One table scene: camera, table, hands of cards or tiles (or a few loose ones close up), fingers and distractors.

Items live on the table plane; a homography from a tilted pinhole camera puts them in the
image. Each item is warped into a small region of interest, and an id map records which
item owns each pixel, so that occlusion is exact for the labels; a second map records the
glare a lamp casts on each, which, strong enough, burns out what the pixel showed as surely as a card
laid over it would hide it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from oxeye.datasets.backgrounds import pick_kind, table_texture
from oxeye.datasets.faces import Face
from oxeye.datasets.props import SKIN_TONES, draw_finger
from oxeye.vision.classes import CIVIL_FACES

OTHER = -1  # id map value of fingers, distractors and tile sides
BURNT = 0.9  # glare this strong leaves ink within a tenth of white: the pixel shows nothing to read
EMPTY = -2  # id map value of the bare table
HAND_COUNT_WEIGHTS = np.array([6, 5, 4, 3, 2, 2, 1, 1]) / 24  # close-ups of one or two hands are commonest
PROP_SIZES = {"chip": (0.4, 0.5), "die": (0.15, 0.25), "card_back": (0.95, 1.0), "tile_back": (0.9, 1.0)}  # x item height
LOOSE_COUNT_WEIGHTS = np.array([6, 5, 4, 3, 2]) / 20  # 1 to 5 loose items, as in the real card photos
LOOSE_LAYOUTS = ("strewn", "heap", "row")  # items anywhere; each tossed partly on the last; laid down in an overlapped row
LOOSE_LAYOUT_WEIGHTS = np.array([0.4, 0.3, 0.3])  # rows: a hand put down side by side, as most real card photos show it


@dataclass(frozen=True)
class Library:
    """Everything a worker renders from, made once: faces by deck and distractor textures."""

    card_decks: dict[str, dict[str, Face]]
    tile_sets: dict[str, dict[str, Face]]
    props: dict[str, list[np.ndarray]]
    deck_weights: dict[str, float] = field(default_factory=dict)  # relative odds of a deck; 1 when absent

    def pick_deck(self, rng: np.random.Generator, kind: str) -> str:
        """A deck (or tile set) name of ``kind``, the photographic fetched decks more often than drawn ones."""
        names = sorted(self.card_decks if kind == "cards" else self.tile_sets)
        odds = np.array([self.deck_weights.get(n, 1.0) for n in names])
        return names[rng.choice(len(names), p=odds / odds.sum())]


@dataclass
class Placed:
    """An item drawn into the scene: its face and the homography from face pixels to image pixels."""

    face: Face
    hand: int
    matrix: np.ndarray
    roi: tuple[int, int, int, int]  # x0, y0, x1, y1: the image region holding all its pixels


@dataclass
class Scene:
    """A rendered scene before photographic effects, with ownership of every pixel."""

    image: np.ndarray
    idmap: np.ndarray
    items: list[Placed] = field(default_factory=list)
    hands: list[tuple[str, int]] = field(default_factory=list)  # arrangement and number of items of each hand
    info: dict[str, object] = field(default_factory=dict)
    glare: np.ndarray | None = None  # each pixel's glare on its owner, 0 (none) to 1 (white); none when not given

    def __post_init__(self) -> None:
        if self.glare is None:
            self.glare = np.zeros(self.idmap.shape)

    def burnt(self, light: np.ndarray | float = 1.0) -> np.ndarray:
        """The pixels whose ink glare left within a tenth of white (``BURNT``), once a camera's ``light`` (each
        pixel's gain, ``augment.photograph``) brightened them: over 1 it clips the paper to white and lifts
        the glared ink with it, so glare of 0.7 under a gain of 1.3 burns as 0.9 does alone."""
        return self.glare * np.maximum(light, 1.0) >= BURNT


def _camera(rng: np.random.Generator, width: int, height: int, close: bool) -> tuple[np.ndarray, float]:
    """Homography from table plane to image for a camera above or across the table, and its tilt."""
    steep = 0.7 if close else 0.4  # close-ups of a few cards are mostly shot from above
    tilt = np.radians(rng.uniform(0, 15) if rng.random() < steep else rng.uniform(15, 45 - 15 * close))
    yaw = rng.uniform(0, 2 * np.pi)
    f = width * rng.uniform(0.8, 1.3)
    cz, sz, cx, sx = np.cos(yaw), np.sin(yaw), np.cos(tilt), np.sin(tilt)
    rot = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]]) @ np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    k = np.array([[f, 0, width / 2], [0, f, height / 2], [0, 0, 1]])
    h = k @ np.column_stack([rot[:, 0], rot[:, 1], [0, 0, f]])
    return h / h[2, 2], float(np.degrees(tilt))


def _apply(matrix: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Points (N, 2) through a homography."""
    return cv2.perspectiveTransform(pts.reshape(-1, 1, 2).astype(np.float64), matrix).reshape(-1, 2)


def _local_scale(h: np.ndarray, p: np.ndarray) -> float:
    """Image pixels per table unit near table point ``p``."""
    q = _apply(h, np.array([p, p + (1, 0), p + (0, 1)]))
    (ax, ay), (bx, by) = q[1] - q[0], q[2] - q[0]
    return float(np.sqrt(abs(ax * by - ay * bx)))


def _affine(tx: float, ty: float, angle: float, scale: float = 1.0) -> np.ndarray:
    """3x3 matrix: scale, rotate by ``angle`` degrees, then translate."""
    c, s = np.cos(np.radians(angle)) * scale, np.sin(np.radians(angle)) * scale
    return np.array([[c, -s, tx], [s, c, ty], [0, 0, 1]])


def _arrangement(rng: np.random.Generator, style: str, w: float, h: float) -> list[tuple[float, float, float]]:
    """Offsets (dx, dy, angle) of five items around a hand centre, in table units, drawn left to right."""
    if style == "fan":
        step = rng.uniform(7, 16)
        out = []
        for i in range(5):
            a = (i - 2) * step
            pivot = _affine(0, 0.45 * h, a) @ np.array([0, -0.75 * h, 1])
            out.append((pivot[0] + rng.normal(0, 0.01 * w), pivot[1], a + rng.normal(0, 1.5)))
        return out
    if style == "spread":
        step = w * rng.uniform(0.3, 0.6)
        return [((i - 2) * step, rng.normal(0, 0.05 * h), rng.normal(0, 5)) for i in range(5)]
    gap = w * rng.uniform(0.02, 0.4)
    xs = [(i - 2) * (w + gap) + (gap * 1.5 if style == "split" and i >= 3 else 0) for i in range(5)]
    return [(x, rng.normal(0, 0.03 * h), rng.normal(0, 3)) for x in xs]


def _heap_offset(rng: np.random.Generator, w: float, h: float) -> tuple[float, float]:
    """Where the next item of a heap lies from the centre of the one under it, in that one's face
    units (``w`` x ``h``): across it or along it by 0.2 to 0.6 of its size, so covering part of it
    and leaving at least one of its corner indices in view."""
    share = rng.uniform(0.2, 0.6) * rng.choice((-1.0, 1.0))
    if rng.random() < 0.6:
        return share * w, rng.normal(0, 0.05 * h)
    return rng.normal(0, 0.05 * w), share * h


def _row_offset(rng: np.random.Generator, w: float, h: float, side: float) -> tuple[float, float]:
    """Where the next item of an overlapped row lies from the one under it: always to the same
    ``side`` (+1 or -1) across it by 0.2 to 0.6 of its width, edges nearly level, leaving a strip
    with its index in view."""
    return side * rng.uniform(0.2, 0.6) * w, rng.normal(0, 0.03 * h)


def _composite(scene: Scene, rng: np.random.Generator, texture: np.ndarray, matrix: np.ndarray, owner: int,
               shadow: float, glare: bool, thickness: np.ndarray | None = None) -> tuple[int, int, int, int] | None:
    """Warp a BGRA texture into the image with a drop shadow, optional glare and tile sides; its region or None."""
    th, tw = texture.shape[:2]
    height, width = scene.idmap.shape
    corners = _apply(matrix, np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float64))
    pad = 12
    x0, y0 = np.floor(corners.min(axis=0)).astype(int) - pad
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + pad
    x0, y0, x1, y1 = int(max(0, x0)), int(max(0, y0)), int(min(width, x1)), int(min(height, y1))
    if x1 - x0 < 3 or y1 - y0 < 3:
        return None
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
    warped = cv2.warpPerspective(texture, shift @ matrix, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
    alpha = warped[..., 3].astype(np.float32) / 255.0
    roi = scene.image[y0:y1, x0:x1].astype(np.float32)
    if shadow > 0:
        dx, dy = rng.uniform(1, 6, 2)
        moved = cv2.warpAffine(alpha, np.float32([[1, 0, dx], [0, 1, dy]]), (x1 - x0, y1 - y0))
        roi *= 1 - shadow * cv2.GaussianBlur(moved, (0, 0), 2.5)[..., None]
    if thickness is not None:
        side = np.zeros_like(alpha)
        for frac in (0.34, 0.67, 1.0):
            m = np.float32([[1, 0, thickness[0] * frac], [0, 1, thickness[1] * frac]])
            side = np.maximum(side, cv2.warpAffine(alpha, m, (x1 - x0, y1 - y0)))
        side_colour = texture[th // 2, tw // 4:3 * tw // 4, :3].mean(axis=0) * 0.55  # the body between the halves
        roi = roi * (1 - side[..., None]) + side_colour * side[..., None]
        scene.idmap[y0:y1, x0:x1][side > 0.5] = OTHER
    colour = warped[..., :3].astype(np.float32)
    spot = np.zeros(alpha.shape)
    if glare:  # a reflected lamp: an elliptic blob that burns out to white at its centre
        gy, gx = rng.uniform(0, y1 - y0), rng.uniform(0, x1 - x0)
        r = rng.uniform(0.1, 0.5) * max(x1 - x0, y1 - y0)
        stretch, turn = rng.uniform(1, 3), rng.uniform(0, np.pi)
        yy, xx = np.ogrid[0:y1 - y0, 0:x1 - x0]
        u = (xx - gx) * np.cos(turn) + (yy - gy) * np.sin(turn)
        v = (yy - gy) * np.cos(turn) - (xx - gx) * np.sin(turn)
        spot = np.minimum(1, rng.uniform(0.4, 2.0) * np.exp(-(u * u / stretch + v * v * stretch) / (r * r)))
        colour += (255 - colour) * spot[..., None]
    roi = roi * (1 - alpha[..., None]) + colour * alpha[..., None]
    scene.image[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)
    covered = alpha > 0.5
    scene.idmap[y0:y1, x0:x1][covered] = owner
    scene.glare[y0:y1, x0:x1][covered] = spot[covered]  # what it covers is its own, glared or not
    return x0, y0, x1, y1


def _place_face(scene: Scene, rng: np.random.Generator, h: np.ndarray, face: Face, hand: int, table: np.ndarray,
                tilt: float, lamp: bool = True) -> None:
    """Draw one face at table placement ``table`` (face-centred units scaled to table units); a glossy one
    may catch the ``lamp``'s glare."""
    fw, fh = face.size
    to_image = h @ table @ np.array([[1, 0, -fw / 2], [0, 1, -fh / 2], [0, 0, 1]])
    scale = _local_scale(to_image, np.array([fw / 2, fh / 2]))
    level = int(np.clip(np.floor(np.log2(1 / max(scale, 1e-6))), 0, len(face.levels) - 1))
    matrix = to_image @ np.diag([2.0 ** level, 2.0 ** level, 1.0])
    thickness = None
    if face.code.count("-"):
        depth = fh * scale * 0.08 * (0.3 + np.sin(np.radians(tilt)))
        thickness = np.array([rng.normal(0, 0.3), 1.0]) * depth
    glare = lamp and face.glossy and rng.random() < 0.35
    roi = _composite(scene, rng, face.levels[level], matrix, len(scene.items), rng.uniform(0.2, 0.5), glare, thickness)
    if roi is not None:
        scene.items.append(Placed(face, hand, to_image, roi))


def _place_prop(scene: Scene, rng: np.random.Generator, h: np.ndarray, library: Library, family: str,
                centre: np.ndarray, item_size: float) -> None:
    """Draw a distractor of ``family`` on the table at ``centre``, sized against items ``item_size`` table units long."""
    texture = library.props[family][rng.integers(len(library.props[family]))]
    th, tw = texture.shape[:2]
    size = item_size * rng.uniform(*PROP_SIZES[family])
    table = _affine(*centre, rng.uniform(0, 360), size / max(tw, th))
    matrix = h @ table @ np.array([[1, 0, -tw / 2], [0, 1, -th / 2], [0, 0, 1]])
    _composite(scene, rng, texture, matrix, OTHER, rng.uniform(0.2, 0.4), False)


def _hand_centres(rng: np.random.Generator, n: int) -> np.ndarray:
    """Hand centres in normalised image coordinates: around an ellipse like seats at a table; the first central."""
    if n == 1:
        return np.array([[rng.uniform(0.4, 0.6), rng.uniform(0.4, 0.6)]])
    start = rng.uniform(0, 2 * np.pi)
    angles = start + np.arange(n - 1) * 2 * np.pi / (n - 1) + rng.normal(0, 0.15, n - 1)
    radius = rng.uniform(0.28, 0.36)
    ring = np.column_stack([0.5 + radius * np.cos(angles), 0.5 + radius * np.sin(angles)])
    return np.vstack([[0.5 + rng.normal(0, 0.04), 0.5 + rng.normal(0, 0.04)], ring])


def _fingers_on_fan(scene: Scene, rng: np.random.Generator, h: np.ndarray, hand_table: np.ndarray,
                    w: float, hgt: float) -> None:
    """A holding hand: palm over the fan's pivot and a thumb across the lower card edges."""
    pts = _apply(h @ hand_table, np.array([[0, 0.45 * hgt], [rng.uniform(-0.3, 0.3) * w, 0.05 * hgt],
                                          [0, 1.2 * hgt]], np.float64))
    width = float(np.hypot(*(pts[0] - _apply(h @ hand_table, np.array([[w * 0.45, 0.45 * hgt]]))[0])))
    skin = SKIN_TONES[rng.integers(len(SKIN_TONES))]
    draw_finger(scene.image, scene.idmap, pts[2], pts[0], width * 2.2, skin, rng)
    draw_finger(scene.image, scene.idmap, pts[0], pts[1], width * 0.9, skin, rng)


def _table(rng: np.random.Generator, h: np.ndarray, size: tuple[int, int]) -> Scene:
    """An empty scene: a table texture of a random kind seen through the camera homography ``h``."""
    width, height = size
    background = pick_kind(rng)
    image_corners = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float64)
    table_corners = _apply(np.linalg.inv(h), image_corners)
    lo, hi = table_corners.min(axis=0), table_corners.max(axis=0)
    step = max(1.0, float((hi - lo).max()) / 512)
    tex = table_texture(rng, (int((hi[1] - lo[1]) / step) + 2, int((hi[0] - lo[0]) / step) + 2), background)
    tex_to_table = np.array([[step, 0, lo[0]], [0, step, lo[1]], [0, 0, 1]])
    image = cv2.warpPerspective(tex, h @ tex_to_table, (width, height), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REFLECT_101)
    return Scene(image, np.full((height, width), EMPTY, np.int16), info={"background": background})


def _random_finger(scene: Scene, rng: np.random.Generator, tip: np.ndarray, width: float) -> None:
    """A finger reaching from off the item onto image point ``tip``."""
    height, w = scene.idmap.shape
    base = tip + rng.normal(0, 1, 2) * min(w, height) * 0.2
    draw_finger(scene.image, scene.idmap, base, tip, width, SKIN_TONES[rng.integers(len(SKIN_TONES))], rng)


def _props_on_top(scene: Scene, rng: np.random.Generator, h: np.ndarray, library: Library, targets: list[Placed],
                  size_px: float) -> None:
    """Now and then a chip or die dropped partly over an item; the id map makes the occlusion exact."""
    if not targets or rng.random() > 0.3:
        return
    inv = np.linalg.inv(h)
    for _ in range(rng.integers(1, 3)):
        item = targets[rng.integers(len(targets))]
        x0, y0, x1, y1 = item.roi
        centre = np.array([rng.uniform(x0, x1), rng.uniform(y0, y1)])
        spot = _apply(inv, centre[None])[0]
        family = ("chip", "die")[rng.integers(2)]  # small and flat enough to rest on a card
        _place_prop(scene, rng, h, library, family, spot, size_px / _local_scale(h, spot))


def render_scene(rng: np.random.Generator, library: Library, kind: str, anchor: list[str],
                 size: tuple[int, int], loose: bool = False) -> Scene:
    """Render one scene of ``kind`` ('cards' or 'tiles'): hands with hand 0 holding the ``anchor`` codes in
    full view, or (``loose``) a close-up of 1 to 5 large loose items drawn at random, strewn, in a heap or
    in an overlapped row."""
    width, height = size
    h, tilt = _camera(rng, width, height, loose)
    inv = np.linalg.inv(h)
    scene = _table(rng, h, size)
    deck_name = library.pick_deck(rng, kind)
    faces = (library.card_decks if kind == "cards" else library.tile_sets)[deck_name]
    scene.info = {"deck": deck_name, **scene.info, "tilt_deg": round(tilt, 1)}
    n_items = int(rng.choice(np.arange(1, 6), p=LOOSE_COUNT_WEIGHTS)) if loose else 0
    n_hands = 1 if loose else int(rng.choice(np.arange(1, 9), p=HAND_COUNT_WEIGHTS))
    pool = list(faces) if kind == "cards" else [c for c in faces for _ in range(2 if c in CIVIL_FACES else 1)]
    pool *= 1 + (kind == "tiles" and n_hands * 5 > 32)  # more than six hands of tiles need a second set
    for code in anchor:
        pool.remove(code)
    rng.shuffle(pool)
    if loose:
        size_px = height * rng.uniform(0.22, 0.55) * (1.0 if kind == "cards" else 0.85)
    else:
        size_px = min(width, height) * rng.uniform(0.28, 0.5) / np.sqrt(n_hands) * (1.0 if kind == "cards" else 0.9)
    props = ("chip", "die", "card_back" if kind == "cards" else "tile_back")
    for _ in range(rng.integers(0, 3 if loose else 4)):
        centre = _apply(inv, rng.uniform(0.05, 0.95, (1, 2)) * (width, height))[0]
        _place_prop(scene, rng, h, library, props[rng.integers(len(props))], centre, size_px / _local_scale(h, centre))
    if loose:
        _lay_loose(scene, rng, h, faces, pool[:n_items], size_px, tilt)
        on_top = scene.items
    else:
        hands = [anchor] + [pool[5 * i:5 * i + 5] for i in range(n_hands - 1)]
        _lay_hands(scene, rng, h, faces, hands, kind, size_px, tilt)
        on_top = [p for p in scene.items if p.hand != 0]  # hand 0 stays whole
    _props_on_top(scene, rng, h, library, on_top, size_px)
    return scene


def _lay_loose(scene: Scene, rng: np.random.Generator, h: np.ndarray, faces: dict[str, Face], codes: list[str],
               size_px: float, tilt: float) -> None:
    """Lay ``codes`` loose as one hand: strewn apart, or each partly on the last in a heap or an overlapped row;
    now and then a finger on the last."""
    height, width = scene.idmap.shape
    inv = np.linalg.inv(h)
    fw, fh = next(iter(faces.values())).size
    layout = LOOSE_LAYOUTS[rng.choice(len(LOOSE_LAYOUTS), p=LOOSE_LAYOUT_WEIGHTS)]
    side = rng.choice((-1.0, 1.0))
    placement = None
    for code in codes:
        if layout != "strewn" and placement is not None:  # on the last item, turned a little from it
            offset, turn = (_heap_offset(rng, fw, fh), 8) if layout == "heap" else (_row_offset(rng, fw, fh, side), 3)
            centre = _apply(placement, np.array([offset]))[0]
            angle += rng.normal(0, turn)
        else:
            centre = _apply(inv, rng.uniform(0.15, 0.85, (1, 2)) * (width, height))[0]
            upright = rng.random() < 0.5  # people often lay cards square to the camera
            angle = rng.normal(0, 12) if upright else rng.uniform(0, 360)
        placement = _affine(*centre, angle, size_px / fh / _local_scale(h, centre))
        _place_face(scene, rng, h, faces[code], 0, placement, tilt)
    if rng.random() < 0.05 and scene.items:
        x0, y0, x1, y1 = scene.items[-1].roi
        _random_finger(scene, rng, np.array([(x0 + x1) / 2, y1 - 0.1 * (y1 - y0)]), size_px * rng.uniform(0.15, 0.22))
    scene.hands = [("loose", len(codes))]


def _lay_hands(scene: Scene, rng: np.random.Generator, h: np.ndarray, faces: dict[str, Face], hands: list[list[str]],
               kind: str, size_px: float, tilt: float) -> None:
    """Lay ``hands`` of five around the table, each in a row, spread, split or fan, hand 0 whole in view and
    on top of the rest; now and then fingers holding a fan or reaching onto a hand."""
    height, width = scene.idmap.shape
    inv = np.linalg.inv(h)
    fw, fh = next(iter(faces.values())).size
    styles = ("row", "spread", "fan", "fan") if kind == "cards" else ("row", "split", "spread")
    anchor_styles = ("row", "spread") if kind == "cards" else ("row", "split")
    centres = _hand_centres(rng, len(hands))
    order = list(range(1, len(hands))) + [0]  # the anchor hand last, on top of everything
    arrangements = {}
    for hand in order:
        style = anchor_styles[rng.integers(2)] if hand == 0 else styles[rng.integers(len(styles))]
        centre = _apply(inv, centres[hand:hand + 1] * (width, height))[0]
        scale = size_px / fh / _local_scale(h, centre)
        angle = rng.uniform(0, 360)
        if hand == 0:
            scale, angle = _fit_anchor(h, centre, scale, angle, (fw, fh), (width, height), rng)
        hand_table = _affine(*centre, angle)
        for code, (dx, dy, a) in zip(hands[hand], _arrangement(rng, style, fw * scale, fh * scale)):
            _place_face(scene, rng, h, faces[code], hand, hand_table @ _affine(dx, dy, a, scale), tilt)
        if style == "fan" and rng.random() < 0.25:  # drawn fingers are still the least real thing: keep them rare
            _fingers_on_fan(scene, rng, h, hand_table, fw * scale, fh * scale)
        elif hand != 0 and rng.random() < 0.05:
            tip = _apply(h @ hand_table, np.array([[rng.uniform(-1.5, 1.5) * fw * scale, 0.4 * fh * scale]]))[0]
            _random_finger(scene, rng, tip, size_px * rng.uniform(0.2, 0.3))
        arrangements[hand] = style
    scene.hands = [(arrangements[i], 5) for i in range(len(hands))]


def _fit_anchor(h: np.ndarray, centre: np.ndarray, scale: float, angle: float, face: tuple[int, int],
                size: tuple[int, int], rng: np.random.Generator) -> tuple[float, float]:
    """Shrink or turn the anchor hand until its whole extent (as a loose row) lies inside the image."""
    fw, fh = face
    for _ in range(12):
        half_w, half_h = 2.5 * fw * scale * 1.45, fh * scale * 0.6
        box = np.array([[-half_w, -half_h], [half_w, -half_h], [half_w, half_h], [-half_w, half_h]])
        pts = _apply(h @ _affine(*centre, angle), box)
        if pts.min() >= 4 and (pts[:, 0] <= size[0] - 4).all() and (pts[:, 1] <= size[1] - 4).all():
            break
        scale *= 0.85
        angle = rng.uniform(0, 360) if rng.random() < 0.5 else angle
    return scale, angle


def render_hands(rng: np.random.Generator, library: Library, kind: str, hands: list[list[str]],
                 size: tuple[int, int]) -> Scene:
    """Known hands laid in rows, top to bottom, under a camera straight above and no lamp's glare (it burns
    pips and indices out): pictures in which every code must be readable (the dealer trainer's drills, the
    detector's read-back checks)."""
    width, height = size
    scene = _table(rng, np.eye(3), size)
    deck_name = library.pick_deck(rng, kind)
    faces = (library.card_decks if kind == "cards" else library.tile_sets)[deck_name]
    scene.info = {"deck": deck_name, **scene.info, "tilt_deg": 0.0}
    fw, fh = next(iter(faces.values())).size
    row_height = height / len(hands)
    scale = min(0.8 * row_height / fh, 0.95 * width / (6.6 * fw))  # a row of five, gaps included, is at most 6.6 wide
    for row, codes in enumerate(hands):
        hand_table = _affine(width / 2, (row + 0.5) * row_height, rng.normal(0, 2))
        for code, (dx, dy, angle) in zip(codes, _arrangement(rng, "row", fw * scale, fh * scale)):
            _place_face(scene, rng, np.eye(3), faces[code], row, hand_table @ _affine(dx, dy, angle, scale), 0.0,
                        lamp=False)
    scene.hands = [("row", len(codes)) for codes in hands]
    return scene
