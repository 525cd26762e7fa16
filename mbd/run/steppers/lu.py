"""Compiled LU factorizations with partial pivoting, for the Newton matrices of the Radau
loop (:mod:`mbd.run.steppers.radau`): real or complex, in place, into preallocated arrays, the pivot
chosen as LAPACK's ``getf2`` chooses it.
"""
from ...compiled.jit.jitcache import njit


@njit()
def lu_factor(A, piv):
    """A = P L U in place, with partial pivoting (LAPACK's ``getf2``: at column k, the row of
    largest |a| — for a complex matrix |Re a| + |Im a|, as ``izamax`` measures — the first
    such); ``piv[k]`` is the row swapped with row k. A real or complex square matrix; a zero
    pivot is kept (the solve then gives inf or nan, which the Newton iteration rejects).
    Returns the number of zero pivots."""
    n = A.shape[0]
    zeros = 0
    for k in range(n):
        p = k
        big = abs(A[k, k].real) + abs(A[k, k].imag)
        for i in range(k + 1, n):
            m = abs(A[i, k].real) + abs(A[i, k].imag)
            if m > big:
                big = m
                p = i
        piv[k] = p
        if p != k:
            for j in range(n):
                a = A[k, j]
                A[k, j] = A[p, j]
                A[p, j] = a
        d = A[k, k]
        if d == 0.0:
            zeros += 1
            continue
        for i in range(k + 1, n):
            A[i, k] /= d
        for i in range(k + 1, n):
            a = A[i, k]
            if a != 0.0:
                for j in range(k + 1, n):
                    A[i, j] -= a * A[k, j]
    return zeros


@njit()
def lu_solve(LU, piv, b):
    """Solve A x = b in place (b becomes x) with A's factors from :func:`lu_factor`."""
    n = LU.shape[0]
    for k in range(n):
        p = piv[k]
        if p != k:
            a = b[k]
            b[k] = b[p]
            b[p] = a
    for i in range(n):
        s = b[i]
        for j in range(i):
            s -= LU[i, j] * b[j]
        b[i] = s
    for i in range(n - 1, -1, -1):
        s = b[i]
        for j in range(i + 1, n):
            s -= LU[i, j] * b[j]
        b[i] = s / LU[i, i]
