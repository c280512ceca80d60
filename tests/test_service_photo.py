"""Photo evaluation over HTTP: bad uploads are 4xx and lose nothing; a real model's reading is scored."""

from __future__ import annotations

import io
import json
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient
from PIL import Image, features

from oxeye.service.app import create_app
from oxeye.service.photo import parse_stakes
from oxeye.service.settings import Settings
from oxeye.vision.detector import Detector
from oxeye.vision.images import PHOTO_FORMATS
from oxeye.vision.reading import Hand, Item, Reading
from readings import jpeg_header_saying


def _jpeg(width: int = 320, height: int = 240) -> bytes:
    image = np.full((height, width, 3), 90, np.uint8)
    cv2.rectangle(image, (40, 40), (120, 150), (240, 240, 240), -1)
    return cv2.imencode(".jpg", image)[1].tobytes()


@pytest.fixture()
def client(tmp_path: Path, tiny: Path) -> TestClient:
    settings = Settings(data_dir=tmp_path, model=tiny / "run" / "oxeye.onnx", max_upload_bytes=200_000,
                        max_pixels=4_000_000)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def _post(client: TestClient, data: bytes, path: str = "/v1/evaluate", **form: str):
    return client.post(path, files={"image": ("photo.jpg", data, "image/jpeg")}, data=form)


def test_a_form_field_given_twice_is_refused(client: TestClient) -> None:
    """The last one won: the first stakes (or rules) were dropped without a word."""
    response = client.post("/v1/evaluate", files={"image": ("photo.jpg", _jpeg(), "image/jpeg")},
                           data={"stakes": ['{"1": 5}', '{"2": 7}']})
    assert response.status_code == 422
    assert response.json()["error"] == "form field given more than once: 'stakes'"


def test_a_photo_is_read_and_scored(client: TestClient, tmp_path: Path) -> None:
    out = _post(client, _jpeg(), rules="niuniu", banker="0", stakes='{"1": 5}').json()
    assert (out["width"], out["height"]) == (320, 240)
    assert {"items", "hands", "settlement"} <= out.keys()
    assert all({"code", "kind", "box", "confidence", "hand"} <= item.keys() for item in out["items"])
    assert out["settlement"]["result"] is None and out["settlement"]["problem"]  # a blank table settles nothing
    assert not (tmp_path / "photos").exists()  # not kept unless asked
    kept = _post(client, _jpeg(), keep="true").json()["kept"]
    assert (tmp_path / "photos" / kept).read_bytes() == _jpeg()


