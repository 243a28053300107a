"""Blend a fine-tuned detector with the one it was tuned from, weight by weight.

::

    python -m training.blend calibration/pawnnet.onnx out/tuned/pawnnet.onnx \\
        --share 0.5 --out out/blended --data out/tune

A round of fine-tuning on new generated photos (``make detector-tune``) reads the
generated sets better, but it also moves the faint marks on photos made differently,
and the dev photos (another renderer) have paid for it: the round with demons put down
on knots won 6 boards of 1680 generated ones and lost 2 of the 18 dev photos. Averaging
the weights of the tuned network and the one it started from ("WiSE-FT": Wortsman et
al., *Robust fine-tuning of zero-shot models*, CVPR 2022) keeps most of what tuning
taught while staying nearer what the start knew, which is what that paper found for
photos unlike the tuning set. Both networks come from one start, so their weights lie
in one basin, and the networks on the straight line between them read about as well as
its ends (measured here on whole boards, docs/reader.md).

The exported files hold each convolution with its batch norm folded in (a weight and a
bias, :mod:`training.from_onnx`); those are what is blended. Folding is linear in the
batch norm's scale and shift but not in its variance, so this is a blend of the two
folded networks rather than of their training parameters: a network of the same
architecture between the two, which the blend's own validation figures measure.
"""

from __future__ import annotations

import argparse
import json
import math
import numbers
import os
import tempfile
from pathlib import Path

import numpy as np
import onnx
from google.protobuf.message import DecodeError
from onnx import numpy_helper


def blend_onnx(start: onnx.ModelProto, tuned: onnx.ModelProto, share: float) -> onnx.ModelProto:
    """The network whose every weight is ``(1 - share) * start + share * tuned``.

    Parameters
    ----------
    start : onnx.ModelProto
        The network the tuning started from.
    tuned : onnx.ModelProto
        The tuned network: the same graph, other weights.
    share : float
        How much of ``tuned`` to take, 0..1 (0 gives ``start``'s weights, 1 ``tuned``'s).

    Returns
    -------
    onnx.ModelProto
        A copy of ``start``'s graph with the blended weights (in their own dtype).

    Raises
    ------
    ValueError
        If ``share`` is not a number within 0..1, or the two graphs differ in anything
        but their weights' values (nodes, attributes, constants, inputs and outputs;
        the weights' names, shapes and dtypes), or a weight that is not a float (a
        shape, an index) differs.
    """
    if (
        not isinstance(share, numbers.Real)
        or isinstance(share, bool)
        or not (math.isfinite(share) and 0 <= share <= 1)
    ):
        raise ValueError(f"share must be a number within 0..1, not {share!r}")
    share = float(share)
    if _without_weights(start) != _without_weights(tuned):
        raise ValueError("the two networks' graphs differ (not only in their weights)")
    theirs = {w.name: numpy_helper.to_array(w) for w in tuned.graph.initializer}
    ours = {w.name: numpy_helper.to_array(w) for w in start.graph.initializer}
    if ours.keys() != theirs.keys():
        different = sorted(ours.keys() ^ theirs.keys())
        raise ValueError(f"the two networks' weights differ in name: {different[:5]}")
    blended = onnx.ModelProto()
    blended.CopyFrom(start)
    for weight in blended.graph.initializer:
        a, b = ours[weight.name], theirs[weight.name]
        if a.shape != b.shape or a.dtype != b.dtype:
            raise ValueError(
                f"weight {weight.name!r}: {a.dtype}{list(a.shape)} against {b.dtype}{list(b.shape)}"
            )
        if a.dtype.kind != "f":
            if not np.array_equal(a, b):
                raise ValueError(f"weight {weight.name!r} is not a float and differs")
            continue
        mixed = (1.0 - share) * a.astype(np.float64) + share * b.astype(np.float64)
        weight.CopyFrom(numpy_helper.from_array(mixed.astype(a.dtype), weight.name))
    return blended


def _without_weights(model: onnx.ModelProto) -> bytes:
    """The graph and operator sets of ``model`` without its weights, serialised."""
    graph = onnx.GraphProto()
    graph.CopyFrom(model.graph)
    del graph.initializer[:]
    return graph.SerializeToString(deterministic=True) + b"".join(
        o.SerializeToString(deterministic=True) for o in model.opset_import
    )


def load_network(path: Path) -> onnx.ModelProto:
    """The ONNX network at ``path``.

    Raises
    ------
    OSError
        When the file cannot be read.
    ValueError
        When it is not an ONNX network, or one without nodes or weights (an empty
        file parses as an empty network).
    """
    try:
        model = onnx.load(str(path))
    except DecodeError as error:
        raise ValueError(f"{path} is not an ONNX network ({error})") from None
    if not model.graph.node or not model.graph.initializer:
        raise ValueError(f"{path} holds no network")
    return model


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("start", type=Path, help="the pawnnet.onnx tuning started from")
    parser.add_argument("tuned", type=Path, help="the tuned pawnnet.onnx")
    parser.add_argument("--share", type=float, default=0.5, help="of the tuned network")
    parser.add_argument("--out", type=Path, required=True, help="folder for pawnnet.onnx/.json")
    parser.add_argument("--data", type=Path, help="the tuning's examples, to validate on")
    parser.add_argument("--held-out", type=int, default=40, help="as the tuning was run")
    parser.add_argument("--seed", type=int, default=0, help="as the tuning was run")
    args = parser.parse_args(argv)

    if args.out.resolve() in {args.start.resolve().parent, args.tuned.resolve().parent}:
        parser.error("--out must not be the folder of either network")
    try:
        start, tuned = load_network(args.start), load_network(args.tuned)
        blended = blend_onnx(start, tuned, args.share)
        meta = json.loads(args.tuned.with_suffix(".json").read_text())
    except (OSError, ValueError) as error:  # a broken .json is a ValueError too
        parser.error(str(error))
    meta["blended"] = {"start": str(args.start), "tuned": str(args.tuned), "share": args.share}
    meta.pop("validation", None)  # the tuned network's figures are not the blend's
    args.out.mkdir(parents=True, exist_ok=True)
    # Both files are written aside and moved in at the end, so that a failure (in the
    # validation, say) leaves no network beside another's description.
    with tempfile.TemporaryDirectory(dir=args.out) as aside:
        network, description = Path(aside) / "pawnnet.onnx", Path(aside) / "pawnnet.json"
        onnx.save(blended, str(network))
        if args.data is not None:
            try:
                meta["validation"] = _validation(network, args.data, args)
            except (OSError, ValueError, ImportError) as error:
                parser.error(f"validating on {args.data}: {error}")
        description.write_text(json.dumps(meta, indent=1) + "\n")
        os.replace(network, args.out / "pawnnet.onnx")
        os.replace(description, args.out / "pawnnet.json")
    print(f"{args.out / 'pawnnet.onnx'}: {args.share} of {args.tuned}, the rest {args.start}")
    return 0


def _validation(path: Path, data: Path, args: argparse.Namespace) -> dict[str, object]:
    """The blend's figures on the tuning's held-out examples (torch needed only here)."""
    from training.detector_model import PawnDetector
    from training.from_onnx import load_folded
    from training.train import held_out
    from training.train_detector import example_names, validate

    net = PawnDetector()
    load_folded(net, path)  # also checks that torch computes what the reader does
    held, _ = held_out(example_names(data), args.held_out, args.seed)
    figures = validate(net, held)
    print(json.dumps(figures))
    return figures


if __name__ == "__main__":
    raise SystemExit(main())
