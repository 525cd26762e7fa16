"""1-D force laws of SPEC §3: parameters, validation, switches, energy and state.

Each law maps a relative coordinate x (m or rad), its rate v and time t to the force (N) or
torque (N m) on the follower along +x. Modelica's laws report the cut force ``f`` of flange b,
so the follower feels ``-f``; BISTOP already returns the force on the I marker. The compiled
formulas are in :mod:`mbd.compiled.lawkernels`; calling a law evaluates them:

>>> from forces import Bistop
>>> round(Bistop(x1=0, x2=1, k=1000, e=1.5, cmax=10, d=0.1)(-0.05, -2.0), 9)
21.180339887

Every law is a frozen dataclass whose fields are its SPEC parameters, validated on
construction (``__post_init__``). A law never changes after that: an override is a new law,
``dataclasses.replace(law, c=20.0)``, validated as the constructor validates.

>>> import dataclasses
>>> from forces import ElastoGap
>>> gap = ElastoGap(c=10.0, d=1.5, s_rel0=1.5)
>>> dataclasses.replace(gap, c=20.0)
ElastoGap(c=20.0, d=1.5, s_rel0=1.5, n=1.0)
>>> dataclasses.replace(gap, n=0.5)
Traceback (most recent call last):
    ...
ValueError: ElastoGap: n must be >= 1 and finite, got 0.5
"""
import math
from dataclasses import dataclass, field
from typing import Callable, Union

import numpy as np

from mbd import Law
from mbd.compiled import lawkernels
from mbd.model import values
from mbd.model.values import finite as _finite, nonnegative as _nonneg, positive as _positive

_INF = math.inf

#: a parameter that is a number or a Python function (of t, or of t and the state)
_Signal = Union[float, Callable[..., float]]


def _check(law, name, rule, ok):
    """Validate field ``name`` of the (frozen) ``law`` and store it as a float: a real number
    (not a bool or a string, :func:`mbd.model.values.real`) meeting ``rule``, else ValueError
    naming the law, the parameter, the rule and the value."""
    object.__setattr__(law, name, values.real(getattr(law, name), f"{law.name}: {name}",
                                              rule, ok))


def _signal(law, name, forms):
    """How the function given for parameter ``name`` is called (1: ``f(t)``, 2:
    ``f(t, state)``), read once, on construction; ValueError naming the law when it cannot be
    called as one of ``forms``."""
    return values.user_function(getattr(law, name), f"{law.name}: {name}", forms)


class _Linear(Law):
    """The linear laws' common part: force on the follower -c (x - x0) - d v, compiled as
    ``lawkernels.LINEAR`` with the parameter row (c, d, x0). A subclass that lacks one of the
    three parameters defines it as a class attribute 0.0 (not a field)."""

    code = lawkernels.LINEAR

    def parameters(self, t=0.0, state=None):
        return (self.c, self.d, self.x0)

    def energy(self, x, params):
        return 0.5 * self.c * (np.asarray(x) - self.x0) ** 2


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


@dataclass(frozen=True)
class _StictionLaw(Law):
    """The law of :class:`forces.JointStiction`: Coulomb friction with stick-slip (SPEC §8).

    ::

        slipping (rate v != 0):  force on the follower = -f_kinetic sign(v) - d v
        sticking:                the force that holds the rate at zero (a constraint force),
                                 while its magnitude stays below f_static

    The mode lives in the sides: s[0] is the slip direction, s[1] -1 while it sticks. The
    run decides where it sticks or breaks free (:mod:`mbd.run.integrators`); called alone the law
    gives the slipping force, and 0 at v = 0 (stuck, without the mechanism to hold).

    >>> law = _StictionLaw(f_static=5.0, f_kinetic=3.0, d=0.5)
    >>> law(0.0, 2.0), law(0.0, -2.0), law(0.0, 0.0)
    (-4.0, 4.0, 0.0)
    """

    f_static: float
    f_kinetic: float
    d: float = 0.0

    code = lawkernels.STICTION
    switch_names = (("slips backwards", "slips forwards"), ("sticks", "breaks free"))
    name = "JointStiction law"

    def __post_init__(self):
        _check(self, "f_static", "> 0 and finite", _positive)
        _check(self, "f_kinetic", ">= 0 and finite", _nonneg)
        _check(self, "d", ">= 0 and finite", _nonneg)
        if self.f_kinetic > self.f_static:
            raise ValueError(f"{self.name}: f_kinetic must be <= f_static, got f_kinetic = "
                             f"{self.f_kinetic!r} > f_static = {self.f_static!r}")

    def parameters(self, t=0.0, state=None):
        return (self.f_static, self.f_kinetic, self.d)

    def states(self, x, v, t, sides, params):
        stuck = sides[:, 1] < 0
        return {"stuck": stuck, "slip": np.where(stuck, 0, sides[:, 0]).astype(int),
                "mode": np.where(stuck, "stuck", "slipping")}


