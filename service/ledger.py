"""The table ledger: tables with seats, rounds settled by the engine and stored, balances, the bank passing."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping
from decimal import Decimal
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload

from oxeye.engine import HouseRules, Participant, RulesError, parse_hand, parse_item, settle
from oxeye.engine.hands import kind_of
from oxeye.engine.settlement import AMOUNT_LIMIT, Onlooker, amount_text
from oxeye.service.db import BalanceRow, RoundKeyRow, RoundRow, SeatRow, TableRow, writing
from oxeye.service.engine_json import settlement_json
from oxeye.service.rules_files import rules_from_spec
from oxeye.service.errors import ServiceError
from oxeye.service.names import normal_name
from oxeye.service.schemas import RoundIn, TableChange, TableIn


def create_table(session: Session, new: TableIn) -> TableRow:
    """Open a table; its rules are checked now, so that every later round can be settled."""
    rules_from_spec(new.rules)
    _check_seats(new.seats, new.banker)
    alike = next((name for name in session.scalars(select(TableRow.name)) if normal_name(name) == new.name), None)
    if alike is not None and alike != new.name:  # kept as typed by an older version: "t1 " is "t1", one more looked alike
        raise ServiceError(f"a table named {alike!r}, which is {new.name!r} written another way, exists already", 409)
    table = TableRow(name=new.name, rules=new.rules, banker=new.banker)
    _seat(table, new.seats)
    session.add(table)
    try:
        with writing(session):
            session.commit()
    except IntegrityError:
        raise ServiceError(f"a table named {new.name!r} exists already", 409) from None
    return table


def change_table(session: Session, table_id: int, change: TableChange) -> TableRow:
    """A table's seats or banker changed, in one transaction under the table's row (as a round is): where the
    banker left, every later round was refused ('the banker ... has no hand'). Balances are kept, a leaver's too."""
    if change.seats is None and change.banker is None:
        raise ServiceError("send the table's new banker or seats, or both")
    with writing(session):
        _hold_table(session, table_id)
        table = get_table(session, table_id)
        kept = _as_kept(table)
        seats = [seat.name for seat in table.seats] if change.seats is None else [kept.get(n, n) for n in change.seats]
        banker = table.banker if change.banker is None else kept.get(change.banker, change.banker)
        _check_seats(seats, banker)
        _seat(table, seats)
        table.banker = banker
        session.commit()
        return table


def _check_seats(seats: list[str], banker: str) -> None:
    """Seats are named apart, the one named twice named (two names that look alike were refused without saying
    which), and the banker sits at one."""
    twice = [name for name, count in Counter(seats).items() if count > 1]
    if twice:
        raise ServiceError(f"{', '.join(map(repr, twice))} {'is' if len(twice) == 1 else 'are'} named at more than "
                           "one seat (written alike, or apart only by spaces or Unicode's forms): every seat needs a "
                           "distinct name")
    if banker not in seats:
        raise ServiceError(f"the banker {banker!r} has no seat at the table")


def _as_kept(table: TableRow) -> dict[str, str]:
    """The names the table keeps (its seats', then the others' with a balance) by their normal form: one an older
    version kept as typed (" ann", "Zoë" decomposed) is still the person a request names, where a round found no
    seat for them and seats sent again split a balance in two. Two kept names of one normal form: the seat's."""
    kept: dict[str, str] = {}
    for name in [seat.name for seat in table.seats] + [row.name for row in table.totals]:
        kept.setdefault(normal_name(name), name)
    return kept


def _named_as_kept(played: RoundIn, kept: Mapping[str, str]) -> RoundIn:
    """The round with each name in it as the table keeps it (``_as_kept``)."""
    def name(sent: str) -> str:
        return kept.get(sent, sent)

    return played.model_copy(update={
        "hands": {name(n): hand for n, hand in played.hands.items()},
        "stakes": {name(n): stake for n, stake in played.stakes.items()},
        "onlookers": {name(n): [o.model_copy(update={"name": name(o.name)}) for o in backers]
                      for n, backers in played.onlookers.items()}})


def _seat(table: TableRow, seats: list[str]) -> None:
    """The table's seats made these, in order to the right (a seat kept keeps its row), each newcomer with a
    balance of 0; one who leaves keeps theirs."""
    held = {seat.name: seat for seat in table.seats}
    table.seats = [held.get(name) or SeatRow(name=name) for name in seats]
    for position, seat in enumerate(table.seats):
        seat.position = position
    known = {row.name for row in table.totals}
    table.totals.extend(BalanceRow(name=name, amount="0") for name in seats if name not in known)


