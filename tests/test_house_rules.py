"""House rules as data: presets load, user files start from them, bad options name the field."""

from __future__ import annotations

import json
from collections import Counter
from decimal import Decimal

import pytest

from oxeye.engine import HouseRules, Participant, RulesError, evaluate, parse_hand, settle
from oxeye.engine.ox import classify
from oxeye.engine.stats import frequencies, hand_classes
from oxeye.service.rules_files import load_rules, preset_names, preset_text, rules_from_mapping, rules_from_text


def test_presets_shipped() -> None:
    assert {"gnau", "gnau-points", "niuniu", "tau-ngau-macau", "tau-ngau-pagat"} <= set(preset_names())


@pytest.mark.parametrize("name", preset_names())
def test_every_preset_loads_and_names_itself(name: str) -> None:
    rules = load_rules(name)
    assert rules.name == name and rules.description
    assert isinstance(rules, HouseRules)


def test_rules_are_frozen(gnau) -> None:
    with pytest.raises(AttributeError):
        gnau.ten_is_duke = True  # type: ignore[misc]
    with pytest.raises(TypeError):
        gnau.multipliers["five_dukes"] = 100  # type: ignore[index]


def test_a_user_file_starts_from_a_preset(tmp_path) -> None:
    path = tmp_path / "house.toml"
    path.write_text('base = "gnau"\nname = "our table"\nten_is_duke = true\n[multipliers]\nfive_dukes = 9\n')
    rules = load_rules(str(path))
    assert (rules.name, rules.ten_is_duke, rules.three_six_wild) == ("our table", True, True)
    assert rules.multiplier("five_dukes", None) == 9
    json_path = tmp_path / "house.json"
    json_path.write_text(json.dumps({"base": "niuniu", "ties": "banker", "commission": 0.05}))
    rules = load_rules(str(json_path))
    assert (rules.ties, rules.commission, rules.ranking[0]) == ("banker", Decimal("0.05"), "five_small")


def test_a_commission_is_a_number_or_its_text_in_digits(tmp_path) -> None:
    """The text of a share is read as every amount's: digits and a point; a number is its format's, a TOML one with
    its underscores or exponent, a JSON one with its exponent."""
    path = tmp_path / "house.toml"
    path.write_text('base = "gnau"\ncommission = 0.0_5\n')
    assert load_rules(str(path)).commission == Decimal("0.05")
    path.write_text('base = "gnau"\ncommission = 5e-2\n')
    assert load_rules(str(path)).commission == Decimal("0.05")
    assert rules_from_mapping({"base": "gnau", "commission": "0.05"}).commission == Decimal("0.05")


def test_rules_written_anywhere_are_read_digit_for_digit(tmp_path) -> None:
    """A rules file's, or a form's, numbers were read as floats: a commission of 0.0099999999999999999 was 0.01
    from a file or /v1/evaluate's rules, where the same rules sent inline to oxeye settle --json kept it."""
    exact = Decimal("0.0099999999999999999")
    (tmp_path / "house.json").write_text('{"base": "gnau", "commission": 0.0099999999999999999}')
    (tmp_path / "house.toml").write_text('base = "gnau"\ncommission = 0.0099999999999999999\n')
    for path in ("house.json", "house.toml"):
        assert load_rules(str(tmp_path / path)).commission == exact, path
    assert rules_from_text('{"base": "gnau", "commission": 0.0099999999999999999}').commission == exact


def test_rules_naming_an_option_twice_are_refused(tmp_path) -> None:
    """JSON rules naming one option twice were read as the last (TOML refuses it itself): a file's commission of
    0.05 then 0.5 took half of every win."""
    (tmp_path / "house.json").write_text('{"base": "gnau", "commission": 0.05, "commission": 0.5}')
    with pytest.raises(RulesError, match="house.json: not valid JSON \\(the key 'commission' is given twice"):
        load_rules(str(tmp_path / "house.json"))
    with pytest.raises(RulesError, match="inline rules are not valid JSON: the key 'base' is given twice"):
        rules_from_text('{"base": "gnau", "base": "niuniu"}')


def test_json_rules_holding_nan_or_an_infinity_are_no_json(tmp_path) -> None:
    """Python's reader took NaN, Infinity and -Infinity, which JSON has no words for: a file's commission of NaN was
    refused as "option 'commission' must be a number, not nan", as though it were one."""
    (tmp_path / "house.json").write_text('{"base": "gnau", "commission": NaN}')
    with pytest.raises(RulesError, match=r"/house\.json: not valid JSON \(NaN is not a JSON number\)$"):
        load_rules(str(tmp_path / "house.json"))


