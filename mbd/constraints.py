"""Closed loops: closure constraints, constrained dynamics, projection and assembly (DESIGN §3).

Every joint that closes a loop (a *cut* joint) keeps its own coordinates: :func:`build` hangs
its primitives from its base side as a massless chain, whose end must coincide with the
follower CS. Each cut joint gives six closure equations, rows ``[rotation; translation]`` in
world axes::

    g = [ 0.5 vee(R_e R_f^T - R_f R_e^T) ;  p_e - p_f ] = 0
    G v = [ w_e - w_f ;  v_e - v_f ] = 0,       G qdd + gamma = 0

(e the chain's end, f the follower CS). Motion drivers add one row each. The accelerations
and constraint forces solve ``H qdd = tau - C + G^T lambda, G qdd = b`` by the null-space
method on a singular value decomposition of G, so redundant equations (a planar four-bar of
four revolutes in 3-D) are simply rank-deficient rows, and the massless chains (singular H)
are fine as long as the loop pins them.
"""
import numpy as np

from . import forcekernels, kernels
from .lawkernels import njit


@njit()
def _point_terms(k, p, ws, w_out, v_out, a_w_out, a_out):
    """World angular velocity, velocity, angular acceleration and acceleration (velocity
    products only: ``ws`` acc holds the qdd = 0, gravity-free link accelerations) of the point
    p (world) carried by link k; zeros for the ground."""
    for m in range(3):
        w_out[m] = v_out[m] = a_w_out[m] = a_out[m] = 0.0
    if k < 0:
        return
    E0, p0, vel, acc = ws[3], ws[4], ws[5], ws[6]
    d0, d1, d2 = p[0] - p0[k, 0], p[1] - p0[k, 1], p[2] - p0[k, 2]
    # r: p from the link origin in link axes; velocity and acceleration of p in link axes
    r0 = E0[k, 0, 0] * d0 + E0[k, 0, 1] * d1 + E0[k, 0, 2] * d2
    r1 = E0[k, 1, 0] * d0 + E0[k, 1, 1] * d1 + E0[k, 1, 2] * d2
    r2 = E0[k, 2, 0] * d0 + E0[k, 2, 1] * d1 + E0[k, 2, 2] * d2
    w0, w1, w2 = vel[k, 0], vel[k, 1], vel[k, 2]
    v0 = vel[k, 3] + w1 * r2 - w2 * r1
    v1 = vel[k, 4] + w2 * r0 - w0 * r2
    v2 = vel[k, 5] + w0 * r1 - w1 * r0
    b0, b1, b2 = acc[k, 0], acc[k, 1], acc[k, 2]
    a0 = acc[k, 3] + b1 * r2 - b2 * r1 + w1 * v2 - w2 * v1
    a1 = acc[k, 4] + b2 * r0 - b0 * r2 + w2 * v0 - w0 * v2
    a2 = acc[k, 5] + b0 * r1 - b1 * r0 + w0 * v1 - w1 * v0
    for m in range(3):
        e0, e1, e2 = E0[k, 0, m], E0[k, 1, m], E0[k, 2, m]
        w_out[m] = e0 * w0 + e1 * w1 + e2 * w2
        v_out[m] = e0 * v0 + e1 * v1 + e2 * v2
        a_w_out[m] = e0 * b0 + e1 * b1 + e2 * b2
        a_out[m] = e0 * a0 + e1 * a1 + e2 * a2


