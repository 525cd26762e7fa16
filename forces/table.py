"""A measured force–deflection curve as a force law: :class:`TableForce`, the law kind
``table`` (SPEC §9's lookup table as a force law of (x, v)); and a measured characteristic of
both, F(x, v): :class:`Table2DForce`, the law kind ``table2d`` (a 2-D table, bilinear).

Its parameter record is the table's (:meth:`mbd.control.Table.row`): a header (the number of
breakpoints, the interpolation, the extrapolation, the damping d), then the breakpoints, the
values and the slopes. The law has no switches: between breakpoints a linear table has kinks
(the integrator's step control meets them), a pchip or cubic one is smooth to its first
derivative. ``table2d``'s record is the 2-D table's (:meth:`mbd.control.Table2D.row`): a
header (nx, ny, the extrapolation), then the grid's x, y and z end to end; no switches either
(its slopes jump across the grid lines).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from mbd.compiled import lawkernels as lk
from mbd.compiled.jit.jitcache import njit
from mbd.compiled.laws import CompiledLaw
from mbd.compiled.layout import MAX_PARAMS
from mbd.compiled.registry import register
from mbd.control.tables import Table, Table2D
from mbd.model.values import nonnegative as _nonneg

from .checks import check as _check

if TYPE_CHECKING:
    from mbd.model.state import State

#: the parameter record: the header, then x_i, y_i and the slopes d_i of the breakpoints
PARAMETERS = (("n", "interpolation", "extrapolation", "d")
              + tuple(f"{name}{i}" for name in ("x", "y", "slope") for i in range(lk.MAX_TABLE)))


# called, not inlined, by the kind's entry: inlined, its table search made every process's first
# compile of the force kernels ~6 s longer (a model's cold start: 29 s -> 36 s)
@njit()
def force(p, x, v, s):
    """-(table(x) + d v) (N or N m): the curve gives the force the element pushes back with,
    as a spring's c x."""
    return -(lk.table_value(p, x) + p[lk.TABLE_DAMPING] * v)


@njit()
def energy(p, x, s):
    """The work to deflect it from 0 to x: the integral of the curve (J)."""
    return lk.table_integral(p, x) - lk.table_integral(p, 0.0)


KIND = register("table", PARAMETERS, force=force, energy=energy)


@dataclass(frozen=True)
class TableForce(CompiledLaw):
    """A force (or torque) read off a measured curve: force on the follower
    ``-(table(x) + d v)``, the table giving the force the element pushes back with at the
    deflection x (a rubber stop, a progressive spring: as a spring's c x), plus a linear damping.

    Parameters
    ----------
    table : mbd.control.Table
        The curve: x in m (or rad), values in N (or N m); extrapolated by holding or
        continuing its end slopes.
    d : float
        Damping, N s/m (or N m s/rad), >= 0.

    Examples
    --------
    >>> from mbd.control import Table
    >>> stop = TableForce(Table([0.0, 0.01, 0.02], [0.0, 50.0, 400.0], kind="pchip"))
    >>> stop(0.01), stop(0.02, 1.0)
    (-50.0, -400.0)
    """

    table: Table
    d: float = 0.0

    #: the parameters' units ({F}: N or N.m, {L}: m or rad, by the coordinate)
    units = {'d': '{F}.s/{L}', 'table.x': '{L}', 'table.y': '{F}'}
    kind = KIND
    name = "TableForce"

    def __post_init__(self):
        _check_table(self, Table)
        _check(self, "d", ">= 0 and finite", _nonneg)

    def parameters(self, t: float = 0.0, state: State | None = None) -> tuple[float, ...]:
        return tuple(self.table.row(self.d))


#: the 2-D law's parameter record: the header, then the grid (x, y and z end to end: where
#: each starts depends on the grid's size, so the slots are numbered, not named)
PARAMETERS_2D = (("nx", "ny", "extrapolation")
                 + tuple(f"grid{i}" for i in range(MAX_PARAMS - lk.TABLE2D_HEADER)))


@njit()
def force_2d(p, x, v, s):
    """-table(x, v) (N or N m): the table gives the force the element pushes back with."""
    return -lk.table2d_value(p, x, v)


# no energy: a characteristic of x and v stores none that can be told apart from what it
# dissipates, so all its work is booked as dissipated (the energy balance's "dissipated")
KIND_2D = register("table2d", PARAMETERS_2D, force=force_2d)


@dataclass(frozen=True)
class Table2DForce(CompiledLaw):
    """A force (or torque) read off a measured characteristic of the deflection and its rate
    (a damper's F(x, v), an engine mount's): force on the follower ``-table(x, v)``, the table
    giving the force the element pushes back with at deflection x and rate v (as a spring-
    damper's c x + d v), bilinear between its grid points.

    It stores no energy: all its work is booked as dissipated in the energy balance (a
    spring's part of the characteristic shows there as dissipation that comes back).

    Parameters
    ----------
    table : mbd.control.Table2D
        The characteristic: u the deflection x in m (or rad), w the rate v in m/s (or rad/s),
        values in N (or N m); extrapolated by holding or continuing its end cells.

    Examples
    --------
    >>> from mbd.control import Table2D
    >>> damper = Table2DForce(Table2D([-0.1, 0.1], [-1.0, 1.0],
    ...                               [[-30.0, 10.0], [-10.0, 30.0]]))   # 100 x + 20 v
    >>> damper(0.05, 0.5), damper(0.0, -1.0)
    (-15.0, 20.0)
    """

    table: Table2D

    #: the parameters' units ({F}: N or N.m, {L}: m or rad, by the coordinate); a table's
    #: points by axis (``table.x``: its u, ...)
    units = {'table.x': '{L}', 'table.y': '{L}/s', 'table.z': '{F}'}
    kind = KIND_2D
    name = "Table2DForce"

    def __post_init__(self):
        _check_table(self, Table2D)

    def parameters(self, t: float = 0.0, state: State | None = None) -> tuple[float, ...]:
        return tuple(self.table.row())


def _check_table(law, kind):
    """ValueError naming ``law`` unless its table is a ``kind`` (Table or Table2D) that
    extrapolates by holding or continuing (a force law needs a value everywhere)."""
    if not isinstance(law.table, kind):
        raise ValueError(f"{law.name}: table must be an mbd.control.{kind.__name__}, got "
                         f"{law.table!r}")
    if law.table.extrapolate not in ("hold", "linear"):
        raise ValueError(f"{law.name}: the table's extrapolation must be 'hold' or 'linear' "
                         f"for a force law, got {law.table.extrapolate!r}")
