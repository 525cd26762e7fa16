"""Contact geometry of any two convex shapes (SPEC §12, the narrow phase's general part): the
signed distance, normal and witness points by GJK (separated) and EPA (penetrating),
allocation-free.

:func:`gjk_epa` writes one point, as the closed forms of :mod:`mbd.compiled.geometry` do:
``g[0]`` the gap (m; negative: penetration depth), ``n[0]`` the unit normal from shape a into
shape b, ``pa[0]`` and ``pb[0]`` the witness points on a and on b (world, m; ``pb - pa = g n``).

Shapes, each given by five arguments ``kind, dims, c, R, verts`` (world pose: centre ``c``
(3,), m, and rotation ``R`` (3, 3), whose columns are the shape's axes):

==========  ==========================================================================
kind        dims (3,), m
==========  ==========================================================================
SPHERE      ``(radius, -, -)``
CAPSULE     ``(radius, half length, -)``: the points within radius of the segment
            ``c +- half length R[:, 2]``
BOX         ``(half sizes along R's columns)``
CYLINDER    ``(radius, half length, -)``: axis along ``R[:, 2]``
HULL        ``(rounding radius, -, -)``: the convex hull of ``verts`` (m, 3) (the
            shape's frame, m) grown by that radius (0: the hull itself)
==========  ==========================================================================

``verts`` is read for HULL only; other kinds may pass any float64 (m, 3) array
(:data:`NO_VERTICES`).

The method: a sphere is its centre grown by its radius, a capsule its segment grown by its
radius; GJK and EPA work on these *cores* (a point, a segment: exact polytopes, no slow
convergence on round surfaces) and the radii are added at the end, which is exact (the
Minkowski difference of the grown shapes is the cores' grown by the sum of the radii).
GJK (Gilbert, Johnson and Keerthi 1988; the simplex's nearest point by Voronoi regions, as in
Ericson, Real-Time Collision Detection §5.1) runs until its duality gap (the distance minus
the lower bound the last support point gives) is below ``TOLERANCE * size``, ``size`` the sum
of the shapes' bounding radii about their centres; where the cores are closer than that, EPA
(van den Bergen 2001) grows a polytope of the cores' Minkowski difference from GJK's simplex
until the support point along the nearest face's normal lies within the same tolerance of
that face. Polytopes (boxes, hulls) converge exactly in a few iterations; a cylinder's round
rim converges geometrically. Where the cores' Minkowski difference is flat (two spheres or
capsules: use the closed forms), the depth is that of the radii.

Accuracy (the tests' findings against coal): polytopes, spheres and capsules to round-off
(1e-15 m on 1-m shapes; a box's support points make coal's own box-box differ by 1e-10); a
cylinder's gap to ~3e-9 m separated (GJK's simplex stalls in round-off where its points crowd
on the rim) and its depth to EPA's stopping gap (coal, whose EPA on a cylinder fails below
its default tolerance, 1e-6, agrees to 2e-6 m); but there the witness points (weighted means
of crowded points, along a normal from a thin face) lie only within ~1e-6 m of the surfaces.

Caller-owned work arrays (:func:`work` makes them; sized by :data:`MAX_VERTICES` and
:data:`MAX_FACES`; their contents between calls mean nothing):

- ``pv`` float64 (MAX_VERTICES, 9): simplex and polytope vertices ``[w, sa, sb]`` (the
  Minkowski difference's point ``w = sa - sb`` and the cores' support points it came from);
- ``ff`` float64 (MAX_FACES, 4): polytope faces' outward unit normals and distances from
  the origin;
- ``fi`` int64 (MAX_FACES, 11): faces' vertices (0-2), neighbours across their edges (3-5),
  alive flag (6), visibility mark (7), and lists (8: search stack, 9: faces searched, 10:
  free slots);
- ``vi`` int64 (MAX_VERTICES, 3): horizon edges (1, 2: face, edge) and the map from a vertex
  to the horizon edge leaving it (0).

Checked in ``tests/mbd/compiled/test_convex.py`` against coal's distances and the closed
forms of :mod:`mbd.compiled.geometry`.
"""
import math

import numpy as np

from .jit.jitcache import njit
from .layout import GJK_FACES, GJK_VERTICES

