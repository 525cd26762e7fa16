"""The compiled dynamics at a state: the right-hand side in nine variants with one signature —
tree or constrained (loops, motion drivers), with or without force elements, with or without
continuous controllers evaluated compiled (:mod:`mbd.compiled.controlkernels`; the variants
without them never touch their records), and for trees the world-frame or the link-frame
articulated-body algorithm — and its companions: the switching
functions, the projection onto the closures, the constraint forces and what every joint
transmits, the kinematics of rows of states. :class:`mbd.run.evaluator.Evaluator` is their Python
side (the data, which variant, calling them).

Near a change point of the loops the constrained variants evaluate at the state moved onto the
constraints (:func:`_constrained_rhs`, :mod:`mbd.compiled.loopsolve`). Return codes: 0; the
index + 1 of a force element whose load direction is undefined; or a negative code of
:mod:`mbd.compiled.loopsolve` (the rank rule's verdict).
"""
import numpy as np

from . import (
    articulated,
    broadphase,
    controlkernels,
    forcekernels,
    jointspace,
    kinematics,
    loopkernels,
    loopsolve,
    patchkernels,
    sparsebuffer,
)
from .jit.jitcache import njit
from .jit.native import borrowed
from .layout import LAW_SWITCHES, NATURAL_MODE, ONE_ELEMENT, RECORDS, SWITCHING


@njit(inline="always")
def _start(y, dy, data):
    """Normalized q into data.q and its rates into dy[:nq]; returns (q, v, the slot of the
    accelerations in dy).

    Every variant first takes y, dy and the data as :func:`mbd.compiled.jit.native.borrowed` views:
    they live as long as the call, and the views, slices and calls of an evaluation then do
    not count references with atomic operations (a fifth of a four-bar run's profile)."""
    q = data.q
    nq = q.shape[0]
    nv = data.tau.shape[0]
    v = y[nq:nq + nv]
    kinematics.normalize_quaternions(y[:nq], data.tree, q)
    kinematics.quaternion_rates(q, v, data.tree, dy[:nq])
    return q, v, dy[nq:nq + nv]


@njit(inline="always")
def _work_rates(v, dy, data, constrained):
    """When y carries the work accumulators (dy longer than nq + nv), the power of every
    force element (law value times the rate of what it reads, W), after a constrained solve
    (``constrained``, a constant of the variant: a tree's variants compile no driver code)
    of every driver (its force times its coordinate's rate), and of every contact point's
    friction (its force times the slip velocity; a sticking patch's hold, the power of its
    rows, at its first point: :func:`mbd.compiled.patchkernels.hold_power`) into them."""
    n = data.q.shape[0] + v.shape[0]
    if dy.shape[0] == n:
        return
    estate, points, mode = data.estate, data.points, data.mode
    nf = estate.shape[0]
    friction_at = n + nf + data.drivers.shape[0]     # a contact point's friction's, after
    for i in range(nf):
        X = estate[i]
        measured = points[i].written != 0 or points[i].pair < 0   # else no load, no power
        dy[n + i] = X.value * X.xdot if measured and X.status == 0 else 0.0
        if points[i].pair < 0:
            continue
        lead = points[i].patch
        if patchkernels.patch_sticks(lead, mode):
            # a sticking patch's friction is its hold: its power, at its first point
            dy[friction_at] = (patchkernels.hold_power(i, data.elements, estate, mode)
                               if lead == i else 0.0)
        elif measured:
            f = X.friction
            dy[friction_at] = (f[0] * (X.vel_b[0] - X.vel_a[0]) + f[1] * (X.vel_b[1] - X.vel_a[1])
                               + f[2] * (X.vel_b[2] - X.vel_a[2]))
        else:
            dy[friction_at] = 0.0
        friction_at += 1
    if constrained:
        nd = data.drivers.shape[0]
        if nd:
            m = 6 * data.closures.shape[0] + nd
            lam = sparsebuffer.views(data.loopbuf, data.pattern).lam
            for k in range(nd):
                D = data.drivers[k]
                power = lam[m - nd + k] * (v[D.v_index] - D.ratio * v[D.coupled_v])
                if D.element >= 0:      # a stiction lock: its force's work is its element's
                    dy[n + D.element] += power
                else:
                    dy[n + nf + k] = power


