"""What the compiled steppers share: their contract and the parts of a step that are the same
in DOP853 (:mod:`mbd.run.steppers.dop853`) and Radau IIA (:mod:`mbd.run.steppers.radau`).

The contract: ``advance(f, work, settings) -> status`` steps one piece from ``work.st.t``,
``work.y`` until the piece ends at ``work.st.t_bound``, an armed switching function changes
sign, or ``work.st.pause_at`` steps have been taken in all; it writes the output rows due on
the way and returns how it stopped (:data:`DONE` ... :data:`STIFF`).

- ``f`` (:data:`Functions`): the model, as the addresses of its compiled right-hand side,
  switching function and projection (:mod:`mbd.compiled.jit.native`) and the data they evaluate;
- ``work``: everything that changes, a named tuple whose first fields are :data:`PIECE`
  (the ``STEPPER`` record, the state, the output rows, the armed switches) followed by the
  method's own arrays (:func:`mbd.run.steppers.dop853.make_work`,
  :func:`mbd.run.steppers.radau.make_work`);
- ``settings``: the run's tolerances and step limits (:meth:`mbd.run.settings.Settings.record`),
  with the one error weight of :func:`mbd.run.settings.weight`.

The inlined helpers take the work tuple's arrays one by one, not the tuple: binding a tuple in
an inlined function references every array in it, which made the DOP853 loop's code a third
larger and its first compile (on the critical path of a cold start) 0.8 s slower.
"""
from collections import namedtuple

import numpy as np

from ...compiled import events, layout
from ...compiled.controlkernels import take
from ...compiled.forcekernels import signal_values
from ...compiled.jit.jitcache import njit
from ...compiled.jit.native import call2, call4
from ...compiled.layout import SWITCHING
from ..settings import weight

#: how ``advance`` returned: the piece reached its end; an armed switching function changed
#: sign in the last step (its dense output ready, see the methods' ``advance``); ``pause_at``
#: steps taken; the step fell below 10 ulp of t; the state stopped being finite; an evaluation
#: or the projection failed (st.bad at st.t_bad, tmp[FAILED_STATE]); the stiffness test (on
#: with ``st.stiffness_check``) found the model stiff (DOP853), or no longer stiff (Radau);
#: Radau nears a change point of the constraints, for DOP853 to jump
#: (:mod:`mbd.run.steppers.changepoints`), and DOP853, having jumped it, hands the run back
DONE, CROSSED, PAUSED, TOO_SMALL, NONFINITE, FAILED, STIFF, NONSTIFF, CHANGE_POINT, JUMPED = \
    range(10)
#: a step helper's "the step was taken, go on" (never returned by ``advance``)
STEPPED = 10

Functions = namedtuple("Functions", "rhs switch project near constrained data")
Functions.__doc__ = """The model as a compiled stepper calls it.

rhs, switch, project, near : int
    The addresses of the right-hand side, the switching function, the projection onto the
    constraints and the test whether a state is near enough to them to stay unprojected
    (:func:`mbd.run.evaluator.Evaluator.addresses`; near: 0 without constraints).
constrained : bool
    Whether the state is projected after every step and at every output row.
data : mbd.compiled.layout.Data
    What they evaluate.
"""

#: the first fields of every stepper's work tuple: the ``STEPPER`` record (1,), the state y
#: (n,), the output times and rows (m,), (m, n), the armed switching functions and their
#: values (nf, SWITCHES), and what finds their double crossings (``turn``, TURN_ROWS of
#: (nf, SWITCHES), :func:`turned`)
PIECE = ("st", "y", "times", "rows", "armed", "g", "turn")

#: which dense output a step has (the first entry of a context of
#: :func:`mbd.run.steppers.steplocate.switching_on_step`): DOP853's interpolant or Radau's
#: polynomial
DENSE_DOP853, DENSE_RADAU = 0, 1

#: the rows of ``turn``: the switching functions' values and rates (per s) at the step's start,
#: their rates at its end, a time per function (s: :func:`turned`'s guess of its lowest point,
#: then :func:`departures`' time off its side; nan: none), and scratch
G_START, RATE_START, RATE, DIP, G_SCRATCH = range(5)
TURN_ROWS = 5

#: what a loop's double-crossing screen (``screen(f, work, across)`` of
#: :mod:`mbd.run.steppers.dop853` and :mod:`mbd.run.steppers.radau`, compiled apart and called
#: through st.screen) found after a step: nothing, nothing but the step's dense output is made, a
#: crossing (at the step's end, or one inside it), or a failure making the dense output;
#: ``across`` START asks for the piece's start
SCREEN_NOTHING, SCREEN_READY, SCREEN_CROSSED, SCREEN_FAILED = range(4)
START = -1

#: the first rows of every stepper's scratch ``tmp``: a stage state (or the error scale), the
#: new state, a derivative, and the state where an evaluation failed
STAGE, NEW, SLOPE, FAILED_STATE = range(4)


