"""Compiled tree kinematics and dynamics over the System's link records
(:mod:`mbd.compiled.layout`).

Everything here follows Featherstone, *Rigid Body Dynamics Algorithms* (2008), in its symbols:
spatial motion vectors are ``[w; v]``, force vectors ``[n; f]``, and a Plücker transform
``X = rot(E) xlt(r)`` is stored as the pair ``(E, r)``: ``E`` maps parent coordinates to link
coordinates and ``r`` is the link origin in parent coordinates.

The tree is an array of ``LINK`` records, parents before children. A link carries one joint
primitive:

=====  ==========  ======  =====================================================
code   primitive   dofs    joint transform X_J(q)
=====  ==========  ======  =====================================================
0      fixed       0       identity (a Weld)
1      revolute    1       rotation about ``axis`` by q (right-hand rule)
2      prismatic   1       translation along ``axis`` by q
3      spherical   3       rotation by the unit quaternion q = (w, x, y, z)
=====  ==========  ======  =====================================================

A joint with several primitives is a chain of links; all but the last are massless.

One evaluation runs the kinematics once (:func:`link_velocities`), which leaves every link's
pose and velocity in its ``LINK_STATE`` record; the dynamics kernels (:func:`rnea`,
:func:`crba`, :func:`aba`, :func:`aba_world`, :func:`energies`) then read them. Kernels write
into caller-owned records and allocate nothing.
"""
import numpy as np

from .jit.jitcache import njit
from .layout import PRISMATIC, REVOLUTE, SPHERICAL

# ----------------------------------------------------------------------------- small algebra


@njit(inline="always")
def quat_to_matrix(q, R):
    """Rotation matrix R (3x3) of the unit quaternion q = (w, x, y, z), written into R."""
    w, x, y, z = q[0], q[1], q[2], q[3]
    R[0, 0] = 1.0 - 2.0 * (y * y + z * z)
    R[0, 1] = 2.0 * (x * y - w * z)
    R[0, 2] = 2.0 * (x * z + w * y)
    R[1, 0] = 2.0 * (x * y + w * z)
    R[1, 1] = 1.0 - 2.0 * (x * x + z * z)
    R[1, 2] = 2.0 * (y * z - w * x)
    R[2, 0] = 2.0 * (x * z - w * y)
    R[2, 1] = 2.0 * (y * z + w * x)
    R[2, 2] = 1.0 - 2.0 * (x * x + y * y)


@njit()
def xmotion(E, r, m, out):
    """out = X m for X = (E, r): [E w; E (v - r x w)]."""
    w0, w1, w2 = m[0], m[1], m[2]
    v0 = m[3] - (r[1] * w2 - r[2] * w1)
    v1 = m[4] - (r[2] * w0 - r[0] * w2)
    v2 = m[5] - (r[0] * w1 - r[1] * w0)
    for i in range(3):
        out[i] = E[i, 0] * w0 + E[i, 1] * w1 + E[i, 2] * w2
        out[3 + i] = E[i, 0] * v0 + E[i, 1] * v1 + E[i, 2] * v2


@njit()
def xtforce_add(E, r, f, out):
    """out += X^T f: [E^T n + r x E^T f; E^T f] (a force from link to parent coordinates)."""
    n0 = E[0, 0] * f[0] + E[1, 0] * f[1] + E[2, 0] * f[2]
    n1 = E[0, 1] * f[0] + E[1, 1] * f[1] + E[2, 1] * f[2]
    n2 = E[0, 2] * f[0] + E[1, 2] * f[1] + E[2, 2] * f[2]
    g0 = E[0, 0] * f[3] + E[1, 0] * f[4] + E[2, 0] * f[5]
    g1 = E[0, 1] * f[3] + E[1, 1] * f[4] + E[2, 1] * f[5]
    g2 = E[0, 2] * f[3] + E[1, 2] * f[4] + E[2, 2] * f[5]
    out[0] += n0 + r[1] * g2 - r[2] * g1
    out[1] += n1 + r[2] * g0 - r[0] * g2
    out[2] += n2 + r[0] * g1 - r[1] * g0
    out[3] += g0
    out[4] += g1
    out[5] += g2


