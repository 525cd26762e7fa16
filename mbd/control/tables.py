"""Lookup tables (SPEC §9): a measured curve y(x), usable as a function of time (an
``Actuator`` value, a ``VariableRotationalSpring``'s K(t)) and as a force law of a deflection
(``forces.TableForce``), evaluated by one compiled formula
(:func:`mbd.compiled.lawkernels.table_value`) wherever it is used; and a 2-D table z(u, w) on
a rectangular grid (:class:`Table2D`, bilinear), a force law of (x, v)
(``forces.Table2DForce``) or a controller's lookup of two signals (``Lookup``).

A table's points can be changed by name (``--set stop.table.y2=450``, sweeps, an FMU's
parameters): :meth:`Table.with_point` and :meth:`Table2D.with_point` make the new table,
checked by its constructor."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from ..compiled import lawkernels as lk
from ..compiled.jit.jitcache import njit
from ..compiled.layout import MAX_PARAMS

if TYPE_CHECKING:
    from collections.abc import Callable

    from numpy.typing import ArrayLike

#: how a table interpolates between its breakpoints
KINDS = ("linear", "pchip", "cubic")
#: what it gives past them
EXTRAPOLATIONS = ("hold", "linear", "periodic", "error")


class Table:
    """A 1-D lookup table y(x) through the points (x_i, y_i).

    Parameters
    ----------
    x, y : array_like
        Breakpoints (strictly increasing) and values, 2 to ``MAX_POINTS`` of each, finite.
    kind : str
        ``"linear"`` (piecewise linear), ``"pchip"`` (the monotone piecewise cubic of
        Fritsch & Carlson, scipy's PchipInterpolator: no overshoot between points) or
        ``"cubic"`` (the C2 cubic spline, scipy's CubicSpline, not-a-knot; periodic with
        ``extrapolate="periodic"``).
    extrapolate : str
        Past the breakpoints: ``"hold"`` the end values, ``"linear"`` continue the end
        slopes, ``"periodic"`` repeat (y_0 = y_n required), ``"error"``: a value there is an
        error (ValueError from Python, nan in a law).
    name : str
        What messages call it.

    Examples
    --------
    >>> t = Table([0.0, 1.0, 2.0], [0.0, 10.0, 0.0])
    >>> float(t(0.5)), float(t(3.0))
    (5.0, 0.0)
    """

    #: the most breakpoints a table holds (they live in a law's parameter row)
    MAX_POINTS = lk.MAX_TABLE

    def __init__(self, x: ArrayLike, y: ArrayLike, kind: str = "linear",
                 extrapolate: str = "hold", name: str = "table") -> None:
        self.name = str(name)
        where = f"Table '{self.name}'"
        x, y = (np.array(v, dtype=float).ravel() for v in (x, y))
        if not 2 <= len(x) <= self.MAX_POINTS or len(y) != len(x):
            raise ValueError(f"{where}: x and y must have the same length, 2 to "
                             f"{self.MAX_POINTS}, got {len(x)} and {len(y)}")
        if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
            raise ValueError(f"{where}: x and y must be finite, got x = {x.tolist()}, y = "
                             f"{y.tolist()}")
        steps = np.diff(x)
        if np.any(steps <= 0.0):
            k = int(np.argmax(steps <= 0.0))
            raise ValueError(f"{where}: the breakpoints must increase strictly, got x[{k}] = "
                             f"{float(x[k])!r} then x[{k + 1}] = {float(x[k + 1])!r}")
        if kind not in KINDS:
            raise ValueError(f"{where}: kind must be one of {KINDS}, got {kind!r}")
        if extrapolate not in EXTRAPOLATIONS:
            raise ValueError(f"{where}: extrapolate must be one of {EXTRAPOLATIONS}, got "
                             f"{extrapolate!r}")
        if extrapolate == "periodic" and y[0] != y[-1]:
            raise ValueError(f"{where}: a periodic table must end where it begins, got y[0] = "
                             f"{float(y[0])!r} and y[-1] = {float(y[-1])!r}")
        self.x, self.y, self.kind, self.extrapolate = x, y, kind, extrapolate
        # (scipy.interpolate imported here: it costs a tenth of a second at every import of mbd)
        from scipy.interpolate import CubicSpline, PchipInterpolator
        if kind == "pchip":
            self.slopes = PchipInterpolator(x, y).derivative()(x)
        elif kind == "cubic":
            bc = "periodic" if extrapolate == "periodic" else "not-a-knot"
            self.slopes = CubicSpline(x, y, bc_type=bc)(x, 1)
        else:
            self.slopes = np.zeros_like(x)
        self._row = self.row()
        self._compiled = None

    def points(self) -> dict[str, float]:
        """{point: value}: the breakpoints ``xK`` and values ``yK`` (K = 0 to n - 1), the
        names :meth:`with_point` (and ``--set ELEMENT.PARAM.POINT=VALUE``) takes."""
        return {**{f"x{k}": float(v) for k, v in enumerate(self.x)},
                **{f"y{k}": float(v) for k, v in enumerate(self.y)}}

    def with_point(self, point: str, value: float) -> Table:
        """A new table like this one (kind, extrapolation, name) with breakpoint ``xK`` or
        value ``yK`` set to ``value``; checked as the constructor checks a table.

        Raises
        ------
        ValueError
            A point not of the form xK or yK, K out of range (naming the table's size), or a
            table the constructor refuses (a breakpoint breaking the strict increase).

        Examples
        --------
        >>> Table([0.0, 1.0, 2.0], [0.0, 10.0, 0.0]).with_point("y1", 5.0)(0.5)
        2.5
        """
        n = len(self.x)
        where = f"Table '{self.name}'"
        forms = f"xK (breakpoint K) or yK (value K), K = 0 to {n - 1}"
        match = re.fullmatch(r"([xy])(\d+)", str(point).strip())
        if match is None:
            raise ValueError(f"{where} has no point {point!r}: a point of a table is {forms}")
        axis, k = match.group(1), int(match.group(2))
        if k >= n:
            raise ValueError(f"{where} has no point {point!r}: it has {n} points, {forms}")
        x, y = self.x.copy(), self.y.copy()
        (x if axis == "x" else y)[k] = _number(value, f"{where}: {point}")
        return Table(x, y, kind=self.kind, extrapolate=self.extrapolate, name=self.name)

    def row(self, damping: float = 0.0) -> np.ndarray:
        """The parameter row the compiled formula reads (MAX_PARAMS floats): the header (n,
        interpolation, extrapolation, ``damping``), then x, y and the slopes."""
        row = np.zeros(MAX_PARAMS)
        n, m, h = len(self.x), lk.MAX_TABLE, lk.TABLE_HEADER
        row[lk.TABLE_N] = n
        row[lk.TABLE_INTERPOLATION] = lk.LINEAR if self.kind == "linear" else lk.HERMITE
        row[lk.TABLE_EXTRAPOLATION] = EXTRAPOLATIONS.index(self.extrapolate)
        row[lk.TABLE_DAMPING] = damping
        row[h:h + n], row[h + m:h + m + n], row[h + 2 * m:h + 2 * m + n] = \
            self.x, self.y, self.slopes
        return row

    def __call__(self, u: ArrayLike) -> float | np.ndarray:
        """The value at u (a number or an array): a float, or an array of u's shape."""
        us = np.asarray(u, dtype=float)
        out = np.empty(us.size)
        lk.table_values(self._row, np.ascontiguousarray(us.ravel()), out)
        if self.extrapolate == "error" and np.any(np.isnan(out) & ~np.isnan(us.ravel())):
            bad = float(us.ravel()[np.isnan(out)][0])
            raise ValueError(f"Table '{self.name}': {bad!r} is outside its breakpoints "
                             f"[{float(self.x[0])!r}, {float(self.x[-1])!r}] "
                             "(extrapolate='error')")
        return float(out[0]) if us.ndim == 0 else out.reshape(us.shape)

    @property
    def compiled_function(self) -> Callable[[float], float]:
        """This table as a numba function of one float (made once): a law parameter given the
        table as a function of time runs it compiled inside the right-hand side."""
        if self._compiled is None:
            row = self._row
            value = lk.table_value

            @njit(cache=False)      # a closure over this table's row: not cached on disk
            def table_of_time(t):
                return value(row, t)
            self._compiled = table_of_time
        return self._compiled

    def integral(self, u: float) -> float:
        """The integral of the table from 0 to u (a number; hold or linear extrapolation)."""
        return float(lk.table_integral(self._row, float(u)) - lk.table_integral(self._row, 0.0))

    def __repr__(self):
        return (f"Table({self.name!r}: {len(self.x)} points, {self.kind}, extrapolate="
                f"{self.extrapolate!r})")


#: what a 2-D table gives past its breakpoints
EXTRAPOLATIONS_2D = ("hold", "linear", "error")


class Table2D:
    """A 2-D lookup table z(u, w) on a rectangular grid: the values z_ij at (x_i, y_j),
    interpolated bilinearly in each grid cell (no cubic form: the value is continuous, its
    slopes jump across the grid lines).

    Its parameter row (:meth:`row`) holds the grid whole, so the grid is limited by a law's
    ``MAX_PARAMS`` (100) floats: nx ny + nx + ny + 3 <= 100 (8 x 8 fits, 9 x 9 does not).

    Parameters
    ----------
    x, y : array_like
        The breakpoints of u (nx) and of w (ny): strictly increasing, 2 or more each, finite.
    z : array_like
        The values, shape (nx, ny): z[i, j] at (x[i], y[j]); finite.
    extrapolate : str
        Past the breakpoints: ``"hold"`` (u and w clamped to the grid: the edge values),
        ``"linear"`` (the end cells' bilinear form continued) or ``"error"``: a value there
        is an error (ValueError from Python, nan in a law).
    name : str
        What messages call it.

    Examples
    --------
    >>> t = Table2D([0.0, 1.0], [0.0, 2.0], [[0.0, 2.0], [1.0, 3.0]])   # z = u + w
    >>> t(0.5, 1.0), t([0.5, 2.0], 1.0).tolist()
    (1.5, [1.5, 2.0])
    """

    def __init__(self, x: ArrayLike, y: ArrayLike, z: ArrayLike, extrapolate: str = "hold",
                 name: str = "table") -> None:
        self.name = str(name)
        where = f"Table2D '{self.name}'"
        x, y = (np.array(v, dtype=float).ravel() for v in (x, y))
        z = np.array(z, dtype=float)
        for axis, b in (("x", x), ("y", y)):
            if len(b) < 2:
                raise ValueError(f"{where}: {axis} must have 2 or more breakpoints, got "
                                 f"{len(b)}: {b.tolist()}")
        nx, ny = len(x), len(y)
        if z.shape != (nx, ny):
            raise ValueError(f"{where}: z must have the shape (len(x), len(y)) = ({nx}, {ny}), "
                             f"got {z.shape}")
        size = nx * ny + nx + ny + lk.TABLE2D_HEADER
        if size > MAX_PARAMS:
            raise ValueError(f"{where}: a {nx} x {ny} grid takes nx ny + nx + ny + "
                             f"{lk.TABLE2D_HEADER} = {size} floats of a law's parameter row, "
                             f"more than its MAX_PARAMS = {MAX_PARAMS} (8 x 8 fits)")
        for axis, b in (("x", x), ("y", y), ("z", z)):
            bad = np.argwhere(~np.isfinite(b))
            if len(bad):
                at = ", ".join(str(int(i)) for i in bad[0])
                raise ValueError(f"{where}: {axis} must be finite, got {axis}[{at}] = "
                                 f"{float(b[tuple(bad[0])])!r}")
        for axis, b in (("x", x), ("y", y)):
            steps = np.diff(b)
            if np.any(steps <= 0.0):
                k = int(np.argmax(steps <= 0.0))
                raise ValueError(f"{where}: the breakpoints {axis} must increase strictly, "
                                 f"got {axis}[{k}] = {float(b[k])!r} then {axis}[{k + 1}] = "
                                 f"{float(b[k + 1])!r}")
        if extrapolate not in EXTRAPOLATIONS_2D:
            raise ValueError(f"{where}: extrapolate must be one of {EXTRAPOLATIONS_2D}, got "
                             f"{extrapolate!r}")
        self.x, self.y, self.z, self.extrapolate = x, y, z, extrapolate
        self._row = self.row()

    def row(self) -> np.ndarray:
        """The parameter row the compiled formula reads (MAX_PARAMS floats): the header (nx,
        ny, extrapolation), then x, y and z row by row (z[i, j] at i ny + j), zeros after."""
        row = np.zeros(MAX_PARAMS)
        nx, ny, h = len(self.x), len(self.y), lk.TABLE2D_HEADER
        row[lk.TABLE2D_NX], row[lk.TABLE2D_NY] = nx, ny
        # the 1-D codes: hold, continue the slopes, undefined (nan)
        row[lk.TABLE2D_EXTRAPOLATION] = {"hold": lk.HOLD, "linear": lk.SLOPE,
                                         "error": lk.UNDEFINED}[self.extrapolate]
        row[h:h + nx], row[h + nx:h + nx + ny] = self.x, self.y
        row[h + nx + ny:h + nx + ny + nx * ny] = self.z.ravel()
        return row

    def __call__(self, u: ArrayLike, w: ArrayLike) -> float | np.ndarray:
        """The value at (u, w) (numbers or arrays, broadcast together): a float, or an array
        of the broadcast shape."""
        us, ws = np.broadcast_arrays(np.asarray(u, dtype=float), np.asarray(w, dtype=float))
        flat_u = np.ascontiguousarray(us.ravel())
        flat_w = np.ascontiguousarray(ws.ravel())
        out = np.empty(flat_u.size)
        lk.table2d_values(self._row, flat_u, flat_w, out)
        if self.extrapolate == "error":
            bad = np.isnan(out) & ~np.isnan(flat_u) & ~np.isnan(flat_w)
            if np.any(bad):
                k = int(np.argmax(bad))
                raise ValueError(f"Table2D '{self.name}': (u, w) = ({float(flat_u[k])!r}, "
                                 f"{float(flat_w[k])!r}) is outside its grid u in "
                                 f"[{float(self.x[0])!r}, {float(self.x[-1])!r}], w in "
                                 f"[{float(self.y[0])!r}, {float(self.y[-1])!r}] "
                                 "(extrapolate='error')")
        return float(out[0]) if us.ndim == 0 else out.reshape(us.shape)

    def points(self) -> dict[str, float]:
        """{point: value}: the breakpoints ``xI``, ``yJ`` and the values ``zI_J``, the names
        :meth:`with_point` (and ``--set ELEMENT.PARAM.POINT=VALUE``) takes."""
        out = {f"x{i}": float(v) for i, v in enumerate(self.x)}
        out.update({f"y{j}": float(v) for j, v in enumerate(self.y)})
        out.update({f"z{i}_{j}": float(self.z[i, j]) for i in range(len(self.x))
                    for j in range(len(self.y))})
        return out

    def with_point(self, point: str, value: float) -> Table2D:
        """A new table like this one (extrapolation, name) with breakpoint ``xI`` or ``yJ``,
        or value ``zI_J``, set to ``value``; checked as the constructor checks a table.

        Raises
        ------
        ValueError
            A point not of the form xI, yJ or zI_J, an index out of range (naming the grid's
            size), or a table the constructor refuses.

        Examples
        --------
        >>> t = Table2D([0.0, 1.0], [0.0, 2.0], [[0.0, 2.0], [1.0, 3.0]])
        >>> t.with_point("z1_1", 5.0)(1.0, 2.0)
        5.0
        """
        nx, ny = len(self.x), len(self.y)
        where = f"Table2D '{self.name}'"
        forms = (f"xI (breakpoint I of u, I = 0 to {nx - 1}), yJ (breakpoint J of w, J = 0 "
                 f"to {ny - 1}) or zI_J (the value at x[I], y[J])")
        text = str(point).strip()
        match = re.fullmatch(r"([xy])(\d+)|z(\d+)_(\d+)", text)
        if match is None:
            raise ValueError(f"{where} has no point {point!r}: a point of a 2-D table is "
                             f"{forms}")
        x, y, z = self.x.copy(), self.y.copy(), self.z.copy()
        value = _number(value, f"{where}: {point}")
        if match.group(1):
            axis, k = match.group(1), int(match.group(2))
            if k >= (nx if axis == "x" else ny):
                raise ValueError(f"{where} has no point {point!r}: it is a {nx} x {ny} grid, "
                                 f"its points are {forms}")
            (x if axis == "x" else y)[k] = value
        else:
            i, j = int(match.group(3)), int(match.group(4))
            if i >= nx or j >= ny:
                raise ValueError(f"{where} has no point {point!r}: it is a {nx} x {ny} grid, "
                                 f"its points are {forms}")
            z[i, j] = value
        return Table2D(x, y, z, extrapolate=self.extrapolate, name=self.name)

    def __repr__(self):
        return (f"Table2D({self.name!r}: {len(self.x)} x {len(self.y)} grid, bilinear, "
                f"extrapolate={self.extrapolate!r})")


def _number(value, what):
    """``value`` as one float, else ValueError naming ``what``."""
    if isinstance(value, (bool, str)) or np.ndim(value) != 0:
        raise ValueError(f"{what} takes one number, got {value!r}")
    return float(value)
