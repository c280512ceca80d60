"""The ``--source`` camera: a reader thread keeps only its newest frame, a task reads, steadies and annotates
that frame in a worker thread, and every viewer of /v1/stream.mjpg is handed the newest annotated JPEG.

At no step does anything queue: a frame that arrives while the last is still being read replaces
the one waiting, and a slow viewer skips to the newest picture. While no one watches, frames are let
go unread: the detector kept both cores busy for no one, beside the photos and drills served.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import cv2
import numpy as np
from starlette.concurrency import run_in_threadpool

from oxeye.service.latest import Latest
from oxeye.service.live import LiveTable
from oxeye.service.photo import annotated_jpeg
from oxeye.vision.images import PHOTO_FORMATS, Decoded, opencv_quiet, read_reduced

log = logging.getLogger("oxeye.stream")
FILE_FPS = 25.0  # a video file's pace when it does not say its own
READ_WAIT = 1.0  # seconds shutdown waits for a read under way (a stalled network camera's lasts 30 s)
REOPEN_WAIT = 2.0  # seconds between tries to open a camera or stream again once it gives no frame
DAMAGED_FRAMES = 25  # frames in a row of a video file that may fail to decode before it counts as ended


class Photo:
    """A photo as the source: its upright frame at every read. OpenCV opens a photo as a video of one frame
    as stored, its EXIF orientation left out: a phone's portrait photo was streamed and read on its side."""

    def __init__(self, frame: np.ndarray) -> None:
        self.frame = frame

    def read(self) -> tuple[bool, np.ndarray]:
        """The photo once more (a copy: each frame is its reader's)."""
        return True, self.frame.copy()

    def get(self, _property: int) -> float:
        """No property is known (a frame rate of 0 reads as none given)."""
        return 0.0

    def release(self) -> None:
        """Nothing is held."""


def open_source(spec: str) -> tuple[cv2.VideoCapture | Photo, bool]:
    """A camera index (digits), a video file, a photo or a stream URL, opened and its first frame read (a file's
    first that decodes, within ``DAMAGED_FRAMES``), and whether it is a file (which loops); OSError saying what
    is wrong when it cannot be."""
    is_file = _camera(spec) is None and "://" not in spec
    if is_file and Path(spec).is_dir():  # it was "no such video file", as if the path were mistyped
        raise OSError(f"{spec} is a folder, not a video file: name a video or photo in it")
    if is_file and not Path(spec).is_file():
        raise OSError(f"no such video file: {spec}")
    if is_file and (photo := _photo(Path(spec))) is not None:
        return photo, is_file
    capture = _capture(spec)
    readable = capture.isOpened() and (_decodable(capture) if is_file else capture.read())[0]
    if not readable:
        capture.release()
        raise OSError(f"cannot read video from {spec!r}: not a camera index, video file or stream OpenCV can open")
    if is_file:
        capture.set(cv2.CAP_PROP_POS_FRAMES, 0)
    return capture, is_file


def _decodable(capture: cv2.VideoCapture) -> tuple[bool, np.ndarray | None]:
    """A video file's next frame that decodes, within ``DAMAGED_FRAMES`` reads (a failed read was taken for
    the end, or for no video at all: a damaged recording was played up to its first bad frame and from the
    start again, for ever, or refused where that was its first)."""
    for _ in range(DAMAGED_FRAMES):
        ok, frame = capture.read()
        if ok:
            return ok, frame
    return False, None


