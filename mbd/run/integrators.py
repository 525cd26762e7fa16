"""The integration drivers: a run integrated piece by piece, stopping exactly where a law
switches, in one of two loops.

- :class:`ScipyRun` steps any scipy ``OdeSolver`` (the classes behind ``solve_ivp``) from
  Python; it serves every method, laws whose parameters are Python functions of time and
  motion drivers.
- :class:`CompiledRun` runs DOP853's whole step loop compiled (:mod:`mbd.run.stepper`): the same
  method and step control, several times faster.

Both share :class:`Run`: the output rows (at exact multiples of ``output_step`` from dense
output, plus every event time), the end of a piece at a located crossing, the event log,
chattering, projection onto the constraints and the failures, which keep everything computed
in ``SimulationError.result``. The dynamics are those of :mod:`mbd.compiled.statefunction`, the events
those of :mod:`mbd.compiled.events`.
"""
import time

import numpy as np
from numba import types
from scipy import integrate

from ..compiled import assembly, events, layout, loopsolve, native, statefunction as sf
from . import diagnosis, radau, stepper, warmup
from ..model.errors import SimulationError
from .progress import ProgressBar
from .result import Result

#: solvers that restart each step from (t, y, f) alone, so a projected y can be handed back
ONE_STEP = (integrate.RK23, integrate.RK45, integrate.DOP853)

#: the default step budget of a run (``simulate(max_steps=...)``)
MAX_STEPS = 1_000_000


class Undefined(Exception):
    """An element's load direction is undefined at (t, y)."""

    def __init__(self, element, t, y):
        super().__init__(element)
        self.element, self.t, self.y = element, t, y


class Singular(Exception):
    """The rank rule's verdict (a code of :mod:`mbd.compiled.loopsolve`) at time t."""

    def __init__(self, code, t):
        super().__init__(code)
        self.code, self.t = code, t


def raise_status(status, t, y):
    """Raise what a compiled function's nonzero return says (:mod:`mbd.compiled.statefunction`)."""
    if status > 0:
        raise Undefined(status - 1, t, np.array(y, dtype=float))
    if status < 0:
        raise Singular(status, t)


