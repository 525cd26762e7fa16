"""Compiled constraints: loop closures and motion drivers, the rank rule, the constrained
solve and the projection onto the constraints (DESIGN §3).

Every joint that closes a loop (a *cut* joint) keeps its own coordinates: the build hangs its
primitives from its base side as a massless chain, whose end must coincide with the follower
CS. Each cut joint gives six closure equations, rows ``[rotation; translation]`` in world
axes::

    g = [ 0.5 vee(R_e R_f^T - R_f R_e^T) ;  p_e - p_f ] = 0
    G v = [ w_e - w_f ;  v_e - v_f ] = 0,       G qdd + gamma = 0

(e the chain's end, f the follower CS). A motion driver adds one row, ``q_d - position(t)``,
a gear one, ``q_b - ratio q_a``, and a stiction element one, its rate held at zero, while it
sticks (a zero row while it slips: the run's rank is taken again when it changes).
Accelerations and constraint forces solve ``H qdd = tau - C + G^T lambda, G qdd = b`` by the
null-space method on a singular value decomposition of G, so redundant equations (a planar
four-bar of four revolutes in 3-D) are simply rank-deficient rows, and the massless chains
(singular H) are fine as long as the loop pins them.

**The rank rule.** One tolerance, :data:`RANK_TOLERANCE`, with one meaning: a singular value
of G below ``RANK_TOLERANCE`` times the largest is zero. It sets the mechanism's mobility (at
the drawing, :func:`mbd.assembly.mobility`) and the run's rank r (at the assembled state);
the constrained solve and the projection use exactly the r largest singular values, whatever
the integration's drift does to the others; and the mechanism is at a singular configuration
(a change point or a lock-up, where its motion is not determined) when the r-th singular
value falls below the tolerance — checked at every evaluation — or, on the constraint
manifold after a step's projection, when the (r+1)-th rises above it. A redundant loop in
regular motion therefore never trips it, at any integration tolerance.

The scratch of the solve is one flat buffer (``Data.loopbuf``), laid out by :func:`views`.
"""
from collections import namedtuple

import numpy as np

from . import kernels
from .jitcache import njit
from .layout import PRISMATIC, REVOLUTE, SPHERICAL

#: a singular value of the constraint Jacobian below this fraction of the largest is zero
RANK_TOLERANCE = 1e-6

#: the most Gauss-Newton steps of one projection onto the position constraints
PROJECTION_ITERATIONS = 50

#: what a constrained evaluation or projection returns besides 0 (an element index + 1 > 0)
SINGULAR = -1          # the r-th singular value fell below the tolerance (rank dropped)
RANK_GREW = -2         # on the manifold, the (r+1)-th rose above it (rank grew)
NOT_CLOSED = -3        # the projection did not converge

#: the views of the solve's buffer (see :func:`views`)
Views = namedtuple("Views", "H f G b g lam W U V s A z xp t1 t2")


def buffer_size(nv, m):
    """Floats in the solve's buffer for nv coordinates and m constraint rows."""
    n = max(nv, m)
    return 3 * nv * nv + 3 * m * nv + 3 * m + 4 * nv + 2 * n


@njit()
def views(buf, nv, m):
    """The solve's buffer as named arrays: H (nv, nv) mass matrix, f (nv) applied force, G
    (m, nv) Jacobian, b (m) right side of G qdd = b, g (m) position residual, lam (m) the
    constraint forces; SVD work W, U (m, nv), V (nv, nv), s (nv); the reduced mass matrix A
    (nv, nv), z, xp (nv) and two work vectors."""
    n = max(nv, m)
    o = 0
    H = buf[o:o + nv * nv].reshape((nv, nv))
    o += nv * nv
    f = buf[o:o + nv]
    o += nv
    G = buf[o:o + m * nv].reshape((m, nv))
    o += m * nv
    b = buf[o:o + m]
    o += m
    g = buf[o:o + m]
    o += m
    lam = buf[o:o + m]
    o += m
    W = buf[o:o + m * nv].reshape((m, nv))
    o += m * nv
    U = buf[o:o + m * nv].reshape((m, nv))
    o += m * nv
    V = buf[o:o + nv * nv].reshape((nv, nv))
    o += nv * nv
    s = buf[o:o + nv]
    o += nv
    A = buf[o:o + nv * nv].reshape((nv, nv))
    o += nv * nv
    z = buf[o:o + nv]
    o += nv
    xp = buf[o:o + nv]
    o += nv
    t1 = buf[o:o + n]
    o += n
    t2 = buf[o:o + n]
    return Views(H, f, G, b, g, lam, W, U, V, s, A, z, xp, t1, t2)


