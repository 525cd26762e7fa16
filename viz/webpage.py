"""One self-contained HTML page of a run (SPEC §11): the mechanism in three.js, which a person
turns around (orbit, pan, zoom), scrubs and plays, with the event log on the time bar and a
signal plotted under the view; no network and no server needed to open it.

What the page holds (a JSON block, its arrays base64-coded little-endian):

- the drawing of :class:`viz.scene.Scene`, part by part (:attr:`Scene.parts`): each body's
  shapes, ellipsoid, joint markers, force-element markers and gears in its link frame, the
  grounds' in the world (with ``collisions=True`` the contact shapes not drawn otherwise
  too, see-through orange); triangles with normals (sharp edges split) and their colours (a
  mesh's own per-vertex colours where it has them), lines as segments;
- each body's link pose at every row (position, float32 m; unit quaternion, float32); the
  page places the body's group there, interpolating between rows (positions linearly,
  rotations by slerp) as :meth:`Scene.state_at` does;
- each line or axial force element's end points at every row (a coil between them), and the
  contact state of every contact law and the stick state of every stiction element at every
  row (the colours of the GIF: green free, red in contact, blue stuck, orange slipping);
- with ``contacts=True`` (SPEC §12), every contact point that touches during the run
  (:func:`viz.elements.contact_rows`): its position (world, m) and the force on its side b
  (world, N) at every row, NaN while it does not touch, and the arrows' scale (m per N: the
  run's largest force :data:`viz.actors.CONTACT_ARROW` of the drawing's size long, as in the
  GIF); the page draws a small red ball at each touching point and a red arrow along its
  force, over everything else;
- the event log (time, element, what), the signals offered for the plot, a floor, the camera:
  its direction (isometric), and the corners of the bodies' boxes over the whole run (their
  hull), which the page's first view fits into :data:`FIT_FILL` of the canvas, whatever its
  shape (the grounds and the floor may reach beyond it).

The page takes the keyboard: space plays or pauses whichever control has focus (not while
typing into a text field); on the time bar the arrows step one row (with shift ten), Home and
End go to the first and the last row. The plot's readout is the signal interpolated between
rows at the slider's time, as the 3-D view is.

three.js (MIT licence, ``webassets/LICENSE-three.txt``) and its OrbitControls are in the
page as modules of an import map (``data:`` URLs); the viewer's own code is
``webassets/viewer.js``.

The page's scene graph is readable: ``window.mbdViewer`` has ``scene`` (each body a group
named ``body:NAME``, its matrix the link pose; with ``contacts`` a group ``contacts`` of a
ball ``contact point:NAME`` and an arrow ``contact force:NAME`` per point, visible while it
touches), ``camera``, ``setTime(t)``, ``time()``,
``play()``, ``pause()``, ``playing()``, ``signal(name)`` and ``fit(aspect)`` (the first view
again).
"""
from __future__ import annotations

import base64
import contextlib
import html as html_text
import json
import os
from typing import TYPE_CHECKING

import numpy as np
import pyvista as pv
from scipy.spatial.transform import Rotation

from mbd.compiled import dynamics
from mbd.model.files import atomic_path

from .actors import CONTACT_ARROW
from .colors import (
    CONTACT_COLOR,
    FLOOR_COLOR,
    FLOOR_LINE_COLOR,
    FREE_COLOR,
    SLIP_COLOR,
    SPRING_COLOR,
    STUCK_COLOR,
    UNKNOWN_COLOR,
)
from .elements import contact_rows, locate
from .framing import floor_meshes, view_position
from .naming import default_title, existing_folder
from .plots import _force_series, _joint_series
from .scene import Scene
from .shapes import surface_of

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from mbd import Result, System

ASSETS = os.path.join(os.path.dirname(__file__), "webassets")
#: the camera's vertical view angle, degrees (pyvista's default, so the framing is the GIF's)
VIEW_ANGLE = 30.0
#: the first view fits the bodies' extent over the run (:func:`_bodies_extent`) into this
#: fraction of the canvas's width or height, whichever is limiting
FIT_FILL = 0.85
#: the most signals the page offers by default (each is a column of the run in the page)
MAX_SIGNALS = 12


