"""Routes of the table ledger: tables, their rounds and balances. Changes need the API key, if set."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Query, Request, Response

from oxeye.service import ledger
from oxeye.service.db import KEY_MOST, RoundRow, TableRow
from oxeye.service.deps import Db, KeyChecked
from oxeye.service.engine_json import json_number
from oxeye.service.errors import refuse_unknown_or_repeated
from oxeye.service.exact_numbers import ExactJSONResponse, ExactNumbersRoute
from oxeye.service.schemas import Problem, RoundIn, RoundOut, RowId, TableChange, TableIn, TableOut

PAGE, PAGE_MOST = 100, 1000  # rounds listed at once: by default, and at most

# A client's name for one round it posts, printable ASCII: a resend under it is answered with the round stored.
IdempotencyKey = Annotated[str | None, Header(alias="Idempotency-Key", min_length=1, max_length=KEY_MOST,
                                              pattern=r"^[\x20-\x7e]+$", description="one per round; a resend reuses it")]

# Bodies read digit for digit: a table's inline rules read as floats were stored, shown and settled rounded.
router = APIRouter(prefix="/v1/tables", tags=["ledger"], route_class=ExactNumbersRoute,
                   responses={400: {"model": Problem}, 404: {"model": Problem}})


def _table_out(table: TableRow, counts: dict[int, int]) -> TableOut:
    """A table as answered, its number of rounds taken from ``counts`` (ledger.round_counts)."""
    return TableOut(id=table.id, name=table.name, rules=table.rules, seats=[s.name for s in table.seats],
                    banker=table.banker, rounds=counts.get(table.id, 0),
                    balances={k: json_number(v) for k, v in ledger.balances(table).items()})


def _tables_answer(tables: TableOut | list[TableOut], status_code: int = 200) -> ExactJSONResponse:
    """Tables as answered, their rules' numbers as stored, digit for digit (a response model wrote them as text)."""
    content = [t.model_dump() for t in tables] if isinstance(tables, list) else tables.model_dump()
    return ExactJSONResponse(content, status_code)


def _round_out(row: RoundRow) -> RoundOut:
    return RoundOut(number=row.number, banker=row.banker, settlement=row.settlement, created=row.created)


@router.post("", response_model=TableOut, status_code=201, dependencies=KeyChecked,
             responses={401: {"model": Problem}, 409: {"model": Problem}})
def open_table(body: TableIn, db: Db) -> ExactJSONResponse:
    """Open a table with its house rules, seats (in order to the right) and first banker."""
    return _tables_answer(_table_out(ledger.create_table(db, body), {}), 201)


@router.get("", response_model=list[TableOut])
def tables(db: Db) -> ExactJSONResponse:
    """Every table, in the order they were opened, each with who banks now and everyone's balance."""
    counts = ledger.round_counts(db)
    return _tables_answer([_table_out(t, counts) for t in ledger.list_tables(db)])


@router.get("/{table_id}", response_model=TableOut)
def table(table_id: RowId, db: Db) -> ExactJSONResponse:
    """A table: who banks now and everyone's balance."""
    return _tables_answer(_table_out(ledger.get_table(db, table_id), ledger.round_counts(db, table_id)))


@router.patch("/{table_id}", response_model=TableOut, dependencies=KeyChecked,
              responses={401: {"model": Problem}, 422: {"model": Problem}})
def change_table(table_id: RowId, body: TableChange, db: Db) -> ExactJSONResponse:
    """Change a table's seats or banker, as when someone leaves or joins; balances are kept."""
    return _tables_answer(_table_out(ledger.change_table(db, table_id, body), ledger.round_counts(db, table_id)))


def play_round(table_id: RowId, body: RoundIn, response: Response, db: Db, idempotency_key: IdempotencyKey = None) -> RoundOut:
    """Settle and record a round at the table's current banker; the bank passes as the rules say. Sent again
    with the same Idempotency-Key (a client that timed out), it is answered as stored (200), not recorded again."""
    row, recorded = ledger.record_round(db, table_id, body, idempotency_key)
    if not recorded:
        response.status_code = 200
    return _round_out(row)


router.add_api_route("/{table_id}/rounds", play_round, methods=["POST"], response_model=RoundOut, status_code=201,
                     dependencies=KeyChecked, response_model_exclude_unset=True,
                     responses={200: {"model": RoundOut, "description": "the round stored under this Idempotency-Key"},
                                401: {"model": Problem}, 409: {"model": Problem}, 422: {"model": Problem}})


@router.get("/{table_id}/rounds", response_model=list[RoundOut], response_model_exclude_unset=True,
            responses={422: {"model": Problem}})
def rounds(table_id: RowId, request: Request, response: Response, db: Db,
           after: Annotated[int, Query(ge=0, le=2**63 - 1, description="the last round number already read")] = 0,
           limit: Annotated[int, Query(ge=1, le=PAGE_MOST, description="how many rounds at most")] = PAGE) -> list[RoundOut]:
    """The recorded rounds numbered after ``after``, oldest first, a page of at most ``limit``; where more
    follow, the Link header names the next page. The whole list at once was 390 kB at 600 rounds."""
    refuse_unknown_or_repeated([name for name, _ in request.query_params.multi_items()], ("after", "limit"), "query field")
    page = ledger.rounds_after(db, table_id, after, limit + 1)
    if len(page) > limit:
        page = page[:limit]
        response.headers["Link"] = f'<{request.url.include_query_params(after=page[-1].number, limit=limit)}>; rel="next"'
    return [_round_out(r) for r in page]