@njit()
def crossm(a, b, out):
    """out = a x_m b, the spatial cross product of two motion vectors."""
    w0, w1, w2, v0, v1, v2 = a[0], a[1], a[2], a[3], a[4], a[5]
    b0, b1, b2, b3, b4, b5 = b[0], b[1], b[2], b[3], b[4], b[5]
    out[0] = w1 * b2 - w2 * b1
    out[1] = w2 * b0 - w0 * b2
    out[2] = w0 * b1 - w1 * b0
    out[3] = w1 * b5 - w2 * b4 + v1 * b2 - v2 * b1
    out[4] = w2 * b3 - w0 * b5 + v2 * b0 - v0 * b2
    out[5] = w0 * b4 - w1 * b3 + v0 * b1 - v1 * b0


@njit()
def crossf_add(a, f, out):
    """out += a x_f f, the spatial cross product of a motion and a force vector."""
    w0, w1, w2, v0, v1, v2 = a[0], a[1], a[2], a[3], a[4], a[5]
    n0, n1, n2, f0, f1, f2 = f[0], f[1], f[2], f[3], f[4], f[5]
    out[0] += w1 * n2 - w2 * n1 + v1 * f2 - v2 * f1
    out[1] += w2 * n0 - w0 * n2 + v2 * f0 - v0 * f2
    out[2] += w0 * n1 - w1 * n0 + v0 * f1 - v1 * f0
    out[3] += w1 * f2 - w2 * f1
    out[4] += w2 * f0 - w0 * f2
    out[5] += w0 * f1 - w1 * f0


@njit()
def matvec6(A, x, out):
    """out = A x for a 6x6 A."""
    for i in range(6):
        s = 0.0
        for j in range(6):
            s += A[i, j] * x[j]
        out[i] = s


@njit()
def xt_inertia_x_add(E, r, Ia, out, B):
    """out += X^T Ia X: a symmetric (articulated or composite) inertia carried to the parent.

    With X = rot(E) xlt(r) = [E 0; 0 E] [1 0; -[r]x 1], first B = [E^T Ia_ij E] blockwise, then
    the translation by blocks (Featherstone §2.13)::

        [B11 + rx B21 - (B12 + rx B22) rx,  B12 + rx B22;  (...)^T,  B22]

    ``B`` is 6x6 scratch.
    """
    for bi in range(2):
        for bj in range(bi, 2):
            for a in range(3):       # B_ij = E^T Ia_ij E
                for c in range(3):
                    s = 0.0
                    for k in range(3):
                        y = (Ia[3 * bi + k, 3 * bj] * E[0, c] + Ia[3 * bi + k, 3 * bj + 1] * E[1, c]
                             + Ia[3 * bi + k, 3 * bj + 2] * E[2, c])
                        s += E[k, a] * y
                    B[3 * bi + a, 3 * bj + c] = s
    r0, r1, r2 = r[0], r[1], r[2]
    for c in range(3):
        # C = B12 + r x (columns of B22), kept in B's lower-left block (B21 is B12^T)
        b0, b1, b2 = B[3, 3 + c], B[4, 3 + c], B[5, 3 + c]
        B[3 + c, 0] = B[0, 3 + c] + (r1 * b2 - r2 * b1)
        B[3 + c, 1] = B[1, 3 + c] + (r2 * b0 - r0 * b2)
        B[3 + c, 2] = B[2, 3 + c] + (r0 * b1 - r1 * b0)
    # now B[3 + c, a] = C[a, c]; block11 = B11 + rx B12^T - C rx
    for a in range(3):
        for c in range(3):
            # (rx B12^T)[a, c] = (r x B12[c, :])[a];  (C rx)[a, c] = (C[a, :] x r)[c]
            if a == 0:
                rb = r1 * B[c, 5] - r2 * B[c, 4]
            elif a == 1:
                rb = r2 * B[c, 3] - r0 * B[c, 5]
            else:
                rb = r0 * B[c, 4] - r1 * B[c, 3]
            C0, C1, C2 = B[3, a], B[4, a], B[5, a]
            if c == 0:
                cr = C1 * r2 - C2 * r1
            elif c == 1:
                cr = C2 * r0 - C0 * r2
            else:
                cr = C0 * r1 - C1 * r0
            out[a, c] += B[a, c] + rb - cr
            out[a, 3 + c] += B[3 + c, a]
            out[3 + c, a] += B[3 + c, a]
            out[3 + a, 3 + c] += B[3 + a, 3 + c]


