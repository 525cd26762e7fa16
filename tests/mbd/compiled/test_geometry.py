"""Contact geometry in closed form (mbd.compiled.geometry) against coal's signed distances and
nearest points (the collision library Pinocchio uses, an independent GJK/EPA and analytic
code), over random poses, separated and penetrating; and against the closed forms of a box
lying flat and a capsule lying on a plane."""
import coal  # comes with Pinocchio (pin, the test extra)
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from mbd.compiled import geometry

#: coal's GJK/EPA stops within 1e-10 of a distance (its default tolerances) and the closed
#: forms are exact to round-off: agreement to 1e-8 m on shapes of ~1 m
TOL = 1e-8
CASES = 40


def coal_distance(shape_a, Ra, pa, shape_b, Rb, pb):
    """coal's signed distance (m) and nearest points of two shapes at world poses."""
    request, result = coal.DistanceRequest(), coal.DistanceResult()
    d = coal.distance(shape_a, coal.Transform3s(Ra, pa), shape_b, coal.Transform3s(Rb, pb),
                      request, result)
    return d, result.getNearestPoint1(), result.getNearestPoint2()


def random_pose(rng, spread=1.0):
    return Rotation.random(random_state=rng).as_matrix(), rng.uniform(-spread, spread, 3)


def check_points(count, g, n, pa, pb):
    """Each point's witnesses differ by its gap along its unit normal."""
    np.testing.assert_allclose(np.linalg.norm(n[:count], axis=1), 1.0, rtol=0, atol=1e-14)
    np.testing.assert_allclose(pb[:count] - pa[:count], g[:count, None] * n[:count], rtol=0,
                               atol=1e-14)


def test_two_spheres_match_coal():
    rng = np.random.default_rng(1)
    g, n, pa, pb = geometry.points()
    for _ in range(CASES):
        ra, rb = rng.uniform(0.1, 0.6, 2)
        ca, cb = rng.uniform(-0.7, 0.7, (2, 3))
        assert geometry.sphere_sphere(ca, ra, cb, rb, g, n, pa, pb) == 1
        d, wa, wb = coal_distance(coal.Sphere(ra), np.eye(3), ca, coal.Sphere(rb), np.eye(3),
                                  cb)
        assert g[0] == pytest.approx(d, abs=TOL)
        np.testing.assert_allclose(pa[0], wa, atol=TOL)
        np.testing.assert_allclose(pb[0], wb, atol=TOL)
        check_points(1, g, n, pa, pb)


def test_a_sphere_and_a_capsule_and_two_capsules_match_coal():
    rng = np.random.default_rng(2)
    g, n, pa, pb = geometry.points()
    for _ in range(CASES):
        Ra, oa = random_pose(rng, 0.5)
        Rb, ob = random_pose(rng, 0.5)
        ra, rb = rng.uniform(0.05, 0.3, 2)
        la, lb = rng.uniform(0.2, 1.2, 2)
        # coal's capsule: axis along its z, length l between the end spheres' centres
        a0, a1 = oa - 0.5 * la * Ra[:, 2], oa + 0.5 * la * Ra[:, 2]
        b0, b1 = ob - 0.5 * lb * Rb[:, 2], ob + 0.5 * lb * Rb[:, 2]
        geometry.capsule_capsule(a0, a1, ra, b0, b1, rb, g, n, pa, pb)
        d, wa, wb = coal_distance(coal.Capsule(ra, la), Ra, oa, coal.Capsule(rb, lb), Rb, ob)
        assert g[0] == pytest.approx(d, abs=TOL)
        if d > 1e-3:      # separated: the nearest points are unique
            np.testing.assert_allclose(pa[0], wa, atol=1e-7)
            np.testing.assert_allclose(pb[0], wb, atol=1e-7)
        check_points(1, g, n, pa, pb)
        geometry.sphere_capsule(oa, ra, b0, b1, rb, g, n, pa, pb)
        d, _, _ = coal_distance(coal.Sphere(ra), np.eye(3), oa, coal.Capsule(rb, lb), Rb, ob)
        assert g[0] == pytest.approx(d, abs=TOL)
        check_points(1, g, n, pa, pb)


def test_a_plane_against_a_sphere_a_capsule_and_a_box_matches_coal():
    """The deepest (or nearest) point of each pair is coal's halfspace distance; every
    other point of the pair lies at or above it."""
    rng = np.random.default_rng(3)
    g, n, pa, pb = geometry.points()
    for _ in range(CASES):
        z = Rotation.random(random_state=rng).apply([0.0, 0.0, 1.0])
        o = rng.uniform(-0.3, 0.3, 3)
        plane = coal.Halfspace(z, float(z @ o))          # {x : z . x <= z . o}
        R, c = random_pose(rng, 0.8)
        r, length = rng.uniform(0.05, 0.4), rng.uniform(0.2, 1.0)
        h = rng.uniform(0.05, 0.5, 3)
        e0, e1 = c - 0.5 * length * R[:, 2], c + 0.5 * length * R[:, 2]
        pairs = [(geometry.plane_sphere, (o, z, c, r), coal.Sphere(r)),
                 (geometry.plane_capsule, (o, z, e0, e1, r), coal.Capsule(r, length)),
                 (geometry.plane_box, (o, z, c, R, h), coal.Box(*(2 * h))),
                 (geometry.plane_cylinder, (o, z, e0, e1, r), coal.Cylinder(r, length))]
        for function, args, shape in pairs:     # (each writes the same arrays: one at a time)
            count = function(*args, g, n, pa, pb)
            d, _, _ = coal_distance(plane, np.eye(3), np.zeros(3), shape, R, c)
            assert g[:count].min() == pytest.approx(d, abs=TOL)
            np.testing.assert_allclose(n[:count], np.tile(z, (count, 1)), rtol=0, atol=0)
            check_points(count, g, n, pa, pb)
            # the witnesses on the plane lie in it
            np.testing.assert_allclose((pa[:count] - o) @ z, 0.0, rtol=0, atol=1e-14)


