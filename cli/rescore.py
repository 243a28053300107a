"""``dicke-daemonen rescore REPORT.json``: score a (possibly hand-edited) board report again.

The report is checked thoroughly before it is scored: its crossings and fields must be
what its lines and knots make (``--rebuild`` takes them from the lines and knots
instead, for edited polylines), every entry must be consistent, and numbers must be
finite. Anything wrong is one line on standard error naming the entry.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import Any

from cli.errors import UserError
from engine.legality import Violation
from engine.report import board_from_report, board_to_report, image_size
from engine.rules import Rule
from engine.scoring import ScoringOptions

#: Largest report read, in bytes: a photo's report is well under a megabyte.
MAX_REPORT_BYTES = 16 * 1024 * 1024


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "rescore",
        help="re-score a board report (JSON), e.g. after correcting it by hand",
        description="Read a board report, check it, and print it again with fresh scores, "
        "winners and violations. Field values are recomputed from corners and knots; the "
        "crossings and fields must be those the lines and knots make.",
    )
    parser.add_argument("report", help="board report JSON file, or - for standard input")
    parser.add_argument(
        "--rebuild",
        action="store_true",
        help="take crossings and fields from the lines and knots (after editing them) and "
        "locate every creature again from its foot point",
    )
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
    data = read_json(args.report)
    board = board_from_report(data, topology="rebuild" if args.rebuild else "check")
    assert isinstance(data, Mapping)  # board_from_report refuses anything else
    report = board_to_report(
        board,
        image_size=image_size(data),
        options=scoring_options(args),
        extra_violations=layout_problems(data),
    )
    sys.stdout.write(dump_json(report))
    return 0


def read_json(path: str, limit: int = MAX_REPORT_BYTES) -> object:
    """The JSON document in file ``path`` (``-``: standard input), at most ``limit`` bytes.

    NaN, Infinity and numbers too large for a float are refused, as is nesting too deep
    to follow.

    Raises
    ------
    UserError
        If the file is too large, not UTF-8 text, or not JSON (with a one-line reason).
    OSError
        If the file cannot be read.
    """
    if path == "-":
        raw = sys.stdin.buffer.read(limit + 1)
    else:
        with open(path, "rb") as file:
            raw = file.read(limit + 1)
    if len(raw) > limit:
        raise UserError(f"{path} is larger than {limit // (1024 * 1024)} MB; not a board report")
    try:
        text = raw.decode("utf-8")
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except UnicodeDecodeError as error:
        raise UserError(f"{path} is not UTF-8 text") from error
    except json.JSONDecodeError as error:
        raise UserError(f"{path} is not JSON: {error}") from error
    except RecursionError as error:
        raise UserError(f"{path}: JSON nested too deeply") from error
    except ValueError as error:  # from the hooks below, or an integer of 4300+ digits
        raise UserError(f"{path}: {error}") from error


def _refuse_constant(name: str) -> object:
    raise ValueError(f"{name} is not a number JSON allows")


def _finite_float(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text[:20]}{'…' * (len(text) > 20)} is out of range")
    return value


def dump_json(document: object) -> str:
    """``document`` as one line of strict JSON (never NaN or Infinity), newline-ended."""
    return json.dumps(document, allow_nan=False) + "\n"


def layout_problems(report: Mapping[str, Any]) -> list[Violation]:
    """The report's ``layout-problem`` violations, which only the photo reader can find."""
    violations = report.get("violations")
    if not isinstance(violations, list):
        return []
    return [
        Violation(Rule.LAYOUT_PROBLEM, (), str(v.get("message", ""))[:300])
        for v in violations
        if isinstance(v, Mapping) and v.get("rule") == Rule.LAYOUT_PROBLEM
    ]
