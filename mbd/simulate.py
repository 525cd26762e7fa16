"""The run stage: integrate a System piece by piece, stopping exactly where a law switches.

The driver steps a scipy ``OdeSolver`` (the classes behind ``solve_ivp``) itself. While a piece
runs, every force law's branch (its *sides*, :mod:`mbd.lawkernels`) is frozen, so the
right-hand side is smooth. After each step the armed switching functions are checked; where
one changed sign, the crossing is located on the step's dense output (bracketed to round-off
in time), the piece ends there, the sides are updated, the switch is logged and a new piece
starts. Output rows come from dense output at exact multiples of ``output_step``, plus every
event time. Everything computed survives a failure in ``SimulationError.result``.
"""
import inspect
import time
from collections import deque

import numpy as np
from scipy import integrate

from . import constraints, forcekernels, kernels, lawkernels, stepper
from .progress import ProgressBar, enabled as _progress_enabled
from .errors import SimulationError
from .result import Event, Result
from .system import State

METHODS = {"RK23": integrate.RK23, "RK45": integrate.RK45, "DOP853": integrate.DOP853,
           "Radau": integrate.Radau, "BDF": integrate.BDF, "LSODA": integrate.LSODA}

#: solvers that restart each step from (t, y, f) alone, so a projected y can be handed back
_ONE_STEP = (integrate.RK23, integrate.RK45, integrate.DOP853)

#: this many switches within CHATTER_SPAN x (t_end - t0) is chattering
CHATTER_COUNT = 50
CHATTER_SPAN = 1e-9


def output_times(t0, t_end, output_step):
    """Exact multiples of ``output_step`` from ``t0`` up to ``t_end``, and ``t_end`` itself."""
    n = int(np.floor((t_end - t0) / output_step * (1.0 + 1e-12)))
    times = t0 + output_step * np.arange(n + 1)
    # the last multiple may round to just above t_end: t_end itself closes the grid
    keep = times < t_end - 1e-12 * max(1.0, abs(t_end))
    keep[0] = True
    return np.append(times[keep], t_end)


class _Undefined(Exception):
    """Raised from the right-hand side: an element's load direction is undefined."""

    def __init__(self, element, t, y):
        super().__init__(element)
        self.element, self.t, self.y = element, t, y


