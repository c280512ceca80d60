"""A real `oxeye serve` on a free loopback port: it answers, and its ledger survives being killed."""

from __future__ import annotations

import signal
import sqlite3
from pathlib import Path

import httpx

from serving import free_port, start_server, stop_server

KEY = {"X-API-Key": "k"}


def test_ledger_survives_a_killed_server(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = start_server(tmp_path, port, "--api-key", "k")
    try:
        table = httpx.post(f"{url}/v1/tables", headers=KEY, json={
            "name": "kill test", "rules": "gnau", "seats": ["ann", "bo"], "banker": "ann"}).json()
        played = httpx.post(f"{url}/v1/tables/{table['id']}/rounds", headers=KEY, json={
            "hands": {"ann": "10S 9H 8D 4C 4H", "bo": "KS QH JD KC QD"}, "stakes": {"bo": 3}})
        assert played.status_code == 201
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
