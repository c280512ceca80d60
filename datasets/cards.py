"""Card faces drawn by the project's own code: several deck styles, all 52 faces each.

Styles differ in index font, index size, two- or four-colour suits, paper tint, border and
court-card colours, so that a detector learns ranks and suits rather than one deck.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import cv2
import numpy as np

from oxeye.datasets.faces import CARD_SIZE, Face, make_face, rotate_box_180, rounded_mask
from oxeye.vision.classes import CARD_CLASSES

# Suit shapes in unit coordinates (about -0.5 .. 0.5, y down): circles (x, y, r) and polygons.
SUIT_SHAPES: dict[str, tuple[list[tuple[float, float, float]], list[list[tuple[float, float]]]]] = {
    "H": ([(-0.24, -0.2, 0.27), (0.24, -0.2, 0.27)], [[(-0.49, -0.1), (0.49, -0.1), (0.0, 0.5)]]),
    "D": ([], [[(0.0, -0.5), (0.37, 0.0), (0.0, 0.5), (-0.37, 0.0)]]),
    "S": (
        [(-0.24, 0.1, 0.25), (0.24, 0.1, 0.25)],
        [[(-0.48, 0.03), (0.48, 0.03), (0.0, -0.5)], [(0.0, 0.1), (-0.19, 0.5), (0.19, 0.5)]],
    ),
    "C": (
        [(0.0, -0.25, 0.22), (-0.24, 0.08, 0.22), (0.24, 0.08, 0.22), (0.0, 0.02, 0.12)],
        [[(0.0, 0.05), (-0.18, 0.5), (0.18, 0.5)]],
    ),
}

# Pip centres for ranks 2..10 as fractions of the pip area (x, y); y > 0.5 pips are drawn upside down.
PIP_LAYOUTS: dict[str, list[tuple[float, float]]] = {
    "2": [(0.5, 0.0), (0.5, 1.0)],
    "3": [(0.5, 0.0), (0.5, 0.5), (0.5, 1.0)],
    "4": [(0, 0), (1, 0), (0, 1), (1, 1)],
    "5": [(0, 0), (1, 0), (0.5, 0.5), (0, 1), (1, 1)],
    "6": [(0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    "7": [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    "8": [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0.5, 0.75), (0, 1), (1, 1)],
    "9": [(0, 0), (1, 0), (0, 1 / 3), (1, 1 / 3), (0.5, 0.5), (0, 2 / 3), (1, 2 / 3), (0, 1), (1, 1)],
    "10": [(0, 0), (1, 0), (0.5, 1 / 6), (0, 1 / 3), (1, 1 / 3), (0, 2 / 3), (1, 2 / 3), (0.5, 5 / 6), (0, 1), (1, 1)],
}

BLACK, RED = (25, 25, 25), (30, 30, 200)
FOUR_COLOURS = {"S": BLACK, "H": RED, "D": (200, 90, 20), "C": (40, 140, 30)}


@dataclass(frozen=True)
class CardStyle:
    """How one drawn deck looks."""

    name: str
    font: int
    thickness: int
    index_height: float  # rank glyph height as a fraction of the card height
    four_colour: bool
    paper: tuple[int, int, int]
    border: bool
    court_palette: tuple[tuple[int, int, int], ...]  # red, blue and yellow of the court robes
    frame: tuple[int, int, int]  # the thin line around a court portrait


STYLES: tuple[CardStyle, ...] = (
    CardStyle("drawn-classic", cv2.FONT_HERSHEY_SIMPLEX, 5, 0.085, False, (246, 248, 250), False,
              ((40, 40, 200), (200, 110, 30), (40, 200, 240)), (190, 90, 40)),
    CardStyle("drawn-fourcolour", cv2.FONT_HERSHEY_DUPLEX, 7, 0.10, True, (236, 244, 248), True,
              ((60, 60, 170), (150, 90, 40), (70, 170, 210)), (40, 40, 40)),
    CardStyle("drawn-serif", cv2.FONT_HERSHEY_TRIPLEX, 5, 0.075, False, (215, 232, 240), False,
              ((30, 30, 150), (120, 60, 20), (30, 150, 200)), (150, 60, 30)),
    CardStyle("drawn-jumbo", cv2.FONT_HERSHEY_COMPLEX, 9, 0.12, True, (243, 247, 249), True,
              ((50, 50, 210), (190, 120, 40), (60, 190, 230)), (40, 40, 190)),
)

SCALE = 3  # drawn at 3x and reduced, for smooth anti-aliased edges


def _suit(img: np.ndarray, suit: str, cx: float, cy: float, size: float, colour: tuple[int, int, int],
          flip: bool = False) -> None:
    """Draw one suit symbol of height ``size`` centred at (cx, cy) in image pixels."""
    sign = -1.0 if flip else 1.0
    circles, polys = SUIT_SHAPES[suit]
    for x, y, r in circles:
        cv2.circle(img, (round((cx + x * size) * 16), round((cy + sign * y * size) * 16)), round(r * size * 16),
                   colour, -1, cv2.LINE_AA, shift=4)
    pts = [np.array([[(cx + x * size) * 16, (cy + sign * y * size) * 16] for x, y in p], np.int32) for p in polys]
    cv2.fillPoly(img, pts, colour, cv2.LINE_AA, shift=4)


def _text_patch(text: str, style: CardStyle, height: int, max_width: int, colour: tuple[int, int, int]) -> np.ndarray:
    """The rank text drawn tight into a BGRA patch ``height`` pixels tall, squeezed to ``max_width``."""
    (tw, th), base = cv2.getTextSize(text, style.font, 4.0, style.thickness * 2)
    patch = np.zeros((th + base + 20, tw + 20), np.uint8)
    cv2.putText(patch, text, (10, th + 10), style.font, 4.0, 255, style.thickness * 2, cv2.LINE_AA)
    ys, xs = np.nonzero(patch)
    patch = patch[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    width = min(max_width, round(patch.shape[1] * height / patch.shape[0] * (0.75 if len(text) > 1 else 1.0)))
    alpha = cv2.resize(patch, (width, height), interpolation=cv2.INTER_AREA)
    out = np.zeros((height, width, 4), np.uint8)
    out[..., :3] = colour
    out[..., 3] = alpha
    return out


def _paste(img: np.ndarray, patch: np.ndarray, x: int, y: int) -> None:
    """Alpha-blend a BGRA patch onto a BGR image with its top-left at (x, y)."""
    h, w = patch.shape[:2]
    roi = img[y:y + h, x:x + w]
    a = patch[..., 3:4].astype(np.float32) / 255.0
    roi[:] = (roi * (1 - a) + patch[..., :3] * a).astype(np.uint8)


def _outlined(img: np.ndarray, pts: list[tuple[float, float]], fill: tuple[int, int, int], line: int) -> None:
    """A filled polygon with a black outline, in pixel coordinates."""
    poly = np.array(pts, np.int32)
    cv2.fillPoly(img, [poly], fill, cv2.LINE_AA)
    cv2.polylines(img, [poly], True, BLACK, line, cv2.LINE_AA)


def _robe(half: np.ndarray, rng: np.random.Generator, palette: tuple[tuple[int, int, int], ...], line: int) -> None:
    """The figure's shoulders and robe: two coloured panels, a patterned band, a collar, all outlined."""
    hh, w = half.shape[:2]
    red, blue, yellow = palette
    left, right = (red, blue) if rng.random() < 0.5 else (blue, red)
    _outlined(half, [(0, hh * 0.55), (w * 0.5, hh * 0.48), (w * 0.5, hh), (0, hh)], left, line)
    _outlined(half, [(w * 0.5, hh * 0.48), (w, hh * 0.55), (w, hh), (w * 0.5, hh)], right, line)
    band = [(w * 0.4, hh * 0.5), (w * 0.6, hh * 0.5), (w * 0.66, hh), (w * 0.34, hh)]
    _outlined(half, band, yellow, line)
    for i in range(8):  # lattice of lozenges down the band
        cy, cx = hh * (0.56 + 0.055 * i), w * 0.5
        d = w * 0.05
        _outlined(half, [(cx, cy - d), (cx + d, cy), (cx, cy + d), (cx - d, cy)], (red, blue)[i % 2], max(1, line // 2))
    step = int(w * rng.uniform(0.05, 0.08))
    for y in range(int(hh * 0.62), hh, step):  # stripes and ermine dots on the panels
        cv2.line(half, (0, y), (int(w * 0.36), y + int(w * 0.03)), yellow, max(2, line), cv2.LINE_AA)
        for x in range(int(w * 0.7), w, step * 2):
            cv2.circle(half, (x, y + step // 2), max(2, step // 5), BLACK, -1, cv2.LINE_AA)
    collar = [(w * (0.28 + 0.44 * t), hh * (0.52 + 0.06 * np.sin(np.pi * t))) for t in np.linspace(0, 1, 9)]
    _outlined(half, collar + [(w * 0.72, hh * 0.47), (w * 0.28, hh * 0.47)], yellow, line)


def _head(half: np.ndarray, rng: np.random.Generator, rank: str, palette: tuple[tuple[int, int, int], ...],
          line: int) -> None:
    """Hair, face with eyes, nose and mouth, a beard for kings, and the rank's crown or cap."""
    hh, w = half.shape[:2]
    red, blue, yellow = palette
    cx, cy, r = w * 0.5, hh * 0.33, w * 0.14
    hair = ((40, 70, 120), (30, 30, 30), (60, 170, 220))[rng.integers(3)]
    _outlined(half, [(cx - r * 1.5, cy + r * 1.6), (cx - r * 1.3, cy - r * 0.6), (cx + r * 1.3, cy - r * 0.6),
                     (cx + r * 1.5, cy + r * 1.6)], hair, line)
    face = (150, 185, 230)
    cv2.ellipse(half, (int(cx), int(cy)), (int(r), int(r * 1.25)), 0, 0, 360, face, -1, cv2.LINE_AA)
    cv2.ellipse(half, (int(cx), int(cy)), (int(r), int(r * 1.25)), 0, 0, 360, BLACK, line, cv2.LINE_AA)
    for ex in (-0.4, 0.4):
        cv2.ellipse(half, (int(cx + ex * r), int(cy - 0.1 * r)), (int(r * 0.22), int(r * 0.1)), 0, 0, 360, BLACK,
                    max(1, line // 2), cv2.LINE_AA)
        cv2.circle(half, (int(cx + ex * r), int(cy - 0.1 * r)), max(1, int(r * 0.07)), blue, -1, cv2.LINE_AA)
    cv2.line(half, (int(cx), int(cy - 0.05 * r)), (int(cx - 0.15 * r), int(cy + 0.35 * r)), BLACK, max(1, line // 2), cv2.LINE_AA)
    cv2.ellipse(half, (int(cx), int(cy + 0.6 * r)), (int(r * 0.3), int(r * 0.1)), 0, 0, 180, (40, 40, 170), line, cv2.LINE_AA)
    if rank == "K":
        _outlined(half, [(cx - r, cy + 0.5 * r), (cx, cy + 1.9 * r), (cx + r, cy + 0.5 * r), (cx, cy + 0.9 * r)], hair, line)
    top = cy - r * 1.2
    crown = {"K": [(-1, 0), (-1, -1.1), (-0.5, -0.5), (0, -1.3), (0.5, -0.5), (1, -1.1), (1, 0)],
             "Q": [(-1.05, 0), (-0.8, -0.9), (-0.35, -0.5), (0, -1.1), (0.35, -0.5), (0.8, -0.9), (1.05, 0)],
             "J": [(-1.1, 0), (-0.9, -0.8), (0.6, -1.0), (1.6, -0.6), (1.1, 0)]}[rank]
    _outlined(half, [(cx + x * r, top + y * r * 0.9) for x, y in crown], yellow, line)
    for x in np.linspace(-0.6, 0.6, 4):  # jewels on the band
        cv2.circle(half, (int(cx + x * r), int(top - 0.2 * r)), max(2, int(r * 0.1)), (red, blue)[int(x > 0)], -1, cv2.LINE_AA)


def _court(img: np.ndarray, rank: str, suit: str, style: CardStyle, colour: tuple[int, int, int],
           box: tuple[int, int, int, int]) -> None:
    """A busy double-headed court portrait inside a thin frame: robe, head and crown, a sceptre or blade and the
    suit, drawn for one half and turned for the other, the halves parted by a slanting line as on real cards."""
    x1, y1, x2, y2 = box
    w, hh = x2 - x1, (y2 - y1) // 2
    rng = np.random.default_rng(zlib.crc32(f"{style.name}{rank}{suit}".encode()))  # same figure every run
    line = max(2, w // 90)
    slant = int(w * 0.12)
    half = np.full((hh + slant, w, 3), style.paper, np.uint8)
    _robe(half, rng, style.court_palette, line)
    _head(half, rng, rank, style.court_palette, line)
    held = int(w * (0.82 if rng.random() < 0.5 else 0.16))  # sceptre, sword or flower in one hand
    cv2.line(half, (held, int(hh * 0.1)), (held, hh + slant), (60, 60, 60), max(3, w // 35), cv2.LINE_AA)
    cv2.circle(half, (held, int(hh * 0.1)), max(4, w // 25), style.court_palette[2], -1, cv2.LINE_AA)
    cv2.circle(half, (held, int(hh * 0.1)), max(4, w // 25), BLACK, line, cv2.LINE_AA)
    sx = w * 0.2 if held > w / 2 else w * 0.8
    _suit(half, suit, sx, hh * 0.2, w * 0.22, colour)
    yy, xx = np.mgrid[0:2 * hh, 0:w]
    split = yy < hh + slant * (xx / w - 0.5) * 2
    turned = half[::-1, ::-1]
    full = np.where(split[..., None], half[np.minimum(yy, hh + slant - 1), xx],
                    turned[np.clip(yy - (hh - slant), 0, hh + slant - 1), xx])
    img[y1:y1 + 2 * hh, x1:x2] = full
    cv2.line(img, (x1, y1 + hh - slant), (x2, y1 + hh + slant), BLACK, line, cv2.LINE_AA)
    cv2.rectangle(img, (x1, y1), (x2, y1 + 2 * hh), style.frame, max(3, w // 70), cv2.LINE_AA)


def draw_card(code: str, style: CardStyle) -> Face:
    """Draw one card face in ``style``: corner indices, pips or court figure, rounded outline."""
    rank, suit = code[:-1], code[-1]
    width, height = CARD_SIZE[0] * SCALE, CARD_SIZE[1] * SCALE
    img = np.empty((height, width, 3), np.uint8)
    img[:] = style.paper
    colour = FOUR_COLOURS[suit] if style.four_colour else (RED if suit in "HD" else BLACK)
    if style.border:
        m = int(width * 0.04)
        cv2.rectangle(img, (m, m), (width - m, height - m), (200, 200, 200), SCALE * 2, cv2.LINE_AA)
    # Corner index: rank above suit, near the top-left corner; the same turned at bottom-right.
    text_h = int(height * style.index_height)
    text = _text_patch(rank, style, text_h, int(width * 0.15), colour)
    ix, iy = int(width * 0.045), int(height * 0.04)
    suit_h = text_h * 0.75
    suit_cx = ix + max(text.shape[1], suit_h * 0.8) / 2
    index = np.zeros((int(iy + text_h * 1.15 + suit_h), int(ix + max(text.shape[1], suit_h) + 2), 4), np.uint8)
    index[..., :3] = colour
    alpha = np.zeros(index.shape[:2], np.uint8)
    alpha[iy:iy + text_h, int(suit_cx - text.shape[1] / 2):int(suit_cx - text.shape[1] / 2) + text.shape[1]] = text[..., 3]
    _suit(alpha, suit, suit_cx, iy + text_h * 1.15 + suit_h / 2, suit_h, 255)
    index[..., 3] = alpha
    _paste(img, index, 0, 0)
    turned = index[::-1, ::-1]
    _paste(img, turned, width - turned.shape[1], height - turned.shape[0])
    ys, xs = np.nonzero(alpha)
    box = (xs.min() / SCALE, ys.min() / SCALE, (xs.max() + 1) / SCALE, (ys.max() + 1) / SCALE)
    # Centre: pips, a big ace, or a court figure, inside the area the indices leave free.
    left, right = width * 0.31, width * 0.69
    top, bottom = height * 0.17, height * 0.83
    if rank in PIP_LAYOUTS:
        pip = width * 0.19
        for fx, fy in PIP_LAYOUTS[rank]:
            _suit(img, suit, left + fx * (right - left), top + fy * (bottom - top), pip, colour, flip=fy > 0.5)
    elif rank == "A":
        _suit(img, suit, width / 2, height / 2, width * (0.5 if suit == "S" else 0.3), colour)
    else:
        m = int(width * 0.2)
        _court(img, rank, suit, style, colour, (m, int(height * 0.12), width - m, int(height * 0.88)))
    img = cv2.resize(img, CARD_SIZE, interpolation=cv2.INTER_AREA)
    mask = rounded_mask(*CARD_SIZE, radius=CARD_SIZE[0] * 0.06)
    rim = cv2.erode(mask, np.ones((3, 3), np.uint8)) < 250  # a thin grey edge where the card's cut side shows
    img[rim] = (img[rim] * 0.75).astype(np.uint8)
    bgra = np.dstack([img, mask])
    return make_face(code, bgra, [box, rotate_box_180(box, *CARD_SIZE)], glossy=True)


def drawn_decks() -> dict[str, dict[str, Face]]:
    """Every drawn deck style, each a mapping from card code to its face."""
    return {style.name: {code: draw_card(code, style) for code in CARD_CLASSES} for style in STYLES}


def draw_back(colour: tuple[int, int, int], pattern: int) -> np.ndarray:
    """A card back (BGRA): white margin, coloured field with a diagonal lattice; a distractor."""
    w, h = CARD_SIZE
    img = np.full((h, w, 3), 245, np.uint8)
    m = int(w * 0.07)
    cv2.rectangle(img, (m, m), (w - m, h - m), colour, -1)
    light = tuple(min(255, c + 90) for c in colour)
    step = 10 + 4 * pattern
    for d in range(-h, w + h, step):
        cv2.line(img, (d, 0), (d + h, h), light, 2, cv2.LINE_AA)
        cv2.line(img, (d, h), (d + h, 0), light, 2, cv2.LINE_AA)
    img[:m], img[-m:], img[:, :m], img[:, -m:] = 245, 245, 245, 245
    cv2.rectangle(img, (m, m), (w - m, h - m), colour, 3, cv2.LINE_AA)
    return np.dstack([img, rounded_mask(w, h, w * 0.06)])
