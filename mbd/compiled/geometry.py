"""Contact geometry in closed form (SPEC §12, the narrow phase's first part): the signed
distance, points and normal of a pair of convex shapes at their world poses, allocation-free.

Every function writes its contact points into caller-owned arrays and returns how many it
wrote (at most :data:`MAX_POINTS`): ``g[k]`` the gap of point k (m; negative: penetration),
``n[k]`` its unit normal pointing from shape a into shape b, ``pa[k]`` and ``pb[k]`` its
witness points on a and on b (world, m: the points of each that are deepest in, or nearest
to, the other; ``pb - pa = g n``). A pair gives several points where a face or an edge can
lie flat (SPEC §12 "Points"): a box on a plane one per vertex, a capsule on a plane one per
end sphere.

Shapes, as the kernels read them (the records of :mod:`mbd.model.shapes`):

- a sphere: its centre c and radius r;
- a capsule: the ends e0, e1 of its axis segment and its radius r (the points within r of the
  segment);
- a box: its centre c, rotation R (its axes, columns) and half sizes h;
- a plane: a point o on it and its unit normal z; the solid is the half-space z . (x - o) <= 0
  below it (a ground's floor).

Each is checked in ``tests/mbd/compiled/test_geometry.py`` against coal's distances (the
library Pinocchio uses) and against the closed forms.
"""
import math

import numpy as np

from .jit.jitcache import njit
from .layout import MAX_CONTACT_POINTS

#: the most points one pair gives (a box on a plane: its 8 vertices)
MAX_POINTS = MAX_CONTACT_POINTS


@njit(inline="always")
def _write(k, gap, nx, ny, nz, ax, ay, az, g, n, pa, pb):
    """Point k: gap, normal (nx, ny, nz) from a into b, witness on a (ax, ay, az); the witness
    on b is pa + gap n."""
    g[k] = gap
    n[k, 0], n[k, 1], n[k, 2] = nx, ny, nz
    pa[k, 0], pa[k, 1], pa[k, 2] = ax, ay, az
    pb[k, 0], pb[k, 1], pb[k, 2] = ax + gap * nx, ay + gap * ny, az + gap * nz


@njit(inline="always")
def _sphere_sphere_at(k, ca0, ca1, ca2, ra, cb0, cb1, cb2, rb, g, n, pa, pb):
    """Point k of two spheres (centres, radii); the normal along the centres' line (+z where
    they coincide, where every direction is one)."""
    d0, d1, d2 = cb0 - ca0, cb1 - ca1, cb2 - ca2
    dist = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
    if dist > 0.0:
        nx, ny, nz = d0 / dist, d1 / dist, d2 / dist
    else:
        nx, ny, nz = 0.0, 0.0, 1.0
    _write(k, dist - ra - rb, nx, ny, nz, ca0 + ra * nx, ca1 + ra * ny, ca2 + ra * nz,
           g, n, pa, pb)


@njit()
def sphere_sphere(ca, ra, cb, rb, g, n, pa, pb):
    """Sphere a (centre ca, radius ra) against sphere b: one point. Returns 1."""
    _sphere_sphere_at(0, ca[0], ca[1], ca[2], ra, cb[0], cb[1], cb[2], rb, g, n, pa, pb)
    return 1


@njit(inline="always")
def _plane_point(k, o, z, c0, c1, c2, r, g, n, pa, pb):
    """Point k of a plane (point o, normal z) and a sphere (centre c, radius r, r = 0: a
    point): the gap along z, the witness on the plane the centre's foot."""
    h = z[0] * (c0 - o[0]) + z[1] * (c1 - o[1]) + z[2] * (c2 - o[2])
    _write(k, h - r, z[0], z[1], z[2], c0 - h * z[0], c1 - h * z[1], c2 - h * z[2],
           g, n, pa, pb)


@njit()
def plane_sphere(o, z, c, r, g, n, pa, pb):
    """A plane (a: point o, unit normal z, solid below) against a sphere (b): one point.
    Returns 1."""
    _plane_point(0, o, z, c[0], c[1], c[2], r, g, n, pa, pb)
    return 1


@njit()
def plane_capsule(o, z, e0, e1, r, g, n, pa, pb):
    """A plane (a) against a capsule (b: axis ends e0, e1, radius r): one point per end
    sphere. Returns 2."""
    _plane_point(0, o, z, e0[0], e0[1], e0[2], r, g, n, pa, pb)
    _plane_point(1, o, z, e1[0], e1[1], e1[2], r, g, n, pa, pb)
    return 2


