"""Compiled force-element placements: read (x, xdot) from the mechanism, apply the law's load.

A placement (DESIGN §4) turns the state into the scalar pair a 1-D law reads, and the law's
scalar back into loads:

=====  ==========  =========================================  =====================================
code   placement   x, xdot                                    load
=====  ==========  =========================================  =====================================
0      JOINT       a revolute/prismatic joint coordinate      generalized force on that coordinate
1      LINE        distance |r| between CS A and CS B         F u at B, -F u at A (u = r/|r|)
2      AXIAL       r . a, a fixed in A                        F a at B's origin on B, -F a there on A
3      ROTATIONAL  twist angle of B relative to A about a     T grad(theta) on B, minus it on A
=====  ==========  =========================================  =====================================

The loads are exactly power-consistent (load . velocity = F xdot), so a conservative law
conserves energy. The element arrays ``fel`` are built by :func:`mbd.system.build`:
``(kind, law, params, qv, links, pos, axis, R0, eps)``.
"""
import numpy as np

from . import kernels, lawkernels
from .lawkernels import njit

JOINT, LINE, AXIAL, ROTATIONAL = 0, 1, 2, 3

#: columns of the per-element record: law input x, xdot, law value, world vector (force on B
#: for LINE/AXIAL, torque on B for ROTATIONAL), and a status (0 ok, 1 direction undefined)
RECORD = ("x", "xdot", "value", "wx", "wy", "wz", "status")


@njit()
def _point(link, pl, ws, p_out, v_out, w_out):
    """World position, velocity of a point fixed on ``link`` (local ``pl``) and the link's
    world angular velocity; a ground (link < 0) holds ``pl`` in world coordinates."""
    E0, p0, vel = ws[3], ws[4], ws[5]
    if link < 0:
        for a in range(3):
            p_out[a] = pl[a]
            v_out[a] = 0.0
            w_out[a] = 0.0
        return
    w = vel[link, :3]
    vo = vel[link, 3:]
    c0 = w[1] * pl[2] - w[2] * pl[1] + vo[0]
    c1 = w[2] * pl[0] - w[0] * pl[2] + vo[1]
    c2 = w[0] * pl[1] - w[1] * pl[0] + vo[2]
    for a in range(3):
        # world = E0^T local
        p_out[a] = p0[link, a] + E0[link, 0, a] * pl[0] + E0[link, 1, a] * pl[1] + E0[link, 2, a] * pl[2]
        v_out[a] = E0[link, 0, a] * c0 + E0[link, 1, a] * c1 + E0[link, 2, a] * c2
        w_out[a] = E0[link, 0, a] * w[0] + E0[link, 1, a] * w[1] + E0[link, 2, a] * w[2]


@njit()
def _to_world(link, vec_local, ws, out):
    """out = R_link vec_local (identity for a ground)."""
    E0 = ws[3]
    for a in range(3):
        if link < 0:
            out[a] = vec_local[a]
        else:
            out[a] = (E0[link, 0, a] * vec_local[0] + E0[link, 1, a] * vec_local[1]
                      + E0[link, 2, a] * vec_local[2])


@njit()
def _add_force(link, F, point, ws, fext):
    """fext[link] += the world force F acting at the world point, in link coordinates."""
    if link < 0:
        return
    E0, p0 = ws[3], ws[4]
    r0 = point[0] - p0[link, 0]
    r1 = point[1] - p0[link, 1]
    r2 = point[2] - p0[link, 2]
    m0 = r1 * F[2] - r2 * F[1]
    m1 = r2 * F[0] - r0 * F[2]
    m2 = r0 * F[1] - r1 * F[0]
    for a in range(3):
        fext[link, a] += E0[link, a, 0] * m0 + E0[link, a, 1] * m1 + E0[link, a, 2] * m2
        fext[link, 3 + a] += E0[link, a, 0] * F[0] + E0[link, a, 1] * F[1] + E0[link, a, 2] * F[2]


@njit()
def _add_torque(link, T, ws, fext):
    if link < 0:
        return
    E0 = ws[3]
    for a in range(3):
        fext[link, a] += E0[link, a, 0] * T[0] + E0[link, a, 1] * T[1] + E0[link, a, 2] * T[2]


@njit()
def _quaternion_of(R, q):
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


