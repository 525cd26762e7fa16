"""A compiled DOP853 integrator loop: the whole step, not just the right-hand side.

Past a few microseconds per right-hand side, scipy's own per-call and per-step bookkeeping costs
more than the dynamics (issue 7). This module runs the Dormand–Prince 8(5,3) method of Hairer,
Nørsett & Wanner (the scheme of ``scipy.integrate.DOP853``: the same tableau, error estimate,
step-size control, initial step and 7th-order dense output) in one numba call that steps until
the piece ends, under the compiled steppers' contract of :mod:`mbd.run.steppers.stepping`
(``advance(f, work, settings) -> status``).

The right-hand side, the switching functions and the projection onto the constraints are
called through their addresses (:mod:`mbd.compiled.jit.native`; the functions of one signature in
:mod:`mbd.run.evaluator`): the loop is compiled once for every mechanism, and the
right-hand side's code once, in its own function, not again inside the loop.

Exact switching is kept: after every accepted step the armed switching functions are checked
with the one crossing predicate of :mod:`mbd.compiled.events`, and those on their side at both
ends for a double crossing inside the step (:func:`mbd.run.steppers.stepping.turned`, then their
lowest point on the dense output, :func:`mbd.run.steppers.stepping.departures`); when one left its
side the loop stops with the step's dense output ready, and the run locates the crossing on it
(:mod:`mbd.run.steppers.steplocate`). Output rows at the requested times are written from dense
output inside the loop. With constraints, every output row is projected onto them, and so is every
step's end (the rank rule's verdict taken there) unless it is within a tenth of atol of them,
away from change points (:func:`mbd.compiled.loopsolve.within_drift`): then the next step starts
from the last stage's derivative, as without constraints.

The tableau comes from scipy (``scipy.integrate._ivp.dop853_coefficients``), so both paths use
the same numbers.
"""
from collections import namedtuple

import numpy as np
from scipy.integrate._ivp import dop853_coefficients as _tableau

from ...compiled.jit.jitcache import njit
from ...compiled.jit.native import borrowed, call2, call3, call4
from ...compiled.loopsolve import DRIFT_SHARE
from ..settings import weight
from .changepoints import JUMP_STRICTNESS, handing_back, place, plan, widest_gap
from .stepping import (
    CROSSED,
    DENSE_DOP853,
    DONE,
    FAILED,
    JUMPED,
    NEW,
    NONFINITE,
    PAUSED,
    PIECE,
    SCREEN_CROSSED,
    SCREEN_FAILED,
    SCREEN_NOTHING,
    SCREEN_READY,
    SLOPE,
    STAGE,
    START,
    STEPPED,
    STIFF,
    TOO_SMALL,
    any_armed,
    controlled,
    crossed,
    departures,
    evaluate,
    initial_step,
    project_end,
    project_row,
    start_turns,
    turned,
)

#: Runge–Kutta matrix, nodes, weights, error and dense-output coefficients (16 stages with the
#: three extra ones of the dense output)
A = np.ascontiguousarray(_tableau.A, dtype=float)
B = np.ascontiguousarray(_tableau.B, dtype=float)
C = np.ascontiguousarray(_tableau.C, dtype=float)
E3 = np.ascontiguousarray(_tableau.E3, dtype=float)
E5 = np.ascontiguousarray(_tableau.E5, dtype=float)
D = np.ascontiguousarray(_tableau.D, dtype=float)
N_STAGES = _tableau.N_STAGES               # 12 stages per step (+ the derivative at its end)
N_STAGES_EXTENDED = _tableau.N_STAGES_EXTENDED
INTERPOLATOR_POWER = _tableau.INTERPOLATOR_POWER
ERROR_ORDER = 7                            # error estimator order: step ~ err^(-1/8)
SAFETY, MIN_FACTOR, MAX_FACTOR = 0.9, 0.2, 10.0
#: where a step puts a change point (:mod:`mbd.run.steppers.changepoints`): between its
#: stages' times and those of its dense output
GAP = widest_gap(C)

#: Hairer's stiffness test (``dop853.f``): h |lambda| past STIFF_BOUND (DOP853's stability
#: boundary along the negative real axis) in STIFF_COUNT tests in a row is stiff; the test
#: runs every STIFF_EVERY accepted steps, and at every step once one found it, until
#: CALM_COUNT in a row did not
STIFF_BOUND, STIFF_COUNT, CALM_COUNT, STIFF_EVERY = 6.1, 15, 6, 10

