"""A compiled DOP853 integrator loop: the whole step, not just the right-hand side.

Past a few microseconds per right-hand side, scipy's own per-call and per-step bookkeeping costs
more than the dynamics (issue 7). This module runs the Dormand–Prince 8(5,3) method of Hairer,
Nørsett & Wanner (the scheme of ``scipy.integrate.DOP853``: the same tableau, error estimate,
step-size control, initial step and 7th-order dense output) in one numba call that steps until
the piece ends, so one evaluation costs only the kinematics, the force laws and ABA (for a
tree) or the constrained dynamics of :func:`mbd.constraints.loop_derivative` (with loops, whose
states are then projected onto the closures after every step, as the scipy path does).

Exact switching is kept: after every accepted step the armed switching functions are checked in
the compiled loop; when one changed sign the loop stops with the step's dense output ready, and
:mod:`mbd.simulate` locates the crossing on it to round-off, as for any solver. Output rows at
the requested times are written from dense output inside the loop.

The tableau comes from scipy (``scipy.integrate._ivp.dop853_coefficients``), so both paths use
the same numbers.
"""
import numpy as np
from scipy.integrate._ivp import dop853_coefficients as _tableau

from . import constraints, forcekernels
from .kernels import borrowed, njit

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

#: how ``advance`` returned
DONE, CROSSED, PAUSED, TOO_SMALL, NONFINITE, UNDEFINED, SINGULAR = range(7)

#: slots of the loop parameters ``lp`` (the last entry of the loop tuple ``lx``)
RANK_TOL, RANK, SINGULAR_BELOW, PROJECTION_TOL = range(4)
PROJECTION_ITERATIONS = 50

#: slots of the float state ``st`` and the integer state ``ist``
T, H_ABS, T_OLD, H_PREV, T_BAD = range(5)
NFEV, NSTEPS, NEXT_ROW, BAD = range(4)


@njit(cache=True, inline="always")
def _rhs(t, y, mdl, fel, sides, ws, tau, fext, rec, geo, lx, dy, st, tmp):
    """dy = f(t, y): a tree's (``lx`` None) or, with the loop tuple ``lx``, a system whose
    loops close through cut joints. Returns 0; the index + 1 of an element whose load
    direction is undefined; or -1 where the loop equations changed rank or came near to it
    (the rank and conditioning are in lx's info). Where it does not return 0, (t, y) is kept
    in st[T_BAD] and tmp[3] for the error message."""
    if lx is None:
        bad = forcekernels.state_derivative(y, mdl, fel, sides, ws, tau, fext, rec, geo, dy)
    else:
        bad = _loop_rhs(y, mdl, fel, sides, ws, tau, fext, rec, geo, lx, dy)
    if bad:
        st[T_BAD] = t
        for i in range(y.shape[0]):
            tmp[3, i] = y[i]
    return bad


@njit(cache=True)
def _loop_rhs(y, mdl, fel, sides, ws, tau, fext, rec, geo, lx, dy):
    cl, H, C, zero, G, gamma, g, lam, info, lp = lx
    bad = constraints.loop_derivative(y, mdl, fel, sides, cl, ws, tau, fext, rec, geo, H, C,
                                      zero, G, gamma, g, lp[RANK_TOL], dy, lam, info)
    if bad:
        return bad
    if info[0] >= 0.0 and (info[0] != lp[RANK] or info[1] < lp[SINGULAR_BELOW]):
        return -1
    return 0


@njit(cache=True)
def _project(y, mdl, ws, lx):
    """y moved onto the loop closures in place (nothing for a tree)."""
    if lx is not None:
        cl, H, C, zero, G, gamma, g, lam, info, lp = lx
        constraints.project_loops(y, mdl, cl, ws, zero, G, gamma, g, lp[PROJECTION_TOL],
                                  lp[RANK_TOL], PROJECTION_ITERATIONS)


@njit(cache=True)
def _rms(x, scale):
    s = 0.0
    for i in range(x.shape[0]):
        s += (x[i] / scale[i]) ** 2
    return np.sqrt(s / x.shape[0])


