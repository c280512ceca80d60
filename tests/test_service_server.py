"""A real `oxeye serve` on a free loopback port: it answers, its ledger survives being killed, rounds
posted at once to one table are all kept, a drill takes one answer however many arrive at once, and
where it cannot listen it says so in one line."""

from __future__ import annotations

import contextlib
import json
import signal
import socket
import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
from sqlalchemy.orm import Session, sessionmaker

from oxeye.models import DEFAULT_MODEL
from oxeye.service import ledger
from oxeye.service.db import RoundRow, TableRow, dispose, open_database
from oxeye.service.schemas import RoundIn, TableIn
from oxeye.service.serve_command import listening_socket
from oxeye.vision.classifier import CLASSIFIER_NAME
from serving import free_port, refused, start_server, stop_server

KEY = {"X-API-Key": "k"}
DUKES = {"hands": {"ann": "10S 9H 8D 4C 4H", "bo": "KS QH JD KC QD"}, "stakes": {"bo": 3}}  # bo wins 7 x 3


def _gnau_table(url: str, name: str) -> dict:
    """A new gnau table for ann (banking) and bo, opened at the server at ``url``."""
    return httpx.post(f"{url}/v1/tables", headers=KEY, json={
        "name": name, "rules": "gnau", "seats": ["ann", "bo"], "banker": "ann"}).json()


