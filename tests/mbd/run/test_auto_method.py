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

#: these tests assert accuracy bounds (closed forms, reference values, balances): run again
#: on a perturbed problem under --perturb (tests/perturb.py)
pytestmark = pytest.mark.accuracy


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


# ----------------------------------------------------------------------------- and back

#: the pad: contact while x < 0, stiff and overdamped (eigenvalues about -d/m = -1e6 and
#: -c/d = -100 1/s in contact); the soft spring pulls the block out to x = 0.5 m; the press,
#: F0 e^(-t/tau) into the pad, lets go where it falls below the spring's pull, K_SOFT X_SOFT
#: = 5 N: at about tau ln(F0 / 5 N) = 0.30 s
PAD_C, PAD_D, K_SOFT, D_SOFT, X_SOFT, F0, TAU = 1e8, 1e6, 10.0, 1.0, 0.5, 100.0, 0.1
LIFT_OFF = TAU * np.log(F0 / (K_SOFT * X_SOFT))


def pressed_block():
    """A 1 kg block on a slider along x (no gravity), pressed into a stiff, overdamped
    ElastoGap pad by a force that decays, F0 e^(-t/tau) (a compiled StateSpace controller:
    the run stays in the compiled loop), until a soft spring-damper pulls it off the pad at
    about LIFT_OFF; then it swings on the soft spring (3.2 rad/s, damping ratio 0.16) clear
    of the pad: stiff for 0.3 s, then not."""
    from forces import Actuator, ElastoGap
    m = mbd.Model("pressed_block")
    g = m.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, 0.0)))
    block = m.add_body("block", mass=1.0, cg=(0.0, 0.0, 0.0), inertia=np.eye(3) * 1e-2)
    x0 = -(F0 - K_SOFT * X_SOFT) / PAD_C            # at rest on the pad
    slide = m.add(Prismatic("slide", g, block["cg"], axis=(1, 0, 0), q0=x0))
    press = m.add(mbd.StateSpace("press", A=[[-1.0 / TAU]], B=[[0.0]], C=[[-F0]], D=[[0.0]],
                                 inputs=[0.0], x0=[1.0]))
    m.add(JointForce("push", slide, Actuator(press)))
    m.add(JointForce("pad", slide, ElastoGap(c=PAD_C, d=PAD_D, s_rel0=0.0)))
    m.add(JointForce("spring", slide, SpringDamper(c=K_SOFT, d=D_SOFT, x0=X_SOFT)))
    return m.build()


@pytest.fixture(scope="module")
def pressed():
    return pressed_block()


def test_auto_goes_back_to_dop853_when_the_stiffness_ends(pressed):
    """DOP853 finds the pressed block stiff within its first milliseconds, Radau carries it
    through the 0.3 s on the pad, and DOP853 takes over again once the block has left the
    pad (the switch logged, with the time, in the stats and by ``mbd run``). The rows agree
    with DOP853 at rtol = atol = 1e-12 to the run's tolerance, 1e-7 (measured: see below),
    in a fraction of the explicit run's steps."""
    from mbd.cli.run import _methods
    tol = 1e-7
    r = pressed.simulate(1.5, output_step=0.01, rtol=tol, atol=tol, method="auto")
    st = r.stats
    assert st["stepper"] == "compiled"
    assert st["methods"] == ["DOP853", "Radau", "DOP853"]
    (t_stiff, to_radau), (t_calm, to_dop853) = st["switches"]
    assert (to_radau, to_dop853) == ("Radau", "DOP853") and st["stiff_at"] == t_stiff
    # on the pad the damping is clamped first (the pad never pulls), then contact ends
    pad = [(e.t, e.what) for e in r.events if e.element == "pad"]
    assert [what for _, what in pad] == ["damping clamped: the gap never pulls",
                                         "contact ends"]
    lift = pad[-1][0]
    assert abs(lift - LIFT_OFF) < 0.01
    assert 0.0 < t_stiff < 0.01                    # stiff on the pad from the start
    # calm after it left: 15 Radau steps in a row that DOP853 could take (measured 0.13 s)
    assert lift < t_calm < lift + 0.25
    assert _methods(st) == (f"auto (DOP853; Radau from t = {t_stiff:.6g} s; DOP853 from "
                            f"t = {t_calm:.6g} s)")
    ref = pressed.simulate(1.5, output_step=0.01, rtol=1e-12, atol=1e-12, method="DOP853")
    assert [e.what for e in ref.events] == [what for _, what in pad]
    # the explicit run crawls on the pad (measured 46901 steps here, 48359 at tol; auto 92)
    assert ref.stats["nsteps"] > 100 * st["nsteps"]
    # the rows on the output grid (the event rows lie at slightly different times);
    # measured 1.9e-9 m and 2.7e-9 m/s at the end
    grid = np.arange(151) * 0.01
    a = np.isin(r.t, grid)
    b = np.isin(ref.t, grid)
    assert a.sum() == b.sum() == 151
    assert np.abs(r.q[a] - ref.q[b]).max() <= 10 * tol
    assert np.abs(r.v[a] - ref.v[b]).max() <= 10 * tol
    # the block swings clear of the pad: it flew (x > 0.5 m at some row)
    assert r.joint("slide").q.max() > X_SOFT


def test_mbd_run_names_a_single_method():
    from mbd.cli.run import _methods
    assert _methods({"method": "DOP853"}) == "DOP853"
    assert _methods({"method": "auto", "methods": ["LSODA"], "switches": []}) == "auto (LSODA)"
