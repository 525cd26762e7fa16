"""The compiled DOP853 loop (mbd.run.steppers.dop853) against scipy's DOP853 stepped from Python.

Two implementations of the same method — scipy's (Python, the reference) and the compiled
one — must take the same steps: the same number of right-hand-side evaluations and steps, the
same output rows and the same event times, up to round-off in the order of operations. The
right-hand side is the same compiled kernel in both, so any difference is the integrator's.
Also: the compiled loop is the default wherever it applies, ``compiled=True`` names what
prevents it elsewhere, and a run stopped inside the loop keeps its rows.
"""
import numpy as np
import pytest

import mbd
from joints import Revolute
from tests.forces.test_events import spring_rotor, stiffness
from tests.forces.test_reference_examples import elastogap_model
from tests.mbd.random_models import random_state, random_tree

FAMILIES = [["Revolute"], ["Prismatic", "Revolute"], ["Spherical", "Revolute"],
            ["Revolute", "Prismatic", "Spherical", "Universal", "SixDof", "Weld"]]


def _both(system, **kwargs):
    compiled = system.simulate(compiled=True, **kwargs)
    scipy = system.simulate(compiled=False, **kwargs)
    assert compiled.stats["stepper"] == "compiled" and scipy.stats["stepper"] == "scipy"
    return compiled, scipy


@pytest.mark.parametrize("kinds", FAMILIES, ids=lambda k: "-".join(k))
@pytest.mark.parametrize("seed", [1, 2])
def test_same_steps_and_rows_as_scipy(kinds, seed):
    """Random trees of 1-6 bodies in motion for 1 s at rtol 1e-8: identical step and
    evaluation counts, rows on the same grid, states equal to 1e-9 relative (the two differ
    only in summation order, amplified over a few hundred steps by the motion's sensitivity)."""
    rng = np.random.default_rng([seed, len(kinds)])
    system = random_tree(rng, int(rng.integers(1, 7)), kinds).build()
    q, v = random_state(rng, system)
    q0 = {name: q[jm.q_index] for name, jm in system.joints.items() if len(jm.q_index)}
    v0 = {name: v[jm.v_index] for name, jm in system.joints.items() if len(jm.v_index)}
    a, b = _both(system, t_end=1.0, output_step=0.05, q0=q0, v0=v0, rtol=1e-8, atol=1e-8)
    assert a.stats["nfev"] == b.stats["nfev"]
    assert a.stats["nsteps"] == b.stats["nsteps"]
    np.testing.assert_array_equal(a.t, b.t)
    scale = max(np.abs(b.q).max(), np.abs(b.v).max(), 1.0)
    assert np.abs(a.q - b.q).max() <= 1e-9 * scale
    assert np.abs(a.v - b.v).max() <= 1e-9 * scale


def test_same_events_as_scipy():
    """The ElastoGap example (12 contact switches in 5 s): the same events, at the same times
    to 1e-12 s (each is located to round-off on its step's interpolant, which the two
    implementations build from the same stages)."""
    system = elastogap_model("axial").build()
    a, b = _both(system, t_end=5.0, output_step=0.25, rtol=1e-10, atol=1e-10)
    assert len(a.events) == len(b.events) == 12
    for ea, eb in zip(a.events, b.events):
        assert (ea.element, ea.what) == (eb.element, eb.what)
        assert abs(ea.t - eb.t) <= 1e-12
    assert a.stats["nfev"] == b.stats["nfev"]
    assert np.abs(a.q - b.q).max() <= 1e-9


def test_default_is_compiled_where_it_applies():
    system = elastogap_model("axial").build()
    assert system.simulate(0.1).stats["stepper"] == "compiled"
    assert system.simulate(0.1, method="RK45").stats["stepper"] == "scipy"
    assert system.simulate(0.1, exact_switching=False).stats["stepper"] == "scipy"


