"""Linearization and modes about a state (SPEC §6; Adams' LINEAR/STATEMAT and EIGENSOL,
Simscape's linearization).

The linear model lives in minimal coordinates (:mod:`mbd.analysis.coordinates`): the state is
x = [z, w], the ``dof`` independent coordinates' increments from the operating state and
their rates, and

    x' = A x + B u,   y = C x + D u,   M z'' + Cd z' + K z = F u   (about a state at rest).

The derivatives are taken of the compiled state function (:mod:`mbd.compiled.statefunction`), the
force laws frozen in the branches the operating state selects (a body at rest in contact is
linearized in contact), by Ridders' extrapolation of central differences (Numerical Recipes
§5.7): each column's step shrinks from a tenth of a radian or of the model's length scale
until the extrapolation's own error estimate stops falling, and that estimate is kept
(:attr:`LinearModel.error`, measured: 1e-10 relative or better on the reference tests).
Inputs enter linearly, so B is exact: a generalized force through the reduced mass matrix,
an actuator's value by a difference of the linear response.
"""
import numpy as np

from ..compiled import assembly, constant, dynamics, statefunction as sf
from . import coordinates
from ..model import values
from ..model.state import State
from ..control import Controller, Input, Sensor
from ..run.controls import Controls, Reader
from ..run.result import Result
from .linearmodel import LinearModel


# ----------------------------------------------------------------------------- derivatives

def ridders(f, x, h0, shrink=1.6, levels=16, noise=0.0):
    """(df/dx, error estimate): Ridders' extrapolation of central differences of the vector
    function f at the scalar x, first step h0 (Numerical Recipes §5.7).

    ``noise`` is the round-off amplitude of f's values (f's units): a difference quotient at
    step h carries noise / h of it, which extrapolation cannot see when the round-off is
    correlated between nearby points, so it is added to every error estimate."""
    table = [[None] * levels for _ in range(levels)]
    h = h0
    up, down = f(x + h), f(x - h)
    table[0][0] = (up - down) / (2.0 * h)
    best, error = table[0][0], np.inf
    noise = max(noise, 10.0 * np.finfo(float).eps * max(np.abs(up).max(initial=0.0),
                                                        np.abs(down).max(initial=0.0)))
    for i in range(1, levels):
        h /= shrink
        table[0][i] = (f(x + h) - f(x - h)) / (2.0 * h)
        factor = shrink ** 2
        for j in range(1, i + 1):
            table[j][i] = (table[j - 1][i] * factor - table[j - 1][i - 1]) / (factor - 1.0)
            factor *= shrink ** 2
            e = max(np.abs(table[j][i] - table[j - 1][i]).max(initial=0.0),
                    np.abs(table[j][i] - table[j - 1][i - 1]).max(initial=0.0))
            e += noise / h
            if e <= error:
                error, best = e, table[j][i]
        if np.abs(table[i][i] - table[i - 1][i - 1]).max(initial=0.0) >= 2.0 * error:
            break
    return best, error


# ----------------------------------------------------------------------------- the dynamics

