"""Framing a scene: the floor under the motion (a light plane with a grid of round spacing,
square to the up direction, just under everything the motion reaches) and the camera's place
for a named view."""
import numpy as np
import pyvista as pv

from .shapes import frame_of

VIEWS = {  # camera direction (from focal point to camera) and view-up
    "iso": ((1.0, -1.0, 1.0), (0.0, 0.0, 1.0)),
    "xy": ((0.0, 0.0, 1.0), (0.0, 1.0, 0.0)),
    "xz": ((0.0, -1.0, 0.0), (0.0, 0.0, 1.0)),
    "yz": ((1.0, 0.0, 0.0), (0.0, 0.0, 1.0)),
}


def round_step(x):
    """The smallest of 1, 2, 2.5, 5 times a power of ten that is >= x (> 0).

    Examples
    --------
    >>> round_step(0.13), round_step(0.3), round_step(7.0)
    (0.2, 0.5, 10.0)
    """
    power = 10.0 ** np.floor(np.log10(x))
    for m in (1.0, 2.0, 2.5, 5.0, 10.0):
        if m * power >= x * (1 - 1e-12):
            return float(m * power)


def floor_meshes(bounds, up, length):
    """(plane, grid, corners (4, 3) of the plane, m) of a floor square to ``up`` (unit),
    2 % of ``length`` (m, the drawing's size) under the box ``bounds`` (xmin, xmax, ymin, ymax,
    zmin, zmax, m) and a quarter wider than it each way; the grid spacing is a round number
    (:func:`round_step`) near a sixth of the box's width."""
    L = length
    e1, e2 = frame_of(up)
    b = np.asarray(bounds, float).reshape(3, 2)
    corners = np.array([[b[0, i], b[1, j], b[2, k]] for i in range(2) for j in range(2)
                        for k in range(2)])
    level = float((corners @ up).min()) - 0.02 * L
    u, v = corners @ e1, corners @ e2
    pad = 0.25 * max(np.ptp(u), np.ptp(v), 0.2 * L)
    step = round_step(max(np.ptp(u), np.ptp(v)) / 6.0 + 1e-12)
    us = np.arange(np.floor((u.min() - pad) / step), np.ceil((u.max() + pad) / step) + 1)
    vs = np.arange(np.floor((v.min() - pad) / step), np.ceil((v.max() + pad) / step) + 1)
    us, vs = us * step, vs * step

    def at(a, c, lift=0.0):
        return (level + lift) * up + a * e1 + c * e2
    quad = np.array([at(us[0], vs[0]), at(us[-1], vs[0]), at(us[-1], vs[-1]),
                     at(us[0], vs[-1])])
    plane = pv.PolyData(quad, faces=np.array([4, 0, 1, 2, 3], dtype=np.int64))
    lift = 0.002 * L      # the grid just above the plane: no depth fighting
    segments = [(at(a, vs[0], lift), at(a, vs[-1], lift)) for a in us]
    segments += [(at(us[0], c, lift), at(us[-1], c, lift)) for c in vs]
    pts = np.array([p for seg in segments for p in seg])
    cells = np.hstack([[2, 2 * k, 2 * k + 1] for k in range(len(segments))]).astype(np.int64)
    return plane, pv.PolyData(pts, lines=cells), quad


def view_position(camera, center, radius, view_angle, size, room):
    """The pyvista camera position ``[(position), (focal point), (view up)]`` (m) of a named
    view: ``camera`` None or "iso" (isometric), "xy", "xz", "yz" (looking along -z, +y, -x)
    at ``center`` (m), far enough that a sphere of ``room`` times ``radius`` (m) fits, 5 %
    to spare, a picture of ``size`` (width, height pixels) seen under the vertical
    ``view_angle`` (degrees).

    Examples
    --------
    >>> position, focus, up = view_position("xy", (0.0, 0.0, 0.0), 1.0, 90.0, (100, 100), 1.0)
    >>> [round(float(c), 4) for c in position]     # 1.05 / sin 45 deg above the centre
    [0.0, 0.0, 1.4849]
    """
    key = "iso" if camera is None else camera
    if key not in VIEWS:
        raise ValueError(f"camera must be one of {sorted(VIEWS)} or a pyvista camera "
                         f"position, got {camera!r}")
    direction, up = (np.asarray(v, float) for v in VIEWS[key])
    direction /= np.linalg.norm(direction)
    half = np.radians(view_angle) / 2.0     # vertical half-angle
    w, h = size
    half = min(half, np.arctan(np.tan(half) * w / h))   # or the horizontal, if narrower
    dist = 1.05 * room * radius / np.sin(half)
    return [tuple(center + dist * direction), tuple(center), tuple(up)]
