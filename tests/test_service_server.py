"""A real `oxeye serve` on a free loopback port: it answers, and its ledger survives being killed."""

from __future__ import annotations

import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx

OXEYE = str(Path(sys.executable).with_name("oxeye"))
KEY = {"X-API-Key": "k"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start(data: Path, port: int) -> subprocess.Popen:
    server = subprocess.Popen([OXEYE, "serve", "--port", str(port), "--data", str(data), "--api-key", "k"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=1).status_code == 200:
                return server
        except httpx.TransportError:
            time.sleep(0.2)
    server.kill()
    raise AssertionError(f"the server did not start: {server.stderr.read().decode()}")


def test_ledger_survives_a_killed_server(tmp_path: Path) -> None:
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    server = _start(tmp_path, port)
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
    server = _start(tmp_path, port)
    try:
        after = httpx.get(f"{url}/v1/tables/{table['id']}").json()
        assert after["rounds"] == 1 and after["balances"] == {"ann": -21, "bo": 21}
    finally:
        server.terminate()
        server.wait(10)
