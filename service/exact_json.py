"""JSON whose numbers hold money or shares exactly: read as Decimal, digit for digit, not as floats, and
written back as the very numbers read (a round or rules sent, a table's rules as stored and answered). Standard
library only: the command line reads rounds and rules files with it too."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any


def exact_loads(text: str | bytes, object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None) -> Any:
    """JSON text read with its non-whole numbers as Decimal: a float read 0.30000000000000001 as 0.3. A key given
    twice in one object is refused unless ``object_pairs_hook`` reads the members itself: read as the last,
    ``{"rules": "gnau", "rules": "niuniu"}`` was settled as niuniu, and an answer's payout sent twice graded on
    the second. JSON nested deeper than Python recurses is refused too: its RecursionError was a 500 (a photo
    form's rules or stakes of a few thousand '[') and a traceback from oxeye settle. So is a whole number of more
    digits than Python reads (4300): its ValueError was a 500 from a photo form's rules, and "There was an error
    parsing the body" from a JSON body. So are NaN, Infinity and -Infinity, which Python's reader takes though JSON
    has none: a stake of NaN was told "Input should be a finite number", a commission of NaN "must be a number, not
    nan". All as ``Unplaced``."""
    if isinstance(text, bytes):  # as json.loads reads bytes, so that the error can quote the text
        text = text.decode(json.detect_encoding(text), "surrogatepass")
    try:
        return json.loads(text, parse_float=Decimal, parse_constant=lambda name: _no_constant(name, text),
                          object_pairs_hook=object_pairs_hook or (lambda pairs: _once_each(pairs, text)))
    except RecursionError:
        raise Unplaced("nested too deeply", text) from None
    except json.JSONDecodeError:
        raise
    except ValueError:  # the only other the decoder raises: int() of too many digits
        raise Unplaced(f"a whole number has more than {sys.get_int_max_str_digits()} digits", text) from None


class Unplaced(json.JSONDecodeError):
    """Bad JSON said without a place: the decoder's hook is given none, nor is its RecursionError."""

    def __init__(self, message: str, text: str) -> None:
        super().__init__(message, text, 0)
        self.args = (message,)

    def __str__(self) -> str:
        return self.msg


def _no_constant(name: str, text: str) -> Any:
    """Refuse NaN, Infinity or -Infinity (``name``), numbers JSON has no words for, which only Python's reader takes."""
    raise Unplaced(f"{name} is not a JSON number", text)


def _once_each(pairs: list[tuple[str, Any]], text: str) -> dict[str, Any]:
    """One JSON object's members as a dict, each key once."""
    members: dict[str, Any] = {}
    for key, value in pairs:
        if key in members:
            raise Unplaced(f"the key {key!r} is given twice in one object", text)
        members[key] = value
    return members


def exact_dumps(value: Any) -> str:
    """Plain data as compact JSON text, a Decimal written as the number it is, digit for digit: json.dumps
    writes none (a TypeError, which a table's rules read by ``exact_loads`` met as a 500)."""
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError(f"{value} is no JSON number")
        return str(value)
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{_plain(str(key))}:{exact_dumps(entry)}" for key, entry in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(map(exact_dumps, value)) + "]"
    return _plain(value)


def _plain(value: Any) -> str:
    """A value without Decimals as compact JSON text, as Starlette's JSONResponse writes it."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
