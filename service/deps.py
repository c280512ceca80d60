"""Dependencies the routes are given: a database session per request, the API-key check, the detector."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated

from fastapi import Depends, Header, Request
from sqlalchemy.orm import Session

from oxeye.models import DEFAULT_MODEL
from oxeye.service.errors import ServiceError

if TYPE_CHECKING:
    from starlette.datastructures import State

    from oxeye.vision.detector import Detector

_LOADING = threading.Lock()


def session(request: Request) -> Iterator[Session]:
    """One ledger session for the request."""
    with request.app.state.sessions() as db:
        yield db


def require_key(request: Request, x_api_key: Annotated[str | None, Header()] = None) -> None:
    """Endpoints that change the ledger need the API key, when the service has one; a wrong key is told
    apart from none (it was told to 'send the API key', as if it had not been)."""
    expected = request.app.state.settings.api_key
    if expected is None:
        return
    if not x_api_key:
        raise ServiceError("this endpoint changes the ledger: send the API key in the X-API-Key header", 401)
    # As bytes: compare_digest takes no str beyond ASCII, and a header arrives as its bytes read as Latin-1.
    if not secrets.compare_digest(x_api_key.encode("latin-1"), expected.encode()):
        raise ServiceError("the API key sent is not this server's (the one oxeye serve was started with --api-key)", 401)


def detector(state: State) -> Detector:
    """The app's detector, loaded once on first use (onnxruntime sessions serve many threads at once);
    503 while no model is there."""
    with _LOADING:
        if getattr(state, "detector", None) is None:
            from oxeye.vision.detector import Detector

            try:
                state.detector = Detector(state.settings.model or DEFAULT_MODEL)
            except OSError as error:
                raise ServiceError(f"photo reading is unavailable: {error}", 503) from None
    return state.detector


Db = Annotated[Session, Depends(session)]
KeyChecked = [Depends(require_key)]