class Integrand:
    """The right-hand side and switching functions of a System, with their workspaces.

    ``sides`` (nf, MAX_SWITCH) holds the frozen branches of the force laws; with
    ``natural=True`` every call selects them from the state instead (exact switching off).
    """

    def __init__(self, system, natural=False):
        self.system = system
        self.mdl = system.arrays
        fel = system.force_arrays
        nf = len(system.force_elements)
        # parameters that change with time or state are written before each call: a private,
        # writable copy of the parameter table
        self.params = np.array(fel[2], dtype=float) if nf else np.zeros((0, lawkernels.MAX_PARAMS))
        self.fel = (fel[0], fel[1], self.params) + tuple(fel[3:])
        self.varying = [(i, fe.law, _arity(fe.law)) for i, fe in enumerate(system.force_elements)
                        if fe.law.time_varying]
        self.ws = kernels.make_workspace(system.n_links, system.nq, system.nv)
        self.tau = np.zeros(system.nv)
        self.fext = np.zeros((system.n_links, 6))
        self.rec = np.zeros((nf, len(forcekernels.RECORD)))
        self.geo = np.zeros((6, 3))
        self.g = np.zeros((nf, lawkernels.MAX_SWITCH))
        self.sides = np.ones((nf, lawkernels.MAX_SWITCH))
        self.natural = natural
        self.nfev = 0
        self.dynamics = (constraints.ConstrainedDynamics(system)
                         if system.cut_joints or system.drivers else None)
        # loops without drivers: the whole right-hand side is one compiled call
        self.loops_only = bool(system.cut_joints) and not system.drivers
        if self.loops_only:
            nc = 6 * len(system.cut_joints)
            self.G, self.gamma, self.gres = np.zeros((nc, system.nv)), np.zeros(nc), np.zeros(nc)
            self.lam, self.info = np.zeros(nc), np.zeros(2)
            d = self.dynamics
            # loop_derivative's scratch, in the order mbd.stepper's loop tuple holds it
            self.loop_scratch = (d.H, d.C, d.zero, self.G, self.gamma, self.gres, self.lam,
                                 self.info)
            # everything loop_derivative takes between y and dy (fixed arrays: gathered once)
            self.loop_arguments = (self.mdl, self.fel, self.sides, system.closure_arrays,
                                   self.ws, self.tau, self.fext, self.rec, self.geo,
                                   *self.loop_scratch[:6], d.constraints.rank_tol)

    def update_parameters(self, t, y):
        """Write the current values of time/state-dependent law parameters (slow path)."""
        if not self.varying:
            return
        s = self.system
        state = State(t, y[:s.nq], y[s.nq:])
        for i, law, _ in self.varying:
            self.params[i] = law._row(t, state)

    def __call__(self, t, y):
        self.nfev += 1
        self.update_parameters(t, y)
        if self.natural:
            self.natural_sides(t, y, update=False)
        dy = np.empty_like(y)  # scipy keeps references to returned arrays: a fresh one each call
        if self.dynamics is None:
            bad = forcekernels.state_derivative(y, self.mdl, self.fel, self.sides, self.ws,
                                                self.tau, self.fext, self.rec, self.geo, dy)
        else:
            bad = self.constrained_derivative(t, y, dy)
        if bad:
            raise _Undefined(bad - 1, t, y.copy())
        return dy

    def constrained_derivative(self, t, y, dy):
        """dy/dt with loops or drivers: loops alone by :func:`mbd.constraints.loop_derivative`
        (one compiled call), with drivers the applied loads compiled and the constrained
        accelerations by :class:`mbd.constraints.ConstrainedDynamics`."""
        if self.loops_only:
            bad = constraints.loop_derivative(y, *self.loop_arguments, dy, self.lam, self.info)
            if self.info[0] >= 0:
                self.dynamics.check_rank(t, int(self.info[0]), self.info[1])
            return bad
        nq = self.system.nq
        qn = self.ws[0]
        kernels.normalize_quaternions(y[:nq], self.mdl, qn)
        v = y[nq:]
        kernels.link_velocities(qn, v, self.mdl, self.ws)
        bad = forcekernels.element_loads(self.fel, self.sides, qn, v, self.ws, self.tau,
                                         self.fext, self.rec, self.geo)
        kernels.quaternion_rates(qn, v, self.mdl, dy[:nq])
        dy[nq:] = self.dynamics.accelerations(t, qn, v, self.tau, self.fext)[0]
        return bad

    def reactions(self, t, y, sides):
        """Every joint's and driver's reaction at (t, y) in the branches ``sides``.

        Returns ``(wrenches, drivers)``: wrenches[name] = (force, moment) (world, N and N m,
        moment about the follower CS origin) that the joint transmits from its base to its
        follower; drivers[name] = the driving force or torque along the driven coordinate.
        """
        s = self.system
        nq = s.nq
        self.update_parameters(t, y)
        saved = self.sides.copy()
        self.sides[:] = sides
        try:
            dy = np.empty_like(y)
            qn = self.ws[0].copy()
            kernels.normalize_quaternions(y[:nq], self.mdl, qn)
            v = y[nq:]
            if self.dynamics is None:
                forcekernels.state_derivative(y, self.mdl, self.fel, self.sides, self.ws,
                                              self.tau, self.fext, self.rec, self.geo, dy)
                qdd, lam = dy[nq:], np.zeros(0)
            else:
                kernels.link_velocities(qn, v, self.mdl, self.ws)
                forcekernels.element_loads(self.fel, self.sides, qn, v, self.ws, self.tau,
                                           self.fext, self.rec, self.geo)
                qdd, lam = self.dynamics.accelerations(t, qn, v, self.tau, self.fext)
        finally:
            self.sides[:] = saved
        tau, fext = self.tau.copy(), self.fext.copy()
        ws = self.ws
        kernels.link_transforms(qn, self.mdl, ws)
        E0, p0 = ws[3].copy(), ws[4].copy()
        cut_wrench = {}
        ends, blinks = s.closure_arrays[:2] if s.cut_joints else ((), ())
        for c, name in enumerate(s.cut_joints):
            m, f = lam[6 * c:6 * c + 3], lam[6 * c + 3:6 * c + 6]
            p = p0[ends[c]]
            # lambda acts on the chain's end, minus lambda on the follower's body
            for link, sign in ((ends[c], 1.0), (blinks[c], -1.0)):
                if link >= 0:
                    fext[link, :3] += sign * E0[link] @ (m + np.cross(p - p0[link], f))
                    fext[link, 3:] += sign * E0[link] @ f
            cut_wrench[name] = (-f, -m, p)
        drivers = {}
        for k, d in enumerate(s.drivers):
            value = lam[6 * len(s.cut_joints) + k]
            tau[d.v_index] += value
            drivers[d.name] = value
        kernels.rnea(qn, v, qdd, fext, self.mdl, ws, np.zeros(s.nv))
        link_force = ws[13]
        wrenches = {}
        for name, jm in s.joints.items():
            follower = jm.joint.follower
            p_f = self._cs_world(follower, E0, p0)
            if name in cut_wrench:
                F, M, p = cut_wrench[name]
                wrenches[name] = (F, M + np.cross(p - p_f, F))
                continue
            first = jm.links[0]
            R = E0[first].T
            F = R @ link_force[first, 3:]
            M = R @ link_force[first, :3] + np.cross(p0[first] - p_f, F)
            # the chain's parent side exerts this on it; reversed, that side is the follower
            wrenches[name] = (-F, -M) if jm.reversed else (F, M)
        return wrenches, drivers

    def _cs_world(self, cs, E0, p0):
        """World position of a CS at the poses E0, p0."""
        link, local, _ = self.system.cs_placement(cs)
        return local if link < 0 else p0[link] + E0[link].T @ local

    def switching(self, t, y):
        """g (nf, MAX_SWITCH) at (t, y) with the current sides (a copy)."""
        self.update_parameters(t, y)
        forcekernels.switching_values(y, self.mdl, self.fel, self.sides, self.ws, self.g, self.geo)
        return self.g.copy()

    def natural_sides(self, t, y, update=True):
        """Set ``sides`` to the branches the state (t, y) selects."""
        if not self.system.force_elements:
            return
        if update:
            self.update_parameters(t, y)
        forcekernels.natural_modes(y, self.mdl, self.fel, self.ws, self.sides, self.g, self.geo)

    def armed(self, sides=None):
        """Boolean mask (nf, MAX_SWITCH) of the switching functions that can change a branch
        in the mode ``sides`` (default: the current sides)."""
        sides = self.sides if sides is None else sides
        law = self.fel[1]
        mask = np.zeros(sides.shape, dtype=bool)
        for i in range(mask.shape[0]):
            for k in range(mask.shape[1]):
                mask[i, k] = lawkernels.armed(law[i], self.params[i], sides[i], k)
        return mask

    def records(self, t, y, sides):
        """The per-element record (nf, 7) at (t, y) in the branches ``sides``."""
        self.update_parameters(t, y)
        rec = np.zeros_like(self.rec)
        forcekernels.records(y, self.mdl, self.fel, sides, self.ws, rec, self.geo)
        return rec


