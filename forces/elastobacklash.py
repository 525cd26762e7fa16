"""Modelica Rotational ElastoBacklash and ElastoBacklash2 (seed 001), the law kinds
``elastobacklash`` and ``elastobacklash2``: backlash in series with a spring-damper, whose
contact torque never pulls; ElastoBacklash also limits its damping so the torque never jumps.

Both share the parameter record and the switching functions; their force and which clamps
are armed differ (``limited``: ElastoBacklash's min/max of the spring and damper torques).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mbd.compiled.jit.jitcache import njit
from mbd.compiled.laws import CompiledLaw
from mbd.compiled.registry import register
from mbd.model.values import finite as _finite
from mbd.model.values import nonnegative as _nonneg
from mbd.model.values import positive as _positive

from .checks import check as _check

#: the parameter record: stiffness c (N m/rad), damping d (N m s/rad), total backlash b (rad),
#: phi_rel0 (rad)
PARAMETERS = ("c", "d", "b", "phi_rel0")
C, D, B, PHI_REL0 = range(4)

#: the backlash below which it is a plain spring-damper (Modelica's bEps), rad
B_EPS = 1e-10

#: the switches: the upper and lower contacts, and the clamps written for the upper contact
#: (the lower one mirrors them, :meth:`ElastoBacklash.mirrored`); ElastoBacklash2 has the
#: first three
LABELS = (("upper contact begins", "upper contact ends"),
          ("lower contact begins", "lower contact ends"),
          ("contact torque would pull: zero", "contact torque pushes"),
          ("damping torque in use", "damping limited to the spring torque"))


@njit()
def _force(p, x, v, s, limited):
    """The torque on the follower (N m) in the branch the sides select; ``limited``:
    ElastoBacklash's damping limited to the spring torque (s[3])."""
    c, d, b = p[C], p[D], p[B]
    phid = x - p[PHI_REL0]
    dw = d * v
    if abs(b) <= B_EPS:
        return -(c * phid + dw)
    if d == 0.0 and (s[0] < 0.0 or s[1] < 0.0):     # the spring alone (clamps unarmed)
        return -c * (phid - (0.5 * b if s[0] < 0.0 else -0.5 * b))
    if s[0] < 0.0:
        tc = c * (phid - 0.5 * b)
        if s[2] < 0.0:
            return 0.0
        if limited and s[3] > 0.0:
            return -(tc + tc)
        return -(tc + dw)
    if s[1] < 0.0:
        tc = c * (phid + 0.5 * b)
        if s[2] > 0.0:
            return 0.0
        if limited and s[3] < 0.0:
            return -(tc + tc)
        return -(tc + dw)
    return 0.0


@njit()
def force(p, x, v, s):
    """ElastoBacklash's torque on the follower (N m)."""
    return _force(p, x, v, s, True)


@njit()
def force2(p, x, v, s):
    """ElastoBacklash2's torque on the follower (N m)."""
    return _force(p, x, v, s, False)


@njit()
def switching(p, x, v, s, g):
    """g[0], g[1]: the upper and lower contacts (while < 0); in contact (read from s), g[2] =
    tau_c + d w (the contact torque would pull, and is zero instead) and g[3] = d w - tau_c
    (ElastoBacklash's min/max picks the damper torque). Contact is the negative side of both,
    so a zero (phi_diff = +-b/2 exactly, counted as +1) is in the backlash, as SPEC's strict
    inequalities say."""
    c, d, b = p[C], p[D], p[B]
    if abs(b) <= B_EPS:
        return
    phid = x - p[PHI_REL0]
    g[0] = 0.5 * b - phid
    g[1] = phid + 0.5 * b
    tc = 0.0
    if s[0] < 0.0:
        tc = c * (phid - 0.5 * b)
    elif s[1] < 0.0:
        tc = c * (phid + 0.5 * b)
    g[2] = tc + d * v
    g[3] = d * v - tc


@njit()
def _armed(p, s, k, limited):
    if abs(p[B]) <= B_EPS:
        return False
    if k <= 1:
        return True
    # without damping the clamps' functions are the contact torque itself, zero only
    # where contact begins or ends: no branch change of their own
    in_contact = s[0] < 0.0 or s[1] < 0.0
    return in_contact and p[D] > 0.0 and (k == 2 or limited)


@njit()
def armed(p, s, k):
    """The contacts, and in contact with damping the clamps (no switch with b <= B_EPS)."""
    return _armed(p, s, k, True)


@njit()
def armed2(p, s, k):
    """As :func:`armed`, without the damping limit (k = 3)."""
    return _armed(p, s, k, False)


@njit()
def energy(p, x, s):
    """c over^2 / 2 with over the twist past the half backlash, |x - phi_rel0| - b/2 (the
    whole twist without backlash) (J)."""
    phid = x - p[PHI_REL0]
    if abs(p[B]) <= B_EPS:
        return 0.5 * p[C] * phid ** 2
    over = max(abs(phid) - 0.5 * p[B], 0.0)
    return 0.5 * p[C] * over ** 2


KIND = register("elastobacklash", PARAMETERS, LABELS, force=force, switching=switching,
                armed=armed, energy=energy)
KIND2 = register("elastobacklash2", PARAMETERS, LABELS[:3], force=force2, switching=switching,
                 armed=armed2, energy=energy)


