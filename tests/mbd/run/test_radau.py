"""The compiled Radau IIA loop (mbd.run.steppers.radau) against scipy's Radau stepped from Python.

Two implementations of the same method — scipy's ``Radau`` (Python, the reference) and the
compiled loop — given the same right-hand side (the compiled kernel of
:mod:`mbd.run.evaluator`) and the same Jacobian (the loop's own compiled finite
differences, handed to scipy as ``jac``), must take the same steps: the same number of steps,
Jacobian evaluations and LU factorizations, and step times and states equal up to round-off in the
order of operations (their LU and dot products are LAPACK's and BLAS's there, loops here).
scipy steps y = [q, v] alone, the loop y = [q, v, W] with the work accumulators W, which it
integrates but leaves out of its error norm and Newton test (mbd.run.settings): the same steps
then show that W steers none of them.

How close "up to round-off" is: the error estimate is a difference of O(1) quantities (the
stages' increments against h f) of the size of the tolerance, so one unit of round-off in
the stages moves the next step size by about eps / rtol. Measured on the double pendulum
below: the first step agrees to 4e-18, and scipy against itself with one initial entry moved
by 1 ulp differs by 3e-10 s in the step times and 3e-9 in the states after 212 steps; the
compiled loop against scipy, by 7e-10 s and 9e-9. The bounds below sit a decade above.

Also: a stiff system (eigenvalues -1 and -1e6) in a few dozen steps against its closed form,
the dense output, a loop with constraints (projection) and an event located on the loop's
dense output.
"""
import numpy as np
import pytest
import scipy.linalg
from numba import types
from scipy.integrate import Radau

import mbd
from forces import JointForce, SpringDamper
from joints import Prismatic, Revolute
from mbd.compiled import assembly, layout
from mbd.compiled.jit import native
from mbd.run import evaluator
from mbd.run.evaluator import Evaluator
from mbd.run.settings import Settings
from mbd.run.steppers import lu, radau, steplocate, stepping

#: these tests assert accuracy bounds (closed forms, reference values, balances): run again
#: on a perturbed problem under --perturb (tests/perturb.py)
pytestmark = pytest.mark.accuracy


def double_pendulum():
    """Two links on revolute joints, a torsion spring-damper at each (no switching): a smooth,
    non-linear motion."""
    m = mbd.Model("double_pendulum")
    ground = m.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, -9.81)))
    upper = m.add_body("upper", mass=1.0, cg=(0.5, 0.0, 0.0), inertia=np.diag([1e-3, 0.09, 0.09]),
                       cs={"pivot": (0.0, 0.0, 0.0), "tip": (1.0, 0.0, 0.0)})
    lower = m.add_body("lower", mass=0.5, cg=(1.5, 0.0, 0.0), inertia=np.diag([1e-3, 0.04, 0.04]),
                       cs={"pivot": (1.0, 0.0, 0.0)})
    h1 = m.add(Revolute("h1", ground, upper["pivot"], axis=(0, 1, 0), q0=0.4, v0=0.5))
    h2 = m.add(Revolute("h2", upper["tip"], lower["pivot"], axis=(0, 1, 0), q0=-0.3))
    m.add(JointForce("shoulder", h1, SpringDamper(c=20.0, d=0.1, x0=0.2)))
    m.add(JointForce("elbow", h2, SpringDamper(c=5.0, d=0.2)))
    return m.build()


#: the stiff oscillator: m x'' = -c x - d x' with roots -1 and -1e6 (c = 1e6, d = 1e6 + 1)
MASS, STIFF_C, STIFF_D = 1.0, 1e6, 1e6 + 1.0


def stiff_slider():
    """A 1 kg slider on a prismatic joint held by a very stiff, heavily damped spring: the
    eigenvalues -1 and -1e6, x(0) = 1, v(0) = 0."""
    m = mbd.Model("stiff_slider")
    ground = m.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, 0.0)))
    body = m.add_body("slider", mass=MASS, cg=(0.0, 0.0, 0.0), inertia=[1.0, 1.0, 1.0])
    s = m.add(Prismatic("s", ground, body["cg"], axis=(1, 0, 0), q0=1.0, v0=0.0))
    m.add(JointForce("spring", s, SpringDamper(c=STIFF_C, d=STIFF_D)))
    return m.build()


