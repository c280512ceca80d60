"""The tables page driven in headless Chromium against a real server: tables opened, rounds recorded once,
balances and rounds shown as the ledger API answers them."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from serving import free_port, start_server, stop_server
from test_pages_browser import (UNREACHABLE, browser, pytestmark, server, _as_a_phone, _in_view, _open,  # noqa: F401 (fixtures)
                                _wait)

ROUND = {"ann": ("10S 9H 8D 4C 4H",), "bob": ("KS QH JD KC QD", "10", "dee 1, eve 2.5"),
         "cy": ("AS 2H 7D 5C 6S", "2.5", "")}
KEY = "clé"  # beyond ASCII: fetch takes no header holding it as it is


@pytest.fixture()
def keyed(tmp_path: Path):
    """A server whose ledger needs the API key."""
    port = free_port()
    process = start_server(tmp_path, port, "--api-key", KEY)
    yield f"http://127.0.0.1:{port}"
    stop_server(process)


def _opened(driver, url: str, name: str = "main") -> int:
    """A table of ann (banker), bob and cy opened on the page under gnau; its id, once on show."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    _open(driver, f"{url}/tables")
    driver.find_element(By.ID, "name").send_keys(name)
    Select(driver.find_element(By.ID, "rules")).select_by_value("gnau")
    driver.find_element(By.ID, "seats").send_keys("ann\nbob\ncy")
    Select(driver.find_element(By.ID, "banker")).select_by_visible_text("ann")
    driver.find_element(By.ID, "create").click()
    _wait(driver, lambda d: d.find_element(By.ID, "table").is_displayed() and "banks now" in d.find_element(By.ID, "banks").text)
    return int(driver.execute_script("return location.hash.slice(1)"))


def _fill(driver, plays: dict[str, tuple[str | None, ...]]) -> None:
    """The round form filled: each seat's hand, stake and onlookers (None: left as it is)."""
    from selenium.webdriver.common.by import By

    for name, typed in plays.items():
        row = driver.find_element(By.CSS_SELECTOR, f'#plays tr[data-name="{name}"]')
        for kind, words in zip(("hand", "stake", "onlookers"), typed):
            if words is not None:
                box = row.find_element(By.CLASS_NAME, kind)
                box.clear()
                box.send_keys(words)


def _recorded(driver, rounds: int) -> None:
    """Wait until the page shows the table with ``rounds`` rounds recorded."""
    from selenium.webdriver.common.by import By

    _wait(driver, lambda d: f"{rounds} round{'s' if rounds != 1 else ''} recorded" in d.find_element(By.ID, "banks").text)


def _lose_the_next_answer(driver) -> None:
    """The next POST reaches the server, but its answer is lost on the way back, as on a dropped network."""
    driver.execute_script("""
        const fetched = window.fetch;
        window.fetch = async (path, init) => {
          const answer = await fetched(path, init);
          if (init && init.method === "POST") { window.fetch = fetched; throw new TypeError("Failed to fetch"); }
          return answer;
        };""")


def _sent_and_answer_lost(driver) -> None:
    """ROUND recorded from the form, the server storing it, and its answer lost: the page says so."""
    from selenium.webdriver.common.by import By

    _fill(driver, ROUND)
    _lose_the_next_answer(driver)
    driver.find_element(By.ID, "record").click()
    assert _problem(driver) == UNREACHABLE


def _shown_rounds(driver) -> list[int]:
    return [int(n) for n in driver.execute_script(
        "return [...document.querySelectorAll('#rounds table')].map((t) => t.dataset.number)")]


def _listed_tables(driver) -> list[str]:
    """The names of the tables listed, in order."""
    from selenium.webdriver.common.by import By

    return [row.find_element(By.TAG_NAME, "a").text for row in driver.find_elements(By.CSS_SELECTOR, "#tables tr")]


def _problem(driver) -> str:
    from selenium.webdriver.common.by import By

    return _wait(driver, lambda d: d.find_element(By.ID, "problem").is_displayed() and d.find_element(By.ID, "problem")).text


