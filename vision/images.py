"""Photos as BGR frames, decoded one way for the command line and the service alike; and where
pictures and other output may be written.

A photo is turned upright as its EXIF orientation says, as a phone's gallery and a browser show it
(a phone stores a portrait photo as landscape pixels with an orientation tag), or where it has none, as its
XMP's says, as a photo editor shows it. Pillow reads the
header first, so the pixel count is checked before anything is decoded (a small PNG can hold a
decompression bomb), and its full decode fails on a truncated file where OpenCV returns the part
it read, padded with grey, without a word.

A large JPEG (a phone's 48 or 200 megapixels) is decoded reduced, by Pillow's draft mode: libjpeg
scales it by 1/2, 1/4 or 1/8 as it decodes, in a fraction of the time and memory of a whole decode,
to no less than ``WORKING_SIDE`` pixels along its long side. The detector reads every frame at about
416 pixels, and the classifier's crops need no more (``python -m bench.big_photos`` measures it). A
panorama is read in windows of an ordinary frame's shape (``vision.tiles``), each as a frame: it is kept
to no less than ``WORKING_SIDE`` along a window's long side (one of 12,000 x 2,000 reduced by its own long
side, to 3,000 x 500, was read in windows of 667 pixels), unless that would decode it to more pixels than
``max_pixels``: then it is reduced as far as brings it within them.
"""

from __future__ import annotations

import io
import re
import signal
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from oxeye.vision.tiles import Tiling

if TYPE_CHECKING:  # Pillow is imported where a photo is decoded
    from PIL import Image

    from oxeye.vision.reading import Reading

