"""A compiled DOP853 integrator loop: the whole step, not just the right-hand side.

Past a few microseconds per right-hand side, scipy's own per-call and per-step bookkeeping costs
more than the dynamics (issue 7). This module runs the Dormand–Prince 8(5,3) method of Hairer,
Nørsett & Wanner (the scheme of ``scipy.integrate.DOP853``: the same tableau, error estimate,
step-size control, initial step and 7th-order dense output) in one numba call that steps until
the piece ends.

The right-hand side, the switching functions and the projection onto the constraints are
called through their addresses (:mod:`mbd.compiled.native`; the functions of one signature in
:mod:`mbd.compiled.statefunction`): the loop is compiled once for every mechanism, and the right-hand
side's code once, in its own function, not again inside the loop.

Exact switching is kept: after every accepted step the armed switching functions are checked
with the one crossing predicate of :mod:`mbd.compiled.events`; when one changed sign the loop stops with
the step's dense output ready, and the run locates the crossing on it. Output rows at the
requested times are written from dense output inside the loop. With constraints, every step's
end and every output row are projected onto them and the rank rule's verdict is taken there.

The tableau comes from scipy (``scipy.integrate._ivp.dop853_coefficients``), so both paths use
the same numbers. The loop's state between calls is a ``STEPPER`` record (:mod:`mbd.compiled.layout`).
"""
import numpy as np
from scipy.integrate._ivp import dop853_coefficients as _tableau

from ..compiled import events
from ..compiled.jitcache import njit
from ..compiled.layout import SWITCHING
from ..compiled.native import call2, call4

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

#: how ``advance`` returned (STIFF: stiffness detection is on and found the model stiff)
DONE, CROSSED, PAUSED, TOO_SMALL, NONFINITE, FAILED, STIFF = range(7)

#: Hairer's stiffness test (``dop853.f``): h |lambda| past STIFF_BOUND (DOP853's stability
#: boundary along the negative real axis) in STIFF_COUNT tests in a row is stiff; the test
#: runs every STIFF_EVERY accepted steps, and at every step once one found it, until
#: CALM_COUNT in a row did not
STIFF_BOUND, STIFF_COUNT, CALM_COUNT, STIFF_EVERY = 6.1, 15, 6, 10

#: the rows of the loop's scratch ``tmp`` (4, n): a stage state or the error scale, the new
#: state, a derivative, and the state where an evaluation failed
STAGE, NEW, SLOPE, FAILED_STATE = range(4)


def failed_state(tmp):
    """The state where the last failing evaluation happened (a copy)."""
    return tmp[FAILED_STATE].copy()


@njit(inline="always")
def _rhs(rhs, t, y, dy, st, tmp, data):
    """dy = f(t, y), the right-hand side at the address ``rhs``; a nonzero return (see
    :mod:`mbd.compiled.statefunction`) keeps (t, y) in st.t_bad and tmp[FAILED_STATE] for the error
    message."""
    bad = call4(rhs, t, y, dy, data)
    st[0].nfev += 1
    if bad != 0:
        st[0].t_bad = t
        st[0].bad = bad
        for i in range(y.shape[0]):
            tmp[FAILED_STATE, i] = y[i]
    return bad


@njit(inline="always")
def _rms(x, scale):
    """The RMS norm of x / scale (scipy's ``norm``, |x / scale| / sqrt(n); 0 for an empty x)."""
    n = x.shape[0]
    if n == 0:
        return 0.0
    s = 0.0
    for i in range(n):
        s += (x[i] / scale[i]) ** 2
    return np.sqrt(s) / n ** 0.5


