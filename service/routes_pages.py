"""The web pages: plain HTML and a little JavaScript over the API, no front-end build step."""

from __future__ import annotations

import re
from importlib import resources

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from oxeye.service.errors import ServiceError

router = APIRouter(include_in_schema=False)
_PAGES = resources.files("oxeye.service.pages")
_STATIC = {"oxeye.css": "text/css", "oxeye.js": "text/javascript", "tables.js": "text/javascript"}
_STREAM_OFF = ('<li id="stream">Camera stream: off; <code>oxeye serve --source</code> shows the server\'s own camera '
               'here, annotated</li>')


def _text(name: str) -> str:
    """One of the pages' files, as shipped in the package."""
    return _PAGES.joinpath(name).read_text(encoding="utf-8")


def _page(name: str) -> HTMLResponse:
    """One of the pages, served as it ships."""
    return HTMLResponse(_text(name))


@router.get("/")
def index(request: Request) -> HTMLResponse:
    """The pages' links; the camera stream's only where there is one (else it led to a 404's raw JSON)."""
    page = _text("index.html")
    if request.app.state.stream is None:
        page = re.sub(r'<li id="stream">.*?</li>', _STREAM_OFF, page)
    return HTMLResponse(page)


@router.get("/trainer")
def trainer() -> HTMLResponse:
    """The dealer trainer: deal a drill over the API, answer it, see the grade."""
    return _page("trainer.html")


@router.get("/live")
def live() -> HTMLResponse:
    """The live table: the browser's camera read frame by frame over ``/v1/live``."""
    return _page("live.html")


@router.get("/upload")
def upload() -> HTMLResponse:
    """A photo form over ``/v1/evaluate``: the hands, the settlement and the photo drawn over."""
    return _page("upload.html")


@router.get("/tables")
def tables() -> HTMLResponse:
    """The table ledger: open a table, record its rounds, see who banks and who owes whom."""
    return _page("tables.html")


@router.get("/favicon.ico")
def favicon() -> Response:
    """No icon, said without an error: a 404 here was logged as an error on every page."""
    return Response(status_code=204)


@router.get("/static/{name}")
def static(name: str) -> Response:
    """The pages' shared stylesheet and script."""
    if name not in _STATIC:
        raise ServiceError(f"no static file {name!r}", 404)
    return Response(_text(name), media_type=_STATIC[name])
