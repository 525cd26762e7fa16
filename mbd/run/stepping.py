"""What the compiled steppers share: their contract and the parts of a step that are the same
in DOP853 (:mod:`mbd.run.stepper`) and Radau IIA (:mod:`mbd.run.radau`).

The contract: ``advance(f, work, settings) -> status`` steps one piece from ``work.st.t``,
``work.y`` until the piece ends at ``work.st.t_bound``, an armed switching function changes
sign, or ``work.st.pause_at`` steps have been taken in all; it writes the output rows due on
the way and returns how it stopped (:data:`DONE` ... :data:`STIFF`).

- ``f`` (:data:`Functions`): the model, as the addresses of its compiled right-hand side,
  switching function and projection (:mod:`mbd.compiled.native`) and the data they evaluate;
- ``work``: everything that changes, a named tuple whose first fields are :data:`PIECE`
  (the ``STEPPER`` record, the state, the output rows, the armed switches) followed by the
  method's own arrays (:func:`mbd.run.stepper.make_work`, :func:`mbd.run.radau.make_work`);
- ``settings``: the run's tolerances and step limits (:meth:`mbd.run.settings.Settings.record`),
  with the one error weight of :func:`mbd.run.settings.weight`.

The inlined helpers take the work tuple's arrays one by one, not the tuple: binding a tuple in
an inlined function references every array in it, which made the DOP853 loop's code a third
larger and its first compile (on the critical path of a cold start) 0.8 s slower.
"""
from collections import namedtuple

import numpy as np

from ..compiled import events, layout
from ..compiled.jitcache import njit
from ..compiled.layout import SWITCHING
from ..compiled.controlkernels import take
from ..compiled.forcekernels import signal_values
from ..compiled.native import call2, call4
from .settings import weight

#: how ``advance`` returned: the piece reached its end; an armed switching function changed
#: sign in the last step (its dense output ready, see the methods' ``advance``); ``pause_at``
#: steps taken; the step fell below 10 ulp of t; the state stopped being finite; an evaluation
#: or the projection failed (st.bad at st.t_bad, tmp[FAILED_STATE]); the stiffness test (on
#: with ``st.stiffness_check``) found the model stiff (DOP853), or no longer stiff (Radau)
DONE, CROSSED, PAUSED, TOO_SMALL, NONFINITE, FAILED, STIFF, NONSTIFF = range(8)
#: a step helper's "the step was taken, go on" (never returned by ``advance``)
STEPPED = 8

Functions = namedtuple("Functions", "rhs switch project near constrained data")
Functions.__doc__ = """The model as a compiled stepper calls it.

rhs, switch, project, near : int
    The addresses of the right-hand side, the switching function, the projection onto the
    constraints and the test whether a state is near enough to them to stay unprojected
    (:func:`mbd.compiled.statefunction.addresses`; near: 0 without constraints).
constrained : bool
    Whether the state is projected after every step and at every output row.
data : mbd.compiled.layout.Data
    What they evaluate.
"""

#: the first fields of every stepper's work tuple: the ``STEPPER`` record (1,), the state y
#: (n,), the output times and rows (m,), (m, n), the armed switching functions and their
#: values (nf, SWITCHES)
PIECE = ("st", "y", "times", "rows", "armed", "g")

#: the first rows of every stepper's scratch ``tmp``: a stage state (or the error scale), the
#: new state, a derivative, and the state where an evaluation failed
STAGE, NEW, SLOPE, FAILED_STATE = range(4)


def piece_arrays(n, times, nf):
    """The :data:`PIECE` arrays (a dict) for a state of n entries, output rows at ``times``
    (s) and nf force elements; the methods' work tuples share them when a run changes
    method."""
    return dict(st=layout.records(layout.STEPPER, 1), y=np.zeros(n), times=times,
                rows=np.zeros((len(times), n)),
                armed=np.zeros((nf, layout.SWITCHES), dtype=np.bool_),
                g=np.zeros((nf, layout.SWITCHES)))


def failed_state(tmp):
    """The state where the last failing evaluation happened (a copy)."""
    return tmp[FAILED_STATE].copy()


@njit(inline="always")
def evaluate(f, t, y, dy, st, tmp):
    """dy = f(t, y), the model's right-hand side; a nonzero return (see
    :mod:`mbd.compiled.statefunction`) keeps (t, y) in st.t_bad and tmp[FAILED_STATE] for the error
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
def crossed(f, t, y, g, armed):
    """Whether an armed switching function (mask ``armed``) left its side at the accepted
    step's end (t, y) (the one crossing predicate of :mod:`mbd.compiled.events`); g receives
    their values there."""
    signal_values(t, f.data.elements)
    take(t, y, f.data)
    call4(f.switch, y, g, f.data, SWITCHING)
    return events.crossed(armed, g, f.data.mode)


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
