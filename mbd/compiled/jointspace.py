"""The joint-space equation of motion of the tree, H(q) qdd + C(q, v) = tau, compiled, on the
kinematics of :mod:`mbd.compiled.kinematics` (Featherstone's symbols,
:mod:`mbd.compiled.spatial`): recursive Newton-Euler inverse dynamics (:func:`rnea`; C with
qdd = 0), the composite-rigid-body mass matrix (:func:`crba_upper`, :func:`crba`), a dense
Cholesky solve of H qdd = tau - C (:func:`cholesky_solve`) and the tree's energies
(:func:`energies`). Kernels write into caller-owned records and allocate nothing.
"""
import numpy as np

from .jit.jitcache import njit
from .kinematics import S_column, S_times, St_times, base_acceleration
from .spatial import crossf_add, matvec6, xmotion, xt_inertia_x_add, xtforce_add


@njit()
def rnea(qdd, tree, links, scratch, tau):
    """Recursive Newton-Euler inverse dynamics (Table 5.1) on the kinematics of
    :func:`mbd.compiled.kinematics.link_velocities`: tau = ID(q, v, qdd, fext) with fext the
    links' ``fext``.

    With qdd = 0 and no fext this is the bias force C(q, v): gravity, Coriolis, centrifugal.
    """
    sc = scratch[0]
    tmp, sqdd = sc.a, sc.b
    for i in range(tree.shape[0]):
        L, S = tree[i], links[i]
        if L.parent < 0:
            base_acceleration(L, S, S.acc)
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
    """Composite-rigid-body algorithm (Table 6.2) on the poses of
    :func:`mbd.compiled.kinematics.link_transforms`: the entries H[j, i] of the joint-space
    mass matrix for every coordinate i and the coordinates j of its own link and its ancestors
    (the upper triangle on the tree's pattern; nothing else is written)."""
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


@njit(inline="always")
def energies(tree, links, scratch):
    """(kinetic, potential) energy of the tree on the kinematics of
    :func:`mbd.compiled.kinematics.link_velocities`, J; the potential of gravity is zero at
    the world origin."""
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
