"""Static equilibrium (SPEC §6; Adams' STATICS, Simscape's trimming at rest).

The unknowns are the mechanism's independent coordinates (:mod:`mbd.analysis.coordinates`), the
equations the generalized forces on them at rest, r(q) = T^T H(q) vdot(q, 0): gravity,
the force elements and, through the constraint solve, the loops' reactions (T^T G^T = 0, so
the reactions drop out and the closures hold by the chart). r is in N for a sliding and N m
for a turning coordinate.

Two stages, as Adams' STATICS:

1. Newton from the start pose: the Jacobian by central differences in the branches the
   iterate selects, the step capped at half a radian (or half the model's length scale),
   and a backtracking line search on |r|, every trial in the branches it selects itself.
   A piecewise law stays exact: the search moves from branch to branch, never on a smoothed
   law.
2. When Newton stalls, or ends at an unstable equilibrium from a start that was not one: the
   "dynamic" fallback. The coordinates follow the heavily damped limit of the motion,
   z' = M^-1 r (the accelerations at rest; potential energy falls along it), integrated by
   scipy's BDF (stiff contacts are fine) until at rest; Newton then polishes. A coordinate
   that travels without bound (a free body in gravity, an unresisted torque) ends the search
   with an :class:`mbd.AnalysisError` naming it and the residual.

Continuous controllers with states (``PID``, ``StateSpace``, ...) are refused, named: their
states are not unknowns here. Simulate the closed loop to rest and linearize its last row
(:func:`mbd.linearize` takes them), or find the plant's equilibrium with their actuators
held.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.integrate import solve_ivp

from ..compiled import assembly, dynamics
from ..control.signals import coordinate_unit
from ..model import validate, values
from ..model.errors import AnalysisError
from ..model.state import State
from ..run.evaluator import Evaluator
from . import coordinates
from .linear import Dynamics, _linear_model, controllers_with_states, static_refusal

if TYPE_CHECKING:     # (hints only: the system stage is below, imported for types)
    from ..system.system import System
    from .linearmodel import LinearModel

#: Newton's step, at most this many radians (or length scales) per iteration
MAX_STEP = 0.5
#: a coordinate that moves further than this (rad or length scales) runs away
RUNAWAY = 100.0
#: the dynamic stage's budget of right-hand-side evaluations
RELAX_EVALUATIONS = 20000


@dataclass
class Equilibrium:
    """A static equilibrium: where the mechanism rests.

    Attributes
    ----------
    state : State
        The state at rest (v = 0), t the analysis time.
    residual : float
        Largest generalized-force imbalance on the independent coordinates, N or N m.
    iterations : int
        Newton iterations (both stages) plus the dynamic stage's integration steps.
    method : str
        "newton", or "dynamic, then newton" when the fallback was needed.
    stable : bool
        No mode of the linearization about the state grows (:attr:`linear`).
    active : dict
        Force element name -> its law's state at rest (e.g. ``{"contact": True}`` for an
        ElastoGap in contact, ``{"contact": -1}`` for a BISTOP against its lower stop x1);
        empty for smooth laws.
    linear : mbd.analysis.linearmodel.LinearModel
        The linearization about the state.
    system : System
    """

    state: State
    residual: float
    iterations: int
    method: str
    stable: bool
    active: dict[str, dict[str, Any]]
    linear: LinearModel
    system: System | None = field(repr=False, default=None)

    def coordinates(self) -> dict[str, float | np.ndarray]:
        """Joint name -> its coordinates at rest (a float for one coordinate, else an
        array: a spherical primitive's unit quaternion w, x, y, z)."""
        out = {}
        for name, jm in self.system.joints.items():
            q = self.state.q[jm.q_index]
            out[name] = float(q[0]) if len(q) == 1 else q.copy()
        return out

    def table(self) -> str:
        """A text for people: the coordinates at rest, the residual, stability, branches."""
        s = self.system
        lines = [f"equilibrium of '{s.name}' at t = {self.state.t:g} s ({self.method}, "
                 f"{self.iterations} iterations): residual {self.residual:.3g} (N or N m), "
                 + ("stable" if self.stable else "UNSTABLE")]
        lines.append(f"  {'joint':<20} {'coordinate(s) at rest':<40}")
        for name, q in self.coordinates().items():
            text = (f"{q:+.10g}" if np.ndim(q) == 0
                    else "[" + ", ".join(f"{x:+.6g}" for x in np.ravel(q)) + "]")
            lines.append(f"  {name:<20} {text:<40}")
        for name, st in self.active.items():
            if st:
                lines.append(f"  force element '{name}': "
                             + ", ".join(f"{k} = {v}" for k, v in st.items()))
        return "\n".join(lines)


class _Statics:
    """The balance r(q) and its Jacobian in the chart about the current iterate."""

    def __init__(self, system, state):
        self.system = system
        self.dyn = Dynamics(system, state, static=True)
        self.scale = self.dyn.chart.scale
        self.zero_v = np.zeros(system.nv)
        self.evaluations = 0

    def recentre(self, q):
        """A chart about q (its independent coordinates chosen there)."""
        self.dyn.chart = coordinates.Chart(self.system, self.dyn.ev.data, self.dyn.t, q)
        return self.dyn.chart

    def acceleration(self, q, natural=True):
        """vdot at (q, 0), in the branches q selects (``natural``) or the frozen ones."""
        if natural:
            self.dyn.mode(q, self.zero_v)
        self.evaluations += 1
        return self.dyn.accelerations(q, self.zero_v)

    def force(self, q, natural=True):
        """r(q) (dof): the generalized forces at rest on the chart's coordinates."""
        T = self.dyn.chart.tangent(q)
        H = dynamics.mass_matrix(self.system, q)
        return T.T @ (H @ self.acceleration(q, natural))

    def jacobian(self, chart):
        """dr/dz (dof, dof) at the chart's configuration, in the branches it selects."""
        q0 = chart.q_ref
        self.dyn.mode(q0, self.zero_v)
        n = chart.dof
        J = np.zeros((n, n))
        scale = chart.scale[chart.independent]
        for k in range(n):
            h = 1e-6 * scale[k]
            e = np.zeros(n)
            e[k] = h
            J[:, k] = (self.force(chart.position(e), False)
                       - self.force(chart.position(-e), False)) / (2 * h)
        return J


def _merit(r, scale):
    """|r| weighted by the coordinates' scales (virtual work of a unit move, J)."""
    return float(np.linalg.norm(r * scale))


def _newton(statics, q, tol, iterations):
    """(q, r, iterations, converged): damped Newton from q."""
    r = None
    for it in range(iterations + 1):
        chart = statics.recentre(q)
        scale = chart.scale[chart.independent]
        r = statics.force(q)
        if not chart.dof or np.abs(r).max(initial=0.0) <= tol:
            return q, r, it, True
        if it == iterations:
            break
        J = statics.jacobian(chart)
        try:
            dz = np.linalg.solve(J, -r)
        except np.linalg.LinAlgError:
            return q, r, it, False
        size = float(np.abs(dz / scale).max())
        if not np.isfinite(size):
            return q, r, it, False
        if size > MAX_STEP:
            dz *= MAX_STEP / size
        phi = _merit(r, scale)
        alpha, accepted = 1.0, None
        while alpha > 1e-6:
            try:
                trial = chart.position(alpha * dz)
                r_trial = statics.force(trial)
            except ArithmeticError:
                alpha *= 0.5
                continue
            if _merit(r_trial, scale) <= (1.0 - 1e-4 * alpha) * phi:
                accepted = trial
                break
            alpha *= 0.5
        if accepted is None:
            return q, r, it, False
        q = accepted
    return q, r, iterations, False


def _relax(statics, q, t):
    """(q, steps): the heavily damped motion z' = M^-1 r from q until at rest (AnalysisError
    when a coordinate runs away or the budget ends)."""
    system = statics.system
    names = coordinates.coordinate_names(system)
    moved = np.zeros(system.nv)
    trees = not (system.cut_joints or system.drivers)
    spherical = bool(coordinates.spherical_blocks(system))
    leave = np.inf if trees and not spherical else (1.0 if trees else 0.3)
    chart = statics.recentre(q)
    a0 = np.abs(statics.acceleration(q)[chart.independent] /
                chart.scale[chart.independent]).max(initial=0.0)
    if a0 == 0.0:
        return q, 0
    steps = 0
    start = statics.evaluations
    while True:
        chart = statics.recentre(q)
        idx, scale = chart.independent, chart.scale[chart.independent]

        def flow(_, z, chart=chart, idx=idx):
            return statics.acceleration(chart.position(z))[idx]

        def left(_, z, scale=scale):
            return leave - np.abs(z / scale).max(initial=0.0)
        left.terminal = True

        def rest(_, z, scale=scale):
            return np.abs(flow(0, z) / scale).max(initial=0.0) - 1e-9 * a0
        rest.terminal = True

        def away(_, z, moved=moved, chart=chart):
            total = moved.copy()
            total += chart.T @ z
            return RUNAWAY - np.abs(total / chart.scale).max(initial=0.0)
        away.terminal = True
        try:
            sol = solve_ivp(flow, (0.0, 1e12), np.zeros(chart.dof), method="BDF",
                            events=(left, rest, away), rtol=1e-8, atol=1e-10 * scale)
        except ArithmeticError:
            raise AnalysisError(f"equilibrium: the loops of system '{system.name}' cannot be "
                                "closed on the way to rest (a limit position?)",
                                State(t, q, statics.zero_v.copy())) from None
        steps += sol.t.size
        z = sol.y[:, -1]
        moved += chart.T @ z
        q = chart.position(z)
        if sol.t_events[2].size or np.abs(moved / chart.scale).max() >= RUNAWAY:
            r = statics.force(q)
            worst = np.abs(moved / chart.scale)
            runners = [f"{_coordinate_label(system, names[i])} (moved {moved[i]:+.3g} "
                       f"{coordinate_unit(system, i)})" for i in np.argsort(-worst)
                       if worst[i] >= 0.5 * worst.max()][:4]
            raise AnalysisError(
                f"equilibrium: system '{system.name}' has no static equilibrium reachable from "
                f"its start: {', '.join(runners)} {'runs' if len(runners) == 1 else 'run'} away "
                f"under an unbalanced generalized "
                f"force (residual {np.abs(r).max():.3g} N or N m); nothing holds "
                f"{'it' if len(runners) == 1 else 'them'} (add a spring, a stop, a ground "
                "joint or a motion driver)", State(t, q, statics.zero_v.copy()))
        if sol.t_events[1].size or sol.status == 0:
            return q, steps
        if statics.evaluations - start > RELAX_EVALUATIONS or sol.status < 0:
            raise AnalysisError(
                f"equilibrium: system '{system.name}' did not come to rest within "
                f"{RELAX_EVALUATIONS} evaluations of the damped motion (residual "
                f"{np.abs(statics.force(q)).max():.3g} N or N m)",
                State(t, q, statics.zero_v.copy()))


def _coordinate_label(system, name):
    joint, coordinate = name.rsplit(".", 1)
    return f"joint '{joint}' {coordinate}"


def _active(system, ev, t, q):
    """Force element name -> its law's state at (q, 0), as Python scalars."""
    y = np.concatenate([q, np.zeros(system.nv)])
    ev.natural_mode(t, y)
    sides = ev.data.mode["sides"].copy()
    rec, params = ev.records(t, y, sides)
    out = {}
    for i, fe in enumerate(system.force_elements):
        st = fe.law.states(rec["x"][i:i + 1], rec["xdot"][i:i + 1], np.array([t]),
                           sides[i:i + 1], params[i:i + 1])
        out[fe.name] = {k: np.asarray(v).reshape(-1)[0].item() for k, v in st.items()}
    return out


def equilibrium(system: "System", q0: dict[str, object] | None = None,
                t: float = 0.0, tol: float = 1e-10, max_iterations: int = 50) -> Equilibrium:
    """The static equilibrium of ``system`` nearest its start pose (SPEC §6).

    Parameters
    ----------
    system : System
    q0 : dict, optional
        Start coordinates by joint name, overriding the joints' q0 targets (loops are closed
        from them as for a run).
    t : float
        Time, s: time-dependent law parameters and the motion drivers' positions are taken
        at t (every driver must be at rest there).
    tol : float
        The largest generalized-force imbalance accepted, N or N m (> 0).
    max_iterations : int
        Newton iterations per stage.

    Returns
    -------
    Equilibrium

    Raises
    ------
    AnalysisError
        No equilibrium: the coordinates that run away and the residual are named; or the
        forces' round-off is larger than ``tol`` (the message says which tol is reachable).
    ValueError, TypeError
        Bad arguments, a motion driver that moves at t, or continuous controllers with
        states (named; :func:`mbd.linearize` takes them about a state at rest).
    """
    if controllers_with_states(system):
        raise ValueError(static_refusal(system, "equilibrium"))
    t = values.real(t, "equilibrium: t", "finite", np.isfinite, ValueError, TypeError)
    tol = values.real(tol, "equilibrium: tol", "> 0 and finite",
                      lambda x: np.isfinite(x) and x > 0, ValueError, TypeError)
    if isinstance(max_iterations, bool) or not isinstance(max_iterations, (int, np.integer)) \
            or max_iterations < 1:
        raise ValueError(f"equilibrium: max_iterations must be an integer >= 1, got "
                         f"{max_iterations!r}")
    validate.check_initial_values(system, "q0", q0, who="equilibrium")
    for d in system.drivers:
        _, rate, acc = d.motion(t)
        if rate != 0.0 or acc != 0.0:
            raise ValueError(f"equilibrium: {d.driver.label()} moves at t = {t:g} s (rate "
                             f"{rate:g}, acceleration {acc:g}); a static equilibrium needs "
                             "every motion driver at rest: choose t where it is")
    start = system.initial_state(q0, None, t)
    q = assembly.normalized(system.tree, start.q)
    zero = np.zeros(system.nv)
    if system.cut_joints or system.drivers:
        q, _ = assembly.initial(system, Evaluator(system).data, State(t, q, zero),
                                q0 or {}, {})
    statics = _Statics(system, State(t, q, zero))
    r0 = statics.force(q)
    floor = 1e4 * np.finfo(float).eps * max(1.0, float(np.abs(r0).max(initial=0.0)))
    q_n, r_n, its, ok = _newton(statics, q, tol, max_iterations)
    method, total = "newton", its
    result = None
    if ok:
        result = _finish(system, statics, q_n, r_n, total, method)
        if result.stable or np.abs(r0).max(initial=0.0) <= tol:
            return result
    try:
        q_r, steps = _relax(statics, q, t)
    except AnalysisError:
        if result is not None:       # an unstable equilibrium is still one
            return result
        raise
    q_p, r_p, its_p, ok_p = _newton(statics, q_r, tol, max_iterations)
    if not ok_p:
        worst = float(np.abs(r_p).max(initial=0.0))
        if result is not None:
            return result
        if worst <= floor:
            raise AnalysisError(f"equilibrium: system '{system.name}' is at rest to the forces' "
                                f"round-off ({worst:.3g} N or N m), above tol = {tol:g}: ask "
                                f"for tol >= {floor:.1g}", State(t, q_p, zero))
        raise AnalysisError(f"equilibrium: Newton did not converge for system "
                            f"'{system.name}' (residual {worst:.3g} N or N m after "
                            f"{its_p} iterations)", State(t, q_p, zero))
    return _finish(system, statics, q_p, r_p, total + steps + its_p, "dynamic, then newton")


def _finish(system, statics, q, r, iterations, method):
    t = statics.dyn.t
    state = State(t, q.copy(), np.zeros(system.nv))
    linear = _linear_model(Dynamics(system, state), [], [])
    return Equilibrium(state=state, residual=float(np.abs(r).max(initial=0.0)),
                       iterations=int(iterations), method=method, stable=linear.stable,
                       active=_active(system, statics.dyn.ev, t, q), linear=linear,
                       system=system)