def test_compiled_true_names_what_prevents_it():
    system = elastogap_model("axial").build()
    with pytest.raises(ValueError, match="DOP853 and Radau only, not RK45"):
        system.simulate(0.1, method="RK45", compiled=True)
    with pytest.raises(ValueError, match="exact_switching=False"):
        system.simulate(0.1, exact_switching=False, compiled=True)
    # a stiffness given as a Python function of time is evaluated from Python: the scipy loop
    rotor = spring_rotor(stiffness)
    assert rotor.simulate(0.1).stats["stepper"] == "scipy"
    # so is a motion driver's prescribed motion
    from tests.mbd.run.test_loops import slider_crank
    driven = slider_crank()[0]
    assert driven.simulate(0.05).stats["stepper"] == "scipy"
    with pytest.raises(ValueError, match="motion drivers"):
        driven.simulate(0.05, compiled=True)
    with pytest.raises(ValueError, match=r"\['vspring'\].*functions of time"):
        rotor.simulate(0.1, compiled=True)


def test_long_runs_are_stepped_in_chunks_with_the_same_result(monkeypatch):
    """The compiled loop returns to Python every BATCH steps (for the progress bar and
    Ctrl-C) and resumes where it stopped: the same steps and rows as one uninterrupted call."""
    from mbd.run import pieceloop
    model = mbd.Model("pendulum")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, -9.81)))
    body = model.add_body("bob", mass=1.0, cg=(0.0, 0.0, -1.0), inertia=np.eye(3) * 1e-3,
                          cs={"pivot": (0.0, 0.0, 0.0)})
    model.add(Revolute("hinge", ground, body["pivot"], axis=(1.0, 0.0, 0.0), q0=1.0))
    system = model.build()
    whole = system.simulate(2.0, output_step=0.1, max_step=1e-3)
    monkeypatch.setattr(pieceloop.Run, "BATCH", 7)
    chunked = system.simulate(2.0, output_step=0.1, max_step=1e-3)
    assert chunked.stats["nsteps"] == whole.stats["nsteps"] >= 2000
    assert chunked.stats["nfev"] == whole.stats["nfev"]
    np.testing.assert_array_equal(chunked.t, whole.t)
    np.testing.assert_array_equal(chunked.q, whole.q)


def test_loops_same_steps_and_events_as_scipy():
    """Closed loops in the compiled loop: the four-bar with an elastic backlash on its cut
    joint (contact events on a loop) and the spatial RSUR (a spherical joint's quaternion in
    the loop). Both loops project every output row onto the closures and every step's end
    that drifted from them by more than a tenth of atol (compiled here, from Python there)
    and take the same steps; the states agree to 1e-9 and the events to 1e-10 s."""
    from forces import ElastoBacklash, JointForce, Spring
    from tests.mbd.run.test_loops import fourbar, rsur
    lashed = fourbar(crank=dict(q0=0.0, v0=3.0, exact=True),
                     forces=[lambda j: JointForce("lash", j["j3"], ElastoBacklash(c=200.0, d=0.0,
                                                                                  b=0.3)),
                             lambda j: JointForce("spring", j["j1"], Spring(c=0.5))])
    for system, t_end in ((lashed, 2.0), (rsur(q0=2.0, v0=1.0), 1.0)):
        a, b = _both(system, t_end=t_end, output_step=0.05, rtol=1e-10, atol=1e-10)
        assert a.stats["nsteps"] == b.stats["nsteps"]
        assert abs(a.stats["nfev"] - b.stats["nfev"]) <= 2     # the rank check's evaluation
        np.testing.assert_allclose(a.t, b.t, rtol=0, atol=1e-10)    # event rows to 1e-10 s
        assert np.abs(a.q - b.q).max() <= 1e-9 and np.abs(a.v - b.v).max() <= 1e-9
        assert [(e.element, e.what) for e in a.events] == [(e.element, e.what) for e in b.events]
        for ea, eb in zip(a.events, b.events):
            assert abs(ea.t - eb.t) <= 1e-10
    assert len(a.events) == 0 and len(b.events) == 0          # the RSUR has no force element