class Run:
    """One simulation: the piece loop's bookkeeping, the output rows, the event log, the step
    budget."""

    stepper = None
    #: steps per batch: the progress bar, Ctrl-C and the step budget are looked at between
    #: batches (the compiled loop returns after each)
    BATCH = 2000

    def __init__(self, system, method, rtol, atol, max_step, exact, t0, t_end, times,
                 bar=None, max_steps=MAX_STEPS, auto=False):
        self.system = system
        # method "auto": start explicit, go implicit where the model turns stiff (stiff_at, s)
        self.auto, self.stiff_at = auto, None
        self.bar = ProgressBar(t0, t_end, False) if bar is None else bar
        self.t_now = t0   # the time the integration has reached, for the progress and Ctrl-C
        self.method = method
        self.rtol, self.atol, self.max_step = rtol, atol, max_step
        self.exact = exact
        self.t0, self.t_end, self.times = t0, t_end, times
        self.sd = sf.state_data(system)
        self.nf = len(system.force_elements)
        self.rows_t, self.rows_y, self.rows_s = [], [], []
        self.events = []
        self.watch = events.ChatterWatch(rtol, atol)
        self.next_row = 0
        self.nsteps = 0
        self.nfev = 0
        self.pieces = 0
        self.started = time.perf_counter()
        self.max_steps = max_steps
        self.batch = (t0, 0, self.started)   # (t, nsteps, wall time) when the batch began
        self.finite = None    # (t, y): the last state known finite, for a blow-up's message
        self.compile_time = 0.0   # s of compiling the run's kernels (0: all from the cache)
        self.h_restart = 0.0  # the first step of the next piece, s (0: the integrator's rule)

    # ------------------------------------------------------------------ state and rows

    @property
    def sides(self):
        """The current mode's sides (nf, SWITCHES), the data's own array."""
        return self.sd.data.mode["sides"]

    def project(self, t, y):
        """y moved onto the constraints (a copy), with the rank rule's verdict raised."""
        y = np.array(y, dtype=float)
        if self.sd.constrained:
            sf.refresh(self.sd, t, y)
            status = self.sd.call(sf.projection, y, self.sd.data)
            if status != 0:
                raise Singular(status, t)
        return y

    def row(self, t, y):
        y = self.project(t, y)
        self.rows_t.append(t)
        self.rows_y.append(y)
        self.rows_s.append(self.sides.copy())

    def rows_until(self, t, dense, inclusive=True):
        """Add the output rows at or before t (before, when not inclusive) from dense output."""
        times = self.times
        while self.next_row < len(times) and (times[self.next_row] < t or
                                              (inclusive and times[self.next_row] <= t)):
            tk = times[self.next_row]
            y = dense(tk)
            if not self.exact:   # the branch at that row, as the state selects it
                sf.natural_mode(self.sd, tk, y)
            self.row(tk, y)
            self.next_row += 1

    def event_row(self, t, y, dense):
        """The row at an event time t, after the output rows before it; it stands for an
        output time it hits exactly."""
        self.rows_until(t, dense, inclusive=False)
        if not self.exact:      # the rows before reset the branches to their own
            sf.natural_mode(self.sd, t, y)
        self.row(t, y)
        if self.next_row < len(self.times) and self.times[self.next_row] <= t:
            self.next_row += 1

    def result(self):
        stats = {"nfev": self.nfev, "nsteps": self.nsteps, "pieces": self.pieces,
                 "events": len(self.events),
                 "method": "auto" if self.auto else self.method.__name__,
                 "rtol": self.rtol, "atol": self.atol, "exact_switching": self.exact,
                 "wall_time": time.perf_counter() - self.started, "stepper": self.stepper,
                 "compile_time": self.compile_time}
        if self.auto:   # which method ran, and where the model was found stiff
            stats.update(stiff_at=self.stiff_at, methods=[self.method.__name__] if
                         self.stiff_at is None else ["DOP853", self.method.__name__])
        n = len(self.rows_t)
        sides = np.array(self.rows_s).reshape(n, self.nf, layout.SWITCHES)
        width = self.system.nq + self.system.nv + sf.work_size(self.system)
        return Result(self.system, np.array(self.rows_t), np.array(self.rows_y).reshape(n, width),
                      events=self.events, stats=stats, sides=sides)

    # ------------------------------------------------------------------ failures

    def fail(self, message, t, cause=None):
        """Raise a SimulationError with ``message`` and the rows computed so far (chained to
        ``cause``)."""
        raise SimulationError(message, result=self.result(), t=t) from cause

    def check_budget(self, t, y):
        """After a batch of steps, at (t, y): fail when the run has taken ``max_steps``
        steps, or when, past a hundredth of them, the last batch's step size projects a
        total beyond it (a stiff or stalled run fails in seconds, not hours)."""
        n = self.nsteps
        t_b, n_b, wall_b = self.batch
        if n - n_b < self.BATCH and n < self.max_steps:
            return
        now = time.perf_counter()
        self.batch = (t, n, now)
        h = (t - t_b) / (n - n_b)
        remaining = (self.t_end - t) / h if h > 0.0 else np.inf
        if n >= self.max_steps or (n >= self.max_steps // 100 and
                                   n + remaining > self.max_steps):
            self.fail_slow(t, y, h, n + remaining, (now - wall_b) / (n - n_b) * remaining)

    def check_singular(self, t, y):
        """Before failing for steps that shrank to nothing at (t, y): where the constraint
        equations are that close to dependent there (their weakest direction's strength
        below :data:`mbd.compiled.loopsolve.NEAR_SINGULAR`), the mechanism has met a singular
        configuration, and that is the failure."""
        if not self.sd.constrained or not np.all(np.isfinite(y)):
            return
        sf.derivative(self.sd, t, y)
        if self.sd.data.loop[0]["smallest"] < loopsolve.NEAR_SINGULAR:
            raise Singular(loopsolve.SINGULAR, t)

    def fail_slow(self, t, y, h, projected, seconds):
        """The step budget's failure at (t, y): how far the run got, what finishing would
        take at step size h (``projected`` steps, ``seconds`` more), and why the steps are
        this short (:mod:`mbd.run.diagnosis`)."""
        self.check_singular(t, y)
        name = self.method.__name__
        done = self.nsteps >= self.max_steps
        head = (f"the run took its max_steps = {self.max_steps} steps and reached only "
                f"t = {t:.9g} s of {self.t_end:g} s" if done else
                f"the run cannot finish within max_steps = {self.max_steps}: at t = {t:.9g} s "
                f"of {self.t_end:g} s, after {self.nsteps} steps")
        head += (f"; at its present step size of {h:.3g} s it needs about {projected:.3g} "
                 f"steps in all ({_duration(seconds)} more)")
        if h >= 0.5 * self.max_step:
            self.fail(f"{head}. The step is held at max_step = {self.max_step:g} s: raise it "
                      "(the integrator chooses its steps by the tolerances).", t)
        mode = diagnosis.fastest_mode(self.sd, t, y)
        if mode is None:
            self.fail(head + ".", t)
        h_lam = h * mode.rate
        if h_lam < 0.05:
            why = (f"The step is far shorter (h |lambda| = {h_lam:.2g}) than the model's "
                   f"fastest time scale, {mode.what}: the tolerances (rtol = "
                   f"{self.rtol:g}, atol = {self.atol:g}) may be too tight for a state that "
                   "passes through zero, or a force jumps where no switching function sees "
                   "it.")
        else:
            implicit = self.method not in ONE_STEP
            bdf = (" BDF is unstable for lightly damped oscillations: use method='Radau'."
                   if implicit and name == "BDF" and mode.oscillating else "")
            advice = (f"Even the implicit {name} follows it.{bdf}" if implicit else
                      "An implicit method steps over a fast mode: method='Radau'" +
                      (" (not 'BDF', unstable for lightly damped oscillations)"
                       if mode.oscillating else "") + ".")
            why = (f"The model is stiff: its fastest mode sets the step (h |lambda| = "
                   f"{h_lam:.2g}), {mode.what}, {mode.rate * (self.t_end - self.t0):.2g} times "
                   f"faster than the run; {mode.source}. {advice} If that fast motion matters, "
                   "soften or damp the element, give the bodies it moves more mass, or raise "
                   "max_steps.")
        self.fail(f"{head}. {why}", t)

    #: a state entry past this (in SI units) has blown up, whatever made the integrator stop
    HUGE = 1e100

    def fail_integrator(self, t, y, what, cause=None):
        """The integrator gave up at (t, y) (``what`` it said): a state that blew up is
        reported as such (:meth:`fail_blow_up`); a tolerance too small for double precision
        is named."""
        if not np.all(np.abs(y) < self.HUGE):
            self.fail_blow_up(t, y)
        self.check_singular(t, y)
        what = what.rstrip(".")
        message = f"the integrator {self.method.__name__} failed at t = {t:.9g} s: {what}"
        held = np.flatnonzero(self.rtol * np.abs(y) < self.atol)   # entries atol controls
        if self.atol < 1e-14 and len(held):
            labels = sf.state_labels(self.system)
            message += (f". With atol = {self.atol:g}, {labels[held[0]]} (= {y[held[0]]:.3g} "
                        f"here) must be computed to within about {self.atol:g}, finer than "
                        "double precision resolves as it changes: raise atol")
        else:
            message += (f" (rtol = {self.rtol:g}, atol = {self.atol:g}): the solution may "
                        "change faster here than any step can follow (a force that jumps, a "
                        "singular mass matrix)")
        self.fail(message, t, cause=cause)

    def fail_blow_up(self, t, y):
        """Fail because the state stopped being finite, or grew past :attr:`HUGE`, at t: name
        the entries and, from the last finite state (``self.finite``, else the rows), the
        unstable mode and its element (:mod:`mbd.run.diagnosis`)."""
        labels = sf.state_labels(self.system)
        finite = np.all(np.isfinite(y))
        bad = [labels[i] for i in np.flatnonzero(~(np.abs(y) < self.HUGE))]
        more = f" and {len(bad) - 4} more" if len(bad) > 4 else ""
        entries = f"{', '.join(bad[:4])}{more}"
        message = (f"the state grew past {self.HUGE:g} at t = {t:.9g} s ({entries})" if finite
                   else f"the state became non-finite at t = {t:.9g} s ({entries})")
        # the last finite state may be too far out to tell the element: the rows before it
        states = [(self.rows_t[-1], self.rows_y[-1]), (self.rows_t[0], self.rows_y[0])] + \
            ([self.finite] if self.finite is not None else [])
        found = [(t_f, diagnosis.unstable_mode(self.sd, t_f, y_f)) for t_f, y_f in states]
        found = [f for f in found if f[1] is not None]
        found.sort(key=lambda f: f[1].element is None)        # one with its element first
        t_f, mode = found[0] if found else (states[0][0], None)
        if mode is not None:
            message += (f": the motion grew without bound. At t = {t_f:.9g} s the linearized "
                        f"model has an unstable mode: {mode.what}; {mode.source}. A force "
                        "element that feeds energy in (negative damping or stiffness) does "
                        "this")
        else:
            message += (f"; the linearized model does not grow at t = {t_f:.9g} s: a mass "
                        "matrix that became singular (a body without mass or inertia where a "
                        "joint moves it) or a Python function of the model that returned a huge "
                        "value may be the cause")
        self.fail(message, t)

    def go(self, y):
        try:
            return self._go(self.t0, y)
        except KeyboardInterrupt as err:
            # Ctrl-C: keep what was computed; a row may be half-appended, so trim to whole rows
            n = min(len(self.rows_t), len(self.rows_y), len(self.rows_s))
            del self.rows_t[n:], self.rows_y[n:], self.rows_s[n:]
            reached = self.rows_t[-1] if n else self.t0
            raise SimulationError(f"interrupted at t = {self.t_now:.9g} s (of {self.t_end:g} s); "
                                  f"the result holds the {n} rows up to t = {reached:.9g} s",
                                  result=self.result(), t=self.t_now) from err
        finally:
            self.bar.update(self.t_now, len(self.events), force=True)
            self.bar.close()

    def _go(self, t, y):
        s = self.system
        try:
            sf.natural_mode(self.sd, t, y)
            at_rest = self.sides.copy()        # stiction elements at rest stick, or slip
            y = self.settle_locks(t, y)
            self.log_stiction(t, y, at_rest)
            if self.sd.constrained:     # the rank rule's rank, at the assembled state
                raise_status(sf.derivative(self.sd, t, y)[1], t, y)
            self.logged = self.sides.copy()
            self.row(t, y)
            self.next_row = 1
            while t < self.t_end:
                t, y = self.piece(t, y)
        except Singular as err:
            loop = self.sd.data.loop[0]
            loops = "; ".join(f"loop {s.loop_joints(c)}" for c in s.cut_joints)
            drivers = (f"; drivers and gears {[d.name for d in s.drivers]}" if s.drivers
                       else "")
            if err.code == loopsolve.NOT_CLOSED:
                what = ("the projection onto the constraint equations did not converge: the "
                        "mechanism cannot stay closed here")
            elif err.code == loopsolve.RANK_GREW:
                what = (f"the constraint equations gained rank: the mechanism started where "
                        f"they have rank {loop['rank']} on the tree's coordinates (the cut "
                        f"joints' own ones aside), a change point, and here they have rank "
                        f"{loop['found']} (the new equation's strength {loop['smallest']:.2g}, "
                        f"above {loopsolve.RANK_TOLERANCE:g}): which branch it leaves on is "
                        "not determined; start it off the change point, or moving")
            elif loop['found'] < loop['rank']:
                what = (f"the constraint equations became dependent (rank {loop['found']} "
                        f"instead of {loop['rank']} on the tree's coordinates, the cut joints' "
                        f"own ones aside; the weakest equation's strength {loop['smallest']:.2g},"
                        f" below {loopsolve.RANK_TOLERANCE:g})")
            else:
                what = (f"the constraint equations are about to become dependent (the weakest "
                        f"of rank {loop['rank']} has strength {loop['smallest']:.2g}) and the "
                        "motion demands rates they cannot give")
            self.fail(f"singular configuration at t = {err.t:.9g} s: {what} ({loops}{drivers})"
                      "; the mechanism has reached a dead centre or locks up, where its motion "
                      "is not determined (a change point that the motion crosses with a "
                      "continuous velocity is passed)", err.t)
        except sf.UserFunctionError as err:
            cause = err.__cause__
            self.fail(f"{err.element}: {err.function} raised {type(cause).__name__} at t = "
                      f"{err.t:.9g} s: {cause}", err.t, cause=cause)
        except Undefined as err:
            if not np.all(np.abs(err.y) < self.HUGE):   # a blow-up reached the element first
                self.fail_blow_up(err.t, err.y)
            fe = s.force_elements[err.element]
            why = ("its CSs coincide (|r| = 0) at zero relative velocity while the law's force "
                   "there is not zero" if fe.placement == "line" else
                   "B is turned half a turn relative to A about an axis perpendicular to the "
                   "element's axis, where the twist angle is undefined")
            self.fail(f"{fe.label()}: the direction of its load is undefined at t = "
                      f"{err.t:.9g} s: {why} (q = {np.round(err.y[:s.nq], 9).tolist()}, "
                      f"v = {np.round(err.y[s.nq:s.nq + s.nv], 9).tolist()})", err.t)
        return self.result()

    # ------------------------------------------------------------------ events

    def end_at_crossing(self, ta, tb, dense, mask):
        """Locate the earliest crossing among ``mask`` in (ta, tb] on the step's dense output,
        end the piece there, update the mode and log the switches; returns (t, y) there."""
        tol = events.time_tolerance(ta, tb)
        sd, sides = self.sd, self.sides
        first_t, first = np.inf, None
        for i, k in zip(*np.nonzero(mask)):
            t_hit = self.locate(i, k, ta, tb, dense, tol)
            if t_hit < first_t:
                first_t, first = t_hit, (i, k)
        t, y = first_t, dense(first_t)
        self.rows_until(t, dense, inclusive=False)     # in the old branches
        i, k = first
        before = sides.copy()
        armed = sf.armed(sd, before)
        passage = k == layout.PLACEMENT_SWITCH and self._at_anchor(t, y, i)
        # the direction a stiction element breaking free slips: its lock's force, as it was
        pushed = self.lock_forces(t, y)[i] if k == 1 and i in self.system.locks else 0.0
        # the branches from just past the crossing: a switch armed by it may be exactly zero
        # there (BISTOP's force at the first touch) and only its sign a moment later tells
        h = 256.0 * tol
        sf.natural_mode(sd, t + h, dense(t + h))
        if k != layout.PLACEMENT_SWITCH:   # a line's new reference starts on its + side
            sides[i, k] = -before[i, k]    # across, whatever round-off says at the crossing
        if pushed:                         # it slips the way the mechanism pushes it
            sides[i, 0] = -np.sign(pushed)
        elif k == 0 and i in self.system.locks:
            sides[i, 1] = -1.0             # its rate reached zero: it sticks if it can
        if self.system.locks:   # sticking where the rate reached zero, if the lock holds
            y = self.settle_locks(t, y)
        # log every law switch that acted before and flipped here: other elements may switch
        # at the same instant (two identical gaps); stiction elements say how they move
        flipped = armed & (before != sides)
        flipped[:, layout.PLACEMENT_SWITCH] = False
        flipped[self.system.locks] = False
        logged = self.log_stiction(t, y, before)
        for i2, k2 in zip(*np.nonzero(flipped)):
            fe = self.system.force_elements[i2]
            self.log(t, fe.name, fe.law.describe(k2, sides[i2, k2], sides[i2]), y)
            logged = True
        # the next piece begins with a step of sqrt(rtol) times this one, and the controller
        # regrows it within a few steps. Where a law switches its force is not smooth (a
        # contact force ~ pen^e starts with its first derivatives zero, or infinite for
        # e < 2), and the usual initial step is sized from those derivatives: measured by the
        # energy balance of a block in a Bistop slot, the run's error was up to 90 times rtol
        # with it, 2 to 17 times with this one
        self.h_restart = np.sqrt(self.rtol) * (tb - ta)
        if passage:
            self.log(t, self.system.force_elements[i].name,
                     "passes through its anchor: the force direction reverses", y)
            logged = True
        if logged:
            self.event_row(t, y, dense)
            self.check_chatter()
        return t, y

    # ------------------------------------------------------------------ stick-slip

    def lock_forces(self, t, y):
        """{stiction element index: the force its lock applies (N or N m)} at (t, y) in the
        current mode (zero for one that slips)."""
        sd = self.sd
        sf.set_locks(sd, self.sides)
        raise_status(sf.derivative(sd, t, y)[1], t, y)
        return sf.lock_forces(sd)

    def settle_locks(self, t, y):
        """Every stiction element the mode has sticking (at a rate of zero) keeps sticking if
        its lock can hold it, |force| < f_static; the others slip the way they are pushed.
        When several cannot, the one furthest past its limit goes first and the rest are
        tried again (releasing one loads the others). A lock whose row depends on the
        mechanism's own rows (a slider at a crank's dead centre, its rate zero whatever the
        crank does) holds nothing and slips the way the mechanism moves it; locks that depend
        on each other (two on one coordinate, or on two geared shafts) share a force that is
        not determined: a SimulationError says so. Returns y on the constraints."""
        s, sides = self.system, self.sides
        if not s.locks:
            return y
        stuck = [i for i in s.locks if sides[i, 1] < 0.0]
        if stuck:
            base = self.rows_rank(t, y, [])
            for i in stuck:
                if self.rows_rank(t, y, [i]) == base:     # held by the mechanism already
                    sides[i, 1] = 1.0
                    sides[i, 0] = self.slip_direction(t, y, i, 1.0)
            stuck = [i for i in stuck if sides[i, 1] < 0.0]
            if len(stuck) > 1 and self.rows_rank(t, y, stuck) < base + len(stuck):
                names = [s.force_elements[i].name for i in stuck]
                self.fail(f"stick-slip at t = {t:.9g} s: the stiction elements {names} lock "
                          "dependent motions (one coordinate, or coordinates tied by a gear "
                          "or a loop), so how their holding force splits between them is not "
                          "determined; model them as one element (f_static and f_kinetic "
                          "summed, referred to one coordinate)", t)
        while True:
            forces = self.lock_forces(t, y)
            over = [(abs(forces[i]) / s.force_elements[i].law.f_static, i) for i in s.locks
                    if sides[i, 1] < 0.0 and
                    abs(forces[i]) >= s.force_elements[i].law.f_static]
            if not over:
                break
            i = max(over)[1]
            sides[i, 1] = 1.0
            sides[i, 0] = self.slip_direction(t, y, i, -np.sign(forces[i]) or 1.0)
        sf.set_locks(self.sd, sides)
        return self.project(t, y)

    def slip_direction(self, t, y, i, preferred):
        """The direction stiction element i, released at (t, y) with a rate of zero, slips:
        ``preferred`` (+-1, the way its lock's force says it is pushed) if its coordinate's
        acceleration, with kinetic friction opposing that way, goes that way too; else the
        other way if that one is consistent (the mechanism moves it regardless, as at a
        dead centre); else ``preferred``."""
        sides, sd = self.sides, self.sd
        sides[i, 1] = 1.0
        k = self.system.nq + int(self.system.elements[i]["v_index"])
        for direction in (preferred, -preferred):
            sides[i, 0] = direction
            sf.set_locks(sd, sides)
            dy, status = sf.derivative(sd, t, y)
            raise_status(status, t, y)
            if dy[k] * direction > 0.0:
                return direction
        return preferred

    def rows_rank(self, t, y, locked):
        """The rank (by the rank rule) of the constraint rows at (t, y) with the locks of the
        stiction elements ``locked`` (indices) holding and the others not."""
        s, drivers = self.system, self.sd.data.drivers
        saved = drivers["active"].copy()
        for k in range(len(s.drivers), len(drivers)):
            drivers[k]["active"] = 1.0 if drivers[k]["element"] in locked else 0.0
        try:
            q = assembly.normalized(s.tree, y[:s.nq])
            G = assembly.Rows(s, self.sd.data)(t, q, y[s.nq:s.nq + s.nv])[0]
        finally:
            drivers["active"] = saved
        sv = np.linalg.svd(G, compute_uv=False)
        return loopsolve.numerical_rank(sv, G.shape[0])

    def log_stiction(self, t, y, before):
        """Log how each stiction element's motion changed from the mode ``before``: it
        sticks, breaks free or reverses; returns whether any did."""
        logged = False
        for i in self.system.locks:
            was, now = before[i], self.sides[i]
            direction = "forwards (+)" if now[0] > 0.0 else "backwards (-)"
            if now[1] < 0.0:
                what = "sticks" if was[1] > 0.0 else None
            elif was[1] < 0.0:
                what = f"breaks free: slips {direction}"
            else:
                what = f"reverses: slips {direction}" if now[0] != was[0] else None
            if what:
                self.log(t, self.system.force_elements[i].name, what, y)
                logged = True
        return logged

    def locate(self, i, k, ta, tb, dense, tol):
        """Where switching function (i, k) leaves its side in (ta, tb] (see
        :func:`mbd.compiled.events.illinois`), on the step's dense output."""
        sd = self.sd

        def g_ik(t):
            return sf.switching(sd, t, dense(t))[i, k]

        return events.locate(g_ik, ta, tb, self.sides[i, k], tol)

    def _at_anchor(self, t, y, i):
        """Whether line element i's CS B is at its CS A (|r| at round-off of the drawing's
        size): a passage through the anchor, not a turn of the line past its reference."""
        sf.switching(self.sd, t, y)
        X = self.sd.data.estate[i]
        return np.linalg.norm(X["point_b"] - X["point_a"]) <= 1e-8 * self.system.length_scale

    def log(self, t, element, what, y):
        self.events.append(events.Event(float(t), element, what))
        self.watch.switched(float(t), element, y)

    def check_chatter(self):
        """Fail when the switches chatter (checked after the event row is written, so the
        failed run's rows include every logged event)."""
        found = self.watch.chattering()
        if found:
            element, count, t_first, t_last = found
            last = self.events[-1]
            self.fail(f"chattering: force element '{element}' switched {count} times between "
                      f"t = {t_first:.12g} s and {t_last:.12g} s (last: {last.what}) while the "
                      "state did not change to the integration tolerance; the law keeps "
                      "crossing a branch boundary without the motion progressing", last.t)

    def log_natural_switches(self, t, y):
        """Exact switching off: log the branches that changed since the last logged ones
        (a switch that can act both before and after, as exact switching logs it); returns
        whether any did."""
        before = self.logged
        sf.natural_mode(self.sd, t, y)
        after = self.sides.copy()
        changed = sf.armed(self.sd, before) & sf.armed(self.sd, after) & (before != after)
        changed[:, layout.PLACEMENT_SWITCH] = False
        for i, k in zip(*np.nonzero(changed)):
            fe = self.system.force_elements[i]
            self.log(t, fe.name, fe.law.describe(k, after[i, k], after[i]), y)
        self.logged = after
        return bool(changed.any())


