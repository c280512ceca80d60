"""``oxeye dataset build | preview | fetch-decks``: the synthetic table-photo generator's commands."""

from __future__ import annotations

import argparse
from pathlib import Path

from oxeye.datasets.paths import DEFAULT_CACHE
from oxeye.vision.cli import counted, picture_argument, whole_number


def _build(args: argparse.Namespace) -> int:
    from oxeye.datasets.build import BuildConfig, build
    from oxeye.datasets.decks import fetched_designs

    # Named, the decks must be there: a build (a GPU run's above all) silently without them trains on other cards.
    if args.decks is not None and not fetched_designs(args.decks):
        raise ValueError(f"--decks {args.decks} holds no fetched deck: run 'oxeye dataset fetch-decks --decks "
                         f"{args.decks}' first, or leave --decks out to use {DEFAULT_CACHE} where present")
    kinds = tuple(k.strip() for k in args.kinds.split(",") if k.strip())
    decks = None if args.drawn_only else args.decks or DEFAULT_CACHE
    config = BuildConfig(args.out, args.images, args.seed, args.imgsz, kinds, decks, args.boxes)
    config.validate()
    labelled = build(config, workers=args.workers, overwrite=args.overwrite)
    print(f"wrote {counted(args.images, 'image')} with {counted(labelled, 'labelled item')} to {args.out}")
    return 0


def _preview(args: argparse.Namespace) -> int:
    from oxeye.datasets.preview import contact_sheet

    drawn = contact_sheet(args.dataset, args.out, count=args.count)
    print(f"drew {drawn} images to {args.out}")
    return 0


def _fetch(args: argparse.Namespace) -> int:
    from oxeye.datasets.decks import fetch_decks

    designs = fetch_decks(args.decks)
    print(f"rasterised {len(designs)} designs into {args.decks}: {', '.join(designs)}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``dataset`` with its build, preview and fetch-decks subcommands."""
    dataset = subparsers.add_parser("dataset", help="build and inspect synthetic table photos with labels")
    commands = dataset.add_subparsers(dest="dataset_command", metavar="ACTION", parser_class=type(dataset))
    commands.required = True
    dataset.set_defaults(extra="datasets")

    build = commands.add_parser("build", help="render N labelled images into DIR")
    build.add_argument("--out", type=Path, required=True, help="output folder")
    build.add_argument("--images", type=whole_number(), required=True, help="number of images")
    build.add_argument("--seed", type=whole_number(), required=True, help="seed; the same seed gives the same bytes")
    build.add_argument("--imgsz", type=whole_number(), default=640, help="long side in pixels, a multiple of 32 from 128 to 4096 (640)")
    build.add_argument("--kinds", default="cards,tiles", help="comma-separated: cards, tiles (both)")
    source = build.add_mutually_exclusive_group()
    source.add_argument("--decks", type=Path, default=None,
                        help=f"fetched deck cache: must hold decks when named; by default {DEFAULT_CACHE}, used when present")
    source.add_argument("--drawn-only", action="store_true",
                        help="the project's own drawn decks alone, whatever is fetched (the same bytes on any machine)")
    build.add_argument("--boxes", default="visible",
                       help="what an item's box bounds: all its visible pixels (visible), or its main visible part, "
                            "leaving out thin strips beside the item over it, as people box a tucked card (main)")
    build.add_argument("--workers", type=whole_number(1), default=None, help="processes (2)")
    build.add_argument("--overwrite", action="store_true", help="replace an earlier build in --out (a non-empty --out is refused otherwise, one holding no build always)")
    build.set_defaults(handler=_build)

    preview = commands.add_parser("preview", help="contact sheet of a built dataset with its labels drawn")
    preview.add_argument("dataset", type=Path, help="a folder written by 'oxeye dataset build'")
    preview.add_argument("--out", type=picture_argument, required=True, help="PNG to write")
    preview.add_argument("--count", type=whole_number(1), default=16, help="images on the sheet (16)")
    preview.set_defaults(handler=_preview)

    fetch = commands.add_parser("fetch-decks", help="fetch third-party SVG decks with npm and rasterise them")
    fetch.add_argument("--decks", type=Path, default=DEFAULT_CACHE, help=f"cache folder ({DEFAULT_CACHE})")
    fetch.set_defaults(handler=_fetch)
