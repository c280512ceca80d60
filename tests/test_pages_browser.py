"""The web pages driven in Debian's headless Chromium against a real server on a loopback port."""

from __future__ import annotations

import base64
import io
import json
import re
import shutil
import sqlite3
from decimal import Decimal
from pathlib import Path

import cv2
import httpx
import numpy as np
import pytest
from PIL import Image

from oxeye.engine import Participant, PersonResult, settle
from oxeye.service.live import score_steady
from oxeye.service.rules_files import load_rules
from oxeye.service.trainer import payout_reason
from oxeye.vision.steady import Steadier
from readings import portrait_as_a_phone_stores_it, rows_reading, tagged_in_xmp
from serving import free_port, start_server, stop_server

# A name for the loopback server that a browser does not trust as its own machine, as a phone on the LAN.
LAN_HOST = "oxeye.test"
# What a page says of a request the server never answered (it is stopped, or the network is down).
UNREACHABLE = "the page could not reach the server: try again once it is back"
CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(not (CHROMIUM and DRIVER),
                                reason="Debian's chromium and chromium-driver are not installed (make test installs them)")


@pytest.fixture()
def server(tmp_path: Path):
    port = free_port()
    process = start_server(tmp_path, port)
    yield f"http://127.0.0.1:{port}", tmp_path / "oxeye.sqlite3"
    stop_server(process)


@pytest.fixture()
def reader(tmp_path: Path, tiny: Path):
    """A server that reads photos and frames, with the tiny model."""
    port = free_port()
    process = start_server(tmp_path, port, "--model", str(tiny / "run" / "oxeye.onnx"), "--settle-frames", "3")
    yield f"http://127.0.0.1:{port}"
    stop_server(process)


def _table(width: int = 320, height: int = 240) -> np.ndarray:
    """A green table with one light card on it."""
    image = np.full((height, width, 3), (40, 110, 30), np.uint8)
    cv2.rectangle(image, (40, 60), (100, 150), (240, 240, 240), -1)
    return image


def _camera_file(path: Path, frames: int = 10) -> Path:
    """A Y4M video for Chromium's fake camera (it plays the file in a loop)."""
    frame = cv2.cvtColor(_table(), cv2.COLOR_BGR2YUV_I420).tobytes()
    path.write_bytes(b"YUV4MPEG2 W320 H240 F10:1 Ip A1:1 C420jpeg\n" + b"FRAME\n".join([b""] + [frame] * frames))
    return path


@pytest.fixture()
def browser(tmp_path: Path):
    from selenium import webdriver

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic",
                 f"--user-data-dir={tmp_path / 'chromium'}", "--window-size=1200,900",
                 "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
                 f"--host-resolver-rules=MAP {LAN_HOST} 127.0.0.1",
                 f"--use-file-for-fake-video-capture={_camera_file(tmp_path / 'camera.y4m')}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the console, for get_log("browser")
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=DRIVER))
    yield driver
    driver.quit()


def _wait(driver, condition, seconds: float = 20):
    """``condition`` met within ``seconds``; an element the page replaced between being found and being read (a
    trainee's record as the next one came in) is looked for again, where the wait failed, stale."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, seconds, ignored_exceptions=(StaleElementReferenceException,)).until(condition)


def _open(driver, url: str) -> None:
    """A page with a presets list, once the list has come from the API."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver.get(url)
    _wait(driver, lambda d: len(Select(d.find_element(By.ID, "rules")).options) >= 5)


def _upload_with_photo(driver, url: str, folder: Path) -> None:
    """The upload page with a 480 × 360 photo of a green table chosen."""
    from selenium.webdriver.common.by import By

    photo = folder / "table.jpg"
    cv2.imwrite(str(photo), _table(480, 360))
    _open(driver, f"{url}/upload")
    driver.find_element(By.ID, "image").send_keys(str(photo))


def _read_with_stakes(driver, stakes: str) -> None:
    """The upload form sent with these stakes."""
    from selenium.webdriver.common.by import By

    field = driver.find_element(By.ID, "stakes")
    field.clear()
    field.send_keys(stakes)
    driver.find_element(By.ID, "evaluate").click()


def _problem(driver) -> str:
    """The upload page's error, once shown."""
    from selenium.webdriver.common.by import By

    return _wait(driver, lambda d: d.find_element(By.ID, "problem").is_displayed() and d.find_element(By.ID, "problem")).text


def _right_result(database: Path, trainee: str) -> PersonResult:
    """The player's result in the trainee's latest drill, worked out from what the ledger says was dealt,
    with the engine, not through the page."""
    with sqlite3.connect(database) as db:
        rules, banker, player, stake = db.execute(
            "SELECT rules, banker, player, stake FROM drills WHERE trainee = ? ORDER BY id DESC", (trainee,)).fetchone()
    return settle(Participant("b", banker), [Participant("p", player, Decimal(stake))], load_rules(json.loads(rules))).players[0]


def _right_answer(database: Path, trainee: str) -> tuple[str, Decimal]:
    """The player's best ox and payout in the trainee's latest drill."""
    result = _right_result(database, trainee)
    return result.evaluation.label, result.delta


def _held_back(driver, path: str, ms: int) -> None:
    """The page's requests to ``path`` each held back ``ms`` before they are sent, as a slow server's."""
    driver.execute_script("""
        const fetched = window.fetch, [held, ms] = arguments;
        window.fetch = async (path, init) => {
          if (path === held) await new Promise((resolve) => setTimeout(resolve, ms));
          return fetched(path, init);
        };""", path, ms)


def _deal_to(driver, url: str, trainee: str) -> None:
    """The trainer page with a drill dealt to ``trainee``, on show."""
    from selenium.webdriver.common.by import By

    _open(driver, f"{url}/trainer")
    driver.find_element(By.ID, "trainee").send_keys(trainee)
    driver.find_element(By.ID, "deal").click()
    _wait(driver, lambda d: d.find_element(By.ID, "drill").is_displayed())


def _as_a_phone(driver, width: int = 360, height: int = 640) -> None:
    """The browser's window made a phone's screen: ``width`` x ``height`` CSS pixels, two device pixels to one."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height,
                                                                  "deviceScaleFactor": 2, "mobile": True})


def _answered_on_a_phone(driver, url: str, trainee: str, width: int = 360, height: int = 640) -> None:
    """A drill dealt to ``trainee`` and answered on a phone's screen, its grade and the record on show."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    _as_a_phone(driver, width, height)
    _deal_to(driver, url, trainee)
    Select(driver.find_element(By.ID, "label")).select_by_index(1)
    driver.find_element(By.ID, "payout").send_keys("1")
    driver.find_element(By.ID, "submit").click()
    _wait(driver, lambda d: d.find_element(By.ID, "history").is_displayed())


def test_the_api_docs_send_nothing_to_another_origin(server, browser) -> None:
    """ReDoc's script showed Redocly's logo from its CDN: a request to the internet from docs said to need none (a
    broken image offline). /redoc, barred from other origins, still shows the API, the logo refused unsent."""
    from selenium.webdriver.common.by import By

    browser.get(server[0].replace("127.0.0.1", LAN_HOST) + "/redoc")
    _wait(browser, lambda d: "POST /v1/settle" in d.find_element(By.TAG_NAME, "body").text.replace("\n", " "))
    logged = [entry["message"] for entry in browser.get_log("browser") if "cdn.redoc.ly" in entry["message"]]
    assert len(logged) == 1 and "violates the following Content Security Policy directive" in logged[0], logged


def test_trainer_flow(server, browser) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    url, database = server
    _open(browser, f"{url}/trainer")
    browser.find_element(By.ID, "trainee").send_keys("ana")
    Select(browser.find_element(By.ID, "rules")).select_by_value("gnau")
    for round_number, correct in ((1, True), (2, False)):
        shown = browser.execute_script("return document.getElementById('picture').src")
        browser.find_element(By.ID, "deal").click()
        # The new drill's picture, loaded, not the last round's.
        _wait(browser, lambda d: d.find_element(By.ID, "drill").is_displayed() and d.execute_script(
            "const i = document.getElementById('picture'); return i.src !== arguments[0] && i.complete && i.naturalWidth > 0",
            shown))
        label, payout = _right_answer(database, "ana")
        Select(browser.find_element(By.ID, "label")).select_by_visible_text(label)
        browser.find_element(By.ID, "payout").send_keys(str(payout if correct else payout + 1))
        browser.find_element(By.ID, "submit").click()
        verdict = _wait(browser, lambda d: d.find_element(By.ID, "grade").is_displayed()
                        and d.find_element(By.CLASS_NAME, "verdict"))
        assert verdict.text == ("Right" if correct else "Not quite")
        assert label in browser.find_element(By.CLASS_NAME, "player").text
        # The last round's record stays in view until this round's arrives.
        _wait(browser, lambda d: d.find_element(By.ID, "history").is_displayed()
              and f"ana: {round_number} drill{'s' if round_number > 1 else ''}, " in d.find_element(By.CLASS_NAME, "summary").text)
    assert "50% right" in browser.find_element(By.CLASS_NAME, "summary").text
    assert "unanswered" not in browser.find_element(By.CLASS_NAME, "summary").text
    for _ in range(2):  # one drill dealt past, unanswered, then the next answered: the record says so
        shown = browser.execute_script("return document.getElementById('picture').src")
        browser.find_element(By.ID, "deal").click()
        _wait(browser, lambda d: d.execute_script("return document.getElementById('picture').src") != shown)
    label, payout = _right_answer(database, "ana")
    Select(browser.find_element(By.ID, "label")).select_by_visible_text(label)
    browser.find_element(By.ID, "payout").send_keys(str(payout))
    browser.find_element(By.ID, "submit").click()
    _wait(browser, lambda d: "ana: 3 drills, 67% right" in d.find_element(By.CLASS_NAME, "summary").text)
    assert browser.find_element(By.CLASS_NAME, "summary").text.endswith(", 1 left unanswered")


