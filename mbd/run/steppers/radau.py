"""A compiled Radau IIA (order 5) integrator loop: the implicit method of stiff models.

:mod:`mbd.run.steppers.dop853` runs DOP853's whole step loop compiled; on a stiff model (a stiff
contact, a light body on a stiff spring) an explicit method's step is held by the fastest mode and
it takes millions of steps (issue 16). This module runs the three-stage Radau IIA collocation
method of Hairer & Wanner (*Solving ODEs II*, §IV.8) as ``scipy.integrate.Radau`` does —
the same constants, simplified Newton iteration in the transformed variables with its
convergence-rate test and tolerance, Jacobian and LU reuse, error estimate, predictive
(Gustafsson) step-size controller, initial step and cubic collocation dense output — in one
numba call that steps until the piece ends. The contract, return codes, ``STEPPER`` record
and ``tmp[FAILED_STATE]`` convention are those of :mod:`mbd.run.steppers.stepping`, as for DOP853
(:func:`mbd.run.steppers.dop853.advance`): the same exact switching (a crossing, or a double
crossing inside a step, stops the loop with the step's dense output ready), output rows from dense
output, projection onto the closures after every step.

Where it is not scipy's:

- the Jacobian of the right-hand side is compiled forward differences
  (:func:`mbd.run.steppers.collocation.jacobian`) with the column step of Hairer & Wanner's RADAU5
  code, ``delta_j = sqrt(EPS max(1e-5, |y_j|))``, rounded so that ``y_j + delta_j`` is exact;
  scipy's own ``num_jac`` adapts its steps from column to column and call to call;
- the linear solves are compiled LU factorizations with partial pivoting (real and complex,
  the pivot chosen as LAPACK's ``i?amax`` does) into preallocated arrays
  (:mod:`mbd.run.steppers.lu`);
- the work accumulators W (quadratures) are integrated but left out of the error norm, the
  Newton test and the initial step's rule, and J has no columns for them
  (:mod:`mbd.run.settings`); scipy's Radau on [q, v] alone takes the same steps;
- method "auto" hands the run back to DOP853 where the model is no longer stiff
  (:func:`_calm_test`, :func:`mbd.run.steppers.collocation.spectral_radius`);
- with constraints, each accepted step's end is projected and the next step starts from the
  derivative at the projected state (also where the Jacobian is re-evaluated); the stages'
  predictor keeps the last step's collocation polynomial (its end moves by O(tolerance)).

Everything between calls lives in the arrays of :func:`make_work` (a :data:`Work` tuple, the
``STEPPER`` record among them), so a run may stop after any step and resume.
"""
from collections import namedtuple

import numpy as np

from ...compiled import layout
from ...compiled.jit.jitcache import njit
from ...compiled.jit.native import call3
from ..settings import weight
from .changepoints import approaching, place, plan, widest_gap
from .collocation import (
    EPS,
    ERROR_ORDER,
    MAX_FACTOR,
    MIN_FACTOR,
    NEWTON_MAXITER,
    C,
    E,
    P,
    collocation,
    dense_value,
    end_slope,
    factor_newton,
    jacobian,
    predict_factor,
    pymax,
    pymin,
    spectral_radius,
)
from .dop853 import STIFF_BOUND, STIFF_EVERY
from .lu import lu_solve
from .stepping import (
    CHANGE_POINT,
    CROSSED,
    DENSE_RADAU,
    DONE,
    FAILED,
    NEW,
    NONFINITE,
    NONSTIFF,
    PAUSED,
    PIECE,
    SCREEN_CROSSED,
    SCREEN_NOTHING,
    SLOPE,
    STAGE,
    START,
    STEPPED,
    TOO_SMALL,
    any_armed,
    controlled_rms,
    crossed,
    departures,
    evaluate,
    initial_step,
    project_end,
    project_row,
    start_turns,
    turned,
)