@njit()
def tree_free_world(t, y, dy, data):
    """dy/dt of a tree without force elements or prismatic primitives (world-frame ABA)."""
    y, dy, data = borrowed((y, dy, data))     # (see _start)
    q, v, acc = _start(y, dy, data)
    kinematics.link_transforms(q, data.tree, data.links, data.scratch)
    articulated.aba_world(v, data.tau, data.tree, data.links, data.scratch, acc)
    return 0


@njit()
def tree_free_link(t, y, dy, data):
    """dy/dt of a tree without force elements (link-frame ABA: links may slide away)."""
    y, dy, data = borrowed((y, dy, data))     # (see _start)
    q, v, acc = _start(y, dy, data)
    kinematics.link_velocities(q, v, data.tree, data.links, data.scratch)
    articulated.aba(v, data.tau, data.tree, data.links, data.scratch, acc)
    return 0


@njit(inline="always")
def _loads(q, v, data, controlled):
    """The force elements' loads into the links' fext and data.tau, after (``controlled``)
    the compiled controllers' outputs into the laws they feed
    (:mod:`mbd.compiled.controlkernels`); returns their status (or the first failing
    controller's)."""
    if controlled:     # (a constant in the variants: no cost without controllers)
        failed = controlkernels.evaluate(v, data)
        if failed != 0:
            return failed
    kinematics.clear_loads(data.links, data.tau)
    broadphase.broad_phase(data.links, data.shapes, data.pairs, data.broad)
    return forcekernels.element_loads(q, v, data.elements, data.estate, data.mode, data.links,
                                      data.scratch, data.tau, data.pairs, data.points,
                                      data.broad[0].stamp)


@njit(inline="always")
def _tree_forced(t, y, dy, data, link_frame, controlled):
    """dy/dt of a tree with force elements (the link-frame ABA where ``link_frame``), with
    compiled controllers where ``controlled``: their states taken from y, their rates into
    dy. Both flags are constants of the variant."""
    forcekernels.signal_values(t, data.elements)
    if controlled:
        controlkernels.take(t, y, data)
    q, v, acc = _start(y, dy, data)
    kinematics.link_velocities(q, v, data.tree, data.links, data.scratch)
    bad = _loads(q, v, data, controlled)
    if link_frame:
        articulated.aba(v, data.tau, data.tree, data.links, data.scratch, acc)
    else:
        articulated.aba_world(v, data.tau, data.tree, data.links, data.scratch, acc)
    _work_rates(v, dy, data, False)
    if controlled:
        controlkernels.give(dy, data)
    return bad


@njit()
def tree_patches(t, y, dy, data):
    """dy/dt of a tree with contacts of exact friction (link-frame ABA): the sticking
    patches held (:func:`mbd.compiled.patchkernels.hold_patches`)."""
    y, dy, data = borrowed((y, dy, data))     # (see _start)
    forcekernels.signal_values(t, data.elements)
    q, v, acc = _start(y, dy, data)
    kinematics.link_velocities(q, v, data.tree, data.links, data.scratch)
    bad = _loads(q, v, data, False)
    articulated.aba(v, data.tau, data.tree, data.links, data.scratch, acc)
    if patchkernels.any_stuck(data.elements, data.mode):
        patchkernels.hold_patches(v, data, acc, np.zeros((0, 0)))
    _work_rates(v, dy, data, False)
    return bad


@njit()
def tree_forced_world(t, y, dy, data):
    """dy/dt of a tree with force elements and no prismatic primitives."""
    y, dy, data = borrowed((y, dy, data))     # (see _start)
    return _tree_forced(t, y, dy, data, False, False)


@njit()
def tree_forced_link(t, y, dy, data):
    """dy/dt of a tree with force elements (link-frame ABA)."""
    y, dy, data = borrowed((y, dy, data))     # (see _start)
    return _tree_forced(t, y, dy, data, True, False)


