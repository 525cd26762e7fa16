"""Linearization and modes about a state (SPEC §6; Adams' LINEAR/STATEMAT and EIGENSOL,
Simscape's linearization).

The linear model lives in minimal coordinates (:mod:`mbd.analysis.coordinates`): the state is
x = [z, w], the ``dof`` independent coordinates' increments from the operating state and
their rates, and

    x' = A x + B u,   y = C x + D u,   M z'' + Cd z' + K z = F u   (about a state at rest).

The derivatives are taken of the compiled state function (:mod:`mbd.run.evaluator`), the
force laws frozen in the branches the operating state selects (a body at rest in contact is
linearized in contact), by Ridders' extrapolation of central differences (Numerical Recipes
§5.7): each column's step shrinks from a tenth of a radian or of the model's length scale
until the extrapolation's own error estimate stops falling, and that estimate is kept
(:attr:`LinearModel.error`, measured: 1e-10 relative or better on the reference tests).
The columns of the rates w are differenced without gravity (a term of q alone), whose
round-off over the step would otherwise swamp a small damping entry: a linear spring-damper
gives -c/m and -d/m to round-off.
Inputs enter linearly, so B is exact: a generalized force through the reduced mass matrix,
an actuator's value by a difference of the linear response.

Continuous controllers with states (``PID``, ``StateSpace``, ``ContinuousController``) close
the loop in the linear model: their states x_c follow [z, w] in x (in the order the run
integrates them, :attr:`mbd.run.controls.Controls.continuous`), the laws read their outputs
at (q, v, x_c) and x_c' is the controllers' own. Their operating values are the ones given
(``controller_states=``, or a state's ``controller_states`` attribute), else the controllers'
start states. An Input feeding a controller moves x_c' too (B has rows for x_c); outputs may
name a controller's states ("pid.x0") and outputs ("pid", "ss[1]").
"""
from typing import TYPE_CHECKING

import numpy as np

from ..compiled import assembly, dynamics
from ..control import Controller
from ..model import values
from ..model.state import State
from ..run import evaluator
from ..run.controls import Controls
from ..run.evaluator import Evaluator
from . import coordinates
from .inputsoutputs import (
    controller_state_names,
    held_inputs,
    input_columns,
    output_function,
    with_held,
)
from .linearmodel import LinearModel

