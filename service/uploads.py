"""Uploaded photos: refuse what is too big for the service, then decode as the command line does
(``vision.images``: upright, and refused when empty, not an image, truncated or too many pixels)."""

from __future__ import annotations

import hashlib
import secrets
from pathlib import Path

from oxeye.service.errors import ServiceError
from oxeye.service.settings import Settings
from oxeye.vision.images import Decoded, PhotoError, decode_reduced, make_folder

STATUS = {"empty": 400, "not_image": 415, "corrupt": 400, "too_large": 413}  # by PhotoError.reason


def decode_upload(data: bytes, settings: Settings) -> Decoded:
    """The uploaded photo, upright (a large JPEG decoded reduced), or a ServiceError with a 4xx status saying what
    is wrong."""
    if not data:
        raise ServiceError("the upload is empty: send a JPEG or PNG photo", 400)
    if len(data) > settings.max_upload_bytes:
        # not its size: a form's photo is read only to one byte past the limit
        raise ServiceError(f"the upload is too large: the limit is {settings.max_upload_bytes:,} bytes", 413)
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
