"""A pyvista scene of a System, moved to any state or to any time of a Result.

What is drawn:

- bodies: their shapes (``body.add_shape``); a body without shapes is drawn as its
  *inertia-equivalent ellipsoid*: the uniform solid ellipsoid with the body's mass and
  principal moments, semi-axes ``a_i^2 = 5/(2m) (I_j + I_k - I_i)`` along the principal axes,
  centred on the CG (each semi-axis at least 2 % of the drawing's size, so that point masses
  stay visible);
- grounds: small dark cubes;
- joints, at the follower CS (the base CS when the follower is a ground), one marker per
  primitive: revolute a pin along its axis, prismatic a thin rail along its axis, spherical a
  ball (axes after the first primitive of a joint are drawn as in the reference pose);
- line and axial force elements (and BodySpringDamper): a coil between the two CS origins,
  re-generated each frame; a Bushing: a rubber sleeve fixed to A around CS A's z axis and a
  pin fixed to B along CS B's z axis; a JointForce: a marker on its primitive at the joint's
  follower CS (the base CS when the follower is a ground): for a revolute primitive a washer on the
  pin (a spiral for a law without contact), for a prismatic one a collar around the body;
- contact colours: gap, backlash and stop laws (ElastoGap, ElastoBacklash, ElastoBacklash2,
  Bistop, Impact) colour their coil or marker by their contact state (green not in contact,
  red in contact); without a Result (a System drawn at a state) the contact is unknown: grey;
- stick-slip colours: a JointStiction's marker (a washer or collar, as a contact law's) is
  blue while it sticks and orange while it slips (grey without a Result);
- a GearConstraint: two brass wheels with a toothed rim and a white spoke, one on each geared
  primitive's moving side, radii in the ratio; where the axes are parallel and apart the
  pitch circles touch: two discs for a pair turning opposite ways (ratio < 0), a ring gear
  round the smaller wheel for one turning the same way (ratio > 0); a rack (prismatic side)
  as a bar, its pinion at its pitch radius;
- a floor: a light grid plane under everything the motion reaches, square to gravity;
- annotations (:mod:`viz.overlay`): a title (the model's name and what it holds), the time
  (``t = 1.234 s``), a label per force element (its kind and name, e.g. ``Bistop 'stops'``:
  :func:`viz.naming.element_label`) joined to it by a leader line and framed in its contact
  colour, and a legend of the colours (grounds, and the contact states);
- optional CS triads (``show_cs``: x red, y green, z blue) and trails (paths of named CSs).

Every body actor moves by its 4x4 ``user_matrix`` (no re-meshing per frame); only coils and
trails are re-generated.
"""
import numpy as np
import pyvista as pv

from mbd.compiled import dynamics

from .naming import element_label
from .overlay import Overlay

#: Law classes whose elements are coloured by their contact state.
CONTACT_LAWS = ("ElastoGap", "ElastoBacklash", "ElastoBacklash2", "Bistop", "Impact")
FREE_COLOR = (0.0, 0.75, 0.0)
CONTACT_COLOR = (0.9, 0.0, 0.0)
UNKNOWN_COLOR = (0.6, 0.6, 0.6)
#: label backgrounds: a pale tint of the contact colours
FREE_TINT = (0.9, 1.0, 0.9)
CONTACT_TINT = (1.0, 0.86, 0.86)
#: Law classes whose elements are coloured by whether they stick or slip.
STICTION_LAWS = ("_StictionLaw",)
STUCK_COLOR = (0.1, 0.35, 0.85)
SLIP_COLOR = (1.0, 0.55, 0.0)
STUCK_TINT = (0.86, 0.9, 1.0)
SLIP_TINT = (1.0, 0.93, 0.84)
#: the colours that say something, kept exact in a GIF's palette
STATE_COLORS = (FREE_COLOR, CONTACT_COLOR, UNKNOWN_COLOR, FREE_TINT, CONTACT_TINT,
                STUCK_COLOR, SLIP_COLOR, STUCK_TINT, SLIP_TINT)