def html(source: Result | System, path: str | os.PathLike, signals: Sequence[str] | None = None,
         show_cs: bool = False, title: str | None = None, markers: bool | None = None,
         contacts: bool = False, collisions: bool = False) -> str:
    """Write the run ``source`` (a Result; a System: its initial state) as ONE self-contained
    HTML page at ``path``, whole or not at all.

    Parameters
    ----------
    source : mbd.Result or mbd.System
    path : str or os.PathLike
        The .html file; its folder must exist.
    signals : sequence of str, optional
        What the page offers for its plot, the first shown: force elements by name (the
        element's force or torque, N or N m; a bushing's |F|), joint coordinates
        (``"hinge.q"``, ``"slide.q1"``, ``"ball.angle"``) and any other column of the run
        (:meth:`mbd.Result.columns`: ``"arm.cg.z"``, ``"stop.work"``, ``"kinetic_energy"``);
        default the curves :func:`viz.plot` draws (each force element, each joint
        coordinate), at most :data:`MAX_SIGNALS`.
    show_cs : bool
        Draw a triad at every CS (x red, y green, z blue).
    title : str, optional
        The page's heading (default the model's name over what it holds).
    markers : bool or None
        Joint and force-element markers, as :class:`viz.Scene` draws them.
    contacts : bool
        Draw the contact points (SPEC §12) while they touch, a small red ball each, and an
        arrow along the force on the point's side b, the run's largest force a quarter of the
        drawing's size long, as ``viz.animate(contacts=True)`` does; a "contacts" box on the
        time bar shows or hides them. Off by default (the page holds no contact points).
    collisions : bool
        Also draw the contact shapes not drawn otherwise (attached with ``drawn=False``: a
        robot's collision geometry), see-through orange, moving with their bodies, as
        ``viz.animate(collisions=True)`` does. Off by default.

    Returns
    -------
    str
        ``path``.

    Raises
    ------
    ValueError
        A result with no rows, a signal the run does not have, a folder that does not exist.
    """
    system, result = _system_and_result(source)
    path = os.fspath(path)
    existing_folder("viz.html", path)
    page = _page(_contents(system, result, signals, show_cs, title, markers, contacts,
                           collisions))
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(page)
    return path


def notebook(source: Result | System, height: int = 640, **options: Any) -> _Inline:
    """The page of :func:`html` inline in Jupyter: an object whose ``_repr_html_`` is an
    ``<iframe>`` holding it (``height`` pixels); ``options`` as :func:`html`'s."""
    system, result = _system_and_result(source)
    page = _page(_contents(system, result, options.get("signals"), options.get("show_cs", False),
                           options.get("title"), options.get("markers"),
                           options.get("contacts", False), options.get("collisions", False)))
    return _Inline(page, int(height))


class _Inline:
    """A page shown inline by Jupyter (``_repr_html_``)."""

    def __init__(self, page, height):
        self.page, self.height = page, height

    def _repr_html_(self):
        return (f'<iframe srcdoc="{html_text.escape(self.page, quote=True)}" '
                f'style="width: 100%; height: {self.height}px; border: 0"></iframe>')


def _system_and_result(source):
    """(system, result or None) of a Result or a System; ValueError for anything else or a
    result with no rows."""
    if hasattr(source, "system") and hasattr(source, "t") and hasattr(source, "q"):
        if len(source.t) == 0:
            raise ValueError("viz.html: the result has no rows (a run stopped before its "
                             "first output row): nothing to show")
        return source.system, source
    if hasattr(source, "initial_state") and hasattr(source, "bodies"):
        return source, None
    raise ValueError(f"viz.html: give a Result or a System, got {type(source).__name__}")


# ------------------------------------------------------------------------------ contents

def _b64(array, dtype):
    return base64.b64encode(np.ascontiguousarray(array, dtype=dtype).tobytes()).decode("ascii")


