"""``dicke-daemonen serve``: the web app on waitress, with its archive in an instance folder."""

from __future__ import annotations

import argparse
import logging
import socket
from pathlib import Path
from typing import Any

from cli.errors import UserError


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="start the web app (photograph, check, correct, archive)",
        description="Serve the web app with waitress. The archive (SQLite) and the photos "
        "live in the instance folder.",
    )
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on; 0.0.0.0 lets phones on your network in "
                        "(default 127.0.0.1: this computer only)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--instance", default="instance", metavar="DIR",
                        help="folder for the archive and the photos (default ./instance)")
    parser.add_argument("--samples", metavar="DIR",
                        help="on first start (empty archive), score the photos in DIR into it")
    parser.add_argument("--threads", type=int, default=4,
                        help="requests served at once (default 4)")
    parser.set_defaults(run=run)


def _lan_address() -> str:
    """This computer's address on the local network (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed, only picks an interface
            address: str = probe.getsockname()[0]
        except OSError:
            address = socket.gethostname()
    return address


def run(args: argparse.Namespace) -> int:
    from waitress.server import create_server  # imported here so others start fast

    from webui import create_app
    from webui.samples import seed_archive

    if not 0 < args.port < 65536:
        raise UserError(f"--port must be 1..65535, not {args.port}")
    if not 1 <= args.threads <= 64:
        raise UserError(f"--threads must be 1..64, not {args.threads}")
    # waitress and the app log warnings (a reader failure, a full queue) to standard error.
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    instance = Path(args.instance).resolve()
    app = create_app(instance_path=str(instance))
    # Bound first: a port in use is said at once, not after the samples are scored, and
    # the address is printed only once it is ours.
    try:
        server = create_server(app, host=args.host, port=args.port, threads=args.threads)
    except OSError as error:
        raise UserError(
            f"cannot listen on {args.host}:{args.port}: {error.strerror or error} "
            "(choose another with --port)"
        ) from error
    try:
        if args.samples:
            added = seed_archive(app, args.samples)
            if added:
                print(f"scored {added} sample photos into the archive")
    except BaseException:  # a missing folder, Ctrl-C while scoring: let the port go
        server.close()
        raise
    print(f"archive: {instance}")
    if args.host in ("0.0.0.0", "::", ""):
        print(f"open http://{_lan_address()}:{args.port} on a phone on this network")
        print("warning: anyone on this network can now open, change and delete the archive")
    else:
        print(f"open http://{args.host}:{args.port}")
    server.run()
    return 0
