"""Table textures in table-plane coordinates: felt, wood, cloth, carpet and cluttered tops.

Textures are made at low resolution from smooth noise and stripes, then enlarged; the
scene warps them with the camera's homography so that grain and weave recede with the table.
"""

from __future__ import annotations

import cv2
import numpy as np

KINDS = ("felt", "wood", "cloth", "carpet", "cluttered")


def smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cells: int) -> np.ndarray:
    """Noise in [-1, 1] that varies over about ``cells`` blobs across, enlarged with cubic interpolation."""
    h, w = shape
    coarse = rng.uniform(-1, 1, (max(2, cells * h // w), max(2, cells))).astype(np.float32)
    return cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC)


def _felt(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    base = np.array([(40, 110, 30), (90, 60, 20), (30, 30, 120), (60, 70, 60), (70, 90, 30)][rng.integers(5)], np.float32)
    tone = 1 + 0.12 * smooth_noise(rng, shape, 4) + 0.06 * rng.standard_normal(shape, np.float32)
    return base * tone[..., None]


def _wood(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    h, w = shape
    dark = np.array([(20, 40, 70), (30, 60, 110), (15, 25, 40), (60, 100, 150), (35, 45, 60)][rng.integers(5)], np.float32)
    light = dark * rng.uniform(1.4, 2.0)
    yy = np.arange(h, dtype=np.float32)[:, None]
    warp = 6 * smooth_noise(rng, shape, 2) + 1.5 * smooth_noise(rng, shape, 8)
    freq = rng.uniform(0.15, 0.5)
    grain = 0.5 + 0.5 * np.sin((yy + warp) * freq + 0.5 * smooth_noise(rng, shape, 30) * 3)
    grain = grain ** rng.uniform(1, 3)
    plank = (np.floor((yy + warp * 0.1) / rng.uniform(40, 90)) % 2) * rng.uniform(0, 0.15)
    streaks = cv2.resize(rng.standard_normal((h, max(2, w // 24)), np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    t = np.clip(grain * 0.7 + plank + 0.12 * streaks + 0.04 * rng.standard_normal(shape, np.float32), 0, 1)[..., None]
    return dark * (1 - t) + light * t


def _cloth(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    h, w = shape
    c1 = rng.uniform(60, 240, 3).astype(np.float32)
    c2 = c1 * rng.uniform(0.55, 0.85) + rng.uniform(-20, 20, 3).astype(np.float32)
    period = rng.uniform(10, 40)
    yy, xx = np.arange(h, dtype=np.float32)[:, None], np.arange(w, dtype=np.float32)[None, :]
    stripes = ((np.floor(xx / period) + np.floor(yy / period) * rng.integers(0, 2)) % 2)[..., None]
    weave = 1 + 0.07 * (np.sin(yy * 2.2) * np.sin(xx * 2.2))[..., None]
    folds = 1 + 0.12 * smooth_noise(rng, shape, 3)[..., None]
    return (c1 * (1 - stripes) + c2 * stripes) * weave * folds


def _carpet(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    base = rng.uniform(60, 200, 3).astype(np.float32)
    speckle = cv2.GaussianBlur(rng.standard_normal(shape, np.float32), (3, 3), 0.8)
    tone = 1 + 0.3 * speckle + 0.08 * smooth_noise(rng, shape, 5)
    return base * tone[..., None]


def _cluttered(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    img = _wood(rng, shape) if rng.random() < 0.5 else _cloth(rng, shape)
    h, w = shape
    for _ in range(rng.integers(3, 9)):
        colour = tuple(float(c) for c in rng.uniform(20, 240, 3))
        x, y = int(rng.uniform(0, w)), int(rng.uniform(0, h))
        kind = rng.integers(3)
        if kind == 0:  # book, phone, box
            box = cv2.boxPoints(((x, y), (rng.uniform(30, 160), rng.uniform(30, 160)), rng.uniform(0, 180)))
            cv2.fillConvexPoly(img, box.astype(np.int32), colour, cv2.LINE_AA)
            cv2.polylines(img, [box.astype(np.int32)], True, tuple(c * 0.6 for c in colour), 2, cv2.LINE_AA)
        elif kind == 1:  # cup or glass seen from above
            r = int(rng.uniform(15, 45))
            cv2.circle(img, (x, y), r, colour, -1, cv2.LINE_AA)
            cv2.circle(img, (x, y), int(r * 0.8), tuple(c * 0.5 for c in colour), -1, cv2.LINE_AA)
        else:  # cable
            pts = np.cumsum(rng.normal(0, 25, (8, 2)), axis=0) + (x, y)
            cv2.polylines(img, [pts.astype(np.int32)], False, (20, 20, 20), int(rng.integers(2, 6)), cv2.LINE_AA)
    return img


def table_texture(rng: np.random.Generator, shape: tuple[int, int], kind: str) -> np.ndarray:
    """A float32 BGR table texture of ``shape`` (height, width) and the given kind."""
    maker = {"felt": _felt, "wood": _wood, "cloth": _cloth, "carpet": _carpet, "cluttered": _cluttered}[kind]
    return np.clip(maker(rng, shape), 0, 255).astype(np.uint8)
