"""Compiled dense algebra of small blocks (at most 6 x 6), for the sparse constrained solve
(:mod:`mbd.compiled.sparsekernels`): the Householder QR of a cut joint's chain columns and the
Jacobi eigen-decomposition of a symmetric pivot block (Golub & Van Loan, Matrix Computations,
§5.1 and §8.5)."""
import numpy as np

from .jitcache import njit


@njit(inline="always")
def _reflect(v, vv, j, nr, M, k0, k1):
    """Columns k0..k1-1 of M (rows j..nr-1) := (I - 2 v v^T / vv) M."""
    for k in range(k0, k1):
        s = 0.0
        for i in range(j, nr):
            s += v[i] * M[i, k]
        s *= 2.0 / vv
        for i in range(j, nr):
            M[i, k] -= s * v[i]


@njit()
def householder_qr(A, nr, nu, QT, R, v):
    """A (nr, nu) = Q [R; 0]: QT (nr, nr) = Q^T and R (nu, nu) upper triangular, by
    Householder reflections (A is overwritten; v (nr) is work)."""
    for i in range(nr):
        for j in range(nr):
            QT[i, j] = 1.0 if i == j else 0.0
    for j in range(nu):
        norm = 0.0
        for i in range(j, nr):
            norm += A[i, j] * A[i, j]
        norm = np.sqrt(norm)
        alpha = -norm if A[j, j] >= 0.0 else norm
        vv = 0.0
        for i in range(j, nr):         # P = I - 2 v v^T / (v^T v), v = a - alpha e_j
            v[i] = A[i, j] - (alpha if i == j else 0.0)
            vv += v[i] * v[i]
        if vv == 0.0:
            continue
        _reflect(v, vv, j, nr, A, j, nu)
        _reflect(v, vv, j, nr, QT, 0, nr)
    for i in range(nu):
        for j in range(nu):
            R[i, j] = A[i, j] if j >= i else 0.0


@njit()
def symmetric_eigen(A, n, V, e):
    """A (n, n) symmetric = V diag(e) V^T by cyclic Jacobi rotations (A is overwritten)."""
    for i in range(n):
        for j in range(n):
            V[i, j] = 1.0 if i == j else 0.0
    for _ in range(50):
        off = 0.0
        scale = 0.0
        for i in range(n):
            scale += A[i, i] * A[i, i]
            for j in range(i + 1, n):
                off += A[i, j] * A[i, j]
        if off <= 1e-32 * scale or off == 0.0:
            break
        for p in range(n - 1):
            for q in range(p + 1, n):
                apq = A[p, q]
                if apq == 0.0:
                    continue
                theta = (A[q, q] - A[p, p]) / (2.0 * apq)
                t = (1.0 if theta >= 0.0 else -1.0) / (abs(theta) + np.sqrt(theta * theta + 1.0))
                c = 1.0 / np.sqrt(t * t + 1.0)
                s = t * c
                for k in range(n):
                    akp, akq = A[k, p], A[k, q]
                    A[k, p] = c * akp - s * akq
                    A[k, q] = s * akp + c * akq
                for k in range(n):
                    apk, aqk = A[p, k], A[q, k]
                    A[p, k] = c * apk - s * aqk
                    A[q, k] = s * apk + c * aqk
                for k in range(n):
                    vkp, vkq = V[k, p], V[k, q]
                    V[k, p] = c * vkp - s * vkq
                    V[k, q] = s * vkp + c * vkq
    for i in range(n):
        e[i] = A[i, i]
