"""Events: where a force law switches branch, found exactly, logged, and chattering caught.

While a piece runs, every switching function's side is frozen (:mod:`mbd.compiled.lawkernels`,
:mod:`mbd.compiled.forcekernels`). The run stage asks three questions here, with one answer each
for both integration loops (the compiled one and scipy's):

- has an armed switching function left its side? — :func:`departed`, the one crossing
  predicate, used by :func:`crossed` inside the compiled loop and by :func:`crossed_mask`;
- has one left its side and come back within a step (a double crossing, which the signs at
  the step's ends cannot tell)? — :func:`turning`, a screen on the values and rates at the
  step's ends, then :func:`departure`, the function's lowest point on the step's dense output;
- where? — :func:`illinois`, the one Illinois iteration on a step's dense output (compiled in
  the compiled loop, run as Python by :func:`locate` in scipy's);
- is it chattering? — :class:`ChatterWatch`: switches that keep coming while the motion does
  not progress.

Every switch goes into the log as an :class:`Event`.
"""
from __future__ import annotations

from collections import deque
from typing import NamedTuple

import numpy as np
from numba import types
from numba.extending import overload

from .jit.jitcache import njit
from .jit.native import call2f


class Event(NamedTuple):
    """A switch in the event log: time t (s), the force element's name, what changed."""

    t: float
    element: str
    what: str


#: the unit round-off of a float (np.finfo, a microsecond a call, read once)
EPS = np.finfo(float).eps

#: :func:`turning` suspects a double crossing where the lowest point of a switching function's
#: cubic over a step comes within NEAR times its depth (how far it dips below the higher end)
#: of the boundary: the cubic only estimates a function that may be far from cubic (a contact
#: force ~ pen^1.5 has an infinite second derivative where the contact ends), so generously
RATE_NEAR = 4.0
#: the rates of the switching functions are differences over this share of the step
RATE_SHARE = 1e-3
#: :func:`departure` samples the step at this many equal parts before it refines the lowest
#: sample (a narrow dip far from the cubic's guess is found too)
DIP_SAMPLES = 8
#: 2 - the golden ratio: a golden-section step's share of the larger part of the bracket
GOLDEN = 0.3819660112501051


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


def real_switches(before, after, armed_before, armed_after):
    """The switches to log where the sides went from ``before`` to ``after`` (nf, SWITCHES),
    with ``armed_before`` / ``armed_after`` the masks of the functions armed in each: a list
    of (element index, switch k), one per change of the element's mode.

    An element's mode is the sides of its armed functions only (a force reads no other side,
    DESIGN §9): a side that flips while its function is unarmed before or after changed
    nothing the law uses — BISTOP's ramp and clamp sides, unarmed as its upper contact ends,
    change with it and are no switch of their own. So a flip is logged when its function was
    armed both before and after; an element whose mode changed without such a flip (one
    whose crossing disarms the function that crossed) logs the flips that were armed before.
    """
    changed = before != after
    flips_before = armed_before & changed
    logged = armed_after & flips_before           # armed before and after: its own switch
    # an element whose mode changed (its armed set, or an armed side) without such a flip
    # logs the flips armed before, else those armed after (whole arrays: one event among
    # thousands of elements costs no Python loop over them)
    other = ~logged.any(axis=1) & ((armed_before != armed_after).any(axis=1)
                                   | flips_before.any(axis=1))
    logged[other] = flips_before[other]
    after_only = other & ~flips_before.any(axis=1)
    logged[after_only] = (armed_after & changed)[after_only]
    return [(int(i), int(k)) for i, k in zip(*np.nonzero(logged))]


def evaluate(g, t, context):
    """g(t, context): a Python callable, run as Python; compiled, the address of a compiled
    function of that signature (:mod:`mbd.compiled.jit.native`)."""
    return g(t, context)


@overload(evaluate)
def _evaluate_compiled(g, t, context):
    if isinstance(g, types.Integer):
        return lambda g, t, context: call2f(g, t, context)
    return None


