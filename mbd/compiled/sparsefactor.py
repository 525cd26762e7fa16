"""Compiled factorization of the sparse constrained solve (:mod:`mbd.compiled.loopsolve` says
what it solves and why; this module and :mod:`mbd.compiled.sparsesolve` are its algebra):
Featherstone's LTDL factorization of the tree's mass matrix (Table 6.3), the rows in the
metric's coordinates ``W = P L^-1 D^-1/2`` on the groups' supports, their multifrontal QR with
the pivot directions' strengths (the block LDL^T factors of ``K = W W^T = P H^-1 P^T``, found
without forming K), and the rank the strengths give. It works in the buffer's views
(:mod:`mbd.compiled.sparsebuffer`); the dense fronts and small blocks (a cut joint's chain
columns) are factored by :mod:`mbd.compiled.smallblocks`.
"""
import numpy as np

from . import jointspace
from .jit.jitcache import njit
from .loopstructure import (
    P_CBMAP,
    P_CBOFF,
    P_CFIRST,
    P_CGIDX,
    P_CGLOC,
    P_CGPTR,
    P_CHAIN,
    P_CHIDX,
    P_CHPTR,
    P_CNU,
    P_CPAR,
    P_DCH,
    P_GOFF,
    P_GROW,
    P_GSIZE,
    P_MR,
    P_NC,
    P_ND,
    P_NG,
    P_NV,
    P_OIDX,
    P_OPTR,
    P_PERM,
    P_SIDX,
    P_SPTR,
    P_UIDX,
    P_UPTR,
)
from .smallblocks import front_qr, householder_qr, orthogonal_rows

# ----------------------------------------------------------------------------- the tree

@njit()
def ltdl(H, pat):
    """H = L^T D L in place (Featherstone Table 6.3) on the tree's coordinates, H held in its
    upper triangle (H[j, i] = H_ij for j an ancestor of i): D on the diagonal, L_ij in H[j, i].
    The cut joints' chain coordinates (no mass) are skipped. Returns False where a pivot is not
    positive and finite (a mass matrix that is not positive definite)."""
    nv = pat[P_NV]
    cpar = pat[pat[P_CPAR]:pat[P_CPAR] + nv]
    chain = pat[pat[P_CHAIN]:pat[P_CHAIN] + nv]
    for k in range(nv - 1, -1, -1):
        if chain[k] >= 0:
            continue
        d = H[k, k]
        if not (d > 0.0 and np.isfinite(d)):
            return False
        i = cpar[k]
        while i >= 0:
            a = H[i, k] / d
            j = i
            while j >= 0:
                H[j, i] -= a * H[j, k]
                j = cpar[j]
            H[i, k] = a
            i = cpar[i]
    return True


# ----------------------------------------------------------------------------- factorization

@njit()
def _rotate_closures(V_, pat, drivers):
    """Per cut joint: the QR of its chain's columns, its six rows rotated by Q^T in place (on
    its support and chain columns); every driver row on a chain coordinate rewritten on the
    tree's coordinates (weights in dw). Returns False where a chain's columns lose rank."""
    G, QT, R, dw = V_.G, V_.QT, V_.R, V_.dw
    nc, nd = pat[P_NC], pat[P_ND]
    cfirst, cnu = pat[pat[P_CFIRST]:], pat[pat[P_CNU]:]
    sptr, sidx = pat[pat[P_SPTR]:], pat[pat[P_SIDX]:]
    A, col, v = V_.A, V_.e, V_.W[0]
    for c in range(nc):
        nu, f0, r0 = cnu[c], cfirst[c], 6 * c
        for i in range(6):
            for j in range(nu):
                A[i, j] = G[r0 + i, f0 + j]
        householder_qr(A, 6, nu, QT[c], R[c], v)
        for j in range(nu):
            if not abs(R[c, j, j]) > 0.0:
                return False
        for a in range(sptr[c], sptr[c + 1]):
            j = sidx[a]
            for i in range(6):
                col[i] = G[r0 + i, j]
            for i in range(6):
                s = 0.0
                for k in range(6):
                    s += QT[c, i, k] * col[k]
                G[r0 + i, j] = s
        for j in range(nu):
            for i in range(6):
                G[r0 + i, f0 + j] = R[c, i, j] if i < nu else 0.0
    dch = pat[pat[P_DCH]:]
    for k in range(nd):
        row = 6 * nc + k
        for slot in range(2):
            c = dch[2 * k + slot]
            if c < 0:
                continue
            nu, f0, r0 = cnu[c], cfirst[c], 6 * c
            # w = R^-T d_u (forward substitution), then the row less w^T (top rows)
            for i in range(nu):
                s = G[row, f0 + i]
                for j in range(i):
                    s -= R[c, j, i] * dw[k, slot, j]
                dw[k, slot, i] = s / R[c, i, i]
            for a in range(sptr[c], sptr[c + 1]):
                j = sidx[a]
                s = 0.0
                for i in range(nu):
                    s += dw[k, slot, i] * G[r0 + i, j]
                G[row, j] -= s
            for i in range(nu):
                G[row, f0 + i] = 0.0
    return True


