"""The dealer trainer: deal a banker's and a player's hand, ask for the player's best ox and payout,
grade the answer with the engine's explanation, and keep each trainee's history."""

from __future__ import annotations

import functools
import logging
import random
import statistics
import threading
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Protocol

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from oxeye.engine import Evaluation, HouseRules, Participant, PersonResult, settle
from oxeye.engine.cards import full_deck
from oxeye.engine.stats import labels
from oxeye.engine.tiles import chinese_set
from oxeye.datasets.build import load_library
from oxeye.datasets.paths import DEFAULT_CACHE
from oxeye.datasets.scene import Library, render_hands
from oxeye.service.db import DrillRow, writing
from oxeye.service.engine_json import number
from oxeye.service.errors import ServiceError
from oxeye.service.rules_files import rules_from_spec
from oxeye.service.names import normal_name

STAKES = (1, 2, 5, 10, 20, 25)


class Timed(Protocol):
    """An answered drill as its record counts it: a ``DrillRow``, or a row of just these columns."""

    dealt: datetime
    answered: datetime
    ox_correct: bool | None
    payout_correct: bool | None


@functools.lru_cache(maxsize=16)
def label_choices(rules: HouseRules) -> tuple[str, ...]:
    """Every label a hand can read as under these rules, strongest first: the trainee's options."""
    return labels(rules)


def deal(seed: int, rules: HouseRules) -> tuple[tuple[str, ...], tuple[str, ...], int]:
    """The banker's hand, the player's hand and the stake of a drill, from its seed, dealt from as
    many decks (or sets of tiles) shuffled together as the rules play with."""
    rng = random.Random(seed)
    items = rng.sample((full_deck() if rules.items == "cards" else chinese_set()) * rules.decks, 10)
    codes = [item.code for item in items]
    return tuple(codes[:5]), tuple(codes[5:]), rng.choice(STAKES)


_MAKING_FACES = threading.Lock()


def faces() -> Library:
    """The renderer's faces, made once per process on the first picture (half a second where drawn before,
    ``datasets.drawn_cache``; 5 s where not). Pictures asked
    for meanwhile wait for them: each made its own, and 20 trainees starting at once waited up to 64 s
    (2.5 GB), five of them a 500 when the database connections their requests held ran out."""
    with _MAKING_FACES:
        return _made_faces()


@functools.lru_cache(maxsize=1)
def _made_faces() -> Library:
    """The renderer's faces, made on the first call; the drawn decks alone where a fetched one is broken (the
    pictures need no particular deck), said in the log."""
    try:
        return load_library(DEFAULT_CACHE)
    except ValueError as error:
        logging.getLogger(__name__).warning("the drills are drawn without fetched decks: %s", error)
        return load_library(None)


def picture(drill: DrillRow) -> bytes:
    """The drill as a JPEG table photo: the banker's hand above, the player's below, the same every time."""
    return _drawn(drill.seed, rules_from_spec(drill.rules).items, drill.banker, drill.player)


@functools.lru_cache(maxsize=64)
def _drawn(seed: int, kind: str, banker: str, player: str) -> bytes:
    """A drill's picture, drawn as it is dealt and kept for the request that asks for it (the latest 64 drills', about
    12 MB; an older one's is drawn again): drawn when asked for, after the deal had started the clock, it was the
    trainee's time, 0.4 to 0.6 s with 20 trainees dealt at once on two cores."""
    import cv2
    import numpy as np

    scene = render_hands(np.random.default_rng(seed), faces(), kind, [banker.split(), player.split()], (960, 720))
    ok, jpeg = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    if not ok:
        raise OSError(f"could not encode the picture of {banker} against {player}")
    return jpeg.tobytes()


def new_drill(session: Session, trainee: str, rules_spec: object) -> DrillRow:
    """Deal and store a drill; the clock starts as it is stored, once its picture is drawn (with the faces it needs, loaded
    on the first) and the rules' choices worked out (the first picture waited seconds for the faces, each picture
    was drawn when asked for, and the first deal under some rules took up to a second for its choices, each
    counted as the trainee's time)."""
    rules = rules_from_spec(rules_spec)
    label_choices(rules)
    seed = random.SystemRandom().randrange(2**31)
    banker, player, stake = deal(seed, rules)
    drill = DrillRow(trainee=trainee, rules=rules_spec, seed=seed, banker=" ".join(banker), player=" ".join(player),
                     stake=stake)
    _drawn(seed, rules.items, drill.banker, drill.player)
    with writing(session):  # stamped in its turn to write: 20 trainees dealt at once waited up to 0.7 s on the clock
        drill.dealt = datetime.now(UTC)
        session.add(drill)
        session.commit()
    return drill


@dataclass(frozen=True)
class Grade:
    """How an answer fared, with the right answer and why."""

    ox_correct: bool
    payout_correct: bool
    label: str
    payout: Decimal
    payout_explanation: str
    player_explanation: str
    banker_label: str
    banker_explanation: str
    seconds: float


