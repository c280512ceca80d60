"""``oxeye serve``: the web service on a loopback port, with its ledger database."""

from __future__ import annotations

import argparse
from pathlib import Path


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from oxeye.service.app import create_app
    from oxeye.service.settings import Settings

    if args.settle_frames < 1:
        raise ValueError(f"--settle-frames must be at least 1, not {args.settle_frames}")
    settings = Settings(data_dir=args.data, db_url=args.db, api_key=args.api_key, model=args.model,
                        settle_frames=args.settle_frames, source=args.source, stream_rules=args.stream_rules,
                        stream_banker=args.stream_banker)
    # A viewer of /v1/stream.mjpg never finishes its response: give such viewers 3 s at shutdown, not forever.
    uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level="info", timeout_graceful_shutdown=3)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``serve``."""
    serve = subparsers.add_parser("serve", help="start the web service (API docs at /docs)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (8000)")
    serve.add_argument("--data", type=Path, default=Path("data"), help="data folder: the SQLite ledger lives here (data)")
    serve.add_argument("--db", default=None, help="a SQLAlchemy URL instead, e.g. postgresql+psycopg://user@host/oxeye")
    serve.add_argument("--api-key", default=None, help="require this key (X-API-Key) on endpoints that change the ledger")
    serve.add_argument("--model", type=Path, default=None, help="the detector (.onnx); default: the shipped model")
    serve.add_argument("--source", default=None, metavar="0|VIDEO|URL",
                       help="a camera index, a video file (it loops) or a stream URL (rtsp://...), read and served "
                            "annotated at /v1/stream.mjpg")
    serve.add_argument("--stream-rules", default="gnau", help="house rules of the --source stream (gnau)")
    serve.add_argument("--stream-banker", type=int, default=0, help="the hand the --source stream settles against (0)")
    serve.add_argument("--settle-frames", type=int, default=5,
                       help="live reading: frames a hand must read the same before it is scored (5)")
    serve.set_defaults(handler=_serve)