@njit()
def inverse3(A, out):
    """out = inverse of the 3x3 matrix A (adjugate over determinant)."""
    a, b, c = A[0, 0], A[0, 1], A[0, 2]
    d, e, f = A[1, 0], A[1, 1], A[1, 2]
    g, h, k = A[2, 0], A[2, 1], A[2, 2]
    co0 = e * k - f * h
    co1 = f * g - d * k
    co2 = d * h - e * g
    inv = 1.0 / (a * co0 + b * co1 + c * co2)
    out[0, 0] = co0 * inv
    out[0, 1] = (c * h - b * k) * inv
    out[0, 2] = (b * f - c * e) * inv
    out[1, 0] = co1 * inv
    out[1, 1] = (a * k - c * g) * inv
    out[1, 2] = (c * d - a * f) * inv
    out[2, 0] = co2 * inv
    out[2, 1] = (b * g - a * h) * inv
    out[2, 2] = (a * e - b * d) * inv


@njit()
def cholesky_solve(H, b, x):
    """x = H^-1 b for symmetric positive definite H (n x n), in place (H is overwritten by
    L); x is NaN when H is not positive definite."""
    n = x.shape[0]
    for j in range(n):
        s = H[j, j]
        for k in range(j):
            s -= H[j, k] * H[j, k]
        if not s > 0.0:
            for k in range(n):
                x[k] = np.nan
            return
        d = np.sqrt(s)
        H[j, j] = d
        for i in range(j + 1, n):
            s = H[i, j]
            for k in range(j):
                s -= H[i, k] * H[j, k]
            H[i, j] = s / d
    for i in range(n):  # L y = b
        s = b[i]
        for k in range(i):
            s -= H[i, k] * x[k]
        x[i] = s / H[i, i]
    for i in range(n - 1, -1, -1):  # L^T x = y
        s = x[i]
        for k in range(i + 1, n):
            s -= H[k, i] * x[k]
        x[i] = s / H[i, i]


# ----------------------------------------------------------------------------- motion subspace

@njit(inline="always")
def S_column(L, k, out):
    """out = column k of the link's motion subspace S (link coordinates)."""
    for m in range(6):
        out[m] = 0.0
    if L.jtype == REVOLUTE:
        for m in range(3):
            out[m] = L.axis[m]
    elif L.jtype == PRISMATIC:
        for m in range(3):
            out[3 + m] = L.axis[m]
    elif L.jtype == SPHERICAL:
        out[k] = 1.0


@njit(inline="always")
def S_times(L, x, out):
    """out = S x[vadr : vadr + nd] (a spatial motion vector in link coordinates)."""
    for m in range(6):
        out[m] = 0.0
    a = L.vadr
    if L.jtype == REVOLUTE:
        for m in range(3):
            out[m] = L.axis[m] * x[a]
    elif L.jtype == PRISMATIC:
        for m in range(3):
            out[3 + m] = L.axis[m] * x[a]
    elif L.jtype == SPHERICAL:
        for m in range(3):
            out[m] = x[a + m]


@njit(inline="always")
def St_times(L, f, out, adr):
    """out[adr : adr + nd] = S^T f."""
    if L.jtype == REVOLUTE:
        out[adr] = L.axis[0] * f[0] + L.axis[1] * f[1] + L.axis[2] * f[2]
    elif L.jtype == PRISMATIC:
        out[adr] = L.axis[0] * f[3] + L.axis[1] * f[4] + L.axis[2] * f[5]
    elif L.jtype == SPHERICAL:
        for m in range(3):
            out[adr + m] = f[m]


# ----------------------------------------------------------------------------- kinematics

@njit()
def normalize_quaternions(q, tree, qn):
    """qn = q with every spherical primitive's quaternion scaled to unit length (qn may be q)."""
    for k in range(q.shape[0]):
        qn[k] = q[k]
    for i in range(tree.shape[0]):
        if tree[i].jtype == SPHERICAL:
            a = tree[i].qadr
            s = np.sqrt(q[a] ** 2 + q[a + 1] ** 2 + q[a + 2] ** 2 + q[a + 3] ** 2)
            for k in range(4):
                qn[a + k] = q[a + k] / s