FLOOR_COLOR = (0.95, 0.95, 0.96)
FLOOR_LINE_COLOR = (0.84, 0.84, 0.87)
_PALETTE = ((0.12, 0.47, 0.71), (1.0, 0.5, 0.05), (0.58, 0.40, 0.74), (0.55, 0.34, 0.29),
            (0.89, 0.47, 0.76), (0.74, 0.74, 0.13), (0.09, 0.75, 0.81))
_JOINT_COLOR = (0.45, 0.45, 0.45)
_GROUND_COLOR = (0.2, 0.2, 0.2)
_SPRING_COLOR = (0.25, 0.25, 0.3)
_BUSHING_COLOR = (0.15, 0.15, 0.15)
_GEAR_COLOR = (0.72, 0.6, 0.25)         # brass
_GEAR_TEETH_COLOR = (0.5, 0.4, 0.12)
_VIEWS = {  # camera direction (from focal point to camera) and view-up
    "iso": ((1.0, -1.0, 1.0), (0.0, 0.0, 1.0)),
    "xy": ((0.0, 0.0, 1.0), (0.0, 1.0, 0.0)),
    "xz": ((0.0, -1.0, 0.0), (0.0, 0.0, 1.0)),
    "yz": ((1.0, 0.0, 0.0), (0.0, 0.0, 1.0)),
}


class RenderError(RuntimeError):
    """Rendering failed: no graphics backend, no display for a window, or an unwritable
    output."""


def _matrix(R, p):
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = p
    return T


def _transformed(mesh, R, p):
    return mesh.transform(_matrix(R, p), inplace=False)


