"""Compiled force-element placements: read (x, xdot) from the mechanism, apply the law's load.

A placement (DESIGN §4) turns the state into the scalar pair a 1-D law reads, and the law's
scalar back into loads (the law itself is called through its kind's kernel entry, whose
address the element's record holds: :mod:`mbd.compiled.lawkernels`):

=====  ==========  =========================================  =====================================
code   placement   x, xdot                                    load
=====  ==========  =========================================  =====================================
0      JOINT       a revolute/prismatic joint coordinate      generalized force on that coordinate
1      LINE        distance |r| between CS A and CS B         F u at B, -F u at A (u = r/|r|)
2      AXIAL       r . a, a fixed in A                        F a at B's origin on B, -F a there on A
3      ROTATIONAL  twist angle of B relative to A about a     T grad(theta) on B, minus it on A
4      BUSHING     six: d, theta of CS B relative to CS A     [F; T] on B (A's axes), F through B's
                   (:func:`bushing`; x, xdot are its energy   origin; -F on A on the same line, -T
                   and power)                                 on A
5      CONTACT     the gap of a point of a pair of shapes     F n + friction at the point on B,
                   and its rate                               minus it on A
                   (:mod:`mbd.compiled.contactkernels`)
=====  ==========  =========================================  =====================================

The loads are exactly power-consistent (load . velocity = F xdot), so a conservative law
conserves energy. Each element's records are in :mod:`mbd.compiled.layout` (``ELEMENT``,
``ELEMENT_STATE``, ``MODE``); every kernel here runs on the kinematics that
:func:`mbd.compiled.kinematics.link_velocities` left in the link records.

A line element's direction u = r/|r| reverses where B passes through A (|r| = 0 with v != 0),
a jump in the force unless the law's value is zero there. It is the placement's own switch
(``PLACEMENT_SWITCH``): a piece keeps the side of the line's *reference direction* d (r/|r|
when the piece began) and continues the line smoothly through A (x = -|r|, u = -r/|r| on the
far side), and its switching function ``r . d - |r|/2`` changes sign exactly at the passage
(for motion along the line) — or where r has turned 60 degrees from d, where the piece simply
restarts with a new reference (the force is smooth there). Without a reference (d = 0: fresh
data, results) the line's direction is r/|r| as it is.
"""
from functools import cache

import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.extending import intrinsic

from . import broadphase, contactkernels, lawkernels, linkpoints, patchkernels
from .jit import native
from .jit.jitcache import njit
from .jit.native import call1f
from .layout import (
    AXIAL,
    BUSHING,
    CONTACT,
    DAMPING,
    ELEMENT,
    ELEMENT_STATE,
    JOINT,
    LAW_ARMED,
    LAW_FORCE,
    LAW_NATURAL_SIDES,
    LAW_ODD_AT_ZERO,
    LAW_SWITCHING,
    LINE,
    LINK_STATE,
    PLACEMENT_SWITCH,
    PRELOAD,
    ROTATIONAL,
    SCRATCH,
    STIFFNESS,
    records,
)

#: a line element restarts its piece where r turns this far from its reference (cos 60 deg)
REFERENCE_CONE = 0.5


@njit()
def quaternion_of(R, q):
    """Unit quaternion (w, x, y, z), w >= 0, of the rotation matrix R (Shepperd's method)."""
    tr = R[0, 0] + R[1, 1] + R[2, 2]
    if tr > 0.0:
        S = np.sqrt(tr + 1.0) * 2.0
        q[0] = 0.25 * S
        q[1] = (R[2, 1] - R[1, 2]) / S
        q[2] = (R[0, 2] - R[2, 0]) / S
        q[3] = (R[1, 0] - R[0, 1]) / S
    elif R[0, 0] > R[1, 1] and R[0, 0] > R[2, 2]:
        S = np.sqrt(1.0 + R[0, 0] - R[1, 1] - R[2, 2]) * 2.0
        q[0] = (R[2, 1] - R[1, 2]) / S
        q[1] = 0.25 * S
        q[2] = (R[0, 1] + R[1, 0]) / S
        q[3] = (R[0, 2] + R[2, 0]) / S
    elif R[1, 1] > R[2, 2]:
        S = np.sqrt(1.0 + R[1, 1] - R[0, 0] - R[2, 2]) * 2.0
        q[0] = (R[0, 2] - R[2, 0]) / S
        q[1] = (R[0, 1] + R[1, 0]) / S
        q[2] = 0.25 * S
        q[3] = (R[1, 2] + R[2, 1]) / S
    else:
        S = np.sqrt(1.0 + R[2, 2] - R[0, 0] - R[1, 1]) * 2.0
        q[0] = (R[1, 0] - R[0, 1]) / S
        q[1] = (R[0, 2] + R[2, 0]) / S
        q[2] = (R[1, 2] + R[2, 1]) / S
        q[3] = 0.25 * S
    if q[0] < 0.0:
        for k in range(4):
            q[k] = -q[k]