def test_live_page_sends_camera_frames_and_draws_the_answers(reader, browser) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    _open(browser, f"{reader}/live")
    Select(browser.find_element(By.ID, "rules")).select_by_value("niuniu")
    browser.find_element(By.ID, "start").click()
    counted = re.compile(r"(\d+) answers? to (\d+) frames? sent")
    status = _wait(browser, lambda d: (m := counted.search(d.find_element(By.ID, "status").text)) and int(m[1]) >= 3
                   and d.find_element(By.ID, "status").text)
    answers, sent = map(int, counted.search(status).groups())
    assert sent - answers <= 1  # the next frame goes only once the last one's answer is back
    assert "320 × 240" in status  # the fake camera's frames reached the server whole
    assert browser.find_element(By.ID, "hands").text  # the table shows what was read (here: no hands in view)
    red, green, _, _ = browser.execute_script("return Array.from(document.getElementById('view')"
                                              ".getContext('2d').getImageData(200, 200, 1, 1).data)")
    assert green > red + 40  # the camera's green table is drawn

    # What the page draws for a frame with a settled hand and a settling one, as the server sends it.
    steadier = Steadier(settle_frames=2)
    for rows in ([["10S", "9H", "8D", "4C", "4H"]],) * 2 + ([["10S", "9H", "8D", "4C", "4H"], ["KS", "QH", "JD"]],):
        message = score_steady(steadier.update(rows_reading(rows)), load_rules("gnau"), 0, {})
    table, outline = browser.execute_script("""
        const canvas = Object.assign(document.createElement("canvas"), {width: 640, height: 480});
        drawOverlay(canvas.getContext("2d"), arguments[0], 1);
        const body = document.createElement("tbody"), line = document.createElement("p");
        showHands(body, line, arguments[0]);
        return [body.textContent, Array.from(canvas.getContext("2d").getImageData(95, 100, 1, 1).data)];""", message)
    assert message["hands"][0]["reading"]["label"] in table and "settling" in table
    assert outline[:3] == [0x7e, 0xe7, 0x87]  # the settled hand's solid outline


