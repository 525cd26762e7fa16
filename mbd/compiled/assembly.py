"""Assembly and mobility of mechanisms with closed loops and motion drivers (DESIGN §3).

- :func:`mobility`: at build time, the mechanism's mobility (nv less the rank of the closure
  equations in the drawing) and the names of its redundant closure equations, by the rank
  rule of :mod:`mbd.compiled.loopsolve`;
- :func:`assemble`: at the start of a run, the consistent state nearest the joints' targets.

Both take arrays (the System's records and a run's :class:`mbd.compiled.layout.Data`), never mutate
a System, and evaluate the constraint rows with the compiled kernels.
"""
import numpy as np
import scipy.linalg

from ..model.errors import SimulationError
from . import kinematics, layout, loopkernels, loopsolve
from .jit import native

_ROW_NAMES = ("rotation about world x", "rotation about world y", "rotation about world z",
              "translation along world x", "translation along world y",
              "translation along world z")


def reference_configuration(tree, nq):
    """q of the drawing: zero coordinates, identity quaternions."""
    q = np.zeros(nq)
    spherical = tree["jtype"] == layout.SPHERICAL
    q[tree["qadr"][spherical]] = 1.0
    return q


def mobility(tree, closures, nq, nv, cut_joints, gears=None, gear_names=()):
    """(dof, redundant): nv less the rank of the holonomic constraints in the drawing (the
    loop closures, then the gears' ``DRIVER`` rows), and the names of the redundant equations
    (those a rank-revealing QR of the Jacobian finds dependent on the others)."""
    ng = 0 if gears is None else len(gears)
    nc = 6 * len(closures)
    if not nc + ng:
        return nv, []
    q = reference_configuration(tree, nq)
    G, g = np.zeros((nc + ng, nv)), np.zeros(nc + ng)
    if nc:
        links = layout.records(layout.LINK_STATE, len(tree))
        scratch = layout.records(layout.SCRATCH, 1)
        kinematics.link_transforms(q, tree, links, scratch)
        loopkernels.closure_rows(tree, links, scratch, closures, G, g)
    if ng:
        loopkernels.driver_rows(q, gears, nc, G, g)
    s = np.linalg.svd(G, compute_uv=False)
    rank = loopsolve.numerical_rank(s, G.shape[0])
    _, _, pivots = scipy.linalg.qr(G.T, pivoting=True)
    redundant = [f"joint '{cut_joints[row // 6]}': {_ROW_NAMES[row % 6]}" if row < nc
                 else f"gear '{gear_names[row - nc]}'" for row in sorted(pivots[rank:])]
    return nv - rank, redundant


# ----------------------------------------------------------------------------- coordinates

def normalized(tree, q):
    """q with unit quaternions (a copy)."""
    out = np.empty(len(q))
    kinematics.normalize_quaternions(np.ascontiguousarray(q, dtype=float), tree, out)
    return out


def retract(tree, q, dv):
    """q moved by the velocity-space increment dv (nv): added to revolute/prismatic
    coordinates, and for a spherical primitive Q <- Q (x) exp(dv/2) (dv in its follower axes)."""
    q = np.array(q, dtype=float)
    loopkernels.retract(q, np.ascontiguousarray(dv, dtype=float), tree)
    return q


def difference(tree, nv, q, q_ref):
    """The velocity-space increment (nv) that takes q_ref to q (the inverse of retract)."""
    dv = np.zeros(nv)
    jtype = tree["jtype"]
    # the one-coordinate primitives at once (an assembly takes many differences)
    one = (jtype == layout.REVOLUTE) | (jtype == layout.PRISMATIC)
    qa = tree["qadr"][one]
    dv[tree["vadr"][one]] = q[qa] - q_ref[qa]
    for i in np.flatnonzero(jtype == layout.SPHERICAL):
        a, b = tree[i]["qadr"], tree[i]["vadr"]
        w0, x0, y0, z0 = q_ref[a:a + 4]
        w1, x1, y1, z1 = q[a:a + 4]
        # conj(Q_ref) (x) Q
        w = w0 * w1 + x0 * x1 + y0 * y1 + z0 * z1
        v = np.array([w0 * x1 - x0 * w1 - y0 * z1 + z0 * y1,
                      w0 * y1 + x0 * z1 - y0 * w1 - z0 * x1,
                      w0 * z1 - x0 * y1 + y0 * x1 - z0 * w1])
        if w < 0:
            w, v = -w, -v
        s = np.linalg.norm(v)
        dv[b:b + 3] = 2.0 * np.arctan2(s, w) * v / s if s > 0 else 0.0 * v
    return dv


