"""Simscape Driveline Variable Rotational Spring (seed 004) and its translational twin, the
law kind ``variable_spring``: a spring whose stiffness K (a constant, or a function of time
or state) is held at K_min or above."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from mbd.compiled.jit.jitcache import njit
from mbd.compiled.laws import CompiledLaw
from mbd.compiled.registry import register
from mbd.model import values
from mbd.model.values import finite as _finite
from mbd.model.values import positive as _positive

from .checks import Signal as _Signal
from .checks import check as _check
from .checks import signal as _signal

if TYPE_CHECKING:
    from collections.abc import Callable

    from mbd.model.state import State

#: the parameter record: the stiffness in use K and its minimum K_min (N m/rad or N/m), the
#: initial deformation theta_init (rad or m)
PARAMETERS = ("K", "K_min", "theta_init")
K, K_MIN, THETA_INIT = range(3)

#: the switch: K below K_min
LABELS = (("K below K_min: K_min in use", "K in use"),)


@njit()
def force(p, x, v, s):
    """-K (theta_init + x), with K_min in place of K while s[0] < 0 (N m or N)."""
    stiffness = p[K] if s[0] > 0.0 else p[K_MIN]
    return -stiffness * (p[THETA_INIT] + x)


@njit()
def switching(p, x, v, s, g):
    """g[0] = K - K_min: K in use while >= 0."""
    g[0] = p[K] - p[K_MIN]


@njit()
def armed(p, s, k):
    """The one switch."""
    return k == 0


@njit()
def energy(p, x, s):
    """K (theta_init + x)^2 / 2 with the larger of K and K_min (J)."""
    return 0.5 * max(p[K], p[K_MIN]) * (p[THETA_INIT] + x) ** 2


KIND = register("variable_spring", PARAMETERS, LABELS, force=force, switching=switching,
                armed=armed, energy=energy)


@dataclass(frozen=True)
class VariableRotationalSpring(CompiledLaw):
    """Simscape Driveline Variable Rotational Spring (seed 004)::

        theta = theta_init + x                  (x: follower relative to base)
        T = K theta if K >= K_min else K_min theta;   torque on the follower = -T

    Parameters
    ----------
    K : float or callable
        Stiffness (N m/rad): a constant, a function ``K(t)``, or ``K(t, state)`` with
        ``state`` an :class:`mbd.State` (t, q, v); callables take the slower Python path.
        Which of the two a function is (two or more parameters: ``K(t, state)``) is read
        once, when the law is made. What it returns must be a real, finite number
        (:func:`mbd.model.values.returned`).
    K_min : float
        Minimum stiffness, > 0.
    theta_init : float
        Initial deformation, rad.

    >>> VariableRotationalSpring(K=lambda t: 5.0 - t, K_min=2.0)(0.5, t=4.0)
    -1.0
    """

    K: _Signal
    K_min: float
    theta_init: float = 0.0
    #: how K is called: 0 a constant, 1 K(t), 2 K(t, state); set on construction
    _arity: int = field(default=0, init=False, repr=False, compare=False)

    #: the parameters' units ({F}: N or N.m, {L}: m or rad, by the coordinate)
    units = {'K': '{F}/{L}', 'K_min': '{F}/{L}', 'theta_init': '{L}'}
    kind = KIND
    switch_names = LABELS
    name = "VariableRotationalSpring"

    def __post_init__(self):
        if callable(self.K):
            object.__setattr__(self, "_arity", _signal(self, "K", ("K(t)", "K(t, state)")))
        else:
            _check(self, "K", "finite", _finite)
        _check(self, "K_min", "> 0 and finite", _positive)
        _check(self, "theta_init", "finite", _finite)

    @property
    def signal(self) -> Callable[..., float] | None:
        """The function giving K, or None for a constant K."""
        return self.K if callable(self.K) else None

    @property
    def time_varying(self) -> bool:
        return callable(self.K)

    def stiffness(self, t: float, state: State | None = None) -> float:
        """K at time t (s) and state, N m/rad (or N/m)."""
        arity = self._arity
        if arity == 0:
            return self.K
        if arity == 2:
            return values.returned(self.K(t, state), self.name, "K(t, state)", t)
        return values.returned(self.K(t), self.name, "K(t)", t)

    def parameters(self, t: float = 0.0, state: State | None = None) -> tuple[float, ...]:
        return (self.stiffness(t, state), self.K_min, self.theta_init)

    def parameter_rows(self, T: np.ndarray) -> np.ndarray | None:
        K = values.returned_rows(self.K, T) if self._arity == 1 else None
        if K is None:
            return None
        return np.column_stack([K, np.full(len(K), self.K_min),
                                np.full(len(K), self.theta_init)])

    def states(self, x: np.ndarray, v: np.ndarray, t: np.ndarray, sides: np.ndarray,
               params: np.ndarray) -> dict[str, np.ndarray]:
        K_used = np.where(sides[:, 0] > 0, params[:, 0], params[:, 1])
        return {"K": K_used, "K_min_active": sides[:, 0] < 0}

    #: the modes: K in use, or K_min in place of a K below it
    K_IN_USE, K_MIN_IN_USE = "K in use", "K_min in use"

    @property
    def modes(self) -> tuple[str, ...]:
        return (self.K_IN_USE, self.K_MIN_IN_USE)

    def branch(self, x: float, v: float = 0.0, t: float = 0.0,
               state: State | None = None) -> str:
        """From the formula (SPEC): K where K(t) >= K_min, else K_min."""
        return self.K_IN_USE if self.stiffness(t, state) >= self.K_min else self.K_MIN_IN_USE

    def mode(self, sides: np.ndarray) -> str:
        return self.K_IN_USE if sides[0] > 0 else self.K_MIN_IN_USE


@dataclass(frozen=True)
class VariableTranslationalSpring(VariableRotationalSpring):
    """The translational twin of :class:`VariableRotationalSpring`: K in N/m, x in m,
    F = K x (or K_min x below K_min), force on the follower -F."""

    name = "VariableTranslationalSpring"
