"""The one command line, ``oxeye``: each part of the project contributes its subcommands.

A command module exposes ``register(subparsers)``; each subcommand it adds sets
``handler(args) -> int`` and, where it needs more than the standard library, ``extra``: the pip
extra that installs what it imports. Modules must import lightly: heavy libraries load inside handlers.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

COMMAND_MODULES: tuple[str, ...] = (
    "oxeye.service.engine_commands",
    "oxeye.datasets.cli",
    "oxeye.vision.cli",
    "oxeye.service.serve_command",
)

TRAIN_MODULES = frozenset({"torch", "torchvision", "ultralytics", "onnx", "onnxslim"})  # the train extra's own


class DescribedSubparsers(argparse._SubParsersAction):
    """Subcommands whose own ``--help`` opens with the line ``oxeye --help`` lists them with: ``oxeye settle
    --help`` gave its usage alone, not that it reads the round as JSON on standard input."""

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        """Add subcommand ``name``, described by its ``help`` where it is given no description of its own."""
        kwargs.setdefault("description", kwargs.get("help"))
        return super().add_parser(name, **kwargs)


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one clear line on stderr, exit status 2, and whose
    subcommands' help says what each does."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Parse as ArgumentParser does, its subcommands described (``DescribedSubparsers``)."""
        super().__init__(*args, **kwargs)
        self.register("action", "parsers", DescribedSubparsers)

    def error(self, message: str) -> NoReturn:
        """Exit 2 with the one line, without argparse's usage block before it."""
        self.exit(2, f"{self.prog}: error: {message}\n")

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        """Parse, refusing what this (sub)command does not know in its own name, and keep the name of the
        innermost command as ``prog``: a subcommand's unknown option was refused as ``oxeye: error``, and an
        error of ``oxeye dataset build`` said ``oxeye dataset``."""
        parsed, unknown = super().parse_known_args(args, namespace)
        if unknown:
            self.error(f"unrecognized arguments: {' '.join(unknown)}")
        if not hasattr(parsed, "prog"):  # the innermost command's parse ends first
            parsed.prog = self.prog
        return parsed, unknown


def missing_extra(args: argparse.Namespace, module: str | None) -> str:
    """The extra that installs ``module`` for this command: its own, or train's for the training libraries
    (``evaluate --data`` measures with ultralytics); named so that no one installs ``dev``'s torch and test tools."""
    return "train" if (module or "").split(".")[0] in TRAIN_MODULES else args.extra


def build_parser() -> argparse.ArgumentParser:
    """The full ``oxeye`` parser with every registered subcommand."""
    parser = OneLineParser(prog="oxeye", description="OxEye: read, score and settle ox-counting hands.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    subparsers.required = True
    parser.set_defaults(extra="dev")  # a command that names none of its own: every extra
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
        print(f"{args.prog}: interrupted", file=sys.stderr)
        return 130
    except ModuleNotFoundError as error:
        extra = missing_extra(args, error.name)
        print(f"{args.prog}: error: {error.name!r} is not installed; this needs oxeye's {extra} extra: "
              f"pip install 'oxeye[{extra}]'", file=sys.stderr)
        return 2
    except (ValueError, OSError) as error:  # bad input of every kind, engine errors included
        print(f"{args.prog}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
