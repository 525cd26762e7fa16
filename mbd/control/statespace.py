"""The linear controller kind (SPEC §9): :class:`StateSpace`, continuous (x' = A x + B u, y =
C x + D u), and :class:`DiscreteStateSpace`, sampled (x_{k+1} = A x_k + B u_k, y_k = C x_k +
D u_k). One formula, :func:`linear`, for both and for both paths: the compiled kernel
(:func:`kernel`, registered as the kind ``"state_space"``) calls it, and the Python side calls
its Python twin (:func:`mbd.compiled.jit.native.python_twin`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..compiled.controlkernels import finish, gather
from ..compiled.jit.jitcache import njit
from ..compiled.jit.native import python_twin
from ..compiled.registry import ControllerKind, register_controller
from .continuous import Continuous
from .controllers import Controller, _matrix, _period, _state_space

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike

    from .controllers import InputLike

#: the parameter row: A (n, n), B (n, m), C (p, n), D (p, m), each by rows, one after the other
PARAMETERS = ("A", "B", "C", "D")


@njit(inline="always")
def linear(P, n, m, p, x, u, x_out, y_out):
    """x_out = A x + B u and y_out = C x + D u with the matrices in P (:data:`PARAMETERS`): a
    continuous controller's state rates and output, or a sampled one's next state and
    output."""
    b, c, d = n * n, n * n + n * m, n * n + n * m + p * n
    for k in range(n):
        s = 0.0
        for j in range(n):
            s += P[k * n + j] * x[j]
        for j in range(m):
            s += P[b + k * m + j] * u[j]
        x_out[k] = s
    for k in range(p):
        s = 0.0
        for j in range(n):
            s += P[c + k * n + j] * x[j]
        for j in range(m):
            s += P[d + k * m + j] * u[j]
        y_out[k] = s


@njit()
def kernel(v, data, i):
    """Controller i of the run's data as a continuous StateSpace
    (:mod:`mbd.compiled.controlkernels`)."""
    gather(v, data, i)
    R = data.control[i]
    linear(R.params, R.n_states, R.n_in, R.n_out, R.x, R.u, R.xdot, R.out)
    return finish(data, i)


KIND = register_controller("state_space", PARAMETERS, kernel)


def parameter_row(controller):
    """The row of a StateSpace's or DiscreteStateSpace's matrices (:data:`PARAMETERS`)."""
    return np.concatenate([controller.A.ravel(), controller.B.ravel(), controller.C.ravel(),
                           controller.D.ravel()])


def _linear(controller, x, u):
    """(A x + B u, C x + D u) of ``controller``'s matrices, by :func:`linear`'s twin."""
    (p, m), n = controller.D.shape, controller.A.shape[0]
    x_out, y = np.zeros(n), np.zeros(p)
    python_twin(linear)(parameter_row(controller), n, m, p, np.asarray(x, dtype=float),
                        np.asarray(u, dtype=float), x_out, y)
    return x_out, y


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
        return _linear(self, x, u)

    def compiled_form(self) -> tuple[ControllerKind, np.ndarray]:
        return KIND, parameter_row(self)


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

    def __init__(self, name: str, A: ArrayLike, B: ArrayLike, C: ArrayLike, D: ArrayLike,
                 inputs: Sequence[InputLike], period: float, x0: ArrayLike | None = None) -> None:
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

    def initial_state(self) -> np.ndarray:
        return self.x0.copy()

    def update(self, t: float, x: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return _linear(self, x, u)
