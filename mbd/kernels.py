"""Compiled tree kinematics and dynamics over the System's flat arrays.

Everything here follows Featherstone, *Rigid Body Dynamics Algorithms* (2008), in its symbols:
spatial motion vectors are ``[w; v]``, force vectors ``[n; f]``, and a Plücker transform
``X = rot(E) xlt(r)`` is stored as the pair ``(E, r)``: ``E`` maps parent coordinates to link
coordinates and ``r`` is the link origin in parent coordinates.

The tree is a list of *links*, parents before children. A link carries one joint primitive:

=====  ==========  ======  =====================================================
code   primitive   dofs    joint transform X_J(q)
=====  ==========  ======  =====================================================
0      fixed       0       identity (a Weld)
1      revolute    1       rotation about ``axis`` by q (right-hand rule)
2      prismatic   1       translation along ``axis`` by q
3      spherical   3       rotation by the unit quaternion q = (w, x, y, z)
=====  ==========  ======  =====================================================

A joint with several primitives is a chain of links; all but the last are massless.

The model is passed as the tuple ``mdl`` built by :func:`mbd.system.build` (see
``MODEL_FIELDS``), scratch space as the tuple ``ws`` from :func:`make_workspace`. Kernels write
into caller-owned arrays and allocate nothing, so the simulation's right-hand side costs no
garbage per call.
"""
import numpy as np
from numba import njit as _numba_njit
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import make_array


def njit(cache=True, inline="never"):
    """numba's njit with the project's settings: cached to disk, numpy's float error model
    (a division by zero gives inf/nan, which the driver reports, instead of raising in the
    hot path). ``inline="always"`` merges a thin wrapper into its callers: every call passes
    the model and workspace tuples (some 40 array structs) by value, which costs more than a
    short chain's dynamics when it happens a few times per evaluation."""
    return _numba_njit(cache=cache, error_model="numpy", inline=inline)


@intrinsic
def borrowed(typingctx, arrays):
    """The tuple ``arrays`` with every array replaced by an unmanaged view of the same memory.

    numba counts references to managed arrays with atomic operations at every function
    boundary and view: with the model, force and workspace tuples (some 40 arrays) that cost
    more than the dynamics of a short chain. Kernels that run a hot loop borrow their tuples
    once at the top; the views must not outlive the call (the caller keeps the arrays alive).
    """
    if not (isinstance(arrays, types.BaseTuple)
            and all(isinstance(t, types.Array) for t in arrays.types)):
        return None

    def codegen(context, builder, signature, args):
        out = cgutils.get_null_value(context.get_value_type(signature.return_type))
        for k, ty in enumerate(arrays.types):
            src = make_array(ty)(context, builder, value=builder.extract_value(args[0], k))
            view = make_array(ty)(context, builder)
            view.meminfo = cgutils.get_null_value(view.meminfo.type)  # no reference counting
            view.parent = cgutils.get_null_value(view.parent.type)
            view.nitems, view.itemsize, view.data = src.nitems, src.itemsize, src.data
            view.shape, view.strides = src.shape, src.strides
            out = builder.insert_value(out, view._getvalue(), k)
        return out

    return arrays(arrays), codegen


FIXED, REVOLUTE, PRISMATIC, SPHERICAL = 0, 1, 2, 3

#: Order of the arrays in the model tuple ``mdl`` (see :func:`mbd.system.build`).
MODEL_FIELDS = ("parent", "jtype", "nd", "qadr", "vadr", "axis", "E_T", "r_T",
                "inertia", "mass", "com", "gravity")


def make_workspace(nl, nq, nv):
    """Allocate the scratch arrays the kernels need for ``nl`` links (once per run).

    Returns the tuple ``(qn, E, r, E0, p0, vel, acc, cj, IA, pA, U, Dinv, u, f, H, vecs, mats,
    Sw, vw, cw, ref)``: normalized q; parent-to-link transforms; world poses; link velocities,
    accelerations and velocity-product terms; articulated inertias and bias forces; ABA's U,
    D^-1, u; link forces; the mass matrix; small scratch vectors (8 x 6) and matrices
    (3 x 6 x 6); and the world-frame ABA's motion subspaces, velocities, velocity-product
    terms and link origins relative to their tree's root link (:func:`aba_world`).
    """
    return (np.zeros(nq), np.zeros((nl, 3, 3)), np.zeros((nl, 3)), np.zeros((nl, 3, 3)),
            np.zeros((nl, 3)), np.zeros((nl, 6)), np.zeros((nl, 6)), np.zeros((nl, 6)),
            np.zeros((nl, 6, 6)), np.zeros((nl, 6)), np.zeros((nl, 6, 3)),
            np.zeros((nl, 3, 3)), np.zeros((nl, 3)), np.zeros((nl, 6)), np.zeros((nv, nv)),
            np.zeros((8, 6)), np.zeros((3, 6, 6)), np.zeros((nl, 6, 3)), np.zeros((nl, 6)),
            np.zeros((nl, 6)), np.zeros((nl, 3)))