Work = namedtuple("Work", PIECE + ("K", "y_old", "F", "tmp"))
Work.__doc__ = """The compiled DOP853 loop's arrays (:func:`make_work`), n states: the
:data:`mbd.run.steppers.stepping.PIECE` arrays, then

K : (N_STAGES_EXTENDED, n)
    The stages' derivatives (K[0]: dy/dt at the step's start).
y_old : (n,)
    The last step's start.
F : (INTERPOLATOR_POWER, n)
    The last step's dense output (:func:`dense_value`), computed where a row or a crossing
    needs it.
tmp : (4, n)
    Scratch, rows :data:`mbd.run.steppers.stepping.STAGE` ... ``FAILED_STATE``.
"""


def make_work(piece):
    """The loop's arrays (:data:`Work`) around the :data:`mbd.run.steppers.stepping.PIECE` arrays
    ``piece`` (a dict, :func:`mbd.run.steppers.stepping.piece_arrays`), allocated once per run."""
    n = piece["y"].shape[0]
    return Work(**piece, K=np.zeros((N_STAGES_EXTENDED, n)), y_old=np.zeros(n),
                F=np.zeros((INTERPOLATOR_POWER, n)), tmp=np.zeros((4, n)))


@njit(inline="always")
def _stage_state(y, K, s, h, out):
    """out = y + h * sum_j<s A[s, j] K[j] (summed over j in order, as scipy's dot does, but
    row by row of K: contiguous; the tableau's zeros skipped)."""
    n = y.shape[0]
    for i in range(n):
        out[i] = 0.0
    for j in range(s):
        a = A[s, j]
        if a != 0.0:
            for i in range(n):
                out[i] += a * K[j, i]
    for i in range(n):
        out[i] = y[i] + out[i] * h


@njit(no_cpython_wrapper=True)
def _rk_step(f, t, y, h, K, y_new, st, tmp):
    """One DOP853 step of size h from (t, y) with K[0] = f(t, y): stages K[1..11], y_new, and
    K[12] = f(t + h, y_new). Returns what a failing right-hand side returned, or 0."""
    n = y.shape[0]
    ys = tmp[STAGE]
    for s in range(1, N_STAGES):
        _stage_state(y, K, s, h, ys)
        bad = evaluate(f, t + C[s] * h, ys, K[s], st, tmp)
        if bad != 0:
            return bad
    for i in range(n):
        acc = 0.0
        for j in range(N_STAGES):
            acc += B[j] * K[j, i]
        y_new[i] = y[i] + h * acc
    return evaluate(f, t + h, y_new, K[N_STAGES], st, tmp)


@njit(inline="always")
def _embedded(K, i):
    """Entry i of the step's two error estimates over h, (E5 . K, E3 . K): its 5th- and
    3rd-order embedded solutions' differences from its end."""
    a5 = 0.0
    a3 = 0.0
    for j in range(N_STAGES + 1):
        a5 += E5[j] * K[j, i]
        a3 += E3[j] * K[j, i]
    return a5, a3


@njit(inline="always")
def _error_norm(K, h, y, y_new, settings):
    """Hairer's combined 5th/3rd-order error estimate, RMS-scaled over every entry, the
    work accumulators' too (< 1: accept; why they stay in: :mod:`mbd.run.settings`)."""
    n = y.shape[0]
    e5 = 0.0
    e3 = 0.0
    for i in range(n):
        sc = weight(settings, max(abs(y[i]), abs(y_new[i])))
        a5, a3 = _embedded(K, i)
        e5 += (a5 / sc) ** 2
        e3 += (a3 / sc) ** 2
    if e5 == 0.0 and e3 == 0.0:
        return 0.0
    return abs(h) * e5 / np.sqrt((e5 + 0.01 * e3) * n)


