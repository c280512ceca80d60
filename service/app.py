"""The FastAPI application: routes composed over the engine and the ledger, errors returned as data."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request, WebSocket, status
from fastapi.exceptions import RequestValidationError, WebSocketRequestValidationError
from fastapi.openapi.docs import get_redoc_html
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi_offline import FastAPIOffline
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from oxeye.engine import EngineError
from oxeye.service import routes_ledger, routes_live, routes_pages, routes_photo, routes_rules, routes_trainer, trainer
from oxeye.service.db import dispose, open_database
from oxeye.service.deps import detector
from oxeye.service.errors import ServiceError, sent_empty
from oxeye.service.schemas import Problem
from oxeye.service.settings import VERSION, Settings
from oxeye.service.uploads import BodyLimit
from oxeye.vision.images import A_PHOTO, make_folder

if TYPE_CHECKING:
    from starlette.datastructures import State

    from oxeye.service.stream import Stream
    from oxeye.vision.detector import Detector

# The methods a 405's Allow may name: HTTP's, less CONNECT and TRACE, which no route takes.
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
# Where fastapi_offline serves the docs pages' scripts, and what a page barred from other origins may still load.
DOCS_STATIC = "/static-offline-docs"
THIS_ORIGIN_ONLY = "default-src 'self' 'unsafe-inline' data: blob:"
# How a photo is sent, told to a client that sent one as a form's text.
AS_A_FILE = "as a file (a form part with a filename, as curl -F image=@photo.jpg sends it)"


def create_app(settings: Settings) -> FastAPI:
    """The app for these settings; the database opens (and its tables are made) here, and the live source
    with its model, so that one that cannot be read is an error before the service starts."""
    named = _named_model(settings)
    make_folder(settings.data_dir)
    sessions = open_database(settings.database_url)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        # 20 photos sent at once were all held decoded (6.8 GB of 40-megapixel ones), starving the event loop.
        app.state.readings = asyncio.Semaphore(settings.readings)
        if settings.warm_up:
            threading.Thread(target=_warm_up, args=(app.state,), name="oxeye-warm-up", daemon=True).start()
        if app.state.stream is not None:
            await app.state.stream.start()
        yield
        if app.state.stream is not None:
            await app.state.stream.stop()
        dispose(sessions)

    # /docs and /redoc with their scripts served from here: FastAPI's own load them from a CDN, a blank page
    # on a table's machine with no internet.
    app = FastAPIOffline(title="OxEye", version=VERSION, lifespan=lifespan, redoc_url=None,
                         description="Reads ox-counting hands, settles rounds and keeps the table ledger.")
    _redoc(app)
    app.state.settings = settings
    app.state.sessions = sessions
    app.state.detector = named
    app.state.stream = _stream(app) if settings.source is not None else None
    for routes in (routes_rules, routes_ledger, routes_trainer, routes_photo):
        # A request the framework refuses is answered as a Problem too: FastAPI documented its own {"detail"}; and
        # any of them may be sent a body over what it can hold (BodyLimit), which went undocumented.
        app.include_router(routes.router, responses={413: {"model": Problem}, 422: {"model": Problem}})
    app.include_router(routes_live.router)
    app.add_middleware(BodyLimit, max_upload_bytes=settings.max_upload_bytes)
    app.add_middleware(HeadAsGet)
    app.include_router(routes_pages.router)
    app.add_exception_handler(ServiceError, _service_error)
    app.add_exception_handler(EngineError, _bad_input)
    app.add_exception_handler(RequestValidationError, _invalid_request)
    app.add_exception_handler(WebSocketRequestValidationError, _invalid_socket)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _failure)
    _close_forms(app)
    return app


def _redoc(app: FastAPI) -> None:
    """/redoc as fastapi_offline serves it, from here, but barred from any other origin: ReDoc's script shows
    Redocly's logo from its CDN, a request to the internet from a page said to need none (offline, a broken
    image); refused, the logo is left out."""

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        page = get_redoc_html(openapi_url=app.openapi_url, title=f"{app.title} - ReDoc", with_google_fonts=False,
                              redoc_js_url=f"{DOCS_STATIC}/redoc.standalone.js", redoc_favicon_url=f"{DOCS_STATIC}/favicon.png")
        page.headers["Content-Security-Policy"] = THIS_ORIGIN_ONLY
        return page


def _close_forms(app: FastAPI) -> None:
    """The schema of each form the app takes (a photo's) closed to fields it does not name, as they are refused
    (422): it let any other field be sent, a client checking against it refused for one the schema allowed."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        schema = build()
        for operation in (o for path in schema["paths"].values() for o in path.values()):
            form = operation.get("requestBody", {}).get("content", {}).get("multipart/form-data")
            if form is not None:
                schema["components"]["schemas"][form["schema"]["$ref"].rsplit("/", 1)[-1]]["additionalProperties"] = False
        return schema

    app.openapi = openapi


def _warm_up(state: State) -> None:
    """The trainer's faces and the detector loaded now, beside the requests: the first deal after a start
    waited 2 to 5 s for the faces, and the first photo loaded the model. One that cannot be loaded is left
    for the first request that needs it to load, or to say why not, as it did before."""
    for name, load in (("the trainer's faces", trainer.faces), ("the detector", functools.partial(detector, state))):
        try:
            load()
        except Exception as error:  # the request that needs it says why
            logging.getLogger(__name__).warning("%s could not be loaded at start-up: %s", name, error)


def _named_model(settings: Settings) -> Detector | None:
    """The detector ``--model`` names, loaded now: a mistyped path (or a classifier's file) started a service
    whose every photo was a 503. Without one the shipped model is loaded on first use, 503 until trained."""
    if settings.model is None:
        return None
    from oxeye.vision.detector import Detector

    return Detector(settings.model)


def _stream(app: FastAPI) -> Stream:
    """The ``--source`` stream: its source opened first (the likelier mistake), then the model (if ``--model``
    named none) and rules."""
    from oxeye.service.live import LiveTable
    from oxeye.service.rules_files import rules_from_text
    from oxeye.service.stream import Stream, open_source

    settings: Settings = app.state.settings
    capture, is_file = open_source(settings.source)
    table = LiveTable(detector(app.state), rules_from_text(settings.stream_rules), settings.stream_banker, {},
                      settings.settle_frames)
    return Stream(capture, settings.source, is_file, table)


async def _service_error(_request: Request, error: ServiceError) -> JSONResponse:
    return JSONResponse({"error": str(error)}, status_code=error.status)


async def _bad_input(_request: Request, error: EngineError) -> JSONResponse:
    return JSONResponse({"error": str(error)}, status_code=400)


async def _http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
    """The framework's own errors (no such path, a method it does not take) in the same shape as ours; a form's
    text over 1 MB, most likely a photo sent as text, was told only "Part exceeded maximum size of 1024KB."."""
    words = str(error.detail)
    if words.startswith("Part exceeded maximum size"):
        words = f"a form field sent as text is over 1 MB: send {A_PHOTO} {AS_A_FILE}"
    headers = error.headers
    if error.status_code == status.HTTP_405_METHOD_NOT_ALLOWED:
        headers = {**(headers or {}), "Allow": ", ".join(_allowed_methods(request))}
    return JSONResponse({"error": words}, status_code=error.status_code, headers=headers)


def _allowed_methods(request: Request) -> list[str]:
    """Every method the request's path takes, for a 405's Allow: the framework named only the first route's
    (POST for /v1/tables, which takes GET too), where HTTP has the header list them all; HEAD where GET is
    (``HeadAsGet``)."""
    return [method for method in METHODS if any(
        route.matches({**request.scope, "method": "GET" if method == "HEAD" else method})[0] is Match.FULL
        for route in request.app.router.routes)]


class _HeadersSent(Exception):
    """A HEAD's answer is complete once its headers are sent: what the GET would go on to send is not wanted."""


class HeadAsGet:
    """ASGI middleware: a HEAD request answered as the GET of its path, with the same status and headers and no
    body, whatever route answers it (one added later too): the API's GET routes, but health's, answered a link
    checker's or an uptime monitor's HEAD with a 405, the service reported down. An endless body (the MJPEG
    stream's) is not read: the app is stopped once the headers are sent."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            """The response's start sent on, its body left out."""
            if message["type"] == "http.response.start":
                await send(message)
                await send({"type": "http.response.body", "body": b""})
                raise _HeadersSent

        with contextlib.suppress(_HeadersSent):
            await self.app({**scope, "method": "GET"}, receive, headers_only)


async def _failure(_request: Request, _error: Exception) -> JSONResponse:
    """A fault of the service's own, in the shape of every other error (it was plain text, which the
    pages read as JSON and showed as a parse error); the traceback goes to the log, not the client."""
    return JSONResponse({"error": "the service failed on this request; its log says why"}, status_code=500)


async def _invalid_request(_request: Request, error: RequestValidationError) -> JSONResponse:
    return JSONResponse(_problem(error.errors()), status_code=422)


async def _invalid_socket(websocket: WebSocket, error: WebSocketRequestValidationError) -> None:
    """A WebSocket with a bad query is told why, as data, before it is closed."""
    await websocket.accept()
    await websocket.send_json(_problem(error.errors()))
    await websocket.close(status.WS_1008_POLICY_VIOLATION)


def _problem(problems: Any) -> dict[str, Any]:
    """Validation errors as one ``Problem``: the first in words, all of them in ``detail``."""
    return {"error": _words(problems[0]), "detail": [
        {"loc": list(p["loc"]), "msg": p["msg"], "type": p["type"]} for p in problems]}


def _words(problem: dict[str, Any]) -> str:
    """One validation error in words: the field's dotted path and what is wrong with it, or what is wrong
    with the body as a whole (it was ": JSON decode error" or ": Input should be a valid dictionary")."""
    where = ".".join(str(p) for p in problem["loc"] if p != "body")
    if problem["type"] == "json_invalid":  # its place is a character's offset in the body
        return f"the body is not valid JSON: {problem['ctx']['error']} at character {where}"
    if not where:
        return f"the body must be a JSON object sent as Content-Type: application/json ({problem['msg']})"
    if problem["loc"][0] == "query" and problem.get("input") == "":  # as the handler's own check says it
        return sent_empty([str(problem["loc"][-1])], "query field")
    return f"{where}: {_reason(problem)}"


def _reason(problem: dict[str, Any]) -> str:
    """What is wrong with a field: a validator's own words as it raised them, without pydantic's
    "Value error, " before them (``detail`` keeps pydantic's message as it gave it); a photo sent as a form's
    text (curl -F 'image=<photo.jpg') was told "Expected UploadFile, received: <class 'str'>", and one sent as the
    whole body (curl --data-binary @photo.jpg) or in JSON only "Field required"."""
    words = problem["msg"].removeprefix("Value error, ")
    if words.startswith("Expected UploadFile"):
        return f"send {A_PHOTO} {AS_A_FILE}, not as text"
    if problem["type"] == "missing" and tuple(problem["loc"]) == ("body", "image"):
        return f"none was sent: send {A_PHOTO} {AS_A_FILE}, in a multipart/form-data body"
    return words