@njit()
def _jacobian_add(k, p, sign, mdl, ws, G, row):
    """G[row:row+6] += sign * the world Jacobian of the point p on link k: every ancestor's
    motion subspace columns as [w; v at p]."""
    parent, jtype, nd, vadr, axis = mdl[0], mdl[1], mdl[2], mdl[4], mdl[5]
    E0, p0 = ws[3], ws[4]
    col = ws[15][5]
    while k >= 0:
        d0, d1, d2 = p[0] - p0[k, 0], p[1] - p0[k, 1], p[2] - p0[k, 2]
        for c in range(nd[k]):
            kernels._S_column(k, c, jtype, axis, col)
            # world [w; v at the link origin], then v at p = v_o + w x (p - p_o)
            w = (E0[k, 0, 0] * col[0] + E0[k, 1, 0] * col[1] + E0[k, 2, 0] * col[2],
                 E0[k, 0, 1] * col[0] + E0[k, 1, 1] * col[1] + E0[k, 2, 1] * col[2],
                 E0[k, 0, 2] * col[0] + E0[k, 1, 2] * col[1] + E0[k, 2, 2] * col[2])
            vo0 = E0[k, 0, 0] * col[3] + E0[k, 1, 0] * col[4] + E0[k, 2, 0] * col[5]
            vo1 = E0[k, 0, 1] * col[3] + E0[k, 1, 1] * col[4] + E0[k, 2, 1] * col[5]
            vo2 = E0[k, 0, 2] * col[3] + E0[k, 1, 2] * col[4] + E0[k, 2, 2] * col[5]
            j = vadr[k] + c
            G[row, j] += sign * w[0]
            G[row + 1, j] += sign * w[1]
            G[row + 2, j] += sign * w[2]
            G[row + 3, j] += sign * (vo0 + w[1] * d2 - w[2] * d1)
            G[row + 4, j] += sign * (vo1 + w[2] * d0 - w[0] * d2)
            G[row + 5, j] += sign * (vo2 + w[0] * d1 - w[1] * d0)
        k = parent[k]


@njit()
def closure_terms(q, v, mdl, cl, ws, G, gamma, g):
    """The closure equations of every cut joint at (q, v) (q unit quaternions).

    Writes G (6 nc, nv), gamma (6 nc) (G qdd + gamma is the relative acceleration) and the
    position residual g (6 nc); leaves the link kinematics in ``ws``. Allocates nothing.
    """
    ends, blinks, bpos, brot = cl
    parent = mdl[0]
    kernels.link_velocities(q, v, mdl, ws)
    E, r, acc, cj = ws[1], ws[2], ws[6], ws[7]
    for i in range(parent.shape[0]):   # velocity-product accelerations, no gravity
        lam = parent[i]
        if lam < 0:
            for m in range(6):
                acc[i, m] = cj[i, m]
        else:
            kernels._xmotion(E[i], r[i], acc[lam], acc[i])
            for m in range(6):
                acc[i, m] += cj[i, m]
    E0, p0 = ws[3], ws[4]
    G[:, :] = 0.0
    vecs = ws[15]
    pe, we, ve, awe, ae = vecs[0, :3], vecs[1, :3], vecs[2, :3], vecs[3, :3], vecs[4, :3]
    wf, vf, awf, af = vecs[1, 3:], vecs[2, 3:], vecs[3, 3:], vecs[4, 3:]
    Rf = ws[16][0, :3, :3]
    for c in range(ends.shape[0]):
        e, b = ends[c], blinks[c]
        row = 6 * c
        # the follower CS in the world: Rf (axes as columns) and pf
        for m in range(3):
            pe[m] = p0[e, m]
            if b < 0:
                pf = bpos[c, m]
                for n in range(3):
                    Rf[m, n] = brot[c, m, n]
            else:
                pf = p0[b, m] + E0[b, 0, m] * bpos[c, 0] + E0[b, 1, m] * bpos[c, 1] \
                    + E0[b, 2, m] * bpos[c, 2]
                for n in range(3):
                    Rf[m, n] = E0[b, 0, m] * brot[c, 0, n] + E0[b, 1, m] * brot[c, 1, n] \
                        + E0[b, 2, m] * brot[c, 2, n]
            g[row + 3 + m] = pe[m] - pf
        # A = Re Rf^T - Rf Re^T with Re = E0[e]^T; g's rotation rows are 0.5 vee(A)
        for m, (a_, b_) in enumerate(((2, 1), (0, 2), (1, 0))):
            s = 0.0
            for n in range(3):
                s += E0[e, n, a_] * Rf[b_, n] - Rf[a_, n] * E0[e, n, b_]
            g[row + m] = 0.5 * s
        _jacobian_add(e, pe, 1.0, mdl, ws, G, row)
        _jacobian_add(b, pe, -1.0, mdl, ws, G, row)
        _point_terms(e, pe, ws, we, ve, awe, ae)
        _point_terms(b, pe, ws, wf, vf, awf, af)
        for m in range(3):
            gamma[row + m] = awe[m] - awf[m]
            gamma[row + 3 + m] = ae[m] - af[m]