@njit(inline="always")
def _jump_error_norm(f, st, K, h, y, y_new, t_new, tmp, F, settings):
    """:func:`_error_norm` of a step that jumps a change point, measured on the constraints:
    the step's end and its two embedded solutions each projected onto them first. Near the
    point the stages' accelerations answer a stage state's drift off the constraints (the
    method's own local error) by as much over the weakest direction's strength squared, which
    the embedded solutions, not the projected motion, carry. F's first two rows and
    tmp[STAGE] are scratch; the rank rule's record is that of the evaluation at (t_new, y_new)
    again after. A projection that fails gives inf (the step is rejected as before)."""
    n = y.shape[0]
    ya, yb, yc = tmp[STAGE], F[0], F[1]
    for i in range(n):
        a5, a3 = _embedded(K, i)
        ya[i] = y_new[i]
        yb[i] = y_new[i] - h * a5
        yc[i] = y_new[i] - h * a3
    bad = call2(f.project, ya, f.data)
    bad |= call2(f.project, yb, f.data)
    bad |= call2(f.project, yc, f.data)
    bad |= call4(f.rhs, t_new, y_new, tmp[SLOPE], f.data)
    st[0].nfev += 1
    if bad != 0:
        return np.inf
    e5 = 0.0
    e3 = 0.0
    for i in range(n):
        sc = weight(settings, max(abs(y[i]), abs(y_new[i])))
        e5 += ((ya[i] - yb[i]) / sc) ** 2
        e3 += ((ya[i] - yc[i]) / sc) ** 2
    if e5 == 0.0 and e3 == 0.0:
        return 0.0
    return e5 / np.sqrt((e5 + 0.01 * e3) * n)


@njit(no_cpython_wrapper=True)
def _dense_coefficients(f, work):
    """The 7th-order interpolant F of the last step (st.t_old, y_old) -> (st.t, y) with its
    stages in K: three more stages, then Hairer's continuous extension."""
    st, y, K, y_old, F, tmp = work.st, work.y, work.K, work.y_old, work.F, work.tmp
    n = y.shape[0]
    h = st[0].h_prev
    t_old = st[0].t_old
    ys = tmp[STAGE]
    for s in range(N_STAGES + 1, N_STAGES_EXTENDED):
        _stage_state(y_old, K, s, h, ys)
        bad = evaluate(f, t_old + C[s] * h, ys, K[s], st, tmp)
        if bad != 0:
            return bad
    for i in range(n):
        dy = y[i] - y_old[i]
        F[0, i] = dy
        F[1, i] = h * K[0, i] - dy
        F[2, i] = 2.0 * dy - h * (K[N_STAGES, i] + K[0, i])
        for r in range(INTERPOLATOR_POWER - 3):
            acc = 0.0
            for j in range(N_STAGES_EXTENDED):
                acc += D[r, j] * K[j, i]
            F[3 + r, i] = h * acc
    return 0


@njit()
def dense_value(t, t_old, h, y_old, F, out):
    """The interpolant F of a step (t_old, y_old, size h) at time t, into out."""
    x = (t - t_old) / h
    n = y_old.shape[0]
    for i in range(n):
        acc = 0.0
        for r in range(INTERPOLATOR_POWER):
            acc += F[INTERPOLATOR_POWER - 1 - r, i]
            acc *= x if r % 2 == 0 else 1.0 - x
        out[i] = acc + y_old[i]


@njit(inline="always")
def _stiffness_test(S, y_old, y, h, K, tmp, settings):
    """Hairer's test after an accepted step of size h from y_old to y: h |lambda| estimated
    as h |f(y) - f(y12)| / |y - y12| with y12 the last stage's state (at the same time), over
    the entries under error control (a quadrature is no input of f); returns True when
    STIFF_COUNT tests in a row found it past STIFF_BOUND."""
    if not (S.nsteps % STIFF_EVERY == 0 or S.stiff_tests > 0):
        return False
    y12 = tmp[STAGE]
    _stage_state(y_old, K, N_STAGES - 1, h, y12)
    num = 0.0
    den = 0.0
    for i in range(y.shape[0]):
        if not controlled(i, settings.quad_start, settings.quad_stop):
            continue
        num += (K[N_STAGES, i] - K[N_STAGES - 1, i]) ** 2
        den += (y[i] - y12[i]) ** 2
    if den > 0.0 and abs(h) * np.sqrt(num / den) > STIFF_BOUND:
        S.calm_tests = 0
        S.stiff_tests += 1
        return S.stiff_tests >= STIFF_COUNT
    S.calm_tests += 1
    if S.calm_tests >= CALM_COUNT:
        S.stiff_tests = 0
    return False