def test_a_photo_that_cannot_be_kept_is_refused_in_words_and_never_kept_in_part(client: TestClient, tmp_path: Path,
                                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A file where the photos folder goes was a 500 that said only to read the log; a disk filling up
    mid-photo was one too, and left the photo cut short under its name."""
    (tmp_path / "photos").write_text("notes")
    response = _post(client, _jpeg(), keep="true")
    assert (response.status_code, response.json()["error"]) == (503, (
        f"the photo could not be kept (cannot make the folder {tmp_path / 'photos'}: {tmp_path / 'photos'} is a file): "
        "send it without keep to have it read"))
    (tmp_path / "photos").unlink()

    def disk_full(path: Path, data: bytes) -> None:
        with path.open("wb") as half:
            half.write(data[:len(data) // 2])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_bytes", disk_full)
    response = _post(client, _jpeg(), keep="true")
    assert (response.status_code, response.json()["error"]) == (
        503, "the photo could not be kept ([Errno 28] No space left on device): send it without keep to have it read")
    assert list((tmp_path / "photos").iterdir()) == []


@pytest.mark.parametrize(("rules", "kinds"), [("gnau", ("card",)), ("tau-ngau-macau", ("tile",))])
def test_a_photo_is_read_for_the_kind_its_rules_play_with(client: TestClient, rules: str, kinds: tuple[str]) -> None:
    told = []

    class Recorder:
        def read(self, image: np.ndarray, kinds: tuple[str] | None = None) -> Reading:
            told.append(kinds)
            return Reading(image.shape[1], image.shape[0], [], [])

    client.app.state.detector = Recorder()
    assert _post(client, _jpeg(), rules=rules).status_code == 200
    assert told[0] == kinds  # and, as nothing was seen, the other kind (below)


@pytest.mark.parametrize(("rules", "seen", "told"), [
    ("gnau", "6-6", "no cards were seen, but 3 tiles were: these rules play with cards; send the photo with rules for "
                    "tiles (tau-ngau-dominoes, tau-ngau-macau, tau-ngau-pagat, or a table of options)"),
    ("tau-ngau-macau", "AS", "no tiles were seen, but 3 cards were: these rules play with tiles; send the photo with "
                             "rules for cards (gnau, gnau-points, niuniu, or a table of options)"),
    ("gnau", "", "the banker's hand 0 was not read"),  # nor anything else
])
def test_a_photo_of_the_other_game_is_told_to_choose_its_rules(client: TestClient, rules: str, seen: str,
                                                                told: str) -> None:
    """A photo of dominoes sent under the default rules (gnau) was answered only that the banker's hand was not read."""
    asked = []

    class OtherGame:
        """Reads three items surely, and one doubted, of the kind of ``seen``, and nothing of the other kind."""

        def read(self, image: np.ndarray, kinds: tuple[str]) -> Reading:
            asked.append(kinds)
            kind = "tile" if "-" in seen else "card"
            found = [Item(seen, kind, (10.0 * n, 0.0, 10.0 * n + 8, 8.0), 0.9, 0, flag="low_confidence" if n > 2 else None)
                     for n in range(4)] if seen and kinds == (kind,) else []
            return Reading(image.shape[1], image.shape[0], found, [])

    client.app.state.detector = OtherGame()
    answer = _post(client, _jpeg(), rules=rules).json()
    assert answer["items"] == [] and answer["settlement"] == {"problem": told, "result": None}
    assert asked == [("card",), ("tile",)] if rules == "gnau" else [("tile",), ("card",)]


def test_a_photo_kept_with_its_drawing_says_where(client: TestClient, tmp_path: Path) -> None:
    """Only the JSON answer named the photo kept: sent for its drawing, it was stored and could not be found."""
    response = _post(client, _jpeg(), path="/v1/evaluate/annotated.jpg", keep="true")
    assert response.status_code == 200 and response.headers["content-type"] == "image/jpeg"
    assert (tmp_path / "photos" / response.headers["x-kept"]).read_bytes() == _jpeg()
    assert "x-kept" not in _post(client, _jpeg(), path="/v1/evaluate/annotated.jpg").headers


def test_the_annotated_photo(client: TestClient) -> None:
    response = _post(client, _jpeg(), "/v1/evaluate/annotated.jpg")
    assert response.headers["content-type"] == "image/jpeg"
    assert cv2.imdecode(np.frombuffer(response.content, np.uint8), cv2.IMREAD_COLOR).shape == (240, 320, 3)


@pytest.mark.parametrize(("height", "width", "fitted"), [(40, 70_000, (37, 65_500)), (70_000, 1, (65_500, 1))])
def test_the_annotated_photo_of_a_panorama_larger_than_a_jpeg_is_shrunk_to_fit(height: int, width: int,
                                                                               fitted: tuple[int, int]) -> None:
    """A photo over JPEG's 65,500 pixels a side (an accepted panorama of 28 megapixels) was a 500."""
    from oxeye.service.photo import annotated_jpeg

    scored = {"hands": [], "settlement": {"problem": "no hands", "result": None}}
    jpeg = annotated_jpeg(np.full((height, width, 3), 90, np.uint8), Reading(width, height), scored)
    assert cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR).shape == (*fitted, 3)


