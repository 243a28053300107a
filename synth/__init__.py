"""Synthetic table photos of Dicke Dämonen boards.

The generator samples a :class:`~synth.scene.Scene` (table, light, camera, sensor),
builds a :class:`~synth.camera.Camera` from it and paints the strings, knots and pawns
of a :class:`~synth.objects.SceneObjects` into a phone-like photo with
:func:`~synth.render.render`. Everything is NumPy/OpenCV; there is no 3D renderer.
"""
