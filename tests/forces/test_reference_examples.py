"""SPEC §5 reference examples with force elements, built in 3-D.

The Modelica ``Translational.Examples.ElastoGap`` (masses on prismatic joints; springs and gaps
as joint or axial force elements) and ``Rotational.Examples.Backlash`` (inertias on revolute
joints) against the Dymola reference values of SPEC §5, and against independent solutions:
closed forms for the linear chains, and for the gap chain an event-driven solution that is
exact piece by piece (each branch of the gaps is a linear ODE, solved with a matrix
exponential; switch times by root finding on it). Also the work-precision claim of exact
switching: fewer right-hand-side evaluations for the same accuracy.
"""
import numpy as np
import pytest
from scipy.linalg import expm
from scipy.optimize import brentq

import mbd
from forces import AxialForce, ElastoBacklash, ElastoGap, JointForce, RotationalForce, SpringDamper
from joints import Prismatic, Revolute

#: these tests assert accuracy bounds (closed forms, reference values, balances): run again
#: on a perturbed problem under --perturb (tests/perturb.py)
pytestmark = pytest.mark.accuracy

# ---------------------------------------------------------------------------------------------
# ElastoGap (SPEC §5)

C, D, GAP0 = 10.0, 1.5, 1.5       # both springs and gaps: c, d; the gaps' s_rel0

#: Dymola: t -> (elastoGap1.v_rel = v2, elastoGap2.s_rel = 2 - s2, springDamper1.v_rel = v1,
#: springDamper2.s_rel = 2 - s1)
DYMOLA_GAP = {
    1.0: (-2.906790142027837, 2.9059535360274409, 1.8598327011289773, 2.3531746647959073),
    3.0: (-0.66882353333435285, 1.0610685640199591, -0.007676535626505377, 1.9772645295423064),
    5.0: (0.53752970968098934, 2.7078870235576407, -0.0041932374877375706, 2.0003503785615258),
}
DYMOLA_SWITCHES = (0.58337276, 0.87516038, 1.89620449, 2.40406921, 3.42511093, 4.30905899)

GAP_VARIANTS = ("axial", "joint_forward", "joint_reversed")


