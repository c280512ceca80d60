"""Photo evaluation: an uploaded table photo read, scored and settled, as JSON or as an annotated JPEG."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from oxeye.service.deps import detector
from oxeye.service.errors import ServiceError, refuse_empty, refuse_unknown_or_repeated
from oxeye.service.photo import annotated_jpeg, parse_stakes, read_for_table, score_photo
from oxeye.service.rules_files import rules_from_text
from oxeye.service.schemas import DIGITS, Problem
from oxeye.service.uploads import decode_upload, keep_photo
from oxeye.vision.images import A_PHOTO

router = APIRouter(prefix="/v1", tags=["photos"], responses={
    400: {"model": Problem}, 413: {"model": Problem}, 415: {"model": Problem}, 503: {"model": Problem}})
Photo = Annotated[UploadFile, File(description=f"{A_PHOTO} of the table")]
# A text field sent empty is refused (refuse_empty), documented as such: the schema let it be sent so.
FILLED = {"minLength": 1}
Rules = Annotated[str, Form(description="a preset name, or a JSON table of options with an optional 'base'",
                            json_schema_extra=FILLED)]
Banker = Annotated[int, Form(ge=0, description="which hand (by index in the reading) is the banker's"), DIGITS]
Stakes = Annotated[str, Form(description='JSON: stakes by hand index, e.g. {"1": 10, "2": 5}; 1 where not given, none for the banker',
                              json_schema_extra=FILLED)]
Keep = Annotated[bool, Form(description="keep the photo in the data folder (it is not kept otherwise)")]
FIELDS = ("image", "rules", "banker", "stakes", "keep")


async def _read(request: Request, image: UploadFile, rules: str, banker: int, stakes: str, keep: bool,
                annotate: bool = False) -> tuple[dict[str, Any], bytes | None]:
    """Check the form, decode the photo, read it and score it: the scored reading, and the photo drawn
    over with it when ``annotate``.

    Decoding, reading and drawing run in worker threads, so that the event loop serves live clients
    meanwhile, and in one of the app's reading slots, so that photos sent at once wait their turn
    undecoded rather than all held decoded at once."""
    settings = request.app.state.settings
    form = (await request.form()).multi_items()
    refuse_unknown_or_repeated([name for name, _ in form], FIELDS, "form field")
    refuse_empty(form, "form field")
    if request.query_params:  # as /v1/live takes them: read under other rules than the user's, without a word
        raise ServiceError(f"send {', '.join(map(repr, sorted(request.query_params)))} in the form with the photo, "
                           f"not in the query (the form takes {', '.join(FIELDS)})", 422)
    house_rules, stake_map = rules_from_text(rules), parse_stakes(stakes, banker)
    data = await image.read(settings.max_upload_bytes + 1)
    async with request.app.state.readings:
        photo = await run_in_threadpool(decode_upload, data, settings)
        reader = await run_in_threadpool(detector, request.app.state)  # the first loads it: not on the event loop
        reading, other_game = await run_in_threadpool(read_for_table, reader, photo.pixels, house_rules)
        scored = score_photo(photo.in_photo(reading), house_rules, banker, stake_map, other_game)
        # drawn as decoded (a large JPEG reduced), its boxes the decoded photo's
        jpeg = await run_in_threadpool(annotated_jpeg, photo.pixels, reading, scored) if annotate else None
    if keep:
        scored["kept"] = await run_in_threadpool(keep_photo, settings.data_dir / "photos", data)
    return scored, jpeg


@router.post("/evaluate")
async def evaluate_photo(request: Request, image: Photo, rules: Rules = "gnau", banker: Banker = 0,
                         stakes: Stakes = "{}", keep: Keep = False) -> dict[str, Any]:
    """Read a table photo: every item, each hand's best ox with alternatives, and the settlement against the banker."""
    return (await _read(request, image, rules, banker, stakes, keep))[0]


@router.post("/evaluate/annotated.jpg", response_class=Response, responses={200: {
    "content": {"image/jpeg": {}},
    "headers": {"X-Kept": {"description": "the photo's stored name, with keep", "schema": {"type": "string"}}}}})
async def evaluate_photo_annotated(request: Request, image: Photo, rules: Rules = "gnau", banker: Banker = 0,
                                   stakes: Stakes = "{}", keep: Keep = False) -> Response:
    """The same reading drawn on the photo: boxes, codes, each hand's ox and label, win or loss per seat; a photo
    kept, its stored name in the X-Kept header."""
    scored, jpeg = await _read(request, image, rules, banker, stakes, keep, annotate=True)
    # the photo's stored name, which only the JSON answer gave: a photo kept with its drawing could not be found
    return Response(jpeg, media_type="image/jpeg", headers={"X-Kept": scored["kept"]} if keep else None)
