"""The service's own error: a message fit to show a user, and the HTTP status that says why."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable


class ServiceError(ValueError):
    """A request the service cannot carry out (the ledger's 404, 409, 401 ...)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def refuse_empty(pairs: Iterable[tuple[str, object]], what: str) -> None:
    """Fields sent empty are refused, not read as not sent: a cleared rules field read a photo as gnau, a
    cleared banker as hand 0, without a word."""
    empty = sorted(name for name, value in pairs if value == "")
    if empty:
        raise ServiceError(sent_empty(empty, what), 422)


def sent_empty(names: list[str], what: str) -> str:
    """What fields ``names`` sent empty are told."""
    return f"{what}(s) {', '.join(map(repr, names))} sent empty: fill them in or leave them out for their defaults"


def refuse_unknown_or_repeated(given: Iterable[str], known: Iterable[str], what: str) -> None:
    """A field, key or option the request does not know is refused, not ignored: a misspelt
    ``onlookers`` or ``stakes`` would settle the round without those bets (422 where served). So is one
    given twice, as a form or query may hold it: the last one silently won, the first one's stakes lost."""
    given = list(given)
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise ServiceError(f"unknown {what}: {', '.join(map(repr, unknown))} (known: {', '.join(sorted(known))})", 422)
    repeated = sorted(name for name, count in Counter(given).items() if count > 1)
    if repeated:
        raise ServiceError(f"{what} given more than once: {', '.join(map(repr, repeated))}", 422)
