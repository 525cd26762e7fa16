"""scipy's way of stepping a piece: :class:`ScipyStepper` steps any scipy ``OdeSolver`` (the
classes behind ``solve_ivp``) from Python, one step per :meth:`~ScipyStepper.advance`; it serves
every method, laws whose parameters are Python functions of time and motion drivers.

It has the interface of the piece loop's steppers (:mod:`mbd.run.steppers`), which
:class:`mbd.run.steppers.compiled.CompiledStepper` shares.
"""
import numpy as np
from scipy import integrate

from ...compiled import events, loopsolve, statekernels
from ..failures import BlewUp, IntegratorFailed, projected, raise_status
from .stepping import CROSSED, DONE, PAUSED

#: solvers that restart each step from (t, y, f) alone, so a projected y can be handed back
ONE_STEP = (integrate.RK23, integrate.RK45, integrate.DOP853)

#: the implicit methods: they leave the quadratures out of their error control
IMPLICIT = (integrate.Radau, integrate.BDF, integrate.LSODA)

#: the methods a compiled loop implements
COMPILED_METHODS = (integrate.DOP853, integrate.Radau)


class Integrand:
    """f(t, y) for scipy's solvers: the compiled right-hand side of
    :mod:`mbd.run.evaluator`, raising what a nonzero status says; with ``natural=True``
    every call selects the mode from the state (exact switching off)."""

    def __init__(self, ev, natural=False):
        self.ev, self.natural = ev, natural
        self.nfev = 0

    def __call__(self, t, y):
        self.nfev += 1
        if self.natural:
            self.ev.natural_mode(t, y)
        # scipy keeps references to returned arrays: a fresh one each call
        dy, status = self.ev.derivative(t, y)
        raise_status(status, t, y)
        return dy


class ScipyDense:
    """A scipy step's dense output, callable at a time t (s), and the crossing search on it
    (:func:`mbd.compiled.events.locate`, run as Python)."""

    def __init__(self, ev, dense):
        self.ev, self.dense = ev, dense

    def __call__(self, t):
        return self.dense(t)

    def locate(self, i, k, side, ta, tb, tol):
        """Where switching function (i, k) leaves the side ``side`` in (ta, tb]."""
        def g_ik(t):
            return self.ev.switching(t, self.dense(t))[i, k]

        return events.locate(g_ik, ta, tb, side, tol)

    def departure(self, i, k, side, ta, tb, guess):
        """Where switching function (i, k), on the side ``side`` at ta and tb (s), is off it
        in between (s), or nan (:func:`mbd.compiled.events.departure`, from ``guess``)."""
        def g_ik(t):
            return self.ev.switching(t, self.dense(t))[i, k]

        return events.lowest(g_ik, ta, tb, side, guess)


