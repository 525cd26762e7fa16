"""A GearConstraint is drawn as two toothed wheels on its geared bodies: pitch radii in the
ratio, the pitch circles touching where the axes are parallel and apart (two discs for a pair
turning opposite ways, a ring round the smaller wheel for one turning the same way), each
wheel turning with its body; a rack's pinion at its pitch radius."""
import numpy as np
import pytest

import mbd
from forces import Actuator, JointForce
from joints import Prismatic, Revolute
from tests.test_examples import load
from viz.scene import Scene


def scene_of(system):
    return Scene(system, size=(160, 120), annotations=False)


def points(scene, owner, actor):
    """The actor's mesh points in the world of the reference configuration, m (a mesh is
    stored in its body's link frame)."""
    bm = scene.system.bodies[owner]
    return np.asarray(actor.mapper.dataset.points, float) @ bm.rotation.T + bm.origin


def radii_about(p, centre):
    """Distances of the points p (n, 3) from the z axis through ``centre`` (x, y), m."""
    return np.hypot(p[:, 0] - centre[0], p[:, 1] - centre[1])


def pair(ratio, apart=0.4):
    """Two wheels on revolutes about z, ``apart`` m between the axes, q_b = ratio q_a."""
    m = mbd.Model("pair")
    g = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    g2 = m.add_ground("g2", at=(apart, 0, 0))
    a = m.add_body("a", mass=1.0, cg=(0, 0, 0), inertia=np.diag([1, 1, 1]))
    b = m.add_body("b", mass=1.0, cg=(apart, 0, 0), inertia=np.diag([1, 1, 1]))
    ja = m.add(Revolute("ja", g, a["cg"], axis=(0, 0, 1)))
    jb = m.add(Revolute("jb", g2, b["cg"], axis=(0, 0, 1)))
    m.add(mbd.GearConstraint("mesh", ja, jb, ratio=ratio))
    m.add(JointForce("drive", ja, Actuator(1.0)))
    return m.build()


def rotation_z(angle):
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def test_the_gearbox_same_sense_pair_is_a_ring_round_the_pinion():
    """examples/gearbox.py: ratio +0.2 (the load turns the pinion's way, a fifth as fast), the
    axes 0.3 m apart: the pinion (r_a) inside the load's ring (r_b), r_b - r_a = 0.3 m."""
    gb = load("gearbox")
    scene = scene_of(gb.build_model().build())
    try:
        (owner_a, disc_a, r_a), (owner_b, ring_b, r_b) = scene.gear_discs["mesh"]
        assert (owner_a, owner_b) == ("pinion", "load")
        assert r_a / r_b == pytest.approx(gb.RATIO, rel=1e-12)
        assert r_b - r_a == pytest.approx(0.3, rel=1e-12)
        # the load's wheel is a ring: no point of it nearer its axis than the pitch circle;
        # the pinion a disc, from its axis to its pitch circle (the mesh is float32)
        assert np.min(radii_about(points(scene, "load", ring_b), (0.3, 0.0))) > r_b
        disc = radii_about(points(scene, "pinion", disc_a), (0.0, 0.0))
        assert np.min(disc) == pytest.approx(0.0, abs=1e-6)
        assert np.max(disc) == pytest.approx(r_a, rel=1e-6)
    finally:
        scene.close()


@pytest.mark.parametrize("ratio", [-3.0, -0.5, 1.0])
def test_a_pair_turning_opposite_ways_is_two_touching_discs(ratio):
    """ratio < 0: an external pair, r_a + r_b = D; ratio = +1, which no internal pair can
    make, is drawn the same way."""
    scene = scene_of(pair(ratio, apart=0.4))
    try:
        (_, disc_a, r_a), (_, disc_b, r_b) = scene.gear_discs["mesh"]
        assert r_a / r_b == pytest.approx(abs(ratio), rel=1e-12)
        assert r_a + r_b == pytest.approx(0.4, rel=1e-12)
        for owner, disc, r, centre in (("a", disc_a, r_a, (0.0, 0.0)),
                                       ("b", disc_b, r_b, (0.4, 0.0))):
            d = radii_about(points(scene, owner, disc), centre)
            assert np.min(d) == pytest.approx(0.0, abs=1e-6)
            assert np.max(d) == pytest.approx(r, rel=1e-6)
    finally:
        scene.close()


def test_the_wheels_turn_with_their_joints():
    """Two states of the gearbox: between them each wheel's actor matrix turns by its joint's
    change of angle about its axis, which stays put."""
    gb = load("gearbox")
    system = gb.build_model().build()
    scene = scene_of(system)
    try:
        (_, disc_a, _), (_, ring_b, _) = scene.gear_discs["mesh"]
        i_p = system.joints["pinion_shaft"].q_index[0]
        i_l = system.joints["load_shaft"].q_index[0]
        i_m = system.joints["motor_shaft"].q_index[0]
        matrices = []
        for q_p in (0.4, 1.7):
            q = np.zeros(system.nq)
            q[i_p], q[i_l], q[i_m] = q_p, gb.RATIO * q_p, q_p - 0.01
            scene.set_state(q)
            matrices.append([np.array(a.user_matrix) for a in (disc_a, ring_b)])
        for k, (turn, centre) in enumerate(((1.3, (0.0, 0.0, 0.0)),
                                            (gb.RATIO * 1.3, (0.3, 0.0, 0.0)))):
            T1, T2 = matrices[0][k], matrices[1][k]
            change = T2 @ np.linalg.inv(T1)
            np.testing.assert_allclose(change[:3, :3], rotation_z(turn), atol=1e-12)
            np.testing.assert_allclose(change[:3, :3] @ centre + change[:3, 3], centre,
                                       atol=1e-12)
    finally:
        scene.close()


def test_a_rack_and_pinion_draws_the_pinion_at_its_pitch_radius():
    """q_rack = 0.05 m/rad x q_pinion: the pinion's pitch radius is 0.05 m; the rack is a
    bar, not a wheel."""
    m = mbd.Model("rack")
    g = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    pinion = m.add_body("pinion", mass=1.0, cg=(0, 0, 0), inertia=np.diag([1, 1, 1]))
    rack = m.add_body("rack", mass=1.0, cg=(0, -0.05, 0), inertia=np.diag([1, 1, 1]),
                      cs={"slider": (0, 0, 0)})
    turn = m.add(Revolute("turn", g, pinion["cg"], axis=(0, 0, 1)))
    slide = m.add(Prismatic("slide", g, rack["slider"], axis=(1, 0, 0)))
    m.add(mbd.GearConstraint("mesh", turn, slide, ratio=0.05))
    scene = scene_of(m.build())
    try:
        ((owner, disc, r),) = scene.gear_discs["mesh"]
        assert owner == "pinion" and r == pytest.approx(0.05, rel=1e-12)
    finally:
        scene.close()
