"""The live WebSocket: frames answered in order, bad frames answered with an error, the newest frame
answered first, and a hand scored only once it has settled."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from collections.abc import Collection
from decimal import Decimal
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosedError

from oxeye.engine import Participant, settle
from oxeye.service.app import create_app
from oxeye.service.live import LiveTable, score_steady
from oxeye.service.rules_files import load_rules
from oxeye.service.settings import Settings
from oxeye.service.stream import Photo, Stream
from oxeye.vision.grouping import group_hands, numbered
from oxeye.vision.reading import Reading
from oxeye.vision.steady import Steadier
from readings import rows_reading
from serving import free_port, start_server, stop_server

BANKER = ["10S", "9H", "8D", "4C", "4H"]
PLAYER = ["KS", "QH", "JD", "KC", "QD"]
JPEG = cv2.imencode(".jpg", np.full((240, 320, 3), 90, np.uint8))[1].tobytes()


class Table:
    """A stand-in detector that always reads the same two hands, whatever the frame; it keeps the
    item kinds it was told."""

    def __init__(self) -> None:
        self.told: list[Collection[str] | None] = []

    def read(self, image: np.ndarray, kinds: Collection[str] | None = None, start: int | None = None) -> Reading:
        self.told.append(kinds)
        return rows_reading([BANKER, PLAYER])


class Gate:
    """A detector whose first read waits until the test lets it go."""

    def __init__(self, inner: Table) -> None:
        self.inner, self.entered, self.release = inner, threading.Event(), threading.Event()

    def read(self, image: np.ndarray, kinds: Collection[str] | None = None, start: int | None = None) -> Reading:
        if not self.entered.is_set():
            self.entered.set()
            assert self.release.wait(10)
        return self.inner.read(image)


@pytest.fixture()
def client(tmp_path: Path, tiny: Path) -> TestClient:
    settings = Settings(data_dir=tmp_path, model=tiny / "run" / "oxeye.onnx", max_upload_bytes=200_000,
                        max_pixels=4_000_000, settle_frames=3)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def test_frames_are_answered_in_order(client: TestClient) -> None:
    with client.websocket_connect("/v1/live?rules=niuniu") as socket:
        answers = []
        for _ in range(3):
            socket.send_bytes(JPEG)
            answers.append(socket.receive_json())
    assert [(a["frame"], a["skipped"]) for a in answers] == [(1, 0), (2, 0), (3, 0)]
    assert all({"ms", "width", "height", "items", "hands", "settlement"} <= a.keys() for a in answers)
    assert (answers[0]["width"], answers[0]["height"]) == (320, 240) and answers[0]["ms"] >= 0


def test_a_bad_frame_is_answered_with_an_error_and_the_socket_keeps_working(client: TestClient) -> None:
    with client.websocket_connect("/v1/live") as socket:
        errors = []
        for send, message in ((socket.send_bytes, b"not a picture"), (socket.send_bytes, b"\xff\xd8" + bytes(300_000)),
                              (socket.send_text, "hello")):
            send(message)
            errors.append(socket.receive_json())
        socket.send_bytes(JPEG)
        after = socket.receive_json()
    assert [e["frame"] for e in errors] == [1, 2, 3]
    assert "not an image" in errors[0]["error"] and "the limit is 200,000" in errors[1]["error"]
    assert "binary message" in errors[2]["error"]
    assert after["frame"] == 4 and "error" not in after and after["width"] == 320


def test_the_newest_frame_is_answered_and_older_waiting_ones_are_skipped(client: TestClient) -> None:
    gate = client.app.state.detector = Gate(Table())
    with client.websocket_connect("/v1/live") as socket:
        socket.send_bytes(JPEG)
        assert gate.entered.wait(10)
        for _ in range(9):  # sent while frame 1 is being read: each replaces the one waiting
            socket.send_bytes(JPEG)
        gate.release.set()
        answers = [socket.receive_json()]
        while answers[-1]["frame"] < 10:
            answers.append(socket.receive_json())
    numbers = [a["frame"] for a in answers]
    assert numbers[0] == 1 and numbers == sorted(set(numbers))  # in order; the last one sent is always answered
    assert len(answers) + sum(a["skipped"] for a in answers) == 10
    assert len(answers) < 10


def test_hands_are_scored_and_settled_once_they_hold_still(client: TestClient) -> None:
    table = client.app.state.detector = Table()
    with client.websocket_connect('/v1/live?rules=gnau&banker=0&stakes={"1": 10}') as socket:
        answers = []
        for _ in range(3):
            socket.send_bytes(JPEG)
            answers.append(socket.receive_json())
    early, settled = answers[1], answers[2]
    assert [h["settled"] for h in early["hands"]] == [False, False]
    assert early["hands"][0]["reading"] is None and "2 of 3 frames" in early["hands"][0]["problem"]
    assert early["settlement"]["result"] is None
    assert [h["settled"] for h in settled["hands"]] == [True, True]
    assert all(item["track"] is not None for item in settled["items"])
    expected = settle(Participant("hand 0", BANKER), [Participant("hand 1", PLAYER, Decimal(10))], load_rules("gnau"))
    assert settled["hands"][1]["reading"]["label"] == expected.players[0].evaluation.label
    assert settled["settlement"]["result"]["players"][0]["delta"] == float(expected.players[0].delta)
    assert table.told == [("card",)] * 3  # a card table's frames hold no tiles


def test_a_settled_hand_out_of_sight_for_a_frame_is_held_and_the_round_stays_settled() -> None:
    """Hands are numbered by where they lie: with the banker's hand under an arm for a frame, the player's
    became hand 0 and was settled as the banker against the other player, at the stake meant for it; then
    no round was settled in such a frame. The banker's hand is held in view as it settled."""
    other = ["2S", "3H", "5D", "9C", "AH"]
    steadier, rules = Steadier(settle_frames=2), load_rules("gnau")
    for _ in range(3):
        whole = score_steady(steadier.update(rows_reading([BANKER, PLAYER, other])), rules, 0, {1: Decimal(10)})
    players = [item for item in rows_reading([BANKER, PLAYER, other]).items if item.code not in BANKER]
    for item in players:
        item.hand = None
    held = score_steady(steadier.update(Reading(640, 480, players, group_hands(players))), rules, 0, {1: Decimal(10)})
    assert [hand["codes"] for hand in held["hands"]] == [BANKER, PLAYER, other]
    assert [item["held"] for item in held["items"] if item["code"] in BANKER] == [True] * 5
    assert held["settlement"] == whole["settlement"] and held["settlement"]["result"]["banker"]["cards"] == BANKER




