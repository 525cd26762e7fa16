"""The buffer of the sparse constrained solve (:mod:`mbd.compiled.loopsolve`): its size for a
loop structure (:func:`buffer_size`, :mod:`mbd.compiled.loopstructure`) and its arrays as
named views (:func:`views`), which the factorization (:mod:`mbd.compiled.sparsefactor`) and
the solve (:mod:`mbd.compiled.sparsesolve`) read and write.
"""
from collections import namedtuple

from numpy.lib.stride_tricks import as_strided

from .jit.jitcache import njit
from .jit.native import borrowed
from .loopstructure import P_FC, P_FR, P_MR, P_NC, P_ND, P_NG, P_NQ, P_NV, P_POOL

Views = namedtuple("Views", "H f G b g lam K Z QT R Wk ck kscale piv front pool passed hv act "
                            "dw xp x y bh mu A W e ix yp")


@njit()
def _sizes(pat):
    """The lengths of the buffer's arrays, in :func:`views`' order: the one layout that
    :func:`buffer_size` and :func:`views` both read."""
    nv, nc, nd, ng, mr = pat[P_NV], pat[P_NC], pat[P_ND], pat[P_NG], pat[P_MR]
    m = 6 * nc + nd
    return (nv * nv, nv, m * nv, m, m, m, mr * mr, m * nv, 36 * nc, 36 * nc, 36 * ng, 6 * ng,
            ng, mr, pat[P_FR] * pat[P_FC], pat[P_POOL], ng, pat[P_FR], pat[P_FC],
            12 * max(nd, 1), nv, nv, nv, m, mr, 36, 36, 6, 6, pat[P_NQ] + nv)


def buffer_size(pat):
    """Floats in the solve's buffer for the structure ``pat``."""
    return int(sum(_sizes(pat)))


@njit(inline="always")
def _take(buf, o, n):
    """buf[o:o + n] and the offset after it."""
    return buf[o:o + n], o + n


@njit()
def views(buf, pat):
    """The solve's buffer as named arrays: H (nv, nv; its upper triangle on the tree's
    pattern holds H, then L and D), f (nv) applied force, G (m, nv) rows (rotated in place by
    the factorization), b (m), g (m) position residual, lam (m) constraint forces; K (mr, mr),
    Z (m, nv), per cut joint Q^T (6, 6) and R (6, 6), per group its pivot directions Wk (6, 6:
    rows w_k) with their inverse weights ck (6) and its scale, the pivots' strengths piv
    (mr), the multifrontal QR's front (FR, FC), its pool of rows passed up (their count per
    front in ``passed``), a Householder vector hv (FR) and the front's active columns act
    (FC), the driver rows' chain weights dw (nd, 2,
    6), the solution xp (nv), work x (nv) and y (nv), the rotated right side bh (m), the
    groups' multipliers mu (mr), the small blocks' work A, W (6, 6), e, ix (6), and a state
    yp (nq + nv) to project."""
    nv, nc, nd, mr = pat[P_NV], pat[P_NC], pat[P_ND], pat[P_MR]
    m = 6 * nc + nd
    s = _sizes(pat)
    buf = borrowed(buf)     # views that count no references (the buffer outlives them)
    H, o = _take(buf, 0, s[0])
    f, o = _take(buf, o, s[1])
    G, o = _take(buf, o, s[2])
    b, o = _take(buf, o, s[3])
    g, o = _take(buf, o, s[4])
    lam, o = _take(buf, o, s[5])
    K, o = _take(buf, o, s[6])
    Z, o = _take(buf, o, s[7])
    QT, o = _take(buf, o, s[8])
    R, o = _take(buf, o, s[9])
    Wk, o = _take(buf, o, s[10])
    ck, o = _take(buf, o, s[11])
    kscale, o = _take(buf, o, s[12])
    piv, o = _take(buf, o, s[13])
    front, o = _take(buf, o, s[14])
    pool, o = _take(buf, o, s[15])
    passed, o = _take(buf, o, s[16])
    hv, o = _take(buf, o, s[17])
    act, o = _take(buf, o, s[18])
    dw, o = _take(buf, o, s[19])
    xp, o = _take(buf, o, s[20])
    x, o = _take(buf, o, s[21])
    y, o = _take(buf, o, s[22])
    bh, o = _take(buf, o, s[23])
    mu, o = _take(buf, o, s[24])
    A, o = _take(buf, o, s[25])
    W, o = _take(buf, o, s[26])
    e, o = _take(buf, o, s[27])
    ix, o = _take(buf, o, s[28])
    yp, o = _take(buf, o, s[29])
    # the blocks as strided views: a reshape calls numba's helper that checks it needs no
    # copy, eleven times per evaluation
    return Views(_rows_of(H, nv, nv), f, _rows_of(G, m, nv), b, g, lam, _rows_of(K, mr, mr),
                 _rows_of(Z, m, nv), _blocks_of(QT, nc, 6, 6), _blocks_of(R, nc, 6, 6),
                 _blocks_of(Wk, pat[P_NG], 6, 6), ck, kscale, piv,
                 _rows_of(front, pat[P_FR], pat[P_FC]),
                 pool, passed, hv, act, _blocks_of(dw, max(nd, 1), 2, 6), xp, x, y, bh, mu,
                 _rows_of(A, 6, 6), _rows_of(W, 6, 6), e, ix, yp)


@njit(inline="always")
def _rows_of(a, n0, n1):
    """The contiguous a (n0 n1) as an (n0, n1) matrix (a view)."""
    return as_strided(a, (n0, n1), (8 * n1, 8))


@njit(inline="always")
def _blocks_of(a, n0, n1, n2):
    """The contiguous a (n0 n1 n2) as (n0, n1, n2) blocks (a view)."""
    return as_strided(a, (n0, n1, n2), (8 * n1 * n2, 8 * n2, 8))
