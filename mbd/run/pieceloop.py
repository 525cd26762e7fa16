"""The piece loop: a run integrated piece by piece, stopping exactly where a law switches.

While a piece runs, every law's branch is frozen; a stepper (:mod:`mbd.run.steppers`: scipy's
solvers, or the compiled DOP853 and Radau) takes its steps. Everything else is the loop's, in
one place for both ways of stepping:

- events: the end of a piece at a located crossing, the new mode, the stiction locks
  (:mod:`mbd.run.locks`), the event log and chattering (:mod:`mbd.compiled.events`), in
  :mod:`mbd.run.pieceevents`;
- the output rows (:mod:`mbd.run.outputrows`);
- where a piece ends in time (:meth:`Run.piece_end`): the controllers' sample instants, where
  they are stepped and their outputs held (:mod:`mbd.run.controls`);
- the step budget, the progress bar, Ctrl-C, and the failures, which keep everything computed
  in ``SimulationError.result`` (their messages: :mod:`mbd.run.failures`).
"""
import time

import numpy as np

from ..compiled import events
from ..compiled.jit import interrupts
from ..model.errors import SimulationError
from . import failures, warmup
from .controls import Controls
from .evaluator import Evaluator
from .failures import BlewUp, Failed, IntegratorFailed, Singular, Undefined
from .locks import Locks
from .outputrows import OutputRows
from .patches import Patches
from .pieceevents import PieceEvents
from .progress import ProgressBar
from .steppers import collocation, dop853
from .steppers.scipy import ONE_STEP
from .steppers.stepping import CHANGE_POINT, CROSSED, DONE, JUMPED, NONSTIFF, STIFF
from .userfunctions import UserFunctionError


