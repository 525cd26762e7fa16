"""The 1-D laws as the core calls them, with their branches frozen by *sides*.

Each law kind is one module of an element package (``forces/elastogap.py``: its parameter
record, compiled functions and labels) registered with :mod:`mbd.compiled.registry`, which
generates each kind's compiled functions and its kernel entry. The core's kernels call a law
through the entry address its element's record holds (:func:`call_law`), so that no kernel is
compiled with any kind inside. Python calls a
law by its code: ``force(code, p, x, v, s)``, ``switching(code, p, x, v, s, g)``,
``armed(code, p, s, k)``, ``odd_at_zero(code, p)``, ``natural_sides(code, p, x, v, s, g)``,
``next_mode(code, p, x, v, s, k)``, ``energy(code, p, x, s)`` and ``energies(code, P, X, S,
out)`` (each compiles only that kind's function). This module also holds the small formulas
several laws share (:func:`spow`, :func:`step_ramp`) and the tables'.

Exact switching (DESIGN §5). Each law has up to ``LAW_SWITCHES`` switching functions
``g_k(x, v, t)``; its branch is fixed by the *sides* ``s_k`` in {-1, +1} (the sign ``g_k`` had
when the current piece began). While a piece runs the sides are frozen, so the force is a
smooth function of the state, continued past a branch boundary by the same formula; the driver
stops exactly where an *armed* ``g_k`` changes sign, flips ``s_k`` and restarts. Functions
that cannot change the branch in the current mode (a clamp while out of contact, or one that is
zero only where another function is: an undamped clamp's, the spring force itself) are not
armed, so that the log holds real switches only; a force must then not read their sides.
A zero of ``g_k`` counts as +1, and every contact (gap, backlash, stop) is the negative side
of its function: a state exactly on a contact boundary is out of contact, as SPEC's strict
inequalities say, and the point just across a located contact start is strictly inside it.

Every law returns the force (N) or torque (N m) on the follower along +x (SPEC §3.2).
"""
import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.extending import intrinsic

from . import registry
from .jit import native
from .jit.jitcache import njit
from .layout import MAX_PARAMS


@njit(inline="always")
def spow(a, n):
    """sign(a) |a|^n: the odd continuation of a^n, smooth through 0 for n >= 1."""
    if a >= 0.0:
        return a ** n
    return -((-a) ** n)


@njit(inline="always")
def step_ramp(x, x0, h0, x1, h1):
    """The cubic of Adams' STEP between (x0, h0) and (x1, h1), not clamped (the frozen ramp
    branch continues it smoothly).

    Written from the nearer end, h0 + (h1 - h0) z^2 (3 - 2z) = h1 + (h0 - h1) w^2 (3 - 2w)
    with w = 1 - z, so that near either end the small part carries no cancellation (BISTOP's
    damping at first touch is exactly zero, not round-off).
    """
    z = (x - x0) / (x1 - x0)
    if z <= 0.5:
        return h0 + (h1 - h0) * z * z * (3.0 - 2.0 * z)
    w = (x1 - x) / (x1 - x0)
    return h1 + (h0 - h1) * w * w * (3.0 - 2.0 * w)


def _python(role):
    """The Python-called function of ``role`` (:data:`mbd.compiled.registry.FUNCTIONS`):
    ``f(code, *args)`` calls the compiled function of kind ``code``."""
    def call(code, *args):
        return getattr(registry.kind(code).compiled, role)(*args)
    call.__name__ = call.__qualname__ = role
    call.__doc__ = (f"The {role} of law kind ``code`` (see the module docstring), compiled for "
                    "that kind alone.")
    return call


force, switching, armed, odd_at_zero, natural_sides, next_mode, energy, energies = (
    _python(role) for role in registry.FUNCTIONS)


@intrinsic
def call_law(typingctx, address, task, elements, mode, i, x, v, g, k):
    """``element_law(task, elements, mode, i, x, v, g, k)`` of the kind whose kernel entry is
    at ``address`` (a float; see :func:`mbd.compiled.registry.source`). The arguments must be
    exactly of the types the entries are compiled for: anything else is a typing error, never
    a wrong call."""
    if not isinstance(address, types.Integer):
        return None
    signature = registry.entry_type()
    given = (task, elements, mode, i, x, v, g, k)
    if given != tuple(signature.args):
        raise TypingError(f"call_law: arguments {given}, the entries are compiled for "
                          f"{signature.args}")
    return signature.return_type(address, *given), native.address_call


