"""Radau IIA (order 5), the method's parts for the compiled loop of :mod:`mbd.run.steppers.radau`:
its constants (scipy's own numbers), the Newton matrices and the simplified Newton iteration on the
collocation system, the forward-difference Jacobian, the predictive step-size factor, the
collocation polynomial (dense output) and the power iteration's spectral radius (method
"auto"). The step loop, its records and its returns are :mod:`mbd.run.steppers.radau`'s.
"""
import numpy as np
from scipy.integrate._ivp import radau as _scipy_radau

from ...compiled.jit.jitcache import njit
from .lu import lu_factor, lu_solve
from .stepping import SLOPE, STAGE, controlled, controlled_count, evaluate

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

#: J^k x in the power iteration of the spectral radius: rho ~ (|J^k x| / |x|)^(1/k)
POWER_STEPS = 8


# ----------------------------------------------------------------------------- Newton matrices

@njit()
def factor_newton(J, h, LU_real, piv_real, LU_complex, piv_complex):
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
def pymin(a, b):
    """min(a, b) as Python's: b only if b < a (a NaN b gives a)."""
    return b if b < a else a


@njit(inline="always")
def pymax(a, b):
    """max(a, b) as Python's: b only if b > a."""
    return b if b > a else a


@njit(inline="always")
def predict_factor(h_abs, h_abs_old, error_norm, error_norm_old):
    """scipy's ``predict_factor``: Gustafsson's predictive controller (Hairer & Wanner
    §IV.8), the one-step formula when there is no previous step (a negative h_abs_old or
    error_norm_old) or the error is 0."""
    if error_norm_old < 0.0 or h_abs_old < 0.0 or error_norm == 0.0:
        multiplier = 1.0
    else:
        multiplier = h_abs / h_abs_old * (error_norm_old / error_norm) ** 0.25
    return pymin(1.0, multiplier) * error_norm ** -0.25


@njit()
def jacobian(f, t, y, fy, J, st, tmp, quad_start, quad_stop):
    """J = d f / d y at (t, y) by forward differences, fy = f(t, y) given: column j from one
    evaluation at y + delta_j e_j, delta_j = sqrt(EPS max(1e-5, |y_j|)) (the rule of Hairer
    & Wanner's RADAU5), rounded to (y_j + delta_j) - y_j so that the step is exact. One
    evaluation per column but those of the quadratures y[quad_start:quad_stop] (the work
    accumulators, :func:`mbd.compiled.evaluator.work_size`), which enter no right-hand
    side: their columns are zero, not evaluated (a controller's states after them are
    evaluated). Counted in st.nfev; uses tmp[STAGE] and tmp[SLOPE]. Returns what a failing
    right-hand side returned, or 0."""
    n = y.shape[0]
    yp = tmp[STAGE]
    fp = tmp[SLOPE]
    for i in range(n):
        yp[i] = y[i]
    for j in range(n):
        if not (j < quad_start or j >= quad_stop):
            for i in range(n):
                J[i, j] = 0.0
            continue
        yj = y[j]
        yp[j] = yj + np.sqrt(EPS * max(JAC_FLOOR, abs(yj)))
        delta = yp[j] - yj
        bad = evaluate(f, t, yp, fp, st, tmp)
        if bad != 0:
            return bad
        for i in range(n):
            J[i, j] = (fp[i] - fy[i]) / delta
        yp[j] = yj
    return 0


@njit()
def collocation(f, t, y, h, Z0, scale, tol, LU_real, piv_real, LU_complex, piv_complex,
                 Z, W, dW, F, cvec, st, tmp, settings):
    """scipy's ``solve_collocation_system``: the simplified Newton iteration for the stages'
    increments Z (from Z0) in the variables W = T^-1 Z, with the factored Newton matrices;
    its convergence measured on the entries under error control (a quadrature's increment
    follows from the others' and is left out, :mod:`mbd.run.settings`). Returns (what a
    failing right-hand side returned, converged, iterations, the last convergence rate or
    NaN)."""
    n = y.shape[0]
    n_c = controlled_count(n, settings.quad_start, settings.quad_stop)
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
            bad = evaluate(f, t + h * C[s], ys, F[s], st, tmp)
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
            if controlled(i, settings.quad_start, settings.quad_stop):
                for a in range(3):
                    acc += (dW[a, i] / scale[i]) ** 2
        dW_norm = np.sqrt(acc) / (3 * n_c) ** 0.5 if n_c > 0 else 0.0
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


@njit(inline="always")
def end_slope(h, Q, out):
    """dy/dt at the end of a step of h s from its collocation polynomial Q, into out:
    (Q[0] + 2 Q[1] + 3 Q[2]) / h."""
    for i in range(out.shape[0]):
        out[i] = (Q[0, i] + 2.0 * Q[1, i] + 3.0 * Q[2, i]) / h


@njit()
def spectral_radius(J, x, z, settings):
    """The spectral radius of J (1/s) estimated by the power iteration on the entries under
    error control (the quadratures' rows and columns left out: their eigenvalues are 0),
    from x (kept by the caller: the last estimate's vector starts the next; a fresh start
    where it is 0):

        rho ~ (|J^k x| / |x|)^(1/k),  k = POWER_STEPS

    Gelfand's formula, as the geometric mean of the k ratios |J x_i| / |x_i|: unlike one
    ratio, it does not swing between the singular values of J when the dominant eigenvalues
    are a complex pair (an oscillating mode), which the iteration does not converge to; it
    may overestimate by (the eigenvectors' condition)^(1/k), never by much, which only
    delays the return to the explicit method. z: scratch (n,). 0 for a nilpotent J
    (a free flight's dq/dt = v)."""
    n = x.shape[0]
    norm = 0.0
    for i in range(n):
        if controlled(i, settings.quad_start, settings.quad_stop):
            norm += x[i] * x[i]
        else:
            x[i] = 0.0
    if not (norm > 0.0 and np.isfinite(norm)):
        # generically with a part along every eigenvector
        norm = 0.0
        for i in range(n):
            if controlled(i, settings.quad_start, settings.quad_stop):
                x[i] = 1.0 + 0.5 * np.sin(1.0 + i)
                norm += x[i] * x[i]
        if norm == 0.0:
            return 0.0
    norm = np.sqrt(norm)
    for i in range(n):
        x[i] /= norm
    log_sum = 0.0
    for _ in range(POWER_STEPS):
        nz = 0.0
        for i in range(n):
            acc = 0.0
            if controlled(i, settings.quad_start, settings.quad_stop):
                for j in range(n):
                    acc += J[i, j] * x[j]
            z[i] = acc
            nz += acc * acc
        if not (nz > 0.0 and np.isfinite(nz)):
            for i in range(n):
                x[i] = 0.0
            return 0.0 if nz == 0.0 else np.inf
        nz = np.sqrt(nz)
        log_sum += np.log(nz)
        for i in range(n):
            x[i] = z[i] / nz
    return np.exp(log_sum / POWER_STEPS)
