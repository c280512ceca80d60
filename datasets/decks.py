"""Third-party SVG decks: fetched from the npm registry by an explicit step, rasterised once.

``fetch_decks`` runs ``npm pack`` into a cache folder (ignored by git), rasterises every
face with resvg and stores PNGs plus their corner-index boxes; ``load_fetched_decks``
reads that cache and gives nothing when it is absent, so the generator still works with
the project's own drawn decks alone.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tarfile
from pathlib import Path

import cv2
import numpy as np

from oxeye.datasets.faces import CARD_SIZE, Face, make_face, rotate_box_180, rounded_mask
from oxeye.datasets.paths import DEFAULT_CACHE
from oxeye.vision.classes import CARD_CLASSES
from oxeye.vision.images import make_folder, written_aside

PACKAGE = "@heruka_urgyen/react-playing-cards@0.5.0"  # MIT; Adrian Kennard's SVG card designs
DESIGNS = ("2color", "4color", "2color-bf", "4color-bf")  # two/four colours, normal/big index
RENDER_SCALE = 2  # rasterise at twice the texture size, then reduce
USE = re.compile(r'<use xlink:href="#([VS])[^"]*" height="([\d.]+)" x="(-?[\d.]+)" y="(-?[\d.]+)"')


def _svg_name(code: str) -> str:
    """The package's file name for a card code (it writes 10 as T)."""
    return code.replace("10", "T") + ".svg"


def _index_box(svg: str, bgr: np.ndarray) -> tuple[float, float, float, float]:
    """Top-left index box in texture pixels: the rank and suit symbol areas, tightened to ink."""
    uses = USE.findall(svg)
    rank_at = next(i for i, use in enumerate(uses) if use[0] == "V")
    (_, hv, xv, yv), (_, hs, xs, ys) = uses[rank_at], next(use for use in uses[rank_at:] if use[0] == "S")
    sx = bgr.shape[1] / 240.0
    sy = bgr.shape[0] / 336.0
    x1, y1 = min(float(xv), float(xs)), float(yv)
    x2, y2 = max(float(xv) + float(hv), float(xs) + float(hs)), float(ys) + float(hs)
    c1, r1 = int(max(0, (x1 + 120) * sx)), int(max(0, (y1 + 168) * sy))
    c2, r2 = int((x2 + 120) * sx), int((y2 + 168) * sy)
    ink = bgr[r1:r2, c1:c2].min(axis=2) < 160
    ys_, xs_ = np.nonzero(ink)
    return (c1 + xs_.min(), r1 + ys_.min(), c1 + xs_.max() + 1, r1 + ys_.max() + 1)


def fetch_decks(cache: Path = DEFAULT_CACHE) -> list[str]:
    """Fetch the SVG deck package with npm and rasterise its designs into ``cache``; returns design names."""
    import resvg_py  # only this explicit step needs the rasteriser

    if shutil.which("npm") is None:
        raise OSError("npm is not installed; the drawn decks still work without fetched ones")
    make_folder(cache)
    result = subprocess.run(["npm", "pack", PACKAGE, "--silent", "--pack-destination", str(cache)],
                            capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise OSError(f"npm pack {PACKAGE} failed: {result.stderr.strip().splitlines()[-1:]}")
    tarball = cache / result.stdout.strip().splitlines()[-1]
    with tarfile.open(tarball) as tar:
        members = {m.name: m for m in tar.getmembers()}
        for design in DESIGNS:
            out = cache / design
            out.mkdir(exist_ok=True)
            # Its boxes mark a design complete: gone until the last face is rewritten, so that a fetch
            # stopped halfway over an earlier one leaves the design unlisted, not listed with a broken face.
            (out / "index_boxes.json").unlink(missing_ok=True)
            boxes = {}
            for code in CARD_CLASSES:
                svg = tar.extractfile(members[f"package/src/images/{design}/{_svg_name(code)}"]).read().decode()
                w, h = CARD_SIZE[0] * RENDER_SCALE, CARD_SIZE[1] * RENDER_SCALE
                sized = svg.replace('height="3.5in"', f'height="{h}"').replace('width="2.5in"', f'width="{w}"')
                png = bytes(resvg_py.svg_to_bytes(svg_string=sized))
                bgra = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_UNCHANGED)
                bgra = cv2.resize(bgra, CARD_SIZE, interpolation=cv2.INTER_AREA)
                _write_whole(out / f"{code}.png", cv2.imencode(".png", bgra)[1].tobytes())
                boxes[code] = [float(v) for v in _index_box(svg, bgra[..., :3])]
            _write_whole(out / "index_boxes.json", json.dumps(boxes, indent=1).encode())
        _write_whole(cache / "LICENSE", tar.extractfile(members["package/LICENSE"]).read())
    return list(DESIGNS)


def _write_whole(path: Path, data: bytes) -> None:
    """Write ``data`` aside and move it onto ``path``: a fetch interrupted as it wrote a design's boxes left
    them cut short, the design listed, and the next build failed in JSON's words, naming no file."""
    with written_aside(path) as partial:
        partial.write_bytes(data)


def fetched_designs(cache: Path = DEFAULT_CACHE) -> list[str]:
    """The designs ``fetch-decks`` has rasterised into ``cache`` (their corner-index boxes written last)."""
    return [design for design in DESIGNS if (cache / design / "index_boxes.json").is_file()]


def load_fetched_decks(cache: Path = DEFAULT_CACHE) -> dict[str, dict[str, Face]]:
    """Every fetched design found complete in ``cache``, each a mapping from card code to its face; ValueError
    naming a file of one that is not whole: a corrupt face left its design out unsaid, and a build naming
    --decks whose every design was so ran without fetched decks, as the docs say it never does."""
    mask = rounded_mask(*CARD_SIZE, radius=CARD_SIZE[0] * 0.05)
    return {f"kennard-{design}": _design_faces(cache / design, mask) for design in fetched_designs(cache)}


def _design_faces(folder: Path, mask: np.ndarray) -> dict[str, Face]:
    """One fetched design's faces, each cut to ``mask``; ValueError naming the first file that is not whole."""
    refetch = f"run 'oxeye dataset fetch-decks --decks {folder.parent}' again, or build with --drawn-only"
    try:
        boxes = json.loads((folder / "index_boxes.json").read_text())
    except ValueError as error:
        raise ValueError(f"{folder / 'index_boxes.json'} is not a fetched deck's boxes ({error}): {refetch}") from None
    faces = {}
    for code in CARD_CLASSES:
        png = folder / f"{code}.png"
        bgra = cv2.imread(str(png), cv2.IMREAD_UNCHANGED)
        if bgra is None or bgra.shape != (CARD_SIZE[1], CARD_SIZE[0], 4) or code not in boxes:
            raise ValueError(f"{png} is not a face fetched whole: {refetch}")
        bgra[..., 3] = np.minimum(bgra[..., 3], mask)
        box = tuple(boxes[code])
        faces[code] = make_face(code, bgra, [box, rotate_box_180(box, *CARD_SIZE)], glossy=True)
    return faces