#: a bushing's parameter vectors and the names of their components, in order: along, then
#: about, CS A's x, y, z
BUSHING_COMPONENTS = {"stiffness": ("kx", "ky", "kz", "kax", "kay", "kaz"),
                      "damping": ("cx", "cy", "cz", "cax", "cay", "caz"),
                      "preload": ("fx", "fy", "fz", "tx", "ty", "tz")}


def check_six(what, name, value, rule, ok, error=ValueError):
    """``value`` (bushing parameter ``name``) as a tuple of six floats that each meet
    ``rule``, else ``error`` naming ``what`` (the element), the parameter and its component,
    the rule and the value."""
    arr = values.real_array(value, f"{what}: {name}", shape=(6,), expected="6 real numbers",
                            error=error)
    for k, x in enumerate(arr.tolist()):
        if math.isnan(x) or not ok(x):
            raise error(f"{what}: {name} {BUSHING_COMPONENTS[name][k]} must be {rule}, got "
                        f"{x!r} (in {name}={value!r})")
    return tuple(float(x) for x in arr)


@dataclass(frozen=True)
class _BushingLaw(Law):
    """The law of :class:`forces.Bushing`: six uncoupled linear springs and dampers with a
    preload, on the deflections [d; theta] and rates [ddot; w] of B relative to A. It has no
    1-D formula (calling it gives nan) and no switches; :func:`mbd.compiled.forcekernels.bushing`
    evaluates it, with its parameter row (stiffness, damping, preload). The element validates
    first, with messages naming it; the law checks the same rules again."""

    stiffness: tuple
    damping: tuple
    preload: tuple = (0.0,) * 6

    code = lawkernels.BUSHING
    name = "Bushing law"

    def __post_init__(self):
        for name, rule, ok in (("stiffness", ">= 0 and finite", _nonneg),
                               ("damping", ">= 0 and finite", _nonneg),
                               ("preload", "finite", _finite)):
            object.__setattr__(self, name, check_six(self.name, name, getattr(self, name),
                                                     rule, ok))

    def parameters(self, t=0.0, state=None):
        return self.stiffness + self.damping + self.preload

    def energy(self, x, params):
        # the placement measures its stored energy as its x (mbd.compiled.forcekernels.bushing)
        return np.array(x, dtype=float)


@dataclass(frozen=True)
class Actuator(Law):
    """A prescribed force or torque on the follower along +x: a constant, or a function of
    time ``value(t)`` (s -> N or N m), evaluated at every right-hand side call; what it
    returns must be a real, finite number (:func:`mbd.model.values.returned`).

    >>> Actuator(2.5)(0.0)
    2.5
    """

    value: _Signal

    code = lawkernels.CONSTANT
    name = "Actuator"

    def __post_init__(self):
        if callable(self.value):
            _signal(self, "value", ("value(t)",))
        else:
            _check(self, "value", "finite", _finite)

    @property
    def signal(self):
        """The function of time giving the value, or None for a constant."""
        return self.value if callable(self.value) else None

    @property
    def time_varying(self):
        return callable(self.value)

    def parameters(self, t=0.0, state=None):
        if not callable(self.value):
            return (self.value,)
        return (values.returned(self.value(t), self.name, "value(t)", t),)


@dataclass(frozen=True)
class ElastoGap(Law):
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

    c: float
    d: float
    s_rel0: float = 0.0
    n: float = 1.0

    code = lawkernels.ELASTOGAP
    switch_names = (("contact begins", "contact ends"),
                    ("damping clamped at the spring force", "damping below the spring force"),
                    ("damping no longer clamped", "damping clamped: the gap never pulls"))
    name = "ElastoGap"

    def __post_init__(self):
        _check(self, "c", ">= 0 and finite", _nonneg)
        _check(self, "d", ">= 0 and finite", _nonneg)
        _check(self, "s_rel0", "finite", _finite)
        _check(self, "n", ">= 1 and finite", lambda x: math.isfinite(x) and x >= 1.0)

    def parameters(self, t=0.0, state=None):
        return (self.c, self.d, self.s_rel0, self.n)

    def energy(self, x, params):
        pen = np.maximum(self.s_rel0 - np.asarray(x, dtype=float), 0.0)
        return self.c * pen ** (self.n + 1.0) / (self.n + 1.0)

    def states(self, x, v, t, sides, params):
        return {"contact": sides[:, 0] < 0}


@dataclass(frozen=True)
class ElastoBacklash(Law):
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

    c: float
    d: float
    b: float
    phi_rel0: float = 0.0

    code = lawkernels.ELASTOBACKLASH
    switch_names = (("upper contact begins", "upper contact ends"),
                    ("lower contact begins", "lower contact ends"),
                    ("contact torque would pull: zero", "contact torque pushes"),
                    ("damping torque in use", "damping limited to the spring torque"))
    name = "ElastoBacklash"

    def __post_init__(self):
        _check(self, "c", "> 0 and finite", _positive)
        _check(self, "d", ">= 0 and finite", _nonneg)
        _check(self, "b", ">= 0 and finite", _nonneg)
        _check(self, "phi_rel0", "finite", _finite)

    def mirrored(self, k, sides):
        # the clamps' labels are written for the upper contact; the lower one mirrors them
        return k >= 2 and sides[1] < 0

    def parameters(self, t=0.0, state=None):
        return (self.c, self.d, self.b, self.phi_rel0)

    def energy(self, x, params):
        phid = np.asarray(x, dtype=float) - self.phi_rel0
        if abs(self.b) <= lawkernels.B_EPS:
            return 0.5 * self.c * phid ** 2
        over = np.maximum(np.abs(phid) - 0.5 * self.b, 0.0)
        return 0.5 * self.c * over ** 2

    def states(self, x, v, t, sides, params):
        if abs(self.b) <= lawkernels.B_EPS:
            return {"contact": np.ones(len(t), dtype=int)}
        contact = np.where(sides[:, 0] < 0, 1, np.where(sides[:, 1] < 0, -1, 0))
        return {"contact": contact}