#: shape kinds
SPHERE, CAPSULE, BOX, CYLINDER, HULL = 0, 1, 2, 3, 4

#: GJK and EPA stop within this fraction of the shapes' size (the sum of their bounding radii,
#: m) of the distance or depth: a round shape (cylinder) to that bound, polytopes exactly
TOLERANCE = 1e-11

#: GJK's iteration cap (polytopes converge in a few; a cylinder's rim in some tens)
MAX_GJK_ITERATIONS = 128

#: EPA's polytope: at most this many vertices (its iteration cap, less the 4 it starts with),
#: and the faces a closed triangulated polytope of that many vertices has (2 V - 4) with room
MAX_VERTICES = GJK_VERTICES
MAX_FACES = GJK_FACES

#: the vertices argument of a shape that is not a HULL
NO_VERTICES = np.zeros((0, 3))

_BIG = 1e300


@njit(inline="always")
def _margin(kind, dims):
    """The radius a shape's core is grown by (m)."""
    if kind == SPHERE or kind == CAPSULE or kind == HULL:
        return dims[0]
    return 0.0


@njit()
def _size(kind, dims, verts):
    """A shape's bounding radius about its centre (m): the tolerances' length scale."""
    if kind == SPHERE:
        return dims[0]
    if kind == CAPSULE:
        return dims[0] + dims[1]
    if kind == BOX:
        return math.sqrt(dims[0] ** 2 + dims[1] ** 2 + dims[2] ** 2)
    if kind == CYLINDER:
        return math.sqrt(dims[0] ** 2 + dims[1] ** 2)
    s = 0.0
    for i in range(verts.shape[0]):
        s = max(s, verts[i, 0] ** 2 + verts[i, 1] ** 2 + verts[i, 2] ** 2)
    return math.sqrt(s) + dims[0]


@njit()
def _core(kind, dims, c, R, verts, d0, d1, d2):
    """The support point (world, m) of a shape's core in the world direction d (any length)."""
    l0 = R[0, 0] * d0 + R[1, 0] * d1 + R[2, 0] * d2      # d in the shape's frame
    l1 = R[0, 1] * d0 + R[1, 1] * d1 + R[2, 1] * d2
    l2 = R[0, 2] * d0 + R[1, 2] * d1 + R[2, 2] * d2
    x = y = z = 0.0
    if kind == CAPSULE:
        z = dims[1] if l2 >= 0.0 else -dims[1]
    elif kind == BOX:
        x = dims[0] if l0 >= 0.0 else -dims[0]
        y = dims[1] if l1 >= 0.0 else -dims[1]
        z = dims[2] if l2 >= 0.0 else -dims[2]
    elif kind == CYLINDER:
        z = dims[1] if l2 >= 0.0 else -dims[1]
        t = math.sqrt(l0 * l0 + l1 * l1)
        if t > 0.0:                # else along the axis: the cap's centre is a support point
            x, y = dims[0] * l0 / t, dims[0] * l1 / t
    elif kind == HULL:
        best = -np.inf
        for i in range(verts.shape[0]):
            s = verts[i, 0] * l0 + verts[i, 1] * l1 + verts[i, 2] * l2
            if s > best:
                best, x, y, z = s, verts[i, 0], verts[i, 1], verts[i, 2]
    return (c[0] + R[0, 0] * x + R[0, 1] * y + R[0, 2] * z,
            c[1] + R[1, 0] * x + R[1, 1] * y + R[1, 2] * z,
            c[2] + R[2, 0] * x + R[2, 1] * y + R[2, 2] * z)


@njit()
def support(kind, dims, c, R, verts, d, out):
    """The support point of a shape in the world direction ``d`` (3,), any length: written to
    ``out`` (3,), world, m; a point of the shape farthest along d."""
    x, y, z = _core(kind, dims, c, R, verts, d[0], d[1], d[2])
    m, dd = _margin(kind, dims), math.sqrt(d[0] ** 2 + d[1] ** 2 + d[2] ** 2)
    if m > 0.0 and dd > 0.0:
        x, y, z = x + m * d[0] / dd, y + m * d[1] / dd, z + m * d[2] / dd
    out[0], out[1], out[2] = x, y, z


