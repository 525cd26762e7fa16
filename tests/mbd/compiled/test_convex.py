"""GJK/EPA contact geometry of convex shapes (mbd.compiled.convex) against coal's signed
distances (the collision library Pinocchio uses) over random poses, separated and penetrating;
each result's witness points checked against the shapes' support functions; and against the
closed forms of mbd.compiled.geometry and of boxes meeting face to face."""
import coal  # comes with Pinocchio (pin, the test extra)
import numpy as np
import pytest
from scipy.spatial import ConvexHull
from scipy.spatial.transform import Rotation

from mbd.compiled import convex, geometry
from mbd.compiled.convex import BOX, CAPSULE, CYLINDER, HULL, NO_VERTICES, SPHERE

#: convex.gjk_epa stops within TOLERANCE (1e-11) of the shapes' size (~2 m here) and coal's
#: GJK/EPA within 1e-10 (its tolerances as set in coal_distance): agreement to 1e-8 m
TOL = 1e-8
#: coal's EPA on a cylinder (a round rim) gives up or goes wrong at tolerances below its
#: default, 1e-6, and stops short of the depth by up to that: there coal's depth is a lower
#: bound within 2e-6 m, and the witness checks (check_witnesses) bound ours from above
COAL_ROUND = 2e-6
#: on a cylinder's round rim the simplex's or the polytope's points crowd together: GJK's
#: nearest point and EPA's face normal come from nearly collinear points, their directions
#: known to ~1e-7 (round-off over the points' spread), and a witness, their weighted mean, lies
#: within ~1e-6 m of the surface (the distance or depth, flat to first order in the normal,
#: is held to TOL)
ROUND_WITNESS = 1e-5
CASES = 40

PAIRS = [(BOX, BOX), (BOX, SPHERE), (CYLINDER, BOX), (CYLINDER, CYLINDER), (CAPSULE, BOX),
         (HULL, HULL), (HULL, SPHERE), (HULL, BOX), (CYLINDER, CAPSULE)]


def coal_shape(kind, dims, verts):
    if kind == SPHERE:
        return coal.Sphere(dims[0])
    if kind == CAPSULE:          # coal's length: between the end spheres' centres
        return coal.Capsule(dims[0], 2 * dims[1])
    if kind == BOX:
        return coal.Box(*(2 * dims))
    if kind == CYLINDER:
        return coal.Cylinder(dims[0], 2 * dims[1])
    points = coal.StdVec_Vec3s()
    for p in verts:
        points.append(p)
    return coal.Convex.convexHull(points, False, None)


def coal_distance(a, b, epa_tolerance=1e-10):
    """coal's signed distance (m) of two shapes (kind, dims, c, R, verts)."""
    request, result = coal.DistanceRequest(), coal.DistanceResult()
    request.gjk_tolerance, request.epa_tolerance = 1e-10, epa_tolerance
    return coal.distance(coal_shape(a[0], a[1], a[4]), coal.Transform3s(a[3], a[2]),
                         coal_shape(b[0], b[1], b[4]), coal.Transform3s(b[3], b[2]),
                         request, result)


def random_shape(rng, kind, spread=0.6):
    dims = {SPHERE: lambda: np.array([rng.uniform(0.1, 0.5), 0.0, 0.0]),
            CAPSULE: lambda: np.array([rng.uniform(0.1, 0.4), rng.uniform(0.1, 0.6), 0.0]),
            CYLINDER: lambda: np.array([rng.uniform(0.1, 0.5), rng.uniform(0.1, 0.6), 0.0]),
            BOX: lambda: rng.uniform(0.1, 0.6, 3),
            HULL: lambda: np.zeros(3)}[kind]()
    verts = rng.normal(size=(20, 3)) * 0.4 if kind == HULL else NO_VERTICES
    return (kind, dims, rng.uniform(-spread, spread, 3),
            Rotation.random(random_state=rng).as_matrix(), verts)