def test_a_box_lying_flat_has_four_points_in_contact_and_one_on_an_edge_two():
    g, n, pa, pb = geometry.points()
    o, z, h = np.zeros(3), np.array([0.0, 0.0, 1.0]), np.array([0.3, 0.2, 0.1])
    depth = 1e-4
    count = geometry.plane_box(o, z, np.array([0.0, 0.0, h[2] - depth]), np.eye(3), h,
                               g, n, pa, pb)
    assert count == 8
    np.testing.assert_allclose(np.sort(g), [-depth] * 4 + [2 * h[2] - depth] * 4,
                               rtol=0, atol=1e-15)
    # tipped onto its long edge by 45 degrees about x: two vertices down, at the closed form
    R = Rotation.from_euler("x", 45, degrees=True).as_matrix()
    reach = h[1] * np.sin(np.pi / 4) + h[2] * np.cos(np.pi / 4)    # centre above the edge
    geometry.plane_box(o, z, np.array([0.0, 0.0, reach - depth]), R, h, g, n, pa, pb)
    assert np.sum(g < 0.0) == 2
    np.testing.assert_allclose(np.sort(g)[:2], -depth, rtol=0, atol=1e-15)


def test_a_capsule_lying_on_a_plane_touches_at_both_ends():
    g, n, pa, pb = geometry.points()
    r, depth = 0.05, 2e-5
    count = geometry.plane_capsule(np.zeros(3), np.array([0.0, 0.0, 1.0]),
                                   np.array([-0.4, 0.0, r - depth]),
                                   np.array([0.4, 0.0, r - depth]), r, g, n, pa, pb)
    assert count == 2
    np.testing.assert_allclose(g[:2], -depth, rtol=0, atol=1e-16)
    np.testing.assert_allclose(pa[:2], [[-0.4, 0.0, 0.0], [0.4, 0.0, 0.0]], atol=1e-16)


def test_a_cylinder_rolls_on_its_rim_points_and_stands_on_one():
    """Lying on a plane: a point under each end disc, at the closed form; standing on an end:
    one point there, at the disc's depth (the gap is continuous where the rim point is not)."""
    g, n, pa, pb = geometry.points()
    r, depth, z = 0.05, 3e-5, np.array([0.0, 0.0, 1.0])
    count = geometry.plane_cylinder(np.zeros(3), z, np.array([-0.2, 0.0, r - depth]),
                                    np.array([0.2, 0.0, r - depth]), r, g, n, pa, pb)
    assert count == 2
    np.testing.assert_allclose(g[:2], -depth, rtol=0, atol=1e-16)
    np.testing.assert_allclose(pb[:2], [[-0.2, 0.0, -depth], [0.2, 0.0, -depth]], atol=1e-16)
    geometry.plane_cylinder(np.zeros(3), z, np.array([0.0, 0.0, -depth]),
                            np.array([0.0, 0.0, 0.3]), r, g, n, pa, pb)
    np.testing.assert_allclose(g[:2], [-depth, 0.3], rtol=0, atol=1e-15)
    np.testing.assert_allclose(np.hypot(pb[0, 0], pb[0, 1]), r, rtol=1e-15)


def test_a_sphere_and_a_box_match_coal_outside_and_inside():
    """Separated, touching a face, an edge or a corner, and with the centre inside the box:
    coal's signed distance; the witness on the box on its surface."""
    rng = np.random.default_rng(5)
    g, n, pa, pb = geometry.points()
    for _ in range(3 * CASES):
        R, cb = random_pose(rng, 0.5)
        h = rng.uniform(0.1, 0.5, 3)
        r = rng.uniform(0.05, 0.3)
        c = cb + R @ (rng.uniform(-1.6, 1.6, 3) * h)     # often inside the box
        geometry.sphere_box(c, r, cb, R, h, g, n, pa, pb)
        d, _, _ = coal_distance(coal.Sphere(r), np.eye(3), c, coal.Box(*(2 * h)), R, cb)
        assert g[0] == pytest.approx(d, abs=TOL)
        check_points(1, g, n, pa, pb)
        local = R.T @ (pb[0] - cb)          # the box's witness on its surface
        assert np.max(np.abs(local) - h) == pytest.approx(0.0, abs=1e-12)