def stiff_exact(t):
    """(x, v) of the stiff slider: x = a e^-t + b e^-1e6t with x(0) = 1, v(0) = 0."""
    a = 1.0 / (1.0 - 1e-6)
    b = 1.0 - a
    return a * np.exp(-t) + b * np.exp(-1e6 * t), -a * np.exp(-t) - 1e6 * b * np.exp(-1e6 * t)


class Loop:
    """radau.advance driven directly: a single piece from the system's initial state (its
    loops assembled), rows at ``times``, the armed switching functions of the initial mode
    (none when ``events`` is False)."""

    def __init__(self, system, t_end, rtol, atol, times=(), events=True, max_step=np.inf):
        self.m = system.nq + system.nv      # [q, v]; the quadratures W follow
        self.sd = sd = Evaluator(system)
        state = system.initial_state()
        q, v = state.q, state.v
        if system.cut_joints or system.drivers:
            q, v = assembly.initial(system, sd.data, state, {}, {})
        self.y0 = np.concatenate([q, v, np.zeros(evaluator.work_size(system))])
        sd.natural_mode(0.0, self.y0)
        self.n = n = self.y0.size
        self.t_end, self.rtol, self.atol, self.max_step = t_end, rtol, atol, max_step
        self.addresses = sd.addresses()
        self.functions = stepping.Functions(*self.addresses, bool(sd.constrained), sd.data)
        self.times = np.array(times, dtype=float)
        self.work = radau.make_work(stepping.piece_arrays(n, self.times,
                                                          len(system.force_elements)))
        self.y, self.st, self.rows = self.work.y, self.work.st, self.work.rows
        self.y[:] = self.y0
        self.st[0]["t_bound"] = t_end
        self.st[0]["starting"] = 1
        self.quadratures = (self.m, n)
        self.settings = Settings(rtol, atol, max_step, quadratures=self.quadratures).record()
        self.armed, self.g = self.work.armed, self.work.g
        self.armed[:] = sd.armed() if events else False

    def advance(self, max_steps):
        self.st[0]["pause_at"] = self.st[0]["nsteps"] + max_steps
        return self.sd.call(radau.advance, self.functions, self.work, self.settings)

    def steps(self):
        """Step by step to the end (one call per step: the loop pauses and resumes): the
        accepted steps' times and states, and how the last call returned."""
        ts, ys = [0.0], [self.y.copy()]
        while True:
            code = self.advance(1)
            if self.st[0]["nsteps"] == len(ts):
                ts.append(float(self.st[0]["t"]))
                ys.append(self.y.copy())
            if code != stepping.PAUSED:
                return np.array(ts), np.array(ys), code

    def jacobian(self, t, y):
        """The loop's finite-difference Jacobian at (t, y), for scipy's ``jac``."""
        y = np.ascontiguousarray(y, dtype=float)
        f, status = self.sd.derivative(t, y)
        J = np.zeros((self.n, self.n))
        counts = layout.records(layout.STEPPER, 1)
        tmp = np.zeros((radau.TMP_ROWS, self.n))
        status = self.sd.call(radau.jacobian, self.functions, float(t), y, f, J, counts, tmp,
                              *self.quadratures)
        assert status == 0
        return J

    def full(self, z):
        """y = [q, v, W] of z = [q, v] (W = 0: no right-hand side reads it)."""
        return np.concatenate([z, np.zeros(self.n - self.m)])

    def scipy_solver(self):
        """scipy's Radau on z = [q, v] alone, with the loop's Jacobian."""
        m = self.m

        def fun(t, z):
            dy, status = self.sd.derivative(t, self.full(z))
            assert status == 0
            return dy[:m]
        return Radau(fun, 0.0, self.y0[:m].copy(), self.t_end, rtol=self.rtol, atol=self.atol,
                     max_step=self.max_step,
                     jac=lambda t, z: self.jacobian(t, self.full(z))[:m, :m])


