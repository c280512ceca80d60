"""Live reading: camera frames sent over a WebSocket, each answered in turn, and the ``--source`` stream as MJPEG.

Both answer the newest frame rather than queueing: a client that sends faster than frames are read
gets fewer answers, each saying how many frames were skipped since the one before.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Query, Request, WebSocket, WebSocketDisconnect, status
from fastapi.responses import JSONResponse, StreamingResponse
from starlette.concurrency import run_in_threadpool

from oxeye.engine import EngineError
from oxeye.service.deps import detector
from oxeye.service.errors import ServiceError, refuse_empty, refuse_unknown_or_repeated
from oxeye.service.latest import Latest
from oxeye.service.live import LiveTable
from oxeye.service.photo import parse_stakes
from oxeye.service.rules_files import rules_from_text
from oxeye.service.schemas import DIGITS, Problem
from oxeye.service.settings import Settings
from oxeye.service.uploads import decode_upload

if TYPE_CHECKING:  # imported by the app only with --source
    from oxeye.service.stream import Stream

router = APIRouter(prefix="/v1", tags=["live"])
BOUNDARY = "frame"

Rules = Annotated[str, Query(description="a preset name, or a JSON table of options with an optional 'base'")]
Banker = Annotated[int, Query(ge=0, description="which hand (by index in the reading) is the banker's"), DIGITS]
Stakes = Annotated[str, Query(description='JSON: stakes by hand index, e.g. {"1": 10, "2": 5}; 1 where not given, none for the banker')]


@router.websocket("/live")
async def live(websocket: WebSocket, rules: Rules = "gnau", banker: Banker = 0, stakes: Stakes = "{}") -> None:
    """Send each camera frame as a binary message (a JPEG); each answer is a JSON message: ``frame`` (its
    number), ``skipped``, ``ms``, the steadied reading, settled hands scored, and the settlement; or ``error``."""
    await websocket.accept()
    settings: Settings = websocket.app.state.settings
    try:
        query = websocket.query_params.multi_items()
        refuse_unknown_or_repeated([name for name, _ in query], ("rules", "banker", "stakes"), "query field")
        refuse_empty(query, "query field")
        reader = await run_in_threadpool(detector, websocket.app.state)  # the first loads it: not on the event loop
        table = LiveTable(reader, rules_from_text(rules), banker,
                          parse_stakes(stakes, banker), settings.settle_frames)
    except (ServiceError, EngineError) as error:
        await websocket.send_json({"error": str(error)})
        await websocket.close(status.WS_1008_POLICY_VIOLATION)
        return
    frames: Latest[bytes | None] = Latest()
    receiving = asyncio.create_task(_receive(websocket, frames))
    seen = 0
    try:
        while (newest := await frames.newer(seen)) is not None:
            number, data = newest
            started, skipped, seen = time.perf_counter(), number - seen - 1, number
            try:
                async with websocket.app.state.readings:  # its turn among photos and other cameras' frames
                    answer = await run_in_threadpool(_answer, table, data, settings)
            except ServiceError as error:
                answer = {"error": str(error)}
            ms = round((time.perf_counter() - started) * 1000, 1)
            await websocket.send_json({"frame": number, "skipped": skipped, "ms": ms, **answer})
    except WebSocketDisconnect:
        pass
    finally:
        receiving.cancel()


@router.get("/live", status_code=426, response_class=JSONResponse, responses={426: {
    "model": Problem, "description": "a plain request: /v1/live is a WebSocket"}})  # was "Successful Response"
async def live_over_http() -> JSONResponse:
    """/v1/live is a WebSocket: a plain request (a browser's address bar, curl) is told so; it was a bare
    404 "Not Found" for an endpoint README lists."""
    return JSONResponse({"error": "/v1/live is a WebSocket: connect to ws://HOST/v1/live (wss:// behind https) and "
                                  "send camera frames as binary messages; the /live page does"},
                        status_code=426, headers={"Upgrade": "websocket", "Connection": "Upgrade"})


async def _receive(websocket: WebSocket, frames: Latest[bytes | None]) -> None:
    """Keep only the newest frame the client sent: one not yet answered is replaced, and counted as skipped."""
    try:
        while (message := await websocket.receive())["type"] != "websocket.disconnect":
            frames.put(message.get("bytes"))
    finally:
        frames.close()


def _answer(table: LiveTable, data: bytes | None, settings: Settings) -> dict[str, Any]:
    """One frame decoded (with the upload checks), read, steadied and scored: run in a worker thread."""
    if data is None:
        raise ServiceError("send each frame as one binary message holding a JPEG, not as text")
    return table.frame(decode_upload(data, settings))[1]


@router.get("/stream.mjpg", response_class=StreamingResponse, responses={
    200: {"content": {f"multipart/x-mixed-replace; boundary={BOUNDARY}": {}}},
    404: {"model": Problem}, 503: {"model": Problem}})
async def stream(request: Request) -> StreamingResponse:
    """The ``--source`` camera, steadied and annotated like /v1/evaluate/annotated.jpg, as MJPEG: each viewer
    gets the newest picture, and a slow viewer skips pictures rather than falling behind."""
    source = request.app.state.stream
    if source is None:
        raise ServiceError("no live source: start the service with oxeye serve --source 0|video.mp4|rtsp://...", 404)
    if source.jpegs.closed:
        raise ServiceError("the live source has ended: restart the service to read it again", 503)
    return StreamingResponse(_parts(source), media_type=f"multipart/x-mixed-replace; boundary={BOUNDARY}")


async def _parts(source: Stream) -> AsyncIterator[bytes]:
    """Each newer picture as one part, for as long as the viewer stays and the source runs."""
    async with source.watching() as seen:
        while (newest := await source.jpegs.newer(seen)) is not None:
            seen, jpeg = newest
            yield (f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(jpeg)}\r\n\r\n".encode()
                   + jpeg + b"\r\n")
