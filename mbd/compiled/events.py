"""Events: where a force law switches branch, found exactly, logged, and chattering caught.

While a piece runs, every switching function's side is frozen (:mod:`mbd.compiled.lawkernels`,
:mod:`mbd.compiled.forcekernels`). The run stage asks three questions here, with one answer each
for both integration loops (the compiled one and scipy's):

- has an armed switching function left its side? — :func:`departed`, the one crossing
  predicate, used by :func:`crossed` inside the compiled loop and by :func:`crossed_mask`;
- where? — :func:`illinois`, the one Illinois iteration on a step's dense output (compiled in
  the compiled loop, run as Python by :func:`locate` in scipy's);
- is it chattering? — :class:`ChatterWatch`: switches that keep coming while the motion does
  not progress.

Every switch goes into the log as an :class:`Event`.
"""
from collections import deque, namedtuple

import numpy as np
from numba import types
from numba.extending import overload

from .jitcache import njit
from .native import call2f

Event = namedtuple("Event", "t element what")
Event.__doc__ = """A switch in the event log: time t (s), the force element's name, what changed."""

#: the unit round-off of a float (np.finfo, a microsecond a call, read once)
EPS = np.finfo(float).eps


def _departed(g, side):
    """Whether a switching function whose value is g has left the side ``side`` (+-1): a zero
    counts as +1 (so a contact, always a negative side, begins only strictly inside)."""
    return (g >= 0.0) != (side > 0.0)


departed = njit(inline="always")(_departed)


@njit()
def crossed(armed, g, mode):
    """Whether any armed switching function (mask (nf, SWITCHES)) with values g has left its
    side in ``mode`` (MODE records)."""
    for i in range(armed.shape[0]):
        for k in range(armed.shape[1]):
            if armed[i, k] and departed(g[i, k], mode[i].sides[k]):
                return True
    return False


@njit()
def crossed_mask(armed, g, mode, out):
    """out (nf, SWITCHES) = which armed switching functions have left their sides; returns
    whether any did."""
    any_crossed = False
    for i in range(armed.shape[0]):
        for k in range(armed.shape[1]):
            out[i, k] = armed[i, k] and departed(g[i, k], mode[i].sides[k])
            any_crossed = any_crossed or out[i, k]
    return any_crossed


def evaluate(g, t, context):
    """g(t, context): a Python callable, run as Python; compiled, the address of a compiled
    function of that signature (:mod:`mbd.compiled.native`)."""
    return g(t, context)


@overload(evaluate)
def _evaluate_compiled(g, t, context):
    if isinstance(g, types.Integer):
        return lambda g, t, context: call2f(g, t, context)
    return None


@njit()
def illinois(g, context, ta, tb, side, tol):
    """The time in (ta, tb] where ``g(t, context)`` leaves the side ``side`` (+-1), bracketed
    by the Illinois variant of regula falsi until the bracket is at most ``tol`` wide; returns
    its far end (already across, so the new branch starts strictly past the boundary).

    The one crossing search of both loops: compiled, with ``g`` the address of a compiled
    function (the compiled loop's, :func:`mbd.run.steplocate.locate_on_step`), or run as Python by
    :func:`locate`.
    """
    a, b = ta, tb
    ga, gb = evaluate(g, a, context), evaluate(g, b, context)
    keep = 0
    while b - a > tol:
        m = b - gb * (b - a) / (gb - ga) if gb != ga else 0.5 * (a + b)
        if not (a < m < b):
            m = 0.5 * (a + b)
        gm = evaluate(g, m, context)
        if not departed(gm, side):      # still on the old side: the crossing is later
            a, ga = m, gm
            if keep == -1:
                gb *= 0.5
            keep = -1
        else:
            b, gb = m, gm
            if keep == 1:
                ga *= 0.5
            keep = 1
    return b


def _call(t, g_of_t):
    return g_of_t(t)


def locate(g_of_t, ta, tb, side, tol):
    """:func:`illinois` run as Python, on a switching function of time ``g_of_t`` (on scipy's
    dense output of a step)."""
    return illinois.py_func(_call, g_of_t, ta, tb, side, tol)


def time_tolerance(ta, tb):
    """How narrow :func:`locate` brackets a crossing in a step from ta to tb: a few units of
    round-off in t (s)."""
    return 4.0 * EPS * max(abs(ta), abs(tb), 1.0)


class ChatterWatch:
    """Chattering: a law that keeps switching while the motion does not progress.

    The watch keeps the state at the last ``CHATTER_COUNT`` switches; when all of them lie
    within one unit of the integration tolerance of the first (the error norm of their
    differences below 1: nothing moved that the integrator can resolve), the switches are
    chattering. The rule looks at the motion, not at a time span, so it is the same for a
    1 ms run and a 1e6 s one.
    """

    #: this many switches in a row with the state unchanged to the tolerance is chattering
    CHATTER_COUNT = 50

    def __init__(self, settings):
        self.settings = settings      # the run's tolerances (mbd.run.settings.Settings)
        self.recent = deque(maxlen=self.CHATTER_COUNT)

    def switched(self, t, element, y):
        """Note a switch of ``element`` (name) at time t in state y."""
        self.recent.append((t, element, np.array(y, dtype=float)))

    def chattering(self):
        """(element, count, t_first, t_last) of the chattering switches, or None."""
        if len(self.recent) < self.CHATTER_COUNT:
            return None
        first = self.recent[0][2]
        scale = self.settings.weights(first)
        for _, _, y in self.recent:
            if np.sqrt(np.mean(((y - first) / scale) ** 2)) > 1.0:
                return None
        names = [name for _, name, _ in self.recent]
        worst = max(set(names), key=names.count)
        return worst, names.count(worst), self.recent[0][0], self.recent[-1][0]