@njit(inline="always")
def _take_step(f, st, y, K, y_old, tmp, F, settings):
    """One accepted step from (st.t, y) by Hairer's step-size control, as scipy's
    ``DOP853._step_impl`` (line by line): y_old = y, y = the step's end, st.t_old, st.t,
    st.h_prev and st.h_abs (the next step's size) updated. Returns STEPPED, TOO_SMALL,
    FAILED or NONFINITE."""
    S = st[0]
    n = y.shape[0]
    y_new = tmp[NEW]
    exponent = -1.0 / (ERROR_ORDER + 1)
    t = S.t
    min_step = 10.0 * (np.nextafter(t, np.inf) - t)
    h_abs = min(S.h_abs, settings.max_step)
    if h_abs < min_step:
        h_abs = min_step
    rejected = False
    wanted = placed = h_abs
    while True:
        if h_abs < min_step:
            return TOO_SMALL
        wanted = h_abs          # the control's choice, before a change point sizes it
        placed = place(S.t_cross, t, h_abs, min_step, GAP, rejected)
        h_abs = placed
        t_new = t + h_abs
        if t_new > S.t_bound:
            t_new = S.t_bound
        h = t_new - t
        h_abs = h
        if _rk_step(f, t, y, h, K, y_new, st, tmp) != 0:
            return FAILED
        err = _error_norm(K, h, y, y_new, settings)
        if f.constrained and t < S.t_cross < t_new:     # a jump (mbd.run.steppers.changepoints)
            if err * JUMP_STRICTNESS >= 1.0:
                err = _jump_error_norm(f, st, K, h, y, y_new, t_new, tmp, F, settings)
            err *= JUMP_STRICTNESS
        if err < 1.0:
            factor = MAX_FACTOR if err == 0.0 else min(MAX_FACTOR, SAFETY * err ** exponent)
            if rejected:
                factor = min(1.0, factor)
            h_abs = max(h_abs * factor, wanted if placed < wanted else 0.0)
            break
        # a NaN error shrinks the step too, until it is too small
        shrink = SAFETY * err ** exponent
        h_abs *= shrink if shrink > MIN_FACTOR else MIN_FACTOR
        rejected = True
    for i in range(n):
        y_old[i] = y[i]
        y[i] = y_new[i]
    S.t_old = t
    S.t = t_new
    S.h_prev = h
    S.h_abs = h_abs
    S.nsteps += 1
    for i in range(n):
        if not np.isfinite(y[i]):
            return NONFINITE
    return STEPPED


@njit()
def screen(f, work, across):
    """The double-crossing screen of :func:`advance`, compiled apart and called through its
    address (st.screen: a model without force elements never compiles it). At a piece's start
    (``across`` START) the switching functions' values and rates there
    (:func:`mbd.run.steppers.stepping.start_turns`); after an accepted step (``across`` 1 where a
    crossing at its end was seen, else 0) whether an armed function on its side at both ends
    left it in between (:func:`mbd.run.steppers.stepping.turned`), and then, the step's dense output
    made, where (:func:`mbd.run.steppers.stepping.departures`, into turn[DIP]; also before a
    crossing at the end). Returns SCREEN_NOTHING, SCREEN_READY (the dense output made, nothing
    found), SCREEN_CROSSED or SCREEN_FAILED (of :mod:`mbd.run.steppers.stepping`)."""
    S = work.st[0]
    y, K, tmp = work.y, work.K, work.tmp
    if across == START:
        start_turns(f, S.t, y, K[0], S.h_abs, work.turn, tmp[STAGE])
        return SCREEN_NOTHING
    turns = turned(f, S.t, y, K[N_STAGES], S.h_prev, work.g, work.turn, work.armed, tmp[STAGE])
    if across == 0 and not turns:
        return SCREEN_NOTHING
    if _dense_coefficients(f, work) != 0:
        return SCREEN_FAILED
    dipped = turns and departures(f, S.on_step, DENSE_DOP853, S.t_old, S.h_prev, work.y_old,
                                  work.F, work.turn, tmp[NEW])
    return SCREEN_CROSSED if across != 0 or dipped else SCREEN_READY


