"""Where the generator keeps fetched third-party art: data/decks beside a checkout (git-ignored), or
the user's cache folder where oxeye is installed, never inside site-packages."""

import os
from pathlib import Path

_PROJECT = Path(__file__).resolve().parent.parent


def _cache_folder() -> Path:
    """data/decks in a checkout; else $XDG_CACHE_HOME/oxeye/decks (~/.cache): site-packages may be read-only."""
    if (_PROJECT / "pyproject.toml").is_file():
        return _PROJECT / "data" / "decks"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "oxeye" / "decks"


DEFAULT_CACHE = _cache_folder()
