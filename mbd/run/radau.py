"""A compiled Radau IIA (order 5) integrator loop: the implicit method of stiff models.

:mod:`mbd.run.stepper` runs DOP853's whole step loop compiled; on a stiff model (a stiff contact,
a light body on a stiff spring) an explicit method's step is held by the fastest mode and it
takes millions of steps (issue 16). This module runs the three-stage Radau IIA collocation
method of Hairer & Wanner (*Solving ODEs II*, §IV.8) as ``scipy.integrate.Radau`` does —
the same constants, simplified Newton iteration in the transformed variables with its
convergence-rate test and tolerance, Jacobian and LU reuse, error estimate, predictive
(Gustafsson) step-size controller, initial step and cubic collocation dense output — in one
numba call that steps until the piece ends. The interface, return codes, ``STEPPER`` record
and ``tmp[FAILED_STATE]`` convention are those of :func:`mbd.run.stepper.advance`: the same exact
switching (a crossing stops the loop with the step's dense output ready), output rows from
dense output, projection onto the closures after every step.

Where it is not scipy's:

- the Jacobian of the right-hand side is compiled forward differences (:func:`jacobian`) with
  the column step of Hairer & Wanner's RADAU5 code, ``delta_j = sqrt(EPS max(1e-5, |y_j|))``,
  rounded so that ``y_j + delta_j`` is exact; scipy's own ``num_jac`` adapts its steps from
  column to column and call to call;
- the linear solves are compiled LU factorizations with partial pivoting (real and complex,
  the pivot chosen as LAPACK's ``i?amax`` does) into preallocated arrays;
- with constraints, each accepted step's end is projected and the next step starts from the
  derivative at the projected state (also where the Jacobian is re-evaluated); the stages'
  predictor keeps the last step's collocation polynomial (its end moves by O(tolerance)).

Everything between calls lives in the arrays of :func:`make_work` (a :data:`Work` tuple) and
the ``STEPPER`` record, so a run may stop after any step and resume.
"""
from collections import namedtuple

import numpy as np
from scipy.integrate._ivp import radau as _scipy_radau

from ..compiled import events, layout
from . import stepper
from ..compiled.jitcache import njit
from ..compiled.layout import SWITCHING
from ..compiled.native import call2, call4
from .stepper import CROSSED, DONE, FAILED, NONFINITE, PAUSED, TOO_SMALL, _rhs, _rms  # noqa: F401

#: the method's constants, scipy's own numbers: nodes, error weights, the eigenvalues of the
#: inverse Runge–Kutta matrix (one real, one complex pair), its eigenvectors T and T^-1, and
#: the dense output's coefficients
C = np.ascontiguousarray(_scipy_radau.C, dtype=float)
E = np.ascontiguousarray(_scipy_radau.E, dtype=float)
MU_REAL = float(_scipy_radau.MU_REAL)
MU_COMPLEX = complex(_scipy_radau.MU_COMPLEX)
T = np.ascontiguousarray(_scipy_radau.T, dtype=float)
TI = np.ascontiguousarray(_scipy_radau.TI, dtype=float)
TI_REAL = np.ascontiguousarray(_scipy_radau.TI_REAL, dtype=float)
TI_COMPLEX = np.ascontiguousarray(_scipy_radau.TI_COMPLEX, dtype=complex)
P = np.ascontiguousarray(_scipy_radau.P, dtype=float)
NEWTON_MAXITER = int(_scipy_radau.NEWTON_MAXITER)
MIN_FACTOR = float(_scipy_radau.MIN_FACTOR)
MAX_FACTOR = float(_scipy_radau.MAX_FACTOR)
EPS = float(np.finfo(float).eps)
ERROR_ORDER = 3             # the embedded error estimate's order: the initial step ~ err^(-1/4)
#: the floor of a Jacobian column's step, sqrt(EPS * max(JAC_FLOOR, |y_j|)) (RADAU5's)
JAC_FLOOR = 1e-5

#: the rows of the loop's scratch ``tmp`` (TMP_ROWS, n): a stage state (or a perturbed state),
#: the new state, a derivative, the state where an evaluation failed (the row of
#: :mod:`mbd.run.stepper`, read by :func:`mbd.run.stepper.failed_state`), the error scale, the error
#: estimate and Z^T E / h
STAGE, NEW, SLOPE, FAILED_STATE, SCALE, ERROR, ZE = range(7)
TMP_ROWS = 7

