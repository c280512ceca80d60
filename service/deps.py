"""Dependencies the routes are given: a database session per request, and the API-key check."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Header, Request
from sqlalchemy.orm import Session

from oxeye.service.errors import ServiceError


def session(request: Request) -> Iterator[Session]:
    """One ledger session for the request."""
    with request.app.state.sessions() as db:
        yield db


def require_key(request: Request, x_api_key: Annotated[str | None, Header()] = None) -> None:
    """Endpoints that change the ledger need the API key, when the service has one."""
    expected = request.app.state.settings.api_key
    if expected is not None and not (x_api_key and secrets.compare_digest(x_api_key, expected)):
        raise ServiceError("this endpoint changes the ledger: send the API key in the X-API-Key header", 401)


Db = Annotated[Session, Depends(session)]
KeyChecked = [Depends(require_key)]