@njit(inline="always")
def turning(g_a, rate_a, g_b, rate_b, h, side):
    """Whether a switching function on its side ``side`` (+-1) at both ends of a step of h s
    may have left it in between, and where: the share s in (0, 1) of the step at the lowest
    point of u = side g, or -1 when it cannot have. g_a, g_b are its values at the step's
    ends, rate_a, rate_b its rates there (g's unit per s).

    The screen takes the cubic Hermite interpolant of u on the step (s = (t - t_a) / h)::

        p(s) = u_a + d_a s + c2 s^2 + c3 s^3,   d = h side rate,
        c2 = 3 (u_b - u_a) - 2 d_a - d_b,   c3 = 2 (u_a - u_b) + d_a + d_b

    and suspects its interior minimum p_min (p' = 0, p'' > 0) when p_min < RATE_NEAR
    (max(u_a, u_b) - p_min): a function that turned towards its boundary and back, close to
    it for how far it moved. A function that moves one way, or turns far from its boundary
    (or not at all, at rest), costs nothing more.

    >>> turning(-1.0, 30.0, -1.0, -30.0, 0.1, -1.0)     # g: -1 up to -0.25 and back
    0.5
    >>> turning(-1.0, 3.0, -1.0, -3.0, 0.1, -1.0)       # ... up to -0.925 only: far
    -1.0
    """
    u_a, u_b = side * g_a, side * g_b
    d_a, d_b = side * rate_a * h, side * rate_b * h
    c2 = 3.0 * (u_b - u_a) - 2.0 * d_a - d_b
    c3 = 2.0 * (u_a - u_b) + d_a + d_b
    disc = c2 * c2 - 3.0 * c3 * d_a       # p'(s) = d_a + 2 c2 s + 3 c3 s^2 has real roots
    if not disc >= 0.0:
        return -1.0
    q = c2 + np.sqrt(disc)                # the root where p'' = 2 sqrt(disc) > 0, stably
    if not q > 0.0:
        return -1.0
    s = -d_a / q
    if not 0.0 < s < 1.0:
        return -1.0
    p_min = u_a + s * (d_a + s * (c2 + s * c3))
    if p_min < RATE_NEAR * (max(u_a, u_b) - p_min):
        return s
    return -1.0


@njit()
def departure(g, context, ta, tb, side, guess):
    """A time in (ta, tb) (s) where ``g(t, context)`` is off the side ``side`` (+-1), the
    earliest of those found, or nan where its lowest point in the step is not.

    g is sampled at the DIP_SAMPLES - 1 inner points that cut the step into equal parts and at
    ``guess`` (s, where :func:`turning` expects the lowest point); the lowest sample, between
    its neighbours, is refined by Brent's minimization (a parabola through the last three
    points where it shrinks the bracket fast enough, a golden section else) to 1e-7 of the
    step, stopping as soon as a point is off the side. Compiled (``g`` the address of a
    compiled function, the compiled loops' :func:`mbd.run.steppers.stepping.departures`) or run as
    Python (:func:`lowest`).
    """
    h = tb - ta
    part = h / DIP_SAMPLES
    if not ta < guess < tb:
        guess = ta + 0.5 * h
    first = np.inf                  # the earliest sample off the side
    x, fx, a, b = ta, np.inf, ta, tb        # the lowest sample and its neighbours
    for j in range(1, DIP_SAMPLES + 1):
        if j < DIP_SAMPLES:
            t, lo, hi = ta + j * part, ta + (j - 1) * part, ta + (j + 1) * part
        else:
            t = guess
            lo = ta + min(int((guess - ta) / part), DIP_SAMPLES - 1) * part
            hi = lo + part
        gt = evaluate(g, t, context)
        if departed(gt, side):
            first = min(first, t)
        elif side * gt < fx:
            x, fx, a, b = t, side * gt, lo, min(hi, tb)
    if first < np.inf:
        return first
    # Brent: w, v the second and third lowest points, d the last move, e the one before
    tol = 1e-7 * h
    w, fw, v, fv = x, fx, x, fx
    d = e = 0.0
    for _ in range(200):
        m = 0.5 * (a + b)
        tol1 = tol + 2.0 * EPS * abs(x)
        if abs(x - m) <= 2.0 * tol1 - 0.5 * (b - a):
            break
        golden = True
        if abs(e) > tol1:
            r = (x - w) * (fx - fv)
            q = (x - v) * (fx - fw)
            p = (x - v) * q - (x - w) * r
            q = 2.0 * (q - r)
            if q > 0.0:
                p = -p
            q = abs(q)
            if abs(p) < abs(0.5 * q * e) and q * (a - x) < p < q * (b - x):
                e, d = d, p / q
                golden = False
                if x + d - a < 2.0 * tol1 or b - (x + d) < 2.0 * tol1:
                    d = tol1 if x < m else -tol1
        if golden:
            e = b - x if x < m else a - x
            d = GOLDEN * e
        t = x + d if abs(d) >= tol1 else x + (tol1 if d > 0.0 else -tol1)
        gt = evaluate(g, t, context)
        if departed(gt, side):
            return t
        u = side * gt
        if u <= fx:
            if t < x:
                b = x
            else:
                a = x
            v, fv, w, fw, x, fx = w, fw, x, fx, t, u
        else:
            if t < x:
                a = t
            else:
                b = t
            if u <= fw or w == x:
                v, fv, w, fw = w, fw, t, u
            elif u <= fv or v == x or v == w:
                v, fv = t, u
    return np.nan