def elastogap_model(variant="axial"):
    """The ElastoGap example in 3-D: mass1 (upper chain) on the x axis, mass2 (lower chain) on
    the line z = 1, each on a prismatic joint along x; fixed points at x = -2 and +2.

    ``variant`` says how the four 1-D elements are placed:

    - "axial": every element an AxialForce between a ground CS at -2 / +2 and the mass, so
      x is Modelica's s_rel itself (x = s + 2 from the left, x = 2 - s to the right);
    - "joint_forward": the two springs and gap1 as JointForces on the masses' prismatic
      coordinates s (x = s), gap2 as an AxialForce;
    - "joint_reversed": the springs as JointForces on s1; mass2 hangs from a *reversed*
      prismatic joint (base CS on mass2, follower a ground CS), whose coordinate is the ground
      relative to the mass, u = -s2; gap2 is a JointForce on u, gap1 an AxialForce.

    Translating the laws to a joint coordinate: springDamper1 (from -2 to mass1) has
    s_rel = s1 + 2, so on x = s1 its unstretched length becomes 1 - 2 = -1. springDamper2
    (from mass1 to +2) has s_rel = 2 - s1: the force it puts on mass1 is
    -c (s1 - 1) - d v1, a linear spring on s1 about +1 (a linear law is odd about x0, so the
    reflected coordinate only moves x0). A gap is one-sided (contact while x < s_rel0), so
    gap2 (s_rel = 2 - s2) cannot be written on s2; on u = -s2 its s_rel = 2 + u, so
    s_rel0 = 1.5 - 2 = -0.5, and the law's force acts on the follower (the fixed point at +2)
    with its reaction on mass2, exactly as Modelica's flange_b / flange_a. gap1 on s2 is
    likewise ElastoGap(s_rel0 = -0.5). Each mass has one joint, so one gap per variant stays
    axial; the two joint variants between them put each gap on a joint once.
    """
    m = mbd.Model(f"elastogap_{variant}")
    env = mbd.Environment(gravity=(0, 0, 0))
    o1 = m.add_ground("o1", at=(0, 0, 0), environment=env)
    o2 = m.add_ground("o2", at=(0, 0, 1), environment=env)
    left1, right1 = m.add_ground("left1", at=(-2, 0, 0)), m.add_ground("right1", at=(2, 0, 0))
    left2, right2 = m.add_ground("left2", at=(-2, 0, 1)), m.add_ground("right2", at=(2, 0, 1))
    mass1 = m.add_body("mass1", mass=1.0, cg=(0, 0, 0), inertia=[1.0, 1.0, 1.0])
    mass2 = m.add_body("mass2", mass=1.0, cg=(0, 0, 1), inertia=[1.0, 1.0, 1.0])
    s1 = m.add(Prismatic("s1", o1, mass1["cg"], axis=(1, 0, 0), q0=2.0))
    x_axis = (1, 0, 0)
    if variant == "axial":
        m.add(Prismatic("s2", o2, mass2["cg"], axis=(1, 0, 0), q0=2.0))
        m.add(AxialForce("springDamper1", left1, mass1["cg"], SpringDamper(C, D, x0=1.0),
                         axis=x_axis))
        m.add(AxialForce("springDamper2", mass1["cg"], right1, SpringDamper(C, D, x0=1.0),
                         axis=x_axis))
        m.add(AxialForce("elastoGap1", left2, mass2["cg"], ElastoGap(C, D, s_rel0=GAP0),
                         axis=x_axis))
        m.add(AxialForce("elastoGap2", mass2["cg"], right2, ElastoGap(C, D, s_rel0=GAP0),
                         axis=x_axis))
        return m
    m.add(JointForce("springDamper1", s1, SpringDamper(C, D, x0=1.0 - 2.0)))
    m.add(JointForce("springDamper2", s1, SpringDamper(C, D, x0=2.0 - 1.0)))
    if variant == "joint_forward":
        s2 = m.add(Prismatic("s2", o2, mass2["cg"], axis=(1, 0, 0), q0=2.0))
        m.add(JointForce("elastoGap1", s2, ElastoGap(C, D, s_rel0=GAP0 - 2.0)))
        m.add(AxialForce("elastoGap2", mass2["cg"], right2, ElastoGap(C, D, s_rel0=GAP0),
                         axis=x_axis))
    elif variant == "joint_reversed":
        u = m.add(Prismatic("s2", mass2["cg"], o2, axis=(1, 0, 0), q0=-2.0))
        m.add(AxialForce("elastoGap1", left2, mass2["cg"], ElastoGap(C, D, s_rel0=GAP0),
                         axis=x_axis))
        m.add(JointForce("elastoGap2", u, ElastoGap(C, D, s_rel0=GAP0 - 2.0)))
    else:
        raise ValueError(variant)
    return m


def mass_motion(result):
    """World x position and velocity of both masses: (x1, v1, x2, v2), each (n,)."""
    out = []
    for name in ("mass1", "mass2"):
        body = result.body(name)
        out += [body.position("cg")[:, 0], body.velocity("cg")[:, 0]]
    return tuple(out)


def row(result, t):
    """The index of the output row at time t (an exact multiple of the output step)."""
    hits = np.flatnonzero(np.abs(result.t - t) <= 1e-12 * max(1.0, abs(t)))
    assert len(hits) == 1, f"expected one row at t = {t}, found {result.t[hits]}"
    return hits[0]


