"""linearize's damping entry at zero force (issue 30): exact for a linear spring-damper.

With the spring unloaded and gravity along the coordinate, vdot = -g - (c z + d w)/m: the
rate column's difference quotient carried gravity's round-off over the step, eps g / h, which
a small damping entry d/m could not hide (1e-9 relative at d/m = 1e-5, 1e-11 at 1e-3). The
rate columns are now taken without gravity, which adds a term independent of w: the closed
form -c/m, -d/m comes out to round-off.
"""
import numpy as np
import pytest

import mbd
from forces import JointForce, SpringDamper
from joints import Prismatic, Revolute
from mbd.analysis import linear

G = 9.81


def vertical_block(mass, c, d):
    """A block on a vertical slide (gravity along it) on a SpringDamper unloaded at q = 0."""
    model = mbd.Model("vertical")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -G)))
    block = model.add_body("block", mass=mass, cg=(0, 0, 0), inertia=np.eye(3) * 1e-3,
                           cs={"o": (0, 0, 0)})
    slide = model.add(Prismatic("slide", ground, block["o"], axis=(0, 0, 1)))
    model.add(JointForce("sd", slide, SpringDamper(c=c, d=d)))
    return model.build()


def level_arm(mass, length, c, d):
    """A rod drawn level on a hinge (gravity torque m g l, its stiffness 0 there) on a
    torsional SpringDamper unloaded at q = 0."""
    model = mbd.Model("arm")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -G)))
    arm = model.add_body("arm", mass=mass, cg=(length, 0, 0), inertia=np.eye(3) * 1e-3,
                         cs={"pivot": (0, 0, 0)})
    hinge = model.add(Revolute("hinge", ground, arm["pivot"], axis=(0, 1, 0)))
    model.add(JointForce("sd", hinge, SpringDamper(c=c, d=d)))
    return model.build()


@pytest.mark.parametrize("mass, c, d", [(2.0, 40.0, 3.0), (1.0, 1e3, 1e-5), (2.0, 40.0, 2e-6),
                                        (1.0, 1e3, 1e-3), (0.5, 1e6, 0.3)])
def test_a_spring_damper_at_zero_force_under_gravity_is_the_closed_form(mass, c, d):
    system = vertical_block(mass, c, d)
    lin = mbd.linearize(system, system.initial_state())
    exact = np.array([[0.0, 1.0], [-c / mass, -d / mass]])
    np.testing.assert_allclose(lin.A, exact, rtol=1e-12, atol=0)
    assert lin.Cd[0, 0] == pytest.approx(d, rel=1e-12)
    assert lin.K[0, 0] == pytest.approx(c, rel=1e-12)
    assert lin.M[0, 0] == pytest.approx(mass, rel=1e-15)


@pytest.mark.parametrize("d", [2.0, 1e-4])
def test_a_torsional_spring_damper_on_a_level_arm_is_the_closed_form(d):
    """I = I_cg + m l^2; at q = 0 gravity's torque -m g l cos q has zero slope: A = [[0, 1],
    [-c/I, -d/I]]."""
    mass, length, c = 1.5, 0.8, 30.0
    inertia = 1e-3 + mass * length ** 2
    system = level_arm(mass, length, c, d)
    lin = mbd.linearize(system, system.initial_state())
    np.testing.assert_allclose(lin.A[1], [-c / inertia, -d / inertia], rtol=1e-12, atol=0)
    assert lin.Cd[0, 0] == pytest.approx(d, rel=1e-12)


def test_the_rate_columns_are_the_same_derivative_without_gravity():
    """The gravity-free evaluation changes vdot by a term of q alone: at any w the difference
    of the two is the same vector (gravity's share), here -g."""
    system = vertical_block(2.0, 40.0, 3.0)
    dyn = linear.Dynamics(system, system.initial_state())
    for w in (-2.0, 0.0, 0.7):
        x = np.array([0.0, w])
        full = dyn.rates(x)
        free = dyn.rates(x, weightless=True)
        assert full[0] == free[0] == w
        assert full[1] - free[1] == pytest.approx(-G, rel=1e-14)