# ----------------------------------------------------------------------------- small algebra

@njit(cache=True)
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


@njit(cache=True)
def _axis_angle_E(a, q, E):
    """E = R(a, q)^T, the coordinate transform of a rotation by q about unit axis a."""
    c = np.cos(q)
    s = np.sin(q)
    t = 1.0 - c
    x, y, z = a[0], a[1], a[2]
    # R = c I + s [a]x + t a a^T; E is its transpose
    E[0, 0] = c + t * x * x
    E[1, 0] = t * x * y - s * z
    E[2, 0] = t * x * z + s * y
    E[0, 1] = t * x * y + s * z
    E[1, 1] = c + t * y * y
    E[2, 1] = t * y * z - s * x
    E[0, 2] = t * x * z - s * y
    E[1, 2] = t * y * z + s * x
    E[2, 2] = c + t * z * z


@njit(cache=True)
def _xmotion(E, r, m, out):
    """out = X m for X = (E, r): [E w; E (v - r x w)]."""
    w0, w1, w2 = m[0], m[1], m[2]
    v0 = m[3] - (r[1] * w2 - r[2] * w1)
    v1 = m[4] - (r[2] * w0 - r[0] * w2)
    v2 = m[5] - (r[0] * w1 - r[1] * w0)
    for i in range(3):
        out[i] = E[i, 0] * w0 + E[i, 1] * w1 + E[i, 2] * w2
        out[3 + i] = E[i, 0] * v0 + E[i, 1] * v1 + E[i, 2] * v2


@njit(cache=True)
def _xtforce_add(E, r, f, out):
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


@njit(cache=True)
def _crossm(a, b, out):
    """out = a x_m b, the spatial cross product of two motion vectors."""
    w0, w1, w2, v0, v1, v2 = a[0], a[1], a[2], a[3], a[4], a[5]
    b0, b1, b2, b3, b4, b5 = b[0], b[1], b[2], b[3], b[4], b[5]
    out[0] = w1 * b2 - w2 * b1
    out[1] = w2 * b0 - w0 * b2
    out[2] = w0 * b1 - w1 * b0
    out[3] = w1 * b5 - w2 * b4 + v1 * b2 - v2 * b1
    out[4] = w2 * b3 - w0 * b5 + v2 * b0 - v0 * b2
    out[5] = w0 * b4 - w1 * b3 + v0 * b1 - v1 * b0


@njit(cache=True)
def _crossf_add(a, f, out):
    """out += a x_f f, the spatial cross product of a motion and a force vector."""
    w0, w1, w2, v0, v1, v2 = a[0], a[1], a[2], a[3], a[4], a[5]
    n0, n1, n2, f0, f1, f2 = f[0], f[1], f[2], f[3], f[4], f[5]
    out[0] += w1 * n2 - w2 * n1 + v1 * f2 - v2 * f1
    out[1] += w2 * n0 - w0 * n2 + v2 * f0 - v0 * f2
    out[2] += w0 * n1 - w1 * n0 + v0 * f1 - v1 * f0
    out[3] += w1 * f2 - w2 * f1
    out[4] += w2 * f0 - w0 * f2
    out[5] += w0 * f1 - w1 * f0


@njit(cache=True)
def _matvec6(A, x, out):
    for i in range(6):
        s = 0.0
        for j in range(6):
            s += A[i, j] * x[j]
        out[i] = s


@njit(cache=True)
def _xt_inertia_x_add(E, r, Ia, out, X):
    """out += X^T Ia X: a symmetric (articulated or composite) inertia carried to the parent.

    With X = rot(E) xlt(r) = [E 0; 0 E] [1 0; -[r]x 1], first B = [E^T Ia_ij E] blockwise, then
    the translation by blocks (Featherstone §2.13)::

        [B11 + rx B21 - (B12 + rx B22) rx,  B12 + rx B22;  (...)^T,  B22]

    ``X`` is 6x6 scratch (B is built in it).
    """
    B = X
    for bi in range(2):
        for bj in range(bi, 2):
            # B_ij = E^T Ia_ij E
            for a in range(3):
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


@njit(cache=True)
def _inv3(A, out):
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


# ----------------------------------------------------------------------------- kinematics

