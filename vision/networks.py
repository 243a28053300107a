"""The learned parts' networks: ONNX files in ``calibration/`` run by ONNX Runtime, so
that reading a photo needs no deep-learning framework."""

from __future__ import annotations

import contextlib
import math
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision import memory, parallel

#: A pass over more pixels than this gives its large blocks back as they are freed
#: (:func:`vision.memory.blocks_given_back`). In the heap kept whole, the activations
#: of each layer, freed, leave holes that those of another size do not fit: a
#: far-camera photo looked at twice over 4.2 megapixels (the network's largest input,
#: MAX_INPUT_SIDE) peaked at 976 against 798 MB. A 12-megapixel photo's pass is over
#: 1-3.1 megapixels (its scale is set by the pawn width).
KEPT_HEAP_PIXELS = 3_200_000
#: An input of more pixels than :data:`KEPT_HEAP_PIXELS` that may be cut in strips
#: (:class:`Strips`) is given to the network in strips of about this many pixels: the
#: activations of a whole 4.4-megapixel input held 290 MB at once, and a photo read
#: again at full size (1240076) peaked over 1 GB in that pass.
STRIP_PIXELS = 1_600_000


@dataclass(frozen=True)
class Strips:
    """How a fully convolutional network's input can be cut into strips of rows whose
    outputs, put together, are the whole input's bit for bit.

    Attributes
    ----------
    margin : int
        Input rows each strip is given beyond its own on either side: at least as
        many as any output row's receptive field reaches beyond its own input row, up
        and down (then what the network sees of each kept row is the same), and a
        multiple of ``multiple``.
    stride : int
        Input rows per output row.
    multiple : int
        Strips are cut at multiples of this many rows (the network's largest
        down-sampling, so that its coarser grids line up with the whole input's).
    """

    margin: int
    stride: int
    multiple: int