def test_upload_page_reads_a_photo(reader, browser, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    _upload_with_photo(browser, reader, tmp_path)
    Select(browser.find_element(By.ID, "rules")).select_by_value("niuniu")
    _read_with_stakes(browser, "[1]")
    assert "stakes must be" in _problem(browser)
    _read_with_stakes(browser, '{"1": 5}')
    _wait(browser, lambda d: d.find_element(By.ID, "result").is_displayed() and d.execute_script(
        "return document.getElementById('annotated').width === 480"))
    assert not browser.find_element(By.ID, "problem").is_displayed()
    assert "on a 480 × 360 photo" in browser.find_element(By.ID, "seen").text
    assert "Not settled" in browser.find_element(By.ID, "settlement").text  # the tiny model reads no hands
    red, green, _, _ = browser.execute_script("return Array.from(document.getElementById('annotated')"
                                              ".getContext('2d').getImageData(300, 300, 1, 1).data)")
    assert green > red + 40  # the photo's green table is drawn
    sent = browser.execute_script("return performance.getEntriesByType('resource')"
                                  ".filter((e) => e.name.includes('/v1/evaluate')).length")
    assert sent == 2  # the refused form and the read one: the photo went once for each, not again for a drawing
    _read_with_stakes(browser, "")  # a cleared box is no stakes given (a stake of 1 each), not a field sent empty
    _wait(browser, lambda d: d.find_element(By.ID, "problem").is_displayed() or d.execute_script(
        "return performance.getEntriesByType('resource').filter((e) => e.name.includes('/v1/evaluate')).length === 3"))
    _wait(browser, lambda d: d.find_element(By.ID, "problem").is_displayed() or d.find_element(By.ID, "result").is_displayed())
    assert not browser.find_element(By.ID, "problem").is_displayed()


def test_upload_page_draws_each_hands_label_and_result(server, browser) -> None:
    """What the page writes over a photo read with two hands, one banker's, as the service answers it."""
    from oxeye.service.photo import score_photo

    scored = score_photo(rows_reading([["10S", "9H", "8D", "4C", "4H"], ["KS", "QH", "JD", "KC", "QD"]]),
                         load_rules("niuniu"), 0, {1: Decimal(2)})
    _open(browser, f"{server[0]}/upload")
    written = browser.execute_script("""
        const canvas = Object.assign(document.createElement("canvas"), {width: 640, height: 480});
        const context = canvas.getContext("2d"), written = [];
        context.fillText = (words) => written.push(words);
        drawOverlay(context, JSON.parse(arguments[0]), 1);
        return written;""", json.dumps(scored))
    assert "hand 0: No Niu (无牛) banker -10" in written  # Five Flowers pays 5 times the stake of 2
    assert "hand 1: Five Flowers (五花牛) win +10" in written
    assert {"10S", "KS", "QD"} <= set(written)


def test_the_hands_column_is_named_for_what_they_hold(server, browser) -> None:
    """Both pages headed the hands' column "Cards", over dominoes too."""
    from oxeye.service.photo import score_photo

    tiles = score_photo(rows_reading([["6-6", "4-2", "5-1", "3-3", "2-2"]]), load_rules("tau-ngau-macau"), 0, {})
    cards = score_photo(rows_reading([["KS", "QH", "JD", "KC", "10D"]]), load_rules("gnau"), 0, {})
    for page in ("upload", "live"):
        _open(browser, f"{server[0]}/{page}")
        headings = browser.execute_script("""
            const tbody = document.getElementById("hands"), line = document.createElement("p"), seen = [];
            for (const scored of arguments[0]) {
              showHands(tbody, line, scored);
              seen.push(tbody.closest("table").tHead.rows[0].cells[1].textContent);
            }
            return seen;""", [tiles, cards, {**cards, "items": [], "hands": []}])
        assert headings == ["Tiles", "Cards", "Cards or tiles"], page


def test_upload_page_says_the_photo_does_not_show_who_takes_the_bank(server, browser) -> None:
    """Where the bank passes, a photo's answer names no next banker (its hands are not numbered around the
    table); the page wrote 'next banker null'."""
    from oxeye.service.photo import score_photo
    from oxeye.service.rules_files import rules_from_mapping

    scored = score_photo(rows_reading([["KS", "QH", "JD", "KC", "10D"], ["10S", "9H", "8D", "4C", "4H"]]),
                         rules_from_mapping({"base": "gnau", "bank_passes": "every_round"}), 0, {})
    _open(browser, f"{server[0]}/upload")
    line = browser.execute_script("""
        const line = document.createElement("p");
        showHands(document.createElement("tbody"), line, JSON.parse(arguments[0]));
        return line.textContent;""", json.dumps(scored))
    assert line == "Settled: the house takes 0; the bank passes to the banker's right (who sits there is not seen)"


def _drawn(driver, data: bytes) -> list:
    """The upload page's canvas (hidden or not, its width and height) and words after it has drawn the photo encoded
    in ``data`` with an answer of the size the service reads it at."""
    from oxeye.service.photo import score_photo
    from oxeye.vision.images import decode_reduced
    from oxeye.vision.reading import Reading

    read = decode_reduced(data)
    scored = score_photo(Reading(read.width, read.height), load_rules("gnau"), 0, {})
    return driver.execute_async_script("""
        const [data, scored, done] = arguments;
        const photo = new Blob([Uint8Array.from(atob(data), (c) => c.charCodeAt(0))]);
        $("seen").textContent = "read";
        drawPhoto($("annotated"), photo, JSON.parse(scored)).then(() => done(
            [$("annotated").hidden, $("annotated").width, $("annotated").height, $("seen").textContent]));""",
        base64.b64encode(data).decode(), json.dumps(scored))


@pytest.mark.parametrize(("kind", "orientation", "drawn"), [
    ("JPEG", 6, True), ("WEBP", 6, False),
    # half a turn, or a mirror, keeps the photo's size, which alone was looked at: drawn upside down over the WebP
    ("JPEG", 3, True), ("WEBP", 3, False), ("WEBP", 2, False), ("WEBP", 1, True)])
def test_upload_page_draws_over_a_phone_photo_only_as_the_service_turned_it(server, browser, kind: str,
                                                                            orientation: int, drawn: bool) -> None:
    """Chromium shows a WebP as stored, leaving out the EXIF orientation the service turns it upright by: every
    box was drawn over the photo lying on its side, where its card is not. A JPEG it turns as the service does."""
    stored, buffer, exif = Image.open(io.BytesIO(portrait_as_a_phone_stores_it())), io.BytesIO(), Image.Exif()
    exif[0x0112] = orientation
    stored.save(buffer, kind, exif=exif)  # landscape pixels, to be shown as the orientation says
    width, height = (100, 200) if orientation == 6 else (200, 100)  # as the service reads it
    _open(browser, f"{server[0]}/upload")
    canvas = _drawn(browser, buffer.getvalue())
    if drawn:
        assert canvas == [False, width, height, "read"]
    else:
        assert canvas[0] and canvas[3] == ("read; this browser shows the photo 200 × 100, not turned as it was read "
                                           "by its EXIF orientation: the boxes are not drawn over it")


def test_upload_page_draws_over_a_photo_turned_by_its_xmp_only_as_the_service_turned_it(server, browser) -> None:
    """A photo turned by its XMP alone (no EXIF orientation) is turned by the service, not by a browser: its boxes
    were drawn over it upside down or mirrored, where its cards are not, and one a quarter turned was said to be
    turned by its EXIF. Where its EXIF has an orientation, the service and the browser turn it by that."""
    def xmp(turn: int, prefix: str = "tiff") -> str:
        return (f"<rdf:Description rdf:about='' xmlns:{prefix}='http://ns.adobe.com/tiff/1.0/'>"
                f"<{prefix}:Orientation> {turn} </{prefix}:Orientation></rdf:Description>")

    unturned = "read; this browser shows the photo 200 × 100, not turned as it was read by its XMP orientation: " \
               "the boxes are not drawn over it"
    _open(browser, f"{server[0]}/upload")
    for kind in ("JPEG", "PNG", "WEBP"):
        for turn in (2, 3, 4, 6):
            hidden, *_, said = _drawn(browser, tagged_in_xmp(kind, xmp(turn, "t")))
            assert hidden and said == unturned, (kind, turn)
        assert _drawn(browser, tagged_in_xmp(kind, xmp(1))) == [False, 200, 100, "read"], kind
    assert _drawn(browser, tagged_in_xmp("PNG", xmp(3), zipped=True))[3] == unturned
    for exif, size in ((1, [200, 100]), (3, [200, 100]), (6, [100, 200])):  # the XMP left out, as the service does
        assert _drawn(browser, tagged_in_xmp("JPEG", xmp(4), exif=exif)) == [False, *size, "read"], exif


def test_trainer_keeps_the_record_of_a_trainee_named_with_a_slash(server, browser) -> None:
    """A name such as "Ana / table 3" reaches its record; its grade was wiped by 'Not Found'."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    url, database = server
    _deal_to(browser, url, "Ana / table 3")
    label, payout = _right_answer(database, "Ana / table 3")
    Select(browser.find_element(By.ID, "label")).select_by_visible_text(label)
    browser.find_element(By.ID, "payout").send_keys(str(payout))
    browser.find_element(By.ID, "submit").click()
    summary = _wait(browser, lambda d: d.find_element(By.ID, "history").is_displayed()
                    and d.find_element(By.CLASS_NAME, "summary"))
    assert summary.text.startswith("Ana / table 3: 1 drill, 100% right")
    assert browser.find_element(By.CLASS_NAME, "verdict").text == "Right"


def test_upload_page_hides_the_last_photos_result_when_the_next_is_refused(server, browser, tmp_path: Path) -> None:
    """An error is not shown beside the previous photo's hands and settlement, as if they were its answer."""
    from selenium.webdriver.common.by import By

    _upload_with_photo(browser, server[0], tmp_path)
    browser.find_element(By.ID, "evaluate").click()
    _wait(browser, lambda d: d.find_element(By.ID, "result").is_displayed())
    _read_with_stakes(browser, '{"1": "ten"}')
    assert "stakes: 'ten' is not an amount" in _problem(browser)
    assert not browser.find_element(By.ID, "result").is_displayed()
    # and said to a screen reader, as the answer it replaces was (a live region): it heard nothing of a refusal
    assert browser.find_element(By.ID, "problem").aria_role == "alert"


def _live_with_cameras_watched(driver, url: str) -> None:
    """The live page open, every camera the browser gives it kept in ``window.opened`` to be looked at."""
    _open(driver, f"{url}/live")
    driver.execute_script("""
        window.opened = [];
        const open = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
        navigator.mediaDevices.getUserMedia = async (wanted) => { const s = await open(wanted); opened.push(s); return s; };""")


def _cameras_left_on(driver) -> list[int]:
    """For each camera the page was given, how many of its tracks are still live."""
    return driver.execute_script("return opened.map((s) => s.getTracks().filter((t) => t.readyState === 'live').length)")


def test_live_page_opens_one_camera_for_a_double_click(server, browser) -> None:
    """A second click while the camera opened started a second camera and socket; Stop closed only one."""
    from selenium.webdriver.common.by import By

    _live_with_cameras_watched(browser, server[0])
    browser.execute_script("""
        const start = document.getElementById("start");
        start.click();
        start.click();""")
    _wait(browser, lambda d: "answers to" in d.find_element(By.ID, "status").text)
    # the counts, written at every frame, are not read out: a screen reader read them 10 to 20 times a second
    assert browser.find_element(By.ID, "status").get_attribute("aria-live") == "off"
    browser.find_element(By.ID, "start").click()
    assert browser.find_element(By.ID, "start").text == "Start the camera"
    assert _cameras_left_on(browser) == [0]


def test_live_page_stops_a_camera_it_cannot_play(server, browser) -> None:
    """A camera given whose picture would not play was said so, and left on (its light too) until the tab closed."""
    from selenium.webdriver.common.by import By

    _live_with_cameras_watched(browser, server[0])
    browser.execute_script("""
        HTMLMediaElement.prototype.play = async () => { throw new DOMException("the picture cannot play"); };
        document.getElementById("start").click();""")
    _wait(browser, lambda d: "No camera: the picture cannot play" in d.find_element(By.ID, "status").text)
    assert _cameras_left_on(browser) == [0]
    assert browser.find_element(By.ID, "start").text == "Start the camera"


def test_live_page_says_why_a_page_over_plain_http_has_no_camera(server, browser) -> None:
    """Over http from another machine the browser gives no camera at all: said so, not a TypeError."""
    from selenium.webdriver.common.by import By

    _open(browser, server[0].replace("127.0.0.1", LAN_HOST) + "/live")
    browser.find_element(By.ID, "start").click()
    status = _wait(browser, lambda d: d.find_element(By.ID, "status").get_attribute("class") == "error"
                   and d.find_element(By.ID, "status").text)
    assert "https" in status and "localhost" in status and "undefined" not in status


def test_live_page_shows_a_refused_query_as_the_servers_words(server, browser) -> None:
    """The server's reason, not 'Frame : ...', and the page stopped with the socket."""
    from selenium.webdriver.common.by import By

    _open(browser, f"{server[0]}/live")
    browser.find_element(By.ID, "stakes").clear()
    browser.find_element(By.ID, "stakes").send_keys("[1]")
    browser.find_element(By.ID, "start").click()
    _wait(browser, lambda d: d.find_element(By.ID, "status").get_attribute("class") == "error"
          and d.find_element(By.ID, "start").text == "Start the camera")
    assert browser.find_element(By.ID, "status").text.startswith("stakes must be a JSON object")
    assert browser.find_element(By.ID, "status").get_attribute("aria-live") == "assertive"  # a refusal is read out


def test_live_page_says_when_the_server_goes_away(browser, tmp_path: Path) -> None:
    """The page stopped without a word, the last frame's counts still shown; and Start then did nothing visible."""
    from selenium.webdriver.common.by import By

    port = free_port()
    process = start_server(tmp_path, port)
    try:
        _open(browser, f"http://127.0.0.1:{port}/live")
        browser.find_element(By.ID, "start").click()
        _wait(browser, lambda d: "answers to" in d.find_element(By.ID, "status").text)
    finally:
        stop_server(process)
    status = _wait(browser, lambda d: d.find_element(By.ID, "start").text == "Start the camera"
                   and d.find_element(By.ID, "status"))
    assert status.get_attribute("class") == "error" and "connection to the server was lost" in status.text
    browser.find_element(By.ID, "start").click()
    _wait(browser, lambda d: "page could not reach the server" in d.find_element(By.ID, "status").text)
    assert browser.find_element(By.ID, "start").text == "Start the camera"


def test_pages_load_without_console_errors(server, browser) -> None:
    """Each page asked for /favicon.ico, a 404 that every page logged as an error."""
    for page in ("/", "/upload", "/trainer", "/live"):
        browser.get(server[0] + page)
        _wait(browser, lambda d: d.execute_script("return document.readyState") == "complete")
        errors = [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
        assert errors == [], page


def test_trainer_shows_a_refused_deal_on_the_page(server, browser) -> None:
    """The reason came in an alert, a box that holds up the page until dismissed; it is shown as an answer's is."""
    from selenium.webdriver.common.by import By

    _open(browser, f"{server[0]}/trainer")
    browser.find_element(By.ID, "trainee").send_keys("..")
    browser.find_element(By.ID, "deal").click()
    problem = _wait(browser, lambda d: d.find_element(By.ID, "grade").is_displayed()
                    and d.find_element(By.CSS_SELECTOR, "#grade .error"))
    assert problem.text == "trainee: cannot be '..': no URL reaches that record"
    assert not browser.find_element(By.ID, "drill").is_displayed()


def test_trainer_says_a_name_of_spaces_is_no_name(server, browser) -> None:
    """The page trimmed "   " to "" and showed the API's "trainee: String should have at least 1 character"."""
    from selenium.webdriver.common.by import By

    url, database = server
    _open(browser, f"{url}/trainer")
    box = browser.find_element(By.ID, "trainee")
    box.send_keys("   ")
    browser.find_element(By.ID, "deal").click()
    assert browser.execute_script("return arguments[0].validationMessage", box) == "a name needs more than spaces"
    assert not browser.find_element(By.ID, "grade").is_displayed()
    box.send_keys("ana")
    assert browser.execute_script("return arguments[0].validationMessage", box) == ""
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT count(*) FROM drills").fetchone() == (0,)



@pytest.mark.parametrize(("page", "name_box"), [("/trainer", "trainee"), ("/tables", "name")])
def test_a_name_box_takes_as_many_characters_as_the_service_keeps(server, browser, page: str, name_box: str) -> None:
    """A name box's maxlength="100" counted UTF-16 units: of a name of 60 emoji, which the service keeps, 50 could be
    typed, and of 100 letters the space a phone's keyboard leaves after them none; the box now counts as the service
    does, and says so of a name longer than it keeps."""
    from selenium.webdriver.common.by import By

    _open(browser, server[0] + page)
    box = browser.find_element(By.ID, name_box)
    for typed, message in (("\U0001f600" * 60, ""), ("a" * 100 + " ", ""), ("b" * 50 + "  " + "c" * 49, ""),
                           ("\U0001f600" * 101, "a name is at most 100 characters, not 101")):
        box.clear()
        box.click()
        browser.execute_cdp_cmd("Input.insertText", {"text": typed})  # as typed: ChromeDriver types no emoji
        said = browser.execute_script("return arguments[0].validationMessage", box)
        assert (box.get_attribute("value"), said) == (typed, message), typed

@pytest.mark.parametrize("page", ["/upload", "/live"])
def test_banker_box_takes_a_hands_number_in_digits_only(server, browser, page: str) -> None:
    """A number box let "1e0" through, and the service refused it: "banker: Input should be a valid integer"."""
    from selenium.webdriver.common.by import By

    _open(browser, server[0] + page)
    box, wanted = browser.find_element(By.ID, "banker"), "a hand's number, in digits: 0, 1, 2 …"
    for typed, message in (("1e0", wanted), ("1.0", wanted), ("-1", wanted), ("12", "")):
        box.clear()
        box.send_keys(typed)
        assert browser.execute_script("return arguments[0].validationMessage", box) == message, typed


def test_trainer_deals_once_while_a_request_is_in_flight(server, browser) -> None:
    """A double click on Deal dealt two drills; Deal pressed while an answer was out showed its grade under the new drill."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    url, database = server
    _open(browser, f"{url}/trainer")
    browser.find_element(By.ID, "trainee").send_keys("eve")
    browser.execute_script("const deal = document.getElementById('deal'); deal.click(); deal.click();")
    _wait(browser, lambda d: d.execute_script("const i = document.getElementById('picture'); return i.complete && i.naturalWidth > 0"))
    Select(browser.find_element(By.ID, "label")).select_by_index(1)
    browser.find_element(By.ID, "payout").send_keys("1")
    browser.execute_script("document.getElementById('submit').click(); document.getElementById('deal').click();")
    _wait(browser, lambda d: d.find_element(By.ID, "history").is_displayed())
    assert browser.find_element(By.CLASS_NAME, "verdict").is_displayed()
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT count(*), count(answered) FROM drills WHERE trainee = 'eve'").fetchone() == (1, 1)


def test_live_pages_picture_has_a_name(server, browser) -> None:
    """The camera's canvas was an unnamed box to a screen reader, beside labelled controls."""
    from selenium.webdriver.common.by import By

    _open(browser, f"{server[0]}/live")
    view = browser.find_element(By.ID, "view")
    assert (view.aria_role, view.accessible_name) == ("image", "the camera's picture, with what is read drawn over it")


def test_live_page_counts_each_start_afresh(server, browser) -> None:
    """Started again, the page went on counting from the last run while the server numbered frames from 1."""
    from selenium.webdriver.common.by import By

    _open(browser, f"{server[0]}/live")
    counted = re.compile(r"^(\d+) answers? to (\d+) frames? sent .* frame (\d+),")
    for _ in range(2):
        browser.execute_script("document.getElementById('status').textContent = ''")  # the last run's line gone
        browser.find_element(By.ID, "start").click()
        status = _wait(browser, lambda d: (m := counted.search(d.find_element(By.ID, "status").text)) and int(m[3]) >= 2 and m)
        browser.find_element(By.ID, "start").click()
        answers, sent, frame = map(int, status.groups())
        assert answers <= frame and sent <= frame + 1


def test_upload_page_counts_one_item_as_one(server, browser, tmp_path: Path) -> None:
    """It wrote '1 items read on a 640 × 480 photo'."""
    from selenium.webdriver.common.by import By

    from oxeye.service.photo import score_photo

    _upload_with_photo(browser, server[0], tmp_path)
    browser.execute_script("""
        const answer = arguments[0];
        window.fetch = async () => new Response(answer, {headers: {"Content-Type": "application/json"}});""",
                           json.dumps(score_photo(rows_reading([["KS"]]), load_rules("gnau"), 0, {})))
    _read_with_stakes(browser, "{}")
    seen = _wait(browser, lambda d: d.find_element(By.ID, "result").is_displayed() and d.find_element(By.ID, "seen").text)
    assert seen.startswith("1 card read on a 640 × 480 photo;")  # and the browser shows it 480 × 360


def test_live_page_counts_one_of_each_as_one(server, browser) -> None:
    """Its first answer said '1 answers to 1 frames sent ... 1 items, 1 hands'."""
    from selenium.webdriver.common.by import By

    message = score_steady(Steadier(settle_frames=2).update(rows_reading([["KS"]])), load_rules("gnau"), 0, {})
    _open(browser, f"{server[0]}/live")
    browser.execute_script("counts.sent = 1; answered(arguments[0]);", {**message, "frame": 1, "skipped": 0, "ms": 5})
    assert browser.find_element(By.ID, "status").text == (
        "1 answer to 1 frame sent (0 skipped) · frame 1, 640 × 480, read in 5 ms · 1 item, 1 hand, 0 settled")


def test_upload_page_says_what_a_proxy_refused(server, browser, tmp_path: Path) -> None:
    """A proxy's HTML error (nginx takes 1 MB by default, less than a phone's photo) read as JSON showed
    "Unexpected token '<' ... is not valid JSON"."""
    _upload_with_photo(browser, server[0], tmp_path)
    browser.execute_script("""
        const page = "<html><body><h1>413 Request Entity Too Large</h1></body></html>";
        window.fetch = async () => new Response(page, {status: 413, statusText: "Request Entity Too Large",
                                                       headers: {"Content-Type": "text/html"}});""")
    _read_with_stakes(browser, "{}")
    assert _problem(browser) == "the server answered 413 Request Entity Too Large"


def test_trainer_keeps_the_grade_when_the_record_fails(server, browser) -> None:
    """The record's failure replaced the grade with its error and offered the drill again, to be refused (409)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    _deal_to(browser, server[0], "fay")
    browser.execute_script("""
        const fetched = window.fetch;
        window.fetch = (path, init) => path.includes("/trainees/") ? Promise.reject(new TypeError("Failed to fetch"))
          : fetched(path, init);""")
    Select(browser.find_element(By.ID, "label")).select_by_index(1)
    browser.find_element(By.ID, "payout").send_keys("1")
    browser.find_element(By.ID, "submit").click()
    _wait(browser, lambda d: d.find_element(By.ID, "history").is_displayed())
    assert browser.find_element(By.ID, "history").text == f"The record could not be loaded: {UNREACHABLE}"
    assert browser.find_element(By.CLASS_NAME, "verdict").is_displayed()
    assert not browser.find_element(By.ID, "submit").is_enabled()


def test_trainer_shows_the_grade_of_an_answer_whose_grade_was_lost(server, browser) -> None:
    """An answer recorded, its grade lost on the way back (a phone's network gone): sent again, it was refused as
    'answered already', and the grade was never shown."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    _deal_to(browser, server[0], "gus")
    browser.execute_script("""
        const fetched = window.fetch;
        let lost = false;
        window.fetch = async (path, init) => {
          const response = await fetched(path, init);
          if (path.endsWith("/answer") && !lost) { lost = true; throw new TypeError("Failed to fetch"); }
          return response;
        };""")
    Select(browser.find_element(By.ID, "label")).select_by_index(1)
    browser.find_element(By.ID, "payout").send_keys("1")
    browser.find_element(By.ID, "submit").click()
    _wait(browser, lambda d: d.find_element(By.ID, "grade").text == UNREACHABLE)
    browser.find_element(By.ID, "submit").click()
    verdict = _wait(browser, lambda d: d.find_elements(By.CLASS_NAME, "verdict"))[0]
    assert verdict.text in ("Right", "Not quite")
    _wait(browser, lambda d: d.find_element(By.CLASS_NAME, "summary").text.startswith("gus: 1 drill, "))


def test_trainer_keeps_the_drill_under_way_through_a_reload(server, browser) -> None:
    """A reload (or a phone's browser reloading a tab it set aside) lost the drill under way, the name and the rules:
    the trainee dealt again, and their record counted the lost drill as one they had left unanswered."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    url, database = server
    _open(browser, f"{url}/trainer")
    browser.find_element(By.ID, "trainee").send_keys("ray")
    Select(browser.find_element(By.ID, "rules")).select_by_value("tau-ngau-pagat")
    browser.find_element(By.ID, "deal").click()
    _wait(browser, lambda d: d.find_element(By.ID, "picture").is_displayed())
    question, choices = browser.execute_script("return [drill.question, drill.choices]")
    browser.refresh()
    _wait(browser, lambda d: d.find_element(By.ID, "picture").is_displayed())
    assert browser.find_element(By.ID, "question").text == question
    assert [o.text for o in Select(browser.find_element(By.ID, "label")).options] == ["choose one", *choices]
    assert [browser.find_element(By.ID, name).get_attribute("value") for name in ("trainee", "rules")] == ["ray", "tau-ngau-pagat"]
    label, payout = _right_answer(database, "ray")
    Select(browser.find_element(By.ID, "label")).select_by_visible_text(label)
    browser.find_element(By.ID, "payout").send_keys(str(payout))
    browser.find_element(By.ID, "submit").click()
    summary = _wait(browser, lambda d: d.find_element(By.ID, "history").is_displayed() and d.find_element(By.CLASS_NAME, "summary"))
    assert summary.text.startswith("ray: 1 drill, 100% right") and "unanswered" not in summary.text
    browser.refresh()  # graded: the next reload shows no drill to answer again
    _open(browser, f"{url}/trainer")
    assert not browser.find_element(By.ID, "drill").is_displayed()


def test_trainer_lets_go_of_a_drill_answered_in_another_tab(server, browser) -> None:
    """A drill answered otherwise in another tab was refused (409) at every try, its Answer button still offered, and
    kept through a reload to be refused again: the way out was to find Deal."""
    import urllib.request

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    url, database = server
    _deal_to(browser, url, "ivy")
    label, payout = _right_answer(database, "ivy")
    drill_id = browser.execute_script("return drill.id")
    elsewhere = urllib.request.Request(f"{url}/v1/trainer/drills/{drill_id}/answer", method="POST",
                                       data=json.dumps({"label": label, "payout": str(payout)}).encode(),
                                       headers={"Content-Type": "application/json"})
    assert urllib.request.urlopen(elsewhere).status == 200
    Select(browser.find_element(By.ID, "label")).select_by_visible_text(label)
    browser.find_element(By.ID, "payout").send_keys(str(payout + 1))
    browser.find_element(By.ID, "submit").click()
    _wait(browser, lambda d: d.find_element(By.ID, "grade").text.endswith("(in another tab?): deal again"))
    assert f"drill {drill_id} was answered already" in browser.find_element(By.ID, "grade").text
    assert not browser.find_element(By.ID, "submit").is_enabled()
    assert browser.switch_to.active_element == browser.find_element(By.ID, "deal")
    browser.refresh()
    _open(browser, f"{url}/trainer")
    assert not browser.find_element(By.ID, "drill").is_displayed()


def test_trainer_shows_a_button_it_will_not_take_as_such(server, browser) -> None:
    """After the grade the Answer button, disabled, looked as it did when it took an answer (as Deal did while an
    answer was out): pressed, it did nothing, and nothing said why."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    _deal_to(browser, server[0], "una")
    Select(browser.find_element(By.ID, "label")).select_by_index(1)
    browser.find_element(By.ID, "payout").send_keys("1")
    opacity = "return getComputedStyle(document.getElementById(arguments[0])).opacity"
    assert browser.execute_script(opacity, "submit") == "1"
    browser.find_element(By.ID, "submit").click()
    _wait(browser, lambda d: d.find_element(By.ID, "history").is_displayed())
    assert not browser.find_element(By.ID, "submit").is_enabled()
    assert float(browser.execute_script(opacity, "submit")) <= 0.6 and browser.execute_script(opacity, "deal") == "1"


def test_index_links_the_camera_stream_only_when_there_is_one(server, browser) -> None:
    """Without --source the link led to the stream's 404, its JSON shown raw: the page says how to start one."""
    from selenium.webdriver.common.by import By

    browser.get(server[0])
    links = [a.get_attribute("href") for a in browser.find_elements(By.TAG_NAME, "a")]
    assert f"{server[0]}/upload" in links and f"{server[0]}/v1/stream.mjpg" not in links
    assert browser.find_element(By.ID, "stream").text.startswith("Camera stream: off; oxeye serve --source")


def test_trainer_shows_the_record_of_the_trainee_dealt_to(server, browser) -> None:
    """The name typed since the deal chose the record shown under the grade: another trainee's, or none."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    _deal_to(browser, server[0], "gus")
    trainee = browser.find_element(By.ID, "trainee")
    trainee.send_keys(" and hal")
    Select(browser.find_element(By.ID, "label")).select_by_index(1)
    browser.find_element(By.ID, "payout").send_keys("1")
    browser.find_element(By.ID, "submit").click()
    summary = _wait(browser, lambda d: d.find_element(By.ID, "history").is_displayed() and d.find_element(By.CLASS_NAME, "summary"))
    assert summary.text.startswith("gus: 1 drill,")


def test_live_page_holds_the_table_fixed_while_reading(server, browser) -> None:
    """Rules, banker and stakes are sent once, at the start: edited later they looked taken and were not."""
    from selenium.webdriver.common.by import By

    _open(browser, f"{server[0]}/live")
    fields = [browser.find_element(By.ID, name) for name in ("rules", "banker", "stakes")]
    browser.find_element(By.ID, "start").click()
    _wait(browser, lambda d: "answers to" in d.find_element(By.ID, "status").text)
    assert [field.is_enabled() for field in fields] == [False] * 3
    browser.find_element(By.ID, "start").click()
    assert [field.is_enabled() for field in fields] == [True] * 3


def test_api_docs_render_with_no_internet(server, browser) -> None:
    """/docs draws every endpoint from scripts served here (the browser here reaches no CDN)."""
    from selenium.webdriver.common.by import By

    browser.get(f"{server[0]}/docs")
    operations = _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".opblock-summary-path"))
    assert "/v1/tables/{table_id}/rounds" in {o.get_attribute("data-path") for o in operations}


def test_trainer_marks_the_trainees_answer_wrong_not_the_right_one(server, browser) -> None:
    """A wrong answer showed the right label and payout each with a ✗, read as wrong themselves, and never
    what the trainee had said."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    url, database = server
    _deal_to(browser, url, "ivy")
    label, payout = _right_answer(database, "ivy")
    wrong = next(option.text for option in Select(browser.find_element(By.ID, "label")).options
                 if option.get_attribute("value") not in ("", label))
    Select(browser.find_element(By.ID, "label")).select_by_visible_text(wrong)
    browser.find_element(By.ID, "payout").send_keys(str(payout + 1))
    browser.find_element(By.ID, "submit").click()
    _wait(browser, lambda d: d.find_element(By.ID, "grade").is_displayed() and d.find_element(By.CLASS_NAME, "verdict"))
    assert f"): {label} (you said {wrong} ✗) — " in browser.find_element(By.CLASS_NAME, "player").text
    reason = payout_reason(_right_result(database, "ivy"))
    assert browser.find_element(By.CLASS_NAME, "payout").text == f"Payout: {payout} (you said {payout + 1} ✗) — {reason}"


def test_trainer_runs_drill_after_drill_from_the_keyboard(server, browser) -> None:
    """Focus stayed on the trainee's name after a deal (three tabs from the answer) and fell to the page's
    end after the grade, the disabled Answer button losing it, with the next Deal behind it."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    url, database = server
    _open(browser, f"{url}/trainer")
    browser.find_element(By.ID, "trainee").send_keys("kai" + Keys.ENTER)
    focused = "return document.activeElement.id"
    _wait(browser, lambda d: d.find_element(By.ID, "drill").is_displayed() and d.execute_script(focused) == "label")
    ActionChains(browser).send_keys("n", Keys.TAB, "5", Keys.ENTER).perform()  # "n": the first choice so named
    _wait(browser, lambda d: d.find_element(By.ID, "history").is_displayed())
    assert browser.execute_script(focused) == "deal"
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    _wait(browser, lambda d: d.execute_script(focused) == "label" and not d.find_element(By.ID, "grade").is_displayed())
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT count(*), count(answered) FROM drills WHERE trainee = 'kai'").fetchone() == (2, 1)


def test_trainer_says_when_the_server_cannot_be_reached(browser, tmp_path: Path) -> None:
    """With the server stopped an answer or a deal said only the browser's "Failed to fetch"."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    port = free_port()
    process = start_server(tmp_path, port)
    try:
        _deal_to(browser, f"http://127.0.0.1:{port}", "lea")
    finally:
        stop_server(process)
    Select(browser.find_element(By.ID, "label")).select_by_index(1)
    browser.find_element(By.ID, "payout").send_keys("1")
    browser.find_element(By.ID, "submit").click()
    problem = _wait(browser, lambda d: d.find_element(By.ID, "grade").is_displayed()
                    and d.find_element(By.CSS_SELECTOR, "#grade .error"))
    assert problem.text == UNREACHABLE
    assert browser.find_element(By.ID, "submit").is_enabled()  # to be sent again once the server is back


def test_trainer_keeps_one_record_for_a_name_typed_with_a_trailing_space(server, browser) -> None:
    """A phone's keyboard leaves a space after a word it completes: "ana " was another trainee than "ana",
    her drills split between two records."""
    _deal_to(browser, server[0], "ana ")
    with sqlite3.connect(server[1]) as db:
        assert db.execute("SELECT trainee FROM drills").fetchall() == [("ana",)]


def test_upload_page_hides_the_last_photos_drawing_when_it_cannot_draw_this_one(server, browser, tmp_path: Path) -> None:
    """The stylesheet's `canvas { display: block }` outweighed the `hidden` the page set on the canvas: the
    last photo stayed drawn, with its hands, under the next photo's answer."""
    from selenium.webdriver.common.by import By

    _upload_with_photo(browser, server[0], tmp_path)
    browser.find_element(By.ID, "evaluate").click()
    _wait(browser, lambda d: d.find_element(By.ID, "annotated").is_displayed()
          and d.execute_script("return document.getElementById('annotated').width === 480"))
    browser.execute_script("window.createImageBitmap = async () => { throw new DOMException('unreadable'); };")
    browser.find_element(By.ID, "evaluate").click()
    _wait(browser, lambda d: "cannot show the photo itself" in d.find_element(By.ID, "seen").text)
    assert not browser.find_element(By.ID, "annotated").is_displayed()


def test_trainer_shows_no_picture_but_the_drills_own(server, browser) -> None:
    """A browser shows an image until the next one it is given has loaded: on a slow line the last drill's
    hands stayed in view under the new drill's question, to be answered from."""
    from selenium.webdriver.common.by import By

    _deal_to(browser, server[0], "ray")
    _wait(browser, lambda d: d.execute_script("const i = document.getElementById('picture'); return i.complete && i.naturalWidth > 0"))
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 50,
                                                                  "downloadThroughput": 20_000, "uploadThroughput": 20_000})
    browser.find_element(By.ID, "deal").click()
    _wait(browser, lambda d: d.execute_script("return drill.id") == 2)
    shown = "const i = document.getElementById('picture'); return [i.checkVisibility(), i.complete, i.src.includes('/2/')]"
    assert browser.execute_script(shown) == [False, False, True]
    _wait(browser, lambda d: d.execute_script(shown) == [True, True, True], 60)
    # one that cannot be loaded (the server gone, the drill's record too) is said so, not left blank
    browser.execute_script("document.getElementById('picture').src = '/v1/trainer/drills/99/image.jpg'")
    problem = _wait(browser, lambda d: d.find_element(By.ID, "grade").is_displayed()
                    and d.find_element(By.CSS_SELECTOR, "#grade .error"))
    assert problem.text == "the drill's picture could not be loaded: deal again"


def test_trainer_asks_for_the_ox_rather_than_answering_the_first_one(server, browser) -> None:
    """The first choice stood chosen: a trainee who gave only the payout was recorded as answering Five Dukes."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    _deal_to(browser, server[0], "pia")
    browser.find_element(By.ID, "payout").send_keys("5" + Keys.ENTER)
    assert browser.execute_script("return document.getElementById('label').validationMessage")
    with sqlite3.connect(server[1]) as db:
        assert db.execute("SELECT count(answered) FROM drills").fetchone() == (0,)
    Select(browser.find_element(By.ID, "label")).select_by_visible_text("Five Dukes")
    browser.find_element(By.ID, "payout").send_keys(Keys.ENTER)
    _wait(browser, lambda d: d.find_element(By.ID, "history").is_displayed())
    with sqlite3.connect(server[1]) as db:
        assert db.execute("SELECT answer_label FROM drills").fetchall() == [("Five Dukes",)]


def test_trainer_fits_a_phone_with_a_long_name(server, browser) -> None:
    """A trainee named by an e-mail address, one long word, ran past a 375 px phone's edge in the record's
    heading, the page scrolling sideways with the name cut off."""
    _answered_on_a_phone(browser, server[0], "firstname.lastname@casino-training.example.com", 375, 740)
    assert browser.execute_script("return document.documentElement.scrollWidth") == 375


def test_trainer_takes_no_answer_to_the_last_drill_while_dealing_the_next(server, browser) -> None:
    """The last drill stayed open while the next was dealt (seconds, the first time): answered meanwhile, its
    grade was shown under the new drill, as the new one's."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    _deal_to(browser, server[0], "quinn")
    Select(browser.find_element(By.ID, "label")).select_by_index(1)
    browser.find_element(By.ID, "payout").send_keys("1")
    _held_back(browser, "/v1/trainer/drills", 3000)
    browser.find_element(By.ID, "deal").click()
    assert not browser.find_element(By.ID, "submit").is_displayed()
    _wait(browser, lambda d: d.find_element(By.ID, "drill").is_displayed())
    assert browser.execute_script("return drill.id") == 2


def test_live_page_stops_from_the_keyboard_as_it_started(server, browser) -> None:
    """Start, disabled while the camera opened, lost the focus: Enter, which had started the camera, could not
    stop it."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    _open(browser, f"{server[0]}/live")
    browser.find_element(By.ID, "start").send_keys(Keys.ENTER)
    _wait(browser, lambda d: "answers to" in d.find_element(By.ID, "status").text)
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    _wait(browser, lambda d: d.find_element(By.ID, "start").text == "Start the camera", 5)


def test_trainer_says_what_the_payout_box_wants(server, browser) -> None:
    """Of "+5" or "2,5" the browser said only "Please match the requested format"."""
    from selenium.webdriver.common.by import By

    url, database = server
    _deal_to(browser, url, "lou")
    box = browser.find_element(By.ID, "payout")
    wanted = 'chips as a number, like 30, -10 or 2.5 (a point, not a comma; no "+")'
    for typed, message in (("+5", wanted), ("2,5", wanted), ("-2.5", "")):
        box.clear()
        box.send_keys(typed)
        assert browser.execute_script("return arguments[0].validationMessage", box) == message, typed
    box.clear()
    box.send_keys("+5")
    browser.find_element(By.ID, "deal").click()  # the next drill's box, cleared, is not refused for the last's
    _wait(browser, lambda d: d.execute_script("return arguments[0].value === '' && !arguments[0].validity.customError", box))
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT count(*), count(answered) FROM drills WHERE trainee = 'lou'").fetchone() == (2, 0)


def test_upload_page_gives_read_it_the_focus_back(server, browser, tmp_path: Path) -> None:
    """Read it, disabled while the photo was read, lost the focus: Enter could not read the next photo."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    _upload_with_photo(browser, server[0], tmp_path)
    browser.find_element(By.ID, "evaluate").send_keys(Keys.ENTER)
    _wait(browser, lambda d: d.find_element(By.ID, "result").is_displayed() and not d.find_element(By.ID, "evaluate")
          .get_attribute("disabled"))
    assert browser.execute_script("return document.activeElement.id") == "evaluate"


def test_trainer_says_it_is_dealing_while_a_deal_is_on_its_way(server, browser) -> None:
    """A deal can take seconds (the first after a start waits for the pictures' faces): nothing said so."""
    from selenium.webdriver.common.by import By

    _open(browser, f"{server[0]}/trainer")
    browser.find_element(By.ID, "trainee").send_keys("rio")
    _held_back(browser, "/v1/trainer/drills", 1500)
    browser.find_element(By.ID, "deal").click()
    assert browser.find_element(By.ID, "deal").text == "Dealing…"
    _wait(browser, lambda d: d.find_element(By.ID, "drill").is_displayed())
    assert browser.find_element(By.ID, "deal").text == "Deal"


def test_pages_say_when_the_rules_cannot_be_loaded(server, browser, tmp_path: Path) -> None:
    """The presets list stood empty without a word (the error only in the console), and a photo sent then was
    read under gnau, unasked."""
    from selenium.webdriver.common.by import By

    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/v1/rules"]})
    said = f"The rules could not be loaded: {UNREACHABLE}"
    for page, shown in (("/live", "status"), ("/trainer", "grade"), ("/tables", "problem"), ("/upload", "problem")):
        browser.get(server[0] + page)
        _wait(browser, lambda d: d.find_element(By.ID, shown).is_displayed() and d.find_element(By.ID, shown).text == said)
    cv2.imwrite(str(tmp_path / "table.jpg"), _table())
    browser.find_element(By.ID, "image").send_keys(str(tmp_path / "table.jpg"))
    browser.find_element(By.ID, "evaluate").click()
    assert browser.execute_script("return document.getElementById('rules').validationMessage")
    assert browser.execute_script("return performance.getEntriesByType('resource')"
                                  ".filter((e) => e.name.includes('/v1/evaluate')).length") == 0


def test_upload_page_says_it_is_reading_while_a_photo_is_on_its_way(server, browser, tmp_path: Path) -> None:
    """A phone's photo can take seconds to send and read: Read it only greyed out, nothing said so."""
    from selenium.webdriver.common.by import By

    _upload_with_photo(browser, server[0], tmp_path)
    _held_back(browser, "/v1/evaluate", 1500)
    browser.find_element(By.ID, "evaluate").click()
    assert browser.find_element(By.ID, "evaluate").text == "Reading…"
    _wait(browser, lambda d: d.find_element(By.ID, "result").is_displayed())
    assert browser.find_element(By.ID, "evaluate").text == "Read it"


def test_upload_page_writes_labels_a_phone_can_read(server, browser) -> None:
    """A phone shows a 960-pixel photo 343 px wide: its labels, a 60th of the photo's width, were 6 px tall."""
    from oxeye.service.photo import score_photo

    scored = score_photo(rows_reading([["10S", "9H", "8D", "4C", "4H"]]), load_rules("gnau"), 0, {})
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 375, "height": 740, "deviceScaleFactor": 2,
                                                                   "mobile": True})
    _open(browser, f"{server[0]}/upload")
    shown = browser.execute_script("""
        $("result").hidden = false;
        const canvas = Object.assign($("annotated"), {width: 960, height: 720}), context = canvas.getContext("2d");
        drawOverlay(context, arguments[0], 1);
        return [parseFloat(context.font) * canvas.clientWidth / canvas.width, canvas.clientWidth];""", scored)
    assert shown[0] == pytest.approx(12, abs=0.01) and shown[1] < 375  # 12 px as shown, the photo shown narrower