@njit()
def controlled_tree_world(t, y, dy, data):
    """dy/dt of a tree with continuous controllers (compiled) and no prismatic primitives."""
    y, dy, data = borrowed((y, dy, data))     # (see _start)
    return _tree_forced(t, y, dy, data, False, True)


@njit()
def controlled_tree_link(t, y, dy, data):
    """dy/dt of a tree with continuous controllers (compiled; link-frame ABA)."""
    y, dy, data = borrowed((y, dy, data))     # (see _start)
    return _tree_forced(t, y, dy, data, True, True)


@njit(inline="always")
def _solve(q, v, data, acc):
    """The constrained accelerations (the solve's ``xp``) and constraint forces (``lam``) in
    the data's buffer (the kinematics and loads done): RNEA bias, the constraint rows and the
    sparse solve (:func:`mbd.compiled.loopsolve.dynamics`); the accelerations also into acc (nv).
    Returns the rank rule's verdict, or 1 where the accelerations are not finite (a trial
    state too far out: they are NaN then, for the integrator's error control to reject)."""
    nv = v.shape[0]
    V_ = sparsebuffer.views(data.loopbuf, data.pattern)
    z = V_.x
    for k in range(nv):
        z[k] = 0.0
    jointspace.rnea(z, data.tree, data.links, data.scratch, V_.f)     # C
    for k in range(nv):
        V_.f[k] = data.tau[k] - V_.f[k]                            # f = tau - C
    loopkernels.constraint_rows(q, v, data.tree, data.links, data.scratch, data.closures,
                                data.drivers, V_.G, V_.b, V_.g)
    status = loopsolve.dynamics(V_, data.pattern, data.loop, data.drivers, data.tree,
                                data.links, data.scratch)
    if status == 1 or not loopkernels.finite(V_.xp):
        for k in range(nv):
            V_.xp[k] = np.nan
        status = 1
    for k in range(nv):
        acc[k] = V_.xp[k]
    return status


@njit(inline="always")
def _constrained(q, v, acc, dy, data, bad):
    """The constrained accelerations into acc (the kinematics and loads done), the work rates
    into dy's accumulators (when it has them) (:func:`_solve`)."""
    status = _solve(q, v, data, acc)
    if status == 1:           # not finite: NaN accelerations, no verdict
        return bad
    _work_rates(v, dy, data, True)
    return bad if bad != 0 else status


@njit()
def _constrained_at(y, dy, data, forced, controlled):
    """dy/dt at y of a mechanism with loops or motion drivers (and force elements where
    ``forced``, compiled controllers where ``controlled``); compiled once, called up to twice
    per evaluation (not inlined)."""
    q, v, acc = _start(y, dy, data)
    kinematics.link_velocities(q, v, data.tree, data.links, data.scratch)
    bad = _loads(q, v, data, controlled) if forced else 0
    return _constrained(q, v, acc, dy, data, bad)


@njit(inline="always")
def _constrained_rhs(y, dy, data, forced, controlled=False):
    """dy/dt at y; near a change point (a direction weaker than
    :data:`mbd.compiled.loopsolve.NEAR_CROSSING`), at y moved onto the constraints
    (:func:`mbd.compiled.loopsolve.project`): there the motion turns off its branch by its offset
    over the direction's strength squared, and an integrator's stage, which is off the constraints
    by its own error, would take it along."""
    bad = _constrained_at(y, dy, data, forced, controlled)
    if data.closures.shape[0] == 0 or bad != 0 or \
            not data.loop[0].smallest < loopsolve.NEAR_CROSSING:
        return bad
    nq, nv = data.q.shape[0], data.tau.shape[0]
    yp = sparsebuffer.views(data.loopbuf, data.pattern).yp
    for i in range(nq + nv):
        yp[i] = y[i]
    if projection(yp, data) != 0:       # not onto the branch here: as it is
        return _constrained_at(y, dy, data, forced, controlled)
    return _constrained_at(yp, dy, data, forced, controlled)


