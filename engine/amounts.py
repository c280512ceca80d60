"""Amounts written as text (a stake, a payout, a commission), however they come (a JSON body, a form, a query,
a rules file, the command line): one grammar for all of them."""

from __future__ import annotations

import re
from decimal import Decimal

from oxeye.engine.errors import EngineError

# An optional minus, ASCII digits, and optionally a point and more digits: 10, -10, 2.5, as the trainer page asks.
AMOUNT_TEXT = r"-?[0-9]+(\.[0-9]+)?"
_AMOUNT_TEXT = re.compile(AMOUNT_TEXT)


def amount_from_text(text: str) -> Decimal:
    """``text`` read as an amount, digit for digit (``AMOUNT_TEXT``). Decimal() alone read forms no one writes as
    money, some silently as another number: "1_000", " 5 ", "NaN", "Infinity", "1e3", full-width "１２" and
    Arabic-Indic digits; those are refused. A JSON or TOML number is that format's, not text: 1e3 is read there."""
    if not _AMOUNT_TEXT.fullmatch(text):
        raise EngineError(f"{text!r} is not an amount: write it in digits, a point before any fraction, like 10, 2.5 "
                          f"or -10")
    return Decimal(text)


def read_amount(value: int | Decimal | str) -> Decimal:
    """An amount sent as a number (a JSON or TOML one, as read: whole, or a Decimal digit for digit) or as its text,
    which is read by ``amount_from_text``."""
    return amount_from_text(value) if isinstance(value, str) else Decimal(value)
