"""The units of a sweep's parameters where the model does not know them (mbd.study.units): a
law of the user's own that declares none, or declares them in a form not read here, a point
of a table that is no law's (a Lookup's), a "point" of a parameter that holds no table. Each
is "" (the module's rule: an unknown unit is left out, never guessed), beside the built-in
law the user's derives from, whose units its docstring states (an actuator on a hinge: a
torque, N.m; its value as a table of time: x in s, y in N.m)."""
import pytest

import mbd
from forces import Actuator, JointForce, SpringDamper
from joints import Revolute
from mbd.study.units import parameter_units

NAMES = ["motor.value", "motor.value.x1", "motor.value.y0"]


class DeclaresNone(Actuator):
    """An actuator of the user's own that declares no units."""

    units = {}


class DeclaresNoDict(Actuator):
    """One that declares them in a form not read here."""

    units = None


class DeclaresUnknownPlaceholder(Actuator):
    """One whose unit names a placeholder other than {F} and {L}."""

    units = {"value": "{torque}"}


def hinge_model(law):
    """An arm on a hinge driven by ``law`` (its value a table of time), a spring-damper on
    the hinge, a Lookup and a digital PID of the hinge angle."""
    m = mbd.Model("units")
    g = m.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, -9.81)))
    arm = m.add_body("arm", mass=1.0, cg=(0.5, 0, 0), inertia=[1e-3, 0.1, 0.1],
                     cs={"pivot": (0, 0, 0)})
    hinge = m.add(Revolute("hinge", g, arm["pivot"], axis=(0, 1, 0)))
    m.add(JointForce("motor", hinge, law(mbd.Table([0.0, 1.0], [0.5, 2.0]))))
    m.add(JointForce("twist", hinge, SpringDamper(c=10.0, d=0.5)))
    m.add(mbd.Sensor("angle", "hinge.q"))
    m.add(mbd.Lookup("lut", mbd.Table([-1.0, 0.0, 1.0], [2.0, 0.0, 2.0]), "angle"))
    m.add(mbd.DiscretePID("pid", "angle", kp=2.0, period=0.01))
    return m


def units_of(law, names=NAMES):
    m = hinge_model(law)
    return parameter_units(m, m.build(), names)


def test_the_built_in_actuator_on_a_hinge_is_a_torque():
    assert units_of(Actuator) == {"motor.value": "N.m", "motor.value.x1": "s",
                                  "motor.value.y0": "N.m"}


@pytest.mark.parametrize("law", [DeclaresNone, DeclaresNoDict, DeclaresUnknownPlaceholder],
                         ids=["none declared", "not a dict", "unknown placeholder"])
def test_a_users_law_that_does_not_say_its_units_has_none(law):
    assert units_of(law) == dict.fromkeys(NAMES, "")


def test_a_controllers_table_and_gains_and_a_point_of_no_table_have_no_unit():
    """A Lookup's table and a PID's gain (a controller's: the units of its signals, left
    out; its period is in s); ``twist.c`` is a number, ``motor.value.`` names no point."""
    assert units_of(Actuator, ["lut.table.y1", "lut.table.x0", "pid.kp", "pid.period",
                               "twist.c.x1", "motor.value.", "twist.c"]) == {
        "lut.table.y1": "", "lut.table.x0": "", "pid.kp": "", "pid.period": "s",
        "twist.c.x1": "", "motor.value.": "", "twist.c": "N.m/rad"}
