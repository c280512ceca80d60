"""Photos decoded one way for the command line and the service: upright, and refused with a clear error."""

from __future__ import annotations

import io
import json
import os
import re
import resource
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image, features

from oxeye.models import DEFAULT_MODEL
from oxeye.service.cli import main
from oxeye.service.settings import Settings
from oxeye.vision.detector import Detector
from oxeye.vision.images import (MAX_JPEG_PIXELS, PHOTO_FORMATS, PhotoError, colourless, decode_photo, decode_reduced, make_folder,
                                 read_image, write_picture)
from oxeye.vision.reading import Hand, Item, Reading
from readings import jpeg_header_saying, portrait_as_a_phone_stores_it, tagged_in_xmp


def _bomb(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("1", (width, height)).save(buffer, "PNG")  # tens of kB that would decode to many megapixels
    return buffer.getvalue()


def test_a_phone_photo_is_turned_upright_as_its_exif_says() -> None:
    upright = decode_photo(portrait_as_a_phone_stores_it())
    assert upright.shape == (200, 100, 3)
    assert upright[:40].mean() > 240 and upright[60:].mean() < 15


@pytest.mark.parametrize(("name", "image"), [
    ("plain.jpg", np.random.default_rng(0).integers(0, 256, (120, 160, 3), dtype=np.uint8)),
    # 16-bit greys, which Pillow's own conversion clipped to white: the photo read as blank
    ("grey16.png", np.random.default_rng(0).integers(0, 65536, (120, 160), dtype=np.uint16)),
    ("grey16.tiff", np.random.default_rng(0).integers(0, 65536, (120, 160), dtype=np.uint16)),
])
def test_a_photo_reads_as_opencv_decodes_it(tmp_path: Path, name: str, image: np.ndarray) -> None:
    """The same pixels OpenCV gives, so figures measured before the switch to Pillow stand."""
    path = tmp_path / name
    cv2.imwrite(str(path), image)
    assert np.array_equal(read_image(path), cv2.imread(str(path), cv2.IMREAD_COLOR))


@pytest.mark.parametrize(("data", "reason", "message"), [
    (b"", "empty", "the file is empty: a JPEG, PNG, WebP, GIF, BMP or TIFF photo is needed"),  # once "JPEG or PNG"
    (b"these are notes", "not_image", "not an image that can be read (send a JPEG, PNG, WebP, GIF, BMP or TIFF photo)"),
    (cv2.imencode(".jpg", np.full((240, 320, 3), 90, np.uint8))[1].tobytes()[:400], "corrupt", "truncated or corrupt"),
    (_bomb(4000, 3000), "too_large", "4000 x 3000 pixels"),
    # over Pillow's own limit, which raised on opening: said without the size
    (_bomb(20000, 10000), "too_large", "the image is 20000 x 10000 pixels; the limit is 4,000,000 pixels"),
])
def test_what_is_not_a_photo_to_read_says_why(data: bytes, reason: str, message: str) -> None:
    with pytest.raises(PhotoError, match=re.escape(message)) as raised:
        decode_photo(data, max_pixels=4_000_000)
    assert raised.value.reason == reason


def _saved_as(kind: str) -> bytes:
    """An 80 x 60 photo of noise in Pillow's format ``kind``."""
    pixels = np.random.default_rng(0).integers(0, 256, (60, 80, 3), dtype=np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, kind)
    return buffer.getvalue()


@pytest.mark.parametrize("kind", PHOTO_FORMATS)
def test_each_format_a_refusal_names_is_read(kind: str) -> None:
    """The refusals named JPEG, PNG and WebP alone, though GIF, BMP and TIFF were read as well."""
    assert decode_photo(_saved_as(kind)).shape == (60, 80, 3)


@pytest.mark.parametrize("kind", [
    "EPS",  # handed to Ghostscript where it is installed; refused as "truncated or corrupt" where not
    "TGA",  # read, though no refusal named it
    pytest.param("AVIF", marks=pytest.mark.skipif(not features.check("avif"), reason="Pillow reads no AVIF here")),
])
def test_a_format_no_refusal_names_is_not_decoded(kind: str) -> None:
    with pytest.raises(PhotoError, match=re.escape("not an image that can be read (send a JPEG, PNG")) as raised:
        decode_photo(_saved_as(kind))
    assert raised.value.reason == "not_image"


@pytest.mark.parametrize(("name", "data", "limit"), [
    ("huge.png", _bomb(11000, 10000), "the image is 11000 x 10000 pixels; the limit is 100,000,000 pixels"),
    # over 250 megapixels, a 200-megapixel phone's with room (one over Pillow's own 179 was refused in its words)
    ("huge.jpg", jpeg_header_saying(20000, 15000),
     f"the image is 20000 x 15000 pixels; the limit for a JPEG is {MAX_JPEG_PIXELS:,} pixels"),
])
def test_a_photo_over_its_limit_is_refused_in_one_line(tmp_path: Path, name: str, data: bytes, limit: str) -> None:
    """Pillow warns on stderr of a decompression bomb over 89 megapixels: the refusal was three lines."""
    photo = tmp_path / name
    photo.write_bytes(data)
    done = subprocess.run([sys.executable, "-m", "oxeye.service.cli", "detect", str(photo)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == f"oxeye detect: error: cannot read {photo}: {limit}\n"


def test_a_photo_whose_exif_is_cut_short_is_read_without_pillows_warnings(tmp_path: Path) -> None:
    """Pillow warns on stderr of EXIF it cannot read whole ("Corrupt EXIF data", "Truncated File Read"), as an
    editing app can leave it: oxeye detect's answer came with two lines of Pillow's after it."""
    exif = Image.Exif()
    exif[0x010F] = "A phone maker"  # the camera's make, stored after the tags: cut short below
    photo = tmp_path / "edited.jpg"
    Image.fromarray(np.zeros((60, 80, 3), np.uint8)).save(photo, "JPEG", exif=exif.tobytes()[:-8])
    done = subprocess.run([sys.executable, "-m", "oxeye.service.cli", "detect", str(photo)], capture_output=True,
                          text=True, timeout=60)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == f"{photo}: 0 items in 0 hands\n"


def test_a_photo_is_read_from_a_pipe(tmp_path: Path) -> None:
    """cat photo.jpg | oxeye detect /dev/stdin, or <(curl ...): a pipe was 'no such image'."""
    image = np.random.default_rng(2).integers(0, 256, (60, 80, 3), dtype=np.uint8)
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    writer = threading.Thread(target=pipe.write_bytes, args=(cv2.imencode(".png", image)[1].tobytes(),), daemon=True)
    writer.start()
    assert np.array_equal(read_image(pipe), image)
    writer.join()
    with pytest.raises(OSError, match="^/dev/zero is neither a file nor a pipe: name a photo$"):  # never ends
        read_image(Path("/dev/zero"))


def test_oxeye_detect_reads_the_photo_piped_in_where_it_is_named_dash(tmp_path: Path) -> None:
    """`cat photo.jpg | oxeye detect -`, as most commands read stdin, said 'no such image: -'; what is piped in
    is refused as a named photo is, in one line, and a file called - is still read as ./-."""
    photo = tmp_path / "table.png"
    photo.write_bytes(cv2.imencode(".png", np.full((240, 320, 3), 90, np.uint8))[1].tobytes())
    detect = [sys.executable, "-m", "oxeye.service.cli", "detect"]

    def piped(data: bytes, *args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([*detect, *args], input=data, capture_output=True, timeout=60)

    named = subprocess.run([*detect, str(photo), "--json"], capture_output=True, timeout=60)
    done = piped(photo.read_bytes(), "-", "--json")
    assert (done.returncode, done.stdout, done.stderr) == (0, named.stdout, b"")
    assert piped(photo.read_bytes(), "-").stdout == b"stdin: 0 items in 0 hands\n"
    for data, said in ((b"", "- reads the photo piped in, and nothing came: oxeye detect - < photo.jpg"),
                       (b"hello", "cannot read the photo piped in: not an image that can be read")):
        done = piped(data, "-")
        assert done.returncode == 2 and done.stdout == b""
        assert done.stderr.decode().startswith(f"oxeye detect: error: {said}") and done.stderr.count(b"\n") == 1
    (tmp_path / "-").write_bytes(photo.read_bytes())
    done = subprocess.run([*detect, "./-"], cwd=tmp_path, capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    assert (done.returncode, done.stdout) == (0, b"-: 0 items in 0 hands\n")


def test_oxeye_detect_refuses_a_truncated_photo_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """OpenCV would read the part that arrived and pad the rest with grey, silently."""
    image = np.random.default_rng(1).integers(0, 256, (480, 640, 3), dtype=np.uint8)
    data = cv2.imencode(".jpg", image)[1].tobytes()
    photo = tmp_path / "half.jpg"
    photo.write_bytes(data[: len(data) // 2])
    assert cv2.imread(str(photo)) is not None  # what read_image once used, and accepted
    assert main(["detect", str(photo)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"oxeye detect: error: cannot read {photo}: the image is truncated or corrupt") and err.count("\n") == 1


def test_oxeye_detect_does_not_draw_over_the_photo_it_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--annotate naming the photo itself (or a path to it) replaced the user's photo with the drawing."""
    photo = tmp_path / "table.jpg"
    photo.write_bytes(cv2.imencode(".jpg", np.full((240, 320, 3), 90, np.uint8))[1].tobytes())
    before = photo.read_bytes()
    for out in (photo, tmp_path / ".." / tmp_path.name / "table.jpg"):
        assert main(["detect", str(photo), "--annotate", str(out)]) == 2
        err = capsys.readouterr().err
        assert err == f"oxeye detect: error: --annotate {out} is the photo being read: name another picture to draw on\n"
    assert photo.read_bytes() == before


def _files_of_at_most(size: int) -> Callable[[], None]:
    """A ``preexec_fn`` for a process that may write files of at most ``size`` bytes (a quota, a nearly full disk):
    a write past it fails (EFBIG) rather than ending the process."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    return limit


@pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no model shipped yet in models/")
def test_a_drawing_that_cannot_be_written_whole_leaves_the_one_before(tmp_path: Path) -> None:
    """--annotate wrote straight to OUT: where the disk (here a file size limit) stopped it partway, OUT was left
    half a picture, the earlier drawing there lost."""
    photo = tmp_path / "table.jpg"
    photo.write_bytes(cv2.imencode(".jpg", np.random.default_rng(3).integers(0, 256, (480, 640, 3), np.uint8))[1])
    out = tmp_path / "drawn.jpg"
    out.write_bytes(before := cv2.imencode(".jpg", np.full((48, 64, 3), 90, np.uint8))[1].tobytes())
    done = subprocess.run([sys.executable, "-m", "oxeye.service.cli", "detect", str(photo), "--annotate", str(out)],
                          capture_output=True, text=True, timeout=120, preexec_fn=_files_of_at_most(50_000),
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert (done.returncode, done.stderr) == (2, f"oxeye detect: error: cannot write {out}: File too large\n")
    assert out.read_bytes() == before and sorted(tmp_path.iterdir()) == [out, photo]


@pytest.mark.parametrize("below", ["out", "out/deeper"])
def test_a_folder_below_a_file_is_refused_naming_the_file(tmp_path: Path, below: str) -> None:
    """mkdir's own error said 'File exists: photo.jpg' (or 'Not a directory'), as though the folder were there."""
    photo = tmp_path / "photo.jpg"
    photo.write_bytes(b"a photo")
    with pytest.raises(OSError) as raised:
        make_folder(photo / below)
    assert str(raised.value) == f"cannot make the folder {photo / below}: {photo} is a file"
    make_folder(tmp_path / "new" / "folder")
    assert (tmp_path / "new" / "folder").is_dir()


def test_a_folder_that_cannot_be_made_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """serve --data under a folder it may not write said "[Errno 1] Operation not permitted: 'imm/new'"."""
    def refuse(self: Path, **_: object) -> None:
        raise PermissionError(1, "Operation not permitted", str(self))
    monkeypatch.setattr(Path, "mkdir", refuse)
    with pytest.raises(OSError) as raised:
        make_folder(tmp_path / "imm" / "new")
    assert str(raised.value) == f"cannot make the folder {tmp_path / 'imm' / 'new'}: Operation not permitted"


def test_oxeye_detect_counts_one_item_in_one_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The summary read '1 items in 1 hands'."""
    photo = tmp_path / "one.png"
    photo.write_bytes(cv2.imencode(".png", np.full((60, 80, 3), 90, np.uint8))[1].tobytes())
    one = Reading(80, 60, [Item("AS", "card", (1, 2, 30, 40), 0.9, hand=0)], [Hand(0, [0], ["AS"], (1, 2, 30, 40))])
    monkeypatch.setattr(Detector, "read", lambda *_, **__: one)
    monkeypatch.setattr(Detector, "__init__", lambda *_: None)
    assert main(["detect", str(photo)]) == 0
    assert capsys.readouterr().out.splitlines()[:2] == [f"{photo}: 1 item in 1 hand", "  hand 0: AS  (incomplete: 1 of 5)"]


def _jpeg(image: np.ndarray) -> bytes:
    return cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes()


def test_a_large_jpeg_is_decoded_reduced_and_says_by_how_much() -> None:
    """libjpeg decodes a large JPEG at 1/2, 1/4 or 1/8 directly: the most reduced that keeps the long side at
    least the working side, which the pixels then show as a smaller picture of the same photo."""
    image = cv2.resize(np.random.default_rng(0).integers(0, 256, (15, 25, 3), dtype=np.uint8), (1000, 600),
                       interpolation=cv2.INTER_NEAREST)
    data = _jpeg(image)
    for working_side, scale in [(100, 8), (126, 4), (300, 2), (501, 1), (None, 1)]:
        photo = decode_reduced(data, working_side=working_side)
        assert (photo.scale, photo.width, photo.height) == (scale, 1000, 600)
        assert photo.pixels.shape == (600 // scale, 1000 // scale, 3)
        shrunk = cv2.resize(image, (1000 // scale, 600 // scale), interpolation=cv2.INTER_AREA)
        assert np.abs(photo.pixels.astype(int) - shrunk).mean() < 4
    assert np.array_equal(decode_reduced(data, working_side=None).pixels, decode_photo(data))


@pytest.mark.parametrize(("width", "height"), [(1200, 200), (200, 1200)])
def test_a_panorama_is_reduced_no_further_than_keeps_its_windows_the_working_side(width: int, height: int) -> None:
    """A panorama is read in windows of an ordinary frame's shape (vision.tiles), here 267 pixels long: reduced by
    its own long side, at an eighth, its windows were 33 pixels long; at a half they are 133."""
    photo = decode_reduced(_jpeg(np.full((height, width, 3), 90, np.uint8)), working_side=100)
    assert (photo.scale, photo.width, photo.height, photo.pixels.shape) == (2, width, height, (height // 2, width // 2, 3))


def test_a_phone_s_jpeg_with_a_depth_map_after_it_is_decoded_reduced_too() -> None:
    """Pillow opens a JPEG holding more pictures (a depth or gain map, as phones write) as an MPO: it was
    decoded whole, and a 48-megapixel one refused."""
    buffer = io.BytesIO()
    depth = Image.new("RGB", (50, 30))
    Image.new("RGB", (1000, 600), (200, 10, 10)).save(buffer, "MPO", save_all=True, append_images=[depth])
    assert Image.open(io.BytesIO(buffer.getvalue())).format == "MPO"
    photo = decode_reduced(buffer.getvalue(), max_pixels=100_000, working_side=100)
    assert (photo.scale, photo.width, photo.height, photo.pixels.shape) == (8, 1000, 600, (75, 125, 3))


def test_a_phone_s_portrait_jpeg_decoded_reduced_is_upright_and_sized_as_shown() -> None:
    """Its width and height are the photo's as the phone shows it, turned, as its pixels are."""
    photo = decode_reduced(portrait_as_a_phone_stores_it(), working_side=25)
    assert (photo.scale, photo.width, photo.height, photo.pixels.shape) == (8, 100, 200, (25, 13, 3))
    assert photo.pixels[:5].mean() > 240 and photo.pixels[8:].mean() < 15


def test_a_jpeg_is_read_to_its_own_limit_where_another_format_is_decoded_whole_to_a_smaller_one() -> None:
    """A 48-megapixel phone JPEG was refused as a PNG of its size is: decoded reduced, it costs a sixteenth."""
    data = _jpeg(np.full((600, 1000, 3), 90, np.uint8))
    assert decode_reduced(data, max_pixels=100_000, working_side=100).pixels.shape == (75, 125, 3)
    with pytest.raises(PhotoError, match="the image is 1000 x 600 pixels; the limit is 100,000 pixels") as raised:
        decode_reduced(_bomb(1000, 600), max_pixels=100_000, working_side=100)
    assert raised.value.reason == "too_large"
    with pytest.raises(PhotoError, match="the image is 1000 x 600 pixels; the limit is 100,000 pixels"):
        decode_reduced(data, max_pixels=100_000, working_side=None)
    with pytest.raises(PhotoError, match="1000 x 600 pixels, decoded at 125 x 75; the limit is 5,000 pixels decoded"):
        decode_reduced(data, max_pixels=5_000, working_side=100)


def test_a_progressive_jpeg_is_held_to_the_limit_of_a_photo_decoded_whole() -> None:
    """libjpeg holds a progressive JPEG's whole coefficients as it decodes, even at an eighth: 100 megapixels of
    flat grey, 0.6 MB sent, took 312 MB; a baseline one (as phones write) 62 MB."""
    image = np.full((600, 1000, 3), 90, np.uint8)
    progressive = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])[1].tobytes()
    with pytest.raises(PhotoError, match="1000 x 600 pixels; the limit for a progressive JPEG is 500,000 pixels"):
        decode_reduced(progressive, max_pixels=500_000, working_side=100)
    small = decode_reduced(progressive, max_pixels=600_000, working_side=100)  # within it, decoded reduced still
    assert (small.scale, small.pixels.shape) == (8, (75, 125, 3))
    assert decode_reduced(_jpeg(image), max_pixels=500_000, working_side=100).scale == 8


def test_a_200_megapixel_jpeg_is_decoded_at_an_eighth_from_past_pillows_own_limit() -> None:
    """Pillow refuses any photo over 179 megapixels on opening it (DecompressionBombError): this is read from its
    header, then decoded at an eighth."""
    phone = decode_reduced(jpeg_header_saying(16320, 12240))
    assert (phone.scale, phone.width, phone.height, phone.pixels.shape) == (8, 16320, 12240, (1530, 2040, 3))


def test_oxeye_detect_leaves_no_folder_behind_where_its_drawing_cannot_be_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """--annotate made the folders named for the drawing, then left them behind, empty, where it could not be encoded
    (a panorama wider than a JPEG holds) or written (a full disk)."""
    photo = tmp_path / "wide.png"
    photo.write_bytes(cv2.imencode(".png", np.full((10, 66_000, 3), 90, np.uint8))[1].tobytes())
    monkeypatch.setattr(Detector, "read", lambda *_, **__: Reading(66_000, 10, [], []))
    monkeypatch.setattr(Detector, "__init__", lambda *_: None)
    out = tmp_path / "new" / "deeper" / "drawn.jpg"
    assert main(["detect", str(photo), "--annotate", str(out)]) == 2
    assert "OpenCV cannot encode a 66000 x 10 colour picture as .jpg" in capsys.readouterr().err
    assert sorted(tmp_path.iterdir()) == [photo]

    def full_disk(*_: object) -> None:
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(Path, "write_bytes", full_disk)
    with pytest.raises(OSError, match="No space left on device"):
        write_picture(out, np.zeros((4, 4, 3), np.uint8))
    assert sorted(tmp_path.iterdir()) == [photo]


@pytest.mark.parametrize(("width", "height", "scale"), [(60_000, 4_000, 4), (64_000, 3_000, 4), (30_000, 5_000, 2)])
def test_a_long_panorama_within_a_jpeg_s_limit_is_reduced_as_far_as_its_decoded_pixels_need(
        width: int, height: int, scale: int) -> None:
    """Its windows are short, so it was decoded at a half, or whole, to keep them the working side: a JPEG panorama of
    up to 250 megapixels, which README says is read, was refused by the service over 40 megapixels decoded."""
    panorama = decode_reduced(jpeg_header_saying(width, height), max_pixels=Settings().max_pixels)
    assert (panorama.scale, panorama.width, panorama.height) == (scale, width, height)
    assert panorama.pixels.shape[:2] == (-(-height // scale), -(-width // scale))


def _tiff_of(greys: np.ndarray, mode: str | None) -> bytes:
    """``greys`` as a TIFF written by OpenCV (``mode`` None) or by Pillow in its ``mode``."""
    if mode is None:
        return cv2.imencode(".tiff", greys)[1].tobytes()
    buffer = io.BytesIO()
    Image.fromarray(greys, mode).save(buffer, "TIFF")
    return buffer.getvalue()


@pytest.mark.parametrize(("scale", "dtype", "mode"), [
    (1 / 255, np.float32, None),  # cv2.imwrite of a float photo: read black
    (1.0, np.float32, None),  # of an 8-bit photo's floats
    (1 / 255, np.float32, "F"),
    (2**24, np.uint32, None),  # the 32 bits' whole range: read white (Pillow held those over 2**31 as negative)
    (257, np.int32, "I"),  # a 16-bit photo's greys in Pillow's "I"
])
def test_a_tiff_of_32_bit_greys_is_read_on_the_scale_it_is_written_on(scale: float, dtype: type, mode: str | None) -> None:
    """Pillow's conversion to 8 bits clipped 32-bit greys to 0 to 255: most photos written so read blank, no item in them."""
    greys = np.random.default_rng(0).integers(0, 256, (60, 80), dtype=np.uint8)
    photo = decode_photo(_tiff_of((greys * np.float64(scale)).astype(dtype), mode))
    assert np.abs(photo.astype(int) - greys[..., None]).max() <= 1


def test_a_tiff_of_colour_in_32_bit_floats_is_refused_as_one() -> None:
    """It was 'not an image that can be read (send a JPEG, ... or TIFF photo)', as though a TIFF were not read."""
    floats = np.random.default_rng(0).random((60, 80, 3), dtype=np.float32)
    with pytest.raises(PhotoError, match=r"^the TIFF cannot be read: .*\(colour in 32 or 64 bits, or floating point\); "
                                         r"save it with 8 or 16 bits a sample$"):
        decode_photo(_tiff_of(floats, None))


@pytest.mark.parametrize("kind", ["JPEG", "PNG", "WebP", "TIFF"])
@pytest.mark.parametrize("description", [
    """<rdf:Description rdf:about="" xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Orientation="6"/>""",
    """<rdf:Description rdf:about='' xmlns:tiff='http://ns.adobe.com/tiff/1.0/' tiff:Orientation='6'/>""",
    """<rdf:Description rdf:about="" xmlns:t="http://ns.adobe.com/tiff/1.0/" t:Orientation = "6"/>""",
    """<rdf:Description rdf:about="" xmlns:tiff="http://ns.adobe.com/tiff/1.0/"><tiff:Orientation> 6 </tiff:Orientation>
    </rdf:Description>""",
])
def test_a_photo_whose_xmp_alone_says_how_it_is_turned_is_read_upright_and_sized_as_shown(kind: str, description: str) -> None:
    """Pillow reads XMP's tiff:Orientation only as most writers spell it: in single quotes, spaced or under another
    prefix the photo was read sideways; and a TIFF turned by its XMP was said to be as wide as it is stored."""
    data = tagged_in_xmp(kind, description)
    for working_side in (None, 25):
        photo = decode_reduced(data, working_side=working_side)
        rows, columns = photo.pixels.shape[:2]
        assert (photo.width, photo.height) == (100, 200) and rows > columns
        assert photo.pixels[: rows // 10].mean() > 240 and photo.pixels[rows // 3:].mean() < 15


def test_oxeye_detect_gives_a_photo_turned_by_its_xmp_alone_as_shown(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Its width and height, as the JSON contract has them, are the upright photo's."""
    photo = tmp_path / "portrait.jpg"
    photo.write_bytes(tagged_in_xmp("JPEG", "<rdf:Description rdf:about='' "
                                              "xmlns:tiff='http://ns.adobe.com/tiff/1.0/' tiff:Orientation='6'/>"))
    monkeypatch.setattr(Detector, "read", lambda _, pixels, **__: Reading(pixels.shape[1], pixels.shape[0], [], []))
    monkeypatch.setattr(Detector, "__init__", lambda *_: None)
    assert main(["detect", str(photo), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"width": 100, "height": 200, "items": [], "hands": []}


def test_oxeye_detect_says_an_iphone_s_heic_photo_is_not_read_and_what_is(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """It was 'cannot read photo.heic as an image', nothing of which format would be read."""
    photo = tmp_path / "IMG_0001.HEIC"
    photo.write_bytes(b"\0\0\0\x18ftypheic\0\0\0\0mif1heic" + bytes(100))  # a HEIC's ISO BMFF header
    assert main(["detect", str(photo)]) == 2
    assert capsys.readouterr().err == (f"oxeye detect: error: cannot read {photo}: it is a HEIC photo, which is not read: "
                                       "make it a JPEG (an iPhone takes JPEGs where Settings > Camera > Formats is Most "
                                       "Compatible)\n")


@pytest.mark.parametrize("kind", ["GIF", "WEBP"])
def test_an_animated_photo_is_read_by_its_first_frame(kind: str) -> None:
    """README says so: the frame a viewer shows first, not the last decoded nor a blend of them."""
    frames = [Image.new("RGB", (40, 30), colour) for colour in ((200, 30, 30), (30, 200, 30), (30, 30, 200))]
    data = io.BytesIO()
    frames[0].save(data, kind, save_all=True, append_images=frames[1:], duration=100, loop=0, lossless=True)
    assert Image.open(io.BytesIO(data.getvalue())).n_frames == 3
    pixels = decode_photo(data.getvalue())
    assert pixels.shape == (30, 40, 3)
    assert np.abs(pixels.astype(int) - (30, 30, 200)).max() <= 8  # BGR: the first frame's red


def test_a_transparent_photo_is_read_by_the_colours_under_its_transparency() -> None:
    """README says so: a PNG's alpha is left out, not composed over a background."""
    under = np.zeros((20, 20, 4), np.uint8)
    under[..., :3] = (10, 120, 240)  # RGB, wholly transparent
    data = io.BytesIO()
    Image.fromarray(under, "RGBA").save(data, "PNG")
    assert (decode_photo(data.getvalue()) == (240, 120, 10)).all()


def test_a_frame_is_colourless_only_when_its_channels_agree_within_four_levels() -> None:
    """`colourless`, which doubts every suit, judges every fourth pixel each way: greys with channels up to 4
    levels apart (a camera's noise) are colourless; one sampled pixel in 1,000 apart by 5 is colour enough."""
    grey = np.repeat(np.random.default_rng(5).integers(0, 251, (400, 500, 1), dtype=np.uint8), 3, axis=2)
    grey[..., 2] += 4
    assert colourless(grey)
    for rows, found in ((12, False), (16, True)):  # 12 or 16 sampled pixels of 12,500
        tinted = grey.copy()
        tinted[:rows, :16, 1] = tinted[:rows, :16, 0] + 5
        assert colourless(tinted) is not found