@njit()
def singular_value_decomposition(G):
    """(U, s, Vt) of G (m, n) by one-sided Jacobi rotations of its columns (Hestenes; Demmel &
    Veselic 1992), singular values in decreasing order.

    Returns U (m, n) whose columns j with s[j] > 0 are the left singular vectors (the others
    zero), s (n,) and Vt (n, n) orthogonal: its rows with s = 0 span G's null space. For the
    small constraint matrices of mechanisms this is cheaper than LAPACK's driver (no
    workspace queries) and as accurate: the columns are rotated until every pair is
    orthogonal to round-off.
    """
    m, n = G.shape
    W = G.copy()
    V = np.eye(n)
    eps = np.finfo(np.float64).eps
    # a column this small is round-off of a null direction: rotating it changes nothing
    tiny = (eps * np.sqrt(np.sum(G * G))) ** 2
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
    norms = np.empty(n)
    for j in range(n):
        norms[j] = np.sqrt(np.sum(W[:, j] ** 2))
    order = np.argsort(-norms)
    U = np.zeros((m, n))
    s = np.empty(n)
    Vt = np.empty((n, n))
    for k in range(n):
        j = order[k]
        s[k] = norms[j]
        if norms[j] > 0.0:
            U[:, k] = W[:, j] / norms[j]
        Vt[k, :] = V[:, j]
    return U, s, Vt


@njit()
def solve_constrained(H, f, G, b, rank_tol):
    """(qdd, lambda, rank, conditioning) of H qdd = f + G^T lambda, G qdd = b, by the
    null-space method.

    G is decomposed by :func:`singular_value_decomposition`; rows beyond its numerical rank
    (singular values below ``rank_tol`` times the largest) are redundant: lambda is then the
    minimum-norm choice. ``conditioning`` is the smallest kept singular value over the largest:
    near zero, the mechanism is near a singular configuration. The reduced mass matrix
    N^T H N on the null space is solved by Cholesky (NaN accelerations if it is not positive
    definite: a massless chain the loop does not pin).
    """
    U, s, Vt = singular_value_decomposition(G)
    rank = 0
    for k in range(min(s.shape[0], G.shape[0])):
        if s[k] > rank_tol * s[0]:
            rank += 1
    Vr = np.ascontiguousarray(Vt[:rank].T)
    Ur = np.ascontiguousarray(U[:, :rank])
    qp = Vr @ ((Ur.T @ b) / s[:rank])
    N = np.ascontiguousarray(Vt[rank:].T)
    if N.shape[1] > 0:
        A = N.T @ (H @ N)
        z = np.empty(N.shape[1])
        kernels.cholesky_solve(A, N.T @ (f - H @ qp), z)
        qdd = qp + N @ z
    else:
        qdd = qp
    lam = Ur @ ((Vr.T @ (H @ qdd - f)) / s[:rank])
    return qdd, lam, rank, s[rank - 1] / s[0]


@njit()
def _finite(a):
    """Whether every entry of the array a is finite (no temporary)."""
    for x in a.flat:
        if not np.isfinite(x):
            return False
    return True


@njit()
def loop_derivative(y, mdl, fel, sides, cl, ws, tau, fext, rec, geo, H, C, zero, G, gamma, g,
                    rank_tol, dy, lam, info):
    """dy/dt for y = [q, v] of a system whose only constraints are loop closures (no motion
    drivers), in one compiled call: kinematics, the force elements (in the modes ``sides``),
    RNEA bias, CRBA mass matrix, closure terms and the null-space solve.

    Writes dy, the closure forces ``lam`` (6 nc) and ``info = [rank, conditioning]`` of the
    closure rows; on a non-finite mass matrix, load or closure term (a trial state too far out)
    the accelerations are NaN, for the integrator's error control to reject, and rank -1.
    H, C, G, gamma and g are scratch (C ends as tau - C, gamma as -gamma). Returns 0 or the
    index + 1 of an element whose load direction is undefined.
    """
    mdl, fel, ws, cl = kernels.borrowed(mdl), kernels.borrowed(fel), kernels.borrowed(ws), \
        kernels.borrowed(cl)
    qn = ws[0]
    nq = qn.shape[0]
    v = y[nq:]
    kernels.normalize_quaternions(y[:nq], mdl, qn)
    kernels.link_velocities(qn, v, mdl, ws)
    bad = forcekernels.element_loads(fel, sides, qn, v, ws, tau, fext, rec, geo)
    kernels.quaternion_rates(qn, v, mdl, dy[:nq])
    kernels.rnea(qn, v, zero, fext, mdl, ws, C)
    kernels.crba(qn, mdl, ws, H)
    closure_terms(qn, v, mdl, cl, ws, G, gamma, g)
    for k in range(C.shape[0]):
        C[k] = tau[k] - C[k]            # the applied generalized force, f = tau - C
    if not (_finite(H) and _finite(C) and _finite(G) and _finite(gamma)):
        dy[nq:] = np.nan
        lam[:] = np.nan
        info[0] = -1.0
        return bad
    for k in range(gamma.shape[0]):
        gamma[k] = -gamma[k]            # the right side of G qdd = -gamma
    qdd, lam_, rank, conditioning = solve_constrained(H, C, G, gamma, rank_tol)
    dy[nq:] = qdd
    lam[:] = lam_
    info[0] = rank
    info[1] = conditioning
    return bad


