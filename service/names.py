"""A person's name as the service and the command line keep it and tell names apart (standard library only,
as ``oxeye settle`` needs nothing more)."""

from __future__ import annotations

import re
import unicodedata

# What no one sees around a name: spaces (str.isspace's, a no-break one among them), zero-width ones, the joiners,
# the direction marks, a word joiner and a byte-order mark, as a phone's keyboard or a paste leaves them.
_AROUND = re.compile(r"^[\s\u200b-\u200f\u2060\ufeff]+|[\s\u200b-\u200f\u2060\ufeff]+$")
_SPACES = re.compile(r"\s+")  # within a name: "Mary  Ann", "Mary\u00a0Ann" (a paste from a document) are "Mary Ann"


def normal_name(name: str) -> str:
    """A name as kept and looked up: in NFC, without what no one sees around it, one plain space between its words.
    "Zoë" typed as one character (U+00EB) or as "e" and a combining diaeresis, as some keyboards and pastes send it,
    "ana" or "ana " with the space a phone's keyboard leaves, made two seats, two trainees, that look the same."""
    return _SPACES.sub(" ", _AROUND.sub("", unicodedata.normalize("NFC", name)))