@njit()
def _vertex(pv, i, ka, da, ca, Ra, va, kb, db, cb, Rb, vb, d0, d1, d2):
    """Row i of pv: the cores' Minkowski difference's support point along d, and the cores'
    support points it is made of."""
    a0, a1, a2 = _core(ka, da, ca, Ra, va, d0, d1, d2)
    b0, b1, b2 = _core(kb, db, cb, Rb, vb, -d0, -d1, -d2)
    pv[i, 0], pv[i, 1], pv[i, 2] = a0 - b0, a1 - b1, a2 - b2
    pv[i, 3], pv[i, 4], pv[i, 5] = a0, a1, a2
    pv[i, 6], pv[i, 7], pv[i, 8] = b0, b1, b2


@njit(inline="always")
def _dot(pv, i, x, y, z):
    return pv[i, 0] * x + pv[i, 1] * y + pv[i, 2] * z


@njit()
def _segment(pv, i, j):
    """The point of segment w_i w_j nearest the origin: (distance squared, count, rows (3),
    weights (3)) of the vertices it lies on."""
    e0, e1, e2 = pv[j, 0] - pv[i, 0], pv[j, 1] - pv[i, 1], pv[j, 2] - pv[i, 2]
    ee = e0 * e0 + e1 * e1 + e2 * e2
    t = -_dot(pv, i, e0, e1, e2)
    if t <= 0.0 or ee == 0.0:
        return _dot(pv, i, pv[i, 0], pv[i, 1], pv[i, 2]), 1, i, -1, -1, 1.0, 0.0, 0.0
    if t >= ee:
        return _dot(pv, j, pv[j, 0], pv[j, 1], pv[j, 2]), 1, j, -1, -1, 1.0, 0.0, 0.0
    t /= ee
    x, y, z = pv[i, 0] + t * e0, pv[i, 1] + t * e1, pv[i, 2] + t * e2
    return x * x + y * y + z * z, 2, i, j, -1, 1.0 - t, t, 0.0


@njit()
def _triangle(pv, i, j, k):
    """The point of triangle w_i w_j w_k nearest the origin, as :func:`_segment` gives it
    (Voronoi regions, Ericson §5.1.5; a degenerate triangle: its nearest edge)."""
    ab = (pv[j, 0] - pv[i, 0], pv[j, 1] - pv[i, 1], pv[j, 2] - pv[i, 2])
    ac = (pv[k, 0] - pv[i, 0], pv[k, 1] - pv[i, 1], pv[k, 2] - pv[i, 2])
    d1, d2 = -_dot(pv, i, ab[0], ab[1], ab[2]), -_dot(pv, i, ac[0], ac[1], ac[2])
    d3, d4 = -_dot(pv, j, ab[0], ab[1], ab[2]), -_dot(pv, j, ac[0], ac[1], ac[2])
    d5, d6 = -_dot(pv, k, ab[0], ab[1], ab[2]), -_dot(pv, k, ac[0], ac[1], ac[2])
    va, vb, vc = d3 * d6 - d5 * d4, d5 * d2 - d1 * d6, d1 * d4 - d3 * d2
    denom = va + vb + vc             # |ab x ac|^2
    sab = ab[0] ** 2 + ab[1] ** 2 + ab[2] ** 2
    sac = ac[0] ** 2 + ac[1] ** 2 + ac[2] ** 2
    if (d1 <= 0.0 and d2 <= 0.0) or (d3 >= 0.0 and d4 <= d3) or (d6 >= 0.0 and d5 <= d6) \
            or (vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0) \
            or (vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0) \
            or (va <= 0.0 and d4 - d3 >= 0.0 and d5 - d6 >= 0.0) \
            or denom <= 1e-24 * sab * sac:
        # on the boundary (or flat): the nearest of the three edges
        best = _segment(pv, i, j)
        s = _segment(pv, j, k)
        if s[0] < best[0]:
            best = s
        s = _segment(pv, i, k)
        if s[0] < best[0]:
            best = s
        return best
    v, w = vb / denom, vc / denom
    u = 1.0 - v - w
    x = u * pv[i, 0] + v * pv[j, 0] + w * pv[k, 0]
    y = u * pv[i, 1] + v * pv[j, 1] + w * pv[k, 1]
    z = u * pv[i, 2] + v * pv[j, 2] + w * pv[k, 2]
    return x * x + y * y + z * z, 3, i, j, k, u, v, w