Work = namedtuple("Work", "radau f J LU_real piv_real LU_complex piv_complex Z0 Z W dW F Q "
                          "y_old cvec tmp")
Work.__doc__ = """The compiled Radau loop's preallocated arrays (:func:`make_work`), n states.

radau : RADAU records (1,)
    The method's scalars between calls (:data:`mbd.compiled.layout.RADAU`).
f : (n,)
    dy/dt at the current (t, y) (at the projected state with constraints).
J : (n, n)
    The Jacobian d f / d y, evaluated at some earlier accepted state (``radau.current_jac``:
    at the current one).
LU_real, piv_real : (n, n), (n,) int64
    LU factors (unit lower L below the diagonal, U on and above) and row swaps of
    MU_REAL / h I - J.
LU_complex, piv_complex : (n, n) complex128, (n,) int64
    ... of MU_COMPLEX / h I - J.
Z0, Z : (3, n)
    The stages' increments over y: the predictor (from the last step's dense output, or 0)
    and the Newton iterate; after a step, the accepted ones.
W, dW : (3, n)
    The Newton iterate in the transformed variables W = T^-1 Z and its last correction.
F : (3, n)
    The right-hand side at the three stages.
Q : (3, n)
    The last step's dense output: y(t) = y_old + Q[0] x + Q[1] x^2 + Q[2] x^3,
    x = (t - t_old) / h (row r is scipy's column r of Z^T P).
y_old : (n,)
    The last step's start.
cvec : (n,) complex128
    The complex right-hand side and solution of the Newton correction.
tmp : (TMP_ROWS, n)
    Scratch, rows STAGE ... ZE (``tmp[FAILED_STATE]`` as in :mod:`mbd.run.stepper`).
"""


def make_work(n):
    """The loop's arrays (:data:`Work`) for a state of n entries, allocated once per run."""
    return Work(radau=layout.records(layout.RADAU, 1), f=np.zeros(n), J=np.zeros((n, n)),
                LU_real=np.zeros((n, n)), piv_real=np.zeros(n, dtype=np.int64),
                LU_complex=np.zeros((n, n), dtype=complex),
                piv_complex=np.zeros(n, dtype=np.int64), Z0=np.zeros((3, n)),
                Z=np.zeros((3, n)), W=np.zeros((3, n)), dW=np.zeros((3, n)),
                F=np.zeros((3, n)), Q=np.zeros((3, n)), y_old=np.zeros(n),
                cvec=np.zeros(n, dtype=complex), tmp=np.zeros((TMP_ROWS, n)))


# ----------------------------------------------------------------------------- linear algebra

@njit()
def lu_factor(A, piv):
    """A = P L U in place, with partial pivoting (LAPACK's ``getf2``: at column k, the row of
    largest |a| — for a complex matrix |Re a| + |Im a|, as ``izamax`` measures — the first
    such); ``piv[k]`` is the row swapped with row k. A real or complex square matrix; a zero
    pivot is kept (the solve then gives inf or nan, which the Newton iteration rejects).
    Returns the number of zero pivots."""
    n = A.shape[0]
    zeros = 0
    for k in range(n):
        p = k
        big = abs(A[k, k].real) + abs(A[k, k].imag)
        for i in range(k + 1, n):
            m = abs(A[i, k].real) + abs(A[i, k].imag)
            if m > big:
                big = m
                p = i
        piv[k] = p
        if p != k:
            for j in range(n):
                a = A[k, j]
                A[k, j] = A[p, j]
                A[p, j] = a
        d = A[k, k]
        if d == 0.0:
            zeros += 1
            continue
        for i in range(k + 1, n):
            A[i, k] /= d
        for i in range(k + 1, n):
            a = A[i, k]
            if a != 0.0:
                for j in range(k + 1, n):
                    A[i, j] -= a * A[k, j]
    return zeros


@njit()
def lu_solve(LU, piv, b):
    """Solve A x = b in place (b becomes x) with A's factors from :func:`lu_factor`."""
    n = LU.shape[0]
    for k in range(n):
        p = piv[k]
        if p != k:
            a = b[k]
            b[k] = b[p]
            b[p] = a
    for i in range(n):
        s = b[i]
        for j in range(i):
            s -= LU[i, j] * b[j]
        b[i] = s
    for i in range(n - 1, -1, -1):
        s = b[i]
        for j in range(i + 1, n):
            s -= LU[i, j] * b[j]
        b[i] = s / LU[i, i]


