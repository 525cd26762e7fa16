"""Compiled formulas of the built-in 1-D laws, with their branches frozen by *sides*.

The classes users see live in ``forces.laws``; they carry a law ``code`` and a parameter row
``p``. The formulas live here because the core's single compiled right-hand side evaluates
them (DESIGN §3), and ``mbd`` may not import ``forces`` (DESIGN §1).

Exact switching (DESIGN §5). Each law has up to ``LAW_SWITCHES`` switching functions
``g_k(x, v, t)``; its branch is fixed by the *sides* ``s_k`` in {-1, +1} (the sign ``g_k`` had
when the current piece began). While a piece runs the sides are frozen, so the force is a
smooth function of the state, continued past a branch boundary by the same formula; the driver
stops exactly where an *armed* ``g_k`` changes sign, flips ``s_k`` and restarts. Functions
that cannot change the branch in the current mode (a clamp while out of contact) are not armed.
A zero of ``g_k`` counts as +1, and every contact (gap, backlash, stop) is the negative side
of its function: a state exactly on a contact boundary is out of contact, as SPEC's strict
inequalities say, and the point just across a located contact start is strictly inside it.

Every law returns the force (N) or torque (N m) on the follower along +x (SPEC §3.2).
"""
import numpy as np

from .jitcache import njit
from .layout import LAW_SWITCHES, MAX_PARAMS  # noqa: F401  (MAX_PARAMS: the row laws fill)

LINEAR, CONSTANT, ELASTOGAP, ELASTOBACKLASH, ELASTOBACKLASH2, BISTOP, VARIABLE_SPRING = range(7)
#: a bushing's six-component linear law: no 1-D formula (:func:`force` gives nan) and no
#: switches; :func:`mbd.compiled.forcekernels.bushing` evaluates it
BUSHING = 7
#: Coulomb friction with stick-slip on a joint primitive (``forces.JointStiction``): sides
#: s[0] the slip direction (sign of the rate), s[1] -1 while it sticks (its lock row carries
#: the force, :mod:`mbd.compiled.loopkernels`), +1 while it slips
STICTION = 8

#: the backlash below which ElastoBacklash is a plain spring-damper (Modelica's bEps), rad
B_EPS = 1e-10


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


@njit()
def switching(code, p, x, v, s, g):
    """g[0:LAW_SWITCHES] = the law's switching functions at (x, v), given sides ``s``.

    Some functions (a backlash's clamp) depend on the contact branch, read from ``s``.
    """
    for k in range(LAW_SWITCHES):
        g[k] = 0.0
    if code == ELASTOGAP:
        c, d, s0, n = p[0], p[1], p[2], p[3]
        fc = -c * spow(s0 - x, n)
        g[0] = x - s0            # contact while < 0
        g[1] = d * v - fc        # damping clamped at f_c while < 0
        g[2] = d * v + fc        # damping clamped at -f_c (never pulls) while > 0
    elif code == ELASTOBACKLASH or code == ELASTOBACKLASH2:
        c, d, b, phi0 = p[0], p[1], p[2], p[3]
        if abs(b) <= B_EPS:
            return
        phid = x - phi0
        # contact is the negative side of both, so a zero (phi_diff = +-b/2 exactly, counted
        # as +1) is in the backlash, as SPEC's strict inequalities say
        g[0] = 0.5 * b - phid    # upper contact while < 0
        g[1] = phid + 0.5 * b    # lower contact while < 0
        tc = 0.0
        if s[0] < 0.0:
            tc = c * (phid - 0.5 * b)
        elif s[1] < 0.0:
            tc = c * (phid + 0.5 * b)
        g[2] = tc + d * v        # contact torque would pull: it is zero instead
        g[3] = d * v - tc        # ElastoBacklash's min/max picks the damper torque
    elif code == BISTOP:
        x1, x2, d = p[0], p[1], p[5]
        # contact is the negative side of both: x = x1 or x2 exactly is in the gap (SPEC)
        g[0] = x - x1            # lower stop while < 0
        g[1] = x2 - x            # upper stop while < 0
        if s[0] < 0.0:
            g[2] = x - (x1 - d)  # damping ramp ends (full cmax below)
            g[3] = _bistop_raw(p, x, v, s)
        elif s[1] < 0.0:
            g[2] = x - (x2 + d)
            g[3] = _bistop_raw(p, x, v, s)
    elif code == VARIABLE_SPRING:
        g[0] = p[0] - p[1]       # K - K_min: K in use while >= 0
    elif code == STICTION:
        g[0] = v                 # slipping: the rate reaches zero (stick or reverse)
        # sticking: |lambda| - f_s, with lambda the force the lock needs, is written by
        # mbd.compiled.statefunction.elements_and_locks; without it the lock holds
        g[1] = -1.0