@njit()
def plane_box(o, z, c, R, h, g, n, pa, pb):
    """A plane (a) against a box (b: centre c, axes R (columns), half sizes h): one point per
    vertex (the law acts at those with g < 0; a box lying flat has 4, on an edge 2). Returns
    8."""
    k = 0
    for sx in (-1.0, 1.0):
        for sy in (-1.0, 1.0):
            for sz in (-1.0, 1.0):
                v0 = c[0] + sx * h[0] * R[0, 0] + sy * h[1] * R[0, 1] + sz * h[2] * R[0, 2]
                v1 = c[1] + sx * h[0] * R[1, 0] + sy * h[1] * R[1, 1] + sz * h[2] * R[1, 2]
                v2 = c[2] + sx * h[0] * R[2, 0] + sy * h[1] * R[2, 1] + sz * h[2] * R[2, 2]
                _plane_point(k, o, z, v0, v1, v2, 0.0, g, n, pa, pb)
                k += 1
    return k


@njit()
def plane_cylinder(o, z, e0, e1, r, g, n, pa, pb):
    """A plane (a) against a cylinder (b: axis ends e0, e1, the centres of its end discs,
    radius r): one point per end disc, its rim point lowest along z (SPEC §12 "Points").
    Returns 2.

    The lowest rim point of a disc with unit axis a is e - r u, u the unit projection of z
    on the disc's plane; its gap z . (e - o) - r |z - (z . a) a| is continuous even where
    the disc lies flat (u undefined, every rim point as low: the first axis perpendicular to
    a is taken), so a cylinder standing on an end has one point there, as a cone's tip."""
    a0, a1, a2 = e1[0] - e0[0], e1[1] - e0[1], e1[2] - e0[2]
    length = math.sqrt(a0 * a0 + a1 * a1 + a2 * a2)
    a0, a1, a2 = a0 / length, a1 / length, a2 / length
    za = z[0] * a0 + z[1] * a1 + z[2] * a2
    u0, u1, u2 = z[0] - za * a0, z[1] - za * a1, z[2] - za * a2
    s = math.sqrt(u0 * u0 + u1 * u1 + u2 * u2)
    if s > 1e-12:
        u0, u1, u2 = u0 / s, u1 / s, u2 / s
    else:       # flat on the plane: a fixed direction across the disc
        if abs(a0) < 0.9:
            u0, u1, u2 = 0.0, a2, -a1           # (1, 0, 0) x a
        else:
            u0, u1, u2 = -a2, 0.0, a0           # (0, 1, 0) x a
        norm = math.sqrt(u0 * u0 + u1 * u1 + u2 * u2)
        u0, u1, u2 = u0 / norm, u1 / norm, u2 / norm
    _plane_point(0, o, z, e0[0] - r * u0, e0[1] - r * u1, e0[2] - r * u2, 0.0, g, n, pa, pb)
    _plane_point(1, o, z, e1[0] - r * u0, e1[1] - r * u1, e1[2] - r * u2, 0.0, g, n, pa, pb)
    return 2


@njit(inline="always")
def _segment_point(e0, e1, q0, q1, q2):
    """The parameter s in [0, 1] of the point of segment e0-e1 nearest to q."""
    d0, d1, d2 = e1[0] - e0[0], e1[1] - e0[1], e1[2] - e0[2]
    dd = d0 * d0 + d1 * d1 + d2 * d2
    if dd == 0.0:
        return 0.0
    s = (d0 * (q0 - e0[0]) + d1 * (q1 - e0[1]) + d2 * (q2 - e0[2])) / dd
    return min(max(s, 0.0), 1.0)


@njit()
def sphere_capsule(c, rs, e0, e1, rc, g, n, pa, pb):
    """A sphere (a: centre c, radius rs) against a capsule (b: axis ends e0, e1, radius rc):
    the sphere against the capsule's nearest axis point's sphere. Returns 1."""
    s = _segment_point(e0, e1, c[0], c[1], c[2])
    _sphere_sphere_at(0, c[0], c[1], c[2], rs, e0[0] + s * (e1[0] - e0[0]),
                      e0[1] + s * (e1[1] - e0[1]), e0[2] + s * (e1[2] - e0[2]), rc,
                      g, n, pa, pb)
    return 1