@njit(cache=True)
def normalize_quaternions(q, mdl, qn):
    """qn = q with every spherical primitive's quaternion scaled to unit length."""
    parent, jtype, nd, qadr, vadr, axis, E_T, r_T, inertia, mass, com, gravity = mdl
    for k in range(q.shape[0]):
        qn[k] = q[k]
    for i in range(parent.shape[0]):
        if jtype[i] == SPHERICAL:
            a = qadr[i]
            s = np.sqrt(q[a] ** 2 + q[a + 1] ** 2 + q[a + 2] ** 2 + q[a + 3] ** 2)
            for k in range(4):
                qn[a + k] = q[a + k] / s


@njit(cache=True)
def normalize_quaternion_rows(Q, mdl):
    """Every row of Q (n, nq) with its spherical primitives' quaternions scaled to unit length,
    in place."""
    jtype, qadr = mdl[1], mdl[3]
    for n in range(Q.shape[0]):
        for i in range(jtype.shape[0]):
            if jtype[i] == SPHERICAL:
                a = qadr[i]
                s = np.sqrt(Q[n, a] ** 2 + Q[n, a + 1] ** 2 + Q[n, a + 2] ** 2 + Q[n, a + 3] ** 2)
                for k in range(4):
                    Q[n, a + k] /= s


@njit(cache=True)
def link_transforms(q, mdl, ws):
    """Parent-to-link transforms X_i = X_J(q) X_T and the world pose of every link.

    Writes ``E, r`` (X_i) and ``E0, p0`` (E0 maps world to link coordinates, p0 is the link
    origin in world coordinates) into ``ws``. ``q`` must hold unit quaternions.
    """
    parent, jtype, nd, qadr, vadr, axis, E_T, r_T, inertia, mass, com, gravity = mdl
    qn, E, r, E0, p0, vel, acc, cj, IA, pA, U, Dinv, u, f, H, vecs, mats, Sw, vw, cw, ref = ws
    EJ = mats[0, :3, :3]
    for i in range(parent.shape[0]):
        t = jtype[i]
        if t == REVOLUTE:
            _axis_angle_E(axis[i], q[qadr[i]], EJ)
        elif t == SPHERICAL:
            quat_to_matrix(q[qadr[i]:qadr[i] + 4], EJ)
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
        for a in range(3):
            for b in range(3):
                E[i, a, b] = (EJ[a, 0] * E_T[i, 0, b] + EJ[a, 1] * E_T[i, 1, b]
                              + EJ[a, 2] * E_T[i, 2, b])
            r[i, a] = r_T[i, a]
        if t == PRISMATIC:
            s = q[qadr[i]]
            for a in range(3):
                r[i, a] += s * (E_T[i, 0, a] * axis[i, 0] + E_T[i, 1, a] * axis[i, 1]
                                + E_T[i, 2, a] * axis[i, 2])
        lam = parent[i]
        if lam < 0:
            for a in range(3):
                p0[i, a] = r[i, a]
                for b in range(3):
                    E0[i, a, b] = E[i, a, b]
        else:
            for a in range(3):
                p0[i, a] = p0[lam, a] + (E0[lam, 0, a] * r[i, 0] + E0[lam, 1, a] * r[i, 1]
                                         + E0[lam, 2, a] * r[i, 2])
                for b in range(3):
                    E0[i, a, b] = (E[i, a, 0] * E0[lam, 0, b] + E[i, a, 1] * E0[lam, 1, b]
                                   + E[i, a, 2] * E0[lam, 2, b])


@njit(cache=True)
def _S_column(i, k, jtype, axis, out):
    """out = column k of link i's motion subspace S_i (link coordinates)."""
    for m in range(6):
        out[m] = 0.0
    t = jtype[i]
    if t == REVOLUTE:
        for m in range(3):
            out[m] = axis[i, m]
    elif t == PRISMATIC:
        for m in range(3):
            out[3 + m] = axis[i, m]
    elif t == SPHERICAL:
        out[k] = 1.0


@njit(cache=True)
def _S_times(i, jtype, nd, axis, x, adr, out):
    """out = S_i x[adr : adr + nd_i] (a spatial motion vector in link coordinates)."""
    for m in range(6):
        out[m] = 0.0
    t = jtype[i]
    if t == REVOLUTE:
        for m in range(3):
            out[m] = axis[i, m] * x[adr]
    elif t == PRISMATIC:
        for m in range(3):
            out[3 + m] = axis[i, m] * x[adr]
    elif t == SPHERICAL:
        for m in range(3):
            out[m] = x[adr + m]