@njit()
def constrained_free(t, y, dy, data):
    """dy/dt of a mechanism with loops or motion drivers and no force elements."""
    y, dy, data = borrowed((y, dy, data))     # (see _start)
    return _constrained_rhs(y, dy, data, False)


@njit()
def constrained_forced(t, y, dy, data):
    """dy/dt of a mechanism with loops or motion drivers and force elements."""
    y, dy, data = borrowed((y, dy, data))     # (see _start)
    forcekernels.signal_values(t, data.elements)
    return _constrained_rhs(y, dy, data, True)


@njit()
def controlled_constrained(t, y, dy, data):
    """dy/dt of a mechanism with loops or motion drivers and continuous controllers
    (compiled): their states taken from y, their rates into dy."""
    y, dy, data = borrowed((y, dy, data))     # (see _start)
    forcekernels.signal_values(t, data.elements)
    controlkernels.take(t, y, data)
    bad = _constrained_rhs(y, dy, data, True, True)
    controlkernels.give(dy, data)
    return bad


@njit()
def no_switching(y, g, data, task):
    """The switching functions of a mechanism without force elements: none."""
    return 0


@njit(inline="always")
def alone(i, k, data):
    """Whether switching function (i, k) is its law's alone (the task ONE_ELEMENT + i of
    :func:`elements_at` gives it): a law's (not a placement's: a line's reversal, a patch's
    stick or slip), of an element no stiction lock holds (a lock's breakaway is its
    constrained force)."""
    if k >= LAW_SWITCHES:
        return False
    for d in range(data.drivers.shape[0]):
        if data.drivers[d].element == i:
            return False
    return True


@njit()
def elements_at(y, g, data, task):
    """The force elements at y, in the current mode: their switching functions into g
    (nf, SWITCHES) (``task`` SWITCHING), the mode the state selects into data.mode
    (NATURAL_MODE; g is scratch) or their records into data.estate (RECORDS; a line without a
    reference direction measured as it is). Returns the records' status as element_loads,
    else 0."""
    q = data.q
    nq = q.shape[0]
    v = y[nq:nq + data.tau.shape[0]]
    kinematics.normalize_quaternions(y[:nq], data.tree, q)
    kinematics.link_velocities(q, v, data.tree, data.links, data.scratch)
    if task == RECORDS:        # every contact point measured (no broad phase); the loads
        data.broad[0].exact += 1     # evaluate the controllers
        status = _loads(q, v, data, True)
        data.broad[0].exact -= 1
        return status
    controlkernels.evaluate(v, data)     # the laws' parameters that controllers give
    if task >= ONE_ELEMENT:     # one element's law functions, measured (no broad phase)
        i = task - ONE_ELEMENT
        forcekernels.switching_values(q, v, data.elements, data.estate, data.mode, data.links,
                                      data.scratch, g, data.pairs, data.points, -1, i, i + 1)
        return 0
    broadphase.broad_phase(data.links, data.shapes, data.pairs, data.broad)
    stamp = data.broad[0].stamp
    if task == SWITCHING:
        forcekernels.switching_values(q, v, data.elements, data.estate, data.mode, data.links,
                                      data.scratch, g, data.pairs, data.points, stamp, 0,
                                      data.elements.shape[0])
    else:
        forcekernels.natural_mode(q, v, data.elements, data.estate, data.mode, data.links,
                                  data.scratch, g, data.pairs, data.points, stamp)
    return 0


@njit()
def elements_and_locks(y, g, data, task):
    """:func:`elements_at` for a mechanism with stiction elements: while one sticks, its
    breakaway switching function (slot 1) is |lambda| - f_s, lambda the force its lock
    needs, from the constrained solve at y (the loads and the solve overwrite the data's
    scratch, as an evaluation of the right-hand side does)."""
    status = elements_at(y, g, data, task)
    if task != SWITCHING:
        return status
    drivers = data.drivers
    nd = drivers.shape[0]
    stuck = False
    for k in range(nd):          # a lock that holds (drivers and gears hold always)
        stuck = stuck or (drivers[k].element >= 0 and drivers[k].active > 0.0)
    if not stuck:
        return 0
    q = data.q
    v = y[q.shape[0]:q.shape[0] + data.tau.shape[0]]
    _loads(q, v, data, True)
    V_ = sparsebuffer.views(data.loopbuf, data.pattern)
    _solve(q, v, data, V_.x)     # the accelerations into work (only lam is wanted)
    m = 6 * data.closures.shape[0] + nd
    for k in range(nd):
        D = drivers[k]
        if D.element >= 0 and D.active > 0.0:
            g[D.element, 1] = abs(V_.lam[m - nd + k]) - data.elements[D.element].params[0]
    return 0


