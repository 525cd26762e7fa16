"""Switch events over runs of any length, a body spring-damper passing through its anchor, and a
four-bar driven into its dead centre (acceptance tests, public API only).

* Chattering is judged on the motion's own scale, not as a fraction of the run: the same
  picosecond flicker stops a 1 ms run exactly as it stops a 1 s run; a 1e6 s run whose laws
  switch sparsely completes, and so does one whose switches come in legitimate bursts (a slow
  sled pressing into a bed of 50 contact pads, one pad after another, 50 switches within
  1e-9 of the run's length) — every switch at its closed-form time.
* A BodySpringDamper with r0 > 0 whose B point passes through its anchor: the direction of its
  force reverses there, a kink the integrator must stop at, so the passage is an event of that
  element at the exact passage time, and the motion continues on the mirrored law.
* A four-bar whose rocker is driven (prescribed) past its limit stops at the dead centre, where
  crank and coupler fold onto one line, with the singular-configuration error.
"""
import math
import re

import numpy as np
import pytest

import mbd
from forces import BodySpringDamper, ElastoGap, JointForce, Spring, VariableRotationalSpring
from joints import Prismatic, Revolute
from tests.mbd.run.test_loops import A4, B4, C4, D4, fourbar

from .test_events import K_MIN, oscillating_stiffness, spring_rotor

#: these tests assert accuracy bounds (closed forms, reference values, balances): run again
#: on a perturbed problem under --perturb (tests/perturb.py)
pytestmark = pytest.mark.accuracy

# ---------------------------------------------------------------------------------------------
# 1a. The flicker of test_events, in a run a thousand times shorter

FLICKER_OMEGA = 1e12          # K(t) = K_min + 1e-3 sin(omega t) crosses K_min every pi ps
FLICKER_LIMIT = 1e-8          # s: 60 times the point where the 1 s run is stopped
FLICKER_BUDGET = 1000         # stiffness evaluations allowed beyond FLICKER_LIMIT


class _RanOn(Exception):
    """The watched stiffness signal saw the integration go on far past the flicker."""


def watched(signal):
    """``signal`` with a watchdog: after FLICKER_BUDGET evaluations at t > FLICKER_LIMIT the
    run has not been stopped for chattering, and would step 1e-12 s at a time to its end (1e9
    steps for 1 ms), so the watchdog ends it. Evaluations beyond the limit are counted rather
    than refused outright, because each new piece's initial-step probe samples K a whole
    trial step ahead (one evaluation per piece, milliseconds ahead), also in a run that is
    stopped in time."""
    seen = [0]

    def K(t):
        if t > FLICKER_LIMIT:
            seen[0] += 1
            if seen[0] > FLICKER_BUDGET:
                raise _RanOn(f"K(t) was evaluated {FLICKER_BUDGET} times beyond "
                             f"t = {FLICKER_LIMIT:g} s (60 times where the 1 s run stops; "
                             "initial-step probes, one per new piece, or steps): the run "
                             "went on switching without stopping for chattering")
        return signal(t)

    return K


def _flicker_failure(t_end):
    system = spring_rotor(watched(oscillating_stiffness(FLICKER_OMEGA)), name="flicker")
    try:
        with pytest.raises(mbd.SimulationError) as info:
            system.simulate(t_end, output_step=t_end / 10, rtol=1e-8, atol=1e-8, max_step=1e-12)
    except _RanOn as err:
        pytest.fail(f"t_end = {t_end:g} s: {err}")
    return info.value