@njit(cache=True)
def _St_times(i, jtype, axis, f, out, adr):
    """out[adr : adr + nd_i] = S_i^T f."""
    t = jtype[i]
    if t == REVOLUTE:
        out[adr] = axis[i, 0] * f[0] + axis[i, 1] * f[1] + axis[i, 2] * f[2]
    elif t == PRISMATIC:
        out[adr] = axis[i, 0] * f[3] + axis[i, 1] * f[4] + axis[i, 2] * f[5]
    elif t == SPHERICAL:
        for m in range(3):
            out[adr + m] = f[m]


@njit(cache=True)
def link_velocities(q, v, mdl, ws):
    """Forward kinematics to velocity level: link_transforms, then ``vel`` and ``cj``.

    ``vel[i]`` is the spatial velocity of link i in link coordinates and ``cj[i] = vel[i] x S_i
    qd_i`` the velocity-product acceleration term (S_i is constant in link coordinates).
    """
    parent, jtype, nd, qadr, vadr, axis, E_T, r_T, inertia, mass, com, gravity = mdl
    qn, E, r, E0, p0, vel, acc, cj, IA, pA, U, Dinv, u, f, H, vecs, mats, Sw, vw, cw, ref = ws
    link_transforms(q, mdl, ws)
    sq = vecs[0]
    for i in range(parent.shape[0]):
        lam = parent[i]
        _S_times(i, jtype, nd, axis, v, vadr[i], sq)
        if lam < 0:
            for k in range(6):
                vel[i, k] = sq[k]
        else:
            _xmotion(E[i], r[i], vel[lam], vel[i])
            for k in range(6):
                vel[i, k] += sq[k]
        _crossm(vel[i], sq, cj[i])


@njit(cache=True)
def _base_acceleration(i, mdl, ws, out):
    """out = X_i a_0 for a root link: gravity enters as the base acceleration a_0 = [0; -g]."""
    gravity = mdl[11]
    E, r, vecs = ws[1], ws[2], ws[15]
    a0 = vecs[7]
    for k in range(3):
        a0[k] = 0.0
        a0[3 + k] = -gravity[i, k]
    _xmotion(E[i], r[i], a0, out)


# ----------------------------------------------------------------------------- dynamics

@njit(cache=True, inline="always")
def _joint_accelerations(i, n, u, U, Dinv, ap, adr, tmp, qdd):
    """ABA's last pass at link i: qdd[adr : adr + n] = D^-1 (u - U^T a'), with a' the link's
    acceleration before its own joint's (both ABAs, in their own frames)."""
    for k in range(n):
        s = u[i, k]
        for m in range(6):
            s -= U[i, m, k] * ap[m]
        tmp[k] = s
    for k in range(n):
        s = 0.0
        for l in range(n):
            s += Dinv[i, k, l] * tmp[l]
        qdd[adr + k] = s


@njit(cache=True)
def aba(q, v, tau, fext, mdl, ws, qdd):
    """Articulated-body algorithm: qdd = FD(q, v, tau, fext), Featherstone Table 7.1.

    ``q`` must hold unit quaternions; ``tau`` are the generalized forces (nv) and ``fext[i]``
    an external spatial force on link i in link coordinates.
    """
    link_velocities(q, v, mdl, ws)
    aba_dynamics(v, tau, fext, mdl, ws, qdd)


