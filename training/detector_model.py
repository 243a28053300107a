"""The pawn detector: a small fully convolutional network that marks where pawns stand.

It looks at the photo scaled so that a pawn is :data:`PAWN_PX` pixels wide, and gives,
at half that resolution, one heat map per kind of object (the four demon colours, the
ghost, and the cords' tie knots) that peaks on each object's foot, plus the offset of
the foot from the peak's pixel centre (CenterNet's "objects as points"), and for each
cord colour where that cord shows (about one output pixel wide). Telling a
pawn from its shadow, a ghost from a white table or a yellow demon from light wood is
a matter of shape and shading over a few pawn widths, which three levels of
convolutions with dilations see.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from training.model import conv_block

#: What the heat maps mark, in output order (then the x and y offsets, then the cords).
OBJECTS = ("red", "yellow", "green", "blue", "white", "knot")
#: The cords whose pixels the last maps mark, in output order.
CORDS = ("red", "yellow", "green", "blue")
#: A pawn's width in the network's input pixels.
PAWN_PX = 16.0
#: Input channels: RGB, and RGB relative to the table around (see vision.detect).
IN_CHANNELS = 6
#: Output pixels are this many input pixels.
STRIDE = 2
#: Channels at 1/2, 1/4 and 1/8 of the input resolution.
WIDTHS = (16, 32, 48)


class PawnDetector(nn.Module):  # type: ignore[misc]
    """Heat-map logits (len(OBJECTS)), foot offsets (2) and cord logits (len(CORDS)) at
    1/2 of the input's size (sides divisible by 8)."""

    def __init__(self, widths: tuple[int, int, int] = WIDTHS) -> None:
        super().__init__()
        c2, c4, c8 = widths
        self.down2 = nn.Sequential(conv_block(IN_CHANNELS, c2, 2), conv_block(c2, c2))
        self.down4 = nn.Sequential(conv_block(c2, c4, 2), conv_block(c4, c4))
        self.down8 = nn.Sequential(
            conv_block(c4, c8, 2), conv_block(c8, c8, dilation=2), conv_block(c8, c8, dilation=4)
        )
        self.up_quarter = conv_block(c8 + c4, c4)
        self.up_half = conv_block(c4 + c2, c2)
        self.head = nn.Sequential(
            conv_block(c2, c2), nn.Conv2d(c2, len(OBJECTS) + 2 + len(CORDS), 1)
        )
        # Heat maps start near "nothing here" (CenterNet's prior), so that the many
        # empty pixels do not swamp the first steps.
        head_out = self.head[-1]
        assert isinstance(head_out, nn.Conv2d)
        nn.init.constant_(head_out.bias[: len(OBJECTS)], -2.19)
        nn.init.constant_(head_out.bias[len(OBJECTS) + 2 :], -2.19)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        half = self.down2(image)
        quarter = self.down4(half)
        eighth = self.down8(quarter)
        up = self.up_quarter(torch.cat([_doubled(eighth), quarter], 1))
        up = self.up_half(torch.cat([_doubled(up), half], 1))
        return self.head(up)  # type: ignore[no-any-return]


def _doubled(x: torch.Tensor) -> torch.Tensor:
    return F.interpolate(x, scale_factor=2.0, mode="nearest")
