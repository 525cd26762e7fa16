"""An orientation given as a unit quaternion (w, x, y, z), as a user passes it to a ground or a
body's CS: it turns the CS's axes as the closed-form rotation (Rodrigues') does, the
quaternion's sign does not matter, and a run moves along the turned axes exactly as with the
same rotation given as a 3x3 matrix or a scipy ``Rotation``. (A quaternion that is not unit
is refused: tests/mbd/model/test_bad_input.py.)
"""
import numpy as np
from scipy.spatial.transform import Rotation

import mbd
from joints import SixDof

ANGLE = np.pi / 2                       # about z: x -> y, y -> -x
QUATERNION = (np.cos(ANGLE / 2), 0.0, 0.0, np.sin(ANGLE / 2))
TURNED = np.array([[0.0, -1.0, 0.0],
                   [1.0, 0.0, 0.0],
                   [0.0, 0.0, 1.0]])
#: a general rotation: 0.7 rad about (1, 2, 2) / 3, whose quaternion is written out by hand
AXIS, THETA = np.array([1.0, 2.0, 2.0]) / 3.0, 0.7
GENERAL = (np.cos(THETA / 2), *(np.sin(THETA / 2) * AXIS))


def rodrigues(axis, theta):
    """The rotation matrix of ``theta`` rad about the unit ``axis`` (Rodrigues' formula)."""
    K = np.array([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]],
                  [-axis[1], axis[0], 0.0]])
    return np.eye(3) + np.sin(theta) * K + (1.0 - np.cos(theta)) * K @ K


def sliding_box(orientation):
    """A 1 kg box free on a SixDof from a ground turned by ``orientation``, no gravity,
    started at 1 m/s along the ground's x axis; a CS 'side' on it turned the same way."""
    m = mbd.Model("turned")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, 0)),
                     orientation=orientation)
    box = m.add_body("box", mass=1.0, cg=(0, 0, 0), inertia=[0.1] * 3,
                     cs={"o": (0, 0, 0), "side": ((0.2, 0, 0), orientation)})
    m.add(SixDof("free", g, box["o"], v0=[1.0, 0.0, 0.0, (0.0, 0.0, 0.0)]))
    return m.build().simulate(1.0, output_step=0.5)


def test_a_quaternion_turns_a_cs_as_its_rotation_does():
    """(w, x, y, z) of 90 degrees about z: the CS's x axis along world y; the general rotation
    is Rodrigues' matrix; -q is the same rotation."""
    m = mbd.Model("axes")
    arm = m.add_body("arm", mass=1.0, cg=(0, 0, 0), inertia=[0.1] * 3)
    for name, q, expected in (("quarter", QUATERNION, TURNED),
                              ("general", GENERAL, rodrigues(AXIS, THETA)),
                              ("negated", -np.array(GENERAL), rodrigues(AXIS, THETA))):
        cs = arm.add_cs(name, (0, 0, 0), orientation=q)
        np.testing.assert_allclose(cs.rotation, expected, atol=1e-15)
    ground = m.add_ground("g", orientation=GENERAL)
    np.testing.assert_allclose(ground.rotation, rodrigues(AXIS, THETA), atol=1e-15)


def test_a_free_body_moves_along_the_axes_a_quaternion_gives_its_base():
    """SixDof's translations are along its base CS's axes: from a ground turned 90 degrees
    about z by a quaternion, 1 m/s along its x axis is 1 m/s along world y; the run is the
    one the same rotation as a matrix and as a scipy Rotation gives."""
    result = sliding_box(QUATERNION)
    np.testing.assert_allclose(result.body("box").position()[-1], [0.0, 1.0, 0.0], atol=1e-12)
    side = result.body("box").cs_rotation("side").as_matrix()
    np.testing.assert_allclose(side, np.broadcast_to(TURNED, side.shape), atol=1e-12)
    for same in (TURNED, Rotation.from_rotvec([0.0, 0.0, ANGLE])):
        other = sliding_box(same)
        np.testing.assert_allclose(other.q, result.q, atol=1e-12)
        np.testing.assert_allclose(other.body("box").position(), result.body("box").position(),
                                   atol=1e-12)

