"""Photo evaluation: an uploaded table photo read, scored and settled, as JSON or as an annotated JPEG."""

from __future__ import annotations

import hashlib
import json
import threading
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import Response

from oxeye.models import DEFAULT_MODEL
from oxeye.service.errors import ServiceError
from oxeye.service.photo import annotated_jpeg, score_photo
from oxeye.service.rules_files import rules_from_spec
from oxeye.service.schemas import Problem
from oxeye.service.uploads import decode_upload

router = APIRouter(prefix="/v1", tags=["photos"], responses={
    400: {"model": Problem}, 413: {"model": Problem}, 415: {"model": Problem}, 503: {"model": Problem}})
_LOADING = threading.Lock()

Photo = Annotated[UploadFile, File(description="a JPEG, PNG or WebP photo of the table")]
Rules = Annotated[str, Form(description="a preset name, or a JSON table of options with an optional 'base'")]
Banker = Annotated[int, Form(ge=0, description="which hand (by index in the reading) is the banker's")]
Stakes = Annotated[str, Form(description='JSON: stakes by hand index, e.g. {"1": 10, "2": 5}; 1 where not given')]
Keep = Annotated[bool, Form(description="keep the photo in the data folder (it is not kept otherwise)")]


def _detector(request: Request):  # type: ignore[no-untyped-def]
    """The detector, loaded once on first use; 503 while no model is there."""
    state = request.app.state
    with _LOADING:
        if getattr(state, "detector", None) is None:
            from oxeye.vision.detector import Detector

            try:
                state.detector = Detector(state.settings.model or DEFAULT_MODEL)
            except OSError as error:
                raise ServiceError(f"photo reading is unavailable: {error}", 503) from None
    return state.detector


def _stakes(text: str) -> dict[int, Decimal]:
    try:
        raw = json.loads(text, parse_float=Decimal)
        stakes = {int(k): Decimal(v) for k, v in raw.items()}
    except (json.JSONDecodeError, AttributeError, ValueError, TypeError, InvalidOperation):
        raise ServiceError(f'stakes must be a JSON object of hand index to amount, like {{"1": 10}}, not {text!r}') from None
    bad = {k: str(v) for k, v in stakes.items() if not (v.is_finite() and v > 0)}
    if bad:
        raise ServiceError(f"stakes must be positive amounts: {bad}")
    return stakes


def _rules(text: str):  # type: ignore[no-untyped-def]
    if text.lstrip().startswith("{"):
        try:
            return rules_from_spec(json.loads(text))
        except json.JSONDecodeError as error:
            raise ServiceError(f"inline rules are not valid JSON: {error}") from None
    return rules_from_spec(text)


async def _read(request: Request, image: UploadFile, rules: str, banker: int, stakes: str, keep: bool):  # type: ignore[no-untyped-def]
    """Check the form, decode the photo, read it and score it: (photo, reading, scored)."""
    settings = request.app.state.settings
    house_rules, stake_map = _rules(rules), _stakes(stakes)
    data = await image.read(settings.max_upload_bytes + 1)
    photo = decode_upload(data, settings.max_upload_bytes, settings.max_pixels)
    reading = _detector(request).read(photo)
    scored = score_photo(reading, house_rules, banker, stake_map)
    if keep:
        folder = settings.data_dir / "photos"
        folder.mkdir(parents=True, exist_ok=True)
        name = hashlib.sha256(data).hexdigest()[:20] + ".img"
        (folder / name).write_bytes(data)
        scored["kept"] = name
    return photo, reading, scored


@router.post("/evaluate")
async def evaluate_photo(request: Request, image: Photo, rules: Rules = "gnau", banker: Banker = 0,
                         stakes: Stakes = "{}", keep: Keep = False) -> dict[str, Any]:
    """Read a table photo: every item, each hand's best ox with alternatives, and the settlement against the banker."""
    return (await _read(request, image, rules, banker, stakes, keep))[2]


@router.post("/evaluate/annotated.jpg", response_class=Response,
             responses={200: {"content": {"image/jpeg": {}}}})
async def evaluate_photo_annotated(request: Request, image: Photo, rules: Rules = "gnau", banker: Banker = 0,
                                   stakes: Stakes = "{}", keep: Keep = False) -> Response:
    """The same reading drawn on the photo: boxes, codes, each hand's ox and label, win or loss per seat."""
    photo, reading, scored = await _read(request, image, rules, banker, stakes, keep)
    return Response(annotated_jpeg(photo, reading, scored), media_type="image/jpeg")