def test_chattering_is_detected_whatever_the_run_length():
    """The flicker of test_chattering_stops_the_run_naming_the_element (K(t) = K_min +
    1e-3 sin(omega t), omega = 1e12 rad/s, crossing K_min at t_k = k pi / omega, while the rotor,
    J = 2 kg m^2 under a torque of about K_min (theta_init + theta) = 0.8 N m, moves by
    0.8 / (2 J) t^2 = 2e-19 rad in the first 1e-9 s) with t_end = 1e-3 s instead of 1 s. Up
    to the moment the flicker is recognised the two runs integrate the same equations from the
    same state with the same step bound, so a verdict on the motion's scale is the same in
    both: the 1 ms run stops too, naming the element and saying it chatters, keeping the rows
    and the >= 50 switches (each at k pi / omega), at the very time and after the very number
    of switches the 1 s run stops at. (A span of 1e-9 x (t_end - t0) = 1e-12 s for 1 ms is
    shorter than the spacing of two switches, pi ps: a rule on that scale never fires.)"""
    reference = _flicker_failure(1.0)
    err = _flicker_failure(1e-3)
    assert "'flicker'" in str(err) and "chatter" in str(err), str(err)
    r = err.result
    assert isinstance(r, mbd.Result)
    assert len(r.events) >= 50 and all(e.element == "flicker" for e in r.events)
    k = np.arange(1, len(r.events) + 1)
    np.testing.assert_allclose([e.t for e in r.events], k * np.pi / FLICKER_OMEGA, rtol=0,
                               atol=1e-15)
    assert err.t == r.events[-1].t < 1e-9
    assert r.t[0] == 0.0 and r.t[-1] == err.t
    assert set(e.t for e in r.events) <= set(r.t)
    assert np.all(np.isfinite(r.q)) and np.all(np.isfinite(r.v))
    # the same verdict as the 1 s run's
    assert len(r.events) == len(reference.result.events)
    assert abs(err.t - reference.t) < 1e-15


# ---------------------------------------------------------------------------------------------
# 1b. A long run with sparse switches: a heavy rotor, its stiffness crossing K_min every 3000 s

SLOW_J = 5e6                  # kg m^2: with K ~ K_min = 2 N m/rad, a period 2 pi sqrt(J/K) = 9935 s
SLOW_SPACING = 3000.0         # s between crossings of K_min
LONG_T_END = 1e6              # s