@njit(inline="always")
def _angle_factor(s, w):
    """2 atan2(s, w) / s: the rotation vector of a unit quaternion (w, v), w >= 0, is this
    times v (|v| = s); its limit 2 / w at s = 0."""
    if s < 1e-150:
        return 2.0 / w
    return 2.0 * np.arctan2(s, w) / s


@njit(inline="always")
def _inverse_jacobian_factor(angle):
    """b(theta) = 1/theta^2 - cot(theta/2) / (2 theta) of SO(3)'s inverse right Jacobian
    J_r^-1 = I + [theta]/2 + b [theta]^2 (its series below 1e-3 rad, where the closed form
    cancels)."""
    if angle < 1e-3:
        a2 = angle * angle
        return 1.0 / 12.0 + a2 * (1.0 / 720.0 + a2 / 30240.0)
    return 1.0 / (angle * angle) - 1.0 / (2.0 * angle * np.tan(0.5 * angle))


@njit()
def bushing(i, elements, estate, links, scratch):
    """Measure bushing i and evaluate its law (:class:`forces.Bushing`); returns (x, xdot,
    status) = (stored energy E, J; power on the mechanism, W; 0).

    With R_A, R_B the CSs' world axes, r = p_B - p_A and R = R_A^T R_B (all in A's axes)::

        d = R_A^T r                      ddot = R_A^T (v_B - v_A - w_A x r)
        theta = log(R) (rotation vector) w    = R_A^T (w_B - w_A)
        F = -K_t d - C_t ddot + F_0
        T = -J_r^-1(theta) K_r theta - C_r w + T_0
        E = d^T K_t d / 2 + theta^T K_r theta / 2,   P = F . ddot + T . w

    T's spring part is -dE/dtheta mapped to the angular velocity (w = J_l(theta) thetadot and
    J_l^-T = J_r^-1), so P = -dE/dt - ddot^T C_t ddot - w^T C_r w + F_0 . ddot + T_0 . w
    exactly. The record gets [F; T] (``wrench``), [d; theta] (``deflection``), [ddot; w]
    (``rate``), the world force on B (``direction``, with ``value`` 1) and torque on B
    (``torque``); the reaction acts on A at B's origin (``point_a``).
    """
    E, X = elements[i], estate[i]
    linkpoints.point(links, E.link_a, E.pos_a, X.point_a, X.vel_a, X.w_a)
    linkpoints.point(links, E.link_b, E.pos_b, X.point_b, X.vel_b, X.w_b)
    pA, pB, vA, vB, wA, wB = X.point_a, X.point_b, X.vel_a, X.vel_b, X.w_a, X.w_b
    sc = scratch[0]
    Ra, Rb, M = sc.D3, sc.T3, sc.M3
    linkpoints.cs_axes(links, E.link_a, E.frame_a, sc.J3, Ra)
    linkpoints.cs_axes(links, E.link_b, E.frame_b, sc.J3, Rb)
    for a in range(3):
        for b in range(3):
            M[a, b] = Ra[0, a] * Rb[0, b] + Ra[1, a] * Rb[1, b] + Ra[2, a] * Rb[2, b]
    r0, r1, r2 = pB[0] - pA[0], pB[1] - pA[1], pB[2] - pA[2]
    u0 = vB[0] - vA[0] - (wA[1] * r2 - wA[2] * r1)
    u1 = vB[1] - vA[1] - (wA[2] * r0 - wA[0] * r2)
    u2 = vB[2] - vA[2] - (wA[0] * r1 - wA[1] * r0)
    D, V = X.deflection, X.rate
    for a in range(3):
        D[a] = Ra[0, a] * r0 + Ra[1, a] * r1 + Ra[2, a] * r2
        V[a] = Ra[0, a] * u0 + Ra[1, a] * u1 + Ra[2, a] * u2
        V[3 + a] = (Ra[0, a] * (wB[0] - wA[0]) + Ra[1, a] * (wB[1] - wA[1])
                    + Ra[2, a] * (wB[2] - wA[2]))
    quat = sc.quat
    quaternion_of(M, quat)
    s = np.sqrt(quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3])
    f = _angle_factor(s, quat[0])
    for a in range(3):
        D[3 + a] = f * quat[1 + a]
    p, W = E.params, X.wrench
    K, C, F = STIFFNESS, DAMPING, PRELOAD
    energy = 0.0
    for k in range(6):
        energy += 0.5 * p[K + k] * D[k] * D[k]
        W[k] = -p[C + k] * V[k] + p[F + k]
    for k in range(3):
        W[k] -= p[K + k] * D[k]
    t0, t1, t2 = D[3], D[4], D[5]
    g0, g1, g2 = p[K + 3] * t0, p[K + 4] * t1, p[K + 5] * t2      # K_r theta = dE/dtheta
    c0, c1, c2 = t1 * g2 - t2 * g1, t2 * g0 - t0 * g2, t0 * g1 - t1 * g0      # theta x g
    e0, e1, e2 = t1 * c2 - t2 * c1, t2 * c0 - t0 * c2, t0 * c1 - t1 * c0      # theta x (theta x g)
    b = _inverse_jacobian_factor(np.sqrt(t0 * t0 + t1 * t1 + t2 * t2))
    W[3] -= g0 + 0.5 * c0 + b * e0
    W[4] -= g1 + 0.5 * c1 + b * e1
    W[5] -= g2 + 0.5 * c2 + b * e2
    power = 0.0
    for k in range(6):
        power += W[k] * V[k]
    d, T = X.direction, X.torque
    for a in range(3):
        d[a] = Ra[a, 0] * W[0] + Ra[a, 1] * W[1] + Ra[a, 2] * W[2]
        T[a] = Ra[a, 0] * W[3] + Ra[a, 1] * W[4] + Ra[a, 2] * W[5]
        pA[a] = pB[a]    # the reaction on A acts at B's origin: Newton's third law, one line
    return energy, power, 0