@njit(cache=True)
def aba_dynamics(v, tau, fext, mdl, ws, qdd):
    """ABA's dynamics passes, on the kinematics ``link_velocities`` left in ``ws``."""
    parent, jtype, nd, qadr, vadr, axis, E_T, r_T, inertia, mass, com, gravity = mdl
    qn, E, r, E0, p0, vel, acc, cj, IA, pA, U, Dinv, u, f, H, vecs, mats, Sw, vw, cw, ref = ws
    nl = parent.shape[0]
    tmp, col, pa, ap = vecs[1], vecs[2], vecs[3], vecs[4]
    Ia, X = mats[1], mats[2]
    for i in range(nl):
        for a in range(6):
            for b in range(6):
                IA[i, a, b] = inertia[i, a, b]
        _matvec6(inertia[i], vel[i], tmp)
        for k in range(6):
            pA[i, k] = -fext[i, k]
        _crossf_add(vel[i], tmp, pA[i])
    for i in range(nl - 1, -1, -1):
        n = nd[i]
        for k in range(n):  # U = IA S
            _S_column(i, k, jtype, axis, col)
            _matvec6(IA[i], col, tmp)
            for m in range(6):
                U[i, m, k] = tmp[m]
        if n == 1:  # D = S^T U, u = tau - S^T pA
            _St_times(i, jtype, axis, U[i, :, 0], tmp, 0)
            Dinv[i, 0, 0] = 1.0 / tmp[0]
            _St_times(i, jtype, axis, pA[i], tmp, 0)
            u[i, 0] = tau[vadr[i]] - tmp[0]
        elif n == 3:  # spherical: S = [I; 0]
            D3 = mats[0, :3, :3]
            for a in range(3):
                for b in range(3):
                    D3[a, b] = U[i, a, b]
                u[i, a] = tau[vadr[i] + a] - pA[i, a]
            _inv3(D3, Dinv[i])
        lam = parent[i]
        if lam < 0:
            continue
        # Ia = IA - U D^-1 U^T,  pa = pA + Ia c + U D^-1 u
        for a in range(6):
            for b in range(6):
                s = IA[i, a, b]
                for k in range(n):
                    for l in range(n):
                        s -= U[i, a, k] * Dinv[i, k, l] * U[i, b, l]
                Ia[a, b] = s
        _matvec6(Ia, cj[i], tmp)
        for a in range(6):
            s = pA[i, a] + tmp[a]
            for k in range(n):
                for l in range(n):
                    s += U[i, a, k] * Dinv[i, k, l] * u[i, l]
            pa[a] = s
        _xt_inertia_x_add(E[i], r[i], Ia, IA[lam], X)
        _xtforce_add(E[i], r[i], pa, pA[lam])
    for i in range(nl):
        lam = parent[i]
        if lam < 0:
            _base_acceleration(i, mdl, ws, ap)
        else:
            _xmotion(E[i], r[i], acc[lam], ap)
        for k in range(6):
            ap[k] += cj[i, k]
        n = nd[i]
        _joint_accelerations(i, n, u, U, Dinv, ap, vadr[i], tmp, qdd)
        _S_times(i, jtype, nd, axis, qdd, vadr[i], col)
        for k in range(6):
            acc[i, k] = ap[k] + col[k]


