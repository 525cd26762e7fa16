"""The units of a sweep's columns (mbd.study.units, issue 30): a body's mass kg, a joint's
q0/v0 by its primitive, a law's parameter in the unit it declares for its coordinate (N/m on
a slide, N.m/rad on a hinge), a table's point by its axis, an output by its quantity; a unit
that is not known is "" (never guessed). Reference: the units the laws' docstrings state."""
import numpy as np

import mbd
from forces import (
    Actuator,
    AxialForce,
    BodySpringDamper,
    JointForce,
    SpringDamper,
    TableForce,
    VariableRotationalSpring,
)
from joints import Prismatic, Revolute, Spherical
from mbd.study.outputs import Output
from mbd.study.units import output_units, parameter_units, study_units

EARTH = mbd.Environment(gravity=(0.0, 0.0, -9.81))


def model():
    """A hinge with a spring-damper and a variable spring whose K is a table of time, a slide
    with a spring-damper and a table force, a ball joint, a strap, an input and a PID."""
    m = mbd.Model("units")
    g = m.add_ground("ground", environment=EARTH)
    rail = m.add_ground("rail", at=(0, 2, 0), environment=EARTH)
    pin = m.add_ground("pin", at=(0, -2, 0), environment=EARTH)
    arm = m.add_body("arm", mass=1.0, cg=(0.5, 0, 0), inertia=[1e-3, 0.1, 0.1],
                     cs={"pivot": (0, 0, 0), "tip": (1, 0, 0)})
    cart = m.add_body("cart", mass=2.0, cg=(0, 2, 0), inertia=[0.1] * 3, cs={"o": (0, 2, 0)})
    ball = m.add_body("ball", mass=1.0, cg=(0, -2, -1), inertia=[0.1] * 3,
                      cs={"o": (0, -2, 0)})
    hinge = m.add(Revolute("hinge", g, arm["pivot"], axis=(0, 1, 0)))
    slide = m.add(Prismatic("slide", rail, cart["o"], axis=(1, 0, 0)))
    m.add(Spherical("socket", pin, ball["o"]))
    m.add(JointForce("twist", hinge, SpringDamper(c=10.0, d=0.5)))
    m.add(JointForce("coil", hinge, VariableRotationalSpring(
        K=mbd.Table([0.0, 1.0], [5.0, 8.0]), K_min=1.0)))
    m.add(JointForce("push", slide, SpringDamper(c=100.0, d=2.0)))
    m.add(JointForce("pad", slide, TableForce(mbd.Table([0.0, 0.1], [0.0, 50.0]), d=1.0)))
    m.add(AxialForce("axial", rail, cart["o"], SpringDamper(c=5.0, d=0.0)))
    m.add(BodySpringDamper("strap", g, arm["tip"], k=80.0, b=1.5, r0=0.4))
    m.add(mbd.Input("torque", 0.0, unit="N.m"))
    m.add(JointForce("motor", hinge, Actuator(0.0)))
    return m


def test_parameters_take_the_units_their_elements_declare():
    m = model()
    s = m.build()
    names = ["arm.mass", "hinge.q0", "hinge.v0", "slide.q0", "slide.v0", "socket.q0",
             "twist.c", "twist.d", "push.c", "push.d", "axial.c", "coil.K_min",
             "coil.theta_init", "coil.K.x1", "coil.K.y0", "pad.d", "pad.table.x1",
             "pad.table.y1", "strap.k", "strap.b", "strap.r0", "torque.value", "motor.value"]
    assert parameter_units(m, s, names) == {
        "arm.mass": "kg", "hinge.q0": "rad", "hinge.v0": "rad/s", "slide.q0": "m",
        "slide.v0": "m/s",
        "socket.q0": "",                       # a quaternion: no unit
        "twist.c": "N.m/rad", "twist.d": "N.m.s/rad", "push.c": "N/m", "push.d": "N.s/m",
        "axial.c": "N/m", "coil.K_min": "N.m/rad", "coil.theta_init": "rad",
        "coil.K.x1": "s", "coil.K.y0": "N.m/rad",        # K(t) as a table of time
        "pad.d": "N.s/m", "pad.table.x1": "m", "pad.table.y1": "N",
        "strap.k": "N/m", "strap.b": "N.s/m", "strap.r0": "m",
        "torque.value": "N.m",                 # as the Input was given
        "motor.value": "N.m"}                  # an actuator on a hinge: a torque


def test_outputs_take_their_quantities_units_and_the_unknown_is_left_out():
    s = model().build()
    specs = {"a": "max:joint.hinge.q", "b": "final:joint.slide.v", "c": "mean:joint.socket.v.1",
             "d": "final:joint.socket.q.0", "e": "absmax:force.twist.value",
             "f": "absmax:force.push.value", "g": "max:force.strap.value",
             "h": "final:body.arm.tip.z", "i": "max:energy", "j": "first:events.pad",
             "k": "count:events.pad", "l": np.max}
    outputs = [Output(c, spec) for c, spec in specs.items()]
    for o in outputs:
        o.check(s)
    assert output_units(s, outputs) == {
        "a": "rad", "b": "m/s", "c": "rad/s", "d": "", "e": "N.m", "f": "N", "g": "N",
        "h": "m", "i": "J", "j": "s", "k": "", "l": ""}
    units = study_units(model(), s, ["arm.mass"], outputs[:1])
    assert units == {"arm.mass": "kg", "a": "rad", "t_reached": "s", "wall_s": "s"}