class Run(PieceEvents):
    """One simulation (its events, where a law switches: :class:`mbd.run.pieceevents.PieceEvents`).

    Parameters
    ----------
    system : System
    stepper_class : type
        :class:`mbd.run.steppers.scipy.ScipyStepper` or
        :class:`mbd.run.steppers.compiled.CompiledStepper`.
    method : scipy OdeSolver class
        The integration method (DOP853 for method "auto").
    settings : mbd.run.settings.Settings
        Tolerances and step limits.
    exact : bool
        Exact switching (stop at every crossing) or branches selected by the state.
    t0, t_end : float
        The run's span, s.
    times : ndarray
        The output times, s.
    bar : ProgressBar, optional
    auto : bool
        Method "auto": start explicit, go implicit where the model turns stiff, and explicit
        again where it no longer is.
    rows_to : str, path-like or None
        A folder the rows are written to as the run makes them
        (:class:`mbd.run.outputrows.OutputRows`).
    """

    #: steps per batch: the progress bar, Ctrl-C and the step budget are looked at between
    #: batches (the compiled loop returns after each)
    BATCH = 2000

    def __init__(self, system, stepper_class, method, settings, exact, t0, t_end, times,
                 bar=None, auto=False, rows_to=None):
        self.system, self.settings, self.exact = system, settings, exact
        self.auto = auto
        self.switches = []      # method "auto": [(t, the method from there on)], s
        self.jumped = 0         # change points Radau handed to DOP853 to jump
        self.bar = ProgressBar(t0, t_end, False) if bar is None else bar
        self.t0, self.t_end = t0, t_end
        self.t_now = t0   # the time the integration has reached, for the progress and Ctrl-C
        # the law kinds' addresses once the stepper's first compilation has them (with a
        # second process compiling them meanwhile): mbd.run.warmup.first_right_hand_side
        self.ev = Evaluator(system, laws=False)
        self.controls = None
        if system.controls:
            self.controls = self.ev.held = Controls(system, t0)
        self.rows = OutputRows(self.ev, times, exact, rows_to, self.controls)
        self.locks = Locks(self.ev)
        self.patches = Patches(self.ev)
        self.events = []
        self.watch = events.ChatterWatch(settings)
        self.pieces = 0
        self.piece_t0 = t0
        self.started = time.perf_counter()
        self.batch = (t0, 0, self.started)   # (t, nsteps, wall time) when the batch began
        self.first_step = 0.0   # the next piece's first step, s (0: the stepper's rule)
        # the step count the budget counts from: 0, or for a live simulation without an end
        # (t_end inf, no total to budget) the count where its advance began
        self.counted_from = 0
        self.armed = None       # the piece's armed switching functions
        self.pending = None     # a crossing located past where a live simulation stopped
        self.reached = None     # (t, y): the end of a piece reached past where it stopped
        self.logged = None      # the sides last logged (exact switching off)
        # (the stepper compiles its right-hand side through warmup's, which knows the targets)
        self.stepping = stepper_class(self.ev, method, self.rows, settings, exact, auto,
                                      compile_first=warmup.first_right_hand_side)

    @property
    def sides(self):
        """The current mode's sides (nf, SWITCHES), the data's own array."""
        return self.ev.data.mode["sides"]

    # ------------------------------------------------------------------ the run

    def go(self, y):
        """The run from (t0, y): its Result. SimulationError, holding the rows computed so
        far, where it fails or is interrupted (Ctrl-C)."""
        return self.guarded(self._go, self.t0, y)

    def guarded(self, work, *args):
        """``work(*args)``, with what stops a run (:class:`Failed` and the failures it is made
        of, Ctrl-C) raised as a SimulationError holding the rows computed so far."""
        try:
            return self.failing(work, *args)
        except KeyboardInterrupt as err:
            # Ctrl-C: keep what was computed (a row is counted once it is whole)
            n = len(self.rows)
            reached = self.rows.state(-1)[0] if n else self.t0
            # the rows of a compiled call that Ctrl-C ended are kept: they may lie past t_now
            at = max(self.t_now, reached)
            raise SimulationError(f"interrupted at t = {at:.9g} s (of {self.t_end:g} s); "
                                  f"the result holds the {n} rows up to t = {reached:.9g} s",
                                  result=self.result(), t=at) from err
        except Failed as err:
            raise SimulationError(err.message, result=self.result(), t=err.t) from err.__cause__
        finally:
            self.bar.update(self.t_now, len(self.events), force=True)
            self.bar.close()

    def _go(self, t, y):
        """The pieces from (t, y) to the end: the Result."""
        y = self.begin(t, y)
        while t < self.t_end:
            t, y = self.piece(t, y)
            y = self.sample(t, y)
        return self.result()

    def failing(self, work, *args):
        """``work(*args)``, with the ways a run fails (the integrator, a blow-up, an undefined
        direction, a singular position, a user's function) raised as :class:`Failed`."""
        try:
            try:
                return work(*args)
            except IntegratorFailed as err:
                self.integrator_failed(err)
            except BlewUp as err:
                self.blew_up(err.t, err.y)
            except Undefined as err:
                if not np.all(np.abs(err.y) < failures.HUGE):   # a blow-up reached it first
                    self.blew_up(err.t, err.y)
                raise Failed(failures.undefined_message(self.system, err), err.t) from None
        except Singular as err:
            raise Failed(failures.singular_message(self.system, self.ev.data.loop[0], err),
                         err.t) from None
        except failures.ControllerFailed as err:
            raise Failed(self.controls.failure_message(self.ev.data, err.status, err.t),
                         err.t) from None
        except UserFunctionError as err:
            cause = err.__cause__
            raise Failed(f"{err.element}: {err.function} raised {type(cause).__name__} at t = "
                         f"{err.t:.9g} s: {cause}", err.t) from cause

    def begin(self, t, y):
        """The run's start at (t, y): the branches the state selects, the stiction elements
        settled (and logged), the rank rule's rank (with constraints), the first row, rates
        that are finite. Returns y there, on the constraints."""
        self.ev.natural_mode(t, y)
        if self.system.contacts:          # (natural_mode measured every point)
            deep = failures.deep_contact_message(self.system, self.ev.data.estate, t)
            if deep:
                raise Failed(deep, t)
        if self.controls is not None:      # the controllers' first sample, at t0
            self.controls.sample(self.ev, t, y, self.sides)
        at_rest = self.sides.copy()        # stiction elements at rest stick, or slip
        y = self.locks.settle(t, y)
        self.log_all(t, y, self.locks.changes(at_rest))
        if self.patches:                   # contact patches at rest stick, or slip
            at_rest = self.sides.copy()
            y = self.patches.settle(t, y)
            self.log_all(t, y, self.patches.changes(at_rest))
        if self.ev.constrained:     # the rank rule's rank, at the assembled state
            failures.raise_status(self.ev.derivative(t, y)[1], t, y)
        self.logged = self.sides.copy()
        self.rows.row(t, y)
        self.rows.next_row = 1
        # rates that are not finite at the start (a law's NaN parameter) fail here: the
        # compiled steppers' first step would be of NaN size, and never end
        self.check_rates(t, y, "at the start")
        return y

    def check_rates(self, t, y, where):
        """Fail, naming the rates and the force elements, where the rates at (t, y) are not
        finite (the branches as they are)."""
        dy, status = self.ev.derivative(t, y)
        if status == 0 and not np.all(np.isfinite(dy)):
            raise Failed(failures.nonfinite_rates_message(self.ev, t, y, dy, self.sides,
                                                          where), t)

    def piece_end(self, t):
        """Where the piece that starts at t (s) ends at the latest, s: the run's end or the
        next sample instant of a controller. The loop ends the piece there exactly (the
        steppers clip their last step to it) and starts the next one from that state."""
        if self.controls is None:
            return self.t_end
        return min(self.t_end, self.controls.next_sample(t))

    def sample(self, t, y):
        """Where a piece ended at t (s): step the controllers due there and hold their
        outputs; the stiction elements settled under the new loads. Returns y."""
        if self.controls is None or not self.controls.due(t):
            return y
        self.controls.sample(self.ev, t, y, self.sides)
        y = self.locks.settle(t, y) if self.locks else y
        return self.patches.settle(t, y) if self.patches else y

    def piece(self, t, y):
        """Integrate one smooth piece from (t, y), the branches frozen, until it ends: at
        :meth:`piece_end`, at a located crossing, or where a multistep method restarts after
        a projection. Returns (t, y) where the next piece starts."""
        self.start_piece(t, y)
        return self.go_on()

    def start_piece(self, t, y):
        """Begin a piece at (t, y): the branches frozen, the switches that can change them
        armed."""
        self.pieces += 1
        self.piece_t0 = t       # where it began (a switch there: named if its steps collapse)
        self.armed = self.ev.armed() if self.exact else None
        self.stepping.start(t, y, self.piece_end(t), self.first_step, self.armed)
        self.first_step = 0.0

    def go_on(self, stop=np.inf):
        """Step the piece begun by :meth:`start_piece` until it ends (returns (t, y) where the
        next piece starts) or, for a live simulation, until a step reaches ``stop`` (s) first:
        then returns None with the piece still open (a crossing located past ``stop`` kept in
        :attr:`pending`, the piece's end reached past ``stop`` in :attr:`reached`, to be
        taken when it goes on: the piece then ends there as one run's does, and the sample
        due there is the caller's to take, as :meth:`_go` takes it)."""
        stepping = self.stepping
        if self.pending is not None:
            pending, self.pending = self.pending, None
            return self.end_at(*pending)
        if self.reached is not None:
            reached, self.reached = self.reached, None
            return reached
        while True:
            status = stepping.advance(self.steps_allowed() if stop == np.inf else 1)
            t, y = stepping.t, stepping.y
            self.t_now = t
            self.bar.update(t, len(self.events))
            interrupts.run_pending()    # a Ctrl-C another thread received acts between batches
            self.check_budget(t, y)
            if status == CROSSED:
                dense = stepping.dense()
                crossing = self.locate(stepping.t_old, t, y, dense)
                if crossing[0] > stop:      # after the time asked for: taken later
                    self.pending = crossing
                    return None
                return self.end_at(*crossing)
            if status == STIFF:     # method "auto": on with Radau from this state
                self.switches.append((t, "Radau"))
                stepping.go_implicit()
                continue
            if status == CHANGE_POINT:  # Radau nears a change point: DOP853 jumps it ...
                self.jumped += 1
                stepping.jump_explicitly()
                continue
            if status == JUMPED:    # ... and hands the run back
                stepping.go_implicit()
                continue
            if status == NONSTIFF:  # ... and with DOP853 again where it is no longer stiff
                self.switches.append((t, "DOP853"))
                stepping.go_explicit()
                continue
            if not self.exact and self.log_natural_switches(t, y):
                # the switches are logged at the step's end: a row there, after the rows before
                self.rows.event_row(t, y, stepping.dense())
                self.check_chatter()
                continue
            if self.rows.due <= t:
                self.rows.until(t, stepping.dense())
            if status == DONE:
                if t > stop:        # live: its end lies past stop, where it ends later
                    self.reached = (t, y.copy())
                    return None
                return t, y
            restart = stepping.end_step()
            if restart is not None:
                if t > stop:        # live: this piece's end, too, lies past stop
                    self.reached = (t, restart)
                    return None
                return t, restart
            if t >= stop:
                return None

    def method_stats(self, stepping_method):
        """Method "auto"'s part of the stats (``stepping_method``: the stepper's method's
        name now): where the model was first found stiff (``stiff_at``, s, or None), the
        methods in the order they ran (``methods``), and every change (``switches``: [(t in
        s, the method from there on)])."""
        if stepping_method == "LSODA":        # scipy's LSODA switches inside itself
            return {"stiff_at": None, "methods": ["LSODA"], "switches": []}
        methods = ["DOP853"] + [method for _, method in self.switches]
        return {"stiff_at": self.switches[0][0] if self.switches else None,
                "methods": methods, "switches": list(self.switches)}

    # ------------------------------------------------------------------ budget and failures

    def steps_allowed(self):
        """The steps the next advance may take: a batch, or what is left of the budget."""
        taken = self.stepping.nsteps - self.counted_from
        return min(self.BATCH, max(self.settings.max_steps - taken, 1))

    def check_budget(self, t, y):
        """After a batch of steps, at (t, y): fail when the run has taken ``max_steps``
        steps, or when, past a hundredth of them, the last batch's step size projects a
        total beyond it (a stiff or stalled run fails in seconds, not hours). A live
        simulation without an end (t_end inf) has no total: ``max_steps`` bounds each of its
        advances (:attr:`counted_from`), and nothing is projected."""
        total, max_steps = self.stepping.nsteps, self.settings.max_steps
        n = total - self.counted_from
        t_b, n_b, wall_b = self.batch
        if total - n_b < self.BATCH and n < max_steps:
            return
        now = time.perf_counter()
        self.batch = (t, total, now)
        h = (t - t_b) / (total - n_b)
        if self.t_end == np.inf:
            remaining = 0.0
        else:
            remaining = (self.t_end - t) / h if h > 0.0 else np.inf
        if n >= max_steps or (n >= max_steps // 100 and n + remaining > max_steps):
            failures.check_singular(self.ev, t, y)
            method = self.stepping.method
            raise Failed(failures.slow_message(
                self.ev, method, method not in ONE_STEP, self.settings, (self.t0, self.t_end),
                n, t, y, h, n + remaining, (now - wall_b) / (total - n_b) * remaining,
                self.piece_switch()), t)

    def piece_switch(self):
        """The switch the current piece began at (the last :class:`mbd.Event`), or None."""
        events = self.events
        return events[-1] if events and events[-1].t >= self.piece_t0 else None

    def integrator_failed(self, err):
        """The integrator gave up (:class:`mbd.run.failures.IntegratorFailed`): a state that blew
        up is reported as such, a singular configuration as that, else its own words."""
        if not np.all(np.abs(err.y) < failures.HUGE):
            self.blew_up(err.t, err.y)
        failures.check_singular(self.ev, err.t, err.y)
        # rates that stop being finite just ahead (a K(t) that is NaN from some t on, a Table
        # of time past its breakpoints with extrapolate='error'): every step across is
        # rejected until the step size underflows. The last step tried was shorter than
        # min_step / MIN_FACTOR (the steppers' 10 units of round-off in t, a rejected step
        # shrunk by at most MIN_FACTOR): probed there, past any stage of it; the state barely
        # moves within it
        ahead = 10.0 / min(dop853.MIN_FACTOR, collocation.MIN_FACTOR) * np.spacing(err.t)
        for t in (err.t, err.t + ahead):
            self.check_rates(t, err.y, "where the run stopped")
        cause = failures.collapse_cause(self.ev, err.t, err.y, self.piece_switch())
        raise Failed(failures.integrator_message(self.system, self.stepping.method,
                                                 self.settings, err.t, err.y, err.what, cause),
                     err.t) from err.__cause__

    def blew_up(self, t, y):
        """Fail because the state stopped being finite, or grew past HUGE, at t: the cause
        looked for at the last rows and the last finite state."""
        # the last finite state may be too far out to tell the element: the rows before it
        rows = self.rows
        states = [rows.state(-1), rows.state(0)]
        if self.stepping.finite is not None:
            states.append(self.stepping.finite)
        raise Failed(failures.blow_up_message(self.ev, t, y, states), t) from None

    def result(self):
        """The rows so far as a Result, with the run's stats."""
        s = self.stepping
        stats = {"nfev": s.nfev, "nsteps": s.nsteps, "pieces": self.pieces,
                 "events": len(self.events),
                 "method": "auto" if self.auto else s.method.__name__,
                 "rtol": self.settings.rtol, "atol": self.settings.atol,
                 "exact_switching": self.exact,
                 "wall_time": time.perf_counter() - self.started, "stepper": s.name,
                 "compile_time": s.compile_time, "change_points_handed_over": self.jumped,
                 "t_end": self.t_end}
        if self.auto:
            stats.update(self.method_stats(s.method.__name__))
        stats.update(s.counts())
        if self.controls is not None:
            stats["samples"] = sum(len(v) for v in self.controls.samples.values())
        return self.rows.result(self.events, stats, None if self.controls is None
                                else self.controls.snapshot())