def get_table(session: Session, table_id: int) -> TableRow:
    """A table by id, or a 404 ServiceError."""
    table = session.get(TableRow, table_id)
    if table is None:
        raise ServiceError(f"no table {table_id}", 404)
    return table


def tables_after(session: Session, after: int, limit: int) -> list[TableRow]:
    """The tables opened after the one of id ``after``, in the order they were opened, at most ``limit`` of them."""
    page = select(TableRow).where(TableRow.id > after).order_by(TableRow.id).limit(limit).options(
        selectinload(TableRow.seats), selectinload(TableRow.totals))
    return list(session.scalars(page))


def round_counts(session: Session, table_ids: Collection[int]) -> dict[int, int]:
    """How many rounds each of these tables has recorded: its last round's number, as they run 1, 2, ...,
    read from the rounds' index rather than by loading every round. A table with none is left out."""
    last = select(RoundRow.table_id, func.max(RoundRow.number)).where(RoundRow.table_id.in_(table_ids))
    return {table: count for table, count in session.execute(last.group_by(RoundRow.table_id))}


def rounds_after(session: Session, table_id: int, after: int, limit: int) -> list[RoundRow]:
    """A table's rounds numbered after ``after``, oldest first, at most ``limit`` of them (a 404 for no table)."""
    get_table(session, table_id)
    page = select(RoundRow).where(RoundRow.table_id == table_id, RoundRow.number > after)
    return list(session.scalars(page.order_by(RoundRow.number).limit(limit)))


def record_round(session: Session, table_id: int, played: RoundIn, key: str | None = None) -> tuple[RoundRow, bool]:
    """Settle a round at the table's current banker and store it with the new banker, in one
    transaction; rounds posted at once to one table are all kept, each settled at the banker and
    numbered after the one before it: within this process in turn (a round takes milliseconds), and
    against another process sharing the database by taking the table's row before reading it. A round
    sent again under the ``key`` it was stored with is answered as stored, not recorded again; whether
    it was recorded now comes with it."""
    with writing(session):
        _hold_table(session, table_id)
        table = get_table(session, table_id)
        played = _named_as_kept(played, _as_kept(table))
        stored = _stored_under(session, table, key, played) if key is not None else None
        if stored is not None:
            session.commit()  # lets the table's row go
            return stored, False
        row = _settled_round(table, played)
        row.number = round_counts(session, [table_id]).get(table_id, 0) + 1
        session.add(row)
        if key is not None:
            session.add(RoundKeyRow(table_id=table_id, key=key, round=row))
        session.commit()
        return row, True


def _stored_under(session: Session, table: TableRow, key: str, played: RoundIn) -> RoundRow | None:
    """The round stored at the table under this Idempotency-Key, if any; a 409 where it was another round
    (the key reused by mistake would otherwise answer an old round for a new one)."""
    stored = session.scalars(select(RoundKeyRow).where(RoundKeyRow.table_id == table.id, RoundKeyRow.key == key)).first()
    if stored is None:
        return None
    # the kind the stored round was played with, not read from the table's rules, which this version may refuse
    items = kind_of(parse_item(stored.round.settlement["banker"]["cards"][0]))
    if _meaning(stored.round.played, items) != _meaning(played.model_dump(mode="json"), items):
        raise ServiceError(f"the Idempotency-Key {key!r} was sent with another round, stored as round "
                           f"{stored.round.number}: send a new key with each new round", 409)
    return stored.round


def _meaning(played: Mapping[str, Any], items: str) -> dict[str, Any]:
    """A round's body as what it plays, to tell a resend from another round: a stake of 3 is one of 3.0,
    and a hand the same cards however written (a list or one string, "ks" or "KS"), a player's onlookers in any
    order; its bytes differed."""
    return {
        "hands": {name: sorted(item.code for item in parse_hand(hand, items)) for name, hand in played["hands"].items()},
        "stakes": {name: Decimal(stake) for name, stake in played["stakes"].items()},
        "onlookers": {name: sorted((o["name"], Decimal(o["stake"])) for o in backers)  # settled alike in any order
                      for name, backers in played["onlookers"].items() if backers},
    }