class ScipyStepper:
    """A piece stepped by a scipy ``OdeSolver`` from Python (see the module docstring)."""

    name = "scipy"

    def __init__(self, ev, method, rows, settings, exact, auto, compile_first):
        self.ev, self.method, self.settings = ev, method, settings
        self.compile_time = compile_first(ev, compiled=False)
        self.f = Integrand(ev, natural=not exact)
        # a multistep method restarts once the projection moves the state further than its
        # own error tolerance would (restarting at every round-off drift keeps it at order 1)
        self.drift_limit = 10.0 * settings.atol * ev.system.length_scale
        self.solver, self.armed, self.mask = None, None, None
        # the switching functions' values and rates (per s) at the last step's start, and
        # the times off their sides of those that left them within it (:meth:`dips`)
        self.g_start = self.rate_start = self.dip = None
        self.last_dense = None      # the last step's dense output, once made
        self.nsteps = 0
        self.t_old = None
        self.finite = None    # (t, y) before the last step, for a blow-up's message

    @property
    def nfev(self):
        return self.f.nfev

    @property
    def t(self):
        return self.solver.t

    @property
    def y(self):
        return self.solver.y

    def counts(self):
        """The method's own counts for the stats (none beyond nfev and nsteps)."""
        return {}

    def start(self, t, y, t_bound, first_step, armed):
        """Begin a piece at (t, y) ending at t_bound (s) with a step of ``first_step`` s (0:
        scipy's rule), the switching functions ``armed`` (None: exact switching off) watched
        for crossings."""
        settings = self.settings
        first = min(first_step, t_bound - t, settings.max_step)
        # an implicit method leaves the work accumulators out of its error control, as the
        # compiled Radau does (mbd.run.settings); LSODA's norm is a weighted maximum, the
        # others' an RMS
        rtol, atol = settings.rtol, settings.atol
        if self.method in IMPLICIT:
            rtol, atol = settings.scipy_tolerances(len(y), rms=self.method is not integrate.LSODA)
        with np.errstate(all="ignore"):      # its initial step's trial values, as below
            self.solver = self.method(self.f, t, y, t_bound, rtol=rtol, atol=atol,
                                      max_step=settings.max_step,
                                      first_step=first if first > 0.0 else None)
        if hasattr(self.solver, "newton_tol"):      # Radau, BDF: from the run's own rtol
            self.solver.newton_tol = max(10 * np.finfo(float).eps / settings.rtol,
                                         min(0.03, settings.rtol ** 0.5))
        self.armed = armed if armed is not None and armed.any() else None
        self.mask = None if self.armed is None else np.zeros_like(armed)
        self.last_dense = None
        if self.armed is not None:
            self.dip = np.full(armed.shape, np.nan)
            self.g_start = self.ev.switching(t, y)
            ydot = getattr(self.solver, "f", None)       # BDF and LSODA keep none
            h = getattr(self.solver, "h_abs", None) or 1e-6 * (t_bound - t)
            self.rate_start = self.rates(t, y, self.g_start, events.RATE_SHARE * h,
                                         self.f(t, y) if ydot is None else ydot)

    def advance(self, steps):
        """One step (scipy's solver returns to Python after each, whatever ``steps``)."""
        solver = self.solver
        self.t_old = solver.t
        self.finite = (solver.t, solver.y)    # the step replaces solver.y, never edits it
        self.last_dense = None
        try:
            # non-finite trial values are the error control's to reject, not warnings
            with np.errstate(all="ignore"):
                message = solver.step()
        except (ValueError, ArithmeticError, np.linalg.LinAlgError) as err:
            # scipy's own linear algebra refusing a non-finite Jacobian or iterate
            raise IntegratorFailed(solver.t, solver.y, f"{type(err).__name__}: {err}") from err
        self.nsteps += 1
        if solver.status == "failed":
            raise IntegratorFailed(solver.t, solver.y, message)
        if not np.all(np.isfinite(solver.y)):
            raise BlewUp(solver.t, solver.y)
        if self.armed is not None:
            g = self.ev.switching(solver.t, solver.y)
            across = events.crossed_mask(self.armed, g, self.ev.data.mode, self.mask)
            # ... or left its side and came back within the step (before a crossing too)
            if self.dipped(g) or across:
                return CROSSED
        return DONE if solver.status == "finished" else PAUSED

    def rates(self, t, y, g, dt, ydot):
        """The switching functions' rates (per s) at (t, y), where they are g and the state
        moves at ydot: a difference over dt s along the motion, into the step
        (:func:`mbd.run.steppers.stepping.switching_rates`)."""
        with np.errstate(invalid="ignore"):     # inf - inf: a stop at infinity never turns
            return (self.ev.switching(t + dt, y + dt * ydot) - g) / dt

    def dipped(self, g):
        """Whether an armed switching function, g at the last step's end, on its side at both
        its ends, left it and came back within it (:func:`mbd.compiled.events.turning`, then
        :func:`mbd.compiled.events.departure` on the dense output): the times off their sides
        in :meth:`dips`."""
        solver = self.solver
        ta, tb = self.t_old, solver.t
        h = tb - ta
        dt = events.RATE_SHARE * h
        ydot = getattr(solver, "f", None)
        if ydot is None:    # BDF, LSODA: dy/dt at the end from their (cheap) dense output
            ydot = (solver.y - solver.dense_output()(tb - dt)) / dt
        rate = self.rates(tb, solver.y, g, -dt, ydot)
        sides = self.ev.data.mode["sides"]
        self.dip[:] = np.nan
        dense = None
        for i, k in zip(*np.nonzero(self.armed)):
            side = sides[i, k]
            if events.departed.py_func(g[i, k], side):
                continue
            with np.errstate(invalid="ignore"):
                s = events.turning.py_func(self.g_start[i, k], self.rate_start[i, k],
                                           g[i, k], rate[i, k], h, side)
            if s > 0.0:
                dense = self.dense() if dense is None else dense
                self.dip[i, k] = dense.departure(i, k, side, ta, tb, ta + s * h)
        self.g_start, self.rate_start = g, rate
        return bool(np.isfinite(self.dip).any())

    def dips(self):
        """For each switching function that left its side and came back within the last
        step, a time (s) where it was off it; nan for the others."""
        return self.dip

    def state_at(self, t):
        """The state at t (s) within the last step (its end: the state itself)."""
        if t >= self.solver.t:
            return self.solver.y.copy()
        return self.dense()(t)

    def dense(self):
        """The last step's dense output (:class:`ScipyDense`), made once per step (DOP853's
        costs three evaluations of the right-hand side)."""
        if self.last_dense is None:
            self.last_dense = ScipyDense(self.ev, self.solver.dense_output())
        return self.last_dense

    def end_step(self):
        """With constraints, the step's end moved onto them: a one-step method goes on from
        there (handed y and its derivative); a multistep method, once the projection moved
        it further than its tolerance would, must start a new piece there (returned)."""
        solver = self.solver
        if not (self.ev.constrained and solver.status == "running"):
            return None
        if isinstance(solver, ONE_STEP) and self.near_constraints(solver.t, solver.y):
            return None     # as the compiled DOP853 loop: a negligible drift stays
        y_on = projected(self.ev, solver.t, solver.y)
        if isinstance(solver, ONE_STEP):
            solver.y = y_on
            solver.f = self.f(solver.t, y_on)
        elif np.abs(y_on - solver.y).max() > self.drift_limit:
            return y_on
        return None

    def near_constraints(self, t, y):
        """Whether the step's end (t, y) is within DRIFT_SHARE of atol of the constraints,
        away from change points (:func:`mbd.compiled.loopsolve.within_drift`, on the rank
        rule's record of the last evaluation, the step's own at y): left unprojected, as the
        compiled DOP853 loop leaves it."""
        self.ev.refresh(t, y)
        limit = loopsolve.DRIFT_SHARE * self.settings.atol
        return bool(self.ev.call(statekernels.near_constraints, np.ascontiguousarray(y),
                                 self.ev.data, limit))