class Integrand:
    """f(t, y) for scipy's solvers: the compiled right-hand side of :mod:`mbd.compiled.statefunction`,
    raising what a nonzero status says; with ``natural=True`` every call selects the mode
    from the state (exact switching off)."""

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


class ScipyRun(Run):
    """A run stepped by a scipy ``OdeSolver`` from Python."""

    stepper = "scipy"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.compile_time = warmup.first_right_hand_side(self.sd, compiled=False)
        self.f = Integrand(self.sd, natural=not self.exact)
        # a multistep method restarts once the projection moves the state further than its
        # own error tolerance would (restarting at every round-off drift keeps it at order 1)
        self.drift_limit = 10.0 * self.atol * self.system.length_scale

    def result(self):
        self.nfev = self.f.nfev
        return super().result()

    def piece(self, t, y):
        """Integrate one smooth piece from (t, y); return where the next one starts."""
        self.pieces += 1
        first = min(self.h_restart, self.t_end - t, self.max_step)
        with np.errstate(all="ignore"):      # its initial step's trial values, as below
            solver = self.method(self.f, t, y, self.t_end, rtol=self.rtol, atol=self.atol,
                                 max_step=self.max_step,
                                 first_step=first if first > 0.0 else None)
        self.h_restart = 0.0
        armed = sf.armed(self.sd) if self.exact else None
        mask = np.zeros_like(armed) if self.exact else None
        while solver.status == "running":
            t_old = solver.t
            self.finite = (solver.t, solver.y)    # the step replaces solver.y, never edits it
            try:
                # non-finite trial values are the error control's to reject, not warnings
                with np.errstate(all="ignore"):
                    message = solver.step()
            except (ValueError, ArithmeticError, np.linalg.LinAlgError) as err:
                # scipy's own linear algebra refusing a non-finite Jacobian or iterate
                self.fail_integrator(solver.t, solver.y, f"{type(err).__name__}: {err}", err)
            self.nsteps += 1
            self.t_now = solver.t
            self.bar.update(solver.t, len(self.events))
            if solver.status == "failed":
                self.fail_integrator(solver.t, solver.y, message)
            if not np.all(np.isfinite(solver.y)):
                self.fail_blow_up(solver.t, solver.y)
            self.check_budget(solver.t, solver.y)
            dense = None
            if self.exact and armed.any():
                g = sf.switching(self.sd, solver.t, solver.y)
                if events.crossed_mask(armed, g, self.sd.data.mode, mask):
                    return self.end_at_crossing(t_old, solver.t, solver.dense_output(), mask)
            elif not self.exact and self.log_natural_switches(solver.t, solver.y):
                # the switches are logged at the step's end: a row there, after the rows before
                self.event_row(solver.t, solver.y, solver.dense_output())
                self.check_chatter()
                continue
            if self.next_row < len(self.times) and self.times[self.next_row] <= solver.t:
                self.rows_until(solver.t, dense or solver.dense_output())
            if self.sd.constrained and solver.status == "running":
                y_on = self.project(solver.t, solver.y)
                if isinstance(solver, ONE_STEP):
                    # a one-step method restarts from y and its derivative: hand it both
                    solver.y = y_on
                    solver.f = self.f(solver.t, y_on)
                elif np.abs(y_on - solver.y).max() > self.drift_limit:
                    return solver.t, y_on      # a multistep method: start a new piece
        return solver.t, solver.y


