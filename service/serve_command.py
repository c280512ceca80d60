"""``oxeye serve``: the web service on a loopback port, with its ledger database."""

from __future__ import annotations

import argparse
import logging
import os
import socket
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from oxeye.vision.cli import typed_whole, whole_number

if TYPE_CHECKING:
    import uvicorn

# 10 s of a hand held still at 30 frames a second, a minute or more at the few a CPU reads: over it no hand settles.
MAX_SETTLE_FRAMES = 300


def port_number(text: str) -> int:
    """A TCP port, 0 to 65535 (0: any free one), for ``--port``, in ASCII digits; anything else is a usage error."""
    port = typed_whole(text, "a port number")
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535, not {port}")
    return port


def listening_socket(host: str, port: int) -> socket.socket:
    """The service's socket, bound and listening before anything starts, so that a port already in
    use or a host that is not this machine's ends ``oxeye serve`` with one line, not a server's log.

    Its connections send at once (TCP_NODELAY, which they inherit): asyncio sets it only on sockets made
    with the TCP protocol named, which create_server's are not, and a kept-alive connection's every
    answer then waited 40 ms for the client's delayed acknowledgement."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0][0]
        sock = socket.create_server((host, port), family=family)
    except OSError as error:  # socket.gaierror (an unknown host) is one too, with a negative errno
        reason = os.strerror(error.errno) if (error.errno or 0) > 0 else error.strerror or str(error)
        raise OSError(f"cannot listen on {host}:{port}: {reason}") from None
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def address(sock: socket.socket) -> str:
    """The URL a listening socket answers at (an IPv6 host in brackets)."""
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _server(config: uvicorn.Config) -> uvicorn.Server:
    """uvicorn's server, which ends every /v1/stream.mjpg viewer's stream as it begins to shut down: it
    waits for responses to finish before it stops the app, and a viewer's never did (3 s, then each one
    cancelled with a traceback in the log and its body cut short)."""
    import uvicorn

    class Server(uvicorn.Server):
        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            """End the camera stream's viewers first, then shut down as uvicorn does."""
            if (stream := config.app.state.stream) is not None:
                stream.jpegs.close()
            await super().shutdown(sockets)

    return Server(config)


def _serve(args: argparse.Namespace) -> int:
    # The arguments and the port are checked before the app's libraries load (2 to 3 s here): a mistyped flag is
    # answered at once.
    if not 1 <= args.settle_frames <= MAX_SETTLE_FRAMES:  # above it, a hand is never held still long enough
        raise ValueError(f"--settle-frames is 1 to {MAX_SETTLE_FRAMES}, not {args.settle_frames}")
    if args.source is None:  # else a table's rules or banker typed for a stream that never runs, ignored unseen
        given = [flag for flag, value in (("--stream-rules", args.stream_rules), ("--stream-banker", args.stream_banker))
                 if value is not None]
        if given:
            raise ValueError(f"{given[0]} is for the --source stream: name the --source, or leave {given[0]} out")
    stream_rules = "gnau" if args.stream_rules is None else args.stream_rules
    stream_banker = 0 if args.stream_banker is None else args.stream_banker
    if stream_banker < 0:  # as /v1/live's banker: no hand has a negative index, and none would settle
        raise ValueError(f"--stream-banker is a hand's index, 0 or more, not {stream_banker}")
    if args.api_key == "":  # no request can send an empty key: every change to the ledger would be refused
        raise ValueError("--api-key is empty (an unset variable?): name the key the ledger's changes need")
    if args.source is not None and not args.source.strip():  # "" was read as the current folder, " " as a file
        raise ValueError("--source is empty (an unset variable?): name a camera index, a video file or a stream URL")
    if args.data.exists() and not args.data.is_dir():
        raise ValueError(f"--data {args.data} is a file: name a folder for the ledger")
    with listening_socket(args.host, args.port) as sock:
        import uvicorn

        from oxeye.service.app import create_app
        from oxeye.service.settings import Settings

        settings = Settings(data_dir=args.data, db_url=args.db, api_key=args.api_key, model=args.model,
                            settle_frames=args.settle_frames, source=args.source, stream_rules=stream_rules,
                            stream_banker=stream_banker, warm_up=True)
        # A viewer of /v1/stream.mjpg that stopped reading cannot be ended: it is given 3 s at shutdown, not forever.
        # A /v1/live frame may be as large as an upload: uvicorn's own limit (16 MiB) closed the socket on less.
        config = uvicorn.Config(create_app(settings), log_level="info", timeout_graceful_shutdown=3,
                                ws_max_size=settings.max_upload_bytes)
        # uvicorn names its address only for sockets it binds itself.
        logging.getLogger("uvicorn.error").info("OxEye on %s (API docs at /docs; Ctrl+C to stop)", address(sock))
        try:
            _server(config).run(sockets=[sock])
        except KeyboardInterrupt:
            _leave_at_once(130, "oxeye serve: interrupted")
            raise
    _leave_at_once(0)
    return 0


def _leave_at_once(status: int, words: str = "") -> None:
    """End the process now, with ``status``, where a thread of the service's own (named oxeye-..., all daemons)
    is still at work: Python's exit ran C++ destructors under it (OpenCV's, as the warm-up made the trainer's
    faces or a stalled camera was read), which ended in 'terminate called without an active exception' and
    SIGABRT in place of the status meant. Such a thread holds nothing to keep; the log is flushed first."""
    if not any(thread.name.startswith("oxeye-") and thread.is_alive() for thread in threading.enumerate()):
        return
    if words:
        print(words, file=sys.stderr)
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``serve``."""
    serve = subparsers.add_parser("serve", help="start the web service (API docs at /docs)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    serve.add_argument("--port", type=port_number, default=8000, help="port (8000; 0: any free one)")
    serve.add_argument("--data", type=Path, default=Path("data"), help="data folder: the SQLite ledger, and photos kept (evaluate's keep), live here (data)")
    serve.add_argument("--db", default=None, help="a SQLAlchemy URL instead, e.g. postgresql+psycopg://user@host/oxeye")
    serve.add_argument("--api-key", default=None, help="require this key (X-API-Key) on endpoints that change the ledger")
    serve.add_argument("--model", type=Path, default=None, help="the detector (.onnx); default: the shipped model")
    serve.add_argument("--source", default=None, metavar="0|VIDEO|URL",
                       help="a camera index, a video file (it loops) or a stream URL (rtsp://...), read and served "
                            "annotated at /v1/stream.mjpg")
    serve.add_argument("--stream-rules", default=None, help="house rules of the --source stream (gnau)")
    serve.add_argument("--stream-banker", type=whole_number(), default=None, help="the hand the --source stream settles against (0)")
    serve.add_argument("--settle-frames", type=whole_number(), default=5,
                       help="live reading: frames a hand must read the same before it is scored, 1 to "
                            f"{MAX_SETTLE_FRAMES}, 10 s at 30 frames a second (5)")
    serve.set_defaults(handler=_serve, extra="service")
