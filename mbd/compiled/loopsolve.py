"""The constrained solve on the tree's and the loops' sparsity (DESIGN §3; issue 24).

Solves, for x (nv) and the constraint forces lam (m)::

    H x = f + G^T lam,      G x = b                                       (KKT)

with H the tree's mass matrix (or a metric of the same sparsity) and G the constraint rows of
:mod:`mbd.compiled.loopkernels` (six per cut joint, then one per driver, gear or stiction lock), in
a cost that grows about linearly with bodies and loops. Three steps, each local:

1. **The cut joints' own coordinates.** A cut joint keeps its coordinates u as a massless
   chain (zero columns of H): per cut joint c, a Householder QR of its chain's columns
   ``G_cu = Q [R; 0]`` turns its six rows into n_u rows that fix u (``R u'' = ...``) and
   6 - n_u rows on the tree's coordinates alone (the cut joint's own constraint equations: 5
   for a revolute). Since u carries no mass, the first give u's accelerations after the solve
   and take the generalized force on u (a force element on the cut joint) as a known part of
   lam; a driver row on u is rewritten on the tree's coordinates the same way.
2. **The tree.** H = L^T D L by Featherstone's LTDL factorization (Table 6.3: no fill beyond
   a coordinate's ancestors) and the rows in the metric's coordinates
   ``W = P L^-1 D^-1/2`` row by row over each row's support (the coordinates on the paths from
   its links to the ground, which stays closed under L^-1); ``K = W W^T = P H^-1 P^T`` has
   blocks only between constraint groups (a cut joint's rows, a driver's row) that share a
   coordinate, and is never formed (forming it would square the rows' conditioning, issue 44).
3. **The loops.** A multifrontal QR of W in a minimum-degree order of the groups (the fronts
   and their fill found at build time): each group's front (its rows, and what the groups
   before it passed up, on the coordinates they share) is triangularized by Householder, its
   pivot rows made orthogonal (one-sided Jacobi), so a group's directions that the groups
   before it already fix are found where they are, with their strengths as singular values
   of the rows, not of K (the rank decision on the small blocks): a planar loop's three
   out-of-plane equations, the second of two parallel cranks, a window's equations at a
   change point. The factors are K's block LDL^T, applied as directions and weights.

**The rank rule** (one rule, :func:`mbd.compiled.sparsefactor.rank_of`): a direction of a
group counts when its singular value is above RANK_TOLERANCE times its group's largest row
norm in the metric, i.e. when what the equation adds beyond those before it is above
RANK_TOLERANCE of its own size (the measure ``strength``, a relative singular value). It
fixes the run's rank r at the assembled start.

**Change points** (a parallelogram's links collinear for an instant: the rank drops, the
motion goes on smoothly). The solve keeps the run's r strongest directions however weak the
r-th, down to round-off (:data:`ROUND_OFF`), so that the motion is solved straight through.
Four things keep it on the branch that continuity selects, because near the crossing of two
branches a state off its branch by e (a residual over the weak direction's strength s) moves
along a level set of the closures that turns onto the other branch, its rates off by e / s and
its accelerations by e / s^2:

1. the projection runs its Gauss-Newton iteration to round-off, not to a residual tolerance,
   and projects velocities in the mass metric (the least change of kinetic energy: an energy
   change of second order), and leaves the directions weaker than :data:`PROJECTED` to the
   motion, which keeps them to second order until it is past;
2. below :data:`NEAR_CROSSING` the right-hand side is evaluated at the state moved onto the
   closures (:func:`mbd.compiled.statekernels._constrained_rhs`), so that an integrator's stage,
   off the closures by its own error, is not turned;
3. a direction weaker than about :data:`SOFTENED` is inverted softened (Tikhonov): its
   multiplier, which grows like 1 / s at the crossing, stays bounded within round-off of it;
4. the compiled integrators step over the point without evaluating near it, and Radau hands
   it to DOP853 to jump (:mod:`mbd.run.steppers.changepoints`): an evaluation at strength s answers
   a stage's own error off the closures by as much over s^2, which no tolerance survives.

Where the motion really is not determined the run still stops: a mechanism assembled at a
change point at rest gains rank as it moves (RANK_GREW); a dead centre (a fold, no
configuration beyond: a slider-crank driven from the slider) leaves the rates it demands
unmet in the directions too weak to project (SINGULAR), and the steps shrink to nothing
where a lock-up's rates grow without bound (:func:`mbd.run.failures.check_singular`).

The projection of positions solves the same system in the unit metric of the tree's
coordinates (D = 1, L = 0: the least change of coordinates), that of velocities in the mass
metric, with the same code.

All arrays are flat: the structure is one int64 array ``Data.pattern``
(:func:`mbd.compiled.loopstructure.pattern`, made at the start of a run) and the floats one buffer
``Data.loopbuf`` (:func:`mbd.compiled.sparsebuffer.views`).
"""
import numpy as np