class Dynamics:
    """The mechanism's dynamics in the minimal coordinates of a :class:`Chart` about
    ``state``, the force laws frozen in the branches that state selects.

    Parameters
    ----------
    system : System
    state : State
        The operating state (consistent: closed loops, drivers on their motion).
    static : bool
        Hold the motion drivers at rest at their positions at state.t (for equilibrium).
    """

    def __init__(self, system, state, static=False, chart=None):
        self.system, self.t, self.static = system, float(state.t), static
        self.sd = sf.state_data(system)
        self.controls = None
        if system.controls:     # the laws read the inputs and controllers' outputs
            with_states = [c.name for c in system.controls
                           if isinstance(c, Controller) and c.n_states]
            if with_states:
                raise ValueError(f"the continuous controllers {with_states} have states, "
                                 "which the analyses do not take as coordinates yet: analyse "
                                 "the plant with their actuators as inputs")
            self.controls = self.sd.held = Controls(system, self.t, Result)
        self.q0 = assembly.normalized(system.tree, np.asarray(state.q, dtype=float))
        self.v0 = np.array(state.v, dtype=float).reshape(system.nv)
        self.chart = chart or coordinates.Chart(system, self.sd.data, self.t, self.q0)
        self.mode(self.q0, self.v0)

    def mode(self, q, v):
        """Freeze the force laws in the branches (q, v) selects."""
        sf.natural_mode(self.sd, self.t, np.concatenate([q, v]))
        self.sides = self.sd.data.mode["sides"].copy()

    def accelerations(self, q, v, tau=None, extra=None):
        """vdot (nv) at (q, v) in the frozen branches; ``tau`` (nv) an added generalized force,
        ``extra`` (element index, added value) an added law value of a constant law."""
        sd = self.sd
        y = np.ascontiguousarray(np.concatenate([q, v]))
        dy = np.empty_like(y)
        sf.refresh(sd, self.t, y)
        if self.static:
            sd.data.drivers["velocity"] = 0.0
            sd.data.drivers["acceleration"] = 0.0
        params = sd.data.elements["params"]
        saved = None
        if extra is not None:
            i, du = extra
            saved = params[i, 0]
            params[i, 0] = saved + du
        try:
            status = int(sd.call(sd.rhs, self.t, y, dy, sd.data))
        finally:
            if saved is not None:
                params[extra[0], 0] = saved
        if status:
            raise ArithmeticError(f"the state function failed (status {status})")
        acc = dy[self.system.nq:]
        if tau is not None:
            acc = acc + self.inverse_mass(q) @ tau
        return acc

    def inverse_mass(self, q):
        """d vdot / d tau (nv, nv) at q: T (T^T H T)^-1 T^T with the chart's tangent at q
        (the tree's H^-1 for a tree)."""
        T = self.chart.tangent(q)
        H = dynamics.mass_matrix(self.system, q)
        return T @ np.linalg.solve(T.T @ H @ T, T.T)

    def state_at(self, z, w):
        """(q, v) of the chart coordinates (z, w)."""
        q = self.chart.position(z)
        return q, self.chart.velocity(q, w)

    def rates(self, x, tau=None, extra=None):
        """x' = [z', w'] (2 dof) at x = [z, w]."""
        n = self.chart.dof
        q, v = self.state_at(x[:n], x[n:])
        acc = self.accelerations(q, v, tau, extra)
        return np.concatenate([self.chart.coordinate_rates(q, v), acc[self.chart.independent]])

    def operating_point(self):
        """x0 = [0, w0]: the chart coordinates of the operating state."""
        return np.concatenate([np.zeros(self.chart.dof), self.v0[self.chart.independent]])


def analysis_state(system, state, who):
    """``state`` checked for an analysis (``who``: "linearize", ...): an :class:`mbd.State`
    of ``system``'s sizes with finite values, on the loops' and drivers' constraints.
    Returns it with float arrays; raises TypeError or ValueError naming what is wrong."""
    if not isinstance(state, State):
        raise TypeError(f"{who}: state must be an mbd.State (e.g. an equilibrium's .state or "
                        f"system.initial_state()), got {type(state).__name__}")
    t = values.real(state.t, f"{who}: state.t", "finite", np.isfinite)
    q = values.real_array(state.q, f"{who}: state.q", size=system.nq)
    v = values.real_array(state.v, f"{who}: state.v", size=system.nv)
    for label, x in (("q", q), ("v", v)):
        if not np.all(np.isfinite(x)):
            raise ValueError(f"{who}: state.{label} must be finite, got {x}")
    g, w = assembly.residuals(system, t, q, v)
    if g > 1e-8 * system.length_scale or w > 1e-8 * max(1.0, np.abs(v).max(initial=0.0)):
        raise ValueError(f"{who}: the state is not on the mechanism's constraints (closure "
                         f"residual {g:.3g}, velocity residual {w:.3g}); use a state of a "
                         "Result, an equilibrium's state, or assemble one by simulating to "
                         "t0")
    return State(t, q, v)