@pytest.mark.parametrize(("delta", "written"), [(37037.01, "win +37037.01"), (1400000, "win +1400000"), (-2.5, "lose -2.5")])
def test_the_annotated_photo_writes_each_win_or_loss_in_full(monkeypatch: pytest.MonkeyPatch, delta: float,
                                                             written: str) -> None:
    """Each hand's win was written to six digits: 37037.01 as +37037, the cents lost, and 1,400,000 as +1.4e+06."""
    from oxeye.service import photo

    drawn: dict[int, str] = {}
    monkeypatch.setattr(photo, "draw", lambda image, reading, notes, held: drawn.update(notes) or image)
    outcome = "win" if delta > 0 else "lose"
    scored = {"hands": [{"index": 0, "reading": {"label": "No Ox"}}, {"index": 1, "reading": {"label": "Five Dukes"}}],
              "settlement": {"problem": None, "result": {"players": [{"name": "hand 1", "outcome": outcome, "delta": delta}]}}}
    photo.annotated_jpeg(np.full((24, 32, 3), 90, np.uint8), Reading(32, 24), scored)
    assert drawn == {0: "No Ox  banker", 1: f"Five Dukes  {written}"}


def test_a_phone_photo_is_read_upright_as_its_exif_says(client: TestClient) -> None:
    """A portrait photo stored as landscape pixels with an orientation tag comes back as the phone showed it."""
    buffer = io.BytesIO()
    exif = Image.Exif()
    exif[0x0112] = 6  # show turned a quarter clockwise
    Image.fromarray(np.full((240, 320, 3), 90, np.uint8)).save(buffer, "JPEG", exif=exif.tobytes())
    response = _post(client, buffer.getvalue(), "/v1/evaluate/annotated.jpg")
    assert cv2.imdecode(np.frombuffer(response.content, np.uint8), cv2.IMREAD_COLOR).shape == (320, 240, 3)