@njit()
def _factor_newton(J, h, LU_real, piv_real, LU_complex, piv_complex):
    """Factor the Newton matrices MU_REAL / h I - J and MU_COMPLEX / h I - J."""
    n = J.shape[0]
    m_real = MU_REAL / h
    m_complex = MU_COMPLEX / h
    for i in range(n):
        for j in range(n):
            LU_real[i, j] = -J[i, j]
            LU_complex[i, j] = -J[i, j]
        LU_real[i, i] += m_real
        LU_complex[i, i] += m_complex
    lu_factor(LU_real, piv_real)
    lu_factor(LU_complex, piv_complex)


# ----------------------------------------------------------------------------- the method

@njit(inline="always")
def _pymin(a, b):
    """min(a, b) as Python's: b only if b < a (a NaN b gives a)."""
    return b if b < a else a


@njit(inline="always")
def _pymax(a, b):
    """max(a, b) as Python's: b only if b > a."""
    return b if b > a else a


@njit(inline="always")
def _predict_factor(h_abs, h_abs_old, error_norm, error_norm_old):
    """scipy's ``predict_factor``: Gustafsson's predictive controller (Hairer & Wanner
    §IV.8), the one-step formula when there is no previous step (a negative h_abs_old or
    error_norm_old) or the error is 0."""
    if error_norm_old < 0.0 or h_abs_old < 0.0 or error_norm == 0.0:
        multiplier = 1.0
    else:
        multiplier = h_abs / h_abs_old * (error_norm_old / error_norm) ** 0.25
    return _pymin(1.0, multiplier) * error_norm ** -0.25


@njit()
def jacobian(rhs, t, y, f, J, tmp, st, data):
    """J = d f / d y at (t, y) by forward differences, f = f(t, y) given: column j from one
    evaluation at y + delta_j e_j, delta_j = sqrt(EPS max(1e-5, |y_j|)) (the rule of Hairer
    & Wanner's RADAU5), rounded to (y_j + delta_j) - y_j so that the step is exact. nq + nv
    evaluations, counted in st.nfev; uses tmp[STAGE] and tmp[SLOPE]. The work accumulators
    after [q, v] (:func:`mbd.compiled.statefunction.work_size`) enter no right-hand side: their columns
    are zero, not evaluated. Returns what a failing right-hand side returned, or 0."""
    n = y.shape[0]
    moving = data.q.shape[0] + data.tau.shape[0]     # [q, v]; W beyond
    yp = tmp[STAGE]
    fp = tmp[SLOPE]
    for i in range(n):
        yp[i] = y[i]
    for j in range(moving, n):
        for i in range(n):
            J[i, j] = 0.0
    for j in range(moving):
        yj = y[j]
        yp[j] = yj + np.sqrt(EPS * max(JAC_FLOOR, abs(yj)))
        delta = yp[j] - yj
        bad = _rhs(rhs, t, yp, fp, st, tmp, data)
        if bad != 0:
            return bad
        for i in range(n):
            J[i, j] = (fp[i] - f[i]) / delta
        yp[j] = yj
    return 0


