"""Placements: where a 1-D law acts in the mechanism (DESIGN §4), the 3-D body
spring-damper of SPEC §3.1 and the six-component bushing of SPEC §8.

Every placement obeys Newton's third law and is power-consistent: the loads it applies do
work F * xdot, so a conservative law conserves energy.

Laws are frozen values, and a placement is not changed after it is made either: ``with_law``
gives a new element of the same class, name and placement with another law (as ``mbd run
--set`` does), and ``BodySpringDamper.with_parameters`` a new one with other k, b, r0
(``Bushing.with_parameters`` likewise).
"""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from mbd.model import values
from mbd.model.errors import ModelError
from mbd.model.forceelements import ForceElement, Law

from .bushing import BUSHING_COMPONENTS, _BushingLaw, check_six
from .linear import _BodySpringDamperLaw, _Linear
from .stiction import _StictionLaw

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from mbd.model.builder import CS
    from mbd.model.elements import Joint


def _check_name(kind, name):
    if not isinstance(name, str) or not name:
        raise ModelError(f"{kind}: name must be a non-empty string, got {name!r}")
    return name


def _changed(element, names, changes):
    """{name: value} of ``element``'s parameters ``names`` with ``changes`` applied; a
    TypeError naming the element for a name it does not have."""
    unknown = sorted(set(changes) - set(names))
    if unknown:
        raise TypeError(f"{element.label()} has no parameter {unknown[0]!r}; its parameters "
                        f"are: {', '.join(names)}")
    return {**{n: getattr(element, n) for n in names}, **changes}


def _check_law(kind, name, law):
    if not isinstance(law, Law):
        raise ModelError(f"{kind} '{name}': law must be a force law (Spring, ElastoGap, Bistop, "
                         f"...), got {type(law).__name__}")
    return law


class JointForce(ForceElement):
    """A law on a revolute or prismatic primitive of a joint (Simscape's joint interfaces).

    x is the primitive's coordinate (follower relative to base, m or rad), v its rate; the
    law's value acts on the follower along/about the axis, its reaction on the base.

    Parameters
    ----------
    name : str
    joint : mbd.Joint
    law : mbd.Law
    primitive : int
        Index of the primitive in the joint (default 0).
    """

    placement = "joint"

    def __init__(self, name: str, joint: Joint, law: Law, primitive: int = 0) -> None:
        self.name = _check_name("JointForce", name)
        self.joint = joint
        self.law = _check_law("JointForce", name, law)
        self.primitive = primitive

    def with_law(self, law: Law) -> JointForce:
        """A new JointForce on the same joint and primitive, with the same name, and ``law``."""
        return type(self)(self.name, self.joint, law, self.primitive)


