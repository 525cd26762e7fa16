"""The compiled way of stepping a piece: :class:`CompiledStepper` runs a whole batch of steps
compiled, DOP853 (:mod:`mbd.run.steppers.dop853`) or Radau IIA (:mod:`mbd.run.steppers.radau`)
under their one contract (:mod:`mbd.run.steppers.stepping`): the same methods and step control
as scipy's, several times faster; :func:`blocker` says where it cannot run.

It has the interface of the piece loop's steppers (:mod:`mbd.run.steppers`), which
:class:`mbd.run.steppers.scipy.ScipyStepper` shares.
"""
import numpy as np
from numba import types
from scipy import integrate

from ...compiled.jit import native
from .. import controls, evaluator
from ..failures import BlewUp, Failed, IntegratorFailed, raise_status
from . import dop853, radau, steplocate, stepping
from .scipy import COMPILED_METHODS
from .stepping import FAILED, NONFINITE, PAUSED, TOO_SMALL


class CompiledDense:
    """The dense output of one compiled step, callable at a time t (s): the step's start
    (t_old, y_old), size h and coefficients (DOP853's F or Radau's Q, copies), and the
    crossing search on it, compiled (:mod:`mbd.run.steppers.steplocate`)."""

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
        return owner.ev.call(steplocate.locate_on_step, owner.g_on_step(context), context,
                             float(side), ta, tb, tol)


#: the most output rows one call of the compiled loop writes (a few tenths of a second at
#: most, which Ctrl-C waits for): the steps of a call are fewer when each spans many rows
ROWS_PER_CALL = 200_000
#: the most a compiled method's step grows from one step to the next (their MAX_FACTOR)
GROWTH = max(dop853.MAX_FACTOR, radau.MAX_FACTOR)


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

    def __init__(self, ev, method, rows, settings, exact, auto, compile_first):
        self.ev, self.rows = ev, rows
        self.compile_first = compile_first
        system = ev.system
        # [q, v, W] and the continuous controllers' states (compiled ones run here)
        n = system.nq + system.nv + evaluator.work_size(system) + (
            ev.held.n_states if ev.held is not None else 0)
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
        self.functions = stepping.Functions(*ev.addresses(), bool(ev.constrained), ev.data)
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
        self.loop = radau if radau_iia else dop853
        self.dense_kind = steplocate.RADAU if radau_iia else steplocate.DOP853
        if method not in self.works:     # (Radau's keeps its counts over every switch)
            self.works[method] = self.loop.make_work(self.piece)
            self.compile_time += self.compile_first(self.ev, compiled=True,
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
        ``mbd.run.steppers.radau._calm_test``)."""
        self._switch(integrate.Radau)
        self.work.radau[0]["took_over"] = self.nsteps

    def jump_explicitly(self):
        """Radau nears a change point of the constraints (:mod:`mbd.run.steppers.changepoints`):
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
        """Up to ``steps`` steps of the compiled loop (see :mod:`mbd.run.steppers.stepping`), and
        fewer when the steps are long: about :data:`ROWS_PER_CALL` output rows at most, at the last
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
            status = self.ev.call(self.loop.advance, self.functions, self.work, self.record)
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
        :func:`mbd.run.steppers.stepping.departures`)."""
        return self.work.turn[stepping.DIP].copy()

    def dense(self):
        """The last step's dense output (:class:`CompiledDense`)."""
        S = self.S
        return CompiledDense(self, float(S["t_old"]), float(S["h_prev"]),
                             self.work.y_old.copy(), self.coefficients.copy())

    def g_on_step(self, context):
        """The address of :func:`mbd.run.steppers.steplocate.switching_on_step` for
        ``context``'s types."""
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
