"""Placements: where a 1-D law acts in the mechanism (DESIGN §4), and the 3-D body
spring-damper of SPEC §3.1.

Every placement obeys Newton's third law and is power-consistent: the loads it applies do
work F * xdot, so a conservative law conserves energy.

Laws are frozen values, and a placement is not changed after it is made either: ``with_law``
gives a new element of the same class, name and placement with another law (as ``mbd run
--set`` does), and ``BodySpringDamper.with_parameters`` a new one with other k, b, r0.
"""
import warnings

from mbd import ForceElement, Law, ModelError, values

from .laws import _BodySpringDamperLaw, _Linear


def _check_name(kind, name):
    if not isinstance(name, str) or not name:
        raise ModelError(f"{kind}: name must be a non-empty string, got {name!r}")
    return name


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

    def __init__(self, name, joint, law, primitive=0):
        self.name = _check_name("JointForce", name)
        self.joint = joint
        self.law = _check_law("JointForce", name, law)
        self.primitive = primitive

    def with_law(self, law):
        """A new JointForce on the same joint and primitive, with the same name, and ``law``."""
        return type(self)(self.name, self.joint, law, self.primitive)


class LineForce(ForceElement):
    """A law along the line between CS A and CS B: x = |p_B - p_A| (m), v its rate; the value
    is the force on B along u = (p_B - p_A)/|p_B - p_A|, and -u on A.

    Where |r| = 0 the direction is the relative velocity's; at rest there, a nonzero force has
    no direction and the run stops with a SimulationError naming the element (SPEC §3.1).
    """

    placement = "line"

    def __init__(self, name, cs_a, cs_b, law):
        self.name = _check_name(type(self).__name__, name)
        self.cs_a, self.cs_b = cs_a, cs_b
        self.law = _check_law(type(self).__name__, name, law)

    def with_law(self, law):
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

    def __init__(self, name, cs_a, cs_b, law, axis=None):
        self.name = _check_name("AxialForce", name)
        self.cs_a, self.cs_b, self.axis = cs_a, cs_b, axis   # build() checks the axis
        self.law = _check_law("AxialForce", name, law)

    def with_law(self, law):
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

    def __init__(self, name, cs_a, cs_b, law, axis=None):
        self.name = _check_name("RotationalForce", name)
        self.cs_a, self.cs_b, self.axis = cs_a, cs_b, axis   # build() checks the axis
        self.law = _check_law("RotationalForce", name, law)

    def with_law(self, law):
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

    def __init__(self, name, cs_a, cs_b, k, b, r0=0.0):
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

    def parameters_text(self):
        return f"k={self.k!r}, b={self.b!r}, r0={self.r0!r}"

    def with_parameters(self, **changes):
        """A new BodySpringDamper between the same CSs, with the same name, and some of k, b,
        r0 changed; validated (ModelError) and warned about (b < 0) as on construction."""
        unknown = sorted(set(changes) - {"k", "b", "r0"})
        if unknown:
            raise TypeError(f"{self.label()} has no parameter {unknown[0]!r}; "
                            "its parameters are: k, b, r0")
        values = {"k": self.k, "b": self.b, "r0": self.r0}
        values.update(changes)
        return type(self)(self.name, self.cs_a, self.cs_b, **values)

    def with_law(self, law):
        """A new BodySpringDamper from a linear law (Spring, Damper, SpringDamper or another
        element's law): k = c, b = d, r0 = x0."""
        if not isinstance(law, _Linear):
            raise ModelError(f"{self.label()}: law must be linear (c, d, x0) to make a "
                             f"BodySpringDamper, got {type(law).__name__}")
        return self.with_parameters(k=law.c, b=law.d, r0=law.x0)


def _parameter(label, name, value, rule, ok):
    """value as a float (a real number, :func:`mbd.values.real`), or ModelError naming the
    element, the parameter, the rule and the value."""
    return values.real(value, f"{label}: {name}", rule, ok, error=ModelError)