@njit()
def bushing_entry(i, elements, estate, links, scratch):
    """:func:`bushing`, called through its address (a bushing record's ``measure_entry``, see
    :func:`call_measure`): x and xdot into element i's state record; returns the status."""
    x, xd, status = bushing(i, elements, estate, links, scratch)
    X = estate[i]
    X.x, X.xdot = x, xd
    return status


@cache
def measure_type():
    """The numba signature of :func:`bushing_entry`: the record formats of every System's
    data (:mod:`mbd.compiled.layout`)."""
    rec = native.typeof
    return types.int64(types.int64, rec(records(ELEMENT, 1)), rec(records(ELEMENT_STATE, 1)),
                       rec(records(LINK_STATE, 1)), rec(records(SCRATCH, 1)))


def measure_entry(kind, pair=-1):
    """The address of the measure compiled apart for placement ``kind`` (BUSHING: its six
    deflections, rates and wrench; CONTACT: a point of a pair of shapes (``pair``),
    :func:`mbd.compiled.contactkernels.measure` or, for a pair by GJK/EPA,
    ``measure_convex``; large code that only a model with such elements compiles), or 0."""
    if kind == BUSHING:
        return native.address(bushing_entry, measure_type())
    if kind == CONTACT:
        entry = (contactkernels.measure_convex if pair == contactkernels.CONVEX
                 else contactkernels.measure)
        return native.address(entry, measure_type())
    return 0


@intrinsic
def call_measure(typingctx, address, i, elements, estate, links, scratch):
    """The status of the measure at ``address`` (:func:`measure_entry`) of element i; the
    arguments must be exactly of the types it is compiled for (else a typing error)."""
    if not isinstance(address, types.Integer):
        return None
    signature = measure_type()
    given = (i, elements, estate, links, scratch)
    if given != tuple(signature.args):
        raise TypingError(f"call_measure: arguments {given}, compiled for {signature.args}")
    return signature.return_type(address, *given), native.address_call