@njit(inline="always")
def _det(pv, i, j, k, o0, o1, o2):
    """det(w_i - o, w_j - o, w_k - o)."""
    a0, a1, a2 = pv[i, 0] - o0, pv[i, 1] - o1, pv[i, 2] - o2
    b0, b1, b2 = pv[j, 0] - o0, pv[j, 1] - o1, pv[j, 2] - o2
    c0, c1, c2 = pv[k, 0] - o0, pv[k, 1] - o1, pv[k, 2] - o2
    return a0 * (b1 * c2 - b2 * c1) + a1 * (b2 * c0 - b0 * c2) + a2 * (b0 * c1 - b1 * c0)


@njit()
def _tetrahedron(pv):
    """The point of the tetrahedron w_0..w_3 nearest the origin: count 4 (weights: the
    origin's barycentric coordinates) where the origin is inside, else its nearest face's
    nearest point, as :func:`_triangle` gives it."""
    vol = _det(pv, 1, 2, 3, pv[0, 0], pv[0, 1], pv[0, 2])
    # the origin's barycentric coordinates (signed volumes); each < 0: outside that face
    lam = (_det(pv, 1, 2, 3, 0.0, 0.0, 0.0), -_det(pv, 0, 2, 3, 0.0, 0.0, 0.0),
           _det(pv, 0, 1, 3, 0.0, 0.0, 0.0), -_det(pv, 0, 1, 2, 0.0, 0.0, 0.0))
    flat = vol == 0.0
    if not flat:
        l0, l1, l2, l3 = lam[0] / vol, lam[1] / vol, lam[2] / vol, lam[3] / vol
        if l0 >= 0.0 and l1 >= 0.0 and l2 >= 0.0 and l3 >= 0.0:
            return 0.0, 4, l0, l1, l2, l3
    else:
        l0 = l1 = l2 = l3 = -1.0             # flat: every face is a candidate
    best = (np.inf, 0, -1, -1, -1, 0.0, 0.0, 0.0)
    if l0 < 0.0:
        best = _triangle(pv, 1, 2, 3)
    if l1 < 0.0:
        s = _triangle(pv, 0, 2, 3)
        if s[0] < best[0]:
            best = s
    if l2 < 0.0:
        s = _triangle(pv, 0, 1, 3)
        if s[0] < best[0]:
            best = s
    if l3 < 0.0:
        s = _triangle(pv, 0, 1, 2)
        if s[0] < best[0]:
            best = s
    _front(pv, best[1], best[2], best[3], best[4])
    return best[0], best[1], best[5], best[6], best[7], 0.0


@njit()
def _front(pv, k, i, j, m):
    """The simplex's rows i, j, m (ascending; the first k of them) moved to rows 0..k-1
    (ascending: copying forward never overwrites a row still to be read)."""
    for r in range(k):
        src = i if r == 0 else (j if r == 1 else m)
        if src != r:
            pv[r, :] = pv[src, :]


@njit()
def _closest(pv, k):
    """The simplex w_0..w_{k-1}'s point nearest the origin: its rows reduced to those it lies
    on, first; returns (distance squared, count, weights (4))."""
    if k == 4:
        return _tetrahedron(pv)
    if k == 3:
        s = _triangle(pv, 0, 1, 2)
    else:
        s = _segment(pv, 0, 1)
    _front(pv, s[1], s[2], s[3], s[4])
    return s[0], s[1], s[5], s[6], s[7], 0.0