from . import kinematics, loopkernels
from .jit.jitcache import njit
from .loopstructure import P_CFIRST, P_CNU, P_NC, P_SIDX, P_SPTR
from .sparsebuffer import views
from .sparsefactor import factor, rank_of, refactor, strongest_threshold
from .sparsesolve import solve

#: the rank rule: a direction counts when its strength exceeds this (see the module docstring)
RANK_TOLERANCE = 1e-6
#: below this strength a direction is round-off (a relative singular value of the rows)
ROUND_OFF = 1e-7

#: a run whose steps shrink to nothing where its weakest direction is below this strength has
#: met a singular configuration (a drive into a dead centre: the rates grow without bound)
NEAR_SINGULAR = 1e-4

#: what a solve or a projection returns besides 0
SINGULAR = -1          # a dead centre: rates the equations demand cannot be met
RANK_GREW = -2         # on the manifold, a direction beyond the run's r rose above the rule
NOT_CLOSED = -3        # the projection did not converge

#: the dynamics invert a direction of strength s softened by s^4 / (s^4 + SOFTENED^4): exact
#: (to 1e-8 relative) above 100 SOFTENED, a bounded multiplier at a change point, where the
#: exact one grows like 1 / s and a state off its branch by round-off e turns away by e / s
SOFTENED = 1e-5

#: the projection corrects the directions above this strength only: within a change point's
#: neighbourhood, a position off its branch by e (round-off over the strength s) turns the
#: tangent there by e / s, so the weak directions are left to the motion, which keeps their
#: equations to second order, until it is past (:func:`project`)
PROJECTED = 1e-4

#: below this strength of a direction the right-hand side is evaluated at the state moved
#: onto the constraints (:func:`mbd.compiled.statekernels._constrained_rhs`)
NEAR_CROSSING = 1e-2

#: a velocity residual left in the directions too weak to project, above this many projection
#: tolerances (1e-12 of the length scale by default) per unit of speed, is a dead centre
#: passed, not a change point (:func:`project`)
UNMET = 1e6

#: the most Gauss-Newton steps of one projection onto the position constraints
PROJECTION_ITERATIONS = 50

#: a compiled DOP853 step's end is left as it is (not projected, and not evaluated again)
#: while its drift off the constraints, in coordinates, is below this share of atol
#: (:func:`within_drift`): projecting a drift far below the step's own error only costs a
#: projection and an evaluation (on the four-bar of benchmarks/models.py, a tenth of atol
#: left the error at 1e-3 and 1e-6 as it was and skipped half the projections)
DRIFT_SHARE = 0.1


def numerical_rank(s, rows=None):
    """The rank rule on singular values s (decreasing) of a matrix with ``rows`` rows, for the
    analyses that decompose a whole Jacobian (the build's mobility, minimal coordinates): how
    many exceed RANK_TOLERANCE times the largest."""
    s = np.asarray(s)[:rows]
    return int(np.count_nonzero(s > RANK_TOLERANCE * s[0])) if s.size and s[0] > 0 else 0


# ----------------------------------------------------------------------------- the policies

@njit()
def _keep(V_, pat, r, kept, weakest, floor, soft=0.0):
    """Make the last factorization keep the run's r strongest directions, as far as they are
    above ``floor`` (it kept ``kept``, the weakest of strength ``weakest``): factor again
    where that is another set. Returns a lower bound of the weakest kept direction's strength
    (its own, or the threshold it was kept at)."""
    if kept == r and weakest > floor:
        return weakest
    threshold = strongest_threshold(V_, pat, r, floor)
    refactor(V_, pat, threshold if threshold >= 0.0 else floor, soft)
    return max(threshold, floor)