MAX_PIXELS = 100_000_000  # decoded whole (a PNG, a WebP): 300 MB as a BGR array
MAX_JPEG_PIXELS = 250_000_000  # a JPEG, decoded reduced: a 200-megapixel phone's 16,320 x 12,240, with room
WORKING_SIDE = 2000  # the long side a large JPEG is decoded to at least (see the module's docstring)
REDUCTIONS = (8, 4, 2)  # the scales libjpeg decodes at directly, most reduced first
JPEG_FORMATS = ("JPEG", "MPO")  # Pillow's MPO: a phone's JPEG with more pictures after it (a depth or gain map)
# The formats named where a photo is asked for, and the only ones decoded (an MPO as the JPEG it is). Pillow opens
# thirty more, no phone's: it handed an EPS to Ghostscript (without it, "truncated or corrupt"), and a damaged
# AVIF was a 500.
PHOTO_FORMATS = ("JPEG", "PNG", "WebP", "GIF", "BMP", "TIFF")
A_PHOTO = f"a {', '.join(PHOTO_FORMATS[:-1])} or {PHOTO_FORMATS[-1]} photo"
HEIF_BRANDS = (b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1")  # a HEIC's ISO BMFF brands
TIFF_SIGNATURES = (b"II*\0", b"MM\0*")  # a TIFF's first bytes, little-endian or big
SAMPLE_FORMAT = 339  # the TIFF tag saying how samples are written: 1 unsigned integers, 2 signed, 3 floating point
XMP_TIFF_PREFIX = re.compile(rb"""\bxmlns:([\w.-]+)\s*=\s*["']http://ns\.adobe\.com/tiff/1\.0/["']""")
UPRIGHT = {2: "FLIP_LEFT_RIGHT", 3: "ROTATE_180", 4: "FLIP_TOP_BOTTOM", 5: "TRANSPOSE", 6: "ROTATE_270", 7: "TRANSVERSE",
           8: "ROTATE_90"}  # by EXIF orientation, what turns a photo upright (Pillow's Image.Transpose)
QUARTER_TURNS = (5, 6, 7, 8)  # the EXIF orientations that show a photo a quarter turned (a phone's portrait)

# Pillow warns on stderr of a "decompression bomb" over 89 megapixels where it opens a photo before decode_reduced
# turns its check off (oxeye serve --source huge.jpg): oxeye detect said three lines on such a photo, two of them Pillow's.
warnings.filterwarnings("ignore", r"Image size \(\d+ pixels\) exceeds limit", module="PIL")
# and of EXIF it cannot read whole ("Corrupt EXIF data", as an editing app can leave it), where the photo
# itself reads: oxeye detect's answer came with two lines of Pillow's after it.
warnings.filterwarnings("ignore", category=UserWarning, module=r"PIL\.TiffImagePlugin")


@dataclass(frozen=True)
class Decoded:
    """A photo decoded upright: ``pixels`` (BGR), each pixel standing for ``scale`` x ``scale`` pixels of the
    photo itself, ``width`` x ``height`` (``scale`` 1: decoded whole; 2, 4 or 8: a large JPEG, reduced)."""

    pixels: np.ndarray
    scale: int
    width: int
    height: int

    @classmethod
    def whole(cls, pixels: np.ndarray) -> Decoded:
        """A frame that was decoded whole (a camera's)."""
        return cls(pixels, 1, pixels.shape[1], pixels.shape[0])

    def in_photo(self, reading: Reading) -> Reading:
        """``reading``, of ``pixels``, in the pixels of the photo itself, as the JSON contract gives boxes."""
        return reading.scaled(self.scale, self.width, self.height)


class PhotoError(ValueError):
    """Why some bytes are not a photo to read; ``reason`` is "empty", "not_image", "unsupported" (an image of a format
    not read), "corrupt" or "too_large"."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


def decode_photo(data: bytes, max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """The photo encoded in ``data`` (JPEG, PNG, WebP, GIF, ...) as an upright BGR array, decoded whole; PhotoError
    if it is not one."""
    return decode_reduced(data, max_pixels, working_side=None).pixels


def decode_reduced(data: bytes, max_pixels: int = MAX_PIXELS, max_jpeg_pixels: int = MAX_JPEG_PIXELS,
                   working_side: int | None = WORKING_SIDE) -> Decoded:
    """The photo encoded in ``data``, upright; a JPEG of up to ``max_jpeg_pixels`` decoded reduced, to no less
    than ``working_side`` pixels along its long side (None: decoded whole), where what is decoded may hold
    ``max_pixels``. The pixels are checked from the header, before anything is decoded (a small PNG can hold
    a decompression bomb), so Pillow's own check, which refuses any photo over 179 megapixels, is off."""
    from PIL import ExifTags, Image, UnidentifiedImageError

    if not data:
        raise PhotoError(f"the file is empty: {A_PHOTO} is needed", "empty")
    Image.MAX_IMAGE_PIXELS = None  # the pixels are checked below, by format
    try:
        with Image.open(io.BytesIO(data), formats=PHOTO_FORMATS) as image:  # reads the header only
            width, height = image.size
            reduced = image.format in JPEG_FORMATS and working_side is not None
            limit, words = _limit(image, reduced, max_pixels, max_jpeg_pixels)
            if width * height > limit:
                raise PhotoError(f"the image is {width} x {height} pixels; {words} is {limit:,} pixels", "too_large")
            scale = _draft(image, working_side, max_pixels) if reduced else 1
            if image.width * image.height > max_pixels:  # a JPEG that libjpeg reduces too little, or not at all
                raise PhotoError(f"the image is {width} x {height} pixels, decoded at {image.width} x {image.height}; "
                                 f"the limit is {max_pixels:,} pixels decoded", "too_large")
            orientation = _orientation(image)
            # Pillow loads a TIFF upright where it reads the orientation itself (EXIF, or XMP as most write it)
            turn = 1 if image.format == "TIFF" and ExifTags.Base.Orientation in image.getexif() else orientation
            rgb = image if image.mode == "RGB" else _eight_bit(image).convert("RGB")
            if turn in UPRIGHT:
                rgb = rgb.transpose(Image.Transpose[UPRIGHT[turn]])
            # tobytes is the fastest way out of Pillow (np.asarray takes twice as long on a 12 MP photo)
            pixels = np.frombuffer(rgb.tobytes(), np.uint8).reshape(rgb.height, rgb.width, 3)
    except PhotoError:
        raise
    except UnidentifiedImageError:
        if data.startswith(TIFF_SIGNATURES):  # a TIFF Pillow cannot open was called no image, as though a TIFF were not read
            raise PhotoError("the TIFF cannot be read: it is cut short or damaged, or its samples are of a kind no camera "
                             "writes (colour in 32 or 64 bits, or floating point); save it with 8 or 16 bits a sample",
                             "corrupt") from None
        if data[4:8] == b"ftyp" and data[8:12] in HEIF_BRANDS:  # an iPhone's photo, which oxeye detect called no image
            raise PhotoError("it is a HEIC photo, which is not read: make it a JPEG (an iPhone takes JPEGs where "
                             "Settings > Camera > Formats is Most Compatible)", "unsupported") from None
        raise PhotoError(f"not an image that can be read (send {A_PHOTO})", "not_image") from None
    except (OSError, SyntaxError, ValueError) as error:
        raise PhotoError(f"the image is truncated or corrupt ({error})", "corrupt") from None
    if scale == 1:  # a TIFF's header gives its size upright already where its own tags turn it, not where its XMP does
        return Decoded.whole(cv2.cvtColor(pixels, cv2.COLOR_RGB2BGR))
    turned = orientation in QUARTER_TURNS  # a JPEG's header gives its size as stored
    return Decoded(cv2.cvtColor(pixels, cv2.COLOR_RGB2BGR), scale, *((height, width) if turned else (width, height)))


def _orientation(image: Image.Image) -> int:
    """How ``image`` is to be turned upright (1 to 8, EXIF's numbers): as its EXIF says, else as its XMP says. Pillow reads
    XMP's tiff:Orientation only as most writers spell it: in single quotes, spaced or under another prefix, it was left
    out and the photo read sideways."""
    from PIL import ExifTags

    exif = image.getexif()  # with Pillow's reading of XMP where the EXIF has none
    if ExifTags.Base.Orientation in exif:
        return exif[ExifTags.Base.Orientation]
    packet = image.info.get("xmp") or image.info.get("XML:com.adobe.xmp") or b""
    return _xmp_orientation(packet.encode() if isinstance(packet, str) else packet)


def _xmp_orientation(packet: bytes) -> int:
    """The tiff:Orientation an XMP packet gives, as an attribute or an element, under whatever prefix it binds the TIFF
    namespace to; 1 where it gives none."""
    for prefix in XMP_TIFF_PREFIX.findall(packet):
        found = re.search(rb"\b" + re.escape(prefix) + rb":Orientation(?:\s*=\s*[\"']|\s*>)\s*([1-8])\s*[\"'<]", packet)
        if found:
            return int(found[1])
    return 1


def _limit(image: Image.Image, reduced: bool, max_pixels: int, max_jpeg_pixels: int) -> tuple[int, str]:
    """The most pixels ``image`` may hold, and what to call that limit. A JPEG decoded reduced costs little, but
    not a progressive one, which libjpeg holds whole as it decodes (3 bytes a pixel: 312 MB for 100 megapixels
    of flat grey, 0.6 MB of JPEG, decoded at an eighth): it is held to the limit of a photo decoded whole."""
    if not reduced:
        return max_pixels, "the limit"
    if image.info.get("progressive"):
        return max_pixels, "the limit for a progressive JPEG"
    return max_jpeg_pixels, "the limit for a JPEG"


def _draft(image: Image.Image, working_side: int, max_pixels: int) -> int:
    """The scale a JPEG is decoded at (``reduction``), set by Pillow's draft mode, reduced further where that
    would decode it to over ``max_pixels`` (a long panorama's windows are short: a 60,000 x 4,000 one was
    decoded at a half, 60 megapixels, and refused); 1 where libjpeg cannot reduce it (draft answers None)."""
    width, height = image.size
    fits = next((s for s in (1, *reversed(REDUCTIONS)) if width * height <= max_pixels * s * s), REDUCTIONS[0])
    scale = max(reduction(Tiling().window_side(width, height), working_side), fits)
    if scale == 1:
        return 1
    drafted = image.draft(None, (max(1, width // scale), max(1, height // scale)))
    return 1 if drafted is None else round(width / drafted[1][2])


def reduction(side: int, working_side: int | None) -> int:
    """The scale (1, 2, 4 or 8) a JPEG whose long side (a panorama's: its windows', ``Tiling.window_side``) is
    ``side`` pixels is decoded at: the most reduced that keeps that side at least ``working_side`` (None: 1,
    decoded whole)."""
    if working_side is None:
        return 1
    return next((s for s in REDUCTIONS if side // s >= working_side), 1)


def _eight_bit(image: Image.Image) -> Image.Image:
    """``image`` with greys of more than 8 bits brought to 8, where Pillow's own conversion clips every grey over 255
    to white and the photo read as blank: 16-bit ones (a scanner's PNG, a camera's TIFF) as OpenCV does, and 32-bit
    ones (``_deep_scale``) in proportion, from 0 to the scale they are written on."""
    from PIL import Image

    if image.mode.startswith("I;16"):
        return Image.fromarray((np.asarray(image, np.uint16) >> 8).astype(np.uint8), "L")
    if image.mode not in ("I", "F"):
        return image
    greys = np.asarray(image)
    if image.mode == "I" and hasattr(image, "tag_v2") and image.tag_v2.get(SAMPLE_FORMAT, (1,))[0] == 1:
        greys = greys.view(np.uint32)  # Pillow holds an unsigned TIFF's greys as signed: those over 2**31 were negative
    eight = np.clip(greys.astype(np.float64) * (255 / _deep_scale(greys)), 0, 255).round()
    return Image.fromarray(eight.astype(np.uint8), "L")


def _deep_scale(greys: np.ndarray) -> float:
    """The scale 32-bit greys are written on: the smallest of the usual ones that holds the brightest, 0 to 1 (floating
    point, as a float photo is written), 255 (cv2.imwrite of an 8-bit photo's floats), 65,535 (a 16-bit photo's held in
    32 bits, as Pillow's "I") or the 32 bits' whole range. A float photo of 0 to 1 read black, a full-range one white."""
    scales = ((1.0,) if greys.dtype.kind == "f" else ()) + (255.0, 65_535.0, 2.0**32 - 1)
    brightest = float(greys.max(initial=0))
    return next((scale for scale in scales if brightest <= scale), scales[-1])


def colourless(image: np.ndarray) -> bool:
    """Whether a BGR frame holds no colour (a black-and-white photo, a camera's night view): not one pixel in
    1,000 of a sample differs by over 4 levels between its channels, where in each real card photo, even on
    its table alone (a black card may lie on it), at least 1 in 8 does, and in each made grey none does."""
    blue, green, red = (image[::4, ::4, channel] for channel in range(3))
    spread = np.maximum(np.maximum(blue, green), red) - np.minimum(np.minimum(blue, green), red)  # np.ptp: 4.8 ms
    return np.count_nonzero(spread > 4) < 0.001 * spread.size


def read_image(path: Path, max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """A photo file as an upright BGR array, decoded whole; OSError naming the path when it is missing or not a photo."""
    return read_reduced(path, max_pixels, working_side=None).pixels


def read_reduced(path: Path, max_pixels: int = MAX_PIXELS, max_jpeg_pixels: int = MAX_JPEG_PIXELS,
                 working_side: int | None = WORKING_SIDE) -> Decoded:
    """A photo file decoded as ``decode_reduced`` decodes one (a large JPEG reduced); OSError naming the path
    when it is missing or not a photo."""
    path = Path(path)
    if path.is_dir():
        raise OSError(f"{path} is a folder: name a photo in it")
    if not path.exists():
        raise OSError(f"no such image: {path}")
    if not (path.is_file() or path.is_fifo()):  # a pipe is read (/dev/stdin, <(curl ...)); /dev/zero never ends
        raise OSError(f"{path} is neither a file nor a pipe: name a photo")
    try:
        return decode_reduced(path.read_bytes(), max_pixels, max_jpeg_pixels, working_side)
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
    """Why OpenCV cannot write a colour picture to ``path``, or None when it can (OpenCV 5 raises its own error
    for an unknown extension, where OpenCV 4 returned False; a .pgm or .pbm holds greys alone, and was refused
    only once the photo had been read, as though the drawing were too large for it)."""
    with opencv_quiet():
        colour = cv2.haveImageWriter(str(path)) and cv2.imencode(Path(path).suffix, np.zeros((1, 1, 3), np.uint8))[0]
    return None if colour else f"{path} does not name a picture to write: end it in .jpg or .png"


def write_picture(out: Path, picture: np.ndarray) -> None:
    """Write ``picture`` (BGR) to ``out``, encoded as its suffix says, whole or not at all (written aside, then moved
    into place): a full disk or a quota once left half a picture there, an earlier one lost; OSError saying why."""
    if problem := picture_problem(out):
        raise OSError(problem)
    with opencv_quiet():  # OpenCV logs a line of its own where it cannot encode
        encoded, data = cv2.imencode(out.suffix, picture)
    if not encoded:
        raise OSError(f"cannot write {out}: OpenCV cannot encode a {picture.shape[1]} x {picture.shape[0]} colour "
                      f"picture as {out.suffix} (a JPEG holds 65,500 pixels a side, a WebP 16,383): name a .png")
    with folder_made_for(out.parent):
        try:
            with written_aside(out) as partial:
                partial.write_bytes(data.tobytes())
        except OSError as error:
            raise OSError(f"cannot write {out}: {error.strerror}") from None


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


@contextmanager
def folder_made_for(folder: Path) -> Iterator[None]:
    """``folder`` made (``make_folder``) for the block, and the folders made for it removed again where the block
    fails: a drawing that could not be written left the folders named for it behind, empty."""
    missing = [p for p in (folder, *folder.parents) if not p.exists()]  # deepest first
    try:
        make_folder(folder)
        yield
    except BaseException:
        with suppress(OSError):  # one that another process has written in meanwhile is left, with those above it
            for made in missing:
                made.rmdir()
        raise


@contextmanager
def written_aside(path: Path) -> Iterator[Path]:
    """A name beside ``path`` to write to, moved onto ``path`` only once the block ends without an error
    and removed otherwise: a model or build interrupted as it is written is never left half written
    where a later command reads it as whole."""
    partial = path.with_name(f".{path.name}.partial")
    try:
        yield partial
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM (kill, timeout, a service manager's stop) ends the block as Ctrl-C does, so that what it was
    making aside is removed: it ended the process at once, leaving a half-made build or export beside its
    place. Outside the main thread, which alone may set a handler, the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
