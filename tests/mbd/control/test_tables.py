"""Lookup tables (SPEC §9): the one compiled formula against scipy's interpolators, a table as
a function of time (a K(t), an actuator's value), of a sensor (Lookup) and as a force law (a
rubber stop) against solve_ivp of the same curve through scipy, and bad tables named."""
import numpy as np
import pytest
from scipy.integrate import quad, solve_ivp
from scipy.interpolate import CubicSpline, PchipInterpolator

import mbd
from forces import Actuator, JointForce, TableForce, VariableRotationalSpring
from joints import Prismatic, Revolute

#: a rubber stop's measured force (N) against its compression (m): progressive
X = np.array([0.0, 0.002, 0.005, 0.01, 0.015, 0.02])
F = np.array([0.0, 8.0, 30.0, 110.0, 300.0, 700.0])


@pytest.mark.parametrize("kind, reference", [
    ("linear", lambda x, y: (lambda u: np.interp(u, x, y))),
    ("pchip", PchipInterpolator), ("cubic", CubicSpline)])
def test_the_table_formula_is_scipys_interpolant(kind, reference):
    """Inside the breakpoints the values equal scipy's (3e-13 N of 700 N measured), the
    integral equals quad's; past them the extrapolation asked for."""
    ref = reference(X, F)
    u = np.linspace(0.0, 0.02, 1001)
    table = mbd.Table(X, F, kind=kind)
    np.testing.assert_allclose(table(u), ref(u), rtol=0, atol=1e-11)
    want = quad(lambda s: float(ref(s)), 0.0, 0.013, points=X, epsabs=1e-14)[0]
    assert table.integral(0.013) == pytest.approx(want, rel=1e-12)
    assert table(-1.0) == F[0] and table(1.0) == F[-1]                  # hold
    slope = mbd.Table(X, F, kind=kind, extrapolate="linear")
    end = (F[-1] - F[-2]) / (X[-1] - X[-2]) if kind == "linear" else float(ref(X[-1], 1))
    assert slope(0.03) == pytest.approx(F[-1] + end * 0.01, rel=1e-12)
    wave = mbd.Table([0.0, 1.0, 2.0], [0.0, 1.0, 0.0], extrapolate="periodic")
    assert wave(2.5) == pytest.approx(0.5) and wave(-0.5) == pytest.approx(0.5)


