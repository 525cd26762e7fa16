"""Modelica Translational ElastoGap (seed 000), the law kind ``elastogap``: a spring-damper
that acts only in contact and never pulls."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mbd.compiled.jit.jitcache import njit
from mbd.compiled.lawkernels import spow
from mbd.compiled.laws import CompiledLaw
from mbd.compiled.registry import register
from mbd.model.values import finite as _finite
from mbd.model.values import nonnegative as _nonneg

from .checks import check as _check

if TYPE_CHECKING:
    import numpy as np

#: the parameter record: stiffness c (N/m^n), damping d (N s/m), unstretched length s_rel0
#: (m), exponent n
PARAMETERS = ("c", "d", "s_rel0", "n")
C, D, S_REL0, N = range(4)

#: the switches: contact, the damping clamped at the spring force, and at its negative
LABELS = (("contact begins", "contact ends"),
          ("damping clamped at the spring force", "damping below the spring force"),
          ("damping no longer clamped", "damping clamped: the gap never pulls"))


@njit()
def force(p, x, v, s):
    """-(f_c + f_d) in contact (s[0] < 0), f_d = d v clamped by the sides s[1], s[2]; else 0
    (N)."""
    if s[0] > 0.0 or p[C] == 0.0:     # without a spring the clamps leave nothing (0 N)
        return 0.0
    fc = -p[C] * spow(p[S_REL0] - x, p[N])
    fd = p[D] * v
    if p[D] > 0.0:                   # (without damping the clamps are unarmed: stale sides)
        if s[1] < 0.0:
            fd = fc
        elif s[2] > 0.0:
            fd = -fc
    return -(fc + fd)    # Modelica's f is the cut force: the follower feels -f


@njit()
def switching(p, x, v, s, g):
    """g[0] = x - s_rel0 (contact while < 0), g[1] = d v - f_c (damping clamped at f_c while
    < 0), g[2] = d v + f_c (clamped at -f_c, never pulling, while > 0)."""
    fc = -p[C] * spow(p[S_REL0] - x, p[N])
    g[0] = x - p[S_REL0]
    g[1] = p[D] * v - fc
    g[2] = p[D] * v + fc


@njit()
def armed(p, s, k):
    """Contact, and in contact the clamps; no clamp without damping (their functions are then
    the spring force itself, zero only where contact begins or ends); nothing without a
    spring (c = 0: the damping clamped between +-0 is no force on either side)."""
    if p[C] == 0.0:
        return False
    return k == 0 or (k <= 2 and s[0] < 0.0 and p[D] > 0.0)


@njit()
def energy(p, x, s):
    """c pen^(n+1) / (n+1) with the penetration pen = max(s_rel0 - x, 0) (J)."""
    pen = max(p[S_REL0] - x, 0.0)
    return p[C] * pen ** (p[N] + 1.0) / (p[N] + 1.0)


KIND = register("elastogap", PARAMETERS, LABELS, force=force, switching=switching, armed=armed,
                energy=energy)


@dataclass(frozen=True)
class ElastoGap(CompiledLaw):
    """Modelica Translational ElastoGap (seed 000): a spring-damper that acts only in contact
    and never pulls.

    ::

        contact = s_rel < s_rel0
        f_c = -c |s_rel - s_rel0|^n, f_d = clamp(d v_rel, f_c, -f_c)   in contact, else 0
        force on the follower = -(f_c + f_d)

    Parameters
    ----------
    c : float
        Stiffness, >= 0 (N/m^n).
    d : float
        Damping, >= 0 (N s/m).
    s_rel0 : float
        Unstretched length, m: contact while x < s_rel0.
    n : float
        Exponent of the spring force, >= 1.

    Examples
    --------
    >>> gap = ElastoGap(c=10.0, d=1.5, s_rel0=1.5)
    >>> gap(2.0, -1.0), gap(1.0, -1.0)        # no contact; contact, pushed apart
    (0.0, 6.5)
    """

    #: a picture colours it by its contact state
    drawn_state = "contact"

    c: float
    d: float
    s_rel0: float = 0.0
    n: float = 1.0

    #: the parameters' units ({F}: N or N.m, {L}: m or rad, by the coordinate)
    units = {'c': '{F}/{L}^n', 'd': '{F}.s/{L}', 's_rel0': '{L}'}
    kind = KIND
    switch_names = LABELS
    name = "ElastoGap"
    reach_slot = S_REL0      # no force, and out of contact, at x > s_rel0

    def __post_init__(self):
        _check(self, "c", ">= 0 and finite", _nonneg)
        _check(self, "d", ">= 0 and finite", _nonneg)
        _check(self, "s_rel0", "finite", _finite)
        _check(self, "n", ">= 1 and finite", lambda x: math.isfinite(x) and x >= 1.0)

    def states(self, x: np.ndarray, v: np.ndarray, t: np.ndarray, sides: np.ndarray,
               params: np.ndarray) -> dict[str, np.ndarray]:
        return {"contact": sides[:, 0] < 0}

    #: the modes: out of contact, and in contact the clamp of the damping force d v between
    #: f_c and -f_c (clamped at f_c, within, or at -f_c: the gap never pulls)
    FREE, NO_FORCE, CONTACT = "free", "no force", "contact"
    LOW, WITHIN, HIGH = ("contact, damping clamped at f_c", "contact, damping within",
                         "contact, damping clamped at -f_c: never pulls")

    @property
    def modes(self) -> tuple[str, ...]:
        if self.c == 0.0:
            return (self.NO_FORCE,)
        return (self.FREE, self.CONTACT) if self.d == 0.0 else (
            self.FREE, self.LOW, self.WITHIN, self.HIGH)

    def branch(self, x: float, v: float = 0.0, t: float = 0.0) -> str:
        """From the formula (SPEC §3.2): contact while x < s_rel0, then which of f_c, d v,
        -f_c the clamp picks."""
        if self.c == 0.0:
            return self.NO_FORCE
        if not x < self.s_rel0:
            return self.FREE
        if self.d == 0.0:
            return self.CONTACT
        fc, fd = -self.c * (self.s_rel0 - x) ** self.n, self.d * v
        return self.LOW if fd < fc else self.HIGH if fd >= -fc else self.WITHIN

    def mode(self, sides: np.ndarray) -> str:
        if self.c == 0.0:
            return self.NO_FORCE
        if not sides[0] < 0:
            return self.FREE
        if self.d == 0.0:
            return self.CONTACT
        return self.LOW if sides[1] < 0 else self.HIGH if sides[2] > 0 else self.WITHIN
