"""The drawn faces kept on disk: read back as drawn, drawn again where the file is bad, never kept half-written."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from oxeye.datasets import drawn_cache
from oxeye.datasets.cards import drawn_decks
from oxeye.datasets.drawn_cache import drawn_faces
from oxeye.datasets.faces import Face
from oxeye.datasets.tiles import tile_sets


@pytest.fixture(scope="module")
def drawn() -> tuple[dict, dict]:
    return drawn_decks(), tile_sets()


@pytest.fixture()
def drawings(drawn: tuple, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each time the faces are drawn, noted; drawn once for the module (5 s a drawing)."""
    noted: list[str] = []

    def drawing(kind: int):
        def draw() -> dict:
            noted.append("decks" if kind == 0 else "tiles")
            return drawn[kind]
        return draw

    monkeypatch.setattr(drawn_cache, "drawn_decks", drawing(0))
    monkeypatch.setattr(drawn_cache, "tile_sets", drawing(1))
    return noted


def _same(one: dict[str, dict[str, Face]], other: dict[str, dict[str, Face]]) -> bool:
    """The same names and codes in the same order, each face the same pixels at every level, boxes and gloss."""
    if [(name, list(faces)) for name, faces in one.items()] != [(name, list(faces)) for name, faces in other.items()]:
        return False
    return all(a.code == b.code and a.index_boxes == b.index_boxes and a.glossy == b.glossy
               and len(a.levels) == len(b.levels)
               and all(x.dtype == y.dtype and np.array_equal(x, y) for x, y in zip(a.levels, b.levels))
               for name in one for a, b in zip(one[name].values(), other[name].values()))


def _kept(folder: Path) -> Path:
    return folder / f"faces-{drawn_cache._digest()}.npz"


def test_faces_drawn_once_are_read_back_exactly_as_drawn(tmp_path: Path, drawn: tuple, drawings: list) -> None:
    decks, tiles = drawn_faces(tmp_path)
    assert drawings == ["decks", "tiles"] and [p.name for p in tmp_path.iterdir()] == [_kept(tmp_path).name]
    decks, tiles = drawn_faces(tmp_path)
    assert drawings == ["decks", "tiles"], "drawn again, not read"
    assert _same(decks, drawn[0]) and _same(tiles, drawn[1])
    assert not _same(decks, {**drawn[0], "drawn-classic": drawn[0]["drawn-serif"]})  # _same tells faces apart


def test_a_file_that_cannot_be_read_is_drawn_again_and_replaced(tmp_path: Path, drawn: tuple, drawings: list,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    path = _kept(tmp_path)
    drawn_faces(tmp_path)
    whole = path.read_bytes()
    for bad in (b"not a zip", whole[: len(whole) // 2], None):  # garbage; cut short, as by a full disk; no faces
        if bad is None:
            with path.open("wb") as lacking:
                np.savez(lacking, about=np.array("{}"))
        else:
            path.write_bytes(bad)
        drawings.clear()
        with caplog.at_level(logging.WARNING):
            decks, tiles = drawn_faces(tmp_path)
        assert drawings == ["decks", "tiles"] and "drawing the faces again" in caplog.text
        assert path.read_bytes() == whole
        caplog.clear()
    drawings.clear()
    assert _same(drawn_faces(tmp_path)[1], drawn[1]) and drawings == []


def test_a_file_of_other_code_is_not_read_and_goes_when_this_code_s_is_kept(tmp_path: Path, drawings: list) -> None:
    drawn_faces(tmp_path)
    _kept(tmp_path).rename(tmp_path / "faces-0000000000000000.npz")
    drawings.clear()
    drawn_faces(tmp_path)
    assert drawings == ["decks", "tiles"]
    assert [p.name for p in tmp_path.iterdir()] == [_kept(tmp_path).name]


def test_the_file_is_named_by_the_code_that_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    before = drawn_cache._digest()
    monkeypatch.setattr(drawn_cache.cv2, "__version__", "0.0.0")
    assert drawn_cache._digest() != before


def test_a_folder_that_cannot_be_written_leaves_the_faces_drawn(tmp_path: Path, drawn: tuple, drawings: list,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "data").write_text("a file where the folder would be")
    with caplog.at_level(logging.WARNING):
        decks, tiles = drawn_faces(tmp_path / "data" / "faces")
    assert drawings == ["decks", "tiles"] and decks is drawn[0] and tiles is drawn[1]
    assert "the drawn faces are not kept" in caplog.text


def test_a_write_that_fails_leaves_no_part_behind(tmp_path: Path, drawn: tuple, drawings: list, monkeypatch) -> None:
    def full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez_compressed", full)
    decks, _ = drawn_faces(tmp_path)
    assert decks is drawn[0] and list(tmp_path.iterdir()) == []