def answer(session: Session, drill: DrillRow, label: str, payout: Decimal) -> Grade:
    """Grade and store a drill's answer (once): the player's best ox label and the player's payout. Its clock
    stops as the answer comes, before the grading (the rules' choices, worked out anew after a restart, took
    up to a second, counted as the trainee's time). The answer it was graded on, sent again, is answered with
    that grade."""
    answered = datetime.now(UTC)
    if drill.answered is not None:
        return _sent_again(drill, label, payout)
    truth = _truth(drill)
    player = truth[0]
    if label not in label_choices(player.evaluation.rules):
        raise ServiceError(f"{label!r} is not one of the drill's choices (the deal lists them)")
    # Kept only where no answer is yet: two sent at once (a double click, a second tab) once both
    # passed the check above, and the later overwrote the first.
    with writing(session):
        kept = session.execute(update(DrillRow).where(DrillRow.id == drill.id, DrillRow.answered.is_(None)).values(
            answered=answered, answer_label=label, answer_payout=str(payout),
            ox_correct=label == player.evaluation.label, payout_correct=payout == player.delta)).rowcount == 1
        session.commit()
    session.refresh(drill)
    return _grade(drill, truth) if kept else _sent_again(drill, label, payout)


def _sent_again(drill: DrillRow, label: str, payout: Decimal) -> Grade:
    """An answered drill's grade where this is the answer it was graded on, sent again (by a client whose
    grade was lost on the way, which was told only that the drill was answered); another answer is refused."""
    if drill.answer_label != label or drill.answer_payout is None or Decimal(drill.answer_payout) != payout:
        raise ServiceError(f"drill {drill.id} was answered already", 409)
    return grade_of(drill)


def grade_of(drill: DrillRow) -> Grade:
    """The grade of an answered drill, with the right answers recomputed from what was dealt."""
    return _grade(drill, _truth(drill))


def _grade(drill: DrillRow, truth: tuple[PersonResult, Evaluation]) -> Grade:
    result, banker = truth
    player = result.evaluation
    return Grade(bool(drill.ox_correct), bool(drill.payout_correct), player.label, result.delta, payout_reason(result),
                 player.best.explanation, banker.label, banker.best.explanation, seconds(drill))


def _truth(drill: DrillRow) -> tuple[PersonResult, Evaluation]:
    """The player's result (its reading, what it wins, negative: pays, at the drill's stake) and the banker's reading."""
    result = settle(Participant("banker", drill.banker), [Participant("player", drill.player, Decimal(drill.stake))],
                    rules_from_spec(drill.rules))
    return result.players[0], result.banker_evaluation


def payout_reason(result: PersonResult) -> str:
    """How a player's payout is made up, for a trainee who got it wrong: who pays whom how many stakes,
    less the house's commission."""
    if not result.units:
        return "no one pays" + (": a push" if result.outcome == "push" else "")
    payer, paid = ("the banker", "the player") if result.units > 0 else ("the player", "the banker")
    reason = f"{payer} pays {paid} {abs(result.units)} × the stake of {number(result.stake)}"
    return reason + (f", less {number(result.commission)} to the house" if result.commission else "")


def seconds(drill: Timed) -> float:
    """How long the trainee took, dealt to answered."""
    return round((drill.answered - drill.dealt).total_seconds(), 2)


def kept_as(session: Session, trainee: str) -> list[str]:
    """The names a trainee's drills are kept under: the name, and those an older version kept as typed (" ana",
    "Zoë" decomposed), whose drills were left out of the record once names were read in their normal form."""
    return [name for name in session.scalars(select(DrillRow.trainee).distinct()) if normal_name(name) == trainee]


def latest(session: Session, names: Collection[str], count: int) -> list[DrillRow]:
    """A trainee's ``count`` latest answered drills, newest first, kept under any of ``names`` (``kept_as``)."""
    return list(session.scalars(select(DrillRow).where(DrillRow.trainee.in_(names), DrillRow.answered.is_not(None))
                                .order_by(DrillRow.id.desc()).limit(count)))


def record(session: Session, names: Collection[str]) -> dict[str, float | int]:
    """A trainee's ``summary``, read from the four columns it needs: each drill read whole, a record of 20,000
    took 0.46 s, which the page asks for after every answer (``python -m bench.trainer_speed``)."""
    return summary(session.execute(select(DrillRow.dealt, DrillRow.answered, DrillRow.ox_correct, DrillRow.payout_correct)
                                   .where(DrillRow.trainee.in_(names), DrillRow.answered.is_not(None))).all())


def skipped(session: Session, names: Collection[str]) -> int:
    """A trainee's drills dealt and left unanswered for a later one (the newest may be under way): counted
    apart, as the record counts only answered drills, and a trainee dealt again past each hard one scored well."""
    newest = session.scalar(select(func.max(DrillRow.id)).where(DrillRow.trainee.in_(names)))
    if newest is None:
        return 0
    return session.scalar(select(func.count()).select_from(DrillRow).where(
        DrillRow.trainee.in_(names), DrillRow.answered.is_(None), DrillRow.id < newest)) or 0


def summary(drills: Sequence[Timed]) -> dict[str, float | int]:
    """Drills answered, the share fully right, and the median time."""
    if not drills:
        return {"drills": 0, "correct": 0.0, "median_seconds": 0.0}
    right = sum(bool(d.ox_correct and d.payout_correct) for d in drills)
    # times in hundredths have a median in thousandths at most (the mean of the middle two), summed as floats:
    # 0.64 and 0.72 made 0.6799999999999999
    return {"drills": len(drills), "correct": right / len(drills),
            "median_seconds": round(statistics.median(seconds(d) for d in drills), 3)}
