"""The contact placement (SPEC §12): one contact point of a pair of shapes as a force element.

A :class:`mbd.Contact` is laid out as one ``CONTACT`` element per point its pair of shapes can
have (a box on a plane: 8, one per vertex; a capsule on a plane: 2; two spheres: 1), each with
its own copy of the normal law and its own switching functions, so that every point's contact
begins and ends exactly. The element reads (SPEC §12 "Where the force acts")::

    x    = g_k                             the point's gap (m; < 0: penetration)
    xdot = n_k . (v_b(p_k) - v_a(p_k))     its rate, the material points' velocities at p_k

with n_k the unit normal from shape a into shape b and p_k the midpoint of the witness points
(:mod:`mbd.compiled.geometry`). The law's value F acts on b at p_k along +n_k, its reaction on
a; with Coulomb friction the slip velocity v_t (the rest of v_b(p_k) - v_a(p_k)) adds, on b,

    f_t = -mu(s) max(F, 0) v_t / s,   s = |v_t|,
    mu(s) = mu_s s / v_crit                                      (s <= v_crit)
          = mu_k + (mu_s - mu_k) exp(-(s - v_crit) / v_crit)     (s > v_crit)

(continuous, zero at s = 0), and its reaction on a. The loads' power is F xdot + f_t . v_t,
the first the law's and the second what friction dissipates. Exact friction (stick and slip
of a patch) is :mod:`mbd.compiled.patchkernels`; which points an evaluation measures,
:mod:`mbd.compiled.broadphase`.

:func:`measure` (the closed forms) and :func:`measure_convex` (GJK/EPA) are compiled apart
and called through their addresses (an element's ``measure_entry``, as a bushing's measure
is): a model without contacts compiles neither, one with closed forms only not GJK/EPA.
"""
import numpy as np

from . import convex, geometry, linkpoints
from .jit.jitcache import njit

#: the pairs with a closed form, by their shapes' class names in pair order (the model's
#: ``mbd.model.contacts.FEATURES`` names their points), and their codes (``ELEMENT.pair``)
(PLANE_SPHERE, PLANE_CAPSULE, PLANE_BOX, PLANE_CYLINDER, SPHERE_SPHERE, SPHERE_CAPSULE,
 CAPSULE_CAPSULE, PLANE_VERTEX, SPHERE_BOX, CONVEX) = range(10)
PAIR_CODES = {("Plane", "Sphere"): PLANE_SPHERE, ("Plane", "Capsule"): PLANE_CAPSULE,
              ("Plane", "Box"): PLANE_BOX, ("Plane", "Cylinder"): PLANE_CYLINDER,
              ("Sphere", "Sphere"): SPHERE_SPHERE, ("Sphere", "Capsule"): SPHERE_CAPSULE,
              ("Capsule", "Capsule"): CAPSULE_CAPSULE, ("Plane", "ConvexMesh"): PLANE_VERTEX,
              ("Sphere", "Box"): SPHERE_BOX}
#: the shapes GJK/EPA takes (any pair of them without a closed form: code CONVEX), by class
CONVEX_KINDS = {"Sphere": convex.SPHERE, "Capsule": convex.CAPSULE, "Box": convex.BOX,
                "Cylinder": convex.CYLINDER, "ConvexMesh": convex.HULL}


def pair_code(first, second):
    """The pair code of shapes of the class names ``first``, ``second`` (pair order): a
    closed form's, else CONVEX where GJK/EPA takes both, else None."""
    code = PAIR_CODES.get((first, second))
    if code is None and first in CONVEX_KINDS and second in CONVEX_KINDS:
        code = CONVEX
    return code


