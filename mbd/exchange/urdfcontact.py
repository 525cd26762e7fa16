"""A robot's ``<collision>`` geometry as contact with a floor (SPEC §12; :func:`mbd.from_urdf`'s
``contact=``).

Each ``<collision>`` of a link that touches becomes a contact shape of the link's body, at a
CS ``LINK_collisionK`` (drawn only where pictures ask for contact shapes): a ``<box>`` a
:class:`~mbd.model.shapes.Box`, a ``<cylinder>`` a :class:`~mbd.model.shapes.Cylinder`
(along the collision frame's z, as URDF's), a ``<sphere>`` a
:class:`~mbd.model.shapes.Sphere`, a ``<mesh>`` the convex hull of its vertices
(:class:`~mbd.model.shapes.ConvexMesh`), as MuJoCo and Drake read a collision mesh. Against a
plane a hull touches at its vertices, one contact point each, so a hull of more than
``hull_vertices`` vertices is thinned to that many (:func:`thinned_hull`: kept vertices
spread over it, the hull's extremes along its axes first); how far the hull moved in is kept
in the model (``model.urdf_hulls``).

The floor is a :class:`~mbd.model.shapes.Plane` (its top at world z = ``floor``) on a ground
``floor``; each body with collision geometry gets one :class:`~mbd.model.contacts.Contact`
``BODY_floor`` against it (``LINK_floor`` where one link of the body touches), so that each body's points stick and slip as one patch (exact
friction, :class:`~mbd.model.contacts.Coulomb`). Links do not touch each other (no
self-collision; :func:`mbd.contacts_among` adds it between chosen bodies).

The default law (:func:`floor_law`) is Hertz-like, ``ElastoGap(c, d, n=1.5)``, with c such
that the robot's whole weight on one point presses it :data:`REST_DEPTH` (1 mm) in, and
d = 2 DAMPING_RATIO M sqrt(1.5 g / REST_DEPTH) (a tenth of the critical damping of the whole
robot on one point: much more makes a light foot's landing a stiff problem);
the default friction is :data:`FRICTION`, exact stick-slip. A point may start at most
REST_DEPTH in the floor: deeper, the run fails at t0 naming the point (its link's collision
CS) and its depth.
"""
from __future__ import annotations

import math
import os

import numpy as np

from forces import ElastoGap

from ..model.contacts import Contact, Coulomb
from ..model.errors import ModelError
from ..model.shapes import MAX_HULL_VERTICES, Box, ConvexMesh, Cylinder, Plane, Sphere
from ..run.evaluator import Evaluator, work_size

#: the floor's friction by default: exact stick-slip, rubber-like feet on a hard floor
FRICTION = Coulomb(mu_s=0.8, mu_k=0.7, exact=True)
#: the depth (m) the robot's whole weight presses one contact point into the floor under the
#: default law, and the deepest a point may start the run at
REST_DEPTH = 1e-3
#: the default law's damping, a share of the critical damping of the whole robot on one point
DAMPING_RATIO = 0.1
#: the most vertices (contact points against the floor) a collision mesh's hull keeps by default
HULL_VERTICES = 24


def floor_law(mass: float, gravity: float) -> ElastoGap:
    """The default floor law of a robot of ``mass`` (kg) under ``gravity`` (m/s^2):
    ``ElastoGap(c, d, n=1.5)`` with c = M g / REST_DEPTH^1.5 (N/m^1.5; the whole weight on one
    point: REST_DEPTH in) and d = 2 DAMPING_RATIO M sqrt(1.5 g / REST_DEPTH) (N s/m; the whole
    mass on the contact's stiffness 1.5 M g / REST_DEPTH there, damped DAMPING_RATIO of
    critical).

    >>> law = floor_law(2.5, 9.81)
    >>> round(law.c), round(law.d, 1)
    (775549, 60.7)
    """
    weight = mass * gravity
    return ElastoGap(c=weight / REST_DEPTH**1.5,
                     d=2.0 * DAMPING_RATIO * mass * math.sqrt(1.5 * gravity / REST_DEPTH),
                     n=1.5)