@njit()
def quaternion_rates(q, v, tree, qdot):
    """qdot = dq/dt: v for revolute/prismatic, 0.5 Q (x) (0, w) for spherical (w in link
    axes)."""
    for i in range(tree.shape[0]):
        L = tree[i]
        a, b = L.qadr, L.vadr
        if L.jtype == REVOLUTE or L.jtype == PRISMATIC:
            qdot[a] = v[b]
        elif L.jtype == SPHERICAL:
            w, x, y, z = q[a], q[a + 1], q[a + 2], q[a + 3]
            wx, wy, wz = v[b], v[b + 1], v[b + 2]
            qdot[a] = 0.5 * (-x * wx - y * wy - z * wz)
            qdot[a + 1] = 0.5 * (w * wx + y * wz - z * wy)
            qdot[a + 2] = 0.5 * (w * wy + z * wx - x * wz)
            qdot[a + 3] = 0.5 * (w * wz + x * wy - y * wx)


@njit()
def link_transforms(q, tree, links, scratch):
    """Parent-to-link transforms X_i = X_J(q) X_T and the world pose of every link.

    Writes ``E, r`` (X_i) and ``E0, p0`` (E0 maps world to link coordinates, p0 is the link
    origin in world coordinates). ``q`` must hold unit quaternions.
    """
    EJ = scratch[0].EJ
    for i in range(tree.shape[0]):
        L, S = tree[i], links[i]
        t = L.jtype
        if t == REVOLUTE:
            # E_J = R(axis, q)^T with R = c 1 + s [a]x + (1 - c) a a^T
            c, s = np.cos(q[L.qadr]), np.sin(q[L.qadr])
            x, y, z = L.axis[0], L.axis[1], L.axis[2]
            u = 1.0 - c
            EJ[0, 0], EJ[0, 1], EJ[0, 2] = c + u * x * x, u * x * y + s * z, u * x * z - s * y
            EJ[1, 0], EJ[1, 1], EJ[1, 2] = u * x * y - s * z, c + u * y * y, u * y * z + s * x
            EJ[2, 0], EJ[2, 1], EJ[2, 2] = u * x * z + s * y, u * y * z - s * x, c + u * z * z
        elif t == SPHERICAL:
            quat_to_matrix(q[L.qadr:L.qadr + 4], EJ)
            for a in range(3):  # E_J = R^T
                for b in range(a + 1, 3):
                    tmp = EJ[a, b]
                    EJ[a, b] = EJ[b, a]
                    EJ[b, a] = tmp
        else:
            for a in range(3):
                for b in range(3):
                    EJ[a, b] = 1.0 if a == b else 0.0
        # E = E_J E_T and r = r_T + E_T^T r_J (r_J is nonzero only for a prismatic primitive)
        E, r, E_T = S.E, S.r, L.E_T
        for a in range(3):
            for b in range(3):
                E[a, b] = EJ[a, 0] * E_T[0, b] + EJ[a, 1] * E_T[1, b] + EJ[a, 2] * E_T[2, b]
            r[a] = L.r_T[a]
        if t == PRISMATIC:
            s = q[L.qadr]
            for a in range(3):
                r[a] += s * (E_T[0, a] * L.axis[0] + E_T[1, a] * L.axis[1]
                             + E_T[2, a] * L.axis[2])
        E0, p0 = S.E0, S.p0
        if L.parent < 0:
            for a in range(3):
                p0[a] = r[a]
                for b in range(3):
                    E0[a, b] = E[a, b]
        else:
            P0, pp = links[L.parent].E0, links[L.parent].p0
            for a in range(3):
                p0[a] = pp[a] + P0[0, a] * r[0] + P0[1, a] * r[1] + P0[2, a] * r[2]
                for b in range(3):
                    E0[a, b] = E[a, 0] * P0[0, b] + E[a, 1] * P0[1, b] + E[a, 2] * P0[2, b]


@njit()
def link_velocities(q, v, tree, links, scratch):
    """Forward kinematics to velocity level: :func:`link_transforms`, then ``vel`` (the
    link's spatial velocity in link coordinates) and ``cj = vel x S qd`` (the velocity-product
    acceleration term; S is constant in link coordinates)."""
    link_transforms(q, tree, links, scratch)
    sq = scratch[0].a
    for i in range(tree.shape[0]):
        L, S = tree[i], links[i]
        S_times(L, v, sq)
        if L.parent < 0:
            for k in range(6):
                S.vel[k] = sq[k]
        else:
            xmotion(S.E, S.r, links[L.parent].vel, S.vel)
            for k in range(6):
                S.vel[k] += sq[k]
        crossm(S.vel, sq, S.cj)


