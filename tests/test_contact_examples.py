"""examples/cam_follower.py, examples/bouncing_balls.py and examples/sliding_block.py (SPEC
§12) show what they claim,
against closed forms written out here, not the examples' own helpers:

* the cam: a rigid follower on an eccentric disc lifts by e (1 - cos(omega t)) and needs
  the contact force N(t) = m (g + e omega^2 cos(omega t)) + F0 + k e (1 - cos(omega t));
  Hertz's contact lets it sink in by (N / c)^(2/3), c = 4/3 E* sqrt(R) from the textbook;
  it never leaves the cam below the lift-off speed sqrt((m g + F0 + 2 k e) / (m e)) and
  does above it;
* the balls: each falls freely until it touches the floor at sqrt(2 h / g); the energy
  balance closes to the run's tolerance; no contact ever stores more than the initial
  energy, which bounds how deep a ball gets into a wall or the floor; two balls striking
  each other in the air keep their horizontal momentum;
* the sliding block: slipping, kinetic friction mu_k N decelerates it at mu_k g exactly, so
  it sticks at V0 / (mu_k g) after V0^2 / (2 mu_k g), and friction dissipates its launch's
  kinetic energy; stuck, its corners stay put.
"""
import contextlib
import io

import numpy as np
import pytest

from tests.test_examples import load

#: these tests assert accuracy bounds (closed forms, balances): run again on a perturbed
#: problem under --perturb (tests/perturb.py)
pytestmark = pytest.mark.accuracy

cam = load("cam_follower")
balls = load("bouncing_balls")
block = load("sliding_block")


def textbook_hertz(E1, nu1, E2, nu2, R):
    """c of F = c delta^1.5 for a sphere of radius R on a flat (Johnson, Contact Mechanics,
    §4.2): 4/3 E* sqrt(R), 1/E* = (1 - nu1^2)/E1 + (1 - nu2^2)/E2."""
    return 4.0 / 3.0 * np.sqrt(R) / ((1 - nu1**2) / E1 + (1 - nu2**2) / E2)


