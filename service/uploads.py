"""Uploaded photos: refuse what is too big for the service, then decode as the command line does
(``vision.images``: upright, and refused when empty, not an image, truncated or too many pixels)."""

from __future__ import annotations

import numpy as np

from oxeye.service.errors import ServiceError
from oxeye.vision.images import PhotoError, decode_photo

STATUS = {"empty": 400, "not_image": 415, "corrupt": 400, "too_large": 413}  # by PhotoError.reason


def decode_upload(data: bytes, max_bytes: int, max_pixels: int) -> np.ndarray:
    """The uploaded photo as an upright BGR array, or a ServiceError with a 4xx status saying what is wrong."""
    if not data:
        raise ServiceError("the upload is empty: send a JPEG or PNG photo", 400)
    if len(data) > max_bytes:
        # not its size: a form's photo is read only to one byte past the limit
        raise ServiceError(f"the upload is too large: the limit is {max_bytes:,} bytes", 413)
    try:
        return decode_photo(data, max_pixels)
    except PhotoError as error:
        raise ServiceError(str(error), STATUS[error.reason]) from None