@njit(cache=True)
def aba_world(v, tau, fext, mdl, ws, qdd):
    """The articulated-body algorithm in world coordinates, on the poses ``link_transforms``
    left in ``ws``: qdd = FD(q, v, tau, fext).

    Every spatial quantity is expressed in world axes at one point per tree, the current
    origin of its root link (Featherstone §7.3; Pinocchio uses the world origin), so
    articulated inertias pass to the parent by plain addition instead of a 6x6 congruence per
    link; each body's inertia is moved to world axes from its 10 parameters instead. About
    twice as fast as :func:`aba_dynamics` on a chain; the same result to round-off while the
    tree stays within a few times its own size of that point (lever arms multiply round-off):
    :func:`tree_accelerations` uses it for trees without prismatic primitives, whose links
    cannot travel away. ``fext[i]`` is in link coordinates, as everywhere.
    """
    parent, jtype, nd, qadr, vadr, axis, E_T, r_T, inertia, mass, com, gravity = mdl
    qn, E, r, E0, p0, vel, acc, cj, IA, pA, U, Dinv, u, f, H, vecs, mats, Sw, vw, cw, ref = ws
    nl = parent.shape[0]
    for i in range(nl):
        R = E0[i]           # world -> link; its rows are the link axes in world coordinates
        lam = parent[i]
        # the link origin relative to its tree's root link origin, accumulated from the
        # parent offsets as link_transforms does for p0 (a difference of p0's would cancel)
        for k in range(3):
            ref[i, k] = 0.0 if lam < 0 else (ref[lam, k] + E0[lam, 0, k] * r[i, 0]
                                              + E0[lam, 1, k] * r[i, 1] + E0[lam, 2, k] * r[i, 2])
        px, py, pz = ref[i, 0], ref[i, 1], ref[i, 2]
        n = nd[i]
        # motion subspace at the world origin: [e; p x e] (revolute, spherical), [0; e] (prismatic)
        for k in range(n):
            if jtype[i] == SPHERICAL:
                ex, ey, ez = R[k, 0], R[k, 1], R[k, 2]
            else:
                a0, a1, a2 = axis[i, 0], axis[i, 1], axis[i, 2]
                ex = R[0, 0] * a0 + R[1, 0] * a1 + R[2, 0] * a2
                ey = R[0, 1] * a0 + R[1, 1] * a1 + R[2, 1] * a2
                ez = R[0, 2] * a0 + R[1, 2] * a1 + R[2, 2] * a2
            if jtype[i] == PRISMATIC:
                Sw[i, 0, k] = 0.0
                Sw[i, 1, k] = 0.0
                Sw[i, 2, k] = 0.0
                Sw[i, 3, k] = ex
                Sw[i, 4, k] = ey
                Sw[i, 5, k] = ez
            else:
                Sw[i, 0, k] = ex
                Sw[i, 1, k] = ey
                Sw[i, 2, k] = ez
                Sw[i, 3, k] = py * ez - pz * ey
                Sw[i, 4, k] = pz * ex - px * ez
                Sw[i, 5, k] = px * ey - py * ex
        # velocity v_i = v_parent + S qd, and c_i = v_i x (S qd) (S is fixed in the link)
        sq = vecs[0]
        for m in range(6):
            s = 0.0
            for k in range(n):
                s += Sw[i, m, k] * v[vadr[i] + k]
            sq[m] = s
            vw[i, m] = s if lam < 0 else vw[lam, m] + s
        _crossm(vw[i], sq, cw[i])
        # the body's inertia at the world origin from m, c and Ic (Ic about the CG)
        M = mass[i]
        I6 = IA[i]
        cx, cy, cz = com[i, 0], com[i, 1], com[i, 2]
        # Ic in link axes = I_O,11 - m (|c|^2 1 - c c^T)
        c2 = cx * cx + cy * cy + cz * cz
        J = mats[0, :3, :3]
        for a in range(3):
            for b in range(3):
                J[a, b] = inertia[i, a, b] + M * com[i, a] * com[i, b]
            J[a, a] -= M * c2
        # world: Ic_w = R^T J R, c_w = p + R^T c
        gx = px + R[0, 0] * cx + R[1, 0] * cy + R[2, 0] * cz
        gy = py + R[0, 1] * cx + R[1, 1] * cy + R[2, 1] * cz
        gz = pz + R[0, 2] * cx + R[1, 2] * cy + R[2, 2] * cz
        T = mats[0, 3:, :3]
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
        gv = (gx, gy, gz)
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
        # bias force pA = v x* (I v) - f_ext (f_ext to the world origin: X^T f)
        tmp = vecs[1]
        _matvec6(I6, vw[i], tmp)
        for k in range(6):
            pA[i, k] = 0.0
        _crossf_add(vw[i], tmp, pA[i])
        fx = fext[i]
        if fx[0] != 0.0 or fx[1] != 0.0 or fx[2] != 0.0 or fx[3] != 0.0 or fx[4] != 0.0 or fx[5] != 0.0:
            for k in range(6):
                tmp[k] = 0.0
            rel = vecs[5]
            rel[0], rel[1], rel[2] = px, py, pz
            _xtforce_add(R, rel, fx, tmp)
            for k in range(6):
                pA[i, k] -= tmp[k]
    tmp = vecs[1]
    for i in range(nl - 1, -1, -1):
        n = nd[i]
        lam = parent[i]
        if n == 1:          # the common case, written out: scalars instead of small matrices
            s_u = tau[vadr[i]]
            D1 = 0.0
            for m in range(6):
                s = 0.0
                for l in range(6):
                    s += IA[i, m, l] * Sw[i, l, 0]
                U[i, m, 0] = s
                s_u -= Sw[i, m, 0] * pA[i, m]
                D1 += Sw[i, m, 0] * s
            u[i, 0] = s_u
            inv = 1.0 / D1
            Dinv[i, 0, 0] = inv
            if lam < 0:
                continue
            for a in range(6):
                w = U[i, a, 0] * inv
                for b in range(a, 6):
                    x = IA[i, a, b] - w * U[i, b, 0]
                    IA[i, a, b] = x
                    IA[i, b, a] = x
            for a in range(6):
                s = pA[i, a] + U[i, a, 0] * inv * s_u
                for b in range(6):
                    x = IA[i, a, b]
                    s += x * cw[i, b]
                    IA[lam, a, b] += x
                pA[lam, a] += s
            continue
        for k in range(n):  # U = IA S, u = tau - S^T pA
            s_u = tau[vadr[i] + k]
            for m in range(6):
                s = 0.0
                for l in range(6):
                    s += IA[i, m, l] * Sw[i, l, k]
                U[i, m, k] = s
                s_u -= Sw[i, m, k] * pA[i, m]
            u[i, k] = s_u
        if n == 1:
            D1 = 0.0
            for m in range(6):
                D1 += Sw[i, m, 0] * U[i, m, 0]
            Dinv[i, 0, 0] = 1.0 / D1
        elif n == 3:
            D3 = mats[1, :3, :3]
            for a in range(3):
                for b in range(3):
                    s = 0.0
                    for m in range(6):
                        s += Sw[i, m, a] * U[i, m, b]
                    D3[a, b] = s
            _inv3(D3, Dinv[i])
        if lam < 0:
            continue
        # parent += IA - U D^-1 U^T and pA + Ia c + U D^-1 u (no transform: same frame)
        W = mats[2]
        for a in range(6):
            for k in range(n):
                s = 0.0
                for l in range(n):
                    s += U[i, a, l] * Dinv[i, l, k]
                W[a, k] = s                       # U D^-1
        for a in range(6):
            for b in range(a, 6):
                s = IA[i, a, b]
                for k in range(n):
                    s -= W[a, k] * U[i, b, k]
                IA[i, a, b] = s
                IA[i, b, a] = s
        for a in range(6):
            s = pA[i, a]
            for k in range(n):
                s += W[a, k] * u[i, k]
            for b in range(6):
                s += IA[i, a, b] * cw[i, b]
            pA[lam, a] += s
            for b in range(6):
                IA[lam, a, b] += IA[i, a, b]
    for i in range(nl):
        lam = parent[i]
        ap = vecs[4]
        if lam < 0:
            for k in range(3):
                ap[k] = 0.0
                ap[3 + k] = -gravity[i, k]
        else:
            for k in range(6):
                ap[k] = acc[lam, k]
        for k in range(6):
            ap[k] += cw[i, k]
        n = nd[i]
        _joint_accelerations(i, n, u, U, Dinv, ap, vadr[i], tmp, qdd)
        for m in range(6):
            s = ap[m]
            for k in range(n):
                s += Sw[i, m, k] * qdd[vadr[i] + k]
            acc[i, m] = s