@njit(inline="always")
def signal_values(t, elements):
    """Write the parameters given as compiled functions of time (a user's numba f(t)) at t
    (s) into their elements' rows."""
    for i in range(elements.shape[0]):
        E = elements[i]
        if E.signal != 0:
            E.params[E.signal_slot] = call1f(E.signal, t)


@njit()
def measure(i, q, v, elements, estate, mode, links, scratch):
    """(x, xdot, status) of element i; its ``estate`` record receives the load's direction
    and application points. Status 1: a line element whose direction is undefined (|r| = 0
    at zero relative velocity); 2: a rotational element at a half turn (no twist angle)."""
    E, X = elements[i], estate[i]
    if E.kind == JOINT:
        return q[E.q_index], v[E.v_index], 0
    if E.kind == BUSHING or E.kind == CONTACT:
        status = call_measure(E.measure_entry, i, elements, estate, links, scratch)
        return X.x, X.xdot, status
    linkpoints.point(links, E.link_a, E.pos_a, X.point_a, X.vel_a, X.w_a)
    linkpoints.point(links, E.link_b, E.pos_b, X.point_b, X.vel_b, X.w_b)
    pA, pB, vA, vB, wA, wB, d = X.point_a, X.point_b, X.vel_a, X.vel_b, X.w_a, X.w_b, X.direction
    r0, r1, r2 = pB[0] - pA[0], pB[1] - pA[1], pB[2] - pA[2]
    if E.kind == LINE:
        u0, u1, u2 = vB[0] - vA[0], vB[1] - vA[1], vB[2] - vA[2]
        dist = np.sqrt(r0 * r0 + r1 * r1 + r2 * r2)
        speed = np.sqrt(u0 * u0 + u1 * u1 + u2 * u2)
        ref = mode[i].reference
        along = r0 * ref[0] + r1 * ref[1] + r2 * ref[2]
        if dist > E.eps:
            sign = -1.0 if along < 0.0 else 1.0   # past the anchor: continued along the line
            d[0], d[1], d[2] = sign * r0 / dist, sign * r1 / dist, sign * r2 / dist
            return sign * dist, d[0] * u0 + d[1] * u1 + d[2] * u2, 0
        if speed > E.eps:
            if ref[0] == 0.0 and ref[1] == 0.0 and ref[2] == 0.0:
                # through the anchor: the velocity gives the direction (SPEC 3.1)
                d[0], d[1], d[2] = u0 / speed, u1 / speed, u2 / speed
                return dist, speed, 0
            # within a piece, the line through the anchor along its reference
            d[0], d[1], d[2] = ref[0], ref[1], ref[2]
            return (r0 * ref[0] + r1 * ref[1] + r2 * ref[2],
                    u0 * ref[0] + u1 * ref[1] + u2 * ref[2], 0)
        d[0] = d[1] = d[2] = 0.0
        # |r| = 0 within the tolerance at rest: the law reads exactly 0, so a spring with
        # r0 = 0 settled on its anchor exerts no force (SPEC 3.1) instead of a round-off one
        return 0.0, 0.0, 1
    if E.kind == AXIAL:
        linkpoints.to_world(links, E.link_a, E.axis, d)
        x = r0 * d[0] + r1 * d[1] + r2 * d[2]
        # d/dt (r . a) = (vB - vA) . a + r . (wA x a)
        c0 = wA[1] * d[2] - wA[2] * d[1]
        c1 = wA[2] * d[0] - wA[0] * d[2]
        c2 = wA[0] * d[1] - wA[1] * d[0]
        xd = ((vB[0] - vA[0]) * d[0] + (vB[1] - vA[1]) * d[1] + (vB[2] - vA[2]) * d[2]
              + r0 * c0 + r1 * c1 + r2 * c2)
        for m in range(3):
            pA[m] = pB[m]    # the reaction on A acts at B's origin: Newton's third law, one line
        return x, xd, 0
    # ROTATIONAL: M = R_A^T R_B R0^T in A's link axes, theta its twist about a
    sc = scratch[0]
    M, RA, RB = sc.M3, sc.J3, sc.T3
    linkpoints.world_axes(links, E.link_a, RA)
    linkpoints.world_axes(links, E.link_b, RB)
    for r in range(3):
        for c in range(3):
            acc = 0.0
            for m in range(3):
                for n in range(3):
                    acc += RA[n, r] * RB[n, m] * E.R0[c, m]
            M[r, c] = acc
    quat = sc.quat
    quaternion_of(M, quat)
    ax = E.axis
    cw = quat[0]
    sw = quat[1] * ax[0] + quat[2] * ax[1] + quat[3] * ax[2]
    den = sw * sw + cw * cw
    if den < 1e-24:
        return 0.0, 0.0, 2
    theta = 2.0 * np.arctan2(sw, cw)
    # grad theta (A axes) = (c^2 a + c (qv x a) + s qv) / (s^2 + c^2)
    qx, qy, qz = quat[1], quat[2], quat[3]
    grad = sc.p
    grad[0] = (cw * cw * ax[0] + cw * (qy * ax[2] - qz * ax[1]) + sw * qx) / den
    grad[1] = (cw * cw * ax[1] + cw * (qz * ax[0] - qx * ax[2]) + sw * qy) / den
    grad[2] = (cw * cw * ax[2] + cw * (qx * ax[1] - qy * ax[0]) + sw * qz) / den
    linkpoints.to_world(links, E.link_a, grad, d)
    thd = (wB[0] - wA[0]) * d[0] + (wB[1] - wA[1]) * d[1] + (wB[2] - wA[2]) * d[2]
    return theta, thd, 0


