"""The structure of the constrained solve (:mod:`mbd.compiled.loopsolve`), found once per run.

:func:`pattern` turns a System's tree, closures and driver rows into one int64 array: which
coordinate is whose parent (Featherstone's lambda), which belong to a cut joint's massless
chain, the constraint *groups* (a cut joint's rows less its own coordinates' ones, a driver's
row) with their supports (the tree coordinates their rows can touch: the paths from their
links to the ground), which groups meet where, the elimination order of the groups (minimum
degree) with the fill it makes, and the *fronts* of the orthogonal factorization that follows
that order (:func:`fronts`). The header slots ``P_*`` say where each section starts.
"""
from collections import namedtuple

import numpy as np

from .layout import SPHERICAL

#: header slots of the pattern array: counts, then where each section starts
(P_NV, P_NQ, P_NC, P_ND, P_NG, P_MR, P_FR, P_FC, P_POOL, P_CPAR, P_CHAIN, P_CFIRST, P_CNU,
 P_GSIZE, P_GOFF, P_GROW, P_SPTR, P_SIDX, P_CGPTR, P_CGIDX, P_CGLOC, P_PERM, P_POS, P_UPTR,
 P_UIDX, P_CBMAP, P_OPTR, P_OIDX, P_CHPTR, P_CHIDX, P_CBOFF, P_DCH, P_HEADER) = range(33)

# ----------------------------------------------------------------------------- build time

def _coordinate_parents(tree):
    """Per velocity coordinate: its parent coordinate in the tree (-1 at a ground), the
    order of Featherstone's lambda array (a multi-coordinate primitive is a short chain)."""
    nv = int(tree["nd"].sum())
    cpar = np.full(nv, -1, dtype=np.int64)
    last = np.full(len(tree), -1, dtype=np.int64)    # each link's last coordinate (or its
    for i, L in enumerate(tree):                     # nearest ancestor's)
        above = last[L["parent"]] if L["parent"] >= 0 else -1
        for k in range(L["nd"]):
            cpar[L["vadr"] + k] = above if k == 0 else L["vadr"] + k - 1
        last[i] = L["vadr"] + L["nd"] - 1 if L["nd"] else above
    return cpar, last


def _chains(tree, closures):
    """Per closure: its chain's links (from the chain's first link to its end). A cut
    joint's chain is the run of massless links hanging from its end up to the first link that
    carries mass or inertia below it (a body may be massless, but build() sees that every
    joint moves some inertia)."""
    carried = tree["mass"] + np.abs(tree["inertia"]).sum(axis=(1, 2))
    for i in range(len(tree) - 1, -1, -1):
        if tree[i]["parent"] >= 0:
            carried[tree[i]["parent"]] += carried[i]
    chains = []
    for C in closures:
        links, k = [], int(C["end"])
        while k >= 0 and carried[k] == 0.0:
            links.append(k)
            k = int(tree[k]["parent"])
        chains.append(links[::-1])
    return chains


def _minimum_degree(adjacent):
    """An elimination order of the groups (minimum degree, ties by index) and every group's
    later neighbours with the fill that order makes."""
    ng = len(adjacent)
    graph = [set(a) for a in adjacent]
    done = np.zeros(ng, dtype=bool)
    order, upper = [], {}
    for _ in range(ng):
        g = min((len(graph[h]), h) for h in range(ng) if not done[h])[1]
        order.append(g)
        done[g] = True
        later = sorted(graph[g])
        upper[g] = later
        for a in later:
            graph[a].discard(g)
            graph[a].update(b for b in later if b != a)
    return order, upper


Fronts = namedtuple("Fronts", "cgloc cbmap optr oidx chptr chidx cboff rows cols")


def fronts(order, upper, sizes, coordinate_groups):
    """The fronts of the multifrontal QR (:func:`mbd.compiled.sparsefactor.factor`), one per
    group in the elimination ``order``. The front of the group g at position p has g's
    columns first, then those of its later neighbours ``upper[g]`` in that list's order; its
    rows are the tree coordinates whose first group (in the order) is g (``optr``/``oidx``),
    each row's groups at their columns in the front (``cgloc``, beside the coordinate's groups
    in ``coordinate_groups``' order), and the rows its children pass up: a child is a front
    whose first later neighbour (in the order) is g (``chptr``/``chidx``: positions), and its
    rows land at the columns ``cbmap`` gives (beside ``uidx``: per later neighbour of the
    child, its column in the parent's front). A front's rows passed up are at most its
    columns' count, each as wide as its neighbours' columns; ``cboff`` is where each front's
    block of them starts in the pool. ``rows``/``cols``: the largest front (at least 1)."""
    ng = len(order)
    pos = {g: p for p, g in enumerate(order)}
    local, width = [], []
    for g in order:
        at, where = sizes[g], {g: 0}
        for h in upper[g]:
            where[h] = at
            at += sizes[h]
        local.append(where)
        width.append(at)
    parent = [min((pos[h] for h in upper[g]), default=-1) for g in order]
    children = [[] for _ in range(ng)]
    for p in range(ng):
        if parent[p] >= 0:
            children[parent[p]].append(p)
    own, cgloc = [[] for _ in range(ng)], []
    for i, groups in enumerate(coordinate_groups):
        if groups:
            p = min(pos[h] for h in groups)
            own[p].append(i)
            cgloc.extend(local[p][h] for h in groups)
    cbmap = [local[parent[p]][h] for p, g in enumerate(order) for h in upper[g]]
    rows, passed = np.zeros(ng, dtype=np.int64), np.zeros(ng, dtype=np.int64)
    for p, g in enumerate(order):
        rows[p] = len(own[p]) + sum(passed[c] for c in children[p])
        passed[p] = min(rows[p], width[p]) if width[p] > sizes[g] else 0
    cboff = np.concatenate([[0], np.cumsum([passed[p] * (width[p] - sizes[g])
                                            for p, g in enumerate(order)])])
    return Fronts(cgloc, cbmap, np.concatenate([[0], np.cumsum([len(o) for o in own])]),
                  [i for o in own for i in o],
                  np.concatenate([[0], np.cumsum([len(c) for c in children])]),
                  [c for ch in children for c in ch], cboff,
                  max([1] + list(rows)), max([1] + width))



