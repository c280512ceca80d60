"""Where the generator keeps fetched third-party art: data/decks beside a checkout, else the user's cache."""

from oxeye.vision.folders import working_folder

DEFAULT_CACHE = working_folder("data/decks", "decks")