@njit()
def _assemble_z(V_, pat):
    """Z = P L^-1 over each row's support, and per group the largest squared norm of its rows
    in the metric, ``kscale`` (the largest diagonal entry of its block of K = Z D^-1 Z^T: the
    scale of its directions' strengths)."""
    G, Z, H, kscale = V_.G, V_.Z, V_.H, V_.kscale
    ng = pat[P_NG]
    cpar = pat[pat[P_CPAR]:]
    gsize, grow = pat[pat[P_GSIZE]:], pat[pat[P_GROW]:]
    sptr, sidx = pat[pat[P_SPTR]:], pat[pat[P_SIDX]:]
    for g in range(ng):
        top = 0.0
        for a in range(gsize[g]):
            r = grow[g] + a
            for e in range(sptr[g], sptr[g + 1]):
                j = sidx[e]
                Z[r, j] = G[r, j]
            for e in range(sptr[g + 1] - 1, sptr[g] - 1, -1):
                i = sidx[e]
                zi = Z[r, i]
                j = cpar[i]
                while j >= 0:
                    Z[r, j] -= H[j, i] * zi
                    j = cpar[j]
            norm = 0.0
            for e in range(sptr[g], sptr[g + 1]):
                i = sidx[e]
                norm += Z[r, i] * Z[r, i] / H[i, i]
            top = max(top, norm)
        kscale[g] = top


@njit(inline="always")
def _front_rows(V_, pat, p, nc):
    """Front p's rows (returns how many): its own coordinates' rows of W^T = (Z D^-1/2)^T,
    then the rows its children passed up, each at its columns in the front."""
    front, pool, passed, Z, H = V_.front, V_.pool, V_.passed, V_.Z, V_.H
    gsize, grow = pat[pat[P_GSIZE]:], pat[pat[P_GROW]:]
    uptr, uidx, cbmap = pat[pat[P_UPTR]:], pat[pat[P_UIDX]:], pat[pat[P_CBMAP]:]
    cgptr, cgidx, cgloc = pat[pat[P_CGPTR]:], pat[pat[P_CGIDX]:], pat[pat[P_CGLOC]:]
    optr, oidx = pat[pat[P_OPTR]:], pat[pat[P_OIDX]:]
    chptr, chidx, cboff = pat[pat[P_CHPTR]:], pat[pat[P_CHIDX]:], pat[pat[P_CBOFF]:]
    nr = 0
    for e in range(optr[p], optr[p + 1]):
        i = oidx[e]
        for j in range(nc):
            front[nr, j] = 0.0
        w = 1.0 / np.sqrt(H[i, i])
        for e2 in range(cgptr[i], cgptr[i + 1]):
            h, lo = cgidx[e2], cgloc[e2]
            for a in range(gsize[h]):
                front[nr, lo + a] = Z[grow[h] + a, i] * w
        nr += 1
    for e in range(chptr[p], chptr[p + 1]):
        c = chidx[e]
        width = 0
        for t in range(uptr[c], uptr[c + 1]):
            width += gsize[uidx[t]]
        for r in range(int(passed[c])):
            for j in range(nc):
                front[nr, j] = 0.0
            o = cboff[c] + r * width
            for t in range(uptr[c], uptr[c + 1]):
                lo = cbmap[t]
                for a in range(gsize[uidx[t]]):
                    front[nr, lo + a] = pool[o]
                    o += 1
            nr += 1
    return nr