def scipy_steps(solver):
    ts, ys = [solver.t], [solver.y.copy()]
    while solver.status == "running":
        solver.step()
        ts.append(solver.t)
        ys.append(solver.y.copy())
    assert solver.status == "finished"
    return np.array(ts), np.array(ys)


# ----------------------------------------------------------------------------- mbd.run.steppers.lu

@pytest.mark.parametrize("dtype", [float, complex])
def test_lu_matches_lapack(dtype):
    """The compiled LU picks LAPACK's pivots (getrf; izamax's |Re| + |Im| for complex) and
    solves to round-off."""
    rng = np.random.default_rng(3)
    for n in (1, 2, 5, 12):
        A = rng.standard_normal((n, n)).astype(dtype)
        b = rng.standard_normal(n).astype(dtype)
        if dtype is complex:
            A += 1j * rng.standard_normal((n, n))
            b += 1j * rng.standard_normal(n)
        LU, piv = A.copy(), np.zeros(n, dtype=np.int64)
        assert lu.lu_factor(LU, piv) == 0
        lu_lapack, piv_lapack = scipy.linalg.lu_factor(A)
        np.testing.assert_array_equal(piv, piv_lapack)
        np.testing.assert_allclose(LU, lu_lapack, rtol=0, atol=1e-12)
        x = b.copy()
        lu.lu_solve(LU, piv, x)
        np.testing.assert_allclose(x, np.linalg.solve(A, b), rtol=1e-11, atol=1e-12)


def test_jacobian_against_closed_form():
    """The forward-difference Jacobian of the stiff slider's y = [x, v, W] against
    d/dy of [v, -(c x + d v)/m, (-c x - d v) v] (W: the spring's work), at a moving state;
    nq + nv right-hand sides, counted (W enters none: its column is zero, not evaluated)."""
    loop = Loop(stiff_slider(), 1.0, 1e-6, 1e-9)
    x, v = 0.3, -0.7
    y = np.array([x, v, 0.0])
    f, _ = loop.sd.derivative(0.0, y)
    J, counts = np.zeros((3, 3)), layout.records(layout.STEPPER, 1)
    assert loop.sd.call(radau.jacobian, loop.functions, 0.0, y, f, J, counts,
                        np.zeros((radau.TMP_ROWS, 3)), 2, 3) == 0
    assert counts[0]["nfev"] == 2
    np.testing.assert_array_equal(J, loop.jacobian(0.0, y))
    c, d = STIFF_C, STIFF_D
    exact = np.array([[0.0, 1.0, 0.0],
                      [-c / MASS, -d / MASS, 0.0],
                      [-c * v, -c * x - 2.0 * d * v, 0.0]])
    np.testing.assert_allclose(J, exact, rtol=1e-6, atol=1e-6)


# ----------------------------------------------------------------------------- against scipy

@pytest.fixture(scope="module", params=[np.inf, 0.0123], ids=["free", "max_step"])
def pendulum_runs(request):
    """The double pendulum for 2 s at rtol 1e-6, atol 1e-8 (and with a max_step that holds
    some steps): the compiled loop step by step, and scipy's Radau with the loop's
    Jacobian."""
    loop = Loop(double_pendulum(), 2.0, 1e-6, 1e-8, events=False, max_step=request.param)
    ts, ys, code = loop.steps()
    solver = loop.scipy_solver()
    sts, sys_ = scipy_steps(solver)
    return loop, ts, ys, code, solver, sts, sys_


