"""The table ledger's storage: SQLAlchemy tables for tables, seats and rounds; SQLite in WAL mode.

Each round is written in one transaction together with the table's new banker, so a recorded
round survives a crash or restart whole, or not at all.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from decimal import Decimal

from sqlalchemy import (JSON, DateTime, ForeignKey, Integer, String, TypeDecorator, UniqueConstraint, create_engine, event,
                        insert, inspect, make_url, select)
from sqlalchemy.exc import ArgumentError, DBAPIError, OperationalError
from sqlalchemy.engine import URL, Connection, Engine
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, relationship, sessionmaker
from sqlalchemy.pool import ConnectionPoolEntry, QueuePool

from oxeye.service.errors import ServiceError
from oxeye.service.exact_json import exact_dumps, exact_loads
from oxeye.service.names import NAME_CHARS


KEY_MOST = 255  # the longest Idempotency-Key kept with a round


class Base(DeclarativeBase):
    """The ledger's tables."""


class UtcMoment(TypeDecorator[datetime]):
    """A moment stored in UTC and read back with its zone: SQLite keeps none, and a round's ``created``
    listed without one was read by clients as their local time."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_result_value(self, value: datetime | None, dialect: object) -> datetime | None:
        """The stored moment, as UTC where the database gave it back without a zone."""
        return value if value is None or value.tzinfo else value.replace(tzinfo=UTC)


class TableRow(Base):
    """A game table: its house rules, its seats in order and who banks now."""

    __tablename__ = "tables"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_CHARS), unique=True)
    rules: Mapped[object] = mapped_column(JSON)  # a preset name or a table of options
    banker: Mapped[str] = mapped_column(String(NAME_CHARS))
    created: Mapped[datetime] = mapped_column(UtcMoment, default=lambda: datetime.now(UTC))
    seats: Mapped[list[SeatRow]] = relationship(order_by="SeatRow.position", cascade="all, delete-orphan")
    totals: Mapped[list[BalanceRow]] = relationship(order_by="BalanceRow.id", cascade="all, delete-orphan")


class SeatRow(Base):
    """One person at a table; position runs around the table to the right."""

    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("table_id", "name"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"))
    name: Mapped[str] = mapped_column(String(NAME_CHARS))
    position: Mapped[int] = mapped_column(Integer)


class RoundRow(Base):
    """One settled round: what was played and the settlement, as the API returned it."""

    __tablename__ = "rounds"
    __table_args__ = (UniqueConstraint("table_id", "number"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"))
    number: Mapped[int] = mapped_column(Integer)
    banker: Mapped[str] = mapped_column(String(NAME_CHARS))
    played: Mapped[dict] = mapped_column(JSON)
    settlement: Mapped[dict] = mapped_column(JSON)
    created: Mapped[datetime] = mapped_column(UtcMoment, default=lambda: datetime.now(UTC))


class RoundKeyRow(Base):
    """The Idempotency-Key a client sent with a round, one round per key at a table: a client that timed out
    after the round was stored and sent it again had it recorded twice."""

    __tablename__ = "round_keys"
    __table_args__ = (UniqueConstraint("table_id", "key"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"))
    key: Mapped[str] = mapped_column(String(KEY_MOST))
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"))
    round: Mapped[RoundRow] = relationship()


class BalanceRow(Base):
    """One person's total over a table's rounds, a decimal string kept exact and changed in each round's
    transaction: summed over every round at each read, a round and a table's read slowed as the table grew
    (200 ms at 3,000 rounds). The seats' come first, in order, then onlookers' as they first play."""

    __tablename__ = "balances"
    __table_args__ = (UniqueConstraint("table_id", "name"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"))
    name: Mapped[str] = mapped_column(String(NAME_CHARS))
    amount: Mapped[str] = mapped_column(String(64))


PAYOUT_CHARS = 40  # a drill's payout as kept, at most: what a trainee may send, as written once read


class DrillRow(Base):
    """One dealer-trainer drill: what was dealt, when, and how the trainee answered."""

    __tablename__ = "drills"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    trainee: Mapped[str] = mapped_column(String(NAME_CHARS), index=True)
    rules: Mapped[object] = mapped_column(JSON)
    seed: Mapped[int] = mapped_column(Integer)  # the picture is rendered from it
    banker: Mapped[str] = mapped_column(String(NAME_CHARS))
    player: Mapped[str] = mapped_column(String(NAME_CHARS))
    stake: Mapped[int] = mapped_column(Integer)
    dealt: Mapped[datetime] = mapped_column(UtcMoment)
    answered: Mapped[datetime | None] = mapped_column(UtcMoment, default=None)
    answer_label: Mapped[str | None] = mapped_column(String(100), default=None)
    answer_payout: Mapped[str | None] = mapped_column(String(PAYOUT_CHARS), default=None)
    ox_correct: Mapped[bool | None] = mapped_column(default=None)
    payout_correct: Mapped[bool | None] = mapped_column(default=None)


# The threads Starlette runs sync routes and dependencies in (anyio's default limiter). The pool gives each a
# connection, and as many again to sessions whose route has returned and that wait for a thread to close them:
# SQLAlchemy's 5 and 10 more let a burst of requests wait on one another's connections for 30 s, then fail.
WORKER_THREADS = 40
SWITCH_PATIENCE = 5.0  # seconds a new connection waits to switch to WAL, as long as SQLite's busy timeout


# Drivers whose PyPI name is not the module SQLAlchemy imports ("pip install MySQLdb" finds nothing).
_DRIVER_PACKAGES = {"MySQLdb": "mysqlclient", "psycopg2": "psycopg2-binary"}


def open_database(url: str | URL) -> sessionmaker[Session]:
    """Connect (SQLite: WAL journal, full sync, foreign keys) and create the tables if new; a URL
    that names no database, a driver not installed, an in-memory SQLite or a database that cannot be
    opened is one clear error (the URL shown without its password)."""
    try:
        shown = make_url(url).render_as_string(hide_password=True)
        # Named, as SQLite's in memory gets another pool, which takes no overflow (such a URL is refused below).
        # JSON columns keep a table's rules digit for digit, as they were sent (ExactNumbersRoute).
        engine = create_engine(url, poolclass=QueuePool, pool_size=WORKER_THREADS, max_overflow=WORKER_THREADS,
                               json_serializer=exact_dumps, json_deserializer=exact_loads)
    except ModuleNotFoundError as error:
        package = _DRIVER_PACKAGES.get(error.name or "", error.name)
        raise ValueError(f"the database {shown} needs the driver {error.name!r}: pip install {package}") from None
    except ArgumentError as error:  # NoSuchModuleError, an unknown dialect, is one too
        raise ValueError(f"--db {url!r} is not a database URL SQLAlchemy knows: {_one_line(error)}") from None
    if engine.dialect.name == "sqlite" and _in_memory(engine.url):
        raise ValueError(f"--db {url} is in memory: each of the service's threads would get its own empty "
                         "ledger, lost at exit; name a file, e.g. sqlite:///ledger.sqlite3")
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    try:
        lacking = _made_tables(engine)
    except DBAPIError as error:  # cannot connect, cannot open, not a database
        raise OSError(f"cannot open the database {shown}: {_one_line(error.orig)}") from None
    if lacking:
        table, columns = next(iter(lacking.items()))
        raise OSError(f"the database {shown} is not OxEye's ledger: its table {table!r} lacks {', '.join(columns)} "
                      "(name another --data or --db)")
    return sessionmaker(engine, expire_on_commit=False)


def _made_tables(engine: Engine) -> dict[str, list[str]]:
    """The ledger's tables made where missing, or else the columns its tables there already lack. SQLite's
    write lock is held meanwhile: services started at once on a new file each found no tables, and all
    but the first to make one ended with 'table tables already exists'."""
    with engine.connect() as connection:
        missing = set(Base.metadata.tables) - set(inspect(connection).get_table_names())
        if missing and engine.dialect.name == "sqlite":
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        lacking = _lacking_columns(connection)
        if not lacking:
            Base.metadata.create_all(connection)
            if BalanceRow.__tablename__ in missing:
                _balances_from_rounds(connection)
        connection.commit()
    return lacking


def _balances_from_rounds(connection: Connection) -> None:
    """Every table's balances summed once from its rounds, where the ledger was written before balances were
    kept (its seats' first, in order, then the others' as they first played)."""
    totals: dict[tuple[int, str], Decimal] = {}
    for table_id, name in connection.execute(select(SeatRow.table_id, SeatRow.name).order_by(SeatRow.position)):
        totals[table_id, name] = Decimal(0)
    for table_id, played in connection.execute(select(RoundRow.table_id, RoundRow.played).order_by(RoundRow.number)):
        for name, delta in played["deltas"].items():
            totals[table_id, name] = totals.get((table_id, name), Decimal(0)) + Decimal(delta)
    if totals:
        connection.execute(insert(BalanceRow), [{"table_id": table_id, "name": name, "amount": str(amount)}
                                                for (table_id, name), amount in totals.items()])


def _lacking_columns(connection: Connection) -> dict[str, list[str]]:
    """The ledger's columns missing from its tables already in the database, by table: another program's
    table of the same name started a service whose every request was a 500 ('no such column')."""
    found = inspect(connection)
    return {table.name: lacking for table in Base.metadata.sorted_tables if found.has_table(table.name)
            if (lacking := sorted(set(table.columns.keys()) - {c["name"] for c in found.get_columns(table.name)}))}


def _one_line(error: BaseException) -> str:
    """An error's message on one line, as ``oxeye serve`` says why it stops: SQLAlchemy's for a bad SQLite
    URL, and PostgreSQL's for a server it cannot reach, run on for several."""
    return " ".join(line.strip() for line in str(error).splitlines() if line.strip())


