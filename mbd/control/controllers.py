"""Controllers: named elements with inputs (signals) and outputs (held values), SPEC §9.

- **discrete** (a digital controller): called exactly at t0 + k T, k = 0, 1, ... (the run
  ends an integration piece at every sample instant, as at a switch), its output held
  between samples (zero-order hold), with its own state: :class:`DiscretePID`,
  :class:`DiscreteStateSpace`, or a user ``f(t, x_k, u) -> (x_{k+1}, y)``
  (:class:`DiscreteController`);
- **continuous**: ``x' = f(t, x, u)``, ``y = g(t, x, u)``, its states x integrated with the
  mechanism's (they follow [q, v, W] in the run's state and are in the result), its output a
  function of the state at every instant, evaluated at every right-hand side (from Python:
  the run steps with scipy's solver): :class:`PID` (with a filtered derivative, limits and
  anti-windup), :class:`StateSpace`, a user ``f(t, x, u) -> (x', y)``
  (:class:`ContinuousController`) and, with no state, :class:`Gain` (``y = K u + offset``:
  LQR's ``u = -K x``, a PD on a joint's angle and rate).

A controller's inputs are a sequence, each a :class:`~mbd.control.signals.Sensor`, an
:class:`~mbd.control.signals.Input` or a controller (or the name of one in the model), an
``Output`` of a controller of several outputs (``controller[k]``), or a number (a constant).
Its output is a signal: give the controller (its output 0) or ``controller[k]`` where a law
takes a value, e.g. ``Actuator(value=pid)``. An output that depends on another output with
no state between them is an algebraic loop: ``build()`` names the cycle (every controller
here is taken to pass its inputs straight through).
"""
import math

import numpy as np

from ..model import values
from ..model.elements import ControlElement, Signal
from .signals import Input, Sensor, quantity


class Output(Signal):
    """Output k of a controller, as a signal (``controller[k]``)."""

    def __init__(self, controller, k):
        self.controller, self.k = controller, k

    @property
    def initial(self):
        return float(self.controller.initial_output[self.k])

    @property
    def key(self):
        return f"{self.controller.name}[{self.k}]"

    def __repr__(self):
        return f"{self.controller.name}[{self.k}]"


class Controller(ControlElement, Signal):
    """What every controller has: a name, its inputs, its number of outputs and the value
    they hold before the first sample (``initial_output``); ``period`` (s) for a discrete
    one, None for a static one."""

    period = None

    #: how many states a continuous controller integrates with the mechanism
    n_states = 0

    #: whether its output reads its inputs directly (no state between them)
    feedthrough = True

    def __init__(self, name, inputs, outputs, initial_output=None):
        self.name = name
        if isinstance(inputs, (str, Signal, Sensor)) or not np.iterable(inputs):
            inputs = (inputs,)
        self.inputs = tuple(inputs)
        self.outputs = int(outputs)
        out = np.zeros(self.outputs) if initial_output is None else initial_output
        self.initial_output = _matrix(out, f"{self.label()}: initial_output",
                                      (self.outputs,))

    @property
    def initial(self):
        return float(self.initial_output[0])

    @property
    def key(self):
        return f"{self.name}[0]"

    def __getitem__(self, k):
        if not (isinstance(k, int) and 0 <= k < self.outputs):
            raise IndexError(f"{self.label()} has {self.outputs} output(s), got [{k!r}]")
        return Output(self, k)

    def initial_state(self):
        """The state before the first sample (a float array)."""
        return np.zeros(0)

    def resolve(self, controls):
        """Each input as a Sensor, an Input, an Output or a float; ValueError naming the one
        that is none of them."""
        out = []
        for j, item in enumerate(self.inputs):
            if isinstance(item, str):
                if item not in controls:
                    raise ValueError(f"input {j} names '{item}', which is no sensor, input or "
                                     f"controller of the model (they are "
                                     f"{sorted(controls) or 'none'})")
                item = controls[item]
            # an element is the model's element of its name (an override may have replaced it)
            if isinstance(item, Output):
                item = Output(controls.get(item.controller.name, item.controller), item.k)
            elif isinstance(item, (Sensor, Input, Controller)):
                item = controls.get(item.name, item)
            if isinstance(item, Controller):
                item = item[0]
            if isinstance(item, (Sensor, Input, Output)):
                out.append(item)
            elif isinstance(item, (int, float, np.floating, np.integer)) and not isinstance(
                    item, bool) and math.isfinite(item):
                out.append(float(item))
            else:
                raise ValueError(f"input {j} is {item!r}: an input is a Sensor, an Input, a "
                                 "controller (or the name of one) or a finite number")
        return out

    def check(self, system, controls):
        try:
            resolved = self.resolve(controls)
        except ValueError as err:
            return [f"{self.label()}: {err}"]
        problems = []
        for item in resolved:
            owner = getattr(item, "controller", item)
            if isinstance(item, (Sensor, Input, Output)) and owner.name not in controls:
                problems.append(f"{self.label()}: its input {item!r} is not added to the model")
        return problems + loop_problems(self, controls)

    def describe(self):
        names = ", ".join(str(getattr(i, "name", i)) for i in self.inputs)
        timing = f"sampled every {self.period:g} s" if self.period else "continuous"
        values_ = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.settable
                            if k != "period" and isinstance(getattr(self, k, None), float))
        return (f"{self.label()}: {timing}, inputs ({names}), {self.outputs} output(s)"
                + (f", {values_}" if values_ else ""))

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r})"


