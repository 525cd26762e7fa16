"""A pyvista scene of a System, moved to any state or to any time of a Result.

What is drawn (bodies, grounds, joints, force elements and their stops, gears, the floor, the
annotations, CS triads and trails) is built once by :mod:`viz.actors`, which lists it.

Every body actor moves by its 4x4 ``user_matrix`` (no re-meshing per frame); only coils and
trails are re-generated.

The Scene owns the plotter, the frame updates and the camera; its actors and annotations are
:mod:`viz.actors`, the element drawings :mod:`viz.elements` (meshes), the colours
:mod:`viz.colors`, the floor and the named views :mod:`viz.framing`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyvista as pv

from mbd.compiled import dynamics

from .actors import CONTACT_ARROW, SceneActors
from .colors import (
    FLOOR_COLOR,
    FLOOR_LINE_COLOR,
    contact_color,
    contact_frame,
    stiction_color,
    stiction_frame,
)
from .elements import contact_marks, contact_rows, locate
from .framing import floor_meshes, view_position
from .shapes import Mesh, coil_points, polyline, pose_matrix

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from numpy.typing import ArrayLike

    from mbd import Result, System


class RenderError(RuntimeError):
    """Rendering failed: no graphics backend, no display for a window, or an unwritable
    output."""


class Scene(SceneActors):
    """A System drawn in a pyvista Plotter, movable to any state.

    Parameters
    ----------
    system : mbd.System
    show_cs : bool
        Draw a triad at every CS of every body and at every ground.
    trails : sequence of (body name, CS name)
        Draw the path of each of these CS origins up to the current time (needs a Result).
    size : (int, int)
        Window size, pixels (width, height).
    off_screen : bool
        Render without a window (animations, snapshots).
    lighting : bool
        False draws every surface in its flat colour (no shading).
    background : colour
        Window background.
    annotations : bool
        Draw the title, the time stamp, the force elements' labels and the contact legend
        (:mod:`viz.overlay`).
    title : str or (str, str), optional
        The title, or (title, subtitle); default the system's name over a line counting its
        machines, bodies, joints and force elements (:func:`viz.naming.default_title`).
    floor : bool
        Draw a floor under the motion (placed by :meth:`fit`).
    markers : bool or None
        Draw the joints (pins, rails, balls), the force elements on joints (washers,
        spirals, collars), the gears and the grounds without shapes (cubes); None: unless
        every body is drawn with a mesh read from a file (a robot's visual model, as
        :func:`mbd.from_urdf` gives it, whose links show their joints themselves). Coils and
        bushings are drawn either way.
    labels : bool or None
        Label the force elements (with ``annotations``); None: when there are at most
        :data:`viz.actors.MAX_LABELS` of them (a robot's two dozen limits, dampers and motors
        would hide it).
    contacts : bool
        Draw the points of the contacts (SPEC §12) while they touch, a small red ball each,
        and their forces on side b, red arrows (the run's largest :data:`CONTACT_ARROW` of
        the drawing's size long), over everything else; needs a Result (:meth:`update`).
        Off by default: the contact shapes are the picture.
    collisions : bool
        Also draw every contact shape that is not drawn already (one attached with
        ``add_shape(..., contact=True, drawn=False)``: a robot's collision geometry, as
        :func:`mbd.from_urdf` with ``contact`` attaches it), see-through
        (:data:`viz.colors.COLLISION_OPACITY`) in :data:`viz.colors.COLLISION_COLOR`,
        moving with its body (placed by its CS) or fixed with its ground. Off by default.

    Attributes
    ----------
    plotter : pyvista.Plotter
    body_actors : dict
        Body name -> list of its actors (one per shape, joint marker and triad), all moved by
        the body's pose.
    parts : list
        (actor, mesh, owner body name or None, colour or None, opacity) of every body and
        ground drawing (not the coils, trails and floor), mesh in the owner's link frame (the
        world for None), colour None where the mesh carries its own (cell array ``rgb``):
        what :func:`viz.html` writes into a web page.
    ground_actors : dict
        Ground name -> the actors of its shapes (grounds with shapes only).
    markers : bool
        Whether the joints, the force elements on joints, the gears and the grounds' cubes are
        drawn.
    coils : dict
        Force element name -> (actor, polydata) of its coil.
    contact_actors : dict
        Force element name -> the actor whose colour shows its contact state.
    stiction_actors : dict
        Stiction element name -> the actor whose colour shows whether it sticks.
    limit_actors : dict
        Bistop or Impact element name -> the actor of its stop positions (thin rings on a
        rail, bars on an arc; on the JointForces' joints only where ``markers`` are drawn).
    contact_points : list
        The contact points among the force elements (placement "contact").
    contact_marks : dict
        "dots" and "arrows" -> (actor, polydata) of the contact points' balls and force
        arrows (with ``contacts`` only), in a renderer over the scene's.
    collision_actors : list
        The actors of the contact shapes drawn only on request (``collisions``; empty
        without it).
    gear_discs : dict
        Gear name -> [(owner body, wheel actor, pitch radius m)] of its revolute sides (a
        disc, or a ring gear's rim).
    trail_lines : dict
        (body, CS) -> (actor, polydata) of its trail.
    overlay : viz.overlay.Overlay or None
        The annotations (None with ``annotations=False``).
    floor_actors : list
        The floor's plane and grid actors (empty until :meth:`fit`, or without a floor).
    """

    def __init__(self, system: System, show_cs: bool = False,
                 trails: Sequence[tuple[str, str]] = (), size: tuple[int, int] = (640, 480),
                 off_screen: bool = True, lighting: bool = True,
                 background: str | Sequence[float] = "white", annotations: bool = True,
                 title: str | tuple[str, str] | None = None, floor: bool = True,
                 markers: bool | None = None, labels: bool | None = None,
                 contacts: bool = False, collisions: bool = False) -> None:
        self.system = system
        try:
            width, height = (int(n) if float(n) == int(n) else 0 for n in size)
        except (TypeError, ValueError, OverflowError):
            width = height = 0
        if width < 1 or height < 1:
            raise ValueError(f"Scene: size must be (width, height), two whole numbers of pixels "
                             f">= 1, got {size!r}")
        self.size = (width, height)
        self.lighting = bool(lighting)
        self.length = float(getattr(system, "length_scale", 1.0)) or 1.0
        self.trails = []
        for tr in trails:
            if isinstance(tr, str) or not hasattr(tr, "__len__") or len(tr) != 2:
                raise ValueError(f"Scene: a trail is a (body, CS) pair of names, e.g. "
                                 f"('arm', 'tip'), got {tr!r}")
            self.trails.append(tuple(tr))
        for body, cs in self.trails:
            if body not in system.bodies:
                from mbd.model.errors import renamed_link
                raise ValueError(f"Scene: trail ({body!r}, {cs!r}): no body {body!r}"
                                 f"{renamed_link(body, system)}; the bodies "
                                 f"are {sorted(system.bodies)}")
            frames = system.bodies[body].body.frames
            if cs not in frames:
                raise ValueError(f"Scene: trail ({body!r}, {cs!r}): body {body!r} has no CS "
                                 f"{cs!r}; it has {sorted(frames)}")
        try:
            self.plotter = pv.Plotter(off_screen=off_screen, window_size=list(self.size))
        except Exception as err:  # any backend failure: no OpenGL, no EGL/OSMesa, ...
            raise RenderError(f"cannot create a pyvista renderer ({type(err).__name__}: {err}); "
                              "rendering needs an OpenGL backend (a display, EGL or OSMesa)") from err
        self.plotter.set_background(background)
        self.body_actors = {name: [] for name in system.bodies}
        self.parts = []
        self.ground_actors = {}
        self._cubes = 0        # grounds drawn as cubes
        self._local_bounds = {name: [] for name in system.bodies}  # corner points, link frame
        self.coils = {}
        self.contact_actors = {}
        self.stiction_actors = {}
        self.limit_actors = {}
        self.contacts = bool(contacts)
        self.contact_points = []
        self.contact_marks = {}
        self._contact_renderer = None
        self.collisions = bool(collisions)
        self.collision_actors = []
        self.gear_discs = {}
        self.trail_lines = {}
        self._anchors = {}     # force element name -> how to find its label's point
        self._static_points = []
        self._result = None
        self._cache = None
        self.markers = (bool(markers) if markers is not None else
                        not (system.bodies and all(
                            any(isinstance(shape, Mesh) for shape, _ in bm.body.shapes)
                            for bm in system.bodies.values())))
        self._build(show_cs)
        self.camera = None
        self.floor = bool(floor)
        self.floor_actors, self._floor_corners = [], None
        self.overlay = self._annotate(title, labels) if annotations else None

    # ------------------------------------------------------------------------- states

    def _cs_world(self, cs, Rl, pl):
        owner, p, R = locate(self.system, cs)
        if owner is None:
            return p, R
        link = self.system.bodies[owner].link
        return pl[link] + Rl[link] @ p, Rl[link] @ R

    def set_state(self, q: np.ndarray, contact: Mapping[str, object] | None = None,
                  t: float | None = None) -> None:
        """Move everything to the joint positions ``q`` (nq,); ``contact`` maps contact-law
        elements to their state (nonzero/True: in contact) and stiction elements to whether
        they stick, missing ones are grey; ``t`` (s) is the time shown, None none."""
        Rl, pl = dynamics.link_poses(self.system, q)
        for name, bm in self.system.bodies.items():
            T = pose_matrix(Rl[bm.link], pl[bm.link])
            for actor in self.body_actors[name]:
                actor.user_matrix = T
        ends = {}
        for fe in self.system.force_elements:
            if fe.name in self.coils:
                pa, _ = self._cs_world(fe.cs_a, Rl, pl)
                pb, _ = self._cs_world(fe.cs_b, Rl, pl)
                ends[fe.name] = (pa, pb)
                line = self.coils[fe.name][1]
                line.points = coil_points(pa, pb, 0.02 * self.length)
        for actor, _ in self.contact_marks.values():   # shown again by update() at a time
            actor.visibility = False
        contact = contact or {}
        for name, actor in self.contact_actors.items():
            actor.prop.color = contact_color(contact.get(name))
        for name, actor in self.stiction_actors.items():
            actor.prop.color = stiction_color(contact.get(name))
        self._poses = (Rl, pl)
        if self.overlay is not None:
            self.overlay.set_time(t)
            self.overlay.set_legend(self._legend(contact, self.overlay.labels))
            if self.overlay.labels:      # labels stay clear of every body's box
                self.overlay.set_obstacles(self.body_points(Rl, pl).values())
            for name, how in self._anchors.items():
                if name not in self.overlay.labels:     # left unlabelled (``labels``)
                    continue
                self.overlay.set_anchor(name, self._anchor_point(how, ends, Rl, pl))
                state = contact.get(name)
                if name in self.contact_actors:
                    self.overlay.set_frame(name, *contact_frame(state))
                elif name in self.stiction_actors:
                    self.overlay.set_frame(name, *stiction_frame(state))

    def body_points(self, Rl: np.ndarray, pl: np.ndarray) -> dict[str, np.ndarray]:
        """{body name: (8 k, 3) world points}: the corners of the boxes of the k parts drawn
        on each body (its shapes or ellipsoid, joint markers, washers, collars), placed by
        the link poses ``Rl`` (nl, 3, 3) and ``pl`` (nl, 3); bodies with nothing drawn
        are left out."""
        out = {}
        for name, bm in self.system.bodies.items():
            corners = self._local_bounds[name]
            if corners:
                out[name] = pl[bm.link] + np.vstack(corners) @ Rl[bm.link].T
        return out

    contact_color = staticmethod(contact_color)
    stiction_color = staticmethod(stiction_color)

    def state_at(self, result: Result, t: float) -> tuple[np.ndarray, dict[str, bool]]:
        """(q, contact) of ``result`` at time ``t`` (s): q interpolated linearly between the
        two rows around t (quaternions sign-aligned, then normalized); the contact state of
        the last row at or before t. Contact changes only at events and every event time is
        a row holding the state after the switch, so this is the state in force at t (the
        nearer row would show a contact up to half a row before it begins)."""
        self._bind(result)
        tt = result.t
        t = float(np.clip(t, tt[0], tt[-1]))
        i = int(np.clip(np.searchsorted(tt, t, side="right") - 1, 0, len(tt) - 1))
        if i == len(tt) - 1 or tt[i + 1] == tt[i]:
            q = result.q[i].copy()
        else:
            w = (t - tt[i]) / (tt[i + 1] - tt[i])
            qb = result.q[i + 1].copy()
            for k in self._quat_slots:   # q and -q are one rotation: take the nearer
                if np.dot(result.q[i, k], qb[k]) < 0.0:
                    qb[k] = -qb[k]
            q = (1.0 - w) * result.q[i] + w * qb
            for k in self._quat_slots:
                q[k] /= np.linalg.norm(q[k])
        contact = {name: bool(np.asarray(c[i]) != 0) for name, c in self._contact.items()}
        return q, contact

    def update(self, result: Result, row: int | None = None, t: float | None = None) -> None:
        """Move everything to row ``row`` of ``result``, or to time ``t`` (interpolated)."""
        if (row is None) == (t is None):
            raise ValueError("Scene.update: give exactly one of row and t")
        if row is not None:
            t = result.t[row]
        q, contact = self.state_at(result, t)
        self.set_state(q, contact, t=float(np.clip(t, result.t[0], result.t[-1])))
        if self.contact_marks:
            self._show_contacts(result, t)
        for key, (_, line) in self.trail_lines.items():
            path = self._trail_paths[key]
            n = int(np.searchsorted(result.t, t, side="right"))
            Rl, pl = self._poses
            here, _ = self._cs_world(self.system.bodies[key[0]].body.frames[key[1]], Rl, pl)
            pts = np.vstack([path[:n], here])
            new = polyline(pts) if len(pts) > 1 else pv.PolyData(pts)
            line.copy_from(new)

    def _bind(self, result):
        if self._result is result:
            return
        self._result = result
        self._quat_slots = []
        for jm in self.system.joints.values():
            k = 0
            for prim in jm.joint.primitives:
                if prim.kind == "S":
                    self._quat_slots.append(np.asarray(jm.q_index[k:k + 4]))
                k += prim.nq
        self._contact = {name: np.asarray(result.force(name).state["contact"])
                         for name in self.contact_actors}
        self._contact.update({name: np.asarray(result.force(name).state["stuck"])
                              for name in self.stiction_actors})
        self._trail_paths = {(b, c): result.body(b).position(c) for b, c in self.trails}
        self._contact_rows = ([contact_rows(result, fe) for fe in self.contact_points]
                              if self.contact_marks else [])
        largest = max((float(np.linalg.norm(f[touching], axis=1).max(initial=0.0))
                       for _, f, touching in self._contact_rows), default=0.0)
        self._arrow_scale = CONTACT_ARROW * self.length / largest if largest > 0.0 else 0.0

    def _show_contacts(self, result, t):
        """The balls and arrows of the contact points touching at time ``t`` (s): as the
        contact colours, the state of the last row at or before t; the point and the force
        interpolated between it and the next row where the point still touches there."""
        tt = result.t
        t = float(np.clip(t, tt[0], tt[-1]))
        i = int(np.clip(np.searchsorted(tt, t, side="right") - 1, 0, len(tt) - 1))
        j = min(i + 1, len(tt) - 1)
        w = (t - tt[i]) / (tt[j] - tt[i]) if tt[j] > tt[i] else 0.0
        points, forces = [], []
        for p, f, touching in self._contact_rows:
            if not touching[i]:
                continue
            k, wk = (j, w) if touching[j] else (i, 0.0)
            points.append((1.0 - wk) * p[i] + wk * p[k])
            forces.append((1.0 - wk) * f[i] + wk * f[k])
        # the camera may have been replaced since the layer was made (a window's reset)
        self._contact_renderer.SetActiveCamera(self.plotter.renderer.GetActiveCamera())
        for mesh, (actor, drawn) in zip(contact_marks(points, forces, self.length,
                                                      self._arrow_scale),
                                        (self.contact_marks["dots"],
                                         self.contact_marks["arrows"])):
            if mesh is not None:
                drawn.copy_from(mesh)
            actor.visibility = mesh is not None

    # ------------------------------------------------------------------------- camera

    def motion_bounds(self, result: Result | None = None,
                      q: np.ndarray | None = None) -> tuple[float, ...]:
        """(xmin, xmax, ymin, ymax, zmin, zmax) of everything drawn, over every row of
        ``result`` (or at ``q``)."""
        pts = list(self._static_points)
        if result is not None:
            qs = result.q
            if len(qs) > 400:  # the box of a long run: every few rows is plenty
                qs = qs[np.unique(np.linspace(0, len(qs) - 1, 400).astype(int))]
        else:
            qs = [self.system.initial_state().q if q is None else q]
        for qi in qs:
            Rl, pl = dynamics.link_poses(self.system, qi)
            for name, bm in self.system.bodies.items():
                for c in self._local_bounds[name]:
                    pts.append(pl[bm.link] + c @ Rl[bm.link].T)
            for fe in self.system.force_elements:
                if fe.name in self.coils:
                    pts.append(np.array([self._cs_world(fe.cs_a, Rl, pl)[0],
                                         self._cs_world(fe.cs_b, Rl, pl)[0]]))
        pts = np.vstack(pts)
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        return tuple(np.column_stack([lo, hi]).ravel())

    def up(self) -> np.ndarray:
        """The world's up direction (unit): against the first nonzero gravity of the
        machines' environments, else +z."""
        for machine in self.system.machines:
            g = np.asarray(getattr(machine.environment, "gravity", (0.0, 0.0, 0.0)), float)
            n = float(np.linalg.norm(g))
            if n > 0.0:
                return -g / n
        return np.array([0.0, 0.0, 1.0])

    def lay_floor(self, bounds: Sequence[float]) -> None:
        """Lay the floor (replacing an earlier one): a light plane with a grid of round
        spacing, square to :meth:`up`, 2 % of the drawing's size under the box ``bounds``
        (xmin, xmax, ymin, ymax, zmin, zmax) and a quarter wider than it each way."""
        for actor in self.floor_actors:
            self.plotter.remove_actor(actor)
        self.floor_actors, self._floor_corners = [], None
        if not self.floor:
            return
        plane, grid, self._floor_corners = floor_meshes(bounds, self.up(), self.length)
        self.floor_actors = [
            self.plotter.add_mesh(plane, color=FLOOR_COLOR, lighting=False),
            self.plotter.add_mesh(grid, color=FLOOR_LINE_COLOR, line_width=1, lighting=False)]

    def set_camera(self, camera: str | Sequence[Sequence[float]] | None = None,
                   bounds: Sequence[float] | None = None) -> None:
        """Aim the camera: ``camera`` None or "iso" (isometric), "xy", "xz", "yz" (looking along
        -z, +y, -x) fitted to ``bounds``; or a pyvista camera position
        ``[(position), (focal point), (view up)]``."""
        if bounds is None:
            bounds = self.motion_bounds()
        b = np.asarray(bounds, float).reshape(3, 2)
        center = b.mean(axis=1)
        radius = max(0.5 * float(np.linalg.norm(b[:, 1] - b[:, 0])), 1e-3 * self.length)
        if camera is None or isinstance(camera, str):
            room = 1.2 if self.overlay is not None else 1.0   # for the title and legend
            self.plotter.camera_position = view_position(
                camera, center, radius, self.plotter.camera.view_angle, self.size, room)
        else:
            self.plotter.camera_position = camera
        pos = np.asarray(self.plotter.camera.position)
        d = float(np.linalg.norm(pos - center))
        far = d + 1.5 * radius
        if self._floor_corners is not None:
            far = max(far, 1.05 * float(np.linalg.norm(self._floor_corners - pos, axis=1).max()))
        self.plotter.camera.clipping_range = (max(d - 1.5 * radius, 1e-3 * d), far)
        self.camera = camera
        if self.overlay is not None:
            self.overlay.relayout()

    def fit(self, result: Result | None = None,
            camera: str | Sequence[Sequence[float]] | None = None,
            q: np.ndarray | None = None) -> None:
        """Lay the floor under the whole motion of ``result`` (or the state ``q``), set the
        camera for it and render."""
        bounds = self.motion_bounds(result, q)
        self.lay_floor(bounds)
        self.set_camera(camera, bounds)
        self.render()

    # ------------------------------------------------------------------------- pictures

    def render(self) -> None:
        try:
            self.plotter.render()
        except Exception as err:
            raise RenderError(f"rendering failed ({type(err).__name__}: {err})") from err

    def screenshot(self) -> np.ndarray:
        """The current picture as an (height, width, 3) uint8 array."""
        try:
            self.plotter.render()   # screenshot() alone may return the last picture again
            return np.asarray(self.plotter.screenshot(return_img=True))[..., :3]
        except Exception as err:
            raise RenderError(f"rendering failed ({type(err).__name__}: {err})") from err

    def project(self, points: ArrayLike) -> np.ndarray:
        """Pixel coordinates (n, 2) = (column, row) of world points (n, 3) in the picture
        (rows counted from the top, as in ``screenshot``)."""
        ren = self.plotter.renderer
        h = self.size[1]
        out = []
        for p in np.atleast_2d(np.asarray(points, float)):
            ren.SetWorldPoint(p[0], p[1], p[2], 1.0)
            ren.WorldToDisplay()
            x, y, _ = ren.GetDisplayPoint()
            out.append((x, h - 1 - y))   # display y runs bottom-up, image rows top-down
        return np.array(out)

    def close(self) -> None:
        if self.overlay is not None:
            self.overlay.close()
        self.plotter.close()
