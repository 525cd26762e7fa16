"""Where and how the scene draws a model's elements, as meshes in their owners' frames.

Each function here builds meshes and says which body carries them (its name, or None for the
world: a ground); :class:`viz.scene.Scene` adds them as actors (:mod:`viz.actors`), colours
them and moves them.
A mesh on a body is in the body's *link frame* (the frame its pose moves, m); one on a ground
is in the world (m). Sizes are fractions of the drawing's size ``length`` (m, the system's
``length_scale``).

- a body without shapes: its inertia-equivalent ellipsoid (:func:`ellipsoid`);
- a joint: one marker per primitive (:func:`joint_markers`);
- a Bushing: a sleeve and a pin (:func:`bushing_parts`); a JointForce: a washer, spiral or
  collar (:func:`joint_force_marker`); a Bistop's or Impact's limits: thin rings on a rail,
  bars on an arc (:func:`stop_limit_marks`);
- a GearConstraint: two wheels, or a rack and a pinion (:func:`gear_parts`);
- a contact point (SPEC §12): nothing of its own (its shapes are the picture); on request
  its point and its force while it touches (:func:`contact_rows`, :func:`contact_marks`).
"""
import numpy as np
import pyvista as pv

from .colors import GEAR_COLOR, GEAR_TEETH_COLOR
from .shapes import frame_of, polyline, transformed


def locate(system, cs):
    """(owner body name or None, position (m), rotation) of a CS: in its body's link frame,
    or in the world for a ground CS."""
    bm = system.bodies.get(getattr(cs.owner, "name", None))
    if bm is None or cs.owner is not bm.body:
        return None, np.asarray(cs.position, float), np.asarray(cs.rotation, float)
    p, R = bm.cs_local(cs)
    return bm.body.name, p, R


def joint_site(system, joint):
    """:func:`locate` of the joint's follower CS, or of its base CS when the follower is a
    ground: where its markers go."""
    owner, p, R = locate(system, joint.follower)
    if owner is None:
        owner, p, R = locate(system, joint.base)
    return owner, p, R


def ellipsoid(bm, length):
    """The inertia-equivalent ellipsoid of a body (its model ``bm``), link frame: the uniform
    solid with the body's mass and principal moments, each semi-axis at least 2 % of
    ``length`` (m) so that point masses stay visible."""
    body = bm.body
    I = 0.5 * (body.inertia + body.inertia.T)
    moments, axes = np.linalg.eigh(I)
    tot = moments.sum()
    # I_j + I_k - I_i; a massless body gets the smallest ellipsoid
    semi2 = (5.0 / (2.0 * body.mass) * (tot - 2.0 * moments) if body.mass > 0.0
             else np.zeros(3))
    semi = np.sqrt(np.clip(semi2, 0.0, None))
    semi = np.maximum(semi, 0.02 * length)
    sphere = pv.Sphere(radius=1.0, theta_resolution=32, phi_resolution=16)
    sphere.points = sphere.points * semi                     # principal frame
    if np.linalg.det(axes) < 0:
        axes[:, 2] *= -1.0
    c = bm.rotation.T @ (body.cg - bm.origin)
    return transformed(sphere, bm.rotation.T @ axes, c)


def joint_markers(system, joint, length):
    """(owner, [mesh]) of a joint: per primitive, a pin along a revolute axis, a thin rail
    along a prismatic one, a ball for a spherical one, at :func:`joint_site` (axes after the
    first primitive as in the reference pose)."""
    owner, p, _ = joint_site(system, joint)
    to_frame = np.eye(3)   # world reference axes -> the owner's frame
    if owner is not None:
        to_frame = system.bodies[owner].rotation.T
    L = length
    meshes = []
    for prim in joint.primitives:
        if prim.kind == "S":
            mesh = pv.Sphere(radius=0.035 * L, center=p)
        else:
            a = to_frame @ prim.axis
            if prim.kind == "R":
                mesh = pv.Cylinder(center=p, direction=a, radius=0.02 * L, height=0.12 * L,
                                   resolution=20)
            else:
                e1, e2 = frame_of(a)
                box = pv.Box(bounds=(-0.15 * L, 0.15 * L, -0.006 * L, 0.006 * L,
                                     -0.006 * L, 0.006 * L))
                mesh = transformed(box, np.column_stack([a, e1, e2]), p)
        meshes.append(mesh)
    return owner, meshes


