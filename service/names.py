"""A person's name as the service and the command line read, keep and tell it apart, and the names they refuse
(standard library only, as ``oxeye settle`` needs nothing more)."""

from __future__ import annotations

import re
import unicodedata

# The most characters a name holds, counted in its normal form, as kept (the ledger's columns hold as many).
NAME_CHARS = 100
# What shows a name's letters in another order than they are kept, as a character class: "a\u202enn" shows "ann"
# reversed in part, a seat or trainee looking like another (Unicode's embeddings, overrides and isolates).
REORDERING = r"\u202a-\u202e\u2066-\u2069"
# What no one sees around a name: spaces (str.isspace's, a no-break one among them), zero-width ones, the joiners,
# the direction marks, embeddings and isolates, a word joiner and a byte-order mark, as a phone's keyboard or a
# paste leaves them (a chat app's copy wraps a name in isolates).
_INVISIBLE = rf"\s\u200b-\u200f{REORDERING}\u2060\ufeff"
_AROUND = re.compile(rf"^[{_INVISIBLE}]+|[{_INVISIBLE}]+$")
_SPACES = re.compile(r"\s+")  # within a name: "Mary  Ann", "Mary\u00a0Ann" (a paste from a document) are "Mary Ann"


def normal_name(name: str) -> str:
    """A name as kept and looked up: in NFC, without what no one sees around it, one plain space between its words.
    "Zoë" typed as one character (U+00EB) or as "e" and a combining diaeresis, as some keyboards and pastes send it,
    "ana" or "ana " with the space a phone's keyboard leaves, made two seats, two trainees, that look the same."""
    return _SPACES.sub(" ", _AROUND.sub("", unicodedata.normalize("NFC", name)))


def plain_name(name: str) -> str:
    """A name in its normal form, or a ValueError saying why it is refused: one of spaces alone (the engine settles
    no one so named, so such a seat could never play), of characters no one sees alone (a zero-width space: a
    trainee, a seat, shown blank), holding a control character (a NUL, which PostgreSQL will not store; a line
    break, which splits the command line's lines), a reordering within it (a look-alike), or U+FFFD, what a path's
    %ff is decoded to (a record was answered for a trainee so named)."""
    if not name.strip():
        raise ValueError("a name needs more than spaces")
    if all(unicodedata.category(c) in ("Cf", "Zs", "Zl", "Zp") or c.isspace() for c in name):
        raise ValueError("a name needs a character one can see: a zero-width one is none")
    if any(unicodedata.category(c) == "Cc" for c in name):
        raise ValueError("a name cannot hold a control character (a line break, a tab, a NUL)")
    if re.search(f"[{REORDERING}]", normal_name(name)):
        raise ValueError("a name cannot hold a direction override, embedding or isolate (U+202A to U+202E, U+2066 to "
                         "U+2069), which shows its letters in another order than they are kept")
    if "\ufffd" in name:
        raise ValueError("a name cannot hold U+FFFD, which stands for bytes that were no UTF-8: send it in UTF-8 "
                         "(in a path, each byte percent-encoded: José as Jos%C3%A9)")
    return normal_name(name)