def test_same_steps_as_scipy(pendulum_runs):
    """Same number of steps, Jacobians and LU factorizations; the evaluations are scipy's
    plus nq + nv per Jacobian; step times equal to 1e-8 relative and states to 1e-8 of their
    scale (see the module docstring for why not to round-off): scipy on [q, v] alone, the
    loop with the two springs' work accumulators besides."""
    loop, ts, ys, code, solver, sts, sys_ = pendulum_runs
    assert loop.n == loop.m + 2
    ys = ys[:, :loop.m]
    assert code == stepping.DONE and ts[-1] == 2.0
    st, rd = loop.st[0], loop.work.radau[0]
    assert len(ts) == len(sts) and st["nsteps"] == len(sts) - 1 > 150
    assert rd["njev"] == solver.njev and rd["nlu"] == solver.nlu
    moving = loop.sd.system.nq + loop.sd.system.nv      # the Jacobian's evaluated columns
    assert st["nfev"] == solver.nfev + moving * solver.njev
    assert np.abs(ts - sts).max() <= 1e-8 * 2.0
    scale = max(np.abs(sys_).max(), 1.0)
    assert np.abs(ys - sys_).max() <= 1e-8 * scale
    # the first step (its size from the same initial-step rule) to round-off
    assert ts[1] == sts[1]
    assert np.abs(ys[1] - sys_[1]).max() <= 1e-15 * scale


def test_one_call_takes_the_same_steps_as_one_per_step(pendulum_runs):
    """Paused after every step and resumed, or run in one call: identical results."""
    stepped = pendulum_runs[0]
    loop = Loop(double_pendulum(), 2.0, 1e-6, 1e-8, events=False, max_step=stepped.max_step)
    assert loop.advance(10_000) == stepping.DONE
    np.testing.assert_array_equal(loop.y, stepped.y)
    assert loop.st[0]["nfev"] == stepped.st[0]["nfev"]
    assert loop.st[0]["nsteps"] == stepped.st[0]["nsteps"]


def test_dense_output_matches_scipy():
    """The first step's dense output: Q equal to scipy's (Z^T P) to round-off, the ends
    equal to y_old and y, the inside equal to scipy's RadauDenseOutput on the same step;
    and :func:`mbd.run.steppers.radau.dense_value` of scipy's Q on a later step is its
    polynomial."""
    loop = Loop(double_pendulum(), 2.0, 1e-6, 1e-8, events=False)
    assert loop.advance(1) == stepping.PAUSED
    solver = loop.scipy_solver()
    solver.step()
    sol = solver.dense_output()
    work, S = loop.work, loop.st[0]
    m = loop.m           # scipy steps [q, v]; the loop's W after them
    assert (S["t_old"], S["t"]) == (sol.t_old, sol.t)
    scale = np.abs(sol.Q).max()
    assert np.abs(work.Q[:, :m] - sol.Q.T).max() <= 1e-13 * scale
    out = np.empty(loop.n)
    radau.dense_value(S["t_old"], S["t_old"], S["h_prev"], work.y_old, work.Q, out)
    np.testing.assert_array_equal(out, loop.y0)
    radau.dense_value(S["t"], S["t_old"], S["h_prev"], work.y_old, work.Q, out)
    assert np.abs(out - loop.y).max() <= 1e-15 * max(np.abs(loop.y).max(), 1.0)
    for x in (0.1, 0.37, 0.5, 0.9):
        t = S["t_old"] + x * S["h_prev"]
        radau.dense_value(t, S["t_old"], S["h_prev"], work.y_old, work.Q, out)
        assert np.abs(out[:m] - sol(t)).max() <= 1e-15 * max(np.abs(loop.y).max(), 1.0)
    for _ in range(20):
        solver.step()
    sol = solver.dense_output()
    Q = np.ascontiguousarray(sol.Q.T)
    out = np.empty(m)
    for x in (0.0, 0.25, 0.8, 1.0):
        t = sol.t_old + x * sol.h
        radau.dense_value(t, sol.t_old, sol.h, sol.y_old, Q, out)
        np.testing.assert_allclose(out, sol(t), rtol=1e-15, atol=1e-15)