def parameter_row(law, t=0.0, state=None, out=None):
    """The row (``MAX_PARAMS`` floats) the compiled formulas read: the law's parameters at time
    t (s) and ``state``, by its kind's parameter record, zeros after; written into ``out`` when
    given (a run's own row, refreshed before every evaluation without allocating one)."""
    row = np.zeros(MAX_PARAMS) if out is None else out
    values = law.parameters(t, state)
    n = len(values)
    row[:n] = values
    row[n:] = 0.0
    return row


#: a table's parameter row (:class:`mbd.control.Table`): its header, then its breakpoints x,
#: values y and slopes d (MAX_TABLE each, the first n used)
TABLE_N, TABLE_INTERPOLATION, TABLE_EXTRAPOLATION, TABLE_DAMPING = range(4)
TABLE_HEADER = 4
MAX_TABLE = (MAX_PARAMS - TABLE_HEADER) // 3
#: interpolation: piecewise linear, or the piecewise cubic of the slopes d (pchip, spline)
LINEAR, HERMITE = 0, 1
#: extrapolation: hold the end values, continue the end slopes, repeat, or not defined (nan)
HOLD, SLOPE, PERIODIC, UNDEFINED = 0, 1, 2, 3


@njit(inline="always")
def _grid_piece(p, start, n, u):
    """(i, t): the interval [b_i, b_i+1] of the n breakpoints b = p[start:start + n] holding u
    (clamped to the end intervals) and u's place t in it (0 to 1 inside, beyond outside)."""
    lo, hi = 0, n - 1
    while hi - lo > 1:             # bisection: b_lo <= u < b_hi
        mid = (lo + hi) // 2
        if p[start + mid] <= u:
            lo = mid
        else:
            hi = mid
    return lo, (u - p[start + lo]) / (p[start + lo + 1] - p[start + lo])


@njit(inline="always")
def _table_piece(p, u):
    """(i, t, h, n): the interval [x_i, x_i+1] of table row p holding u (clamped to the
    end intervals), u's place t in it (0 to 1) and its length h."""
    n = int(p[TABLE_N])
    i, t = _grid_piece(p, TABLE_HEADER, n, u)
    return i, t, p[TABLE_HEADER + i + 1] - p[TABLE_HEADER + i], n


@njit(inline="always")
def _end_slope(p, n, right):
    """The slope a table continues with past its first (or last, ``right``) breakpoint."""
    x, y, d = TABLE_HEADER, TABLE_HEADER + MAX_TABLE, TABLE_HEADER + 2 * MAX_TABLE
    if p[TABLE_INTERPOLATION] == HERMITE:
        return p[d + n - 1] if right else p[d]
    if right:
        return (p[y + n - 1] - p[y + n - 2]) / (p[x + n - 1] - p[x + n - 2])
    return (p[y + 1] - p[y]) / (p[x + 1] - p[x])


@njit()
def table_value(p, u):
    """The value of the table of row p at u: linear or cubic Hermite within its breakpoints;
    past them held, continued along the end slope, repeated, or nan (its extrapolation)."""
    n = int(p[TABLE_N])
    x, y, d = TABLE_HEADER, TABLE_HEADER + MAX_TABLE, TABLE_HEADER + 2 * MAX_TABLE
    lo, hi = p[x], p[x + n - 1]
    mode = p[TABLE_EXTRAPOLATION]
    if mode == PERIODIC:
        if u < lo or u > hi:    # (inside, unwrapped: a breakpoint gives its value exactly)
            u = lo + (u - lo) % (hi - lo)
    elif u < lo or u > hi:
        if mode == HOLD:
            return p[y] if u < lo else p[y + n - 1]
        if mode == SLOPE:
            if u < lo:
                return p[y] + _end_slope(p, n, False) * (u - lo)
            return p[y + n - 1] + _end_slope(p, n, True) * (u - hi)
        return np.nan
    i, t, h, n = _table_piece(p, u)
    if p[TABLE_INTERPOLATION] == LINEAR:
        return p[y + i] + t * (p[y + i + 1] - p[y + i])
    t2 = t * t
    t3 = t2 * t
    return ((2.0 * t3 - 3.0 * t2 + 1.0) * p[y + i] + (t3 - 2.0 * t2 + t) * h * p[d + i]
            + (3.0 * t2 - 2.0 * t3) * p[y + i + 1] + (t3 - t2) * h * p[d + i + 1])


