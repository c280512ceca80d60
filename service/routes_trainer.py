"""Routes of the dealer trainer: deal a drill, show its picture, grade the answer, keep the history."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path
from fastapi.responses import Response

from oxeye.engine import RulesError
from oxeye.service import trainer
from oxeye.service.db import DrillRow
from oxeye.service.deps import Db
from oxeye.service.engine_json import json_number
from oxeye.service.errors import ServiceError
from oxeye.service.exact_numbers import ExactJSONResponse, ExactNumbersRoute
from oxeye.service.rules_files import rules_from_spec
from oxeye.service.schemas import UNWRITTEN, AnswerIn, DrillIn, DrillOut, GradeOut, HistoryOut, Problem, RowId, TraineeName

# Bodies read digit for digit: a payout, and a drill's inline rules, read as floats were graded rounded.
router = APIRouter(prefix="/v1/trainer", tags=["trainer"], route_class=ExactNumbersRoute,
                   responses={400: {"model": Problem}, 404: {"model": Problem}})


def _drill(db: Db, drill_id: int) -> DrillRow:
    drill = db.get(DrillRow, drill_id)
    if drill is None:
        raise ServiceError(f"no drill {drill_id}", 404)
    return drill


def _grade_out(drill: DrillRow, grade: trainer.Grade) -> GradeOut:
    return GradeOut(**{**vars(grade), "payout": json_number(grade.payout)}, banker=drill.banker, player=drill.player)


@router.post("/drills", response_model=DrillOut, status_code=201, responses=UNWRITTEN)
def deal(body: DrillIn, db: Db) -> ExactJSONResponse:
    """Deal a banker's and a player's hand; the clock starts now. Its rules are answered as kept, digit for digit."""
    drill = trainer.new_drill(db, body.trainee, body.rules)
    rules = rules_from_spec(drill.rules)
    dealt = DrillOut(id=drill.id, trainee=drill.trainee, rules=drill.rules, stake=drill.stake,
                     image=f"/v1/trainer/drills/{drill.id}/image.jpg", choices=list(trainer.label_choices(rules)),
                     question=f"The player (bottom) stakes {drill.stake} against the banker (top). "
                              "What is the player's best ox, and what does the player win (or pay)?")
    return ExactJSONResponse(dealt.model_dump(), 201)


@router.get("/drills/{drill_id}/image.jpg", response_class=Response, responses={200: {"content": {"image/jpeg": {}}}})
def picture(drill_id: RowId, db: Db) -> Response:
    """The two hands as a table photo: the banker's above, the player's below."""
    drill = _drill(db, drill_id)
    return Response(trainer.picture(drill), media_type="image/jpeg")


def answer(drill_id: RowId, body: AnswerIn, db: Db) -> GradeOut:
    """Grade the answer (once) and say why."""
    drill = _drill(db, drill_id)
    return _grade_out(drill, trainer.answer(db, drill, body.label, body.payout))


router.add_api_route("/drills/{drill_id}/answer", answer, methods=["POST"], response_model=GradeOut,
                     responses={409: {"model": Problem}, **UNWRITTEN})


@router.get("/trainees/{trainee:path}", response_model=HistoryOut)
def history(trainee: Annotated[TraineeName, Path()], db: Db) -> HistoryOut:
    """A trainee's record: how many drills, how many right, how fast, and the latest ones (a name may hold
    a slash, sent as %2F); a name no drill can be dealt to is refused, as at the deal."""
    names = trainer.kept_as(db, trainee)
    return HistoryOut(trainee=trainee, **trainer.record(db, names), skipped=trainer.skipped(db, names),
                      recent=[grade for d in trainer.latest(db, names, 20) if (grade := _regraded(d)) is not None])


def _regraded(drill: DrillRow) -> GradeOut | None:
    """An answered drill's grade, its right answers worked out again; None where its rules, kept as dealt, are
    ones this version refuses (a label check added since): the whole record was refused, 400, for one such drill."""
    try:
        return _grade_out(drill, trainer.grade_of(drill))
    except RulesError:
        return None