def _photo(path: Path) -> Photo | None:
    """The file read as the service reads a photo (upright, refused in one line when broken) where it is one
    still picture in a format the service reads; None for a video, or an animation, which OpenCV plays (Pillow
    takes an MPEG video's elementary stream, .m1v or .m2v, for a picture: it was refused as a corrupt photo)."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path, formats=PHOTO_FORMATS) as image:
            if getattr(image, "is_animated", False):
                return None
    except UnidentifiedImageError:
        return None
    except (OSError, SyntaxError, ValueError, Image.DecompressionBombError):
        pass  # a photo, truncated or too large: read_reduced says which
    return Photo(read_reduced(path).pixels)  # streamed, and read, as decoded: a large JPEG reduced


def _capture(spec: str) -> cv2.VideoCapture:
    """``spec`` opened by OpenCV, quietly: its and FFmpeg's own warnings would be more lines on stderr
    (the caller says once what is wrong)."""
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")  # read when FFmpeg first opens something
    with opencv_quiet():
        return cv2.VideoCapture(spec if (index := _camera(spec)) is None else index)


def _camera(spec: str) -> int | None:
    """The camera index ``spec`` names, written in ASCII digits alone, else None: str.isdigit() took full-width '８'
    for camera 8, and '²', which int() then refused in its own words."""
    return int(spec) if spec.isascii() and spec.isdigit() else None


class Stream:
    """One opened source, read and annotated while the app runs: ``jpegs`` holds the newest picture."""

    def __init__(self, capture: cv2.VideoCapture | Photo, source: str, file: bool, table: LiveTable) -> None:
        """``source``: what ``capture`` was opened from; ``file``: whether it is a video file, which loops
        (a camera or stream that stops is opened again)."""
        self.capture, self.source, self.file, self.table = capture, source, file, table
        self.pace = 1 / (capture.get(cv2.CAP_PROP_FPS) or FILE_FPS) if file else 0.0  # a file plays at its own rate
        self.jpegs: Latest[bytes] = Latest()
        self._frames: Latest[np.ndarray] = Latest()
        self._stop = threading.Event()
        self._reader: threading.Thread | None = None
        self._annotator: asyncio.Task[None] | None = None
        self._viewers = 0

    async def start(self) -> None:
        """Start reading and annotating (from the app's event loop, at startup)."""
        loop = asyncio.get_running_loop()
        self._reader = threading.Thread(target=self._read, args=(loop,), name="oxeye-source", daemon=True)
        self._reader.start()
        self._annotator = asyncio.create_task(self._annotate())

    async def stop(self) -> None:
        """Stop the reader thread (``READ_WAIT`` at most: it releases the source once its read is done) and
        the annotating task, and end every viewer's stream."""
        self._stop.set()
        if self._reader is not None:
            await run_in_threadpool(self._reader.join, READ_WAIT)
        if self._annotator is not None:
            self._annotator.cancel()
        self.jpegs.close()

    @asynccontextmanager
    async def watching(self) -> AsyncIterator[int]:
        """One viewer's stay: frames are read while there is one. Yields the number of the picture it was
        shown last: none yet (0) beside other viewers, the newest shown at once; the newest where no one
        watched, so that it waits for a fresh one rather than one annotated before the stream rested."""
        shown = self.jpegs.count if not self._viewers else 0
        self._viewers += 1
        try:
            yield shown
        finally:
            self._viewers -= 1

    def _read(self, loop: asyncio.AbstractEventLoop) -> None:
        """The reader thread: hand each frame to the event loop, which keeps only the newest. It alone
        releases the source, as it ends: released by ``stop``, it was freed under a read still in it."""
        try:
            while not self._stop.is_set():
                ok, frame = self.capture.read()
                if not ok:
                    ok, frame = self._on_in_file() if self.file else self._reopen()
                if self._stop.is_set():  # stopped during the read: the event loop may be gone
                    return
                if not ok:
                    log.warning("the video source gave no more frames; the stream has ended")
                    loop.call_soon_threadsafe(self._frames.close)
                    return
                loop.call_soon_threadsafe(self._frames.put, frame)
                self._stop.wait(self.pace)
        finally:
            self.capture.release()

    def _on_in_file(self) -> tuple[bool, np.ndarray | None]:
        """The file's next frame that decodes (see ``_decodable``) after a read that failed, or at its end the
        first from its start again: sought back to, or opened anew where that gives none (a container that
        cannot seek)."""
        ok, frame = _decodable(self.capture)
        if not ok:
            self.capture.set(cv2.CAP_PROP_POS_FRAMES, 0)
            ok, frame = _decodable(self.capture)
        if not ok:
            ok, frame = self._open_again()
            ok, frame = (ok, frame) if ok else _decodable(self.capture)
        return ok, frame

    def _reopen(self) -> tuple[bool, np.ndarray | None]:
        """A camera or stream that gave no frame (a network camera's Wi-Fi dropped, a cable pulled) opened
        again every ``REOPEN_WAIT`` s until it gives one or the service stops: it ended the stream, every
        viewer told to restart the service. Viewers keep the last picture meanwhile."""
        log.warning("the video source %s gave no frame; opening it again every %.0f s", self.source, REOPEN_WAIT)
        while not self._stop.wait(REOPEN_WAIT):
            ok, frame = self._open_again()
            if ok:
                log.warning("the video source %s is back", self.source)
                return ok, frame
        return False, None

    def _open_again(self) -> tuple[bool, np.ndarray | None]:
        """The source released and opened anew, and its first frame."""
        self.capture.release()
        self.capture = _capture(self.source)
        return self.capture.read()

    async def _annotate(self) -> None:
        """Read, steady and annotate the newest frame, again and again, in a worker thread, while someone
        watches; once watched again, the table is steadied afresh (its hands may have changed meanwhile)."""
        seen, rested = 0, False
        while (newest := await self._frames.newer(seen)) is not None:
            seen, frame = newest
            if not self._viewers:
                rested = True
                continue
            if rested:
                self.table.restart()
                rested = False
            try:
                self.jpegs.put(await run_in_threadpool(self._picture, frame))
            except Exception:  # one bad frame must not end the stream
                log.exception("could not read frame %d of the video source", seen)
        self.jpegs.close()

    def _picture(self, frame: np.ndarray) -> bytes:
        steady, scored = self.table.frame(Decoded.whole(frame))
        return annotated_jpeg(frame, steady.reading, scored, steady.held)