@pytest.mark.parametrize(("options", "name"), [
    ({"commission": 0.05}, "gnau with commission"),
    ({"ten_is_duke": True, "multipliers": {"five_dukes": 9}}, "gnau with ten_is_duke, multipliers"),
    ({"commission": 0, "multipliers": {"five_dukes": 7}}, "gnau"),  # the preset's own values: the preset
    ({"name": "our table", "commission": 0.05}, "our table"),
])
def test_unnamed_rules_over_a_preset_are_named_by_what_they_change(options: dict, name: str) -> None:
    """Rules over a base with no name of their own took the base's: a round under gnau with a 5% commission
    answered "rules": "gnau", as though played under the preset."""
    assert rules_from_mapping({"base": "gnau", **options}).name == name


def test_a_copied_preset_file_loads_as_the_preset(tmp_path) -> None:
    path = tmp_path / "copy.toml"
    path.write_text(preset_text("niuniu"))
    assert load_rules(str(path)) == load_rules("niuniu")


def test_multiplier_by_value_overrides_category(niuniu) -> None:
    assert niuniu.multiplier("single_ox", "9") == 2
    assert niuniu.multiplier("single_ox", "6") == 1
    assert niuniu.multiplier("niu_niu", None) == 3


@pytest.mark.parametrize(("options", "message"), [
    ({"ten_is_dukes": True}, "unknown house-rule option 'ten_is_dukes'"),
    ({"ten_is_duke": "yes"}, "option 'ten_is_duke' must be true or false"),
    ({"decks": 1.5}, "option 'decks' must be a whole number"),
    ({"decks": 0}, "option 'decks' must be 1 to 8"),
    ({"decks": 10**9}, "option 'decks' must be 1 to 8"),  # a trainer's deal would copy them all
    ({"ties": "coin"}, "option 'ties' must be one of"),
    ({"ranking": ["five_dukes", "no_ox"]}, "must hold 'single_ox'"),
    ({"ranking": ["single_ox", "straight", "no_ox"]}, "'straight' is not a category"),
    ({"ranking": ["single_ox", "five_small"]}, "must end with 'no_ox'"),
    ({"ranking": "single_ox"}, "option 'ranking' must be a list"),
    ({"multipliers": {"five_dukes": "seven"}}, "option 'multipliers' must be a table"),
    ({"multipliers": {"bomb": 2}}, "'bomb' names no category"),
    ({"multipliers": {"single_ox:nine": 2}}, "'single_ox:nine' names no value of single_ox"),  # once paid 1
    ({"multipliers": {"double_ox:T": 4}}, "'double_ox:T' names no value of double_ox"),  # a code reads T, a value not
    ({"multipliers": {"five_dukes:1": 9}}, r"'five_dukes:1' names no value of five_dukes \(its values: none\)"),
    ({"multipliers": {"five_dukes": -1}}, "option 'multipliers' must each be 0 to 1000"),
    ({"multipliers": {"five_dukes": 10**400}}, "option 'multipliers' must each be 0 to 1000"),  # paid as null
    ({"no_ox_pays": 1001}, "option 'no_ox_pays' must be 0 to 1000"),
    ({"commission": 1.5}, "option 'commission'"),
    ({"commission": "lots"}, "option 'commission': 'lots' is not an amount"),
    ({"commission": float("nan")}, "option 'commission' must be a finite number, not nan"),
    ({"commission": float("-inf")}, "option 'commission' must be a finite number, not -inf"),  # a 500, a traceback
    ({"commission": "Infinity"}, "option 'commission': 'Infinity' is not an amount"),
    ({"commission": "NaN"}, "option 'commission': 'NaN' is not an amount"),
    # its text read by Decimal(): 0.05 each, in forms no one writes a share in
    ({"commission": "0.0_5"}, "option 'commission': '0.0_5' is not an amount: write it in digits"),
    ({"commission": "5e-2"}, "option 'commission': '5e-2' is not an amount"),
    ({"commission": " 0.05"}, "option 'commission': ' 0.05' is not an amount"),
    ({"commission": "０.０５"}, "option 'commission': '０.０５' is not an amount"),
    ({"suit_order": "SHD"}, "option 'suit_order'"),
    ({"labels": {"straight": "x"}}, "option 'labels'"),
    ({"labels": {"bomb": "Boom"}}, "'labels': 'bomb' names no category of this ranking"),  # words never shown
    # each failed as a hand was labelled: a KeyError's traceback, or a ValueError naming no option
    ({"labels": {"single_ox": "Ox {points}"}}, r"option 'labels': 'single_ox' may hold no field but \{value\}"),
    ({"labels": {"single_ox": "Ox {"}}, "option 'labels': 'single_ox' may hold no field but"),
    ({"labels": {"double_ox": "Pair {value.x}"}}, "option 'labels': 'double_ox' may hold no field but"),
    ({"labels": {"no_ox": "None {value:>3}"}}, "option 'labels': 'no_ox' may hold no field but"),
    # a category read with no value: every such hand was labelled 'FS None', a drill's choice too
    ({"labels": {"five_small": "FS {value}"}}, "option 'labels': 'five_small' has no value to show: 'FS {value}' reads 'FS None'"),
    ({"labels": {"no_ox": "No Ox {value}"}}, "option 'labels': 'no_ox' has no value to show"),
    # a blank label said nothing of a hand, and was an empty line among a drill's choices
    ({"labels": {"no_ox": ""}}, "option 'labels': 'no_ox' is blank: a hand so labelled would say nothing"),
    ({"labels": {"single_ox": " \t"}}, "option 'labels': 'single_ox' is blank"),
    # a drill's answer keeps the label in 100 characters, which PostgreSQL holds to (a 500)
    ({"labels": {"no_ox": "x" * 41}}, "option 'labels': 'no_ox' may be at most 40 characters, not 41"),
    ({"labels": {"single_ox": "Ox {value}" + "!" * 500}}, "option 'labels': 'single_ox' may be at most 40 characters"),
    # two categories in the same words: a hand so printed, or named in a drill, could be either
    ({"labels": {"double_ox": "Ox {value}", "single_ox": "Ox {value}"}},
     "option 'labels': 'double_ox' and 'single_ox' both read 'Ox 2': a hand so labelled could be either"),
    ({"labels": {"five_small": "five dukes"}}, "option 'labels': 'five_dukes' and 'five_small' both read 'five dukes'"),
    ({"nenku_label": True, "labels": {"nenku": "Single-Ox 1"}}, "'single_ox' and 'nenku' both read 'Single-Ox 1'"),
    ({"base": "nope"}, "unknown rules preset 'nope'"),
])
def test_bad_options_name_the_field(options: dict, message: str) -> None:
    with pytest.raises(RulesError, match=message):
        rules_from_mapping({"base": "gnau", **options})