@njit(cache=True, inline="always")
def tree_accelerations(q, v, tau, fext, mdl, ws, qdd, posed=False):
    """qdd = FD(q, v, tau, fext) by the cheaper ABA that is accurate for the tree: in world
    axes (:func:`aba_world`, on ``link_transforms``) when no link can translate, else in link
    coordinates (:func:`aba`). ``q`` must hold unit quaternions; ``posed``: the link poses
    of q are already in ``ws`` (``link_velocities`` ran), so they are not computed again."""
    jtype = mdl[1]
    for i in range(jtype.shape[0]):
        if jtype[i] == PRISMATIC:
            if posed:
                aba_dynamics(v, tau, fext, mdl, ws, qdd)
            else:
                aba(q, v, tau, fext, mdl, ws, qdd)
            return
    if not posed:
        link_transforms(q, mdl, ws)
    aba_world(v, tau, fext, mdl, ws, qdd)


@njit(cache=True)
def rnea(q, v, qdd, fext, mdl, ws, tau):
    """Recursive Newton-Euler inverse dynamics: tau = ID(q, v, qdd, fext) (Table 5.1).

    With qdd = 0 and fext = 0 this is the bias force C(q, v): gravity, Coriolis, centrifugal.
    """
    parent, jtype, nd, qadr, vadr, axis, E_T, r_T, inertia, mass, com, gravity = mdl
    qn, E, r, E0, p0, vel, acc, cj, IA, pA, U, Dinv, u, f, H, vecs, mats, Sw, vw, cw, ref = ws
    nl = parent.shape[0]
    link_velocities(q, v, mdl, ws)
    tmp, sqdd = vecs[1], vecs[2]
    for i in range(nl):
        lam = parent[i]
        if lam < 0:
            _base_acceleration(i, mdl, ws, acc[i])
        else:
            _xmotion(E[i], r[i], acc[lam], acc[i])
        _S_times(i, jtype, nd, axis, qdd, vadr[i], sqdd)
        for k in range(6):
            acc[i, k] += sqdd[k] + cj[i, k]
        # f = I a + v x* I v - fext
        _matvec6(inertia[i], acc[i], f[i])
        _matvec6(inertia[i], vel[i], tmp)
        _crossf_add(vel[i], tmp, f[i])
        for k in range(6):
            f[i, k] -= fext[i, k]
    for i in range(nl - 1, -1, -1):
        _St_times(i, jtype, axis, f[i], tau, vadr[i])
        lam = parent[i]
        if lam >= 0:
            _xtforce_add(E[i], r[i], f[i], f[lam])