def coordinate_scales(system):
    """Per velocity coordinate, the unit that makes it comparable with a radian: the model's
    length scale for prismatic coordinates, 1 for rotations."""
    scale = np.ones(system.nv)
    for L in system.tree:
        if L["jtype"] == layout.PRISMATIC:
            scale[L["vadr"]:L["vadr"] + L["nd"]] = system.length_scale
    return scale


# ----------------------------------------------------------------------------- the rows

class Rows:
    """The constraint rows of a System at a state, evaluated on a run's data: loop closures,
    then motion drivers (their motions at the state's time)."""

    def __init__(self, system, data):
        self.system, self.data = system, data
        self.m = system.n_rows
        self.entries = None     # the kernels' compiled entry points, found at the first call

    def __call__(self, t, q, v):
        """(G, b, g, w): Jacobian (m, nv), right side of G qdd = b, position residual g and
        velocity residual w = G v - driver rates at (t, q, v); q must hold unit quaternions."""
        s, data = self.system, self.data
        for k, d in enumerate(s.drivers):
            data.drivers[k]["position"], data.drivers[k]["velocity"], \
                data.drivers[k]["acceleration"] = d.motion(t)
        q = np.ascontiguousarray(q, dtype=float)
        v = np.ascontiguousarray(v, dtype=float)
        G, b, g = np.zeros((self.m, s.nv)), np.zeros(self.m), np.zeros(self.m)
        velocities = (q, v, data.tree, data.links, data.scratch)
        rows = (q, v, data.tree, data.links, data.scratch, data.closures, data.drivers, G, b, g)
        if self.entries is None:
            # called through their entry points: numba's dispatch types every record array
            # at every call, most of an assembly's Newton step
            self.entries = (native.entry(kinematics.link_velocities, velocities),
                            native.entry(loopkernels.constraint_rows, rows))
        self.entries[0](*velocities)
        self.entries[1](*rows)
        w = G @ v
        nc = 6 * len(s.cut_joints)
        w[nc:] -= data.drivers["velocity"]
        return G, b, g, w


def _split_step(K, r, scale):
    """(d, N): the least-norm d (nv) with K d = r (least squares if inconsistent) and an
    orthonormal basis N of K's null space, both in coordinates divided by ``scale``; the rank
    by the rank rule."""
    U, s, Vt = np.linalg.svd(K * scale)
    rank = loopsolve.numerical_rank(s, K.shape[0])
    return Vt[:rank].T @ ((U[:, :rank].T @ r) / s[:rank]), Vt[rank:].T


class _Moves:
    """:func:`difference` and :func:`retract` on ``tree`` with its addresses looked up once
    (an assembly's Newton steps take many; for a tree without spherical primitives they are
    plain index operations)."""

    def __init__(self, tree, nv):
        self.tree, self.nv = tree, nv
        jtype = tree["jtype"]
        self.plain = not np.any(jtype == layout.SPHERICAL)
        one = (jtype == layout.REVOLUTE) | (jtype == layout.PRISMATIC)
        self.qa, self.va = tree["qadr"][one], tree["vadr"][one]

    def difference(self, q, q_ref):
        if not self.plain:
            return difference(self.tree, self.nv, q, q_ref)
        dv = np.zeros(self.nv)
        dv[self.va] = q[self.qa] - q_ref[self.qa]
        return dv

    def retract(self, q, dv):
        if not self.plain:
            return retract(self.tree, q, dv)
        q = np.array(q, dtype=float)
        q[self.qa] += dv[self.va]
        return q


def _onto_hard(system, t, rows, q, target, hard, scale, tol, iterations=30, moves=None):
    """(q, residual): Newton with least-norm steps onto g(q) = 0 and the ``hard`` coordinates
    at their targets; steps shortened to 0.5 (rad or length scale) far out."""
    moves = moves or _Moves(system.tree, system.nv)
    zero = np.zeros(system.nv)
    m = rows.m
    A = np.zeros((m + int(hard.sum()), system.nv))      # [G; the hard coordinates' rows]
    A[m:] = np.eye(system.nv)[hard]
    r = np.zeros(len(A))
    for it in range(iterations + 1):
        G, b, g, w = rows(t, q, zero)
        r[:m] = -g
        r[m:] = -moves.difference(q, target)[hard]
        res = np.abs(r).max(initial=0.0)
        if res <= tol or it == iterations:
            break
        A[:m] = G
        u = _split_step(A, r, scale)[0]
        size = np.abs(u).max()
        q = moves.retract(q, u * scale * min(1.0, 0.5 / size) if size > 0 else u)
    return q, res


