"""The abstract interfaces the core consumes: joints (lists of primitives) and force elements.

Concrete joints live in the ``joints`` package and concrete force elements in ``forces``; the
core knows only these contracts (DESIGN §1).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from . import values
from .errors import ModelError

# a CS (mbd.model.builder, which imports this module) is hinted Any: imports point down the
# stages and form no cycle, type-only imports too (DESIGN §9, tests/test_layout.py)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from numpy.typing import ArrayLike
    from scipy.spatial.transform import Rotation

    from .state import State

    #: a joint's q0 or v0 (see :class:`Joint`): a number, a Rotation or quaternion, an
    #: angular velocity, one entry per primitive, or a flat array of all coordinates
    JointTarget = ArrayLike | Rotation | Sequence[ArrayLike | Rotation]

#: Primitive kinds: revolute (1 rotational dof), prismatic (1 translational), spherical (3).
PRIMITIVE_KINDS = ("R", "P", "S")
_KIND_NAMES = {"R": "revolute", "P": "prismatic", "S": "spherical"}


class Element:
    """Anything added to a model with :meth:`mbd.Model.add`: it has a unique ``name``."""

    name = None


class Signal:
    """A value that a controller or the user sets and the run holds between the instants it
    changes (an ``mbd.Input``, a controller's output; SPEC §9). A law parameter given one is
    written into the law's parameter row by the run where the value changes, so the compiled
    right-hand side stays free of Python; before the run it reads as ``float(signal)``, its
    initial value."""

    #: the value before the run sets one
    initial = 0.0

    def __float__(self):
        return float(self.initial)

    def label(self) -> str:
        return f"signal {self!r}"


class Primitive:
    """One joint primitive: ``kind`` in {"R", "P", "S"} and, for R and P, an ``axis``.

    The axis is given in world coordinates of the reference configuration; it moves with the
    primitives before it in the joint. Its length must be nonzero; it is stored normalized.
    """

    def __init__(self, kind: str, axis: ArrayLike | None = None) -> None:
        if kind not in PRIMITIVE_KINDS:
            raise ModelError(f"primitive kind must be one of {PRIMITIVE_KINDS}, got {kind!r}")
        self.kind = kind
        self.raw_axis = None
        if kind != "S":
            # zero or non-finite axes are reported by build(), with the joint
            what = f"a {_KIND_NAMES[kind]} primitive's axis"
            self.raw_axis = values.real_array(axis, what, size=3, error=ModelError)

    @property
    def nq(self) -> int:
        return 4 if self.kind == "S" else 1

    @property
    def nv(self) -> int:
        return 3 if self.kind == "S" else 1

    @property
    def axis(self) -> np.ndarray | None:
        """The unit axis (world, reference configuration), None for a spherical primitive."""
        if self.raw_axis is None:
            return None
        return self.raw_axis / np.linalg.norm(self.raw_axis)

    def __repr__(self):
        return f"Primitive({self.kind!r}, {None if self.raw_axis is None else tuple(self.raw_axis)})"


class Joint(Element):
    """A joint between a ``base`` CS and a ``follower`` CS, made of primitives.

    Parameters
    ----------
    name : str
    base, follower : CS
        The origins must coincide in the reference configuration.
    primitives : list of Primitive or (kind, axis) tuples
        Base to follower; each acts after the ones before it.
    q0, v0 : optional
        Initial position and velocity targets. For a one-primitive joint a number (m or rad),
        or for a spherical primitive a scipy Rotation / quaternion (w, x, y, z) and an angular
        velocity (rad/s, follower axes). For several primitives a list with one entry per
        primitive, or a flat array of all coordinates. None: zero in a tree; free (solved for
        by assembly) in a closed loop.
    exact : bool
        In a closed loop, q0 and v0 are targets: approximate by default (assembly finds the
        nearest consistent state), exact when True (assembly must meet them or fail).

    Numbers must be real (not bools or strings) and a quaternion unit (to
    :data:`mbd.model.values.QUATERNION_TOLERANCE`): mbd does not normalise one for the user. The
    malformed are refused with a :class:`ModelError` naming the joint, at ``build()`` or
    when ``simulate`` is given them.
    """

    kind_name = "Joint"

    def __init__(self, name: str, base: Any, follower: Any,
                 primitives: Iterable[Primitive | tuple[str, ArrayLike | None]],
                 q0: JointTarget | None = None, v0: JointTarget | None = None,
                 exact: bool = False) -> None:
        if not isinstance(name, str) or not name:
            raise ModelError(f"{self.kind_name}: name must be a non-empty string, got {name!r}")
        self.name = name
        self.base = base
        self.follower = follower
        self.primitives = []
        try:
            primitives = list(primitives)
        except TypeError:
            raise ModelError(f"{self.label()}: primitives must be a list of (kind, axis), got "
                             f"{primitives!r}") from None
        for p in primitives:
            if not isinstance(p, Primitive):
                if not (isinstance(p, (tuple, list)) and len(p) == 2):
                    raise ModelError(f"{self.label()}: each primitive is (kind, axis), got {p!r}")
                try:
                    p = Primitive(*p)
                except ModelError as err:
                    raise ModelError(f"{self.label()}: {err}") from None
            self.primitives.append(p)
        self.q0 = q0
        self.v0 = v0
        self.exact = values.flag(exact, f"{self.label()}: exact", error=ModelError)

    @property
    def nq(self) -> int:
        """Number of position coordinates (a quaternion counts 4)."""
        return sum(p.nq for p in self.primitives)

    @property
    def nv(self) -> int:
        """Number of velocity coordinates (degrees of freedom)."""
        return sum(p.nv for p in self.primitives)

    def label(self) -> str:
        return f"{self.kind_name} '{self.name}'"

    def initial_q(self, q0: JointTarget | None = None) -> np.ndarray:
        """The flat initial coordinates (nq,) from ``q0`` (or the joint's own); ModelError on
        a malformed value."""
        value = self.q0 if q0 is None else q0
        return self._flatten(value, position=True)

    def initial_v(self, v0: JointTarget | None = None) -> np.ndarray:
        """The flat initial velocities (nv,)."""
        value = self.v0 if v0 is None else v0
        return self._flatten(value, position=False)

    def _flatten(self, value, position):
        prims = self.primitives
        if len(prims) == 1 and prims[0].kind != "S" and (
                value is None or (type(value) in (float, int) and np.isfinite(value))):
            return np.array([0.0 if value is None else float(value)])   # the common case, fast
        what = f"{self.label()}: {'q0' if position else 'v0'}"
        size = self.nq if position else self.nv
        if value is None:
            parts = [_zero(p, position) for p in prims]
            return np.concatenate(parts) if parts else np.zeros(0)
        if len(prims) == 1:
            entries = [value]
        elif _is_flat_numbers(value, size):
            entries = None
        elif isinstance(value, (list, tuple)) and len(value) == len(prims):
            entries = list(value)
        else:
            raise ModelError(f"{what} must be a list with one entry per primitive "
                             f"({len(prims)}) or {size} numbers, got {value!r}")
        if entries is None:
            out = values.real_array(value, what, size=size, error=ModelError)
        else:
            out = np.concatenate([_one(p, e, position, what) for p, e in zip(prims, entries)])
        if not np.all(np.isfinite(out)):
            raise ModelError(f"{what} must be finite, got {value!r}")
        if position and entries is None:  # the quaternions of a flat entry: unit too
            k = 0
            for p in prims:
                if p.kind == "S":
                    out[k:k + 4] = values.unit_quaternion(out[k:k + 4], what, error=ModelError)
                k += p.nq
        return out

    def __repr__(self):
        return f"{self.kind_name}({self.name!r}, {self.base!r} -> {self.follower!r})"


class Law:
    """The 1-D law contract (DESIGN §4): a scalar force on the follower along +x from (x, v, t).

    A built-in law belongs to a registered law kind (``kind``, see :mod:`mbd.compiled.registry`):
    its compiled formula, known to the core by the kind's ``code``, reads the law's parameter row,
    packed by name from the kind's parameter record; its branches are fixed by *sides* of its
    switching functions (see :mod:`mbd.compiled.lawkernels`). Subclasses (one module per kind in
    ``forces``) validate their parameters on construction and describe their switches and
    states.

    Attributes
    ----------
    kind : mbd.compiled.registry.Kind
        The registered law kind.
    switch_names : tuple of (str, str)
        For each switching function, what the law does on its negative and positive side
        (used in the event log); empty for a smooth law.
    """

    kind = None
    switch_names = ()
    #: what a picture colours the element by: a key of :meth:`states`, "contact" (nonzero
    #: while in contact: red, else green) or "stuck" (true while it sticks: blue, else
    #: orange); None: drawn plainly
    drawn_state = None
    #: the units of its parameters, for exchange (an FMU's parameters): name -> unit, "{F}"
    #: the force's (N or N.m) and "{L}" the coordinate's (m or rad) where they depend on it
    units = {}

    @property
    def code(self) -> int | None:
        """The compiled formula's code (int), None for a law of no registered kind."""
        return None if self.kind is None else self.kind.code

    def signals(self) -> list[tuple[int, str, Signal]]:
        """[(slot, parameter name, signal)]: the parameters of its kind's record given a
        :class:`Signal` (an Input, a controller's output), whose values the run holds."""
        names = getattr(self.kind, "parameters", ())
        return [(slot, name, getattr(self, name)) for slot, name in enumerate(names)
                if isinstance(getattr(self, name, None), Signal)]

    def parameters(self, t: float = 0.0, state: State | None = None) -> tuple[float, ...]:
        """The parameter row (at most ``MAX_PARAMS`` floats) at time t (s) and ``state``: the
        kind's parameters, by name."""
        return tuple(getattr(self, name) for name in self.kind.parameters)

    def parameter_rows(self, T: np.ndarray) -> np.ndarray | None:
        """The parameter rows (n, at most ``MAX_PARAMS``) at the times T (n,) s, each what
        :meth:`parameters` gives there, in one call where the law's parameters are a function
        of time that answers for an array (:func:`mbd.model.values.returned_rows`); None
        otherwise (they are then worked out row by row, with the state)."""
        return None

    @property
    def time_varying(self) -> bool:
        """True when the parameters depend on time or state (Python callables: slow path)."""
        return False

    def energy(self, x: ArrayLike, params: np.ndarray,
               sides: np.ndarray | None = None) -> np.ndarray:
        """Potential energy (J) stored at the rows ``x`` (n,), with the parameter rows in use
        ``params`` (n, MAX_PARAMS) and the sides (n, LAW_SWITCHES; by default all +1); zeros
        for a law without one."""
        return np.zeros_like(np.asarray(x, dtype=float))

    def states(self, x: np.ndarray, v: np.ndarray, t: np.ndarray, sides: np.ndarray,
               params: np.ndarray) -> dict[str, np.ndarray]:
        """Per-row element state for ``result.force(name).state``: a dict of (n,) arrays, from
        the rows' law inputs, times, sides (n, SWITCHES) and parameters in use."""
        return {}

    def stops(self) -> tuple[float, ...]:
        """The finite positions (m or rad) at which the law stops its coordinate, which a
        picture marks; () for a law without stops."""
        return ()

    #: the name of the one mode of a law without branches
    SMOOTH = "smooth"

    @property
    def modes(self) -> tuple[str, ...]:
        """The names of its modes (its formula's branches) with these parameters; a law
        without branches has one, :attr:`SMOOTH`. A mode changes exactly where the event log
        says a switch happened (docs/adding-an-element.md)."""
        return (self.SMOOTH,)

    def branch(self, x: float, v: float = 0.0, t: float = 0.0) -> str:
        """The mode (one of :attr:`modes`) the law's formula is in at the coordinate x (m or
        rad), its rate v and time t (s): written from the formula itself (SPEC §3.2), not from
        the switching functions, so that a test can check the run's modes and its event log
        against it."""
        return self.SMOOTH

    def mode(self, sides: np.ndarray) -> str:
        """The mode (one of :attr:`modes`) the run integrates in with the sides ``sides``
        (LAW_SWITCHES,) of a result row: read from the sides of the armed functions only."""
        return self.SMOOTH

    def describe(self, k: int, side: float, sides: np.ndarray | None = None) -> str:
        """What switching function k's new ``side`` means in the mode ``sides``, for the event
        log."""
        if k < len(self.switch_names):
            negative = side < 0
            if sides is not None and self.mirrored(k, sides):
                negative = not negative
            return self.switch_names[k][0 if negative else 1]
        return f"switch {k} -> {'-' if side < 0 else '+'}"

    def mirrored(self, k: int, sides: np.ndarray) -> bool:
        """True when, in the mode ``sides``, switching function k's sides mean the opposite of
        ``switch_names[k]`` (a clamp written for one contact side, met on the other)."""
        return False


class ForceElement(Element):
    """A force element: a :class:`Law` placed in the mechanism (DESIGN §4).

    The core reads:

    - ``placement``: "joint" (a revolute/prismatic primitive's coordinate), "line" (the
      distance between two CSs), "axial" (B's displacement relative to A along an axis fixed in
      A) or "rotational" (B's rotation relative to A about such an axis);
    - ``law``: a :class:`Law`;
    - ``joint`` and ``primitive`` for "joint"; ``cs_a``, ``cs_b`` and ``axis`` (world,
      reference configuration) for the others;
    - ``endpoints``: the CSs it acts between, which make a composite machine when they lie on
      different machines (SPEC §1).
    """

    placement = None
    law = None
    #: whether its load is a vector (a bushing's wrench, a body spring-damper's force), not
    #: one value along a coordinate: a picture plots the magnitude of its world load, and a
    #: sensor cannot read it as one number
    vector_valued = False
    #: the units of the parameters its ``with_parameters`` changes, as :attr:`Law.units`
    units = {}
    joint = None
    primitive = 0
    cs_a = None
    cs_b = None
    axis = None

    @property
    def endpoints(self) -> tuple[Any, Any]:
        if self.placement == "joint":
            j = self.joint
            return (getattr(j, "base", None), getattr(j, "follower", None))
        return (self.cs_a, self.cs_b)

    def label(self) -> str:
        return f"{type(self).__name__} '{self.name}'"

    def parameters_text(self) -> str:
        """The element's parameters as a user gives them, for messages: its law's, e.g.
        ``Spring(c=10000.0, x0=0.0)``."""
        return repr(self.law)


def _zero(prim, position):
    if prim.kind == "S":
        return np.array([1.0, 0.0, 0.0, 0.0]) if position else np.zeros(3)
    return np.zeros(1)


def _is_flat_numbers(value, size):
    """True when ``value`` reads as one flat array of ``size`` numbers (an array, or a list of
    plain numbers -- not a list with a Rotation or a tuple in it)."""
    if isinstance(value, (str, bytes, dict)):
        return False
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):   # a ragged list
        return False
    return arr.ndim == 1 and arr.shape[0] == size and arr.dtype.kind != "O"


def _one(prim, entry, position, what):
    if entry is None:
        return _zero(prim, position)
    if prim.kind == "S" and position:
        return values.unit_quaternion(entry, what, error=ModelError)
    n = prim.nv
    expected = "a real number" if n == 1 else f"{n} real numbers"
    arr = values.real_array(entry, what, expected=expected, error=ModelError).reshape(-1)
    if arr.shape != (n,):
        raise ModelError(f"{what}: a {_KIND_NAMES[prim.kind]} primitive takes "
                         f"{'1 value' if n == 1 else f'{n} values'}, got {entry!r}")
    return arr


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
