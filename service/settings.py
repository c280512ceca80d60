"""The service's settings: where data lives, the database URL, the API key and upload limits."""

from __future__ import annotations

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

    @property
    def database_url(self) -> str:
        """The URL the ledger opens."""
        return self.db_url or f"sqlite:///{(self.data_dir / 'oxeye.sqlite3').resolve()}"
