"""Things on the table that are not labelled: chips, dice, card backs and face-down tiles, and fingers."""

from __future__ import annotations

import cv2
import numpy as np

from oxeye.datasets.cards import draw_back
from oxeye.datasets.faces import rounded_mask
from oxeye.datasets.tiles import BODIES, tile_back

SKIN_TONES = ((120, 160, 220), (95, 135, 200), (70, 105, 165), (50, 75, 120), (140, 175, 230))


def _chip(colour: tuple[int, int, int]) -> np.ndarray:
    """A casino chip seen from above (BGRA): coloured disc, white edge spots, inner ring."""
    size = 96
    img = np.zeros((size, size, 3), np.uint8)
    c = size // 2
    cv2.circle(img, (c, c), c - 1, colour, -1, cv2.LINE_AA)
    for k in range(6):
        a = k * np.pi / 3
        p = (int(c + 0.8 * c * np.cos(a)), int(c + 0.8 * c * np.sin(a)))
        cv2.circle(img, p, size // 12, (240, 240, 240), -1, cv2.LINE_AA)
    cv2.circle(img, (c, c), int(c * 0.55), (235, 235, 235), 2, cv2.LINE_AA)
    mask = np.zeros((size, size), np.uint8)
    cv2.circle(mask, (c, c), c - 1, 255, -1, cv2.LINE_AA)
    return np.dstack([img, mask])


def _die(pips: int) -> np.ndarray:
    """A white die seen from above (BGRA) showing ``pips``."""
    size = 64
    img = np.full((size, size, 3), 235, np.uint8)
    spots = {1: [(0.5, 0.5)], 2: [(0.25, 0.25), (0.75, 0.75)], 3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
             4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
             5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
             6: [(0.25, 0.22), (0.75, 0.22), (0.25, 0.5), (0.75, 0.5), (0.25, 0.78), (0.75, 0.78)]}[pips]
    for x, y in spots:
        cv2.circle(img, (int(x * size), int(y * size)), size // 11, (30, 30, 30) if pips != 1 else (40, 40, 200), -1, cv2.LINE_AA)
    return np.dstack([img, rounded_mask(size, size, size * 0.2)])


def prop_textures() -> dict[str, list[np.ndarray]]:
    """Every distractor texture by family, made once per worker."""
    chip_colours = ((40, 40, 190), (180, 80, 20), (30, 30, 30), (40, 150, 40), (240, 240, 240))
    return {
        "chip": [_chip(c) for c in chip_colours],
        "die": [_die(n) for n in range(1, 7)],
        "card_back": [draw_back(c, p) for c, p in (((40, 40, 170), 0), ((150, 60, 20), 1), ((50, 50, 50), 2))],
        "tile_back": [tile_back(body) for body in BODIES],
    }


def draw_finger(img: np.ndarray, idmap: np.ndarray, base: np.ndarray, tip: np.ndarray, width: float,
                skin: tuple[int, int, int], rng: np.random.Generator) -> None:
    """Paint a finger from ``base`` to ``tip`` (image pixels): rounded shading, blotchy skin, knuckle creases,
    a nail and a soft shadow; it hides what is under it."""
    h, w = idmap.shape
    pad = int(width) + 8
    x0, y0 = int(max(0, min(base[0], tip[0]) - pad)), int(max(0, min(base[1], tip[1]) - pad))
    x1, y1 = int(min(w, max(base[0], tip[0]) + pad)), int(min(h, max(base[1], tip[1]) + pad))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return
    p0, p1 = np.subtract(base, (x0, y0)), np.subtract(tip, (x0, y0))
    length = max(1e-3, float(np.hypot(*(p1 - p0))))
    direction = (p1 - p0) / length
    yy, xx = np.mgrid[0:y1 - y0, 0:x1 - x0].astype(np.float32)
    along = (xx - p0[0]) * direction[0] + (yy - p0[1]) * direction[1]  # distance along the finger
    half = width / 2 * (1 - 0.25 * np.clip(along / length, 0, 1))  # tapering towards the tip
    across = ((xx - p0[0]) * -direction[1] + (yy - p0[1]) * direction[0]) / half  # -1 .. 1 over its width
    end = np.maximum(0, along - length) / (width * 0.375)  # the rounded tip
    radial = np.sqrt(across ** 2 + end ** 2)
    mask = np.clip((1 - radial) * width / 2, 0, 1) * (along > -width)
    shade = 0.6 + 0.5 * np.sqrt(np.clip(1 - radial ** 2, 0, 1)) + 0.1 * across  # a cylinder lit from one side
    tone = np.array(skin, np.float32) * rng.uniform(0.85, 1.15, 3).astype(np.float32)
    blotch = 1 + 0.05 * cv2.GaussianBlur(rng.standard_normal(mask.shape).astype(np.float32), (0, 0), 2)
    pores = 1 + 0.03 * cv2.GaussianBlur(rng.standard_normal(mask.shape).astype(np.float32), (0, 0), 0.6)
    colour = tone * (shade * blotch * pores)[..., None]
    for k in rng.uniform(0.35, 0.75, 2) * length:  # knuckle creases across the finger
        crease = np.exp(-((along - k) / max(1.0, width * 0.09)) ** 2) * np.clip(1 - across ** 2, 0, 1)
        colour *= 1 - 0.18 * crease[..., None]
    nail = (np.abs(across) < 0.55) & (along > length - width * 0.55) & (radial < 0.8)
    colour[nail] = colour[nail] * 0.6 + np.float32((200, 205, 235)) * 0.45
    glint = nail & (np.abs(across + 0.2) < 0.15) & (along < length + width * 0.1)  # the nail's lit ridge
    colour[glint] = colour[glint] * 0.5 + 120
    shadow = cv2.GaussianBlur(cv2.warpAffine(mask, np.float32([[1, 0, width * 0.15], [0, 1, width * 0.2]]),
                                             mask.shape[::-1]), (0, 0), max(1.0, width * 0.15))
    roi = img[y0:y1, x0:x1].astype(np.float32) * (1 - 0.45 * shadow[..., None])
    a = mask[..., None]
    img[y0:y1, x0:x1] = np.clip(roi * (1 - a) + colour * a, 0, 255).astype(np.uint8)
    idmap[y0:y1, x0:x1][mask > 0.5] = -1
