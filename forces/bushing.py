"""The law of :class:`forces.Bushing`, the law kind ``bushing``: six uncoupled linear springs
and dampers with a preload. It has no 1-D formula (its force is nan) and no switches;
the core's bushing placement (:func:`mbd.compiled.forcekernels.bushing`) evaluates it from the row
(stiffness, damping, preload)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mbd.compiled.jit.jitcache import njit
from mbd.compiled.laws import CompiledLaw
from mbd.compiled.registry import register
from mbd.model import values
from mbd.model.values import finite as _finite
from mbd.model.values import nonnegative as _nonneg

if TYPE_CHECKING:
    from collections.abc import Callable

    from numpy.typing import ArrayLike

    from mbd.model.state import State

#: a bushing's parameter vectors and the names of their components, in order: along, then
#: about, CS A's x, y, z
BUSHING_COMPONENTS = {"stiffness": ("kx", "ky", "kz", "kax", "kay", "kaz"),
                      "damping": ("cx", "cy", "cz", "cax", "cay", "caz"),
                      "preload": ("fx", "fy", "fz", "tx", "ty", "tz")}


def check_six(what: str, name: str, value: ArrayLike, rule: str, ok: Callable[[float], bool],
              error: type[Exception] = ValueError) -> tuple[float, ...]:
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


#: the parameter record: the three vectors' components, in order (where the core's bushing
#: placement reads them: mbd.compiled.layout.STIFFNESS, DAMPING, PRELOAD)
PARAMETERS = sum(BUSHING_COMPONENTS.values(), ())

@njit()
def energy(p, x, s):
    """Its stored energy (J), which the placement measures as its x
    (:func:`mbd.compiled.forcekernels.bushing`)."""
    return x


KIND = register("bushing", PARAMETERS, energy=energy)


@dataclass(frozen=True)
class _BushingLaw(CompiledLaw):
    """The law of :class:`forces.Bushing`: six uncoupled linear springs and dampers with a
    preload, on the deflections [d; theta] and rates [ddot; w] of B relative to A. It has no
    1-D formula (calling it gives nan) and no switches; :func:`mbd.compiled.forcekernels.bushing`
    evaluates it, with its parameter row (stiffness, damping, preload). The element validates
    first, with messages naming it; the law checks the same rules again."""

    stiffness: tuple
    damping: tuple
    preload: tuple = (0.0,) * 6

    kind = KIND
    name = "Bushing law"

    def __post_init__(self):
        for name, rule, ok in (("stiffness", ">= 0 and finite", _nonneg),
                               ("damping", ">= 0 and finite", _nonneg),
                               ("preload", "finite", _finite)):
            object.__setattr__(self, name, check_six(self.name, name, getattr(self, name),
                                                     rule, ok))

    def parameters(self, t: float = 0.0, state: State | None = None) -> tuple[float, ...]:
        return self.stiffness + self.damping + self.preload
