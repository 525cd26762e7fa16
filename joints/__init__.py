"""Concrete joints: each is a named list of primitives (SPEC §2).

Axes are unit-free directions in world coordinates of the reference configuration (they are
normalized); each primitive acts after the ones before it, so its axis turns with them.
Coordinates: a revolute angle (rad) is the rotation of the follower relative to the base about
the axis (right-hand rule), a prismatic displacement (m) that of the follower along the axis;
a spherical primitive's position is a unit quaternion (w, x, y, z) and its velocity the
follower's angular velocity relative to the base in the follower's axes (rad/s).

Examples
--------
>>> import mbd
>>> from joints import Revolute, Universal, SixDof
>>> m = mbd.Model()
>>> g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, -9.81)))
>>> b = m.add_body("b", mass=1.0, cg=(0, 0, -1), inertia=[0.1, 0.1, 0.1], cs={"top": (0, 0, 0)})
>>> Universal("u", g, b["top"], axes=((1, 0, 0), (0, 1, 0))).nv
2
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from mbd.model import values
from mbd.model.elements import Joint, Primitive
from mbd.model.errors import ModelError

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from numpy.typing import ArrayLike
    from scipy.spatial.transform import Rotation

    from mbd.model.builder import CS
    from mbd.model.elements import JointTarget

__all__ = ["Weld", "Revolute", "Prismatic", "Spherical", "Universal", "Cylindrical", "Planar",
           "Gimbal", "SixDof", "Custom", "Primitive"]


def _axes(axes, count, label):
    """``count`` axes of 3 real numbers each, as a (count, 3) array (zero or non-finite ones
    are reported by build(), with the joint)."""
    return values.real_array(axes, f"{label}: axes", shape=(count, 3),
                             expected=f"{count} vectors of 3 real numbers", error=ModelError)


def _base_axes(base):
    """The base CS's x, y, z axes (world, reference configuration); world axes for a non-CS,
    which build() then reports."""
    rotation = getattr(base, "rotation", None)
    return np.eye(3) if rotation is None else np.asarray(rotation).T


class Weld(Joint):
    """Rigid connection, 0 DOF."""

    kind_name = "Weld"

    def __init__(self, name: str, base: CS, follower: CS) -> None:
        super().__init__(name, base, follower, [])


class Revolute(Joint):
    """One rotational DOF about ``axis``; q in rad, v in rad/s."""

    kind_name = "Revolute"

    def __init__(self, name: str, base: CS, follower: CS, axis: ArrayLike,
                 q0: float | None = None, v0: float | None = None, exact: bool = False) -> None:
        super().__init__(name, base, follower, [("R", axis)], q0, v0, exact)


class Prismatic(Joint):
    """One translational DOF along ``axis``; q in m, v in m/s."""

    kind_name = "Prismatic"

    def __init__(self, name: str, base: CS, follower: CS, axis: ArrayLike,
                 q0: float | None = None, v0: float | None = None, exact: bool = False) -> None:
        super().__init__(name, base, follower, [("P", axis)], q0, v0, exact)


class Spherical(Joint):
    """Three rotational DOF; q a unit quaternion (w, x, y, z) or a Rotation, v rad/s."""

    kind_name = "Spherical"

    def __init__(self, name: str, base: CS, follower: CS, q0: Rotation | ArrayLike | None = None,
                 v0: ArrayLike | None = None, exact: bool = False) -> None:
        super().__init__(name, base, follower, [("S", None)], q0, v0, exact)


class Universal(Joint):
    """Two rotations, about ``axes[0]`` then about ``axes[1]`` (which turns with the first)."""

    kind_name = "Universal"

    def __init__(self, name: str, base: CS, follower: CS, axes: ArrayLike,
                 q0: ArrayLike | None = None, v0: ArrayLike | None = None,
                 exact: bool = False) -> None:
        a = _axes(axes, 2, f"Universal '{name}'")
        super().__init__(name, base, follower, [("R", a[0]), ("R", a[1])], q0, v0, exact)


class Cylindrical(Joint):
    """A translation along ``axis`` then a rotation about the same axis: q = (s, phi)."""

    kind_name = "Cylindrical"

    def __init__(self, name: str, base: CS, follower: CS, axis: ArrayLike,
                 q0: ArrayLike | None = None, v0: ArrayLike | None = None,
                 exact: bool = False) -> None:
        super().__init__(name, base, follower, [("P", axis), ("R", axis)], q0, v0, exact)


class Planar(Joint):
    """Translations along ``axes[0]`` and ``axes[1]``, then a rotation about their normal
    ``axes[0] x axes[1]``: q = (s1, s2, phi)."""

    kind_name = "Planar"

    def __init__(self, name: str, base: CS, follower: CS, axes: ArrayLike,
                 q0: ArrayLike | None = None, v0: ArrayLike | None = None,
                 exact: bool = False) -> None:
        a = _axes(axes, 2, f"Planar '{name}'")
        normal = np.cross(a[0], a[1])
        super().__init__(name, base, follower,
                         [("P", a[0]), ("P", a[1]), ("R", normal)],
                         q0, v0, exact)


class Gimbal(Joint):
    """Three successive rotations about ``axes`` (default: the base CS's x, y, z)."""

    kind_name = "Gimbal"

    def __init__(self, name: str, base: CS, follower: CS, axes: ArrayLike | None = None,
                 q0: ArrayLike | None = None, v0: ArrayLike | None = None,
                 exact: bool = False) -> None:
        a = _base_axes(base) if axes is None else _axes(axes, 3, f"Gimbal '{name}'")
        super().__init__(name, base, follower, [("R", x) for x in a], q0, v0, exact)


class SixDof(Joint):
    """A free joint: translations along the base CS's x, y, z, then a spherical primitive.

    q = (x, y, z, w, qx, qy, qz) (m and a unit quaternion), v = (vx, vy, vz, wx, wy, wz)
    (m/s along the base axes, rad/s in the follower's axes). ``q0`` may also be the list
    ``[x, y, z, rotation]`` and ``v0`` the list ``[vx, vy, vz, (wx, wy, wz)]``.
    """

    kind_name = "SixDof"

    def __init__(self, name: str, base: CS, follower: CS,
                 q0: ArrayLike | Sequence[float | Rotation] | None = None,
                 v0: ArrayLike | Sequence[ArrayLike] | None = None, exact: bool = False) -> None:
        axes = _base_axes(base)
        prims = [("P", axes[0]), ("P", axes[1]), ("P", axes[2]), ("S", None)]
        super().__init__(name, base, follower, prims, q0, v0, exact)


class Custom(Joint):
    """Any list of primitives, base to follower: ``[("R", axis), ("P", axis), ("S", None)]``."""

    kind_name = "Custom"

    def __init__(self, name: str, base: CS, follower: CS,
                 primitives: Iterable[Primitive | tuple[str, ArrayLike | None]],
                 q0: JointTarget | None = None, v0: JointTarget | None = None,
                 exact: bool = False) -> None:
        super().__init__(name, base, follower, primitives, q0, v0, exact)