@njit(inline="always")
def armed(code, p, s, k):
    """True when switching function k can change the branch in the mode ``s``."""
    if code == ELASTOGAP:
        return k == 0 or (k <= 2 and s[0] < 0.0)
    if code == ELASTOBACKLASH or code == ELASTOBACKLASH2:
        if abs(p[2]) <= B_EPS:
            return False
        if k <= 1:
            return True
        # without damping the clamps' functions are the contact torque itself, zero only
        # where contact begins or ends: no branch change of their own
        in_contact = s[0] < 0.0 or s[1] < 0.0
        return in_contact and p[1] > 0.0 and (k == 2 or code == ELASTOBACKLASH)
    if code == BISTOP:
        if k <= 1:
            return True
        return k <= 3 and (s[0] < 0.0 or s[1] < 0.0)
    if code == VARIABLE_SPRING:
        return k == 0
    if code == STICTION:
        return (k == 0 and s[1] > 0.0) or (k == 1 and s[1] < 0.0)
    return False


@njit(inline="always")
def odd_at_zero(code, p):
    """Whether the law's force at x = 0 is odd in the rate there, f(0, v) = -f(0, -v), so that
    a line element's force does not jump where its direction reverses (B passing A): a plain
    spring-damper with no natural length, or no force at all."""
    if code == LINEAR:
        return p[0] * p[2] == 0.0
    if code == CONSTANT:
        return p[0] == 0.0
    return False


@njit()
def _bistop_raw(p, x, v, s):
    """BISTOP's force before the clamp, in the contact branch the sides select."""
    x1, x2, k, e, cmax, d = p[0], p[1], p[2], p[3], p[4], p[5]
    if s[0] < 0.0:
        damp = cmax if s[2] < 0.0 else step_ramp(x, x1 - d, cmax, x1, 0.0)
        return k * spow(x1 - x, e) - damp * v
    damp = cmax if s[2] > 0.0 else step_ramp(x, x2, 0.0, x2 + d, cmax)
    return -k * spow(x - x2, e) - damp * v


@njit()
def force(code, p, x, v, s):
    """The law's force on the follower along +x at (x, v) in the branch fixed by ``s``."""
    if code == LINEAR:
        return -p[0] * (x - p[2]) - p[1] * v
    if code == CONSTANT:
        return p[0]
    if code == ELASTOGAP:
        if s[0] > 0.0:
            return 0.0
        c, d, s0, n = p[0], p[1], p[2], p[3]
        fc = -c * spow(s0 - x, n)
        fd = d * v
        if s[1] < 0.0:
            fd = fc
        elif s[2] > 0.0:
            fd = -fc
        return -(fc + fd)    # Modelica's f is the cut force: the follower feels -f
    if code == ELASTOBACKLASH or code == ELASTOBACKLASH2:
        c, d, b, phi0 = p[0], p[1], p[2], p[3]
        phid = x - phi0
        dw = d * v
        if abs(b) <= B_EPS:
            return -(c * phid + dw)
        if d == 0.0 and (s[0] < 0.0 or s[1] < 0.0):     # the spring alone (clamps unarmed)
            return -c * (phid - (0.5 * b if s[0] < 0.0 else -0.5 * b))
        if s[0] < 0.0:
            tc = c * (phid - 0.5 * b)
            if s[2] < 0.0:
                return 0.0
            if code == ELASTOBACKLASH and s[3] > 0.0:
                return -(tc + tc)
            return -(tc + dw)
        if s[1] < 0.0:
            tc = c * (phid + 0.5 * b)
            if s[2] > 0.0:
                return 0.0
            if code == ELASTOBACKLASH and s[3] < 0.0:
                return -(tc + tc)
            return -(tc + dw)
        return 0.0
    if code == BISTOP:
        if s[0] < 0.0:
            return _bistop_raw(p, x, v, s) if s[3] > 0.0 else 0.0
        if s[1] < 0.0:
            return _bistop_raw(p, x, v, s) if s[3] < 0.0 else 0.0
        return 0.0
    if code == VARIABLE_SPRING:
        K = p[0] if s[0] > 0.0 else p[1]
        return -K * (p[2] + x)
    if code == STICTION:
        # sticking, the lock's force holds it (the rate is zero, and so the viscous part)
        kinetic = 0.0 if s[1] < 0.0 else p[1] * s[0]
        return -kinetic - p[2] * v
    return np.nan


@njit()
def natural_sides(code, p, x, v, s, g):
    """s = the sides the state itself selects (sign of each g, zero counting as +1).

    g_k may depend on the sides s_j, j < k (a clamp on the contact branch), so they are
    settled in order.
    """
    if code == STICTION:
        # whether it sticks is decided where the rate reaches zero, from the force the lock
        # needs (mbd.run.integrators): the state keeps a sticking element stuck, sticks one at
        # rest (v = 0 exactly) and gives a slipping one the direction of its rate
        if s[1] > 0.0 and v != 0.0:
            s[0] = 1.0 if v > 0.0 else -1.0
        elif v == 0.0:
            s[1] = -1.0
        for k in range(2, LAW_SWITCHES):
            s[k] = 1.0
        return
    for k in range(LAW_SWITCHES):
        s[k] = 1.0
    for k in range(LAW_SWITCHES):
        switching(code, p, x, v, s, g)
        s[k] = 1.0 if g[k] >= 0.0 else -1.0