def piece_arrays(n, times, nf):
    """The :data:`PIECE` arrays (a dict) for a state of n entries, output rows at ``times``
    (s) and nf force elements; the methods' work tuples share them when a run changes
    method."""
    st = layout.records(layout.STEPPER, 1)
    st["t_cross"] = -np.inf
    return dict(st=st, y=np.zeros(n), times=times,
                rows=np.zeros((len(times), n)),
                armed=np.zeros((nf, layout.SWITCHES), dtype=np.bool_),
                g=np.zeros((nf, layout.SWITCHES)),
                turn=np.full((TURN_ROWS, nf, layout.SWITCHES), np.nan))


def failed_state(tmp):
    """The state where the last failing evaluation happened (a copy)."""
    return tmp[FAILED_STATE].copy()


@njit(inline="always")
def evaluate(f, t, y, dy, st, tmp):
    """dy = f(t, y), the model's right-hand side; a nonzero return (see
    :mod:`mbd.run.evaluator`) keeps (t, y) in st.t_bad and tmp[FAILED_STATE] for the error
    message."""
    bad = call4(f.rhs, t, y, dy, f.data)
    st[0].nfev += 1
    if bad != 0:
        st[0].t_bad = t
        st[0].bad = bad
        for i in range(y.shape[0]):
            tmp[FAILED_STATE, i] = y[i]
    return bad


@njit(inline="always")
def controlled(i, quad_start, quad_stop):
    """Whether state entry i is under error control: not one of the quadratures
    y[quad_start:quad_stop] (see :mod:`mbd.run.settings`)."""
    return i < quad_start or i >= quad_stop


@njit(inline="always")
def controlled_count(n, quad_start, quad_stop):
    """How many of n state entries are under error control."""
    return n - max(0, min(quad_stop, n) - quad_start)


@njit(inline="always")
def controlled_rms(x, scale, quad_start, quad_stop):
    """The RMS norm of x / scale (scipy's ``norm``, |x / scale| / sqrt(n)) over the entries
    under error control (the quadratures y[quad_start:quad_stop] left out,
    :mod:`mbd.run.settings`); 0 where there are none."""
    n = x.shape[0]
    s = 0.0
    m = 0
    for i in range(n):
        if controlled(i, quad_start, quad_stop):
            s += (x[i] / scale[i]) ** 2
            m += 1
    if m == 0:
        return 0.0
    return np.sqrt(s) / m ** 0.5