@njit()
def _collocation(rhs, t, y, h, Z0, scale, tol, LU_real, piv_real, LU_complex, piv_complex,
                 Z, W, dW, F, cvec, st, tmp, data):
    """scipy's ``solve_collocation_system``: the simplified Newton iteration for the stages'
    increments Z (from Z0) in the variables W = T^-1 Z, with the factored Newton matrices.
    Returns (what a failing right-hand side returned, converged, iterations, the last
    convergence rate or NaN)."""
    n = y.shape[0]
    m_real = MU_REAL / h
    m_complex = MU_COMPLEX / h
    for i in range(n):
        for a in range(3):
            W[a, i] = TI[a, 0] * Z0[0, i] + TI[a, 1] * Z0[1, i] + TI[a, 2] * Z0[2, i]
            Z[a, i] = Z0[a, i]
    ys = tmp[STAGE]
    dW_norm_old = -1.0
    rate = np.nan
    has_rate = False
    converged = False
    n_iter = 0
    for k in range(NEWTON_MAXITER):
        n_iter = k + 1
        finite = True
        for s in range(3):
            for i in range(n):
                ys[i] = y[i] + Z[s, i]
            bad = _rhs(rhs, t + h * C[s], ys, F[s], st, tmp, data)
            if bad != 0:
                return bad, False, n_iter, rate
            for i in range(n):
                finite = finite and np.isfinite(F[s, i])
        if not finite:
            break
        for i in range(n):
            dW[0, i] = (F[0, i] * TI_REAL[0] + F[1, i] * TI_REAL[1] + F[2, i] * TI_REAL[2]
                        - m_real * W[0, i])
            cvec[i] = (F[0, i] * TI_COMPLEX[0] + F[1, i] * TI_COMPLEX[1]
                       + F[2, i] * TI_COMPLEX[2] - m_complex * complex(W[1, i], W[2, i]))
        lu_solve(LU_real, piv_real, dW[0])
        lu_solve(LU_complex, piv_complex, cvec)
        acc = 0.0
        for i in range(n):
            dW[1, i] = cvec[i].real
            dW[2, i] = cvec[i].imag
            for a in range(3):
                acc += (dW[a, i] / scale[i]) ** 2
        dW_norm = np.sqrt(acc) / (3 * n) ** 0.5 if n > 0 else 0.0
        if dW_norm_old >= 0.0:
            rate = dW_norm / dW_norm_old
            has_rate = True
        if has_rate and (rate >= 1.0 or
                         rate ** (NEWTON_MAXITER - k) / (1.0 - rate) * dW_norm > tol):
            break
        for i in range(n):
            for a in range(3):
                W[a, i] += dW[a, i]
            for a in range(3):
                Z[a, i] = T[a, 0] * W[0, i] + T[a, 1] * W[1, i] + T[a, 2] * W[2, i]
        if dW_norm == 0.0 or (has_rate and rate / (1.0 - rate) * dW_norm < tol):
            converged = True
            break
        dW_norm_old = dW_norm
    return 0, converged, n_iter, rate


@njit()
def dense_value(t, t_old, h, y_old, Q, out):
    """The collocation polynomial Q of a step (t_old, y_old, size h) at time t, into out:
    y_old + Q[0] x + Q[1] x^2 + Q[2] x^3, x = (t - t_old) / h."""
    x = (t - t_old) / h
    x2 = x * x
    x3 = x2 * x
    for i in range(y_old.shape[0]):
        out[i] = Q[0, i] * x + Q[1, i] * x2 + Q[2, i] * x3 + y_old[i]


@njit()
def switching_on_step(t, context):
    """Switching function (i, k) at time t of the step's dense output in ``context`` (the
    context of :func:`mbd.run.stepper.step_context`, Q in place of F)."""
    i, k, t_old, h, y_old, Q, y, g, switch, data = context
    dense_value(t, t_old, h, y_old, Q, y)
    call4(switch, y, g, data, SWITCHING)
    return g[i, k]


@njit()
def locate_on_step(g_on_step, i, k, side, ta, tb, tol, t_old, h, y_old, Q, y, g, switch,
                   data):
    """Where switching function (i, k) leaves the side ``side`` in (ta, tb] of the step's
    dense output (t_old, h, y_old, Q) (:func:`mbd.compiled.events.illinois`, compiled): ``g_on_step``
    is the address of :func:`switching_on_step`, ``switch`` the switching function's; y and g
    are scratch (as :func:`mbd.run.stepper.locate_on_step`)."""
    return events.illinois(g_on_step, (i, k, t_old, h, y_old, Q, y, g, switch, data), ta, tb,
                           side, tol)


def step_context(i, k, t_old, h, y_old, Q, y, g, switch, data):
    """The context tuple of :func:`switching_on_step` (the types of
    :func:`mbd.run.stepper.step_context`'s)."""
    return (i, k, t_old, h, y_old, Q, y, g, switch, data)


