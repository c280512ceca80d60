"""Shared fixtures: the presets, loaded the way the command line loads them."""

import subprocess
import sys
from pathlib import Path

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


TINY_IMGSZ = 160


@pytest.fixture(scope="session")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 16-image build and a one-epoch yolov8n trained on it at 160 px (about 15 s on 2 cores):
    a real exported model for the plumbing, which reads nothing well."""
    from scenes import build_scenes

    root = tmp_path_factory.mktemp("tiny")
    build_scenes(root / "ds", 16, 3, 320)
    # In a process of its own: importing ultralytics patches PIL.Image.open for the rest of a process.
    done = subprocess.run([str(Path(sys.executable).with_name("oxeye")), "train", "--data", str(root / "ds"),
                           "--out", str(root / "run"), "--imgsz", str(TINY_IMGSZ), "--epochs", "1", "--batch", "8",
                           "--workers", "0"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return root
