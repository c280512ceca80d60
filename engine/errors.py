"""The engine's errors: all are ValueErrors, each with a message fit to show a user as is."""


class EngineError(ValueError):
    """Base of every error the engine raises for bad input."""


class ParseError(EngineError):
    """A card or tile code that cannot be read."""


class HandError(EngineError):
    """A hand or round that breaks the rules of the game: wrong size, mixed kinds, repeats."""


class RulesError(EngineError):
    """An unknown, ill-typed or inconsistent house-rule option."""
