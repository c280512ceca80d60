"""The `oxeye hand | settle | stats | rules` command line: its JSON contract and its errors."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

OXEYE = str(Path(sys.executable).with_name("oxeye"))


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([OXEYE, *args], input=stdin, capture_output=True, text=True, timeout=60)


def test_hand_json_contract() -> None:
    done = run("hand", "--rules", "gnau", "3S", "6H", "8D", "4C", "8H", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert {"cards", "rules", "category", "value", "label", "strength", "multiplier", "ox", "power",
            "alternatives"} <= out.keys()
    assert out["cards"] == ["3S", "6H", "8D", "4C", "8H"]
    assert (out["rules"], out["category"], out["value"], out["label"]) == ("gnau", "double_ox", "8", "Double-Ox 8")
    assert out["multiplier"] == 3 and all(isinstance(x, int) for x in out["strength"])
    assert out["ox"] == [{"code": "3S", "as": 3}, {"code": "6H", "as": 3}, {"code": "4C", "as": 4}]
    assert out["power"] == [{"code": "8D", "as": 8}, {"code": "8H", "as": 8}]
    assert [a["label"] for a in out["alternatives"]] == ["Double-Ox 8", "Single-Ox 9", "Single-Ox 2"]
    assert all({"ox", "power", "explanation", "strength"} <= a.keys() for a in out["alternatives"])


@pytest.mark.parametrize(("args", "category", "value"), [
    (["--rules", "gnau", "KS", "QH", "JD", "KC", "QD"], "five_dukes", None),
    (["--rules", "gnau", "3S", "4H", "3D", "AC", "2H"], "five_small", None),
    (["--rules", "gnau", "10S", "4H", "6D", "AS", "JC"], "ngau_tonku", None),
    (["--rules", "gnau", "10S", "JH", "QD", "9C", "AC"], "single_ox", "0"),
    (["--rules", "gnau", "10S", "9H", "8D", "4C", "4H"], "no_ox", None),
    (["--rules", "gnau", "10s", "kh", "Td", "4♣", "6♥"], "double_ox", "10"),
    (["--rules", "niuniu", "KS", "QH", "JD", "9C", "AC"], "niu_niu", None),
    (["--rules", "tau-ngau-macau", "6-6", "4:4", "[3:1]", "2-2", "1-1"], "bull", "10"),
    (["--rules", "tau-ngau-pagat", "6-6", "4-4", "3-1", "2-2", "1-1"], "bull", "0"),
])
def test_hand_categories(args: list[str], category: str, value: str | None) -> None:
    out = json.loads(run("hand", *args, "--json").stdout)
    assert (out["category"], out["value"]) == (category, value)


def test_hand_readable() -> None:
    done = run("hand", "--rules", "gnau", "3S", "6H", "8D", "4C", "8H")
    assert done.returncode == 0 and "Double-Ox 8" in done.stdout.splitlines()[0]
    assert "best: 3S + 6H (as 3) + 4C = 10 is the ox" in done.stdout
    # the hand quoted as one argument, or with commas, reads the same (each was "unknown card code")
    assert run("hand", "--rules", "gnau", "3S 6H 8D 4C 8H").stdout == done.stdout
    assert run("hand", "--rules", "gnau", "3S,6H,8D", "4C,8H").stdout == done.stdout


ROUND = {
    "rules": "gnau",
    "banker": {"name": "Bea", "hand": ["10S", "9H", "8D", "4C", "4H"]},
    "players": [
        {"name": "Ann", "hand": ["KS", "QH", "JD", "KC", "QD"], "stake": 10},
        {"name": "Cy", "hand": "7S AH 2D 3C 6C", "stake": 2.5},
    ],
}


def test_settle_json_contract() -> None:
    done = run("settle", "--json", stdin=json.dumps(ROUND))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    people = {p["name"]: p for p in out["players"]}
    assert (people["Ann"]["outcome"], people["Ann"]["delta"]) == ("win", 70)
    assert (people["Cy"]["outcome"], people["Cy"]["delta"]) == ("win", 2.5)
    assert out["banker_delta"] == -72.5 and out["next_banker"] == "Bea"


def test_settle_inline_rules_and_onlookers() -> None:
    game = dict(ROUND, rules={"base": "gnau", "bank_passes": "every_round"})
    game["players"] = [dict(ROUND["players"][0], onlookers=[{"name": "Dee", "stake": 1}])]
    out = json.loads(run("settle", "--json", stdin=json.dumps(game)).stdout)
    assert out["onlookers"] == [{"name": "Dee", "outcome": "win", "delta": 7, "stake": 1, "units": 7,
                                 "commission": 0, "backs": "Ann"}]
    assert out["next_banker"] == "Ann" and out["banker_delta"] == -77


def test_settle_reads_a_stake_written_as_text_as_the_service_does() -> None:
    """/v1/settle reads "10" as 10, where oxeye settle refused it: one round, two answers. The text is digits and a
    point, as the service reads it: Decimal() read " 1.5 ", "1_0" and full-width "１０" too."""
    game = dict(ROUND, players=[dict(ROUND["players"][0], stake="10", onlookers=[{"name": "Dee", "stake": "1.5"}])])
    out = json.loads(run("settle", "--json", stdin=json.dumps(game)).stdout)
    assert out["players"][0]["delta"] == 70 and out["onlookers"][0]["delta"] == 10.5
    for stake in ("NaN", " 1.5 ", "1_0", "１０", "1e1"):
        for who, player in (("Ann", dict(ROUND["players"][0], stake=stake)),
                            ("Dee", dict(ROUND["players"][0], onlookers=[{"name": "Dee", "stake": stake}]))):
            refused = run("settle", "--json", stdin=json.dumps(dict(ROUND, players=[player]), ensure_ascii=False))
            assert (refused.returncode, refused.stderr) == (2, f"oxeye settle: error: {who}'s stake: {stake!r} is not an "
                                                               "amount: write it in digits, a point before any fraction, "
                                                               "like 10, 2.5 or -10\n")


def test_settle_reads_names_as_the_service_does() -> None:
    """/v1/settle reads a name in NFC without the spaces around it, and refuses "Ann" and "Ann " as one person named
    twice; oxeye settle settled them as two players, both shown "Ann", and wrote "Zoë" as it was sent, decomposed."""
    game = dict(ROUND, banker=dict(ROUND["banker"], name="Zoe\u0308"),
                players=[dict(ROUND["players"][0], name=" Ann\u00a0", onlookers=[{"name": "Dee\u200b", "stake": 1}])])
    out = json.loads(run("settle", "--json", stdin=json.dumps(game)).stdout)
    assert [out["banker"]["name"], out["players"][0]["name"], out["onlookers"][0]["name"]] == ["Zo\u00eb", "Ann", "Dee"]
    for name, problem in (("Ann\nBo", "a name cannot hold a control character"), ("\u200b", "a name needs a character one can see")):
        refused = run("settle", stdin=json.dumps(dict(ROUND, players=[dict(ROUND["players"][0], name=name)])))
        assert refused.returncode == 2 and f"players[0]: {problem}" in refused.stderr  # "Ann\nBo" split the lines
    twice = run("settle", "--json", stdin=json.dumps(dict(ROUND, players=[ROUND["players"][0],
                                                                         dict(ROUND["players"][1], name="Ann ")])))
    assert twice.returncode == 2 and twice.stderr.startswith("oxeye settle: error: Ann is named twice"), twice.stderr


def test_settle_prints_amounts_as_its_json_writes_them() -> None:
    """Printed without --json, amounts were Decimal's own text: a stake of 1E2 won +7E+2, and 703.5 was -703.50."""
    game = dict(ROUND, players=[dict(ROUND["players"][0], stake="STAKE", onlookers=[{"name": "Dee", "stake": "0.50"}])])
    done = run("settle", stdin=json.dumps(game).replace('"STAKE"', "1E2"))
    assert done.stdout.splitlines() == ["banker Bea: No Ox, -703.5", "  Ann: Five Dukes, win +700",
                                        "  Dee: with Ann, win +3.5", "next banker: Bea"]