@dataclass(frozen=True)
class ElastoBacklash(CompiledLaw):
    """Modelica Rotational ElastoBacklash (seed 001): backlash in series with a spring-damper,
    its damping limited so the contact torque never jumps or pulls.

    ::

        phi_diff = x - phi_rel0, bMax = b/2 = -bMin
        |b| <= 1e-10:      tau = c phi_diff + d w
        phi_diff > bMax:   tau_c = c (phi_diff - bMax); tau = 0 if tau_c + d w <= 0
                                                         else tau_c + min(tau_c, d w)
        phi_diff < bMin:   tau_c = c (phi_diff - bMin); tau = 0 if tau_c + d w >= 0
                                                         else tau_c + max(tau_c, d w)
        otherwise:         tau = 0;       torque on the follower = -tau

    Parameters: c > 0 (N m/rad), d >= 0 (N m s/rad), total backlash b >= 0 (rad), phi_rel0 (rad).

    >>> round(ElastoBacklash(c=20e3, d=50.0, b=0.5)(0.35, 0.0), 6)
    -2000.0
    """

    #: a picture colours it by its contact state
    drawn_state = "contact"

    c: float
    d: float
    b: float
    phi_rel0: float = 0.0

    #: the parameters' units ({F}: N or N.m, {L}: m or rad, by the coordinate)
    units = {'c': '{F}/{L}', 'd': '{F}.s/{L}', 'b': '{L}', 'phi_rel0': '{L}'}
    kind = KIND
    switch_names = LABELS
    name = "ElastoBacklash"

    def __post_init__(self):
        _check(self, "c", "> 0 and finite", _positive)
        _check(self, "d", ">= 0 and finite", _nonneg)
        _check(self, "b", ">= 0 and finite", _nonneg)
        _check(self, "phi_rel0", "finite", _finite)

    def mirrored(self, k: int, sides: np.ndarray) -> bool:
        # the clamps' labels are written for the upper contact; the lower one mirrors them
        return k >= 2 and sides[1] < 0

    def states(self, x: np.ndarray, v: np.ndarray, t: np.ndarray, sides: np.ndarray,
               params: np.ndarray) -> dict[str, np.ndarray]:
        if abs(self.b) <= B_EPS:     # no backlash: always engaged, on the twist's side
            return {"contact": np.where(np.asarray(x) - self.phi_rel0 < 0.0, -1, 1)}
        contact = np.where(sides[:, 0] < 0, 1, np.where(sides[:, 1] < 0, -1, 0))
        return {"contact": contact}

    #: the modes: in the backlash, and in contact whether the torque would pull (zero) and,
    #: ElastoBacklash's, whether min/max picks the damper torque or the spring torque
    BACKLASH, ENGAGED = "backlash", "spring-damper (no backlash)"
    ZERO, DAMPER, LIMITED = ("zero: would pull", "spring-damper",
                             "damping limited to the spring torque")
    limited = True

    def _contact(self, side, zero, limited):
        if self.d == 0.0:
            return f"{side} contact"
        if zero:
            return f"{side} contact, {self.ZERO}"
        return f"{side} contact, {self.LIMITED if limited and self.limited else self.DAMPER}"

    @property
    def modes(self) -> tuple[str, ...]:
        if abs(self.b) <= B_EPS:
            return (self.ENGAGED,)
        return (self.BACKLASH,) + tuple(dict.fromkeys(
            self._contact(side, zero, limited) for side in ("upper", "lower")
            for zero in (False, True) for limited in (False, True)))

    def branch(self, x: float, v: float = 0.0, t: float = 0.0) -> str:
        """From the formula (SPEC §3.2): contact past +-b/2 (strictly), then tau = 0 where the
        contact torque would pull, else (ElastoBacklash) the min / max's pick."""
        if abs(self.b) <= B_EPS:
            return self.ENGAGED
        phid, dw = x - self.phi_rel0, self.d * v
        if phid > 0.5 * self.b:
            tc = self.c * (phid - 0.5 * self.b)
            return self._contact("upper", tc + dw < 0.0, dw >= tc)
        if phid < -0.5 * self.b:
            tc = self.c * (phid + 0.5 * self.b)
            return self._contact("lower", tc + dw >= 0.0, dw < tc)
        return self.BACKLASH

    def mode(self, sides: np.ndarray) -> str:
        if abs(self.b) <= B_EPS:
            return self.ENGAGED
        if sides[0] < 0:
            return self._contact("upper", sides[2] < 0, len(sides) > 3 and sides[3] > 0)
        if sides[1] < 0:
            return self._contact("lower", sides[2] > 0, len(sides) > 3 and sides[3] < 0)
        return self.BACKLASH


@dataclass(frozen=True)
class ElastoBacklash2(ElastoBacklash):
    """Modelica Rotational ElastoBacklash2: like ElastoBacklash, but in contact the full
    spring-damper torque acts (it may jump at contact), clipped so it never pulls::

        phi_diff > bMax: tau = 0 if tau_c + d w <= 0 else tau_c + d w
        phi_diff < bMin: tau = 0 if tau_c + d w >= 0 else tau_c + d w

    >>> ElastoBacklash2(c=100.0, d=10.0, b=0.2)(0.3, 1.0)
    -30.0
    """

    kind = KIND2
    switch_names = LABELS[:3]
    name = "ElastoBacklash2"
    limited = False
