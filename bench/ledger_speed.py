"""Ledger speed as a table grows: a round's POST and a table's GET at a table of few rounds against one of many.

Opens two tables in a fresh ledger (SQLite in a temporary folder, the app served in-process by TestClient),
plays --small rounds at one and --large at the other, then times, in turn, a round posted to each, a GET of
each table and a GET of each one's first page of rounds, and prints the median ms of each and the large
table's over the small one's. Run: python -m bench.ledger_speed [--small 10] [--large 2000] [--repeats 30]
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path

from fastapi.testclient import TestClient

from bench.timing import alternated_medians, small_and_large
from oxeye.service.app import create_app
from oxeye.service.settings import Settings

ROUND = {"hands": {"ann": "10S 9H 8D 4C 4H", "bo": "KS QH JD KC QD", "cy": "2S 3H 5D 7C 9C"},
         "stakes": {"bo": 10, "cy": 5}, "onlookers": {"bo": [{"name": "dee", "stake": 1}]}}


def table_with_rounds(client: TestClient, name: str, rounds: int) -> int:
    """A new gnau table (the bank never passes) with ``rounds`` rounds recorded; its id."""
    table = client.post("/v1/tables", json={"name": name, "rules": "gnau", "seats": ["ann", "bo", "cy"], "banker": "ann"})
    table_id = table.json()["id"]
    for _ in range(rounds):
        client.post(f"/v1/tables/{table_id}/rounds", json=ROUND).raise_for_status()
    return table_id


def requests_at(client: TestClient, path: str) -> dict[str, Callable[[], object]]:
    """The requests timed at one table: a round posted, the table read, its first page of rounds read."""
    return {"round POST": lambda: client.post(f"{path}/rounds", json=ROUND).raise_for_status(),
            "table GET": lambda: client.get(path).raise_for_status(),
            "rounds GET": lambda: client.get(f"{path}/rounds").raise_for_status()}


def main(argv: list[str] | None = None) -> dict[str, object]:
    args = small_and_large(__doc__.splitlines()[0], "rounds", 2000, 30, argv)
    with tempfile.TemporaryDirectory() as data, TestClient(create_app(Settings(data_dir=Path(data)))) as client:
        ids = {"small": table_with_rounds(client, "small", args.small), "large": table_with_rounds(client, "large", args.large)}

        runs = {f"{what} {size}": run for size, table_id in ids.items()
                for what, run in requests_at(client, f"/v1/tables/{table_id}").items()}
        seconds = alternated_medians(runs, args.repeats)
    ms = {name: round(spent * 1e3, 2) for name, spent in seconds.items()}
    ratios = {what: round(ms[f"{what} large"] / ms[f"{what} small"], 2) for what in ("round POST", "table GET", "rounds GET")}
    print(f"median ms over {args.repeats} in turn, a table of {args.small} rounds against one of {args.large}:")
    for what, ratio in ratios.items():
        print(f"  {what:10}: {ms[f'{what} small']:7.2f} ms against {ms[f'{what} large']:7.2f} ms ({ratio}x)")
    result = {"small": args.small, "large": args.large, "repeats": args.repeats, "ms": ms, "ratio": ratios}
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