def test_stats() -> None:
    done = run("stats", "--rules", "gnau", "--json")
    out = json.loads(done.stdout)
    assert out["hands"] == 2_598_960
    counts = {(c["category"], c["value"]): c["hands"] for c in out["categories"]}
    assert counts["five_dukes", None] == 792  # C(12, 5): every hand of J, Q, K
    assert counts["five_small", None] == 4368  # C(16, 5): every hand of A-4
    assert "Five Dukes" in run("stats", "--rules", "gnau").stdout


def test_rules_listing_and_printing() -> None:
    listing = run("rules").stdout
    assert "gnau:" in listing and "tau-ngau-pagat:" in listing
    assert 'name = "niuniu"' in run("rules", "niuniu").stdout


@pytest.mark.parametrize(("args", "stdin", "message"), [
    (["hand", "--rules", "gnau", "AS", "2S", "3S", "4S", "ZZ"], "", "unknown card code 'ZZ'"),
    (["hand", "--rules", "gnau", "AS", "2S", "3S", "4S"], "", "a hand has 5 items, got 4"),
    (["hand", "--rules", "gnau", "AS", "2S", "3S", "4S", "5S", "6S"], "", "a hand has 5 items, got 6"),
    (["hand", "--rules", "gnau", "AS", "AS", "3S", "4S", "5S"], "", "AS appears 2 times"),
    (["hand", "--rules", "gnau", "AS", "2S", "3S", "4S", "6-6"], "", "mixes cards and tiles"),
    (["hand", "--rules", "nope", "AS", "2S", "3S", "4S", "5S"], "", "unknown rules preset 'nope'"),
    (["hand", "AS", "2S", "3S", "4S", "5S"], "", "--rules"),
    (["stats", "--rules", "gnau-but-not"], "", "unknown rules preset"),
    (["rules", "nope"], "", "unknown rules preset 'nope'"),
    (["settle", "--json"], "{not json", "not valid JSON"),
    (["settle", "--json"], '{"rules": "gnau", "rules": "niuniu"}',  # was settled as niuniu, the last one
     "the round is not valid JSON: the key 'rules' is given twice in one object"),
    (["settle", "--json"], '{"rules": ' + "[" * 100_000, "the round is not valid JSON: nested too deeply"),  # a traceback
    (["settle", "--json"], json.dumps(dict(ROUND, players=[{"name": "Ann", "hand": "KS QH JD KC QD", "stake": 1}]))
     .replace('"stake": 1', '"stake": NaN'), "the round is not valid JSON: NaN is not a JSON number"),  # 'a number'
    (["settle", "--json"], "[]", "must be a JSON object"),
    (["settle", "--json"], json.dumps({"rules": "gnau", "banker": ROUND["banker"]}), "lacks players"),
    (["settle", "--json"], json.dumps(dict(ROUND, rules={"base": "gnau", "decks": "two"})), "option 'decks'"),
    (["settle", "--json"], json.dumps(dict(ROUND, players=[{"name": "Ann", "hand": "KS QH JD KC QD"}])),
     "has no stake"),
    (["settle", "--json"], json.dumps(dict(ROUND, players=[{"name": "Ann", "hand": "KS QH JD KC QD",
                                                              "stake": "ten"}])), "Ann's stake: 'ten' is not an amount"),
    # a number is read as Decimal, whose repr was written: "not Decimal('-1.5')"
    (["settle", "--json"], json.dumps(dict(ROUND, players=[{"name": "Ann", "hand": "KS QH JD KC QD", "stake": -1.5}])),
     "Ann's stake must be a positive number, not -1.5"),
    (["settle", "--json"], json.dumps(dict(ROUND, rules={"base": "gnau", "decks": 2.0})),
     "option 'decks' must be a whole number, not 2.0"),
    (["settle", "--json"], json.dumps(dict(ROUND, players=[{"name": "Ann", "hand": "10S QH JD KC QD",
                                                              "stake": 1}])), "10S appears 2 times"),
    (["settle", "--json"], json.dumps(dict(ROUND, players=[{"name": "Ann", "hand": "KS QH JD KC QD",
                                                              "stake": 1e308}])), "too large to settle to the cent"),
    (["settle", "--json"], json.dumps(dict(ROUND, players=[{"name": "Ann", "hand": "KS QH JD KC QD", "stake": 1}]))
     .replace('"stake": 1', '"stake": 1e99999999999'), "Ann's stake of 1e+99999999999 is too large"),  # overflowed
    # written in full, where they read -6.999999999999993e+13 and 1.0000000000000e+13
    (["settle", "--json"], json.dumps(dict(ROUND, players=[{"name": "Ann", "hand": "KS QH JD KC QD", "stake": 1}]))
     .replace('"stake": 1', '"stake": 9999999999999.99'), "an amount of -69,999,999,999,999.93 is too large"),
    (["settle", "--json"], json.dumps(dict(ROUND, players=[{"name": "Ann", "hand": "KS QH JD KC QD",
                                                              "stake": 10**13}])), "Ann's stake of 10,000,000,000,000 is"),
    (["settle", "--json"], json.dumps(dict(ROUND, players=[{"name": "Ann", "hand": "KS QH JD KC QD", "stake": 1}]))
     .replace('"stake": 1', '"stake": 0.30000000000000001'), "Ann's stake of 0.30000000000000001 is finer than a cent"),
    (["settle", "--json"], json.dumps(dict(ROUND, players=[{"name": "Ann", "hand": "KS QH JD KC QD", "stake": 1,
                                                              "onlooker": [{"name": "Dee", "stake": 5}]}])),
     "unknown key of players[0]: 'onlooker'"),  # once settled without Dee's bet
    (["settle", "--json"], json.dumps(dict(ROUND, bankers=[])), "unknown key of the round: 'bankers'"),
    (["settle"], json.dumps(dict(ROUND, players=[{"name": "Ann", "hand": "KS QH JD KC QD", "stake": 5e12}])),
     "too large to settle to the cent"),  # printed as +3.5E+13 where --json refused it
    (["frobnicate"], "", "invalid choice"),
    # refused by the top command, in its name: 'oxeye: error: unrecognized arguments: --bogus'
    (["hand", "--rules", "gnau", "--bogus", "AS", "2S", "3S", "4S", "5S"], "",
     "oxeye hand: error: unrecognized arguments: --bogus"),
    (["dataset", "preview", "nowhere", "--out", "x.png", "--bogus"], "",
     "oxeye dataset preview: error: unrecognized arguments: --bogus"),
    (["dataset", "preview", "nowhere", "--out", "x.png"], "", "oxeye dataset preview: error: nowhere has no meta"),
])
def test_bad_input_is_one_clear_line(args: list[str], stdin: str, message: str) -> None:
    done = run(*args, stdin=stdin)
    assert done.returncode != 0
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], done.stderr