class Frames:
    """A stand-in detector that reads the given readings in turn, whatever the frame."""

    def __init__(self, readings: list[Reading]) -> None:
        self.readings = iter(readings)

    def read(self, image: np.ndarray, kinds: Collection[str] | None = None, start: int | None = None) -> Reading:
        return next(self.readings)


def test_the_stream_marks_an_item_held_in_view_as_the_live_page_does() -> None:
    """``--source``'s annotated frames drew a held card (under an arm) boxed as if read in that frame."""
    seen = rows_reading([BANKER, PLAYER]).items[:9]  # the player's last card, at x 420 to 480, missed
    readings = [rows_reading([BANKER, PLAYER]) for _ in range(3)] + [Reading(640, 480, seen, group_hands(seen))]
    frame = np.full((480, 640, 3), 40, np.uint8)
    stream = Stream(Photo(frame), "table.png", True, LiveTable(Frames(readings), load_rules("gnau"), 0, {}, 2))
    for _ in readings:
        jpeg = stream._picture(frame)
    picture = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR).astype(int)
    assert abs(picture[290:320, 340] - 40).max() > 60 and abs(picture[290:320, 420] - 40).max() < 20  # a side, none

def test_no_round_is_settled_while_a_settled_hand_is_out_of_sight_and_not_held() -> None:
    """The player's hand in sight but for a card, its others grouped with a neighbour's: it is not held, and
    the round waits for it, as the hands' numbers may have moved."""
    other = ["2S", "3H", "5D", "9C", "AH"]
    steadier, rules = Steadier(settle_frames=2), load_rules("gnau")
    for _ in range(3):
        steadier.update(rows_reading([BANKER, PLAYER, other]))
    frame = rows_reading([BANKER, PLAYER, other])
    items = frame.items[:9] + frame.items[10:]  # the player's last card missed, its others joined by a neighbour
    groups = [list(range(5)), [5, 6, 7, 8, 9], list(range(10, 14))]
    hidden = score_steady(steadier.update(Reading(640, 480, items, numbered(items, groups))), rules, 0, {1: Decimal(10)})
    assert hidden["settlement"] == {"problem": "a settled hand is out of sight in this frame: hands are numbered by "
                                               "where they lie, so the round waits for it", "result": None}
    back = score_steady(steadier.update(rows_reading([BANKER, PLAYER, other])), rules, 0, {1: Decimal(10)})
    assert back["settlement"]["result"]["banker"]["cards"] == BANKER


