"""Trainer record speed as a trainee's drills grow: the record of a trainee of few answered drills against one of many.

Fills a fresh ledger (SQLite in a temporary folder, the app served in-process by TestClient) with --small answered
drills of one trainee and --large of another, written straight to the database (dealing each through the API draws
its picture), then times, in turn, a GET of each one's record, and prints the median ms of each and their ratio.
Run: python -m bench.trainer_speed [--small 10] [--large 20000] [--repeats 20]
"""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import insert

from bench.timing import alternated_medians, small_and_large
from oxeye.service.app import create_app
from oxeye.service.db import DrillRow
from oxeye.service.settings import Settings


def answered_drills(trainee: str, count: int) -> list[dict[str, object]]:
    """``count`` gnau drills answered by ``trainee``, one a minute, each taking 1 to 9 s, every third wrong."""
    start = datetime(2026, 1, 1, tzinfo=UTC)
    return [{"trainee": trainee, "rules": "gnau", "seed": n, "banker": "10S 9H 8D 4C 4H", "player": "KS QH JD KC QD",
             "stake": 1, "dealt": start + timedelta(minutes=n), "answered": start + timedelta(minutes=n, seconds=1 + n % 9),
             "answer_label": "Bull 7", "answer_payout": "-1", "ox_correct": n % 3 > 0, "payout_correct": True}
            for n in range(count)]


def main(argv: list[str] | None = None) -> dict[str, object]:
    args = small_and_large(__doc__.splitlines()[0], "answered drills", 20000, 20, argv)
    with tempfile.TemporaryDirectory() as data, TestClient(create_app(Settings(data_dir=Path(data)))) as client:
        with client.app.state.sessions() as session:
            session.execute(insert(DrillRow), answered_drills("small", args.small) + answered_drills("large", args.large))
            session.commit()
        runs = {size: lambda size=size: client.get(f"/v1/trainer/trainees/{size}").raise_for_status()
                for size in ("small", "large")}
        seconds = alternated_medians(runs, args.repeats)
    ms = {size: round(spent * 1e3, 2) for size, spent in seconds.items()}
    ratio = round(ms["large"] / ms["small"], 2)
    print(f"median ms over {args.repeats} in turn, a record GET of {args.small} answered drills against {args.large}: "
          f"{ms['small']:.2f} ms against {ms['large']:.2f} ms ({ratio}x)")
    result = {"small": args.small, "large": args.large, "repeats": args.repeats, "ms": ms, "ratio": ratio}
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
