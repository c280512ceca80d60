"""The fixed layout's promises: the engine is standard library only, data flows one way, and the
engine's commands run without any extra installed, and the wheel holds what an installed oxeye reads."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _imports(folder: str) -> set[str]:
    """Every module name imported by the Python files in ``folder``."""
    names: set[str] = set()
    for path in (ROOT / folder).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module)
    return names


def test_engine_is_standard_library_only() -> None:
    outside = {n for n in _imports("engine")
               if n.split(".")[0] not in sys.stdlib_module_names and not n.startswith("oxeye.engine")}
    assert not outside, f"engine/ imports {sorted(outside)}"


@pytest.mark.parametrize(("folder", "forbidden"), [
    ("engine", ("oxeye.vision", "oxeye.datasets", "oxeye.service", "oxeye.models")),
    ("vision", ("oxeye.engine", "oxeye.service")),  # vision knows no rules
    ("datasets", ("oxeye.service",)),
])
def test_data_flows_one_way(folder: str, forbidden: tuple[str, ...]) -> None:
    wrong = {n for n in _imports(folder) if n.startswith(forbidden)}
    assert not wrong, f"{folder}/ imports {sorted(wrong)}"


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


def test_engine_commands_load_no_third_party_module() -> None:
    done = _run(
        "import sys, io, contextlib\n"
        "from oxeye.service.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['hand', '--rules', 'gnau', 'AS', '2S', '3S', '4S', '5S'])\n"
        "    main(['stats', '--rules', 'tau-ngau-pagat'])\n"
        "top = {m.split('.')[0] for m in sys.modules}\n"
        "print(sorted(top - set(sys.stdlib_module_names) - {'__main__', 'oxeye', '_distutils_hack'} - {m for m in top if m.startswith('__editable__')}))"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(("module", "argv", "extra"), [
    ("cv2", ["dataset", "build", "--out", "/nonexistent/x", "--images", "1", "--seed", "1"], "datasets"),
    ("uvicorn", ["serve", "--port", "0"], "service"),
    ("numpy", ["detect", "/nonexistent.jpg"], "vision"),
])
def test_a_missing_extra_is_one_line_naming_it(module: str, argv: list[str], extra: str) -> None:
    command = " ".join(argv[:2] if argv[0] == "dataset" else argv[:1])
    done = _run(f"import sys; sys.modules[{module!r}] = None\n"
                "from oxeye.service.cli import main\n"
                f"sys.exit(main({argv!r}))")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"oxeye {command}: error: {module!r} is not installed; this needs oxeye's {extra} extra: "
        f"pip install 'oxeye[{extra}]'"]


def test_a_training_library_missing_names_the_train_extra() -> None:
    """``evaluate --data`` measures with ultralytics, which the vision extra of ``evaluate`` lacks."""
    from oxeye.service.cli import build_parser, missing_extra

    args = build_parser().parse_args(["evaluate", "--data", "held-out"])
    assert (missing_extra(args, "ultralytics.utils"), missing_extra(args, "cv2")) == ("train", "vision")


def test_every_python_file_compiles() -> None:
    """Catches what no import reaches, e.g. a merge conflict left in a benchmark."""
    for path in ROOT.glob("*/**/*.py"):
        if ".venv" not in path.parts and "data" not in path.parts:
            compile(path.read_text(encoding="utf-8"), str(path), "exec")


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the checkout less what git ignores, to build from (the checkout itself gets no build/ or
    egg-info; ``oxeye`` is a worktree's folder of links to the packages)."""
    pytest.importorskip("setuptools", minversion="77", reason="building the wheel needs setuptools 77")
    source = tmp_path_factory.mktemp("checkout") / "oxeye"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", ".whl", "data", "runs", "build", "oxeye", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis"))
    return source


@pytest.fixture(scope="module")
def wheel(checkout: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built offline."""
    out = tmp_path_factory.mktemp("wheel")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                            "--no-index", "-w", str(out), str(checkout)], capture_output=True, text=True, timeout=120)
    assert built.returncode == 0, built.stderr
    return next(out.glob("oxeye-*.whl"))


@pytest.fixture(scope="module")
def wheel_files(wheel: Path) -> set[str]:
    """The files the wheel holds."""
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


@pytest.mark.parametrize("path", [
    "oxeye/models/oxeye.onnx", "oxeye/models/oxeye-cls.onnx",  # detect, evaluate and serve read them
    "oxeye/engine/presets/gnau.toml", "oxeye/service/pages/upload.html", "oxeye/service/pages/oxeye.js",
    "oxeye/service/pages/oxeye.css",
])
def test_the_wheel_holds_what_runs_read(wheel_files: set[str], path: str) -> None:
    assert path in wheel_files


def test_the_wheel_holds_no_weights_tests_or_data(wheel_files: set[str]) -> None:
    stray = {f for f in wheel_files if f.endswith((".pt", ".pyc", ".sqlite3")) or not f.startswith("oxeye")}
    assert not stray, sorted(stray)


def test_an_installed_oxeye_keeps_its_working_folders_in_the_users_cache_not_site_packages(wheel: Path,
                                                                                         tmp_path: Path) -> None:
    """Beside a checkout the fetched decks, drawn faces and ultralytics' settings are data/ and runs/; installed,
    site-packages may be read-only (training stopped at 'Permission denied') and is no place for them."""
    from oxeye.datasets.drawn_cache import FACES_CACHE
    from oxeye.datasets.paths import DEFAULT_CACHE
    from oxeye.vision.offline import CONFIG_DIR

    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(tmp_path / "site-packages")
    code = (f"import sys; sys.path.insert(0, {str(tmp_path / 'site-packages')!r})\n"
            "from oxeye.datasets.paths import DEFAULT_CACHE; from oxeye.vision.offline import CONFIG_DIR\n"
            "from oxeye.datasets.drawn_cache import FACES_CACHE\n"
            "print(DEFAULT_CACHE, CONFIG_DIR, FACES_CACHE)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert done.returncode == 0, done.stderr
    cache = tmp_path / "cache" / "oxeye"
    assert done.stdout.split() == [str(cache / "decks"), str(cache / "ultralytics-config"), str(cache / "faces")]
    assert (DEFAULT_CACHE, CONFIG_DIR, FACES_CACHE) == (ROOT / "data" / "decks", ROOT / "runs" / "ultralytics-config",
                                                        ROOT / "data" / "faces")


def test_the_sdist_holds_what_the_tests_and_make_need(checkout: Path, tmp_path: Path) -> None:
    """Its tests once lost their helpers (readings.py, conftest.py, ...), 12 files failing to collect, and bench/."""
    code = f"from setuptools import build_meta; print(build_meta.build_sdist({str(tmp_path)!r}))"
    built = subprocess.run([sys.executable, "-c", code], cwd=checkout, capture_output=True, text=True, timeout=120)
    assert built.returncode == 0, built.stderr
    with tarfile.open(tmp_path / built.stdout.split()[-1]) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    wanted = {f"tests/{p.name}" for p in (ROOT / "tests").glob("*.py")} | {
        f"bench/{p.name}" for p in (ROOT / "bench").glob("*.py")} | {
        "Makefile", "constraints.txt", "models/oxeye.onnx", "models/oxeye.pt", "models/MODEL_CARD.md",
        "models/gpu_run.sh"}
    assert sorted(wanted - names) == []
    assert not [name for name in names if "__pycache__" in name]
