"""``repr(System)`` and ``repr(Result)`` say in one line what they hold (issue 45: the System's
was 2.9 KB of record arrays for a pendulum, the Result's the default object repr).

The facts are counted from the models as built here (bodies, joints, force elements,
controllers), the degrees of freedom from Gruebler's count, the rows from the output grid."""
import os
import sys

import numpy as np
import pytest

import mbd
from forces import BodySpringDamper, ElastoBacklash, JointForce, VariableRotationalSpring
from joints import Revolute
from mbd.cli import demo

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, os.pardir))
EARTH = mbd.Environment(gravity=(0.0, 0.0, -9.81))

#: the most a repr may take: one line of at most this many characters
WIDTH = 200


def short(text):
    assert "\n" not in text and len(text) <= WIDTH, (len(text), text)
    return text


def first_model(K=None):
    """README's first model: an arm on a hinge, a backlash stop and a strap (K: the stop's
    stiffness as a function of time instead, a VariableRotationalSpring)."""
    model = mbd.Model("pendulum")
    ground = model.add_ground("ground", environment=EARTH)
    anchor = model.add_ground("anchor", at=(1.0, 0.0, 0.5))
    arm = model.add_body("arm", mass=2.0, cg=(0.5, 0.0, 0.0),
                         inertia=np.diag([1e-3, 0.17, 0.17]),
                         cs={"pivot": (0.0, 0.0, 0.0), "tip": (1.0, 0.0, 0.0)})
    hinge = model.add(Revolute("hinge", ground, arm["pivot"], axis=(0, 1, 0), v0=3.0))
    law = (ElastoBacklash(c=1e4, d=10.0, b=0.2) if K is None
           else VariableRotationalSpring(K=K, K_min=1.0))
    model.add(JointForce("stop", hinge, law))
    model.add(BodySpringDamper("strap", anchor, arm["tip"], k=80.0, b=1.5, r0=0.4))
    return model


def counted(model):
    """{what: how many} of a model, counted from its elements."""
    elements = model.elements
    return {"bodies": len(model.bodies),
            "joints": sum(isinstance(e, mbd.Joint) for e in elements),
            "force elements": sum(isinstance(e, mbd.ForceElement) for e in elements)}


def test_a_pendulums_system_in_one_line():
    model = first_model()
    text = short(repr(model.build()))
    n = counted(model)
    assert (n["bodies"], n["joints"], n["force elements"]) == (1, 1, 2)
    assert text == ("<mbd.System 'pendulum': 1 body, 1 joint, 1 DOF, no loops, "
                    "2 force elements, no controllers>")
    assert "array" not in text and "dtype" not in text       # no records


def test_the_demo_machine_in_one_line():
    model = demo.build_model()
    text = short(repr(model.build()))
    n = counted(model)
    assert f"'{model.name}'" in text
    assert f"{n['bodies']} bodies" in text and f"{n['joints']} joints" in text
    assert f"{n['force elements']} force elements" in text
    # a tree of one-coordinate joints: a DOF each
    assert f"{n['joints']} DOF" in text and "no loops" in text


def test_a_loop_a_driver_a_gear_and_controls_are_counted():
    """The four-bar (a closed loop, a motion driver) and the gearbox PID (a gear, a sensor, a
    discrete controller)."""
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    try:
        import fourbar_backlash
        import gearbox_pid
    finally:
        sys.path.pop(0)
    fourbar = fourbar_backlash.build_model()
    text = short(repr(fourbar.build()))
    n = counted(fourbar)
    # planar Gruebler: 3 per moving body, less 2 per revolute (shaft, crank, coupler, rocker)
    mobility = 3 * n["bodies"] - 2 * n["joints"]
    assert (n["bodies"], n["joints"], mobility) == (4, 5, 2)
    assert f"{mobility} DOF" in text
    assert "1 loop," in text and "1 motion driver" in text
    gearbox = gearbox_pid.build_model()
    text = short(repr(gearbox.build()))
    controllers = sum(isinstance(e, mbd.DiscretePID) for e in gearbox.elements)
    assert controllers == 1 and "1 controller," in text
    assert "1 gear" in text and "1 sensor" in text


def test_a_finished_runs_result_in_one_line():
    r = first_model().build().simulate(t_end=1.0, output_step=0.01)
    text = short(repr(r))
    assert text.startswith("<mbd.Result 'pendulum': t = 0 to 1 s, ")
    # the grid's 101 rows and a row at every event
    assert f" {101 + len(r.events)} rows of 1 q + 1 v, {len(r.events)} events;" in text
    assert len(r.events) > 0 and text.endswith("; complete>")


def test_the_demo_machines_result_in_one_line():
    system = demo.build_model().build()
    r = system.simulate(t_end=0.5, output_step=0.05)
    text = short(repr(r))
    assert f"'{system.name}'" in text and "t = 0 to 0.5 s" in text
    assert f"{len(r.t)} rows of {system.nq} q + {system.nv} v, {len(r.events)} events" in text
    assert text.endswith("complete>")


def test_a_failed_runs_result_says_where_and_why_it_stopped():
    def K(t):
        if t > 0.2:
            raise RuntimeError("the stiffness table ends at 0.2 s")
        return 50.0

    with pytest.raises(mbd.SimulationError) as failed:
        first_model(K).build().simulate(t_end=1.0, output_step=0.01)
    r = failed.value.result
    text = short(repr(r))
    assert f"t = 0 to {r.t[-1]:g} s of 1 s" in text
    assert f"stopped at t = {failed.value.t:g} s: " in text and "complete" not in text
    assert 0.2 < failed.value.t < 0.21
    assert r.stopped == str(failed.value)               # the whole message, kept
    # the message's start, as it is: the element and the function that raised
    assert " ".join(str(failed.value).split())[:60] in text


def test_a_live_simulations_rows_so_far_are_not_complete():
    sim = first_model().build().start(t_end=1.0, output_step=0.1)
    sim.advance_to(0.35)
    text = short(repr(sim.result()))
    assert " of 1 s, " in text
    assert "complete" not in text and "stopped" not in text


def test_a_result_made_from_arrays_has_no_status():
    system = first_model().build()
    r = mbd.Result(system, [0.0, 0.5], np.zeros((2, system.nq + system.nv)))
    assert short(repr(r)) == ("<mbd.Result 'pendulum': t = 0 to 0.5 s, 2 rows of 1 q + 1 v, "
                              "0 events>")