@pytest.mark.parametrize(("name", "text", "message"), [
    ("deep.json", '{"base": ' + "[" * 100_000 + "]" * 100_000 + "}", "deep.json: not valid JSON (nested too deeply"),
    ("deep.toml", 'base = "gnau"\nx = ' + "[" * 100_000 + "]" * 100_000, "deep.toml: not valid TOML (nested too deeply)"),
])
def test_a_rules_file_nested_too_deeply_is_one_clear_line(tmp_path: Path, name: str, text: str, message: str) -> None:
    """Its RecursionError was a traceback."""
    (tmp_path / name).write_text(text)
    done = run("hand", "--rules", str(tmp_path / name), "3S", "6H", "8D", "4C", "8H")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and message in done.stderr, done.stderr


def test_settle_with_standard_input_closed_is_one_clear_line() -> None:
    done = subprocess.run(f"'{OXEYE}' settle <&-", shell=True, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == "oxeye settle: error: standard input is closed: send the round on it as JSON\n"


README = Path(__file__).resolve().parent.parent / "README.md"


def _readme_hand_examples() -> list[tuple[list[str], str]]:
    """Each `$ oxeye hand ...` of the README's examples that shows its output: (arguments, output)."""
    block = README.read_text().split("```console\n", 1)[1].split("```", 1)[0]
    examples = []
    for chunk in re.split(r"\n(?=\$ )", block):  # a command, then the lines it prints
        command, *output = [line for line in chunk.splitlines() if line]
        if command.startswith("$ oxeye hand ") and output:
            examples.append((command.removeprefix("$ oxeye ").split(), "\n".join(output) + "\n"))
    return examples


@pytest.mark.parametrize(("args", "output"), _readme_hand_examples())
def test_the_readme_examples_print_what_it_shows(args: list[str], output: str) -> None:
    assert run(*args).stdout == output


def test_every_command_the_readme_names_is_listed_in_help() -> None:
    listed = run("--help").stdout
    for name in set(re.findall(r"`oxeye ([a-z][a-z-]*)", README.read_text())):
        assert re.search(rf"^    {name}\s", listed, re.MULTILINE), name


def _subcommands(parser: argparse.ArgumentParser, prefix: str = "") -> list[tuple[str, str, argparse.ArgumentParser]]:
    """Every subcommand under ``parser``, nested ones too: (its name, its line in the list, its parser)."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for listed in action._choices_actions:
                sub = action.choices[listed.dest]
                found += [(prefix + listed.dest, listed.help, sub), *_subcommands(sub, f"{prefix}{listed.dest} ")]
    return found


def test_each_commands_help_says_what_it_does() -> None:
    """``oxeye settle --help`` gave its usage alone, not that it reads the round as JSON on standard input."""
    from oxeye.service.cli import build_parser

    commands = _subcommands(build_parser())
    assert {"settle", "dataset build", "serve"} <= {name for name, _, _ in commands}
    for name, line, sub in commands:
        assert " ".join(line.split()) in " ".join(sub.format_help().split()), name


def test_the_readme_rules_file_changes_only_what_it_names(tmp_path: Path) -> None:
    """Its [multipliers] sets Five Dukes to 10; the other payouts stay gnau's (Double-Ox once paid 1 there)."""
    (tmp_path / "our-table.toml").write_text(README.read_text().split("```toml\n", 1)[1].split("```", 1)[0])
    done = run("hand", "--rules", str(tmp_path / "our-table.toml"), "3S", "6H", "5D", "5C", "KD")
    assert done.stdout.splitlines()[0] == "3S 6H 5D 5C KD: Double-Ox 6, pays 3x  [our table]", done.stderr


def _number_options() -> list[tuple[str, argparse.Action]]:
    """Every option of every command that reads a number: (the command and the option, the option's action)."""
    from oxeye.service.cli import build_parser

    found = []
    for name, _, sub in _subcommands(build_parser()):
        for action in sub._actions:
            try:
                read = action.type("10") if action.type is not None else None
            except argparse.ArgumentTypeError:  # a picture's name, say
                continue
            if isinstance(read, (int, float)):
                found.append((f"{name} {'/'.join(action.option_strings)}", action))
    return found


# int() and float() took each of these: full-width or Arabic-Indic digits, digits grouped by "_", spaces, a sign,
# a hexadecimal prefix, NaN and the infinities (1e400 is one).
NOT_DIGITS = ["１０", "١٠", "1_0", " 10", "10 ", "+10", "1e400", "0x10", "nan", "inf", "-inf", ""]


def test_every_number_option_reads_ascii_digits_alone() -> None:
    """`oxeye serve --port ８０００` listened on 8000, `--settle-frames 1_0` held hands 10 frames and `oxeye train
    --hours nan` was refused by ultralytics, each option's number read by int() or float()."""
    options = _number_options()
    assert {"serve --port", "serve --settle-frames", "train --hours", "dataset build --images"} <= dict(options).keys()
    for name, action in options:
        for text in NOT_DIGITS:
            with pytest.raises(argparse.ArgumentTypeError, match="not a"):
                action.type(text)
        assert action.type("12") == 12, name
        if isinstance(action.type("12"), float):  # a power of ten, as a learning rate is written (3e-4)
            assert (action.type("1e1"), action.type("3E-4")) == (10, 0.0003), name
        else:
            with pytest.raises(argparse.ArgumentTypeError, match="not a"):
                action.type("1e1")


@pytest.mark.parametrize(("args", "message"), [
    (["serve", "--port", "８０００"], "oxeye serve: error: argument --port: not a port number: '８０００' (write it in "
                                      "the digits 0 to 9)"),
    (["serve", "--settle-frames", "1_0"], "argument --settle-frames: not a whole number: '1_0'"),
    (["train", "--out", "run", "--hours", "1e400"], "oxeye train: error: argument --hours: not a number: '1e400' "
                                                    "(write it in the digits 0 to 9, a point before any fraction"),
    (["train", "--out", "run", "--lr0", "3e-4.5"], "argument --lr0: not a number: '3e-4.5'"),
    (["train", "--out", "run", "--lr0", "0.0003", "--val-fraction", ".5"], "argument --val-fraction: not a number"),
    (["dataset", "build", "--out", "x", "--images", "３", "--seed", "1"], "argument --images: not a whole number: '３'"),
])
def test_a_number_not_in_digits_is_one_line_naming_its_option(args: list[str], message: str) -> None:
    done = run(*args)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and message in lines[0], done.stderr


def test_a_benchmarks_numbers_are_read_as_the_commands_are(capsys: pytest.CaptureFixture[str]) -> None:
    """`python -m bench.ledger_speed --repeats ３` timed three rounds, and `--repeats 0` ended in a traceback."""
    from bench.timing import small_and_large

    for text, words in (("３", "not a whole number: '３'"), ("0", "must be at least 1, got 0")):
        with pytest.raises(SystemExit) as stop:
            small_and_large("d", "rounds", 100, 3, ["--repeats", text])
        assert stop.value.code == 2 and f"argument --repeats: {words}" in capsys.readouterr().err


def test_a_speed_benchmark_says_which_cpu_and_whether_it_has_vnni() -> None:
    """A frame took twice as long on a CPU without VNNI (MODEL_CARD.md, Speed): its figures say which they met."""
    from bench.timing import host_cpu

    zen3 = "processor\t: 0\nmodel name\t: AMD EPYC 7B13\nflags\t\t: fpu sse2 avx2 fma\n\nprocessor\t: 1\n"
    assert host_cpu(zen3) == {"cpu": "AMD EPYC 7B13", "vnni": False}
    assert host_cpu(zen3.replace("avx2", "avx2 avx512f avx512_vnni"))["vnni"] is True
    assert host_cpu(zen3.replace("avx2", "avx2 avx_vnni"))["vnni"] is True  # Alder Lake's, without AVX-512
    assert host_cpu("") == {"cpu": None, "vnni": None}  # not Linux, or a CPU that does not say
    assert set(host_cpu()) == {"cpu", "vnni"}  # this machine's, whatever it is