def inside(shape, p):
    """How far p is outside the shape (m; <= 0 inside)."""
    kind, dims, c, R, verts = shape
    q = R.T @ (p - c)
    if kind == SPHERE:
        return np.linalg.norm(q) - dims[0]
    if kind == CAPSULE:
        return np.linalg.norm(q - [0, 0, np.clip(q[2], -dims[1], dims[1])]) - dims[0]
    if kind == BOX:
        return np.max(np.abs(q) - dims)
    if kind == CYLINDER:
        return max(np.hypot(q[0], q[1]) - dims[0], abs(q[2]) - dims[1])
    eq = ConvexHull(verts).equations
    return np.max(eq[:, :3] @ q + eq[:, 3]) - dims[0]


def support_value(shape, d):
    """The shape's support function along d (m): max over its points of d . x."""
    out = np.zeros(3)
    convex.support(*shape, d, out)
    return out @ d


def solve(a, b):
    g, n, pa, pb = geometry.points(1)
    assert convex.gjk_epa(*a, *b, *convex.work(), g, n, pa, pb) == 1
    return g[0], n[0], pa[0], pb[0]


def check_witnesses(a, b, g, n, pa, pb, tol=1e-9):
    """pb - pa = g n, |n| = 1; each witness in its shape and on its supporting plane normal
    to n (pa farthest along n in a, pb farthest along -n in b). For separated shapes this
    proves g the distance to tol (the witnesses' distance is at least it, the supporting
    planes' gap at most); for penetrating ones, g at most the depth (the overlap along n is
    at least it)."""
    assert np.linalg.norm(n) == pytest.approx(1.0, abs=1e-14)
    np.testing.assert_allclose(pb - pa, g * n, rtol=0, atol=1e-14)
    assert inside(a, pa) <= tol and inside(b, pb) <= tol
    assert pa @ n == pytest.approx(support_value(a, n), abs=tol)
    assert pb @ n == pytest.approx(-support_value(b, -n), abs=tol)


@pytest.mark.parametrize("kinds", PAIRS, ids=lambda k: "-".join(
    ("sphere", "capsule", "box", "cylinder", "hull")[i] for i in k))
def test_random_pairs_match_coal(kinds):
    rng = np.random.default_rng(sum(kinds) * 7 + kinds[0])
    separated = penetrating = 0
    for _ in range(CASES):
        a, b = random_shape(rng, kinds[0]), random_shape(rng, kinds[1])
        g, n, pa, pb = solve(a, b)
        check_witnesses(a, b, g, n, pa, pb, tol=ROUND_WITNESS if CYLINDER in kinds else 1e-9)
        if CYLINDER in kinds and g < 0.0:
            d = coal_distance(a, b, epa_tolerance=1e-6)
            assert d - COAL_ROUND <= g <= d + 1e-9
        else:
            assert g == pytest.approx(coal_distance(a, b), abs=TOL)
        separated += g > 0.0
        penetrating += g < 0.0
    assert separated >= 3 and penetrating >= 3


def test_spheres_and_a_sphere_on_a_flat_box_match_the_closed_forms():
    """Sphere-sphere (their cores two points: a flat difference where they are concentric);
    a sphere and a box on a big box's top face, as on a plane."""
    rng = np.random.default_rng(11)
    g, n, pa, pb = geometry.points()
    eye = np.eye(3)
    for _ in range(CASES):
        ra, rb = rng.uniform(0.1, 0.6, 2)
        ca, cb = rng.uniform(-0.7, 0.7, (2, 3))
        a = (SPHERE, np.array([ra, 0, 0]), ca, eye, NO_VERTICES)
        b = (SPHERE, np.array([rb, 0, 0]), cb, eye, NO_VERTICES)
        geometry.sphere_sphere(ca, ra, cb, rb, g, n, pa, pb)
        got = solve(a, b)
        assert got[0] == pytest.approx(g[0], abs=TOL)
        np.testing.assert_allclose(got[1], n[0], atol=1e-9)
        np.testing.assert_allclose(got[2], pa[0], atol=1e-9)
    got = solve(a, (SPHERE, np.array([rb, 0, 0]), ca, eye, NO_VERTICES))    # concentric
    assert got[0] == pytest.approx(-ra - rb, abs=1e-15)
    # the ground: a box 20 m wide, its top face the plane z = 0
    ground = (BOX, np.array([10.0, 10.0, 1.0]), np.array([0.0, 0.0, -1.0]), eye, NO_VERTICES)
    o, z = np.zeros(3), np.array([0.0, 0.0, 1.0])
    for _ in range(CASES):
        c = np.array([*rng.uniform(-1, 1, 2), rng.uniform(-0.3, 0.6)])
        r = rng.uniform(0.1, 0.5)
        geometry.plane_sphere(o, z, c, r, g, n, pa, pb)
        got = solve(ground, (SPHERE, np.array([r, 0, 0]), c, eye, NO_VERTICES))
        assert got[0] == pytest.approx(g[0], abs=TOL)
        np.testing.assert_allclose(got[1], z, atol=1e-12)
        R, h = Rotation.random(random_state=rng).as_matrix(), rng.uniform(0.1, 0.5, 3)
        count = geometry.plane_box(o, z, c, R, h, g, n, pa, pb)
        got = solve(ground, (BOX, h, c, R, NO_VERTICES))
        assert got[0] == pytest.approx(g[:count].min(), abs=TOL)