def test_trainer_gives_the_name_the_focus_after_a_refused_deal(server, browser) -> None:
    """Deal, disabled while dealing, lost the focus: after a refused deal Enter did nothing, and the name to be
    put right lay three tabs from the page's top."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    _open(browser, f"{server[0]}/trainer")
    browser.find_element(By.ID, "trainee").send_keys("..")
    browser.find_element(By.ID, "deal").send_keys(Keys.ENTER)
    _wait(browser, lambda d: d.find_element(By.ID, "grade").is_displayed())
    assert browser.execute_script("return document.activeElement.id") == "trainee"
    ActionChains(browser).send_keys(Keys.BACKSPACE, Keys.BACKSPACE, "uma", Keys.ENTER).perform()
    _wait(browser, lambda d: d.find_element(By.ID, "drill").is_displayed())
    assert browser.execute_script("return drill.trainee") == "uma"


def _in_view(driver, element_id: str) -> bool:
    """Whether the element lies whole within the window's view (to the pixel: layout is in fractions of one)."""
    top, bottom, height = driver.execute_script(
        "const r = document.getElementById(arguments[0]).getBoundingClientRect(); return [r.top, r.bottom, innerHeight]",
        element_id)
    return top >= 0 and round(bottom) <= height


def test_trainer_shows_the_drill_whole_on_a_laptop(server, browser) -> None:
    """On a laptop's screen (1280 × 800) the picture ran past the view's foot: the player's hand and the answer
    lay below it, the banker's hand above the view once scrolled to them; the grade, the record or a refusal
    below the view too."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.set_window_size(1280, 800)
    _deal_to(browser, server[0], "ned")
    _wait(browser, lambda d: d.find_element(By.ID, "picture").is_displayed())
    assert [_in_view(browser, shown) for shown in ("question", "picture", "submit")] == [True] * 3
    Select(browser.find_element(By.ID, "label")).select_by_index(1)
    browser.find_element(By.ID, "payout").send_keys("1")
    browser.find_element(By.ID, "submit").click()
    _wait(browser, lambda d: d.find_element(By.ID, "history").is_displayed())
    assert _in_view(browser, "grade") and _in_view(browser, "history")
    browser.find_element(By.ID, "deal").click()  # and a refusal: the next drill answered from another tab first
    _wait(browser, lambda d: d.find_element(By.ID, "picture").is_displayed() and d.execute_script("return drill.id") == 2)
    other = {"label": "Five Dukes", "payout": "2"}  # not the page's answer, which would be graded as this one was
    httpx.post(f"{server[0]}/v1/trainer/drills/2/answer", json=other).raise_for_status()
    Select(browser.find_element(By.ID, "label")).select_by_index(1)
    browser.find_element(By.ID, "payout").send_keys("1")
    browser.find_element(By.ID, "submit").click()
    _wait(browser, lambda d: "answered already" in d.find_element(By.ID, "grade").text)
    assert _in_view(browser, "grade")


def test_live_page_shows_the_camera_whole_under_its_controls(server, browser) -> None:
    """A laptop's camera (1280 × 720) was drawn 928 × 522 under the controls and status, its foot (the hands
    nearest the camera) below the view while reading: here the fake camera's 320 × 240 in a window as short."""
    from selenium.webdriver.common.by import By

    browser.set_window_size(1280, 520)
    _open(browser, f"{server[0]}/live")
    browser.find_element(By.ID, "start").click()
    _wait(browser, lambda d: "answers to" in d.find_element(By.ID, "status").text)
    assert _in_view(browser, "view") and _in_view(browser, "start")