def _frame_of(axis):
    """Two unit vectors completing ``axis`` (unit) to a right-handed frame."""
    helper = np.array([1.0, 0.0, 0.0]) if abs(axis[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    e1 = np.cross(axis, helper)
    e1 /= np.linalg.norm(e1)
    return e1, np.cross(axis, e1)


def coil_points(pa, pb, radius, turns=8, per_turn=16):
    """Points of a coil from ``pa`` to ``pb`` (world, m): straight leads over the first and
    last 10 % and a helix of ``radius`` and ``turns`` between; the first point is ``pa`` and
    the last ``pb`` exactly.

    Examples
    --------
    >>> pts = coil_points((0, 0, 0), (0, 0, 2.0), radius=0.1)
    >>> pts[0].tolist(), pts[-1].tolist()
    ([0.0, 0.0, 0.0], [0.0, 0.0, 2.0])
    """
    pa = np.asarray(pa, dtype=float)
    pb = np.asarray(pb, dtype=float)
    d = pb - pa
    length = float(np.linalg.norm(d))
    axis = d / length if length > 0.0 else np.array([0.0, 0.0, 1.0])
    e1, e2 = _frame_of(axis)
    s = np.linspace(0.1, 0.9, turns * per_turn + 1)
    phase = 2.0 * np.pi * turns * (s - 0.1) / 0.8
    helix = pa + np.outer(s, d) + radius * (np.outer(np.cos(phase), e1)
                                            + np.outer(np.sin(phase), e2))
    return np.vstack([pa, helix, pb])


def _round_step(x):
    """The smallest of 1, 2, 2.5, 5 times a power of ten that is >= x (> 0).

    Examples
    --------
    >>> _round_step(0.13), _round_step(0.3), _round_step(7.0)
    (0.2, 0.5, 10.0)
    """
    power = 10.0 ** np.floor(np.log10(x))
    for m in (1.0, 2.0, 2.5, 5.0, 10.0):
        if m * power >= x * (1 - 1e-12):
            return float(m * power)


def _polyline(points):
    n = len(points)
    return pv.PolyData(np.asarray(points, float), lines=np.hstack([[n], np.arange(n)]).astype(np.int64))


def _law_name(fe):
    law = getattr(fe, "law", None)
    return type(law).__name__ if law is not None else ""


def default_title(system):
    """(title, subtitle) of a picture of ``system``: its name, and how many machines,
    bodies, joints and force elements it holds."""
    def count(items, one, many):
        return f"{len(items)} {one if len(items) == 1 else many}"
    return system.name, ", ".join([count(system.machines, "machine", "machines"),
                                   count(system.bodies, "body", "bodies"),
                                   count(system.joints, "joint", "joints"),
                                   count(system.force_elements, "force element",
                                         "force elements")])


def _triad(length):
    """Three coloured segments (x red, y green, z blue) from the origin."""
    pts = np.array([[0, 0, 0], [length, 0, 0], [0, 0, 0], [0, length, 0], [0, 0, 0],
                    [0, 0, length]], dtype=float)
    mesh = pv.PolyData(pts, lines=np.array([2, 0, 1, 2, 2, 3, 2, 4, 5], dtype=np.int64))
    mesh.cell_data["rgb"] = np.array([[230, 0, 0], [0, 170, 0], [0, 0, 230]], dtype=np.uint8)
    return mesh


class Scene:
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
        machines, bodies, joints and force elements (:func:`default_title`).
    floor : bool
        Draw a floor under the motion (placed by :meth:`fit`).

    Attributes
    ----------
    plotter : pyvista.Plotter
    body_actors : dict
        Body name -> list of its actors (one per shape, joint marker and triad), all moved by
        the body's pose.
    coils : dict
        Force element name -> (actor, polydata) of its coil.
    contact_actors : dict
        Force element name -> the actor whose colour shows its contact state.
    stiction_actors : dict
        Stiction element name -> the actor whose colour shows whether it sticks.
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

    def __init__(self, system, show_cs=False, trails=(), size=(640, 480), off_screen=True,
                 lighting=True, background="white", annotations=True, title=None,
                 floor=True):
        self.system = system
        self.size = (int(size[0]), int(size[1]))
        self.lighting = bool(lighting)
        self.length = float(getattr(system, "length_scale", 1.0)) or 1.0
        self.trails = [tuple(tr) for tr in trails]
        for body, cs in self.trails:
            if body not in system.bodies:
                raise ValueError(f"Scene: trail ({body!r}, {cs!r}): no body {body!r}; the bodies "
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
        self._local_bounds = {name: [] for name in system.bodies}  # corner points, link frame
        self.coils = {}
        self.contact_actors = {}
        self.stiction_actors = {}
        self.gear_discs = {}
        self.trail_lines = {}
        self._anchors = {}     # force element name -> how to find its label's point
        self._static_points = []
        self._result = None
        self._cache = None
        self._build(show_cs)
        self.camera = None
        self.floor = bool(floor)
        self.floor_actors, self._floor_corners = [], None
        self.overlay = self._annotate(title) if annotations else None

    # ------------------------------------------------------------------------- building

    def _add(self, mesh, owner, color, opacity=1.0, **kw):
        """Add ``mesh`` (in the owner's link frame, or world for owner None) as an actor."""
        actor = self.plotter.add_mesh(mesh, color=color, opacity=opacity,
                                      lighting=self.lighting, **kw)
        if owner is None:
            self._static_points.append(np.array(mesh.bounds).reshape(3, 2).T)
        else:
            self.body_actors[owner].append(actor)
            b = np.array(mesh.bounds).reshape(3, 2)
            corners = np.array([[b[0, i], b[1, j], b[2, k]] for i in range(2)
                                for j in range(2) for k in range(2)])
            self._local_bounds[owner].append(corners)
        return actor

    def _where(self, cs):
        """(owner body name or None, position, rotation) of a CS: in its body's link frame,
        or in the world for a ground CS."""
        bm = self.system.bodies.get(getattr(cs.owner, "name", None))
        if bm is None or cs.owner is not bm.body:
            return None, np.asarray(cs.position, float), np.asarray(cs.rotation, float)
        p, R = bm.cs_local(cs)
        return bm.body.name, p, R

    def _build(self, show_cs):
        s = self.system
        L = self.length
        for i, (name, bm) in enumerate(s.bodies.items()):
            body = bm.body
            if body.shapes:
                for k, (shape, cs_name) in enumerate(body.shapes):
                    p, R = bm.cs_local(body.frames[cs_name])
                    color = shape.color if shape.color is not None else _PALETTE[i % len(_PALETTE)]
                    self._add(_transformed(shape.polydata(), R, p), name, color, shape.opacity)
            else:
                self._add(self._ellipsoid(bm), name, _PALETTE[i % len(_PALETTE)])
            if show_cs:
                for cs in body.frames.values():
                    p, R = bm.cs_local(cs)
                    self._add(_transformed(_triad(0.08 * L), R, p), name, None, scalars="rgb",
                              rgb=True, line_width=2)
        for g in s.grounds.values():
            c = 0.03 * L
            self._add(pv.Box(bounds=(-c, c, -c, c, -c, c)).translate(g.position, inplace=False),
                      None, _GROUND_COLOR)
            if show_cs:
                self._add(_transformed(_triad(0.08 * L), g.rotation, g.position), None, None,
                          scalars="rgb", rgb=True, line_width=2)
        for jm in s.joints.values():
            self._joint(jm.joint)
        for fe in s.force_elements:
            self._force(fe)
        for dm in s.drivers:
            if hasattr(dm.driver, "joint_a") and hasattr(dm.driver, "joint_b"):
                self._gear(dm.driver)
        for key in self.trails:
            line = pv.PolyData(np.zeros((1, 3)))
            actor = self.plotter.add_mesh(line, color=(0.1, 0.1, 0.1), line_width=2,
                                          lighting=False)
            self.trail_lines[key] = (actor, line)

    def _annotate(self, title):
        """The overlay: title, time stamp, one label per force element it can place, and
        the legend: the grounds' colour, and the contact colours when something shows a
        contact state."""
        if title is None:
            heading, subtitle = default_title(self.system)
        elif isinstance(title, tuple):
            heading, subtitle = title
        else:
            heading, subtitle = title, None
        labels = [(fe.name, element_label(fe)) for fe in self.system.force_elements
                  if fe.name in self._anchors]
        legend = [(_GROUND_COLOR, "ground")]
        if self.contact_actors:
            legend += [(FREE_COLOR, "not in contact"), (CONTACT_COLOR, "in contact")]
        if self.stiction_actors:
            legend += [(STUCK_COLOR, "stuck"), (SLIP_COLOR, "slipping")]
        return Overlay(self.plotter.renderer, self.size, heading, subtitle, labels, legend)

    def _ellipsoid(self, bm):
        body = bm.body
        I = 0.5 * (body.inertia + body.inertia.T)
        moments, axes = np.linalg.eigh(I)
        tot = moments.sum()
        semi2 = 5.0 / (2.0 * body.mass) * (tot - 2.0 * moments)   # I_j + I_k - I_i
        semi = np.sqrt(np.clip(semi2, 0.0, None))
        semi = np.maximum(semi, 0.02 * self.length)
        sphere = pv.Sphere(radius=1.0, theta_resolution=32, phi_resolution=16)
        sphere.points = sphere.points * semi                     # principal frame
        if np.linalg.det(axes) < 0:
            axes[:, 2] *= -1.0
        c = bm.rotation.T @ (body.cg - bm.origin)
        return _transformed(sphere, bm.rotation.T @ axes, c)

    def _joint(self, joint):
        owner, p, R = self._where(joint.follower)
        if owner is None:
            owner, p, R = self._where(joint.base)
        to_frame = np.eye(3)   # world reference axes -> the owner's frame
        if owner is not None:
            to_frame = self.system.bodies[owner].rotation.T
        L = self.length
        for prim in joint.primitives:
            if prim.kind == "S":
                mesh = pv.Sphere(radius=0.035 * L, center=p)
            else:
                a = to_frame @ prim.axis
                if prim.kind == "R":
                    mesh = pv.Cylinder(center=p, direction=a, radius=0.02 * L, height=0.12 * L,
                                       resolution=20)
                else:
                    e1, e2 = _frame_of(a)
                    box = pv.Box(bounds=(-0.15 * L, 0.15 * L, -0.006 * L, 0.006 * L,
                                         -0.006 * L, 0.006 * L))
                    mesh = _transformed(box, np.column_stack([a, e1, e2]), p)
            self._add(mesh, owner, _JOINT_COLOR)

    def _force(self, fe):
        contact = _law_name(fe) in CONTACT_LAWS
        placement = getattr(fe, "placement", "")
        if placement in ("line", "axial") and fe.cs_a is not None and fe.cs_b is not None:
            pts = coil_points(np.zeros(3), np.array([0.0, 0.0, 1.0]), 0.02 * self.length)
            line = _polyline(pts)
            color = UNKNOWN_COLOR if contact else _SPRING_COLOR
            actor = self.plotter.add_mesh(line, color=color, line_width=3, lighting=False)
            self.coils[fe.name] = (actor, line)
            if contact:
                self.contact_actors[fe.name] = actor
            self._anchors[fe.name] = ("coil", fe.name)
        elif placement == "joint" and fe.joint is not None:
            stiction = _law_name(fe) in STICTION_LAWS
            owner, p, mesh = self._joint_force_marker(fe, contact or stiction)
            actor = self._add(mesh, owner, UNKNOWN_COLOR if contact or stiction
                              else _SPRING_COLOR, line_width=3)
            if contact:
                self.contact_actors[fe.name] = actor
            if stiction:
                self.stiction_actors[fe.name] = actor
            self._anchors[fe.name] = ("point", owner, p)
        elif placement == "bushing" and fe.cs_a is not None and fe.cs_b is not None:
            for owner, mesh in self._bushing_parts(fe):
                self._add(mesh, owner, _BUSHING_COLOR)
            self._anchors[fe.name] = ("cs", fe.cs_b)
        elif fe.cs_b is not None:   # a rotational placement, or one of the user's own
            self._anchors[fe.name] = ("cs", fe.cs_b)

    def _gear(self, gear):
        """A GearConstraint as two toothed wheels, one on each geared primitive's moving side,
        square to its axis, each with a white spoke that shows it turning. Pitch radii in the
        ratio (r_a / r_b = |ratio|: the pitch speeds match); where the two axes are parallel
        and D apart, placed as the wheels' senses of rotation ask:

        - opposite senses (ratio < 0 with the axes the same way): an external pair, two discs
          with r_a + r_b = D;
        - the same sense (an ideal gear's ratio > 0): an internal pair, the larger wheel a
          ring with its teeth inside, |r_a - r_b| = D (|ratio| = 1, which no internal pair
          makes, is drawn as an external pair);
        - otherwise (axes crossed, or coaxial) two discs of a size fit for the model.

        A rack and pinion (one prismatic side; the ratio in m/rad or rad/m) is a bar along the
        rack and the pinion at its true pitch radius, |dq_P / dq_R| (m).
        """
        L = self.length
        sides = []
        for joint, k in ((gear.joint_a, gear.primitive_a), (gear.joint_b, gear.primitive_b)):
            owner, p, _ = self._where(joint.follower)
            if owner is None:
                owner, p, _ = self._where(joint.base)
            prim = joint.primitives[k]
            a = np.asarray(prim.axis, float)
            a = a / np.linalg.norm(a)
            world = p if owner is None else (self.system.bodies[owner].rotation @ p
                                             + self.system.bodies[owner].origin)
            sides.append((owner, p, a, world, prim.kind))
        k = abs(gear.ratio)
        (_, _, a_a, w_a, kind_a), (_, _, a_b, w_b, kind_b) = sides
        ring = None                  # the side drawn as a ring gear, if any
        if kind_a == "P" or kind_b == "P":
            # q_P = k q_R (joint_b the rack) or q_R = k q_P: the pinion's radius is k or 1/k
            # (the rack's entry is not used)
            radii = (k, 1.0 / k)
        else:
            d = w_b - w_a
            apart = np.linalg.norm(d - np.dot(d, a_a) * a_a)
            if abs(np.dot(a_a, a_b)) > 1.0 - 1e-9 and apart > 1e-3 * L:
                same_sense = gear.ratio * np.dot(a_a, a_b) > 0.0
                if same_sense and abs(k - 1.0) > 1e-6:
                    r_b = apart / abs(k - 1.0)         # internal: r_big - r_small = D
                    ring = 0 if k > 1.0 else 1
                else:
                    r_b = apart / (1.0 + k)            # external: r_a + r_b = D
            else:
                r_b = 0.06 * L * min(1.0, 1.0 / k)
            radii = (k * r_b, r_b)
        width, tooth = 0.01 * L, 0.008 * L
        for i, ((owner, p, a, _, kind), r) in enumerate(zip(sides, radii)):
            R_local = np.eye(3) if owner is None else self.system.bodies[owner].rotation.T
            axis = R_local @ a
            e1, _ = _frame_of(axis)
            if kind == "P":
                mesh = pv.Box(bounds=(-0.15 * L, 0.15 * L, -0.01 * L, 0.01 * L, -0.01 * L,
                                      0.01 * L))
                mesh = _transformed(mesh, np.column_stack([axis, e1, np.cross(axis, e1)]), p)
                self._add(mesh, owner, _GEAR_COLOR)
                continue
            face = p - 0.5 * width * axis
            if i == ring:            # a rim outside the pitch circle, its teeth inside
                rim = max(0.02 * L, 0.05 * r)
                wheel = pv.Disc(center=face, inner=r + tooth, outer=r + tooth + rim,
                                normal=axis, r_res=1, c_res=96)
                teeth = pv.Disc(center=face, inner=r - tooth, outer=r + tooth, normal=axis,
                                r_res=1, c_res=96)
                reach = r + tooth
                # an arm from the hub to the rim, behind the pinion's plane: the ring's turning
                # shows without a web hiding what it surrounds
                arm = pv.Box(bounds=(0.0, r + tooth + 0.5 * rim, -0.01 * L, 0.01 * L,
                                     -0.5 * width, 0.5 * width))
                e2 = np.cross(axis, e1)
                self._add(_transformed(arm, np.column_stack([e1, e2, axis]),
                                       p - 1.5 * width * axis), owner, _GEAR_COLOR)
            else:
                wheel = pv.Disc(center=face, inner=0.0, outer=r, normal=axis, c_res=48)
                teeth = pv.Disc(center=face, inner=r, outer=r + tooth, normal=axis, r_res=1,
                                c_res=48)
                reach = 0.9 * r
            wheel = wheel.extrude(width * axis, capping=True)
            teeth = teeth.extrude(width * axis, capping=True)
            spoke = _polyline([p + 0.012 * L * axis, p + 0.012 * L * axis + reach * e1])
            self.gear_discs.setdefault(gear.name, []).append(
                (owner, self._add(wheel, owner, _GEAR_COLOR), r))
            self._add(teeth, owner, _GEAR_TEETH_COLOR)
            self._add(spoke, owner, (1.0, 1.0, 1.0), line_width=3)

    def _bushing_parts(self, fe):
        """[(owner, mesh)] of a bushing: a rubber sleeve on A's owner around CS A's z axis
        and a pin on B's owner along CS B's z axis, both centred on their CS origins, so the
        pin moves in the sleeve as the bushing deflects (no re-meshing)."""
        L = self.length
        owner_a, pa, Ra = self._where(fe.cs_a)
        owner_b, pb, Rb = self._where(fe.cs_b)
        za, zb = Ra[:, 2], Rb[:, 2]
        sleeve = pv.Disc(center=pa - 0.03 * L * za, inner=0.02 * L, outer=0.035 * L,
                         normal=za, c_res=32).extrude(0.06 * L * za, capping=True)
        pin = pv.Cylinder(center=pb, direction=zb, radius=0.012 * L, height=0.09 * L,
                          resolution=20)
        return [(owner_a, sleeve), (owner_b, pin)]

    def _joint_force_marker(self, fe, contact):
        """(owner, centre in the owner's frame, mesh) of a JointForce's marker: on a revolute
        primitive a washer at the end of the pin (a flat spiral for a law without contact),
        on a prismatic one a collar around the owner's shapes, square to the axis."""
        joint = fe.joint
        owner, p, _ = self._where(joint.follower)
        if owner is None:
            owner, p, _ = self._where(joint.base)
        prim = joint.primitives[fe.primitive]
        a = np.asarray(prim.axis, float)
        if owner is not None:   # world reference axes -> the owner's frame
            a = self.system.bodies[owner].rotation.T @ a
        L = self.length
        if prim.kind == "P":
            inner = max(self._radial_extent(owner, p, a) * 1.08, 0.03 * L)
            width = 0.02 * L
        else:
            p = p + 0.07 * L * a          # beyond the pin's end, clear of the body at the pin
            inner, width = 0.025 * L, 0.025 * L
            if not contact:
                e1, e2 = _frame_of(a)
                phase = np.linspace(0.0, 5.0 * np.pi, 120)
                r = inner * (0.4 + 0.6 * phase / phase[-1]) + width * phase / phase[-1]
                pts = p + np.outer(r * np.cos(phase), e1) + np.outer(r * np.sin(phase), e2)
                return owner, p, _polyline(pts)
        ring = pv.Disc(center=p - 0.006 * L * a, inner=inner, outer=inner + width, normal=a,
                       c_res=48)
        return owner, p, ring.extrude(a * 0.012 * L, capping=True)

    def _radial_extent(self, owner, p, a):
        """Largest distance from the line through ``p`` along ``a`` of the corners of what is
        drawn on ``owner`` so far (its frame; the world for None), m."""
        corners = self._local_bounds.get(owner) if owner is not None else None
        if not corners:
            return 0.0
        d = np.vstack(corners) - p
        radial = d - np.outer(d @ a, a)
        return float(np.linalg.norm(radial, axis=1).max())

    # ------------------------------------------------------------------------- states

    def _cs_world(self, cs, Rl, pl):
        owner, p, R = self._where(cs)
        if owner is None:
            return p, R
        link = self.system.bodies[owner].link
        return pl[link] + Rl[link] @ p, Rl[link] @ R

    def set_state(self, q, contact=None, t=None):
        """Move everything to the joint positions ``q`` (nq,); ``contact`` maps contact-law
        elements to their state (nonzero/True: in contact) and stiction elements to whether
        they stick, missing ones are grey; ``t``
        (s) is the time shown, None none."""
        Rl, pl = dynamics.link_poses(self.system, q)
        for name, bm in self.system.bodies.items():
            T = _matrix(Rl[bm.link], pl[bm.link])
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
        contact = contact or {}
        for name, actor in self.contact_actors.items():
            actor.prop.color = self.contact_color(contact.get(name))
        for name, actor in self.stiction_actors.items():
            actor.prop.color = self.stiction_color(contact.get(name))
        self._poses = (Rl, pl)
        if self.overlay is not None:
            self.overlay.set_time(t)
            for name, how in self._anchors.items():
                self.overlay.set_anchor(name, self._anchor_point(how, ends, Rl, pl))
                state = contact.get(name)
                if name in self.contact_actors:
                    tint = None if state is None else CONTACT_TINT if state else FREE_TINT
                    self.overlay.set_frame(name, self.contact_color(state), tint)
                elif name in self.stiction_actors:
                    tint = None if state is None else STUCK_TINT if state else SLIP_TINT
                    self.overlay.set_frame(name, self.stiction_color(state), tint)

    @staticmethod
    def contact_color(state):
        """The colour of a contact state: None unknown (grey), falsy not in contact (green),
        truthy in contact (red)."""
        if state is None:
            return UNKNOWN_COLOR
        return CONTACT_COLOR if state else FREE_COLOR

    @staticmethod
    def stiction_color(state):
        """The colour of a stiction element: None unknown (grey), truthy stuck (blue), falsy
        slipping (orange)."""
        if state is None:
            return UNKNOWN_COLOR
        return STUCK_COLOR if state else SLIP_COLOR

    def _anchor_point(self, how, ends, Rl, pl):
        """The world point a force element's label points at: the middle of its coil, its
        joint marker, or its CS B."""
        if how[0] == "coil":
            pa, pb = ends[how[1]]
            return 0.5 * (pa + pb)
        if how[0] == "point":
            owner, p = how[1], how[2]
            if owner is None:
                return p
            link = self.system.bodies[owner].link
            return pl[link] + Rl[link] @ p
        return self._cs_world(how[1], Rl, pl)[0]

    def state_at(self, result, t):
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

    def update(self, result, row=None, t=None):
        """Move everything to row ``row`` of ``result``, or to time ``t`` (interpolated)."""
        if (row is None) == (t is None):
            raise ValueError("Scene.update: give exactly one of row and t")
        if row is not None:
            t = result.t[row]
        q, contact = self.state_at(result, t)
        self.set_state(q, contact, t=float(np.clip(t, result.t[0], result.t[-1])))
        for key, (actor, line) in self.trail_lines.items():
            path = self._trail_paths[key]
            n = int(np.searchsorted(result.t, t, side="right"))
            Rl, pl = self._poses
            here, _ = self._cs_world(self.system.bodies[key[0]].body.frames[key[1]], Rl, pl)
            pts = np.vstack([path[:n], here])
            new = _polyline(pts) if len(pts) > 1 else pv.PolyData(pts)
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

    # ------------------------------------------------------------------------- camera

    def motion_bounds(self, result=None, q=None):
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

    def up(self):
        """The world's up direction (unit): against the first nonzero gravity of the
        machines' environments, else +z."""
        for machine in self.system.machines:
            g = np.asarray(getattr(machine.environment, "gravity", (0.0, 0.0, 0.0)), float)
            n = float(np.linalg.norm(g))
            if n > 0.0:
                return -g / n
        return np.array([0.0, 0.0, 1.0])

    def lay_floor(self, bounds):
        """Lay the floor (replacing an earlier one): a light plane with a grid of round
        spacing, square to :meth:`up`, 2 % of the drawing's size under the box ``bounds``
        (xmin, xmax, ymin, ymax, zmin, zmax) and a quarter wider than it each way."""
        for actor in self.floor_actors:
            self.plotter.remove_actor(actor)
        self.floor_actors, self._floor_corners = [], None
        if not self.floor:
            return
        L = self.length
        up = self.up()
        e1, e2 = _frame_of(up)
        b = np.asarray(bounds, float).reshape(3, 2)
        corners = np.array([[b[0, i], b[1, j], b[2, k]] for i in range(2) for j in range(2)
                            for k in range(2)])
        level = float((corners @ up).min()) - 0.02 * L
        u, v = corners @ e1, corners @ e2
        pad = 0.25 * max(np.ptp(u), np.ptp(v), 0.2 * L)
        step = _round_step(max(np.ptp(u), np.ptp(v)) / 6.0 + 1e-12)
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
        grid = pv.PolyData(pts, lines=cells)
        self.floor_actors = [
            self.plotter.add_mesh(plane, color=FLOOR_COLOR, lighting=False),
            self.plotter.add_mesh(grid, color=FLOOR_LINE_COLOR, line_width=1, lighting=False)]
        self._floor_corners = quad

    def set_camera(self, camera=None, bounds=None):
        """Aim the camera: ``camera`` None or "iso" (isometric), "xy", "xz", "yz" (looking along
        -z, +y, -x) fitted to ``bounds``; or a pyvista camera position
        ``[(position), (focal point), (view up)]``."""
        if bounds is None:
            bounds = self.motion_bounds()
        b = np.asarray(bounds, float).reshape(3, 2)
        center = b.mean(axis=1)
        radius = max(0.5 * float(np.linalg.norm(b[:, 1] - b[:, 0])), 1e-3 * self.length)
        if camera is None or isinstance(camera, str):
            key = "iso" if camera is None else camera
            if key not in _VIEWS:
                raise ValueError(f"camera must be one of {sorted(_VIEWS)} or a pyvista camera "
                                 f"position, got {camera!r}")
            direction, up = (np.asarray(v, float) for v in _VIEWS[key])
            direction /= np.linalg.norm(direction)
            cam = self.plotter.camera
            half = np.radians(cam.view_angle) / 2.0     # vertical half-angle
            w, h = self.size
            half = min(half, np.arctan(np.tan(half) * w / h))
            room = 1.2 if self.overlay is not None else 1.0   # for the title and legend
            dist = 1.05 * room * radius / np.sin(half)
            self.plotter.camera_position = [tuple(center + dist * direction), tuple(center),
                                            tuple(up)]
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

    def fit(self, result=None, camera=None, q=None):
        """Lay the floor under the whole motion of ``result`` (or the state ``q``), set the
        camera for it and render."""
        bounds = self.motion_bounds(result, q)
        self.lay_floor(bounds)
        self.set_camera(camera, bounds)
        self.render()

    # ------------------------------------------------------------------------- pictures

    def render(self):
        try:
            self.plotter.render()
        except Exception as err:
            raise RenderError(f"rendering failed ({type(err).__name__}: {err})") from err

    def screenshot(self):
        """The current picture as an (height, width, 3) uint8 array."""
        try:
            self.plotter.render()   # screenshot() alone may return the last picture again
            return np.asarray(self.plotter.screenshot(return_img=True))[..., :3]
        except Exception as err:
            raise RenderError(f"rendering failed ({type(err).__name__}: {err})") from err

    def project(self, points):
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

    def close(self):
        if self.overlay is not None:
            self.overlay.close()
        self.plotter.close()