def _arity(law):
    """How many arguments a law's time-dependent parameter function takes (1: t, 2: t, state)."""
    fn = getattr(law, "signal", None)
    if fn is None:
        return 0
    try:
        return len(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return 1


def _locate(fun_g, ta, tb, side, tol):
    """A bracket [a, b] of the sign change of fun_g away from ``side`` in [ta, tb], narrowed by
    the Illinois variant of regula falsi until b - a <= tol; returns b (already across)."""
    a, b = ta, tb
    ga, gb = fun_g(a), fun_g(b)
    keep = 0
    while b - a > tol:
        m = b - gb * (b - a) / (gb - ga) if gb != ga else 0.5 * (a + b)
        if not (a < m < b):
            m = 0.5 * (a + b)
        gm = fun_g(m)
        if (gm >= 0.0) == (side > 0):      # still on the old side: the crossing is later
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


def simulate(system, t_end, output_step=0.01, t0=0.0, q0=None, v0=None, rtol=None, atol=None,
             method="DOP853", max_step=np.inf, exact_switching=True, progress=False,
             compiled=None):
    """Integrate ``system`` from its initial state at ``t0`` to ``t_end`` (s).

    Parameters
    ----------
    system : System
    t_end : float
        End time, s.
    output_step : float
        Spacing of output rows, s (rows at exact multiples from t0, plus every event time and
        t_end).
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
    exact_switching : bool
        True (default): stop exactly where a force law switches branch and restart there.
        False: every evaluation picks the branch from the state, as a plain ODE with kinks
        (for comparison); switches are then logged, with an output row, at the end of the
        step that crossed them.
    progress : bool or None
        Draw a one-line progress bar on stderr (simulated time, events, wall time), redrawn
        at most 10 times a second. False (default): quiet; None: only when stderr is a
        terminal.
    compiled : bool or None
        Run DOP853's whole step loop compiled (:mod:`mbd.stepper`) instead of stepping scipy's
        ``DOP853`` from Python: the same method and step control, several times faster.
        None (default): whenever it applies — method "DOP853", no motion drivers, exact
        switching, no law parameter given as a Python function of time.
        True: require it (ValueError naming what prevents it); False: never.

    Returns
    -------
    Result

    Raises
    ------
    SimulationError
        When the integrator fails, the state stops being finite, a force direction is
        undefined or a law chatters; ``.result`` holds the rows computed so far. Also on
        KeyboardInterrupt (Ctrl-C) during the run: the message says "interrupted at t = ...",
        ``__cause__`` is the KeyboardInterrupt and ``.result`` holds the rows computed so far.
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
    q, v = state.q, state.v
    if system.cut_joints or system.drivers:
        q, v = _assembled(system, state, q0 or {}, v0 or {})
    blocker = _compiled_blocker(system, solver_class, exact_switching)
    if compiled and blocker:
        raise ValueError(f"simulate: compiled=True, but the compiled stepper does not apply: "
                         f"{blocker}")
    run_class = _CompiledRun if compiled is not False and not blocker else _Run
    run = run_class(system, solver_class, rtol, atol, max_step, exact_switching, t0, t_end,
                    output_times(t0, t_end, output_step),
                    ProgressBar(t0, t_end, _progress_enabled(progress), label="simulating"))
    return run.go(np.concatenate([q, v]))


def _compiled_blocker(system, solver_class, exact_switching):
    """Why the compiled stepper cannot run this simulation, or "" when it can."""
    if solver_class is not integrate.DOP853:
        return f"it implements DOP853 only, not {solver_class.__name__}"
    if system.drivers:
        return (f"the system has motion drivers {[d.name for d in system.drivers]}, whose "
                "motions are Python functions of time")
    if not exact_switching:
        return "exact_switching=False"
    varying = [fe.name for fe in system.force_elements if fe.law.time_varying]
    if varying:
        return f"the laws of {varying} have parameters given as Python functions of time"
    return ""


def _assembled(system, state, q0, v0):
    """The initial state of a mechanism with loops or drivers: the joints' q0/v0 (or the
    overrides) are targets, exact where the joint says so (SPEC §2)."""
    masks = np.zeros((4, system.nv), dtype=bool)   # q given, v given, q exact, v exact
    for name, jm in system.joints.items():
        j = jm.joint
        masks[0, jm.v_index] = j.q0 is not None or name in q0
        masks[1, jm.v_index] = j.v0 is not None or name in v0
        masks[2, jm.v_index] = j.exact and masks[0, jm.v_index]
        masks[3, jm.v_index] = j.exact and masks[1, jm.v_index]
    return constraints.assemble(system, state.t, state.q, state.v, *masks)


class _Run:
    """One simulation: the piece loop, the output rows, the event log."""

    def __init__(self, system, solver_class, rtol, atol, max_step, exact, t0, t_end, times,
                 bar=None):
        self.system = system
        self.bar = ProgressBar(t0, t_end, False) if bar is None else bar
        self.t_now = t0   # the time the integration has reached, for the progress and Ctrl-C
        self.solver_class = solver_class
        self.options = dict(rtol=rtol, atol=atol, max_step=max_step)
        self.exact = exact
        self.t0, self.t_end, self.times = t0, t_end, times
        self.f = Integrand(system, natural=not exact)
        self.projector = (constraints.Projector(system)
                          if system.cut_joints or system.drivers else None)
        # a multistep method restarts once the projection moves the state further than its
        # own error tolerance would (restarting at every round-off drift keeps it at order 1)
        self.drift_limit = 10.0 * atol * system.length_scale
        self.rows_t, self.rows_y, self.rows_s = [], [], []
        self.events = []
        self.recent = deque(maxlen=CHATTER_COUNT)
        # exact switching off: the branches last logged (the right-hand side overwrites
        # ``f.sides`` at every call, so they cannot serve as the "before" of a step)
        self.logged = None
        self.next_row = 0
        self.nsteps = 0
        self.pieces = 0
        self.started = time.perf_counter()

    def project(self, t, y):
        """y moved onto the constraints: positions, then velocities."""
        nq = self.system.nq
        q, _ = self.projector.positions(t, y[:nq])
        v = self.projector.velocities(t, q, y[nq:])
        return np.concatenate([q, v])

    def row(self, t, y, sides=None):
        self.rows_t.append(t)
        self.rows_y.append(np.array(y, dtype=float) if self.projector is None
                           else self.project(t, y))
        self.rows_s.append((self.f.sides if sides is None else sides).copy())

    def rows_until(self, t, dense, inclusive=True):
        """Add the output rows at or before ``t`` (before, when not inclusive) from dense output."""
        times = self.times
        while self.next_row < len(times) and (times[self.next_row] < t or
                                              (inclusive and times[self.next_row] <= t)):
            tk = times[self.next_row]
            y = dense(tk)
            sides = None
            if not self.exact:   # the branch at that row, as the state selects it
                self.f.natural_sides(tk, y)
            self.row(tk, y, sides)
            self.next_row += 1

    def result(self):
        stats = {"nfev": self.f.nfev + self.compiled_nfev(), "nsteps": self.nsteps,
                 "pieces": self.pieces, "events": len(self.events), "method": self.solver_class.__name__,
                 "rtol": self.options["rtol"], "atol": self.options["atol"],
                 "exact_switching": self.exact, "wall_time": time.perf_counter() - self.started,
                 "stepper": self.stepper}
        n = len(self.rows_t)
        nf = len(self.system.force_elements)
        sides = np.array(self.rows_s).reshape(n, nf, lawkernels.MAX_SWITCH)
        return Result(self.system, np.array(self.rows_t),
                      np.array(self.rows_y).reshape(n, self.system.nq + self.system.nv),
                      events=self.events, stats=stats, sides=sides)

    stepper = "scipy"

    def compiled_nfev(self):
        return 0

    def fail(self, message, t):
        raise SimulationError(message, result=self.result(), t=t)

    def fail_nonfinite(self, t, y):
        bad = np.flatnonzero(~np.isfinite(y))
        self.fail(f"the state became non-finite at t = {t:.9g} s (state entries "
                  f"{bad[:6].tolist()}); the mass matrix may be singular", t)

    def go(self, y):
        t = self.t0
        try:
            return self._go(t, y)
        except KeyboardInterrupt as err:
            # Ctrl-C: keep what was computed; a row may be half-appended, so trim to whole rows
            n = min(len(self.rows_t), len(self.rows_y), len(self.rows_s))
            del self.rows_t[n:], self.rows_y[n:], self.rows_s[n:]
            reached = self.rows_t[-1] if n else self.t0
            raise SimulationError(f"interrupted at t = {self.t_now:.9g} s (of {self.t_end:g} s); "
                                  f"the result holds the {n} rows up to t = {reached:.9g} s",
                                  result=self.result(), t=self.t_now) from err
        finally:
            self.bar.update(self.t_now, len(self.events), force=True)
            self.bar.close()

    def _go(self, t, y):
        try:
            self.f.natural_sides(t, y)
            self.logged = self.f.sides.copy()
            self.row(t, y)
            self.next_row = 1
            while t < self.t_end:
                t, y = self.piece(t, y)
        except constraints.SingularConfiguration as err:
            s = self.system
            loops = "; ".join(f"loop {constraints.loop_joints(s, c)}" for c in s.cut_joints)
            self.fail(f"singular configuration at t = {err.t:.9g} s: the constraint equations "
                      f"(rank {err.expected}) became dependent (rank {err.found}, conditioning "
                      f"{err.conditioning:.2g}) ({loops}"
                      f"{'; drivers ' + str([d.name for d in s.drivers]) if s.drivers else ''})"
                      "; the mechanism passes a change point or locks up, where its motion is "
                      "not determined", err.t)
        except _Undefined as err:
            fe = self.system.force_elements[err.element]
            s = self.system
            why = ("its CSs coincide (|r| = 0) at zero relative velocity while the law's force "
                   "there is not zero" if fe.placement == "line" else
                   "B is turned half a turn relative to A about an axis perpendicular to the "
                   "element's axis, where the twist angle is undefined")
            self.fail(f"{fe.label()}: the direction of its load is undefined at t = "
                      f"{err.t:.9g} s: {why} (q = {np.round(err.y[:s.nq], 9).tolist()}, "
                      f"v = {np.round(err.y[s.nq:], 9).tolist()})", err.t)
        return self.result()

    def piece(self, t, y):
        """Integrate one smooth piece from (t, y); return where the next one starts."""
        self.pieces += 1
        solver = self.solver_class(self.f, t, y, self.t_end, **self.options)
        armed = self.f.armed() if self.exact else None
        while solver.status == "running":
            t_old = solver.t
            message = solver.step()
            self.nsteps += 1
            self.t_now = solver.t
            self.bar.update(solver.t, len(self.events))
            if solver.status == "failed":
                self.fail(f"the integrator {self.solver_class.__name__} failed at t = "
                          f"{solver.t:.9g} s: {message}", solver.t)
            if not np.all(np.isfinite(solver.y)):
                self.fail_nonfinite(solver.t, solver.y)
            dense = None
            if self.exact and armed.any():
                g_new = self.f.switching(solver.t, solver.y)
                crossed = armed & ((g_new >= 0.0) != (self.f.sides > 0.0))
                if crossed.any():
                    dense = solver.dense_output()
                    return self.switch(t_old, solver.t, dense, crossed)
            elif not self.exact and self.log_natural_switches(solver.t, solver.y):
                # the switches are logged at the step's end: a row there, after the rows before
                self.event_row(solver.t, solver.y, solver.dense_output())
                self.check_chatter()
                continue
            if self.next_row < len(self.times) and self.times[self.next_row] <= solver.t:
                self.rows_until(solver.t, dense or solver.dense_output())
            if self.projector is not None and solver.status == "running":
                y_on = self.project(solver.t, solver.y)
                if isinstance(solver, _ONE_STEP):
                    # a one-step method restarts from y and its derivative: hand it both
                    solver.y = y_on
                    solver.f = self.f(solver.t, y_on)
                elif np.abs(y_on - solver.y).max() > self.drift_limit:
                    return solver.t, y_on      # a multistep method: start a new piece
        return solver.t, solver.y

    def switch(self, ta, tb, dense, crossed):
        """Locate the earliest crossing in (ta, tb], end the piece there, update the sides."""
        tol = 4.0 * np.finfo(float).eps * max(abs(ta), abs(tb), 1.0)
        first_t, first = np.inf, None
        for i, k in zip(*np.nonzero(crossed)):
            t_hit = self.crossing(i, k, ta, tb, dense, tol)
            if t_hit < first_t:
                first_t, first = t_hit, (i, k)
        t, y = first_t, dense(first_t)
        self.rows_until(t, dense, inclusive=False)     # in the old branches
        i, k = first
        before = self.f.sides.copy()
        armed = self.f.armed(before)
        # the branches from just past the crossing: a switch armed by it may be exactly zero
        # there (BISTOP's force at the first touch) and only its sign a moment later tells
        h = 256.0 * tol
        self.f.natural_sides(t + h, dense(t + h))
        self.f.sides[i, k] = -before[i, k]   # across, whatever round-off says at the crossing
        # log every switch that acted before and flipped here: other elements may switch at
        # the same instant (two identical gaps)
        for i, k in zip(*np.nonzero(armed & (before != self.f.sides))):
            fe = self.system.force_elements[i]
            self.log(t, fe, fe.law.describe(k, self.f.sides[i, k], self.f.sides[i]))
        self.event_row(t, y, dense)
        self.check_chatter()
        return t, y

    def crossing(self, i, k, ta, tb, dense, tol):
        """Where switching function (i, k) leaves its side in (ta, tb], to ``tol`` (s)."""
        def g_ik(t):
            return self.f.switching(t, dense(t))[i, k]

        return _locate(g_ik, ta, tb, self.f.sides[i, k], tol)

    def event_row(self, t, y, dense):
        """The row at an event time t, after the output rows before it; it stands for an
        output time it hits exactly."""
        self.rows_until(t, dense, inclusive=False)
        if not self.exact:      # the rows before reset the branches to their own
            self.f.natural_sides(t, y)
        self.row(t, y)
        if self.next_row < len(self.times) and self.times[self.next_row] <= t:
            self.next_row += 1

    def log_natural_switches(self, t, y):
        """Exact switching off: log the branches that changed since the last logged ones
        (a switch that can act both before and after, as exact switching logs it); returns
        whether any did."""
        before = self.logged
        self.f.natural_sides(t, y)
        after = self.f.sides.copy()
        changed = self.f.armed(before) & self.f.armed(after) & (before != after)
        for i, k in zip(*np.nonzero(changed)):
            fe = self.system.force_elements[i]
            self.log(t, fe, fe.law.describe(k, after[i, k], after[i]))
        self.logged = after
        return bool(changed.any())

    def log(self, t, fe, what):
        self.events.append(Event(float(t), fe.name, what))
        self.recent.append((t, fe.name))

    def check_chatter(self):
        """Fail when the last CHATTER_COUNT switches all fell within a tiny span (checked after
        the event row is written, so the failed run's rows include every logged event)."""
        if len(self.recent) == CHATTER_COUNT:
            span = self.recent[-1][0] - self.recent[0][0]
            if span <= CHATTER_SPAN * (self.t_end - self.t0):
                names = [n for _, n in self.recent]
                worst = max(set(names), key=names.count)
                last = self.events[-1]
                self.fail(f"chattering: force element '{worst}' switched {names.count(worst)} "
                          f"times between t = {self.recent[0][0]:.12g} s and "
                          f"{self.recent[-1][0]:.12g} s (last: {last.what}); the law keeps "
                          "crossing a branch boundary without the motion progressing", last.t)


class _Interpolant:
    """The dense output of one compiled DOP853 step, callable at a time t (s)."""

    def __init__(self, t_old, h, y_old, F):
        self.t_old, self.h, self.y_old, self.F = t_old, h, y_old, F

    def __call__(self, t):
        out = np.empty_like(self.y_old)
        stepper.dense_value(t, self.t_old, self.h, self.y_old, self.F, out)
        return out


class _CompiledRun(_Run):
    """A run whose pieces step in :func:`mbd.stepper.advance` (one compiled call per piece, or
    per STEP_BUDGET steps, so the progress bar and Ctrl-C still answer); with loops, the
    projection onto the closures after every step is compiled too."""

    STEP_BUDGET = 2000
    stepper = "compiled"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        n = self.system.nq + self.system.nv
        self.K = np.zeros((stepper.N_STAGES_EXTENDED, n))
        self.F = np.zeros((stepper.INTERPOLATOR_POWER, n))
        self.y_old = np.zeros(n)
        self.tmp = np.zeros((4, n))
        self.st = np.zeros(5)
        self.ist = np.zeros(4, dtype=np.int64)
        self.out = np.zeros((len(self.times), n))
        self.lx = None
        if self.system.cut_joints:
            # the loop tuple of mbd.stepper: closure arrays, the Integrand's loop scratch and
            # the parameters (rank tolerance, the rank, once known, the singular threshold,
            # the projection tolerance)
            lp = np.array([self.f.dynamics.constraints.rank_tol, -1.0, constraints.SINGULAR,
                           self.projector.tol])
            self.lx = (self.system.closure_arrays, *self.f.loop_scratch, lp)

    def compiled_nfev(self):
        return int(self.ist[stepper.NFEV])

    def crossing(self, i, k, ta, tb, dense, tol):
        f = self.f
        return stepper.locate(i, k, f.sides[i, k], ta, tb, tol, dense.t_old, dense.h,
                              dense.y_old, dense.F, f.mdl, f.fel, f.sides, f.ws, f.g, f.geo,
                              np.empty_like(dense.y_old))

    def piece(self, t, y):
        self.pieces += 1
        f, st, ist = self.f, self.st, self.ist
        o = self.options
        y = np.array(y, dtype=float)         # advanced in place
        st[stepper.T] = t
        if self.lx is not None and self.lx[-1][stepper.RANK] < 0:
            f(t, y)                       # the loop equations' rank at the (assembled) start
            self.lx[-1][stepper.RANK] = f.dynamics.rank
        bad = stepper.start(y, self.K[0], st, ist, self.t_end, o["rtol"], o["atol"],
                            o["max_step"], f.mdl, f.fel, f.sides, f.ws, f.tau, f.fext, f.rec,
                            f.geo, self.lx, self.tmp)
        self.check(bad)
        armed = f.armed()
        while True:
            ist[stepper.NEXT_ROW] = first = self.next_row
            steps = ist[stepper.NSTEPS]
            status = stepper.advance(y, st, ist, self.t_end, o["rtol"], o["atol"], o["max_step"],
                                     self.STEP_BUDGET, self.times, self.out, armed, f.g, f.mdl,
                                     f.fel, f.sides, f.ws, f.tau, f.fext, f.rec, f.geo, self.lx,
                                     self.K, self.y_old, self.F, self.tmp)
            self.nsteps += int(ist[stepper.NSTEPS] - steps)
            self.next_row = last = int(ist[stepper.NEXT_ROW])
            if last > first:
                self.rows_t.extend(self.times[first:last])
                self.rows_y.extend(self.out[first:last])
                self.rows_s.extend([f.sides.copy()] * (last - first))
            if status == stepper.PAUSED and not st[stepper.T] > t:   # NaN time, or stuck
                self.fail(f"the compiled integrator stopped advancing at t = {t:.9g} s "
                          f"(step size {st[stepper.H_ABS]:.3g} s)", t)
            t = self.t_now = st[stepper.T]
            self.bar.update(t, len(self.events))
            if status == stepper.DONE:
                return t, y
            if status == stepper.CROSSED:
                dense = _Interpolant(st[stepper.T_OLD], st[stepper.H_PREV], self.y_old.copy(),
                                     self.F.copy())
                crossed = armed & ((f.switching(t, y) >= 0.0) != (f.sides > 0.0))
                return self.switch(st[stepper.T_OLD], t, dense, crossed)
            if status == stepper.TOO_SMALL:
                self.fail(f"the integrator DOP853 failed at t = {t:.9g} s: the step size fell "
                          "below 10 units of round-off in t", t)
            if status == stepper.NONFINITE:
                self.fail_nonfinite(t, y)
            if status in (stepper.UNDEFINED, stepper.SINGULAR):
                self.check(int(ist[stepper.BAD]))

    def check(self, bad):
        """Raise what a compiled right-hand side's nonzero return says (see mbd.stepper)."""
        if bad > 0:
            raise _Undefined(bad - 1, self.st[stepper.T_BAD], self.tmp[3].copy())
        if bad < 0:
            info = self.lx[-2]
            raise constraints.SingularConfiguration(self.st[stepper.T_BAD],
                                                    int(self.lx[-1][stepper.RANK]),
                                                    int(info[0]), info[1])


def rhs_function(system):
    """f(t, y) -> dy/dt for y = [q, v], the force laws in the branches the initial state
    selects (for benchmarks and analysis; ``simulate`` handles the switching)."""
    f = Integrand(system)
    state = system.initial_state()
    f.natural_sides(state.t, np.concatenate([state.q, state.v]))
    return f