@njit(inline="always")
def velocity_products(tree, links):
    """``avp``: every link's acceleration with qdd = 0 and no gravity (the velocity-product
    terms the loop closures need), on the kinematics of :func:`link_velocities`."""
    for i in range(tree.shape[0]):
        L, S = tree[i], links[i]
        if L.parent < 0:
            for m in range(6):
                S.avp[m] = S.cj[m]
        else:
            xmotion(S.E, S.r, links[L.parent].avp, S.avp)
            for m in range(6):
                S.avp[m] += S.cj[m]


@njit(inline="always")
def clear_loads(links, tau):
    """Zero every link's external force and the generalized forces."""
    for i in range(links.shape[0]):
        for k in range(6):
            links[i].fext[k] = 0.0
    for k in range(tau.shape[0]):
        tau[k] = 0.0


# ----------------------------------------------------------------------------- dynamics

@njit(inline="always")
def _base_acceleration(L, S, out):
    """out = X_i a_0 for a root link: gravity enters as the base acceleration a_0 = [0; -g]."""
    g = L.gravity
    # X [0; -g] = [0; E (-g)] (a pure linear acceleration is not moved by xlt)
    for k in range(3):
        out[k] = 0.0
        out[3 + k] = -(S.E[k, 0] * g[0] + S.E[k, 1] * g[1] + S.E[k, 2] * g[2])


@njit()
def rnea(qdd, tree, links, scratch, tau):
    """Recursive Newton-Euler inverse dynamics (Table 5.1) on the kinematics of
    :func:`link_velocities`: tau = ID(q, v, qdd, fext) with fext the links' ``fext``.

    With qdd = 0 and no fext this is the bias force C(q, v): gravity, Coriolis, centrifugal.
    """
    sc = scratch[0]
    tmp, sqdd = sc.a, sc.b
    for i in range(tree.shape[0]):
        L, S = tree[i], links[i]
        if L.parent < 0:
            _base_acceleration(L, S, S.acc)
        else:
            xmotion(S.E, S.r, links[L.parent].acc, S.acc)
        S_times(L, qdd, sqdd)
        for k in range(6):
            S.acc[k] += sqdd[k] + S.cj[k]
        # f = I a + v x* I v - fext
        matvec6(L.inertia, S.acc, S.f)
        matvec6(L.inertia, S.vel, tmp)
        crossf_add(S.vel, tmp, S.f)
        for k in range(6):
            S.f[k] -= S.fext[k]
    for i in range(tree.shape[0] - 1, -1, -1):
        L, S = tree[i], links[i]
        St_times(L, S.f, tau, L.vadr)
        if L.parent >= 0:
            xtforce_add(S.E, S.r, S.f, links[L.parent].f)


@njit()
def crba_upper(tree, links, scratch, H):
    """Composite-rigid-body algorithm (Table 6.2) on the poses of :func:`link_transforms`:
    the entries H[j, i] of the joint-space mass matrix for every coordinate i and the
    coordinates j of its own link and its ancestors (the upper triangle on the tree's
    pattern; nothing else is written)."""
    sc = scratch[0]
    nl = tree.shape[0]
    for i in range(nl):
        for a in range(6):
            for b in range(6):
                links[i].IA[a, b] = tree[i].inertia[a, b]
    for i in range(nl - 1, -1, -1):
        if tree[i].parent >= 0:
            xt_inertia_x_add(links[i].E, links[i].r, links[i].IA, links[tree[i].parent].IA,
                             sc.X6)
    col, F, XtF = sc.a, sc.b, sc.c
    # column ci gets S_j^T F for link i and every ancestor j; ancestors have lower v
    # addresses, so this fills the upper triangle
    for i in range(nl):
        for k in range(tree[i].nd):
            ci = tree[i].vadr + k
            S_column(tree[i], k, col)
            matvec6(links[i].IA, col, F)
            St_times(tree[i], F, H[:, ci], tree[i].vadr)
            j = i
            while tree[j].parent >= 0:
                for m in range(6):
                    XtF[m] = 0.0
                xtforce_add(links[j].E, links[j].r, F, XtF)
                for m in range(6):
                    F[m] = XtF[m]
                j = tree[j].parent
                St_times(tree[j], F, H[:, ci], tree[j].vadr)


@njit()
def crba(tree, links, scratch, H):
    """The whole joint-space mass matrix H(q) (:func:`crba_upper`, mirrored)."""
    for a in range(H.shape[0]):
        for b in range(H.shape[1]):
            H[a, b] = 0.0
    crba_upper(tree, links, scratch, H)
    nv = H.shape[0]
    for a in range(nv):
        for b in range(a + 1, nv):
            H[b, a] = H[a, b]