@njit(inline="always")
def _pass_up(front, k, s, nc, weight, pool, o):
    """Row k's columns past the group's own (s .. nc - 1), times ``weight``, into the pool at
    o; returns whether it held anything (a zero row is not passed)."""
    for j in range(s, nc):
        if front[k, j] != 0.0:
            for i in range(s, nc):
                pool[o + i - s] = weight * front[k, i]
            return True
    return False


@njit()
def _eliminate(V_, pat, threshold, soft):
    """The multifrontal QR of W^T = (P L^-1 D^-1/2)^T in the groups' elimination order, and
    from it the block LDL^T factors of K = W W^T without forming K (forming it squares the
    rows' conditioning: a direction of strength s would be known to round-off over s^2, not
    over s). Per group g, its front (:func:`_front_rows`) is reduced to upper trapezoidal
    form, ``[R_gg R_gh; 0 C]``; the rows of ``[R_gg R_gh]`` are rotated until their g parts
    are orthogonal, ``sigma_k w_k``, the singular values and right singular vectors of R_gg;
    a direction counts where its strength ``sigma_k / sqrt(largest kscale)`` exceeds
    ``threshold`` (the strengths into piv), and is eliminated with weight phi_k = 1, or
    ``s^4 / (s^4 + soft^4)`` (Tikhonov: exact where s >> soft; soft = 0 inverts exactly)::

        Dp_g = sum_k phi_k / sigma_k^2 w_k w_k^T      F_gh = sum_k phi_k / sigma_k w_k r_kh^T

    (Dp_g as its directions w_k, rows of Wk[g], and weights phi_k / sigma_k^2, ck; F_gh in
    K's block (g, h)); the rest of each row, ``sqrt(1 - phi_k) r_kh``, and the rows of C are
    passed up to the front of g's first later neighbour. These are the factors of the block
    LDL^T of K with pivot pseudo-inverses Dp_g (:func:`mbd.compiled.sparsesolve._k_solve`).
    Returns how many directions it kept."""
    K, Wk, ck, kscale, piv = V_.K, V_.Wk, V_.ck, V_.kscale, V_.piv
    front, pool, passed, hv, act = V_.front, V_.pool, V_.passed, V_.hv, V_.act
    ng = pat[P_NG]
    gsize, goff = pat[pat[P_GSIZE]:], pat[pat[P_GOFF]:]
    perm, uptr, uidx, cboff = pat[pat[P_PERM]:], pat[pat[P_UPTR]:], pat[pat[P_UIDX]:], \
        pat[pat[P_CBOFF]:]
    kept = 0
    largest = 0.0
    for g in range(ng):
        largest = max(largest, kscale[g])
    for p in range(ng):
        g = perm[p]
        s, og = gsize[g], goff[g]
        passed[p] = 0.0
        if s == 0:
            continue
        nc = s
        for t in range(uptr[p], uptr[p + 1]):
            nc += gsize[uidx[t]]
        nr = _front_rows(V_, pat, p, nc)
        # the columns that hold anything (a planar loop's out-of-plane rows hold nothing)
        na, ns = 0, 0
        for j in range(nc):
            for r in range(nr):
                if front[r, j] != 0.0:
                    act[na] = j
                    na += 1
                    ns += j < s
                    break
        front_qr(front, nr, act, na, hv)
        top = min(ns, nr)
        orthogonal_rows(front, top, act, ns, na)
        for a in range(s):
            piv[og + a] = 0.0
            ck[6 * g + a] = 0.0
            for b in range(s):
                Wk[g, a, b] = 0.0
        for t in range(uptr[p], uptr[p + 1]):
            h = uidx[t]
            for a in range(s):
                for b in range(gsize[h]):
                    K[og + a, goff[h] + b] = 0.0
        width, out = nc - s, 0
        for k in range(top):
            sig2 = 0.0
            for m in range(ns):
                sig2 += front[k, int(act[m])] ** 2
            strength = np.sqrt(sig2 / largest) if largest > 0.0 else 0.0
            piv[og + k] = strength
            phi = 0.0
            if strength > threshold:
                kept += 1
                phi = 1.0
                if soft > 0.0:
                    s4 = strength ** 4
                    phi = s4 / (s4 + soft ** 4)
                ck[6 * g + k] = phi / sig2
                sigma = np.sqrt(sig2)
                for m in range(ns):
                    a = int(act[m])
                    Wk[g, k, a] = front[k, a] / sigma
                    fa = phi / sig2 * front[k, a]
                    lo = s
                    for t in range(uptr[p], uptr[p + 1]):
                        h = uidx[t]
                        oh = goff[h]
                        for b in range(gsize[h]):
                            K[og + a, oh + b] += fa * front[k, lo + b]
                        lo += gsize[h]
            if phi < 1.0 and width > 0:
                out += _pass_up(front, k, s, nc, np.sqrt(1.0 - phi), pool,
                                cboff[p] + out * width)
        for k in range(top, min(nr, na)):
            out += _pass_up(front, k, s, nc, 1.0, pool, cboff[p] + out * width)
        passed[p] = out
    return kept


