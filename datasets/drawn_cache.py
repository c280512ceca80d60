"""The project's drawn decks and tile sets, kept on disk once drawn.

Drawing them takes about 5 s of a core, at every start of the service (the trainer's pictures) and in every
worker of a build; read back they take 0.2 s. The file is named by a digest of the generator's code and of
the OpenCV and NumPy that drew them, so a change to any of them draws the faces again; a file that cannot
be read is drawn again and replaced, and a folder that cannot be written leaves them drawn each time.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import zipfile
from pathlib import Path

import cv2
import numpy as np

from oxeye.datasets.cards import STYLES, drawn_decks
from oxeye.datasets.faces import Face, make_face
from oxeye.datasets.tiles import TILE_SETS, tile_sets
from oxeye.vision.classes import CARD_CLASSES, TILE_CLASSES
from oxeye.vision.folders import working_folder

FACES_CACHE = working_folder("data/faces", "faces")

Faces = dict[str, dict[str, Face]]  # style or set name -> code -> face


def drawn_faces(folder: Path = FACES_CACHE) -> tuple[Faces, Faces]:
    """``drawn_decks()`` and ``tile_sets()``, read from ``folder`` where it holds them for this code, else drawn
    and stored there."""
    path = folder / f"faces-{_digest()}.npz"
    try:
        return _read(path)
    except FileNotFoundError:
        pass
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:
        logging.getLogger(__name__).warning("drawing the faces again: %s cannot be read (%s)", path, error)
    decks, tiles = drawn_decks(), tile_sets()
    try:
        _write(path, decks, tiles)
    except OSError as error:
        logging.getLogger(__name__).warning("the drawn faces are not kept: %s", error)
    return decks, tiles


def _digest() -> str:
    """What the faces are drawn by: the generator's sources and the libraries that draw them."""
    digest = hashlib.sha256(f"{cv2.__version__} {np.__version__}".encode())
    for source in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()[:16]


def _groups() -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """Each kind's style or set names and codes, as the drawing makes them."""
    return {"cards": (tuple(style.name for style in STYLES), CARD_CLASSES), "tiles": (tuple(TILE_SETS), TILE_CLASSES)}


def _read(path: Path) -> tuple[Faces, Faces]:
    """The two kinds' faces from a file ``_write`` wrote; KeyError where one is missing."""
    with np.load(path, allow_pickle=False) as stored:
        about = json.loads(str(stored["about"]))
        kinds = {kind: {name: {code: _face(code, stored[f"{kind}/{name}/{code}"], *about[f"{kind}/{name}/{code}"])
                               for code in codes} for name in names}
                 for kind, (names, codes) in _groups().items()}
    return kinds["cards"], kinds["tiles"]


def _face(code: str, image: np.ndarray, boxes: list[list[float]], glossy: bool) -> Face:
    """A face read back: its full-size image, index boxes and gloss as stored."""
    return make_face(code, image, [tuple(box) for box in boxes], glossy)


def _write(path: Path, decks: Faces, tiles: Faces) -> None:
    """Both kinds' full-size faces (their smaller levels are made again as read), whole or not at all, and
    no file of other code left beside it."""
    arrays, about = {}, {}
    for kind, faces in (("cards", decks), ("tiles", tiles)):
        for name, by_code in faces.items():
            for code, face in by_code.items():
                arrays[f"{kind}/{name}/{code}"] = face.levels[0]
                about[f"{kind}/{name}/{code}"] = [[list(box) for box in face.index_boxes], face.glossy]
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".faces-", suffix=".part", delete=False) as part:
        try:
            np.savez_compressed(part, about=np.array(json.dumps(about)), **arrays)
            part.close()
            os.replace(part.name, path)
        finally:
            Path(part.name).unlink(missing_ok=True)
    for stale in path.parent.glob("faces-*.npz"):
        if stale != path:
            stale.unlink(missing_ok=True)