@njit(inline="always")
def _joint_accelerations(L, S, ap, tmp, qdd):
    """ABA's last pass at a link: qdd[vadr : vadr + nd] = D^-1 (u - U^T a'), with a' the
    link's acceleration before its own joint's (both ABAs, in their own frames)."""
    n = L.nd
    for k in range(n):
        s = S.u[k]
        for m in range(6):
            s -= S.U[m, k] * ap[m]
        tmp[k] = s
    for k in range(n):
        s = 0.0
        for j in range(n):
            s += S.Dinv[k, j] * tmp[j]
        qdd[L.vadr + k] = s


@njit()
def aba(v, tau, tree, links, scratch, qdd):
    """Articulated-body algorithm in link coordinates (Table 7.1) on the kinematics of
    :func:`link_velocities`: qdd = FD(q, v, tau, fext)."""
    sc = scratch[0]
    nl = tree.shape[0]
    tmp, col, pa, ap = sc.a, sc.b, sc.c, sc.d
    Ia = sc.I6
    for i in range(nl):
        L, S = tree[i], links[i]
        for a in range(6):
            for b in range(6):
                S.IA[a, b] = L.inertia[a, b]
        matvec6(L.inertia, S.vel, tmp)
        for k in range(6):
            S.pA[k] = -S.fext[k]
        crossf_add(S.vel, tmp, S.pA)
    for i in range(nl - 1, -1, -1):
        L, S = tree[i], links[i]
        n = L.nd
        for k in range(n):  # U = IA S
            S_column(L, k, col)
            matvec6(S.IA, col, tmp)
            for m in range(6):
                S.U[m, k] = tmp[m]
        if n == 1:  # D = S^T U, u = tau - S^T pA
            St_times(L, S.U[:, 0], tmp, 0)
            S.Dinv[0, 0] = 1.0 / tmp[0]
            St_times(L, S.pA, tmp, 0)
            S.u[0] = tau[L.vadr] - tmp[0]
        elif n == 3:  # spherical: S = [1; 0]
            D3 = sc.D3
            for a in range(3):
                for b in range(3):
                    D3[a, b] = S.U[a, b]
                S.u[a] = tau[L.vadr + a] - S.pA[a]
            inverse3(D3, S.Dinv)
        if L.parent < 0:
            continue
        # Ia = IA - U D^-1 U^T,  pa = pA + Ia c + U D^-1 u
        for a in range(6):
            for b in range(6):
                s = S.IA[a, b]
                for k in range(n):
                    for j in range(n):
                        s -= S.U[a, k] * S.Dinv[k, j] * S.U[b, j]
                Ia[a, b] = s
        matvec6(Ia, S.cj, tmp)
        for a in range(6):
            s = S.pA[a] + tmp[a]
            for k in range(n):
                for j in range(n):
                    s += S.U[a, k] * S.Dinv[k, j] * S.u[j]
            pa[a] = s
        P = links[L.parent]
        xt_inertia_x_add(S.E, S.r, Ia, P.IA, sc.X6)
        xtforce_add(S.E, S.r, pa, P.pA)
    for i in range(nl):
        L, S = tree[i], links[i]
        if L.parent < 0:
            _base_acceleration(L, S, ap)
        else:
            xmotion(S.E, S.r, links[L.parent].acc, ap)
        for k in range(6):
            ap[k] += S.cj[k]
        _joint_accelerations(L, S, ap, tmp, qdd)
        S_times(L, qdd, col)
        for k in range(6):
            S.acc[k] = ap[k] + col[k]


