"""JSON whose numbers hold money or shares exactly: read as Decimal, digit for digit, not as floats, and
written back as the very numbers read (a request's body, a table's rules as stored and answered)."""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine, Mapping
from decimal import Decimal
from typing import Any

from fastapi import Request, Response
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute


def exact_loads(text: str | bytes) -> Any:
    """JSON text read with its non-whole numbers as Decimal: a float read 0.30000000000000001 as 0.3."""
    return json.loads(text, parse_float=Decimal)


def exact_dumps(value: Any) -> str:
    """Plain data as compact JSON text, a Decimal written as the number it is, digit for digit: json.dumps
    writes none (a TypeError, which a table's rules read by ``exact_loads`` met as a 500)."""
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError(f"{value} is no JSON number")
        return str(value)
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{_plain(str(key))}:{exact_dumps(entry)}" for key, entry in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(map(exact_dumps, value)) + "]"
    return _plain(value)


def _plain(value: Any) -> str:
    """A value without Decimals as compact JSON text, as Starlette's JSONResponse writes it."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


class ExactJSONResponse(JSONResponse):
    """A JSON answer whose Decimals are written as numbers digit for digit: FastAPI's response models write
    them as text ("0.05"), its encoder as floats."""

    def render(self, content: Any) -> bytes:
        return exact_dumps(content).encode("utf-8")


class _ExactNumbers(Request):
    """A request whose JSON body's numbers are read as Decimal, digit for digit: read as floats, a stake of
    0.30000000000000001 was settled as 0.3, a payout of 30.0000000000000001 graded as 30."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = exact_loads(await self.body())
        return self._json


class ExactNumbersRoute(APIRoute):
    """A route given its JSON body as ``_ExactNumbers`` reads it."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """FastAPI's handler for this route, given each request as ``_ExactNumbers``."""
        handler = super().get_route_handler()

        async def exact(request: Request) -> Response:
            return await handler(_ExactNumbers(request.scope, request.receive))

        return exact