def upper_chain_exact(t):
    """mass1: x'' = -2c x - 2d v (springDamper1 pulls with -c (x + 1) - d v, springDamper2
    with c (1 - x) - d v), x(0) = 2, v(0) = 0: (x, v) in closed form."""
    t = np.asarray(t, dtype=float)
    alpha, omega = D, np.sqrt(2 * C - D ** 2)        # 2d/2 = d for m = 1; 2c - d^2
    a, b = 2.0, 2.0 * alpha / omega
    decay = np.exp(-alpha * t)
    x = decay * (a * np.cos(omega * t) + b * np.sin(omega * t))
    v = -decay * (alpha * b + a * omega) * np.sin(omega * t)
    return x, v


# The lower chain, exactly. Modelica's ElastoGap (n = 1): contact while s_rel < s_rel0;
# f_c = c (s_rel - s_rel0) (< 0 in contact), f_d = clamp(d v_rel, f_c, -f_c), f = f_c + f_d.
# Its four branches: out of contact (f = 0), damping free (f = f_c + d v_rel), damping clamped
# at f_c (f = 2 f_c) and clamped at -f_c (f = 0, the gap never pulls). On each branch f is
# affine in (x2, v2), so the motion is exp(A t) applied to (x2, v2, 1).
OFF, FREE, LOW, HIGH = range(4)
_TERMS = {OFF: (0.0, 0.0), FREE: (C, D), LOW: (2 * C, 0.0), HIGH: (0.0, 0.0)}
#: the gaps: name, a with s_rel = a x2 + 2 and v_rel = a v2; the force on mass2 is -a f
#: (mass2 is gap1's flange_b, gap2's flange_a)
_GAPS = (("elastoGap1", 1.0), ("elastoGap2", -1.0))


def _lower_matrix(modes):
    A = np.zeros((3, 3))
    A[0, 1] = 1.0
    for (_, a), mode in zip(_GAPS, modes):
        cf, df = _TERMS[mode]
        # -a f = -a (cf (a x + 2 - s0) + df a v) = -cf x - df v - a cf (2 - s0)
        A[1, 0] -= cf
        A[1, 1] -= df
        A[1, 2] -= a * cf * (2.0 - GAP0)
    return A


def _exits(mode, a, y):
    """The ways out of ``mode`` at y = (x2, v2, 1): (phi, new mode, description), phi > 0
    while the branch holds (its zero is the switch)."""
    s, vr = a * y[0] + 2.0, a * y[1]
    fc = C * (s - GAP0)
    if mode == OFF:
        return [(s - GAP0, "enter", "contact begins")]
    out = [(GAP0 - s, OFF, "contact ends")]
    if mode == FREE:
        out += [(D * vr - fc, LOW, "damping clamped at the spring force"),
                (-(D * vr + fc), HIGH, "damping clamped: the gap never pulls")]
    elif mode == LOW:
        out += [(fc - D * vr, FREE, "damping below the spring force")]
    else:
        out += [(D * vr + fc, FREE, "damping no longer clamped")]
    return out


def lower_chain_exact(t_end, scan=1e-3):
    """mass2 from x2 = 2, v2 = 0 until ``t_end``: the switches [(t, gap, description)] and a
    function (t -> (x2, v2)), exact to round-off piece by piece."""
    t, y, modes = 0.0, np.array([2.0, 0.0, 1.0]), [OFF, FREE]   # gap2 starts compressed
    pieces, events = [], []
    while True:
        A = _lower_matrix(modes)
        pieces.append((t, y, A))
        step = expm(A * scan)
        hit, z, tau = None, y, 0.0
        while hit is None and t + tau < t_end:
            z_next = step @ z
            for g, (_, a) in enumerate(_GAPS):
                for k, (phi, new, what) in enumerate(_exits(modes[g], a, z_next)):
                    if phi <= 0.0:
                        def phi_at(s, g=g, k=k, a=a, y=y, A=A):
                            return _exits(modes[g], a, expm(A * s) @ y)[k][0]
                        # (the previous grid point may already sit on the zero)
                        root = tau if phi_at(tau) <= 0.0 else brentq(
                            phi_at, tau, tau + scan, xtol=1e-15, rtol=1e-15)
                        if hit is None or root < hit[0]:
                            hit = (root, g, new, what)
            z, tau = z_next, tau + scan
        if hit is None or t + hit[0] >= t_end:
            break
        tau, g, new, what = hit
        y = expm(A * tau) @ y
        t += tau
        if new == "enter":        # f_c = 0 at first touch: the clamp follows v_rel's sign
            vr = _GAPS[g][1] * y[1]
            new = LOW if vr < 0.0 else HIGH if vr > 0.0 else FREE
        modes[g] = new
        events.append((t, _GAPS[g][0], what))
    starts = np.array([p[0] for p in pieces])

    def state(tq):
        t0, y0, A0 = pieces[np.searchsorted(starts, tq, side="right") - 1]
        x, v, _ = expm(A0 * (tq - t0)) @ y0
        return x, v

    return events, state


