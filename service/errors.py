"""The service's own error: a message fit to show a user, and the HTTP status that says why."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable


class ServiceError(ValueError):
    """A request the service cannot carry out (the ledger's 404, 409, 401 ...)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


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
