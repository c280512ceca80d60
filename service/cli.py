"""The one command line, ``oxeye``: each part of the project contributes its subcommands.

A command module exposes ``register(subparsers)``; each subcommand it adds sets
``handler(args) -> int``. Modules must import lightly: heavy libraries load inside handlers.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

COMMAND_MODULES: tuple[str, ...] = (
    "oxeye.service.engine_commands",
    "oxeye.datasets.cli",
    "oxeye.vision.cli",
    "oxeye.service.serve_command",
)


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one clear line on stderr, exit status 2."""

    def error(self, message: str) -> NoReturn:
        """Exit 2 with the one line, without argparse's usage block before it."""
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The full ``oxeye`` parser with every registered subcommand."""
    parser = OneLineParser(prog="oxeye", description="OxEye: read, score and settle ox-counting hands.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    subparsers.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``oxeye``; bad input ends with one line on stderr and a non-zero status."""
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except BrokenPipeError:  # the reader went away (e.g. `| head`): nothing left to say
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:  # Ctrl-C: the command has cleaned up what it had half made; no traceback
        print(f"oxeye {args.command}: interrupted", file=sys.stderr)
        return 130
    except ModuleNotFoundError as error:
        print(f"oxeye {args.command}: error: {error.name!r} is not installed; this command needs one of "
              f"oxeye's extras (pip install 'oxeye[dev]' installs them all)", file=sys.stderr)
        return 2
    except (ValueError, OSError) as error:  # bad input of every kind, engine errors included
        print(f"oxeye {args.command}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
