"""Compiled constraint rows: loop closures and motion drivers (DESIGN §3).

Every joint that closes a loop (a *cut* joint) keeps its own coordinates: the build hangs its
primitives from its base side as a massless chain, whose end must coincide with the follower
CS. Each cut joint gives six closure equations, rows ``[rotation; translation]`` in world
axes::

    g = [ 0.5 vee(R_e R_f^T - R_f R_e^T) ;  p_e - p_f ] = 0
    G v = [ w_e - w_f ;  v_e - v_f ] = 0,       G qdd + gamma = 0

(e the chain's end, f the follower CS). A motion driver adds one row, ``q_d - position(t)``,
a gear one, ``q_b - ratio q_a``, and a stiction element one, its rate held at zero, while it
sticks (a zero row while it slips: the run's rank is taken again when it changes).
A closure's row has entries only on the coordinates of the paths from its two links to the
ground; :func:`closure_rows` writes (and zeroes) just those, so a caller that wants the whole
matrix passes zeros. The solve and the projection on these rows are
:mod:`mbd.compiled.loopsolve`'s.
"""
import numpy as np

from . import kinematics
from .jit.jitcache import njit
from .layout import PRISMATIC, REVOLUTE, SPHERICAL

# ----------------------------------------------------------------------------- closure rows

@njit()
def jacobian_add(tree, links, scratch, k, p, sign, G, row):
    """G[row:row+6] += sign * the world Jacobian of the point p on link k: every ancestor's
    motion subspace columns as [w; v at p]."""
    col = scratch[0].e
    while k >= 0:
        L, S = tree[k], links[k]
        E0 = S.E0
        d0, d1, d2 = p[0] - S.p0[0], p[1] - S.p0[1], p[2] - S.p0[2]
        for c in range(L.nd):
            kinematics.S_column(L, c, col)
            # world [w; v at the link origin], then v at p = v_o + w x (p - p_o)
            w0 = E0[0, 0] * col[0] + E0[1, 0] * col[1] + E0[2, 0] * col[2]
            w1 = E0[0, 1] * col[0] + E0[1, 1] * col[1] + E0[2, 1] * col[2]
            w2 = E0[0, 2] * col[0] + E0[1, 2] * col[1] + E0[2, 2] * col[2]
            vo0 = E0[0, 0] * col[3] + E0[1, 0] * col[4] + E0[2, 0] * col[5]
            vo1 = E0[0, 1] * col[3] + E0[1, 1] * col[4] + E0[2, 1] * col[5]
            vo2 = E0[0, 2] * col[3] + E0[1, 2] * col[4] + E0[2, 2] * col[5]
            j = L.vadr + c
            G[row, j] += sign * w0
            G[row + 1, j] += sign * w1
            G[row + 2, j] += sign * w2
            G[row + 3, j] += sign * (vo0 + w1 * d2 - w2 * d1)
            G[row + 4, j] += sign * (vo1 + w2 * d0 - w0 * d2)
            G[row + 5, j] += sign * (vo2 + w0 * d1 - w1 * d0)
        k = L.parent


@njit(inline="always")
def _follower(links, C, Rf, pf):
    """The follower CS of closure C in the world: axes Rf (as columns) and origin pf."""
    b = C.base
    for m in range(3):
        if b < 0:
            pf[m] = C.position[m]
            for n in range(3):
                Rf[m, n] = C.rotation[m, n]
        else:
            E0 = links[b].E0
            pf[m] = links[b].p0[m] + E0[0, m] * C.position[0] + E0[1, m] * C.position[1] \
                + E0[2, m] * C.position[2]
            for n in range(3):
                Rf[m, n] = E0[0, m] * C.rotation[0, n] + E0[1, m] * C.rotation[1, n] \
                    + E0[2, m] * C.rotation[2, n]


@njit(inline="always")
def _path_clear(tree, k, G, row):
    """G[row:row+6] := 0 on the coordinates of link k and its ancestors."""
    while k >= 0:
        L = tree[k]
        for c in range(L.nd):
            for a in range(6):
                G[row + a, L.vadr + c] = 0.0
        k = L.parent


@njit()
def closure_rows(tree, links, scratch, closures, G, g):
    """The closures' rows of G (6 nc, nv) on their paths' coordinates (the others are not
    touched) and their position residual g, on the poses of
    :func:`mbd.compiled.kinematics.link_transforms`."""
    sc = scratch[0]
    Rf, pf = sc.Rf, sc.p
    for c in range(closures.shape[0]):
        C = closures[c]
        e = C.end
        row = 6 * c
        _path_clear(tree, e, G, row)
        _path_clear(tree, C.base, G, row)
        _follower(links, C, Rf, pf)
        E0e, pe = links[e].E0, links[e].p0
        for m in range(3):
            g[row + 3 + m] = pe[m] - pf[m]
        # A = Re Rf^T - Rf Re^T with Re = E0[e]^T; g's rotation rows are 0.5 vee(A)
        for m in range(3):
            a_, b_ = (2, 1) if m == 0 else ((0, 2) if m == 1 else (1, 0))
            s = 0.0
            for n in range(3):
                s += E0e[n, a_] * Rf[b_, n] - Rf[a_, n] * E0e[n, b_]
            g[row + m] = 0.5 * s
        jacobian_add(tree, links, scratch, e, pe, 1.0, G, row)
        jacobian_add(tree, links, scratch, C.base, pe, -1.0, G, row)