@njit()
def _unit_metric(H, pat):
    """The factors of the unit metric on the tree's coordinates: D = 1, L = 0."""
    nv = pat[P_NV]
    cpar = pat[pat[P_CPAR]:pat[P_CPAR] + nv]
    for i in range(nv):
        H[i, i] = 1.0
        j = cpar[i]
        while j >= 0:
            H[j, i] = 0.0
            j = cpar[j]


@njit()
def factor(V_, pat, drivers, tree, links, scratch, threshold, mass_metric=True, soft=0.0):
    """Factor the KKT system whose rows are in V_.G (as :mod:`mbd.compiled.loopkernels` writes
    them) and whose metric is the mass matrix at the links' poses (or, not ``mass_metric``, the
    unit metric of the coordinates): returns the directions kept at ``threshold`` (see
    :func:`_eliminate`), or -1 where the mass matrix or a chain is degenerate."""
    H = V_.H
    if mass_metric:
        jointspace.crba_upper(tree, links, scratch, H)
        if not ltdl(H, pat):
            return -1
    else:
        _unit_metric(H, pat)
    if not _rotate_closures(V_, pat, drivers):
        return -1
    _assemble_z(V_, pat)
    return _eliminate(V_, pat, threshold, soft)


@njit()
def refactor(V_, pat, threshold, soft=0.0):
    """:func:`factor` again at another threshold, on the same rows and mass matrix (the
    fronts are formed again from Z; the rows stay rotated)."""
    return _eliminate(V_, pat, threshold, soft)


@njit()
def strongest_threshold(V_, pat, r, round_off):
    """A threshold that keeps the r strongest directions of the last elimination: the
    geometric mean of the r-th and (r+1)-th strengths, or -1 where the r-th is not above
    ``round_off``."""
    mr = pat[P_MR]
    piv = V_.piv
    work = V_.mu        # scratch until the solve
    for a in range(mr):
        work[a] = -piv[a]
    work[:mr].sort()
    if r == 0:
        return max(-work[0], 0.0) * 2.0 + 1.0 if mr else 1.0
    rth = -work[r - 1]
    if not rth > round_off:
        return -1.0
    nxt = -work[r] if r < mr else 0.0
    return np.sqrt(rth * nxt) if nxt > 0.0 else 0.5 * rth


@njit()
def rank_of(V_, pat, threshold):
    """(kept, weakest kept strength, strongest dropped strength) of the last elimination."""
    piv = V_.piv
    kept, weakest, strongest = 0, 1.0, 0.0
    for a in range(pat[P_MR]):
        if piv[a] > threshold:
            kept += 1
            weakest = min(weakest, piv[a])
        else:
            strongest = max(strongest, piv[a])
    return kept, weakest, strongest