def _png(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("1", (width, height)).save(buffer, "PNG")  # a few kB that would decode to millions of pixels
    return buffer.getvalue()


def _damaged_avif() -> bytes:
    """An AVIF of noise whose picture data is damaged at its first byte."""
    buffer = io.BytesIO()
    Image.fromarray(np.random.default_rng(0).integers(0, 256, (60, 80, 3), dtype=np.uint8)).save(buffer, "AVIF")
    data = bytearray(buffer.getvalue())
    data[data.index(b"mdat") + 4] ^= 0xFF
    return bytes(data)


@pytest.mark.skipif(not features.check("avif"), reason="Pillow reads no AVIF here")
def test_a_damaged_photo_of_a_format_no_refusal_names_is_refused_not_a_500(client: TestClient) -> None:
    """Pillow's AVIF decoder raised RuntimeError on it, which the service answered 500: read the log."""
    response = _post(client, _damaged_avif())
    assert (response.status_code, response.json()["error"]) == (
        415, "not an image that can be read (send a JPEG, PNG, WebP, GIF, BMP or TIFF photo)")


@pytest.mark.parametrize(("data", "form", "status", "message"), [
    (b"", {}, 400, "the upload is empty: send a JPEG, PNG, WebP, GIF, BMP or TIFF photo"),  # once "JPEG or PNG"
    (b"this is not a picture", {}, 415, "not an image"),
    # an iPhone's photo: said to be no image, nothing of which format to send instead
    (b"\0\0\0\x18ftypheic\0\0\0\0mif1heic" + bytes(100), {}, 415, "it is a HEIC photo, which is not read: make it a JPEG"),
    (_jpeg()[:400], {}, 400, "truncated or corrupt"),
    (b"\xff\xd8" + bytes(300_000), {}, 413, "too large: the limit is 200,000 bytes"),  # once "is 200,001 bytes"
    (_png(4000, 3000), {}, 413, "4000 x 3000 pixels"),
    (_png(20000, 10000), {}, 413, "20000 x 10000 pixels"),  # over Pillow's own limit: it raised on opening
    (_jpeg(), {"rules": "nope"}, 400, "unknown rules preset 'nope'"),
    (_jpeg(), {"rules": '{"base": "gnau", "decks": 0}'}, 400, "option 'decks'"),
    (_jpeg(), {"rules": "{not json"}, 400, "not valid JSON"),
    # nested deeper than Python recurses: a 500
    (_jpeg(), {"rules": '{"base": ' + "[" * 100_000}, 400, "inline rules are not valid JSON: nested too deeply"),
    (_jpeg(), {"rules": '{"decks": 1' + "0" * 4300 + "}"}, 400,  # a 500, int() refusing so many digits
     "inline rules are not valid JSON: a whole number has more than 4300 digits"),
    (_jpeg(), {"rules": '{"base": "gnau", "commission": Infinity}'}, 400,  # "must be a number, not inf"
     "inline rules are not valid JSON: Infinity is not a JSON number"),
    (_jpeg(), {"stakes": '{"1": ' + "[" * 100_000}, 400, "stakes must be a JSON object"),
    (_jpeg(), {"stakes": '{"1": "ten"}'}, 400, "stakes: 'ten' is not an amount"),
    # read by Decimal() as 1000, 5 and 12: forms no one writes a sum in
    (_jpeg(), {"stakes": '{"1": "1_000"}'}, 400, "stakes: '1_000' is not an amount: write it in digits"),
    (_jpeg(), {"stakes": '{"1": " 5"}'}, 400, "stakes: ' 5' is not an amount"),
    (_jpeg(), {"stakes": '{"1": "１２"}'}, 400, "stakes: '１２' is not an amount"),
    (_jpeg(), {"stakes": '{"1": "1e3"}'}, 400, "stakes: '1e3' is not an amount"),
    (_jpeg(), {"stakes": '{"1": -5}'}, 400, "positive amounts"),
    (_jpeg(), {"stakes": '{"1": 0.30000000000000001}'}, 400, "hand 1's stake of 0.30000000000000001 is finer than a cent"),
    (_jpeg(), {"stakes": "[1, 2]"}, 400, "stakes must be"),
    # each was read: a stake of true as 1, "01" and " 1" as hand 1, and of two stakes on one hand the last
    (_jpeg(), {"stakes": '{"1": true}'}, 400, "stakes must be"),
    (_jpeg(), {"stakes": '{"1": [0, [5], 0]}'}, 400, "stakes must be"),
    (_jpeg(), {"stakes": '{"01": 3}'}, 400, "stakes must be"),
    (_jpeg(), {"stakes": '{" 1": 3}'}, 400, "stakes must be"),
    (_jpeg(), {"stakes": '{"1": 5, "1": 7}'}, 400, "naming each hand once"),
    (_jpeg(), {"banker": "1", "stakes": '{"1": 5}'}, 400, "the banker stakes nothing"),  # once dropped unsaid
    (_jpeg(), {"banker": "-1"}, 422, "banker"),
    (_jpeg(), {"banker": "1_0"}, 422, "banker: should be a whole number in digits, like 3, not '1_0'"),  # hand 10
    (_jpeg(), {"banker": "１"}, 422, "banker: should be a whole number in digits, like 3, not '１'"),  # hand 1
    (_jpeg(), {"stake": '{"1": 10}'}, 422, "unknown form field: 'stake'"),  # once settled every hand at 1
    (_jpeg(), {"rules": ""}, 422, "form field(s) 'rules' sent empty"),  # once read as gnau without a word
    (_jpeg(), {"banker": "", "stakes": ""}, 422, "form field(s) 'banker', 'stakes' sent empty"),
])
def test_bad_uploads_are_4xx_and_the_server_keeps_serving(client: TestClient, tmp_path: Path, data: bytes,
                                                          form: dict, status: int, message: str) -> None:
    response = _post(client, data, **form)
    assert response.status_code == status
    assert message in response.json()["error"]
    assert not (tmp_path / "photos").exists()
    assert _post(client, _jpeg()).status_code == 200


def test_a_photo_s_stakes_are_json_numbers_or_their_text() -> None:
    """A stake in a photo's (or live) stakes: a JSON number, its exponent too, or its text in digits and a point."""
    assert parse_stakes('{"1": "2.5", "2": 1e1, "3": "007"}', 0) == {1: Decimal("2.5"), 2: Decimal(10), 3: Decimal(7)}


@pytest.mark.parametrize("how", [{"content": _jpeg(), "headers": {"Content-Type": "image/jpeg"}},
                                 {"json": {"image": "a photo"}}, {"data": {"rules": "gnau"}}])
def test_a_photo_sent_but_not_as_a_form_s_file_is_told_how_to_send_it(client: TestClient, how: dict) -> None:
    """A photo sent as the whole body (curl --data-binary @photo.jpg), in JSON, or left out of the form was told
    only "image: Field required"."""
    response = client.post("/v1/evaluate", **how)
    assert (response.status_code, response.json()["error"]) == (422, (
        "image: none was sent: send a JPEG, PNG, WebP, GIF, BMP or TIFF photo as a file (a form part with a filename, "
        "as curl -F image=@photo.jpg sends it), in a multipart/form-data body"))


def test_a_photo_sent_as_a_forms_text_is_refused_in_words(client: TestClient) -> None:
    """curl -F 'image=<photo.jpg' sends the photo as text: it was told "Expected UploadFile, received: <class 'str'>"."""
    response = client.post("/v1/evaluate", data={"image": "\xff\xd8 a photo's bytes"})
    assert (response.status_code, response.json()["error"]) == (422, (
        "image: send a JPEG, PNG, WebP, GIF, BMP or TIFF photo as a file (a form part with a filename, as "
        "curl -F image=@photo.jpg sends it), not as text"))


def test_a_photo_over_1_mb_sent_as_a_forms_text_is_refused_in_words(client: TestClient) -> None:
    """A form's text is read up to 1 MB: it was told "Part exceeded maximum size of 1024KB.", as though the photo's own
    limit were 1 MB."""
    response = client.post("/v1/evaluate", files={"image": (None, b"\xff\xd8" + bytes(1_100_000))})
    assert (response.status_code, response.json()["error"]) == (400, (
        "a form field sent as text is over 1 MB: send a JPEG, PNG, WebP, GIF, BMP or TIFF photo as a file (a form part "
        "with a filename, as curl -F image=@photo.jpg sends it)"))


def test_fields_in_the_query_are_refused_not_ignored(client: TestClient, tmp_path: Path) -> None:
    """/v1/live takes them in the query: here they were ignored, the photo read as gnau with hand 0 banking."""
    for path in ("/v1/evaluate?rules=niuniu&banker=1", "/v1/evaluate/annotated.jpg?keep=true"):
        response = _post(client, _jpeg(), path)
        assert response.status_code == 422 and "in the form with the photo, not in the query" in response.json()["error"]
    assert not (tmp_path / "photos").exists()


class OneCardReader:
    """A detector that reads one card at the same place of whatever frame it is given, and says what it was given."""

    def __init__(self) -> None:
        self.shapes: list[tuple[int, ...]] = []

    def read(self, image: np.ndarray, kinds: tuple[str] | None = None, start: int | None = None) -> Reading:
        self.shapes.append(image.shape)
        item = Item("AS", "card", (100.0, 200.0, 300.5, 500.0), 0.9, hand=0, keypoints=((110.0, 210.0), (290.0, 490.0)))
        return Reading(image.shape[1], image.shape[0], [item], [Hand(0, [0], ["AS"], item.box)], 416)


@pytest.fixture()
def phone_client(tmp_path: Path) -> TestClient:
    """The service with its own limits, reading with ``OneCardReader``."""
    with TestClient(create_app(Settings(data_dir=tmp_path))) as test_client:
        test_client.app.state.detector = OneCardReader()
        yield test_client


def _encoded(width: int, height: int) -> bytes:
    """A phone's photo of a plain table: a few hundred kB of JPEG over many megapixels."""
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (30, 90, 40)).save(buffer, "JPEG", quality=90)
    return buffer.getvalue()


