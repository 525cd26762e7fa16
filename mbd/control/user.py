"""A user's own controllers (SPEC §9): :class:`ContinuousController`, ``f(t, x, u) -> (x',
y)`` integrated with the mechanism (a numba ``@njit`` f runs compiled: :func:`user_kernel`
makes its kernel, a kind of its own), and :class:`DiscreteController`, ``f(t, x_k, u) ->
(x_{k+1}, y_k)`` called at every sample.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numba import types
from numba.core.dispatcher import Dispatcher

from ..compiled.controlkernels import WRONG_OUTPUTS, WRONG_RATES, finish, gather
from ..compiled.jit.jitcache import njit
from ..compiled.registry import ControllerKind
from .continuous import Continuous
from .controllers import Controller, _matrix, _period

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from numpy.typing import ArrayLike

    from ..model.controls import ControlElement
    from ..system.system import System
    from .controllers import InputLike


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

    def compiled_form(self) -> tuple[ControllerKind, np.ndarray] | None:
        """A numba function's kernel (made once; see :meth:`check` for its signature), or None
        for a Python function."""
        if not isinstance(self.function, Dispatcher):
            return None
        if self._kernel is None:
            self._kernel = ControllerKind(f"user function of {self.label()}", (),
                                          user_kernel(self.function, self.n_states,
                                                      self.outputs))
        return self._kernel, np.zeros(0)

    def check(self, system: System, controls: Mapping[str, ControlElement]) -> list[str]:
        problems = super().check(system, controls)
        if isinstance(self.function, Dispatcher):
            problem = numba_signature_problem(self.function, len(self.inputs))
            if problem:
                problems.append(f"{self.label()}: {problem}")
        return problems


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

    def __init__(self, name: str,
                 function: Callable[[float, np.ndarray, np.ndarray], tuple[ArrayLike, ArrayLike]],
                 inputs: Sequence[InputLike], period: float, x0: ArrayLike = (),
                 outputs: int = 1) -> None:
        super().__init__(name, inputs, outputs)
        if not callable(function):
            raise ValueError(f"{self.label()}: function must be callable f(t, x, u) -> "
                             f"(x_next, y), got {function!r}")
        self.function = function
        self.period = _period(self, period)
        self.settable = ("period",)
        x0 = np.atleast_1d(np.asarray(x0, dtype=float))
        self.x0 = _matrix(x0, f"{self.label()}: x0", x0.shape)

    def initial_state(self) -> np.ndarray:
        return self.x0.copy()

    def update(self, t: float, x: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x_next, y = self.function(t, x.copy(), u.copy())
        return np.asarray(x_next, dtype=float), np.asarray(y, dtype=float)


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


def user_kernel(function, n_states, n_out):
    """The kernel of a user's numba ``function(t, x, u) -> (x', y)`` with ``n_states`` states
    and ``n_out`` outputs (compiled for this function, not cached on disk: it closes over
    it); its kind is the controller's own, not registered."""
    @njit(cache=False)
    def user(v, data, i):
        gather(v, data, i)
        C = data.control[i]
        x = np.empty(n_states)
        for k in range(n_states):
            x[k] = C.x[k]
        u = np.empty(C.n_in)
        for j in range(C.n_in):
            u[j] = C.u[j]
        rates, out = function(C.t, x, u)
        if len(rates) != n_states:
            return WRONG_RATES
        if len(out) != n_out:
            return WRONG_OUTPUTS
        for k in range(n_states):
            C.xdot[k] = rates[k]
        for k in range(n_out):
            C.out[k] = out[k]
        return finish(data, i)
    return user
