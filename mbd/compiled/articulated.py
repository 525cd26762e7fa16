"""The articulated-body algorithm, compiled: forward dynamics qdd = FD(q, v, tau, fext) of
the tree in link coordinates (:func:`aba`, Featherstone Table 7.1) or in world axes
(:func:`aba_world`, about twice as fast; accurate while the tree stays near its root, so
:func:`slides` says which one a tree takes), on the kinematics of
:mod:`mbd.compiled.kinematics`, in Featherstone's symbols (:mod:`mbd.compiled.spatial`).
Kernels write into caller-owned records and allocate nothing.
"""
from .jit.jitcache import njit
from .kinematics import S_column, S_times, St_times, base_acceleration
from .layout import PRISMATIC, SPHERICAL
from .spatial import crossf_add, crossm, inverse3, matvec6, xmotion, xt_inertia_x_add, xtforce_add


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
    :func:`mbd.compiled.kinematics.link_velocities`: qdd = FD(q, v, tau, fext)."""
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
            base_acceleration(L, S, ap)
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
    """The articulated-body algorithm in world axes, on the poses of
    :func:`mbd.compiled.kinematics.link_transforms`: qdd = FD(q, v, tau, fext).

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


@njit()
def slides(tree):
    """Whether any link of the tree is prismatic (it could travel away from its root, so the
    link-frame ABA is the accurate one)."""
    for i in range(tree.shape[0]):
        if tree[i].jtype == PRISMATIC:
            return True
    return False
