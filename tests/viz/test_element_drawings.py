"""Element drawings the other picture tests do not make (issue 31), each checked against the
rule :mod:`viz.elements` documents, in the drawing's size L (the system's length scale):

- a spherical joint's ball (radius 0.035 L at the follower CS);
- a Bushing's rubber sleeve around CS A's z axis (fixed to A's owner) and its pin along CS
  B's z axis (fixed to B's), with the CSs turned so that the axes are not the world's;
- a Bistop on an AxialForce whose CS B is a ground's: thin rings at x1 and x2 along the axis,
  just outside the collar (no body drawn at B: the collar's least size);
- a Bistop on a joint's second primitive: no stop marks (its base moves with the first);
- a gear whose axes cross: two wheels of the model's size, radii in the ratio.
"""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import mbd
from forces import AxialForce, Bistop, Bushing, JointForce
from joints import Cylindrical, Revolute, SixDof, Spherical
from viz.colors import BUSHING_COLOR, JOINT_COLOR
from viz.scene import Scene


def scene_of(system):
    return Scene(system, size=(160, 120), annotations=False, floor=False)


def _model(name):
    m = mbd.Model(name)
    return m, m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, -9.81)))


def parts(scene, color, owner):
    """The meshes of ``scene`` drawn in ``color`` on ``owner`` (None: the world)."""
    return [mesh for _, mesh, o, c, _ in scene.parts if c == color and o == owner]


def world_points(scene, owner, mesh):
    """A mesh's points in the world of the reference configuration, m (a body's mesh is in
    its link frame)."""
    p = np.asarray(mesh.points, float)
    if owner is None:
        return p
    bm = scene.system.bodies[owner]
    return p @ bm.rotation.T + bm.origin


def split_along(points, origin, axis):
    """(distances along the unit ``axis`` from ``origin``, distances from that line) of
    ``points`` (n, 3)."""
    d = points - origin
    along = d @ axis
    return along, np.linalg.norm(d - np.outer(along, axis), axis=1)


def test_a_spherical_joint_is_a_ball_at_its_follower_cs():
    m, g = _model("ball")
    bob = m.add_body("bob", mass=1.0, cg=(0, 0, -0.8), inertia=[0.01] * 3,
                     cs={"pivot": (0, 0, 0)})
    m.add(Spherical("ball", g, bob["pivot"]))
    scene = scene_of(m.build())
    try:
        L = scene.length
        [ball] = parts(scene, JOINT_COLOR, "bob")
        r = np.linalg.norm(world_points(scene, "bob", ball), axis=1)   # from the pivot, (0,0,0)
        np.testing.assert_allclose(r, 0.035 * L, rtol=1e-6)
    finally:
        scene.close()


def test_a_bushing_is_a_sleeve_on_a_and_a_pin_on_b_along_their_z_axes():
    """CS A (on the ground, at (0, 0, 1)) turned so that its z axis is world x; CS B (on the
    box, at the same point) so that its z axis is world y. The sleeve: the ground's, radii
    0.02 L to 0.035 L about A's z axis, 0.06 L long centred on A; the pin: the box's,
    radius 0.012 L about B's z axis, 0.09 L long centred on B."""
    m = mbd.Model("mount")
    z_to_x = Rotation.from_rotvec([0.0, np.pi / 2, 0.0])
    z_to_y = Rotation.from_rotvec([-np.pi / 2, 0.0, 0.0])
    np.testing.assert_allclose(z_to_x.apply([0, 0, 1]), [1, 0, 0], atol=1e-15)
    np.testing.assert_allclose(z_to_y.apply([0, 0, 1]), [0, 1, 0], atol=1e-15)
    at = np.array([0.0, 0.0, 1.0])
    mount = m.add_ground("mount", at=at, orientation=z_to_x)
    box = m.add_body("box", mass=2.0, cg=at, inertia=[0.1] * 3,
                     cs={"o": at, "b": (at, z_to_y)})
    g = m.add_ground("g", at=at, environment=mbd.Environment(gravity=(0, 0, 0)))
    m.add(SixDof("free", g, box["o"]))
    m.add(Bushing("rubber", mount, box["b"], stiffness=[800.0] * 3 + [4.0] * 3,
                  damping=[1.0] * 6))
    scene = scene_of(m.build())
    try:
        L = scene.length
        [sleeve] = parts(scene, BUSHING_COLOR, None)
        [pin] = parts(scene, BUSHING_COLOR, "box")
        along, radial = split_along(world_points(scene, None, sleeve), at, np.array([1.0, 0, 0]))
        assert along.min() == pytest.approx(-0.03 * L, rel=1e-5)
        assert along.max() == pytest.approx(0.03 * L, rel=1e-5)
        assert radial.min() == pytest.approx(0.02 * L, rel=1e-5)
        assert radial.max() == pytest.approx(0.035 * L, rel=1e-5)
        along, radial = split_along(world_points(scene, "box", pin), at, np.array([0, 1.0, 0]))
        assert along.min() == pytest.approx(-0.045 * L, rel=1e-5)
        assert along.max() == pytest.approx(0.045 * L, rel=1e-5)
        assert radial.max() == pytest.approx(0.012 * L, rel=1e-5)
    finally:
        scene.close()


