"""Compiled solve of the factored KKT system of the sparse constrained solve
(:mod:`mbd.compiled.loopsolve`): the accelerations and constraint forces for an applied force
and a right side (:func:`solve`), by the tree's LTDL factors and the block LDL^T factors of
``K = P H^-1 P^T`` that :mod:`mbd.compiled.sparsefactor` left in the buffer's views
(:mod:`mbd.compiled.sparsebuffer`), the cut joints' chains solved last.
"""
from .jit.jitcache import njit
from .loopstructure import (
    P_CFIRST,
    P_CHAIN,
    P_CNU,
    P_CPAR,
    P_DCH,
    P_GOFF,
    P_GROW,
    P_GSIZE,
    P_NC,
    P_ND,
    P_NG,
    P_NV,
    P_PERM,
    P_SIDX,
    P_SPTR,
    P_UIDX,
    P_UPTR,
)


@njit()
def _h_solve(H, pat, x):
    """x := H^-1 x on the tree's coordinates, from :func:`mbd.compiled.sparsefactor.ltdl`'s
    factors (chain entries untouched)."""
    nv = pat[P_NV]
    cpar = pat[pat[P_CPAR]:pat[P_CPAR] + nv]
    chain = pat[pat[P_CHAIN]:pat[P_CHAIN] + nv]
    for i in range(nv - 1, -1, -1):
        if chain[i] >= 0:
            continue
        j = cpar[i]
        while j >= 0:
            x[j] -= H[j, i] * x[i]
            j = cpar[j]
    for i in range(nv):
        if chain[i] < 0:
            x[i] /= H[i, i]
    for i in range(nv):
        if chain[i] >= 0:
            continue
        j = cpar[i]
        while j >= 0:
            x[i] -= H[j, i] * x[j]
            j = cpar[j]


@njit()
def solve(V_, pat, drivers, f, b, x, lam):
    """x (nv) and lam (m) of the factored KKT system for the applied force f (nv) and the
    right side b (m, in the rows' original basis). A row that holds one coordinate alone (a
    motion driver, a stiction lock that sticks) sets its acceleration exactly, not to
    round-off."""
    G, H, mu = V_.G, V_.H, V_.mu
    nv, nc, nd, ng = pat[P_NV], pat[P_NC], pat[P_ND], pat[P_NG]
    chain = pat[pat[P_CHAIN]:]
    cnu = pat[pat[P_CNU]:]
    gsize, goff, grow = pat[pat[P_GSIZE]:], pat[pat[P_GOFF]:], pat[pat[P_GROW]:]
    sptr, sidx = pat[pat[P_SPTR]:], pat[pat[P_SIDX]:]
    _rotated_right_side(V_, pat, f, b, lam)
    # f~ = f + the chains' known forces on the tree; x0 = H^-1 f~
    for i in range(nv):
        x[i] = f[i] if chain[i] < 0 else 0.0
    for c in range(nc):
        for a in range(sptr[c], sptr[c + 1]):
            j = sidx[a]
            for i in range(cnu[c]):
                x[j] += G[6 * c + i, j] * lam[6 * c + i]
    ftil = V_.y
    for i in range(nv):
        ftil[i] = x[i]
    _h_solve(H, pat, x)
    # r = b' - P x0 into mu, then K mu = r by the block factors
    for g in range(ng):
        for a in range(gsize[g]):
            row = grow[g] + a
            s = V_.bh[row]
            for e in range(sptr[g], sptr[g + 1]):
                s -= G[row, sidx[e]] * x[sidx[e]]
            mu[goff[g] + a] = s
    _k_solve(V_, pat, mu)
    # x = H^-1 (f~ + P^T mu)
    for i in range(nv):
        x[i] = ftil[i]
    for g in range(ng):
        for a in range(gsize[g]):
            row, w = grow[g] + a, mu[goff[g] + a]
            for e in range(sptr[g], sptr[g + 1]):
                x[sidx[e]] += G[row, sidx[e]] * w
    _h_solve(H, pat, x)
    for k in range(nd):
        D = drivers[k]
        if D.active > 0.0 and (D.ratio == 0.0 or D.coupled_v == D.v_index) and \
                chain[D.v_index] < 0:
            x[D.v_index] = b[6 * nc + k] / (D.active * (1.0 - (D.ratio if D.coupled_v ==
                                                                D.v_index else 0.0)))
    _chains(V_, pat, x, lam)