def test_pages_give_a_thumb_room_to_tap(server, browser) -> None:
    """On a phone the boxes and buttons were 31 to 34 px tall and the links 19: a thumb, some 44 px across, missed
    them or hit the one beside. And a box's text was 13.6 px, a label's: an iPhone zoomed the page in on a box so
    written as it was tapped, and left it zoomed."""
    from selenium.webdriver.common.by import By

    url = server[0]
    table = httpx.post(f"{url}/v1/tables", json={"name": "main", "rules": "gnau", "seats": ["ann", "bob"], "banker": "ann"})
    _as_a_phone(browser)
    for page, shown in (("/", "stream"), ("/upload", "rules"), ("/live", "rules"), ("/trainer", "rules"),
                        ("/tables", "tables"), (f"/tables#{table.json()['id']}", "plays")):
        browser.get(url + page)
        _wait(browser, lambda d: d.find_element(By.ID, shown).text)
        small = browser.execute_script("""
            return [...document.querySelectorAll("a, button, input, select, textarea")].filter((e) => e.checkVisibility())
              .map((e) => [e.id || e.textContent || e.getAttribute("aria-label"), e.getBoundingClientRect().height])
              .filter(([, height]) => height < 40);""")
        assert small == [], page
        written = browser.execute_script("""return [...document.querySelectorAll("input, select, textarea")]
            .map((e) => [e.id || e.getAttribute("aria-label"), getComputedStyle(e).fontSize]);""")
        assert all(size == "16px" for _, size in written), (page, written)