class Network:
    """An ONNX network run by ONNX Runtime, on as many threads as the reader's.

    One session serves every thread of a process: ONNX Runtime's ``run`` may be called
    from several threads at once (the web app reads photos in several). Its memory
    arena and memory patterns are off: they keep the buffers of the largest input the
    network ran, 300-500 MB for a whole photo, for as long as the process lives.

    Raises
    ------
    ValueError
        When ONNX Runtime cannot load the file as a network.
    """

    def __init__(self, path: Path) -> None:
        import onnxruntime  # here, not at the top: the import takes 0.1 s

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = parallel.WORKERS
        options.inter_op_num_threads = 1
        options.enable_cpu_mem_arena = False
        options.enable_mem_pattern = False
        # Its threads would spin for a while after each run, taking a core from the
        # reader's next stage.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            self._session = onnxruntime.InferenceSession(
                str(path), options, providers=["CPUExecutionProvider"]
            )
        except MemoryError:
            raise
        except Exception as error:  # its own types live in a private module of its binding
            raise ValueError(f"{path} is not a network ONNX Runtime can run: {error}") from error
        self._input = self._session.get_inputs()[0].name

    def run(self, batch: NDArray[np.float32], strips: Strips | None = None) -> NDArray[np.float32]:
        """The network's first output for an input (N, C, H, W) of float32.

        An input of more than :data:`KEPT_HEAP_PIXELS` per image is given in ``strips``
        where those are given (only for a fully convolutional network whose receptive
        field ``strips.margin`` covers).

        Raises
        ------
        ValueError
            When such an input cannot be cut where the whole input's grids line up
            (its rows, or ``strips.margin``, not a multiple of ``strips.multiple``, or
            ``strips.multiple`` not one of ``strips.stride``).
        """
        large = batch.shape[-2] * batch.shape[-1] > KEPT_HEAP_PIXELS
        with memory.blocks_given_back() if large else contextlib.nullcontext():
            if large and strips is not None:
                return self._run_in_strips(batch, strips)
            return self._run_whole(batch)

    def _run_whole(self, batch: NDArray[np.float32]) -> NDArray[np.float32]:
        feed = {self._input: np.ascontiguousarray(batch, np.float32)}
        return np.asarray(self._session.run(None, feed)[0], np.float32)

    def _run_in_strips(self, batch: NDArray[np.float32], strips: Strips) -> NDArray[np.float32]:
        """The output of ``batch`` run strip by strip: about :data:`STRIP_PIXELS` of its
        rows a strip, each run with ``strips.margin`` rows more either side, and only
        its own rows' output kept."""
        height, width = batch.shape[-2:]
        # Cut only where the whole input's grids (and its output rows) line up.
        lined_up = strips.margin % strips.multiple == 0 and strips.multiple % strips.stride == 0
        if height % strips.multiple or not lined_up:
            raise ValueError(
                f"an input {height} rows high cannot be cut in strips of {strips}: its rows "
                "and the margin must be multiples of strips.multiple, and that of the stride")
        count = math.ceil(height * width / STRIP_PIXELS)
        rows = strips.multiple * math.ceil(height / count / strips.multiple)
        output: NDArray[np.float32] | None = None
        for top in range(0, height, rows):
            bottom = min(top + rows, height)
            start, end = max(top - strips.margin, 0), min(bottom + strips.margin, height)
            strip = self._run_whole(batch[:, :, start:end])
            if output is None:
                output = np.empty(
                    (*strip.shape[:2], height // strips.stride, strip.shape[3]), np.float32)
            kept = slice((top - start) // strips.stride, (bottom - start) // strips.stride)
            output[:, :, top // strips.stride : bottom // strips.stride] = strip[:, :, kept]
        assert output is not None  # an input has rows
        return output


_networks: dict[Path, Network] = {}
_networks_lock = threading.Lock()


def load_network(path: Path) -> Network:
    """The network at ``path``, loaded once and shared by the process's threads."""
    with _networks_lock:  # two first uploads at once must not load it twice
        if path not in _networks:
            _networks[path] = Network(path)
        return _networks[path]


#: The networks a forked child inherited, kept so that none is closed while it lives:
#: closing one would wait for its threads, which the child does not have, for ever.
_inherited: list[dict[Path, Network]] = []


def _forget_networks() -> None:
    """In a forked child, load the networks again: ONNX Runtime does not promise that a
    session works after a fork (its threads are not copied), and the child's reader may
    have another number of threads (a benchmark's worker processes have one).

    A child forked after a network ran must end with ``os._exit``, as the workers of
    ``multiprocessing`` and ``concurrent.futures`` do: a normal exit runs ONNX Runtime's
    exit handlers, which wait for ever for the parent's threads.
    """
    global _networks, _networks_lock
    _inherited.append(_networks)
    _networks = {}
    _networks_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_networks)


def _input_tables() -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """The networks' input channels of 8-bit levels: the colour channel of each level
    (256, 1), and the relative channel, the log-ratio of the colour to the table's
    halved and clipped to ±1.5, of each (level << 8 | table level) (65536)."""
    colour = np.arange(256, dtype=np.float32) / 255.0
    log = np.log(colour + 0.02)
    relative = np.clip(0.5 * (log[:, None] - log[None, :]), -1.5, 1.5)
    return (colour - 0.5).reshape(256, 1), np.ascontiguousarray(relative, np.float32).ravel()


#: Looked up, not computed: the detector's input (:func:`vision.detect.detector_input`)
#: and the sizer's (:func:`vision.pawn_size.sizer_input`) are made with one arithmetic.
COLOUR_OF_LEVEL, RELATIVE_OF_PAIR = _input_tables()


@dataclass(frozen=True)
class ScaledPart:
    """How a part of a photo was given to a network: cut out, scaled, padded.

    Attributes
    ----------
    box : (rows, columns) slices
        The part of the photo.
    part_size : (width, height)
        The part's size in the photo's pixels.
    size : (width, height)
        Its size once scaled (the network's input is padded beyond it).
    padded_size : (width, height)
        The network's input size.
    """

    box: tuple[slice, slice]
    part_size: tuple[int, int]
    size: tuple[int, int]
    padded_size: tuple[int, int]

    def to_photo(self, x: float, y: float) -> tuple[float, float]:
        """A point of the network's input in the photo's pixels (pixel centres:
        x' + 0.5 = (x + 0.5) / scale)."""
        (w, h), (sw, sh) = self.part_size, self.size
        top, left = self.box[0].start or 0, self.box[1].start or 0
        return (left + (x + 0.5) * w / sw - 0.5, top + (y + 0.5) * h / sh - 0.5)

    def inside(self, x: float, y: float) -> bool:
        """Whether a point of the input is in the scaled part (not in the padding)."""
        return x < self.size[0] and y < self.size[1]

    def maps_to_photo(
        self, maps: NDArray[np.float32], stride: int, shape: tuple[int, ...]
    ) -> list[NDArray[np.uint8]]:
        """Output maps (C, h, w) of sureness 0..255, one output pixel per ``stride``
        input pixels, as images of the photo's ``shape`` (0 outside the part): all at
        once, channels last, up to the padded input, cut to the scaled part, then one
        at a time back to the part's pixels.

        (One bilinear warp straight from the output to the part's pixels is as exact
        and no faster, and its sharper maps changed four readings of 648 for the worse
        and two for the better: the readings hang on these maps at 128.)
        """
        count = maps.shape[0]
        (pw, ph) = self.padded_size
        if (maps.shape[2] * stride, maps.shape[1] * stride) != (pw, ph):
            raise ValueError(f"maps of {maps.shape[1:]} are not the input's {ph, pw} / {stride}")
        grown = cv2.resize(maps.transpose(1, 2, 0), self.padded_size)
        grown = grown.reshape(self.padded_size[1], self.padded_size[0], count)
        scaled = grown[: self.size[1], : self.size[0]]

        def back_to_photo(index: int) -> NDArray[np.uint8]:
            grown_one = cv2.resize(np.ascontiguousarray(scaled[:, :, index]), self.part_size)
            back: NDArray[np.uint8] = np.asarray(grown_one, np.float32).astype(np.uint8)
            if back.shape[:2] == tuple(shape[:2]):
                return back
            whole = np.zeros(shape[:2], np.uint8)
            whole[self.box] = back
            return whole

        # One map at a time in each of the reader's threads (4 + 1 bytes a pixel each):
        # all of them at once in float at the part's size is 16 bytes a pixel, the
        # largest allocation of a photo read at full size, and a part of more than
        # MAX_SHARED_PIXELS, as that is, has its maps done one by one.
        part_pixels = self.part_size[0] * self.part_size[1]
        return parallel.map_in_threads(back_to_photo, range(count), part_pixels)


def run_on_part(
    net: Network,
    rgb: NDArray[np.uint8],
    box: tuple[slice, slice] | None,
    scale: float,
    side_multiple: int,
    network_input: Callable[[NDArray[np.uint8]], NDArray[np.float32]],
    min_side: int = 8,
    strips: Strips | None = None,
) -> tuple[NDArray[np.float32], ScaledPart]:
    """Run ``net`` on a part of ``rgb`` (all of it when ``box`` is None) scaled by
    ``scale``, its sides padded to a multiple of ``side_multiple`` with the edge
    repeated (the border looks like more of the same table). ``network_input`` makes
    the input (C, H, W) from the scaled RGB; a large input is given in ``strips`` where
    those are given (:meth:`Network.run`). Returns the output of the one image and how
    the part was given."""
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
        raise ValueError(f"expected an (H, W, 3) uint8 RGB image, got {rgb.shape} {rgb.dtype}")
    rows, columns = box or (slice(0, rgb.shape[0]), slice(0, rgb.shape[1]))
    part = rgb[rows, columns]
    h, w = part.shape[:2]
    size = (max(int(round(w * scale)), min_side), max(int(round(h * scale)), min_side))
    shrink = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    scaled = cv2.resize(part, size, interpolation=shrink)
    m = side_multiple
    padded = cv2.copyMakeBorder(scaled, 0, -size[1] % m, 0, -size[0] % m, cv2.BORDER_REPLICATE)
    output = net.run(network_input(np.asarray(padded, np.uint8))[None], strips)[0]
    view = ScaledPart((rows, columns), (w, h), size, (padded.shape[1], padded.shape[0]))
    return output, view
