"""A GearConstraint in the plot of a run (issue 30: the gear drawn with the angles it relates):
its input's coordinate taken through the gear, ratio q_a + offset, is drawn on the axes of
its output's coordinate, labeled with the gear and the joint, and lies on the output's
curve; a rack's on the displacement axes."""
import numpy as np
import pytest

import mbd
from forces import Actuator, JointForce
from joints import Prismatic, Revolute
from tests.test_examples import load
from viz.plots import plot


def curves(axes):
    """{label: (axes y label, x data, y data)} of every line of the figure."""
    found = {}
    for ax in axes:
        for line in ax.get_lines():
            found[line.get_label()] = (ax.get_ylabel(), np.asarray(line.get_xdata()),
                                       np.asarray(line.get_ydata()))
    return found


def test_the_gearbox_plot_draws_the_pinion_through_the_gear_on_the_load():
    """examples/gearbox.py (ratio 0.2: q_load = 0.2 q_pinion): the gear's curve is 0.2 x
    pinion_shaft.q at every row, on the joint angle axes, and the load's angle is it to the
    constraint's tolerance."""
    gb = load("gearbox")
    result = gb.build_model().build().simulate(0.1, output_step=0.002, rtol=gb.RTOL,
                                               atol=gb.ATOL)
    fig, axes = plot(result)
    found = curves(axes)
    ylabel, t, y = found["mesh: 0.2 x pinion_shaft.q (gear)"]
    assert ylabel == "joint angle (rad)"
    np.testing.assert_array_equal(t, result.t)
    np.testing.assert_array_equal(y, gb.RATIO * result.joint("pinion_shaft").q)
    np.testing.assert_allclose(y, result.joint("load_shaft").q, rtol=0, atol=1e-9)
    assert np.ptp(y) > 0.0
    # both geared joints keep their own curves, with their own labels
    assert {"pinion_shaft.q", "load_shaft.q", "motor_shaft.q"} <= set(found)
    # a plot of one of the two joints alone has no gear curve
    _, axes = plot(result, joints=["load_shaft"])
    assert not [label for label in curves(axes) if "(gear)" in label]


def test_an_offset_and_a_rack():
    """A rack (prismatic, q_rack = 0.05 m/rad q_pinion + 0.01 m; the start assembled onto the
    gear): the gear's curve is on the displacement axes, with the offset in its label and its
    values."""
    m = mbd.Model("rack")
    g = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    pinion = m.add_body("pinion", mass=1.0, cg=(0, 0, 0), inertia=np.diag([1, 1, 1]))
    rack = m.add_body("rack", mass=1.0, cg=(0, -0.05, 0), inertia=np.diag([1, 1, 1]),
                      cs={"slider": (0, 0, 0)})
    turn = m.add(Revolute("turn", g, pinion["cg"], axis=(0, 0, 1)))
    slide = m.add(Prismatic("slide", g, rack["slider"], axis=(1, 0, 0)))
    m.add(mbd.GearConstraint("mesh", turn, slide, ratio=0.05, offset=0.01))
    m.add(JointForce("drive", turn, Actuator(1.0)))
    result = m.build().simulate(0.5, output_step=0.01)
    _, axes = plot(result)
    ylabel, _, y = curves(axes)["mesh: 0.05 x turn.q +0.01 (gear)"]
    assert ylabel.startswith("joint displacement")
    np.testing.assert_array_equal(y, 0.05 * result.joint("turn").q + 0.01)
    np.testing.assert_allclose(y, result.joint("slide").q, rtol=0, atol=1e-9)
    # from rest under 1 N m, the rack reflected to the pinion: J = 1 + 0.05^2 kg m^2
    turn = result.joint("turn").q
    assert turn[-1] - turn[0] == pytest.approx(0.5 * 0.5 ** 2 / (1 + 0.05 ** 2), rel=1e-6)