def test_at_rest_as_scipy():
    """A system at rest (f = 0 everywhere): error estimates of exactly 0, the step grows
    tenfold per step (the controller's 0 ** -0.25 = inf capped at MAX_FACTOR), as scipy's."""
    m = mbd.Model("rest")
    ground = m.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, 0.0)))
    body = m.add_body("slider", mass=1.0, cg=(0.0, 0.0, 0.0), inertia=[1.0, 1.0, 1.0])
    s = m.add(Prismatic("s", ground, body["cg"], axis=(1, 0, 0), q0=0.0, v0=0.0))
    m.add(JointForce("spring", s, SpringDamper(c=STIFF_C, d=STIFF_D)))
    loop = Loop(m.build(), 5.0, 1e-6, 1e-9)
    ts, ys, code = loop.steps()
    sts, sys_ = scipy_steps(loop.scipy_solver())
    assert code == stepping.DONE
    np.testing.assert_array_equal(ts, sts)
    assert not ys.any() and not sys_.any()
    np.testing.assert_allclose(np.diff(ts)[1:-1] / np.diff(ts)[:-2], 10.0, rtol=1e-12)


# ----------------------------------------------------------------------------- stiff

def test_stiff_system_in_few_steps():
    """The stiff slider (eigenvalues -1, -1e6) for 5 s at rtol 1e-6, atol 1e-9: an explicit
    method's stability bound (h < ~3.3e-6 s for DOP853) means over a million steps, and the
    compiled DOP853 run gives up; Radau takes some 150 and follows the closed form through
    the 1 us initial layer: to 1e-9 at the step ends (measured 3e-11 in x, 5e-9 in v), to the
    tolerance on the rows from dense output. W, the kinetic energy gained (the spring being
    the only force), is a quadrature outside the error control (mbd.run.settings): its
    integrand, the force c x + d v, is the difference of terms 1e6 times larger, so it is as
    good as rtol of the energy the spring has moved, 1/2 m max v^2 = 0.5 J (measured 5.4e-7
    J; 5e-9 when W steered the steps, at 4x the evaluations on the stiff chain benchmark).

    Here scipy's steps are the reference only in number: with Newton matrices of condition
    ~h |lambda| = 1e5, scipy itself takes 57 or 58 steps (at rtol 1e-4) from initial states 1
    ulp apart, so the two loops' counts agree to a few percent, not exactly."""
    times = np.linspace(0.0, 5.0, 11)
    rtol, atol = 1e-6, 1e-9
    system = stiff_slider()
    loop = Loop(system, 5.0, rtol, atol, times=times)
    ts, ys, code = loop.steps()
    assert code == stepping.DONE and ts[-1] == 5.0
    nsteps = loop.st[0]["nsteps"]
    assert nsteps < 200
    x, v = stiff_exact(ts)
    assert np.abs(ys[:, 0] - x).max() <= 1e-9
    assert np.abs(ys[:, 1] - v).max() <= 1e-7
    moved = 0.5 * MASS * np.abs(v).max() ** 2
    assert np.abs(ys[:, 2] - 0.5 * MASS * v ** 2).max() <= 2.0 * rtol * moved
    x, v = stiff_exact(times)
    assert loop.st[0]["next_row"] == len(times)
    for got, exact in ((loop.rows[:, 0], x), (loop.rows[:, 1], v)):
        assert np.all(np.abs(got - exact) <= rtol * np.abs(exact) + atol)
    assert np.all(np.abs(loop.rows[:, 2] - 0.5 * MASS * v ** 2) <= 2.0 * rtol * moved)
    sts, _ = scipy_steps(loop.scipy_solver())
    assert abs(len(sts) - len(ts)) <= 0.05 * len(sts)
    with pytest.raises(mbd.SimulationError):
        system.simulate(5.0, rtol=rtol, atol=atol, max_steps=200_000)


# ----------------------------------------------------------------------------- runs

def test_closed_loop_projected_rows():
    """The four-bar (a closed loop): every step's end and every row projected onto the
    closure (residuals measured 1e-12 m and 3e-15 m/s); the rows follow the compiled DOP853
    run at a tight tolerance (measured 3e-10 rad in q, 9e-9 rad/s in v at rtol 1e-8)."""

    from tests.mbd.run.test_loops import fourbar
    system = fourbar(crank=dict(q0=0.0, v0=3.0, exact=True))
    times = np.linspace(0.0, 1.0, 11)
    loop = Loop(system, 1.0, 1e-8, 1e-8, times=times)
    assert loop.sd.constrained
    assert loop.advance(100_000) == stepping.DONE
    assert loop.st[0]["next_row"] == len(times)
    reference = system.simulate(1.0, output_step=0.1, rtol=1e-11, atol=1e-11)
    nq, nv = system.nq, system.nv
    np.testing.assert_array_equal(reference.t, times)
    assert np.abs(loop.rows[:, :nq] - reference.q).max() <= 1e-8
    assert np.abs(loop.rows[:, nq:nq + nv] - reference.v).max() <= 1e-7
    for t, row in zip(times, loop.rows):
        g, gv = Evaluator(system).residuals(t, row[:nq], row[nq:nq + nv])
        assert g <= 1e-10 and gv <= 1e-12