@pytest.fixture(scope="module")
def lower_exact():
    return lower_chain_exact(5.0)


#: the reference runs go through the explicit and the implicit compiled loop (issue 16)
METHODS = ("DOP853", "Radau")


@pytest.fixture(scope="module", params=[(v, m) for v in GAP_VARIANTS for m in METHODS],
                ids=lambda p: f"{p[0]}-{p[1]}")
def gap_run(request):
    variant, method = request.param
    system = elastogap_model(variant).build()
    return system.simulate(5.0, output_step=0.25, rtol=1e-10, atol=1e-10, method=method)


def test_elastogap_matches_the_dymola_reference(gap_run):
    x1, v1, x2, v2 = mass_motion(gap_run)
    for t, expected in DYMOLA_GAP.items():
        i = row(gap_run, t)
        got = (v2[i], 2.0 - x2[i], v1[i], 2.0 - x1[i])
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-4, err_msg=f"t = {t}")


def test_elastogap_contact_switch_times_match_the_dymola_reference(gap_run):
    contact = [e for e in gap_run.events if e.what in ("contact begins", "contact ends")]
    np.testing.assert_allclose([e.t for e in contact], DYMOLA_SWITCHES, rtol=0, atol=1e-5)
    # mass2 starts pressed into gap2, then swings between the two gaps
    assert [(e.element, e.what) for e in contact] == [
        ("elastoGap2", "contact ends"), ("elastoGap1", "contact begins"),
        ("elastoGap1", "contact ends"), ("elastoGap2", "contact begins"),
        ("elastoGap2", "contact ends"), ("elastoGap1", "contact begins")]


def test_elastogap_matches_the_exact_solution_at_every_row(gap_run, lower_exact):
    events, state = lower_exact
    x1, v1, x2, v2 = mass_motion(gap_run)
    ex1, ev1 = upper_chain_exact(gap_run.t)
    np.testing.assert_allclose(x1, ex1, rtol=0, atol=1e-8)
    np.testing.assert_allclose(v1, ev1, rtol=0, atol=1e-8)
    # every row, the event rows included: the state there is the continuous solution's
    exact = np.array([state(t) for t in gap_run.t])
    np.testing.assert_allclose(x2, exact[:, 0], rtol=0, atol=1e-8)
    np.testing.assert_allclose(v2, exact[:, 1], rtol=0, atol=1e-8)


def test_elastogap_event_log_matches_the_exact_switches(gap_run, lower_exact):
    """Every switch, the damping clamps too: same gap, same description, same time."""
    events, _ = lower_exact
    assert len(events) == 12
    assert [(e.element, e.what) for e in gap_run.events] == [(g, w) for _, g, w in events]
    np.testing.assert_allclose([e.t for e in gap_run.events], [t for t, _, _ in events],
                               rtol=0, atol=1e-8)


