"""``dicke-daemonen``: one console command with a subcommand per task.

Each subcommand lives in its own module with two functions: ``add_parser(subparsers)``
declares its arguments and ``run(args) -> int`` does the work and returns the exit
status. Errors the user can fix (a bad file, a malformed report) are printed as one
line on standard error with exit status 2, never as a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from cli import play, rescore, score, serve, synth
from cli.errors import UserError
from engine.errors import EngineError

SUBCOMMANDS = (play, rescore, score, serve, synth)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dicke-daemonen", description="Score photos of Dicke Dämonen boards, simulate games."
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in SUBCOMMANDS:
        module.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        status: int = args.run(args)
    except (UserError, EngineError, OSError) as error:
        print(f"dicke-daemonen {args.command}: {error}", file=sys.stderr)
        return 2
    return status


if __name__ == "__main__":
    sys.exit(main())
