"""``dicke-daemonen``: one console command with a subcommand per task.

Each subcommand lives in its own module with two functions: ``add_parser(subparsers)``
declares its arguments and ``run(args) -> int`` does the work and returns the exit
status. Errors the user can fix (a bad file, a malformed report, a bad argument) are
printed as one line on standard error with exit status 2, never as a traceback; any
other exception is a bug, printed as one "internal error: ..." line with exit status 3
(``dicke-daemonen --debug COMMAND ...`` shows its traceback too). Subcommands write
their output only once it is complete, so a failure leaves nothing half-written.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Sequence
from typing import NoReturn

from cli import play, rescore, score, serve, synth
from cli.errors import UserError, one_line
from engine.errors import EngineError

SUBCOMMANDS = (play, rescore, score, serve, synth)


#: Exit status of a usage error or bad input, and of a bug (an unexpected exception).
BAD_INPUT = 2
INTERNAL_ERROR = 3


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on standard error (status 2),
    without the usage block (``--help`` still shows it)."""

    def error(self, message: str) -> NoReturn:
        self.exit(BAD_INPUT, f"{self.prog}: error: {one_line(message)}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="dicke-daemonen", description="Score photos of Dicke Dämonen boards, simulate games."
    )
    parser.add_argument(
        "--debug",
        dest="traceback",  # not "debug": a command may have a --debug of its own
        action="store_true",
        help="on an internal error, show the traceback (give it before the command)",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in SUBCOMMANDS:
        module.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 done, 2 bad input, 3 a bug)."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as done:  # --help, or a usage error already printed in one line
        return done.code if isinstance(done.code, int) else BAD_INPUT
    return run(args)


def run(args: argparse.Namespace) -> int:
    """Run a parsed command: errors the user can fix are one line and status 2; anything
    else is a bug, reported as "internal error: ..." with status 3 (the traceback only
    with ``--debug``)."""
    name = f"dicke-daemonen {args.command}"
    try:
        status: int = args.run(args)
    except (UserError, EngineError, OSError) as error:
        print(f"{name}: {one_line(str(error))}", file=sys.stderr)
        return BAD_INPUT
    except Exception as error:  # noqa: BLE001 - the last resort: no bare traceback
        if getattr(args, "traceback", False):
            traceback.print_exc()
        message = one_line(f"{type(error).__name__}: {error}")
        print(f"{name}: internal error: {message}", file=sys.stderr)
        return INTERNAL_ERROR
    return status


if __name__ == "__main__":
    sys.exit(main())
