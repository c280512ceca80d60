"""Build a dataset: many scenes, written as JPEG images, YOLO labels, per-image JSON and data.yaml.

Image ``i`` is rendered from its own generator seeded with (seed, i), so the bytes do not
depend on the number of workers or their scheduling. Scene kinds alternate; every third
scene of a kind is a close-up of 1 to 5 loose items drawn at random, and hand 0 of the j-th
of the other (hand) scenes of a kind holds classes 5j .. 5j+4 of that kind, so every class
appears once a build has ceil(52 / 5) card hand scenes and ceil(21 / 5) tile hand scenes.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import signal
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from oxeye.datasets.augment import jpeg_quality, photograph
from oxeye.datasets.decks import load_fetched_decks
from oxeye.datasets.drawn_cache import drawn_faces
from oxeye.datasets.labels import BOXES, label_scene, yolo_lines
from oxeye.datasets.paths import DEFAULT_CACHE
from oxeye.datasets.props import prop_textures
from oxeye.datasets.scene import Library, render_scene
from oxeye.vision.classes import CARD_CLASSES, CLASSES, TILE_CLASSES
from oxeye.vision.images import make_folder, terminate_as_interrupt
from oxeye.vision.train import data_yaml

KINDS = ("cards", "tiles")
LOOSE_EVERY = 3  # every third scene of a kind is a close-up of loose items
FETCHED_DECK_WEIGHT = 3.0  # the fetched SVG decks look like real cards: each is three times as likely as a drawn one
FRAMES = ((4, 3), (3, 4), (16, 9))  # phone landscape, phone portrait, webcam
MOST_IMGSZ = 4096  # a 4K photo's long side takes 8 s and 1.1 GB here; a mistyped 64000 ran until memory ran out
FRAME_WEIGHTS = np.array([0.35, 0.35, 0.3])


@dataclass(frozen=True)
class BuildConfig:
    """What to build; ``validate`` turns bad values into one clear ValueError."""

    out: Path
    images: int
    seed: int
    imgsz: int = 640
    kinds: tuple[str, ...] = KINDS
    decks: Path | None = DEFAULT_CACHE  # None: the project's own drawn decks alone
    boxes: str = "visible"  # what an item's box bounds (``labels.BOXES``)

    def validate(self) -> None:
        """Raise ValueError naming the first bad argument."""
        if self.images < 1:
            raise ValueError(f"--images must be at least 1, got {self.images}")
        if self.seed < 0:
            raise ValueError(f"--seed must be non-negative, got {self.seed}")
        if not 128 <= self.imgsz <= MOST_IMGSZ or self.imgsz % 32:
            raise ValueError(f"--imgsz must be a multiple of 32 from 128 to {MOST_IMGSZ}, got {self.imgsz}")
        unknown = [k for k in self.kinds if k not in KINDS]
        if unknown or not self.kinds:
            raise ValueError(f"--kinds must be a comma-separated subset of {','.join(KINDS)}, got {','.join(self.kinds)!r}")
        if self.boxes not in BOXES:
            raise ValueError(f"--boxes must be one of {', '.join(BOXES)}, got {self.boxes!r}")
        if self.out.exists() and not self.out.is_dir():
            raise ValueError(f"--out {self.out} exists and is not a directory")


def load_library(decks: Path | None) -> Library:
    """Every face and distractor texture a worker needs (fetched decks when the cache has them)."""
    fetched = load_fetched_decks(decks) if decks is not None else {}
    drawn, tiles = drawn_faces()
    return Library({**drawn, **fetched}, tiles, prop_textures(),
                   {name: FETCHED_DECK_WEIGHT for name in fetched})


def image_size(rng: np.random.Generator, imgsz: int) -> tuple[int, int]:
    """Width and height: ``imgsz`` on the long side, like a phone (4:3 either way) or a webcam (16:9)."""
    w, h = FRAMES[rng.choice(len(FRAMES), p=FRAME_WEIGHTS)]
    short = imgsz * min(w, h) // max(w, h) // 32 * 32
    return (imgsz, short) if w > h else (short, imgsz)


def scene_plan(index: int, kinds: tuple[str, ...]) -> tuple[str, bool, int]:
    """Kind of image ``index``, whether it is a loose close-up, and (if not) which hand scene of its kind it is."""
    kind = kinds[index % len(kinds)]
    k = index // len(kinds)
    return kind, k % LOOSE_EVERY == LOOSE_EVERY - 1, k - (k + 1) // LOOSE_EVERY


def render_one(index: int, config: BuildConfig, library: Library) -> tuple[bytes, str, dict[str, object]]:
    """Image ``index`` of a build: JPEG bytes, YOLO text and the per-image record."""
    rng = np.random.default_rng([config.seed, index])
    kind, loose, j = scene_plan(index, config.kinds)
    classes = CARD_CLASSES if kind == "cards" else TILE_CLASSES
    anchor = [] if loose else [classes[(5 * j + n) % len(classes)] for n in range(5)]
    width, height = image_size(rng, config.imgsz)
    scene = render_scene(rng, library, kind, anchor, (width, height), loose)
    image, light = photograph(rng, scene.image)
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, jpeg_quality(rng)])
    if not ok:
        raise OSError(f"could not encode image {index}")
    records, burnt_out = label_scene(scene, config.boxes, light)
    hands = []
    for i, (style, size) in enumerate(scene.hands):
        members = [n for n, r in enumerate(records) if r["hand"] == i]
        hands.append({"index": i, "arrangement": style, "items": members, "unlabelled": size - len(members)})
    meta = {"image": f"images/{index:06d}.jpg", "width": width, "height": height, "seed": config.seed,
            "index": index, "kind": kind, "boxes": config.boxes, **scene.info, "hands": hands, "items": records,
            "burnt_out": burnt_out}
    return jpeg.tobytes(), yolo_lines(records, width, height), meta


def write_one(index: int, config: BuildConfig, library: Library) -> int:
    """Render image ``index`` and write its three files; returns how many items it labels."""
    jpeg, yolo, meta = render_one(index, config, library)
    name = f"{index:06d}"
    (config.out / "images" / f"{name}.jpg").write_bytes(jpeg)
    (config.out / "labels" / f"{name}.txt").write_text(yolo)
    (config.out / "meta" / f"{name}.json").write_text(json.dumps(meta, separators=(",", ":")))
    return len(meta["items"])


_WORKER: dict[str, object] = {}


def _init_worker(config: BuildConfig) -> None:
    """Render the library once per process (forked workers inherit the parent's)."""
    cv2.setNumThreads(1)
    _WORKER["config"] = config
    if "library" not in _WORKER or _WORKER["decks"] != config.decks:
        _WORKER["library"] = load_library(config.decks)
        _WORKER["decks"] = config.decks


def _init_pool_worker(config: BuildConfig) -> None:
    """A pool's worker, as ``_init_worker``, deaf to Ctrl-C: the parent ends the pool (each worker printed
    a traceback of its own), with SIGTERM, which ends a worker at once (not the parent's interrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _init_worker(config)


def _work(index: int) -> int:
    return write_one(index, _WORKER["config"], _WORKER["library"])


def build(config: BuildConfig, workers: int | None = None, progress: bool = True, overwrite: bool = False) -> int:
    """Write the whole dataset into ``config.out``; returns the number of labelled items.

    The images are written into a hidden folder beside ``out`` that becomes ``out`` only when
    complete, so a failed or interrupted build leaves nothing half-written behind.
    """
    config.validate()
    final = config.out.resolve()  # --out . named no folder to stage beside: the staged build went inside it
    if final.is_dir() and any(final.iterdir()):
        if not overwrite:
            raise ValueError(f"--out {config.out} already holds files: choose an empty folder, or pass --overwrite to replace it")
        if not ((final / "meta").is_dir() and (final / "data.yaml").is_file()):  # --out . once meant rm -r .
            raise ValueError(f"--out {config.out} holds files but no build (no meta/ and data.yaml): --overwrite replaces "
                             f"only an earlier build; choose an empty folder")
    make_folder(final.parent)
    if not os.access(final.parent, os.W_OK):
        raise OSError(f"--out {config.out} is not writable")
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{final.name}.", dir=final.parent))
    except OSError as error:  # it named the hidden staging folder, which the user never typed
        raise OSError(f"--out {config.out} cannot be written there: {error.strerror}") from None
    try:
        with terminate_as_interrupt():  # its staging folder removed: it was left beside --out
            total = _render_all(replace(config, out=staging), final, workers, progress)
            if final.exists():
                _move_into(staging, final)
            else:
                staging.rename(final)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return total


def _move_into(staging: Path, final: Path) -> None:
    """Swap the staged build into ``final`` (empty, or an earlier build), keeping the folder itself: it may be
    the working folder (--out .), and a shell left in a deleted one lists nothing. The earlier build is moved
    into the staging folder, as the new one out of it, by renames, and removed with it only then: removed
    first (seconds for a large build), an interrupt left it half removed and the new build gone."""
    replaced = Path(tempfile.mkdtemp(prefix=".replaced.", dir=staging))
    for old in final.iterdir():
        old.rename(replaced / old.name)
    for new in staging.iterdir():
        if new != replaced:
            new.rename(final / new.name)
    shutil.rmtree(staging)


def _render_all(config: BuildConfig, final: Path, workers: int | None, progress: bool) -> int:
    """Render every image into ``config.out``, with a data.yaml that names ``final``; returns labelled items."""
    from tqdm import tqdm

    for sub in ("images", "labels", "meta"):
        (config.out / sub).mkdir()
    (config.out / "data.yaml").write_text(data_yaml(final, "images", "images", CLASSES))
    _init_worker(config)  # before the bar: a fetched deck refused was said under it
    workers = workers or min(2, os.cpu_count() or 1)
    bar = tqdm(total=config.images, unit="img", disable=not progress, desc="dataset")
    total = 0
    if workers == 1:
        for index in range(config.images):
            total += _work(index)
            bar.update()
    else:
        context = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
        with context.Pool(workers, initializer=_init_pool_worker, initargs=(config,)) as pool:
            for labelled in pool.imap_unordered(_work, range(config.images), chunksize=4):
                total += labelled
                bar.update()
    bar.close()
    return total