@njit(inline="always")
def point_acceleration(links, k, p, out_w, out_a):
    """World angular and linear acceleration (velocity products only: the links' ``avp``) of
    the point p (world) carried by link k; zeros for the ground."""
    for m in range(3):
        out_w[m] = 0.0
        out_a[m] = 0.0
    if k < 0:
        return
    S = links[k]
    E0, vel, acc = S.E0, S.vel, S.avp
    d0, d1, d2 = p[0] - S.p0[0], p[1] - S.p0[1], p[2] - S.p0[2]
    # r: p from the link origin in link axes; velocity and acceleration of p in link axes
    r0 = E0[0, 0] * d0 + E0[0, 1] * d1 + E0[0, 2] * d2
    r1 = E0[1, 0] * d0 + E0[1, 1] * d1 + E0[1, 2] * d2
    r2 = E0[2, 0] * d0 + E0[2, 1] * d1 + E0[2, 2] * d2
    w0, w1, w2 = vel[0], vel[1], vel[2]
    v0 = vel[3] + w1 * r2 - w2 * r1
    v1 = vel[4] + w2 * r0 - w0 * r2
    v2 = vel[5] + w0 * r1 - w1 * r0
    b0, b1, b2 = acc[0], acc[1], acc[2]
    a0 = acc[3] + b1 * r2 - b2 * r1 + w1 * v2 - w2 * v1
    a1 = acc[4] + b2 * r0 - b0 * r2 + w2 * v0 - w0 * v2
    a2 = acc[5] + b0 * r1 - b1 * r0 + w0 * v1 - w1 * v0
    for m in range(3):
        out_w[m] = E0[0, m] * b0 + E0[1, m] * b1 + E0[2, m] * b2
        out_a[m] = E0[0, m] * a0 + E0[1, m] * a1 + E0[2, m] * a2


@njit(inline="always")
def closure_gamma(links, scratch, closures, gamma):
    """gamma (6 nc): the closures' relative velocity-product accelerations (G qdd + gamma is
    the relative acceleration), on the kinematics and ``avp`` of
    :func:`mbd.compiled.kinematics.velocity_products`."""
    sc = scratch[0]
    we, ae, wf, af = sc.a[:3], sc.a[3:], sc.b[:3], sc.b[3:]
    for c in range(closures.shape[0]):
        C = closures[c]
        pe = links[C.end].p0
        point_acceleration(links, C.end, pe, we, ae)
        point_acceleration(links, C.base, pe, wf, af)
        for m in range(3):
            gamma[6 * c + m] = we[m] - wf[m]
            gamma[6 * c + 3 + m] = ae[m] - af[m]


@njit()
def driver_rows(q, drivers, row0, G, g):
    """The rows on joint coordinates of G from ``row0`` and their residuals: a motion driver's
    or gear's q_d - ratio q_c - position; a stiction lock's row holds its rate at zero only
    (no position residual: while the rate is zero the coordinate stays put) and is a zero
    row while its element slips (``active`` 0)."""
    for k in range(drivers.shape[0]):
        D = drivers[k]
        for j in range(G.shape[1]):
            G[row0 + k, j] = 0.0
        G[row0 + k, D.v_index] = D.active
        G[row0 + k, D.coupled_v] -= D.active * D.ratio
        g[row0 + k] = (0.0 if D.element >= 0 else
                       q[D.q_index] - D.ratio * q[D.coupled_q] - D.position)


# ----------------------------------------------------------------------------- the rows

@njit()
def constraint_rows(q, v, tree, links, scratch, closures, drivers, G, b, g):
    """Every constraint row at (q, v): G, the right side b of G qdd = b (closures: -gamma;
    drivers: the prescribed acceleration) and the position residual g, on the kinematics of
    :func:`mbd.compiled.kinematics.link_velocities` (the links' ``avp`` are computed here)."""
    nc = 6 * closures.shape[0]
    if nc:
        closure_rows(tree, links, scratch, closures, G, g)
        kinematics.velocity_products(tree, links)
        closure_gamma(links, scratch, closures, b)
        for a in range(nc):
            b[a] = -b[a]
    driver_rows(q, drivers, nc, G, g)
    for k in range(drivers.shape[0]):
        b[nc + k] = drivers[k].acceleration


@njit(inline="always")
def finite(a):
    """Whether every entry of the array a is finite (no temporary)."""
    for x in a.flat:
        if not np.isfinite(x):
            return False
    return True


@njit()
def retract(q, dv, tree):
    """q moved in place by the velocity-space increment dv (nv): added to revolute/prismatic
    coordinates, and for a spherical primitive Q <- Q (x) exp(dv/2) (dv in its follower axes)."""
    for i in range(tree.shape[0]):
        L = tree[i]
        a, b = L.qadr, L.vadr
        if L.jtype == REVOLUTE or L.jtype == PRISMATIC:
            q[a] += dv[b]
        elif L.jtype == SPHERICAL:
            p0, p1, p2 = dv[b], dv[b + 1], dv[b + 2]
            angle = np.sqrt(p0 * p0 + p1 * p1 + p2 * p2)
            sh = np.sin(0.5 * angle) / angle if angle > 0.0 else 0.0
            dw, dx, dy, dz = np.cos(0.5 * angle), sh * p0, sh * p1, sh * p2
            w, x, y, z = q[a], q[a + 1], q[a + 2], q[a + 3]
            Q0 = w * dw - x * dx - y * dy - z * dz
            Q1 = w * dx + x * dw + y * dz - z * dy
            Q2 = w * dy - x * dz + y * dw + z * dx
            Q3 = w * dz + x * dy - y * dx + z * dw
            norm = np.sqrt(Q0 * Q0 + Q1 * Q1 + Q2 * Q2 + Q3 * Q3)
            q[a], q[a + 1], q[a + 2], q[a + 3] = Q0 / norm, Q1 / norm, Q2 / norm, Q3 / norm