class JointStiction(JointForce):
    """Coulomb friction with exact stick-slip on a revolute or prismatic primitive (Simscape's
    Joint Stiction Actuator, SPEC §8)::

        slipping:  F = -f_kinetic sign(v) - d v                    on the follower, N or N m
        sticking:  v = 0, F = the force the lock needs,  |F| < f_static

    While it sticks the primitive is locked: a constraint row holds its rate at zero and its
    force (the constraint force) is the friction force. It breaks free exactly when that
    force's magnitude reaches ``f_static``, slipping the way the mechanism pushes it; while it
    slips, it sticks exactly where the rate crosses zero if the force needed to hold it there
    is below ``f_static``, and otherwise slips on the other way. Every stick and slip is an
    event in ``result.events``; no smoothing, no velocity threshold, no chatter.

    Parameters
    ----------
    name : str
    joint : mbd.Joint
    f_static : float
        Breakaway force (N) or torque (N m), > 0.
    f_kinetic : float
        Kinetic (Coulomb) friction, 0 <= f_kinetic <= f_static.
    d : float
        Viscous friction while slipping, N s/m or N m s/rad, >= 0 (default 0).
    primitive : int
        Index of the primitive in the joint (default 0).

    ``result.force(name).value`` is the friction force on the follower (the lock's force
    while stuck); ``.state`` holds ``stuck`` (bool), ``slip`` (-1, 0, +1: the slip direction)
    and ``mode`` ("stuck" or "slipping"). At a rest state the static analyses
    (:func:`mbd.equilibrium`, :func:`mbd.linearize`) see no Coulomb force: a frictionless
    equilibrium is one where friction holds too, with nothing to hold.

    A run starting at rest (rate exactly 0) starts stuck if the lock's force there is below
    ``f_static``. Runs need exact switching (the default); the element refuses
    ``exact_switching=False``.

    Examples
    --------
    >>> JointStiction("brake", None, f_static=5.0, f_kinetic=3.0).law(0.0, 1.0)
    -3.0
    """

    #: the units of the parameters ``with_parameters`` changes ({F}: N or N.m, {L}: m or
    #: rad, by the coordinate)
    units = {'f_static': '{F}', 'f_kinetic': '{F}', 'd': '{F}.s/{L}'}

    def __init__(self, name: str, joint: Joint, f_static: float, f_kinetic: float,
                 d: float = 0.0, primitive: int = 0) -> None:
        name = _check_name("JointStiction", name)
        label = f"JointStiction '{name}'"
        f_s = _parameter(label, "f_static", f_static, "> 0 and finite", values.positive)
        f_k = _parameter(label, "f_kinetic", f_kinetic, ">= 0 and finite", values.nonnegative)
        d = _parameter(label, "d", d, ">= 0 and finite", values.nonnegative)
        if f_k > f_s:
            raise ModelError(f"{label}: f_kinetic must be <= f_static, got f_kinetic = "
                             f"{f_k!r} > f_static = {f_s!r}")
        super().__init__(name, joint, _StictionLaw(f_static=f_s, f_kinetic=f_k, d=d),
                         primitive)
        self.f_static, self.f_kinetic, self.d = f_s, f_k, d

    def parameters_text(self) -> str:
        return f"f_static={self.f_static!r}, f_kinetic={self.f_kinetic!r}, d={self.d!r}"

    def with_parameters(self, **changes: float) -> JointStiction:
        """A new JointStiction on the same primitive, with the same name, and some of
        f_static, f_kinetic, d changed (validated as on construction)."""
        params = _changed(self, ("f_static", "f_kinetic", "d"), changes)
        return type(self)(self.name, self.joint, primitive=self.primitive, **params)

    def with_law(self, law: Law) -> JointStiction:
        """A new JointStiction from a stiction law (another JointStiction's)."""
        if not isinstance(law, _StictionLaw):
            raise ModelError(f"{self.label()}: law must be a stiction law, got "
                             f"{type(law).__name__}")
        return self.with_parameters(f_static=law.f_static, f_kinetic=law.f_kinetic, d=law.d)


class LineForce(ForceElement):
    """A law along the line between CS A and CS B: x = |p_B - p_A| (m), v its rate; the value
    is the force on B along u = (p_B - p_A)/|p_B - p_A|, and -u on A.

    Where |r| = 0 the direction is the relative velocity's; at rest there, a nonzero force has
    no direction and the run stops with a SimulationError naming the element (SPEC §3.1).
    """

    placement = "line"

    def __init__(self, name: str, cs_a: CS, cs_b: CS, law: Law) -> None:
        self.name = _check_name(type(self).__name__, name)
        self.cs_a, self.cs_b = cs_a, cs_b
        self.law = _check_law(type(self).__name__, name, law)

    def with_law(self, law: Law) -> LineForce:
        """A new element of this class between the same CSs, with the same name, and ``law``."""
        return type(self)(self.name, self.cs_a, self.cs_b, law)