def test_stops_on_an_axial_force_to_a_ground_are_rings_at_x1_and_x2():
    """AxialForce from the slider's CS A (axis world x) to a ground CS B, Bistop x1 = -0.2,
    x2 = 0.3 m: rings on the slider at A + x1 a and A + x2 a, each 0.004 L thick, their
    inner radius 0.004 L outside the collar, whose least size is 0.03 L + 0.02 L (nothing
    drawn at B to size it on)."""
    m, g = _model("axial")
    anchor = m.add_ground("anchor", at=(0.5, 0.0, 0.0))
    slider = m.add_body("slider", mass=1.0, cg=(0, 0, 0), inertia=[0.01] * 3,
                        cs={"a": (0.5, 0.0, 0.0)})
    m.add(SixDof("free", g, slider["cg"]))
    x1, x2 = -0.2, 0.3
    m.add(AxialForce("stops", slider["a"], anchor,
                     Bistop(x1=x1, x2=x2, k=1e4, e=1.5, cmax=10.0, d=0.01), axis=(1, 0, 0)))
    scene = scene_of(m.build())
    try:
        L = scene.length
        actor = scene.limit_actors["stops"]
        [(mesh, owner)] = [(mesh, o) for a, mesh, o, _, _ in scene.parts if a is actor]
        assert owner == "slider"
        along, radial = split_along(world_points(scene, owner, mesh), np.array([0.5, 0, 0]),
                                    np.array([1.0, 0, 0]))
        inner = 0.05 * L + 0.004 * L
        assert radial.min() == pytest.approx(inner, rel=1e-5)
        assert radial.max() == pytest.approx(inner + 0.012 * L, rel=1e-5)
        for x in (x1, x2):
            ring = np.abs(along - x) < 0.01 * L
            assert ring.sum() == len(along) // 2
            assert along[ring].min() == pytest.approx(x - 0.002 * L, abs=1e-6 * L)
            assert along[ring].max() == pytest.approx(x + 0.002 * L, abs=1e-6 * L)
    finally:
        scene.close()


def test_stops_on_a_joint_s_second_primitive_are_not_drawn():
    """A Cylindrical joint (a slide, then a turn about the same axis): a Bistop on the slide
    (primitive 0) has its rings; one on the turn (primitive 1) none, but its washer."""
    m, g = _model("cylinder")
    shaft = m.add_body("shaft", mass=1.0, cg=(0, 0, 0), inertia=[0.01] * 3)
    joint = m.add(Cylindrical("sleeve", g, shaft["cg"], axis=(0, 0, 1)))
    stop = dict(k=1e4, e=1.5, cmax=10.0, d=0.01)
    m.add(JointForce("slide_stops", joint, Bistop(x1=-0.1, x2=0.1, **stop), primitive=0))
    m.add(JointForce("turn_stops", joint, Bistop(x1=-1.0, x2=1.0, **stop), primitive=1))
    scene = scene_of(m.build())
    try:
        assert sorted(scene.limit_actors) == ["slide_stops"]
        assert sorted(scene.contact_actors) == ["slide_stops", "turn_stops"]
    finally:
        scene.close()


@pytest.mark.parametrize("ratio", [-2.0, 0.5])
def test_a_gear_whose_axes_cross_has_wheels_of_the_model_s_size(ratio):
    """Axes z and x (a bevel pair): no centre distance to fit, so r_b = 0.06 L min(1, 1/k)
    and r_a = k r_b, k = |ratio|."""
    m, g = _model("bevel")
    a = m.add_body("a", mass=1.0, cg=(0, 0, 0), inertia=[0.1] * 3)
    b = m.add_body("b", mass=1.0, cg=(0.3, 0, 0.3), inertia=[0.1] * 3)
    ja = m.add(Revolute("ja", g, a["cg"], axis=(0, 0, 1)))
    jb = m.add(Revolute("jb", m.add_ground("g2", at=(0.3, 0, 0.3)), b["cg"], axis=(1, 0, 0)))
    m.add(mbd.GearConstraint("bevel", ja, jb, ratio=ratio))
    scene = scene_of(m.build())
    try:
        L, k = scene.length, abs(ratio)
        (owner_a, _, r_a), (owner_b, _, r_b) = scene.gear_discs["bevel"]
        assert (owner_a, owner_b) == ("a", "b")
        assert r_b == pytest.approx(0.06 * L * min(1.0, 1.0 / k), rel=1e-12)
        assert r_a == pytest.approx(k * r_b, rel=1e-12)
    finally:
        scene.close()
