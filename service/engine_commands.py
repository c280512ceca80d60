"""Subcommands over the rules engine: hand, settle, stats, rules."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the engine's subcommands (filled in with the engine)."""
