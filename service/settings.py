"""The service's settings: where data lives, the database URL, the API key, upload limits and the live source."""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from sqlalchemy.engine import URL
from oxeye.vision.images import MAX_JPEG_PIXELS

VERSION = metadata.version("oxeye")


@dataclass(frozen=True)
class Settings:
    """Everything `oxeye serve` can be told; the defaults serve one table-side machine."""

    data_dir: Path = Path("data")
    db_url: str | None = None  # a SQLAlchemy URL; default: SQLite in data_dir (WAL mode)
    api_key: str | None = None  # when set, endpoints that change the ledger need it in X-API-Key
    model: Path | None = None  # the detector (ONNX); default: the shipped models/oxeye.onnx
    max_upload_bytes: int = 50_000_000  # a phone's 48-megapixel JPEG is 10 to 25 MB, a 200-megapixel one up to 50
    max_pixels: int = 40_000_000  # decoded whole (PNG, WebP); checked from the header: no decompression bombs
    max_jpeg_pixels: int = MAX_JPEG_PIXELS  # a JPEG, decoded reduced (vision.images.WORKING_SIDE)
    readings: int = os.cpu_count() or 1  # photos and live frames decoded and read at once: each keeps a core busy
    settle_frames: int = 5  # live: frames a hand must read the same before it is scored
    source: str | None = None  # a camera index, video file or stream URL served annotated at /v1/stream.mjpg
    stream_rules: str = "gnau"  # the stream's house rules (a preset, or inline JSON)
    stream_banker: int = 0  # the hand the stream settles the others against
    warm_up: bool = False  # load the trainer's faces and the detector in the background at start-up (serve does)

    @property
    def database_url(self) -> str | URL:
        """The URL the ledger opens: ``--db``, or the data folder's file, its path kept whole (pasted into a URL's
        text, a folder 'what?' put the ledger in a file 'what', the rest read as a query, and 'a%20b' in 'a b')."""
        return self.db_url or URL.create("sqlite", database=str((self.data_dir / "oxeye.sqlite3").resolve()))