#: how near (times the length scale) a continuation stage short of the targets closes the
#: loops (:func:`_assemble_positions`); the last stage closes them to the projection's tolerance
STAGE_TOL = 1e-3


def _assemble_positions(system, t, rows, targets, hard, soft, tol, fail_tol):
    """(q, residual): positions on g(q) = 0 with the ``hard`` coordinates at their targets and
    the ``soft`` ones as near theirs as possible (free coordinates move only as the loops
    demand).

    Continuation from the drawing (closed by construction) towards the targets in stages of
    at most 0.1 rad (or length scale) keeps the solution on the drawing's assembly branch and
    every Newton start near: without soft targets, each stage starts from the last two
    stages' solutions extrapolated and stops at STAGE_TOL, only the last one at ``tol`` (the
    four-bar of benchmarks/models.py: 14 Newton steps instead of 41, the same result). In
    each stage, Newton onto the equations; then Levenberg-Marquardt
    steps on the soft targets in the equations' tangent space, each followed by Newton back
    onto them and kept only if it brings the soft coordinates nearer (an unreachable soft
    target, beyond a limit position, then ends at the limit instead of diverging).
    """
    tree, nv = system.tree, system.nv
    scale = coordinate_scales(system)
    q_ref = reference_configuration(tree, system.nq)
    span = difference(tree, nv, targets, q_ref)
    given = hard | soft
    far = np.abs(span[given] / scale[given]).max() if given.any() else 0.0
    stages = max(1, int(np.ceil(far / 0.1)))
    zero, eye = np.zeros(nv), np.eye(nv)[hard]
    q, res = q_ref, 0.0
    # a stage on the way only has to bring the next one's Newton start near: it stops at
    # STAGE_TOL (about one Newton step less per stage) unless soft targets are fitted there
    on_the_way = tol if soft.any() else max(tol, STAGE_TOL * system.length_scale)
    moves = _Moves(tree, nv)
    q_before = None
    for k in range(1, stages + 1):
        target = moves.retract(q_ref, span * (k / stages))
        stage_tol = tol if k == stages else on_the_way
        start = q
        if q_before is not None and not soft.any():
            # the last two stages' solutions extrapolated along the assembly branch: Newton
            # starts a stage's length nearer (one step per stage instead of two)
            start = moves.retract(q, moves.difference(q, q_before))
        q_before = q
        q, res = _onto_hard(system, t, rows, start, target, hard, scale, stage_tol, moves=moves)
        if not res <= max(fail_tol, stage_tol):
            return q, res
        if not soft.any():
            continue
        lam = None      # Levenberg-Marquardt damping, adapted
        miss = np.sum((difference(tree, nv, q, target)[soft] / scale[soft]) ** 2)
        for _ in range(100 if k == stages else 10):
            G = rows(t, q, zero)[0]
            N = _split_step(np.vstack([G, eye]), np.zeros(len(G) + len(eye)), scale)[1]
            A = N[soft]
            if not A.size:
                break
            AtA = A.T @ A
            gradient = A.T @ (difference(tree, nv, q, target)[soft] / scale[soft])
            if lam is None:
                lam = 1e-9 * max(np.trace(AtA), 1e-12)
            d = N @ np.linalg.solve(AtA + lam * np.eye(len(AtA)), -gradient)
            if np.abs(d).max() <= 1e-14:
                break
            trial, res_trial = _onto_hard(system, t, rows, retract(tree, q, d * scale), target,
                                          hard, scale, tol)
            miss_trial = np.sum((difference(tree, nv, trial, target)[soft] / scale[soft]) ** 2)
            if res_trial <= fail_tol and miss_trial <= miss:
                q, res, miss = trial, res_trial, miss_trial
                lam = max(lam / 10.0, 1e-15)
            else:
                lam *= 10.0
                if lam > 1e8:
                    break
    return q, res