@njit(cache=True)
def crba(q, mdl, ws, Hout):
    """Composite-rigid-body algorithm: the joint-space mass matrix H(q) (Table 6.2)."""
    parent, jtype, nd, qadr, vadr, axis, E_T, r_T, inertia, mass, com, gravity = mdl
    qn, E, r, E0, p0, vel, acc, cj, IA, pA, U, Dinv, u, f, H, vecs, mats, Sw, vw, cw, ref = ws
    nl = parent.shape[0]
    link_transforms(q, mdl, ws)
    IC = IA
    for i in range(nl):
        for a in range(6):
            for b in range(6):
                IC[i, a, b] = inertia[i, a, b]
    X = mats[2]
    for i in range(nl - 1, -1, -1):
        lam = parent[i]
        if lam >= 0:
            _xt_inertia_x_add(E[i], r[i], IC[i], IC[lam], X)
    col, F, XtF = vecs[1], vecs[2], vecs[3]
    for a in range(Hout.shape[0]):
        for b in range(Hout.shape[1]):
            Hout[a, b] = 0.0
    # Column ci gets S_j^T F for link i and every ancestor j; ancestors have lower v addresses,
    # so this fills the upper triangle, mirrored at the end.
    for i in range(nl):
        for k in range(nd[i]):
            ci = vadr[i] + k
            _S_column(i, k, jtype, axis, col)
            _matvec6(IC[i], col, F)
            _St_times(i, jtype, axis, F, Hout[:, ci], vadr[i])
            j = i
            while parent[j] >= 0:
                for m in range(6):
                    XtF[m] = 0.0
                _xtforce_add(E[j], r[j], F, XtF)
                for m in range(6):
                    F[m] = XtF[m]
                j = parent[j]
                _St_times(j, jtype, axis, F, Hout[:, ci], vadr[j])
    nv = Hout.shape[0]
    for a in range(nv):
        for b in range(a + 1, nv):
            Hout[b, a] = Hout[a, b]


@njit(cache=True)
def cholesky_solve(H, b, x):
    """x = H^-1 b for symmetric positive definite H, in place (H is overwritten by L)."""
    n = H.shape[0]
    for j in range(n):
        s = H[j, j]
        for k in range(j):
            s -= H[j, k] * H[j, k]
        if s <= 0.0:
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


@njit(cache=True)
def crba_accelerations(q, v, tau, fext, mdl, ws, qdd, rhs):
    """The second route to qdd: H(q) qdd = tau - C(q, v, fext), by CRBA and Cholesky.

    ``rhs`` is scratch of length nv.
    """
    H = ws[14]
    for k in range(qdd.shape[0]):
        qdd[k] = 0.0
    rnea(q, v, qdd, fext, mdl, ws, rhs)
    for k in range(rhs.shape[0]):
        rhs[k] = tau[k] - rhs[k]
    crba(q, mdl, ws, H)
    cholesky_solve(H, rhs, qdd)


@njit(cache=True)
def energies(q, v, mdl, ws):
    """(kinetic, potential) energy of the tree, J; potential from gravity relative to the origin."""
    parent, jtype, nd, qadr, vadr, axis, E_T, r_T, inertia, mass, com, gravity = mdl
    qn, E, r, E0, p0, vel, acc, cj, IA, pA, U, Dinv, u, f, H, vecs, mats, Sw, vw, cw, ref = ws
    link_velocities(q, v, mdl, ws)
    tmp = vecs[1]
    T = 0.0
    V = 0.0
    for i in range(parent.shape[0]):
        _matvec6(inertia[i], vel[i], tmp)
        for k in range(6):
            T += 0.5 * vel[i, k] * tmp[k]
        if mass[i] > 0.0:
            for a in range(3):
                # CG in world: p0 + E0^T com
                x = p0[i, a] + E0[i, 0, a] * com[i, 0] + E0[i, 1, a] * com[i, 1] + E0[i, 2, a] * com[i, 2]
                V -= mass[i] * gravity[i, a] * x
    return T, V


@njit(cache=True)
def quaternion_rates(q, v, mdl, qdot):
    """qdot = dq/dt: v for revolute/prismatic, 0.5 Q (x) (0, w) for spherical (w in link axes)."""
    parent, jtype, nd, qadr, vadr, axis, E_T, r_T, inertia, mass, com, gravity = mdl
    for i in range(parent.shape[0]):
        t = jtype[i]
        a = qadr[i]
        b = vadr[i]
        if t == REVOLUTE or t == PRISMATIC:
            qdot[a] = v[b]
        elif t == SPHERICAL:
            w, x, y, z = q[a], q[a + 1], q[a + 2], q[a + 3]
            wx, wy, wz = v[b], v[b + 1], v[b + 2]
            qdot[a] = 0.5 * (-x * wx - y * wy - z * wz)
            qdot[a + 1] = 0.5 * (w * wx + y * wz - z * wy)
            qdot[a + 2] = 0.5 * (w * wy + z * wx - x * wz)
            qdot[a + 3] = 0.5 * (w * wz + x * wy - y * wx)


@njit(cache=True)
def state_derivative(y, tau, fext, mdl, ws, dy):
    """dy/dt of the state y = [q, v] by :func:`tree_accelerations`, quaternions normalized
    before use (the integrator's right-hand side without force elements)."""
    qn = ws[0]
    nq = qn.shape[0]
    normalize_quaternions(y[:nq], mdl, qn)
    quaternion_rates(qn, y[nq:], mdl, dy[:nq])
    tree_accelerations(qn, y[nq:], tau, fext, mdl, ws, dy[nq:])