class Constraints:
    """The constraint rows of a System at a state: loop closures, then motion drivers."""

    def __init__(self, system):
        self.system = system
        self.nc = 6 * len(system.cut_joints)
        self.drivers = list(system.drivers)
        self.m = self.nc + len(self.drivers)
        self.ws = kernels.make_workspace(system.n_links, system.nq, system.nv)
        self.G = np.zeros((self.nc, system.nv))
        self.gamma = np.zeros(self.nc)
        self.g = np.zeros(self.nc)
        self.rank_tol = 1e-9

    def evaluate(self, t, q, v):
        """(G, b, g, w): Jacobian (m, nv), right side of G qdd = b, position residual g and
        velocity residual w = G v - (driver rates), at (t, q, v); q must hold unit quaternions."""
        s = self.system
        if self.nc:
            closure_terms(q, v, s.arrays, s.closure_arrays, self.ws, self.G, self.gamma, self.g)
        G = np.zeros((self.m, s.nv))
        b = np.zeros(self.m)
        g = np.zeros(self.m)
        G[:self.nc] = self.G
        b[:self.nc] = -self.gamma
        g[:self.nc] = self.g
        w = G @ v
        for k, d in enumerate(self.drivers):
            row = self.nc + k
            G[row, d.v_index] = 1.0
            pos, vel, accel = d.motion(t)
            g[row] = q[d.q_index] - pos
            b[row] = accel
            w[row] = v[d.v_index] - vel
        return G, b, g, w


_ROW_NAMES = ("rotation about world x", "rotation about world y", "rotation about world z",
              "translation along world x", "translation along world y",
              "translation along world z")


def mobility(system):
    """(dof, redundant): the mobility, nv less the rank of the closure equations at the
    reference pose, and the names of the redundant closure equations (those a rank-revealing
    QR of the Jacobian finds dependent on the others)."""
    import scipy.linalg
    c = Constraints(system)
    q = np.zeros(system.nq)
    for jm in system.joints.values():   # the reference configuration: unit quaternions
        k = 0
        for p in jm.joint.primitives:
            if p.kind == "S":
                q[jm.q_index[k]] = 1.0
            k += p.nq
    G = c.evaluate(0.0, q, np.zeros(system.nv))[0][:c.nc]
    if G.size == 0:
        return system.nv, []
    s = np.linalg.svd(G, compute_uv=False)
    rank = int(np.sum(s > c.rank_tol * s[0]))
    _, _, pivots = scipy.linalg.qr(G.T, pivoting=True)
    redundant = [f"joint '{system.cut_joints[row // 6]}': {_ROW_NAMES[row % 6]}"
                 for row in sorted(pivots[rank:])]
    return system.nv - rank, redundant


def retract(system, q, dv):
    """q moved by the velocity-space increment dv (nv): added to revolute/prismatic
    coordinates, and for a spherical primitive Q <- Q (x) exp(dv/2) (dv in its follower axes)."""
    q = np.array(q, dtype=float)
    retract_in_place(q, np.ascontiguousarray(dv, dtype=float), system.arrays)
    return q


@njit()
def retract_in_place(q, dv, mdl):
    """:func:`retract`, compiled, overwriting q."""
    jtype, qadr, vadr = mdl[1], mdl[3], mdl[4]
    for i in range(jtype.shape[0]):
        t = jtype[i]
        a, b = qadr[i], vadr[i]
        if t == kernels.REVOLUTE or t == kernels.PRISMATIC:
            q[a] += dv[b]
        elif t == kernels.SPHERICAL:
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
def project_loops(y, mdl, cl, ws, zero, G, gamma, g, tol, rank_tol, iterations):
    """y = [q, v] moved onto the loop closures in place, as :class:`Projector` does without
    drivers: q by Gauss-Newton steps of least change until max |g| <= tol (at most
    ``iterations``), then v by the least change onto G v = 0."""
    nq = ws[0].shape[0]
    q = y[:nq]
    v = y[nq:]
    kernels.normalize_quaternions(q, mdl, q)
    for _ in range(iterations):
        closure_terms(q, zero, mdl, cl, ws, G, gamma, g)
        if np.abs(g).max() <= tol:
            break
        retract_in_place(q, min_norm_step(G, -g, rank_tol), mdl)
    closure_terms(q, v, mdl, cl, ws, G, gamma, g)
    v -= min_norm_step(G, G @ v, rank_tol)