#: method "auto" goes back to DOP853 where Radau's step h (the next one) and the spectral
#: radius rho of J (:func:`spectral_radius`) satisfy h rho <= CALM_SHARE STIFF_BOUND
#: (DOP853's stability boundary, :mod:`mbd.run.steppers.dop853`): DOP853 would be stable at 1 /
#: CALM_SHARE times Radau's step. The margin, because DOP853's own steps (order 8) are
#: longer than Radau's (order 5) at the same tolerance: at h rho <= STIFF_BOUND alone, the
#: box of benchmarks/stiff.py at rtol 1e-8 went back to DOP853 while its bushings still
#: held the steps (Radau's step at the stability bound), and DOP853 found it stiff again
#: 0.12 s later. A calm model is far inside: a free flight's rho is 0, a soft spring's
#: h rho ~ 0.1. Tested as
#: DOP853's stiffness test is (every STIFF_EVERY steps, then at every step once one passed),
#: CALM_STEPS tests in a row, and not before Radau has taken CALM_STEPS steps since it took
#: over (its first steps are short because it starts, not because the model is calm); the
#: last test with J evaluated afresh at the reached state. LSODA likewise waits 20 steps
#: after a switch and compares the explicit method's stability-limited step with the stiff
#: one's.
CALM_STEPS = 15
CALM_SHARE = 0.25

#: where a step puts a change point (:mod:`mbd.run.steppers.changepoints`): between its nodes
GAP = widest_gap(C)

#: the rows of the loop's scratch ``tmp`` (TMP_ROWS, n) after those of
#: :mod:`mbd.run.steppers.stepping` (STAGE, NEW, SLOPE, FAILED_STATE): the error scale, the
#: error estimate and Z^T E / h
SCALE, ERROR, ZE = range(4, 7)
TMP_ROWS = 7

Work = namedtuple("Work", PIECE + ("radau", "f", "J", "LU_real", "piv_real", "LU_complex",
                                   "piv_complex", "Z0", "Z", "W", "dW", "F", "Q", "y_old",
                                   "cvec", "x_rho", "tmp"))
Work.__doc__ = """The compiled Radau loop's arrays (:func:`make_work`), n states: the
:data:`mbd.run.steppers.stepping.PIECE` arrays, then

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
x_rho : (n,)
    The power iteration's vector of :func:`spectral_radius` (method "auto"), kept from one
    estimate to the next as the start of the next.
tmp : (TMP_ROWS, n)
    Scratch, rows STAGE ... ZE.
"""


def make_work(piece):
    """The loop's arrays (:data:`Work`) around the :data:`mbd.run.steppers.stepping.PIECE` arrays
    ``piece`` (a dict, :func:`mbd.run.steppers.stepping.piece_arrays`), allocated once per run."""
    n = piece["y"].shape[0]
    return Work(**piece, radau=layout.records(layout.RADAU, 1), f=np.zeros(n),
                J=np.zeros((n, n)), LU_real=np.zeros((n, n)),
                piv_real=np.zeros(n, dtype=np.int64),
                LU_complex=np.zeros((n, n), dtype=complex),
                piv_complex=np.zeros(n, dtype=np.int64), Z0=np.zeros((3, n)),
                Z=np.zeros((3, n)), W=np.zeros((3, n)), dW=np.zeros((3, n)),
                F=np.zeros((3, n)), Q=np.zeros((3, n)), y_old=np.zeros(n),
                cvec=np.zeros(n, dtype=complex), x_rho=np.zeros(n),
                tmp=np.zeros((TMP_ROWS, n)))


