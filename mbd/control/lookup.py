"""The lookup controller kind (SPEC §9): :class:`Lookup`, y = table(u) of a
:class:`~mbd.control.Table` (or of a :class:`~mbd.control.Table2D`, y = table(u0, u1)) at
every instant. Its formula is the table's own (:func:`mbd.compiled.lawkernels.table_value`,
which the table's Python ``__call__`` runs too); the compiled kernels (:func:`kernel`,
:func:`kernel2d`) are registered as the kinds ``"lookup"`` and ``"lookup2d"``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..compiled.controlkernels import finish, gather
from ..compiled.jit.jitcache import njit
from ..compiled.lawkernels import table2d_value, table_value
from ..compiled.registry import ControllerKind, register_controller
from .continuous import Continuous
from .tables import Table2D

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .controllers import InputLike
    from .tables import Table

#: the parameter row: the table's row (:meth:`mbd.control.Table.row`)
PARAMETERS = ("table",)


@njit()
def kernel(v, data, i):
    """Controller i of the run's data as a Lookup of a Table: y = table(u)."""
    gather(v, data, i)
    C = data.control[i]
    C.out[0] = table_value(C.params, C.u[0])
    return finish(data, i)


@njit()
def kernel2d(v, data, i):
    """Controller i of the run's data as a Lookup of a Table2D: y = table(u0, u1)."""
    gather(v, data, i)
    C = data.control[i]
    C.out[0] = table2d_value(C.params, C.u[0], C.u[1])
    return finish(data, i)


KIND = register_controller("lookup", PARAMETERS, kernel)
KIND_2D = register_controller("lookup2d", PARAMETERS, kernel2d)


class Lookup(Continuous):
    """A table of a signal (a static continuous controller): ``y = table(u)`` at every
    instant, u its one input (e.g. a Sensor: a gain scheduled on an angle, a measured
    characteristic); or, of a :class:`~mbd.control.Table2D`, ``y = table(u0, u1)`` of its two
    inputs (a gain scheduled on an angle and a speed).

    Its table's points can be overridden like a gain (``--set NAME.table.y1=2.5``, sweeps):
    a new table through :meth:`with_parameters`.

    Parameters
    ----------
    name : str
    table : mbd.control.Table or mbd.control.Table2D
    input : Sensor, Input, str or a controller; for a Table2D a pair of them (u0, u1)
    """

    #: its parameter holding a table, whose points an override may change
    tables = ("table",)

    def __init__(self, name: str, table: Table | Table2D,
                 input: InputLike | Sequence[InputLike]) -> None:
        two = isinstance(table, Table2D)
        pair = isinstance(input, (tuple, list))
        super().__init__(name, tuple(input) if two and pair else (input,), 1)
        if not two and (not callable(table) or not hasattr(table, "row")):
            raise ValueError(f"{self.label()}: table must be an mbd.control.Table or "
                             f"Table2D, got {table!r}")
        if two and not (pair and len(input) == 2):
            raise ValueError(f"{self.label()}: a Table2D looks up two inputs, give them as a "
                             f"pair (u0, u1), got {input!r}")
        if pair and not two:
            raise ValueError(f"{self.label()}: a Table looks up one input, got {len(input)}: "
                             f"{input!r} (a Table2D looks up two)")
        self.table, self.two = table, two
        self.x0 = np.zeros(0)
        # the output before the first evaluation: at zero inputs, or at the table's first
        # point where it has no value off its breakpoints
        start = ((0.0, 0.0) if two else (0.0,)) if table.extrapolate != "error" else (
            (table.x[0], table.y[0]) if two else (table.x[0],))
        self.initial_output = np.array([table(*start)])

    def derivative(self, t: float, x: np.ndarray,
                   u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return x, np.array([self.table(u[0], u[1]) if self.two else self.table(u[0])])

    def why_not_finite(self, u: np.ndarray) -> str | None:
        """Its table's own words where u lies outside its breakpoints with
        extrapolate='error' (naming the table, the value and its range), and the input."""
        try:
            self.derivative(0.0, self.x0, u)
        except ValueError as err:
            names = ", ".join(str(getattr(item, "name", item)) for item in self.inputs)
            inputs = "the values are its inputs" if self.two else "the value is its input"
            return f"{err}; {inputs} {names}"
        return None

    def compiled_form(self) -> tuple[ControllerKind, np.ndarray]:
        return (KIND_2D if self.two else KIND), self.table.row()