def normalized(system, q):
    """q with unit quaternions."""
    out = np.empty_like(q)
    kernels.normalize_quaternions(np.ascontiguousarray(q, dtype=float), system.arrays, out)
    return out


def difference(system, q, q_ref):
    """The velocity-space increment (nv) that takes q_ref to q (the inverse of retract)."""
    parent, jtype, nd, qadr, vadr = system.arrays[:5]
    dv = np.zeros(system.nv)
    for i in range(parent.shape[0]):
        t = jtype[i]
        a, b = qadr[i], vadr[i]
        if t == kernels.REVOLUTE or t == kernels.PRISMATIC:
            dv[b] = q[a] - q_ref[a]
        elif t == kernels.SPHERICAL:
            w0, x0, y0, z0 = q_ref[a:a + 4]
            w1, x1, y1, z1 = q[a:a + 4]
            # conj(Q_ref) (x) Q
            w = w0 * w1 + x0 * x1 + y0 * y1 + z0 * z1
            v = np.array([w0 * x1 - x0 * w1 - y0 * z1 + z0 * y1,
                          w0 * y1 + x0 * z1 - y0 * w1 - z0 * x1,
                          w0 * z1 - x0 * y1 + y0 * x1 - z0 * w1])
            if w < 0:
                w, v = -w, -v
            s = np.linalg.norm(v)
            dv[b:b + 3] = 2.0 * np.arctan2(s, w) * v / s if s > 0 else 0.0 * v
    return dv


def _weighted_step(G, r, W_inv, rank_tol):
    """The increment d minimizing d^T W d subject to G d = r (least squares if inconsistent):
    with G~ = G W^-1/2, d = W^-1/2 G~^+ r."""
    root = np.sqrt(W_inv)
    return root * min_norm_step(np.ascontiguousarray(G * root), np.ascontiguousarray(r, float),
                                rank_tol)


@njit()
def min_norm_step(G, r, rank_tol):
    """G^+ r: the least-norm d with G d = r (least squares where inconsistent), G's singular
    values s counted as zero where s^2 <= rank_tol s_max^2 (as a least-squares solve of
    G G^T mu = r with that cutoff, d = G^T mu, would)."""
    U, s, Vt = singular_value_decomposition(G)
    d = np.zeros(G.shape[1])
    for k in range(s.shape[0]):
        if not s[k] * s[k] > rank_tol * s[0] * s[0]:
            break
        c = 0.0
        for i in range(G.shape[0]):
            c += U[i, k] * r[i]
        c /= s[k]
        for j in range(G.shape[1]):
            d[j] += c * Vt[k, j]
    return d


