"""Digital controllers (SPEC §9): called exactly at t0 + k T, their outputs held between
samples (zero-order hold), each with its own state; see :mod:`mbd.control.controllers`."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ..model import values
from .controllers import (Controller, _limits, _matrix, _period, _state_space, pid_output,
                          rate_derivative, rate_input)

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from numpy.typing import ArrayLike

    from ..model.elements import Signal
    from .controllers import InputLike
    from .signals import Input, Sensor


class DiscretePID(Controller):
    """A digital PID at sample period T: the error e_k = setpoint - measured at t0 + k T,

    ::

        d_k = (tf d_{k-1} + kd (e_k - e_{k-1})) / (tf + T)  (filtered derivative, e_{-1} = e_0)
        d_k = -kd r_k                         (with rate=: r_k the measured rate, tf = 0)
        u_k = clip(kp e_k + I_k + d_k, lo, hi)                    held until the next sample
        I_{k+1} = I_k + ki T e_k                                  (forward Euler)

    with anti-windup by conditional integration: while the output is clipped, I does not
    grow further into the limit. A digital PD on a measured rate (a tachometer, a joint's
    rate sensor) gives ``rate``: its derivative term is then the sampled rate's, as
    :class:`PID`'s with ``rate`` is (the setpoint taken constant), not a difference of two
    samples of the error.

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
        Time constant of the derivative's filter, s (>= 0; 0: a plain difference, or the
        rate with ``rate``).
    rate : Sensor or str, optional
        The measured quantity's rate (error unit per s, e.g. a Sensor of ``"hinge.v"``),
        sampled with the error: d_k = -kd r_k. Only with tf = 0 (a filter's derivative
        would ignore it: refused).
    limits : (float, float)
        The output's range (lo < hi; infinite: unlimited).
    anti_windup : bool
        Conditional integration while clipped (default True).

    Examples
    --------
    A PD at 2 ms on a hinge's angle and rate sensors (``"angle"``, ``"rate"`` in the
    model), u_k = 40 (0.5 - angle_k) - 3 rate_k (N m):

    >>> import mbd
    >>> pd = mbd.DiscretePID("pd", "angle", setpoint=0.5, kp=40.0, kd=3.0, period=0.002,
    ...                      rate="rate")
    >>> pd.update(0.0, pd.initial_state(), [0.5, 0.1, 2.0])[1]     # 40 * 0.4 - 3 * 2
    array([10.])
    """

    def __init__(self, name: str, measured: Sensor | Signal | str,
                 setpoint: float | Sensor | Input | str = 0.0, kp: float = 0.0, ki: float = 0.0,
                 kd: float = 0.0, period: float | None = None, tf: float = 0.0,
                 rate: Sensor | str | None = None,
                 limits: tuple[float, float] = (-np.inf, np.inf),
                 anti_windup: bool = True) -> None:
        super().__init__(name, (setpoint, measured), 1)
        self.setpoint = setpoint
        for gain, value in (("kp", kp), ("ki", ki), ("kd", kd)):
            setattr(self, gain, values.real(value, f"{self.label()}: {gain}", "finite",
                                            math.isfinite))
        self.period = _period(self, period)
        self.tf = values.real(tf, f"{self.label()}: tf", ">= 0 and finite (s)",
                              lambda x: math.isfinite(x) and x >= 0.0)
        self.inputs += rate_input(self, rate)
        self.measures_rate = rate is not None
        self.limits = _limits(self, limits)
        self.anti_windup = bool(anti_windup)

    settable = ("kp", "ki", "kd", "tf", "period", "setpoint")

    def initial_state(self) -> np.ndarray:
        # [integral I, filtered derivative d, last error, whether a sample was taken]
        return np.zeros(4)

    def update(self, t: float, x: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(x_{k+1}, y_k) of the sample at t (s) in state x with the inputs u = [setpoint,
        measured] (and the measured rate, with ``rate``)."""
        integral, d, e_prev, started = x
        T = self.period
        e = u[0] - u[1]
        if not started:
            e_prev = e                  # no derivative kick at the first sample
        if self.measures_rate:
            d = rate_derivative(self, u)
        else:
            d = (self.tf * d + self.kd * (e - e_prev)) / (self.tf + T)
        y, integrating = pid_output(self, e, integral, d)
        if integrating:
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
