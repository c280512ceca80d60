"""Chinese domino faces drawn with the real pip layouts, colours, engraving and sheen.

1 and 4 pips are red; the 6-6 has one column of each half red; other pips are white on
black tiles or black on ivory tiles. The "index boxes" of a tile are its two halves.
"""

from __future__ import annotations

import cv2
import numpy as np

from oxeye.datasets.faces import TILE_SIZE, Face, make_face, rounded_mask
from oxeye.vision.classes import TILE_CLASSES

# Pip centres within one half, (x, y) as fractions, y measured from the tile's outer end.
HALF_LAYOUTS: dict[int, list[tuple[float, float]]] = {
    1: [(0.5, 0.48)],
    2: [(0.3, 0.36), (0.7, 0.36)],
    3: [(0.25, 0.22), (0.5, 0.5), (0.75, 0.78)],
    4: [(0.29, 0.3), (0.71, 0.3), (0.29, 0.72), (0.71, 0.72)],
    5: [(0.25, 0.22), (0.75, 0.22), (0.5, 0.5), (0.25, 0.78), (0.75, 0.78)],
    6: [(0.3, 0.17), (0.7, 0.17), (0.3, 0.5), (0.7, 0.5), (0.3, 0.83), (0.7, 0.83)],
}
# The 3-3 ("long three") is drawn apart: each three runs down the middle from its end and its last
# pip steps aside at the centre line, so the tile shows five rows (measured on the real set in
# ../shared/real/dominoes-reference, where a diagonal 3-3 made the model read 6-6).
LONG_THREE = [(0.5, 0.23), (0.5, 0.61), (0.3, 1.0)]
# The real set puts its ones, twos and fours toward the tile's end, the fours in a tight square
# (measured on the same photos, where a 4-1 read 1-1); the other numbers fill their half as above.
END_LAYOUTS = {
    1: [(0.5, 0.24)],
    2: [(0.3, 0.24), (0.7, 0.24)],
    4: [(0.31, 0.22), (0.69, 0.22), (0.31, 0.55), (0.69, 0.55)],
}
RED_PIP = (45, 35, 200)
BODIES = {  # body colour, ordinary pip colour
    "black": ((28, 26, 26), (235, 238, 240)),
    "ivory": ((200, 228, 238), (30, 30, 30)),
}
SCALE = 4
# Pip size varies between sets: the real black set's white pips are about 1.5x the default's across
# and its red ones 1.2x (measured by eye on ../shared/real/dominoes-reference); 1.4 is the most a
# half of six takes with its pips still apart. Set name: (body, pip scale, low numbers toward the end).
TILE_SETS = {"tiles-black": ("black", 1.0, False), "tiles-black-bold": ("black", 1.4, True),
             "tiles-ivory": ("ivory", 1.0, False)}


def _pip(img: np.ndarray, cx: float, cy: float, r: float, colour: tuple[int, int, int]) -> None:
    """An engraved pip: dark rim of the recess, the paint, and a small highlight."""
    rim = tuple(int(c * 0.35) for c in colour)
    centre = (round(cx * 16), round(cy * 16))
    cv2.circle(img, centre, round(r * 1.08 * 16), rim, -1, cv2.LINE_AA, shift=4)
    cv2.circle(img, (round(cx * 16), round((cy + r * 0.08) * 16)), round(r * 16), colour, -1, cv2.LINE_AA, shift=4)
    light = tuple(min(255, int(c * 0.8 + 50)) for c in colour)
    cv2.circle(img, (round((cx - r * 0.35) * 16), round((cy - r * 0.35) * 16)), round(r * 0.22 * 16), light, -1,
               cv2.LINE_AA, shift=4)


def draw_tile(code: str, body: str, pip_scale: float = 1.0, toward_ends: bool = False) -> Face:
    """Draw one tile face: rounded body with bevel and sheen, engraved pips on both halves; the
    ordinary pips ``pip_scale`` times the default size, the red 1s and 4s part of the way there;
    with ``toward_ends``, 1s, 2s and 4s laid out as the real set lays them."""
    top, bottom = (int(n) for n in code.split("-"))
    width, height = TILE_SIZE[0] * SCALE, TILE_SIZE[1] * SCALE
    body_colour, pip_colour = BODIES[body]
    # Sheen: a soft diagonal light band over the body, and a lighter bevel at the edge.
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    band = np.exp(-(((xx / width) * 0.9 + (yy / height) * 0.5 - 0.55) / 0.18) ** 2)
    shade = 1.0 - 0.1 * (yy / height)
    img = np.clip(np.array(body_colour, np.float32) * shade[..., None] + 24 * band[..., None], 0, 255).astype(np.uint8)
    edge = cv2.erode(rounded_mask(width, height, width * 0.14), np.ones((3 * SCALE, 3 * SCALE), np.uint8))
    bevel = tuple(min(255, int(c * 1.25 + 25)) for c in body_colour)
    img[edge < 128] = bevel
    half_h = height / 2
    pip_r = {1: 0.16, 4: 0.13}.get
    layouts = {**HALF_LAYOUTS, **END_LAYOUTS} if toward_ends else HALF_LAYOUTS
    for n, flip in ((top, False), (bottom, True)):
        for fx, fy in LONG_THREE if top == bottom == 3 else layouts[n]:
            cx = width * (1 - fx if flip else fx)
            cy = height - fy * half_h if flip else fy * half_h
            red = n in (1, 4) or (top == bottom == 6 and fx < 0.5)
            r = width * (pip_r(n) or 0.105) * (1.0 if n != 1 else 1.15)
            r *= 1 + (pip_scale - 1) * (0.4 if n in (1, 4) else 1.0)
            _pip(img, cx, cy, r, RED_PIP if red else pip_colour)
    img = cv2.resize(img, TILE_SIZE, interpolation=cv2.INTER_AREA)
    mask = rounded_mask(*TILE_SIZE, radius=TILE_SIZE[0] * 0.14)
    w, h = TILE_SIZE
    halves = [(0.0, 0.0, float(w), h / 2), (0.0, h / 2, float(w), float(h))]
    return make_face(code, np.dstack([img, mask]), halves, glossy=body == "black")


def tile_sets() -> dict[str, dict[str, Face]]:
    """Black tiles drawn two ways (the second as the real set looks), and ivory tiles, each a mapping
    from tile code to its face."""
    return {name: {code: draw_tile(code, body, scale, ends) for code in TILE_CLASSES}
            for name, (body, scale, ends) in TILE_SETS.items()}


def tile_back(body: str) -> np.ndarray:
    """A face-down tile (BGRA): the plain body with its bevel; a distractor."""
    width, height = TILE_SIZE
    body_colour = BODIES[body][0]
    img = np.empty((height, width, 3), np.uint8)
    img[:] = body_colour
    edge = cv2.erode(rounded_mask(width, height, width * 0.14), np.ones((3, 3), np.uint8))
    img[edge < 128] = tuple(min(255, int(c * 1.25 + 25)) for c in body_colour)
    return np.dstack([img, rounded_mask(width, height, width * 0.14)])