@njit(inline="always")
def apply(i, F, elements, estate, links, tau):
    """Apply the law value F of element i as loads; record the world load vector on B."""
    E, X = elements[i], estate[i]
    if E.kind == JOINT:
        tau[E.v_index] += F
        return
    W = X.vector
    for m in range(3):
        W[m] = F * X.direction[m]
    if E.kind == ROTATIONAL:
        linkpoints.add_torque(links, E.link_b, W, 1.0)
        linkpoints.add_torque(links, E.link_a, W, -1.0)
        return
    if E.kind == BUSHING:
        linkpoints.add_torque(links, E.link_b, X.torque, 1.0)
        linkpoints.add_torque(links, E.link_a, X.torque, -1.0)
    elif E.kind == CONTACT:     # and friction in the tangent plane, at the same point
        contactkernels.friction_force(X, F)
        for m in range(3):
            W[m] += X.friction[m]
    linkpoints.add_force(links, E.link_b, W, X.point_b)
    for m in range(3):
        W[m] = -W[m]
    linkpoints.add_force(links, E.link_a, W, X.point_a)
    for m in range(3):
        W[m] = -W[m]


@njit()
def element_loads(q, v, elements, estate, mode, links, scratch, tau, pairs, points, stamp):
    """Every element's law at the current kinematics, applied into the links' ``fext`` and
    ``tau`` (both zeroed first by the caller); contact points the broad phase of ``stamp``
    left out are not measured (:func:`mbd.compiled.broadphase.unmeasured`: no load).
    Returns the first element whose direction is undefined + 1, or 0."""
    bad = 0
    for i in range(elements.shape[0]):
        if broadphase.unmeasured(i, points, mode, pairs, stamp):
            broadphase.leave_unmeasured(i, points, estate, pairs)
            continue
        points[i].written = 1
        x, xd, status = measure(i, q, v, elements, estate, mode, links, scratch)
        X = estate[i]
        X.x, X.xdot, X.status = x, xd, status
        # a bushing's loads are 1 x its record's force and torque (measured with it)
        F = (1.0 if elements[i].kind == BUSHING else
             lawkernels.call_law(elements[i].law_entry, LAW_FORCE, elements, mode, i, x, xd,
                                 mode[i].sides[:], 0))
        X.value = F
        if status != 0:
            # direction undefined: fine only while the law's force there is zero
            for m in range(3):
                X.vector[m] = 0.0
            if F != 0.0 and bad == 0:
                bad = i + 1
            continue
        if elements[i].patch < 0:       # (an exact patch's points: once all are measured)
            apply(i, F, elements, estate, links, tau)
    for i in range(elements.shape[0]):
        if points[i].patch >= 0:        # exact friction: kinetic, or none while it sticks
            if points[i].patch == i:
                patchkernels.patch_motion(i, elements, estate, mode)
            if broadphase.unmeasured(i, points, mode, pairs, stamp):
                continue
            patchkernels.kinetic_friction(i, elements, estate, mode)
            apply(i, estate[i].value, elements, estate, links, tau)
    return bad