class Interpolant:
    """The dense output of one compiled step, callable at a time t (s): the step's start
    (t_old, y_old), size h and coefficients (DOP853's F or Radau's Q) evaluated by its loop's
    ``dense_value``."""

    def __init__(self, loop, t_old, h, y_old, coefficients):
        self.loop = loop
        self.t_old, self.h, self.y_old, self.coefficients = t_old, h, y_old, coefficients

    def __call__(self, t):
        out = np.empty_like(self.y_old)
        self.loop.dense_value(t, self.t_old, self.h, self.y_old, self.coefficients, out)
        return out


class CompiledRun(Run):
    """A run whose pieces step in a compiled loop — :func:`mbd.run.stepper.advance` (DOP853) or
    :func:`mbd.run.radau.advance` (Radau IIA, for stiff models) — one compiled call per piece, or
    per BATCH steps, so the progress bar, Ctrl-C and the step budget still answer."""

    stepper = "compiled"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        n = self.system.nq + self.system.nv + sf.work_size(self.system)
        self.st = layout.records(layout.STEPPER, 1)
        self.st[0]["stiffness_check"] = self.auto
        self.out = np.zeros((len(self.times), n))
        self.g = np.zeros((self.nf, layout.SWITCHES))
        self.use(self.method)       # compiles on both cores first (mbd.run.warmup) ...
        self.addresses = sf.addresses(self.sd)     # ... then finds what it compiled

    def use(self, method):
        """Step with ``method`` (DOP853 or Radau) from here on: its loop, its arrays (made
        once per run) and its compiled code (compiled or loaded on first use)."""
        n = self.system.nq + self.system.nv + sf.work_size(self.system)
        self.method = method
        self.loop = radau if method is integrate.Radau else stepper
        if self.loop is radau:
            self.work = radau.make_work(n)
            self.arrays = (self.work,)
            self.y_old, self.coefficients, self.tmp = self.work.y_old, self.work.Q, \
                self.work.tmp
        else:
            K = np.zeros((stepper.N_STAGES_EXTENDED, n))
            self.y_old = np.zeros(n)
            self.coefficients = np.zeros((stepper.INTERPOLATOR_POWER, n))
            self.tmp = np.zeros((4, n))
            self.arrays = (K, self.y_old, self.coefficients, self.tmp)
        self.compile_time += warmup.first_right_hand_side(self.sd, compiled=True,
                                                          method=method.__name__)
        self.g_on_step = None      # the address of the loop's switching_on_step, when needed

    def result(self):
        self.nfev = int(self.st[0]["nfev"])
        result = super().result()
        if self.loop is radau:      # (Radau's counts: its steps are in nsteps too)
            result.stats["njev"] = int(self.work.radau[0]["njev"])
            result.stats["nlu"] = int(self.work.radau[0]["nlu"])
        return result

    def piece(self, t, y):
        self.pieces += 1
        sd = self.sd
        S = self.st[0]
        y = np.array(y, dtype=float)         # advanced in place
        S["t"] = t
        armed = sf.armed(sd)
        starting = True
        while True:
            S["next_row"] = first = self.next_row
            steps = int(S["nsteps"])
            status = self.chunk(y, armed, starting)
            starting = False
            self.nsteps += int(S["nsteps"]) - steps
            self.next_row = last = int(S["next_row"])
            if last > first:
                self.rows_t.extend(self.times[first:last])
                self.rows_y.extend(self.out[first:last])
                self.rows_s.extend([self.sides.copy()] * (last - first))
            if status == stepper.PAUSED and not S["t"] > t:   # NaN time, or stuck
                self.fail(f"the compiled integrator stopped advancing at t = {t:.9g} s "
                          f"(step size {S['h_abs']:.3g} s)", t)
            t = self.t_now = float(S["t"])
            self.bar.update(t, len(self.events))
            self.check_budget(t, y)
            if status == stepper.DONE:
                return t, y
            if status == stepper.STIFF:     # method "auto": on with Radau from this state
                self.stiff_at = t
                S["stiffness_check"] = 0
                self.use(integrate.Radau)
                starting = True
            if status == stepper.CROSSED:
                dense = Interpolant(self.loop, float(S["t_old"]), float(S["h_prev"]),
                                    self.y_old.copy(), self.coefficients.copy())
                mask = np.zeros_like(armed)
                events.crossed_mask(armed, sf.switching(sd, t, y), sd.data.mode, mask)
                return self.end_at_crossing(float(S["t_old"]), t, dense, mask)
            if status == stepper.TOO_SMALL:
                self.fail_integrator(t, y, "the step size fell below 10 units of round-off in t")
            if status == stepper.NONFINITE:
                self.finite = (float(S["t_old"]), self.y_old.copy())
                self.fail_blow_up(t, y)
            if status == stepper.FAILED:
                self.finite = (t, y.copy())
                self.check(int(S["bad"]))

    def locate(self, i, k, ta, tb, dense, tol):
        """Where switching function (i, k) leaves its side in (ta, tb] of the compiled step's
        interpolant, located in compiled code."""
        loop = self.loop
        context = loop.step_context(int(i), int(k), dense.t_old, dense.h, dense.y_old,
                                    dense.coefficients, np.empty_like(dense.y_old), self.g,
                                    self.addresses[1], self.sd.data)
        if self.g_on_step is None:
            self.g_on_step = native.address(loop.switching_on_step,
                                            types.float64(types.float64, native.typeof(context)))
        return self.sd.call(loop.locate_on_step, self.g_on_step, *context[:2],
                            float(self.sides[i, k]), ta, tb, tol, *context[2:])

    def chunk(self, y, armed, starting):
        """Up to BATCH steps of the compiled loop (fewer where the step budget ends) from the
        stepper state, beginning a new piece if ``starting`` (see :func:`mbd.run.stepper.advance`);
        returns how it stopped."""
        rhs, switch, project = self.addresses
        h_first = self.h_restart if starting else 0.0     # used once, by the piece's start
        if starting:
            self.h_restart = 0.0
        steps = min(self.BATCH, max(self.max_steps - self.nsteps, 1))
        return self.sd.call(self.loop.advance, rhs, switch, project, self.sd.constrained,
                            starting, float(h_first), y, self.st, float(self.t_end),
                            float(self.rtol), float(self.atol), float(self.max_step), steps,
                            self.times, self.out, armed, self.g, *self.arrays, self.sd.data)

    def check(self, bad):
        """Raise what a compiled function's nonzero return says."""
        raise_status(bad, float(self.st[0]["t_bad"]), stepper.failed_state(self.tmp))


def _duration(seconds):
    """A wall time in words: seconds, minutes, hours or days."""
    if not np.isfinite(seconds):
        return "forever"
    for unit, size in (("days", 86400.0), ("hours", 3600.0), ("minutes", 60.0)):
        if seconds >= 2 * size:
            return f"about {seconds / size:.3g} {unit}"
    return f"about {seconds:.3g} s"


#: the methods a compiled loop implements
COMPILED_METHODS = (integrate.DOP853, integrate.Radau)


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
    varying = [fe.name for fe in system.force_elements if fe.law.time_varying]
    if varying:
        return f"the laws of {varying} have parameters given as Python functions of time"
    return ""