def bushing_parts(system, fe, length):
    """[(owner, mesh)] of a bushing: a rubber sleeve on A's owner around CS A's z axis
    and a pin on B's owner along CS B's z axis, both centred on their CS origins, so the
    pin moves in the sleeve as the bushing deflects (no re-meshing)."""
    L = length
    owner_a, pa, Ra = locate(system, fe.cs_a)
    owner_b, pb, Rb = locate(system, fe.cs_b)
    za, zb = Ra[:, 2], Rb[:, 2]
    sleeve = pv.Disc(center=pa - 0.03 * L * za, inner=0.02 * L, outer=0.035 * L,
                     normal=za, c_res=32).extrude(0.06 * L * za, capping=True)
    pin = pv.Cylinder(center=pb, direction=zb, radius=0.012 * L, height=0.09 * L,
                      resolution=20)
    return [(owner_a, sleeve), (owner_b, pin)]


def joint_force_marker(system, fe, contact, length, drawn):
    """(owner, centre in the owner's frame (m), mesh) of a JointForce's marker: on a revolute
    primitive a washer at the end of the pin (a flat spiral for a law without ``contact``),
    on a prismatic one a collar around what is ``drawn`` on the owner so far (owner name ->
    [corner points (8, 3), link frame]), square to the axis."""
    joint = fe.joint
    owner, p, _ = joint_site(system, joint)
    prim = joint.primitives[fe.primitive]
    a = np.asarray(prim.axis, float)
    if owner is not None:   # world reference axes -> the owner's frame
        a = system.bodies[owner].rotation.T @ a
    L = length
    if prim.kind == "P":
        corners = drawn.get(owner) if owner is not None else None
        inner = max(radial_extent(corners, p, a) * 1.08, 0.03 * L)
        width = 0.02 * L
    else:
        p = p + 0.07 * L * a          # beyond the pin's end, clear of the body at the pin
        inner, width = 0.025 * L, 0.025 * L
        if not contact:
            e1, e2 = frame_of(a)
            phase = np.linspace(0.0, 5.0 * np.pi, 120)
            r = inner * (0.4 + 0.6 * phase / phase[-1]) + width * phase / phase[-1]
            pts = p + np.outer(r * np.cos(phase), e1) + np.outer(r * np.sin(phase), e2)
            return owner, p, polyline(pts)
    ring = pv.Disc(center=p - 0.006 * L * a, inner=inner, outer=inner + width, normal=a,
                   c_res=48)
    return owner, p, ring.extrude(a * 0.012 * L, capping=True)


def stop_limits(fe):
    """The finite stop positions (m or rad) a force element's law declares
    (:meth:`mbd.Law.stops`: a Bistop's (x1, x2), an Impact's (x1,)); () for a law without
    stops or an element without a law."""
    law = getattr(fe, "law", None)
    return tuple(law.stops()) if law is not None else ()


def drawn_state(fe):
    """The state a picture colours a force element by (:attr:`mbd.Law.drawn_state`:
    "contact", "stuck"), or None."""
    return getattr(getattr(fe, "law", None), "drawn_state", None)


def contact_rows(result, fe):
    """(points (n, 3) m, forces (n, 3) N, touching (n,) bool) of a contact point ``fe`` (a
    force element placed "contact") at every row of ``result``, from its contact's view
    (:meth:`mbd.Result.contact`): where its force acts (world, the midpoint of its two
    witness points), the force on its side b (world, friction included), and whether it
    touches."""
    view = result.contact(fe.contact.name)
    k = view.names.index(fe.name)
    points = view.point[:, k]
    forces = view.fn[:, k, None] * view.normal[:, k] + view.friction[:, k]
    # a point the geometry could not place (NaN where none) is never drawn
    touching = view.in_contact[:, k] & np.all(np.isfinite(points), axis=1) & np.all(
        np.isfinite(forces), axis=1)
    return points, forces, touching


def contact_marks(points, forces, length, scale):
    """(dots, arrows) of contact points: a small ball (radius 0.015 ``length``) at each of
    ``points`` (k, 3) (world, m) and an arrow from it along each of ``forces`` (k, 3) (N),
    ``scale`` m per N long (none for a zero force); each a PolyData, None when empty."""
    L = length
    dots = [pv.Sphere(radius=0.015 * L, center=p, theta_resolution=12, phi_resolution=8)
            for p in points]
    arrows = []
    for p, f in zip(points, forces):
        n = float(np.linalg.norm(f))
        size = n * scale
        if size <= 1e-6 * L:
            continue
        # the shaft and tip as thick at every length (pv.Arrow sizes them by its length)
        arrows.append(pv.Arrow(start=p, direction=f / n, scale=size,
                               tip_length=min(0.5, 0.05 * L / size),
                               tip_radius=min(0.5, 0.018 * L / size),
                               shaft_radius=min(0.25, 0.006 * L / size), tip_resolution=12,
                               shaft_resolution=12))

    def merged(meshes):
        return meshes[0].merge(meshes[1:]) if len(meshes) > 1 else (meshes[0] if meshes
                                                                      else None)
    return merged(dots), merged(arrows)