@njit()
def _gjk(ka, da, ca, Ra, va, kb, db, cb, Rb, vb, pv, eps):
    """GJK on the cores: (inside, k, weights (4)): the simplex w_0..w_{k-1} and the weights of
    its point nearest the origin; inside where the cores are within eps (m) of touching or
    overlap (the simplex holds the origin, within eps)."""
    d0, d1, d2 = cb[0] - ca[0], cb[1] - ca[1], cb[2] - ca[2]
    if d0 == 0.0 and d1 == 0.0 and d2 == 0.0:
        d0 = 1.0
    _vertex(pv, 0, ka, da, ca, Ra, va, kb, db, cb, Rb, vb, d0, d1, d2)
    k, lam = 1, (1.0, 0.0, 0.0, 0.0)
    v0, v1, v2 = pv[0, 0], pv[0, 1], pv[0, 2]
    vv = v0 * v0 + v1 * v1 + v2 * v2
    for _ in range(MAX_GJK_ITERATIONS):
        if vv <= eps * eps:
            return True, k, lam
        _vertex(pv, k, ka, da, ca, Ra, va, kb, db, cb, Rb, vb, -v0, -v1, -v2)
        # duality gap: the distance is between v.w/|v| and |v|
        if vv - _dot(pv, k, v0, v1, v2) <= eps * math.sqrt(vv):
            return False, k, lam
        d2new, kn, l0, l1, l2, l3 = _closest(pv, k + 1)
        if kn == 4:
            return True, 4, (l0, l1, l2, l3)
        stalled = d2new >= vv    # no progress (round-off): stop with the new simplex
        k, lam, vv = kn, (l0, l1, l2, l3), d2new
        if stalled:
            return False, k, lam
        v0 = l0 * pv[0, 0] + l1 * pv[1, 0] + l2 * pv[2, 0]
        v1 = l0 * pv[0, 1] + l1 * pv[1, 1] + l2 * pv[2, 1]
        v2 = l0 * pv[0, 2] + l1 * pv[1, 2] + l2 * pv[2, 2]
    return False, k, lam


@njit()
def _face(pv, ff, fi, f, i, j, k):
    """Face f = (w_i, w_j, w_k), counter-clockwise seen from outside: its unit normal and
    distance; a sliver (normal not resolvable in round-off) is never nearest nor visible."""
    fi[f, 0], fi[f, 1], fi[f, 2], fi[f, 6], fi[f, 7] = i, j, k, 1, 0
    a0, a1, a2 = pv[j, 0] - pv[i, 0], pv[j, 1] - pv[i, 1], pv[j, 2] - pv[i, 2]
    b0, b1, b2 = pv[k, 0] - pv[i, 0], pv[k, 1] - pv[i, 1], pv[k, 2] - pv[i, 2]
    n0, n1, n2 = a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0
    nn = math.sqrt(n0 * n0 + n1 * n1 + n2 * n2)
    aa, bb = a0 * a0 + a1 * a1 + a2 * a2, b0 * b0 + b1 * b1 + b2 * b2
    if nn <= 1e-9 * max(aa, bb):
        ff[f, 0], ff[f, 1], ff[f, 2], ff[f, 3] = 0.0, 0.0, 0.0, _BIG
        return
    n0, n1, n2 = n0 / nn, n1 / nn, n2 / nn
    ff[f, 0], ff[f, 1], ff[f, 2] = n0, n1, n2
    # the mean of the three vertices' heights: less round-off than one
    ff[f, 3] = (_dot(pv, i, n0, n1, n2) + _dot(pv, j, n0, n1, n2)
                + _dot(pv, k, n0, n1, n2)) / 3.0


@njit()
def _link(fi, f, e, g):
    """Where face g has face f's edge e reversed, both are told they are neighbours."""
    a, b = fi[f, e], fi[f, (e + 1) % 3]
    for e2 in range(3):
        if fi[g, e2] == b and fi[g, (e2 + 1) % 3] == a:
            fi[f, 3 + e], fi[g, 3 + e2] = g, f