@njit(inline="always")
def _piece_integral(p, i, t, h):
    """The integral of the table's piece i from its start to its fraction t (0 to 1)."""
    y, d = TABLE_HEADER + MAX_TABLE, TABLE_HEADER + 2 * MAX_TABLE
    t2 = t * t
    if p[TABLE_INTERPOLATION] == LINEAR:
        return h * (p[y + i] * t + 0.5 * (p[y + i + 1] - p[y + i]) * t2)
    t3, t4 = t2 * t, t2 * t2
    return h * ((0.5 * t4 - t3 + t) * p[y + i] + (0.25 * t4 - 2.0 * t3 / 3.0 + 0.5 * t2) * h
                * p[d + i] + (t3 - 0.5 * t4) * p[y + i + 1]
                + (0.25 * t4 - t3 / 3.0) * h * p[d + i + 1])


@njit()
def table_integral(p, u):
    """The integral of the table of row p from its first breakpoint to u (hold or slope
    extrapolation; nan for the others)."""
    n = int(p[TABLE_N])
    x, y = TABLE_HEADER, TABLE_HEADER + MAX_TABLE
    lo, hi = p[x], p[x + n - 1]
    mode = p[TABLE_EXTRAPOLATION]
    if mode != HOLD and mode != SLOPE:
        return np.nan
    if u < lo:
        s = 0.0 if mode == HOLD else _end_slope(p, n, False)
        return (u - lo) * (p[y] + 0.5 * s * (u - lo))
    total = 0.0
    top = min(u, hi)
    i, t, h, n = _table_piece(p, top)
    for k in range(i):
        total += _piece_integral(p, k, 1.0, p[x + k + 1] - p[x + k])
    total += _piece_integral(p, i, t, h)
    if u > hi:
        s = 0.0 if mode == HOLD else _end_slope(p, n, True)
        total += (u - hi) * (p[y + n - 1] + 0.5 * s * (u - hi))
    return total


@njit()
def table_values(p, us, out):
    """:func:`table_value` at every u of ``us`` into ``out``."""
    for j in range(us.shape[0]):
        out[j] = table_value(p, us[j])


#: a 2-D table's parameter row (:class:`mbd.control.Table2D`): its header (nx, ny, the
#: extrapolation), then its breakpoints x (nx), y (ny) and values z (nx ny, z[i, j] at
#: i ny + j): packed end to end, so nx ny + nx + ny + TABLE2D_HEADER <= MAX_PARAMS
TABLE2D_NX, TABLE2D_NY, TABLE2D_EXTRAPOLATION = range(3)
TABLE2D_HEADER = 3


@njit()
def table2d_value(p, u, w):
    """The value of the 2-D table of row p at (u, w): bilinear in the grid cell holding it;
    past the breakpoints held (u and w clamped), continued along the end cells' bilinear form,
    or nan (its extrapolation)."""
    nx, ny = int(p[TABLE2D_NX]), int(p[TABLE2D_NY])
    x = TABLE2D_HEADER
    y = x + nx
    z = y + ny
    mode = p[TABLE2D_EXTRAPOLATION]
    if mode == HOLD:
        u = min(max(u, p[x]), p[x + nx - 1])
        w = min(max(w, p[y]), p[y + ny - 1])
    elif mode != SLOPE and (u < p[x] or u > p[x + nx - 1] or w < p[y] or w > p[y + ny - 1]):
        return np.nan
    i, t = _grid_piece(p, x, nx, u)
    j, s = _grid_piece(p, y, ny, w)
    k = z + i * ny + j
    return ((1.0 - t) * ((1.0 - s) * p[k] + s * p[k + 1])
            + t * ((1.0 - s) * p[k + ny] + s * p[k + ny + 1]))


@njit()
def table2d_values(p, us, ws, out):
    """:func:`table2d_value` at every (u, w) of ``us`` and ``ws`` into ``out``."""
    for j in range(us.shape[0]):
        out[j] = table2d_value(p, us[j], ws[j])
