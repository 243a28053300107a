"""Synthetic table photos of Dicke Dämonen boards.

The generator plays a game on a random layout (:mod:`synth.boards`), samples a
:class:`~synth.scene.Scene` (table, light, camera, sensor, and now and then the harder
extras), lets the players put the pawns down (:mod:`synth.placement`, read back by the
engine's locator), places a table edge and clutter (:mod:`synth.extras`), builds a
:class:`~synth.camera.Camera` and paints the strings, knots and pawns of a
:class:`~synth.objects.SceneObjects` into a phone-like photo with
:func:`~synth.render.render`. Everything is NumPy/OpenCV; there is no 3D renderer.
"""