@njit()
def _start(rhs, y, f, J, st, rd, t_bound, rtol, atol, max_step, h_first, tmp, data):
    """Begin a piece at (st.t, y), as scipy's ``Radau.__init__``: f = dy/dt there, st.h_abs =
    the initial step (h_first if > 0, else Hairer's rule of ``select_initial_step`` with the
    error estimate's order 3), J at (t, y), no LU, no previous step. Returns what a failing
    right-hand side returned, or 0."""
    S = st[0]
    R = rd[0]
    R.h_abs_old = -1.0
    R.error_norm_old = -1.0
    R.newton_tol = max(10.0 * EPS / rtol, min(0.03, rtol ** 0.5))
    R.current_jac = 1
    R.lu_valid = 0
    R.has_sol = 0
    bad = stepper.initial_step(rhs, y, f, st, t_bound, rtol, atol, max_step, h_first,
                               ERROR_ORDER, tmp, data)
    if bad != 0:
        return bad
    bad = jacobian(rhs, S.t, y, f, J, tmp, st, data)
    R.njev += 1
    return bad


@njit()
def advance(rhs, switch, project, constrained, starting, h_first, y, st, t_bound, rtol, atol,
            max_step, max_steps, times, rows, armed, g, work, data):
    """Step Radau IIA from (st.t, y) until the piece ends (scipy's ``Radau._step_impl``, step
    after step); ``starting``: a new piece begins there (f, the initial step — ``h_first`` if
    > 0, else Hairer's rule — and the Jacobian are computed first, as a new scipy solver
    does), else the loop resumes from ``work`` as the last call left it.
    ``rhs``, ``switch`` and ``project`` are the addresses of the right-hand side, switching
    function and projection (:mod:`mbd.compiled.native`); ``work`` is :func:`make_work`'s.

    Returns, as :func:`mbd.run.stepper.advance`: DONE (t_bound reached), CROSSED (an armed
    switching function changed sign in the last step: work.y_old, st.t_old, st.h_prev and
    work.Q describe that step, see :func:`dense_value`), PAUSED (``max_steps`` steps taken),
    TOO_SMALL (the step fell below 10 ulp of t), NONFINITE (the state stopped being finite)
    or FAILED (an evaluation or the projection returned st.bad at (st.t_bad,
    work.tmp[FAILED_STATE])). Output rows at times[st.next_row:] up to the reached time are
    written into ``rows``; with constraints (``constrained``) every step's end and every row
    is projected, and the next step starts from the derivative at the projected state.
    """
    S = st[0]
    rd = work.radau
    R = rd[0]
    f, J, Q, y_old, tmp = work.f, work.J, work.Q, work.y_old, work.tmp
    LU_real, piv_real = work.LU_real, work.piv_real
    LU_complex, piv_complex = work.LU_complex, work.piv_complex
    Z0, Z, W, dW, F, cvec = work.Z0, work.Z, work.W, work.dW, work.F, work.cvec
    n = y.shape[0]
    if starting and _start(rhs, y, f, J, st, rd, t_bound, rtol, atol, max_step, h_first, tmp,
                           data) != 0:
        return FAILED
    y_new, scale, error, ze = tmp[NEW], tmp[SCALE], tmp[ERROR], tmp[ZE]
    ys, slope = tmp[STAGE], tmp[SLOPE]
    any_armed = False
    for i in range(armed.shape[0]):
        for k in range(armed.shape[1]):
            any_armed = any_armed or armed[i, k]
    newton_tol = R.newton_tol
    for _ in range(max_steps):
        t = S.t
        if t >= t_bound:
            return DONE
        min_step = 10.0 * (np.nextafter(t, np.inf) - t)
        if S.h_abs > max_step:
            h_abs, h_abs_old, error_norm_old = max_step, -1.0, -1.0
        elif S.h_abs < min_step:
            h_abs, h_abs_old, error_norm_old = min_step, -1.0, -1.0
        else:
            h_abs, h_abs_old, error_norm_old = S.h_abs, R.h_abs_old, R.error_norm_old
        current_jac = R.current_jac != 0
        lu_valid = R.lu_valid != 0
        rejected = False
        # the values of the accepted attempt
        t_new = t
        h = 0.0
        n_iter = 0
        rate = np.nan
        error_norm = 0.0
        safety = 0.0
        while True:
            if h_abs < min_step:
                R.lu_valid = 0
                return TOO_SMALL
            t_new = t + h_abs
            if t_new > t_bound:
                t_new = t_bound
            h = t_new - t
            h_abs = abs(h)
            # the stages predicted by the last step's collocation polynomial
            if R.has_sol != 0:
                for s in range(3):
                    dense_value(t + h * C[s], S.t_old, S.h_prev, y_old, Q, Z0[s])
                    for i in range(n):
                        Z0[s, i] -= y[i]
            else:
                for s in range(3):
                    for i in range(n):
                        Z0[s, i] = 0.0
            for i in range(n):
                scale[i] = atol + abs(y[i]) * rtol
            converged = False
            while not converged:
                if not lu_valid:
                    _factor_newton(J, h, LU_real, piv_real, LU_complex, piv_complex)
                    R.nlu += 2
                    lu_valid = True
                bad, converged, n_iter, rate = _collocation(
                    rhs, t, y, h, Z0, scale, newton_tol, LU_real, piv_real, LU_complex,
                    piv_complex, Z, W, dW, F, cvec, st, tmp, data)
                if bad != 0:
                    R.lu_valid = 0
                    return FAILED
                if not converged:
                    if current_jac:
                        break
                    if jacobian(rhs, t, y, f, J, tmp, st, data) != 0:
                        R.lu_valid = 0
                        return FAILED
                    R.njev += 1
                    current_jac = True
                    lu_valid = False
            if not converged:
                h_abs *= 0.5
                lu_valid = False
                continue
            for i in range(n):
                y_new[i] = y[i] + Z[2, i]
                ze[i] = (Z[0, i] * E[0] + Z[1, i] * E[1] + Z[2, i] * E[2]) / h
                error[i] = f[i] + ze[i]
            lu_solve(LU_real, piv_real, error)
            for i in range(n):
                scale[i] = atol + max(abs(y[i]), abs(y_new[i])) * rtol
            error_norm = _rms(error, scale)
            safety = 0.9 * (2 * NEWTON_MAXITER + 1) / (2 * NEWTON_MAXITER + n_iter)
            if rejected and error_norm > 1.0:
                # the estimate filtered once more through the stiff part (Hairer & Wanner)
                for i in range(n):
                    ys[i] = y[i] + error[i]
                if _rhs(rhs, t, ys, slope, st, tmp, data) != 0:
                    R.lu_valid = 0
                    return FAILED
                for i in range(n):
                    error[i] = slope[i] + ze[i]
                lu_solve(LU_real, piv_real, error)
                error_norm = _rms(error, scale)
            if error_norm > 1.0:
                factor = _predict_factor(h_abs, h_abs_old, error_norm, error_norm_old)
                h_abs *= _pymax(MIN_FACTOR, safety * factor)
                lu_valid = False
                rejected = True
            else:
                break
        # accepted: the next step size, and whether J is evaluated afresh at the step's end
        recompute_jac = n_iter > 2 and rate > 1e-3
        factor = _predict_factor(h_abs, h_abs_old, error_norm, error_norm_old)
        factor = _pymin(MAX_FACTOR, safety * factor)
        if not recompute_jac and factor < 1.2:
            factor = 1.0
        else:
            lu_valid = False
        R.h_abs_old = S.h_abs
        R.error_norm_old = error_norm
        R.lu_valid = 1 if lu_valid else 0
        S.h_abs = h_abs * factor
        for i in range(n):
            y_old[i] = y[i]
            y[i] = y_new[i]
            for r in range(3):
                Q[r, i] = Z[0, i] * P[0, r] + Z[1, i] * P[1, r] + Z[2, i] * P[2, r]
        R.has_sol = 1
        S.t_old = t
        S.t = t_new
        S.h_prev = h
        S.nsteps += 1
        for i in range(n):
            if not np.isfinite(y[i]):
                return NONFINITE
        if any_armed:
            call4(switch, y, g, data, SWITCHING)
            if events.crossed(armed, g, data.mode):
                return CROSSED
        r = S.next_row
        while r < times.shape[0] and times[r] <= t_new:
            dense_value(times[r], t, h, y_old, Q, rows[r])
            if constrained:
                call2(project, rows[r], data)
            r += 1
        S.next_row = r
        if constrained and not stepper.project_end(project, y, t_new, st, tmp, data):
            return FAILED
        # the next step starts from the derivative at this one's (projected) end
        if _rhs(rhs, t_new, y, f, st, tmp, data) != 0:
            return FAILED
        if recompute_jac:
            if jacobian(rhs, t_new, y, f, J, tmp, st, data) != 0:
                return FAILED
            R.njev += 1
            R.current_jac = 1
        else:
            R.current_jac = 0
    return DONE if S.t >= t_bound else PAUSED