def _input_columns(dyn, names):
    """B (2 dof, nu): inputs are Actuator force elements (u: an added value, N or N m), the
    model's Inputs and discrete controllers (u: the value they hold, which the laws reading
    them take) or joint coordinates (u: a generalized force on it)."""
    system, chart = dyn.system, dyn.chart
    coords = coordinates.coordinate_names(system)
    elements = {fe.name: i for i, fe in enumerate(system.force_elements)}
    held = {c.name: c.key for c in system.controls
            if isinstance(c, Input) or (isinstance(c, Controller) and c.period is not None)}
    n = chart.dof
    B = np.zeros((2 * n, len(names)))
    q, v = dyn.q0, dyn.v0
    Minv = None
    for k, name in enumerate(names):
        if name in held:
            values_now = dyn.controls.values[-1]
            j = dyn.controls.column[held[name]]
            base, du = values_now[j], 1.0
            try:
                values_now[j] = base + du
                up = dyn.accelerations(q, v)
                values_now[j] = base - du
                down = dyn.accelerations(q, v)
            finally:
                values_now[j] = base
            B[n:, k] = ((up - down) / (2 * du))[chart.independent]
        elif name in elements:
            fe = system.force_elements[elements[name]]
            if system.elements[elements[name]]["law"] != constant.KIND.code:
                raise ValueError(f"linearize: input '{name}' is a {fe.law.name} force element; "
                                 "an input must be an Actuator force element or a joint "
                                 f"coordinate (one of {coords})")
            du = 1.0
            up = dyn.accelerations(q, v, extra=(elements[name], du))
            down = dyn.accelerations(q, v, extra=(elements[name], -du))
            B[n:, k] = ((up - down) / (2 * du))[chart.independent]
        else:
            i = _coordinate_index(system, coords, name, "input")
            Minv = dyn.inverse_mass(q) if Minv is None else Minv
            B[n:, k] = Minv[chart.independent, i]
    return B


def _coordinate_index(system, coords, name, what):
    if name in coords:
        return coords.index(name)
    if name in system.joints and len(system.joints[name].v_index) == 1:
        return int(system.joints[name].v_index[0])
    elements = [fe.name for fe in system.force_elements]
    raise ValueError(f"linearize: {what} {name!r} names no joint coordinate"
                     + (", Actuator force element, Input or discrete controller"
                        if what == "input" else "")
                     + f"; the joint coordinates are {coords}"
                     + (f", the force elements {elements}" if what == "input" else ""))


def _output_function(dyn, names):
    """y(q, v) for the named outputs: joint coordinates ("hinge.q", measured from the
    operating state as the chart measures them), rates ("hinge.v") and CS positions
    ("body.cs.x", world, m)."""
    system = dyn.system
    coords = coordinates.coordinate_names(system)
    rates = [coordinates.rate_name(c) for c in coords]
    picks = []
    sensors = {c.name: c for c in system.controls if isinstance(c, Sensor)}
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"linearize: an output name must be a string, got {name!r}")
        if name in sensors:
            picks.append(("sensor", Reader(system, sensors[name].what)))
            continue
        if name in coords:
            picks.append(("q", coords.index(name)))
            continue
        if name in rates:
            picks.append(("v", rates.index(name)))
            continue
        parts = name.split(".")
        if (len(parts) == 3 and parts[0] in system.bodies and parts[2] in ("x", "y", "z")
                and parts[1] in system.bodies[parts[0]].body.frames):
            bm = system.bodies[parts[0]]
            local = bm.cs_local(bm.body[parts[1]])[0]
            picks.append(("p", (bm.link, local, "xyz".index(parts[2]))))
            continue
        raise ValueError(f"linearize: output {name!r} is not a sensor ({sorted(sensors)}), a "
                         f"joint coordinate ({coords}), a rate ({rates}) or a CS position "
                         f"'body.cs.x|y|z' (bodies {sorted(system.bodies)})")

    def y(q, v):
        out = np.empty(len(picks))
        dq = assembly.difference(system.tree, system.nv, q, dyn.q0)
        R = p = None
        for k, (kind, what) in enumerate(picks):
            if kind == "q":
                out[k] = dq[what]
            elif kind == "v":
                out[k] = v[what]
            elif kind == "sensor":
                out[k] = what.at(dyn.t, np.concatenate([q, v]), dyn.sides,
                                 dyn.controls.one_row)
            else:
                if R is None:
                    R, p = dynamics.link_poses(system, q)
                link, local, axis = what
                out[k] = p[link, axis] + (R[link] @ local)[axis]
        return out

    return y


