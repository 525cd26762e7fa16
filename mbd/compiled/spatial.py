"""Featherstone's spatial algebra, compiled: the small dense operations the tree kernels
(:mod:`mbd.compiled.kinematics`, :mod:`mbd.compiled.jointspace`,
:mod:`mbd.compiled.articulated`) are written in.

Everything here follows Featherstone, *Rigid Body Dynamics Algorithms* (2008), in its symbols:
spatial motion vectors are ``[w; v]``, force vectors ``[n; f]``, and a Plücker transform
``X = rot(E) xlt(r)`` is stored as the pair ``(E, r)``: ``E`` maps parent coordinates to link
coordinates and ``r`` is the link origin in parent coordinates. A quaternion's rotation
matrix, transforms of motion and force vectors, the spatial cross products, a 6x6 product,
an inertia carried to the parent and a 3x3 inverse; each writes into caller-owned arrays.
"""
from .jit.jitcache import njit

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