def shape_row(shape, feature):
    """(sizes, axes) of a contact shape as the element record of its point ``feature``
    holds it: sizes (3,) the radius and half length (sphere, capsule, cylinder), the half
    sizes (box) or, against a plane, the point's hull vertex (a convex mesh, CS coordinates;
    ``feature`` None: GJK/EPA's hull, rounded by 0), m; axes (3, 3)
    the shape's own axes in its CS's (columns; a capsule's or cylinder's axis is the z
    column)."""
    name = type(shape).__name__
    axes = np.eye(3)
    if name == "ConvexMesh":      # against a plane: the point's vertex; else, GJK: none
        return (np.array(shape.vertices[feature], dtype=float) if feature is not None
                else np.zeros(3)), axes
    if name == "Sphere":
        return np.array([shape.radius, 0.0, 0.0]), axes
    if name == "Box":
        return 0.5 * np.asarray(shape.size, dtype=float), axes
    if name in ("Capsule", "Cylinder"):
        z = np.asarray(shape.axis, dtype=float)
        x = np.cross(z, (1.0, 0.0, 0.0) if abs(z[0]) < 0.9 else (0.0, 1.0, 0.0))
        x /= np.linalg.norm(x)
        axes = np.column_stack((x, np.cross(z, x), z))
        return np.array([shape.radius, 0.5 * shape.length, 0.0]), axes
    return np.zeros(3), axes           # a plane: its CS's x-y plane


@njit()
def _pose(links, link, position, frame, half_length, L, R, out):
    """A shape's world pose: R its axes (columns), out's rows its centre, its axis (R's z),
    and the ends of its axis segment (centre -+ half_length axis)."""
    linkpoints.cs_axes(links, link, frame, L, R)
    linkpoints.world_point(links, link, position, out[0])
    for a in range(3):
        out[1, a] = R[a, 2]
        out[2, a] = out[0, a] - half_length * R[a, 2]
        out[3, a] = out[0, a] + half_length * R[a, 2]


@njit()
def _pair_points(E, sc, flip, g, n, pa, pb):
    """The points of element E's pair (a closed form's) into g, n, pa, pb, measured from the
    pair's first shape (B's where ``flip``) to its second, on the poses in
    ``sc.shape_a``/``shape_b`` and the axes in ``sc.D3``/``sc.T3`` (:func:`_pose`)."""
    if flip:
        F, sf, S, RS, ss = sc.shape_b, E.size_b, sc.shape_a, sc.D3, E.size_a
    else:
        F, sf, S, RS, ss = sc.shape_a, E.size_a, sc.shape_b, sc.T3, E.size_b
    pair = E.pair
    if pair == PLANE_SPHERE:
        geometry.plane_sphere(F[0], F[1], S[0], ss[0], g, n, pa, pb)
    elif pair == PLANE_CAPSULE:
        geometry.plane_capsule(F[0], F[1], S[2], S[3], ss[0], g, n, pa, pb)
    elif pair == PLANE_BOX:
        geometry.plane_box(F[0], F[1], S[0], RS, ss, g, n, pa, pb)
    elif pair == PLANE_CYLINDER:
        geometry.plane_cylinder(F[0], F[1], S[2], S[3], ss[0], g, n, pa, pb)
    elif pair == PLANE_VERTEX:      # a hull's vertex (ss, its shape's coordinates): point 0
        for a in range(3):
            S[3, a] = S[0, a] + RS[a, 0] * ss[0] + RS[a, 1] * ss[1] + RS[a, 2] * ss[2]
        geometry.plane_sphere(F[0], F[1], S[3], 0.0, g, n, pa, pb)
    elif pair == SPHERE_BOX:
        geometry.sphere_box(F[0], sf[0], S[0], RS, ss, g, n, pa, pb)
    elif pair == SPHERE_SPHERE:
        geometry.sphere_sphere(F[0], sf[0], S[0], ss[0], g, n, pa, pb)
    elif pair == SPHERE_CAPSULE:
        geometry.sphere_capsule(F[0], sf[0], S[2], S[3], ss[0], g, n, pa, pb)
    else:
        geometry.capsule_capsule(F[2], F[3], sf[0], S[2], S[3], ss[0], g, n, pa, pb)


@njit()
def _convex_points(E, sc, flip, g, n, pa, pb):
    """:func:`_pair_points` of a CONVEX pair: any other two solids, by GJK/EPA."""
    if flip:
        F, RF, sf, S, RS, ss = sc.shape_b, sc.T3, E.size_b, sc.shape_a, sc.D3, E.size_a
        first, second = 1, 0
        hf, hs = E.hull_b[:E.hull_count[1]], E.hull_a[:E.hull_count[0]]
    else:
        F, RF, sf, S, RS, ss = sc.shape_a, sc.D3, E.size_a, sc.shape_b, sc.T3, E.size_b
        first, second = 0, 1
        hf, hs = E.hull_a[:E.hull_count[0]], E.hull_b[:E.hull_count[1]]
    convex.gjk_epa(E.kinds[first], sf, F[0], RF, hf, E.kinds[second], ss, S[0], RS, hs,
                   sc.gjk_points, sc.gjk_faces, sc.gjk_face_links, sc.gjk_edges, g, n, pa, pb)


