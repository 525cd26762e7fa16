"""The gain controller kind (SPEC §9): :class:`Gain`, y = K u + offset at every instant, no
state. One formula, :func:`output`: the compiled kernel (:func:`kernel`, registered as the
kind ``"gain"``) calls it, the Python side its Python twin
(:func:`mbd.compiled.jit.native.python_twin`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..compiled.controlkernels import finish, gather
from ..compiled.jit.jitcache import njit
from ..compiled.jit.native import python_twin
from ..compiled.registry import ControllerKind, register_controller
from .continuous import Continuous
from .controllers import _matrix

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike

    from .controllers import InputLike

#: the parameter row: K (p, m) by rows, then the offset (p)
PARAMETERS = ("K", "offset")


@njit(inline="always")
def output(P, m, p, u, out):
    """out = K u + offset with K (p, m) by rows, then the offset, in P (:data:`PARAMETERS`)."""
    for k in range(p):
        s = 0.0
        for j in range(m):
            s += P[k * m + j] * u[j]
        out[k] = s + P[p * m + k]


@njit()
def kernel(v, data, i):
    """Controller i of the run's data as a Gain (:mod:`mbd.compiled.controlkernels`)."""
    gather(v, data, i)
    C = data.control[i]
    output(C.params, C.n_in, C.n_out, C.u, C.out)
    return finish(data, i)


KIND = register_controller("gain", PARAMETERS, kernel)


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

    def parameter_row(self) -> np.ndarray:
        """K by rows, then the offset (:data:`PARAMETERS`)."""
        return np.concatenate([self.K.ravel(), self.offset])

    def derivative(self, t: float, x: np.ndarray,
                   u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p, m = self.K.shape
        y = np.zeros(p)
        python_twin(output)(self.parameter_row(), m, p, np.asarray(u, dtype=float), y)
        return x, y

    def compiled_form(self) -> tuple[ControllerKind, np.ndarray]:
        return KIND, self.parameter_row()