@njit()
def measure(i, fel, q, v, ws, geo):
    """(x, xdot, status) of element i; ``geo`` receives what :func:`apply` needs.

    geo rows: 0 the world direction of the load, 1 the application point on B, 2 on A,
    3-5 scratch. Status 1: a LINE element whose direction is undefined (|r| = 0, v = 0).
    """
    kind, law, params, qv, links, pos, axis, R0, eps = fel
    k = kind[i]
    if k == JOINT:
        return q[qv[i, 0]], v[qv[i, 1]], 0
    la, lb = links[i, 0], links[i, 1]
    pA, vA, wA, pB, vB, wB = geo[2], geo[3], geo[4], geo[1], geo[5], geo[0]
    _point(la, pos[i, 0], ws, pA, vA, wA)
    _point(lb, pos[i, 1], ws, pB, vB, wB)
    if k == LINE:
        r0, r1, r2 = pB[0] - pA[0], pB[1] - pA[1], pB[2] - pA[2]
        u0, u1, u2 = vB[0] - vA[0], vB[1] - vA[1], vB[2] - vA[2]
        dist = np.sqrt(r0 * r0 + r1 * r1 + r2 * r2)
        speed = np.sqrt(u0 * u0 + u1 * u1 + u2 * u2)
        d = geo[0]
        if dist > eps[0]:
            d[0], d[1], d[2] = r0 / dist, r1 / dist, r2 / dist
            return dist, d[0] * u0 + d[1] * u1 + d[2] * u2, 0
        if speed > eps[0]:   # through the anchor: the velocity gives the direction (SPEC §3.1)
            d[0], d[1], d[2] = u0 / speed, u1 / speed, u2 / speed
            return dist, speed, 0
        d[0] = d[1] = d[2] = 0.0
        # |r| = 0 within the tolerance: the law reads exactly 0, so a spring with r0 = 0 that
        # has settled on its anchor exerts no force (SPEC §3.1) instead of a round-off one
        return 0.0, 0.0, 1
    if k == AXIAL:
        a = geo[0]
        _to_world(la, axis[i], ws, a)
        r0, r1, r2 = pB[0] - pA[0], pB[1] - pA[1], pB[2] - pA[2]
        x = r0 * a[0] + r1 * a[1] + r2 * a[2]
        # d/dt (r . a) = (vB - vA) . a + r . (wA x a)
        c0 = wA[1] * a[2] - wA[2] * a[1]
        c1 = wA[2] * a[0] - wA[0] * a[2]
        c2 = wA[0] * a[1] - wA[1] * a[0]
        xd = ((vB[0] - vA[0]) * a[0] + (vB[1] - vA[1]) * a[1] + (vB[2] - vA[2]) * a[2]
              + r0 * c0 + r1 * c1 + r2 * c2)
        for m in range(3):
            pA[m] = pB[m]    # the reaction on A acts at B's origin: Newton's third law, one line
        return x, xd, 0
    # ROTATIONAL: dR = R_A^T R_B R0^T in A's link axes, theta its twist about a
    E0 = ws[3]
    M = ws[16][0, :3, :3]
    for r in range(3):
        for c in range(3):
            s = 0.0
            for m in range(3):
                # (R_A^T R_B)[r, m] = sum_n E0A[r, n] E0B[m, n]
                ab = 0.0
                for n in range(3):
                    ea = E0[la, r, n] if la >= 0 else (1.0 if r == n else 0.0)
                    eb = E0[lb, m, n] if lb >= 0 else (1.0 if m == n else 0.0)
                    ab += ea * eb
                s += ab * R0[i, c, m]
            M[r, c] = s
    qq = geo[3]
    qv4 = ws[15][6]
    _quaternion_of(M, qv4)
    ax = axis[i]
    cw = qv4[0]
    sw = qv4[1] * ax[0] + qv4[2] * ax[1] + qv4[3] * ax[2]
    den = sw * sw + cw * cw
    if den < 1e-24:
        return 0.0, 0.0, 2
    theta = 2.0 * np.arctan2(sw, cw)
    # grad theta (A axes) = (c^2 a + c (qv x a) + s qv) / (s^2 + c^2)
    qx, qy, qz = qv4[1], qv4[2], qv4[3]
    qq[0] = (cw * cw * ax[0] + cw * (qy * ax[2] - qz * ax[1]) + sw * qx) / den
    qq[1] = (cw * cw * ax[1] + cw * (qz * ax[0] - qx * ax[2]) + sw * qy) / den
    qq[2] = (cw * cw * ax[2] + cw * (qx * ax[1] - qy * ax[0]) + sw * qz) / den
    g_w = geo[2]  # A's point is not needed by a torque
    _to_world(la, qq, ws, g_w)
    thd = (wB[0] - wA[0]) * g_w[0] + (wB[1] - wA[1]) * g_w[1] + (wB[2] - wA[2]) * g_w[2]
    for m in range(3):
        geo[0, m] = g_w[m]
    return theta, thd, 0