def loop_problems(controller, controls):
    """An algebraic loop through ``controller`` (every controller passes its inputs straight
    to its output): the cycle named, or nothing."""
    path = [controller]

    def feeds(c):
        if not c.feedthrough:
            return []
        try:
            return [i.controller for i in c.resolve(controls) if isinstance(i, Output)]
        except ValueError:
            return []

    def visit(c):
        for d in feeds(c):
            if d is controller:
                return True
            if d not in path:
                path.append(d)
                if visit(d):
                    return True
                path.pop()
        return False

    if visit(controller):
        names = " -> ".join(f"'{c.name}'" for c in path + [controller])
        return [f"{controller.label()}: algebraic loop: its output depends on itself through "
                f"{names} with no state between them"]
    return []


def _matrix(value, what, shape):
    """``value`` as a finite float array of ``shape`` (an empty one where a size is 0), else
    ValueError naming ``what``, the shape wanted and the value."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be real numbers, got {value!r}") from None
    if arr.size == 0 and 0 in shape:
        return np.zeros(shape)
    if len(shape) == 2 and arr.ndim < 2:
        arr = arr.reshape(1, -1) if shape[0] == 1 else arr.reshape(-1, 1)
    if arr.shape != tuple(shape):
        raise ValueError(f"{what} must have the shape {tuple(shape)}, got {arr.shape}: "
                         f"{value!r}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{what} must be finite, got {value!r}")
    return arr


def _limits(owner, limits):
    """(lo, hi) floats with lo < hi, else ValueError naming ``owner``."""
    lo, hi = values.real_array(limits, f"{owner.label()}: limits", shape=(2,))
    if not lo < hi:     # (a NaN fails this too)
        raise ValueError(f"{owner.label()}: limits must be (lo, hi) with lo < hi, got "
                         f"{tuple(limits)!r}")
    return float(lo), float(hi)


def _state_space(name, A, B, C, D):
    """The matrices (A, B, C, D) of controller ``name`` checked: finite, of one state size n
    (A (n, n), which may be 0), m inputs and p outputs (D (p, m))."""
    where = f"controller '{name}'"
    D = np.atleast_2d(np.asarray(D, dtype=float))
    p, m = D.shape
    n = int(round(np.sqrt(np.asarray(A, dtype=float).size)))
    return (_matrix(A, f"{where}: A", (n, n)), _matrix(B, f"{where}: B", (n, m)),
            _matrix(C, f"{where}: C", (p, n)), _matrix(D, f"{where}: D", (p, m)))


def _period(owner, period):
    return values.real(period, f"{owner.label()}: period", "> 0 and finite (s)",
                       lambda x: math.isfinite(x) and x > 0.0)


class DiscretePID(Controller):
    """A digital PID at sample period T: the error e_k = setpoint - measured at t0 + k T,

    ::

        d_k = (tf d_{k-1} + kd (e_k - e_{k-1})) / (tf + T)  (filtered derivative, e_{-1} = e_0)
        u_k = clip(kp e_k + I_k + d_k, lo, hi)                    held until the next sample
        I_{k+1} = I_k + ki T e_k                                  (forward Euler)

    with anti-windup by conditional integration: while the output is clipped, I does not
    grow further into the limit.

    Parameters
    ----------
    name : str
    measured : Sensor, str or signal
        What is controlled (e.g. a Sensor of a joint angle).
    setpoint : float, Sensor, Input or str
    kp, ki, kd : float
        Gains (output unit per error unit; per error unit and s; times s).
    period : float
        Sample period T, s (> 0).
    tf : float
        Time constant of the derivative's filter, s (>= 0; 0: a plain difference).
    limits : (float, float)
        The output's range (lo < hi; infinite: unlimited).
    anti_windup : bool
        Conditional integration while clipped (default True).
    """

    def __init__(self, name, measured, setpoint=0.0, kp=0.0, ki=0.0, kd=0.0, period=None,
                 tf=0.0, limits=(-np.inf, np.inf), anti_windup=True):
        super().__init__(name, (setpoint, measured), 1)
        self.setpoint = setpoint
        for gain, value in (("kp", kp), ("ki", ki), ("kd", kd)):
            setattr(self, gain, values.real(value, f"{self.label()}: {gain}", "finite",
                                            math.isfinite))
        self.period = _period(self, period)
        self.tf = values.real(tf, f"{self.label()}: tf", ">= 0 and finite (s)",
                              lambda x: math.isfinite(x) and x >= 0.0)
        self.limits = _limits(self, limits)
        self.anti_windup = bool(anti_windup)

    settable = ("kp", "ki", "kd", "tf", "period", "setpoint")

    def initial_state(self):
        # [integral I, filtered derivative d, last error, whether a sample was taken]
        return np.zeros(4)

    def update(self, t, x, u):
        """(x_{k+1}, y_k) of the sample at t (s) in state x with the inputs u = [setpoint,
        measured]."""
        integral, d, e_prev, started = x
        T, (lo, hi) = self.period, self.limits
        e = u[0] - u[1]
        if not started:
            e_prev = e                  # no derivative kick at the first sample
        d = (self.tf * d + self.kd * (e - e_prev)) / (self.tf + T)
        raw = self.kp * e + integral + d
        y = min(max(raw, lo), hi)
        winding = (raw > hi and self.ki * e > 0.0) or (raw < lo and self.ki * e < 0.0)
        if not (self.anti_windup and winding):
            integral = integral + self.ki * T * e
        return np.array([integral, d, e, 1.0]), np.array([y])


class DiscreteStateSpace(Controller):
    """A discrete linear controller at sample period T: x_{k+1} = A x_k + B u_k, y_k = C x_k
    + D u_k (u, y held between samples).

    Parameters
    ----------
    name : str
    A, B, C, D : array_like
        (n, n), (n, m), (p, n), (p, m); n may be 0 (a static gain D sampled).
    inputs : sequence
        The m inputs (see the module).
    period : float
        Sample period T, s (> 0).
    x0 : array_like, optional
        The state before the first sample (default zeros).
    """

    def __init__(self, name, A, B, C, D, inputs, period, x0=None):
        self.A, self.B, self.C, self.D = _state_space(name, A, B, C, D)
        super().__init__(name, inputs, self.D.shape[0])
        if len(self.inputs) != self.D.shape[1]:
            raise ValueError(f"{self.label()}: B and D take {self.D.shape[1]} inputs, got "
                             f"{len(self.inputs)}")
        self.period = _period(self, period)
        self.feedthrough = bool(np.any(self.D != 0.0))
        self.settable = ("period",)
        n = self.A.shape[0]
        self.x0 = np.zeros(n) if x0 is None else _matrix(x0, f"{self.label()}: x0", (n,))

    def initial_state(self):
        return self.x0.copy()

    def update(self, t, x, u):
        return self.A @ x + self.B @ u, self.C @ x + self.D @ u


class DiscreteController(Controller):
    """A user's digital controller: ``function(t, x_k, u) -> (x_{k+1}, y_k)`` called at every
    sample t0 + k T (s), with float arrays x_k (its state) and u (its inputs); y_k held until
    the next sample. What it returns must be finite and of the declared sizes, else the run
    stops naming the controller and the time.

    Parameters
    ----------
    name : str
    function : callable
    inputs : sequence
    period : float
        Sample period T, s (> 0).
    x0 : array_like
        The state before the first sample (default: no state).
    outputs : int
        How many outputs it has.
    """

    def __init__(self, name, function, inputs, period, x0=(), outputs=1):
        super().__init__(name, inputs, outputs)
        if not callable(function):
            raise ValueError(f"{self.label()}: function must be callable f(t, x, u) -> "
                             f"(x_next, y), got {function!r}")
        self.function = function
        self.period = _period(self, period)
        self.settable = ("period",)
        x0 = np.atleast_1d(np.asarray(x0, dtype=float))
        self.x0 = _matrix(x0, f"{self.label()}: x0", x0.shape)

    def initial_state(self):
        return self.x0.copy()

    def update(self, t, x, u):
        x_next, y = self.function(t, x.copy(), u.copy())
        return np.asarray(x_next, dtype=float), np.asarray(y, dtype=float)


class Continuous(Controller):
    """What a continuous controller has: ``derivative(t, x, u) -> (x', y)`` (s, its states,
    its inputs), its ``n_states`` and their start values ``x0``."""

    def initial_state(self):
        return self.x0.copy()

    def derivative(self, t, x, u):
        """(x' (n_states,), y (outputs,)) at time t (s), state x and inputs u."""
        raise NotImplementedError

    def check(self, system, controls):
        problems = super().check(system, controls)
        if problems:
            return problems
        for item in self.resolve(controls):
            if isinstance(item, Sensor) and quantity(system, item.what)[0] not in ("joint",
                                                                                  "cs"):
                problems.append(f"{self.label()}: its input {item!r} measures a force or the "
                                "energy, which a continuous controller cannot read at every "
                                "instant (the force may depend on its own output); sample it "
                                "with a discrete controller")
        return problems


class PID(Continuous):
    """A continuous PID on the error e = setpoint - measured::

        u = clip(kp e + I + D, lo, hi),   I' = ki e  (0 while clipped and winding further:
                                                     conditional integration)
        D = kd (e - z) / tf,  z' = (e - z) / tf      (a first-order filtered derivative,
                                                     kd s / (tf s + 1))

    With tf = 0 the derivative needs the measured quantity's rate as an input, ``rate``
    (e.g. a Sensor of ``"hinge.v"``): D = kd (setpoint' - rate), the setpoint taken constant.

    Parameters
    ----------
    name : str
    measured, setpoint : Sensor, Input, str or float
        What is controlled, and the value it should take.
    kp, ki, kd : float
        Gains.
    tf : float
        The derivative's filter time constant, s (>= 0).
    rate : Sensor or str, optional
        The measured quantity's rate, for kd with tf = 0.
    limits : (float, float)
        The output's range.
    anti_windup : bool
        Conditional integration while clipped (default True).
    """

    def __init__(self, name, measured, setpoint=0.0, kp=0.0, ki=0.0, kd=0.0, tf=0.0,
                 rate=None, limits=(-np.inf, np.inf), anti_windup=True):
        inputs = (setpoint, measured) + (() if rate is None else (rate,))
        super().__init__(name, inputs, 1)
        self.setpoint = setpoint
        for gain, value in (("kp", kp), ("ki", ki), ("kd", kd)):
            setattr(self, gain, values.real(value, f"{self.label()}: {gain}", "finite",
                                            math.isfinite))
        self.tf = values.real(tf, f"{self.label()}: tf", ">= 0 and finite (s)",
                              lambda x: math.isfinite(x) and x >= 0.0)
        if self.kd != 0.0 and self.tf == 0.0 and rate is None:
            raise ValueError(f"{self.label()}: kd = {self.kd!r} with tf = 0 needs the rate of "
                             "what it measures (rate=, e.g. a Sensor of 'hinge.v'), or a "
                             "filter time constant tf > 0")
        self.limits = _limits(self, limits)
        self.anti_windup = bool(anti_windup)
        self.filtered = self.tf > 0.0
        self.settable = ("kp", "ki", "kd", "tf") + (("setpoint",) if isinstance(
            setpoint, (int, float)) else ())
        self.n_states = 2 if self.filtered else 1
        self.x0 = np.zeros(self.n_states)

    def derivative(self, t, x, u):
        e = u[0] - u[1]
        if self.filtered:
            rate_of_filter = (e - x[1]) / self.tf
            d = self.kd * rate_of_filter
        else:
            d = -self.kd * u[2] if self.kd != 0.0 else 0.0
        lo, hi = self.limits
        raw = self.kp * e + x[0] + d
        y = min(max(raw, lo), hi)
        winding = (raw > hi and self.ki * e > 0.0) or (raw < lo and self.ki * e < 0.0)
        xdot = np.empty(self.n_states)
        xdot[0] = 0.0 if (self.anti_windup and winding) else self.ki * e
        if self.filtered:
            xdot[1] = rate_of_filter
        return xdot, np.array([y])


class StateSpace(Continuous):
    """A continuous linear controller: x' = A x + B u, y = C x + D u.

    Parameters
    ----------
    name : str
    A, B, C, D : array_like
        (n, n), (n, m), (p, n), (p, m); n may be 0.
    inputs : sequence
        The m inputs.
    x0 : array_like, optional
        The start state (default zeros).
    """

    def __init__(self, name, A, B, C, D, inputs, x0=None):
        self.A, self.B, self.C, self.D = _state_space(name, A, B, C, D)
        super().__init__(name, inputs, self.D.shape[0])
        if len(self.inputs) != self.D.shape[1]:
            raise ValueError(f"{self.label()}: B and D take {self.D.shape[1]} inputs, got "
                             f"{len(self.inputs)}")
        self.feedthrough = bool(np.any(self.D != 0.0))
        n = self.n_states = self.A.shape[0]
        self.x0 = np.zeros(n) if x0 is None else _matrix(x0, f"{self.label()}: x0", (n,))

    def derivative(self, t, x, u):
        return self.A @ x + self.B @ u, self.C @ x + self.D @ u


class ContinuousController(Continuous):
    """A user's continuous controller: ``function(t, x, u) -> (x', y)`` with float arrays x
    (its n states, integrated with the mechanism's) and u (its inputs); evaluated at every
    right-hand side. What it returns must be finite and of the declared sizes.

    Parameters
    ----------
    name : str
    function : callable
    inputs : sequence
    x0 : array_like
        The start state (its size is the number of states; default none).
    outputs : int
    """

    def __init__(self, name, function, inputs, x0=(), outputs=1):
        super().__init__(name, inputs, outputs)
        if not callable(function):
            raise ValueError(f"{self.label()}: function must be callable f(t, x, u) -> "
                             f"(x_dot, y), got {function!r}")
        self.function = function
        x0 = np.atleast_1d(np.asarray(x0, dtype=float))
        self.x0 = _matrix(x0, f"{self.label()}: x0", x0.shape)
        self.n_states = self.x0.size

    def derivative(self, t, x, u):
        xdot, y = self.function(t, x.copy(), u.copy())
        return np.asarray(xdot, dtype=float), np.asarray(y, dtype=float)


class Gain(Continuous):
    """A static (continuous) controller: ``y = K u + offset`` at every instant, e.g. LQR's
    state feedback ``u = -K x`` or a PD ``-kp (q - q_ref) - kd q'``. It has no state; it is
    evaluated at every right-hand side from Python (the run steps with scipy's solver).

    Parameters
    ----------
    name : str
    K : array_like
        (p, m) gains, or (m,) for one output.
    inputs : sequence
        The m inputs (see the module).
    offset : array_like
        (p,) added to the output (default zeros).
    """

    def __init__(self, name, K, inputs, offset=0.0):
        K = np.atleast_2d(np.asarray(K, dtype=float))
        super().__init__(name, inputs, K.shape[0])
        self.K = _matrix(K, f"{self.label()}: K", K.shape)
        if len(self.inputs) != K.shape[1]:
            raise ValueError(f"{self.label()}: K takes {K.shape[1]} inputs, got "
                             f"{len(self.inputs)}")
        self.offset = _matrix(np.broadcast_to(offset, (K.shape[0],)),
                              f"{self.label()}: offset", (K.shape[0],))
        self.initial_output = self.offset.copy()
        self.x0 = np.zeros(0)

    def derivative(self, t, x, u):
        return x, self.K @ u + self.offset


class Lookup(Continuous):
    """A table of a signal (a static continuous controller): ``y = table(u)`` at every
    instant, u its one input (e.g. a Sensor: a gain scheduled on an angle, a measured
    characteristic).

    Parameters
    ----------
    name : str
    table : mbd.control.Table
    input : Sensor, Input, str or a controller
    """

    def __init__(self, name, table, input):
        super().__init__(name, (input,), 1)
        if not callable(table) or not hasattr(table, "row"):
            raise ValueError(f"{self.label()}: table must be an mbd.control.Table, got "
                             f"{table!r}")
        self.table = table
        self.x0 = np.zeros(0)
        self.initial_output = np.array([table(0.0) if table.extrapolate != "error"
                                        else table(table.x[0])])

    def derivative(self, t, x, u):
        return x, np.array([self.table(u[0])])
