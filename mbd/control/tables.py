"""Lookup tables (SPEC §9): a measured curve y(x), usable as a function of time (an
``Actuator`` value, a ``VariableRotationalSpring``'s K(t)) and as a force law of a deflection
(``forces.TableForce``), evaluated by one compiled formula
(:func:`mbd.compiled.lawkernels.table_value`) wherever it is used."""
import numpy as np

from ..compiled import lawkernels as lk
from ..compiled.jitcache import njit
from ..compiled.layout import MAX_PARAMS

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

    def __init__(self, x, y, kind="linear", extrapolate="hold", name="table"):
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

    def row(self, damping=0.0):
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

    def __call__(self, u):
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
    def compiled_function(self):
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

    def integral(self, u):
        """The integral of the table from 0 to u (a number; hold or linear extrapolation)."""
        return float(lk.table_integral(self._row, float(u)) - lk.table_integral(self._row, 0.0))

    def __repr__(self):
        return (f"Table({self.name!r}: {len(self.x)} points, {self.kind}, extrapolate="
                f"{self.extrapolate!r})")