def test_a_table_force_law_is_a_rubber_stop():
    """A 1 kg block on a vertical slider dropped on the stop (TableForce, pchip): the run
    equals solve_ivp of m x'' = m g - stop(x) with scipy's PchipInterpolator to 1e-8 m; the
    element's energy is the curve's integral (its derivative is minus the force: 2e-8 N
    measured by central differences, 1e-6 N asked), and with no damping the total energy
    stays to 1e-7 of itself (3.4e-8 measured at rtol 1e-11: the curve's second derivative
    jumps at every breakpoint, where the steps' local error is largest)."""
    m, g, x0 = 1.0, 9.81, 0.01
    model = mbd.Model("stop")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -g)))
    block = model.add_body("block", mass=m, cg=(0, 0, 0), inertia=np.eye(3) * 1e-3)
    slide = model.add(Prismatic("drop", ground, block["cg"], axis=(0, 0, -1), q0=-x0))
    # the stop acts on the compression c = x (x > 0 down the slider's axis, from the contact)
    stop = mbd.Table(X, F, kind="pchip", extrapolate="linear")
    law = TableForce(stop)
    model.add(JointForce("stop", slide, law))
    xs, h = np.linspace(-0.005, 0.025, 61), 1e-7
    row = np.tile(law.parameters(), (len(xs), 1))
    slope = (law.energy(xs + h, row) - law.energy(xs - h, row)) / (2 * h)
    np.testing.assert_allclose(slope, [-law(x) for x in xs], atol=1e-6)
    system = model.build()
    result = system.simulate(0.5, output_step=0.005, rtol=1e-11, atol=1e-12)
    ref_curve = PchipInterpolator(X, F, extrapolate=False)

    def curve(x):
        if x < 0.0:       # linear extrapolation below: the first slope
            return F[0] + float(ref_curve(X[0], 1)) * x
        if x > X[-1]:
            return F[-1] + float(ref_curve(X[-1], 1)) * (x - X[-1])
        return float(ref_curve(x))

    def f(t, z):
        return [z[1], g - curve(z[0]) / m]
    ref = solve_ivp(f, (0, 0.5), [-x0, 0.0], t_eval=result.t, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(result.joint("drop").q, ref.y[0], atol=1e-8)
    energy = result.energy()
    assert np.ptp(energy) < 1e-7 * np.abs(energy).max()


def test_tables_of_time_and_of_a_sensor():
    """K(t) from a Table (run compiled) equals the same K given as a Python function (scipy's
    stepper, the same DOP853 steps) to 1e-10 rad (4e-12 measured); so does an Actuator's
    value from a Table of time; a Lookup of a sensor (a table of the angle) acts as the
    function it tabulates where that function is linear (a torsion spring)."""
    def pendulum(k_law=None, torque=None, lookup=None):
        model = mbd.Model("p")
        g = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
        b = model.add_body("arm", mass=1.0, cg=(0.5, 0, 0), inertia=np.diag([1e-3, .02, .02]),
                           cs={"pivot": (0, 0, 0)})
        hinge = model.add(Revolute("hinge", g, b["pivot"], axis=(0, 1, 0), q0=0.2))
        if k_law is not None:
            model.add(JointForce("spring", hinge, VariableRotationalSpring(K=k_law, K_min=0.5)))
        if torque is not None:
            model.add(JointForce("motor", hinge, Actuator(torque)))
        if lookup is not None:
            model.add(mbd.Sensor("angle", "hinge.q"))
            law = model.add(mbd.Lookup("k", lookup, "angle"))
            model.add(JointForce("spring", hinge, Actuator(law)))
        return model.build().simulate(1.0, output_step=0.01, rtol=1e-10, atol=1e-12)

    times, ks = [0.0, 0.5, 1.0], [2.0, 8.0, 4.0]
    a = pendulum(k_law=mbd.Table(times, ks))
    b = pendulum(k_law=lambda t: float(np.interp(t, times, ks)))
    assert (a.stats["stepper"], b.stats["stepper"]) == ("compiled", "scipy")
    np.testing.assert_allclose(a.joint("hinge").q, b.joint("hinge").q, atol=1e-10)
    c = pendulum(torque=mbd.Table(times, [0.0, 1.0, 1.0]))
    d = pendulum(torque=lambda t: float(np.interp(t, times, [0.0, 1.0, 1.0])))
    np.testing.assert_allclose(c.joint("hinge").q, d.joint("hinge").q, atol=1e-10)
    k = 3.0                     # a torsion spring -k q as a table of the angle
    e = pendulum(lookup=mbd.Table([-1.0, 1.0], [k, -k], extrapolate="linear"))
    from forces import Spring
    model = mbd.Model("p")
    g = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    bb = model.add_body("arm", mass=1.0, cg=(0.5, 0, 0), inertia=np.diag([1e-3, .02, .02]),
                        cs={"pivot": (0, 0, 0)})
    hinge = model.add(Revolute("hinge", g, bb["pivot"], axis=(0, 1, 0), q0=0.2))
    model.add(JointForce("spring", hinge, Spring(c=k)))
    f = model.build().simulate(1.0, output_step=0.01, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(e.joint("hinge").q, f.joint("hinge").q, atol=1e-8)


def test_bad_tables_are_named():
    with pytest.raises(ValueError, match=r"Table 'curve': the breakpoints must increase "
                                         r"strictly, got x\[1\] = 1.0 then x\[2\] = 1.0"):
        mbd.Table([0.0, 1.0, 1.0], [0, 1, 2], name="curve")
    with pytest.raises(ValueError, match="same length, 2 to 32, got 3 and 2"):
        mbd.Table([0, 1, 2], [0, 1])
    with pytest.raises(ValueError, match="kind must be one of"):
        mbd.Table([0, 1], [0, 1], kind="spline")
    with pytest.raises(ValueError, match="periodic table must end where it begins"):
        mbd.Table([0, 1], [0, 1], extrapolate="periodic")
    with pytest.raises(ValueError, match=r"3.0 is outside its breakpoints \[0.0, 1.0\]"):
        mbd.Table([0, 1], [0, 1], extrapolate="error")(3.0)
    with pytest.raises(ValueError, match="extrapolation must be 'hold' or 'linear'"):
        TableForce(mbd.Table([0, 1], [0, 0], extrapolate="periodic"))
    with pytest.raises(ValueError, match="must be finite"):
        mbd.Table([0, np.nan], [0, 1])
