"""The broad phase of contact (SPEC §12 "Speed"): which contact pairs an evaluation measures.

Before the points are measured, each contact's pair of shapes is tested on bounding
volumes: a sphere about each shape's centre (a plane: its half-space). Where the bound
on the gap, g >= |c_b - c_a| - r_a - r_b (against a plane: n . (c - p) - r), exceeds the
law's reach (the gap beyond which it exerts nothing and its only armed switch is its
contact's: an ElastoGap's s_rel0, an Impact's x1), the pair's points are left
unmeasured: they read that bound as their gap, at rest, which gives their law the same
sides, no force and no friction as measuring them would. Their switching functions keep
their sign, so no contact can begin unseen: where one begins, its pair is near. The bound
moves with the shapes as a gap does (a sphere's is its gap), so the screen for a contact
begun and ended within one step (its values and rates at the step's ends) still sees a
pair that passes through another. A run's records measure every point (``BROAD.exact``).

The tables (``BROAD_SHAPE``, ``BROAD_PAIR``, ``BROAD_POINT`` of :mod:`mbd.compiled.layout`)
are made at build (:func:`mbd.system.topology.broad_tables`); the kernels' loops over force
elements ask :func:`unmeasured` first (:mod:`mbd.compiled.forcekernels`).
"""
import numpy as np

from . import linkpoints
from .jit.jitcache import njit
from .layout import PLACEMENT_SWITCH


def bounding_radius(shape):
    """The radius of the sphere about a contact shape's centre (its CS origin) that holds
    it, m; inf for a plane (the broad phase bounds a gap to it by its half-space), None for
    a shape it knows no bound of."""
    name = type(shape).__name__
    if name == "Plane":
        return np.inf
    if name == "Sphere":
        return float(shape.radius)
    if name == "Box":
        return 0.5 * float(np.linalg.norm(shape.size))
    if name == "Capsule":
        return float(shape.radius) + 0.5 * float(shape.length)
    if name == "Cylinder":
        return float(np.hypot(shape.radius, 0.5 * shape.length))
    if name == "ConvexMesh":
        return float(np.linalg.norm(np.asarray(shape.vertices, dtype=float), axis=1).max())
    return None


@njit()
def broad_phase(links, shapes, pairs, broad):
    """Stamp the pairs whose bounding volumes come within their law's reach (on the links'
    transforms of the evaluation) with a new stamp, ``pairs[p].near == broad[0].stamp``,
    and record each one's bound on its gap; every pair where ``broad[0].exact``, or whose
    law has no reach."""
    B = broad[0]
    B.stamp += 1
    stamp = B.stamp
    if pairs.shape[0] == 0:
        return
    B.passes += 1
    if B.exact > 0:
        for p in range(pairs.shape[0]):
            pairs[p].near = stamp
        return
    for s in range(shapes.shape[0]):
        S = shapes[s]
        linkpoints.world_point(links, S.link, S.position, S.centre)
        if S.radius == np.inf:
            linkpoints.to_world(links, S.link, S.normal, S.direction)
    for p in range(pairs.shape[0]):
        P = pairs[p]
        if P.reach_slot < 0:
            P.near = stamp
            continue
        A, Bs = shapes[P.shape_a], shapes[P.shape_b]
        if A.radius == np.inf or Bs.radius == np.inf:
            plane, other = (A, Bs) if A.radius == np.inf else (Bs, A)
            n, c, o = plane.direction, plane.centre, other.centre
            bound = (n[0] * (o[0] - c[0]) + n[1] * (o[1] - c[1]) + n[2] * (o[2] - c[2])
                     - other.radius)
        else:
            d0 = Bs.centre[0] - A.centre[0]
            d1 = Bs.centre[1] - A.centre[1]
            d2 = Bs.centre[2] - A.centre[2]
            bound = np.sqrt(d0 * d0 + d1 * d1 + d2 * d2) - A.radius - Bs.radius
        P.bound = bound
        if bound <= P.reach:
            P.near = stamp
        else:
            B.culled += 1


@njit(inline="always")
def far(i, points, pairs, stamp):
    """Whether force element i is a contact point whose pair the broad phase of stamp
    ``stamp`` did not find near (its bound past its law's reach). Reads compact records
    only."""
    p = points[i].pair
    return p >= 0 and pairs[p].near != stamp


@njit(inline="always")
def unmeasured(i, points, mode, pairs, stamp):
    """Whether contact point i is left unmeasured: :func:`far`, and its law not in contact
    in the mode (a point in contact is measured, so that its contact's end is seen)."""
    return far(i, points, pairs, stamp) and mode[i].sides[0] > 0.0


@njit(inline="always")
def leave_unmeasured(i, points, estate, pairs):
    """Unmeasured point i: its record's load zeroed (once: its ``written`` flag) and its gap
    its pair's bound; the rest of the record is left as it was."""
    if points[i].written == 0:
        return
    points[i].written = 0
    X = estate[i]
    X.x = pairs[points[i].pair].bound
    X.xdot = 0.0
    X.value = 0.0
    X.status = 0
    for a in range(3):
        X.vector[a] = 0.0
        X.friction[a] = 0.0


@njit(inline="always")
def unmeasured_switching(i, points, pairs, g):
    """Unmeasured point i's switching functions: its contact's (the first: x - reach, as a
    law with a reach has it) at its pair's bound, the others (unarmed out of contact) +1."""
    P = pairs[points[i].pair]
    g[i, 0] = P.bound - P.reach
    for k in range(1, PLACEMENT_SWITCH):
        g[i, k] = 1.0
    g[i, PLACEMENT_SWITCH] = 0.0