class Projector:
    """Brings a state onto the constraint manifold: positions by Gauss-Newton on g(q) = 0
    (each step the smallest weighted change), then velocities onto G v = driver rates."""

    def __init__(self, system, tol=None):
        self.system = system
        self.c = Constraints(system)
        self.tol = 1e-12 * system.length_scale if tol is None else tol

    def positions(self, t, q, targets=None, weights=None, iterations=50):
        """(q on g = 0, residual norm). With ``targets`` (nq) and ``weights`` (nv), the
        solution stays as near the targets as the constraints allow (assembly)."""
        s = self.system
        q = normalized(s, q)
        W_inv = np.ones(s.nv) if weights is None else 1.0 / weights
        v0 = np.zeros(s.nv)
        for _ in range(iterations):
            G, b, g, w = self.c.evaluate(t, q, v0)
            if targets is None:
                if np.abs(g).max() <= self.tol:
                    return q, float(np.abs(g).max())
                dq = _weighted_step(G, -g, W_inv, self.c.rank_tol)
            else:
                e = difference(s, q, targets)      # minimize |q - target|_W with G dq = -g
                dq = -e + _weighted_step(G, -g + G @ e, W_inv, self.c.rank_tol)
                if np.abs(g).max() <= self.tol and np.abs(dq).max() <= 1e-13 * max(1.0, np.abs(e).max()):
                    return q, float(np.abs(g).max())
            q = retract(s, q, dq)
        G, b, g, w = self.c.evaluate(t, q, v0)
        return q, float(np.abs(g).max())

    def velocities(self, t, q, v, targets=None, weights=None):
        """v on G v = driver rates: the smallest (weighted) change from ``targets`` (or v)."""
        s = self.system
        W_inv = np.ones(s.nv) if weights is None else 1.0 / weights
        ref = v if targets is None else targets
        G, b, g, w = self.c.evaluate(t, q, ref)
        return ref - _weighted_step(G, w, W_inv, self.c.rank_tol)

    def residuals(self, t, q, v):
        """(max |g|, max |G v - rates|) at (t, q, v)."""
        G, b, g, w = self.c.evaluate(t, normalized(self.system, q), v)
        return (float(np.abs(g).max()) if g.size else 0.0,
                float(np.abs(w).max()) if w.size else 0.0)


#: below this ratio of smallest to largest independent constraint singular value the
#: constraint forces grow without bound: a singular configuration
SINGULAR = 1e-6


class SingularConfiguration(Exception):
    """The constraint rows changed rank: the mechanism passed a singular configuration (a
    change point, a lock-up), where its motion is not determined."""

    def __init__(self, t, expected, found, conditioning):
        super().__init__(t)
        self.t, self.expected, self.found = t, expected, found
        self.conditioning = conditioning


class ConstrainedDynamics:
    """Accelerations and constraint forces of a System with loops or drivers, at a state whose
    kinematics and applied loads (tau, fext) are known. Not the compiled hot path: a dense
    mass matrix and an SVD per call (fine for mechanisms of tens of bodies)."""

    def __init__(self, system):
        self.system = system
        self.constraints = Constraints(system)
        self.ws = kernels.make_workspace(system.n_links, system.nq, system.nv)
        self.H = np.zeros((system.nv, system.nv))
        self.C = np.zeros(system.nv)
        self.zero = np.zeros(system.nv)
        self.rank = None   # of the constraint rows, fixed by the first (assembled) state

    def accelerations(self, t, qn, v, tau, fext):
        """(qdd, lambda): lambda (m,) are the constraint forces, world [moment; force] on each
        cut joint's chain end (the follower feels minus that) and driver forces, per row."""
        s = self.system
        kernels.rnea(qn, v, self.zero, fext, s.arrays, self.ws, self.C)
        kernels.crba(qn, s.arrays, self.ws, self.H)
        G, b, g, w = self.constraints.evaluate(t, qn, v)
        f = tau - self.C
        if not (np.all(np.isfinite(self.H)) and np.all(np.isfinite(f))
                and np.all(np.isfinite(G)) and np.all(np.isfinite(b))):
            # a trial state too far out (a stiff contact overshot): give the integrator a
            # non-finite derivative, which its error control rejects with a smaller step
            nan = np.full(s.nv, np.nan)
            return nan, np.full(G.shape[0], np.nan)
        qdd, lam, rank, conditioning = solve_constrained(self.H, f, G, b,
                                                         self.constraints.rank_tol)
        self.check_rank(t, rank, conditioning)
        return qdd, lam

    def check_rank(self, t, rank, conditioning):
        """Raise SingularConfiguration when the constraint rows changed rank from the first
        (assembled) state's, or came near to it (conditioning below SINGULAR)."""
        if self.rank is None:
            self.rank = rank
        if rank != self.rank or conditioning < SINGULAR:
            raise SingularConfiguration(t, self.rank, rank, conditioning)


def loop_joints(system, cut):
    """Names of the joints in the loop a cut joint closes: the cut joint, then the tree joints
    from its two sides up to their common ancestor."""
    parent = system.arrays[0]
    ends, blinks = system.closure_arrays[0], system.closure_arrays[1]
    k = system.cut_joints.index(cut)

    def chain(link):
        out = []
        while link >= 0:
            out.append(link)
            link = parent[link]
        return out

    a, b = chain(ends[k]), chain(blinks[k])
    common = set(a) & set(b)
    names = []
    for link in [x for x in a if x not in common] + [x for x in b if x not in common]:
        name = system.link_names[link].rsplit("[", 1)[0]
        if name not in names:
            names.append(name)
    return names