@njit(inline="always")
def initial_step(rhs, y, f, st, t_bound, rtol, atol, max_step, h_first, order, tmp, data):
    """Begin a piece at (st.t, y): f = dy/dt there and st.h_abs = the initial step: h_first if
    > 0, else Hairer's rule (scipy's ``select_initial_step``) for a method whose error
    estimate has order ``order``. Returns what the right-hand side returned."""
    S = st[0]
    n = y.shape[0]
    bad = _rhs(rhs, S.t, y, f, st, tmp, data)
    if bad != 0:
        return bad
    interval = t_bound - S.t
    if interval == 0.0:
        S.h_abs = 0.0
        return 0
    if h_first > 0.0:
        S.h_abs = min(h_first, interval, max_step)
        return 0
    if n == 0:                  # nothing moves: one step to the end
        S.h_abs = np.inf
        return 0
    scale = tmp[STAGE]
    for i in range(n):
        scale[i] = atol + abs(y[i]) * rtol
    d0 = _rms(y, scale)
    d1 = _rms(f, scale)
    h0 = 1e-6 if (d0 < 1e-5 or d1 < 1e-5) else 0.01 * d0 / d1
    h0 = min(h0, interval)
    y1, f1 = tmp[NEW], tmp[SLOPE]
    for i in range(n):
        y1[i] = y[i] + h0 * f[i]
    bad = _rhs(rhs, S.t + h0, y1, f1, st, tmp, data)
    if bad != 0:
        return bad
    for i in range(n):
        y1[i] = f1[i] - f[i]
    d2 = _rms(y1, scale) / h0
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = max(1e-6, h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** (1.0 / (order + 1))
    S.h_abs = min(100.0 * h0, h1, interval, max_step)
    return 0


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


@njit()
def _rk_step(rhs, t, y, h, K, y_new, st, tmp, data):
    """One DOP853 step of size h from (t, y) with K[0] = f(t, y): stages K[1..11], y_new, and
    K[12] = f(t + h, y_new). Returns what a failing right-hand side returned, or 0."""
    n = y.shape[0]
    ys = tmp[STAGE]
    for s in range(1, N_STAGES):
        _stage_state(y, K, s, h, ys)
        bad = _rhs(rhs, t + C[s] * h, ys, K[s], st, tmp, data)
        if bad != 0:
            return bad
    for i in range(n):
        acc = 0.0
        for j in range(N_STAGES):
            acc += B[j] * K[j, i]
        y_new[i] = y[i] + h * acc
    return _rhs(rhs, t + h, y_new, K[N_STAGES], st, tmp, data)


@njit(inline="always")
def _error_norm(K, h, y, y_new, rtol, atol):
    """Hairer's combined 5th/3rd-order error estimate, RMS-scaled (< 1: accept)."""
    n = y.shape[0]
    e5 = 0.0
    e3 = 0.0
    for i in range(n):
        sc = atol + max(abs(y[i]), abs(y_new[i])) * rtol
        a5 = 0.0
        a3 = 0.0
        for j in range(N_STAGES + 1):
            a5 += E5[j] * K[j, i]
            a3 += E3[j] * K[j, i]
        e5 += (a5 / sc) ** 2
        e3 += (a3 / sc) ** 2
    if e5 == 0.0 and e3 == 0.0:
        return 0.0
    return abs(h) * e5 / np.sqrt((e5 + 0.01 * e3) * n)


@njit()
def _dense_coefficients(rhs, st, y_old, y, K, F, tmp, data):
    """The 7th-order interpolant F of the last step (st.t_old, y_old) -> (st.t, y) with its
    stages in K: three more stages, then Hairer's continuous extension."""
    n = y.shape[0]
    h = st[0].h_prev
    t_old = st[0].t_old
    ys = tmp[STAGE]
    for s in range(N_STAGES + 1, N_STAGES_EXTENDED):
        _stage_state(y_old, K, s, h, ys)
        bad = _rhs(rhs, t_old + C[s] * h, ys, K[s], st, tmp, data)
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


@njit()
def switching_on_step(t, context):
    """Switching function (i, k) at time t of the step interpolant in ``context``."""
    i, k, t_old, h, y_old, F, y, g, switch, data = context
    dense_value(t, t_old, h, y_old, F, y)
    call4(switch, y, g, data, SWITCHING)
    return g[i, k]


@njit()
def locate_on_step(g_on_step, i, k, side, ta, tb, tol, t_old, h, y_old, F, y, g, switch,
                   data):
    """Where switching function (i, k) leaves the side ``side`` in (ta, tb] of the step
    interpolant (t_old, h, y_old, F) (:func:`mbd.compiled.events.illinois`, compiled): ``g_on_step``
    is the address of :func:`switching_on_step` and ``switch`` the switching function's (see
    :func:`step_context`); y and g are scratch."""
    return events.illinois(g_on_step, (i, k, t_old, h, y_old, F, y, g, switch, data), ta, tb,
                           side, tol)


def step_context(i, k, t_old, h, y_old, F, y, g, switch, data):
    """The context tuple of :func:`switching_on_step` (its type fixes the signature that
    :func:`locate_on_step` calls it with)."""
    return (i, k, t_old, h, y_old, F, y, g, switch, data)


@njit(inline="always")
def project_end(project, y, t_new, st, tmp, data):
    """A step's end y moved onto the constraints (the projection at the address ``project``);
    False where the rank rule objects there (its verdict in st.bad, at st.t_bad and
    tmp[FAILED_STATE])."""
    verdict = call2(project, y, data)
    if verdict == 0:
        return True
    S = st[0]
    S.t_bad = t_new
    S.bad = verdict
    for i in range(y.shape[0]):
        tmp[FAILED_STATE, i] = y[i]
    return False


@njit(inline="always")
def _stiffness_test(S, y_old, y, h, K, tmp):
    """Hairer's test after an accepted step of size h from y_old to y: h |lambda| estimated
    as h |f(y) - f(y12)| / |y - y12| with y12 the last stage's state (at the same time);
    returns True when STIFF_COUNT tests in a row found it past STIFF_BOUND."""
    if not (S.nsteps % STIFF_EVERY == 0 or S.stiff_tests > 0):
        return False
    y12 = tmp[STAGE]
    _stage_state(y_old, K, N_STAGES - 1, h, y12)
    num = 0.0
    den = 0.0
    for i in range(y.shape[0]):
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


@njit()
def advance(rhs, switch, project, constrained, starting, h_first, y, st, t_bound, rtol, atol,
            max_step, max_steps, times, rows, armed, g, K, y_old, F, tmp, data):
    """Step from (st.t, y) until the piece ends; ``starting``: a new piece begins there (K[0]
    and the initial step are computed first: ``h_first`` if > 0, else Hairer's rule), else
    K[0] = dy/dt there from the last call.
    ``rhs``, ``switch`` and ``project`` are the addresses of the right-hand side, switching
    function and projection (:mod:`mbd.compiled.native`).

    Returns DONE (t_bound reached), CROSSED (an armed switching function changed sign in the
    last step: y_old, st.t_old, st.h_prev and the interpolant F describe that step), STIFF
    (with ``st.stiffness_check`` on, Hairer's stiffness test found the model stiff at the
    reached state, rows written and projected), PAUSED (``max_steps`` steps taken), TOO_SMALL (the step fell below 10 ulp of t), NONFINITE (the
    state stopped being finite) or FAILED (an evaluation or the projection returned st.bad at
    (st.t_bad, tmp[FAILED_STATE])). Output rows at times[st.next_row:] up to the reached time are
    written into ``rows``; with constraints (``constrained``) every step's end and every row
    is projected, and the next step starts from the derivative at the projected state.
    """
    S = st[0]
    n = y.shape[0]
    if starting and initial_step(rhs, y, K[0], st, t_bound, rtol, atol, max_step, h_first,
                                 ERROR_ORDER, tmp, data) != 0:
        return FAILED
    y_new = tmp[NEW]
    any_armed = False
    for i in range(armed.shape[0]):
        for k in range(armed.shape[1]):
            any_armed = any_armed or armed[i, k]
    exponent = -1.0 / (ERROR_ORDER + 1)
    for _ in range(max_steps):
        t = S.t
        if t >= t_bound:
            return DONE
        min_step = 10.0 * (np.nextafter(t, np.inf) - t)
        h_abs = min(S.h_abs, max_step)
        if h_abs < min_step:
            h_abs = min_step
        rejected = False
        while True:
            if h_abs < min_step:
                return TOO_SMALL
            t_new = t + h_abs
            if t_new > t_bound:
                t_new = t_bound
            h = t_new - t
            h_abs = h
            if _rk_step(rhs, t, y, h, K, y_new, st, tmp, data) != 0:
                return FAILED
            err = _error_norm(K, h, y, y_new, rtol, atol)
            if err < 1.0:
                factor = MAX_FACTOR if err == 0.0 else min(MAX_FACTOR, SAFETY * err ** exponent)
                if rejected:
                    factor = min(1.0, factor)
                h_abs *= factor
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
        stiff = S.stiffness_check != 0 and _stiffness_test(S, y_old, y, h, K, tmp)
        if any_armed:
            call4(switch, y, g, data, SWITCHING)
            if events.crossed(armed, g, data.mode):
                if _dense_coefficients(rhs, st, y_old, y, K, F, tmp, data) != 0:
                    return FAILED
                return CROSSED
        r = S.next_row
        if r < times.shape[0] and times[r] <= t_new:
            if _dense_coefficients(rhs, st, y_old, y, K, F, tmp, data) != 0:
                return FAILED
            while r < times.shape[0] and times[r] <= t_new:
                dense_value(times[r], t, h, y_old, F, rows[r])
                if constrained:
                    call2(project, rows[r], data)
                r += 1
            S.next_row = r
        if constrained:
            if not project_end(project, y, t_new, st, tmp, data):
                return FAILED
            # the next step starts from the derivative at the projected state
            if _rhs(rhs, t_new, y, K[0], st, tmp, data) != 0:
                return FAILED
        else:
            # the next step starts from the derivative at this one's end
            for i in range(n):
                K[0, i] = K[N_STAGES, i]
        if stiff and t_new < t_bound:
            return STIFF
    return DONE if S.t >= t_bound else PAUSED
