"""Continuous controllers (SPEC §9): their states integrated with the mechanism's, their
outputs functions of the state at every instant; see :mod:`mbd.control.controllers`."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from numba import types
from numba.core.dispatcher import Dispatcher

from ..compiled import controlkernels as ck
from ..model import values
from .controllers import (Controller, _limits, _matrix, _state_space, pid_output,
                          rate_derivative, rate_input)
from .signals import STATE_KINDS, Sensor, quantity
from .tables import Table2D

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from numpy.typing import ArrayLike

    from ..model.controls import ControlElement
    from ..system.system import System
    from .controllers import InputLike
    from .signals import Input
    from .tables import Table


class Continuous(Controller):
    """What a continuous controller has: ``derivative(t, x, u) -> (x', y)`` (s, its states,
    its inputs), its ``n_states`` and their start values ``x0``; and, when it can be evaluated
    inside the compiled right-hand side, its :meth:`compiled_form`."""

    continuous = True

    def initial_state(self) -> np.ndarray:
        return self.x0.copy()

    def compiled_form(self) -> tuple[Callable, np.ndarray] | None:
        """(its kind's kernel, its parameter row) for the compiled right-hand side
        (:mod:`mbd.compiled.controlkernels`), or None where it is evaluated from Python."""
        return None

    def describe(self) -> str:
        text = super().describe()
        if self.compiled_form() is None:
            return text.replace("continuous", "continuous, evaluated from Python", 1)
        return text

    def why_not_finite(self, u: np.ndarray) -> str | None:
        """Why its output is not finite at the inputs u, in words (a table's value asked
        outside its breakpoints), or None where it does not know."""
        return None

    def derivative(self, t: float, x: np.ndarray,
                   u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(x' (n_states,), y (outputs,)) at time t (s), state x and inputs u."""
        raise NotImplementedError(f"{type(self).__name__} defines no derivative(t, x, u) -> "
                                  "(x', y), which a continuous controller must")

    def check(self, system: System, controls: Mapping[str, ControlElement]) -> list[str]:
        problems = super().check(system, controls)
        if problems:
            return problems
        for item in self.resolve(controls):
            if not isinstance(item, Sensor):
                continue
            try:
                kind = quantity(system, item.what)[0]
            except ValueError:      # a name that measures nothing: the sensor's check says so
                continue
            if kind not in STATE_KINDS:
                problems.append(f"{self.label()}: its input {item!r} measures a force, an "
                                "acceleration, a reaction or the energy, which a continuous "
                                "controller cannot read at every instant (they may depend on "
                                "its own output); sample it with a discrete controller")
        return problems


class PID(Continuous):
    """A continuous PID on the error e = setpoint - measured::

        u = clip(kp e + I + D, lo, hi),   I' = ki e  (0 while clipped and winding further:
                                                     conditional integration)
        D = kd (e - z) / tf,  z' = (e - z) / tf      (a first-order filtered derivative,
                                                     kd s / (tf s + 1))

    With tf = 0 the derivative needs the measured quantity's rate as an input, ``rate``
    (e.g. a Sensor of ``"hinge.v"``): D = kd (setpoint' - rate), the setpoint taken constant
    (as :class:`DiscretePID` takes it; a rate given with tf > 0 is refused: the filter's
    derivative would ignore it).

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
        The measured quantity's rate (error unit per s), for kd with tf = 0 (only then).
    limits : (float, float)
        The output's range.
    anti_windup : bool
        Conditional integration while clipped (default True).
    """

    def __init__(self, name: str, measured: Sensor | Input | str | float,
                 setpoint: Sensor | Input | str | float = 0.0, kp: float = 0.0,
                 ki: float = 0.0, kd: float = 0.0, tf: float = 0.0,
                 rate: Sensor | str | None = None,
                 limits: tuple[float, float] = (-np.inf, np.inf),
                 anti_windup: bool = True) -> None:
        super().__init__(name, (setpoint, measured), 1)
        self.setpoint = setpoint
        for gain, value in (("kp", kp), ("ki", ki), ("kd", kd)):
            setattr(self, gain, values.real(value, f"{self.label()}: {gain}", "finite",
                                            math.isfinite))
        self.tf = values.real(tf, f"{self.label()}: tf", ">= 0 and finite (s)",
                              lambda x: math.isfinite(x) and x >= 0.0)
        self.inputs += rate_input(self, rate)
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

    def derivative(self, t: float, x: np.ndarray,
                   u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        e = u[0] - u[1]
        if self.filtered:
            rate_of_filter = (e - x[1]) / self.tf
            d = self.kd * rate_of_filter
        else:
            d = rate_derivative(self, u)
        y, integrating = pid_output(self, e, x[0], d)
        xdot = np.empty(self.n_states)
        xdot[0] = self.ki * e if integrating else 0.0
        if self.filtered:
            xdot[1] = rate_of_filter
        return xdot, np.array([y])

    def compiled_form(self) -> tuple[Callable, np.ndarray]:
        lo, hi = self.limits
        return ck.KERNELS["pid"], np.array([self.kp, self.ki, self.kd, self.tf, lo, hi,
                                            float(self.anti_windup)])


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

    def __init__(self, name: str, A: ArrayLike, B: ArrayLike, C: ArrayLike, D: ArrayLike,
                 inputs: Sequence[InputLike], x0: ArrayLike | None = None) -> None:
        self.A, self.B, self.C, self.D = _state_space(name, A, B, C, D)
        super().__init__(name, inputs, self.D.shape[0])
        if len(self.inputs) != self.D.shape[1]:
            raise ValueError(f"{self.label()}: B and D take {self.D.shape[1]} inputs, got "
                             f"{len(self.inputs)}")
        self.feedthrough = bool(np.any(self.D != 0.0))
        n = self.n_states = self.A.shape[0]
        self.x0 = np.zeros(n) if x0 is None else _matrix(x0, f"{self.label()}: x0", (n,))

    def derivative(self, t: float, x: np.ndarray,
                   u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.A @ x + self.B @ u, self.C @ x + self.D @ u

    def compiled_form(self) -> tuple[Callable, np.ndarray]:
        return ck.KERNELS["state_space"], np.concatenate(
            [self.A.ravel(), self.B.ravel(), self.C.ravel(), self.D.ravel()])


class ContinuousController(Continuous):
    """A user's continuous controller: ``function(t, x, u) -> (x', y)`` with float arrays x
    (its n states, integrated with the mechanism's) and u (its inputs); evaluated at every
    right-hand side where it has states or its output drives the mechanism (one with neither
    is first called when ``result.controller(name)`` reads it: an error it raises then is a
    SimulationError naming it and the time). What it returns must be finite and of the
    declared sizes. A numba ``@njit`` function (returning two 1-D float arrays; checked at
    ``build()``) runs compiled inside the right-hand side; a plain Python function is called from Python (~20x slower
    per evaluation, and the run steps with scipy's solver).

    Parameters
    ----------
    name : str
    function : callable
    inputs : sequence
    x0 : array_like
        The start state (its size is the number of states; default none).
    outputs : int
    """

    def __init__(self, name: str,
                 function: Callable[[float, np.ndarray, np.ndarray], tuple[ArrayLike, ArrayLike]],
                 inputs: Sequence[InputLike], x0: ArrayLike = (), outputs: int = 1) -> None:
        super().__init__(name, inputs, outputs)
        if not callable(function):
            raise ValueError(f"{self.label()}: function must be callable f(t, x, u) -> "
                             f"(x_dot, y), got {function!r}")
        self.function = function
        x0 = np.atleast_1d(np.asarray(x0, dtype=float))
        self.x0 = _matrix(x0, f"{self.label()}: x0", x0.shape)
        self.n_states = self.x0.size
        self._kernel = None

    def derivative(self, t: float, x: np.ndarray,
                   u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        xdot, y = self.function(t, x.copy(), u.copy())
        return np.asarray(xdot, dtype=float), np.asarray(y, dtype=float)

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_kernel"] = None      # compiled for this process: made again where needed
        return state

    def compiled_form(self) -> tuple[Callable, np.ndarray] | None:
        """A numba function's kernel (made once; see :meth:`check` for its signature), or None
        for a Python function."""
        if not isinstance(self.function, Dispatcher):
            return None
        if self._kernel is None:
            self._kernel = ck.user_kernel(self.function, self.n_states, self.outputs)
        return self._kernel, np.zeros(0)

    def check(self, system: System, controls: Mapping[str, ControlElement]) -> list[str]:
        problems = super().check(system, controls)
        if isinstance(self.function, Dispatcher):
            problem = numba_signature_problem(self.function, len(self.inputs))
            if problem:
                problems.append(f"{self.label()}: {problem}")
        return problems


class Gain(Continuous):
    """A static (continuous) controller: ``y = K u + offset`` at every instant, e.g. LQR's
    state feedback ``u = -K x`` or a PD ``-kp (q - q_ref) - kd q'``. It has no state; it is
    evaluated at every right-hand side, compiled.

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

    def __init__(self, name: str, K: ArrayLike, inputs: Sequence[InputLike],
                 offset: ArrayLike = 0.0) -> None:
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

    def derivative(self, t: float, x: np.ndarray,
                   u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return x, self.K @ u + self.offset

    def compiled_form(self) -> tuple[Callable, np.ndarray]:
        return ck.KERNELS["gain"], np.concatenate([self.K.ravel(), self.offset])


class Lookup(Continuous):
    """A table of a signal (a static continuous controller): ``y = table(u)`` at every
    instant, u its one input (e.g. a Sensor: a gain scheduled on an angle, a measured
    characteristic); or, of a :class:`~mbd.control.Table2D`, ``y = table(u0, u1)`` of its two
    inputs (a gain scheduled on an angle and a speed).

    Its table's points can be overridden like a gain (``--set NAME.table.y1=2.5``, sweeps):
    a new table through :meth:`with_parameters`.

    Parameters
    ----------
    name : str
    table : mbd.control.Table or mbd.control.Table2D
    input : Sensor, Input, str or a controller; for a Table2D a pair of them (u0, u1)
    """

    #: its parameter holding a table, whose points an override may change
    tables = ("table",)

    def __init__(self, name: str, table: Table | Table2D,
                 input: InputLike | Sequence[InputLike]) -> None:
        two = isinstance(table, Table2D)
        pair = isinstance(input, (tuple, list))
        super().__init__(name, tuple(input) if two and pair else (input,), 1)
        if not two and (not callable(table) or not hasattr(table, "row")):
            raise ValueError(f"{self.label()}: table must be an mbd.control.Table or "
                             f"Table2D, got {table!r}")
        if two and not (pair and len(input) == 2):
            raise ValueError(f"{self.label()}: a Table2D looks up two inputs, give them as a "
                             f"pair (u0, u1), got {input!r}")
        if pair and not two:
            raise ValueError(f"{self.label()}: a Table looks up one input, got {len(input)}: "
                             f"{input!r} (a Table2D looks up two)")
        self.table, self.two = table, two
        self.x0 = np.zeros(0)
        # the output before the first evaluation: at zero inputs, or at the table's first
        # point where it has no value off its breakpoints
        start = ((0.0, 0.0) if two else (0.0,)) if table.extrapolate != "error" else (
            (table.x[0], table.y[0]) if two else (table.x[0],))
        self.initial_output = np.array([table(*start)])

    def derivative(self, t: float, x: np.ndarray,
                   u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return x, np.array([self.table(u[0], u[1]) if self.two else self.table(u[0])])

    def why_not_finite(self, u: np.ndarray) -> str | None:
        """Its table's own words where u lies outside its breakpoints with
        extrapolate='error' (naming the table, the value and its range), and the input."""
        try:
            self.derivative(0.0, self.x0, u)
        except ValueError as err:
            names = ", ".join(str(getattr(item, "name", item)) for item in self.inputs)
            inputs = "the values are its inputs" if self.two else "the value is its input"
            return f"{err}; {inputs} {names}"
        return None

    def compiled_form(self) -> tuple[Callable, np.ndarray]:
        return ck.KERNELS["lookup2d" if self.two else "lookup"], self.table.row()


def numba_signature_problem(function: Dispatcher, n_inputs: int) -> str:
    """What is wrong with a user's numba controller ``function(t, x, u) -> (x', y)`` (t a
    float, x and u float64 arrays, x' and y float64 arrays), or "" when it compiles for that
    and returns two 1-D arrays. ``n_inputs`` (for the message) is the length of u."""
    signature = (types.float64, types.float64[::1], types.float64[::1])
    wanted = (f"its numba function must be f(t: float, x: float64 array, u: float64 array of "
              f"{n_inputs}) -> (x_dot, y), two 1-D float arrays")
    try:
        function.compile(signature)
    except Exception as err:        # numba's typing errors: their first lines say why
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        return f"{wanted}; numba cannot compile it for that: {first}"
    returned = function.overloads[signature].signature.return_type
    if not (isinstance(returned, types.BaseTuple) and len(returned) == 2 and all(
            isinstance(r, types.Array) and r.ndim == 1 and isinstance(r.dtype, types.Float)
            for r in returned)):
        return f"{wanted}; it returns {returned}"
    return ""