def test_ledger_survives_a_killed_server(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = start_server(tmp_path, port, "--api-key", "k")
    try:
        table = _gnau_table(url, "kill test")
        assert httpx.post(f"{url}/v1/tables/{table['id']}/rounds", headers=KEY, json=DUKES).status_code == 201
    finally:
        server.send_signal(signal.SIGKILL)  # no clean shutdown
        server.wait(10)
    assert sqlite3.connect(tmp_path / "oxeye.sqlite3").execute("PRAGMA journal_mode").fetchone() == ("wal",)
    server = start_server(tmp_path, port, "--api-key", "k")
    try:
        after = httpx.get(f"{url}/v1/tables/{table['id']}").json()
        assert after["rounds"] == 1 and after["balances"] == {"ann": -21, "bo": 21}
    finally:
        stop_server(server)


def test_rounds_posted_at_once_to_one_table_are_all_kept_in_turn(tmp_path: Path) -> None:
    """Sixteen clients posting 48 rounds: each once took the round count read before another's commit,
    and 31 of them failed (500) on the rounds' unique number."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = start_server(tmp_path, port)
    try:
        table = httpx.post(f"{url}/v1/tables", json={"name": "busy", "rules": "gnau", "seats": ["ann", "bo", "cy"],
                                                    "banker": "ann"}).json()
        played = {"hands": {"ann": "10S 9H 8D 4C 4H", "bo": "KS QH JD KC QD", "cy": "2S 3H 5D 7C 9C"},
                  "stakes": {"bo": 10, "cy": 5}}
        with ThreadPoolExecutor(16) as pool:
            answers = list(pool.map(lambda _: httpx.post(f"{url}/v1/tables/{table['id']}/rounds", json=played,
                                                         timeout=60), range(48)))
        assert [a.status_code for a in answers] == [201] * 48, [a.text for a in answers if a.status_code != 201][:2]
        assert sorted(a.json()["number"] for a in answers) == list(range(1, 49))
        after = httpx.get(f"{url}/v1/tables/{table['id']}").json()
        assert after["rounds"] == 48 and after["balances"] == {"ann": -75 * 48, "bo": 70 * 48, "cy": 5 * 48}
    finally:
        stop_server(server)
    assert "Traceback" not in server.stderr.read().decode()


def test_a_round_resent_after_its_answer_was_lost_is_recorded_once(tmp_path: Path) -> None:
    """A client that gave up waiting after the server stored its round sent it again: recorded twice. Sent
    with an Idempotency-Key, the resend is answered with the round stored (200), whichever came first."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = start_server(tmp_path, port, "--api-key", "k")
    try:
        table = _gnau_table(url, "retry")
        headers = {**KEY, "Idempotency-Key": "9f1c-round"}
        with contextlib.suppress(httpx.ReadTimeout):  # the answer lost: the client gives up before it comes
            httpx.post(f"{url}/v1/tables/{table['id']}/rounds", headers=headers, json=DUKES,
                       timeout=httpx.Timeout(10, read=0.0001))
        resent = httpx.post(f"{url}/v1/tables/{table['id']}/rounds", headers=headers, json=DUKES)
        assert resent.status_code in (200, 201) and resent.json()["number"] == 1
        again = httpx.post(f"{url}/v1/tables/{table['id']}/rounds", headers=headers, json=DUKES)
        assert (again.status_code, again.json()) == (200, resent.json())
        after = httpx.get(f"{url}/v1/tables/{table['id']}").json()
        assert after["rounds"] == 1 and after["balances"] == {"ann": -21, "bo": 21}
    finally:
        stop_server(server)


def test_a_round_waits_for_the_round_another_service_is_storing_at_its_table(tmp_path: Path, monkeypatch) -> None:
    """Two services on one database, as two processes (each with its own lock, none here): each read the
    table, then stored its round under the next number; where the other had stored one meanwhile it
    settled again, and after eight such turns it gave up (503), though nothing was wrong with the round."""
    url = f"sqlite:///{tmp_path / 'oxeye.sqlite3'}"
    here, there = open_database(url), open_database(url)
    played = RoundIn(**DUKES)
    with here() as session:
        table_id = ledger.create_table(session, TableIn(name="t", rules="gnau", seats=["ann", "bo"], banker="ann")).id
    monkeypatch.setattr("oxeye.service.db.WRITING", contextlib.nullcontext())
    others: list[threading.Thread] = []
    settled = ledger._settled_round

    def settled_as_the_other_service_records(table: TableRow, round_in: RoundIn) -> RoundRow:
        if threading.current_thread() is threading.main_thread():  # the table read: now store one there
            others.append(threading.Thread(target=_record, args=(there, table_id, played)))
            others[-1].start()
            others[-1].join(1)
        return settled(table, round_in)

    monkeypatch.setattr(ledger, "_settled_round", settled_as_the_other_service_records)
    with here() as session:
        assert ledger.record_round(session, table_id, played)[0].number == 1
    for other in others:
        other.join(10)
    with here() as session:
        assert [r.number for r in ledger.rounds_after(session, table_id, 0, 10)] == [1, 2]
    dispose(here), dispose(there)


def _record(sessions: sessionmaker[Session], table_id: int, played: RoundIn) -> None:
    with sessions() as session:
        ledger.record_round(session, table_id, played)


def test_answers_sent_at_once_to_one_drill_grade_one_and_refuse_the_rest(tmp_path: Path) -> None:
    """Eight answers at once: two once both passed the check for an answer and the later overwrote the first."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = start_server(tmp_path, port)
    try:
        for _ in range(5):
            # the first deal waits for the picture's faces (seconds), as a drill's clock must not
            drill = httpx.post(f"{url}/v1/trainer/drills", json={"trainee": "kit", "rules": "gnau"}, timeout=60).json()
            labels = drill["choices"][:8]
            with ThreadPoolExecutor(8) as pool:
                answers = list(pool.map(lambda label: httpx.post(f"{url}/v1/trainer/drills/{drill['id']}/answer",
                                                                 json={"label": label, "payout": "1"}, timeout=60), labels))
            assert sorted(a.status_code for a in answers) == [200] + [409] * 7
            kept = next(label for label, a in zip(labels, answers) if a.status_code == 200)
            with sqlite3.connect(tmp_path / "oxeye.sqlite3") as db:
                assert db.execute("SELECT answer_label FROM drills WHERE id = ?", (drill["id"],)).fetchone() == (kept,)
        assert httpx.get(f"{url}/v1/trainer/trainees/kit").json()["drills"] == 5
    finally:
        stop_server(server)


def test_where_it_cannot_listen_is_one_line_and_status_2(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        cases = ((["--port", str(port)], f"cannot listen on 127.0.0.1:{port}: Address already in use"),
                 (["--port", "70000"], "a port is 0 to 65535, not 70000"),
                 (["--port", "0", "--data", str(tmp_path / "ledger.txt")], "is a file: name a folder"),
                 # each started a service that refused every change to the ledger, or never settled a stream
                 (["--port", "0", "--api-key", ""], "--api-key is empty (an unset variable?)"),
                 (["--port", "0", "--source", ""], "--source is empty (an unset variable?)"),
                 (["--port", "0", "--source", " "], "--source is empty (an unset variable?)"),
                 (["--port", "0", "--settle-frames", "0"], "--settle-frames is 1 to 300, not 0"),
                 (["--port", "0", "--settle-frames", "301"], "--settle-frames is 1 to 300, not 301"),
                 (["--port", "0", "--source", "0", "--stream-banker", "-1"],
                  "--stream-banker is a hand's index, 0 or more, not -1"),
                 # a stream's rules or banker with no stream: the table's settings were dropped without a word
                 (["--port", "0", "--stream-rules", "niuniu"], "--stream-rules is for the --source stream"),
                 (["--port", "0", "--stream-banker", "2"], "--stream-banker is for the --source stream"),
                 # a mistyped or wrong --model: every photo was a 503 once started
                 (["--port", "0", "--model", str(tmp_path / "nope.onnx")], "no model at"),
                 (["--port", "0", "--model", str(tmp_path)], f"{tmp_path} is a folder, not a model: name the .onnx"),
                 (["--port", "0", "--model", str(DEFAULT_MODEL.with_name(CLASSIFIER_NAME))], "is not a detector"))
        (tmp_path / "ledger.txt").write_text("not a folder")
        for args, message in cases:
            assert message in refused("--data", str(tmp_path), *args)
    assert (tmp_path / "ledger.txt").read_text() == "not a folder" and not (tmp_path / "oxeye.sqlite3").exists()


def test_a_body_over_its_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """A photo form was read whole onto disk before its size was looked at (a 10 GB one filled the disk the
    ledger is on), and a JSON body whole into memory (300 MB took 2.3 GB); each is now refused (413) at
    once where its Content-Length says it is over, else once that much has come."""
    port = free_port()
    server = start_server(tmp_path, port)
    try:
        for path, kind, message in (("/v1/evaluate", "multipart/form-data; boundary=b", "the upload is too large"),
                                    ("/v1/settle", "application/json", "the body is too large")):
            with socket.create_connection(("127.0.0.1", port), timeout=30) as client:
                client.sendall(f"POST {path} HTTP/1.1\r\nHost: oxeye\r\nContent-Type: {kind}\r\n"
                               f"Content-Length: {10**10}\r\n\r\n".encode())  # and no body at all
                head, body = client.makefile("rb").read().split(b"\r\n\r\n", 1)
            assert head.startswith(b"HTTP/1.1 413 ") and message in json.loads(body)["error"]
        chunked = httpx.post(f"http://127.0.0.1:{port}/v1/settle", content=iter([b" " * 600_000] * 4),
                             headers={"Content-Type": "application/json"})  # sent without a length
        assert chunked.status_code == 413 and "the body is too large" in chunked.json()["error"]
    finally:
        stop_server(server)
    assert "Traceback" not in server.stderr.read().decode()


def test_its_connections_send_without_waiting_for_acknowledgements() -> None:
    """asyncio turns Nagle's algorithm off only on sockets made with the TCP protocol named, which
    socket.create_server's are not: on a kept-alive connection every answer, its head and body written
    apart, waited 40 ms for the client's delayed acknowledgement."""
    with listening_socket("127.0.0.1", 0) as sock, socket.create_connection(sock.getsockname()[:2]):
        accepted, _ = sock.accept()
        with accepted:
            assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)