@njit()
def illinois(g, context, ta, tb, side, tol):
    """The time in (ta, tb] where ``g(t, context)`` leaves the side ``side`` (+-1), bracketed
    by the Illinois variant of regula falsi until the bracket is at most ``tol`` wide; returns
    its far end (already across, so the new branch starts strictly past the boundary).

    The one crossing search of both loops: compiled, with ``g`` the address of a compiled
    function (the compiled loop's, :func:`mbd.run.steppers.steplocate.locate_on_step`), or run as
    Python by :func:`locate`.
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


def lowest(g_of_t, ta, tb, side, guess):
    """:func:`departure` run as Python, on a switching function of time ``g_of_t`` (on scipy's
    dense output of a step)."""
    return departure.py_func(_call, g_of_t, ta, tb, side, guess)


def time_tolerance(ta, tb):
    """How narrow :func:`locate` brackets a crossing in a step from ta to tb: a few units of
    round-off in t (s)."""
    return 4.0 * EPS * max(abs(ta), abs(tb), 1.0)


class ChatterWatch:
    """Chattering: laws that keep switching while the motion does not progress.

    The watch keeps the state at the recent switches. The switches back from the last one
    whose states lie within one unit of the integration tolerance of its state (the error
    norm of their differences below 1: nothing moved that the integrator can resolve) are
    chattering when there are ``CHATTER_COUNT`` or more of them and they repeat: each
    element among them switched ``CHATTER_REPEATS`` times on average. Many elements that
    each switch once or twice at one instant (a flat face of a hull landing on a floor: its
    coplanar vertices touching within round-off of each other) are a crowd of events, not
    chattering; ``CHATTER_MOST`` switches with the state unchanged are, however spread. The
    rule looks at the motion, not at a time span, so it is the same for a 1 ms run and a
    1e6 s one.
    """

    #: this many switches in a row with the state unchanged may be chattering
    CHATTER_COUNT = 50
    #: ... if each element among them switched this many times on average
    CHATTER_REPEATS = 4
    #: ... and this many always are
    CHATTER_MOST = 2000

    def __init__(self, settings):
        self.settings = settings      # the run's tolerances (mbd.run.settings.Settings)
        self.recent = deque(maxlen=self.CHATTER_MOST)

    def switched(self, t, element, y):
        """Note a switch of ``element`` (name) at time t in state y."""
        self.recent.append((t, element, np.array(y, dtype=float)))

    def chattering(self):
        """(element, count, t_first, t_last) of the chattering switches, or None."""
        if len(self.recent) < self.CHATTER_COUNT:
            return None
        last = self.recent[-1][2]
        scale = self.settings.weights(last)
        still = []                    # back from the last: the switches at its state
        for t, name, y in reversed(self.recent):
            if np.sqrt(np.mean(((y - last) / scale) ** 2)) > 1.0:
                break
            still.append((t, name))
        if len(still) < self.CHATTER_COUNT:
            return None
        names = [name for _, name in still]
        if (len(still) < self.CHATTER_REPEATS * len(set(names))
                and len(still) < self.CHATTER_MOST):
            return None
        worst = max(set(names), key=names.count)
        return worst, names.count(worst), still[-1][0], still[0][0]