if TYPE_CHECKING:     # (a hint only: the system stage is below, imported for types)
    from ..system.system import System


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
    ``state``, the force laws frozen in the branches that state selects, with the continuous
    controllers' states x_c (the closed loop).

    Parameters
    ----------
    system : System
    state : State
        The operating state (consistent: closed loops, drivers on their motion).
    static : bool
        Hold the motion drivers at rest at their positions at state.t (for equilibrium);
        refused with continuous controllers that have states.
    chart : Chart, optional
    controller_states : array_like, optional
        The continuous controllers' states at the operating point (their units), in the
        order of :attr:`mbd.run.controls.Controls.continuous`; default: the start states.

    Attributes
    ----------
    xc0 : ndarray
        The controllers' operating states (nc,).
    """

    def __init__(self, system, state, static=False, chart=None, controller_states=None):
        self.system, self.t, self.static = system, float(state.t), static
        self.ev = Evaluator(system)
        self.controls = None
        self.xc0 = np.zeros(0)
        if system.controls:     # the laws read the inputs and controllers' outputs
            self.controls = self.ev.held = Controls(system, self.t)
            if self.controls.n_states:
                if static:
                    raise ValueError(static_refusal(system, "a static analysis"))
                self.xc0 = operating_controller_states(self.controls, controller_states)
        if not len(self.xc0) and controller_states is not None and np.size(controller_states):
            raise ValueError(f"linearize: controller_states {controller_states!r} given, but "
                             "the model has no continuous controller with states")
        self.nc = len(self.xc0)
        self._plain = None
        self._weightless = None
        # where x_c lies in the run's state y = [q, v, W, x_c]
        self.xc_start = system.nq + system.nv + evaluator.work_size(system)
        self.q0 = assembly.normalized(system.tree, np.asarray(state.q, dtype=float))
        self.v0 = np.array(state.v, dtype=float).reshape(system.nv)
        self.chart = chart or coordinates.Chart(system, self.ev.data, self.t, self.q0)
        self.mode(self.q0, self.v0)

    def full_state(self, q, v, xc=None):
        """The run's state y at (q, v, x_c): [q, v] without controller states, else
        [q, v, W = 0, x_c] (the controllers read x_c at their slices of it)."""
        if not self.nc:
            return np.ascontiguousarray(np.concatenate([q, v]))
        y = np.zeros(self.xc_start + self.nc)
        y[:self.system.nq] = q
        y[self.system.nq:self.system.nq + self.system.nv] = v
        y[self.xc_start:] = self.xc0 if xc is None else xc
        return y

    def mode(self, q, v):
        """Freeze the force laws in the branches (q, v) (and the operating x_c) select."""
        self.ev.natural_mode(self.t, self.full_state(q, v))
        self.sides = self.ev.data.mode["sides"].copy()

    def _rhs(self, ev, y, extra=None):
        """vdot (nv) of ``ev``'s right-hand side at the run's state y, refreshed (the laws
        read the inputs and the controllers' outputs at y), ``extra`` (element index, added
        value) added to a constant law's value."""
        ev.refresh(self.t, y)
        if self.static:
            ev.data.drivers["velocity"] = 0.0
            ev.data.drivers["acceleration"] = 0.0
        params = ev.data.elements["params"]
        saved = None
        if extra is not None:
            i, du = extra
            saved = params[i, 0]
            params[i, 0] = saved + du
        # the whole y: a right-hand side that evaluates the controllers reads x_c from it
        dy = np.zeros_like(y)
        try:
            status = int(ev.call(ev.rhs, self.t, y, dy, ev.data))
        finally:
            if saved is not None:
                params[extra[0], 0] = saved
        if status:
            raise ArithmeticError(f"the state function failed (status {status})")
        return dy[self.system.nq:self.system.nq + self.system.nv]

    @property
    def weightless(self):
        """Whether :meth:`rates` may be evaluated without gravity (``weightless=True``): in a
        model without sensors, inputs and controllers, which could read an acceleration (and
        so gravity) in a way that is not additive."""
        return not self.system.controls

    def _weightless_data(self):
        """State data whose links feel no gravity, in the frozen branches: gravity adds a
        term to vdot that depends on q alone, so vdot's derivatives in v are the same
        without it, and their differences carry none of its round-off."""
        if self._weightless is None:
            tree = self.system.tree.copy()
            tree["gravity"] = 0.0
            tree.flags.writeable = self.system.tree.flags.writeable   # the same compiled type
            self._weightless = Evaluator(self.system)
            self._weightless.data = self._weightless.data._replace(tree=tree)
        self._weightless.data.mode[:] = self.ev.data.mode          # the same branches
        return self._weightless

    def derivatives(self, q, v, xc=None, tau=None, extra=None, weightless=False):
        """(vdot (nv), x_c' (nc)) at (q, v, x_c) in the frozen branches; ``tau`` (nv) an added
        generalized force, ``extra`` (element index, added value) an added law value of a
        constant law. x_c defaults to the operating states. ``weightless``: without gravity
        (see :attr:`weightless`)."""
        y = self.full_state(q, v, xc)
        acc = self._rhs(self._weightless_data() if weightless else self.ev, y, extra)
        if tau is not None:
            acc = acc + self.inverse_mass(q) @ tau
        if not self.nc:
            return acc, np.zeros(0)
        rates = np.zeros_like(y)
        self.controls.state_derivative(self.t, y, rates)
        return acc, rates[self.xc_start:]

    def accelerations(self, q, v, tau=None, extra=None):
        """vdot (nv) at (q, v) (the controllers at their operating states) in the frozen
        branches; ``tau`` and ``extra`` as :meth:`derivatives`."""
        return self.derivatives(q, v, None, tau, extra)[0]

    def value_column(self, i, du=1.0):
        """d vdot / d (constant law i's value) (nv) at the operating state. With continuous
        controllers the difference is taken on data of its own that no controller writes
        into (a right-hand side that evaluates them would overwrite an added value of an
        actuator they drive); the value enters linearly, so its own value does not matter."""
        ev, y = self.ev, self.full_state(self.q0, self.v0)
        if self.controls is not None and self.controls.continuous:
            if self._plain is None:
                self._plain = Evaluator(self.system)
            ev, y = self._plain, np.concatenate([self.q0, self.v0])
            ev.data.mode[:] = self.ev.data.mode       # the same branches
        up = self._rhs(ev, y, (i, du))
        down = self._rhs(ev, y, (i, -du))
        return (up - down) / (2.0 * du)

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

    def rates(self, x, tau=None, extra=None, weightless=False):
        """x' = [z', w', x_c'] (2 dof + nc) at x = [z, w, x_c]; ``weightless``: without
        gravity, for the derivatives in w (see :meth:`_weightless_data`)."""
        n = self.chart.dof
        q, v = self.state_at(x[:n], x[n:2 * n])
        acc, xc_rate = self.derivatives(q, v, x[2 * n:], tau, extra, weightless)
        return np.concatenate([self.chart.coordinate_rates(q, v), acc[self.chart.independent],
                               xc_rate])

    def operating_point(self):
        """x0 = [0, w0, x_c0]: the chart coordinates of the operating state and the
        controllers' operating states."""
        return np.concatenate([np.zeros(self.chart.dof), self.v0[self.chart.independent],
                               self.xc0])