def _coordinate_scales(system):
    """Per velocity coordinate, the unit that makes it comparable with a radian: the model's
    length scale for prismatic coordinates, 1 for rotations."""
    parent, jtype, nd, qadr, vadr = system.arrays[:5]
    scale = np.ones(system.nv)
    for i in range(parent.shape[0]):
        if jtype[i] == kernels.PRISMATIC:
            scale[vadr[i]:vadr[i] + nd[i]] = system.length_scale
    return scale


def _split_step(K, r, scale, rank_tol):
    """(d, N): the least-norm d (nv) with K d = r (least squares if inconsistent) and an
    orthonormal basis N of K's null space, both in coordinates divided by ``scale``."""
    U, s, Vt = np.linalg.svd(K * scale)
    rank = int(np.sum(s > rank_tol * s[0])) if s.size and s[0] > 0 else 0
    return Vt[:rank].T @ ((U[:, :rank].T @ r) / s[:rank]), Vt[rank:].T


def _onto_hard(system, t, c, q, target, hard, scale, tol, iterations=30):
    """(q, residual): Newton with least-norm steps onto g(q) = 0 and the ``hard`` coordinates
    at their targets; steps shortened to 0.5 (rad or length scale) far out."""
    zero, rows = np.zeros(system.nv), np.eye(system.nv)[hard]
    for it in range(iterations + 1):
        G, b, g, w = c.evaluate(t, q, zero)
        r = np.concatenate([-g, -difference(system, q, target)[hard]])
        res = np.abs(r).max(initial=0.0)
        if res <= tol or it == iterations:
            break
        u = _split_step(np.vstack([G, rows]), r, scale, c.rank_tol)[0]
        size = np.abs(u).max()
        q = retract(system, q, u * scale * min(1.0, 0.5 / size) if size > 0 else u)
    return q, res


def _assemble_positions(system, t, c, targets, hard, soft, tol, fail_tol):
    """(q, residual): positions on g(q) = 0 with the ``hard`` coordinates at their targets and
    the ``soft`` ones as near theirs as possible (free coordinates move only as the loops
    demand).

    Continuation from the drawing (closed by construction) towards the targets in stages of
    at most 0.1 rad (or length scale) keeps the solution on the drawing's assembly branch and
    every Newton start near. In each stage, Newton onto the equations; then Levenberg-Marquardt
    steps on the soft targets in the equations' tangent space, each followed by Newton back
    onto them and kept only if it brings the soft coordinates nearer (an unreachable soft
    target, beyond a limit position, then ends at the limit instead of diverging).
    """
    scale = _coordinate_scales(system)
    q_ref = np.zeros(system.nq)
    parent, jtype, nd, qadr = system.arrays[:4]
    q_ref[qadr[jtype == kernels.SPHERICAL]] = 1.0     # the drawing: identity quaternions
    span = difference(system, targets, q_ref)
    given = hard | soft
    far = np.abs(span[given] / scale[given]).max() if given.any() else 0.0
    stages = max(1, int(np.ceil(far / 0.1)))
    zero, rows = np.zeros(system.nv), np.eye(system.nv)[hard]
    q, res = q_ref, 0.0
    for k in range(1, stages + 1):
        target = retract(system, q_ref, span * (k / stages))
        q, res = _onto_hard(system, t, c, q, target, hard, scale, tol)
        if not res <= fail_tol:
            return q, res
        if not soft.any():
            continue
        lam = None      # Levenberg-Marquardt damping, adapted
        miss = np.sum((difference(system, q, target)[soft] / scale[soft]) ** 2)
        for _ in range(100 if k == stages else 10):
            G = c.evaluate(t, q, zero)[0]
            N = _split_step(np.vstack([G, rows]), np.zeros(len(G) + len(rows)), scale,
                            c.rank_tol)[1]
            A = N[soft]
            if not A.size:
                break
            AtA = A.T @ A
            gradient = A.T @ (difference(system, q, target)[soft] / scale[soft])
            if lam is None:
                lam = 1e-9 * max(np.trace(AtA), 1e-12)
            d = N @ np.linalg.solve(AtA + lam * np.eye(len(AtA)), -gradient)
            if np.abs(d).max() <= 1e-14:
                break
            trial, res_trial = _onto_hard(system, t, c, retract(system, q, d * scale), target,
                                          hard, scale, tol)
            miss_trial = np.sum((difference(system, trial, target)[soft] / scale[soft]) ** 2)
            if res_trial <= fail_tol and miss_trial <= miss:
                q, res, miss = trial, res_trial, miss_trial
                lam = max(lam / 10.0, 1e-15)
            else:
                lam *= 10.0
                if lam > 1e8:
                    break
    return q, res


