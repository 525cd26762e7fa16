"""The PID controller kind (SPEC §9): :class:`PID`, continuous (its states integrated with
the mechanism's), and :class:`DiscretePID`, sampled. One law, :func:`pid_output` (the clipped
output and conditional integration), and the continuous form's rates, :func:`rates`, each
written once: the compiled kernel (:func:`kernel`, registered as the kind ``"pid"``) calls
them, and so does the Python side, through their Python twins
(:func:`mbd.compiled.jit.native.python_twin`).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ..compiled.controlkernels import finish, gather
from ..compiled.jit.jitcache import njit
from ..compiled.jit.native import python_twin
from ..compiled.registry import ControllerKind, register_controller
from ..model import values
from .continuous import Continuous
from .controllers import Controller, _limits, _period

if TYPE_CHECKING:
    from ..model.elements import Signal
    from .signals import Input, Sensor

#: the parameter row of a continuous PID (``CONTROL.params``)
PARAMETERS = ("kp", "ki", "kd", "tf", "lo", "hi", "anti_windup")
KP, KI, KD, TF, LO, HI, ANTI_WINDUP = range(len(PARAMETERS))


@njit(inline="always")
def pid_output(kp, ki, lo, hi, anti_windup, e, integral, d):
    """The PID law: (the output clip(kp e + integral + d, lo, hi), whether the integral may
    grow) at the error e, with the derivative term d. The integral may not grow while the
    output is clipped and ki e would wind it further into the limit (conditional integration),
    where ``anti_windup`` is set. The one formula of the compiled kernel (:func:`rates`) and of
    the Python controllers (their :func:`mbd.compiled.jit.native.python_twin`)."""
    raw = kp * e + integral + d
    winding = (raw > hi and ki * e > 0.0) or (raw < lo and ki * e < 0.0)
    return min(max(raw, lo), hi), not (anti_windup and winding)


@njit(inline="always")
def rates(P, x, u, xdot, out):
    """The continuous PID with the parameter row P (:data:`PARAMETERS`), states x (the
    integral[, the derivative's filter]) and inputs u (setpoint, measured[, rate]): its output
    into out[0] and its states' rates into xdot (see :class:`PID`)."""
    kp, ki, kd, tf = P[KP], P[KI], P[KD], P[TF]
    e = u[0] - u[1]
    filtered = tf > 0.0
    rate_of_filter = 0.0
    if filtered:
        rate_of_filter = (e - x[1]) / tf
        d = kd * rate_of_filter
    else:
        d = -kd * u[2] if kd != 0.0 else 0.0
    out[0], integrating = pid_output(kp, ki, P[LO], P[HI], P[ANTI_WINDUP] != 0.0, e, x[0], d)
    xdot[0] = ki * e if integrating else 0.0
    if filtered:
        xdot[1] = rate_of_filter


@njit()
def kernel(v, data, i):
    """Controller i of the run's data as a PID (:mod:`mbd.compiled.controlkernels`)."""
    gather(v, data, i)
    C = data.control[i]
    rates(C.params, C.x, C.u, C.xdot, C.out)
    return finish(data, i)


KIND = register_controller("pid", PARAMETERS, kernel)


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
        _gains(self, setpoint, kp, ki, kd, tf, rate)
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

    def parameter_row(self) -> np.ndarray:
        """Its parameters in the order of :data:`PARAMETERS`."""
        lo, hi = self.limits
        return np.array([self.kp, self.ki, self.kd, self.tf, lo, hi, float(self.anti_windup)])

    def derivative(self, t: float, x: np.ndarray,
                   u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        xdot, y = np.zeros(self.n_states), np.zeros(1)
        python_twin(rates)(self.parameter_row(), np.asarray(x, dtype=float),
                           np.asarray(u, dtype=float), xdot, y)
        return xdot, y

    def compiled_form(self) -> tuple[ControllerKind, np.ndarray]:
        return KIND, self.parameter_row()


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
        _gains(self, setpoint, kp, ki, kd, tf, rate)
        self.period = _period(self, period)
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
        lo, hi = self.limits
        y, integrating = python_twin(pid_output)(self.kp, self.ki, lo, hi, self.anti_windup, e,
                                                 integral, d)
        if integrating:
            integral = integral + self.ki * T * e
        return np.array([integral, d, e, 1.0]), np.array([y])


def _gains(pid: PID | DiscretePID, setpoint: object, kp: float, ki: float, kd: float,
           tf: float, rate: Sensor | str | None) -> None:
    """What both PIDs check and keep: the setpoint, the gains kp, ki, kd (finite), the
    derivative's filter tf (s, >= 0) and the rate input (:func:`rate_input`); ValueError
    naming the controller, the rule and the value."""
    pid.setpoint = setpoint
    for gain, value in (("kp", kp), ("ki", ki), ("kd", kd)):
        setattr(pid, gain, values.real(value, f"{pid.label()}: {gain}", "finite",
                                       math.isfinite))
    pid.tf = values.real(tf, f"{pid.label()}: tf", ">= 0 and finite (s)",
                         lambda x: math.isfinite(x) and x >= 0.0)
    pid.inputs += rate_input(pid, rate)


def rate_input(pid: PID | DiscretePID, rate: Sensor | str | None) -> tuple:
    """The input a PID's derivative adds when it reads the measured quantity's rate:
    ``(rate,)`` (after (setpoint, measured); read by :func:`rate_derivative`), or () with
    ``rate`` None. ``pid`` (:class:`mbd.control.PID` or :class:`mbd.control.DiscretePID`)
    has its ``tf`` (s) checked: a filter tf > 0 makes its derivative from the error itself,
    and a rate given with it would be ignored, so that is refused (ValueError naming the
    controller, the rule and the value)."""
    if rate is None:
        return ()
    if pid.tf > 0.0:
        raise ValueError(f"{pid.label()}: rate= needs tf = 0 (the derivative is then "
                         f"-kd rate); with a derivative filter tf = {pid.tf!r} s it is made "
                         "from the error and rate would be ignored: give rate with tf = 0, "
                         "or tf > 0 without rate")
    return (rate,)


def rate_derivative(pid: PID | DiscretePID, u: np.ndarray) -> float:
    """The derivative term of a PID that reads the measured quantity's rate r = u[2] (inputs
    [setpoint, measured, rate], :func:`rate_input`), the setpoint taken constant::

        D = kd (setpoint' - r) = -kd r

    in the output's unit (kd in output unit per error unit and s, r in error unit per s);
    0 with kd = 0, whatever r."""
    return -pid.kd * u[2] if pid.kd != 0.0 else 0.0