def controllers_with_states(system):
    """The names of ``system``'s continuous controllers that have states."""
    return [c.name for c in system.controls
            if isinstance(c, Controller) and c.period is None and c.n_states]


def static_refusal(system, who):
    """Why ``who`` (e.g. "equilibrium") refuses ``system``'s continuous controllers with
    states: they are named, and linearize is pointed to."""
    return (f"{who}: the continuous controllers {controllers_with_states(system)} have states, "
            "which a static analysis does not solve for: simulate the closed loop to rest and "
            "linearize there (mbd.linearize(system, state, controller_states=...), which takes "
            "them), or analyse the plant with their actuators as inputs")


def operating_controller_states(controls, given):
    """The controllers' operating states: ``given`` (checked: nc finite numbers) or, when
    None, their start states (:meth:`Controls.initial_states`)."""
    if given is None:
        return np.asarray(controls.initial_states(), dtype=float).copy()
    names = controller_state_names(controls)
    try:
        x = np.asarray(given, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise TypeError(f"linearize: controller_states must be numbers, got {given!r}") \
            from None
    if x.size != len(names):
        raise ValueError(f"linearize: controller_states must have {len(names)} values "
                         f"({names}), got {x.size}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"linearize: controller_states must be finite, got {x.tolist()}")
    return x.copy()


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
    g, w = Evaluator(system).residuals(t, q, v)
    if g > 1e-8 * system.length_scale or w > 1e-8 * max(1.0, np.abs(v).max(initial=0.0)):
        raise ValueError(f"{who}: the state is not on the mechanism's constraints (closure "
                         f"residual {g:.3g}, velocity residual {w:.3g}); use a state of a "
                         "Result, an equilibrium's state, or assemble one by simulating to "
                         "t0")
    return State(t, q, v)




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


def _jacobian(f, x0, steps, columns=()):
    """(J, error): Ridders' derivative of f at x0, column by column; ``columns`` maps columns
    k to a function of their own to difference instead, one that differs from f by terms
    that do not depend on x[k] (the same column, less round-off)."""
    f0 = f(x0)
    J = np.zeros((len(f0), len(x0)))
    worst = 0.0
    columns = dict(columns)
    for k in range(len(x0)):
        fk = columns.get(k, f)

        def along(s, k=k, fk=fk):
            x = x0.copy()
            x[k] += s
            return fk(x)
        noise = _round_off(along, f0 if fk is f else fk(x0), steps[k])
        # a first step far beyond a branch boundary (a stiff contact's millimetres against a
        # model of metres) can fool the extrapolation: the best of three starting steps
        J[:, k], err = min((ridders(along, 0.0, steps[k] * shrink, noise=noise)
                            for shrink in (1.0, 1e-3, 1e-6)), key=lambda found: found[1])
        worst = max(worst, err)
    return J, worst


def linearize(system: "System", state: State,
              inputs: list[str] | tuple[str, ...] = (), outputs: list[str] | tuple[str, ...] = (),
              controller_states: np.ndarray | list[float] | None = None) -> LinearModel:
    """The :class:`LinearModel` of ``system`` about ``state`` (an :class:`mbd.State`: an
    equilibrium's, or any consistent state), continuous controllers in the loop.

    Parameters
    ----------
    system : System
    state : State
        The operating state; a mechanism with loops must be closed there.
    inputs : sequence of str
        Actuator force elements (u: an added value, N or N m), the model's Inputs and
        discrete controllers (u: the value they hold, read by the laws and controllers that
        take them), or joint coordinates ("hinge" or "hinge.q", "joint.q1"; u: a generalized
        force on it, N or N m).
    outputs : sequence of str
        The model's Sensors, joint coordinates ("hinge.q"), rates ("hinge.v"), CS positions
        ("arm.tip.z", world, m; "arm.cg.x" for the CG), controllers' states ("pid.x0") and
        controllers' outputs ("pid" for its output 0, "ss[1]"), as deviations from the
        operating values.
    controller_states : array_like, optional
        The continuous controllers' states at the operating point (their own units), in the
        order of the run's state (``result.controller_states[i]`` of a row i); default: the
        ``controller_states`` ``state`` carries, if it has that attribute, else the
        controllers' start states (``x0``; a PID's integral and filter start at 0).

    Returns
    -------
    LinearModel
        Its state is [z, w, x_c]: the independent coordinates and their rates, then every
        continuous controller's states (named "pid.x" for a controller of one state,
        "pid.x0", "pid.x1", ... otherwise). Continuous controllers act in the linearized
        dynamics (the closed loop): the laws read their outputs at (q, v, x_c), and x_c'
        is theirs.

    Raises
    ------
    ValueError
        An unknown input or output name, a state off the constraints, or controller_states
        of the wrong size.
    """
    if controller_states is None:      # (before analysis_state makes a plain State)
        controller_states = getattr(state, "controller_states", None)
    state = analysis_state(system, state, "linearize")
    dyn = Dynamics(system, state, controller_states=controller_states)
    return _linear_model(dyn, list(inputs), list(outputs))


def _linear_model(dyn, inputs, outputs):
    system, chart = dyn.system, dyn.chart
    n, nc = chart.dof, dyn.nc
    x0 = dyn.operating_point()
    B = input_columns(dyn, inputs)
    yfun = output_function(dyn, outputs)
    scale = chart.scale[chart.independent]
    rate_scale = np.maximum(np.abs(x0[n:2 * n]) / scale, 1.0) * scale
    # a controller's state has the units of its own signals: steps of a tenth of its size
    # (or of 1 at 0); its laws are mostly linear, so Ridders is exact for any step
    xc_scale = np.maximum(np.abs(dyn.xc0), 1.0)
    steps = 0.1 * np.concatenate([scale, rate_scale, xc_scale])
    size = 2 * n + nc
    if size:
        # the rate columns without gravity: a small damping entry (d/m against g) is
        # otherwise lost in gravity's round-off over the step (1e-9 relative at d/m = 1e-5)
        weightless = ({k: lambda x: dyn.rates(x, weightless=True) for k in range(n, 2 * n)}
                      if dyn.weightless else {})
        A, err = _jacobian(dyn.rates, x0, steps, weightless)

        def out(x):
            q, v = dyn.state_at(x[:n], x[n:2 * n])
            return yfun(q, v, x[2 * n:])
        C = _jacobian(out, x0, steps)[0] if outputs else np.zeros((0, size))
    else:
        A, err, C = np.zeros((0, 0)), 0.0, np.zeros((len(outputs), 0))
    D = np.zeros((len(outputs), len(inputs)))
    held = held_inputs(system)
    if outputs:      # outputs that read a held input directly (a controller's feedthrough)
        q, v = dyn.state_at(x0[:n], x0[n:2 * n])
        for k, name in enumerate(inputs):
            if name in held:
                up = with_held(dyn, held[name], 1.0, lambda: yfun(q, v))
                down = with_held(dyn, held[name], -1.0, lambda: yfun(q, v))
                D[:, k] = (up - down) / 2.0
    H = dynamics.mass_matrix(system, dyn.q0)
    M = chart.T.T @ H @ chart.T
    K = -M @ A[n:2 * n, :n]
    Cd = -M @ A[n:2 * n, n:2 * n]
    names = (chart.names + [coordinates.rate_name(c) for c in chart.names]
             + (controller_state_names(dyn.controls) if nc else []))
    return LinearModel(A=A, B=B, C=C, D=D, M=M, K=K,
                       Cd=Cd, state_names=names, input_names=list(inputs),
                       output_names=list(outputs), system=system,
                       state=State(dyn.t, dyn.q0.copy(), dyn.v0.copy()),
                       coordinates=coordinates.coordinate_names(system), T=chart.T.copy(),
                       error=float(err), independent=chart.independent.copy(),
                       controller_states=dyn.xc0.copy())
