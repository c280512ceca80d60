"""Readings made by hand for tests: hands of items laid in rows, as the detector would report them; photos
labelled as the real card photos are, for ``oxeye evaluate --real``; a phone's portrait photo, and a huge one's header."""

from __future__ import annotations

import io
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, PngImagePlugin

from oxeye.vision.grouping import group_hands
from oxeye.vision.reading import Item, Reading


def rows_reading(rows: list[list[str]], shift: float = 0.0, flags: dict[str, str] | None = None) -> Reading:
    """One hand of cards (or tiles, ``6-6``) per row, top to bottom, on a 640x480 frame (``shift`` moves the camera a
    little)."""
    items = [Item(code, "tile" if "-" in code else "card", (100 + 80 * col + shift, 60 + 200 * row, 160 + 80 * col + shift, 150 + 200 * row),
                  0.9, flag=(flags or {}).get(code))
             for row, codes in enumerate(rows) for col, code in enumerate(codes)]
    return Reading(640, 480, items, group_hands(items))


def write_labelled_photo(folder: Path, name: str, image: np.ndarray,
                         labels: list[tuple[str, tuple[float, float, float, float]]]) -> None:
    """``folder/photos/NAME.JPG`` and its Pascal VOC labels (rank name, box), as ../shared/real/cards-edje
    holds its photos."""
    (folder / "photos").mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(folder / "photos" / f"{name}.JPG"), image)
    objects = "".join(f"<object><name>{rank}</name><bndbox><xmin>{x0}</xmin><ymin>{y0}</ymin><xmax>{x1}</xmax>"
                      f"<ymax>{y1}</ymax></bndbox></object>" for rank, (x0, y0, x1, y1) in labels)
    (folder / "photos" / f"{name}.xml").write_text(f"<annotation>{objects}</annotation>")


def portrait_as_a_phone_stores_it() -> bytes:
    """A JPEG of landscape pixels (200 x 100, white on the left) tagged to be shown turned a quarter
    clockwise (EXIF orientation 6): upright, it is 100 wide and 200 tall, white along the top."""
    pixels = np.zeros((100, 200, 3), np.uint8)
    pixels[:, :50] = 255
    exif = Image.Exif()
    exif[0x0112] = 6
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, "JPEG", exif=exif.tobytes())
    return buffer.getvalue()


def tagged_in_xmp(kind: str, description: str, exif: int | None = None, zipped: bool = False) -> bytes:
    """The landscape pixels of ``portrait_as_a_phone_stores_it`` in Pillow's format ``kind``, their turn said by
    ``description``, an XMP rdf:Description, with no EXIF (or with ``exif`` as its EXIF orientation); a PNG's XMP
    compressed where ``zipped``."""
    pixels = np.zeros((100, 200, 3), np.uint8)
    pixels[:, :50] = 255
    packet = ('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
              f"{description}</rdf:RDF></x:xmpmeta>").encode()
    tags = {"exif": Image.Exif()} if exif is not None else {}
    if exif is not None:
        tags["exif"][0x0112] = exif
    buffer = io.BytesIO()
    if kind == "PNG":
        info = PngImagePlugin.PngInfo()
        info.add_itxt("XML:com.adobe.xmp", packet.decode(), zip=zipped)
        Image.fromarray(pixels).save(buffer, kind, pnginfo=info, **tags)
    elif kind == "TIFF":
        Image.fromarray(pixels).save(buffer, kind, tiffinfo={700: packet})  # XMP's TIFF tag
    else:
        Image.fromarray(pixels).save(buffer, kind, xmp=packet, **tags)
    return buffer.getvalue()


def jpeg_header_saying(width: int, height: int) -> bytes:
    """A small JPEG whose header says it is ``width`` x ``height`` pixels (a few hundred bytes that would decode
    to many megapixels)."""
    data = bytearray(cv2.imencode(".jpg", np.full((16, 16, 3), 90, np.uint8))[1].tobytes())
    frame = data.index(b"\xff\xc0")  # baseline start of frame: marker, length, precision, height, width
    data[frame + 5:frame + 9] = height.to_bytes(2, "big") + width.to_bytes(2, "big")
    return bytes(data)
