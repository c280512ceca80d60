"""The newest of a run of values (camera frames, annotated JPEGs) for readers that must never fall behind.

Nothing queues: a reader busy with one value and then asking again gets the newest, and the ones
it never saw are counted rather than kept. Used from the event loop only; another thread puts a
value through ``loop.call_soon_threadsafe``.
"""

from __future__ import annotations

import asyncio
from typing import Generic, TypeVar

T = TypeVar("T")


class Latest(Generic[T]):
    """The newest value put, numbered: the n-th value put is number n."""

    def __init__(self) -> None:
        self.count = 0
        self.closed = False
        self._value: T | None = None
        self._changed = asyncio.Event()

    def put(self, value: T) -> None:
        """Replace the value; readers waiting for a newer one wake."""
        self._value, self.count = value, self.count + 1
        self._wake()

    def close(self) -> None:
        """No more values: readers waiting now, and any to come, get None."""
        self.closed = True
        self._wake()

    async def newer(self, seen: int) -> tuple[int, T] | None:
        """The newest value and its number once it is newer than number ``seen``; None once closed."""
        while not self.closed and self.count <= seen:
            await self._changed.wait()
        return None if self.closed else (self.count, self._value)  # type: ignore[return-value]

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()
