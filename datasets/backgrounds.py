"""Table textures in table-plane coordinates: carpet, wood, felt, cloth, laminate, stone and cluttered tops.

Real tables are busy at several scales at once, so every texture is built from multi-octave
noise (fractal sums of smooth noise), wood from domain-warped stripes with knots, and each
gets a soft lighting falloff. Textures are made at low resolution and the scene warps them
with the camera's homography, so that grain and weave recede with the table.
"""

from __future__ import annotations

import cv2
import numpy as np

KINDS = ("carpet", "wood", "felt", "cloth", "laminate", "stone", "cluttered", "checks")
KIND_WEIGHTS = np.array([6, 6, 2, 3, 3, 2, 2, 0.4]) / 24.4  # carpet and wood as in real photos; checks rare

# Household colours (BGR): beige and brown carpets, wood from blond to walnut, cloth and laminate.
CARPETS = ((120, 150, 170), (80, 110, 140), (60, 90, 120), (130, 140, 145), (90, 95, 100), (70, 60, 60))
WOODS = ((40, 80, 140), (30, 55, 100), (20, 35, 60), (70, 110, 160), (35, 60, 95), (25, 40, 70))
CLOTHS = ((90, 50, 40), (40, 40, 45), (60, 110, 40), (140, 150, 160), (50, 40, 110), (150, 120, 90))
LAMINATES = ((170, 185, 195), (150, 160, 165), (200, 205, 210), (120, 150, 180), (90, 100, 105))


def smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cells: int) -> np.ndarray:
    """Noise in about [-1, 1] that varies over about ``cells`` blobs across, enlarged with cubic interpolation."""
    h, w = shape
    coarse = rng.uniform(-1, 1, (max(2, cells * h // w), max(2, cells))).astype(np.float32)
    return cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC)


def fractal(rng: np.random.Generator, shape: tuple[int, int], cells: int, octaves: int,
            persistence: float = 0.55) -> np.ndarray:
    """Multi-octave noise, normalised to unit standard deviation: blobs of ``cells`` across and finer ones."""
    out = np.zeros(shape, np.float32)
    amp = 1.0
    for o in range(octaves):
        out += amp * smooth_noise(rng, shape, cells * 2 ** o)
        amp *= persistence
    return out / max(1e-6, float(out.std()))


def _grain(rng: np.random.Generator, shape: tuple[int, int], sigma: float) -> np.ndarray:
    """Per-texel noise blurred by ``sigma`` texels, unit standard deviation: fibres, flecks, tufts."""
    noise = np.empty(shape, np.float32)
    cv2.setRNGSeed(int(rng.integers(2**31)))  # OpenCV's generator is several times faster than numpy's
    cv2.randn(noise, 0.0, 1.0)
    noise = cv2.GaussianBlur(noise, (0, 0), sigma)
    return noise / max(1e-6, float(noise.std()))


def _tint(rng: np.random.Generator, palette: tuple[tuple[int, int, int], ...], spread: float) -> np.ndarray:
    """One palette colour with a random shift, so that no two tables are quite the same."""
    base = np.array(palette[rng.integers(len(palette))], np.float32)
    return base * rng.uniform(1 - spread, 1 + spread) + rng.normal(0, 8, 3).astype(np.float32)


def _carpet(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    base = _tint(rng, CARPETS, 0.2)
    tufts = 0.6 * _grain(rng, shape, 0.7) + 0.4 * _grain(rng, shape, 1.6)
    tone = 1 + rng.uniform(0.18, 0.3) * tufts + 0.06 * fractal(rng, shape, 3, 3)
    fleck = _grain(rng, shape, 1.0)[..., None] * rng.uniform(5, 14, 3).astype(np.float32)  # mixed-colour yarns
    return base * tone[..., None] + fleck


def _growth_profile(rng: np.random.Generator, n: int) -> np.ndarray:
    """Tone along the across-grain axis, ``n`` samples at 4 per texel: irregular growth rings and fine lines."""
    rate = np.exp(0.5 * cv2.resize(rng.standard_normal((max(2, n // 200), 1)).astype(np.float32), (1, n),
                                   interpolation=cv2.INTER_CUBIC)[:, 0])
    phase = np.cumsum(rate) / (4 * rng.uniform(8, 30))  # rings of varying width, a few tens of texels apart
    rings = (phase % 1) ** rng.uniform(2, 6)  # light earlywood, then a sharp dark latewood edge
    lines = np.zeros(n, np.float32)
    gaps = rng.gamma(1.5, 4 * rng.uniform(1.5, 4), n // 4)  # fine lines at irregular spacing
    spots = np.cumsum(gaps).astype(np.int64)
    spots = spots[spots < n]
    for sigma in (2.0, 4.0, 8.0):  # three widths of line, each with its own contrast per line
        pick = spots[rng.random(len(spots)) < 0.4]
        delta = np.zeros((n, 1), np.float32)
        delta[pick, 0] = rng.exponential(1.0, len(pick)) * sigma
        lines += cv2.GaussianBlur(delta, (1, 0), sigma)[:, 0] / sigma
    lines /= max(1e-6, float(np.percentile(lines, 97)))  # the bold lines clip, the faint ones still show
    figure = np.tanh(2 * cv2.resize(rng.standard_normal((max(2, n // 300), 1)).astype(np.float32), (1, n),
                                    interpolation=cv2.INTER_CUBIC)[:, 0])  # broad darker and lighter streaks
    return (0.25 * figure + rings * rng.uniform(0.4, 0.8) + np.clip(lines, 0, 1) * rng.uniform(0.4, 0.9)).astype(np.float32)


def _wood(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    h, w = shape
    dark = np.array(WOODS[rng.integers(len(WOODS))], np.float32) * rng.uniform(0.85, 1.15)  # no colour noise:
    light = dark * rng.uniform(1.5, 2.4) + np.float32((0, 8, 20)) * rng.uniform(0, 1)  # woods stay warm browns
    yy = np.arange(h, dtype=np.float32)[:, None]
    xx = np.arange(w, dtype=np.float32)[None, :]
    warp = h * (0.06 * smooth_noise(rng, shape, 2) + 0.01 * smooth_noise(rng, shape, 5))
    warp = cv2.resize(cv2.resize(warp, (max(2, int(w * rng.uniform(0.1, 0.3))), h)), (w, h))  # grain runs along x
    v = yy + warp
    for _ in range(rng.integers(0, 3)):  # cathedral arches: grain near a line bulges, nested peaks
        cx, cy, span, band = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.1, 0.4) * w, rng.uniform(0.1, 0.3) * h
        v = v + rng.uniform(0.1, 0.3) * h * np.exp(-((yy - cy) / band) ** 2) / (1 + ((xx - cx) / span) ** 2)
    for _ in range(rng.integers(0, 3)):  # knots: lines bend around a point that has a dark core
        kx, ky, kr = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(4, 14)
        d2 = ((xx - kx) / 2.5) ** 2 + (yy - ky) ** 2
        v = v + 2.5 * kr * np.exp(-d2 / (kr * kr * 6)) * np.sign(yy - ky)
    boards = rng.random() < 0.6  # boards side by side: straight seams, each board cut from elsewhere
    plank = ((yy + rng.uniform(0, 200)) // rng.uniform(60, 200)).astype(np.int64) if boards else np.zeros((h, 1), np.int64)
    v = v + rng.uniform(0, 2000, int(plank.max()) + 1).astype(np.float32)[plank]
    v = v - float(v.min())
    profile = _growth_profile(rng, int(float(v.max()) * 4) + 8)
    t = np.interp(v * 4, np.arange(len(profile), dtype=np.float32), profile).astype(np.float32)
    fade = cv2.resize(smooth_noise(rng, (max(4, h // 6), 3), 3), (w, h), interpolation=cv2.INTER_CUBIC)
    t = t * (0.75 + 0.25 * fade)  # lines fade in and out along their length
    fibres = cv2.resize(rng.standard_normal((h, max(2, w // 30))).astype(np.float32), (w, h))
    t = np.clip(1 - t + 0.06 * fibres + 0.04 * _grain(rng, shape, 0.6), 0, 1)
    if boards:
        t = t * rng.uniform(0.85, 1.15, int(plank.max()) + 1).astype(np.float32)[plank]  # each board its own tone
        seam = cv2.GaussianBlur((np.diff(plank, axis=0, prepend=plank[:1]) != 0).astype(np.float32), (1, 0), 0.8)
        t = t * (1 - 0.8 * seam / max(1e-6, float(seam.max())))
    out = dark * (1 - t[..., None]) + light * t[..., None]
    sheen = np.exp(-((xx - rng.uniform(0, w)) ** 2 / (0.3 * w) ** 2 + (yy - rng.uniform(0, h)) ** 2 / (0.2 * h) ** 2))
    return out + rng.uniform(0, 60) * sheen[..., None]  # varnish: a broad soft reflection of the room light


def _felt(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    base = np.array([(40, 110, 30), (90, 60, 20), (30, 30, 120), (60, 70, 60), (70, 90, 30)][rng.integers(5)],
                    np.float32) * rng.uniform(0.8, 1.2)
    tone = 1 + 0.08 * fractal(rng, shape, 3, 3) + 0.07 * _grain(rng, shape, 0.5)
    return base * tone[..., None]


def _cloth(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    h, w = shape
    base = _tint(rng, CLOTHS, 0.3)
    yy, xx = np.arange(h, dtype=np.float32)[:, None], np.arange(w, dtype=np.float32)[None, :]
    period = rng.uniform(1.5, 3.5)
    weave = 0.06 * np.sin(xx * np.pi / period) * np.sin(yy * np.pi / period)
    folds = fractal(rng, shape, 2, 3)
    shade = 1 + rng.uniform(0.12, 0.3) * np.tanh(1.5 * folds)  # creases of a tablecloth or a blanket
    out = base * (shade + weave + 0.04 * _grain(rng, shape, 0.6))[..., None]
    if rng.random() < 0.3:  # a printed or woven pattern: broad stripes
        stripes = (np.floor((xx + 3 * folds) / rng.uniform(15, 50)) % 2)[..., None]
        out = out * (1 - 0.25 * stripes) + stripes * rng.normal(0, 20, 3).astype(np.float32)
    return out


def _laminate(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    h, w = shape
    base = _tint(rng, LAMINATES, 0.1)
    tone = 1 + 0.05 * fractal(rng, shape, 6, 4) + 0.03 * _grain(rng, shape, 0.7)
    out = base * tone[..., None]
    if rng.random() < 0.5:  # floor or counter tiles with grout lines
        yy, xx = np.arange(h, dtype=np.float32)[:, None], np.arange(w, dtype=np.float32)[None, :]
        period, width = rng.uniform(80, 200), rng.uniform(2, 5)
        grout = ((xx % period) < width) | ((yy % period) < width)
        out = np.where(grout[..., None], base * 0.8 + 30, out)
    return out


def _stone(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    base = _tint(rng, LAMINATES + CARPETS, 0.2)
    veins = np.abs(fractal(rng, shape, 3, 5, 0.6))
    tone = 1 + 0.1 * fractal(rng, shape, 8, 3) - 0.2 * np.exp(-veins * 6) + 0.08 * _grain(rng, shape, 0.5)
    return base * tone[..., None]


def _checks(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    h, w = shape
    c1 = rng.uniform(60, 240, 3).astype(np.float32)
    c2 = c1 * rng.uniform(0.55, 0.85)
    period = rng.uniform(10, 40)
    yy, xx = np.arange(h, dtype=np.float32)[:, None], np.arange(w, dtype=np.float32)[None, :]
    checks = ((np.floor(xx / period) + np.floor(yy / period)) % 2)[..., None]
    return (c1 * (1 - checks) + c2 * checks) * (1 + 0.05 * _grain(rng, shape, 0.6))[..., None]


def _window(img: np.ndarray, centre: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray]:
    """The part of ``img`` (a view) within ``radius`` of ``centre``, and the centre in its coordinates."""
    x0, y0 = int(max(0, centre[0] - radius)), int(max(0, centre[1] - radius))
    x1, y1 = int(min(img.shape[1], centre[0] + radius)), int(min(img.shape[0], centre[1] + radius))
    return img[y0:max(y1, y0 + 1), x0:max(x1, x0 + 1)], centre - (x0, y0)


def _frame(shape: tuple[int, ...], centre: np.ndarray, angle: float) -> tuple[np.ndarray, np.ndarray]:
    """Texel coordinates turned by ``angle`` about ``centre``: the local frame of an object on the table."""
    yy, xx = np.mgrid[0:shape[0], 0:shape[1]].astype(np.float32)
    c, s = np.cos(angle), np.sin(angle)
    return (xx - centre[0]) * c + (yy - centre[1]) * s, (yy - centre[1]) * c - (xx - centre[0]) * s


def _lay(img: np.ndarray, mask: np.ndarray, colour: np.ndarray, height: float) -> None:
    """Paint ``colour`` where ``mask`` (0..1) is, after a soft shadow that grows with the object's ``height``."""
    shift = np.float32([[1, 0, 0.5 * height], [0, 1, 0.8 * height]])
    shadow = cv2.GaussianBlur(cv2.warpAffine(mask, shift, mask.shape[::-1]), (0, 0), 1 + 0.8 * height)
    img *= 1 - 0.5 * shadow[..., None]
    img[:] = img * (1 - mask[..., None]) + colour * mask[..., None]


def _box(rng: np.random.Generator, img: np.ndarray, centre: np.ndarray) -> None:
    """A book, box or sheet of paper: a shaded top with a printed band and lines of text."""
    a, b = rng.uniform(40, 110), rng.uniform(50, 140)
    img, centre = _window(img, centre, np.hypot(a, b) + 25)
    u, v = _frame(img.shape, centre, rng.uniform(0, np.pi))
    mask = np.clip(a - np.abs(u), 0, 1) * np.clip(b - np.abs(v), 0, 1)
    paper = rng.random() < 0.4
    cover = 0.5 * rng.uniform(30, 220, 3) + 0.5 * rng.uniform(40, 200)  # printed covers, not neon
    top = np.float32((225, 232, 235)) * rng.uniform(0.8, 1.0) if paper else cover.astype(np.float32)
    shade = 1 - 0.08 * (u / a) - 0.05 * (v / b) - 0.25 * np.exp(-np.minimum(a - np.abs(u), b - np.abs(v)) / 2)
    colour = top * shade[..., None]
    if not paper:  # a printed band across the cover
        y0 = rng.uniform(-b, b * 0.5)
        band = (v > y0) & (v < y0 + rng.uniform(10, 40))
        colour[band] = colour[band] * 0.3 + rng.uniform(20, 240, 3).astype(np.float32) * 0.7
    spacing = rng.uniform(5, 9)
    ends = rng.uniform(-0.6, 0.8, int(2 * b / spacing) + 2) * a  # ragged line ends
    rows = np.clip(((v + b) // spacing).astype(np.int64), 0, len(ends) - 1)
    last = 0.8 * b if paper else -b * rng.uniform(0.3, 0.7)  # a page of text, or a few title lines on a cover
    words = np.sin(u * rng.uniform(0.3, 0.6, len(ends)).astype(np.float32)[rows] + rows * 2.1) > -0.6
    ink = np.clip(1 - np.abs(v % spacing - 1), 0, 1) * words  # soft lines broken into words
    ink *= (u > -0.8 * a) & (u < ends[rows]) & (v > -0.85 * b) & (v < last)
    colour *= (1 - 0.65 * ink)[..., None]
    _lay(img, mask, colour, 1.5 if paper else rng.uniform(4, 10))


def _cup(rng: np.random.Generator, img: np.ndarray, centre: np.ndarray) -> None:
    """A mug seen from above: a lit rim, a shaded inside, coffee or tea with a highlight, and a handle."""
    r = rng.uniform(22, 45)
    img, centre = _window(img, centre, 2 * r)
    u, v = _frame(img.shape, centre, rng.uniform(0, 2 * np.pi))
    d = np.sqrt(u * u + v * v)
    handle = np.clip(r * 0.14 - np.abs(v), 0, 1) * np.clip(r * 1.4 - u, 0, 1) * (u > 0)
    mask = np.maximum(np.clip(r - d, 0, 1), handle)
    body = np.float32((235, 238, 240)) if rng.random() < 0.5 else rng.uniform(40, 230, 3).astype(np.float32)
    colour = body * (0.75 + 0.25 * np.clip(-(u + v) / (1.5 * r), -1, 1))[..., None]  # lit from the top left
    inside = d < r * 0.86
    colour[inside] *= 0.55 + 0.35 * np.clip((u + v)[inside] / r, 0, 1)[:, None]
    drink = d < r * 0.8 * rng.uniform(0.8, 1.0)
    colour[drink] = np.float32((20, 45, 80)) * rng.uniform(0.6, 1.4)
    glint = ((u + 0.35 * r) ** 2 + (v + 0.35 * r) ** 2) < (0.12 * r) ** 2
    colour[drink & glint] = 220
    _lay(img, mask, colour, rng.uniform(8, 14))


def _cable(rng: np.random.Generator, img: np.ndarray, centre: np.ndarray) -> None:
    """A charger cable: a smooth Bezier curve, round-shaded, with a soft shadow."""
    img, centre = _window(img, centre, 330)
    heading = rng.uniform(0, 2 * np.pi)  # control points roughly in a line: gentle bends, no cusps
    ctrl = centre + np.outer(np.arange(4) - 1.5, (np.cos(heading), np.sin(heading))) * rng.uniform(40, 110)
    ctrl += rng.normal(0, 40, (4, 2))
    t = np.linspace(0, 1, 120)[:, None]
    curve = ((1 - t) ** 3 * ctrl[0] + 3 * (1 - t) ** 2 * t * ctrl[1] + 3 * (1 - t) * t ** 2 * ctrl[2]
             + t ** 3 * ctrl[3])
    width = int(rng.integers(3, 7))
    mask = np.zeros(img.shape[:2], np.float32)
    cv2.polylines(mask, [np.round(curve * 4).astype(np.int32)], False, 1.0, width, cv2.LINE_AA, 2)
    lit = np.zeros_like(mask)  # the highlight along the side facing the light
    cv2.polylines(lit, [np.round((curve - width * 0.2) * 4).astype(np.int32)], False, 1.0, max(1, width // 3),
                  cv2.LINE_AA, 2)
    base = np.float32((22, 22, 24)) if rng.random() < 0.6 else np.float32((215, 220, 222))
    colour = base * 0.8 + (60 * cv2.GaussianBlur(lit, (0, 0), 0.7) * mask)[..., None]
    _lay(img, mask, colour, 2.0)


def _cluttered(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    img = _wood(rng, shape) if rng.random() < 0.5 else _carpet(rng, shape)
    for _ in range(rng.integers(2, 5)):
        centre = rng.uniform(0, 1, 2) * shape[::-1]
        (_box, _box, _cup, _cable)[rng.integers(4)](rng, img, centre)
    return img


MAKERS = {"carpet": _carpet, "wood": _wood, "felt": _felt, "cloth": _cloth, "laminate": _laminate,
          "stone": _stone, "cluttered": _cluttered, "checks": _checks}


def pick_kind(rng: np.random.Generator) -> str:
    """A table kind, carpet and wood commonest as in the real photos."""
    return KINDS[rng.choice(len(KINDS), p=KIND_WEIGHTS)]


def table_texture(rng: np.random.Generator, shape: tuple[int, int], kind: str) -> np.ndarray:
    """A uint8 BGR table texture of ``shape`` (height, width) and the given kind, with a soft light falloff."""
    img = MAKERS[kind](rng, shape)
    h, w = shape
    yy, xx = np.mgrid[0:h:8, 0:w:8].astype(np.float32)
    cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.5, 1.5) * max(h, w)
    falloff = 1 - rng.uniform(0.1, 0.45) * np.minimum(1, ((xx - cx) ** 2 + (yy - cy) ** 2) / (r * r))
    img *= cv2.resize(falloff, (w, h), interpolation=cv2.INTER_LINEAR)[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)
