"""Routes and answers whose JSON holds money or shares exactly (``exact_json``): a request's body read, and
an answer written, with its numbers digit for digit."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import HTTPException, Request, Response
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute

from oxeye.service.exact_json import Unplaced, exact_dumps, exact_loads


class ExactJSONResponse(JSONResponse):
    """A JSON answer whose Decimals are written as numbers digit for digit: FastAPI's response models write
    them as text ("0.05"), its encoder as floats."""

    def render(self, content: Any) -> bytes:
        return exact_dumps(content).encode("utf-8")


class _ExactNumbers(Request):
    """A request whose JSON body's numbers are read as Decimal, digit for digit: read as floats, a stake of
    0.30000000000000001 was settled as 0.3, a payout of 30.0000000000000001 graded as 30. A key given twice is
    refused in words of its own, as is JSON nested too deeply (FastAPI would say where, at the start, for want of
    a place)."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            try:
                self._json = exact_loads(await self.body())
            except Unplaced as error:
                raise HTTPException(422, f"the body is not valid JSON: {error}") from None
        return self._json


class ExactNumbersRoute(APIRoute):
    """A route given its JSON body as ``_ExactNumbers`` reads it."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """FastAPI's handler for this route, given each request as ``_ExactNumbers``."""
        handler = super().get_route_handler()

        async def exact(request: Request) -> Response:
            return await handler(_ExactNumbers(request.scope, request.receive))

        return exact
