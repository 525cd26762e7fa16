"""The 1-D laws as the core's kernels call them, with their branches frozen by *sides*.

Each law kind is one module of an element package (``forces/elastogap.py``: its parameter
record, compiled functions and labels) registered with :mod:`mbd.compiled.registry`, which
generates the dispatch over the law ``code``. The kernels call it as attributes of this module,
``lawkernels.force(code, p, x, v, s)``, ``switching(code, p, x, v, s, g)``, ``armed(code, p,
s, k)``, ``odd_at_zero(code, p)``, ``natural_sides(code, p, x, v, s, g)``, ``next_mode(code,
p, x, v, s, k)``, ``energy(code, p, x, s)`` and ``energies(code, P, X, S, out)``: the first read
(numba reads them when it compiles a kernel) seals the registry. This module also holds the
small formulas several laws share (:func:`spow`, :func:`step_ramp`).

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

from . import registry
from .jitcache import njit
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


def __getattr__(name):
    """The dispatch functions (:data:`mbd.compiled.registry.FUNCTIONS`), from the sealed
    registry."""
    if name in registry.FUNCTIONS:
        return getattr(registry.seal(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def parameter_row(law, t=0.0, state=None, out=None):
    """The row (``MAX_PARAMS`` floats) the compiled formulas read: the law's parameters at time
    t (s) and ``state``, by its kind's parameter record, zeros after; written into ``out`` when
    given (a run's own row, refreshed before every evaluation without allocating one)."""
    row = np.zeros(MAX_PARAMS) if out is None else out
    values = np.asarray(law.parameters(t, state), dtype=float)
    row[:len(values)] = values
    row[len(values):] = 0.0
    return row