def stop_limit_marks(system, fe, length, drawn):
    """(owner, mesh) of the limits of a Bistop or Impact (:func:`stop_limits`), drawn where
    the follower stands when it reaches each, fixed to the side the coordinate is measured
    from (the joint's base CS, an AxialForce's CS A); None for another law, or for a
    JointForce on a primitive after the first (whose base moves with the ones before it).

    - a prismatic primitive or an AxialForce: a thin ring square to the axis at x1 and at x2
      along it, just outside the collar round what is ``drawn`` on the follower (owner name
      -> [corner points (8, 3), link frame]), so the collar passes into it at the stop;
    - a revolute primitive: two thin radial bars in the plane of the joint's washer, out to
      the follower's CG, along where the line from the axis to it points at x1 and at x2,
      joined by a thin arc over the free range.
    """
    limits = stop_limits(fe)
    placement = getattr(fe, "placement", "")
    if not limits or placement not in ("joint", "axial"):
        return None
    L = length
    if placement == "joint":
        if fe.primitive != 0:
            return None
        joint = fe.joint
        base, follower = joint.base, joint.follower
        prim = joint.primitives[0]
        kind, a_world = prim.kind, np.asarray(prim.axis, float)
    else:
        base, follower, kind = fe.cs_a, fe.cs_b, "P"
        owner_a, _, R_a = locate(system, fe.cs_a)
        rotation = np.eye(3) if owner_a is None else system.bodies[owner_a].rotation
        # the axis in world reference axes: given, else CS A's x axis
        a_world = (np.asarray(fe.axis, float) if fe.axis is not None
                   else rotation @ R_a[:, 0])
    a_world = a_world / np.linalg.norm(a_world)
    owner, p, _ = locate(system, base)
    to_frame = np.eye(3) if owner is None else system.bodies[owner].rotation.T
    a = to_frame @ a_world
    f_owner, f_p, _ = locate(system, follower)
    if kind == "P":
        f_axis = (a_world if f_owner is None
                  else system.bodies[f_owner].rotation.T @ a_world)
        corners = drawn.get(f_owner) if f_owner is not None else None
        collar = max(radial_extent(corners, f_p, f_axis) * 1.08, 0.03 * L) + 0.02 * L
        # just outside the collar (as joint_force_marker sizes it): the collar passes into
        # the ring at the stop, and no ring hides the collar's contact colour
        inner = collar + 0.004 * L
        rings = [pv.Disc(center=p + x * a - 0.002 * L * a, inner=inner, outer=inner + 0.012 * L,
                         normal=a, c_res=48).extrude(a * 0.004 * L, capping=True)
                 for x in limits]
        return owner, rings[0].merge(rings[1:]) if len(rings) > 1 else rings[0]
    # a revolute primitive (build() refuses a JointForce on a spherical one)
    # the follower's reference direction: from the axis to its CG, square to the axis
    site = _world_point(system, owner, p)
    centre = getattr(getattr(follower, "owner", None), "cg", None)   # a ground has none
    d = (site if centre is None else np.asarray(centre, float)) - site
    d = d - np.dot(d, a_world) * a_world
    reach = float(np.linalg.norm(d))
    d = to_frame @ (d / reach if reach > 1e-9 * L else frame_of(a_world)[0])
    side = np.cross(a, d)
    plane = p + 0.07 * L * a                       # where the washer is
    # the bars reach out to the follower's CG (a pendulum's arm at its stops), at least to
    # a tenth of the drawing's size beyond the washer
    outer = max(reach, 0.16 * L)
    inner = max(0.06 * L, 0.6 * outer)

    def towards(x):
        return np.cos(x) * d + np.sin(x) * side

    bars = [polyline([plane + inner * towards(x), plane + outer * towards(x)])
            for x in limits]
    if len(limits) == 2 and limits[1] - limits[0] < 2.0 * np.pi:
        sweep = np.linspace(limits[0], limits[1], 64)
        bars.append(polyline([plane + 0.5 * (inner + outer) * towards(x) for x in sweep]))
    return owner, bars[0].merge(bars[1:]) if len(bars) > 1 else bars[0]


def _world_point(system, owner, p):
    """A point ``p`` of ``owner``'s link frame (the world for None) in world coordinates of
    the reference configuration, m."""
    if owner is None:
        return np.asarray(p, float)
    bm = system.bodies[owner]
    return bm.rotation @ p + bm.origin


def radial_extent(corners, p, a):
    """Largest distance (m) from the line through ``p`` along ``a`` of the ``corners`` (a
    list of (8, 3) arrays; 0 for none)."""
    if not corners:
        return 0.0
    d = np.vstack(corners) - p
    radial = d - np.outer(d @ a, a)
    return float(np.linalg.norm(radial, axis=1).max())