def test_pages_take_stakes_typed_with_a_phones_curly_quotes(server, browser, tmp_path: Path) -> None:
    """An iPhone's keyboard types {"1": 10} as {“1”: 10}: the stakes were refused as no JSON, on both pages, the
    straight quote hard to find on a phone."""
    from selenium.webdriver.common.by import By

    _upload_with_photo(browser, server[0], tmp_path)
    _read_with_stakes(browser, "{“1”: 10}")
    _wait(browser, lambda d: d.find_element(By.ID, "result").is_displayed() or d.find_element(By.ID, "problem").is_displayed())
    assert not browser.find_element(By.ID, "problem").is_displayed()
    assert browser.find_element(By.ID, "stakes").get_attribute("value") == '{"1": 10}'
    _open(browser, f"{server[0]}/live")
    browser.find_element(By.ID, "stakes").clear()
    browser.find_element(By.ID, "stakes").send_keys("{„1“: 10}")
    browser.find_element(By.ID, "start").click()
    _wait(browser, lambda d: "answers to" in d.find_element(By.ID, "status").text
          or d.find_element(By.ID, "status").get_attribute("class") == "error")
    assert browser.find_element(By.ID, "status").get_attribute("class") != "error"


def test_live_page_opens_the_camera_facing_the_table(server, browser) -> None:
    """A phone gave the page its selfie camera, facing the player holding it, not the table: the camera facing
    away is asked for (where there is one; the fake camera faces neither way, and is taken all the same)."""
    from selenium.webdriver.common.by import By

    _open(browser, f"{server[0]}/live")
    browser.find_element(By.ID, "start").click()
    _wait(browser, lambda d: "answers to" in d.find_element(By.ID, "status").text)
    asked = browser.execute_script("return camera.getVideoTracks()[0].getConstraints().facingMode")
    assert asked == "environment"  # as Chromium gives back an ideal


