"""A pinhole phone camera with radial distortion, looking at the table plane z = 0.

Table coordinates are millimetres with x to the right, y down the table and z up. That
frame is left-handed, so internally the camera works in the right-handed frame
``(x, y, -z)`` ("world'"), where a camera looking straight down with no roll is the
identity rotation and shows the table exactly as a top-down map: table x along image x,
table y along image y. Pixels: x right, y down, origin at the top-left corner.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

import cv2
import numpy as np

__all__ = ["Camera", "CameraParams", "fit_camera_distance", "FULL_FRAME_DIAGONAL_MM"]

#: Diagonal of a 36 × 24 mm frame; "35 mm equivalent" focal lengths refer to it.
FULL_FRAME_DIAGONAL_MM = 43.267
# Flip between table (z up) and world' (z down) coordinates.
_FLIP = np.diag([1.0, 1.0, -1.0])


@dataclass(frozen=True)
class CameraParams:
    """The phone's pose and lens.

    The camera looks at ``target_xy_mm`` on the table from ``distance_mm`` away, its
    optical axis tilted ``tilt_deg`` from straight down towards ``tilt_azimuth_deg``,
    and rotated ``roll_deg`` about the optical axis. ``k1`` is the radial distortion
    coefficient (OpenCV convention), ``fill`` the share of the frame the board spans
    along its tighter image axis (a rounded box inscribed in its bounding box).
    """

    tilt_deg: float
    tilt_azimuth_deg: float
    roll_deg: float
    distance_mm: float
    target_xy_mm: tuple[float, float]
    focal_mm_equiv: float
    k1: float
    fill: float


class _Framed(Protocol):
    """Anything with a photo size and camera parameters (a :class:`synth.scene.Scene`)."""

    @property
    def size(self) -> tuple[int, int]: ...

    @property
    def camera(self) -> CameraParams: ...


def _rot_x(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def _rot_z(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


@dataclass(frozen=True, eq=False)
class Camera:
    """Pinhole camera with one radial distortion term.

    Parameters
    ----------
    size : (width, height)
        Image size in pixels.
    K : ndarray, shape (3, 3)
        Intrinsic matrix.
    k1 : float
        Radial distortion coefficient (OpenCV model, normalised coordinates).
    R : ndarray, shape (3, 3)
        Rotation from world' (table with z flipped) to camera coordinates.
    centre_mm : ndarray, shape (3,)
        Camera position in table coordinates (z up, so ``centre_mm[2] > 0``).
    """

    size: tuple[int, int]
    K: np.ndarray
    k1: float
    R: np.ndarray
    centre_mm: np.ndarray

    # -- construction -------------------------------------------------------------
    @classmethod
    def from_params(cls, params: CameraParams, size: tuple[int, int]) -> Camera:
        """Place the camera described by ``params`` for a photo of ``size`` pixels."""
        width, height = int(size[0]), int(size[1])
        f = params.focal_mm_equiv / FULL_FRAME_DIAGONAL_MM * np.hypot(width, height)
        K = np.array([[f, 0, (width - 1) / 2], [0, f, (height - 1) / 2], [0, 0, 1.0]])
        # Camera-to-world' rotation: roll about the optical axis, tilt away from the
        # vertical, then turn the tilt towards its azimuth.
        M = (
            _rot_z(np.radians(params.tilt_azimuth_deg))
            @ _rot_x(np.radians(params.tilt_deg))
            @ _rot_z(np.radians(params.roll_deg))
        )
        forward = M[:, 2]  # points down into the table in world'
        target = np.array([params.target_xy_mm[0], params.target_xy_mm[1], 0.0])
        centre_w = target - params.distance_mm * forward
        return cls(
            size=(width, height),
            K=K,
            k1=float(params.k1),
            R=M.T,
            centre_mm=_FLIP @ centre_w,
        )

    @classmethod
    def from_scene(cls, scene: _Framed) -> Camera:
        """The camera of ``scene``."""
        return cls.from_params(scene.camera, scene.size)

    # -- derived quantities -------------------------------------------------------
    @property
    def focal_px(self) -> float:
        """Focal length in pixels."""
        return float(self.K[0, 0])

    @property
    def dist_coeffs(self) -> np.ndarray:
        """OpenCV distortion vector ``(k1, k2, p1, p2, k3)``."""
        return np.array([self.k1, 0.0, 0.0, 0.0, 0.0])

    @property
    def rvec(self) -> np.ndarray:
        """Rodrigues vector of :attr:`R` for OpenCV."""
        return cv2.Rodrigues(self.R)[0]

    @property
    def tvec(self) -> np.ndarray:
        """Translation world' -> camera for OpenCV."""
        return np.asarray(-self.R @ (_FLIP @ self.centre_mm))

    @property
    def homography(self) -> np.ndarray:
        """3×3 map from table ``(x, y, 1)`` (z = 0) to *undistorted* pixels."""
        Rt = np.column_stack([self.R[:, 0], self.R[:, 1], self.tvec])
        H = self.K @ Rt
        return np.asarray(H / H[2, 2])

    # -- projection ---------------------------------------------------------------
    def _to_world(self, points_mm: np.ndarray) -> np.ndarray:
        pts = np.asarray(points_mm, dtype=np.float64)
        if pts.ndim == 1:
            pts = pts[None]
        if pts.shape[1] == 2:
            pts = np.column_stack([pts, np.zeros(len(pts))])
        return pts @ _FLIP  # (x, y, z) -> (x, y, -z)

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """Pixel positions of table points.

        Parameters
        ----------
        points_mm : ndarray, shape (N, 3) or (N, 2)
            Points in table millimetres; 2 columns mean z = 0.

        Returns
        -------
        ndarray, shape (N, 2)
            Distorted pixel coordinates (x right, y down).
        """
        world = self._to_world(points_mm)
        if len(world) == 0:
            return np.zeros((0, 2))
        uv, _ = cv2.projectPoints(world, self.rvec, self.tvec, self.K, self.dist_coeffs)
        return uv.reshape(-1, 2)

    def depth(self, points_mm: np.ndarray) -> np.ndarray:
        """Distance of points along the optical axis (mm); larger is farther away."""
        cam = self._to_world(points_mm) @ self.R.T + self.tvec
        return np.asarray(cam[:, 2])

    def rays(self, pixels: np.ndarray) -> np.ndarray:
        """Unit viewing directions (table frame) through distorted pixel positions.

        The rays start at :attr:`centre_mm`.
        """
        norm = self.undistort(pixels)
        d_cam = np.column_stack([norm, np.ones(len(norm))])
        d_tab = d_cam @ self.R @ _FLIP  # R.T maps camera -> world', then flip z
        return np.asarray(d_tab / np.linalg.norm(d_tab, axis=1, keepdims=True))

    def window_rays(
        self, x0: int, x1: int, y0: int, y1: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Unit viewing directions through the pixels of the window ``[x0, x1) × [y0, y1)``.

        Returns the three table-frame components, each of shape ``(y1 - y0, x1 - x0)``:
        :meth:`rays` for a block of pixels, without per-pixel coordinate arrays.
        """
        f = self.focal_px
        xd = ((np.arange(x0, x1) - self.K[0, 2]) / f)[None, :]
        yd = ((np.arange(y0, y1) - self.K[1, 2]) / f)[:, None]
        scale = self._undistort_scale(xd * xd + yd * yd)
        x, y = xd * scale, yd * scale
        M = self.R @ _FLIP  # rows: what camera x, y and z contribute in the table frame
        d = [x * M[0, i] + y * M[1, i] + M[2, i] for i in range(3)]
        inv = 1.0 / np.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
        return d[0] * inv, d[1] * inv, d[2] * inv

    def undistort(self, pixels: np.ndarray) -> np.ndarray:
        """Normalised undistorted image coordinates ``(x/z, y/z)`` of pixels, (N, 2).

        With a single radial term, inverting ``x_d = x (1 + k1 r^2)`` by fixed-point
        iteration converges in a few steps for phone-like distortion, and is much
        faster than ``cv2.undistortPoints`` on large grids.
        """
        px = np.asarray(pixels, dtype=np.float64).reshape(-1, 2)
        xd = (px - self.K[:2, 2]) / self.focal_px
        return np.asarray(xd * self._undistort_scale(np.einsum("ij,ij->i", xd, xd))[:, None])

    def _undistort_scale(self, rd2: np.ndarray) -> np.ndarray:
        """``x / x_d`` for distorted points at squared radius ``rd2`` (normalised).

        The fixed-point iteration ``x <- x_d / (1 + k1 |x|^2)`` needs only this scale,
        which depends on the radius alone.
        """
        scale = np.ones_like(rd2)
        if self.k1 != 0.0:
            k_rd2 = self.k1 * rd2
            for _ in range(8):
                scale = 1.0 / (1.0 + k_rd2 * scale * scale)
        return scale

    def pixel_to_table(self, pixels: np.ndarray) -> np.ndarray:
        """Table points (mm, z = 0) seen at distorted pixel positions, shape (N, 2).

        Pixels looking above the horizon get ``nan``.
        """
        d = self.rays(pixels)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = -self.centre_mm[2] / d[:, 2]
        t = np.where(t > 0, t, np.nan)
        return np.asarray(self.centre_mm[:2] + t[:, None] * d[:, :2])

    def table_grid(self, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        """Table coordinates seen at the centres of a coarse pixel grid.

        Parameters
        ----------
        shape : (rows, cols)
            Grid size; the photo is divided into ``rows × cols`` equal cells, matching
            ``cv2.resize``'s pixel-centre convention so the grid can be resized up.

        Returns
        -------
        x_mm, y_mm : ndarray, shape (rows, cols)
        """
        rows, cols = shape
        width, height = self.size
        u = (np.arange(cols) + 0.5) * width / cols - 0.5
        v = (np.arange(rows) + 0.5) * height / rows - 0.5
        uu, vv = np.meshgrid(u, v)
        xy = self.pixel_to_table(np.column_stack([uu.ravel(), vv.ravel()]))
        return xy[:, 0].reshape(rows, cols), xy[:, 1].reshape(rows, cols)

    def px_per_mm(self, points_mm: np.ndarray) -> np.ndarray:
        """Local image scale (pixels per table millimetre) at table points, z = 0."""
        p = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
        e = 1.0
        uv = self.project(np.concatenate([p, p + [e, 0], p + [0, e]]))
        n = len(p)
        jx, jy = uv[n : 2 * n] - uv[:n], uv[2 * n :] - uv[:n]
        area = np.abs(jx[:, 0] * jy[:, 1] - jx[:, 1] * jy[:, 0])
        return np.asarray(np.sqrt(area) / e)


def fit_camera_distance(
    params: CameraParams,
    size: tuple[int, int],
    extent_mm: tuple[float, float, float, float],
    fill: float,
    offset: tuple[float, float] = (0.0, 0.0),
) -> tuple[float, tuple[float, float]]:
    """Find the camera distance and aim point that frame a board as asked.

    Parameters
    ----------
    params : CameraParams
        Tilt, roll, focal length and distortion to keep.
    size : (width, height)
        Photo size in pixels.
    extent_mm : (xmin, ymin, xmax, ymax)
        Board bounding box on the table.
    fill : float
        Wanted span, along its tighter image axis (0..1), of the projected rounded
        box inscribed in the box.
    offset : (dx, dy)
        Wanted position of the box centre relative to the image centre, as fractions
        of the image width and height.

    Returns
    -------
    distance_mm : float
    target_xy_mm : (x, y)
    """
    x0, y0, x1, y1 = extent_mm
    width, height = size
    # Frame a rounded box (superellipse |x|^3 + |y|^3 = 1) inscribed in the box rather
    # than the box: boards are round-ish blobs, and the box's corners would make the
    # fill depend on the camera's roll.
    a = np.linspace(0.0, 2 * np.pi, 72, endpoint=False)
    cx, cy = np.cos(a), np.sin(a)
    rx, ry = np.sign(cx) * np.abs(cx) ** (2 / 3), np.sign(cy) * np.abs(cy) ** (2 / 3)
    outline = np.column_stack(
        [(x0 + x1) / 2 + (x1 - x0) / 2 * rx, (y0 + y1) / 2 + (y1 - y0) / 2 * ry]
    )
    f = params.focal_mm_equiv / FULL_FRAME_DIAGONAL_MM * np.hypot(width, height)
    distance = f * max((x1 - x0) / (width * fill), (y1 - y0) / (height * fill))
    target = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
    want = np.array([width / 2 + offset[0] * width, height / 2 + offset[1] * height])
    for _ in range(8):
        trial = replace(params, distance_mm=distance, target_xy_mm=(target[0], target[1]))
        cam = Camera.from_params(trial, size)
        uv = cam.project(outline)
        span = (uv.max(axis=0) - uv.min(axis=0)) / np.array([width, height])
        # The image scale is roughly inversely proportional to the distance.
        distance *= float(span.max() / fill)
        centre = (uv.max(axis=0) + uv.min(axis=0)) / 2
        now, wanted = cam.pixel_to_table(np.array([centre, want]))
        if np.all(np.isfinite([now, wanted])):
            target = target + (now - wanted)
    return float(distance), (float(target[0]), float(target[1]))
