"""Routes whose JSON bodies hold money: their numbers are read as Decimal, digit for digit, not as floats."""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from decimal import Decimal
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute


class _ExactNumbers(Request):
    """A request whose JSON body's numbers are read as Decimal, digit for digit: read as floats, a stake of
    0.30000000000000001 was settled as 0.3, a payout of 30.0000000000000001 graded as 30."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = json.loads(await self.body(), parse_float=Decimal)
        return self._json


class ExactNumbersRoute(APIRoute):
    """A route given its JSON body as ``_ExactNumbers`` reads it."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """FastAPI's handler for this route, given each request as ``_ExactNumbers``."""
        handler = super().get_route_handler()

        async def exact(request: Request) -> Response:
            return await handler(_ExactNumbers(request.scope, request.receive))

        return exact