def test_sparse_switches_over_a_long_run_complete():
    """A rotor of J = 5e6 kg m^2 on a VariableRotationalSpring (K_min = 2 N m/rad, so a period
    of 2 pi sqrt(J / K_min) = 9935 s) whose K(t) = K_min + 1e-3 sin(pi t / 3000 s) crosses K_min
    at t_k = 3000 k s, whatever the rotor does. Over 1e6 s that is floor(1e6 / 3000) = 333
    switches (t_end itself is no crossing), 3000 s apart: no 50 of them lie within any short
    span, so the run completes, logging each at t_k (to 1e-8 s: round-off of t ~ 1e6 s is
    1e-10 s, of sin at an argument of 1e3 rad another 1e-10 s), and K_min is the stiffness in
    use exactly where sin(pi t / 3000) < 0."""
    omega = np.pi / SLOW_SPACING
    m = mbd.Model("slow_rotor")
    ground = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    rotor = m.add_body("rotor", mass=1.0, cg=(0, 0, 0), inertia=[SLOW_J] * 3)
    hinge = m.add(Revolute("hinge", ground, rotor["cg"], axis=(0, 0, 1), q0=0.1))
    m.add(JointForce("vspring", hinge, VariableRotationalSpring(
        K=lambda t: K_MIN + 1e-3 * np.sin(omega * t), K_min=K_MIN, theta_init=0.3)))
    r = m.build().simulate(LONG_T_END, output_step=1e3, rtol=1e-10, atol=1e-10)

    assert r.t[-1] == LONG_T_END
    n = int(LONG_T_END // SLOW_SPACING)
    assert n == 333 and len(r.events) == n
    assert all(e.element == "vspring" for e in r.events)
    np.testing.assert_allclose([e.t for e in r.events], SLOW_SPACING * np.arange(1, n + 1),
                               rtol=0, atol=1e-8)
    phase = np.remainder(r.t, 2 * SLOW_SPACING)
    clear = np.minimum(np.remainder(r.t, SLOW_SPACING),
                       SLOW_SPACING - np.remainder(r.t, SLOW_SPACING)) > 1.0
    np.testing.assert_array_equal(r.force("vspring").state["K_min_active"][clear],
                                  (phase > SLOW_SPACING)[clear])


# ---------------------------------------------------------------------------------------------
# 1b. Legitimate bursts in a long run: a sled swinging slowly into a bed of contact pads

SLED_M, SLED_K = 1e4, 2.5e-6          # kg, N/m: omega0 = sqrt(K / M) = 1.58e-5 rad/s, 4.0e5 s
SLED_A = 80.0                         # m: released at rest at x = A
PADS, PAD_STEP = 50, 20e-9            # pad i touches for x < -i PAD_STEP (i = 0 .. 49)
PAD_C = 3.0 * SLED_K / PADS           # N/m each: the whole bed is 3 times the suspension
PAD_S = -PAD_STEP * np.arange(PADS)


def sled_on_a_bed():
    m = mbd.Model("sled_and_bed")
    ground = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    sled = m.add_body("sled", mass=SLED_M, cg=(0, 0, 0), inertia=[1.0, 1.0, 1.0])
    rail = m.add(Prismatic("rail", ground, sled["cg"], axis=(1, 0, 0), q0=SLED_A))
    m.add(JointForce("suspension", rail, Spring(c=SLED_K)))
    for i, s in enumerate(PAD_S):
        m.add(JointForce(f"pad{i:02d}", rail, ElastoGap(c=PAD_C, d=0.0, s_rel0=s)))
    return m.build()


def sled_closed_form(t_end):
    """The sled's exact motion, piece by piece, and its contact switches.

    With j pads in contact (x between the thresholds s_j and s_(j-1)) the force on the sled is
    -K x + c sum_(i<j) (s_i - x) = -K_j (x - e_j), K_j = K + j c, e_j = c sum_(i<j) s_i / K_j:
    a harmonic oscillator of omega_j = sqrt(K_j / M) about e_j. From (x, v) it moves as
    x - e_j = R cos(omega_j tau - phi), R = hypot(x - e_j, v / omega_j),
    phi = atan2(v / omega_j, x - e_j), and reaches a level L moving down (x' < 0, so
    sin(omega_j tau - phi) > 0) at omega_j tau = phi + arccos((L - e_j) / R) (mod 2 pi), moving
    up at phi - arccos((L - e_j) / R) (mod 2 pi); the earlier of the region's two edges ends
    the piece. Returns ([(t, pad, begins)], pieces [(t_a, t_b, x, v, e, omega)])."""
    t, x, v, j = 0.0, SLED_A, 0.0, 0
    switches, pieces = [], []
    while True:
        K = SLED_K + j * PAD_C
        e = PAD_C * PAD_S[:j].sum() / K
        w = math.sqrt(K / SLED_M)
        R = math.hypot(x - e, v / w)
        phi = math.atan2(v / w, x - e)
        ends = []
        if j < PADS and abs(PAD_S[j] - e) <= R:               # down through pad j's edge
            ends.append((np.mod(phi + math.acos((PAD_S[j] - e) / R), 2 * np.pi) / w, j + 1))
        if j > 0 and abs(PAD_S[j - 1] - e) <= R:              # up through pad j-1's edge
            ends.append((np.mod(phi - math.acos((PAD_S[j - 1] - e) / R), 2 * np.pi) / w, j - 1))
        tau, j_next = min(ends)
        pieces.append((t, t + tau, x, v, e, w))
        if t + tau > t_end:
            return switches, pieces
        x, v = (PAD_S[j] if j_next > j else PAD_S[j - 1]), -R * w * math.sin(w * tau - phi)
        t += tau
        switches.append((t, min(j, j_next), j_next > j))
        j = j_next


def sled_position(pieces, t):
    for ta, tb, x, v, e, w in pieces:
        if ta <= t <= tb:
            s = t - ta
            return e + (x - e) * math.cos(w * s) + v / w * math.sin(w * s)
    raise ValueError(t)


def test_bursts_of_legitimate_switches_in_a_long_run_are_not_chattering():
    """A 10 t sled on a soft suspension (K = 2.5e-6 N/m: omega0 = 1.58e-5 rad/s, a free period
    of 3.97e5 s), released at rest 80 m out, swings through x = 0 at A omega0 = 1.26 mm/s and
    presses into a bed of 50 contact pads (ElastoGap, d = 0) whose free heights are spread by
    20 nm each (pad i touches for x < -20 i nm): a contact begins every 20 nm / 1.26 mm/s =
    16 us, the 50 of a burst within 49 x 16 us = 0.77 ms, and ends in the same way on the way
    back. The rule "50 switches within 1e-9 x (t_end - t0)" (1 ms for this 1e6 s run) would
    call that chattering, although every switch is a different pad switching once, the sled
    advancing 20 nm (2e4 times the integration tolerance) between two of them, and a pad's
    next switch ~1e5 s later. The run completes, and its contact events are the closed form's
    (sled_closed_form: piecewise-harmonic, K_j = K + j c about e_j): the same pads in the same
    order, each at its time t to 10 rtol t (the phase error of a tolerance-controlled
    integration grows as rtol times the time run: measured 0.75 to 1.2 rtol t on the last
    burst, 8.4e-7 s at t = 9.9e5 s, with rtol and atol +-10 %; the bound is 1e-5 s there,
    still below the 16 us between two pads), each event row on its pad's edge x = s_i (to
    1e-11 m, 1/2000 of the spread), and the sled's position on every row (to 1e-8 m)."""
    switches, pieces = sled_closed_form(LONG_T_END)
    begins = np.array([t for t, _, b in switches if b])
    # the premise: 50 consecutive switches within 1e-9 of the run, each pad switching sparsely
    assert begins[PADS - 1] - begins[0] < 1e-9 * LONG_T_END
    for i in range(PADS):
        own = [t for t, p, _ in switches if p == i]
        assert len(own) == 7 and np.min(np.diff(own)) > 5e4
    assert len(switches) == 7 * PADS

    r = sled_on_a_bed().simulate(LONG_T_END, output_step=1e3, rtol=1e-12, atol=1e-12)
    assert r.t[-1] == LONG_T_END
    contact = [e for e in r.events if e.what.startswith("contact")]
    expected = [(f"pad{p:02d}", "contact begins" if b else "contact ends") for _, p, b in switches]
    assert [(e.element, e.what) for e in contact] == expected
    exact = np.array([t for t, _, _ in switches])
    assert np.all(np.abs(np.array([e.t for e in contact]) - exact)
                  <= 10.0 * r.stats["rtol"] * exact)
    # any other switch a pad logs (its damping clamp, which with d = 0 flips with the contact)
    # is at one of that pad's contact times
    times = {}
    for e in contact:
        times.setdefault(e.element, []).append(e.t)
    for e in r.events:
        assert np.min(np.abs(np.array(times[e.element]) - e.t)) < 1e-9, e
    x = r.joint("rail").q
    for e, (_, p, _) in zip(contact, switches):
        assert abs(x[np.flatnonzero(r.t == e.t)[0]] - PAD_S[p]) < 1e-11, e
    exact = np.array([sled_position(pieces, t) for t in r.t])
    assert np.max(np.abs(x - exact)) < 1e-8


# ---------------------------------------------------------------------------------------------
# 2. A BodySpringDamper whose B point passes through its anchor

BSD_M, BSD_K, BSD_R0 = 2.0, 8.0, 0.5      # kg, N/m, m: omega = sqrt(k / m) = 2 rad/s
BSD_X0, BSD_V0 = 1.0, -1.5                # m, m/s: towards the anchor at x = 0
BSD_T_END = 6.0


def bsd_closed_form():
    """(passage times, x(t)) of a mass on a line through the anchor, pulled by
    F_B = -k (|r| - r0) u, u = r / |r|, b = 0.

    For x > 0, u = +e_x and F_x = -k (x - r0): a harmonic oscillator of omega = sqrt(k / m)
    about +r0. For x < 0, u = -e_x and F_x = -k (|x| - r0)(-1) = k (-x - r0) = -k (x + r0): one
    about -r0. From (x0, v0) = (1, -1.5): x = r0 + R cos(omega t - phi), R = hypot(x0 - r0,
    v0 / omega), phi = atan2(v0 / omega, x0 - r0), reaching x = 0 moving down at
    omega t1 = phi + arccos(-r0 / R); there v1 = -omega R sin(omega t1 - phi), and energy says
    v1^2 = v0^2 + omega^2 ((x0 - r0)^2 - r0^2) = v0^2 (|x0 - r0| = r0 here: 1.5 m/s). From
    x = 0 with speed |v1| into a well about c = -+r0: x = c (1 - cos omega s) + (v1 / omega) sin
    omega s returns to 0 when tan(omega s / 2) = v1 / (omega c), i.e. after
    tau = 2 (pi - atan(|v1| / (omega r0))) / omega, the same in both wells (the potential
    k (|x| - r0)^2 / 2 is even): passages at t1 + n tau, each with speed |v1|, alternately
    down and up."""
    w = math.sqrt(BSD_K / BSD_M)
    R = math.hypot(BSD_X0 - BSD_R0, BSD_V0 / w)
    phi = math.atan2(BSD_V0 / w, BSD_X0 - BSD_R0)
    t1 = (phi + math.acos(-BSD_R0 / R)) / w
    v1 = -w * R * math.sin(w * t1 - phi)
    tau = 2 * (math.pi - math.atan(abs(v1) / (w * BSD_R0))) / w
    passages = t1 + tau * np.arange(int((BSD_T_END - t1) // tau) + 1)

    def x(t):
        if t <= t1:
            return BSD_R0 + (BSD_X0 - BSD_R0) * math.cos(w * t) + BSD_V0 / w * math.sin(w * t)
        n = int((t - t1) // tau)
        s = t - t1 - n * tau
        c = -BSD_R0 if n % 2 == 0 else BSD_R0      # the first well entered is x < 0
        v = -abs(v1) if n % 2 == 0 else abs(v1)
        return c * (1 - math.cos(w * s)) + v / w * math.sin(w * s)

    return t1, v1, passages, x


def test_body_spring_damper_through_its_anchor_logs_the_reversal():
    """A 2 kg slider on a prismatic joint along x, a BodySpringDamper (k = 8 N/m, b = 0,
    r0 = 0.5 m) from a ground CS at x = 0 to the slider, started at x = 1 m moving at -1.5 m/s.
    It passes through the anchor at t1 = 0.588 s (bsd_closed_form), where u = r/|r| turns from
    +e_x to -e_x and the force jumps from +k r0 to -k r0: the engine logs an event of 'strap'
    there (to 1e-9 s, its text about the anchor or the direction), with a row at it on the
    anchor, and one at every later passage (every tau = 2.159 s: 3 in 6 s), none elsewhere.
    The motion follows the closed form on both sides (to 1e-7 m), the oscillator about +r0
    before the passage and the one about -r0 after it, and the force is the law's for the
    side the slider is on: F_x = -k (x - r0) for x > 0, -k (x + r0) for x < 0."""
    t1, v1, passages, x_exact = bsd_closed_form()
    assert abs(abs(v1) - abs(BSD_V0)) < 1e-12 and len(passages) == 3 and 0.58 < t1 < 0.6
    m = mbd.Model("through_the_anchor")
    anchor = m.add_ground("anchor", environment=mbd.Environment(gravity=(0, 0, 0)))
    slider = m.add_body("slider", mass=BSD_M, cg=(0, 0, 0), inertia=[1.0, 1.0, 1.0])
    m.add(Prismatic("rail", anchor, slider["cg"], axis=(1, 0, 0), q0=BSD_X0, v0=BSD_V0))
    m.add(BodySpringDamper("strap", anchor, slider["cg"], k=BSD_K, b=0.0, r0=BSD_R0))
    r = m.build().simulate(BSD_T_END, output_step=0.01, rtol=1e-10, atol=1e-12)

    assert r.t[-1] == BSD_T_END
    x = r.joint("rail").q
    np.testing.assert_allclose(x, [x_exact(t) for t in r.t], rtol=0, atol=1e-7)
    force = r.force("strap").value
    side = np.abs(x) > 1e-6
    np.testing.assert_allclose(force[side, 0], (-BSD_K * (x - np.sign(x) * BSD_R0))[side],
                               rtol=0, atol=1e-9)

    strap = [e for e in r.events if e.element == "strap"]
    near_first = [e for e in strap if abs(e.t - t1) < 1e-3]
    assert len(near_first) == 1, (f"events of 'strap' within 1 ms of the passage through the "
                                  f"anchor at t1 = {t1:.12g} s: {near_first}; "
                                  f"all events: {r.events}")
    assert abs(near_first[0].t - t1) < 1e-9
    assert len(strap) == len(passages)
    for e, tp in zip(strap, passages):
        assert abs(e.t - tp) < 1e-9, (e, tp)
        assert e.element == "strap"
        assert isinstance(e.what, str) and re.search(r"anchor|direction", e.what, re.I), e
        i = np.flatnonzero(r.t == e.t)
        assert len(i) == 1 and abs(x[i[0]]) < 1e-9, e


# ---------------------------------------------------------------------------------------------
# 3. A four-bar driven from its rocker into the dead centre

ROCKER_RATE = 0.2       # rad/s: the rocker's prescribed angle j4 = 0.2 t


def fourbar_dead_centre():
    """(psi_max, theta_dc): the rocker angle j4 and crank angle j1 of the test_loops four-bar
    (crank A-B 1, coupler B-C 4.717, rocker C-D 3.5, ground A-D 4, all hinges about +y, in the
    xz-plane) where crank and coupler are folded onto one line.

    A rotation by phi about +y carries +z towards +x; the rocker's line D->C is +z in the
    drawing, so at rocker angle psi (j4 = -phi_rocker: j4 is g2 relative to the rocker),
    C = D + L3 (sin(-psi), cos(-psi)). Turning j4 positive swings C towards A, so |AC| shrinks
    from its drawing value |(4, 3.5)| = 5.32 to the folded length L2 - L1 = 3.72, where the
    rocker cannot go on (the other limit, L1 + L2, lies the other way): with DA = -e_x,
    cos(angle ADC) = (AD^2 + L3^2 - (L2 - L1)^2) / (2 AD L3) and angle ADC = pi/2 - psi. There
    B lies on the line through A and C, on the far side from C: B = A - L1 (C - A)/|C - A|,
    and the crank angle is atan2(B_x, B_z) - atan2(B0_x, B0_z)."""
    A, B, C, D = (p[[0, 2]] for p in (A4, B4, C4, D4))
    L1, L2, L3 = (np.linalg.norm(q - p) for p, q in ((A, B), (B, C), (C, D)))
    AD = np.linalg.norm(D - A)
    psi_max = np.pi / 2 - math.acos((AD ** 2 + L3 ** 2 - (L2 - L1) ** 2) / (2 * AD * L3))
    C_dc = D + L3 * np.array([math.sin(-psi_max), math.cos(-psi_max)])
    assert abs(np.linalg.norm(C_dc - A) - (L2 - L1)) < 1e-12
    B_dc = A - L1 * (C_dc - A) / np.linalg.norm(C_dc - A)
    theta_dc = math.atan2(B_dc[0], B_dc[1]) - math.atan2(B[0] - A[0], B[1] - A[1])
    return psi_max, theta_dc, (A, B, C, D, L1, L2, L3)


def crank_angle(psi, geometry):
    """The crank angle j1 for rocker angle psi on the drawing's branch: B is where the circles
    |B - A| = L1 and |C - B| = L2 meet, on the side of the line A->C where the drawing's B is
    ((C - A) x (B - A) > 0: 4 * 1 - 3.5 * 0 = 4 in the drawing)."""
    A, B0, _, D, L1, L2, L3 = geometry
    C = D + L3 * np.array([math.sin(-psi), math.cos(-psi)])
    d = C - A
    r = np.linalg.norm(d)
    u = d / r
    n = np.array([-u[1], u[0]])          # (C - A) x n = r > 0
    along = (L1 ** 2 - L2 ** 2 + r ** 2) / (2 * r)
    B = A + along * u + math.sqrt(max(L1 ** 2 - along ** 2, 0.0)) * n
    return math.atan2(B[0], B[1]) - math.atan2(B0[0] - A[0], B0[1] - A[1])


def test_fourbar_driven_into_its_dead_centre_stops_with_the_singular_configuration():
    """The test_loops crank-rocker four-bar with its rocker prescribed (MotionDriver on j4,
    j4 = 0.2 t) and the crank free: a mechanism driven from the rocker side. The rocker's limit
    psi_max = 0.5416 rad (fourbar_dead_centre: law of cosines with |AC| = L2 - L1) is reached
    at t* = psi_max / 0.2 = 2.708 s, with the crank at theta_dc = -2.510 rad, folded onto the
    coupler. There d j4 / d j1 = 0: the closures and the driver lose rank (the crank's rate
    j4' / (d j4 / d j1) grows without bound), and no configuration exists beyond. The run
    (t_end = 5 s, well past t*) stops with "singular configuration", naming the loop's joints,
    at t* (not later, and not more than 1e-4 s earlier); its rows follow the closed-form crank
    angle (to 1e-8 rad up to 0.1 s before t*), and the last one (within 1.5 output steps,
    1.5e-4 s, of the stop) is within 0.05 rad of the dead centre in both angles: near it
    j4 = psi_max - kappa (j1 - theta_dc)^2 / 2 with kappa = 0.244 (the curvature of the
    closed form), so 2.5e-4 s of driving, 5e-5 rad of rocker, moves the crank by at most
    sqrt(2 x 5e-5 / 0.244) = 0.02 rad.

    (Driven by a torque instead, an Actuator on j4, the same four-bar passes through this
    dead centre without any singularity: the closure rows keep their rank there, only the
    rocker-to-crank transmission vanishes, and the crank's inertia carries it through.)"""
    psi_max, theta_dc, geometry = fourbar_dead_centre()
    t_star = psi_max / ROCKER_RATE
    # the mechanism does reach it: the drawing (psi = 0, theta = 0) is on the branch that ends
    # there, and t* is within the run
    assert abs(crank_angle(0.0, geometry)) < 1e-12
    assert abs(crank_angle(psi_max, geometry) - theta_dc) < 1e-6
    assert 0.5 < psi_max < 0.6 and -2.6 < theta_dc < -2.4 and t_star < 5.0 - 2.0

    def drive(joints):
        return mbd.MotionDriver("rocker_drive", joints["j4"], position=lambda t: ROCKER_RATE * t,
                                velocity=lambda t: ROCKER_RATE, acceleration=lambda t: 0.0)

    system = fourbar(forces=[drive])
    with pytest.raises(mbd.SimulationError, match="singular configuration") as info:
        system.simulate(5.0, output_step=1e-4, rtol=1e-10, atol=1e-10)
    err = info.value
    message = str(err)
    assert all(f"'{j}'" in message for j in ("j1", "j2", "j3", "j4")), message
    assert err.t > 0.0 and t_star - 1e-4 < err.t <= t_star + 1e-9, (err.t, t_star)
    r = err.result
    assert isinstance(r, mbd.Result) and err.t - 1.5e-4 < r.t[-1] <= err.t, (r.t[-1], err.t)
    theta, psi = r.joint("j1").q, r.joint("j4").q
    np.testing.assert_allclose(psi, ROCKER_RATE * r.t, rtol=0, atol=1e-8)
    early = r.t < t_star - 0.1
    np.testing.assert_allclose(theta[early], [crank_angle(p, geometry) for p in psi[early]],
                               rtol=0, atol=1e-8)
    assert abs(theta[-1] - theta_dc) < 0.05, (theta[-1], theta_dc)
    assert abs(psi[-1] - psi_max) < 0.05
