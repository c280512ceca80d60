"""Photos as BGR frames, decoded one way for the command line and the service alike; and where
pictures and other output may be written.

A photo is turned upright as its EXIF orientation says, as a phone's gallery and a browser show it
(a phone stores a portrait photo as landscape pixels with an orientation tag). Pillow reads the
header first, so the pixel count is checked before anything is decoded (a small PNG can hold a
decompression bomb), and its full decode fails on a truncated file where OpenCV returns the part
it read, padded with grey, without a word.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

if TYPE_CHECKING:  # Pillow is imported where a photo is decoded
    from PIL import Image

MAX_PIXELS = 100_000_000  # a 100-megapixel photo is larger than any phone's

# Pillow warns on stderr of a "decompression bomb" over 89 megapixels, where decode_photo checks the pixels
# itself: oxeye detect said three lines on such a photo, two of them Pillow's.
warnings.filterwarnings("ignore", r"Image size \(\d+ pixels\) exceeds limit", module="PIL")
# and of EXIF it cannot read whole ("Corrupt EXIF data", as an editing app can leave it), where the photo
# itself reads: oxeye detect's answer came with two lines of Pillow's after it.
warnings.filterwarnings("ignore", category=UserWarning, module=r"PIL\.TiffImagePlugin")


class PhotoError(ValueError):
    """Why some bytes are not a photo to read; ``reason`` is "empty", "not_image", "corrupt" or "too_large"."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


def decode_photo(data: bytes, max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """The photo encoded in ``data`` (JPEG, PNG, WebP, ...) as an upright BGR array; PhotoError if it is not one."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    if not data:
        raise PhotoError("the file is empty: a JPEG or PNG photo is needed", "empty")
    try:
        with Image.open(io.BytesIO(data)) as image:  # reads the header only
            width, height = image.size
            if width * height > max_pixels:
                raise PhotoError(f"the image is {width} x {height} pixels; the limit is {max_pixels:,} pixels",
                                 "too_large")
            image.load()
            ImageOps.exif_transpose(image, in_place=True)
            rgb = image if image.mode == "RGB" else _eight_bit(image).convert("RGB")
            # tobytes is the fastest way out of Pillow (np.asarray takes twice as long on a 12 MP photo)
            pixels = np.frombuffer(rgb.tobytes(), np.uint8).reshape(rgb.height, rgb.width, 3)
    except PhotoError:
        raise
    except UnidentifiedImageError:
        raise PhotoError("not an image that can be read (send JPEG, PNG or WebP)", "not_image") from None
    except Image.DecompressionBombError:  # over Pillow's own limit, before the header is fully read
        raise PhotoError(f"the image holds more than the limit of {max_pixels:,} pixels", "too_large") from None
    except (OSError, SyntaxError, ValueError) as error:
        raise PhotoError(f"the image is truncated or corrupt ({error})", "corrupt") from None
    return cv2.cvtColor(pixels, cv2.COLOR_RGB2BGR)


def _eight_bit(image: Image.Image) -> Image.Image:
    """``image`` with 16-bit greys (a scanner's PNG, a camera's TIFF) brought to 8 bits as OpenCV does:
    Pillow's own conversion clips every grey over 255 to white, and the photo read as blank."""
    from PIL import Image

    if not image.mode.startswith("I;16"):
        return image
    return Image.fromarray((np.asarray(image, np.uint16) >> 8).astype(np.uint8), "L")


def colourless(image: np.ndarray) -> bool:
    """Whether a BGR frame holds no colour (a black-and-white photo, a camera's night view): not one pixel in
    1,000 of a sample differs by over 4 levels between its channels, where in each real card photo, even on
    its table alone (a black card may lie on it), at least 1 in 8 does, and in each made grey none does."""
    sample = image[::4, ::4].astype(np.int16)
    return float((np.ptp(sample, axis=2) > 4).mean()) < 0.001


def read_image(path: Path, max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """A photo file as an upright BGR array; OSError naming the path when it is missing or not a photo."""
    path = Path(path)
    if path.is_dir():
        raise OSError(f"{path} is a folder: name a photo in it")
    if not path.exists():
        raise OSError(f"no such image: {path}")
    if not (path.is_file() or path.is_fifo()):  # a pipe is read (/dev/stdin, <(curl ...)); /dev/zero never ends
        raise OSError(f"{path} is neither a file nor a pipe: name a photo")
    try:
        return decode_photo(path.read_bytes(), max_pixels)
    except PhotoError as error:
        if error.reason == "not_image":
            raise OSError(f"cannot read {path} as an image") from None
        raise OSError(f"cannot read {path}: {error}") from None


@contextmanager
def opencv_quiet() -> Iterator[None]:
    """OpenCV's own log lines held back within the block: the caller says once, in its words, what went wrong."""
    level = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    try:
        yield
    finally:
        cv2.utils.logging.setLogLevel(level)


def picture_problem(path: str | Path) -> str | None:
    """Why OpenCV cannot write a picture to ``path``, or None when it can (OpenCV 5 raises its own error
    for an unknown extension, where OpenCV 4 returned False)."""
    return None if cv2.haveImageWriter(str(path)) else f"{path} does not name a picture to write: end it in .jpg or .png"


def file_in_the_way(folder: Path) -> Path | None:
    """The file that lies where ``folder``, or a folder above it, would have to be made; None if none does."""
    return next((p for p in (folder, *folder.parents) if p.exists() and not p.is_dir()), None)


def make_folder(folder: Path) -> None:
    """``folder``, made with those above it where missing; OSError naming the folder, and the file in the way
    where one is (mkdir's own error says 'File exists: photo.jpg', as though the folder were there)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise OSError(f"cannot make the folder {folder}: {file_in_the_way(folder) or folder} is a file") from None
    except OSError as error:  # said "[Errno 1] Operation not permitted: 'imm/new'", the folder unnamed as such
        raise OSError(f"cannot make the folder {folder}: {error.strerror}") from None
