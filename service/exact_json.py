"""JSON whose numbers hold money or shares exactly: read as Decimal, digit for digit, not as floats, and
written back as the very numbers read (a round or rules sent, a table's rules as stored and answered). Standard
library only: the command line reads rounds and rules files with it too."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any


def exact_loads(text: str | bytes, object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None) -> Any:
    """JSON text read with its non-whole numbers as Decimal: a float read 0.30000000000000001 as 0.3. JSON nested
    deeper than Python recurses is refused as other bad JSON is: its RecursionError was a 500 (a photo form's rules
    or stakes of a few thousand '[') and a traceback from oxeye settle."""
    try:
        return json.loads(text, parse_float=Decimal, object_pairs_hook=object_pairs_hook)
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply", "", 0) from None


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