@njit(inline="always")
def _measure(i, elements, estate, links, scratch, convex_pair):
    """Measure contact point i (module docstring): its gap and rate into the record's x and
    xdot, the normal into ``direction``, the point into ``point_a`` and ``point_b``, the
    material points' velocities into ``vel_a``, ``vel_b`` (``w_a``, ``w_b`` their links'
    angular velocities) and, with friction, the friction force per newton of normal force
    into ``friction`` (:func:`friction_force` scales it); its pair by GJK/EPA where
    ``convex_pair`` (a constant of each entry). Returns the status, 0."""
    E, X = elements[i], estate[i]
    sc = scratch[0]
    A, B = sc.shape_a, sc.shape_b
    _pose(links, E.link_a, E.pos_a, E.frame_a, E.size_a[1], sc.J3, sc.D3, A)
    _pose(links, E.link_b, E.pos_b, E.frame_b, E.size_b[1], sc.J3, sc.T3, B)
    g, n, pa, pb = sc.gaps, sc.normals, sc.witness_a, sc.witness_b
    # where the pair's first shape is B's, measured from it, then turned round
    if convex_pair:
        _convex_points(E, sc, E.flip != 0, g, n, pa, pb)
    else:
        _pair_points(E, sc, E.flip != 0, g, n, pa, pb)
    k = E.feature
    sign = -1.0 if E.flip else 1.0
    d, p = X.direction, X.point_b
    for a in range(3):
        d[a] = sign * n[k, a]
        p[a] = 0.5 * (pa[k, a] + pb[k, a])
        X.point_a[a] = p[a]
    linkpoints.material_velocity(links, E.link_a, p, X.vel_a, X.w_a)
    linkpoints.material_velocity(links, E.link_b, p, X.vel_b, X.w_b)
    u0 = X.vel_b[0] - X.vel_a[0]
    u1 = X.vel_b[1] - X.vel_a[1]
    u2 = X.vel_b[2] - X.vel_a[2]
    rate = d[0] * u0 + d[1] * u1 + d[2] * u2
    X.x, X.xdot = g[k], rate
    f = X.friction
    f[0] = f[1] = f[2] = 0.0
    mu_s, mu_k, v_crit = E.friction[0], E.friction[1], E.friction[2]
    if mu_s > 0.0 and E.friction[3] == 0.0:     # regularized (exact: kinetic_friction)
        t0, t1, t2 = u0 - rate * d[0], u1 - rate * d[1], u2 - rate * d[2]
        s = np.sqrt(t0 * t0 + t1 * t1 + t2 * t2)
        if s > 0.0:
            if s <= v_crit:
                per_speed = mu_s / v_crit                     # mu(s) / s
            else:
                per_speed = (mu_k + (mu_s - mu_k) * np.exp(-(s - v_crit) / v_crit)) / s
            f[0], f[1], f[2] = -per_speed * t0, -per_speed * t1, -per_speed * t2
    return 0


@njit()
def measure(i, elements, estate, links, scratch):
    """:func:`_measure` of a point of a closed form's pair (its element's ``measure_entry``)."""
    return _measure(i, elements, estate, links, scratch, False)


@njit()
def measure_convex(i, elements, estate, links, scratch):
    """:func:`_measure` of a point of a CONVEX pair: GJK/EPA, compiled only for a model that
    has one (its element's ``measure_entry``)."""
    return _measure(i, elements, estate, links, scratch, True)


@njit(inline="always")
def friction_force(X, F):
    """Scale the record's friction per newton (:func:`measure`) by the normal force F (N; a
    law that would pull carries no friction): ``friction`` is then the force on B."""
    scale = F if F > 0.0 else 0.0
    for a in range(3):
        X.friction[a] *= scale