def test_crossing_located_on_the_dense_output():
    """The ElastoGap example: the loop stops at the step where the first contact begins
    (CROSSED, the step's dense output ready); the crossing located on it by
    :func:`mbd.run.steppers.steplocate.locate_on_step` is the first event of the DOP853 run
    (measured: 1e-11 s apart at rtol 1e-9)."""
    from mbd.compiled import events
    from tests.forces.test_reference_examples import elastogap_model
    system = elastogap_model("axial").build()
    loop = Loop(system, 5.0, 1e-9, 1e-9, times=np.linspace(0.0, 5.0, 21))
    assert loop.armed.any()
    assert loop.advance(100_000) == stepping.CROSSED
    S, work, sd = loop.st[0], loop.work, loop.sd
    mask = np.zeros_like(loop.armed)
    assert events.crossed_mask(loop.armed, sd.switching(S["t"], loop.y), sd.data.mode, mask)
    (i,), (k,) = np.nonzero(mask)
    t_old, h = float(S["t_old"]), float(S["h_prev"])
    context = steplocate.step_context(steplocate.RADAU, int(i), int(k), t_old, h, work.y_old,
                                      work.Q, np.empty(loop.n), loop.g, loop.addresses[1],
                                      sd.data)
    g_on_step = native.address(steplocate.switching_on_step,
                               types.float64(types.float64, native.typeof(context)))
    tol = events.time_tolerance(t_old, float(S["t"]))
    t_hit = sd.call(steplocate.locate_on_step, g_on_step, context,
                    float(sd.data.mode["sides"][i, k]), t_old, float(S["t"]), tol)
    reference = system.simulate(5.0, output_step=0.25, rtol=1e-11, atol=1e-11)
    first = reference.events[0]
    assert first.element == system.force_elements[i].name
    assert abs(t_hit - first.t) <= 1e-9
    # the rows before the crossing were written, none after it
    assert loop.times[S["next_row"] - 1] <= S["t"] < loop.times[S["next_row"]]


def test_scipy_path_leaves_the_work_out_too():
    """``simulate(method="Radau", compiled=False)`` steps scipy's Radau on y = [q, v, W]
    with the tolerances of :meth:`mbd.run.settings.Settings.scipy_tolerances` (W's atol
    infinite, the others scaled so that scipy's mean over n entries is the mean over q and
    v): it takes the steps scipy's Radau takes on [q, v] alone (measured: 200 and 200, the
    end states equal to 2e-15; with one atol for all of [q, v, W], 210) and ends where it
    does, up to round-off."""
    from mbd.run.simulate import rhs_function
    system = double_pendulum()
    rtol, atol = 1e-6, 1e-8
    r = system.simulate(2.0, output_step=2.0, rtol=rtol, atol=atol, method="Radau",
                        compiled=False)
    assert r.stats["stepper"] == "scipy"
    f = rhs_function(system)
    # scipy's Radau on the run's own problem: its start row and its tolerances (those given,
    # or +-10 % of them under --perturb)
    solver = Radau(f, 0.0, np.concatenate([r.q[0], r.v[0]]), 2.0, rtol=r.stats["rtol"],
                   atol=r.stats["atol"])
    ts, ys = scipy_steps(solver)
    assert r.stats["nsteps"] == len(ts) - 1 > 150
    assert np.abs(r.q[-1] - ys[-1, :system.nq]).max() <= 1e-9
    assert np.abs(r.v[-1] - ys[-1, system.nq:]).max() <= 1e-9
