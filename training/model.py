"""The pixel classifier: a small U-Net, cheap enough for a 3-megapixel photo on a CPU.

Four levels (full, 1/2, 1/4, 1/8 resolution); the coarsest sees about 100 pixels around
each pixel through dilated convolutions, enough to tell a cord from the grain of the
table it lies on. The head gives, per pixel, one logit per class of
:data:`synth.labels.PIXEL_CLASSES` and one for "a pawn's foot is here".
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from synth.labels import PIXEL_CLASSES

#: Channels at full, 1/2, 1/4 and 1/8 resolution.
WIDTHS = (8, 16, 24, 40)
#: Output channels: the classes, then the foot.
OUTPUTS = len(PIXEL_CLASSES) + 1


def conv_block(cin: int, cout: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
    """3x3 convolution, batch norm, ReLU: the building block of both networks."""
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, padding=dilation, dilation=dilation, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


class PixelNet(nn.Module):  # type: ignore[misc]
    """Per-pixel class and foot logits of an RGB image (sides divisible by 8)."""

    def __init__(self, widths: tuple[int, int, int, int] = WIDTHS) -> None:
        super().__init__()
        c0, c1, c2, c3 = widths
        self.full = conv_block(3, c0)
        self.down2 = nn.Sequential(conv_block(c0, c1, 2), conv_block(c1, c1))
        self.down4 = nn.Sequential(conv_block(c1, c2, 2), conv_block(c2, c2))
        self.down8 = nn.Sequential(
            conv_block(c2, c3, 2), conv_block(c3, c3, dilation=2), conv_block(c3, c3, dilation=4)
        )
        self.up_quarter = conv_block(c3 + c2, c2)
        self.up_half = conv_block(c2 + c1, c1)
        self.head = nn.Sequential(
            nn.Conv2d(c1 + c0, 2 * c0, 1, bias=False),
            nn.BatchNorm2d(2 * c0),
            nn.ReLU(inplace=True),
            nn.Conv2d(2 * c0, OUTPUTS, 1),
        )

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        full = self.full(image)
        half = self.down2(full)
        quarter = self.down4(half)
        eighth = self.down8(quarter)
        up = self.up_quarter(torch.cat([_doubled(eighth), quarter], 1))
        up = self.up_half(torch.cat([_doubled(up), half], 1))
        return self.head(torch.cat([_doubled(up), full], 1))  # type: ignore[no-any-return]


def _doubled(x: torch.Tensor) -> torch.Tensor:
    return F.interpolate(x, scale_factor=2.0, mode="nearest")
