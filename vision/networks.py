"""The learned parts' networks: ONNX files in ``calibration/`` run by OpenCV's dnn
module, so that reading a photo needs no deep-learning framework."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import cv2


def thread_network(path: Path, local: threading.local) -> Any:
    """This thread's copy of the network at ``path``, kept in ``local``: an OpenCV net
    runs one input at a time, and the web app reads photos in several threads."""
    net = getattr(local, "net", None)
    if net is None:
        net = cv2.dnn.readNetFromONNX(str(path))
        local.net = net
    return net
