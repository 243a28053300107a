"""Colour profiles and camera/table geometry that the photo reader consumes.

A :class:`~calibration.profile.ColourProfile` says what the five creature colours look
like in CIELAB and how far a string or pawn must stand out from the table. The default
profile ships as ``default_profile.json`` beside this file.
"""

from calibration.profile import ColourProfile, load_profile

__all__ = ["ColourProfile", "load_profile"]
