"""Shared fixtures: the presets, loaded the way the command line loads them."""

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from oxeye.engine import HouseRules
from oxeye.service.rules_files import load_rules, preset_names

# Importing ultralytics sets OMP_NUM_THREADS=1 where it is unset, and every `oxeye train` started after it
# inherits it: a tiny model trained on 1 thread where a test before had imported ultralytics in the same
# worker, on 2 otherwise, weights apart and tests hanging on test order. Set here, it is the same throughout.
os.environ.setdefault("OMP_NUM_THREADS", str(os.cpu_count() or 1))

# A shell starts a background job (`make test &` in a script) with Ctrl-C ignored, and every `oxeye` a test
# starts inherits that: the tests that press Ctrl-C in it saw it go unheard. They mean a terminal's Ctrl-C.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def presets() -> dict[str, HouseRules]:
    return {name: load_rules(name) for name in preset_names()}


@pytest.fixture(scope="session")
def gnau(presets) -> HouseRules:
    return presets["gnau"]


@pytest.fixture(scope="session")
def niuniu(presets) -> HouseRules:
    return presets["niuniu"]


# `oxeye` in a process of its own, with polars unimportable as on a lent GPU machine, which lacks it
# (vision.offline reads ultralytics' results.csv without it); a process of its own because importing
# ultralytics patches PIL.Image.open for the rest of a process.
OXEYE_WITHOUT_POLARS = [sys.executable, "-c", "import sys; sys.modules['polars'] = None; "
                        "from oxeye.service.cli import main; sys.exit(main(sys.argv[1:]))"]

TINY_IMAGES = 64
TINY_IMGSZ = 160
TINY_CROP = 32


@pytest.fixture(scope="session")
def tiny(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """A 64-image build, a one-epoch yolov8n-pose trained on it at 160 px to find cards and tiles and
    their keypoints, and a one-epoch classifier naming its keypoint crops (about 30 s on 2 cores): a
    real exported two-stage model for the plumbing, which reads nothing well. Made once a run: under
    xdist the first worker to ask makes it in the run's shared folder while the others wait (each made
    its own, 50 s of both cores); tests read it, writing only in folders of their own beside ``run``."""
    if worker_id == "master":
        return _make_tiny(tmp_path_factory.mktemp("tiny"))
    from filelock import FileLock

    root = tmp_path_factory.getbasetemp().parent / "tiny"  # the run's folder, above each worker's own
    with FileLock(f"{root}.lock"):
        if not (root / "made").is_file():
            shutil.rmtree(root, ignore_errors=True)  # a worker that failed making it left a part
            _make_tiny(root).joinpath("made").touch()
    return root


def _make_tiny(root: Path) -> Path:
    """``tiny``'s build and run, in ``root``."""
    from scenes import build_scenes

    build_scenes(root / "ds", TINY_IMAGES, 3, 320)
    common = ["--data", str(root / "ds"), "--out", str(root / "run"), "--epochs", "1"]
    for command in (["train", "--imgsz", str(TINY_IMGSZ), "--batch", "8", "--workers", "0"],
                    ["train-classifier", "--imgsz", str(TINY_CROP), "--batch", "32", "--per-class", "3"]):
        done = subprocess.run([*OXEYE_WITHOUT_POLARS, *command, *common], capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
    return root