def test_a_phone_s_48_megapixel_jpeg_is_read_and_answered_in_its_own_pixels(phone_client: TestClient) -> None:
    """An iPhone's 8064 x 6048 JPEG was refused (413, over 40 million pixels); it is decoded at a quarter, read,
    and its boxes given in the pixels of the photo sent, as the upload page draws them over it."""
    out = _post(phone_client, _encoded(8064, 6048))
    assert out.status_code == 200, out.json()
    body = out.json()
    assert (body["width"], body["height"]) == (8064, 6048)
    assert body["items"][0]["box"] == [400.0, 800.0, 1202.0, 2000.0]
    assert body["hands"][0]["box"] == [400.0, 800.0, 1202.0, 2000.0]
    assert phone_client.app.state.detector.shapes == [(1512, 2016, 3)]
    annotated = _post(phone_client, _encoded(8064, 6048), "/v1/evaluate/annotated.jpg")
    assert cv2.imdecode(np.frombuffer(annotated.content, np.uint8), cv2.IMREAD_COLOR).shape == (1512, 2016, 3)


def test_a_live_frame_decoded_reduced_is_answered_in_its_own_pixels(phone_client: TestClient) -> None:
    with phone_client.websocket_connect("/v1/live") as socket:
        socket.send_bytes(_encoded(4032, 3024))
        answer = socket.receive_json()
    assert (answer["width"], answer["height"]) == (4032, 3024)
    assert answer["items"][0]["box"] == [200.0, 400.0, 601.0, 1000.0]