def run_quietly(main, **kwargs):
    """(result, printout) of an example's main()."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = main(**kwargs)
    return result, out.getvalue()


# The cam and its flat-faced follower

G, E, R, OMEGA = 9.81, 0.01, 0.03, 80.0
M_F, K, F0 = 0.5, 2000.0, 20.0
C_STEEL = textbook_hertz(210e9, 0.3, 210e9, 0.3, R)


def rigid_lift(t, omega=OMEGA):
    return E * (1.0 - np.cos(omega * t))


def rigid_force(t, omega=OMEGA):
    c = np.cos(omega * t)
    return M_F * (G + E * omega**2 * c) + F0 + K * E * (1.0 - c)


LIFT_OFF = np.sqrt((M_F * G + F0 + 2.0 * K * E) / (M_F * E))


def test_cam_parameters_are_the_ones_written_here():
    assert (cam.G, cam.E, cam.R, cam.OMEGA, cam.M_F, cam.K, cam.F0) == (G, E, R, OMEGA, M_F, K,
                                                                          F0)
    assert cam.C == pytest.approx(C_STEEL, rel=1e-12)          # mbd.hertz is the textbook's
    assert cam.lift_off_speed() == pytest.approx(LIFT_OFF, rel=1e-12)
    assert OMEGA < LIFT_OFF


@pytest.fixture(scope="module")
def cam_run():
    return run_quietly(cam.main)


def test_cam_lift_is_the_closed_form_less_the_hertz_penetration(cam_run):
    """The lift against e (1 - cos(omega t)):

    * within the deepest Hertz penetration, (N_max / c)^(2/3) = 1.7 um (N_max the closed
      form's largest force, at the bottom of the lift), plus 2e-8 m;
    * with the quasi-static penetration (N(t) / c)^(2/3) added back, within 2e-8 m: what is
      left is the follower's inertia on the contact's stiffness (the contact's own frequency,
      sqrt(1.5 N / (delta m)) ~ 1e4 rad/s, is 130 times the cam's: a relative (80/1e4)^2 ~
      6e-5 of the 1.7 um, 1e-10 m), the start in equilibrium (at rest at the static
      penetration of N(0)), and the integration error (atol 1e-10 m, rtol 1e-8 of 20 mm per
      step, over ~3000 steps of a damped, driven follower: ~1e-9 m measured; 20 x that
      allowed).
    """
    result, out = cam_run
    t, lift = result.t, result.joint("tappet").q
    assert t[-1] == cam.T_END
    n_max = max(rigid_force(0.0), rigid_force(np.pi / OMEGA))
    depth_max = (n_max / C_STEEL) ** (2.0 / 3.0)
    assert 1e-6 < depth_max < 2e-6
    err = lift - rigid_lift(t)
    assert np.all(err <= 2e-8) and np.all(err >= -depth_max - 2e-8)
    quasi_static = (rigid_force(t) / C_STEEL) ** (2.0 / 3.0)
    np.testing.assert_allclose(lift + quasi_static, rigid_lift(t), rtol=0, atol=2e-8)
    assert "lift " in out and "closed form" in out


def test_cam_contact_force_is_the_closed_form(cam_run):
    """The contact force (sum over the one point) against N(t), within m omega^2 delta_max
    (the follower's acceleration differs from the rigid one by d^2(delta)/dt^2, which the
    penetration's swing at the cam's frequency bounds) plus the damping's d omega delta_max
    (its rate), ~6e-3 N of 57 N; and never zero: no contact ends."""
    result, out = cam_run
    fn = result.contact("cam_contact").total_normal_force
    d = next(el for el in cam.build_model().elements if el.name == "cam_contact").law.d
    depth_max = (rigid_force(0.0) / C_STEEL) ** (2.0 / 3.0)
    bound = M_F * OMEGA**2 * depth_max + d * OMEGA * depth_max
    np.testing.assert_allclose(fn, rigid_force(result.t), rtol=0, atol=bound)
    assert fn.min() > 30.0
    assert not [ev for ev in result.events if ev.what == "contact ends"]
    assert "the follower never leaves the cam" in out
    assert f"{LIFT_OFF:.2f} rad/s" in out


@pytest.mark.parametrize("factor", [0.95, 1.05])
def test_cam_follower_leaves_the_cam_only_above_the_lift_off_speed(factor):
    """At 0.95 x the lift-off speed the contact holds over a whole turn; at 1.05 x it ends
    once in the first half turn. The rigid follower would lose the force at t_lo, where
    N(t_lo) = 0; the Hertz contact opens a little later: the force falls at dN/dt ~ 3e3 N/s,
    the surfaces part as dN/dt tau^3 / (6 m) once it is gone, and the penetration left at
    force dN/dt tau is (dN/dt tau / c)^(2/3): tau ~ 5e-4 s. Allowed: t_lo <= t <= t_lo +
    1.5e-3 s."""
    omega = factor * LIFT_OFF
    t_end = 2 * np.pi / omega if factor < 1 else 1.3 * np.pi / omega
    result = cam.build_model(omega).build().simulate(t_end, output_step=1e-4, rtol=cam.RTOL,
                                                     atol=cam.ATOL)
    ends = [ev.t for ev in result.events if ev.what == "contact ends"]
    if factor < 1:
        assert ends == []
        assert result.contact("cam_contact").total_normal_force.min() > 0.0
    else:
        cos_lo = -(M_F * G + F0 + K * E) / (M_F * E * omega**2 - K * E)
        t_lo = np.arccos(cos_lo) / omega
        assert len(ends) == 1
        assert t_lo <= ends[0] <= t_lo + 1.5e-3


# The balls in the box

RUBBER_C = textbook_hertz(50e6, 0.45, 50e6, 0.45, 0.06)


@pytest.fixture(scope="module")
def balls_run():
    return run_quietly(balls.main)


def test_balls_law_is_the_textbooks():
    assert balls.C == pytest.approx(RUBBER_C, rel=1e-12)
    assert balls.L == 0.8 and balls.G == 9.81


def test_every_ball_first_strikes_the_floor_after_a_free_fall(balls_run):
    """Each ball's first contact is with the floor, at sqrt(2 (z0 - r) / g): a free fall
    from rest vertically (the sideways speed does not change it). The event is located on
    the gap to the run's tolerance (atol 1e-9 m at ~3 m/s: ~3e-10 s); allowed 1e-8 s."""
    result, out = balls_run
    seen = set()
    for ev in result.events:
        if ev.what != "contact begins":
            continue
        pair = ev.element.split(":")[0].removeprefix("contact ").split("-")
        for name in pair:
            if name in balls.BALLS and name not in seen:
                seen.add(name)
                radius, start, _ = balls.BALLS[name]
                assert pair == [name, "floor"], (name, ev)
                assert ev.t == pytest.approx(np.sqrt(2 * (start[2] - radius) / G), abs=1e-8)
    assert seen == set(balls.BALLS)
    assert out.count("free fall sqrt(2 h / g)") == len(balls.BALLS)


def test_balls_energy_balance_closes(balls_run):
    """kinetic + gravity = the contacts' work (their springs and what their damping and
    friction took) to the run's tolerance: |residual| <= rtol x the largest term (40 J here,
    so 4e-7 J; ~2e-9 J measured). The contacts only take energy: dissipated >= 0."""
    result, out = balls_run
    balance = result.energy_balance()
    assert balance.scale > 30.0
    assert np.abs(balance.residual).max() <= balls.RTOL * balance.scale
    assert sum(balance.supplied.values())[-1] == 0.0
    dissipated = sum(balance.dissipated.values())
    assert dissipated[-1] > 0.5 * balance.scale
    assert np.all(np.diff(dissipated) >= -balls.RTOL * balance.scale)
    assert "residual" in out


def test_no_ball_leaves_the_box_beyond_the_laws_bound(balls_run):
    """No contact can store more than the energy there was at the start (the balls' kinetic
    energy and their weight's potential above z = 0; damping and friction only take): so a
    ball's penetration delta obeys c delta^2.5 / 2.5 <= E0, and its centre stays within
    r - delta_max of the floor and of every wall."""
    result, out = balls_run
    e0 = sum(balls.DENSITY * 4 / 3 * np.pi * r**3 * (0.5 * (vx**2 + vy**2) + G * z0[2])
             for r, z0, (vx, vy) in balls.BALLS.values())
    depth_max = (2.5 * e0 / RUBBER_C) ** 0.4
    assert depth_max < 0.02
    deepest = 0.0
    for name, (radius, _, _) in balls.BALLS.items():
        p = result.body(name).position("cg")
        assert np.all(p[:, 2] >= radius - depth_max), name
        assert np.all(np.abs(p[:, :2]) <= balls.L / 2 - radius + depth_max), name
        deepest = max(deepest, radius - p[:, 2].min(),
                      (np.abs(p[:, :2]) + radius - balls.L / 2).max())
    assert deepest > 0.1 * depth_max            # they do strike
    assert "the law's bound" in out


def test_balls_striking_in_the_air_keep_their_horizontal_momentum(balls_run):
    """Two balls touching only each other (no other contact of either during the impact):
    gravity is vertical and the contact force internal, so their x-y momentum before and
    after is the same, to the velocity's integration error (rtol 1e-8 of ~1 kg m/s); allowed
    1e-6 kg m/s. Both pairs dropped to meet head-on do meet, after their first bounce."""
    result, out = balls_run
    mass = {n: balls.DENSITY * 4 / 3 * np.pi * r**3 for n, (r, _, _) in balls.BALLS.items()}
    intervals = {}
    for ev in result.events:
        pair = ev.element.split(":")[0]
        if pair not in intervals and ev.what == "contact begins":
            intervals[pair] = result.contact(pair).intervals()
    met = set()
    for pair, spans in intervals.items():
        a, b = pair.removeprefix("contact ").split("-")
        if not (a in balls.BALLS and b in balls.BALLS):
            continue
        for t0, t1 in spans:
            others = [(u, v) for p, s in intervals.items() if p != pair
                      and ({a, b} & set(p.removeprefix("contact ").split("-")))
                      for u, v in s if u < t1 and (np.isnan(v) or v > t0)]
            if others or np.isnan(t1):
                continue
            i0, i1 = (np.flatnonzero(result.t == t)[0] for t in (t0, t1))
            before, after = (sum(mass[n] * result.body(n).velocity("cg")[i, :2] for n in (a, b))
                             for i in (i0, i1))
            np.testing.assert_allclose(after, before, rtol=0, atol=1e-6)
            met.add((a, b))
    assert {("ball1", "ball2"), ("ball3", "ball4")} <= met
    assert "strikes" in out


def test_the_sliding_block_stops_where_kinetic_friction_brings_it_to_rest():
    result, printout = run_quietly(block.main)
    g, mu_k, v0 = 9.81, 0.4, 1.5
    [stick] = [e for e in result.events if e.element == "floor contact"]
    assert stick.what == "sticks"
    # slipping, vx = V0 - mu_k (g t + vz) exactly; the box starts level, so it first pitches
    # into its sliding attitude, a transient whose vz is damped out long before the stop:
    # the stick at the closed form's time to the event location and that transient's
    # remainder (bound 1e-7 of the time)
    assert stick.t == pytest.approx(v0 / (mu_k * g), rel=1e-7)
    x = result.body("box").position()[:, 0]
    at = np.searchsorted(result.t, stick.t)
    assert x[at] - x[0] == pytest.approx(v0**2 / (2 * mu_k * g), rel=1e-5)
    # stuck, the corners stay put (the box rocking back level about the contact points,
    # half the penetration below them, moves them by pitch x delta / 2 at most: < 1e-7 m)
    corners = block.corner_centre(result)
    assert np.abs(corners[at:] - corners[at]).max() < 1e-7
    balance = result.energy_balance()
    assert balance.dissipated["floor contact friction"][-1] == pytest.approx(
        0.5 * 2.0 * v0**2, rel=1e-4)
    assert "sticks at t = 0.38226" in printout