def test_a_database_it_cannot_open_is_one_line_and_status_2(tmp_path: Path) -> None:
    """Each was a traceback; a URL's password is not shown."""
    (tmp_path / "notes.txt").write_text("not a database")
    with sqlite3.connect(tmp_path / "other.db") as other:  # another program's, with a table named as ours
        other.execute("CREATE TABLE tables (id INTEGER PRIMARY KEY, label TEXT)")
    cases = ((f"sqlite:///{tmp_path / 'no' / 'such' / 'x.db'}", "cannot open the database"),
             (f"sqlite:///{tmp_path / 'notes.txt'}", "file is not a database"),
             # it started, every request a 500 'no such column'
             (f"sqlite:///{tmp_path / 'other.db'}", "is not OxEye's ledger: its table 'tables' lacks banker, created, name, rules"),
             ("bogus://x", "not a database URL SQLAlchemy knows"),
             # SQLAlchemy's own message runs on for four lines, listing the forms a SQLite URL takes
             ("sqlite://localhost/x.db", "Invalid SQLite URL: sqlite://localhost/x.db Valid SQLite URL forms are:"),
             # each thread of the service had its own empty database: every request was a 500
             ("sqlite://", "sqlite:// is in memory"),
             ("sqlite:///:memory:", "sqlite:///:memory: is in memory"),
             ("sqlite:///file:ledger?mode=memory&uri=true", "is in memory"),
             ("sqlite:///file::memory:?uri=true", "is in memory"),
             # no driver here (or, with one, no server on port 1): either way named without its password
             ("postgresql://ann:secret@127.0.0.1:1/ledger", "postgresql://ann:***@127.0.0.1:1/ledger"),
             # the driver named as PyPI knows it: 'pip install MySQLdb' finds nothing
             ("mysql://ann@127.0.0.1:1/ledger", "needs the driver 'MySQLdb': pip install mysqlclient"))
    for url, message in cases:
        said = refused("--port", "0", "--data", str(tmp_path), "--db", url)
        assert message in said and "secret" not in said, said
    assert (tmp_path / "notes.txt").read_text() == "not a database"
    with sqlite3.connect(tmp_path / "other.db") as other:  # left as it was: none of the ledger's tables added
        assert other.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall() == [("tables",)]


def test_ctrl_c_as_it_warms_up_ends_as_interrupted(tmp_path: Path) -> None:
    """Ctrl-C in the seconds after a start, as the warm-up thread made the trainer's faces with OpenCV, ended in
    'terminate called without an active exception' and SIGABRT (status -6), Python's exit running C++
    destructors under that thread. Stopped at a few moments of the warm-up, it ends as interrupted (130)."""
    import time

    for after in (0.0, 0.5, 1.0, 1.5):
        server = start_server(tmp_path / str(after), free_port())
        time.sleep(after)
        server.send_signal(signal.SIGINT)
        server.wait(10)
        log = server.stderr.read().decode()
        assert server.returncode == 130 and "terminate called" not in log and log.endswith("oxeye serve: interrupted\n"), (after, log)
