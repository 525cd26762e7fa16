"""method="auto" (issue 16): DOP853 until Hairer's stiffness test finds the model stiff, then
the compiled Radau loop; a stiff model that makes the explicit loop crawl finishes in a few
hundred steps, and agrees with an independent implicit integrator (scipy's BDF on mbd's
right-hand side); a smooth model never switches and takes DOP853's own steps."""
import numpy as np
import pytest
from scipy.integrate import solve_ivp

import mbd
from forces import JointForce, SpringDamper
from joints import Prismatic, Revolute
from mbd.run.simulate import rhs_function


def stiff_pendulum(k=1e9, d=1e7):
    """A 1 m pendulum arm whose 0.5 kg bob slides along it on a stiff, overdamped spring: the
    spring's fast mode decays at about d / m_bob = 2e7 1/s while the arm swings at 0.5 Hz."""
    m = mbd.Model("stiff_pendulum")
    g = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    arm = m.add_body("arm", mass=1.0, cg=(0.5, 0, 0), inertia=np.diag([1e-3, 0.1, 0.1]),
                     cs={"pivot": (0, 0, 0), "end": (1.0, 0, 0)})
    bob = m.add_body("bob", mass=0.5, cg=(1.0, 0, 0), inertia=np.eye(3) * 1e-3)
    m.add(Revolute("hinge", g, arm["pivot"], axis=(0, 1, 0), q0=0.5))
    slide = m.add(Prismatic("slide", arm["end"], bob["cg"], axis=(1, 0, 0)))
    m.add(JointForce("spring", slide, SpringDamper(c=k, d=d)))
    return m.build()


@pytest.fixture(scope="module")
def stiff():
    return stiff_pendulum()


def test_the_explicit_loop_cannot_finish_a_stiff_model(stiff):
    with pytest.raises(mbd.SimulationError, match="stiff"):
        stiff.simulate(1.0, output_step=0.01, rtol=1e-6, atol=1e-9, method="DOP853",
                       max_steps=200_000)


def test_auto_switches_to_radau_and_matches_bdf(stiff):
    r = stiff.simulate(1.0, output_step=0.01, rtol=1e-8, atol=1e-10, method="auto")
    stats = r.stats
    assert stats["method"] == "auto" and stats["methods"] == ["DOP853", "Radau"]
    assert stats["stepper"] == "compiled"
    assert 0.0 < stats["stiff_at"] < 0.01          # within the first of the arm's motion
    assert stats["nsteps"] < 2000                   # DOP853 alone: millions
    # an independent integrator: scipy's BDF on the same right-hand side, much tighter
    f = rhs_function(stiff)
    y0 = np.concatenate([r.q[0], r.v[0]])
    ref = solve_ivp(f, (0.0, 1.0), y0, method="BDF", rtol=1e-11, atol=1e-13, t_eval=r.t)
    assert ref.success
    n = stiff.nq
    np.testing.assert_allclose(r.q, ref.y[:n].T, atol=2e-7)
    np.testing.assert_allclose(r.v, ref.y[n:].T, atol=2e-6)


def test_auto_on_a_smooth_model_is_dop853():
    smooth = stiff_pendulum(k=100.0, d=0.5)
    auto = smooth.simulate(1.0, output_step=0.05, method="auto")
    plain = smooth.simulate(1.0, output_step=0.05, method="DOP853")
    assert auto.stats["stiff_at"] is None and auto.stats["methods"] == ["DOP853"]
    assert auto.stats["nsteps"] == plain.stats["nsteps"]
    np.testing.assert_array_equal(auto.q, plain.q)


def test_auto_from_python_is_lsoda():
    """Where the compiled loop does not apply (exact switching off), scipy's LSODA, which
    switches between Adams and BDF itself."""
    system = stiff_pendulum(k=100.0, d=0.5)
    r = system.simulate(0.2, output_step=0.05, method="auto", exact_switching=False)
    assert r.stats["stepper"] == "scipy" and r.stats["methods"] == ["LSODA"]
