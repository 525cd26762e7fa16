"""Compiled tree kinematics over the System's link records (:mod:`mbd.compiled.layout`):
the joint primitives' motion subspaces, the joint transforms and every link's pose and
velocity, the velocity-product accelerations, gravity as the base's acceleration, in
Featherstone's symbols (:mod:`mbd.compiled.spatial`).

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
pose and velocity in its ``LINK_STATE`` record; the dynamics kernels
(:func:`mbd.compiled.jointspace.rnea`, :func:`mbd.compiled.jointspace.crba`,
:func:`mbd.compiled.articulated.aba`, :func:`mbd.compiled.articulated.aba_world`,
:func:`mbd.compiled.jointspace.energies`) then read them. Kernels write into caller-owned
records and allocate nothing.
"""
import numpy as np

from .jit.jitcache import njit
from .layout import PRISMATIC, REVOLUTE, SPHERICAL
from .spatial import crossm, quat_to_matrix, xmotion

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


@njit(inline="always")
def base_acceleration(L, S, out):
    """out = X_i a_0 for a root link: gravity enters as the base acceleration a_0 = [0; -g]."""
    g = L.gravity
    # X [0; -g] = [0; E (-g)] (a pure linear acceleration is not moved by xlt)
    for k in range(3):
        out[k] = 0.0
        out[3 + k] = -(S.E[k, 0] * g[0] + S.E[k, 1] * g[1] + S.E[k, 2] * g[2])