@pytest.mark.parametrize("base, key", [("tau-ngau-macau", "bull:0"), ("tau-ngau-pagat", "bull:10")])
def test_a_bull_value_the_zero_rule_never_gives_is_refused(base: str, key: str) -> None:
    """Where zero counts ten a Bull is 1 to 10, else 0 to 9: the other key was never matched, the hand paid 1."""
    with pytest.raises(RulesError, match=f"'{key}' names no value of bull"):
        rules_from_mapping({"base": base, "multipliers": {key: 2}})
    assert rules_from_mapping({"base": base, "multipliers": {"bull:9": 2}}).multiplier("bull", "9") == 2


def test_tiles_cannot_use_high_card_ties() -> None:
    with pytest.raises(RulesError, match="'high_card' needs cards"):
        rules_from_mapping({"base": "tau-ngau-pagat", "ties": "high_card"})


def test_point_difference_needs_a_ranking_of_points() -> None:
    """Categories without points counted 0 under point difference: gnau's Five Dukes paid 7 stakes
    to a Single-Ox 7. Such rules are refused; a card table ranking points alone settles by them."""
    with pytest.raises(RulesError, match="'point_difference' pays by points, which 'five_dukes' has none"):
        rules_from_mapping({"base": "gnau", "payment": "point_difference"})
    with pytest.raises(RulesError, match="which 'niu_niu' has none"):
        rules_from_mapping({"base": "niuniu", "payment": "point_difference", "ranking": ["niu_niu", "single_ox", "no_ox"],
                            "multipliers": {}})
    points = rules_from_mapping({"base": "gnau", "payment": "point_difference", "ranking": ["single_ox", "no_ox"],
                                 "multipliers": {}})
    banker = Participant("bank", "10S 9H 8D 3C 4H")  # Single-Ox 7
    result = settle(banker, [Participant("ann", "KS QH JD 5C 4D", Decimal(10))], points)  # Single-Ox 9
    assert [(p.outcome, p.units) for p in result.players] == [("win", 2)]


