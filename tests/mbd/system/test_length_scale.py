"""The drawing's size (``system.length_scale``, m), which scales the run's tolerances
(assembly, drift, closure) and the pictures: each machine's own size, not the distance
between machines or to a ground nothing joins."""
import numpy as np
import pytest

import mbd
from forces import LineForce, Spring
from joints import Revolute

GRAVITY = (0.0, 0.0, -9.81)


def pendulum(model, name, at):
    """A 1 m rod on a hinge at ``at`` (its own ground)."""
    at = np.asarray(at, dtype=float)
    ground = model.add_ground(f"{name}_ground", at=at, environment=mbd.Environment(
        gravity=GRAVITY))
    rod = model.add_body(name, mass=1.0, cg=at + (0.5, 0, 0), inertia=[1e-4, 0.08, 0.08],
                         cs={"pivot": at, "tip": at + (1.0, 0, 0)})
    model.add(Revolute(f"{name}_hinge", ground, rod["pivot"], axis=(0, 1, 0)))
    return rod


def test_one_pendulum_is_its_own_size():
    model = mbd.Model("one")
    pendulum(model, "a", (0.0, 0.0, 0.0))
    # the box around pivot, CG and tip: 1 m along x
    assert model.build().length_scale == pytest.approx(1.0, rel=1e-15)


def test_a_machine_far_away_does_not_make_the_drawing_big():
    model = mbd.Model("two")
    pendulum(model, "a", (0.0, 0.0, 0.0))
    pendulum(model, "b", (100.0, 0.0, 0.0))
    assert model.build().length_scale == pytest.approx(1.0, rel=1e-15)


def test_a_ground_nothing_joins_does_not_count():
    model = mbd.Model("base")
    pendulum(model, "a", (0.0, 0.0, 0.0))
    model.add_ground("picture", at=(0.0, 0.0, 50.0))      # a robot base's visual, say
    assert model.build().length_scale == pytest.approx(1.0, rel=1e-15)


def test_a_spring_to_a_ground_of_its_own_spans_the_drawing():
    model = mbd.Model("sprung")
    rod = pendulum(model, "a", (0.0, 0.0, 0.0))
    anchor = model.add_ground("anchor", at=(1.0, 0.0, 3.0))
    model.add(LineForce("strap", rod["tip"], anchor, Spring(c=10.0)))
    # the box around the rod (x 0..1) and the anchor (z 0..3): diagonal sqrt(1 + 9)
    assert model.build().length_scale == pytest.approx(np.sqrt(10.0), rel=1e-15)