class AxialForce(ForceElement):
    """A law on B's displacement relative to A along an axis fixed in A.

    x = (p_B - p_A) . a (m) and v = dx/dt; the force acts on B along a and on A along -a, on
    the line through B's origin. ``axis`` is in world coordinates of the reference
    configuration (default: CS A's x axis), so Adams' ``BISTOP(DX(I,J,J), VX(I,J,J), ...)``
    is ``AxialForce(name, J, I, Bistop(...))``.
    """

    placement = "axial"

    def __init__(self, name: str, cs_a: CS, cs_b: CS, law: Law,
                 axis: ArrayLike | None = None) -> None:
        self.name = _check_name("AxialForce", name)
        self.cs_a, self.cs_b, self.axis = cs_a, cs_b, axis   # build() checks the axis
        self.law = _check_law("AxialForce", name, law)

    def with_law(self, law: Law) -> AxialForce:
        """A new AxialForce between the same CSs about the same axis, with the same name, and
        ``law``."""
        return type(self)(self.name, self.cs_a, self.cs_b, law, self.axis)


class RotationalForce(ForceElement):
    """A law on B's rotation relative to A about an axis fixed in A.

    x is the twist angle (rad, in (-pi, pi]) about a of B's rotation relative to A since the
    reference configuration, v its rate; the torque acts on B and its reaction on A. ``axis``
    is in world coordinates of the reference configuration (default: CS A's z axis). For
    multi-turn rotation use a :class:`JointForce` on a revolute joint.
    """

    placement = "rotational"

    def __init__(self, name: str, cs_a: CS, cs_b: CS, law: Law,
                 axis: ArrayLike | None = None) -> None:
        self.name = _check_name("RotationalForce", name)
        self.cs_a, self.cs_b, self.axis = cs_a, cs_b, axis   # build() checks the axis
        self.law = _check_law("RotationalForce", name, law)

    def with_law(self, law: Law) -> RotationalForce:
        """A new RotationalForce between the same CSs about the same axis, with the same name,
        and ``law``."""
        return type(self)(self.name, self.cs_a, self.cs_b, law, self.axis)


class BodySpringDamper(LineForce):
    """Simscape's Body Spring & Damper (seed 002), between CS A and CS B::

        r = p_B - p_A, v = dr/dt, u = r/|r|
        F_B = -k (|r| - r0) u - b (v . u) u,   F_A = -F_B

    Parameters
    ----------
    name : str
    cs_a, cs_b : CS
    k : float
        Spring constant, N/m, >= 0.
    b : float
        Damping, N s/m; negative (energy pumping) is allowed with a warning.
    r0 : float
        Natural length, m, >= 0.

    ``result.force(name).value`` is the world force on B, (n, 3). Singular cases (|r| = 0)
    follow SPEC §3.1: the velocity direction replaces u; at rest with r0 != 0 the run stops
    with a SimulationError naming the element and the time.

    Its ``law`` is the LINEAR law along the line with c = k, d = b (either sign) and x0 = r0;
    ``with_parameters(k=..., b=..., r0=...)`` makes a changed copy.
    """

    vector_valued = True

    #: the units of the parameters ``with_parameters`` changes ({F}: N or N.m, {L}: m or
    #: rad, by the coordinate)
    units = {'k': 'N/m', 'b': 'N.s/m', 'r0': 'm'}

    def __init__(self, name: str, cs_a: CS, cs_b: CS, k: float, b: float,
                 r0: float = 0.0) -> None:
        name = _check_name("BodySpringDamper", name)
        label = f"BodySpringDamper '{name}'"
        # checked here, not by the law, so that every message names this element
        k = _parameter(label, "k", k, ">= 0 and finite", values.nonnegative)
        b = _parameter(label, "b", b, "finite", values.finite)
        r0 = _parameter(label, "r0", r0, ">= 0 and finite", values.nonnegative)
        if b < 0.0:
            warnings.warn(f"{label}: damping b = {b} < 0 pumps energy into the system",
                          stacklevel=2)
        super().__init__(name, cs_a, cs_b, _BodySpringDamperLaw(c=k, d=b, x0=r0))
        self.k, self.b, self.r0 = k, b, r0

    def parameters_text(self) -> str:
        return f"k={self.k!r}, b={self.b!r}, r0={self.r0!r}"

    def with_parameters(self, **changes: float) -> BodySpringDamper:
        """A new BodySpringDamper between the same CSs, with the same name, and some of k, b,
        r0 changed; validated (ModelError) and warned about (b < 0) as on construction."""
        return type(self)(self.name, self.cs_a, self.cs_b, **_changed(self, ("k", "b", "r0"),
                                                                       changes))

    def with_law(self, law: Law) -> BodySpringDamper:
        """A new BodySpringDamper from a linear law (Spring, Damper, SpringDamper or another
        element's law): k = c, b = d, r0 = x0."""
        if not isinstance(law, _Linear):
            raise ModelError(f"{self.label()}: law must be linear (c, d, x0) to make a "
                             f"BodySpringDamper, got {type(law).__name__}")
        return self.with_parameters(k=law.c, b=law.d, r0=law.x0)