def assemble(system, data, t, q, v, q_given, v_given, exact_q, exact_v):
    """The consistent state nearest the targets: positions on g(q) = 0, then velocities on
    G v = driver rates (DESIGN §3, assembly).

    ``q_given``, ``v_given``, ``exact_q`` and ``exact_v`` are boolean masks over the nv
    velocity-space coordinates: exact targets must be met, the other given ones are met as
    nearly as the loops allow (exactly where they can be), free ones (no target) take what
    the loops demand. Raises SimulationError naming the loop's joints and the residual, or
    the exact targets that cannot be met and their loops.
    """
    rows = Rows(system, data)
    nv, tree = system.nv, system.tree
    nc = 6 * len(system.cut_joints)
    fail_tol = 1e-9 * system.length_scale
    closed_tol = data.loop[0]["projection_tol"]
    targets = normalized(tree, q)
    scale = coordinate_scales(system)

    def names_of(mask):
        return sorted(n for n, jm in system.joints.items() if mask[jm.v_index].any())

    def loops_of(joints):
        return [system.loop_joints(cut) for cut in system.cut_joints
                if set(joints) & set(system.loop_joints(cut))]

    hard, soft = exact_q & q_given, q_given & ~exact_q
    q_new = _assemble_positions(system, t, rows, targets, hard, soft, closed_tol, fail_tol)[0]
    g = rows(t, q_new, np.zeros(nv))[2]
    missed = np.abs(difference(tree, nv, q_new, targets)) / scale
    if not (np.abs(g).max(initial=0.0) <= fail_tol and np.all(missed[hard] <= 1e-8)):
        if hard.any():      # can the loops close with the exact targets made approximate?
            q_soft = _assemble_positions(system, t, rows, targets, np.zeros_like(hard), q_given,
                                         closed_tol, fail_tol)[0]
            g = rows(t, q_soft, np.zeros(nv))[2]
            if np.abs(g).max(initial=0.0) <= fail_tol:
                off = np.abs(difference(tree, nv, q_soft, targets)) / scale
                joints = names_of(hard)
                raise SimulationError(
                    f"assembly failed at t = {t:g} s: the exact q0 targets of joints {joints} "
                    f"cannot all be met in the loop(s) of joints {loops_of(joints)}: the "
                    f"nearest closed configuration misses them by up to {off[hard].max():.3g}; "
                    "make some approximate or change them", t=t)
        loops = "; ".join(f"loop of joints {system.loop_joints(cut)} (residual "
                          f"{np.abs(g[6 * k:6 * k + 6]).max():.3g})"
                          for k, cut in enumerate(system.cut_joints)
                          if np.abs(g[6 * k:6 * k + 6]).max() > fail_tol)
        drivers = [d.name for k, d in enumerate(system.drivers) if abs(g[nc + k]) > fail_tol]
        raise SimulationError(f"assembly failed: the mechanism cannot be closed at t = {t:g} s: "
                              f"{loops or 'drivers and gears ' + str(drivers)}; check the joints' "
                              "positions, axes and q0 targets", t=t)
    # velocities, one linear solve: the exact targets and G v = rates, the others nearest
    hard, soft = exact_v & v_given, v_given & ~exact_v
    G, b, g, w = rows(t, q_new, v)
    u, N = _split_step(np.vstack([G, np.eye(nv)[hard]]),
                       np.concatenate([-w, np.zeros(int(hard.sum()))]), scale)
    if N.shape[1] and soft.any():   # the approximate targets as near as the rest allows
        u = u + N @ np.linalg.lstsq(N[soft], -u[soft], rcond=loopsolve.RANK_TOLERANCE)[0]
    v_new = v + u * scale
    w = rows(t, q_new, v_new)[3]
    size = max(1.0, np.abs(v).max(initial=0.0))
    if (np.any(np.abs(v_new - v)[hard] > 1e-8 * size)
            or np.abs(w).max(initial=0.0) > fail_tol * size):
        joints = names_of(hard)
        raise SimulationError(f"assembly failed at t = {t:g} s: the exact v0 targets of joints "
                              f"{joints} conflict with the velocity constraints of the loop(s) "
                              f"of joints {loops_of(joints)}", t=t)
    return q_new, v_new


def initial(system, data, state, q0, v0):
    """The initial state of a mechanism with loops or drivers: the joints' q0/v0 (or the
    overrides) are targets, exact where the joint says so (SPEC §2)."""
    masks = np.zeros((4, system.nv), dtype=bool)   # q given, v given, q exact, v exact
    for name, jm in system.joints.items():
        j = jm.joint
        masks[0, jm.v_index] = j.q0 is not None or name in q0
        masks[1, jm.v_index] = j.v0 is not None or name in v0
        masks[2, jm.v_index] = j.exact and masks[0, jm.v_index]
        masks[3, jm.v_index] = j.exact and masks[1, jm.v_index]
    return assemble(system, data, state.t, state.q, state.v, *masks)