@njit()
def apply(i, F, fel, geo, ws, tau, fext, rec):
    """Apply the law value F of element i as loads; record the world load vector on B."""
    kind, law, params, qv, links, pos, axis, R0, eps = fel
    k = kind[i]
    if k == JOINT:
        tau[qv[i, 1]] += F
        return
    la, lb = links[i, 0], links[i, 1]
    d = geo[0]
    W = geo[5]
    for m in range(3):
        W[m] = F * d[m]
        rec[i, 3 + m] = W[m]
    if k == ROTATIONAL:
        _add_torque(lb, W, ws, fext)
        for m in range(3):
            W[m] = -W[m]
        _add_torque(la, W, ws, fext)
        return
    _add_force(lb, W, geo[1], ws, fext)
    for m in range(3):
        W[m] = -W[m]
    _add_force(la, W, geo[2], ws, fext)


@njit()
def element_loads(fel, sides, q, v, ws, tau, fext, rec, geo):
    """Every element's law at the current kinematics (``link_velocities`` done), applied into
    ``tau`` and ``fext`` (zeroed here); returns the first element with an undefined
    direction + 1, or 0."""
    kind, law, params = fel[0], fel[1], fel[2]
    for a in range(tau.shape[0]):
        tau[a] = 0.0
    for a in range(fext.shape[0]):
        for b in range(6):
            fext[a, b] = 0.0
    bad = 0
    for i in range(kind.shape[0]):
        x, xd, status = measure(i, fel, q, v, ws, geo)
        rec[i, 0] = x
        rec[i, 1] = xd
        rec[i, 6] = status
        if status != 0:
            # direction undefined: fine only while the law's force there is zero
            F = lawkernels.force(law[i], params[i], x, xd, sides[i])
            rec[i, 2] = F
            if F != 0.0 and bad == 0:
                bad = i + 1
            continue
        F = lawkernels.force(law[i], params[i], x, xd, sides[i])
        rec[i, 2] = F
        apply(i, F, fel, geo, ws, tau, fext, rec)
    return bad


@njit()
def state_derivative(y, mdl, fel, sides, ws, tau, fext, rec, geo, dy):
    """dy/dt for y = [q, v] with the force elements in the modes ``sides``.

    Returns 0, or the index + 1 of an element whose load direction is undefined.
    """
    mdl, fel, ws = kernels.borrowed(mdl), kernels.borrowed(fel), kernels.borrowed(ws)
    y, sides, tau, fext, rec, geo, dy = kernels.borrowed((y, sides, tau, fext, rec, geo, dy))
    qn = ws[0]
    nq = qn.shape[0]
    v = y[nq:]
    kernels.normalize_quaternions(y[:nq], mdl, qn)
    bad = 0
    posed = fel[0].shape[0] > 0
    if posed:
        kernels.link_velocities(qn, v, mdl, ws)   # the elements read link velocities
        bad = element_loads(fel, sides, qn, v, ws, tau, fext, rec, geo)
    else:
        tau[:] = 0.0
        fext[:] = 0.0
    kernels.quaternion_rates(qn, v, mdl, dy[:nq])
    kernels.tree_accelerations(qn, v, tau, fext, mdl, ws, dy[nq:], posed)
    return bad


@njit()
def _kinematics(y, mdl, ws):
    """Normalize y's quaternions into ws and compute the link kinematics; returns (q, v)."""
    qn = ws[0]
    nq = qn.shape[0]
    kernels.normalize_quaternions(y[:nq], mdl, qn)
    kernels.link_velocities(qn, y[nq:], mdl, ws)
    return qn, y[nq:]


@njit()
def switching_values(y, mdl, fel, sides, ws, g, geo):
    """g (nf, MAX_SWITCH) = every element's switching functions at the state y."""
    law, params = fel[1], fel[2]
    q, v = _kinematics(y, mdl, ws)
    for i in range(law.shape[0]):
        x, xd, status = measure(i, fel, q, v, ws, geo)
        lawkernels.switching(law[i], params[i], x, xd, sides[i], g[i])


@njit()
def natural_modes(y, mdl, fel, ws, sides, g, geo):
    """sides (nf, MAX_SWITCH) = the branches the state y itself selects."""
    law, params = fel[1], fel[2]
    q, v = _kinematics(y, mdl, ws)
    for i in range(law.shape[0]):
        x, xd, status = measure(i, fel, q, v, ws, geo)
        lawkernels.natural_sides(law[i], params[i], x, xd, sides[i], g[i])


@njit()
def records(y, mdl, fel, sides, ws, rec, geo):
    """rec (nf, 7) = every element's x, xdot, value, world load on B and status at y
    (for results: allocates)."""
    q, v = _kinematics(y, mdl, ws)
    tau = np.zeros(v.shape[0])
    fext = np.zeros((mdl[0].shape[0], 6))
    for i in range(rec.shape[0]):
        for c in range(rec.shape[1]):
            rec[i, c] = 0.0
    element_loads(fel, sides, q, v, ws, tau, fext, rec, geo)