@njit(inline="always")
def _rotated_right_side(V_, pat, f, b, lam):
    """bh (m) = the right side b in the rotated basis (a driver's row less its chains' parts);
    lam's top rows hold mu'_top = -R^-T f_u for each cut joint's chain."""
    QT, R, dw, bh = V_.QT, V_.R, V_.dw, V_.bh
    nc, nd = pat[P_NC], pat[P_ND]
    cfirst, cnu, dch = pat[pat[P_CFIRST]:], pat[pat[P_CNU]:], pat[pat[P_DCH]:]
    for c in range(nc):
        for i in range(6):
            s = 0.0
            for k in range(6):
                s += QT[c, i, k] * b[6 * c + k]
            bh[6 * c + i] = s
        nu, f0 = cnu[c], cfirst[c]
        for i in range(nu):
            s = -f[f0 + i]
            for j in range(i):
                s -= R[c, j, i] * lam[6 * c + j]
            lam[6 * c + i] = s / R[c, i, i]
    for k in range(nd):
        row = 6 * nc + k
        bh[row] = b[row]
        for slot in range(2):
            c = dch[2 * k + slot]
            if c >= 0:
                for i in range(cnu[c]):
                    bh[row] -= dw[k, slot, i] * bh[6 * c + i]


@njit(inline="always")
def _k_solve(V_, pat, mu):
    """mu := K^-1 mu by the block factors of K that :func:`mbd.compiled.sparsefactor._eliminate`
    left (unit factor F, each pivot's inverse as its directions Wk and weights ck), in the
    elimination order ``perm``."""
    Wk, ck, F, tmp = V_.Wk, V_.ck, V_.K, V_.e
    ng = pat[P_NG]
    gsize, goff = pat[pat[P_GSIZE]:], pat[pat[P_GOFF]:]
    perm, uptr, uidx = pat[pat[P_PERM]:], pat[pat[P_UPTR]:], pat[pat[P_UIDX]:]
    for p in range(ng):
        g = perm[p]
        og, s = goff[g], gsize[g]
        for e in range(uptr[p], uptr[p + 1]):
            h = uidx[e]
            oh = goff[h]
            for b_ in range(gsize[h]):
                acc = 0.0
                for a in range(s):
                    acc += F[og + a, oh + b_] * mu[og + a]
                mu[oh + b_] -= acc
        for k in range(s):
            part = 0.0
            for a in range(s):
                part += Wk[g, k, a] * mu[og + a]
            tmp[k] = ck[6 * g + k] * part
        for a in range(s):
            acc = 0.0
            for k in range(s):
                acc += tmp[k] * Wk[g, k, a]
            mu[og + a] = acc
    for p in range(ng - 1, -1, -1):
        g = perm[p]
        og, s = goff[g], gsize[g]
        for e in range(uptr[p], uptr[p + 1]):
            h = uidx[e]
            oh = goff[h]
            for a in range(s):
                acc = 0.0
                for b_ in range(gsize[h]):
                    acc += F[og + a, oh + b_] * mu[oh + b_]
                mu[og + a] -= acc


@njit(inline="always")
def _chains(V_, pat, x, lam):
    """The chains' accelerations from R u'' = bh_top - (top rows) x, their multipliers, and
    lam in the world basis (the drivers' rows first, from the groups' mu)."""
    G, QT, R, dw, bh, mu, tmp = V_.G, V_.QT, V_.R, V_.dw, V_.bh, V_.mu, V_.e
    nc, nd = pat[P_NC], pat[P_ND]
    cfirst, cnu, goff = pat[pat[P_CFIRST]:], pat[pat[P_CNU]:], pat[pat[P_GOFF]:]
    sptr, sidx, dch = pat[pat[P_SPTR]:], pat[pat[P_SIDX]:], pat[pat[P_DCH]:]
    for k in range(nd):
        lam[6 * nc + k] = mu[goff[nc + k]]
    for c in range(nc):
        nu, f0, r0 = cnu[c], cfirst[c], 6 * c
        for i in range(nu - 1, -1, -1):
            s = bh[r0 + i]
            for a in range(sptr[c], sptr[c + 1]):
                s -= G[r0 + i, sidx[a]] * x[sidx[a]]
            for j in range(i + 1, nu):
                s -= R[c, i, j] * x[f0 + j]
            x[f0 + i] = s / R[c, i, i]
        for i in range(6):
            tmp[i] = lam[r0 + i] if i < nu else mu[goff[c] + i - nu]
        for k in range(nd):       # the drivers' share of the top multipliers
            for slot in range(2):
                if dch[2 * k + slot] == c:
                    for i in range(nu):
                        tmp[i] -= dw[k, slot, i] * lam[6 * nc + k]
        for i in range(6):
            s = 0.0
            for k in range(6):
                s += QT[c, k, i] * tmp[k]
            lam[r0 + i] = s