@pytest.mark.parametrize("gap", [0.3, 1e-9, 0.0, -1e-9, -0.05, -0.4])
def test_boxes_face_to_face_their_faces_coplanar(gap):
    """Two aligned boxes, b on a's top face, offset sideways (every face of the Minkowski
    difference is a rectangle: coplanar triangles for EPA), and a hull of a box's corners
    and face centres (coplanar points) on a box."""
    eye, h = np.eye(3), np.array([0.5, 0.4, 0.3])
    a = (BOX, h, np.zeros(3), eye, NO_VERTICES)
    cb = np.array([0.2, -0.1, 2 * h[2] + gap])
    g, n, pa, pb = solve(a, (BOX, h, cb, eye, NO_VERTICES))
    assert g == pytest.approx(gap, abs=1e-12)
    np.testing.assert_allclose(n, [0, 0, 1], atol=1e-12)
    check_witnesses(a, (BOX, h, cb, eye, NO_VERTICES), g, n, pa, pb, tol=1e-12)
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * h
    verts = np.vstack([corners, np.diag(h), -np.diag(h)])
    hull = (HULL, np.zeros(3), cb, eye, verts)
    g, n, pa, pb = solve(a, hull)
    assert g == pytest.approx(gap, abs=1e-12)
    check_witnesses(a, hull, g, n, pa, pb, tol=1e-12)


def test_deep_and_degenerate_overlaps():
    """Coincident boxes (the origin at the difference's centre), a small box in a big one, a
    sphere's centre on a box's face and two capsules along one line (a flat difference)."""
    eye, h = np.eye(3), np.array([0.5, 0.4, 0.3])
    R = Rotation.from_euler("xyz", [0.3, -0.2, 0.9]).as_matrix()
    box = (BOX, h, np.array([0.1, 0.2, 0.3]), R, NO_VERTICES)
    g, n, pa, pb = solve(box, box)
    assert g == pytest.approx(-2 * h.min(), abs=1e-12)
    check_witnesses(box, box, g, n, pa, pb, tol=1e-12)
    small = (BOX, 0.1 * h, box[2] + R @ [0.05, 0.0, 0.0], R, NO_VERTICES)
    g, n, pa, pb = solve(box, small)
    assert g == pytest.approx(-(h[2] + 0.1 * h[2]), abs=1e-12)
    sphere = (SPHERE, np.array([0.2, 0, 0]), box[2] + R @ [h[0], 0.1, 0.0], eye, NO_VERTICES)
    g, n, pa, pb = solve(box, sphere)
    assert g == pytest.approx(-0.2, abs=1e-12)
    np.testing.assert_allclose(n, R[:, 0], atol=1e-12)
    a = (CAPSULE, np.array([0.1, 0.5, 0]), np.zeros(3), eye, NO_VERTICES)
    b = (CAPSULE, np.array([0.2, 0.3, 0]), np.array([0, 0, 0.4]), eye, NO_VERTICES)
    g, n, pa, pb = solve(a, b)
    assert g == pytest.approx(-0.3, abs=1e-12)
    assert abs(n[2]) < 1e-12