def test_live_page_keeps_the_screen_on_while_reading(server, browser) -> None:
    """A phone propped over the table dimmed and locked its screen after half a minute untouched, the reading
    stopped with it: the page holds a screen wake lock while the camera reads, and lets it go when stopped."""
    from selenium.webdriver.common.by import By

    _open(browser, f"{server[0]}/live")
    browser.execute_script("""
        window.locks = [];
        Object.defineProperty(navigator, "wakeLock", {value: {request: async (type) => {
          locks.push(type);
          return {release: async () => locks.push("released")};
        }}});""")
    browser.find_element(By.ID, "start").click()
    _wait(browser, lambda d: "answers to" in d.find_element(By.ID, "status").text)
    assert browser.execute_script("return locks") == ["screen"]
    browser.find_element(By.ID, "start").click()
    _wait(browser, lambda d: d.execute_script("return locks") == ["screen", "released"], 5)


def test_trainer_deals_the_next_drill_from_under_the_grade_on_a_phone(server, browser) -> None:
    """On a phone Deal lay a screen above the grade and the record: every drill, the trainee scrolled back up to it."""
    from selenium.webdriver.common.by import By

    _answered_on_a_phone(browser, server[0], "una")
    assert not _in_view(browser, "deal") and _in_view(browser, "next")
    browser.find_element(By.ID, "next").click()
    _wait(browser, lambda d: d.find_element(By.ID, "drill").is_displayed() and d.execute_script("return drill.id") == 2)
    assert not browser.find_element(By.ID, "grade").is_displayed()