@dataclass(frozen=True)
class ElastoBacklash2(ElastoBacklash):
    """Modelica Rotational ElastoBacklash2: like ElastoBacklash, but in contact the full
    spring-damper torque acts (it may jump at contact), clipped so it never pulls::

        phi_diff > bMax: tau = 0 if tau_c + d w <= 0 else tau_c + d w
        phi_diff < bMin: tau = 0 if tau_c + d w >= 0 else tau_c + d w

    >>> ElastoBacklash2(c=100.0, d=10.0, b=0.2)(0.3, 1.0)
    -30.0
    """

    code = lawkernels.ELASTOBACKLASH2
    switch_names = ElastoBacklash.switch_names[:3]
    name = "ElastoBacklash2"


@dataclass(frozen=True)
class Bistop(Law):
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
    """

    x1: float
    x2: float
    k: float
    e: float
    cmax: float
    d: float

    code = lawkernels.BISTOP
    switch_names = (("lower stop contact begins", "lower stop contact ends"),
                    ("upper stop contact begins", "upper stop contact ends"),
                    ("damping at cmax", "damping ramp"),
                    ("stop would pull: zero", "stop pushes"))
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

    def mirrored(self, k, sides):
        # the ramp and clamp labels are written for the lower stop; the upper one mirrors them
        return k >= 2 and sides[1] < 0

    def parameters(self, t=0.0, state=None):
        return (self.x1, self.x2, self.k, self.e, self.cmax, self.d)

    def energy(self, x, params):
        x = np.asarray(x, dtype=float)
        below = np.maximum(self.x1 - x, 0.0)
        above = np.maximum(x - self.x2, 0.0) if math.isfinite(self.x2) else 0.0 * x
        return self.k * (below ** (self.e + 1.0) + above ** (self.e + 1.0)) / (self.e + 1.0)

    def states(self, x, v, t, sides, params):
        contact = np.where(sides[:, 0] < 0, -1, np.where(sides[:, 1] < 0, 1, 0))
        return {"contact": contact}


@dataclass(frozen=True)
class Impact(Bistop):
    """Adams IMPACT: the one-sided BISTOP, a stop below x1 only (``x2`` is +inf, not a
    parameter).

    >>> round(Impact(x1=0, k=1000, e=1.5, cmax=10, d=0.1)(-0.05, -2.0), 9)
    21.180339887
    """

    x2: float = field(default=_INF, init=False, repr=False)

    name = "Impact"
    switch_names = Bistop.switch_names


@dataclass(frozen=True)
class VariableRotationalSpring(Law):
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

    code = lawkernels.VARIABLE_SPRING
    switch_names = (("K below K_min: K_min in use", "K in use"),)
    name = "VariableRotationalSpring"

    def __post_init__(self):
        if callable(self.K):
            object.__setattr__(self, "_arity", _signal(self, "K", ("K(t)", "K(t, state)")))
        else:
            _check(self, "K", "finite", _finite)
        _check(self, "K_min", "> 0 and finite", _positive)
        _check(self, "theta_init", "finite", _finite)

    @property
    def signal(self):
        """The function giving K, or None for a constant K."""
        return self.K if callable(self.K) else None

    @property
    def time_varying(self):
        return callable(self.K)

    def stiffness(self, t, state=None):
        """K at time t (s) and state, N m/rad (or N/m)."""
        arity = self._arity
        if arity == 0:
            return self.K
        if arity == 2:
            return values.returned(self.K(t, state), self.name, "K(t, state)", t)
        return values.returned(self.K(t), self.name, "K(t)", t)

    def parameters(self, t=0.0, state=None):
        return (self.stiffness(t, state), self.K_min, self.theta_init)

    def energy(self, x, params):
        K_used = np.maximum(params[:, 0], params[:, 1])
        return 0.5 * K_used * (self.theta_init + np.asarray(x, dtype=float)) ** 2

    def states(self, x, v, t, sides, params):
        K_used = np.where(sides[:, 0] > 0, params[:, 0], params[:, 1])
        return {"K": K_used, "K_min_active": sides[:, 0] < 0}


@dataclass(frozen=True)
class VariableTranslationalSpring(VariableRotationalSpring):
    """The translational twin of :class:`VariableRotationalSpring`: K in N/m, x in m,
    F = K x (or K_min x below K_min), force on the follower -F."""

    name = "VariableTranslationalSpring"
