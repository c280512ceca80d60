"""The engine's errors: all are ValueErrors, each with a message fit to show a user as is."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal


class EngineError(ValueError):
    """Base of every error the engine raises for bad input."""


class ParseError(EngineError):
    """A card or tile code that cannot be read."""


class HandError(EngineError):
    """A hand or round that breaks the rules of the game: wrong size, mixed kinds, repeats."""


class RulesError(EngineError):
    """An unknown, ill-typed or inconsistent house-rule option."""


def written(value: object) -> str:
    """A value as its user wrote it, for an error: a Decimal (as JSON numbers are read) as its number, where its
    repr said Decimal('2.5'); a table's or list's entries alike; anything else as its repr."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{key!r}: {written(entry)}" for key, entry in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(written, value)) + "]"
    return repr(value)
