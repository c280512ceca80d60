"""Uploaded photos: refuse what is empty, too big, not an image, truncated, or a decompression bomb.

Pillow reads the header first, so the pixel count is checked before anything is decoded, and
its full decode fails on a truncated file where OpenCV would return a silently grey-filled one.
"""

from __future__ import annotations

import io

import numpy as np

from oxeye.service.errors import ServiceError


def decode_upload(data: bytes, max_bytes: int, max_pixels: int) -> np.ndarray:
    """The uploaded photo as a BGR array, or a ServiceError with a 4xx status saying what is wrong."""
    from PIL import Image, UnidentifiedImageError

    if not data:
        raise ServiceError("the upload is empty: send a JPEG or PNG photo", 400)
    if len(data) > max_bytes:
        raise ServiceError(f"the upload is {len(data):,} bytes; the limit is {max_bytes:,}", 413)
    try:
        image = Image.open(io.BytesIO(data))  # reads the header only
    except UnidentifiedImageError:
        raise ServiceError("the upload is not an image this service reads (send JPEG, PNG or WebP)", 415) from None
    except (OSError, SyntaxError, ValueError) as error:
        raise ServiceError(f"the image is truncated or corrupt ({error})", 400) from None
    with image:
        width, height = image.size
        if width * height > max_pixels:
            raise ServiceError(f"the image is {width} x {height} pixels; the limit is {max_pixels:,} pixels", 413)
        try:
            image.load()
            rgb = np.asarray(image.convert("RGB"))
        except (OSError, SyntaxError, ValueError, Image.DecompressionBombError) as error:
            raise ServiceError(f"the image is truncated or corrupt ({error})", 400) from None
    return np.ascontiguousarray(rgb[:, :, ::-1])