def test_statistics_follow_a_ranking_that_puts_a_special_below_a_split() -> None:
    """The statistics' fast path took any special at once: with Niu Niu ranked above Bomb, 5 5 5 5 10
    (5 + 5 + 10 = 20, then 5 + 5: Niu Niu) was counted a Bomb, though `oxeye hand` read it as Niu Niu."""
    rules = rules_from_mapping({"base": "niuniu", "ranking": [
        "five_small", "niu_niu", "bomb", "five_flowers", "four_flowers", "single_ox", "no_ox"]})
    assert classify(parse_hand("5S 5H 5D 5C 10S"), rules)[:2] == ("niu_niu", None)
    tally: Counter = Counter()
    for hand, weight in hand_classes("cards"):
        reading = evaluate(hand, rules)
        tally[reading.category, reading.value] += weight
    assert {(f.category, f.value): f.hands for f in frequencies(rules)} == dict(tally)


@pytest.mark.parametrize("option, value", [
    ("triple_is_ox", True), ("ten_is_duke", True), ("five_small_max_total", 10), ("double_ox_three_six", True),
    ("nenku_label", True), ("suit_order", "DCHS"), ("suited_ox_pays_double", True),
])
def test_tiles_refuse_options_only_cards_use(option: str, value: object) -> None:
    """Set on a domino table these would be ignored without a word, so the table is refused."""
    with pytest.raises(RulesError, match=f"option '{option}' is for cards; these rules deal tiles"):
        rules_from_mapping({"base": "tau-ngau-pagat", option: value})
    assert getattr(rules_from_mapping({"base": "gnau", "ties": "high_card", option: value}), option) == value


@pytest.mark.parametrize(("options", "message"), [
    ({"base": "niuniu", "ten_is_duke": True}, "'ten_is_duke' does nothing without 'five_dukes' or 'ngau_tonku'"),
    ({"base": "gnau", "three_six_wild": False, "double_ox_three_six": True},
     "'double_ox_three_six' does nothing without 'three_six_wild' and 'double_ox'"),
    ({"base": "gnau", "ranking": ["five_dukes", "single_ox", "no_ox"], "double_ox_three_six": True},
     "'double_ox_three_six' does nothing without"),
    ({"base": "gnau", "ranking": ["double_ox", "single_ox", "no_ox"], "five_small_max_total": 9},
     "'five_small_max_total' does nothing without 'five_small' in 'ranking'"),
    ({"base": "gnau", "suit_order": "DCHS"}, "'suit_order' does nothing without ties = 'high_card'"),
    ({"base": "niuniu", "ties": "push", "suit_order": "DCHS"}, "'suit_order' does nothing without"),
    ({"base": "gnau", "payment": "even", "suited_ox_pays_double": True},
     "'suited_ox_pays_double' does nothing without payment = 'multiplier'"),
    ({"base": "gnau", "payment": "point_difference", "ranking": ["single_ox", "no_ox"], "suited_ox_pays_double": True},
     "'suited_ox_pays_double' does nothing without"),
    ({"base": "tau-ngau-macau", "ties": "banker"},
     "'ties' does nothing without a payment other than 'point_difference' \\(which pushes equal points\\)"),
    ({"base": "tau-ngau-macau", "no_ox_ties": "push"}, "'no_ox_ties' does nothing without a payment other than"),
    ({"base": "tau-ngau-pagat", "no_ox_pays": 2, "no_ox_ties": "banker"}, "'no_ox_ties' does nothing without .* "
     "'no_ox_pays' unset"),
])
def test_an_option_these_rules_give_nothing_to_do_is_refused(options: dict, message: str) -> None:
    """Accepted, these changed no hand and no payment: a table setting them believed it played a rule it did not."""
    with pytest.raises(RulesError, match=message):
        rules_from_mapping(options)


def test_tie_rules_a_base_set_go_back_to_their_defaults_where_they_have_nothing_to_do() -> None:
    """Point difference pushes equal points and a player's no ox pays no_ox_pays: the dominoes' stuck-against-
    stuck rule, which the file never wrote, is dropped there rather than the file refused over it."""
    rules = rules_from_mapping({"base": "tau-ngau-dominoes", "payment": "point_difference"})
    assert (rules.ties, rules.no_ox_ties) == ("push", "as_ties")
    assert rules_from_mapping({"base": "tau-ngau-pagat", "no_ox_pays": 2}).no_ox_ties == "as_ties"


def test_nenku_takes_a_table_s_own_words_where_it_is_labelled() -> None:
    """Nenku is no category of any ranking, so its label was refused under every rule, as words never shown."""
    rules = rules_from_mapping({"base": "gnau", "labels": {"nenku": "Little Nenku {value}"}})
    assert evaluate("AH JC 7S 8C 5H", rules).label == "Little Nenku 1"  # 7 + 8 + 5 = 20; the ace with a Duke
    with pytest.raises(RulesError, match="'nenku' is shown only with 'nenku_label' set"):
        rules_from_mapping({"base": "niuniu", "labels": {"nenku": "Little Nenku"}})