@njit()
def _start(ka, da, ca, Ra, va, kb, db, cb, Rb, vb, pv, ff, fi, k, eps):
    """EPA's first polytope, a tetrahedron about the origin, from GJK's simplex of k points
    (grown by support points off its line or plane). Returns (0, normal) where the
    tetrahedron is faces 0-3, else (1, normal): the Minkowski difference is flat there (no
    interior: the depth is 0 and the normal the flat's)."""
    if k == 1:                   # any other point of the difference
        for axis in range(6):
            s = 1.0 if axis < 3 else -1.0
            d = (s if axis % 3 == 0 else 0.0, s if axis % 3 == 1 else 0.0,
                 s if axis % 3 == 2 else 0.0)
            _vertex(pv, 1, ka, da, ca, Ra, va, kb, db, cb, Rb, vb, d[0], d[1], d[2])
            e = (pv[1, 0] - pv[0, 0], pv[1, 1] - pv[0, 1], pv[1, 2] - pv[0, 2])
            if e[0] ** 2 + e[1] ** 2 + e[2] ** 2 > eps * eps:
                k = 2
                break
        if k == 1:
            return 1, (0.0, 0.0, 1.0)
    if k == 2:                   # a point off the segment's line: search around it
        e0, e1, e2 = pv[1, 0] - pv[0, 0], pv[1, 1] - pv[0, 1], pv[1, 2] - pv[0, 2]
        ee = math.sqrt(e0 * e0 + e1 * e1 + e2 * e2)
        e0, e1, e2 = e0 / ee, e1 / ee, e2 / ee
        # u: perpendicular to e (e x the axis least along it), t = e x u
        if abs(e0) <= abs(e1) and abs(e0) <= abs(e2):
            u0, u1, u2 = 0.0, e2, -e1
        elif abs(e1) <= abs(e2):
            u0, u1, u2 = -e2, 0.0, e0
        else:
            u0, u1, u2 = e1, -e0, 0.0
        uu = math.sqrt(u0 * u0 + u1 * u1 + u2 * u2)
        u0, u1, u2 = u0 / uu, u1 / uu, u2 / uu
        t0, t1, t2 = e1 * u2 - e2 * u1, e2 * u0 - e0 * u2, e0 * u1 - e1 * u0
        for step in range(6):
            cs, sn = math.cos(step * math.pi / 3.0), math.sin(step * math.pi / 3.0)
            _vertex(pv, 2, ka, da, ca, Ra, va, kb, db, cb, Rb, vb, cs * u0 + sn * t0,
                    cs * u1 + sn * t1, cs * u2 + sn * t2)
            q0, q1, q2 = pv[2, 0] - pv[0, 0], pv[2, 1] - pv[0, 1], pv[2, 2] - pv[0, 2]
            h = q0 * e0 + q1 * e1 + q2 * e2
            if (q0 - h * e0) ** 2 + (q1 - h * e1) ** 2 + (q2 - h * e2) ** 2 > eps * eps:
                k = 3
                break
        if k == 2:
            return 1, (u0, u1, u2)
    if k == 3:                   # a point off the plane, on the origin's side first
        a0, a1, a2 = pv[1, 0] - pv[0, 0], pv[1, 1] - pv[0, 1], pv[1, 2] - pv[0, 2]
        b0, b1, b2 = pv[2, 0] - pv[0, 0], pv[2, 1] - pv[0, 1], pv[2, 2] - pv[0, 2]
        n0, n1, n2 = a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0
        nn = math.sqrt(n0 * n0 + n1 * n1 + n2 * n2)
        n0, n1, n2 = n0 / nn, n1 / nn, n2 / nn
        s = 1.0 if _dot(pv, 0, n0, n1, n2) <= 0.0 else -1.0
        for _ in range(2):
            _vertex(pv, 3, ka, da, ca, Ra, va, kb, db, cb, Rb, vb, s * n0, s * n1, s * n2)
            h = (pv[3, 0] - pv[0, 0]) * n0 + (pv[3, 1] - pv[0, 1]) * n1 \
                + (pv[3, 2] - pv[0, 2]) * n2
            if abs(h) > eps:
                k = 4
                break
            s = -s
        if k == 3:
            return 1, (n0, n1, n2)
    if _det(pv, 1, 2, 3, pv[0, 0], pv[0, 1], pv[0, 2]) < 0.0:     # w1, w2 swapped: positive
        for c in range(9):
            pv[1, c], pv[2, c] = pv[2, c], pv[1, c]
    _face(pv, ff, fi, 0, 0, 2, 1)
    _face(pv, ff, fi, 1, 0, 1, 3)
    _face(pv, ff, fi, 2, 0, 3, 2)
    _face(pv, ff, fi, 3, 1, 2, 3)
    for f in range(4):
        for e in range(3):
            for g in range(4):
                if g != f:
                    _link(fi, f, e, g)
    return 0, (0.0, 0.0, 0.0)


