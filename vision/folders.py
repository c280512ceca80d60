"""Where oxeye keeps what it fetches or sets up (fetched decks, drawn faces, ultralytics' settings): beside a checkout's
code (git-ignored), or the user's cache folder where oxeye is installed, since site-packages may be read-only."""

import os
from pathlib import Path

_PROJECT = Path(__file__).resolve().parents[1]


def working_folder(checkout: str, installed: str) -> Path:
    """``checkout`` under the project in a checkout; else ``installed`` under $XDG_CACHE_HOME/oxeye (~/.cache/oxeye)."""
    if (_PROJECT / "pyproject.toml").is_file():
        return _PROJECT / checkout
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "oxeye" / installed