def test_ten_is_duke_names_a_nenku_where_no_category_has_dukes() -> None:
    """Under niuniu, with Nenku labelled, a 10 as a Duke still changes a hand's words: it is not refused."""
    nenku = rules_from_mapping({"base": "niuniu", "nenku_label": True})
    hand = "AH 10D 7S 8C 5H"  # 7 + 8 + 5 = 20, then the ace and the 10: Niu 1
    assert evaluate(hand, nenku).label == "Niu 1 (牛1)"
    assert evaluate(hand, HouseRules.from_mapping({"ten_is_duke": True}, nenku)).label == "Nenku"


def test_rules_need_a_name_and_items() -> None:
    with pytest.raises(RulesError, match=r"^house rules need the option\(s\) name, items, or a 'base' preset to "
                                         r"start from \(gnau, say\)$"):
        rules_from_mapping({"three_six_wild": True})


def test_bad_files(tmp_path) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text("name = ")
    with pytest.raises(RulesError, match="not valid TOML"):
        load_rules(str(broken))
    with pytest.raises(RulesError, match=f"^no rules file {tmp_path / 'missing.toml'}$"):  # an 'unknown preset'
        load_rules(str(tmp_path / "missing.toml"))
    with pytest.raises(RulesError, match="unknown rules preset 'missing'"):
        load_rules("missing")
    (tmp_path / "latin1.toml").write_bytes("name = 'café'".encode("latin-1"))
    with pytest.raises(RulesError, match=f"^{tmp_path / 'latin1.toml'}: not UTF-8 text"):  # once without the name
        load_rules(str(tmp_path / "latin1.toml"))
    cycle = tmp_path / "cycle.json"
    cycle.write_text("[1, 2]")
    with pytest.raises(RulesError, match="table of options"):
        load_rules(str(cycle))


def test_a_category_dropped_from_the_base_ranking_drops_its_multiplier() -> None:
    """gnau's multiplier for Five Small, never written in the file, once refused the file."""
    rules = rules_from_mapping({"base": "gnau", "ranking": ["five_dukes", "ngau_tonku", "double_ox", "single_ox",
                                                            "no_ox"]})
    assert "five_small" not in rules.multipliers
    assert rules.multiplier("ngau_tonku", None) == 5
    rules = rules_from_mapping({"base": "niuniu", "ranking": ["five_small", "niu_niu", "single_ox", "no_ox"]})
    assert "bomb" not in rules.labels and rules.label("niu_niu", None) == "Niu Niu (牛牛)"


def test_a_category_dropped_from_the_base_ranking_drops_the_option_it_needed(tmp_path) -> None:
    """A file dropping five_small from niuniu's ranking was refused: 'five_small_max_total does nothing without
    five_small', an option it never wrote and that TOML, which has no null, cannot clear."""
    path = tmp_path / "house.toml"
    path.write_text('base = "niuniu"\nranking = ["bomb", "niu_niu", "single_ox", "no_ox"]\n')
    rules = load_rules(str(path))
    assert (rules.ranking, rules.five_small_max_total) == (("bomb", "niu_niu", "single_ox", "no_ox"), None)
    with pytest.raises(RulesError, match="option 'five_small_max_total' does nothing without"):  # written: refused
        rules_from_mapping({"base": "niuniu", "ranking": ["single_ox", "no_ox"], "five_small_max_total": 10})


def test_a_label_may_be_forty_characters() -> None:
    """The cap (a longer one is refused above) leaves room for words a table would write."""
    rules = rules_from_mapping({"base": "niuniu", "labels": {"niu_niu": "x" * 40, "bomb": "Bomb {value}" + "!" * 28}})
    assert (rules.label("niu_niu", None), rules.label("bomb", "10")) == ("x" * 40, "Bomb 10" + "!" * 28)


def test_a_table_over_the_base_changes_only_the_entries_it_names() -> None:
    """The README's file sets Five Dukes to 10; Double-Ox once paid 1 there, gnau's other payouts dropped."""
    rules = rules_from_mapping({"base": "gnau", "multipliers": {"five_dukes": 10}})
    assert [rules.multiplier(c, None) for c in ("five_dukes", "five_small", "ngau_tonku", "double_ox")] == [10, 7, 5, 3]
    niuniu = load_rules("niuniu")
    rules = rules_from_mapping({"base": "niuniu", "labels": {"niu_niu": "Bull Bull"}})
    assert rules.labels == {**niuniu.labels, "niu_niu": "Bull Bull"}