@njit()
def _epa(ka, da, ca, Ra, va, kb, db, cb, Rb, vb, pv, ff, fi, vi, k, eps):
    """EPA on the cores from GJK's simplex of k points. Returns the nearest face (-1: the
    difference is flat, :func:`_start`) and the normal of a flat one."""
    flat, normal = _start(ka, da, ca, Ra, va, kb, db, cb, Rb, vb, pv, ff, fi, k, eps)
    if flat:
        return -1, normal
    vi[:, 0] = -1
    nv, nf, nfree = 4, 4, 0
    # a face sees a new point that is farther than this above its plane: coplanar points
    # (a box's faces) do not make slivers by removing a face they lie in
    see = 1e-3 * eps
    while True:
        best, bd = -1, np.inf
        for f in range(nf):
            if fi[f, 6] == 1 and ff[f, 3] < bd:
                best, bd = f, ff[f, 3]
        m0, m1, m2 = ff[best, 0], ff[best, 1], ff[best, 2]
        if nv == MAX_VERTICES:
            break
        _vertex(pv, nv, ka, da, ca, Ra, va, kb, db, cb, Rb, vb, m0, m1, m2)
        if _dot(pv, nv, m0, m1, m2) - bd <= eps:
            break
        # the faces that see the new point, by search across edges from the nearest one;
        # the horizon: their edges to faces that do not
        fi[best, 7], fi[0, 8], sp, nt, nh = 1, best, 1, 0, 0
        ok = True
        while sp > 0:
            sp -= 1
            f = fi[sp, 8]
            fi[nt, 9] = f
            nt += 1
            for e in range(3):
                g = fi[f, 3 + e]
                if fi[g, 7] == 0:
                    vis = _dot(pv, nv, ff[g, 0], ff[g, 1], ff[g, 2]) - ff[g, 3] > see
                    fi[g, 7] = 1 if vis else 2
                    if vis:
                        fi[sp, 8] = g
                        sp += 1
                    else:
                        fi[nt, 9] = g
                        nt += 1
                if fi[g, 7] == 2:
                    if nh == MAX_VERTICES:
                        ok = False
                        break
                    vi[nh, 1], vi[nh, 2] = f, e
                    nh += 1
        # a usable horizon is one loop through distinct vertices, and the faces fit
        for h in range(nh if ok else 0):
            a = fi[vi[h, 1], vi[h, 2]]
            if vi[a, 0] >= 0:
                ok = False
                break
            vi[a, 0] = h
        if ok:
            h, steps = 0, 0
            while steps < nh:
                h = vi[fi[vi[h, 1], (vi[h, 2] + 1) % 3], 0]
                steps += 1
                if h <= 0:
                    break
            ok = h == 0 and steps == nh and nh <= nfree + MAX_FACES - nf
        if ok:
            for h in range(nh):
                f, e = vi[h, 1], vi[h, 2]
                a, b, g = fi[f, e], fi[f, (e + 1) % 3], fi[f, 3 + e]
                if nfree > 0:
                    nfree -= 1
                    new = fi[nfree, 10]
                else:
                    new = nf
                    nf += 1
                _face(pv, ff, fi, new, a, b, nv)
                fi[new, 3] = g
                for e2 in range(3):
                    if fi[g, e2] == b and fi[g, (e2 + 1) % 3] == a:
                        fi[g, 3 + e2] = new
                vi[h, 1] = new
            for h in range(nh):
                new = vi[h, 1]
                nxt = vi[vi[fi[new, 1], 0], 1]          # the new face leaving b
                fi[new, 4], fi[nxt, 5] = nxt, new
            # the visible faces go, their slots free (only now: the new faces were made from
            # their edges)
            for t in range(nt):
                f = fi[t, 9]
                if fi[f, 7] == 1:
                    fi[f, 6] = 0
                    fi[nfree, 10] = f
                    nfree += 1
        for t in range(nt):
            fi[fi[t, 9], 7] = 0
        for h in range(nh):
            vi[fi[vi[h, 1], 0] if ok else fi[vi[h, 1], vi[h, 2]], 0] = -1
        if not ok:
            break
        nv += 1
    return best, (m0, m1, m2)


