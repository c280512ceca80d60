"""The HTTP API through TestClient: engine routes, the ledger, the API key, and errors as data."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path

import anyio
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event

from oxeye.service import ledger, routes_pages, routes_rules
from oxeye.service.app import create_app
from oxeye.service.db import RoundRow, TableRow, _switch_to_wal, dispose, open_database
from oxeye.service.settings import Settings

KEY = {"X-API-Key": "sesame"}
JSON = {"Content-Type": "application/json"}
OXEYE = str(Path(sys.executable).with_name("oxeye"))


@pytest.fixture()
def client(tmp_path) -> TestClient:
    with TestClient(create_app(Settings(data_dir=tmp_path, api_key="sesame"))) as test_client:
        yield test_client


async def _one_worker_thread() -> None:
    """The app's worker threads cut to one, as a burst of slow requests leaves it (40 busy)."""
    anyio.to_thread.current_default_thread_limiter().total_tokens = 1


def test_health_answers_while_every_worker_thread_is_busy(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """/v1/health ran in a worker thread: with 60 trainees drawing drills it waited behind them up to 8.7 s, an
    uptime check's "down". It needs none."""
    started, release = threading.Event(), threading.Event()

    def slow_presets() -> list[str]:
        """No presets, once told to answer: a slow request in the one worker thread."""
        started.set()
        release.wait(10)
        return []

    monkeypatch.setattr(routes_rules, "preset_names", slow_presets)
    client.portal.call(_one_worker_thread)
    with ThreadPoolExecutor(1) as other:
        busy = other.submit(client.get, "/v1/rules")  # holds the one worker thread
        started.wait(10)
        health = client.get("/v1/health")
        answered_meanwhile = not busy.done()
        release.set()
    assert health.status_code == 200 and answered_meanwhile and busy.result().status_code == 200


@pytest.mark.parametrize("path", ["/", "/trainer", "/live", "/upload", "/tables", "/favicon.ico", "/static/oxeye.js"])
def test_the_pages_answer_head_as_get(client: TestClient, path: str) -> None:
    """A link checker's or uptime monitor's HEAD of a page was a 405, the page reported down."""
    head, get = client.head(path), client.get(path)
    assert head.status_code == get.status_code == (204 if path == "/favicon.ico" else 200)  # no icon, said so
    assert head.headers.get("content-type") == get.headers.get("content-type") and head.content == b""


def test_every_get_route_answers_head_as_get(client: TestClient) -> None:
    """HEAD, as a link checker or an uptime monitor sends it, was a 405 on every GET route of the API but health's
    (/v1/rules, a table, /docs, ...), the service reported down; each route taking GET, one added later too,
    answers it as GET: the same status and headers, no body."""
    table = _table(client).json()["id"]
    drill = client.post("/v1/trainer/drills", json={"trainee": "ana"}, headers=KEY).json()["id"]
    filled = {"table_id": table, "drill_id": drill, "name": "gnau", "trainee": "ana"}
    documented = [path for path, methods in client.get("/openapi.json").json()["paths"].items() if "get" in methods]
    undocumented = [route.path for route in [*client.app.routes, *routes_pages.router.routes]
                    if "GET" in (getattr(route, "methods", None) or ())]  # the docs and the pages
    paths = [re.sub(r"\{(\w+)(:\w+)?\}", lambda field: str(filled[field[1]]), path) for path in documented + undocumented]
    assert {"/v1/rules/gnau", f"/v1/tables/{table}/rounds", f"/v1/trainer/drills/{drill}/image.jpg", "/redoc"} <= set(paths)
    for path in paths:
        head, get = client.head(path), client.get(path)
        assert (head.status_code, head.headers, head.content) == (get.status_code, get.headers, b""), path


def test_health_and_docs(client: TestClient) -> None:
    assert client.get("/v1/health").json() == {"status": "ok", "version": "0.1.0", "database": "sqlite"}
    assert client.head("/v1/health").status_code == 200  # was 405, a monitor's "down"
    schema = client.get("/openapi.json").json()
    assert {"/v1/hand", "/v1/settle", "/v1/tables", "/v1/tables/{table_id}/rounds"} <= schema["paths"].keys()
    docs = client.get("/docs").text  # Swagger UI served from here: from a CDN it was a blank page offline
    scripts = re.findall(r"""(?:src|href)=['"]([^'"]+\.(?:js|css))['"]""", docs)
    assert len(scripts) == 2 and all(s.startswith("/") and len(client.get(s).content) > 100_000 for s in scripts)
    redoc = client.get("/redoc")  # its script showed Redocly's logo from their CDN: barred from other origins
    assert re.findall(r"""src=['"]([^'"]+)['"]""", redoc.text) == ["/static-offline-docs/redoc.standalone.js"]
    assert redoc.headers["Content-Security-Policy"] == "default-src 'self' 'unsafe-inline' data: blob:"
    # every error is documented as it is answered, a Problem in JSON: 422 was FastAPI's {"detail"}, a preset's 404 text
    problem = {"application/json": {"schema": {"$ref": "#/components/schemas/Problem"}}}
    errors = {f"{method} {path} {status}": answer.get("content") for path, methods in schema["paths"].items()
              for method, operation in methods.items() for status, answer in operation["responses"].items()
              if status.startswith("4")}
    assert {"post /v1/hand 422", "get /v1/rules/{name} 404", "post /v1/evaluate 422"} <= errors.keys()
    # a body over 1 MB is refused (413) wherever one is sent: the JSON routes left it out
    assert {f"{method} {path}" for path, methods in schema["paths"].items() for method, operation in methods.items()
            if "requestBody" in operation and "413" not in operation["responses"]} == set()
    assert {where: content for where, content in errors.items() if content != problem} == {}


def test_the_schema_names_the_headers_answered(client: TestClient) -> None:
    """A list's Link (its next page) and a kept drawing's X-Kept (the photo's stored name) were answered but not in
    the schema, and /v1/live's 426 was described as a "Successful Response"."""
    paths = client.get("/openapi.json").json()["paths"]
    headers = {f"{path} {header}" for path, method in (("/v1/tables", "get"), ("/v1/tables/{table_id}/rounds", "get"),
                                                       ("/v1/evaluate/annotated.jpg", "post"))
               for header in paths[path][method]["responses"]["200"].get("headers", {})}
    assert headers == {"/v1/tables Link", "/v1/tables/{table_id}/rounds Link", "/v1/evaluate/annotated.jpg X-Kept"}
    assert "WebSocket" in paths["/v1/live"]["get"]["responses"]["426"]["description"]


def test_the_schema_closes_the_photo_forms_to_fields_they_refuse(client: TestClient) -> None:
    """A photo form's schema let any other field be sent, or its text fields be sent empty, where each is refused (422)."""
    schema = client.get("/openapi.json").json()
    for path in ("/v1/evaluate", "/v1/evaluate/annotated.jpg"):
        form = schema["paths"][path]["post"]["requestBody"]["content"]["multipart/form-data"]["schema"]["$ref"]
        fields = schema["components"]["schemas"][form.rsplit("/", 1)[-1]]
        assert fields["additionalProperties"] is False, path
        assert (fields["properties"]["rules"]["minLength"], fields["properties"]["stakes"]["minLength"]) == (1, 1), path
        sent = client.post(path, files={"image": ("t.jpg", b"\xff\xd8")}, data={"stake": "5"})
        assert (sent.status_code, sent.json()["error"][:24]) == (422, "unknown form field: 'sta"), path
        sent = client.post(path, files={"image": ("t.jpg", b"\xff\xd8")}, data={"rules": ""})
        assert (sent.status_code, sent.json()["error"][:31]) == (422, "form field(s) 'rules' sent empt"), path


def test_hand_matches_the_command_line_contract(client: TestClient) -> None:
    out = client.post("/v1/hand", json={"rules": "gnau", "hand": ["3S", "6H", "8D", "4C", "8H"]}).json()
    assert (out["category"], out["value"], out["label"], out["multiplier"]) == ("double_ox", "8", "Double-Ox 8", 3)
    assert out["ox"][1] == {"code": "6H", "as": 3}
    assert [a["label"] for a in out["alternatives"]] == ["Double-Ox 8", "Single-Ox 9", "Single-Ox 2"]
    printed = subprocess.run([OXEYE, "hand", "--rules", "gnau", "3S", "6H", "8D", "4C", "8H", "--json"],
                             capture_output=True, text=True, check=True).stdout
    assert json.dumps(out) == json.dumps(json.loads(printed))  # key for key, in the same order
    inline = client.post("/v1/hand", json={"rules": {"base": "gnau", "ten_is_duke": True}, "hand": "10S JH QD KC 10D"})
    assert inline.json()["category"] == "five_dukes"


def test_presets(client: TestClient) -> None:
    assert "tau-ngau-macau" in client.get("/v1/rules").json()
    assert 'name = "niuniu"' in client.get("/v1/rules/niuniu").text
    assert client.get("/v1/rules/nope").status_code == 404


def test_settle(client: TestClient) -> None:
    body = {"rules": "gnau", "banker": {"name": "Bea", "hand": "10S 9H 8D 4C 4H"},
            "players": [{"name": "Ann", "hand": "KS QH JD KC QD", "stake": 10,
                         "onlookers": [{"name": "Dee", "stake": 1}]}]}
    out = client.post("/v1/settle", json=body).json()
    assert out["players"][0]["delta"] == 70 and out["onlookers"][0]["delta"] == 7
    assert out["banker_delta"] == -77 and out["next_banker"] == "Bea"
    inline = client.post("/v1/settle", json={**body, "rules": {"base": "gnau", "commission": 0.1}}).json()
    assert (inline["rules"], inline["house"]) == ("gnau with commission", 7.7)  # it was "gnau", as if no commission


def _exactly(data: object) -> str:
    """JSON as written, whatever the order of keys: 70 and 70.0 differ, as a missing and a null field do."""
    return json.dumps(data, sort_keys=True)


@pytest.mark.parametrize("rules", ["gnau", "tau-ngau-macau", {"base": "gnau", "commission": 0.05}])
def test_settle_and_rounds_answer_as_the_command_line_prints(client: TestClient, rules: object) -> None:
    cards = rules != "tau-ngau-macau"
    body = {"rules": rules, "banker": {"name": "Bea", "hand": "10S 9H 8D 4C 4H" if cards else "6-6 4-4 3-1 2-2 1-1"},
            "players": [{"name": "Ann", "hand": "KS QH JD KC QD" if cards else "6-5 4-1 5-5 3-3 2-1", "stake": 10.5,
                         "onlookers": [{"name": "Dee", "stake": 1}]}]}
    printed = subprocess.run([OXEYE, "settle", "--json"], input=json.dumps(body), capture_output=True, text=True,
                             timeout=60, check=True).stdout
    assert _exactly(client.post("/v1/settle", json=body).json()) == _exactly(json.loads(printed))  # was 10.0 and nulls
    table = client.post("/v1/tables", json={"name": "t", "rules": rules, "seats": ["Bea", "Ann"], "banker": "Bea"},
                        headers=KEY).json()
    played = {"hands": {"Bea": body["banker"]["hand"], "Ann": body["players"][0]["hand"]}, "stakes": {"Ann": 10.5},
              "onlookers": {"Ann": [{"name": "Dee", "stake": 1}]}}
    recorded = client.post(f"/v1/tables/{table['id']}/rounds", json=played, headers=KEY).json()["settlement"]
    listed = client.get(f"/v1/tables/{table['id']}/rounds").json()[0]["settlement"]
    assert _exactly(recorded) == _exactly(listed) == _exactly(json.loads(printed))


def test_a_tables_inline_rules_are_kept_and_settled_digit_for_digit(client: TestClient) -> None:
    """A table's rules were read as floats: a commission of 0.0099999999999999999 was stored, shown and
    settled as 0.01 (a cent more taken from a win of 7), where /v1/settle reads it digit for digit."""
    rules = '{"base": "gnau", "commission": 0.0099999999999999999}'
    opened = client.post("/v1/tables", headers={**KEY, **JSON}, content='{"name": "t", "rules": %s, '
                         '"seats": ["ann", "bo"], "banker": "ann"}' % rules)
    assert opened.status_code == 201 and '"rules":{"base":"gnau","commission":0.0099999999999999999}' in opened.text
    played = {"hands": {"ann": "10S 9H 8D 4C 4H", "bo": "KS QH JD KC QD"}, "stakes": {"bo": 1}}  # Five Dukes: 7
    recorded = client.post(f"/v1/tables/{opened.json()['id']}/rounds", json=played, headers=KEY).json()["settlement"]
    settled = client.post("/v1/settle", headers=JSON, content='{"rules": %s, "banker": {"name": "ann", "hand": '
                          '"10S 9H 8D 4C 4H"}, "players": [{"name": "bo", "hand": "KS QH JD KC QD", "stake": 1}]}' % rules)
    assert recorded == settled.json() and (recorded["house"], recorded["players"][0]["delta"]) == (0.06, 6.94)
    for listed in (client.get(f"/v1/tables/{opened.json()['id']}").text, client.get("/v1/tables").text):
        assert '"commission":0.0099999999999999999' in listed
    usual = _table(client, name="usual", rules={"base": "gnau", "commission": 0.05}).text
    assert '"rules":{"base":"gnau","commission":0.05}' in usual  # a number still, not the text "0.05"


@pytest.mark.parametrize(("path", "body", "status", "message"), [
    ("/v1/hand", {"rules": "gnau", "hand": "AS 2S 3S 4S"}, 400, "a hand has 5 items, got 4"),
    ("/v1/hand", {"rules": "gnau", "hand": "AS 2S 3S 4S ZZ"}, 400, "unknown card code 'ZZ'"),
    ("/v1/hand", {"rules": "nope", "hand": "AS 2S 3S 4S 5S"}, 400, "unknown rules preset 'nope'"),
    ("/v1/hand", {"rules": "/etc/passwd", "hand": "AS 2S 3S 4S 5S"}, 400, "unknown rules preset"),
    ("/v1/hand", {"rules": {"base": "gnau", "decks": "two"}, "hand": "AS 2S 3S 4S 5S"}, 400, "option 'decks'"),
    ("/v1/hand", {"rules": "gnau"}, 422, "hand: Field required"),
    # each named the union's first member alone, as if a table of rules or a string of codes could not be sent
    ("/v1/hand", {"rules": 3, "hand": "AS 2S 3S 4S 5S"}, 422,
     "rules: should be a preset's name or a table of options with an optional 'base'"),
    ("/v1/hand", {"rules": "gnau", "hand": 5}, 422, "hand: should be five codes: a list of strings, or one string split on spaces"),
    ("/v1/hand", {"rules": "gnau", "hand": ["AS", 2]}, 422, "hand: should be five codes: a list of strings"),
    ("/v1/settle", {"rules": "gnau", "banker": {"name": "B", "hand": "KS QS JS 10S 9S"},
                    "players": [{"name": "P", "hand": "AS KH QH 2D 8C", "stake": "ten"}]}, 422, "players.0.stake"),
    ("/v1/settle", {"rules": "gnau", "banker": {"name": "B", "hand": "KS QS JS 10S 9S"},
                    "players": [{"name": "P", "hand": "AS KH QH 2D 8C", "stake": 0}]}, 422, "greater than 0"),
    ("/v1/settle", {"rules": {"base": "gnau", "multipliers": {"five_dukes": 2.5}}, "banker": {"name": "B", "hand":
                    "KS QS JS 10S 9S"}, "players": [{"name": "P", "hand": "AS KH QH 2D 8C", "stake": 1}]}, 400,
     "option 'multipliers' must be a table of names to whole numbers, not {'five_dukes': 2.5}"),  # Decimal('2.5')
    ("/v1/settle", {"rules": "gnau", "banker": {"name": "B", "hand": "KS QS JS 10S 9S"}, "players": []},
     422, "players"),
    ("/v1/settle", {"rules": "gnau", "banker": {"name": "B", "hand": "KS QS JS 10S 9S"},
                    "players": [{"name": "P", "hand": "AS KH QH 2D 8C", "stake": 1e308}]}, 400, "too large"),
    ("/v1/settle", {"rules": "gnau", "banker": {"name": "B", "hand": "KS QS JS 10S 9S"},  # once settled without Dee
                    "players": [{"name": "P", "hand": "AS KH QH 2D 8C", "stake": 1, "onlooker": [{"name": "Dee", "stake": 5}]}]},
     422, "players.0.onlooker: Extra inputs are not permitted"),
])
def test_bad_input_is_a_4xx_with_a_message(client: TestClient, path: str, body: dict, status: int, message: str) -> None:
    response = client.post(path, json=body)
    assert response.status_code == status
    assert message in response.json()["error"]
    assert client.get("/v1/health").status_code == 200


AMOUNT_FORMS = ["1_000", " 5 ", "5\n", "NaN", "sNaN", "Infinity", "1e3", "+5", ".5", "5.", "1,5", "0x10", "１２", "٣"]


@pytest.mark.parametrize("text", AMOUNT_FORMS)
def test_a_stake_s_text_is_digits_and_a_point(client: TestClient, text: str) -> None:
    """Decimal() read a stake's text in forms no one writes a sum in, some as another sum: "1_000" as 1000, "1e3"
    as 1000, full-width "１２" as 12, Arabic-Indic "٣" as 3. A round's, a table round's and an onlooker's alike."""
    refused = f"{text!r} is not an amount: write it in digits, a point before any fraction, like 10, 2.5 or -10"
    player = {"name": "P", "hand": "AS KH QH 2D 8C", "stake": text}
    body = {"rules": "gnau", "banker": {"name": "B", "hand": "KS QS JS 10S 9S"}, "players": [player]}
    response = client.post("/v1/settle", json=body)
    assert (response.status_code, response.json()["error"]) == (422, f"players.0.stake: {refused}")
    player.update(stake=1, onlookers=[{"name": "Dee", "stake": text}])
    response = client.post("/v1/settle", json=body)
    assert (response.status_code, response.json()["error"]) == (422, f"players.0.onlookers.0.stake: {refused}")
    table = _table(client).json()["id"]
    response = client.post(f"/v1/tables/{table}/rounds", json={**ROUND, "stakes": {"bo": text, "cy": 5}}, headers=KEY)
    assert (response.status_code, response.json()["error"]) == (422, f"stakes.bo: {refused}")
    assert client.get(f"/v1/tables/{table}").json()["rounds"] == 0


def test_a_stake_is_a_json_number_or_its_text(client: TestClient) -> None:
    """A JSON number is read as JSON writes it, its exponent too; its text in digits and a point, as the schema
    says (it took any string)."""
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    text = {"type": "string", "pattern": r"^-?[0-9]+(\.[0-9]+)?$"}
    for model, field, number in (("PlayerIn", "stake", {"type": "number", "exclusiveMinimum": 0}),
                                 ("OnlookerIn", "stake", {"type": "number", "exclusiveMinimum": 0}),
                                 ("AnswerIn", "payout", {"type": "number"})):
        assert schemas[model]["properties"][field]["anyOf"] == [number, text], model
    body = '{"rules": "gnau", "banker": {"name": "B", "hand": "10S 9H 8D 4C 4H"}, "players": [{"name": "P", ' \
           '"hand": "KS QH JD KC QD", "stake": STAKE}]}'
    for stake, delta in (("1e1", 70), ("2.5E+1", 175), ('"10"', 70), ('"0.50"', 3.5), ('"007"', 49)):
        response = client.post("/v1/settle", content=body.replace("STAKE", stake), headers=JSON)
        assert (response.status_code, response.json()["players"][0]["delta"]) == (200, delta), stake
    response = client.post("/v1/settle", content=body.replace("STAKE", "9e999999"), headers=JSON)  # overflowed: a 500
    assert (response.status_code, response.json()["error"]) == (400, "P's stake of 9e+999999 is too large to settle "
                                                                      "to the cent (under 1e13): stake less")


@pytest.mark.parametrize(("body", "headers", "message"), [
    ('{"rules": "gnau"', JSON, "the body is not valid JSON: Expecting ',' delimiter at character 16"),
    ('{"rules": ' + "[" * 100_000, JSON, "the body is not valid JSON: nested too deeply"),  # 'error parsing the body'
    ('{"rules": 1' + "0" * 4300 + "}", JSON, "the body is not valid JSON: a whole number has more than 4300 digits"),  # alike
    # no JSON, which Python's reader took: 'option 'commission' must be a number, not nan'
    ('{"rules": {"base": "gnau", "commission": NaN}, "hand": "AS 2S 3S 4S 5S"}', JSON,
     "the body is not valid JSON: NaN is not a JSON number"),
    ('{"rules": {"base": "gnau", "decks": -Infinity}, "hand": "AS 2S 3S 4S 5S"}', JSON,
     "the body is not valid JSON: -Infinity is not a JSON number"),
    ("", JSON, "the body must be a JSON object sent as Content-Type: application/json (Field required)"),
    ("[]", JSON, "the body must be a JSON object sent as Content-Type: application/json"),
    ('{"rules": "gnau", "hand": "AS 2S 3S 4S 5S"}', {}, "the body must be a JSON object sent as"),  # curl -d's form
])
def test_a_body_that_is_no_json_object_is_told_so(client: TestClient, body: str, headers: dict, message: str) -> None:
    """Each began with the field's empty name: ': JSON decode error', ': Input should be a valid dictionary'."""
    response = client.post("/v1/hand", content=body, headers=headers)
    assert response.status_code == 422 and response.json()["error"].startswith(message), response.json()


@pytest.mark.parametrize(("path", "body", "key"), [
    ("/v1/hand", '{"rules": "gnau", "hand": "AS 2S 3S 4S 5S", "rules": "niuniu"}', "rules"),
    ("/v1/settle", '{"rules": "gnau", "banker": {"name": "a", "hand": "10S 9H 8D 4C 4H"}, "players": [{"name": "b", '
                   '"hand": "KS QH JD KC QD", "stake": 1, "stake": 100}]}', "stake"),
    ("/v1/tables", '{"name": "t", "seats": ["a", "b"], "banker": "a", "rules": "gnau", "rules": "niuniu"}', "rules"),
    ("/v1/trainer/drills", '{"trainee": "mei", "trainee": "kai"}', "trainee"),
])
def test_a_key_given_twice_is_refused_not_read_as_the_last(client: TestClient, path: str, body: str, key: str) -> None:
    """Each took the last of the two: a table opened under niuniu where gnau was sent first, a stake of 100 settled."""
    response = client.post(path, headers={**KEY, **JSON}, content=body)
    assert response.status_code == 422
    assert response.json() == {"error": f"the body is not valid JSON: the key {key!r} is given twice in one object"}
    assert client.get("/v1/tables").json() == [] and client.get("/v1/trainer/trainees/kai").json()["drills"] == 0


@pytest.mark.parametrize("path", ["/v1/hand", "/v1/settle", "/v1/tables", "/v1/trainer/drills"])
def test_rules_holding_no_unicode_text_are_refused_not_a_500(client: TestClient, path: str) -> None:
    """A lone surrogate, which JSON may escape (\\ud800), in a rule's name or label could not be written out as
    UTF-8: every endpoint taking rules failed with a 500 (a table's at storing them)."""
    body = {"/v1/hand": '"hand": "KS QH JD KC QD"', "/v1/trainer/drills": '"trainee": "mei"',
            "/v1/settle": '"banker": {"name": "a", "hand": "10S 9H 8D 4C 4H"}, "players": [{"name": "b", "hand": '
                          '"KS QH JD KC QD", "stake": 1}]',
            "/v1/tables": '"name": "t", "seats": ["a", "b"], "banker": "a"'}[path]
    response = client.post(path, headers={**KEY, **JSON},
                           content='{"rules": {"base": "gnau", "labels": {"five_dukes": "five\\ud800"}}, %s}' % body)
    assert response.json() == {"error": "the rules hold a character that is no Unicode text (a lone surrogate)"}
    assert response.status_code == 400
    assert client.get("/v1/tables").json() == []


def test_ids_past_the_database_and_unknown_paths_are_errors_as_data(client: TestClient) -> None:
    for path in ("/v1/tables/99999999999999999999999", "/v1/tables/0/rounds", "/v1/trainer/drills/-1/image.jpg"):
        response = client.get(path)  # the first was a 500: SQLite's integers end at 2**63 - 1
        assert response.status_code == 422 and "path." in response.json()["error"], (path, response.text)
    assert client.get(f"/v1/tables/{2**63 - 1}").json() == {"error": f"no table {2**63 - 1}"}
    assert (client.get("/v1/nothing-here").status_code, client.get("/v1/nothing-here").json()) == (404, {"error": "Not Found"})
    assert client.delete("/v1/tables").json() == {"error": "Method Not Allowed"}


@pytest.mark.parametrize(("path", "field", "text"), [
    ("/v1/tables/1_0", "path.table_id", "1_0"), ("/v1/tables/+10", "path.table_id", "+10"),
    ("/v1/tables/%2010", "path.table_id", " 10"), ("/v1/tables/1_0/rounds", "path.table_id", "1_0"),
    ("/v1/tables?limit=1_0", "query.limit", "1_0"), ("/v1/tables?after=%2B9", "query.after", "+9"),
    ("/v1/tables/1/rounds?after=0_0", "query.after", "0_0"), ("/v1/trainer/drills/%EF%BC%91/image.jpg", "path.drill_id", "１"),
])
def test_a_whole_number_in_a_url_is_digits(client: TestClient, path: str, field: str, text: str) -> None:
    """An id or a page sent as "1_0" was read as 10, "+10" and " 10" as 10: GET /v1/tables/1_0 answered table 10."""
    for _ in range(10):
        _table(client)
    response = client.get(path)
    assert (response.status_code, response.json()["error"]) == (
        422, f"{field}: should be a whole number in digits, like 3, not '{text}'")


def test_a_method_not_allowed_names_every_method_the_path_takes(client: TestClient) -> None:
    """A 405's Allow named only the first route's method: POST for /v1/tables, which is listed with GET."""
    for path, methods in (("/v1/tables", "GET, HEAD, POST"), ("/v1/tables/1", "GET, HEAD, PATCH"),
                          ("/v1/health", "GET, HEAD"), ("/v1/tables/1/rounds", "GET, HEAD, POST"), ("/v1/evaluate", "POST")):
        response = client.put(path)
        assert (response.status_code, response.headers["Allow"]) == (405, methods), path


def test_a_fault_of_the_service_is_an_error_as_data_too(tmp_path) -> None:
    """A ledger whose table has gone (a fault, not the request's): a 500 in JSON, no traceback sent."""
    app = create_app(Settings(data_dir=tmp_path))
    with TestClient(app, raise_server_exceptions=False) as client:
        sqlite3.connect(tmp_path / "oxeye.sqlite3").executescript("DROP TABLE seats; DROP TABLE rounds; DROP TABLE tables")
        response = client.get("/v1/tables")
    assert response.status_code == 500
    assert response.json() == {"error": "the service failed on this request; its log says why"}


def _table(client: TestClient, **changes) -> dict:
    body = {"name": "table one", "rules": "tau-ngau-pagat", "seats": ["ann", "bo", "cy"], "banker": "ann", **changes}
    return client.post("/v1/tables", json=body, headers=KEY)


ROUND = {"hands": {"ann": "6-6 4-4 3-1 2-2 1-1", "bo": "6-5 4-1 5-5 3-3 2-2", "cy": "6-3 5-4 4-3 3-2 6-2"},
         "stakes": {"bo": 10, "cy": 5}}


def test_the_schema_documents_the_names_and_keys_it_refuses(client: TestClient) -> None:
    """The schema said a name or an Idempotency-Key was any string: a client checking a request against it sent a
    control character in a name, or an empty key, and was refused (422) a request the schema called valid."""
    schema = client.get("/openapi.json").json()
    name = schema["components"]["schemas"]["TableIn"]["properties"]["name"]["pattern"]
    key = next(p["schema"]["pattern"] for p in schema["paths"]["/v1/tables/{table_id}/rounds"]["post"]["parameters"]
               if p["name"] == "Idempotency-Key")
    table_id = _table(client).json()["id"]
    for pattern, refused, taken in ((name, "ann\x85", "Zoë 2"), (name, "a\tb", "a b"), (name, "Jos\ufffd", "José"), (key, "", "round 7"),
                                    (key, "k" * 256, "~" * 255)):
        assert (re.search(pattern, refused), bool(re.search(pattern, taken))) == (None, True), (pattern, refused)
    assert _table(client, name="ann\x85").status_code == 422
    sent = client.post(f"/v1/tables/{table_id}/rounds", json=ROUND, headers={**KEY, "Idempotency-Key": "k" * 256})
    assert sent.status_code == 422


def test_the_schema_names_the_presets_a_body_s_rules_may_name(client: TestClient) -> None:
    """A body's rules were documented as any string, where one that names no preset is refused (400)."""
    schema = client.get("/openapi.json").json()["components"]["schemas"]
    for body in ("HandRequest", "SettleRequest", "TableIn", "DrillIn"):
        named = next(s["enum"] for s in schema[body]["properties"]["rules"]["anyOf"] if s["type"] == "string")
        assert named == list(client.get("/v1/rules").json()), body
    assert client.post("/v1/hand", json={"rules": "", "hand": "3S 6H 8D 4C 8H"}).status_code == 400


def test_ledger_rounds_balances_and_the_bank_passing(client: TestClient) -> None:
    table = _table(client).json()
    assert (table["banker"], table["balances"]) == ("ann", {"ann": 0, "bo": 0, "cy": 0})
    first = client.post(f"/v1/tables/{table['id']}/rounds", json=ROUND, headers=KEY)
    assert first.status_code == 201
    assert first.json()["settlement"]["banker"]["label"] == "Bull 0"  # Pagat: zero is zero, still a bull
    after = client.get(f"/v1/tables/{table['id']}").json()
    assert after["banker"] == "bo"  # the banker made a bull: the bank passes to the right
    assert after["balances"] == {"ann": -15, "bo": 10, "cy": 5}
    assert {type(v) for v in after["balances"].values()} == {int}  # as the settlement writes them, not -15.0
    second = {"hands": {"bo": "6-6 1-1 4-4 3-1 6-1", "cy": "6-5 4-1 5-5 3-3 2-2", "ann": "6-3 5-4 4-3 3-2 6-2"},
              "stakes": {"cy": 2, "ann": 2}, "onlookers": {"cy": [{"name": "dee", "stake": 1}]}}
    assert client.post(f"/v1/tables/{table['id']}/rounds", json=second, headers=KEY).status_code == 201
    after = client.get(f"/v1/tables/{table['id']}").json()
    assert after["banker"] == "bo"  # stuck: he banks again
    assert after["balances"] == {"ann": -13, "bo": 5, "cy": 7, "dee": 1}  # a stuck banker pays every bull
    listed = client.get(f"/v1/tables/{table['id']}/rounds").json()
    assert [r["number"] for r in listed] == [1, 2]
    # in UTC, as it was answered: read back from SQLite it once had no zone and read as local time
    assert listed[0]["created"] == first.json()["created"] and listed[0]["created"].endswith("Z")


def test_balances_are_amounts_as_a_round_writes_them_and_refuse_to_outgrow_the_cent(client: TestClient) -> None:
    """Balances were floats: 0.0 and -21.0 where a round writes 0 and -21; and a balance summed over rounds
    each under 10^13 grew past what a reader's float holds to the cent (13 such rounds lost one)."""
    table = _table(client, rules="gnau", seats=["ann", "bo"]).json()
    assert '"balances":{"ann":0,"bo":0}' in client.get(f"/v1/tables/{table['id']}").text
    rich = {"hands": {"ann": "10S 9H 8D 4C 4H", "bo": "KS QH JD KC QD"}, "stakes": {"bo": "999999999999.99"}}
    assert client.post(f"/v1/tables/{table['id']}/rounds", json=rich, headers=KEY).status_code == 201  # Five Dukes: 7x
    assert '"balances":{"ann":-6999999999999.93,"bo":6999999999999.93}' in client.get(f"/v1/tables/{table['id']}").text
    again = client.post(f"/v1/tables/{table['id']}/rounds", json=rich, headers=KEY)
    assert (again.status_code, again.json()) == (400, {"error": "this round would bring ann's balance to "
                                                       "-13,999,999,999,999.86, too large to keep to the cent (under 1e13)"})
    assert client.get(f"/v1/tables/{table['id']}").json()["rounds"] == 1
    with client.app.state.sessions() as db:  # a balance past it, as stored before balances were held under it
        for row, moved in zip(db.get(TableRow, table["id"]).totals, ("-1e13", "1e13")):
            row.amount = str(Decimal(row.amount) + Decimal(moved))
        db.commit()
    assert client.get(f"/v1/tables/{table['id']}").json()["balances"] == {"ann": -16999999999999.93,
                                                                          "bo": 16999999999999.93}


@pytest.mark.parametrize(("change", "status", "message"), [
    ({"banker": "zed"}, 400, "has no seat"),
    ({"seats": ["ann", "ann"]}, 400, "distinct"),
    ({"rules": "nope"}, 400, "unknown rules preset"),
    ({"seats": ["ann"]}, 422, "seats"),
    ({"seats": ["ann", "  "]}, 422, "seats.1: a name needs more than spaces"),  # once opened, never to play
    ({"seats": ["ann", "\u200b"]}, 422, "seats.1: a name needs a character one can see"),  # a seat shown blank
    ({"seats": ["ann", "bo\x00"]}, 422, "seats.1: a name cannot hold a control character"),
    ({"banker": "ann\ncy"}, 422, "banker: a name cannot hold a control character"),
    ({"seats": ["ann", "Jos\ufffd"]}, 422, "seats.1: a name cannot hold U+FFFD"),  # "José" read as Latin-1 somewhere
])
def test_bad_tables(client: TestClient, change: dict, status: int, message: str) -> None:
    response = _table(client, **change)
    assert response.status_code == status and message in response.json()["error"]
    assert client.get("/v1/tables").json() == []


def test_a_name_written_either_way_unicode_allows_is_one_name(client: TestClient) -> None:
    """"Zoë" typed as one character (U+00EB) and as "e" and a combining diaeresis, as some keyboards and pastes send
    it, opened two seats that look the same, and a round naming one way had no seat for a table opened the other."""
    composed, decomposed = "Zo\u00eb", "Zoe\u0308"
    assert _table(client, seats=[composed, decomposed, "bo"], banker="bo").status_code == 400  # one name twice
    table = _table(client, seats=["bo", decomposed, "cy"], banker="bo").json()
    assert (table["seats"], table["balances"]) == (["bo", composed, "cy"], {"bo": 0, composed: 0, "cy": 0})
    hands = {"bo": ROUND["hands"]["ann"], composed: ROUND["hands"]["bo"], "cy": ROUND["hands"]["cy"]}
    played = client.post(f"/v1/tables/{table['id']}/rounds", headers=KEY,
                         json={"hands": hands, "stakes": {decomposed: 10, "cy": 5}})
    assert played.status_code == 201, played.text
    won = {player["name"]: player["delta"] for player in played.json()["settlement"]["players"]}
    assert client.get(f"/v1/tables/{table['id']}").json()["balances"] == {"bo": -won[composed] - won["cy"], **won}
    twice = client.post(f"/v1/tables/{table['id']}/rounds", headers=KEY,
                        json={"hands": hands, "stakes": {decomposed: 10, composed: 10, "cy": 5}})
    assert twice.status_code == 422 and f"stakes: {composed!r} named more than once" in twice.json()["error"]


def test_a_name_is_kept_without_what_no_one_sees_around_it(client: TestClient) -> None:
    """" ana", "ana\u00a0" (a no-break space, as a paste leaves it) and "ana\u200b" opened seats apart from "ana"
    that look the same, and a round naming "ana" found no seat for the one typed with the space."""
    table = _table(client, name="table one\u00a0", seats=[" ann", "bo\u00a0", "\ufeffcy\u200b"], banker="ann ").json()
    assert (table["name"], table["seats"], table["banker"]) == ("table one", ["ann", "bo", "cy"], "ann")
    assert _table(client).status_code == 409  # "table one" is taken
    # said whom, where two names that look alike were told only 'every seat needs a distinct name'
    twice = _table(client, name="two", seats=["ann", "bo", "ann\u3000"]).json()["error"]
    assert twice == "'ann' is named at more than one seat (written alike, or apart only by spaces or Unicode's " \
                    "forms): every seat needs a distinct name"
    # within a name, as between the words: "Mary  Ann" or "Mary\u00a0Ann" opened a seat apart from "Mary Ann"
    assert _table(client, name="three", seats=["Mary Ann", "Mary\u00a0 Ann"], banker="Mary Ann").status_code == 400
    played = client.post(f"/v1/tables/{table['id']}/rounds", headers=KEY,
                         json={**ROUND, "onlookers": {"bo ": [{"name": " dee\u2060", "stake": 1}]}})
    assert played.status_code == 201, played.text
    assert list(client.get(f"/v1/tables/{table['id']}").json()["balances"]) == ["ann", "bo", "cy", "dee"]



def test_a_names_length_is_that_of_the_name_kept(client: TestClient) -> None:
    """A name's 100 characters were counted as sent: 100 letters with the space a phone's keyboard leaves after them,
    or two spaces between their words, were refused as 'at most 100 characters', though kept they are 100."""
    long, words = "a" * 100, "b" * 50 + "  " + "c" * 49
    table = _table(client, name=long + " ", seats=[f"\u200b{long}", words, "cy"], banker=long + "\u00a0")
    assert table.status_code == 201, table.text
    assert (table.json()["name"], table.json()["seats"]) == (long, [long, words.replace("  ", " "), "cy"])
    too_long = _table(client, name="x" * 101 + " ")
    assert (too_long.status_code, too_long.json()["error"]) == (422, "name: String should have at most 100 characters")

def test_a_name_showing_its_letters_reordered_is_refused_and_isolates_around_it_dropped(client: TestClient) -> None:
    """An override within a name ("a\u202enn") shows its letters in another order than they are kept: a seat looking
    like another, kept apart; around a name, the isolates a chat app's copy wraps it in opened a seat apart."""
    schema = client.get("/openapi.json").json()
    pattern = schema["components"]["schemas"]["TableIn"]["properties"]["name"]["pattern"]
    for inside in ("a\u202enn", "a\u2066nn\u2069x", "\u202bann\u202c bo"):
        refused = _table(client, seats=["ann", inside, "cy"])
        assert refused.status_code == 422 and "direction override" in refused.json()["error"], inside
        assert re.search(pattern, inside) is None, inside
    table = _table(client, name="\u2068one\u2069", seats=["\u2068ann\u2069", "\u202ebo", "cy"], banker="ann").json()
    assert (table["name"], table["seats"]) == ("one", ["ann", "bo", "cy"])
    assert re.search(pattern, "\u2068ann\u2069")
    assert [kept["name"] for kept in client.get("/v1/tables").json()] == ["one"]  # none of those refused


def test_names_an_older_version_kept_as_typed_are_still_the_people_a_request_names(client: TestClient) -> None:
    """A table kept by a version that kept names as typed (" ann", "bo" with a no-break space, "Zoë" decomposed):
    once names were read in their normal form, a round naming them found no seat ('no seat at this table for
    ann'), and seats sent again opened new ones, each balance split between two people who look the same."""
    table_id = _table(client, seats=["ann", "bo", "Zo\u00eb"]).json()["id"]
    kept = {"ann": " ann", "bo": "bo\u00a0", "Zo\u00eb": "Zoe\u0308"}
    with client.app.state.sessions() as db:
        table = db.get(TableRow, table_id)
        for row in [*table.seats, *table.totals]:
            row.name = kept[row.name]
        table.banker = kept[table.banker]
        db.commit()
    hands = {"ann": ROUND["hands"]["ann"], "bo": ROUND["hands"]["bo"], "Zo\u00eb": ROUND["hands"]["cy"]}
    played = client.post(f"/v1/tables/{table_id}/rounds", headers=KEY,
                         json={"hands": hands, "stakes": {"bo": 10, "Zo\u00eb": 5}, "onlookers": {"bo": [{"name": "dee",
                                                                                                           "stake": 1}]}})
    assert played.status_code == 201, played.text
    won = {player["name"]: player["delta"] for player in played.json()["settlement"]["players"]}
    assert set(won) == {"bo\u00a0", "Zoe\u0308"}
    changed = client.patch(f"/v1/tables/{table_id}", headers=KEY, json={"seats": ["Zo\u00eb", "ann", "bo"], "banker": "bo"})
    assert changed.status_code == 200, changed.text
    table = changed.json()
    assert (table["seats"], table["banker"]) == (["Zoe\u0308", " ann", "bo\u00a0"], "bo\u00a0")
    assert list(table["balances"]) == ["Zoe\u0308", " ann", "bo\u00a0", "dee"]  # no one's balance split in two
    with client.app.state.sessions() as db:
        db.get(TableRow, table_id).name = "table one\u00a0"
        db.commit()
    alike = _table(client, name="table one")  # a second table that looks like the first was opened
    assert alike.status_code == 409 and "which is 'table one' written another way" in alike.json()["error"]
    assert [kept["name"] for kept in client.get("/v1/tables").json()] == ["table one\u00a0"]


def test_bad_rounds_record_nothing(client: TestClient) -> None:
    table_id = _table(client).json()["id"]
    assert _table(client).status_code == 409
    bad = [
        ({**ROUND, "hands": {**ROUND["hands"], "zed": "6-6 6-6 5-5 5-5 6-5"}}, 400, "no seat at this table for zed"),
        ({**ROUND, "stakes": {"bo": 10}}, 400, "cy: a player needs both a hand and a stake"),
        ({**ROUND, "stakes": {"bo": 10, "cy": -5}}, 422, "greater than 0"),
        ({**ROUND, "hands": {**ROUND["hands"], "cy": "6-5 4-1 5-5 3-3 2-2"}}, 400, "2-2 appears 3 times"),
        ({"hands": {"bo": ROUND["hands"]["bo"]}, "stakes": {"bo": 1}}, 400,
         "the banker ann has no hand: a round holds the banker's hand too"),
        ({**ROUND, "stakes": {"bo": 1e308, "cy": 5}}, 400, "too large to settle to the cent"),  # once kept, as inf
        ({**ROUND, "onlooker": {"cy": [{"name": "dee", "stake": 1}]}}, 422, "onlooker: Extra inputs are not permitted"),
        # it was 'onlookers back ann, who does not play this round', of the banker
        ({**ROUND, "onlookers": {"ann": [{"name": "dee", "stake": 1}]}}, 400,
         "onlookers back ann, who banks: an onlooker backs a player, and wins or loses with that player's hand"),
    ]
    for body, status, message in bad:
        response = client.post(f"/v1/tables/{table_id}/rounds", json=body, headers=KEY)
        assert response.status_code == status and message in response.json()["error"], response.json()
    assert client.post("/v1/tables/99/rounds", json=ROUND, headers=KEY).status_code == 404
    table = client.get(f"/v1/tables/{table_id}").json()
    assert table["rounds"] == 0 and table["banker"] == "ann"
    assert client.get(f"/v1/tables/{table_id}/rounds").json() == []


@pytest.mark.parametrize("stake", ["0.30000000000000001", "1e-7", "2.005"])
def test_a_stake_finer_than_a_cent_is_refused_not_rounded(client: TestClient, stake: str) -> None:
    """JSON numbers were read as floats: a stake of 0.30000000000000001 was settled, and recorded, as 0.3. They
    are read digit for digit, and a stake finer than the cent the amounts are kept to is refused."""
    refused = {"error": f"bo's stake of {Decimal(stake)} is finer than a cent: a stake has at most two decimal places"}
    player = {"name": "bo", "hand": ROUND["hands"]["bo"], "stake": "STAKE"}
    settle = {"rules": "tau-ngau-pagat", "banker": {"name": "ann", "hand": ROUND["hands"]["ann"]}, "players": [player]}
    response = client.post("/v1/settle", content=json.dumps(settle).replace('"STAKE"', stake), headers=JSON)
    assert (response.status_code, response.json()) == (400, refused)
    table_id = _table(client).json()["id"]
    played = json.dumps({**ROUND, "stakes": {"bo": "STAKE", "cy": 5}}).replace('"STAKE"', stake)
    response = client.post(f"/v1/tables/{table_id}/rounds", content=played, headers={**KEY, **JSON})
    assert (response.status_code, response.json()) == (400, refused)
    assert client.get(f"/v1/tables/{table_id}").json()["rounds"] == 0


def test_a_round_and_a_table_read_load_none_of_the_tables_rounds(client: TestClient) -> None:
    """Each round posted and each table read loaded every round the table had (its balances summed over them,
    its count taken as their number): 50 ms a round at 100 rounds, 200 ms at 3,000."""
    table_id = _table(client, rules="gnau", seats=["ann", "bo"]).json()["id"]
    played = {"hands": {"ann": "10S 9H 8D 4C 4H", "bo": "KS QH JD KC QD"}, "stakes": {"bo": "0.35"}}
    for _ in range(3):
        assert client.post(f"/v1/tables/{table_id}/rounds", json=played, headers=KEY).status_code == 201
    loaded: list[RoundRow] = []

    def load(row: RoundRow, _context: object) -> None:
        loaded.append(row)

    event.listen(RoundRow, "load", load)
    try:
        assert client.post(f"/v1/tables/{table_id}/rounds", json=played, headers=KEY).json()["number"] == 4
        table = client.get(f"/v1/tables/{table_id}").json()
        assert client.get("/v1/tables").json() == [table]
    finally:
        event.remove(RoundRow, "load", load)
    assert loaded == []
    assert (table["rounds"], table["balances"]) == (4, {"ann": -9.8, "bo": 9.8})  # 4 x 7 x 0.35, to the cent


def test_a_page_of_tables_is_read_in_as_many_queries_however_many_it_holds(client: TestClient) -> None:
    """Each table listed had its seats and its balances read in two queries of its own: 70 ms for 100 tables."""
    engine = client.app.state.sessions.kw["bind"]
    selects: list[int] = []
    for name in [f"t{n}" for n in range(20)]:
        _table(client, name=name).raise_for_status()
        if name in ("t0", "t19"):
            statements: list[str] = []

            def listen(_connection: object, _cursor: object, statement: str, *_args: object) -> None:
                statements.append(statement)

            event.listen(engine, "before_cursor_execute", listen)
            try:
                assert len(client.get("/v1/tables").json()) == int(name[1:]) + 1
            finally:
                event.remove(engine, "before_cursor_execute", listen)
            selects.append(sum(statement.lstrip().startswith("SELECT") for statement in statements))
    assert selects == [4, 4]  # the tables, their seats, their balances, their rounds' counts


def _refuses_bad_pages(client: TestClient, listing: str) -> None:
    """The listing refuses a page asked for out of range, or with a query field unknown or given twice."""
    for query, message in [("limit=0", "query.limit: Input should be greater than or equal to 1"),
                           ("limit=1001", "query.limit: Input should be less than or equal to 1000"),
                           ("after=-1", "query.after: Input should be greater than or equal to 0"),
                           ("afer=100", "unknown query field: 'afer' (known: after, limit)"),
                           ("after=1&after=2", "query field given more than once: 'after'")]:
        response = client.get(f"{listing}?{query}")
        assert response.status_code == 422 and message in response.json()["error"], (query, response.json())


def test_rounds_are_listed_a_page_at_a_time(client: TestClient) -> None:
    """The whole list at once: 390 kB at 600 rounds, however few a client wanted."""
    table_id = _table(client, rules="gnau", seats=["ann", "bo"]).json()["id"]
    played = {"hands": {"ann": "10S 9H 8D 4C 4H", "bo": "KS QH JD KC QD"}, "stakes": {"bo": 1}}
    for _ in range(103):
        client.post(f"/v1/tables/{table_id}/rounds", json=played, headers=KEY).raise_for_status()
    first = client.get(f"/v1/tables/{table_id}/rounds")
    assert [r["number"] for r in first.json()] == list(range(1, 101))
    assert first.headers["link"] == f'<http://testserver/v1/tables/{table_id}/rounds?after=100&limit=100>; rel="next"'
    last = client.get(first.headers["link"][1:].split(">")[0])
    assert [r["number"] for r in last.json()] == [101, 102, 103] and "link" not in last.headers
    assert [r["number"] for r in client.get(f"/v1/tables/{table_id}/rounds?after=98&limit=3").json()] == [99, 100, 101]
    assert client.get(f"/v1/tables/{table_id}/rounds?after=103").json() == []
    _refuses_bad_pages(client, f"/v1/tables/{table_id}/rounds")
    assert client.get("/v1/tables/99/rounds?limit=5").json() == {"error": "no table 99"}


def test_tables_are_listed_a_page_at_a_time(client: TestClient) -> None:
    """Every table at once, however many the server held: thousands in one answer."""
    opened = [_table(client, name=f"t{n}").json()["id"] for n in range(101)]
    first = client.get("/v1/tables")
    assert [t["id"] for t in first.json()] == opened[:100]  # as before, for a ledger of up to 100
    assert first.headers["link"] == f'<http://testserver/v1/tables?after={opened[99]}&limit=100>; rel="next"'
    last = client.get(first.headers["link"][1:].split(">")[0])
    assert [t["id"] for t in last.json()] == opened[100:] and "link" not in last.headers
    page = client.get(f"/v1/tables?after={opened[3]}&limit=2")
    assert [(t["id"], t["name"]) for t in page.json()] == [(opened[4], "t4"), (opened[5], "t5")]
    assert page.headers["link"] == f'<http://testserver/v1/tables?after={opened[5]}&limit=2>; rel="next"'
    assert client.get(f"/v1/tables?after={opened[100]}").json() == []
    _refuses_bad_pages(client, "/v1/tables")


def test_a_round_sent_again_under_its_idempotency_key_is_answered_as_stored_not_recorded_again(client: TestClient) -> None:
    """A client that timed out after the round was stored sent it again, and it was recorded twice."""
    table_id = _table(client).json()["id"]
    other_id = _table(client, name="table two").json()["id"]
    first = client.post(f"/v1/tables/{table_id}/rounds", json=ROUND, headers={**KEY, "Idempotency-Key": "r-1"})
    again = client.post(f"/v1/tables/{table_id}/rounds", json=ROUND, headers={**KEY, "Idempotency-Key": "r-1"})
    assert (first.status_code, again.status_code, again.json()) == (201, 200, first.json())
    table = client.get(f"/v1/tables/{table_id}").json()
    assert (table["rounds"], table["banker"], table["balances"]) == (1, "bo", {"ann": -15, "bo": 10, "cy": 5})
    elsewhere = client.post(f"/v1/tables/{other_id}/rounds", json=ROUND, headers={**KEY, "Idempotency-Key": "r-1"})
    assert (elsewhere.status_code, elsewhere.json()["number"]) == (201, 1)  # a key is one table's
    reused = client.post(f"/v1/tables/{table_id}/rounds", json={**ROUND, "stakes": {"bo": 10, "cy": 6}},
                         headers={**KEY, "Idempotency-Key": "r-1"})
    assert (reused.status_code, reused.json()) == (409, {"error": "the Idempotency-Key 'r-1' was sent with another "
                                                         "round, stored as round 1: send a new key with each new round"})
    for bad in ("", "x" * 256, "caf\u00e9"):
        response = client.post(f"/v1/tables/{table_id}/rounds", json=ROUND, headers={**KEY, "Idempotency-Key": bad.encode()})
        assert (response.status_code, response.json()["error"]) == (422, "header.Idempotency-Key: must be 1 to 255 "
                                                                      "printable ASCII characters, a new one for each round")
    assert client.get(f"/v1/tables/{table_id}").json() == table


def test_a_round_resent_written_otherwise_is_the_same_round_under_its_idempotency_key(client: TestClient) -> None:
    """A resend was compared with the stored round byte for byte: a stake of 3 where 3.0 was sent, or a hand as
    a list where it was one string, was answered 409, another round, though it was the same."""
    table_id = _table(client).json()["id"]
    headers = {**KEY, **JSON, "Idempotency-Key": "r-1"}
    first = client.post(f"/v1/tables/{table_id}/rounds", headers=headers, content=json.dumps(
        {**ROUND, "stakes": {"bo": "STAKE", "cy": 5}, "onlookers": {"cy": []}}).replace('"STAKE"', "3.0"))
    resent = {"hands": {**ROUND["hands"], "bo": ["6-5", "4-1", "5-5", "3-3", "2:2"]}, "stakes": {"bo": 3, "cy": 5.00}}
    again = client.post(f"/v1/tables/{table_id}/rounds", json=resent, headers=headers)
    assert (first.status_code, again.status_code, again.json()) == (201, 200, first.json())
    other = client.post(f"/v1/tables/{table_id}/rounds", json={**resent, "stakes": {"bo": 3.01, "cy": 5}}, headers=headers)
    assert other.status_code == 409
    assert client.get(f"/v1/tables/{table_id}").json()["rounds"] == 1


def test_a_round_resent_with_its_onlookers_listed_otherwise_is_the_same_round(client: TestClient) -> None:
    """Onlookers backing one player, listed in another order (as a client's set or dict may give them), settle
    alike; under the round's Idempotency-Key they were refused, 409, as another round."""
    table_id = _table(client).json()["id"]
    headers = {**KEY, "Idempotency-Key": "r-2"}
    backers = [{"name": "dee", "stake": 1}, {"name": "eve", "stake": 2}]
    first = client.post(f"/v1/tables/{table_id}/rounds", json={**ROUND, "onlookers": {"bo": backers}}, headers=headers)
    again = client.post(f"/v1/tables/{table_id}/rounds", json={**ROUND, "onlookers": {"bo": backers[::-1]}}, headers=headers)
    assert (first.status_code, again.status_code, again.json()) == (201, 200, first.json())
    other = client.post(f"/v1/tables/{table_id}/rounds", headers=headers,
                        json={**ROUND, "onlookers": {"bo": [backers[0], {"name": "eve", "stake": 3}]}})
    assert other.status_code == 409 and client.get(f"/v1/tables/{table_id}").json()["rounds"] == 1


def test_a_table_kept_under_rules_this_version_refuses_says_so_and_answers_a_resend(client: TestClient) -> None:
    """A table opened before a check was added (ties = 'banker' under point difference, refused since) had every
    round refused in the words of an option the request never sent, and a round stored before, resent under its
    Idempotency-Key as its answer was lost, refused alike: the client was told it was not recorded."""
    table_id = _table(client, rules={"base": "tau-ngau-macau"}).json()["id"]
    headers = {**KEY, "Idempotency-Key": "r-1"}
    first = client.post(f"/v1/tables/{table_id}/rounds", json=ROUND, headers=headers)
    with client.app.state.sessions() as db:
        db.get(TableRow, table_id).rules = {"base": "tau-ngau-macau", "ties": "banker"}
        db.commit()
    again = client.post(f"/v1/tables/{table_id}/rounds", json=ROUND, headers=headers)
    assert (first.status_code, again.status_code, again.json()) == (201, 200, first.json())
    table = client.get(f"/v1/tables/{table_id}").json()
    at_bo = {**ROUND, "stakes": {"cy": 5, "ann": 1}}  # the bank passed to bo
    refused = client.post(f"/v1/tables/{table_id}/rounds", json=at_bo, headers=KEY)
    assert (refused.status_code, refused.json()) == (400, {"error": (
        f"table {table_id} was opened under rules this version refuses (option 'ties' does nothing without a payment "
        "other than 'point_difference' (which pushes equal points)): its rounds and balances are kept, but no round "
        "can be settled under them; open a new table to play on")})
    assert client.get(f"/v1/tables/{table_id}").json() == table


def test_a_ledger_written_before_balances_were_kept_has_them_summed_once_at_start(tmp_path: Path) -> None:
    """Balances are kept per person now, no longer summed from the rounds at each read: a ledger from before
    (no balances table) has them summed from its rounds when it is opened, the seats' first, in order."""
    with TestClient(create_app(Settings(data_dir=tmp_path, api_key="sesame"))) as client:
        table_id = _table(client).json()["id"]
        second = {"hands": {"bo": "6-6 1-1 4-4 3-1 6-1", "cy": "6-5 4-1 5-5 3-3 2-2", "ann": "6-3 5-4 4-3 3-2 6-2"},
                  "stakes": {"cy": 2, "ann": 2}, "onlookers": {"cy": [{"name": "dee", "stake": 1}]}}
        for played in (ROUND, second):
            client.post(f"/v1/tables/{table_id}/rounds", json=played, headers=KEY).raise_for_status()
        _table(client, name="empty")
        before = client.get("/v1/tables").json()
    sqlite3.connect(tmp_path / "oxeye.sqlite3").execute("DROP TABLE balances")
    with TestClient(create_app(Settings(data_dir=tmp_path, api_key="sesame"))) as client:
        assert client.get("/v1/tables").json() == before
        assert json.dumps(before[0]["balances"]) == '{"ann": -13, "bo": 5, "cy": 7, "dee": 1}'


def test_a_table_takes_a_new_banker_and_seats_when_people_leave_and_join(client: TestClient) -> None:
    """A table's seats and banker were fixed: once its banker left, every round was refused ('the banker ann
    has no hand'), with no way to name another."""
    table_id = _table(client).json()["id"]
    client.post(f"/v1/tables/{table_id}/rounds", json=ROUND, headers=KEY).raise_for_status()  # bo banks now
    gone = {"hands": {"bo": "6-6 1-1 4-4 3-1 6-1", "cy": "6-5 4-1 5-5 3-3 2-2"}, "stakes": {"cy": 2}}
    assert client.post(f"/v1/tables/{table_id}/rounds", json={"hands": {"cy": gone["hands"]["cy"], "ann": "6-3 5-4 4-3 "
                       "3-2 6-2"}, "stakes": {"ann": 1}}, headers=KEY).json()["error"].startswith("the banker bo has no hand")
    changed = client.patch(f"/v1/tables/{table_id}", json={"seats": ["cy", "dee", "bo"], "banker": "cy"}, headers=KEY)
    assert changed.status_code == 200
    assert changed.json() == {**client.get(f"/v1/tables/{table_id}").json(), "seats": ["cy", "dee", "bo"],
                              "banker": "cy", "balances": {"ann": -15, "bo": 10, "cy": 5, "dee": 0}, "rounds": 1}
    # the seats' balances first, in their new order, then the leaver's: the newcomer was listed after those who left
    assert list(changed.json()["balances"]) == ["cy", "dee", "bo", "ann"]
    played = {"hands": {"cy": gone["hands"]["bo"], "dee": gone["hands"]["cy"], "bo": ROUND["hands"]["cy"]},
              "stakes": {"dee": 2, "bo": 1}}
    settled = client.post(f"/v1/tables/{table_id}/rounds", json=played, headers=KEY).json()["settlement"]
    assert [p["name"] for p in settled["players"]] == ["dee", "bo"]  # in the new seats' order from cy's right
    assert client.patch(f"/v1/tables/{table_id}", json={"banker": "dee"}, headers=KEY).json()["banker"] == "dee"


def test_bad_table_changes_change_nothing(client: TestClient) -> None:
    table_id = _table(client).json()["id"]
    before = client.get(f"/v1/tables/{table_id}").json()
    for body, headers, status, message in [
        ({}, KEY, 400, "send the table's new banker or seats, or both"),
        ({"banker": "zed"}, KEY, 400, "the banker 'zed' has no seat at the table"),
        ({"seats": ["bo", "cy"]}, KEY, 400, "the banker 'ann' has no seat at the table"),
        ({"seats": ["ann", "bo", "ann"]}, KEY, 400, "every seat needs a distinct name"),
        ({"seats": ["ann"]}, KEY, 422, "seats: List should have at least 2 items"),
        ({"bankers": "bo"}, KEY, 422, "bankers: Extra inputs are not permitted"),
        ({"banker": "bo"}, {}, 401, "send the API key"),
    ]:
        response = client.patch(f"/v1/tables/{table_id}", json=body, headers=headers)
        assert response.status_code == status and message in response.json()["error"], (body, response.json())
    assert client.get(f"/v1/tables/{table_id}").json() == before
    assert client.patch("/v1/tables/99", json={"banker": "bo"}, headers=KEY).json() == {"error": "no table 99"}


@pytest.mark.parametrize("folder", ["what?", "a%20b", "x@y:z"])
def test_the_ledger_lives_in_its_data_folder_whatever_the_folder_is_named(tmp_path: Path, folder: str) -> None:
    """The folder's path was pasted into a URL: 'what?' put the ledger in a file 'what' beside the folder (the
    rest read as the URL's query), and 'a%20b' looked for a folder 'a b' and stopped the service."""
    with TestClient(create_app(Settings(data_dir=tmp_path / folder, api_key="sesame"))) as client:
        assert _table(client).status_code == 201
    assert sorted(p.name for p in tmp_path.iterdir()) == [folder]
    with sqlite3.connect(tmp_path / folder / "oxeye.sqlite3") as ledger_file:
        assert ledger_file.execute("SELECT name FROM tables").fetchall() == [("table one",)]


def test_services_starting_at_once_on_a_new_ledger_all_open_it(tmp_path: Path) -> None:
    """Each looked for the ledger's tables, then made them: all but the first to make one ended with
    'cannot open the database: table tables already exists' (two servers started together on one file).
    Then one in twenty or so such starts ended 'database is locked', switching the new file to WAL."""
    at_once = threading.Barrier(8)

    for start in range(20):
        def opened(_: int) -> str:
            at_once.wait()
            dispose(open_database(f"sqlite:///{tmp_path / f'oxeye{start}.sqlite3'}"))
            return "opened"

        with ThreadPoolExecutor(8) as pool:
            assert list(pool.map(opened, range(8))) == ["opened"] * 8, start


class _BusyCursor:
    """A cursor whose first ``busy`` statements SQLite refuses as another connection's switch would."""

    def __init__(self, busy: int, message: str = "database is locked") -> None:
        self.busy, self.message, self.statements = busy, message, 0

    def execute(self, statement: str) -> None:
        self.statements += 1
        if self.statements <= self.busy:
            raise sqlite3.OperationalError(self.message)


def test_switching_to_wal_waits_while_the_file_is_locked_and_no_longer() -> None:
    cursor = _BusyCursor(3)
    _switch_to_wal(cursor)  # type: ignore[arg-type]
    assert cursor.statements == 4
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        _switch_to_wal(_BusyCursor(10_000), patience=0.05)  # type: ignore[arg-type]
    other = _BusyCursor(1, "disk I/O error")
    with pytest.raises(sqlite3.OperationalError, match="disk"):
        _switch_to_wal(other)  # type: ignore[arg-type]
    assert other.statements == 1  # not a lock: not tried again


def test_a_drill_dealt_while_a_round_is_being_settled_waits_its_turn(client: TestClient, monkeypatch) -> None:
    """A round holds the database's write lock while it is settled: a drill dealt meanwhile waited on SQLite,
    which polls rather than queues and gives up after 5 s (503), 9 in 100 drills dealt among rounds."""
    table_id = _table(client).json()["id"]
    settled = ledger._settled_round
    monkeypatch.setattr(ledger, "_settled_round", lambda table, played: time.sleep(6) or settled(table, played))
    with ThreadPoolExecutor(1) as pool:
        round_posted = pool.submit(client.post, f"/v1/tables/{table_id}/rounds", json=ROUND, headers=KEY)
        time.sleep(0.5)
        assert client.post("/v1/trainer/drills", json={"trainee": "kit"}).status_code == 201
        assert round_posted.result().status_code == 201


def test_a_ledger_it_may_not_write_refuses_each_change_in_words_and_keeps_what_it_had(tmp_path: Path) -> None:
    """A read-only database (as a full disk or a lock held too long): each change was a 500 that said only to
    read the log; it is a 503 saying why, the round's table left as it was and still read."""
    with TestClient(create_app(Settings(data_dir=tmp_path, api_key="sesame"))) as client:
        table_id = _table(client).json()["id"]
        drill_id = client.post("/v1/trainer/drills", json={"trainee": "kit"}).json()["id"]
        before = client.get(f"/v1/tables/{table_id}").json()
    read_only = f"sqlite:///file:{tmp_path / 'oxeye.sqlite3'}?mode=ro&uri=true"
    with TestClient(create_app(Settings(data_dir=tmp_path, db_url=read_only, api_key="sesame"))) as client:
        changes = [client.post(f"/v1/tables/{table_id}/rounds", json=ROUND, headers=KEY),
                   _table(client, name="table two"),
                   client.post("/v1/trainer/drills", json={"trainee": "kit"}),
                   client.post(f"/v1/trainer/drills/{drill_id}/answer", json={"label": "No Ox", "payout": "0"})]
        for response in changes:
            assert (response.status_code, response.json()) == (503, {
                "error": "the ledger could not be written (attempt to write a readonly database): nothing was recorded"})
        assert client.get(f"/v1/tables/{table_id}").json() == before
        assert client.get("/v1/trainer/trainees/kit").json()["drills"] == 0
        paths = client.get("/openapi.json").json()["paths"]  # and the schema says so: it named no 503
        assert all("503" in paths[path][method]["responses"] for path, method in (
            ("/v1/tables/{table_id}/rounds", "post"), ("/v1/tables", "post"), ("/v1/tables/{table_id}", "patch"),
            ("/v1/trainer/drills", "post"), ("/v1/trainer/drills/{drill_id}/answer", "post")))


def test_the_api_key_guards_changes_only(client: TestClient) -> None:
    """A wrong key was told to 'send the API key', as if none had been sent: one who had typed it looked for
    another way to send it rather than at what they typed."""
    missing = client.post("/v1/tables", json={"name": "x", "rules": "gnau", "seats": ["a", "b"], "banker": "a"})
    assert (missing.status_code, missing.json()) == (
        401, {"error": "this endpoint changes the ledger: send the API key in the X-API-Key header"})
    wrong = client.post("/v1/tables", json={"name": "x", "rules": "gnau", "seats": ["a", "b"], "banker": "a"},
                        headers={"X-API-Key": "wrong"})
    assert (wrong.status_code, wrong.json()) == (
        401, {"error": "the API key sent is not this server's (the one oxeye serve was started with --api-key)"})
    assert client.get("/v1/tables").status_code == 200


def test_a_key_beyond_ascii_is_compared_not_a_500(tmp_path: Path) -> None:
    """compare_digest takes no str past ASCII: such a key sent, or set with --api-key, failed every change with 500."""
    table = {"name": "x", "rules": "gnau", "seats": ["a", "b"], "banker": "a"}
    with TestClient(create_app(Settings(data_dir=tmp_path, api_key="sésame"))) as client:
        assert client.post("/v1/tables", json=table, headers={"X-API-Key": "sesame"}).status_code == 401
        assert client.post("/v1/tables", json=table, headers={"X-API-Key": "sèsame".encode()}).status_code == 401
        assert client.post("/v1/tables", json=table, headers={"X-API-Key": "sésame".encode()}).status_code == 201