@njit(cache=True)
def start(y, f, st, ist, t_bound, rtol, atol, max_step, mdl, fel, sides, ws, tau, fext, rec,
          geo, lx, tmp):
    """Begin a piece at (st[T], y): f = dy/dt there and st[H_ABS] = the initial step (Hairer's
    rule, as scipy's ``select_initial_step``). Returns what the right-hand side returned
    (see ``_rhs``)."""
    mdl, fel, ws = borrowed(mdl), borrowed(fel), borrowed(ws)
    y, f, sides, tau, fext, rec, geo = borrowed((y, f, sides, tau, fext, rec, geo))
    tmp = borrowed((tmp,))[0]
    n = y.shape[0]
    bad = _rhs(st[T], y, mdl, fel, sides, ws, tau, fext, rec, geo, lx, f, st, tmp)
    ist[NFEV] += 1
    if bad:
        return bad
    interval = t_bound - st[T]
    if interval == 0.0:
        st[H_ABS] = 0.0
        return 0
    if n == 0:                  # nothing moves: one step to the end
        st[H_ABS] = np.inf
        return 0
    scale = tmp[0]
    for i in range(n):
        scale[i] = atol + abs(y[i]) * rtol
    d0 = _rms(y, scale)
    d1 = _rms(f, scale)
    h0 = 1e-6 if (d0 < 1e-5 or d1 < 1e-5) else 0.01 * d0 / d1
    h0 = min(h0, interval)
    y1, f1 = tmp[1], tmp[2]
    for i in range(n):
        y1[i] = y[i] + h0 * f[i]
    bad = _rhs(st[T] + h0, y1, mdl, fel, sides, ws, tau, fext, rec, geo, lx, f1, st, tmp)
    ist[NFEV] += 1
    if bad:
        return bad
    for i in range(n):
        y1[i] = f1[i] - f[i]
    d2 = _rms(y1, scale) / h0
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = max(1e-6, h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** (1.0 / (ERROR_ORDER + 1))
    st[H_ABS] = min(100.0 * h0, h1, interval, max_step)
    return 0


@njit(cache=True)
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


@njit(cache=True)
def _rk_step(t, y, h, K, y_new, mdl, fel, sides, ws, tau, fext, rec, geo, lx, st, tmp):
    """One DOP853 step of size h from (t, y) with K[0] = f(t, y): stages K[1..11], y_new, and
    K[12] = f(t + h, y_new). Returns 0 or an element index + 1 (undefined load direction)."""
    n = y.shape[0]
    ys = tmp[0]
    for s in range(1, N_STAGES):
        _stage_state(y, K, s, h, ys)
        bad = _rhs(t + C[s] * h, ys, mdl, fel, sides, ws, tau, fext, rec, geo, lx, K[s], st,
                   tmp)
        if bad:
            return bad
    for i in range(n):
        acc = 0.0
        for j in range(N_STAGES):
            acc += B[j] * K[j, i]
        y_new[i] = y[i] + h * acc
    return _rhs(t + h, y_new, mdl, fel, sides, ws, tau, fext, rec, geo, lx, K[N_STAGES], st,
                tmp)


@njit(cache=True)
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


@njit(cache=True)
def dense_coefficients(st, y_old, y, K, F, ist, mdl, fel, sides, ws, tau, fext, rec, geo, lx,
                       tmp):
    """The 7th-order interpolant F of the last step (st[T_OLD], y_old) -> (st[T], y) with its
    stages in K: three more stages, then Hairer's continuous extension. Returns 0 or an element
    index + 1."""
    n = y.shape[0]
    h = st[H_PREV]
    t_old = st[T_OLD]
    ys = tmp[0]
    for s in range(N_STAGES + 1, N_STAGES_EXTENDED):
        _stage_state(y_old, K, s, h, ys)
        bad = _rhs(t_old + C[s] * h, ys, mdl, fel, sides, ws, tau, fext, rec, geo, lx, K[s],
                   st, tmp)
        ist[NFEV] += 1
        if bad:
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


@njit(cache=True)
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


@njit(cache=True)
def advance(y, st, ist, t_bound, rtol, atol, max_step, max_steps, times, rows, armed, g,
            mdl, fel, sides, ws, tau, fext, rec, geo, lx, K, y_old, F, tmp):
    """Step from (st[T], y) with K[0] = dy/dt there until the piece ends.

    Returns DONE (t_bound reached), CROSSED (an armed switching function changed sign in the
    last step: y_old, st[T_OLD], st[H_PREV] and the interpolant F describe that step), PAUSED
    (``max_steps`` steps taken), TOO_SMALL (the step fell below 10 ulp of t), NONFINITE (the
    state stopped being finite), UNDEFINED (element ist[BAD] - 1 has no load direction at
    (st[T_BAD], tmp[3])) or SINGULAR (the loop equations changed rank at (st[T_BAD], tmp[3]),
    their rank and conditioning in lx's info). With loops (the tuple ``lx``; None for a tree)
    every step ends on the closures: the state and the output rows are projected, as
    :class:`mbd.constraints.Projector` does.
    Output rows at times[ist[NEXT_ROW]:] up to the reached time are written into ``rows``.
    """
    mdl, fel, ws = borrowed(mdl), borrowed(fel), borrowed(ws)
    y, rows, g, sides, tau, fext, rec, geo = borrowed((y, rows, g, sides, tau, fext, rec, geo))
    K, y_old, F, tmp = borrowed((K, y_old, F, tmp))
    n = y.shape[0]
    y_new = tmp[1]
    any_armed = armed.any()
    exponent = -1.0 / (ERROR_ORDER + 1)
    for _ in range(max_steps):
        t = st[T]
        if t >= t_bound:
            return DONE
        min_step = 10.0 * (np.nextafter(t, np.inf) - t)
        h_abs = min(st[H_ABS], max_step)
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
            bad = _rk_step(t, y, h, K, y_new, mdl, fel, sides, ws, tau, fext, rec, geo, lx, st,
                           tmp)
            ist[NFEV] += N_STAGES
            if bad:
                ist[BAD] = bad
                return UNDEFINED if bad > 0 else SINGULAR
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
        st[T_OLD] = t
        st[T] = t_new
        st[H_PREV] = h
        st[H_ABS] = h_abs
        ist[NSTEPS] += 1
        for i in range(n):
            if not np.isfinite(y[i]):
                return NONFINITE
        if any_armed:
            forcekernels.switching_values(y, mdl, fel, sides, ws, g, geo)
            if _crossed(armed, g, sides):
                bad = dense_coefficients(st, y_old, y, K, F, ist, mdl, fel, sides, ws, tau,
                                         fext, rec, geo, lx, tmp)
                if bad:
                    ist[BAD] = bad
                    return UNDEFINED if bad > 0 else SINGULAR
                return CROSSED
        r = ist[NEXT_ROW]
        if r < times.shape[0] and times[r] <= t_new:
            bad = dense_coefficients(st, y_old, y, K, F, ist, mdl, fel, sides, ws, tau, fext,
                                     rec, geo, lx, tmp)
            if bad:
                ist[BAD] = bad
                return UNDEFINED if bad > 0 else SINGULAR
            while r < times.shape[0] and times[r] <= t_new:
                dense_value(times[r], t, h, y_old, F, rows[r])
                _project(rows[r], mdl, ws, lx)
                r += 1
            ist[NEXT_ROW] = r
        if lx is not None:
            # onto the loop closures, and the next step starts from the derivative there
            _project(y, mdl, ws, lx)
            bad = _rhs(t_new, y, mdl, fel, sides, ws, tau, fext, rec, geo, lx, K[0], st, tmp)
            ist[NFEV] += 1
            if bad:
                ist[BAD] = bad
                return UNDEFINED if bad > 0 else SINGULAR
        else:
            # the next step starts from the derivative at this one's end
            for i in range(n):
                K[0, i] = K[N_STAGES, i]
    return DONE if st[T] >= t_bound else PAUSED


@njit(cache=True)
def _crossed(armed, g, sides):
    """Whether an armed switching function is on the other side of its branch."""
    for i in range(armed.shape[0]):
        for k in range(armed.shape[1]):
            if armed[i, k] and (g[i, k] >= 0.0) != (sides[i, k] > 0.0):
                return True
    return False


@njit(cache=True)
def locate(i, k, side, ta, tb, tol, t_old, h, y_old, F, mdl, fel, sides, ws, g, geo, y):
    """The time in (ta, tb] where switching function (i, k) of the interpolated step
    (t_old, h, y_old, F) leaves the side ``side``, bracketed by the Illinois variant of
    regula falsi until the bracket is ``tol`` wide; returns its far end (already across).
    The same iteration as :func:`mbd.simulate._locate`, compiled; ``y`` is scratch (n,)."""
    mdl, fel, ws = borrowed(mdl), borrowed(fel), borrowed(ws)
    a, b = ta, tb
    dense_value(a, t_old, h, y_old, F, y)
    forcekernels.switching_values(y, mdl, fel, sides, ws, g, geo)
    ga = g[i, k]
    dense_value(b, t_old, h, y_old, F, y)
    forcekernels.switching_values(y, mdl, fel, sides, ws, g, geo)
    gb = g[i, k]
    keep = 0
    while b - a > tol:
        m = b - gb * (b - a) / (gb - ga) if gb != ga else 0.5 * (a + b)
        if not (a < m < b):
            m = 0.5 * (a + b)
        dense_value(m, t_old, h, y_old, F, y)
        forcekernels.switching_values(y, mdl, fel, sides, ws, g, geo)
        gm = g[i, k]
        if (gm >= 0.0) == (side > 0.0):     # still on the old side: the crossing is later
            a, ga = m, gm
            if keep == -1:
                gb *= 0.5
            keep = -1
        else:
            b, gb = m, gm
            if keep == 1:
                ga *= 0.5
            keep = 1
    return b