@njit()
def screen(f, work, across):
    """The double-crossing screen of :func:`advance`, as :func:`mbd.run.steppers.dop853.screen` (its
    contract and return codes) on the step's collocation polynomial, which every step has:
    SCREEN_NOTHING or SCREEN_CROSSED."""
    S = work.st[0]
    y, tmp = work.y, work.tmp
    if across == START:
        start_turns(f, S.t, y, work.f, S.h_abs, work.turn, tmp[STAGE])
        return SCREEN_NOTHING
    end_slope(S.h_prev, work.Q, tmp[SLOPE])
    turns = turned(f, S.t, y, tmp[SLOPE], S.h_prev, work.g, work.turn, work.armed, tmp[STAGE])
    dipped = turns and departures(f, S.on_step, DENSE_RADAU, S.t_old, S.h_prev, work.y_old,
                                  work.Q, work.turn, tmp[NEW])
    return SCREEN_CROSSED if across != 0 or dipped else SCREEN_NOTHING


@njit()
def _start(f, work, settings):
    """Begin a piece at (st.t, y), as scipy's ``Radau.__init__``: f = dy/dt there, st.h_abs =
    the initial step (settings.first_step if > 0, else Hairer's rule of
    ``select_initial_step`` with the error estimate's order 3), J at (t, y), no LU, no
    previous step. Returns what a failing right-hand side returned, or 0."""
    R = work.radau[0]
    R.h_abs_old = -1.0
    R.error_norm_old = -1.0
    R.newton_tol = max(10.0 * EPS / settings.rtol, min(0.03, settings.rtol ** 0.5))
    R.current_jac = 1
    R.lu_valid = 0
    R.has_sol = 0
    bad = initial_step(f, work.st, work.y, work.tmp, settings, work.f, ERROR_ORDER,
                       settings.quad_start, settings.quad_stop)
    if bad != 0:
        return bad
    bad = jacobian(f, work.st[0].t, work.y, work.f, work.J, work.st, work.tmp,
                   settings.quad_start, settings.quad_stop)
    R.njev += 1
    return bad