def test_name_boxes_take_a_name_as_typed_on_a_phone(server, browser) -> None:
    """A phone's keyboard capitalised a name's first letter ("Ann": another seat, another trainee, than the "ann"
    typed at a laptop) and corrected names to words ("ned" to "need"), in the boxes for names and hands."""
    from selenium.webdriver.common.by import By

    url = server[0]
    table = httpx.post(f"{url}/v1/tables", json={"name": "main", "rules": "gnau", "seats": ["ann", "bob"], "banker": "ann"})
    typed_as = "return [...document.querySelectorAll(arguments[0])].map((box) => [box.autocapitalize, box.spellcheck, " \
               "box.getAttribute('autocorrect')])"
    _open(browser, f"{url}/trainer")
    assert browser.execute_script(typed_as, "#trainee") == [["none", False, "off"]]
    browser.get(f"{url}/tables#{table.json()['id']}")
    _wait(browser, lambda d: d.find_element(By.ID, "plays").text)
    boxes = "#seats, #new-seats, #plays .hand, #plays .onlookers"
    assert browser.execute_script(typed_as, boxes) == [["none", False, "off"]] * 5  # ann banks: bob's onlookers alone


def test_pages_hold_a_picture_within_the_view_a_phone_shows(server, browser) -> None:
    """On a phone 100vh is the view with the address bar put away, taller than the view shown with it: the trainer's
    picture and the live camera, held to 100vh less their controls' room, ran under the view's foot, the answer or the
    Stop button below it. They are held to the view shown (dvh), where the browser has it."""
    _as_a_phone(browser)
    _open(browser, f"{server[0]}/trainer")
    limits = browser.execute_script("""return [...document.styleSheets].flatMap((sheet) => [...sheet.cssRules])
        .filter((rule) => /vh\\b/.test(rule.cssText)).map((rule) => [rule.selectorText, rule.style.maxHeight.match(/[0-9]+d?vh/)[0]]);""")
    assert limits == [["#picture", "100dvh"], ["#view", "100dvh"]]


def test_trainer_takes_the_payout_in_digits_with_who_pays_it_on_a_phone(server, browser) -> None:
    """An iPhone gave the payout box its whole keyboard, no number pad (which has no minus): a payout the player pays
    was typed with the minus a page of symbols away. The chips are typed on a number pad, who pays them chosen beside;
    a minus typed before them still reads as the player paying them."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    url, database = server
    _as_a_phone(browser)
    _deal_to(browser, url, "ida")
    box = browser.find_element(By.ID, "payout")
    assert box.get_attribute("inputmode") == "decimal"
    Select(browser.find_element(By.ID, "label")).select_by_index(1)
    browser.find_element(By.CSS_SELECTOR, "label:has(#pays)").click()
    box.send_keys("3" + Keys.ENTER)
    _wait(browser, lambda d: d.find_element(By.ID, "history").is_displayed())
    browser.find_element(By.ID, "next").click()
    _wait(browser, lambda d: d.find_element(By.ID, "drill").is_displayed() and d.execute_script("return drill.id") == 2)
    chosen = "return [arguments[0].value, document.getElementById('wins').checked]"
    assert browser.execute_script(chosen, box) == ["", True]  # the next drill's answer begun afresh
    box.send_keys("-2.5")
    assert browser.execute_script(chosen, box) == ["2.5", False] and box.get_attribute("validationMessage") == ""
    Select(browser.find_element(By.ID, "label")).select_by_index(1)
    box.send_keys(Keys.ENTER)
    _wait(browser, lambda d: "ida: 2 drills" in d.find_element(By.ID, "history").text)
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT answer_payout FROM drills ORDER BY id").fetchall() == [("-3",), ("-2.5",)]


def test_upload_page_says_what_was_read_in_the_rules_terms(server, browser, tmp_path: Path) -> None:
    """A photo of dominoes read under gnau: the page wrote "0 items read on a 640 × 480 photo" beside the
    settlement's "no cards were seen, but 23 tiles were", as though none of the 23 were there."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from oxeye.service.photo import score_photo
    from oxeye.vision.reading import Reading

    _upload_with_photo(browser, server[0], tmp_path)
    for rules, reading, other_game, said, settled in (
            ("gnau", Reading(640, 480), 23, "nothing gnau plays with was read on a 640 × 480 photo;",
             "Not settled: no cards were seen, but 23 tiles were: "),
            ("tau-ngau-macau", rows_reading([["6-6", "4-2", "5-1"]]), 0, "3 tiles read on a 640 × 480 photo;",
             "Not settled: the banker's hand 0 was not read")):
        browser.execute_script("""
            const answer = arguments[0];
            window.fetch = async () => new Response(answer, {headers: {"Content-Type": "application/json"}});""",
                               json.dumps(score_photo(reading, load_rules(rules), 0, {}, other_game)))
        Select(browser.find_element(By.ID, "rules")).select_by_value(rules)
        browser.find_element(By.ID, "evaluate").click()
        seen = _wait(browser, lambda d: d.find_element(By.ID, "result").is_displayed() and d.find_element(By.ID, "seen").text)
        assert seen.startswith(said), seen
        assert browser.find_element(By.ID, "settlement").text.startswith(settled)