def _in_memory(url: URL) -> bool:
    """Whether a SQLite URL names no file (as a URI filename too, file::memory:): each connection then opens
    a database of its own, and the request threads found no tables in theirs (every request a 500)."""
    database = url.database or ""
    if url.query.get("uri") == "true":
        database = database.removeprefix("file:")
    return database in ("", ":memory:") or url.query.get("mode") == "memory"


def _sqlite_pragmas(connection: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
    """Set each new SQLite connection up for the ledger: WAL, so that readers never wait on a round being
    written; every commit synced to disk, so that a round answered as stored survives a power cut; and the
    foreign keys checked, which SQLite leaves off by default."""
    cursor = connection.cursor()
    _switch_to_wal(cursor)
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _switch_to_wal(cursor: sqlite3.Cursor, patience: float = SWITCH_PATIENCE) -> None:
    """The WAL journal, waited for while another connection holds the file: SQLite refuses the switch at once
    rather than waiting out its busy timeout, and of services started together on a new file one in twenty
    or so ended 'cannot open the database: database is locked'."""
    deadline = time.monotonic() + patience
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


# The changes this process makes to the ledger, one at a time, each waiting on this lock: SQLite takes one
# writer at a time, and a writer waiting on another polls rather than queues (a drill dealt among rounds
# posted at once waited out SQLite's 5 s and was refused). Another process sharing the database still waits so.
WRITING = threading.Lock()


@contextmanager
def writing(session: Session) -> Iterator[None]:
    """A change to the ledger, made in this process's turn and undone whole where it fails, its locks let go
    at once; where the database refuses it (read-only, a full disk, a lock held too long), a 503 saying why,
    where it was a 500 that said only to read the log."""
    with WRITING:
        try:
            yield
        except BaseException as error:
            session.rollback()
            if isinstance(error, OperationalError):
                raise ServiceError(f"the ledger could not be written ({error.orig}): nothing was recorded", 503) from None
            raise


def sessions(factory: sessionmaker[Session]) -> Iterator[Session]:
    """One session per request, closed afterwards."""
    with factory() as session:
        yield session


def dispose(factory: sessionmaker[Session]) -> None:
    """Close the connection pool."""
    bind = factory.kw["bind"]
    if isinstance(bind, Engine):
        bind.dispose()