@njit()
def sphere_box(c, r, cb, R, h, g, n, pa, pb):
    """A sphere (a: centre c, radius r) against a box (b: centre cb, axes R (columns), half
    sizes h): one point, through the box's point nearest the centre; a centre inside the box
    leaves through the nearest face (the gap is continuous where the centre crosses a face).
    Returns 1."""
    d0, d1, d2 = c[0] - cb[0], c[1] - cb[1], c[2] - cb[2]
    x0 = R[0, 0] * d0 + R[1, 0] * d1 + R[2, 0] * d2       # the centre in the box's axes
    x1 = R[0, 1] * d0 + R[1, 1] * d1 + R[2, 1] * d2
    x2 = R[0, 2] * d0 + R[1, 2] * d1 + R[2, 2] * d2
    q0, q1, q2 = min(max(x0, -h[0]), h[0]), min(max(x1, -h[1]), h[1]), min(max(x2, -h[2]), h[2])
    e0, e1, e2 = q0 - x0, q1 - x1, q2 - x2
    dist = math.sqrt(e0 * e0 + e1 * e1 + e2 * e2)
    if dist > 0.0:      # outside: from the centre to the nearest point
        m0, m1, m2, gap = e0 / dist, e1 / dist, e2 / dist, dist - r
    else:               # inside: out through the nearest face (the normal into the box)
        f0, f1, f2 = h[0] - abs(x0), h[1] - abs(x1), h[2] - abs(x2)
        m0 = m1 = m2 = 0.0
        if f0 <= f1 and f0 <= f2:
            m0, inside = -1.0 if x0 >= 0.0 else 1.0, f0
        elif f1 <= f2:
            m1, inside = -1.0 if x1 >= 0.0 else 1.0, f1
        else:
            m2, inside = -1.0 if x2 >= 0.0 else 1.0, f2
        gap = -inside - r
    nx = R[0, 0] * m0 + R[0, 1] * m1 + R[0, 2] * m2
    ny = R[1, 0] * m0 + R[1, 1] * m1 + R[1, 2] * m2
    nz = R[2, 0] * m0 + R[2, 1] * m1 + R[2, 2] * m2
    _write(0, gap, nx, ny, nz, c[0] + r * nx, c[1] + r * ny, c[2] + r * nz, g, n, pa, pb)
    return 1


@njit()
def capsule_capsule(a0, a1, ra, b0, b1, rb, g, n, pa, pb):
    """Capsule a (axis ends a0, a1, radius ra) against capsule b: the spheres at the nearest
    points of their axes (segment to segment, Ericson's Real-Time Collision Detection §5.1.9;
    parallel axes: the first end of a's overlap). Returns 1."""
    d1 = (a1[0] - a0[0], a1[1] - a0[1], a1[2] - a0[2])
    d2 = (b1[0] - b0[0], b1[1] - b0[1], b1[2] - b0[2])
    r = (a0[0] - b0[0], a0[1] - b0[1], a0[2] - b0[2])
    a = d1[0] * d1[0] + d1[1] * d1[1] + d1[2] * d1[2]
    e = d2[0] * d2[0] + d2[1] * d2[1] + d2[2] * d2[2]
    f = d2[0] * r[0] + d2[1] * r[1] + d2[2] * r[2]
    if a == 0.0 and e == 0.0:
        s = t = 0.0
    elif a == 0.0:
        s, t = 0.0, min(max(f / e, 0.0), 1.0)
    else:
        c = d1[0] * r[0] + d1[1] * r[1] + d1[2] * r[2]
        if e == 0.0:
            s, t = min(max(-c / a, 0.0), 1.0), 0.0
        else:
            b = d1[0] * d2[0] + d1[1] * d2[1] + d1[2] * d2[2]
            denom = a * e - b * b
            s = min(max((b * f - c * e) / denom, 0.0), 1.0) if denom > 0.0 else 0.0
            t = (b * s + f) / e
            if t < 0.0:
                t, s = 0.0, min(max(-c / a, 0.0), 1.0)
            elif t > 1.0:
                t, s = 1.0, min(max((b - c) / a, 0.0), 1.0)
    _sphere_sphere_at(0, a0[0] + s * d1[0], a0[1] + s * d1[1], a0[2] + s * d1[2], ra,
                      b0[0] + t * d2[0], b0[1] + t * d2[1], b0[2] + t * d2[2], rb,
                      g, n, pa, pb)
    return 1


def points(count=MAX_POINTS):
    """Arrays for a pair's points: (g (count,), n, pa, pb (count, 3))."""
    return (np.zeros(count), np.zeros((count, 3)), np.zeros((count, 3)),
            np.zeros((count, 3)))