def assemble(system, t, q, v, q_given, v_given, exact_q, exact_v):
    """The consistent state nearest the targets: positions on g(q) = 0, then velocities on
    G v = driver rates (DESIGN §3, assembly).

    ``q_given``, ``v_given``, ``exact_q`` and ``exact_v`` are boolean masks over the nv
    velocity-space coordinates: exact targets must be met, the other given ones are met as
    nearly as the loops allow (exactly where they can be), free ones (no target) take what
    the loops demand. Raises SimulationError naming the loop's joints and the residual, or
    the exact targets that cannot be met and their loops.
    """
    from .errors import SimulationError
    P = Projector(system)
    c = P.c
    nv = system.nv
    tol = 1e-9 * system.length_scale
    targets = normalized(system, q)
    scale = _coordinate_scales(system)

    def names_of(mask):
        return sorted(n for n, jm in system.joints.items() if mask[jm.v_index].any())

    def loops_of(joints):
        return [loop_joints(system, cut) for cut in system.cut_joints
                if set(joints) & set(loop_joints(system, cut))]

    hard, soft = exact_q & q_given, q_given & ~exact_q
    q_new = _assemble_positions(system, t, c, targets, hard, soft, P.tol, tol)[0]
    g = c.evaluate(t, q_new, np.zeros(nv))[2]
    missed = np.abs(difference(system, q_new, targets)) / scale
    if not (np.abs(g).max(initial=0.0) <= tol and np.all(missed[hard] <= 1e-8)):
        if hard.any():      # can the loops close with the exact targets made approximate?
            q_soft = _assemble_positions(system, t, c, targets, np.zeros_like(hard), q_given,
                                         P.tol, tol)[0]
            g = c.evaluate(t, q_soft, np.zeros(nv))[2]
            if np.abs(g).max(initial=0.0) <= tol:
                off = np.abs(difference(system, q_soft, targets)) / scale
                joints = names_of(hard)
                raise SimulationError(
                    f"assembly failed at t = {t:g} s: the exact q0 targets of joints {joints} "
                    f"cannot all be met in the loop(s) of joints {loops_of(joints)}: the "
                    f"nearest closed configuration misses them by up to {off[hard].max():.3g}; "
                    "make some approximate or change them", t=t)
        loops = "; ".join(f"loop of joints {loop_joints(system, cut)} (residual "
                          f"{np.abs(g[6 * k:6 * k + 6]).max():.3g})"
                          for k, cut in enumerate(system.cut_joints)
                          if np.abs(g[6 * k:6 * k + 6]).max() > tol)
        drivers = [d.name for k, d in enumerate(system.drivers) if abs(g[c.nc + k]) > tol]
        raise SimulationError(f"assembly failed: the mechanism cannot be closed at t = {t:g} s: "
                              f"{loops or 'drivers ' + str(drivers)}; check the joints' "
                              "positions, axes and q0 targets", t=t)
    # velocities, one linear solve: the exact targets and G v = rates, the others nearest
    hard, soft = exact_v & v_given, v_given & ~exact_v
    G, b, g, w = c.evaluate(t, q_new, v)
    u, N = _split_step(np.vstack([G, np.eye(nv)[hard]]),
                       np.concatenate([-w, np.zeros(int(hard.sum()))]), scale, c.rank_tol)
    if N.shape[1] and soft.any():   # the approximate targets as near as the rest allows
        u = u + N @ np.linalg.lstsq(N[soft], -u[soft], rcond=c.rank_tol)[0]
    v_new = v + u * scale
    w = c.evaluate(t, q_new, v_new)[3]
    size = max(1.0, np.abs(v).max(initial=0.0))
    if np.any(np.abs(v_new - v)[hard] > 1e-8 * size) or np.abs(w).max(initial=0.0) > tol * size:
        joints = names_of(hard)
        raise SimulationError(f"assembly failed at t = {t:g} s: the exact v0 targets of joints "
                              f"{joints} conflict with the velocity constraints of the loop(s) "
                              f"of joints {loops_of(joints)}", t=t)
    return q_new, v_new
