"""Contact sheet of a built dataset with its labels drawn over the images, for looking at."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from oxeye.vision.images import picture_problem, write_picture

HAND_COLOURS = ((0, 255, 0), (0, 200, 255), (255, 120, 0), (255, 0, 255), (0, 255, 255), (80, 80, 255),
                (255, 255, 0), (160, 255, 160))


def annotate(image: np.ndarray, meta: dict[str, object]) -> np.ndarray:
    """The image with each labelled item's visible outline, box, corner boxes and code, coloured by hand."""
    out = image.copy()
    for item in meta["items"]:
        colour = HAND_COLOURS[item["hand"] % len(HAND_COLOURS)]
        for poly in item["visible_outline"]:
            cv2.polylines(out, [np.array(poly, np.int32)], True, colour, 1, cv2.LINE_AA)
        for corner in item["corner_boxes"]:
            if corner["visible"] > 0:
                x1, y1, x2, y2 = (int(v) for v in corner["box"])
                cv2.rectangle(out, (x1, y1), (x2, y2), (255, 255, 255), 1)
        x1, y1 = item["box"][:2]
        cv2.putText(out, item["code"], (x1 + 2, y1 + 12), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(out, item["code"], (x1 + 2, y1 + 12), cv2.FONT_HERSHEY_SIMPLEX, 0.4, colour, 1, cv2.LINE_AA)
    return out


def _annotated(dataset: Path, path: Path) -> np.ndarray:
    """The image that the record at ``path`` describes, annotated; ValueError naming a file that is no
    build's record (a folder of other JSON once ended in a KeyError's traceback)."""
    try:
        meta = json.loads(path.read_text())
        image = cv2.imread(str(dataset / meta["image"]))
        if image is None:
            raise OSError(f"cannot read {dataset / meta['image']}")
        return annotate(image, meta)
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"{path} is not a record written by 'oxeye dataset build' ({error!r})") from None


def _refuse_sheet_among_images(dataset: Path, out: Path) -> None:
    """ValueError where ``out`` lies in the build's ``images/``: the sheet replaced a labelled image there (its
    labels then described the sheet), or joined them as one more photo that training reads as bare table."""
    images = (dataset / "images").resolve()
    if out.resolve().is_relative_to(images):
        raise ValueError(f"--out {out} is among the build's images in {images}: write the sheet elsewhere")


def contact_sheet(dataset: Path, out: Path, count: int = 16, columns: int = 4, tile: int = 400) -> int:
    """Write a grid of the first ``count`` annotated images of ``dataset`` to ``out``; returns how many it drew."""
    if problem := picture_problem(out):  # before any image is read and drawn
        raise OSError(problem)
    _refuse_sheet_among_images(dataset, out)
    metas = sorted((dataset / "meta").glob("*.json"))[:count]
    if not metas:
        raise ValueError(f"{dataset} has no meta/*.json: build a dataset there first")
    cells = []
    for path in metas:
        cell = _annotated(dataset, path)
        s = tile / max(cell.shape[:2])
        cell = cv2.resize(cell, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
        canvas = np.full((tile, tile, 3), 32, np.uint8)
        canvas[:cell.shape[0], :cell.shape[1]] = cell
        cells.append(canvas)
    cells += [np.full((tile, tile, 3), 32, np.uint8)] * (-len(cells) % columns)
    sheet = np.vstack([np.hstack(cells[i:i + columns]) for i in range(0, len(cells), columns)])
    write_picture(out, sheet)
    return len(metas)