@njit()
def elements_and_patches(y, g, data, task):
    """:func:`elements_at` for a tree with contacts of exact friction: while a patch sticks,
    its breakaway switching function is |f_t| - mu_s sum(f_n), f_t the force holding it, and
    its points' records carry their shares of that force (the loads, the tree's
    accelerations and the holding forces at y, as an evaluation of the right-hand side
    does)."""
    status = elements_at(y, g, data, task)
    if (task == NATURAL_MODE or task >= ONE_ELEMENT
            or not patchkernels.any_stuck(data.elements, data.mode)):
        return status
    q = data.q
    v = y[q.shape[0]:q.shape[0] + data.tau.shape[0]]
    if task == SWITCHING:          # (the records' task has the loads already)
        _loads(q, v, data, True)
    acc = np.empty(v.shape[0])
    articulated.aba(v, data.tau, data.tree, data.links, data.scratch, acc)
    patchkernels.hold_patches(v, data, acc, g if task == SWITCHING else np.zeros((0, 0)))
    return status


@njit()
def patches_projected(y, data):
    """y's velocities moved onto the sticking contact patches' rows in place
    (:func:`mbd.compiled.patchkernels.project_patches`), the points measured at y."""
    q = data.q
    nq = q.shape[0]
    v = y[nq:nq + data.tau.shape[0]]
    kinematics.normalize_quaternions(y[:nq], data.tree, q)
    kinematics.link_velocities(q, v, data.tree, data.links, data.scratch)
    _loads(q, v, data, False)
    patchkernels.project_patches(v, data)
    return 0


@njit()
def no_projection(y, data):
    """A tree has no constraints to project onto."""
    return 0


@njit()
def projection(y, data):
    """y moved onto the constraints in place (:func:`mbd.compiled.loopsolve.project`)."""
    y, data = borrowed((y, data))
    return loopsolve.project(y, data.q.shape[0], data.tau.shape[0], data.tree, data.links,
                             data.scratch, data.closures, data.drivers, data.loopbuf,
                             data.pattern, data.loop)


@njit()
def near_constraints(y, data, limit):
    """Whether y is within ``limit`` (rad, m; per second for the rates) of the constraints in
    coordinates, away from change points: a step's end the stepper may leave unprojected
    (:func:`mbd.compiled.loopsolve.within_drift`; right after an evaluation at y): 1 or 0.
    The compiled stepper calls it through its address (``Functions.near``), so that its own
    code, compiled once for every model, holds none of the constrained solve."""
    y, data = borrowed((y, data))
    q = data.q
    nq = q.shape[0]
    kinematics.normalize_quaternions(y[:nq], data.tree, q)
    near = loopsolve.within_drift(q, y[nq:nq + data.tau.shape[0]], data.tree, data.links,
                                  data.scratch, data.closures, data.drivers, data.loopbuf,
                                  data.pattern, data.loop, limit)
    return 1 if near else 0


