"""Where the generator keeps fetched third-party art: a git-ignored cache beside the project."""

from pathlib import Path

DEFAULT_CACHE = Path(__file__).resolve().parent.parent / "data" / "decks"
