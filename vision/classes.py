"""The detector's class list, shared by the dataset generator and the detector.

Class names are the engine's item codes (``AS`` ... ``KC``, ``6-6`` ... ``2-1``); vision
spells them out here rather than importing the engine, and a test checks both agree.
"""

from typing import Final

CARD_RANKS: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
CARD_SUITS: Final = ("S", "H", "D", "C")

# The 21 faces of the 32-tile Chinese set: 11 civil faces (two of each), then 10 military.
CIVIL_FACES: Final = ("6-6", "1-1", "4-4", "3-1", "5-5", "3-3", "2-2", "6-5", "6-4", "6-1", "5-1")
MILITARY_FACES: Final = ("6-3", "5-4", "6-2", "5-3", "5-2", "4-3", "4-2", "4-1", "3-2", "2-1")

CARD_CLASSES: Final[tuple[str, ...]] = tuple(r + s for s in CARD_SUITS for r in CARD_RANKS)
TILE_CLASSES: Final[tuple[str, ...]] = CIVIL_FACES + MILITARY_FACES
CLASSES: Final[tuple[str, ...]] = CARD_CLASSES + TILE_CLASSES
CLASS_ID: Final[dict[str, int]] = {name: i for i, name in enumerate(CLASSES)}

# A detector may also find the printed corner indices of cards, as classes of their own.
CORNER_SUFFIX: Final = "/corner"
# Or (pose) find where cards and tiles lie and two keypoints of each, a card's two printed corner
# indices or a tile's two halves, each where it lies even when covered, leaving the names to a crop
# classifier (two stages).
KINDS: Final = ("card", "tile")
KEYPOINTS: Final = 2
LABEL_MODES: Final = ("pose", "items", "corners", "both")
# The crop classifier's classes: a crop around a card's corner index names the card, one around a
# tile's half shows 1 to 6 pips, and "none" shows neither (an index covered by another card, or the
# table under a false detection).
PIP_CLASSES: Final[tuple[str, ...]] = tuple(f"pips{n}" for n in range(1, 7))
BACKGROUND: Final = "none"
CROP_CLASSES: Final[tuple[str, ...]] = CARD_CLASSES + PIP_CLASSES + (BACKGROUND,)
# The kinds as a generated photo's JSON and a table's rules name them, in vision's spelling.
KIND_OF_PLURAL: Final = {"cards": "card", "tiles": "tile"}


def kind_of(class_name: str) -> str:
    """'card' or 'tile' for a class name (a two-stage detector's classes are the kinds themselves)."""
    if class_name in KINDS:
        return class_name
    return "tile" if "-" in class_name else "card"


def label_classes(mode: str) -> tuple[str, ...]:
    """The class list of a detector trained on item kinds with keypoints, whole items, card corner
    indices (tiles stay whole), or both."""
    corners = tuple(code + CORNER_SUFFIX for code in CARD_CLASSES)
    if mode == "pose":
        return KINDS
    if mode == "items":
        return CLASSES
    if mode == "corners":
        return corners + TILE_CLASSES
    if mode == "both":
        return CLASSES + corners
    raise ValueError(f"label mode must be one of {', '.join(LABEL_MODES)}, got {mode!r}")
