"""Starting a real `oxeye serve` on a free loopback port for a test, and stopping it."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

OXEYE = str(Path(sys.executable).with_name("oxeye"))


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(data: Path, port: int, *extra: str) -> subprocess.Popen:
    """`oxeye serve` with its ledger in ``data``; returns once /v1/health answers (30 s at most)."""
    server = subprocess.Popen([OXEYE, "serve", "--port", str(port), "--data", str(data), *extra],
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


def stop_server(server: subprocess.Popen) -> None:
    server.terminate()
    server.wait(10)


def refused(*args: str) -> str:
    """`oxeye serve ARGS` where it must not start: it ends with status 2 and one line, returned."""
    done = subprocess.run([OXEYE, "serve", *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    return done.stderr