@njit(inline="always")
def _take_step(f, work, settings):
    """One accepted step from (st.t, y), scipy's ``Radau._step_impl`` line by line (Hairer &
    Wanner, *Solving ODEs II*, §IV.8): step attempts — the stages predicted by the last
    step's collocation polynomial, the simplified Newton iteration (the Jacobian re-evaluated
    once where it fails with an old one), the embedded error estimate, filtered once more
    after a rejection — until one converges with an error norm <= 1; then the predictive
    controller's next step size, the dense output Q, y_old = y, y = the step's end. Returns
    (STEPPED, TOO_SMALL, FAILED or NONFINITE; whether J is to be evaluated afresh at the
    step's end).

    One function, as scipy's: cut into inlined helpers (prediction, Newton loop, error
    estimate) it took 15% longer per step on a one-body model (measured).
    """
    S, R, y, tmp = work.st[0], work.radau[0], work.y, work.tmp
    st, fy, J, Q, y_old = work.st, work.f, work.J, work.Q, work.y_old
    LU_real, piv_real = work.LU_real, work.piv_real
    LU_complex, piv_complex = work.LU_complex, work.piv_complex
    Z0, Z, W, dW, F, cvec = work.Z0, work.Z, work.W, work.dW, work.F, work.cvec
    y_new, scale, error, ze = tmp[NEW], tmp[SCALE], tmp[ERROR], tmp[ZE]
    ys, slope = tmp[STAGE], tmp[SLOPE]
    n = y.shape[0]
    newton_tol = R.newton_tol
    t = S.t
    min_step = 10.0 * (np.nextafter(t, np.inf) - t)
    if S.h_abs > settings.max_step:
        h_abs, h_abs_old, error_norm_old = settings.max_step, -1.0, -1.0
    elif S.h_abs < min_step:
        h_abs, h_abs_old, error_norm_old = min_step, -1.0, -1.0
    else:
        h_abs, h_abs_old, error_norm_old = S.h_abs, R.h_abs_old, R.error_norm_old
    current_jac = R.current_jac != 0
    lu_valid = R.lu_valid != 0
    rejected = False
    wanted = placed = h_abs
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
            return TOO_SMALL, False
        wanted = h_abs          # the control's choice, before a change point sizes it
        placed = place(S.t_cross, t, h_abs, min_step, GAP, rejected)
        if placed != h_abs:
            h_abs = placed
            lu_valid = False
        t_new = t + h_abs
        if t_new > S.t_bound:
            t_new = S.t_bound
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
            scale[i] = weight(settings, abs(y[i]))
        converged = False
        while not converged:
            if not lu_valid:
                factor_newton(J, h, LU_real, piv_real, LU_complex, piv_complex)
                R.nlu += 2
                lu_valid = True
            bad, converged, n_iter, rate = collocation(
                f, t, y, h, Z0, scale, newton_tol, LU_real, piv_real, LU_complex,
                piv_complex, Z, W, dW, F, cvec, st, tmp, settings)
            if bad != 0:
                R.lu_valid = 0
                return FAILED, False
            if not converged:
                if current_jac:
                    break
                if jacobian(f, t, y, fy, J, st, tmp, settings.quad_start,
                            settings.quad_stop) != 0:
                    R.lu_valid = 0
                    return FAILED, False
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
            error[i] = fy[i] + ze[i]
        lu_solve(LU_real, piv_real, error)
        for i in range(n):
            scale[i] = weight(settings, max(abs(y[i]), abs(y_new[i])))
        error_norm = controlled_rms(error, scale, settings.quad_start, settings.quad_stop)
        safety = 0.9 * (2 * NEWTON_MAXITER + 1) / (2 * NEWTON_MAXITER + n_iter)
        if rejected and error_norm > 1.0:
            # the estimate filtered once more through the stiff part (Hairer & Wanner)
            for i in range(n):
                ys[i] = y[i] + error[i]
            if evaluate(f, t, ys, slope, st, tmp) != 0:
                R.lu_valid = 0
                return FAILED, False
            for i in range(n):
                error[i] = slope[i] + ze[i]
            lu_solve(LU_real, piv_real, error)
            error_norm = controlled_rms(error, scale, settings.quad_start, settings.quad_stop)
        if error_norm > 1.0:
            factor = predict_factor(h_abs, h_abs_old, error_norm, error_norm_old)
            h_abs *= pymax(MIN_FACTOR, safety * factor)
            lu_valid = False
            rejected = True
        else:
            break
    # accepted: the next step size, and whether J is evaluated afresh at the step's end
    recompute_jac = n_iter > 2 and rate > 1e-3
    factor = predict_factor(h_abs, h_abs_old, error_norm, error_norm_old)
    factor = pymin(MAX_FACTOR, safety * factor)
    if not recompute_jac and factor < 1.2:
        factor = 1.0
    else:
        lu_valid = False
    R.h_abs_old = S.h_abs
    R.error_norm_old = error_norm
    R.lu_valid = 1 if lu_valid else 0
    S.h_abs = max(h_abs * factor, wanted if placed < wanted else 0.0)
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
            return NONFINITE, recompute_jac
    return STEPPED, recompute_jac


@njit()
def _calm_test(f, work, settings):
    """Method "auto" after an accepted step: whether the model is no longer stiff, so that
    DOP853 can take over (the rule of :data:`CALM_STEPS`): 1 where it is, 0 where not (yet),
    -1 where evaluating J failed. The spectral radius is estimated once per Jacobian
    (R.rho_jev); the last test evaluates J afresh at the reached state when it is older."""
    S, R = work.st[0], work.radau[0]
    if S.nsteps - R.took_over < CALM_STEPS:
        return 0
    if not (S.nsteps % STIFF_EVERY == 0 or S.calm_tests > 0):
        return 0
    h = min(S.h_abs, settings.max_step)
    if R.rho_jev != R.njev:
        R.rho = spectral_radius(work.J, work.x_rho, work.tmp[ERROR], settings)
        R.rho_jev = R.njev
    if not h * R.rho <= CALM_SHARE * STIFF_BOUND:
        S.calm_tests = 0
        return 0
    S.calm_tests += 1
    if S.calm_tests < CALM_STEPS:
        return 0
    if R.current_jac == 0:      # the verdict on J at the reached state
        if jacobian(f, S.t, work.y, work.f, work.J, work.st, work.tmp, settings.quad_start,
                    settings.quad_stop) != 0:
            return -1
        R.njev += 1
        R.current_jac = 1
        R.lu_valid = 0
        R.rho = spectral_radius(work.J, work.x_rho, work.tmp[ERROR], settings)
        R.rho_jev = R.njev
        if not h * R.rho <= CALM_SHARE * STIFF_BOUND:
            S.calm_tests = 0
            return 0
    return 1