@njit()
def _record(loop, V_, pat):
    """The rank rule's findings on the last elimination into ``loop``: how many directions
    pass it (``found``), the strength of the weakest that does or, where fewer than the run's
    rank pass, of the strongest that does not (``smallest``), and the strongest that does not
    (``dropped``). Returns ``found``."""
    L = loop[0]
    kept, weakest, strongest = rank_of(V_, pat, RANK_TOLERANCE)
    L.found = kept
    L.smallest = weakest if L.rank < 0 or kept >= L.rank else strongest
    L.dropped = strongest
    return kept


@njit()
def dynamics(V_, pat, loop, drivers, tree, links, scratch):
    """The constrained accelerations V_.xp and constraint forces V_.lam of H qdd = f + G^T lam,
    G qdd = b (the views hold f, G and b on the links' poses), on the run's r strongest
    directions (r: the rank found at the first call), however weak the r-th: a change point
    that the motion crosses is solved straight through. Within round-off of the change point
    (the r-th direction's strength at or below ROUND_OFF, where its pivot is noise) the
    directions above round-off are kept: the motion there is the one the other equations
    allow, a stage the integrator's error control weighs like any other (it takes short steps
    across such a point). Returns 0, or 1 where the mass matrix or a chain degenerates (xp is
    then NaN)."""
    kept = factor(V_, pat, drivers, tree, links, scratch, RANK_TOLERANCE, True, SOFTENED)
    if kept >= 0:
        kept = _record(loop, V_, pat)
        if loop[0].rank < 0:
            loop[0].rank = kept
        _keep(V_, pat, loop[0].rank, kept, loop[0].smallest, ROUND_OFF, SOFTENED)
        solve(V_, pat, drivers, V_.f, V_.b, V_.xp, V_.lam)
        return 0
    for k in range(V_.xp.shape[0]):
        V_.xp[k] = np.nan
    for k in range(V_.lam.shape[0]):
        V_.lam[k] = 0.0
    return 1


@njit()
def _rows(q, V_, pat, tree, links, scratch, closures, drivers):
    """The constraint rows V_.G and position residuals V_.g at q (poses computed here)."""
    kinematics.link_transforms(q, tree, links, scratch)
    loopkernels.closure_rows(tree, links, scratch, closures, V_.G, V_.g)
    loopkernels.driver_rows(q, drivers, 6 * closures.shape[0], V_.G, V_.g)


@njit()
def _velocity_residual(v, V_, pat, drivers, out):
    """out (m) = G v - the drivers' rates, on the rows as :mod:`mbd.compiled.loopkernels` writes
    them (before a factorization rotates them)."""
    G = V_.G
    nc = pat[P_NC]
    cfirst, cnu = pat[pat[P_CFIRST]:], pat[pat[P_CNU]:]
    sptr, sidx = pat[pat[P_SPTR]:], pat[pat[P_SIDX]:]
    for c in range(nc):
        for i in range(6):
            row = 6 * c + i
            acc = 0.0
            for e in range(sptr[c], sptr[c + 1]):
                acc += G[row, sidx[e]] * v[sidx[e]]
            for j in range(cfirst[c], cfirst[c] + cnu[c]):
                acc += G[row, j] * v[j]
            out[row] = acc
    for k in range(drivers.shape[0]):
        D = drivers[k]
        out[6 * nc + k] = D.active * (v[D.v_index] - D.ratio * v[D.coupled_v]) - \
            (D.velocity if D.element < 0 else 0.0)