def test_tables_page_records_rounds_and_shows_the_ledgers_balances(server, browser) -> None:
    from selenium.webdriver.common.by import By

    url = server[0]
    table = _opened(browser, url)
    for number, plays in enumerate((ROUND, {"bob": ("KS QH JD KC 10D", None, None), "cy": ("2S 3H 5D 7C 9C", None, None), "ann": ROUND["ann"]}), 1):
        _fill(browser, plays)
        browser.find_element(By.ID, "record").click()
        _recorded(browser, number)
    ledger = httpx.get(f"{url}/v1/tables/{table}").json()
    shown = {row.get_attribute("data-name"): row.find_element(By.CLASS_NAME, "balance").text
             for row in browser.find_elements(By.CSS_SELECTOR, "#balances tr")}
    assert shown == {name: str(amount) for name, amount in ledger["balances"].items()}
    assert set(shown) == {"ann", "bob", "cy", "dee", "eve"} and any(amount for amount in ledger["balances"].values())
    assert browser.find_element(By.ID, "banks").text.startswith(f"{ledger['banker']} banks now")
    assert _shown_rounds(browser) == [2, 1]  # newest first
    first = httpx.get(f"{url}/v1/tables/{table}/rounds").json()[0]["settlement"]
    rows = [row.text for row in browser.find_elements(By.CSS_SELECTOR, '#rounds table[data-number="1"] tbody tr')]
    assert rows[1] == f"bob KS QH JD KC QD {first['players'][0]['label']} {first['players'][0]['outcome']} {first['players'][0]['delta']:+}"
    assert [row.split(" (backs")[0] for row in rows[3:]] == ["dee", "eve"]
    # the second round sent bob's stake as typed for the first: stakes stay from round to round
    assert httpx.get(f"{url}/v1/tables/{table}/rounds").json()[1]["settlement"]["players"][0]["stake"] == 10
    assert [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"] == []


def test_tables_page_records_a_double_click_and_a_resend_once(server, browser) -> None:
    """A double click records the round once; a resend after an answer that never came (the network
    dropped it) goes under the same Idempotency-Key, so the round the server stored is not stored again."""
    from selenium.webdriver.common.by import By

    url = server[0]
    table = _opened(browser, url)
    _fill(browser, ROUND)
    browser.execute_script("const record = document.getElementById('record'); record.click(); record.click();")
    _recorded(browser, 1)
    _fill(browser, ROUND)
    _lose_the_next_answer(browser)
    browser.find_element(By.ID, "record").click()
    assert _problem(browser) == UNREACHABLE
    browser.find_element(By.ID, "record").click()
    _recorded(browser, 2)
    assert len(httpx.get(f"{url}/v1/tables/{table}/rounds").json()) == 2
    _fill(browser, ROUND)  # the next round, answered, goes under a new key: recorded, not answered as round 2
    browser.find_element(By.ID, "record").click()
    _recorded(browser, 3)


def test_tables_page_resends_a_round_under_its_key_after_a_reload(server, browser) -> None:
    """A round whose answer was lost, typed again after the page was reloaded, went under a new key (the
    pending one was held in the page's memory only) and was stored twice."""
    from selenium.webdriver.common.by import By

    url = server[0]
    table = _opened(browser, url)
    _sent_and_answer_lost(browser)
    browser.refresh()
    _wait(browser, lambda d: "1 round recorded" in d.find_element(By.ID, "banks").text)  # stored after all
    _fill(browser, ROUND)
    browser.find_element(By.ID, "record").click()
    _wait(browser, lambda d: d.find_element(By.ID, "record").is_enabled() and not d.find_element(By.ID, "problem").text
          and d.find_element(By.CSS_SELECTOR, "#plays .hand").get_attribute("value") == "")
    assert len(httpx.get(f"{url}/v1/tables/{table}/rounds").json()) == 1
    _fill(browser, ROUND)  # answered: the next round goes under a new key
    browser.find_element(By.ID, "record").click()
    _recorded(browser, 2)


def test_tables_page_shows_the_apis_refusal_of_a_bad_hand(server, browser) -> None:
    from selenium.webdriver.common.by import By

    url = server[0]
    table = _opened(browser, url)
    _fill(browser, {**ROUND, "cy": ("AS 2H 7D 5C XX", "2.5", "")})
    browser.find_element(By.ID, "record").click()
    assert _problem(browser) == "cy's hand: unknown card code 'XX' (expected rank A 2-10 J Q K then suit S H D C, e.g. 10H)"
    _fill(browser, {"bob": ("KS QH JD KC QD", "10", "dee")})
    browser.find_element(By.ID, "record").click()
    assert _problem(browser) == 'bob\'s onlookers: write each as a name and a stake, like "dee 5, eve 2" (not "dee")'
    assert httpx.get(f"{url}/v1/tables/{table}").json()["rounds"] == 0


def test_tables_page_shows_older_rounds_a_page_at_a_time(server, browser) -> None:
    from selenium.webdriver.common.by import By

    url = server[0]
    table = httpx.post(f"{url}/v1/tables", json={"name": "long", "rules": "gnau", "seats": ["ann", "bob"], "banker": "ann"}).json()
    for _ in range(13):
        played = {"hands": {"ann": ROUND["ann"][0], "bob": ROUND["bob"][0]}, "stakes": {"bob": 1}}
        assert httpx.post(f"{url}/v1/tables/{table['id']}/rounds", json=played).status_code == 201
    browser.get(url)
    browser.find_element(By.LINK_TEXT, "Tables").click()  # linked from the index
    _wait(browser, lambda d: d.find_elements(By.LINK_TEXT, "long"))[0].click()
    _recorded(browser, 13)
    assert _shown_rounds(browser) == list(range(13, 3, -1))
    browser.find_element(By.ID, "older").click()
    _wait(browser, lambda d: len(_shown_rounds(d)) > 10)
    assert _shown_rounds(browser) == list(range(13, 0, -1))
    assert not browser.find_element(By.ID, "older").is_displayed()


def test_tables_page_shows_more_tables_a_page_at_a_time(server, browser) -> None:
    """The API lists tables a page at a time: the page showed the first 100 and never the rest."""
    from selenium.webdriver.common.by import By

    url = server[0]
    for number in range(101):
        assert httpx.post(f"{url}/v1/tables", json={"name": f"t{number}", "rules": "gnau", "seats": ["ann", "bob"],
                                                    "banker": "ann"}).status_code == 201
    _open(browser, f"{url}/tables")
    _wait(browser, lambda d: d.find_elements(By.LINK_TEXT, "t99"))
    assert _listed_tables(browser) == [f"t{n}" for n in range(100)]
    browser.find_element(By.ID, "more-tables").click()
    _wait(browser, lambda d: d.find_elements(By.LINK_TEXT, "t100"))
    assert _listed_tables(browser) == [f"t{n}" for n in range(101)]
    assert not browser.find_element(By.ID, "more-tables").is_displayed()


def test_tables_page_asks_for_the_api_key_and_sends_it(keyed, browser) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    _open(browser, f"{keyed}/tables")
    assert not browser.find_element(By.ID, "keys").is_displayed()
    browser.find_element(By.ID, "name").send_keys("keyed")
    browser.find_element(By.ID, "seats").send_keys("ann\nbob")
    browser.find_element(By.ID, "create").click()
    assert _problem(browser) == "this endpoint changes the ledger: send the API key in the X-API-Key header"
    assert browser.find_element(By.ID, "keys").is_displayed()
    browser.find_element(By.ID, "key").send_keys("cle")
    browser.find_element(By.ID, "keep").click()
    browser.find_element(By.ID, "create").click()
    _wait(browser, lambda d: d.find_element(By.ID, "problem").text.startswith("the API key sent is not this server's"))
    browser.find_element(By.ID, "key").clear()
    browser.find_element(By.ID, "key").send_keys(KEY)
    browser.find_element(By.ID, "keep").click()
    browser.find_element(By.ID, "create").click()
    _wait(browser, lambda d: d.find_element(By.ID, "table").is_displayed() and "ann banks now" in d.find_element(By.ID, "banks").text)
    browser.refresh()  # the key is kept for the tab
    _wait(browser, lambda d: "ann banks now" in d.find_element(By.ID, "banks").text)
    Select(browser.find_element(By.ID, "new-banker")).select_by_visible_text("bob")
    browser.find_element(By.ID, "save").click()
    _wait(browser, lambda d: "bob banks now" in d.find_element(By.ID, "banks").text)


def test_tables_page_says_a_table_is_not_there_and_shows_no_form(server, browser) -> None:
    from selenium.webdriver.common.by import By

    browser.get(f"{server[0]}/tables#999")
    assert _problem(browser) == "no table 999"
    assert not browser.find_element(By.ID, "table").is_displayed()


def test_tables_page_records_round_after_round_from_the_keyboard(server, browser) -> None:
    """Enter records the round; the first hand's box then has the focus for the next one (it had none)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    _opened(browser, server[0])
    _fill(browser, ROUND)
    browser.find_element(By.CSS_SELECTOR, '#plays tr[data-name="cy"] .hand').send_keys(Keys.ENTER)
    _recorded(browser, 1)
    assert browser.switch_to.active_element == browser.find_element(By.CSS_SELECTOR, '#plays tr[data-name="ann"] .hand')


def test_tables_page_sits_out_a_seat_left_without_a_hand(server, browser) -> None:
    """Stakes stay from round to round, and a seat whose hand was left blank sent its stake anyway: the
    round was refused ('cy: a player needs both a hand and a stake') rather than played without cy."""
    from selenium.webdriver.common.by import By

    url = server[0]
    table = _opened(browser, url)
    _fill(browser, ROUND)
    browser.find_element(By.ID, "record").click()
    _recorded(browser, 1)
    _fill(browser, {"ann": ROUND["ann"], "bob": ROUND["bob"][:1]})
    browser.find_element(By.ID, "record").click()
    _recorded(browser, 2)
    last = httpx.get(f"{url}/v1/tables/{table}/rounds?after=1").json()[0]["settlement"]
    assert [p["name"] for p in last["players"]] == ["bob"] and [o["name"] for o in last["onlookers"]] == ["dee", "eve"]


def test_tables_page_shows_a_round_stored_though_its_answer_was_lost(server, browser) -> None:
    """A round whose answer was lost, stored after all, then changed and sent again went under the same key:
    the API's 409 told a page user to 'send a new key', and the stored round was not shown."""
    from selenium.webdriver.common.by import By

    url = server[0]
    table = _opened(browser, url)
    _sent_and_answer_lost(browser)
    _fill(browser, {"cy": ("2S 3H 5D 7C 9C",)})
    browser.find_element(By.ID, "record").click()
    _wait(browser, lambda d: "recorded after all" in d.find_element(By.ID, "problem").text)
    assert _shown_rounds(browser) == [1]
    browser.find_element(By.ID, "record").click()  # as it stands: the hands typed are kept
    _recorded(browser, 2)
    assert httpx.get(f"{url}/v1/tables/{table}/rounds?after=1").json()[0]["settlement"]["players"][1]["cards"][0] == "2S"


def test_tables_page_says_a_name_of_spaces_is_no_name(server, browser) -> None:
    """The page trimmed "   " to "" and showed the API's "name: String should have at least 1 character"."""
    from selenium.webdriver.common.by import By

    _open(browser, f"{server[0]}/tables")
    box = browser.find_element(By.ID, "name")
    box.send_keys("   ")
    browser.find_element(By.ID, "seats").send_keys("ann\nbob")
    browser.find_element(By.ID, "create").click()
    assert browser.execute_script("return arguments[0].validationMessage", box) == "a name needs more than spaces"
    assert httpx.get(f"{server[0]}/v1/tables").json() == []


def test_tables_page_shows_the_banker_another_client_named_when_its_round_is_refused(server, browser) -> None:
    """Another client (a second dealer's phone) named bob the banker meanwhile: the round typed for ann was refused
    ('ann, bob: a player needs both a hand and a stake') while the page went on saying ann banks, and so did
    every round sent again, until the page was reloaded. A refusal now shows the table as it is, hands kept."""
    from selenium.webdriver.common.by import By

    url = server[0]
    table = _opened(browser, url)
    httpx.patch(f"{url}/v1/tables/{table}", json={"banker": "bob"}).raise_for_status()
    _fill(browser, ROUND)
    browser.find_element(By.ID, "record").click()
    assert _problem(browser).endswith("(the banker stakes nothing). The table changed meanwhile: bob banks now")
    assert browser.find_element(By.ID, "banks").text.startswith("bob banks now")
    assert browser.find_element(By.CSS_SELECTOR, '#plays tr[data-name="ann"] .hand').get_attribute("value") == ROUND["ann"][0]
    _fill(browser, {"ann": (None, "4")})
    browser.find_element(By.ID, "record").click()
    _recorded(browser, 1)
    assert httpx.get(f"{url}/v1/tables/{table}/rounds").json()[0]["banker"] == "bob"


def test_tables_page_fits_a_phone_with_long_names(server, browser) -> None:
    """On a 360 px phone a seat named by an e-mail address, a table's rules as options and the round form's four
    columns ran past the screen's edge, the page scrolling sideways (511 px wide), the boxes for a hand 47 px wide."""
    from selenium.webdriver.common.by import By

    url = server[0]
    seats = ["firstname.lastname@casinotrainingexample.com", "bob", "Mary Ann Josephine Featherstonehaugh"]
    table = httpx.post(f"{url}/v1/tables", json={"name": "fridaynightattheluckydragonhighrollersroom", "seats": seats,
                                                  "rules": {"base": "gnau", "bank_passes": "every_round"}, "banker": "bob"})
    hands = dict(zip(seats, ("10S 9H 8D 4C 4H", "KS QH JD KC QD", "AS 2H 7D 5C 6S")))
    httpx.post(f"{url}/v1/tables/{table.json()['id']}/rounds", json={"hands": hands, "stakes": {seats[0]: "5", seats[2]: "5"}}).raise_for_status()
    _as_a_phone(browser)
    _open(browser, f"{url}/tables")
    _wait(browser, lambda d: _listed_tables(d) == ["fridaynightattheluckydragonhighrollersroom"])
    assert browser.execute_script("return document.documentElement.scrollWidth") == 360
    browser.find_element(By.LINK_TEXT, "fridaynightattheluckydragonhighrollersroom").click()
    _recorded(browser, 1)
    assert browser.execute_script("return document.documentElement.scrollWidth") == 360
    boxes = browser.find_elements(By.CSS_SELECTOR, "#plays input")
    assert len(boxes) == 7 and min(box.size["width"] for box in boxes) > 300  # the banker's hand and each player's three
    heading = browser.execute_script("return getComputedStyle(arguments[0].parentElement, '::before').content", boxes[0])
    assert heading == '"Hand (e.g. 3S 6H 8D 4C 8H or 6-6 4-2 ...)"'  # each box named, as by the column's heading


def test_tables_page_shows_a_refusal_where_the_round_was_recorded_on_a_phone(server, browser) -> None:
    """The refusal was shown at the page's top, on a phone eight seats (2,000 px) above the Record button: pressed, it
    seemed to do nothing. It is shown at the top of the screen, the form still in view."""
    from selenium.webdriver.common.by import By

    url = server[0]
    seats = ["ann", "bob", "cy", "dee", "eve", "fay", "gus", "hal"]
    table = httpx.post(f"{url}/v1/tables", json={"name": "main", "rules": "gnau", "seats": seats, "banker": "ann"})
    _as_a_phone(browser)
    browser.get(f"{url}/tables#{table.json()['id']}")
    _wait(browser, lambda d: d.find_element(By.ID, "plays").text)
    _fill(browser, {"hal": ("AS 2H 7D 5C XX",)})
    browser.find_element(By.ID, "record").click()
    assert _problem(browser).startswith("the banker ann has no hand")
    assert _in_view(browser, "problem") and _in_view(browser, "record")