def _rgb(color):
    """A colour (RGB in [0, 1], or a name pyvista knows) as [r, g, b] in [0, 1]."""
    if isinstance(color, str) or hasattr(color, "float_rgb"):
        return [float(c) for c in pv.Color(color).float_rgb]
    return [float(c) for c in np.asarray(color, dtype=float)[:3]]


def _mesh_parts(mesh, color, opacity):
    """The page's parts of a pyvista mesh: triangles (with normals, split at edges sharper
    than 40 degrees) and line segments, coloured by ``color`` or by the mesh's own per-cell
    ``rgb``."""
    surf = surface_of(mesh)
    surf = surf.triangulate() if surf.faces.size else surf
    own = color is None and "rgb" in surf.cell_data
    # a PolyData numbers its cells verts, lines, polygons, strips (none left after triangulate)
    nv, nl = surf.n_verts, surf.n_lines
    out = []
    if surf.faces.size:
        tri = pv.PolyData(surf.points, faces=surf.faces)
        if own:
            tri.cell_data["rgb"] = np.asarray(surf.cell_data["rgb"])[nv + nl:]
            tri = tri.cell_data_to_point_data()
        tri = tri.compute_normals(split_vertices=True, feature_angle=40.0,
                                  auto_orient_normals=False, consistent_normals=False)
        part = {"kind": "mesh", "positions": _b64(tri.points, "<f4"),
                "normals": _b64(tri.point_data["Normals"], "<f4"),
                "indices": _b64(tri.faces.reshape(-1, 4)[:, 1:], "<u4"),
                "opacity": float(opacity)}
        if own:
            part["colors"] = _b64(np.clip(np.round(tri.point_data["rgb"]), 0, 255), "u1")
        out.append(part)
    if nl:
        lines, segments, owners = surf.lines, [], []
        i, k = 0, 0
        while i < len(lines):       # each polyline as segments, with its cell's colour
            n = int(lines[i])
            ids = lines[i + 1:i + 1 + n]
            segments += [(a, b) for a, b in zip(ids[:-1], ids[1:])]
            owners += [nv + k] * (n - 1)
            i += n + 1
            k += 1
        ends = np.asarray(segments, dtype=np.int64).reshape(-1)
        part = {"kind": "lines", "positions": _b64(surf.points[ends], "<f4"),
                "opacity": float(opacity)}
        if own:
            rgb = np.asarray(surf.cell_data["rgb"])[np.repeat(owners, 2)]
            part["colors"] = _b64(rgb, "u1")
        out.append(part)
    for part in out:
        if "colors" not in part:
            part["color"] = _rgb(color if color is not None else UNKNOWN_COLOR)
    return out


def _signals(system, result, names):
    """[(name, unit, values)] of the signals the page offers: ``names`` (force elements, whose
    value the plot's curve of it is; joint coordinates ``JOINT.q`` or ``JOINT.qK``; any other
    column of the run), or by default the curves of :func:`viz.plot` (each force element's
    value, each joint coordinate), at most :data:`MAX_SIGNALS`."""
    if result is None:
        return []
    curves = {}
    for series in _force_series(result, None):
        curves[series.color_key] = series          # by the element's name
    for series in _joint_series(result, None):
        curves[series.label] = series              # hinge.q, slide.q1, ball.angle
    if names is None:
        names = list(curves)[:MAX_SIGNALS]
    columns, table = result.columns()
    units = result.column_units()
    out = []
    for name in names:
        if name in curves:
            series = curves[name]
            out.append((series.label, series.unit, np.asarray(series.y, dtype=float)))
        elif name in columns[1:]:
            k = columns.index(name)
            out.append((name, units[k], table[:, k]))
        else:
            raise ValueError(f"viz.html: no signal {name!r}; give a force element "
                             f"({sorted(system.force_index)}), a joint coordinate "
                             f"({[c for c in curves if c not in system.force_index][:6]} ...) "
                             f"or a column of the run ({columns[1:6]} ...)")
    return out


def _world_points(system, cs, R, p):
    """World positions (n, 3) of CS ``cs`` at every row of link rotations ``R`` (n, nl, 3, 3)
    and origins ``p`` (n, nl, 3)."""
    owner, local, _ = locate(system, cs)
    if owner is None:
        return np.repeat(local[None, :], len(p), axis=0)
    link = system.bodies[owner].link
    return p[:, link] + R[:, link] @ local