@njit()
def gjk_epa(kind_a, dims_a, c_a, R_a, verts_a, kind_b, dims_b, c_b, R_b, verts_b,
            pv, ff, fi, vi, g, n, pa, pb):
    """Convex shape a against convex shape b (each ``kind, dims (3,), c (3,), R (3, 3),
    verts (m, 3)``, see the module): their signed distance, normal and witness points, written
    as point 0 of g (n,), n, pa, pb (n, 3); ``pv, ff, fi, vi``: the work arrays
    (:func:`work`). Returns 1.

    Accurate to ``TOLERANCE`` times the shapes' size for the gap; the normal of shapes whose
    cores are nearer than that is EPA's (its nearest face's). A sphere's or capsule's witness
    lies on its surface along the normal."""
    ra, rb = _margin(kind_a, dims_a), _margin(kind_b, dims_b)
    eps = TOLERANCE * (_size(kind_a, dims_a, verts_a) + _size(kind_b, dims_b, verts_b))
    inside, k, lam = _gjk(kind_a, dims_a, c_a, R_a, verts_a, kind_b, dims_b, c_b, R_b,
                          verts_b, pv, eps)
    x = y = z = 0.0
    if not inside:
        v0 = lam[0] * pv[0, 0] + lam[1] * pv[1, 0] + lam[2] * pv[2, 0]
        v1 = lam[0] * pv[0, 1] + lam[1] * pv[1, 1] + lam[2] * pv[2, 1]
        v2 = lam[0] * pv[0, 2] + lam[1] * pv[1, 2] + lam[2] * pv[2, 2]
        gap = math.sqrt(v0 * v0 + v1 * v1 + v2 * v2)
        n0, n1, n2 = -v0 / gap, -v1 / gap, -v2 / gap
    else:
        f, normal = _epa(kind_a, dims_a, c_a, R_a, verts_a, kind_b, dims_b, c_b, R_b,
                         verts_b, pv, ff, fi, vi, k, eps)
        n0, n1, n2 = normal
        gap = 0.0                # a flat difference: depth 0, the GJK simplex's point
        if f >= 0:               # the origin's foot on the face: its barycentric weights
            gap = -ff[f, 3]
            i, j, kk = fi[f, 0], fi[f, 1], fi[f, 2]
            p0, p1, p2 = -gap * n0 - pv[i, 0], -gap * n1 - pv[i, 1], -gap * n2 - pv[i, 2]
            a0, a1, a2 = pv[j, 0] - pv[i, 0], pv[j, 1] - pv[i, 1], pv[j, 2] - pv[i, 2]
            b0, b1, b2 = pv[kk, 0] - pv[i, 0], pv[kk, 1] - pv[i, 1], pv[kk, 2] - pv[i, 2]
            d00, d01 = a0 * a0 + a1 * a1 + a2 * a2, a0 * b0 + a1 * b1 + a2 * b2
            d11 = b0 * b0 + b1 * b1 + b2 * b2
            d20, d21 = p0 * a0 + p1 * a1 + p2 * a2, p0 * b0 + p1 * b1 + p2 * b2
            den = d00 * d11 - d01 * d01
            lj, lk = (d11 * d20 - d01 * d21) / den, (d00 * d21 - d01 * d20) / den
            li = 1.0 - lj - lk
            x = li * pv[i, 3] + lj * pv[j, 3] + lk * pv[kk, 3]
            y = li * pv[i, 4] + lj * pv[j, 4] + lk * pv[kk, 4]
            z = li * pv[i, 5] + lj * pv[j, 5] + lk * pv[kk, 5]
            k = 0
    for r in range(k):           # GJK's point: its simplex's weights
        x += lam[r] * pv[r, 3]
        y += lam[r] * pv[r, 4]
        z += lam[r] * pv[r, 5]
    gap -= ra + rb
    x, y, z = x + ra * n0, y + ra * n1, z + ra * n2
    g[0] = gap
    n[0, 0], n[0, 1], n[0, 2] = n0, n1, n2
    pa[0, 0], pa[0, 1], pa[0, 2] = x, y, z
    pb[0, 0], pb[0, 1], pb[0, 2] = x + gap * n0, y + gap * n1, z + gap * n2
    return 1


def work():
    """The work arrays of :func:`gjk_epa`: (pv, ff, fi, vi), see the module."""
    return (np.zeros((MAX_VERTICES, 9)), np.zeros((MAX_FACES, 4)),
            np.zeros((MAX_FACES, 11), np.int64), np.full((MAX_VERTICES, 3), -1, np.int64))
