"""The two ways of stepping a piece, behind one small interface for the piece loop
(:mod:`mbd.run.pieceloop`).

- :class:`ScipyStepper` steps any scipy ``OdeSolver`` (the classes behind ``solve_ivp``) from
  Python, one step per :meth:`~ScipyStepper.advance`; it serves every method, laws whose
  parameters are Python functions of time and motion drivers.
- :class:`CompiledStepper` runs a whole batch of steps compiled, DOP853 (:mod:`mbd.run.stepper`)
  or Radau IIA (:mod:`mbd.run.radau`) under their one contract (:mod:`mbd.run.stepping`): the same
  methods and step control, several times faster.

The interface (both classes): made from ``(sd, method, rows, settings, exact, auto)``;
``start(t, y, t_bound, first_step, armed)`` begins a piece (``first_step``: its first step,
s; 0: Hairer's rule); ``advance(steps)`` takes at most ``steps`` steps and returns a status of
:mod:`mbd.run.stepping` (DONE, PAUSED, CROSSED, STIFF), raising the exceptions of
:mod:`mbd.run.failures` where the integration fails; ``t``, ``y``, ``t_old`` (s, the reached state
and the last step's start); ``dense()`` the last step's dense output (a callable of t that
also locates a crossing on itself); ``end_step()`` the state a new piece must start from after
the step's projection, or None; ``go_implicit()`` and ``go_explicit()`` (method "auto");
``nsteps``, ``nfev``, ``compile_time``, ``counts()`` for the stats; ``finite``, the last state
known finite; ``dips()``, after CROSSED, for each switching function that left its side and
came back within the last step a time (s) where it was off it (nan for the others: the double
crossings the signs at the step's ends cannot show, :func:`mbd.compiled.events.turning`).
"""
import numpy as np
from numba import types
from scipy import integrate

from ..compiled import events, loopsolve, native, statefunction as sf, statekernels
from . import controls, radau, steplocate, stepper, stepping, warmup
from .failures import BlewUp, Failed, IntegratorFailed, projected, raise_status
from .stepping import CROSSED, DONE, FAILED, NONFINITE, PAUSED, TOO_SMALL

#: solvers that restart each step from (t, y, f) alone, so a projected y can be handed back
ONE_STEP = (integrate.RK23, integrate.RK45, integrate.DOP853)

#: the implicit methods: they leave the quadratures out of their error control
IMPLICIT = (integrate.Radau, integrate.BDF, integrate.LSODA)

#: the methods a compiled loop implements
COMPILED_METHODS = (integrate.DOP853, integrate.Radau)


class Integrand:
    """f(t, y) for scipy's solvers: the compiled right-hand side of
    :mod:`mbd.compiled.statefunction`, raising what a nonzero status says; with ``natural=True``
    every call selects the mode from the state (exact switching off)."""

    def __init__(self, sd, natural=False):
        self.sd, self.natural = sd, natural
        self.nfev = 0

    def __call__(self, t, y):
        self.nfev += 1
        if self.natural:
            sf.natural_mode(self.sd, t, y)
        # scipy keeps references to returned arrays: a fresh one each call
        dy, status = sf.derivative(self.sd, t, y)
        raise_status(status, t, y)
        return dy


class ScipyDense:
    """A scipy step's dense output, callable at a time t (s), and the crossing search on it
    (:func:`mbd.compiled.events.locate`, run as Python)."""

    def __init__(self, sd, dense):
        self.sd, self.dense = sd, dense

    def __call__(self, t):
        return self.dense(t)

    def locate(self, i, k, side, ta, tb, tol):
        """Where switching function (i, k) leaves the side ``side`` in (ta, tb]."""
        def g_ik(t):
            return sf.switching(self.sd, t, self.dense(t))[i, k]

        return events.locate(g_ik, ta, tb, side, tol)

    def departure(self, i, k, side, ta, tb, guess):
        """Where switching function (i, k), on the side ``side`` at ta and tb (s), is off it
        in between (s), or nan (:func:`mbd.compiled.events.departure`, from ``guess``)."""
        def g_ik(t):
            return sf.switching(self.sd, t, self.dense(t))[i, k]

        return events.lowest(g_ik, ta, tb, side, guess)