def _round_off(along, f0, step):
    """The round-off amplitude of the values of ``along`` near 0: the largest second
    difference over spacings (1e-9 to 1e-8 of ``step``) at which the function's curvature
    contributes nothing measurable. An acceleration that is a small difference of large
    forces carries far more round-off than eps times its own size."""
    spread = 0.0
    for delta in step * np.array([1e-9, 3e-9, 1e-8]):
        second = along(delta) - 2.0 * f0 + along(-delta)
        spread = max(spread, float(np.abs(second).max(initial=0.0)))
    return 0.5 * spread


def _jacobian(f, x0, steps):
    """(J, error): Ridders' derivative of f at x0, column by column."""
    f0 = f(x0)
    J = np.zeros((len(f0), len(x0)))
    worst = 0.0
    for k in range(len(x0)):
        def along(s, k=k):
            x = x0.copy()
            x[k] += s
            return f(x)
        noise = _round_off(along, f0, steps[k])
        # a first step far beyond a branch boundary (a stiff contact's millimetres against a
        # model of metres) can fool the extrapolation: the best of three starting steps
        J[:, k], err = min((ridders(along, 0.0, steps[k] * shrink, noise=noise)
                            for shrink in (1.0, 1e-3, 1e-6)), key=lambda found: found[1])
        worst = max(worst, err)
    return J, worst


def linearize(system, state, inputs=(), outputs=()):
    """The :class:`LinearModel` of ``system`` about ``state`` (an :class:`mbd.State`: an
    equilibrium's, or any consistent state).

    Parameters
    ----------
    system : System
    state : State
        The operating state; a mechanism with loops must be closed there.
    inputs : sequence of str
        Actuator force elements (u: an added value, N or N m), the model's Inputs and
        discrete controllers (u: the value they hold, read by the laws that take them), or
        joint coordinates ("hinge" or "hinge.q", "joint.q1"; u: a generalized force on it,
        N or N m).
    outputs : sequence of str
        The model's Sensors, joint coordinates ("hinge.q"), rates ("hinge.v") and CS
        positions ("arm.tip.z", world, m; "arm.cg.x" for the CG), as deviations from the
        operating values. Continuous controllers without states (``Gain``) act in the
        linearized dynamics (a closed loop); ones with states are refused.

    Raises
    ------
    ValueError
        An unknown input or output name, or a state off the constraints.
    """
    state = analysis_state(system, state, "linearize")
    dyn = Dynamics(system, state)
    return _linear_model(dyn, list(inputs), list(outputs))


def _linear_model(dyn, inputs, outputs):
    system, chart = dyn.system, dyn.chart
    n = chart.dof
    x0 = dyn.operating_point()
    B = _input_columns(dyn, inputs)
    yfun = _output_function(dyn, outputs)
    scale = chart.scale[chart.independent]
    rate_scale = np.maximum(np.abs(x0[n:]) / scale, 1.0) * scale
    steps = 0.1 * np.concatenate([scale, rate_scale])
    if n:
        A, err = _jacobian(dyn.rates, x0, steps)

        def out(x):
            q, v = dyn.state_at(x[:n], x[n:])
            return yfun(q, v)
        C = _jacobian(out, x0, steps)[0] if outputs else np.zeros((0, 2 * n))
    else:
        A, err, C = np.zeros((0, 0)), 0.0, np.zeros((len(outputs), 0))
    H = dynamics.mass_matrix(system, dyn.q0)
    M = chart.T.T @ H @ chart.T
    K = -M @ A[n:, :n]
    Cd = -M @ A[n:, n:]
    names = chart.names + [coordinates.rate_name(c) for c in chart.names]
    return LinearModel(A=A, B=B, C=C, D=np.zeros((len(outputs), len(inputs))), M=M, K=K,
                       Cd=Cd, state_names=names, input_names=list(inputs),
                       output_names=list(outputs), system=system,
                       state=State(dyn.t, dyn.q0.copy(), dyn.v0.copy()),
                       coordinates=coordinates.coordinate_names(system), T=chart.T.copy(),
                       error=float(err), independent=chart.independent.copy())
