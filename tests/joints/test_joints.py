"""Joint sign conventions (SPEC §2), checked on poses computed by hand with scipy."""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import mbd
from joints import (
    Custom,
    Cylindrical,
    Gimbal,
    Planar,
    Prismatic,
    Revolute,
    SixDof,
    Spherical,
    Universal,
    Weld,
)
from mbd.compiled import dynamics

G = mbd.Environment(gravity=(0.0, 0.0, -9.81))


def one_body(joint_factory, cs_rotation=None):
    """A ground at the origin and a body whose CS "o" sits there too, its CG at (1, 0.5, 0.2)."""
    model = mbd.Model()
    ground = model.add_ground("ground", environment=G)
    body = model.add_body("b", mass=1.0, cg=(1.0, 0.5, 0.2), inertia=[0.1, 0.2, 0.25],
                          cs={"o": ((0.0, 0.0, 0.0), cs_rotation), "tip": (2.0, 0.0, 0.0)})
    model.add(joint_factory(ground, body["o"]))
    return model.build()


def pose(system, q):
    """(R, p) of the body's frame relative to its drawing pose, by the kernels' link poses."""
    bm = system.bodies["b"]
    R, p = dynamics.link_poses(system, q)
    R_body = R[bm.link] @ bm.rotation.T
    return R_body, p[bm.link] - R_body @ bm.origin


def cg_world(system, q):
    R, p = pose(system, q)
    return p + R @ np.array([1.0, 0.5, 0.2])


def test_revolute_turns_right_handed_about_its_axis():
    s = one_body(lambda g, o: Revolute("r", g, o, axis=(0, 0, 2.0)))   # axis length is ignored
    R, _ = pose(s, [0.4])
    assert np.allclose(R, Rotation.from_rotvec([0, 0, 0.4]).as_matrix(), atol=1e-14)


def test_prismatic_moves_along_its_axis():
    s = one_body(lambda g, o: Prismatic("p", g, o, axis=(1.0, 1.0, 0.0)))
    assert np.allclose(cg_world(s, [0.3]), np.array([1.0, 0.5, 0.2]) + 0.3 * np.array([1, 1, 0]) / np.sqrt(2))


def test_reversed_revolute_measures_the_ground_relative_to_the_body():
    # base on the body, follower on the ground: q is the ground's rotation relative to the body
    model = mbd.Model()
    ground = model.add_ground("ground", environment=G)
    body = model.add_body("b", mass=1.0, cg=(1.0, 0.5, 0.2), inertia=[0.1, 0.2, 0.25],
                          cs={"o": (0.0, 0.0, 0.0)})
    model.add(Revolute("r", body["o"], ground, axis=(0, 0, 1)))
    R, _ = pose(model.build(), [0.4])
    assert np.allclose(R, Rotation.from_rotvec([0, 0, -0.4]).as_matrix(), atol=1e-14)


def test_universal_second_axis_turns_with_the_first():
    s = one_body(lambda g, o: Universal("u", g, o, axes=((1, 0, 0), (0, 1, 0))))
    R, _ = pose(s, [0.5, 0.7])
    expected = Rotation.from_rotvec([0.5, 0, 0]) * Rotation.from_rotvec([0, 0.7, 0])
    assert np.allclose(R, expected.as_matrix(), atol=1e-14)


def test_gimbal_defaults_to_the_base_axes_in_order():
    s = one_body(lambda g, o: Gimbal("g", g, o))
    R, _ = pose(s, [0.1, 0.2, 0.3])
    assert np.allclose(R, Rotation.from_euler("XYZ", [0.1, 0.2, 0.3]).as_matrix(), atol=1e-14)


def test_cylindrical_slides_and_turns_about_one_axis():
    s = one_body(lambda g, o: Cylindrical("c", g, o, axis=(0, 0, 1)))
    R, p = pose(s, [0.25, 0.6])
    assert np.allclose(R, Rotation.from_rotvec([0, 0, 0.6]).as_matrix(), atol=1e-14)
    assert np.allclose(p, [0, 0, 0.25], atol=1e-14)


def test_planar_rotates_about_the_normal_of_its_two_axes():
    s = one_body(lambda g, o: Planar("p", g, o, axes=((1, 0, 0), (0, 1, 0))))
    R, p = pose(s, [0.1, -0.2, 0.3])
    assert np.allclose(R, Rotation.from_rotvec([0, 0, 0.3]).as_matrix(), atol=1e-14)
    assert np.allclose(p, [0.1, -0.2, 0.0], atol=1e-14)


def test_spherical_quaternion_is_scalar_first_and_rotation_objects_are_accepted():
    rot = Rotation.from_rotvec([0.2, -0.4, 0.9])
    s = one_body(lambda g, o: Spherical("s", g, o, q0=rot))
    q = s.initial_state().q
    x, y, z, w = rot.as_quat()
    assert np.allclose(q, [w, x, y, z])
    R, _ = pose(s, q)
    assert np.allclose(R, rot.as_matrix(), atol=1e-14)


def test_sixdof_translates_along_base_axes_then_rotates():
    rot = Rotation.from_rotvec([0.0, 0.0, 0.5])
    s = one_body(lambda g, o: SixDof("f", g, o, q0=[1.0, 2.0, 3.0, rot]))
    R, p = pose(s, s.initial_state().q)
    assert np.allclose(p, [1, 2, 3], atol=1e-14)
    assert np.allclose(R, rot.as_matrix(), atol=1e-14)


def test_spherical_angular_velocity_is_in_follower_axes():
    # spin about the follower's own x axis, with the follower turned 90 deg about z
    s = one_body(lambda g, o: Spherical("s", g, o, q0=Rotation.from_rotvec([0, 0, np.pi / 2]),
                                        v0=[2.0, 0.0, 0.0]))
    st = s.initial_state()
    V = dynamics.link_velocities(s, st.q, st.v)[s.bodies["b"].link]
    R, _ = pose(s, st.q)
    assert np.allclose(R @ V[:3], [0.0, 2.0, 0.0], atol=1e-14)   # world: along +y


def test_weld_has_no_coordinates_and_custom_stacks_primitives():
    assert one_body(lambda g, o: Weld("w", g, o)).nv == 0
    s = one_body(lambda g, o: Custom("c", g, o, [("P", (0, 0, 1)), ("S", None), ("P", (1, 0, 0))]))
    assert (s.nq, s.nv) == (6, 5)


@pytest.mark.parametrize("q0", [[0.1, 0.2], [0.1, 0.2, 0.3], "abc", float("nan")])
def test_revolute_rejects_a_malformed_q0(q0):
    with pytest.raises(mbd.ModelError, match="Revolute 'r'"):
        one_body(lambda g, o: Revolute("r", g, o, axis=(0, 0, 1), q0=q0)).initial_state()