@njit()
def advance(f, work, settings):
    """Step Radau IIA from (st.t, y) until the piece ends (the contract of
    :mod:`mbd.run.steppers.stepping`, ``work`` of :func:`make_work`, ``settings`` a 1-record array
    of :data:`mbd.compiled.layout.SETTINGS`), step after step as scipy's ``Radau._step_impl``. With
    ``st.starting``, a new piece begins there (f, the initial step and the Jacobian are
    computed first, as a new scipy solver does); else the loop resumes from ``work`` as the
    last call left it.

    Returns DONE, CROSSED (work.y_old, st.t_old, st.h_prev and work.Q describe the last step,
    see :func:`dense_value`), NONSTIFF (with ``st.stiffness_check`` on, method "auto": the
    model is no longer stiff at the reached state, :func:`_calm_test`; rows written and
    projected), PAUSED, TOO_SMALL, NONFINITE or FAILED. With constraints every step's end and
    every row is projected, and the next step starts from the derivative at the projected
    state.
    """
    st, y, tmp = work.st, work.y, work.tmp
    S, R = st[0], work.radau[0]
    P = settings[0]
    armed = any_armed(work.armed)
    # double crossings are looked for where the run gave the screen's address (st.screen)
    screen = armed and S.screen != 0
    if S.starting:
        S.starting = 0
        if _start(f, work, P) != 0:
            return FAILED
        if screen:
            call3(S.screen, f, work, START)
    while S.nsteps < S.pause_at:
        if S.t >= S.t_bound:
            return DONE
        status, recompute_jac = _take_step(f, work, P)
        if status != STEPPED:
            return status
        if armed:
            across = crossed(f, S.t, y, work.g, work.armed)
            # ... or left its side and came back within the step
            if screen:
                if call3(S.screen, f, work, np.int64(1 if across else 0)) == SCREEN_CROSSED:
                    return CROSSED
            elif across:
                return CROSSED
        r = S.next_row
        while r < work.times.shape[0] and work.times[r] <= S.t:
            dense_value(work.times[r], S.t_old, S.h_prev, work.y_old, work.Q, work.rows[r])
            project_row(f, work.rows[r])
            r += 1
        S.next_row = r
        if f.constrained and not project_end(f, st, y, tmp, S.t):
            return FAILED
        # the next step starts from the derivative at this one's (projected) end
        if evaluate(f, S.t, y, work.f, st, tmp) != 0:
            return FAILED
        if f.constrained:       # a change point ahead: DOP853 jumps it (steppers.changepoints)
            before = S.weakest
            weakest = f.data.loop[0].smallest
            plan(f, st, weakest, y, work.f, tmp, GAP)
            if approaching(weakest, before) and S.t < S.t_bound:
                return CHANGE_POINT
        if recompute_jac:
            if jacobian(f, S.t, y, work.f, work.J, st, tmp, P.quad_start, P.quad_stop) != 0:
                return FAILED
            R.njev += 1
            R.current_jac = 1
        else:
            R.current_jac = 0
        if S.stiffness_check != 0 and S.t < S.t_bound:
            calm = _calm_test(f, work, P)
            if calm < 0:
                return FAILED
            if calm > 0:
                return NONSTIFF
    return DONE if S.t >= S.t_bound else PAUSED
