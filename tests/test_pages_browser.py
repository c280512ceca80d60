"""The web pages driven in Debian's headless Chromium against a real server on a loopback port."""

from __future__ import annotations

import json
import shutil
import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest

from oxeye.engine import Participant, settle
from oxeye.service.rules_files import load_rules
from serving import free_port, start_server, stop_server

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
def browser(tmp_path: Path):
    from selenium import webdriver

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic",
                 f"--user-data-dir={tmp_path / 'chromium'}", "--window-size=1200,900"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=DRIVER))
    yield driver
    driver.quit()


def _wait(driver, condition, seconds: float = 20):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, seconds).until(condition)


def _right_answer(database: Path, trainee: str) -> tuple[str, Decimal]:
    """Worked out from what the ledger says was dealt, with the engine, not through the page."""
    with sqlite3.connect(database) as db:
        rules, banker, player, stake = db.execute(
            "SELECT rules, banker, player, stake FROM drills WHERE trainee = ? ORDER BY id DESC", (trainee,)).fetchone()
    result = settle(Participant("b", banker), [Participant("p", player, Decimal(stake))], load_rules(json.loads(rules)))
    return result.players[0].evaluation.label, result.players[0].delta


def test_trainer_flow(server, browser) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    url, database = server
    browser.get(f"{url}/trainer")
    _wait(browser, lambda d: len(Select(d.find_element(By.ID, "rules")).options) >= 5)
    browser.find_element(By.ID, "trainee").send_keys("ana")
    Select(browser.find_element(By.ID, "rules")).select_by_value("gnau")
    for round_number, correct in ((1, True), (2, False)):
        browser.find_element(By.ID, "deal").click()
        _wait(browser, lambda d: d.find_element(By.ID, "drill").is_displayed()
              and d.execute_script("const i = document.getElementById('picture'); return i.complete && i.naturalWidth > 0"))
        label, payout = _right_answer(database, "ana")
        Select(browser.find_element(By.ID, "label")).select_by_visible_text(label)
        browser.find_element(By.ID, "payout").send_keys(str(payout if correct else payout + 1))
        browser.find_element(By.ID, "submit").click()
        verdict = _wait(browser, lambda d: d.find_element(By.ID, "grade").is_displayed()
                        and d.find_element(By.CLASS_NAME, "verdict"))
        assert verdict.text == ("Right" if correct else "Not quite")
        assert label in browser.find_element(By.CLASS_NAME, "player").text
        summary = _wait(browser, lambda d: d.find_element(By.ID, "history").is_displayed()
                        and d.find_element(By.CLASS_NAME, "summary"))
        assert f"{round_number} drills" in summary.text
    assert "50% right" in browser.find_element(By.CLASS_NAME, "summary").text