# ----------------------------------------------------------------------------- closure rows

@njit()
def _jacobian_add(tree, links, scratch, k, p, sign, G, row):
    """G[row:row+6] += sign * the world Jacobian of the point p on link k: every ancestor's
    motion subspace columns as [w; v at p]."""
    col = scratch[0].e
    while k >= 0:
        L, S = tree[k], links[k]
        E0 = S.E0
        d0, d1, d2 = p[0] - S.p0[0], p[1] - S.p0[1], p[2] - S.p0[2]
        for c in range(L.nd):
            kernels.S_column(L, c, col)
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


@njit()
def closure_rows(tree, links, scratch, closures, G, g):
    """The closures' rows of G (6 nc, nv) and their position residual g, on the poses of
    :func:`mbd.kernels.link_transforms`."""
    sc = scratch[0]
    Rf, pf = sc.Rf, sc.p
    for a in range(G.shape[0]):
        for j in range(G.shape[1]):
            G[a, j] = 0.0
    for c in range(closures.shape[0]):
        C = closures[c]
        e = C.end
        row = 6 * c
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
        _jacobian_add(tree, links, scratch, e, pe, 1.0, G, row)
        _jacobian_add(tree, links, scratch, C.base, pe, -1.0, G, row)


@njit(inline="always")
def _point_acceleration(links, k, p, out_w, out_a):
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
    :func:`mbd.kernels.velocity_products`."""
    sc = scratch[0]
    we, ae, wf, af = sc.a[:3], sc.a[3:], sc.b[:3], sc.b[3:]
    for c in range(closures.shape[0]):
        C = closures[c]
        pe = links[C.end].p0
        _point_acceleration(links, C.end, pe, we, ae)
        _point_acceleration(links, C.base, pe, wf, af)
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


# ----------------------------------------------------------------------------- linear algebra

@njit()
def svd(G, W, U, V, s):
    """G (m, n) = U diag(s) V^T by one-sided Jacobi rotations of its columns (Hestenes; Demmel &
    Veselic 1992), singular values in decreasing order; allocates nothing.

    W (m, n) is work; U's columns j with s[j] > 0 are the left singular vectors (the others
    zero) and V (n, n) is orthogonal: its columns with s = 0 span G's null space. For the
    small constraint matrices of mechanisms this is cheaper than LAPACK's driver (no workspace
    queries) and as accurate: the columns are rotated until every pair is orthogonal to
    round-off.
    """
    m, n = G.shape
    eps = np.finfo(np.float64).eps
    total = 0.0
    for i in range(m):
        for j in range(n):
            W[i, j] = G[i, j]
            total += G[i, j] * G[i, j]
    for i in range(n):
        for j in range(n):
            V[i, j] = 1.0 if i == j else 0.0
    # a column this small is round-off of a null direction: rotating it changes nothing
    tiny = eps * eps * total
    for _ in range(80):
        rotated = False
        for p in range(n - 1):
            for q in range(p + 1, n):
                alpha = beta = gamma = 0.0
                for i in range(m):
                    alpha += W[i, p] * W[i, p]
                    beta += W[i, q] * W[i, q]
                    gamma += W[i, p] * W[i, q]
                if (gamma == 0.0 or alpha <= tiny or beta <= tiny
                        or abs(gamma) <= m * eps * np.sqrt(alpha * beta)):
                    continue
                rotated = True
                zeta = (beta - alpha) / (2.0 * gamma)
                t = (1.0 if zeta >= 0.0 else -1.0) / (abs(zeta) + np.sqrt(1.0 + zeta * zeta))
                c = 1.0 / np.sqrt(1.0 + t * t)
                sn = c * t
                for i in range(m):
                    wp, wq = W[i, p], W[i, q]
                    W[i, p] = c * wp - sn * wq
                    W[i, q] = sn * wp + c * wq
                for i in range(n):
                    vp, vq = V[i, p], V[i, q]
                    V[i, p] = c * vp - sn * vq
                    V[i, q] = sn * vp + c * vq
        if not rotated:
            break
    for j in range(n):
        acc = 0.0
        for i in range(m):
            acc += W[i, j] * W[i, j]
        s[j] = np.sqrt(acc)
    for k in range(n):      # decreasing order: a selection sort of the columns
        best = k
        for j in range(k + 1, n):
            if s[j] > s[best]:
                best = j
        if best != k:
            s[k], s[best] = s[best], s[k]
            for i in range(m):
                W[i, k], W[i, best] = W[i, best], W[i, k]
            for i in range(n):
                V[i, k], V[i, best] = V[i, best], V[i, k]
        for i in range(m):
            U[i, k] = W[i, k] / s[k] if s[k] > 0.0 else 0.0


@njit()
def numerical_rank(s, rows):
    """The rank rule: how many of the singular values s (decreasing) of a matrix with
    ``rows`` rows exceed RANK_TOLERANCE times the largest."""
    rank = 0
    for k in range(min(s.shape[0], rows)):
        if s[k] > RANK_TOLERANCE * s[0]:
            rank += 1
    return rank


@njit()
def least_norm_step(U, V, s, rank, r, d):
    """d = G^+ r at rank ``rank`` (the least-norm d with G d = r, least squares where
    inconsistent), from G's SVD."""
    for j in range(d.shape[0]):
        d[j] = 0.0
    for k in range(rank):
        c = 0.0
        for i in range(U.shape[0]):
            c += U[i, k] * r[i]
        c /= s[k]
        for j in range(d.shape[0]):
            d[j] += c * V[j, k]


