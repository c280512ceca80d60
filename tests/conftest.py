"""Shared fixtures: the presets, loaded the way the command line loads them."""

import pytest

from oxeye.engine import HouseRules
from oxeye.service.rules_files import load_rules, preset_names


@pytest.fixture(scope="session")
def presets() -> dict[str, HouseRules]:
    return {name: load_rules(name) for name in preset_names()}


@pytest.fixture(scope="session")
def gnau(presets) -> HouseRules:
    return presets["gnau"]


@pytest.fixture(scope="session")
def niuniu(presets) -> HouseRules:
    return presets["niuniu"]