def test_elastogap_force_values_follow_the_modelica_formula(gap_run):
    """result.force(name): x is Modelica's s_rel (axial) or the joint coordinate s_rel - 2,
    xdot is v_rel, and the value is -f at every row (the law is continuous, so event rows
    agree whichever branch they carry); the contact state is s_rel < s_rel0."""
    x1, v1, x2, v2 = mass_motion(gap_run)
    for name, s_rel, v_rel in (("elastoGap1", x2 + 2.0, v2), ("elastoGap2", 2.0 - x2, -v2)):
        contact = s_rel < GAP0
        fc = np.where(contact, C * (s_rel - GAP0), 0.0)
        fd = np.where(contact, np.clip(D * v_rel, fc, -fc), 0.0)
        view = gap_run.force(name)
        offset = 0.0 if isinstance(view.element, AxialForce) else 2.0
        np.testing.assert_allclose(view.x, s_rel - offset, rtol=0, atol=1e-12)
        np.testing.assert_allclose(view.xdot, v_rel, rtol=0, atol=1e-12)
        np.testing.assert_allclose(view.value, -(fc + fd), rtol=0, atol=1e-9)
        off_edge = np.abs(s_rel - GAP0) > 1e-9
        np.testing.assert_array_equal(view.state["contact"][off_edge], contact[off_edge])


# ---------------------------------------------------------------------------------------------
# Work and precision: exact switching against the plain ODE with kinks

def _max_error(result, lower_state):
    x1, v1, x2, v2 = mass_motion(result)
    err = 0.0
    for t in (1.0, 3.0, 5.0):
        i = row(result, t)
        ex1, ev1 = upper_chain_exact(t)
        ex2, ev2 = lower_state(t)
        err = max(err, abs(x1[i] - ex1), abs(v1[i] - ev1), abs(x2[i] - ex2), abs(v2[i] - ev2))
    return err


def test_exact_switching_needs_fewer_evaluations_for_the_same_accuracy(lower_exact, capsys):
    """For each mode, the cheapest run (over a sweep of tolerances) whose error at t = 1, 3, 5
    is below 1e-6 against the exact solution: exact switching needs fewer right-hand-side
    evaluations. Without it the steps straddle the kinks, where the embedded error estimate
    (which assumes a smooth solution) is wrong, so its error does not follow the tolerance."""
    _, state = lower_exact
    system = elastogap_model("axial").build()
    target = 1e-6
    cheapest = {}
    for exact in (True, False):
        for tol in 10.0 ** -np.arange(5.0, 11.01, 0.5):
            r = system.simulate(5.0, output_step=1.0, rtol=tol, atol=tol, exact_switching=exact)
            err = _max_error(r, state)
            if err < target and r.stats["nfev"] < cheapest.get(exact, (np.inf,))[0]:
                cheapest[exact] = (r.stats["nfev"], tol, err)
    assert set(cheapest) == {True, False}, f"target {target} not reached: {cheapest}"
    with capsys.disabled():
        for exact, (nfev, tol, err) in cheapest.items():
            print(f"\nElastoGap to {target:g}: exact_switching={exact}: nfev = {nfev} "
                  f"(rtol = atol = {tol:.2g}, max error {err:.2g})")
    assert cheapest[True][0] < cheapest[False][0]


# ---------------------------------------------------------------------------------------------
# Backlash (SPEC §5)

J, C_B, D_B, BACKLASH = 5.0, 20e3, 50.0, np.pi / 4

#: Dymola: t -> (elastoBacklash.phi_rel, .w_rel, springDamper.phi_rel, .w_rel)
DYMOLA_BACKLASH = {
    0.25: (0.58080749639408835, 30.080732501720004, -0.45131731086698079, 1.5386052237795997),
    0.5: (-0.30993973272313774, -17.228305123684279, 0.12929145333280387, -0.88020690422431891),
    1.0: (-0.15557036723690312, -7.0229304031262032, 0.010518034816392985,
          -0.14370331391695884),
}