@njit(inline="always")
def _placement_switching(i, elements, estate, mode):
    """The placement's own switching function (only a line element has one)."""
    if elements[i].kind != LINE:
        return 0.0
    X, ref = estate[i], mode[i].reference
    r0 = X.point_b[0] - X.point_a[0]
    r1 = X.point_b[1] - X.point_a[1]
    r2 = X.point_b[2] - X.point_a[2]
    return (r0 * ref[0] + r1 * ref[1] + r2 * ref[2]
            - REFERENCE_CONE * np.sqrt(r0 * r0 + r1 * r1 + r2 * r2))


@njit(inline="always")
def switching_values(q, v, elements, estate, mode, links, scratch, g, pairs, points, stamp,
                     first, last):
    """g[first:last] (of (nf, SWITCHES)) = those elements' switching functions at the current
    kinematics (a contact point the broad phase of ``stamp`` left out: its contact's at its
    pair's bound, :func:`mbd.compiled.broadphase.unmeasured_switching`; stamp < 0: every one
    measured); the exact patches' too where they are all the elements."""
    for i in range(first, last):
        if stamp >= 0 and broadphase.unmeasured(i, points, mode, pairs, stamp):
            broadphase.leave_unmeasured(i, points, estate, pairs)
            broadphase.unmeasured_switching(i, points, pairs, g)
            continue
        points[i].written = 1
        x, xd, status = measure(i, q, v, elements, estate, mode, links, scratch)
        lawkernels.call_law(elements[i].law_entry, LAW_SWITCHING, elements, mode, i, x, xd, g[i],
                            0)
        g[i, PLACEMENT_SWITCH] = _placement_switching(i, elements, estate, mode)
    if first == 0 and last == elements.shape[0]:
        patchkernels.patch_switching(elements, estate, mode, g)


@njit(inline="always")
def natural_mode(q, v, elements, estate, mode, links, scratch, g, pairs, points, stamp):
    """The mode the current state itself selects: every side the sign of its switching
    function (zero counting as +1) and every line's reference the direction of r (of the
    relative velocity where |r| = 0; kept where both vanish). A contact point the broad
    phase of ``stamp`` found far is out of contact whatever its mode was (its sides at its
    far gap, at rest)."""
    for i in range(elements.shape[0]):
        E, X, Md = elements[i], estate[i], mode[i]
        if broadphase.far(i, points, pairs, stamp):
            lawkernels.call_law(E.law_entry, LAW_NATURAL_SIDES, elements, mode, i,
                                pairs[points[i].pair].bound, 0.0, g[i], 0)
            broadphase.leave_unmeasured(i, points, estate, pairs)
            if E.patch != i:
                Md.sides[PLACEMENT_SWITCH] = 1.0
            continue
        points[i].written = 1
        if E.kind == LINE:
            for m in range(3):
                Md.reference[m] = 0.0         # measured as it is, without a reference
            measure(i, q, v, elements, estate, mode, links, scratch)
            for m in range(3):
                Md.reference[m] = X.direction[m]
        x, xd, status = measure(i, q, v, elements, estate, mode, links, scratch)
        lawkernels.call_law(E.law_entry, LAW_NATURAL_SIDES, elements, mode, i, x, xd, g[i], 0)
        if E.patch != i:      # (an exact patch's stick or slip is the run's to decide)
            Md.sides[PLACEMENT_SWITCH] = 1.0


@njit()
def armed(elements, mode, out):
    """out (nf, SWITCHES): the switching functions that can change a branch in the mode."""
    for i in range(elements.shape[0]):
        E = elements[i]
        for k in range(out.shape[1] - 1):
            out[i, k] = lawkernels.call_law(E.law_entry, LAW_ARMED, elements, mode, i, 0.0, 0.0,
                                            mode[i].sides[:], k) != 0.0
        # a line reverses where B passes A: a switch where the law's force jumps there
        out[i, PLACEMENT_SWITCH] = (E.kind == LINE and lawkernels.call_law(
            E.law_entry, LAW_ODD_AT_ZERO, elements, mode, i, 0.0, 0.0, mode[i].sides[:], 0)
            == 0.0)
        if E.patch == i:      # an exact patch sticks or slips while a point is in contact
            for j in range(i, i + E.patch_size):
                if patchkernels.in_contact(mode, j):
                    out[i, PLACEMENT_SWITCH] = True
