"""The linear laws: Spring, Damper, SpringDamper and the body spring-damper's law (SPEC §3).

One law kind, ``linear``: the force on the follower -c (x - x0) - d v, with the parameter
record (c, d, x0).
"""
from dataclasses import dataclass

from mbd.compiled.jit.jitcache import njit
from mbd.compiled.laws import CompiledLaw
from mbd.compiled.registry import register
from mbd.model.values import finite as _finite
from mbd.model.values import nonnegative as _nonneg

from .checks import check as _check

#: the parameter record: stiffness c (N/m or N m/rad), damping d (N s/m or N m s/rad),
#: unstretched coordinate x0 (m or rad)
PARAMETERS = ("c", "d", "x0")
C, D, X0 = range(3)


@njit()
def force(p, x, v, s):
    """-c (x - x0) - d v (N or N m)."""
    return -p[C] * (x - p[X0]) - p[D] * v


@njit()
def odd_at_zero(p):
    """f(0, v) = -d v is odd in v when there is no spring force at x = 0."""
    return p[C] * p[X0] == 0.0


@njit()
def energy(p, x, s):
    """The spring's c (x - x0)^2 / 2 (J)."""
    return 0.5 * p[C] * (x - p[X0]) ** 2


KIND = register("linear", PARAMETERS, force=force, odd_at_zero=odd_at_zero, energy=energy)


class _Linear(CompiledLaw):
    """The linear laws' common part: force on the follower -c (x - x0) - d v, the ``linear``
    kind with the parameter row (c, d, x0). A subclass that lacks one of the three parameters
    defines it as a class attribute 0.0 (not a field)."""

    #: the parameters' units ({F}: N or N.m, {L}: m or rad, by the coordinate)
    units = {'c': '{F}/{L}', 'd': '{F}.s/{L}', 'x0': '{L}'}
    kind = KIND


@dataclass(frozen=True)
class Spring(_Linear):
    """Linear spring: force on the follower -c (x - x0).

    Parameters
    ----------
    c : float
        Stiffness, N/m or N m/rad, >= 0.
    x0 : float
        Unstretched coordinate, m or rad.

    Examples
    --------
    >>> Spring(c=10.0, x0=1.0)(1.5)
    -5.0
    """

    c: float
    x0: float = 0.0

    name = "Spring"
    d = 0.0          # no damping (not a parameter)

    def __post_init__(self):
        _check(self, "c", ">= 0 and finite", _nonneg)
        _check(self, "x0", "finite", _finite)


@dataclass(frozen=True)
class Damper(_Linear):
    """Linear damper: force on the follower -d v (d >= 0, N s/m or N m s/rad).

    >>> Damper(d=2.0)(0.0, 3.0)
    -6.0
    """

    d: float

    name = "Damper"
    c = 0.0          # no spring (not parameters)
    x0 = 0.0

    def __post_init__(self):
        _check(self, "d", ">= 0 and finite", _nonneg)


@dataclass(frozen=True)
class SpringDamper(_Linear):
    """Spring and damper in parallel: -c (x - x0) - d v (Modelica SpringDamper, s_rel0 = x0).

    >>> SpringDamper(c=10.0, d=1.5, x0=1.0)(2.0, 1.0)
    -11.5
    """

    c: float
    d: float
    x0: float = 0.0

    name = "SpringDamper"

    def __post_init__(self):
        _check(self, "c", ">= 0 and finite", _nonneg)
        _check(self, "x0", "finite", _finite)
        _check(self, "d", ">= 0 and finite", _nonneg)


@dataclass(frozen=True)
class _BodySpringDamperLaw(_Linear):
    """The law of :class:`forces.BodySpringDamper` (SPEC §3.1) along its line: the LINEAR law
    -c (x - x0) - d v with c = k >= 0, x0 = r0 >= 0 and d = b finite of either sign (a negative
    b pumps energy; the element warns about it). The element validates k, b and r0 first, with
    messages naming it; this law checks the same rules again so that it too is a valid value
    whatever makes it."""

    c: float
    d: float
    x0: float = 0.0

    name = "BodySpringDamper law"

    def __post_init__(self):
        _check(self, "c", ">= 0 and finite", _nonneg)
        _check(self, "d", "finite", _finite)
        _check(self, "x0", ">= 0 and finite", _nonneg)