@njit()
def _verdict(loop, s, rows):
    """Record the rank check of the singular values s (decreasing, of a matrix with ``rows``
    rows) in ``loop`` and return SINGULAR where the run's r-th one fell below the tolerance,
    else 0 (see the rank rule in the module docstring)."""
    L = loop[0]
    r = L.rank
    top = s[0] if s.shape[0] and s[0] > 0.0 else 1.0
    L.smallest = s[r - 1] / top if r > 0 else 1.0
    L.dropped = s[r] / top if r < min(s.shape[0], rows) else 0.0
    L.found = numerical_rank(s, rows)
    if r > 0 and not s[r - 1] > RANK_TOLERANCE * top:
        return SINGULAR
    return 0


@njit()
def constrained_solve(V_, loop):
    """The accelerations xp := qdd and the constraint forces lam of H qdd = f + G^T lam,
    G qdd = b, by the null-space method at the run's rank (module docstring); returns 0 or
    SINGULAR. On entry the views hold H, f, G and b; H is overwritten.

    The reduced mass matrix N^T H N on G's null space N is solved by Cholesky (NaN
    accelerations where it is not positive definite: a massless chain the loop does not pin).
    """
    H, f, G, b, lam = V_.H, V_.f, V_.G, V_.b, V_.lam
    U, V, s, A, z, qdd, t1, t2 = V_.U, V_.V, V_.s, V_.A, V_.z, V_.xp, V_.t1, V_.t2
    m, nv = G.shape
    svd(G, V_.W, U, V, s)
    if loop[0].rank < 0:
        loop[0].rank = numerical_rank(s, m)
    status = _verdict(loop, s, m)
    r = loop[0].rank
    least_norm_step(U, V, s, r, b, qdd)            # the particular solution
    k = nv - r
    if k > 0:
        # t1 = f - H xp; A = N^T H N, rhs = N^T t1 with N = V[:, r:]
        for i in range(nv):
            acc = f[i]
            for j in range(nv):
                acc -= H[i, j] * qdd[j]
            t1[i] = acc
        for a in range(k):
            acc = 0.0
            for i in range(nv):
                acc += V[i, r + a] * t1[i]
            t2[a] = acc
            for c in range(a, k):
                acc = 0.0
                for i in range(nv):
                    hi = 0.0
                    for j in range(nv):
                        hi += H[i, j] * V[j, r + c]
                    acc += V[i, r + a] * hi
                A[a, c] = acc
                A[c, a] = acc
        kernels.cholesky_solve(A[:k, :k], t2[:k], z[:k])
        for i in range(nv):
            acc = 0.0
            for a in range(k):
                acc += V[i, r + a] * z[a]
            qdd[i] += acc
    # lam = U_r S_r^-1 V_r^T (H qdd - f)
    for i in range(nv):
        acc = -f[i]
        for j in range(nv):
            acc += H[i, j] * qdd[j]
        t1[i] = acc
    for i in range(m):
        lam[i] = 0.0
    for a in range(r):
        acc = 0.0
        for i in range(nv):
            acc += V[i, a] * t1[i]
        acc /= s[a]
        for i in range(m):
            lam[i] += acc * U[i, a]
    return status