def thinned_hull(points: np.ndarray, most: int) -> tuple[np.ndarray, int, float]:
    """The vertices of the convex hull of ``points`` (n, 3), at most ``most`` of them.

    Where the hull has more, the kept ones are spread over it: the extremes along +-x, +-y,
    +-z first (the bounding box stays), then, one at a time, the vertex farthest from all kept
    so far. The thinned hull lies inside the full one.

    Returns
    -------
    vertices : ndarray (m, 3)
    full : int
        The full hull's vertex count.
    moved_in : float
        The largest distance (m) of a dropped vertex outside the thinned hull: how far the
        surface moved in (0 where none was dropped).

    Raises
    ------
    ValueError
        Where the points span no volume (fewer than 4, or all in one plane).
    """
    from scipy.spatial import ConvexHull, QhullError  # (imported on use)

    try:
        hull = ConvexHull(points)
    except (QhullError, ValueError):
        raise ValueError(f"its {len(points)} points span no volume (all in one plane, or "
                         "fewer than 4)") from None
    vertices = points[hull.vertices]
    if len(vertices) <= most:
        return vertices, len(vertices), 0.0
    kept = []
    for axis in range(3):
        for pick in (np.argmin, np.argmax):
            k = int(pick(vertices[:, axis]))
            if k not in kept:
                kept.append(k)
    kept = kept[:most]
    distance = np.min(np.linalg.norm(vertices[:, None, :] - vertices[kept][None], axis=2),
                      axis=1)
    while len(kept) < most:
        k = int(np.argmax(distance))
        kept.append(k)
        distance = np.minimum(distance, np.linalg.norm(vertices - vertices[k], axis=1))
    thin = ConvexHull(vertices[kept])
    outside = vertices @ thin.equations[:, :3].T + thin.equations[:, 3]
    return vertices[kept], len(vertices), float(max(outside.max(), 0.0))


def mesh_points(path: str, scale) -> np.ndarray:
    """The vertices (n, 3) of the mesh file ``path`` (STL, OBJ, PLY, DAE, ... by trimesh, the
    URDF extra's), times ``scale`` (a number or one per axis)."""
    import trimesh  # (the URDF extra's, imported on use)

    mesh = trimesh.load(path, force="mesh")
    return np.asarray(mesh.vertices, dtype=float) * np.asarray(scale, dtype=float)


def collision_shape(geometry, link: str, k: int, mesh_file, scale, most: int, hulls: list):
    """The contact shape of one ``<collision>`` geometry of ``link`` (the k-th), or
    ModelError naming the link and the mesh; a mesh's hull thinned to ``most`` vertices, its
    record (link, file, full and kept vertex counts, how far it moved in, m) into ``hulls``."""
    if geometry.box is not None:
        return Box(tuple(float(s) for s in geometry.box.size))
    if geometry.cylinder is not None:
        return Cylinder(float(geometry.cylinder.radius), float(geometry.cylinder.length))
    if geometry.sphere is not None:
        return Sphere(float(geometry.sphere.radius))
    path = mesh_file(link, geometry.mesh.filename)
    try:
        points = mesh_points(path, scale(geometry.mesh.scale))
        vertices, full, moved_in = thinned_hull(points, most)
    except ValueError as err:
        raise ModelError(f"URDF link '{link}': collision {k} mesh {os.path.basename(path)!r} "
                         f"cannot be made convex: {err}") from None
    except Exception as err:                          # a file trimesh cannot read
        raise ModelError(f"URDF link '{link}': collision {k} mesh {path!r} cannot be read: "
                         f"{type(err).__name__}: {err}") from None
    hulls.append((link, path, full, len(vertices), moved_in))
    return ConvexMesh(vertices)