@njit()
def project(y, nq, nv, tree, links, scratch, closures, drivers, buf, pat, loop):
    """y = [q (nq), v (nv), ...] moved onto the constraints in place, in the unit metric of
    the tree's coordinates (the cut joints' own follow from their rows): q by Gauss-Newton
    steps of least change on the run's r strongest directions above PROJECTED, then v by the
    least change onto G v = driver rates on the same directions, with the last factorization.
    Returns 0, NOT_CLOSED (no convergence in PROJECTION_ITERATIONS steps), or RANK_GREW where,
    on the manifold, more than r directions pass the rule.

    The iteration runs to round-off, not to a residual: near a change point, where two
    branches of the closures cross, a residual g0 leaves q on the level set g = g0, whose
    branches turn from one into the other at the crossing, and the motion, which keeps g,
    would follow them there (off its branch by g0 / s at a direction's strength s). It stops
    where a step is below ``loop.projection_tol`` / 1000, or where the steps stop shrinking
    (round-off over a weak direction: at most ``loop.projection_tol`` over its strength).
    """
    V_ = views(buf, pat)
    G, g, f, b, d = V_.G, V_.g, V_.f, V_.b, V_.x
    m = G.shape[0]
    q = y[:nq]
    v = y[nq:nq + nv]
    kinematics.normalize_quaternions(q, tree, q)
    for j in range(nv):
        f[j] = 0.0
    L = loop[0]
    tol = L.projection_tol
    previous = np.inf
    for _ in range(PROJECTION_ITERATIONS + 1):
        _rows(q, V_, pat, tree, links, scratch, closures, drivers)
        for a in range(m):
            b[a] = -g[a]
        kept = factor(V_, pat, drivers, tree, links, scratch, RANK_TOLERANCE, False)
        if kept < 0:
            return NOT_CLOSED
        kept = _record(loop, V_, pat)
        if L.rank < 0:           # the rank at the first state projected, if no solve set it
            L.rank = kept
        weakest = _keep(V_, pat, L.rank, kept, L.smallest, PROJECTED)
        solve(V_, pat, drivers, f, b, d, V_.lam)
        if not loopkernels.finite(d):
            return NOT_CLOSED
        step = 0.0
        for j in range(nv):
            step = max(step, abs(d[j]))
        if step <= 1e-3 * tol or (step > 0.25 * previous and step <= tol / weakest):
            break
        loopkernels.retract(q, d, tree)
        previous = step
    else:
        return NOT_CLOSED
    # velocities: v -= the least change in kinetic energy onto G v = rates, at this q
    _rows(q, V_, pat, tree, links, scratch, closures, drivers)
    _velocity_residual(v, V_, pat, drivers, b)
    kept = factor(V_, pat, drivers, tree, links, scratch, RANK_TOLERANCE, True)
    if kept < 0:
        return NOT_CLOSED
    kept = _record(loop, V_, pat)
    _keep(V_, pat, L.rank, kept, L.smallest, PROJECTED)
    solve(V_, pat, drivers, f, b, d, V_.lam)
    speed = 0.0
    for j in range(nv):
        v[j] -= d[j]
        speed = max(speed, abs(v[j]))
    if L.smallest < PROJECTED:
        # directions too weak to project: the motion must keep them itself, as it does
        # through a change point; past a dead centre (a fold: no configuration beyond) it
        # cannot, and the rates the equations demand there are left unmet
        _rows(q, V_, pat, tree, links, scratch, closures, drivers)
        _velocity_residual(v, V_, pat, drivers, b)
        for a in range(m):
            if abs(b[a]) > UNMET * tol * (speed + 1.0):
                return SINGULAR
    return RANK_GREW if L.found > L.rank else 0


@njit()
def within_drift(q, v, tree, links, scratch, closures, drivers, buf, pat, loop, limit):
    """Whether the state (q, v) (q with unit quaternions) is within ``limit`` of the
    constraints, in coordinates (rad, m; per second for v), away from change points, so that
    projecting it would change nothing that matters: every row's position residual g_i and
    velocity residual (G v - rates)_i at most ``limit`` times the row's norm |G_i| (the
    least change of the coordinates that removes that row's residual is |g_i| / |G_i|), and
    the last evaluation of the dynamics (at this state) kept the run's rank with every
    direction stronger than NEAR_CROSSING. The rows are written into the solve's buffer
    (its G, g and b are scratch between evaluations)."""
    L = loop[0]
    if L.rank < 0 or L.found != L.rank or not L.smallest >= NEAR_CROSSING:
        return False
    V_ = views(buf, pat)
    G, g, w = V_.G, V_.g, V_.b
    _rows(q, V_, pat, tree, links, scratch, closures, drivers)
    _velocity_residual(v, V_, pat, drivers, w)
    for a in range(G.shape[0]):
        s = 0.0
        for j in range(G.shape[1]):
            s += G[a, j] * G[a, j]
        bound = limit * np.sqrt(s)
        if not (abs(g[a]) <= bound and abs(w[a]) <= bound):
            return False
    return True