# ----------------------------------------------------------------------------- the rows

@njit()
def constraint_rows(q, v, tree, links, scratch, closures, drivers, G, b, g):
    """Every constraint row at (q, v): G, the right side b of G qdd = b (closures: -gamma;
    drivers: the prescribed acceleration) and the position residual g, on the kinematics of
    :func:`mbd.kernels.link_velocities` (the links' ``avp`` are computed here)."""
    nc = 6 * closures.shape[0]
    if nc:
        closure_rows(tree, links, scratch, closures, G, g)
        kernels.velocity_products(tree, links)
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


@njit()
def project(y, nq, nv, tree, links, scratch, closures, drivers, buf, loop):
    """y = [q (nq), v (nv), ...] moved onto the constraints in place: q by Gauss-Newton steps of least change
    (at the run's rank) until every position residual is within ``loop.projection_tol`` (at
    most PROJECTION_ITERATIONS), then v by the least change onto G v = driver rates. Returns
    0, NOT_CLOSED, or the rank rule's verdict on the projected state (SINGULAR, RANK_GREW)."""
    m = 6 * closures.shape[0] + drivers.shape[0]
    V_ = views(buf, nv, m)
    G, g, d, r1 = V_.G, V_.g, V_.z, V_.t1
    q = y[:nq]
    v = y[nq:nq + nv]
    kernels.normalize_quaternions(q, tree, q)
    if loop[0].rank < 0:       # the rank at the first state projected, if no solve set it
        kernels.link_transforms(q, tree, links, scratch)
        closure_rows(tree, links, scratch, closures, G, g)
        driver_rows(q, drivers, 6 * closures.shape[0], G, g)
        svd(G, V_.W, V_.U, V_.V, V_.s)
        loop[0].rank = numerical_rank(V_.s, m)
    tol = loop[0].projection_tol
    status = NOT_CLOSED
    for _ in range(PROJECTION_ITERATIONS):
        kernels.link_transforms(q, tree, links, scratch)
        closure_rows(tree, links, scratch, closures, G, g)
        driver_rows(q, drivers, 6 * closures.shape[0], G, g)
        worst = 0.0
        for a in range(m):
            worst = max(worst, abs(g[a]))
        if worst <= tol:
            status = 0
            break
        svd(G, V_.W, V_.U, V_.V, V_.s)
        for a in range(m):
            r1[a] = -g[a]
        least_norm_step(V_.U, V_.V, V_.s, loop[0].rank, r1, d)
        retract(q, d, tree)
    # velocities: v -= G^+ (G v - rates), G at the projected q (the last rows evaluated)
    svd(G, V_.W, V_.U, V_.V, V_.s)
    nc = 6 * closures.shape[0]
    for a in range(m):
        acc = 0.0
        for j in range(nv):
            acc += G[a, j] * v[j]
        r1[a] = acc - (drivers[a - nc].velocity if a >= nc else 0.0)
    least_norm_step(V_.U, V_.V, V_.s, loop[0].rank, r1, d)
    for j in range(nv):
        v[j] -= d[j]
    verdict = _verdict(loop, V_.s, m)
    if verdict == 0 and status == 0 and loop[0].dropped > RANK_TOLERANCE:
        verdict = RANK_GREW        # on the manifold, a dropped singular value is not zero
    return verdict if verdict != 0 else status