def _hold_table(session: Session, table_id: int) -> None:
    """Take the table's row for this transaction (SQLite: the database's write lock), as a write that changes
    nothing: another process read the table, then stored its round under a number taken meanwhile, settled
    again and gave up (503) after eight such turns."""
    session.execute(update(TableRow).where(TableRow.id == table_id).values(banker=TableRow.banker)
                    .execution_options(synchronize_session=False))


def _settled_round(table: TableRow, played: RoundIn) -> RoundRow:
    """The round settled at the table's current banker (not yet numbered), with the table's new banker and
    balances (not committed)."""
    seats = [seat.name for seat in table.seats]
    unknown = sorted(set(played.hands) - set(seats))
    if unknown:
        raise ServiceError(f"no seat at this table for {', '.join(unknown)}")
    if table.banker not in played.hands:
        raise ServiceError(f"the banker {table.banker} has no hand: a round holds the banker's hand too (where "
                           f"{table.banker} left the table, name the new banker with PATCH /v1/tables/{table.id})")
    start = seats.index(table.banker) + 1
    order = [seats[(start + i) % len(seats)] for i in range(len(seats) - 1)]  # from the banker's right
    unmatched = sorted(set(played.stakes) ^ (set(played.hands) - {table.banker}))
    if unmatched:
        raise ServiceError(f"{', '.join(unmatched)}: a player needs both a hand and a stake (the banker stakes nothing)")
    if table.banker in played.onlookers:
        raise ServiceError(f"onlookers back {table.banker}, who banks: an onlooker backs a player, and wins or loses "
                           "with that player's hand")
    unbacked = sorted(set(played.onlookers) - set(played.stakes))
    if unbacked:
        raise ServiceError(f"onlookers back {', '.join(unbacked)}, who does not play this round")
    players = [Participant(name, played.hands[name], played.stakes[name],
                           tuple(Onlooker(o.name, o.stake) for o in played.onlookers.get(name, [])))
               for name in order if name in played.stakes]
    if not players:
        raise ServiceError("a round needs at least one player besides the banker")
    result = settle(Participant(table.banker, played.hands[table.banker]), players, _table_rules(table))
    deltas = {result.banker: result.banker_delta, **{r.name: r.delta for r in result.results}}
    _add_to_balances(table, deltas)
    table.banker = result.next_banker
    return RoundRow(table_id=table.id, banker=result.banker, settlement=settlement_json(result),
                    played={**played.model_dump(mode="json"), "deltas": {name: str(d) for name, d in deltas.items()}})


def _table_rules(table: TableRow) -> HouseRules:
    """The rules a table's rounds are settled under, refused in so many words where this version refuses the
    rules the table was opened under (a check added since): it was told as of an option the request never sent."""
    try:
        return rules_from_spec(table.rules)
    except RulesError as error:
        refused = f"table {table.id} was opened under rules this version refuses ({error})"
        raise ServiceError(f"{refused}: its rounds and balances are kept, but no round can be settled under them; "
                           "open a new table to play on") from None


def _add_to_balances(table: TableRow, deltas: dict[str, Decimal]) -> None:
    """Each person's balance moved by the round, exactly. A round that would bring one to 10^13 or more is
    refused, as a round's own amount is: a balance summed over rounds each under it outgrew what a reader's
    float holds to the cent."""
    held = {row.name: row for row in table.totals}
    totals = balances(table)
    for name, delta in deltas.items():
        totals[name] = totals.get(name, Decimal(0)) + delta
        if abs(totals[name]) >= AMOUNT_LIMIT:
            raise ServiceError(f"this round would bring {name}'s balance to {amount_text(totals[name])}, "
                               "too large to keep to the cent (under 1e13)")
    for name in deltas:
        if name not in held:
            held[name] = BalanceRow(name=name)
            table.totals.append(held[name])
        held[name].amount = str(totals[name])


def balances(table: TableRow) -> dict[str, Decimal]:
    """Each person's total over the table's rounds, exact (stored as decimal strings): the seats' first, in
    order to the right, then the others' (onlookers, those who left) as they first played. Kept in the order
    they were first added, a newcomer's came after those who had left."""
    totals = {row.name: Decimal(row.amount) for row in table.totals}
    seated = {seat.name: totals.pop(seat.name, Decimal(0)) for seat in table.seats}
    return {**seated, **totals}
