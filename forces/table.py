"""A measured force–deflection curve as a force law: :class:`TableForce`, the law kind
``table`` (SPEC §9's lookup table as a force law of (x, v)).

Its parameter record is the table's (:meth:`mbd.control.Table.row`): a header (the number of
breakpoints, the interpolation, the extrapolation, the damping d), then the breakpoints, the
values and the slopes. The law has no switches: between breakpoints a linear table has kinks
(the integrator's step control meets them), a pchip or cubic one is smooth to its first
derivative.
"""
from dataclasses import dataclass

from mbd.compiled import lawkernels as lk
from mbd.compiled.jitcache import njit
from mbd.compiled.laws import CompiledLaw
from mbd.compiled.registry import register
from mbd.control.tables import Table
from mbd.model.values import nonnegative as _nonneg

from .checks import check as _check

#: the parameter record: the header, then x_i, y_i and the slopes d_i of the breakpoints
PARAMETERS = (("n", "interpolation", "extrapolation", "d")
              + tuple(f"{name}{i}" for name in ("x", "y", "slope") for i in range(lk.MAX_TABLE)))


# called, not inlined, by the dispatch: inlined, its table search made every process's first
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
    units = {'d': '{F}.s/{L}'}
    kind = KIND
    name = "TableForce"

    def __post_init__(self):
        if not isinstance(self.table, Table):
            raise ValueError(f"{self.name}: table must be an mbd.control.Table, got "
                             f"{self.table!r}")
        if self.table.extrapolate not in ("hold", "linear"):
            raise ValueError(f"{self.name}: the table's extrapolation must be 'hold' or "
                             f"'linear' for a force law, got {self.table.extrapolate!r}")
        _check(self, "d", ">= 0 and finite", _nonneg)

    def parameters(self, t=0.0, state=None):
        return tuple(self.table.row(self.d))
