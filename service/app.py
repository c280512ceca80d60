"""The FastAPI application: routes composed over the engine and the ledger, errors returned as data."""

from __future__ import annotations

from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from oxeye.engine import EngineError
from oxeye.service import routes_ledger, routes_pages, routes_photo, routes_rules, routes_trainer
from oxeye.service.db import dispose, open_database
from oxeye.service.errors import ServiceError
from oxeye.service.settings import VERSION, Settings


def create_app(settings: Settings) -> FastAPI:
    """The app for these settings; the database opens (and its tables are made) here."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    sessions = open_database(settings.database_url)

    @asynccontextmanager
    async def lifespan(_app: FastAPI):  # type: ignore[no-untyped-def]
        yield
        dispose(sessions)

    app = FastAPI(title="OxEye", version=VERSION, lifespan=lifespan,
                  description="Reads ox-counting hands, settles rounds and keeps the table ledger.")
    app.state.settings = settings
    app.state.sessions = sessions
    app.include_router(routes_rules.router)
    app.include_router(routes_ledger.router)
    app.include_router(routes_trainer.router)
    app.include_router(routes_photo.router)
    app.include_router(routes_pages.router)
    app.add_exception_handler(ServiceError, _service_error)
    app.add_exception_handler(EngineError, _bad_input)
    app.add_exception_handler(RequestValidationError, _invalid_request)
    return app


async def _service_error(_request: Request, error: ServiceError) -> JSONResponse:
    return JSONResponse({"error": str(error)}, status_code=error.status)


async def _bad_input(_request: Request, error: EngineError) -> JSONResponse:
    return JSONResponse({"error": str(error)}, status_code=400)


async def _invalid_request(_request: Request, error: RequestValidationError) -> JSONResponse:
    problems = error.errors()
    first = problems[0]
    where = ".".join(str(p) for p in first["loc"] if p != "body")
    return JSONResponse({"error": f"{where}: {first['msg']}", "detail": [
        {"loc": list(p["loc"]), "msg": p["msg"], "type": p["type"]} for p in problems]}, status_code=422)
