"""Coulomb friction with exact stick-slip on a joint primitive: the law of
:class:`forces.JointStiction`, the law kind ``stiction`` (SPEC §8).

Its mode lives in the sides: s[0] the slip direction (the sign of the rate), s[1] -1 while it
sticks (its lock row carries the force, :mod:`mbd.compiled.loopkernels`), +1 while it slips. The
run decides where it sticks or breaks free (:mod:`mbd.run.steppers`).
"""
from dataclasses import dataclass

import numpy as np

from mbd.compiled.jit.jitcache import njit
from mbd.compiled.laws import CompiledLaw
from mbd.compiled.layout import LAW_SWITCHES
from mbd.compiled.registry import register
from mbd.model.values import nonnegative as _nonneg
from mbd.model.values import positive as _positive

from .checks import check as _check

#: the parameter record: static and kinetic friction forces f_static, f_kinetic (N or N m),
#: viscous damping d (N s/m or N m s/rad)
PARAMETERS = ("f_static", "f_kinetic", "d")
F_STATIC, F_KINETIC, D = range(3)

#: the switches: the slip direction, and sticking
LABELS = (("slips backwards", "slips forwards"), ("sticks", "breaks free"))


@njit()
def force(p, x, v, s):
    """Slipping: -f_kinetic sign(v) - d v; sticking, the lock's force holds it (the rate is
    zero, and so the viscous part)."""
    kinetic = 0.0 if s[1] < 0.0 else p[F_KINETIC] * s[0]
    return -kinetic - p[D] * v


@njit()
def switching(p, x, v, s, g):
    """g[0] = v: slipping, the rate reaches zero (stick or reverse); g[1] (sticking: |lambda|
    - f_s, with lambda the force the lock needs) is written by
    :func:`mbd.compiled.statekernels.elements_and_locks`; without it the lock holds."""
    g[0] = v
    g[1] = -1.0


@njit()
def armed(p, s, k):
    """The rate's zero while slipping, the lock's limit while sticking."""
    return (k == 0 and s[1] > 0.0) or (k == 1 and s[1] < 0.0)


@njit()
def natural_sides(p, x, v, s, g):
    """Whether it sticks is decided where the rate reaches zero, from the force the lock needs
    (mbd.run.steppers): the state keeps a sticking element stuck, sticks one at rest (v = 0
    exactly) and gives a slipping one the direction of its rate."""
    if s[1] > 0.0 and v != 0.0:
        s[0] = 1.0 if v > 0.0 else -1.0
    elif v == 0.0:
        s[1] = -1.0
    for k in range(2, LAW_SWITCHES):
        s[k] = 1.0


@njit()
def next_mode(p, x, v, s, k):
    """The rate reached zero (k = 0): the slip direction turns and it sticks, if its lock
    holds (the run settles that, :mod:`mbd.run.locks`); the lock's limit crossed (k = 1): it
    slips, the way the mechanism pushes it (set by the run, from the lock's force)."""
    if k == 0:
        s[0] = -s[0]
        s[1] = -1.0
    elif k == 1:
        s[1] = 1.0


KIND = register("stiction", PARAMETERS, LABELS, force=force, switching=switching, armed=armed,
                natural_sides=natural_sides, next_mode=next_mode, locks=True)


@dataclass(frozen=True)
class _StictionLaw(CompiledLaw):
    """The law of :class:`forces.JointStiction`: Coulomb friction with stick-slip (SPEC §8).

    ::

        slipping (rate v != 0):  force on the follower = -f_kinetic sign(v) - d v
        sticking:                the force that holds the rate at zero (a constraint force),
                                 while its magnitude stays below f_static

    The mode lives in the sides: s[0] is the slip direction, s[1] -1 while it sticks. The
    run decides where it sticks or breaks free (:mod:`mbd.run.steppers`); called alone the law
    gives the slipping force, and 0 at v = 0 (stuck, without the mechanism to hold).

    >>> law = _StictionLaw(f_static=5.0, f_kinetic=3.0, d=0.5)
    >>> law(0.0, 2.0), law(0.0, -2.0), law(0.0, 0.0)
    (-4.0, 4.0, 0.0)
    """

    #: a picture colours it by its stuck state
    drawn_state = "stuck"

    f_static: float
    f_kinetic: float
    d: float = 0.0

    kind = KIND
    switch_names = LABELS
    name = "JointStiction law"

    def __post_init__(self):
        _check(self, "f_static", "> 0 and finite", _positive)
        _check(self, "f_kinetic", ">= 0 and finite", _nonneg)
        _check(self, "d", ">= 0 and finite", _nonneg)
        if self.f_kinetic > self.f_static:
            raise ValueError(f"{self.name}: f_kinetic must be <= f_static, got f_kinetic = "
                             f"{self.f_kinetic!r} > f_static = {self.f_static!r}")

    def states(self, x, v, t, sides, params):
        stuck = sides[:, 1] < 0
        return {"stuck": stuck, "slip": np.where(stuck, 0, sides[:, 0]).astype(int),
                "mode": np.where(stuck, "stuck", "slipping")}