def check_contact_options(contact, links_with_collisions, hull_vertices, friction, law):
    """The set of links whose collisions touch, from ``from_urdf``'s ``contact`` (False, True
    or link names), after checking it and the other contact options (ModelError, ValueError
    naming the value)."""
    if not (isinstance(hull_vertices, int) and 4 <= hull_vertices <= MAX_HULL_VERTICES):
        raise ValueError(f"from_urdf: hull_vertices must be an integer in [4, "
                         f"{MAX_HULL_VERTICES}], got {hull_vertices!r}")
    if friction is not None and not isinstance(friction, Coulomb):
        raise ValueError(f"from_urdf: contact_friction must be an mbd.Coulomb or None, got "
                         f"{type(friction).__name__}")
    if contact is False or contact is None:
        return set()
    if contact is True:
        return set(links_with_collisions)
    if isinstance(contact, str) or not all(isinstance(c, str) for c in contact):
        raise ValueError(f"from_urdf: contact must be True, False or a list of link names, got "
                         f"{contact!r}")
    unknown = [c for c in contact if c not in links_with_collisions]
    if unknown:
        raise ModelError(f"from_urdf: contact names {unknown}, which are no links with "
                         f"<collision> geometry; those are: {sorted(links_with_collisions)}")
    return set(contact)


def add_floor(model, bodies_shapes, floor, environment, law, friction, mass, size=2.0):
    """The floor ground and one Contact per body with collision shapes
    (``bodies_shapes``: {the name the contact takes, before "_floor": [shape]}) against it;
    returns the contacts. ``size``: the side of the floor's drawn square, m."""
    ground_name = next(n for n in ("floor", "urdf_floor", "floor_ground")
                       if n not in {g.name for g in model.grounds}
                       and n not in {b.name for b in model.bodies})
    ground = model.add_ground(ground_name, at=(0.0, 0.0, float(floor)), environment=environment)
    plane = ground.add_shape(Plane(size=size, color="lightgray"), contact=True)
    gravity = float(np.linalg.norm(environment.gravity))
    if law is None:
        law = floor_law(mass, gravity if gravity > 0.0 else 9.81)
    contacts = []
    for body, shapes in bodies_shapes.items():
        contacts.append(model.add(Contact(f"{body}_floor", plane, shapes, law, friction,
                                          deepest_start=REST_DEPTH)))
    return contacts


def floor_gap(model) -> tuple[float, str]:
    """(gap m, point name): the smallest gap between a robot's floor contacts (those
    ``from_urdf(contact=...)`` made) and the floor at its start (negative: below the floor),
    and the point that has it: the model built, its contact points measured at its initial
    state (the switching functions' evaluation, which measures every point; no run)."""
    names = [e.name for e in model.elements
             if isinstance(e, Contact) and e.name.endswith("_floor")]
    if not names:
        raise ModelError(f"model '{model.name}' has no floor contact: from_urdf(..., "
                         "contact=True) gives it one")
    system = model.build()
    start = system.initial_state()
    ev = Evaluator(system)
    ev.switching(0.0, np.concatenate((start.q, start.v, np.zeros(work_size(system)))),
                 exact=True)
    gaps = ev.data.estate["x"]
    points = [i for name in names for i in system.contacts[name]]
    lowest = min(points, key=lambda i: gaps[i])
    return float(gaps[lowest]), system.force_elements[lowest].name


def stand_on_floor(model, depth: float = 0.0) -> float:
    """Move a floating robot's start (``root_joint``'s q0) up or down so that its lowest
    contact point is ``depth`` (m, >= 0) in the floor; returns the move (m, +z).

    The robot keeps its joints' starts and its base's orientation and x, y; see
    :func:`floor_gap`."""
    joint = _root_joint(model)
    if not (depth >= 0.0):
        raise ValueError(f"stand_on_floor: depth must be >= 0 m, got {depth!r}")
    gap, _ = floor_gap(model)
    q0 = _root_start(joint)
    q0[2] = float(q0[2]) - gap - depth
    joint.q0 = q0
    return -gap - depth


def _root_joint(model):
    joint = next((e for e in model.elements if getattr(e, "name", None) == "root_joint"),
                 None)
    if joint is None:
        raise ModelError(f"model '{model.name}': a floating base's root_joint is what moves a "
                         "robot onto the floor; from_urdf(..., floating=True) gives it one")
    return joint


def _root_start(joint):
    """A copy of the root joint's start, position first (the identity where none is set)."""
    return [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0] if joint.q0 is None else list(joint.q0)
