"""Paths of the laws' Python side that the other law tests do not walk.

* A numba function given for a law parameter must be ``f(t)`` of a float: one of two
  arguments, or one that does not compile for a float t, is refused on construction, naming
  the law, the parameter and what is wrong.
* ElastoBacklash without backlash (b = 0) in a run: a plain spring-damper, its torque and
  energy the closed forms at every row, no switch, and its contact state engaged at every row,
  on the side of the twist.
* A stiction law changed (``dataclasses.replace``) to a kinetic force above the static one is
  refused as the element refuses it.
"""
import dataclasses

import numpy as np
import pytest
from numba import njit

import mbd
from forces import Actuator, ElastoBacklash, JointForce, JointStiction, VariableRotationalSpring
from joints import Revolute


def test_a_numba_function_of_t_and_state_is_refused_naming_the_form():
    """K(t, state) is a form VariableRotationalSpring takes from Python; compiled, K must be
    K(t)."""
    @njit(cache=False)
    def stiffness(t, state):
        return 5.0 + t

    with pytest.raises(ValueError) as err:
        VariableRotationalSpring(K=stiffness, K_min=1.0)
    assert str(err.value) == ("VariableRotationalSpring: K: a numba function must be K(t) (t in "
                              "s), got one of 2 arguments")
    # the same function from Python is K(t, state); compiled, K(t) is taken
    assert VariableRotationalSpring(K=stiffness.py_func, K_min=1.0).stiffness(2.0) == 7.0

    @njit(cache=False)
    def of_t(t):
        return 5.0 + t

    assert VariableRotationalSpring(K=of_t, K_min=1.0).stiffness(2.0) == 7.0


def test_a_numba_function_that_does_not_compile_for_a_float_t_is_refused():
    @njit(cache=False)
    def first_entry(t):
        return t[0]                 # written for an array

    with pytest.raises(ValueError, match=r"^Actuator: value: the numba function first_entry "
                                         r"cannot be compiled for a float t: TypingError: "):
        Actuator(first_entry)


def test_an_elastobacklash_without_backlash_is_a_spring_damper_always_engaged():
    c, d, phi0 = 100.0, 5.0, 0.2
    model = mbd.Model("twist")
    g = model.add_ground("g", environment=mbd.Environment(gravity=(0, 0, 0)))
    disc = model.add_body("disc", mass=1.0, cg=(0, 0, 0), inertia=np.diag([0.5, 0.5, 0.5]))
    hinge = model.add(Revolute("hinge", g, disc["cg"], axis=(0, 0, 1), q0=0.5, v0=-3.0))
    model.add(JointForce("shaft", hinge, ElastoBacklash(c=c, d=d, b=0.0, phi_rel0=phi0)))
    result = model.build().simulate(1.0, output_step=0.01, rtol=1e-10, atol=1e-12)
    q, v = result.joint("hinge").q, result.joint("hinge").v
    assert q.min() < phi0 < q.max()          # twisted both ways about phi_rel0
    view = result.force("shaft")
    np.testing.assert_allclose(view.value, -(c * (q - phi0) + d * v), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(view.energy, 0.5 * c * (q - phi0) ** 2, rtol=1e-12, atol=1e-15)
    assert result.events == []
    # engaged at every row, on the twist's side (as with backlash: +1 upper, -1 lower)
    np.testing.assert_array_equal(view.state["contact"], np.where(q < phi0, -1, 1))
    assert {side for _, _, side in view.contacts()} == {-1, 1}


def test_a_stiction_law_with_kinetic_above_static_is_refused():
    law = JointStiction("brake", None, f_static=3.0, f_kinetic=2.0).law
    assert dataclasses.replace(law, f_kinetic=3.0).f_kinetic == 3.0     # equal is allowed
    with pytest.raises(ValueError) as err:
        dataclasses.replace(law, f_kinetic=4.0)
    assert str(err.value) == ("JointStiction law: f_kinetic must be <= f_static, got "
                              "f_kinetic = 4.0 > f_static = 3.0")
