"""What a model holds and the joint contract the core reads: :class:`Element` (anything added
to a model), :class:`Signal` (a value the run holds between changes) and :class:`Joint` (a list
of :class:`Primitive`).

Concrete joints live in the ``joints`` package; the force element contracts are
:mod:`mbd.model.forceelements`, the motion drivers and gears :mod:`mbd.model.drivers`. The core
knows only these contracts (DESIGN §1).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from . import values
from .errors import ModelError

# a CS (mbd.model.builder, which imports this module) is hinted Any: imports point down the
# stages and form no cycle, type-only imports too (DESIGN §9, tests/test_layout.py)
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from numpy.typing import ArrayLike
    from scipy.spatial.transform import Rotation

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
