"""Uploaded photos: refuse what is too big for the service, then decode as the command line does
(``vision.images``: upright, and refused when empty, not an image, truncated or too many pixels)."""

from __future__ import annotations

from oxeye.service.errors import ServiceError
from oxeye.service.settings import Settings
from oxeye.vision.images import Decoded, PhotoError, decode_reduced

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
