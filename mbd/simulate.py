"""The run stage: integrate a System with scipy's ODE solvers and collect a Result.

The driver steps a scipy ``OdeSolver`` (the classes behind ``solve_ivp``) itself, so that it
keeps every row computed before a failure, checks the state after each step, and fills output
rows from the solver's dense output at exact multiples of ``output_step``.
"""
import time

import numpy as np
from scipy import integrate

from . import kernels
from .errors import SimulationError
from .result import Result

METHODS = {"RK23": integrate.RK23, "RK45": integrate.RK45, "DOP853": integrate.DOP853,
           "Radau": integrate.Radau, "BDF": integrate.BDF, "LSODA": integrate.LSODA}


def output_times(t0, t_end, output_step):
    """Exact multiples of ``output_step`` from ``t0`` up to ``t_end``, and ``t_end`` itself."""
    n = int(np.floor((t_end - t0) / output_step * (1.0 + 1e-12)))
    times = t0 + output_step * np.arange(n + 1)
    # the last multiple may round to just above t_end: t_end itself closes the grid
    keep = times < t_end - 1e-12 * max(1.0, abs(t_end))
    keep[0] = True
    return np.append(times[keep], t_end)


def rhs_function(system):
    """f(t, y) -> dy/dt for y = [q, v], with one workspace allocated here for all calls."""
    mdl = system.arrays
    ws = kernels.make_workspace(system.n_links, system.nq, system.nv)
    tau = np.zeros(system.nv)
    fext = np.zeros((system.n_links, 6))
    derivative = kernels.state_derivative

    def fun(t, y):
        dy = np.empty_like(y)  # scipy keeps references to returned arrays: a fresh one each call
        derivative(y, tau, fext, mdl, ws, dy)
        return dy

    return fun


def simulate(system, t_end, output_step=0.01, t0=0.0, q0=None, v0=None, rtol=None, atol=None,
             method="DOP853", max_step=np.inf):
    """Integrate ``system`` from its initial state at ``t0`` to ``t_end`` (s).

    Parameters
    ----------
    system : System
    t_end : float
        End time, s.
    output_step : float
        Spacing of output rows, s (rows at exact multiples from t0, plus t_end).
    t0 : float
        Start time, s.
    q0, v0 : dict, optional
        Initial values by joint name, overriding the joints' own (see :class:`mbd.Joint`).
    rtol, atol : float, optional
        Integration tolerances; default: the environments' (tightest).
    method : str or scipy OdeSolver class
        Any ``solve_ivp`` method: "DOP853" (default), "RK45", "RK23", "Radau", "BDF", "LSODA".
    max_step : float
        Largest step the integrator may take, s.

    Returns
    -------
    Result

    Raises
    ------
    SimulationError
        When the integrator fails or the state stops being finite; ``.result`` holds the
        rows computed so far.
    """
    if not (np.isfinite(t_end) and t_end > t0):
        raise ValueError(f"simulate: t_end must be finite and > t0 = {t0}, got {t_end}")
    if not (np.isfinite(output_step) and output_step > 0):
        raise ValueError(f"simulate: output_step must be finite and > 0, got {output_step}")
    solver_class = METHODS.get(method, method) if isinstance(method, str) else method
    if not (isinstance(solver_class, type) and issubclass(solver_class, integrate.OdeSolver)):
        raise ValueError(f"simulate: method must be one of {sorted(METHODS)} or an OdeSolver "
                         f"class, got {method!r}")
    rtol = system.rtol if rtol is None else float(rtol)
    atol = system.atol if atol is None else float(atol)
    state = system.initial_state(q0, v0, t0)
    y0 = np.concatenate([state.q, state.v])
    times = output_times(t0, t_end, output_step)
    fun = rhs_function(system)
    started = time.perf_counter()
    solver = solver_class(fun, t0, y0, t_end, rtol=rtol, atol=atol, max_step=max_step)
    rows_t, rows_y = [t0], [y0.copy()]
    k = 1
    nsteps = 0
    error = None
    while solver.status == "running":
        message = solver.step()
        nsteps += 1
        if solver.status == "failed":
            error = f"the integrator {solver_class.__name__} failed at t = {solver.t:.9g} s: {message}"
            break
        if not np.all(np.isfinite(solver.y)):
            bad = np.flatnonzero(~np.isfinite(solver.y))
            error = (f"the state became non-finite at t = {solver.t:.9g} s (state entries "
                     f"{bad[:6].tolist()}); the mass matrix may be singular")
            break
        if k < len(times) and times[k] <= solver.t:
            dense = solver.dense_output()
            while k < len(times) and times[k] <= solver.t:
                rows_t.append(times[k])
                rows_y.append(dense(times[k]))
                k += 1
    stats = {"nfev": solver.nfev, "nsteps": nsteps, "method": solver_class.__name__,
             "rtol": rtol, "atol": atol, "wall_time": time.perf_counter() - started}
    result = Result(system, np.array(rows_t), np.array(rows_y), events=[], stats=stats)
    if error is not None:
        raise SimulationError(error, result=result, t=solver.t)
    return result