def backlash_model(placement="joint"):
    """Two inertias J = 5 (about the joints' z axis) at phi = pi/2, at rest, each on a
    revolute joint to ground: one through ElastoBacklash(c = 20e3, d = 50, b = pi/4), one
    through SpringDamper(c = 20e3, d = 50). ``placement``: JointForce on the revolute
    coordinate ("joint") or RotationalForce, the twist about z of the inertia's CS relative
    to the ground ("rotational"; |phi| stays below pi)."""
    m = mbd.Model(f"backlash_{placement}")
    env = mbd.Environment(gravity=(0, 0, 0))
    laws = {"elastoBacklash": ElastoBacklash(c=C_B, d=D_B, b=BACKLASH),
            "springDamper": SpringDamper(c=C_B, d=D_B)}
    for k, (name, law) in enumerate(laws.items()):
        ground = m.add_ground(f"fixed{k}", at=(0, 0, k), environment=env)
        body = m.add_body(f"inertia{k}", mass=1.0, cg=(0, 0, k), inertia=[J, J, J])
        hinge = m.add(Revolute(f"hinge{k}", ground, body["cg"], axis=(0, 0, 1), q0=np.pi / 2))
        if placement == "joint":
            m.add(JointForce(name, hinge, law))
        else:
            m.add(RotationalForce(name, ground, body["cg"], law, axis=(0, 0, 1)))
    return m


@pytest.fixture(scope="module", params=[(p, m) for p in ("joint", "rotational")
                                        for m in METHODS], ids=lambda p: f"{p[0]}-{p[1]}")
def backlash_run(request):
    placement, method = request.param
    return backlash_model(placement).build().simulate(1.0, output_step=0.05, rtol=1e-10,
                                                      atol=1e-10, method=method)


def test_backlash_matches_the_dymola_reference(backlash_run):
    r = backlash_run
    for t, (phi_b, w_b, phi_s, w_s) in DYMOLA_BACKLASH.items():
        i = row(r, t)
        np.testing.assert_allclose([r.joint("hinge0").q[i], r.joint("hinge1").q[i]],
                                   [phi_b, phi_s], rtol=0, atol=1e-4, err_msg=f"t = {t}")
        np.testing.assert_allclose([r.joint("hinge0").v[i], r.joint("hinge1").v[i]],
                                   [w_b, w_s], rtol=0, atol=5e-3, err_msg=f"t = {t}")
        # the elements read the same angle and rate
        np.testing.assert_allclose(r.force("elastoBacklash").x[i], r.joint("hinge0").q[i],
                                   atol=1e-12)
        np.testing.assert_allclose(r.force("springDamper").xdot[i], r.joint("hinge1").v[i],
                                   atol=1e-9)


def test_backlash_spring_damper_chain_is_the_damped_oscillator(backlash_run):
    r = backlash_run
    alpha = D_B / (2 * J)
    omega = np.sqrt(C_B / J - alpha ** 2)
    a, b = np.pi / 2, alpha * np.pi / 2 / omega
    decay = np.exp(-alpha * r.t)
    phi = decay * (a * np.cos(omega * r.t) + b * np.sin(omega * r.t))
    w = -decay * (alpha * b + a * omega) * np.sin(omega * r.t)
    np.testing.assert_allclose(r.joint("hinge1").q, phi, rtol=0, atol=1e-8)
    np.testing.assert_allclose(r.joint("hinge1").v, w, rtol=0, atol=1e-6)


def test_backlash_contact_switches_sit_on_the_backlash_edges(backlash_run):
    """Every logged contact change happens at |phi| = b/2, and at it the torque is zero
    (the contact spring is relaxed there)."""
    r = backlash_run
    contact = [e for e in r.events if "contact begins" in e.what or "contact ends" in e.what]
    assert len(contact) >= 6
    assert all(e.element == "elastoBacklash" for e in contact)
    phi = r.joint("hinge0").q
    torque = r.force("elastoBacklash").value
    for e in contact:
        i = row(r, e.t)
        assert abs(abs(phi[i]) - BACKLASH / 2) < 1e-9, e
        assert abs(torque[i]) < 1e-5, e
