"""The service's settings: where data lives, the database URL, the API key, upload limits and the live source."""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

VERSION = metadata.version("oxeye")


@dataclass(frozen=True)
class Settings:
    """Everything `oxeye serve` can be told; the defaults serve one table-side machine."""

    data_dir: Path = Path("data")
    db_url: str | None = None  # a SQLAlchemy URL; default: SQLite in data_dir (WAL mode)
    api_key: str | None = None  # when set, endpoints that change the ledger need it in X-API-Key
    model: Path | None = None  # the detector (ONNX); default: the shipped models/oxeye.onnx
    max_upload_bytes: int = 20_000_000
    max_pixels: int = 40_000_000  # checked from the header, before decoding: no decompression bombs
    readings: int = os.cpu_count() or 1  # photos and live frames decoded and read at once: each keeps a core busy
    settle_frames: int = 5  # live: frames a hand must read the same before it is scored
    source: str | None = None  # a camera index, video file or stream URL served annotated at /v1/stream.mjpg
    stream_rules: str = "gnau"  # the stream's house rules (a preset, or inline JSON)
    stream_banker: int = 0  # the hand the stream settles the others against

    @property
    def database_url(self) -> str:
        """The URL the ledger opens."""
        return self.db_url or f"sqlite:///{(self.data_dir / 'oxeye.sqlite3').resolve()}"
