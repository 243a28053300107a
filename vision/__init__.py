"""Photo → board: read a photo of a Dicke Dämonen table into a scored board report.

The reader is a chain of stages, each a plain function from one dataclass to the next
(see ``../shared/DESIGN.md``)::

    load → colour → separate → trace → settle → arrange → creatures → report

:func:`read_photo` runs the whole chain. Everything the reader cannot turn into a board
raises :class:`ReadError` (or a subclass) with a one-line message for the user.
"""

from vision.errors import ReadError

__all__ = ["ReadError"]