@pytest.mark.parametrize(("data", "message"), [
    (_png(8064, 6048), "the image is 8064 x 6048 pixels; the limit is 40,000,000 pixels"),  # a PNG is decoded whole
    (jpeg_header_saying(20000, 15000), "the image is 20000 x 15000 pixels; the limit for a JPEG is 250,000,000 pixels"),
    (b"\xff\xd8" + bytes(50_000_000), "too large: the limit is 50,000,000 bytes"),
])
def test_what_is_over_the_service_s_own_limits_is_refused_and_lost_nothing(phone_client: TestClient, tmp_path: Path,
                                                                          data: bytes, message: str) -> None:
    response = _post(phone_client, data, keep="true")
    assert response.status_code == 413 and message in response.json()["error"]
    assert not (tmp_path / "photos").exists()


def test_photos_sent_at_once_take_turns(tmp_path: Path, tiny: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every photo sent at once was decoded and read at once: 20 were held decoded together (6.8 GB of
    40-megapixel ones) and starved the event loop. They now take turns, ``readings`` at once."""
    read, turns = Detector.read, threading.Condition()
    now, most = [0], [0]  # photos being read, and the most at once

    def counted(self: Detector, *args, **kwargs) -> Reading:
        """The detector's reading, waiting a while at its start for another to begin beside it."""
        with turns:
            now[0] += 1
            most[0] = max(most[0], now[0])
            turns.notify_all()
            turns.wait_for(lambda: now[0] > 1, timeout=0.5)
        try:
            return read(self, *args, **kwargs)
        finally:
            with turns:
                now[0] -= 1

    monkeypatch.setattr(Detector, "read", counted)
    settings = Settings(data_dir=tmp_path, model=tiny / "run" / "oxeye.onnx", readings=1)
    with TestClient(create_app(settings)) as client, ThreadPoolExecutor(3) as clients:
        answers = list(clients.map(lambda _: _post(client, _jpeg()).status_code, range(3)))
    assert answers == [200] * 3 and most == [1]


def test_no_model_is_503(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No model shipped yet (a --model that cannot be read stops the start instead)."""
    monkeypatch.setattr("oxeye.service.deps.DEFAULT_MODEL", tmp_path / "none.onnx")
    with TestClient(create_app(Settings(data_dir=tmp_path))) as client:
        response = _post(client, _jpeg())
        assert response.status_code == 503 and "photo reading is unavailable" in response.json()["error"]
        assert client.get("/v1/health").status_code == 200


def test_the_first_photo_loads_the_model_off_the_event_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first photo loaded the model on the event loop: every client, /v1/health too, waited for it."""
    import time

    loading, loaded = threading.Event(), threading.Event()

    def slow_model(_path: Path) -> Detector:
        loading.set()
        loaded.wait(10)
        raise OSError("no model here")

    monkeypatch.setattr("oxeye.vision.detector.Detector", slow_model)
    with TestClient(create_app(Settings(data_dir=tmp_path))) as client, ThreadPoolExecutor(1) as other:
        photo = other.submit(_post, client, _jpeg())
        assert loading.wait(10)
        started = time.monotonic()
        assert client.get("/v1/health").status_code == 200
        waited = time.monotonic() - started
        loaded.set()
        assert photo.result().json() == {"error": "photo reading is unavailable: no model here"}
    assert waited < 2


def test_a_hand_with_a_doubtful_item_is_not_scored_and_says_which_and_why() -> None:
    """A settlement is made only from sure hands: a card perhaps another hand's stops its hand, named."""
    from oxeye.service.photo import score_photo
    from oxeye.service.rules_files import load_rules
    from oxeye.vision.reading import LOW_CONFIDENCE, UNSURE_HAND
    from readings import rows_reading

    banker, player = ["KS", "QH", "JD", "KC", "QD"], ["3S", "6H", "8D", "4C", "8H"]
    sure = score_photo(rows_reading([banker, player]), load_rules("gnau"), 0, {})
    assert [h["problem"] for h in sure["hands"]] == [None, None] and sure["settlement"]["result"] is not None
    reading = rows_reading([banker, player], flags={"4C": LOW_CONFIDENCE})
    reading.items[player.index("8D") + 5].flag = UNSURE_HAND  # as the grouping flags it
    doubted = score_photo(reading, load_rules("gnau"), 0, {})
    assert doubted["hands"][1]["reading"] is None
    assert doubted["hands"][1]["problem"] == "not sure of 8D (perhaps another hand's), 4C: check them by eye"
    assert doubted["settlement"] == {"problem": "no player's hand was read", "result": None}


def test_a_short_hand_says_how_many_items_were_seen() -> None:
    """One card read as '1 items seen'."""
    from oxeye.service.photo import score_photo
    from oxeye.service.rules_files import load_rules
    from readings import rows_reading

    scored = score_photo(rows_reading([["KS"], ["QH", "JD"]]), load_rules("gnau"), 0, {})
    assert [h["problem"] for h in scored["hands"]] == ["1 item seen; a hand has 5", "2 items seen; a hand has 5"]


@pytest.mark.parametrize(("bank_passes", "next_banker"), [
    ("every_round", None), ("after_banker_ox", None), ("never", "hand 1")])
def test_who_takes_the_bank_from_a_photo_is_not_guessed_from_the_hands_numbers(bank_passes: str,
                                                                                next_banker: str | None) -> None:
    """Hands are numbered top to bottom, left to right, not around the table: where the bank passed, it went
    to hand 0 as the banker's right-hand neighbour though no seat was seen. Where it stays, it is still named."""
    from oxeye.service.photo import score_photo
    from oxeye.service.rules_files import rules_from_mapping
    from readings import rows_reading

    rows = [["3S", "6H", "8D", "4C", "8H"], ["KS", "QH", "JD", "KC", "10D"], ["7S", "7H", "7D", "KD", "5H"]]
    rules = rules_from_mapping({"base": "gnau", "bank_passes": bank_passes})
    result = score_photo(rows_reading(rows), rules, 1, {})["settlement"]["result"]
    assert result["banker"]["label"] == "Double-Ox K"  # the banker has an ox: the bank passes where the rules say
    assert [p["name"] for p in result["players"]] == ["hand 0", "hand 2"]
    assert result["next_banker"] == next_banker


def test_the_upload_page_offers_each_format_a_refusal_names(client: TestClient) -> None:
    """Its file picker offered JPEG, PNG and WebP alone, where a refusal says to send a GIF, BMP or TIFF too."""
    Image.init()
    accepted = re.search(r'id="image"[^>]* accept="([^"]+)"', client.get("/upload").text)[1]
    assert sorted(accepted.split(",")) == sorted(Image.MIME[kind.upper()] for kind in PHOTO_FORMATS)
