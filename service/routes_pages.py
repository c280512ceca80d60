"""The web pages: plain HTML and a little JavaScript over the API, no front-end build step."""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response

router = APIRouter(include_in_schema=False)
_PAGES = resources.files("oxeye.service.pages")


def _page(name: str) -> HTMLResponse:
    return HTMLResponse(_PAGES.joinpath(name).read_text(encoding="utf-8"))


@router.get("/")
def index() -> HTMLResponse:
    return _page("index.html")


@router.get("/trainer")
def trainer() -> HTMLResponse:
    return _page("trainer.html")


@router.get("/static/oxeye.css")
def stylesheet() -> Response:
    return Response(_PAGES.joinpath("oxeye.css").read_text(encoding="utf-8"), media_type="text/css")