def pattern(tree, closures, drivers, nv):
    """The structure of the constrained solve (int64, header slots ``P_*``) for the tree
    ``tree`` (LINK records), its ``closures`` (CLOSURE) and the ``drivers`` rows (DRIVER)."""
    nc, nd = len(closures), len(drivers)
    cpar, _ = _coordinate_parents(tree)
    chains = _chains(tree, closures)
    chain_of = np.full(nv, -1, dtype=np.int64)
    cfirst = np.zeros(nc, dtype=np.int64)
    cnu = np.zeros(nc, dtype=np.int64)
    for c, links in enumerate(chains):
        coords = [tree[k]["vadr"] + j for k in links for j in range(tree[k]["nd"])]
        cfirst[c] = coords[0] if coords else 0
        cnu[c] = len(coords)
        chain_of[coords] = c
        if coords and list(coords) != list(range(coords[0], coords[0] + len(coords))):
            raise AssertionError("a cut joint's chain coordinates are not consecutive")

    def closed(coords):
        """coords with all their ancestors, less chain coordinates, ascending."""
        out = set()
        for i in coords:
            while i >= 0 and i not in out:
                out.add(int(i))
                i = cpar[i]
        return sorted(i for i in out if chain_of[i] < 0)

    def link_path(k):
        out = []
        while k >= 0:
            out.extend(range(tree[k]["vadr"], tree[k]["vadr"] + tree[k]["nd"]))
            k = int(tree[k]["parent"])
        return out

    supports, sizes, rows, dch = [], [], [], np.full((max(nd, 1), 2), -1, dtype=np.int64)
    for c, C in enumerate(closures):
        supports.append(closed(link_path(int(C["end"])) + link_path(int(C["base"]))))
        sizes.append(6 - int(cnu[c]))
        rows.append(6 * c + int(cnu[c]))
    for k, D in enumerate(drivers):
        coords = [int(D["v_index"]), int(D["coupled_v"])]
        touched = sorted({int(chain_of[i]) for i in coords if chain_of[i] >= 0})
        for slot, c in enumerate(touched):
            dch[k, slot] = c
            coords += supports[c]
        supports.append(closed(coords))
        sizes.append(1)
        rows.append(6 * nc + k)
    ng = nc + nd
    goff = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    coordinate_groups = [[] for _ in range(nv)]
    for g, sup in enumerate(supports):
        if sizes[g]:
            for i in sup:
                coordinate_groups[i].append(g)
    adjacent = [set() for _ in range(ng)]
    for groups in coordinate_groups:
        for a in groups:
            adjacent[a].update(b for b in groups if b != a)
    order, upper = _minimum_degree(adjacent)
    pos = np.zeros(ng, dtype=np.int64)
    pos[order] = np.arange(ng)
    uptr = np.concatenate([[0], np.cumsum([len(upper[g]) for g in order])]).astype(np.int64)
    uidx = [h for g in order for h in upper[g]]
    front = fronts(order, upper, sizes, coordinate_groups)
    sections = [cpar, chain_of, cfirst, cnu, np.array(sizes), goff[:-1], np.array(rows),
                np.concatenate([[0], np.cumsum([len(s) for s in supports])]),
                [i for s in supports for i in s],
                np.concatenate([[0], np.cumsum([len(x) for x in coordinate_groups])]),
                [g for x in coordinate_groups for g in x], front.cgloc, order, pos, uptr,
                uidx, front.cbmap, front.optr, front.oidx, front.chptr, front.chidx,
                front.cboff, dch.ravel()]
    header = np.zeros(P_HEADER, dtype=np.int64)
    header[P_NV], header[P_NC], header[P_ND], header[P_NG] = nv, nc, nd, ng
    # q has four coordinates where v has three: a spherical primitive's quaternion
    header[P_NQ] = nv + int(np.count_nonzero(tree["jtype"] == SPHERICAL))
    header[P_MR] = goff[-1]
    header[P_FR], header[P_FC], header[P_POOL] = front.rows, front.cols, front.cboff[-1]
    parts, at = [header], P_HEADER
    for slot, section in zip(range(P_CPAR, P_HEADER), sections):
        section = np.asarray(section, dtype=np.int64).ravel()
        header[slot] = at
        parts.append(section)
        at += len(section)
    return np.concatenate(parts)


