"""Building a small generated dataset for a test, the way a user would, without fetched decks."""

from __future__ import annotations

from pathlib import Path

from oxeye.service.cli import main


def build_scenes(out: Path, images: int, seed: int, imgsz: int) -> Path:
    """``oxeye dataset build`` into ``out`` in one process, with the project's own drawn decks only."""
    assert main(["dataset", "build", "--out", str(out), "--images", str(images), "--seed", str(seed),
                 "--imgsz", str(imgsz), "--drawn-only", "--workers", "1"]) == 0
    return out