@njit()
def aba_world(v, tau, tree, links, scratch, qdd):
    """The articulated-body algorithm in world axes, on the poses of :func:`link_transforms`:
    qdd = FD(q, v, tau, fext).

    Every spatial quantity is expressed in world axes at one point per tree, the current
    origin of its root link (Featherstone §7.3; Pinocchio uses the world origin), so
    articulated inertias pass to the parent by plain addition instead of a 6x6 congruence per
    link; each body's inertia is moved to world axes from its 10 parameters instead. About
    twice as fast as :func:`aba` on a chain; the same result to round-off while the tree stays
    within a few times its own size of that point (lever arms multiply round-off):
    :func:`mbd.compiled.dynamics` and the integrator use it for trees without prismatic primitives,
    whose links cannot travel away. ``fext`` is in link coordinates, as everywhere.
    """
    sc = scratch[0]
    nl = tree.shape[0]
    for i in range(nl):
        L, S = tree[i], links[i]
        R = S.E0           # world -> link; its rows are the link axes in world coordinates
        ref = S.ref
        # the link origin relative to its tree's root link origin, accumulated from the
        # parent offsets as link_transforms does for p0 (a difference of p0's would cancel)
        if L.parent < 0:
            ref[0] = ref[1] = ref[2] = 0.0
        else:
            P = links[L.parent]
            for k in range(3):
                ref[k] = P.ref[k] + P.E0[0, k] * S.r[0] + P.E0[1, k] * S.r[1] + P.E0[2, k] * S.r[2]
        px, py, pz = ref[0], ref[1], ref[2]
        n = L.nd
        Sw = S.Sw
        # motion subspace at the root: [e; p x e] (revolute, spherical), [0; e] (prismatic)
        for k in range(n):
            if L.jtype == SPHERICAL:
                ex, ey, ez = R[k, 0], R[k, 1], R[k, 2]
            else:
                a0, a1, a2 = L.axis[0], L.axis[1], L.axis[2]
                ex = R[0, 0] * a0 + R[1, 0] * a1 + R[2, 0] * a2
                ey = R[0, 1] * a0 + R[1, 1] * a1 + R[2, 1] * a2
                ez = R[0, 2] * a0 + R[1, 2] * a1 + R[2, 2] * a2
            if L.jtype == PRISMATIC:
                Sw[0, k] = Sw[1, k] = Sw[2, k] = 0.0
                Sw[3, k], Sw[4, k], Sw[5, k] = ex, ey, ez
            else:
                Sw[0, k], Sw[1, k], Sw[2, k] = ex, ey, ez
                Sw[3, k] = py * ez - pz * ey
                Sw[4, k] = pz * ex - px * ez
                Sw[5, k] = px * ey - py * ex
        # velocity v_i = v_parent + S qd, and c_i = v_i x (S qd) (S is fixed in the link)
        sq = sc.a
        for m in range(6):
            s = 0.0
            for k in range(n):
                s += Sw[m, k] * v[L.vadr + k]
            sq[m] = s
            S.vw[m] = s if L.parent < 0 else links[L.parent].vw[m] + s
        crossm(S.vw, sq, S.cw)
        # the body's inertia at the root from m, c and Ic: Ic in link axes = I_O,11 - m
        # (|c|^2 1 - c c^T); then world axes Ic_w = R^T Ic R about c_w = p + R^T c
        M = L.mass
        I6 = S.IA
        c = L.com
        c2 = c[0] * c[0] + c[1] * c[1] + c[2] * c[2]
        J = sc.J3
        for a in range(3):
            for b in range(3):
                J[a, b] = L.inertia[a, b] + M * c[a] * c[b]
            J[a, a] -= M * c2
        gx = px + R[0, 0] * c[0] + R[1, 0] * c[1] + R[2, 0] * c[2]
        gy = py + R[0, 1] * c[0] + R[1, 1] * c[1] + R[2, 1] * c[2]
        gz = pz + R[0, 2] * c[0] + R[1, 2] * c[1] + R[2, 2] * c[2]
        T = sc.T3
        for a in range(3):
            for b in range(3):
                T[a, b] = J[a, 0] * R[0, b] + J[a, 1] * R[1, b] + J[a, 2] * R[2, b]
        for a in range(3):
            for b in range(a, 3):
                w = R[0, a] * T[0, b] + R[1, a] * T[1, b] + R[2, a] * T[2, b]
                I6[a, b] = w
                I6[b, a] = w
        # + m [c]x [c]x^T = m (|c|^2 1 - c c^T); off-diagonal blocks m [c]x and its transpose
        g2 = gx * gx + gy * gy + gz * gz
        gv = sc.p
        gv[0], gv[1], gv[2] = gx, gy, gz
        for a in range(3):
            for b in range(3):
                I6[a, b] -= M * gv[a] * gv[b]
                I6[3 + a, 3 + b] = M if a == b else 0.0
            I6[a, a] += M * g2
        I6[0, 3], I6[0, 4], I6[0, 5] = 0.0, -M * gz, M * gy
        I6[1, 3], I6[1, 4], I6[1, 5] = M * gz, 0.0, -M * gx
        I6[2, 3], I6[2, 4], I6[2, 5] = -M * gy, M * gx, 0.0
        for a in range(3):
            for b in range(3):
                I6[3 + b, a] = I6[a, 3 + b]
        # bias force pA = v x* (I v) - f_ext (f_ext moved to the root point: X^T f)
        tmp = sc.b
        matvec6(I6, S.vw, tmp)
        for k in range(6):
            S.pA[k] = 0.0
        crossf_add(S.vw, tmp, S.pA)
        fx = S.fext
        if fx[0] != 0.0 or fx[1] != 0.0 or fx[2] != 0.0 or fx[3] != 0.0 or fx[4] != 0.0 \
                or fx[5] != 0.0:
            for k in range(6):
                tmp[k] = 0.0
            xtforce_add(R, ref, fx, tmp)
            for k in range(6):
                S.pA[k] -= tmp[k]
    for i in range(nl - 1, -1, -1):
        L, S = tree[i], links[i]
        n = L.nd
        Sw, U, IA, pA, u, Dinv, cw = S.Sw, S.U, S.IA, S.pA, S.u, S.Dinv, S.cw
        for k in range(n):  # U = IA S, u = tau - S^T pA
            s_u = tau[L.vadr + k]
            for m in range(6):
                s = 0.0
                for j in range(6):
                    s += IA[m, j] * Sw[j, k]
                U[m, k] = s
                s_u -= Sw[m, k] * pA[m]
            u[k] = s_u
        if n == 1:
            D1 = 0.0
            for m in range(6):
                D1 += Sw[m, 0] * U[m, 0]
            Dinv[0, 0] = 1.0 / D1
        elif n == 3:
            D3 = sc.D3
            for a in range(3):
                for b in range(3):
                    s = 0.0
                    for m in range(6):
                        s += Sw[m, a] * U[m, b]
                    D3[a, b] = s
            inverse3(D3, Dinv)
        if L.parent < 0:
            continue
        # parent += IA - U D^-1 U^T and pA + Ia c + U D^-1 u (no transform: same frame)
        W = sc.W63
        for a in range(6):
            for k in range(n):
                s = 0.0
                for j in range(n):
                    s += U[a, j] * Dinv[j, k]
                W[a, k] = s
        for a in range(6):
            for b in range(a, 6):
                s = IA[a, b]
                for k in range(n):
                    s -= W[a, k] * U[b, k]
                IA[a, b] = s
                IA[b, a] = s
        P = links[L.parent]
        for a in range(6):
            s = pA[a]
            for k in range(n):
                s += W[a, k] * u[k]
            for b in range(6):
                s += IA[a, b] * cw[b]
            P.pA[a] += s
            for b in range(6):
                P.IA[a, b] += IA[a, b]
    ap, tmp = sc.c, sc.d
    for i in range(nl):
        L, S = tree[i], links[i]
        if L.parent < 0:
            for k in range(3):
                ap[k] = 0.0
                ap[3 + k] = -L.gravity[k]
        else:
            for k in range(6):
                ap[k] = links[L.parent].acc[k]
        for k in range(6):
            ap[k] += S.cw[k]
        _joint_accelerations(L, S, ap, tmp, qdd)
        for m in range(6):
            s = ap[m]
            for k in range(L.nd):
                s += S.Sw[m, k] * qdd[L.vadr + k]
            S.acc[m] = s


@njit(inline="always")
def energies(tree, links, scratch):
    """(kinetic, potential) energy of the tree on the kinematics of :func:`link_velocities`,
    J; the potential of gravity is zero at the world origin."""
    tmp = scratch[0].a
    T = 0.0
    V = 0.0
    for i in range(tree.shape[0]):
        L, S = tree[i], links[i]
        matvec6(L.inertia, S.vel, tmp)
        for k in range(6):
            T += 0.5 * S.vel[k] * tmp[k]
        if L.mass > 0.0:
            for a in range(3):
                # CG in world: p0 + E0^T com
                x = S.p0[a] + S.E0[0, a] * L.com[0] + S.E0[1, a] * L.com[1] \
                    + S.E0[2, a] * L.com[2]
                V -= L.mass * L.gravity[a] * x
    return T, V


@njit()
def slides(tree):
    """Whether any link of the tree is prismatic (it could travel away from its root, so the
    link-frame ABA is the accurate one)."""
    for i in range(tree.shape[0]):
        if tree[i].jtype == PRISMATIC:
            return True
    return False