class Bushing(ForceElement):
    """Adams' BUSHING (Simscape's Bushing Joint force laws, SPEC §8): a six-component linear
    spring-damper between CS A (Adams' J marker) and CS B (the I marker), resolved in A's
    axes, with a preload.

    With R_A, R_B the CSs' axes (world), r = p_B - p_A and all vectors in A's axes::

        d     = R_A^T r                           translational deflection, m
        ddot  = R_A^T (v_B - v_A - w_A x r)       its rate seen from A, m/s
        theta = log(R_A^T R_B)                    rotation vector of B relative to A, rad
        w     = R_A^T (w_B - w_A)                 angular velocity of B relative to A, rad/s

        F = -K_t d - C_t ddot + F_0               force on B, N (line through B's origin)
        T = -J_r^-1(theta) K_r theta - C_r w + T_0    torque on B, N m
        on A: -F through B's origin (so -T - r x F about A's origin), and -T

        E = 1/2 d^T K_t d + 1/2 theta^T K_r theta                stored energy, J
        J_r^-1(theta) = I + [theta]/2 + (1/|theta|^2 - cot(|theta|/2) / (2 |theta|)) [theta]^2

    with K_t = diag(kx, ky, kz), K_r = diag(kax, kay, kaz), C_t, C_r likewise, [F_0; T_0] the
    preload. The rotation measure is the rotation vector theta = angle * axis, which equals
    Adams' small angles [AX, AY, AZ] to first order; J_r^-1, SO(3)'s inverse right Jacobian,
    maps the spring's gradient dE/dtheta to the torque conjugate to w (w = J_l(theta)
    thetadot, J_l^-T = J_r^-1), so the element is power-consistent::

        F . ddot + T . w = -dE/dt - ddot^T C_t ddot - w^T C_r w + F_0 . ddot + T_0 . w

    and without damping and preload a run conserves E plus the bodies' energy exactly. At
    small angles J_r^-1 = I + O(theta): T = -K_r theta - C_r w + T_0 as Adams states it, and
    the stiffness at zero deflection is diag(K_t, K_r). The measure needs |theta| < pi (a
    bushing's deflection is small; past a half turn theta jumps to the other side).

    The bushing is unloaded (but for its preload) where the CSs coincide with aligned axes,
    as in Adams; a drawing in which they do not starts deflected.

    Parameters
    ----------
    name : str
    cs_a, cs_b : CS
        A (the reference, Adams' J) and B (the follower, Adams' I).
    stiffness : sequence of 6 float
        [kx, ky, kz] N/m and [kax, kay, kaz] N m/rad, each >= 0.
    damping : sequence of 6 float
        [cx, cy, cz] N s/m and [cax, cay, caz] N m s/rad, each >= 0.
    preload : sequence of 6 float
        [fx, fy, fz] N and [tx, ty, tz] N m on B in A's axes (default zero).

    ``result.force(name).value`` is (n, 6): [F; T] on B in CS A's axes (N, N m);
    ``.deflection`` (n, 6) is [d; theta] (m, rad) and ``.rate`` (n, 6) [ddot; w] (m/s,
    rad/s); ``.vector`` (n, 3) is the world force on B; ``.energy`` is E; ``.x`` is E too and
    ``.xdot`` the power the bushing delivers to the mechanism (W). The energy balance books
    the preload's work with what the bushing supplies (negative ``dissipated``).

    ``with_parameters(stiffness=..., kz=..., cax=..., fx=...)`` makes a changed copy (whole
    vectors, or components by name, as ``mbd run --set mount.kz=2e5`` does).

    Examples
    --------
    >>> import mbd
    >>> from joints import SixDof
    >>> m = mbd.Model("mount")
    >>> g = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    >>> box = m.add_body("box", mass=2.0, cg=(0, 0, 0), inertia=[0.1, 0.2, 0.3])
    >>> _ = m.add(SixDof("free", g, box["cg"]))
    >>> mount = m.add(Bushing("mount", g, box["cg"], stiffness=[8e3] * 3 + [40.0] * 3,
    ...                       damping=[0.0] * 6))
    >>> s = m.build()
    >>> [round(md.frequency, 4) for md in mbd.linearize(s, s.initial_state()).modes()]
    [1.8378, 2.2508, 3.1831, 10.0658, 10.0658, 10.0658]
    """

    placement = "bushing"
    vector_valued = True
    #: names of the components ``with_parameters`` takes, per parameter vector
    COMPONENTS = BUSHING_COMPONENTS

    def __init__(self, name: str, cs_a: CS, cs_b: CS, stiffness: ArrayLike, damping: ArrayLike,
                 preload: ArrayLike = (0.0,) * 6) -> None:
        self.name = _check_name("Bushing", name)
        label = f"Bushing '{self.name}'"
        self.cs_a, self.cs_b = cs_a, cs_b
        # checked here, not by the law, so that every message names this element
        self.stiffness = check_six(label, "stiffness", stiffness, ">= 0 and finite",
                                   values.nonnegative, error=ModelError)
        self.damping = check_six(label, "damping", damping, ">= 0 and finite",
                                 values.nonnegative, error=ModelError)
        self.preload = check_six(label, "preload", preload, "finite", values.finite,
                                 error=ModelError)
        self.law = _BushingLaw(self.stiffness, self.damping, self.preload)

    def parameters_text(self) -> str:
        return (f"stiffness={list(self.stiffness)!r}, damping={list(self.damping)!r}, "
                f"preload={list(self.preload)!r}")

    def with_parameters(self, **changes: float | ArrayLike) -> Bushing:
        """A new Bushing between the same CSs, with the same name, and some parameters
        changed: whole vectors (``stiffness``, ``damping``, ``preload``) or single components
        (``kx`` ... ``kaz``, ``cx`` ... ``caz``, ``fx`` ... ``tz``); validated (ModelError) as
        on construction."""
        vectors = {key: list(getattr(self, key)) for key in self.COMPONENTS}
        where = {c: (key, k) for key, names in self.COMPONENTS.items()
                 for k, c in enumerate(names)}
        for key, value in changes.items():
            if key in vectors:
                vectors[key] = value
        for key, value in changes.items():
            if key in where:
                vector, k = where[key]
                vectors[vector] = list(vectors[vector])
                vectors[vector][k] = value
            elif key not in vectors:
                known = ", ".join(list(self.COMPONENTS) + list(where))
                raise TypeError(f"{self.label()} has no parameter {key!r}; its parameters "
                                f"are: {known}")
        return type(self)(self.name, self.cs_a, self.cs_b, **vectors)

    def with_law(self, law: Law) -> Bushing:
        """A new Bushing from another bushing's law."""
        if not isinstance(law, _BushingLaw):
            raise ModelError(f"{self.label()}: law must be a bushing's law, got "
                             f"{type(law).__name__}")
        return self.with_parameters(stiffness=law.stiffness, damping=law.damping,
                                    preload=law.preload)


def _parameter(label, name, value, rule, ok):
    """value as a float (a real number, :func:`mbd.model.values.real`), or ModelError naming the
    element, the parameter, the rule and the value."""
    return values.real(value, f"{label}: {name}", rule, ok, error=ModelError)