def _bodies_extent(system, scene, R, p):
    """The points (k, 3) the first view is fitted to (m): the corners of each body's box (its
    drawing's bounding box in its link frame) at every row of link rotations ``R`` (n, nl,
    3, 3) and origins ``p`` (n, nl, 3), reduced to the vertices of their convex hull (the
    union of the boxes over the run seen from any side); None without bodies."""
    from scipy.spatial import ConvexHull, QhullError
    points = []
    for name, bm in system.bodies.items():
        local = scene._local_bounds[name]
        if not local:
            continue
        c = np.vstack(local)
        lo, hi = c.min(axis=0), c.max(axis=0)
        box = np.array([[(lo, hi)[i][0], (lo, hi)[j][1], (lo, hi)[k][2]]
                        for i in range(2) for j in range(2) for k in range(2)])
        points.append((p[:, bm.link, None, :] + box @ np.swapaxes(R[:, bm.link], 1, 2))
                      .reshape(-1, 3))
    if not points:
        return None
    points = np.vstack(points)
    try:
        return points[ConvexHull(points).vertices]
    except QhullError:          # flat (all in a plane, or one point): every distinct point
        return np.unique(points.round(9), axis=0)


def _contact_data(scene, result):
    """The page's contact points (``contacts=True``): each point that touches on some row,
    its position (m) and force on b (N) per row as float32 (rows, points, 3), NaN where it
    does not touch; the arrows' scale, m per N; None when no point ever touches (or no
    result)."""
    if result is None:
        return None
    names, points, forces = [], [], []
    for fe in scene.contact_points:
        p, f, touching = contact_rows(result, fe)
        if not touching.any():
            continue
        names.append(fe.name)
        points.append(np.where(touching[:, None], p, np.nan))
        forces.append(np.where(touching[:, None], f, np.nan))
    if not names:
        return None
    points, forces = np.stack(points, axis=1), np.stack(forces, axis=1)
    largest = float(np.nanmax(np.linalg.norm(forces, axis=2)))
    scale = CONTACT_ARROW * scene.length / largest if largest > 0.0 else 0.0
    return {"names": names, "points": _b64(points, "<f4"), "forces": _b64(forces, "<f4"),
            "scale": scale}


