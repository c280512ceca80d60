"""Routes of the table ledger: tables, their rounds and balances. Changes need the API key, if set."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, TypeVar

from fastapi import APIRouter, Header, Query, Request, Response
from pydantic import AfterValidator

from oxeye.service import ledger
from oxeye.service.db import KEY_MOST, RoundRow, TableRow
from oxeye.service.deps import Db, KeyChecked
from oxeye.service.engine_json import json_number
from oxeye.service.errors import refuse_unknown_or_repeated
from oxeye.service.exact_numbers import ExactJSONResponse, ExactNumbersRoute
from oxeye.service.schemas import DIGITS, UNWRITTEN, Problem, RoundIn, RoundOut, RowId, TableChange, TableIn, TableOut

PAGE, PAGE_MOST = 100, 1000  # tables or rounds listed at once: by default, and at most
Limit = Annotated[int, Query(ge=1, le=PAGE_MOST, description="how many at most"), DIGITS]
Row = TypeVar("Row", TableRow, RoundRow)
# A list's answer, its Link header documented: the schema named no header, a client reading it found no next page.
PAGED = {200: {"headers": {"Link": {"description": 'the next page, where more follow: <URL>; rel="next"',
                                    "schema": {"type": "string"}}}}, 422: {"model": Problem}}


def _idempotency_key(key: str | None) -> str | None:
    """A client's name for one round it posts, 1 to KEY_MOST printable ASCII characters, refused in those words
    (a pattern's refusal quoted the regular expression)."""
    if key is not None and not (1 <= len(key) <= KEY_MOST and all(" " <= c <= "~" for c in key)):
        raise ValueError(f"must be 1 to {KEY_MOST} printable ASCII characters, a new one for each round")
    return key


# A resend under it is answered with the round stored. Its form is documented, as checked: the schema said any string.
IdempotencyKey = Annotated[str | None, Header(alias="Idempotency-Key", description="one per round; a resend reuses it",
                                              json_schema_extra={"pattern": f"^[ -~]{{1,{KEY_MOST}}}$"}),
                           AfterValidator(_idempotency_key)]

# Bodies read digit for digit: a table's inline rules read as floats were stored, shown and settled rounded.
router = APIRouter(prefix="/v1/tables", tags=["ledger"], route_class=ExactNumbersRoute,
                   responses={400: {"model": Problem}, 404: {"model": Problem}})


def _table_out(table: TableRow, counts: dict[int, int]) -> TableOut:
    """A table as answered, its number of rounds taken from ``counts`` (ledger.round_counts)."""
    return TableOut(id=table.id, name=table.name, rules=table.rules, seats=[s.name for s in table.seats],
                    banker=table.banker, rounds=counts.get(table.id, 0),
                    balances={k: json_number(v) for k, v in ledger.balances(table).items()})


def _tables_answer(tables: TableOut | list[TableOut], status_code: int = 200,
                   headers: dict[str, str] | None = None) -> ExactJSONResponse:
    """Tables as answered, their rules' numbers as stored, digit for digit (a response model wrote them as text)."""
    content = [t.model_dump() for t in tables] if isinstance(tables, list) else tables.model_dump()
    return ExactJSONResponse(content, status_code, headers)


def _page(request: Request, read: Callable[[int], list[Row]], limit: int,
          key: Callable[[Row], int]) -> tuple[list[Row], dict[str, str]]:
    """The rows ``read`` gives for a limit one over ``limit``, cut to it, with the Link header naming the next
    page where more follow, the query refused where it holds a field other than ``after`` and ``limit``."""
    refuse_unknown_or_repeated([name for name, _ in request.query_params.multi_items()], ("after", "limit"), "query field")
    page = read(limit + 1)
    if len(page) <= limit:
        return page, {}
    page = page[:limit]
    return page, {"Link": f'<{request.url.include_query_params(after=key(page[-1]), limit=limit)}>; rel="next"'}


def _round_out(row: RoundRow) -> RoundOut:
    return RoundOut(number=row.number, banker=row.banker, settlement=row.settlement, created=row.created)


@router.post("", response_model=TableOut, status_code=201, dependencies=KeyChecked,
             responses={401: {"model": Problem}, 409: {"model": Problem}, **UNWRITTEN})
def open_table(body: TableIn, db: Db) -> ExactJSONResponse:
    """Open a table with its house rules, seats (in order to the right) and first banker."""
    return _tables_answer(_table_out(ledger.create_table(db, body), {}), 201)


@router.get("", response_model=list[TableOut], responses=PAGED)
def tables(request: Request, db: Db,
           after: Annotated[int, Query(ge=0, le=2**63 - 1, description="the last table id already read"), DIGITS] = 0,
           limit: Limit = PAGE) -> ExactJSONResponse:
    """The tables opened after the one of id ``after``, in the order they were opened, a page of at most ``limit``,
    each with who banks now and everyone's balance; where more follow, the Link header names the next page.
    Every table at once was thousands in one answer."""
    page, links = _page(request, lambda most: ledger.tables_after(db, after, most), limit, lambda t: t.id)
    counts = ledger.round_counts(db, [t.id for t in page])
    return _tables_answer([_table_out(t, counts) for t in page], headers=links)


@router.get("/{table_id}", response_model=TableOut)
def table(table_id: RowId, db: Db) -> ExactJSONResponse:
    """A table: who banks now and everyone's balance."""
    return _tables_answer(_table_out(ledger.get_table(db, table_id), ledger.round_counts(db, [table_id])))


@router.patch("/{table_id}", response_model=TableOut, dependencies=KeyChecked,
              responses={401: {"model": Problem}, 422: {"model": Problem}, **UNWRITTEN})
def change_table(table_id: RowId, body: TableChange, db: Db) -> ExactJSONResponse:
    """Change a table's seats or banker, as when someone leaves or joins; balances are kept."""
    return _tables_answer(_table_out(ledger.change_table(db, table_id, body), ledger.round_counts(db, [table_id])))


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
                                401: {"model": Problem}, 409: {"model": Problem}, 422: {"model": Problem}, **UNWRITTEN})


@router.get("/{table_id}/rounds", response_model=list[RoundOut], response_model_exclude_unset=True,
            responses=PAGED)
def rounds(table_id: RowId, request: Request, response: Response, db: Db,
           after: Annotated[int, Query(ge=0, le=2**63 - 1, description="the last round number already read"), DIGITS] = 0,
           limit: Limit = PAGE) -> list[RoundOut]:
    """The recorded rounds numbered after ``after``, oldest first, a page of at most ``limit``; where more
    follow, the Link header names the next page. The whole list at once was 390 kB at 600 rounds."""
    page, links = _page(request, lambda most: ledger.rounds_after(db, table_id, after, most), limit, lambda r: r.number)
    response.headers.update(links)
    return [_round_out(r) for r in page]
