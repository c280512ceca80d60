"""Service throughput: POST /v1/evaluate on a real server, one client in turn against 8 clients at once.

Starts `oxeye serve` on a free loopback port with the shipped model (models/oxeye.onnx) or --model,
sends a rendered 1280x720 table photo as a JPEG, and reports sustained evaluations/s and p50 / p99
latency for one sequential client (the baseline) and for concurrent clients (threads, one httpx
client each), as medians over repeats. Run: python -m bench.service_speed [--model M.onnx]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import cv2
import httpx

from bench.frames import table_photo
from oxeye.models import DEFAULT_MODEL
from oxeye.vision.cli import whole_number

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from serving import free_port, start_server, stop_server  # noqa: E402  (how the tests start a real server)


def evaluations(url: str, photo: bytes, clients: int, requests: int) -> tuple[float, list[float]]:
    """Evaluations/s over ``requests`` evaluations shared by ``clients`` threads, and each one's latency (s)."""
    latencies: list[float] = []

    def client(count: int) -> None:
        with httpx.Client(base_url=url, timeout=300) as http:
            for _ in range(count):
                start = time.perf_counter()
                http.post("/v1/evaluate", files={"image": ("table.jpg", photo, "image/jpeg")}).raise_for_status()
                latencies.append(time.perf_counter() - start)

    shares = [requests // clients + (i < requests % clients) for i in range(clients)]
    start = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(client, shares))
    return requests / (time.perf_counter() - start), latencies


def summary(rounds: list[tuple[float, list[float]]]) -> dict[str, float]:
    """Median over rounds of the rate, the p50 and the p99 latency (ms)."""
    cuts = [statistics.quantiles(latencies, n=100, method="inclusive") for _, latencies in rounds]
    return {"per_s": round(statistics.median(rate for rate, _ in rounds), 2),
            "p50_ms": round(statistics.median(c[49] for c in cuts) * 1e3, 1),
            "p99_ms": round(statistics.median(c[98] for c in cuts) * 1e3, 1)}


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=None, help="the detector (.onnx); default: the shipped model")
    parser.add_argument("--clients", type=whole_number(1), default=8, help="concurrent clients (8)")
    parser.add_argument("--requests", type=whole_number(1), default=48, help="evaluations per round, for either kind (48)")
    parser.add_argument("--repeats", type=whole_number(1), default=3)
    args = parser.parse_args(argv)
    model = args.model or DEFAULT_MODEL
    if not model.is_file():
        raise SystemExit(f"bench.service_speed: no model at {model}: train one (models/MODEL_CARD.md) "
                         "or pass --model PATH.onnx")
    photo = cv2.imencode(".jpg", table_photo(), [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()
    with tempfile.TemporaryDirectory() as data:
        port = free_port()
        server = start_server(Path(data), port, "--model", str(model))
        try:
            url = f"http://127.0.0.1:{port}"
            evaluations(url, photo, 1, 2)  # loads the model and warms up, outside the timing
            runs: dict[int, list[tuple[float, list[float]]]] = {1: [], args.clients: []}
            for _ in range(args.repeats):
                for clients, rounds in runs.items():
                    rounds.append(evaluations(url, photo, clients, args.requests))
        finally:
            stop_server(server)
    single, many = summary(runs[1]), summary(runs[args.clients])
    shipped = model.resolve() == DEFAULT_MODEL.resolve()
    result = {"model": str(model), "shipped": shipped, "photo": "1280x720 JPEG", "requests": args.requests,
              "repeats": args.repeats, "sequential": single, f"concurrent_{args.clients}": many,
              "throughput_ratio": round(many["per_s"] / single["per_s"], 2)}
    print(f"POST /v1/evaluate, {model} ({'the shipped model' if shipped else 'NOT the shipped model'}), "
          f"1280x720 JPEG, {args.requests} evaluations a round, median of {args.repeats}:")
    for name, row in (("1 client, in turn", single), (f"{args.clients} clients at once", many)):
        print(f"  {name:18}: {row['per_s']:6.2f} evaluations/s, p50 {row['p50_ms']:7.1f} ms, p99 {row['p99_ms']:7.1f} ms")
    print(f"  {args.clients} clients sustain {result['throughput_ratio']}x the single client's rate")
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