class ScipyStepper:
    """A piece stepped by a scipy ``OdeSolver`` from Python (see the module docstring)."""

    name = "scipy"

    def __init__(self, sd, method, rows, settings, exact, auto):
        self.sd, self.method, self.settings = sd, method, settings
        self.compile_time = warmup.first_right_hand_side(sd, compiled=False)
        self.f = Integrand(sd, natural=not exact)
        # a multistep method restarts once the projection moves the state further than its
        # own error tolerance would (restarting at every round-off drift keeps it at order 1)
        self.drift_limit = 10.0 * settings.atol * sd.system.length_scale
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
            self.g_start = sf.switching(self.sd, t, y)
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
            g = sf.switching(self.sd, solver.t, solver.y)
            across = events.crossed_mask(self.armed, g, self.sd.data.mode, self.mask)
            # ... or left its side and came back within the step (before a crossing too)
            if self.dipped(g) or across:
                return CROSSED
        return DONE if solver.status == "finished" else PAUSED

    def rates(self, t, y, g, dt, ydot):
        """The switching functions' rates (per s) at (t, y), where they are g and the state
        moves at ydot: a difference over dt s along the motion, into the step
        (:func:`mbd.run.stepping.switching_rates`)."""
        with np.errstate(invalid="ignore"):     # inf - inf: a stop at infinity never turns
            return (sf.switching(self.sd, t + dt, y + dt * ydot) - g) / dt

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
        sides = self.sd.data.mode["sides"]
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
            self.last_dense = ScipyDense(self.sd, self.solver.dense_output())
        return self.last_dense

    def end_step(self):
        """With constraints, the step's end moved onto them: a one-step method goes on from
        there (handed y and its derivative); a multistep method, once the projection moved
        it further than its tolerance would, must start a new piece there (returned)."""
        solver = self.solver
        if not (self.sd.constrained and solver.status == "running"):
            return None
        if isinstance(solver, ONE_STEP) and self.near_constraints(solver.t, solver.y):
            return None     # as the compiled DOP853 loop: a negligible drift stays
        y_on = projected(self.sd, solver.t, solver.y)
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
        sf.refresh(self.sd, t, y)
        limit = loopsolve.DRIFT_SHARE * self.settings.atol
        return bool(self.sd.call(statekernels.near_constraints, np.ascontiguousarray(y),
                                 self.sd.data, limit))


class CompiledDense:
    """The dense output of one compiled step, callable at a time t (s): the step's start
    (t_old, y_old), size h and coefficients (DOP853's F or Radau's Q, copies), and the
    crossing search on it, compiled (:mod:`mbd.run.steplocate`)."""

    def __init__(self, owner, t_old, h, y_old, coefficients):
        self.owner = owner
        self.t_old, self.h, self.y_old, self.coefficients = t_old, h, y_old, coefficients

    def __call__(self, t):
        out = np.empty_like(self.y_old)
        self.owner.loop.dense_value(t, self.t_old, self.h, self.y_old, self.coefficients, out)
        return out

    def locate(self, i, k, side, ta, tb, tol):
        """Where switching function (i, k) leaves the side ``side`` in (ta, tb]."""
        owner = self.owner
        f = owner.functions
        context = steplocate.step_context(owner.dense_kind, int(i), int(k), self.t_old,
                                          self.h, self.y_old, self.coefficients,
                                          np.empty_like(self.y_old), owner.work.g, f.switch,
                                          f.data)
        return owner.sd.call(steplocate.locate_on_step, owner.g_on_step(context), context,
                             float(side), ta, tb, tol)


#: the most output rows one call of the compiled loop writes (a few tenths of a second at
#: most, which Ctrl-C waits for): the steps of a call are fewer when each spans many rows
ROWS_PER_CALL = 200_000
#: the most a compiled method's step grows from one step to the next (their MAX_FACTOR)
GROWTH = max(stepper.MAX_FACTOR, radau.MAX_FACTOR)