@njit(inline="always")
def _add_closure_force(links, link, sign, lam, c, p):
    """links[link].fext += sign * closure c's force lam (world [moment about p; force])."""
    if link < 0:
        return
    S = links[link]
    d0, d1, d2 = p[0] - S.p0[0], p[1] - S.p0[1], p[2] - S.p0[2]
    f0, f1, f2 = lam[6 * c + 3], lam[6 * c + 4], lam[6 * c + 5]
    m0 = lam[6 * c] + d1 * f2 - d2 * f1          # the moment about the link origin
    m1 = lam[6 * c + 1] + d2 * f0 - d0 * f2
    m2 = lam[6 * c + 2] + d0 * f1 - d1 * f0
    for a in range(3):
        S.fext[a] += sign * (S.E0[a, 0] * m0 + S.E0[a, 1] * m1 + S.E0[a, 2] * m2)
        S.fext[3 + a] += sign * (S.E0[a, 0] * f0 + S.E0[a, 1] * f1 + S.E0[a, 2] * f2)


@njit()
def constraint_forces(data, out):
    """out (m) = the constraint forces of the last constrained evaluation: per cut joint the
    world [moment; force] on its chain's end (the follower feels minus that, moment about the
    chain's end), then the drivers' forces along their coordinates."""
    m = out.shape[0]
    lam = sparsebuffer.views(data.loopbuf, data.pattern).lam
    for k in range(m):
        out[k] = lam[k]
    return 0


@njit()
def transmitted_loads(y, dy, data, lam, tau):
    """Every link's force from its parent side (the links' ``f``) at y with the accelerations
    dy[nq:] and the constraint forces lam (see :func:`constraint_forces`), after a
    right-hand-side evaluation at y left the element loads in the data: the closures' forces
    act on the chains' ends and, reversed, on the followers' links (and are taken off again).
    ``tau`` (nv) receives the generalized forces."""
    q = data.q
    nq = q.shape[0]
    nv = data.tau.shape[0]
    tree, links, scratch, closures = data.tree, data.links, data.scratch, data.closures
    kinematics.link_velocities(q, y[nq:nq + nv], tree, links, scratch)
    for sign in (1.0, -1.0):       # on for RNEA, then off again: fext keeps the elements' loads
        for c in range(closures.shape[0]):
            p = links[closures[c].end].p0
            _add_closure_force(links, closures[c].end, sign, lam, c, p)
            _add_closure_force(links, closures[c].base, -sign, lam, c, p)
        if sign > 0.0:
            jointspace.rnea(dy[nq:nq + nv], tree, links, scratch, tau)
    return 0


@njit()
def controls_take(t, y, data):
    """Hold t (s) and the compiled controllers' states from y in their records, for the
    evaluations that follow from Python (each evaluates the controllers itself)."""
    controlkernels.take(t, y, data)
    return 0


@njit()
def controls_at(t, y, data):
    """The compiled controllers at (t, y) (s, the run's state with their states): their
    records' inputs, outputs and state rates, their outputs in the laws they feed (for Python:
    a controller's output or rates at a row). Returns 0 or a controller's failure."""
    q = data.q
    nq = q.shape[0]
    v = y[nq:nq + data.tau.shape[0]]
    kinematics.normalize_quaternions(y[:nq], data.tree, q)
    kinematics.link_velocities(q, v, data.tree, data.links, data.scratch)
    controlkernels.take(t, y, data)
    return controlkernels.evaluate(v, data)


@njit()
def kinematics_rows(Y, data, R, p, V, E):
    """At every row n of Y (n, nq + nv): the world rotation R (nl, n, 3, 3) and origin p
    (nl, n, 3) of every link, its spatial velocity V (nl, n, 6, link coordinates) and the
    tree's kinetic and potential energy E (n, 2). Link by link: each link's rows are one
    block, which is what the views of a body read."""
    q = data.q
    nq = q.shape[0]
    nv = data.tau.shape[0]
    links = data.links
    for n in range(Y.shape[0]):
        kinematics.normalize_quaternions(Y[n, :nq], data.tree, q)
        kinematics.link_velocities(q, Y[n, nq:nq + nv], data.tree, links, data.scratch)
        for i in range(links.shape[0]):
            for a in range(3):
                p[i, n, a] = links[i].p0[a]
                for b in range(3):
                    R[i, n, a, b] = links[i].E0[b, a]
            for k in range(6):
                V[i, n, k] = links[i].vel[k]
        E[n, 0], E[n, 1] = jointspace.energies(data.tree, links, data.scratch)