def _contents(system, result, signal_names, show_cs, title, markers, contacts=False,
              collisions=False):
    """The page's data (a dict for JSON) of ``system`` over ``result``'s rows (or at its
    initial state, ``result`` None); with ``contacts`` its contact points
    (:func:`_contact_data`) under "contacts", a key absent otherwise; with ``collisions``
    the contact shapes not drawn otherwise among the parts (see-through orange)."""
    # the Scene's drawing only: nothing is rendered, so VTK's notes on the window are noise
    quiet = getattr(pv, "vtk_verbosity", None)
    with quiet("off") if quiet is not None else contextlib.nullcontext():
        scene = Scene(system, show_cs=show_cs, off_screen=True, annotations=False,
                      floor=False, markers=markers, collisions=collisions)
    try:
        bodies = {name: [] for name in system.bodies}
        static, where = [], {}
        for actor, mesh, owner, color, opacity in scene.parts:
            target = static if owner is None else bodies[owner]
            for part in _mesh_parts(mesh, color, opacity):
                where.setdefault(id(actor), []).append([owner, len(target)])
                target.append(part)
        if result is None:
            t = np.zeros(1)
            Rl, pl = dynamics.link_poses(system, system.initial_state().q)
            R, p = Rl[None], pl[None]
        else:
            t = np.asarray(result.t, dtype=float)
            R, p = result.evaluation.link_poses()
        body_data = []
        for name, bm in system.bodies.items():
            quat = Rotation.from_matrix(R[:, bm.link]).as_quat()        # x, y, z, w
            # the sign that keeps each row's quaternion nearest the last (for the slerp)
            flip = np.cumprod(np.r_[1.0, np.sign(np.sum(quat[1:] * quat[:-1], axis=1)
                                                 + 1e-300)])
            body_data.append({"name": name, "parts": bodies[name],
                              "position": _b64(p[:, bm.link], "<f4"),
                              "quaternion": _b64(quat * flip[:, None], "<f4")})
        coils = []
        for fe in system.force_elements:
            if fe.name in scene.coils:
                coils.append({"name": fe.name,
                              "a": _b64(_world_points(system, fe.cs_a, R, p), "<f4"),
                              "b": _b64(_world_points(system, fe.cs_b, R, p), "<f4")})
        states = []
        for kind, actors, key in (("contact", scene.contact_actors, "contact"),
                                  ("stiction", scene.stiction_actors, "stuck")):
            for name, actor in actors.items():
                rows = (None if result is None else
                        _b64(np.asarray(result.force(name).state[key]) != 0, "u1"))
                states.append({"name": name, "kind": kind, "rows": rows,
                               "coil": name in scene.coils,
                               "parts": [] if name in scene.coils else where.get(id(actor), [])})
        bounds = scene.motion_bounds(result, None if result is not None else
                                     system.initial_state().q)
        up = scene.up()
        plane, grid, _ = floor_meshes(bounds, up, scene.length)
        floor = _mesh_parts(plane, FLOOR_COLOR, 1.0) + _mesh_parts(grid, FLOOR_LINE_COLOR, 1.0)
        for part in floor:           # unlit, as in the GIF
            part["unlit"] = True
        b = np.asarray(bounds, float).reshape(3, 2)
        center = b.mean(axis=1)
        radius = max(0.5 * float(np.linalg.norm(b[:, 1] - b[:, 0])), 1e-3 * scene.length)
        position, focus, camera_up = view_position("iso", center, radius, VIEW_ANGLE,
                                                   (4, 3), 1.0)
        framing = _bodies_extent(system, scene, R, p)
        touches = _contact_data(scene, result) if contacts else None
    finally:
        scene.close()
    heading, subtitle = default_title(system) if title is None else (title, "")
    signals = _signals(system, result, signal_names)
    contents = {
        "title": heading, "subtitle": subtitle, "length": scene.length,
        "t": _b64(t, "<f8"), "rows": len(t), "bodies": body_data, "static": static,
        "floor": floor, "coils": coils, "states": states,
        "colors": {"spring": list(SPRING_COLOR), "free": list(FREE_COLOR),
                   "contact": list(CONTACT_COLOR), "unknown": list(UNKNOWN_COLOR),
                   "stuck": list(STUCK_COLOR), "slip": list(SLIP_COLOR)},
        "events": [] if result is None else [
            {"t": float(e.t), "label": f"{e.element}: {e.what}"} for e in result.events],
        "signals": [{"name": n, "unit": u, "values": _b64(v, "<f8")} for n, u, v in signals],
        "camera": {"position": [float(c) for c in position],
                   "target": [float(c) for c in focus], "up": [float(c) for c in camera_up],
                   "fov": VIEW_ANGLE, "radius": radius, "fill": FIT_FILL,
                   "fit": None if framing is None else _b64(framing, "<f4")},
    }
    if contacts:
        contents["contacts"] = touches
    return contents


def _asset(name):
    with open(os.path.join(ASSETS, name), encoding="utf-8") as fh:
        return fh.read()


def _module_url(source):
    return "data:text/javascript;base64," + base64.b64encode(source.encode("utf-8")).decode()


def _page(contents):
    """The HTML text of the page: the data, three.js and the viewer, nothing fetched."""
    imports = {"imports": {"three": _module_url(_asset("three.module.min.js")),
                           "three/OrbitControls": _module_url(_asset("OrbitControls.js"))}}
    data = json.dumps(contents, separators=(",", ":")).replace("</", "<\\/")
    title = html_text.escape(contents["title"])
    licence = _asset("LICENSE-three.txt").replace("--", "- -")
    return _asset("viewer.html").format(
        title=title, licence=licence, importmap=json.dumps(imports), data=data,
        viewer=_asset("viewer.js"), style=_asset("viewer.css"))
