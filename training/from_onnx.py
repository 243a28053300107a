"""Start a network's training from its exported ONNX file instead of from scratch.

The ONNX files in ``calibration/`` are what ships; the PyTorch checkpoints they came from
stay on the machine that trained them. Exported in eval mode, every convolution had its
batch norm folded into it (weights scaled, a bias added), so the file holds one weight
and one bias per convolution. :func:`load_folded` puts them back into a fresh network with
batch norms that pass through (mean 0, variance 1, scale 1, shift = the folded bias):
the network then computes exactly what the file does. :func:`restore_batch_norms` then
gives every batch norm the statistics of its input on real crops, and a scale and shift
that undo them, so that the network still computes the same in eval mode and nearly the
same in train mode, where batch norms normalise by each batch's own statistics.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from torch import nn

from vision.networks import Network


def load_folded(net: nn.Module, path: Path) -> None:
    """Load the folded convolutions of the ONNX file at ``path`` into ``net``.

    Parameters
    ----------
    net : torch.nn.Module
        A fresh network of the architecture the file was exported from, whose every
        bias-free convolution is followed by a batch norm (``conv_block``).
    path : Path
        The exported ONNX file.

    Raises
    ------
    ValueError
        If a convolution of the file has no counterpart in ``net``, or shapes differ.
    """
    model = onnx.load(str(path))
    weights = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    modules = dict(net.named_modules())
    loaded = 0
    for node in model.graph.node:
        if node.op_type != "Conv":
            continue
        # The exporter names a node's output after the module it came from:
        # "/down2/down2.0/down2.0.0/Conv_output_0" is module "down2.0.0".
        parts = node.output[0].split("/")
        name = parts[-2] if len(parts) > 2 else node.input[1].rsplit(".", 1)[0]
        conv = modules.get(name)
        if not isinstance(conv, nn.Conv2d):
            raise ValueError(f"{path}: no convolution {name!r} in the network")
        weight = torch.from_numpy(weights[node.input[1]].copy())
        bias = torch.from_numpy(weights[node.input[2]].copy())
        if weight.shape != conv.weight.shape:
            shapes = f"{tuple(weight.shape)}, not {tuple(conv.weight.shape)}"
            raise ValueError(f"{path}: {name} is {shapes}")
        with torch.no_grad():
            conv.weight.copy_(weight)
            if conv.bias is not None:
                conv.bias.copy_(bias)
            else:
                norm = _norm_after(modules, name)
                norm.reset_parameters()
                norm.running_var.fill_(1.0 - norm.eps)
                norm.bias.copy_(bias)
        loaded += 1
    expected = sum(isinstance(m, nn.Conv2d) for m in net.modules())
    if loaded != expected:
        raise ValueError(f"{path}: {loaded} convolutions for a network of {expected}")
    channels = model.graph.input[0].type.tensor_type.shape.dim[1].dim_value
    _check_same_as_reader(net, path, channels)


def _check_same_as_reader(net: nn.Module, path: Path, channels: int) -> None:
    """Raise if ``net`` does not compute what the reader (ONNX Runtime) computes from the
    file."""
    x = np.random.default_rng(0).normal(size=(1, channels, 64, 96)).astype(np.float32)
    expected = Network(path).run(x)
    net.eval()
    with torch.no_grad():
        got = net(torch.from_numpy(x)).numpy()
    net.train()
    tolerance = 1e-3 * (1 + np.abs(expected).max())
    if got.shape != expected.shape or np.abs(got - expected).max() > tolerance:
        raise ValueError(f"{path}: the loaded network does not compute what the file does")


def restore_batch_norms(net: nn.Module, inputs: Iterable[torch.Tensor]) -> None:
    """Give every batch norm of ``net`` its input's statistics over ``inputs`` (batches
    of network input) and the scale and shift that undo them, so that the network's
    eval-mode output stays what it was.

    Only right once, straight after :func:`load_folded`, while the batch norms still
    pass their input through (a second call would add the means again)."""
    norms = [m for m in net.modules() if isinstance(m, nn.BatchNorm2d)]
    sums = {id(m): [0.0, torch.zeros(m.num_features), torch.zeros(m.num_features)] for m in norms}

    def record(module: nn.Module, args: tuple[torch.Tensor, ...]) -> None:
        x = args[0].detach().transpose(0, 1).reshape(args[0].shape[1], -1).double()
        total = sums[id(module)]
        total[0] += x.shape[1]
        total[1] += x.sum(1)
        total[2] += (x * x).sum(1)

    hooks = [m.register_forward_pre_hook(record) for m in norms]
    net.eval()
    with torch.no_grad():
        for batch in inputs:
            net(batch)
    for hook in hooks:
        hook.remove()
    with torch.no_grad():
        for norm in norms:
            count, total, squares = sums[id(norm)]
            if not count:
                raise ValueError("no inputs to take the batch norms' statistics from")
            mean = total / count
            var = torch.clamp(squares / count - mean * mean, min=1e-6)
            shift = norm.bias.detach().double().clone()  # the folded bias
            norm.running_mean.copy_(mean.float())
            norm.running_var.copy_(var.float())
            norm.weight.copy_(torch.sqrt(var + norm.eps).float())
            norm.bias.copy_((mean + shift).float())
    net.train()


def _norm_after(modules: dict[str, nn.Module], conv_name: str) -> nn.BatchNorm2d:
    parent, _, index = conv_name.rpartition(".")
    norm = modules.get(f"{parent}.{int(index) + 1}" if parent else str(int(index) + 1))
    if not isinstance(norm, nn.BatchNorm2d):
        raise ValueError(f"convolution {conv_name!r} has no bias and no batch norm after it")
    return norm
