"""The constraints that prescribe joint coordinates: a :class:`MotionDriver` (one primitive's
q(t)) and a :class:`GearConstraint` (q_b = ratio * q_a + offset). The core enforces both as
rows on joint coordinates (``System.drivers``) and reports their reactions.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from . import values
from .elements import Element
from .errors import ModelError

if TYPE_CHECKING:
    from collections.abc import Callable

    from .elements import Joint


class MotionDriver(Element):
    """A prescribed motion of one revolute or prismatic primitive of a joint: q(t).

    The engine enforces it as a constraint (kinematic analysis: a mechanism with as many
    drivers as DOF runs kinematically) and reports the driving force or torque as the
    driver's reaction (``result.reaction(name)``).

    Parameters
    ----------
    name : str
    joint : Joint
    position : float or callable
        q(t), m or rad (a constant holds the coordinate still).
    velocity, acceleration : callable, optional
        dq/dt and d2q/dt2; without them they are taken from ``position`` by central
        differences (step 1e-4 s), which limits accuracy to about 1e-8 relative.
    primitive : int
        Index of the primitive in the joint (default 0).

    Examples
    --------
    >>> d = MotionDriver("spin", None, position=lambda t: 2.0 * t, velocity=lambda t: 2.0,
    ...                  acceleration=lambda t: 0.0)
    >>> d.motion(0.5)
    (1.0, 2.0, 0.0)
    """

    def __init__(self, name: str, joint: Joint, position: float | Callable[[float], float],
                 velocity: Callable[[float], float] | None = None,
                 acceleration: Callable[[float], float] | None = None,
                 primitive: int = 0) -> None:
        if not isinstance(name, str) or not name:
            raise ModelError(f"MotionDriver: name must be a non-empty string, got {name!r}")
        self.name = name
        self.joint = joint
        self.primitive = primitive   # an index of the joint's primitives: build() checks it
        label = self.label()
        if callable(position):
            _function_of_t(position, label, "position")
            self.position = position
        else:
            value = values.real(position, f"{label}: position", "finite", values.finite,
                                error=ModelError, expected="a real number or a function of t")
            self.position = lambda t: value
            velocity = velocity or (lambda t: 0.0)
            acceleration = acceleration or (lambda t: 0.0)
        for what, fn in (("velocity", velocity), ("acceleration", acceleration)):
            if fn is not None and not callable(fn):
                raise ModelError(f"{label}: {what} must be a function of t or None (then "
                                 f"taken from position by central differences), got {fn!r}")
            if fn is not None:
                _function_of_t(fn, label, what)
        self.velocity = velocity
        self.acceleration = acceleration

    def label(self) -> str:
        return f"MotionDriver '{self.name}'"

    def motion(self, t: float) -> tuple[float, float, float]:
        """(q, dq/dt, d2q/dt2) at time t (s).

        Each value the user's functions return must be a real, finite number
        (:func:`mbd.model.values.returned`: a TypeError or ValueError naming the driver, the
        function, the time and the value otherwise).
        """
        h = 1e-4
        f, who = self.position, self.label()
        q = values.returned(f(t), who, "position(t)", t)
        if not (self.velocity and self.acceleration):   # central differences
            before = values.returned(f(t - h), who, "position(t)", t - h)
            after = values.returned(f(t + h), who, "position(t)", t + h)
        v = (values.returned(self.velocity(t), who, "velocity(t)", t) if self.velocity else
             (after - before) / (2 * h))
        a = (values.returned(self.acceleration(t), who, "acceleration(t)", t)
             if self.acceleration else (after - 2 * q + before) / (h * h))
        return q, v, a


def _function_of_t(fn, label, name):
    """Refuse (ModelError naming the driver) a function ``name`` that cannot be called as
    ``name(t)``."""
    try:
        values.user_function(fn, f"{label}: {name}", (f"{name}(t)",))
    except ValueError as err:
        raise ModelError(str(err)) from None


class GearConstraint(Element):
    """An ideal gear between two joint primitives (Simscape's Gear Constraint, Adams'
    COUPLER)::

        q_b = ratio * q_a + offset,    v_b = ratio * v_a,    a_b = ratio * a_a

    with q_a, q_b the coordinates of primitive ``primitive_a`` of ``joint_a`` and
    ``primitive_b`` of ``joint_b`` (rad or m, measured from the reference configuration). It
    is a holonomic constraint like a loop closure: it takes one degree of freedom from
    ``system.dof``, its row joins the rank rule (a gear that repeats another constraint is
    reported as redundant), and assembly brings the joints' q0 and v0 onto it.

    The gear's reaction, ``result.reaction(name).value``, is the generalized force it applies
    on q_b (N m or N); it applies ``-ratio`` times that on q_a, so it does no work.

    Parameters
    ----------
    name : str
    joint_a, joint_b : Joint
        Joints of the same model (tree or loop-closing), each with a revolute or prismatic
        primitive at the given index; a revolute paired with a prismatic is a rack and pinion
        (ratio in m/rad or rad/m).
    ratio : float
        dq_b/dq_a, finite and nonzero; negative for an external pair turning the other way.
    primitive_a, primitive_b : int
        Indices of the primitives in their joints (default 0).
    offset : float
        q_b where q_a = 0 (rad or m, default 0; a URDF mimic's offset): the reference
        configuration is then off the constraint, and assembly brings q0 onto it.

    Examples
    --------
    >>> g = GearConstraint("mesh", None, None, ratio=-5.0)
    >>> g.ratio
    -5.0
    """

    def __init__(self, name: str, joint_a: Joint, joint_b: Joint, ratio: float,
                 primitive_a: int = 0, primitive_b: int = 0, offset: float = 0.0) -> None:
        if not isinstance(name, str) or not name:
            raise ModelError(f"GearConstraint: name must be a non-empty string, got {name!r}")
        self.name = name
        self.joint_a, self.joint_b = joint_a, joint_b
        self.primitive_a, self.primitive_b = primitive_a, primitive_b   # build() checks them
        self.ratio = values.real(ratio, f"{self.label()}: ratio", "finite and nonzero",
                                 lambda x: np.isfinite(x) and x != 0.0, error=ModelError)
        self.offset = values.real(offset, f"{self.label()}: offset", "finite (rad or m)",
                                  np.isfinite, error=ModelError)

    def label(self) -> str:
        return f"GearConstraint '{self.name}'"

    @property
    def sides(self) -> tuple[tuple[Joint, int], tuple[Joint, int]]:
        """((joint_a, primitive_a), (joint_b, primitive_b)): the two coordinates it ties."""
        return ((self.joint_a, self.primitive_a), (self.joint_b, self.primitive_b))

    @property
    def endpoints(self) -> tuple[Any, ...]:
        """The followers of its two joints: a gear between machines makes them one composite
        machine (SPEC §1), as a force element does."""
        return tuple(getattr(j, "follower", None) for j in (self.joint_a, self.joint_b))

    def motion(self, t: float) -> tuple[float, float, float]:
        """(offset, 0, 0): q_b - ratio q_a is held at the offset at every time t (s)."""
        return self.offset, 0.0, 0.0

    def parameters_text(self) -> str:
        return f"ratio={self.ratio!r}"

    def with_parameters(self, **changes: float) -> GearConstraint:
        """A new GearConstraint on the same primitives, with the same name, and ``ratio``
        changed (as ``mbd run --set mesh.ratio=4`` and sweeps do)."""
        unknown = sorted(set(changes) - {"ratio"})
        if unknown:
            raise TypeError(f"{self.label()} has no parameter {unknown[0]!r}; its parameter "
                            "is: ratio")
        return type(self)(self.name, self.joint_a, self.joint_b,
                          changes.get("ratio", self.ratio), self.primitive_a, self.primitive_b,
                          self.offset)