def steps_within(rows, spacing, h, h_max, steps):
    """The most steps (at least 1, at most ``steps``) that write at most ``rows`` output rows
    ``spacing`` s apart however their sizes grow: from a first step of h s, each at most
    :data:`GROWTH` times the one before and at most h_max s. A step of size h_j spans at most
    h_j / spacing + 1 rows, so k steps write at most::

        sum_{j < k} (min(h GROWTH^j, h_max) / spacing + 1)

    Examples
    --------
    >>> steps_within(1000, 0.01, 0.01, 1.0, 2000)     # 2 + 11 rows, then 101 a step
    11
    """
    k, written = 0, 0.0
    while k < steps and h < h_max:      # the steps still growing: a few dozen at most
        written += h / spacing + 1.0
        if written > rows:
            return max(k, 1)
        k, h = k + 1, h * GROWTH
    if k < steps:                       # the rest, at h_max each
        k += int((rows - written) // (h_max / spacing + 1.0))
    return max(1, min(k, steps))


class CompiledStepper:
    """A piece stepped by a compiled loop, DOP853 or Radau IIA, a batch of steps per
    :meth:`advance`, so that the progress bar, Ctrl-C and the step budget still answer (see
    the module docstring). The output rows of its steps are written in the loop and handed to
    ``rows``."""

    name = "compiled"

    def __init__(self, sd, method, rows, settings, exact, auto):
        self.sd, self.rows = sd, rows
        system = sd.system
        # [q, v, W] and the continuous controllers' states (compiled ones run here)
        n = system.nq + system.nv + sf.work_size(system) + (
            sd.held.n_states if sd.held is not None else 0)
        self.piece = stepping.piece_arrays(n, rows.times, len(system.force_elements))
        self.st = self.piece["st"]
        self.S = self.st[0]     # a view of the one record, kept: each st[0] makes a new one
        self.S["stiffness_check"] = auto
        # the compiled settings, one per run: only first_step changes, set at each piece
        self.record = settings.record()
        self.t, self.nsteps = 0.0, 0     # the reached time, s, and the steps taken, per batch
        times = rows.times               # the mean time between output rows, s (0: one row)
        self.spacing = ((times[-1] - times[0]) / (len(times) - 1) if len(times) > 1
                        else 0.0)
        self.compile_time = 0.0
        self.works = {}        # the methods' work arrays, made on first use, kept
        self.use(method)       # compiles on both cores first (mbd.run.warmup) ...
        # ... then finds what it compiled
        self.functions = stepping.Functions(*sf.addresses(sd), bool(sd.constrained), sd.data)
        self._g_on_step = None    # the address of steplocate.switching_on_step, once needed
        if system.force_elements:     # the loop looks for double crossings on dense output
            f = self.functions
            n = len(self.work.y)
            self.S["on_step"] = self.g_on_step(steplocate.step_context(
                steplocate.DOP853, 0, 0, 0.0, 1.0, np.zeros(n), np.zeros((1, n)), np.zeros(n),
                self.work.g, f.switch, f.data))
            self._arm_screen()
        self.finite = None

    def _arm_screen(self):
        """The address of the current loop's double-crossing screen (its module's
        ``screen``) into st.screen: compiled (or loaded) only for a model with force
        elements, whose switching functions it screens."""
        self.S["screen"] = native.address(self.loop.screen, types.int64(
            native.typeof(self.functions), native.typeof(self.work), types.int64))

    def use(self, method):
        """Step with ``method`` (DOP853 or Radau) from here on: its loop, its arrays (around
        the piece's, made once per run) and its compiled code (compiled or loaded on first
        use)."""
        self.method = method
        radau_iia = method is integrate.Radau
        self.loop = radau if radau_iia else stepper
        self.dense_kind = steplocate.RADAU if radau_iia else steplocate.DOP853
        if method not in self.works:     # (Radau's keeps its counts over every switch)
            self.works[method] = self.loop.make_work(self.piece)
            self.compile_time += warmup.first_right_hand_side(self.sd, compiled=True,
                                                              method=method.__name__)
        self.work = self.works[method]
        self.coefficients = self.work.Q if radau_iia else self.work.F
        if self.S["screen"] != 0:       # a switch of method: the other loop's screen
            self._arm_screen()

    @property
    def nfev(self):
        return int(self.S["nfev"])

    @property
    def t_old(self):
        return float(self.S["t_old"])

    @property
    def y(self):
        return self.work.y

    def counts(self):
        """Radau's Jacobians and LU factorizations, where it ran (its steps are in nsteps
        too)."""
        work = self.works.get(integrate.Radau)
        if work is None:
            return {}
        return {"njev": int(work.radau[0]["njev"]), "nlu": int(work.radau[0]["nlu"])}

    def start(self, t, y, t_bound, first_step, armed):
        """Begin a piece at (t, y) ending at t_bound (s) with a step of ``first_step`` s (0:
        Hairer's rule), the switching functions ``armed`` watched for crossings."""
        S = self.S
        self.work.y[:] = y
        self.work.armed[:] = armed
        S["t"], S["t_bound"], S["starting"] = t, t_bound, 1
        self.t = float(t)
        self.record[0]["first_step"] = first_step

    def go_implicit(self):
        """Method "auto" found the model stiff: Radau from the reached state on, its first
        step by Hairer's rule, watching for the stiffness to end (its calm test,
        ``mbd.run.radau._calm_test``)."""
        self._switch(integrate.Radau)
        self.work.radau[0]["took_over"] = self.nsteps

    def jump_explicitly(self):
        """Radau nears a change point of the constraints (:mod:`mbd.run.changepoints`):
        DOP853 from the reached state on, its first step by Hairer's rule, until it has jumped
        the point and hands the run back (:meth:`go_implicit`)."""
        self._switch(integrate.DOP853)
        self.S["jump_only"] = self.nsteps + 1

    def go_explicit(self):
        """Method "auto" found the model no longer stiff: DOP853 from the reached state on,
        its first step by Hairer's rule, its stiffness test on again."""
        self._switch(integrate.DOP853)

    def _switch(self, method):
        """Go on with ``method`` from the reached state, as at a piece's start, the stiffness
        tests' counts cleared."""
        self.use(method)
        S = self.S
        S["starting"] = 1
        S["stiff_tests"] = S["calm_tests"] = S["jump_only"] = 0
        self.record[0]["first_step"] = 0.0

    def advance(self, steps):
        """Up to ``steps`` steps of the compiled loop (see :mod:`mbd.run.stepping`), and fewer
        when the steps are long: about :data:`ROWS_PER_CALL` output rows at most, at the last
        step's size (the rows are written in the loop, which Ctrl-C and the progress bar
        wait for); the rows they wrote go to the run's rows, even when Ctrl-C ends the call."""
        S = self.S
        t_before = self.t
        if self.spacing > 0.0:   # a piece's first step, or the step the last call proposed
            first = self.record[0]["first_step"]
            h = (S["h_abs"] if not S["starting"] else first if first > 0.0 else np.inf)
            steps = steps_within(ROWS_PER_CALL, self.spacing, h, self.record[0]["max_step"],
                                 steps)
        S["pause_at"] = self.nsteps + steps
        S["next_row"] = self.rows.next_row
        try:
            status = self.sd.call(self.loop.advance, self.functions, self.work, self.record)
        finally:    # Ctrl-C is raised as the call returns: its rows are kept all the same
            self.rows.take(int(S["next_row"]), self.work.rows)
        self.t = t = float(S["t"])
        self.nsteps = int(S["nsteps"])
        y = self.work.y
        if status == PAUSED and not t > t_before:   # NaN time, or stuck
            raise Failed(f"the compiled integrator stopped advancing at t = {t_before:.9g} s "
                         f"(step size {S['h_abs']:.3g} s)", t_before)
        if status == TOO_SMALL:
            raise IntegratorFailed(t, y, "the step size fell below 10 units of round-off in t")
        if status == NONFINITE:
            self.finite = (self.t_old, self.work.y_old.copy())
            raise BlewUp(t, y)
        if status == FAILED:
            self.finite = (t, y.copy())
            raise_status(int(S["bad"]), float(S["t_bad"]),
                         stepping.failed_state(self.work.tmp))
        return status

    def state_at(self, t):
        """The state at t (s) within the last step (its end: the state itself)."""
        if t >= self.t:
            return self.work.y.copy()
        # Radau makes its interpolant at every step; DOP853 where it paused (as after every
        # step of a live simulation)
        return self.dense()(t)

    def dips(self):
        """For each switching function that left its side and came back within the last
        step, a time (s) where it was off it; nan for the others (found in the loop,
        :func:`mbd.run.stepping.departures`)."""
        return self.work.turn[stepping.DIP].copy()

    def dense(self):
        """The last step's dense output (:class:`CompiledDense`)."""
        S = self.S
        return CompiledDense(self, float(S["t_old"]), float(S["h_prev"]),
                             self.work.y_old.copy(), self.coefficients.copy())

    def g_on_step(self, context):
        """The address of :func:`mbd.run.steplocate.switching_on_step` for ``context``'s types."""
        if self._g_on_step is None:
            self._g_on_step = native.address(
                steplocate.switching_on_step,
                types.float64(types.float64, native.typeof(context)))
        return self._g_on_step

    def end_step(self):
        """Nothing: the compiled loop projects every step's end itself."""
        return None


def blocker(system, method, exact_switching):
    """Why the compiled loop cannot run this simulation, or "" when it can."""
    if method not in COMPILED_METHODS:
        return f"it implements DOP853 and Radau only, not {method.__name__}"
    driven = [d.name for d in system.drivers if d.prescribed]
    if driven:
        return (f"the system has motion drivers {driven}, whose motions are Python functions "
                "of time")
    if not exact_switching:
        return "exact_switching=False"
    varying = [fe.name for fe in system.force_elements if fe.law.time_varying
               and getattr(fe.law, "compiled_signal", None) is None]
    if varying:
        return f"the laws of {varying} have parameters given as Python functions of time"
    return controls.blocker(system) or ""
