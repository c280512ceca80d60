"""Reading house rules: a shipped preset by name, or a user's TOML/JSON file that may start from one."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from decimal import Decimal
from importlib import resources
from pathlib import Path

from oxeye.engine import HouseRules, RulesError
from oxeye.service.exact_json import exact_loads

_PRESETS = resources.files("oxeye.engine.presets")


def preset_names() -> list[str]:
    """The names of the shipped presets."""
    return sorted(p.name.removesuffix(".toml") for p in _PRESETS.iterdir() if p.name.endswith(".toml"))


def presets_playing_with(items: str) -> list[str]:
    """The shipped presets whose game is played with ``items`` ("cards" or "tiles")."""
    return [name for name in preset_names() if load_preset(name).items == items]


def preset_text(name: str) -> str:
    """A preset's TOML text, to print or copy."""
    if name not in preset_names():
        raise RulesError(f"unknown rules preset {name!r} (presets: {', '.join(preset_names())})")
    return _PRESETS.joinpath(f"{name}.toml").read_text(encoding="utf-8")


def load_rules(spec: str) -> HouseRules:
    """Rules from a preset name or a path to a .toml or .json file, its numbers read digit for digit: read
    as floats, a commission of 0.0099999999999999999 was 0.01 from a file, kept when sent inline."""
    if spec in preset_names():
        return load_preset(spec)
    path = Path(spec)
    if path.suffix.lower() not in (".toml", ".json"):
        raise RulesError(f"unknown rules preset {spec!r} (presets: {', '.join(preset_names())}; or a .toml/.json file)")
    if not path.is_file():  # it was called an unknown preset, though named as a file
        raise RulesError(f"no rules file {spec}" + (" (a folder)" if path.is_dir() else ""))
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:  # it was said without the file's name
        raise RulesError(f"{spec}: not UTF-8 text ({error})") from None
    if path.suffix.lower() == ".json":
        try:
            data = exact_loads(text)
        except json.JSONDecodeError as error:
            raise RulesError(f"{spec}: not valid JSON ({error})") from None
    else:
        data = _read_toml(text, spec)
    return rules_from_mapping(data)


def load_preset(name: str, _seen: tuple[str, ...] = ()) -> HouseRules:
    """A shipped preset by name (``_seen``: the presets already on the way here, to refuse cycles)."""
    return rules_from_mapping(_read_toml(preset_text(name), name), (*_seen, name))


def rules_from_spec(spec: object) -> HouseRules:
    """Rules sent over the network: a preset name or an inline table of options (never a server path)."""
    return load_preset(spec) if isinstance(spec, str) else rules_from_mapping(spec)


def rules_from_text(text: str) -> HouseRules:
    """Rules sent as one text field (a form, a query): a preset name, or an inline JSON table of options, its
    numbers read digit for digit, as a JSON body's are."""
    if not text.lstrip().startswith("{"):
        return load_preset(text)
    try:
        return rules_from_mapping(exact_loads(text))
    except json.JSONDecodeError as error:
        raise RulesError(f"inline rules are not valid JSON: {error}") from None


def rules_from_mapping(data: object, _seen: tuple[str, ...] = ()) -> HouseRules:
    """Rules from plain data; a ``base`` key names a preset to start from."""
    if not isinstance(data, Mapping):
        raise RulesError("house rules must be a table of options")
    _check_unicode(data)
    options = dict(data)
    base_name = options.pop("base", None)
    base = None
    if base_name is not None:
        if not isinstance(base_name, str) or base_name in _seen:
            raise RulesError(f"option 'base' must name a preset, without cycles, not {base_name!r}")
        base = load_preset(base_name, _seen)
    return HouseRules.from_mapping(options, base)


def _check_unicode(data: Mapping[str, object]) -> None:
    """RulesError where a text of the rules is no Unicode: a lone surrogate, which JSON may escape (\\ud800), in a
    rule's name or label could not be written out as UTF-8, and every endpoint taking rules failed with a 500."""
    try:
        json.dumps(data, ensure_ascii=False, default=str).encode("utf-8")
    except UnicodeEncodeError:
        raise RulesError("the rules hold a character that is no Unicode text (a lone surrogate)") from None


def _read_toml(text: str, source: str) -> dict[str, object]:
    """TOML rules, their numbers with a point read as Decimal, digit for digit, as a round's JSON is."""
    try:
        return tomllib.loads(text, parse_float=Decimal)
    except tomllib.TOMLDecodeError as error:
        raise RulesError(f"{source}: not valid TOML ({error})") from None
    except RecursionError:  # arrays or tables nested a thousand deep: a traceback
        raise RulesError(f"{source}: not valid TOML (nested too deeply)") from None