@njit(inline="always")
def initial_step(f, st, y, tmp, settings, slope, order, quad_start, quad_stop):
    """Begin a piece at (st.t, y): slope = dy/dt there and st.h_abs = the initial step:
    settings.first_step if > 0, else Hairer's rule (scipy's ``select_initial_step``) for a
    method whose error estimate has order ``order``, its norms over the entries under error
    control (all but y[quad_start:quad_stop]). Returns what the right-hand side returned."""
    S = st[0]
    n = y.shape[0]
    bad = evaluate(f, S.t, y, slope, st, tmp)
    if bad != 0:
        return bad
    interval = S.t_bound - S.t
    if interval == 0.0:
        S.h_abs = 0.0
        return 0
    if settings.first_step > 0.0:
        S.h_abs = min(settings.first_step, interval, settings.max_step)
        return 0
    if controlled_count(n, quad_start, quad_stop) == 0:    # nothing moves: one step to the end
        S.h_abs = np.inf
        return 0
    scale = tmp[STAGE]
    for i in range(n):
        scale[i] = weight(settings, abs(y[i]))
    d0 = controlled_rms(y, scale, quad_start, quad_stop)
    d1 = controlled_rms(slope, scale, quad_start, quad_stop)
    h0 = 1e-6 if (d0 < 1e-5 or d1 < 1e-5) else 0.01 * d0 / d1
    h0 = min(h0, interval)
    y1, f1 = tmp[NEW], tmp[SLOPE]
    for i in range(n):
        y1[i] = y[i] + h0 * slope[i]
    bad = evaluate(f, S.t + h0, y1, f1, st, tmp)
    if bad != 0:
        return bad
    for i in range(n):
        y1[i] = f1[i] - slope[i]
    d2 = controlled_rms(y1, scale, quad_start, quad_stop) / h0
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = max(1e-6, h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** (1.0 / (order + 1))
    S.h_abs = min(100.0 * h0, h1, interval, settings.max_step)
    return 0


@njit(inline="always")
def any_armed(armed):
    """Whether any switching function is armed (mask (nf, SWITCHES))."""
    found = False
    for i in range(armed.shape[0]):
        for k in range(armed.shape[1]):
            found = found or armed[i, k]
    return found


@njit(inline="always")
def switching_at(f, t, y, g):
    """g = the switching functions at (t, y) in the current mode."""
    signal_values(t, f.data.elements)
    take(t, y, f.data)
    call4(f.switch, y, g, f.data, SWITCHING)


@njit(inline="always")
def crossed(f, t, y, g, armed):
    """Whether an armed switching function (mask ``armed``) left its side at the accepted
    step's end (t, y) (the one crossing predicate of :mod:`mbd.compiled.events`); g receives
    their values there."""
    switching_at(f, t, y, g)
    return events.crossed(armed, g, f.data.mode)


@njit(inline="always")
def switching_rates(f, t, y, ydot, dt, g, rate, y_shift):
    """rate = the switching functions' rates (per s) at (t, y), where they are g and the state
    moves at ydot: a difference over dt s along the motion, into the step (forward from a
    piece's start, backward from a step's end: a law's function of time is never asked
    past the run's end); one more evaluation of the switching functions, y_shift scratch."""
    for j in range(y.shape[0]):
        y_shift[j] = y[j] + dt * ydot[j]
    switching_at(f, t + dt, y_shift, rate)
    for i in range(g.shape[0]):
        for k in range(g.shape[1]):
            rate[i, k] = (rate[i, k] - g[i, k]) / dt


@njit(inline="always")
def start_turns(f, t, y, ydot, h, turn, y_shift):
    """A piece begins at (t, y), moving at ydot, with a first step of about h s: the
    switching functions' values and rates there, the start of the first step's
    :func:`turned`."""
    if h > 0.0 and np.isfinite(h):
        switching_at(f, t, y, turn[G_START])
        switching_rates(f, t, y, ydot, events.RATE_SHARE * h, turn[G_START],
                        turn[RATE_START], y_shift)
    else:       # no step to take: nothing to screen
        turn[RATE_START, :, :] = np.nan


@njit(inline="always")
def turned(f, t, y, ydot, h, g, turn, armed, y_shift):
    """After a step of h s that ended at (t, y), moving at ydot, the armed switching functions
    (mask ``armed``) having values g there: whether one that is on its side at both ends may
    have left it and come back in between (:func:`mbd.compiled.events.turning`, on their
    values and rates at both ends; one more evaluation of them, for the rates at the end).
    turn[DIP] receives the guess of where each such one is lowest (s), nan for the others;
    the end's values and rates become the next step's start."""
    switching_rates(f, t, y, ydot, -events.RATE_SHARE * h, g, turn[RATE], y_shift)
    mode = f.data.mode
    found = False
    for i in range(armed.shape[0]):
        for k in range(armed.shape[1]):
            turn[DIP, i, k] = np.nan
            side = mode[i].sides[k]
            if not armed[i, k] or events.departed(g[i, k], side):
                continue
            s = events.turning(turn[G_START, i, k], turn[RATE_START, i, k], g[i, k],
                               turn[RATE, i, k], h, side)
            if s > 0.0:
                turn[DIP, i, k] = t - h + s * h
                found = True
    for i in range(armed.shape[0]):
        for k in range(armed.shape[1]):
            turn[G_START, i, k] = g[i, k]
            turn[RATE_START, i, k] = turn[RATE, i, k]
    return found


@njit(inline="always")
def departures(f, on_step, dense, t_old, h, y_old, coefficients, turn, y_scratch):
    """For every switching function :func:`turned` suspects (turn[DIP] its guess, s): where
    on the step's dense output it is off its side, or nan (into turn[DIP];
    :func:`mbd.compiled.events.departure`). ``on_step`` is the address of
    :func:`mbd.run.steppers.steplocate.switching_on_step` (st.on_step), ``dense`` which dense output
    ``coefficients`` is (DENSE_DOP853 or DENSE_RADAU), of the step of h s from (t_old, y_old).
    Returns whether any is."""
    mode = f.data.mode
    kind = np.int64(dense)      # as the context's type has it (not a literal)
    found = False
    for i in range(turn.shape[1]):
        for k in range(turn.shape[2]):
            guess = turn[DIP, i, k]
            if np.isnan(guess):
                continue
            context = (kind, i, k, t_old, h, y_old, coefficients, y_scratch, turn[G_SCRATCH],
                       f.switch, f.data)
            t_off = events.departure(on_step, context, t_old, t_old + h, mode[i].sides[k],
                                     guess)
            turn[DIP, i, k] = t_off
            found = found or not np.isnan(t_off)
    return found


@njit(inline="always")
def project_end(f, st, y, tmp, t_new):
    """A step's end y moved onto the constraints; False where the rank rule objects there
    (its verdict in st.bad, at st.t_bad and tmp[FAILED_STATE])."""
    verdict = call2(f.project, y, f.data)
    if verdict == 0:
        return True
    S = st[0]
    S.t_bad = t_new
    S.bad = verdict
    for i in range(y.shape[0]):
        tmp[FAILED_STATE, i] = y[i]
    return False


@njit(inline="always")
def project_row(f, row):
    """An output row moved onto the constraints (its verdict is the step end's to give)."""
    if f.constrained:
        call2(f.project, row, f.data)