def test_the_tracker_and_the_detector_code_load_with_the_app_not_on_a_live_clients_event_loop() -> None:
    """The first /v1/live client imported the tracker and the detector's code on the event loop (13 to 35 ms
    during which no other request was answered); they are imported with the app, before it serves."""
    code = "import sys, oxeye.service.app; print([m for m in ('oxeye.vision.steady', 'oxeye.vision.detector') " \
           "if m not in sys.modules])"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "[]", done.stderr


def test_a_domino_tables_frames_are_read_for_tiles_only(client: TestClient) -> None:
    table = client.app.state.detector = Table()
    with client.websocket_connect("/v1/live?rules=tau-ngau-pagat") as socket:
        socket.send_bytes(JPEG)
        socket.receive_json()
    assert table.told == [("tile",)]


@pytest.mark.parametrize(("query", "message"), [
    ("banker=-1", "query.banker"),
    ("banker=1_0", "query.banker: should be a whole number in digits, like 3, not '1_0'"),  # read as hand 10
    ('stakes={"1": "1_0"}', "stakes: '1_0' is not an amount"),  # read as 10
    ("rules=nope", "unknown rules preset 'nope'"),
    ("stakes=[1]", "stakes must be"),
    ('stakes={"0": 5}', "stakes name the banker's hand 0"),
    ("rules={not json", "not valid JSON"),
    ('rules={"base": "gnau", "commission": NaN}', "inline rules are not valid JSON: NaN is not a JSON number"),
    ("rules=gnau&stake={}", "unknown query field: 'stake'"),  # once settled every hand at 1
    ('stakes={"1": 5}&stakes={"2": 7}', "query field given more than once: 'stakes'"),  # the first were lost
    ("banker=", "query field(s) 'banker' sent empty: fill them in"),  # in the framework's words, unlike a photo's form
    ("rules=&stakes=", "query field(s) 'rules', 'stakes' sent empty"),
])
def test_a_bad_query_is_told_why_and_closed(client: TestClient, query: str, message: str) -> None:
    with client.websocket_connect(f"/v1/live?{query}") as socket:
        assert message in socket.receive_json()["error"]
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_json()
    assert closed.value.code == 1008


def test_a_plain_request_to_the_socket_is_told_it_is_a_websocket(client: TestClient) -> None:
    """It was a 404 "Not Found" for an endpoint README lists."""
    response = client.get("/v1/live?rules=gnau")
    assert response.status_code == 426 and response.headers["upgrade"] == "websocket"
    assert "/v1/live is a WebSocket" in response.json()["error"]


def test_no_model_is_told_and_there_is_no_stream_without_a_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No model shipped yet (a --model that cannot be read stops the start instead)."""
    monkeypatch.setattr("oxeye.service.deps.DEFAULT_MODEL", tmp_path / "none.onnx")
    with TestClient(create_app(Settings(data_dir=tmp_path))) as client:
        with client.websocket_connect("/v1/live") as socket:
            assert "photo reading is unavailable" in socket.receive_json()["error"]
        response = client.get("/v1/stream.mjpg")
        assert response.status_code == 404 and "--source" in response.json()["error"]


def test_a_real_server_takes_frames_up_to_the_upload_limit_and_closes_on_one_over_it(tmp_path: Path) -> None:
    """uvicorn's own WebSocket limit (16 MiB) closed the socket (1009) on a frame within the documented
    20 MB, naming a limit documented nowhere; the socket now takes what the upload limit takes."""
    port = free_port()
    server = start_server(tmp_path, port)
    limit = Settings().max_upload_bytes

    async def talk() -> tuple[dict, ConnectionClosedError]:
        async with connect(f"ws://127.0.0.1:{port}/v1/live", max_size=None) as socket:
            await socket.send(b"\xff\xd8" + bytes(limit - 2))  # the limit's bytes, no picture
            answer = json.loads(await socket.recv())
            await socket.send(bytes(limit + 1))
            with pytest.raises(ConnectionClosedError) as closed:
                await socket.recv()
        return answer, closed.value

    try:
        answer, closed = asyncio.run(talk())
    finally:
        stop_server(server)
    assert answer["frame"] == 1 and "image" in answer["error"]
    assert closed.rcvd.code == 1009 and f"{limit}" in closed.rcvd.reason
