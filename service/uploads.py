"""Uploaded photos: refuse what is too big for the service, then decode as the command line does
(``vision.images``: upright, and refused when empty, not an image, truncated or too many pixels);
and every request's body refused (413) as soon as it is known to be over what its endpoint takes."""

from __future__ import annotations

import hashlib
import secrets
from pathlib import Path

from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from oxeye.service.errors import ServiceError
from oxeye.service.settings import Settings
from oxeye.vision.images import A_PHOTO, Decoded, PhotoError, decode_reduced, make_folder

STATUS = {"empty": 400, "not_image": 415, "unsupported": 415, "corrupt": 400, "too_large": 413}  # by PhotoError.reason
FORM_ROOM = 1_000_000  # a photo form's other fields and its envelope, beside the photo itself
JSON_LIMIT = 1_000_000  # any other body: a round's or a table's JSON is a few kB


def decode_upload(data: bytes, settings: Settings) -> Decoded:
    """The uploaded photo, upright (a large JPEG decoded reduced), or a ServiceError with a 4xx status saying what
    is wrong."""
    if not data:
        raise ServiceError(f"the upload is empty: send {A_PHOTO}", 400)
    if len(data) > settings.max_upload_bytes:
        # not its size: a form's photo is read only to one byte past the limit
        raise ServiceError(too_large(settings.max_upload_bytes), 413)
    try:
        return decode_reduced(data, settings.max_pixels, settings.max_jpeg_pixels)
    except PhotoError as error:
        raise ServiceError(str(error), STATUS[error.reason]) from None


def keep_photo(folder: Path, data: bytes) -> str:
    """Store an upload in ``folder`` under its content's hash, whole or not at all (written beside it, then
    renamed), and return that name; a 503 saying why where it cannot be: a file in the folder's way was a
    500 that said only to read the log, and a disk filling up mid-photo left it cut short under its name."""
    name = hashlib.sha256(data).hexdigest()[:20] + ".img"
    partial = folder / f"{name}.{secrets.token_hex(4)}.partial"  # its own: the same photo may be kept twice at once
    try:
        make_folder(folder)
        try:
            partial.write_bytes(data)
            partial.replace(folder / name)
        finally:
            partial.unlink(missing_ok=True)
    except OSError as error:
        raise ServiceError(f"the photo could not be kept ({error}): send it without keep to have it read", 503) from None
    return name


def too_large(max_bytes: int) -> str:
    """What an upload over ``max_bytes`` is told."""
    return f"the upload is too large: the limit is {max_bytes:,} bytes"


class BodyLimit:
    """ASGI middleware: a body over its limit (a photo form's: the upload limit and ``FORM_ROOM``; any
    other: ``JSON_LIMIT``) is refused, at once where its Content-Length says so, else as soon as that much
    has come. A form was read whole onto disk and a JSON body whole into memory (300 MB took 2.3 GB) first.
    Not FastAPI's ``max_body_size``: where the Content-Length is over, it answers in plain text ("Content Too
    Large", whatever the handlers say) and keeps the connection reading the rest."""

    def __init__(self, app: ASGIApp, max_upload_bytes: int) -> None:
        self.app, self.max_upload_bytes = app, max_upload_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        form = headers.get("content-type", "").startswith("multipart/form-data")
        limit, words = ((self.max_upload_bytes + FORM_ROOM, too_large(self.max_upload_bytes)) if form else
                        (JSON_LIMIT, f"the body is too large: the limit is {JSON_LIMIT:,} bytes"))
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            await JSONResponse({"error": words}, status_code=413, headers={"Connection": "close"})(scope, receive, send)
            return
        received = 0

        async def counted() -> Message:
            """The next part of the body, refused once the body is over its limit."""
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > limit:
                raise HTTPException(413, words)
            return message

        await self.app(scope, counted, send)
