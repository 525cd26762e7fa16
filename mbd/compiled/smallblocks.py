"""Compiled dense algebra of small blocks, for the sparse constrained solve's factorization
(:mod:`mbd.compiled.sparsefactor`): the Householder QR of a cut joint's chain columns (6 x 6
at most) and of a front of the multifrontal QR on a subset of its columns, and the one-sided
(Hestenes) Jacobi rotation of a few rows until they are orthogonal (Golub & Van Loan, Matrix
Computations, §5.1 and §8.6.3)."""
import numpy as np

from .jit.jitcache import njit


@njit(inline="always")
def _reflect_column(v, vv, j, nr, M, k):
    """Column k of M (rows j..nr-1) := (I - 2 v v^T / vv) M[:, k]."""
    s = 0.0
    for i in range(j, nr):
        s += v[i] * M[i, k]
    s *= 2.0 / vv
    for i in range(j, nr):
        M[i, k] -= s * v[i]


@njit(inline="always")
def _reflect(v, vv, j, nr, M, k0, k1):
    """Columns k0..k1-1 of M (rows j..nr-1) := (I - 2 v v^T / vv) M."""
    for k in range(k0, k1):
        _reflect_column(v, vv, j, nr, M, k)


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
def front_qr(F, nr, cols, nc, v):
    """Rows 0..nr-1 of F := Q^T F, upper trapezoidal in the columns ``cols[0..nc-1]`` taken
    in that order (column cols[j] zero below row j), by Householder reflections (v (nr) is
    work). The other columns are left as they are (they must be zero)."""
    for j in range(min(nc, nr - 1)):
        cj = int(cols[j])
        norm = 0.0
        for i in range(j + 1, nr):
            norm += F[i, cj] * F[i, cj]
        if norm == 0.0:
            continue
        norm = np.sqrt(norm + F[j, cj] * F[j, cj])
        alpha = -norm if F[j, cj] >= 0.0 else norm
        vv = 0.0
        for i in range(j, nr):         # P = I - 2 v v^T / (v^T v), v = a - alpha e_j
            v[i] = F[i, cj] - (alpha if i == j else 0.0)
            vv += v[i] * v[i]
        for m in range(j + 1, nc):
            _reflect_column(v, vv, j, nr, F, int(cols[m]))
        F[j, cj] = alpha
        for i in range(j + 1, nr):
            F[i, cj] = 0.0


@njit()
def orthogonal_rows(F, n, cols, ns, nc):
    """Rotate rows 0..n-1 of F (in the columns ``cols[0..nc-1]``) in pairs until their parts
    in the first ``ns`` of those columns are orthogonal (one-sided Jacobi): those parts are
    then sigma_k w_k, the singular values and right singular vectors of the n x ns block,
    each as accurate as the block's entries allow (no product of the block with itself is
    formed)."""
    for _ in range(60):
        rotated = False
        for p in range(n - 1):
            for q in range(p + 1, n):
                alpha, beta, gamma = 0.0, 0.0, 0.0
                for m in range(ns):
                    c = int(cols[m])
                    alpha += F[p, c] * F[p, c]
                    beta += F[q, c] * F[q, c]
                    gamma += F[p, c] * F[q, c]
                if gamma == 0.0 or abs(gamma) <= 1e-15 * np.sqrt(alpha) * np.sqrt(beta):
                    continue
                rotated = True
                zeta = (beta - alpha) / (2.0 * gamma)
                t = (1.0 if zeta >= 0.0 else -1.0) / (abs(zeta) + np.sqrt(1.0 + zeta * zeta))
                co = 1.0 / np.sqrt(1.0 + t * t)
                si = co * t
                for m in range(nc):
                    c = int(cols[m])
                    fp, fq = F[p, c], F[q, c]
                    F[p, c] = co * fp - si * fq
                    F[q, c] = si * fp + co * fq
        if not rotated:
            return