def gear_parts(system, gear, length):
    """[(owner, mesh, colour, add_mesh options, pitch radius m or None)] of a GearConstraint,
    in drawing order: two toothed wheels, one on each geared primitive's moving side, square
    to its axis, each with a white spoke that shows it turning. A part with a pitch radius is
    a side's wheel (a disc, or a ring gear's rim). Pitch radii in the ratio (r_a / r_b =
    |ratio|: the pitch speeds match); where the two axes are parallel and D apart, placed as
    the wheels' senses of rotation ask:

    - opposite senses (ratio < 0 with the axes the same way): an external pair, two discs
      with r_a + r_b = D;
    - the same sense (an ideal gear's ratio > 0): an internal pair, the larger wheel a
      ring with its teeth inside, |r_a - r_b| = D (|ratio| = 1, which no internal pair
      makes, is drawn as an external pair);
    - otherwise (axes crossed, or coaxial) two discs of a size fit for the model.

    A rack and pinion (one prismatic side; the ratio in m/rad or rad/m) is a bar along the
    rack and the pinion at its true pitch radius, |dq_P / dq_R| (m).
    """
    L = length
    sides = _gear_sides(system, gear)
    radii, ring = _pitch_radii(gear, sides, L)
    parts = []
    for i, ((owner, p, a, _, kind), r) in enumerate(zip(sides, radii)):
        R_local = np.eye(3) if owner is None else system.bodies[owner].rotation.T
        axis = R_local @ a
        e1, _ = frame_of(axis)
        if kind == "P":
            mesh = pv.Box(bounds=(-0.15 * L, 0.15 * L, -0.01 * L, 0.01 * L, -0.01 * L,
                                  0.01 * L))
            mesh = transformed(mesh, np.column_stack([axis, e1, np.cross(axis, e1)]), p)
            parts.append((owner, mesh, GEAR_COLOR, {}, None))
        else:
            parts += [(owner, mesh, color, options, pitch) for mesh, color, options, pitch
                      in _wheel(p, axis, e1, r, i == ring, L)]
    return parts


def _gear_sides(system, gear):
    """[(owner, centre in the owner's frame (m), unit axis (world reference axes), centre in
    the world reference pose (m), primitive kind)] of a gear's two geared primitives."""
    sides = []
    for joint, k in ((gear.joint_a, gear.primitive_a), (gear.joint_b, gear.primitive_b)):
        owner, p, _ = joint_site(system, joint)
        prim = joint.primitives[k]
        a = np.asarray(prim.axis, float)
        a = a / np.linalg.norm(a)
        world = p if owner is None else (system.bodies[owner].rotation @ p
                                         + system.bodies[owner].origin)
        sides.append((owner, p, a, world, prim.kind))
    return sides


def _pitch_radii(gear, sides, length):
    """((r_a, r_b) pitch radii (m), index of the side drawn as a ring gear or None), as
    :func:`gear_parts` places the wheels."""
    L = length
    k = abs(gear.ratio)
    (_, _, a_a, w_a, kind_a), (_, _, a_b, w_b, kind_b) = sides
    ring = None
    if kind_a == "P" or kind_b == "P":
        # q_P = k q_R (joint_b the rack) or q_R = k q_P: the pinion's radius is k or 1/k
        # (the rack's entry is not used)
        return (k, 1.0 / k), ring
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
    return (k * r_b, r_b), ring


def _wheel(p, axis, e1, r, ring, length):
    """[(mesh, colour, add_mesh options, pitch radius m or None)] of one wheel of pitch
    radius ``r`` centred on ``p`` square to ``axis`` (unit; ``e1`` square to it), in drawing
    order: a toothed disc, or with ``ring`` a rim with its teeth inside and an arm; then the
    teeth and a white spoke along ``e1``."""
    L = length
    width, tooth = 0.01 * L, 0.008 * L
    face = p - 0.5 * width * axis
    parts = []
    if ring:                 # a rim outside the pitch circle, its teeth inside
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
        parts.append((transformed(arm, np.column_stack([e1, e2, axis]),
                                  p - 1.5 * width * axis), GEAR_COLOR, {}, None))
    else:
        wheel = pv.Disc(center=face, inner=0.0, outer=r, normal=axis, c_res=48)
        teeth = pv.Disc(center=face, inner=r, outer=r + tooth, normal=axis, r_res=1,
                        c_res=48)
        reach = 0.9 * r
    wheel = wheel.extrude(width * axis, capping=True)
    teeth = teeth.extrude(width * axis, capping=True)
    spoke = polyline([p + 0.012 * L * axis, p + 0.012 * L * axis + reach * e1])
    return parts + [(wheel, GEAR_COLOR, {}, r), (teeth, GEAR_TEETH_COLOR, {}, None),
                    (spoke, (1.0, 1.0, 1.0), {"line_width": 3}, None)]