@njit()
def advance(f, work, settings):
    """Step DOP853 from (st.t, y) until the piece ends (the contract of
    :mod:`mbd.run.steppers.stepping`, ``work`` of :func:`make_work`, ``settings`` a 1-record array
    of :data:`mbd.compiled.layout.SETTINGS`). With ``st.starting``, a new piece begins there: K[0]
    and the initial step are computed first; else K[0] = dy/dt there from the last call.

    Returns DONE, CROSSED (y_old, st.t_old, st.h_prev and the interpolant F describe the last
    step; so they do after the step where it pauses, with ``st.dense_on_pause``), STIFF (with
    ``st.stiffness_check`` on, Hairer's stiffness test found the model stiff at the reached
    state, rows written and projected), PAUSED, TOO_SMALL, NONFINITE or FAILED.
    With constraints every row is projected, and every step's end that has drifted from them
    (see the module docstring), the next step starting from the derivative at the projected
    state.
    """
    # the run's arrays outlive the call: views that count no references (at every stage's
    # slice and every call of the right-hand side, whose data they include)
    f, work = borrowed((f, work))
    st, y, K, y_old, tmp, times = work.st, work.y, work.K, work.y_old, work.tmp, work.times
    S = st[0]
    P = settings[0]
    armed = any_armed(work.armed)
    # double crossings are looked for where the run gave the screen's address (st.screen)
    screen = armed and S.screen != 0
    if S.starting:
        S.starting = 0
        if initial_step(f, st, y, tmp, P, K[0], ERROR_ORDER, 0, 0) != 0:
            return FAILED
        if screen:
            call3(S.screen, f, work, START)
    while S.nsteps < S.pause_at:
        if S.t >= S.t_bound:
            return DONE
        status = _take_step(f, st, y, K, y_old, tmp, work.F, P)
        if status != STEPPED:
            return status
        # a step's end within a share of atol of the constraints stays as it is (decided
        # here, on the rank rule's record of the evaluation at y, before other evaluations)
        project = f.constrained and call3(f.near, y, f.data, DRIFT_SHARE * P.atol) == 0
        weakest = f.data.loop[0].smallest
        stiff = S.stiffness_check != 0 and _stiffness_test(S, y_old, y, S.h_prev, K, tmp, P)
        ready = False       # the step's interpolant F computed
        if armed:
            across = crossed(f, S.t, y, work.g, work.armed)
            if screen:      # ... or left its side and came back within the step
                found = call3(S.screen, f, work, np.int64(1 if across else 0))
                if found == SCREEN_FAILED:
                    return FAILED
                if found == SCREEN_CROSSED:
                    return CROSSED
                ready = found == SCREEN_READY
            elif across:
                return FAILED if _dense_coefficients(f, work) != 0 else CROSSED
        # the rows due in the step, from its dense output (computed only when one is, or
        # where the loop pauses for a live simulation, which reads the state inside the step)
        r = S.next_row
        due = r < times.shape[0] and times[r] <= S.t
        if due or (S.dense_on_pause != 0 and S.nsteps >= S.pause_at):
            if not ready and _dense_coefficients(f, work) != 0:
                return FAILED
            while r < times.shape[0] and times[r] <= S.t:
                dense_value(times[r], S.t_old, S.h_prev, y_old, work.F, work.rows[r])
                project_row(f, work.rows[r])
                r += 1
            S.next_row = r
        if project:
            if not project_end(f, st, y, tmp, S.t):
                return FAILED
            # the next step starts from the derivative at the projected state
            if evaluate(f, S.t, y, K[0], st, tmp) != 0:
                return FAILED
            weakest = f.data.loop[0].smallest
        else:
            # the next step starts from the derivative at this one's end
            for i in range(y.shape[0]):
                K[0, i] = K[N_STAGES, i]
        if f.constrained:       # a change point ahead is jumped (mbd.run.steppers.changepoints)
            before = S.weakest
            plan(f, st, weakest, y, K[0], tmp, GAP)
            if handing_back(S, weakest, before) and S.t < S.t_bound:
                return JUMPED
        if stiff and S.t < S.t_bound:
            return STIFF
    return DONE if S.t >= S.t_bound else PAUSED
