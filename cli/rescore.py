"""``dicke-daemonen rescore REPORT.json``: score a (possibly hand-edited) board report again."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from cli.errors import UserError
from engine.report import board_from_report, board_to_report
from engine.scoring import ScoringOptions


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "rescore",
        help="re-score a board report (JSON), e.g. after correcting it by hand",
        description="Read a board report, check it, and print it again with fresh scores, "
        "winners and violations. Field values are recomputed from corners and knots.",
    )
    parser.add_argument("report", help="board report JSON file, or - for standard input")
    add_scoring_options(parser)
    parser.set_defaults(run=run)


def add_scoring_options(parser: argparse.ArgumentParser) -> None:
    """The rule variants of ``ScoringOptions`` as command-line flags."""
    parser.add_argument(
        "--ignore-mismatched-demons",
        action="store_true",
        help="demons at a corner of two other colours do not count for their majority",
    )
    parser.add_argument(
        "--white-per-field",
        action="store_true",
        help="white scores per field holding a ghost instead of per ghost",
    )


def scoring_options(args: argparse.Namespace) -> ScoringOptions:
    return ScoringOptions(
        mismatched_demons_count=not args.ignore_mismatched_demons,
        white_points="fields" if args.white_per_field else "ghosts",
    )


def run(args: argparse.Namespace) -> int:
    try:
        if args.report == "-":
            text = sys.stdin.read()
        else:
            with open(args.report, encoding="utf-8") as file:
                text = file.read()
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise UserError(f"{args.report} is not JSON: {error}") from error
    except UnicodeDecodeError as error:
        raise UserError(f"{args.report} is not a text file") from error
    board = board_from_report(data)
    image = data.get("image") if isinstance(data, dict) else None
    size = (image["width"], image["height"]) if isinstance(image, dict) else None
    report = board_to_report(board, image_size=size, options=scoring_options(args))
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")
    return 0
