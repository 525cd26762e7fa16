"""Controllers: named elements with inputs (signals) and outputs (held values), SPEC §9.

- **discrete** (a digital controller): called exactly at t0 + k T, k = 0, 1, ... (the run
  ends an integration piece at every sample instant, as at a switch), its output held
  between samples (zero-order hold), with its own state: :class:`DiscretePID`,
  :class:`DiscreteStateSpace`, or a user ``f(t, x_k, u) -> (x_{k+1}, y)``
  (:class:`DiscreteController`);
- **continuous**: ``x' = f(t, x, u)``, ``y = g(t, x, u)``, its states x integrated with the
  mechanism's (they follow [q, v, W] in the run's state and are in the result), its output a
  function of the state at every instant, evaluated at every right-hand side: :class:`PID`
  (with a filtered derivative, limits and anti-windup), :class:`StateSpace`, a user ``f(t,
  x, u) -> (x', y)`` (:class:`ContinuousController`) and, with no state, :class:`Gain` (``y =
  K u + offset``: LQR's ``u = -K x``, a PD on a joint's angle and rate). The built-in kinds
  and a user's numba ``@njit`` f run compiled inside the right-hand side (the compiled loop
  steps the run; :mod:`mbd.compiled.controlkernels`); a plain Python f is evaluated from
  Python, and then the run steps with scipy's solver.

A controller's inputs are a sequence, each a :class:`~mbd.control.signals.Sensor`, an
:class:`~mbd.control.signals.Input` or a controller (or the name of one in the model), an
``Output`` of a controller of several outputs (``controller[k]``), or a number (a constant).
Its output is a signal: give the controller (its output 0) or ``controller[k]`` where a law
takes a value, e.g. ``Actuator(value=pid)``. An output that depends on another output with
no state between them is an algebraic loop: ``build()`` names the cycle (every controller
here is taken to pass its inputs straight through).

This module holds what every controller has (:class:`Controller`, :class:`Output`) and the
checks they share; the kinds are one module each (:mod:`mbd.control.pid`,
:mod:`mbd.control.statespace`, :mod:`mbd.control.gain`, :mod:`mbd.control.lookup`,
:mod:`mbd.control.user`), continuous ones on :class:`mbd.control.continuous.Continuous`.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ..model import values
from ..model.controls import ControlElement
from ..model.elements import Signal
from .signals import Input, Sensor, components, quantity, size

# the PID helpers' ``pid`` (a PID or a DiscretePID, whose modules import this one) is hinted
# Any: imports form no cycle, type-only imports too (DESIGN §9, tests/test_layout.py)
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import TypeAlias

    from numpy.typing import ArrayLike

    from ..system.system import System

    #: one input of a controller (see the module): a Sensor, an Input, a controller or one
    #: of its outputs, the name of one of them, or a number (a constant)
    InputLike: TypeAlias = "Sensor | Input | Controller | Output | str | float"


class Output(Signal):
    """Output k of a controller, as a signal (``controller[k]``)."""

    def __init__(self, controller: Controller, k: int) -> None:
        self.controller, self.k = controller, k

    @property
    def initial(self) -> float:
        return float(self.controller.initial_output[self.k])

    @property
    def key(self) -> str:
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

    def __init__(self, name: str, inputs: InputLike | Sequence[InputLike], outputs: int,
                 initial_output: ArrayLike | None = None) -> None:
        self.name = name
        if isinstance(inputs, (str, Signal, Sensor)) or not np.iterable(inputs):
            inputs = (inputs,)
        self.inputs = tuple(inputs)
        self.outputs = int(outputs)
        out = np.zeros(self.outputs) if initial_output is None else initial_output
        self.initial_output = _matrix(out, f"{self.label()}: initial_output",
                                      (self.outputs,))

    @property
    def initial(self) -> float:
        return float(self.initial_output[0])

    @property
    def key(self) -> str:
        return f"{self.name}[0]"

    def __getitem__(self, k: int) -> Output:
        if not (isinstance(k, int) and 0 <= k < self.outputs):
            raise IndexError(f"{self.label()} has {self.outputs} output(s), got [{k!r}]")
        return Output(self, k)

    def initial_state(self) -> np.ndarray:
        """The state before the first sample (a float array)."""
        return np.zeros(0)

    def resolve(self, controls: Mapping[str, ControlElement]
                ) -> list[Sensor | Input | Output | float]:
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

    def check(self, system: System, controls: Mapping[str, ControlElement]) -> list[str]:
        try:
            resolved = self.resolve(controls)
        except ValueError as err:
            return [f"{self.label()}: {err}"]
        problems = []
        for item in resolved:
            owner = getattr(item, "controller", item)
            if isinstance(item, (Sensor, Input, Output)) and owner.name not in controls:
                problems.append(f"{self.label()}: its input {item!r} is not added to the model")
            if isinstance(item, Sensor):
                problems += _vector_input(self, system, item)
        return problems + loop_problems(self, controls)

    def describe(self) -> str:
        names = ", ".join(str(getattr(i, "name", i)) for i in self.inputs)
        timing = f"sampled every {self.period:g} s" if self.period else "continuous"
        values_ = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.settable
                            if k != "period" and isinstance(getattr(self, k, None), float))
        return (f"{self.label()}: {timing}, inputs ({names}), {self.outputs} output(s)"
                + (f", {values_}" if values_ else ""))

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r})"


def output_named(controllers: Mapping[str, ControlElement], name: str) -> Output | None:
    """The controller output that ``name`` names, as outputs are named everywhere (the held
    values' keys, a linear model's outputs, a live simulation's reads): ``"pid"`` (its
    output 0) or ``"pid[k]"`` (output k, from 0); an :class:`Output` of a controller of
    ``controllers`` {name: controller}, or None when ``name`` names none of their outputs.

    Raises
    ------
    KeyError
        For ``"pid[k]"`` of a controller with no output k (naming how many it has).
    """
    head, k = name, 0
    if name.endswith("]") and "[" in name:
        head, index = name[:-1].split("[", 1)
        if not index.isdigit():
            return None
        k = int(index)
    c = controllers.get(head)
    if not isinstance(c, Controller):
        return None
    if k >= c.outputs:
        raise KeyError(f"'{name}': {c.label()} has {c.outputs} output(s), "
                       f"{_output_list(c)}")
    return c[k]


def _output_list(c):
    """How its outputs are named: "'pid'" or "'ss[0]', 'ss[1]'"."""
    return ", ".join(repr(c.name) if c.outputs == 1 else repr(f"{c.name}[{k}]")
                     for k in range(c.outputs))


def _vector_input(controller, system, sensor):
    """The problem of a sensor input measuring a vector (a controller's input is one
    number), naming its components; nothing for a scalar one (or a bad name, which the
    sensor's own check names)."""
    try:
        found = quantity(system, sensor.what)
    except ValueError:
        return []
    if size(found) == 1:
        return []
    names = components(sensor.what, found)
    return [f"{controller.label()}: its input {sensor!r} measures a vector of {len(names)} "
            f"numbers, and a controller's input is one number: give a Sensor of one of its "
            f"components ({', '.join(repr(c) for c in names)})"]


def loop_problems(controller: Controller,
                  controls: Mapping[str, ControlElement]) -> list[str]:
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
