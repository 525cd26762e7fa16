"""Adams/MotionSolve BISTOP (seed 003) and its one-sided IMPACT, the law kind ``bistop``: a
gap between two elastic stops whose damping ramps in over a penetration d and which never
sticks."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from mbd.compiled.jit.jitcache import njit
from mbd.compiled.lawkernels import spow, step_ramp
from mbd.compiled.laws import CompiledLaw
from mbd.compiled.registry import register
from mbd.model.values import finite as _finite
from mbd.model.values import nonnegative as _nonneg
from mbd.model.values import positive as _positive

from .checks import check as _check

#: the parameter record: the stops x1 < x2 (m or rad), stiffness k, exponent e, full damping
#: cmax, and the penetration d at which it applies
PARAMETERS = ("x1", "x2", "k", "e", "cmax", "d")
X1, X2, K, E, CMAX, D = range(6)

#: the switches: the two contacts, and the ramp and clamp written for the lower stop (the
#: upper one mirrors them, :meth:`Bistop.mirrored`)
LABELS = (("lower stop contact begins", "lower stop contact ends"),
          ("upper stop contact begins", "upper stop contact ends"),
          ("damping at cmax", "damping ramp"),
          ("stop would pull: zero", "stop pushes"))


@njit()
def _raw(p, x, v, s):
    """The force before the clamp, in the contact branch the sides select."""
    x1, x2, cmax, d = p[X1], p[X2], p[CMAX], p[D]
    if s[0] < 0.0:
        damp = cmax if s[2] < 0.0 else step_ramp(x, x1 - d, cmax, x1, 0.0)
        return p[K] * spow(x1 - x, p[E]) - damp * v
    damp = cmax if s[2] > 0.0 else step_ramp(x, x2, 0.0, x2 + d, cmax)
    return -p[K] * spow(x - x2, p[E]) - damp * v


@njit()
def force(p, x, v, s):
    """The stop's force (N or N m) in contact, clamped so it never pulls (s[3]); else 0.
    Without damping the raw force is the spring's, which never pulls in contact (the clamp is
    unarmed there and its side may be stale)."""
    if s[0] < 0.0:
        return _raw(p, x, v, s) if s[3] > 0.0 or p[CMAX] == 0.0 else 0.0
    if s[1] < 0.0:
        return _raw(p, x, v, s) if s[3] < 0.0 or p[CMAX] == 0.0 else 0.0
    return 0.0


@njit()
def switching(p, x, v, s, g):
    """g[0] = x - x1, g[1] = x2 - x (the contacts, while < 0: x = x1 or x2 exactly is in the
    gap, as SPEC says); in contact, g[2] where the damping ramp ends (full cmax past it) and
    g[3] the raw force (the clamp)."""
    g[0] = x - p[X1]
    g[1] = p[X2] - x
    if s[0] < 0.0:
        g[2] = x - (p[X1] - p[D])
        g[3] = _raw(p, x, v, s)
    elif s[1] < 0.0:
        g[2] = x - (p[X2] + p[D])
        g[3] = _raw(p, x, v, s)


@njit()
def armed(p, s, k):
    """The contacts, and in contact the ramp and the clamp; without damping (cmax = 0) the
    ramp changes nothing and the clamp's function is the spring force, zero only where
    contact begins or ends; nothing without stiffness and damping (k = cmax = 0: no force)."""
    if p[K] == 0.0 and p[CMAX] == 0.0:
        return False
    if k <= 1:
        return True
    return k <= 3 and (s[0] < 0.0 or s[1] < 0.0) and p[CMAX] > 0.0


@njit()
def energy(p, x, s):
    """k pen^(e+1) / (e+1) of the penetration below x1 and above x2 (J)."""
    below = max(p[X1] - x, 0.0)
    above = max(x - p[X2], 0.0) if math.isfinite(p[X2]) else 0.0
    return p[K] * (below ** (p[E] + 1.0) + above ** (p[E] + 1.0)) / (p[E] + 1.0)


def _step(x, x0, h0, x1, h1):
    """Adams' STEP (for :meth:`Bistop.branch`): h0 up to x0, h1 from x1, the kernels' cubic
    (:func:`mbd.compiled.lawkernels.step_ramp`) between."""
    if x <= x0:
        return h0
    if x >= x1:
        return h1
    return step_ramp(x, x0, h0, x1, h1)


KIND = register("bistop", PARAMETERS, LABELS, force=force, switching=switching, armed=armed,
                energy=energy)


@dataclass(frozen=True)
class Bistop(CompiledLaw):
    """Adams/MotionSolve BISTOP (seed 003): a gap between two elastic stops.

    ::

        x < x1:        max( k (x1 - x)^e - STEP(x, x1 - d, cmax, x1, 0) xdot, 0 )
        x1 <= x <= x2: 0
        x > x2:        min( -k (x - x2)^e - STEP(x, x2, 0, x2 + d, cmax) xdot, 0 )

    Parameters: x1 < x2 (m or rad), k >= 0, e > 0, cmax >= 0, d > 0 (penetration at which
    full damping cmax applies).

    >>> b = Bistop(x1=0, x2=1, k=1000, e=1.5, cmax=10, d=0.1)
    >>> round(b(1.2, 1.0), 9), b(-0.05, 50.0)         # never sticks
    (-99.4427191, 0.0)
    >>> b.branch(1.2, 1.0), b.branch(-0.05, 50.0)     # its modes, from the formula
    ('upper stop contact, damping at cmax, pushes', 'lower stop contact, damping ramp, zero: would pull')
    >>> b.mode(b.sides(-0.05, 50.0))                  # ... and from its switching functions
    'lower stop contact, damping ramp, zero: would pull'
    """

    #: a picture colours it by its contact state
    drawn_state = "contact"

    x1: float
    x2: float
    k: float
    e: float
    cmax: float
    d: float

    #: the parameters' units ({F}: N or N.m, {L}: m or rad, by the coordinate)
    units = {'x1': '{L}', 'x2': '{L}', 'k': '{F}/{L}^e', 'cmax': '{F}.s/{L}', 'd': '{L}'}
    kind = KIND
    switch_names = LABELS
    name = "Bistop"

    def __post_init__(self):
        _check(self, "x1", "finite", _finite)
        x1, one_sided = self.x1, self.name == "Impact"
        _check(self, "x2", f"> x1 = {x1} and finite",
               lambda x: x > x1 and (math.isfinite(x) or one_sided))
        _check(self, "k", ">= 0 and finite", _nonneg)
        _check(self, "e", "> 0 and finite", _positive)
        _check(self, "cmax", ">= 0 and finite", _nonneg)
        _check(self, "d", "> 0 and finite", _positive)

    def mirrored(self, k: int, sides: np.ndarray) -> bool:
        # the ramp and clamp labels are written for the lower stop; the upper one mirrors them
        return k >= 2 and sides[1] < 0

    #: the modes: out of contact, and in contact at a stop its damping's part of the STEP
    #: (the ramp, or cmax past the penetration d) and the max/min (the stop pushes, or its
    #: force would pull and is zero)
    GAP, NO_FORCE = "gap", "no force"
    RAMP, FULL = "damping ramp", "damping at cmax"
    PUSHES, ZERO = "pushes", "zero: would pull"

    def _contact(self, stop, full, pushes):
        if self.cmax == 0.0:      # no damping: the spring alone, which never pulls
            return f"{stop} contact"
        return f"{stop} contact, {self.FULL if full else self.RAMP}, " \
               f"{self.PUSHES if pushes else self.ZERO}"

    @property
    def modes(self) -> tuple[str, ...]:
        if self.k == 0.0 and self.cmax == 0.0:
            return (self.NO_FORCE,)
        stops = ("lower stop",) + (("upper stop",) if math.isfinite(self.x2) else ())
        return (self.GAP,) + tuple(dict.fromkeys(
            self._contact(stop, full, pushes) for stop in stops for full in (False, True)
            for pushes in (True, False)))

    def branch(self, x: float, v: float = 0.0, t: float = 0.0) -> str:
        """From the formula (SPEC §3.2): contact below x1 and above x2 (strictly), the STEP's
        constant part past the penetration d, and the max / min's branch."""
        if self.k == 0.0 and self.cmax == 0.0:
            return self.NO_FORCE
        x1, x2, d = self.x1, self.x2, self.d
        if x < x1:
            raw = self.k * (x1 - x) ** self.e - _step(x, x1 - d, self.cmax, x1, 0.0) * v
            return self._contact("lower stop", x < x1 - d, raw >= 0.0)
        if x > x2:
            raw = -self.k * (x - x2) ** self.e - _step(x, x2, 0.0, x2 + d, self.cmax) * v
            return self._contact("upper stop", x > x2 + d, raw < 0.0)
        return self.GAP

    def mode(self, sides: np.ndarray) -> str:
        if self.k == 0.0 and self.cmax == 0.0:
            return self.NO_FORCE
        if sides[0] < 0:
            return self._contact("lower stop", sides[2] < 0, sides[3] > 0)
        if sides[1] < 0:
            return self._contact("upper stop", sides[2] > 0, sides[3] < 0)
        return self.GAP

    def states(self, x: np.ndarray, v: np.ndarray, t: np.ndarray, sides: np.ndarray,
               params: np.ndarray) -> dict[str, np.ndarray]:
        contact = np.where(sides[:, 0] < 0, -1, np.where(sides[:, 1] < 0, 1, 0))
        return {"contact": contact}

    def stops(self) -> tuple[float, ...]:
        """Its finite stop positions: (x1, x2), or (x1,) for an Impact (m or rad)."""
        return tuple(float(x) for x in (self.x1, getattr(self, "x2", np.inf))
                     if np.isfinite(x))


@dataclass(frozen=True)
class Impact(Bistop):
    """Adams IMPACT: the one-sided BISTOP, a stop below x1 only (``x2`` is +inf, not a
    parameter).

    >>> round(Impact(x1=0, k=1000, e=1.5, cmax=10, d=0.1)(-0.05, -2.0), 9)
    21.180339887
    """

    x2: float = field(default=math.inf, init=False, repr=False)

    name = "Impact"
    reach_slot = X1          # no force, and out of contact, at x > x1
