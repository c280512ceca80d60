"""Routes over the rules engine: health, presets, one hand, one round."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response

from oxeye.engine import Participant, evaluate, settle
from oxeye.engine.settlement import Onlooker
from oxeye.service.engine_json import evaluation_json, settlement_json
from oxeye.service.errors import ServiceError
from oxeye.service.exact_numbers import ExactNumbersRoute
from oxeye.service.rules_files import preset_names, preset_text, rules_from_spec
from oxeye.service.schemas import HandReading, HandRequest, Health, Problem, SettleRequest, Settlement
from oxeye.service.settings import VERSION

router = APIRouter(prefix="/v1", responses={400: {"model": Problem}})


@router.get("/health", response_model=Health)
async def health(request: Request) -> Health:
    """Whether the service is up, and which database it writes to (HEAD too: uptime checks send it); on the
    event loop, not in a worker thread: with all of them busy (60 trainees drawing drills) it waited 8.7 s."""
    return Health(status="ok", version=VERSION, database=request.app.state.sessions.kw["bind"].dialect.name)


@router.get("/rules", response_model=dict[str, str])
def presets() -> dict[str, str]:
    """The shipped house-rule presets, each with its description."""
    return {name: rules_from_spec(name).description for name in preset_names()}


# Its errors are JSON like every other's (a response_class of plain text documented them as text).
@router.get("/rules/{name}", response_class=Response,
            responses={200: {"content": {"text/plain": {}}}, 404: {"model": Problem}})
def preset(name: str) -> PlainTextResponse:
    """One preset as TOML, to copy and edit."""
    if name not in preset_names():
        raise ServiceError(f"no preset {name!r} (presets: {', '.join(preset_names())})", 404)
    return PlainTextResponse(preset_text(name))


def hand(body: HandRequest) -> JSONResponse:
    """A hand's best ox under some rules, with every alternative, strongest first: the very object
    ``oxeye hand --json`` prints, its keys in its order (the model, built on ``Reading``, put cards last)."""
    return JSONResponse(evaluation_json(evaluate(body.hand, rules_from_spec(body.rules))))


def settle_round(body: SettleRequest) -> dict:
    """Settle one round against the banker without recording it (the ledger records rounds at tables)."""
    players = [Participant(p.name, p.hand, p.stake, tuple(Onlooker(o.name, o.stake) for o in p.onlookers))
               for p in body.players]
    return settlement_json(settle(Participant(body.banker.name, body.banker.hand), players, rules_from_spec(body.rules)))


router.add_api_route("/hand", hand, methods=["POST"], response_model=HandReading, route_class_override=ExactNumbersRoute)
router.add_api_route("/settle", settle_round, methods=["POST"], response_model=Settlement,
                     response_model_exclude_unset=True, route_class_override=ExactNumbersRoute)
