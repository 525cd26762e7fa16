"""Exact contact friction (``Coulomb(exact=True)``, SPEC §12): patches that stick or slip.

A patch (a Contact with Coulomb(exact=True)) is its points, laid out one after another; the
first holds the patch's mode: sides[PLACEMENT_SWITCH] -1 while it sticks, +1 while it slips,
and, slipping, the slip's direction d0 in its ``reference`` (set where the piece began).
Its switching function (on that first point, PLACEMENT_SWITCH) is

    sticking:  |f_t| - mu_s sum(f_n)       f_t the holding force (hold_patches)
    slipping:  v_t . d0                     v_t the mean slip velocity of its points in contact

so it breaks free where the holding force leaves the cone, and stops slipping where its
slip along d0 ends. A point is in contact where its ElastoGap's contact side is (sides[0]).

The run's side of it (breaks, sticks, pivots, the projections' energy) is
:mod:`mbd.run.patches`; a contact point's own measure is :mod:`mbd.compiled.contactkernels`.
"""
import numpy as np

from . import jointspace, kinematics, loopkernels
from .jit.jitcache import njit
from .layout import PLACEMENT_SWITCH

#: a sticking patch's slip and spin, which the holding force keeps at zero, drift at the
#: rate of terms the hold leaves out (its point's motion over the surfaces is taken as the
#: mean of the two bodies' velocities there, where a witness that is a material point (a
#: box's corner) moves with its own): they are brought back to zero with this time
#: constant, s (an eigenvalue of -1/HOLD_TIME, within any step a contact's stiffness allows)
HOLD_TIME = 1e-3


@njit(inline="always")
def in_contact(mode, j):
    """Whether contact point j's normal law (an ElastoGap) is in contact in the mode."""
    return mode[j].sides[0] < 0.0


@njit(inline="always")
def patch_sticks(lead, mode):
    """Whether the patch whose first point is element ``lead`` sticks (False for lead < 0: a
    point of no exact patch). A point's patch is its element's or its compact record's
    ``patch``."""
    return lead >= 0 and mode[lead].sides[PLACEMENT_SWITCH] < 0.0


#: a holding force within this share of its cone's edge holds: where it touches the edge
#: and turns back (a transient's peak), its break and stick are round-off's, and a break
#: there would be followed, at the same instant, by a stick, and so on (a patch's breakaway
#: function is |f_t| - mu_s (1 + CONE_EDGE) sum(f_n); mbd.run.patches tests the same)
CONE_EDGE = 1e-9


#: a slip that starts from zero (a break) starts on the slipping side of its stop, by this
#: much (m/s): its slip along d0 is zero there to round-off, whose sign would otherwise end
#: it at once; the stop is then where the slip has reversed by this much
SLIP_FLOOR = 1e-12


#: a patch slipping from rest (breaking free, slipping on where it could not stick) slips
#: along the direction d0 chosen there until its own slip takes over, m/s: its friction is
#: along v + SLIP_START d0, v its mean slip velocity (smooth as the slip starts)
SLIP_START = 1e-6


@njit(inline="always")
def kinetic_friction(i, elements, estate, mode):
    """A point of an exact patch: its friction per newton of normal force into the record's
    ``friction`` (:func:`friction_force` scales it): none while the patch sticks (its hold
    carries it); while it slips, mu_k against the patch's slip, its points' mean slip
    velocity v (from rest along v + SLIP_START d0, :data:`SLIP_START`). The patch slips as
    one: a point's own slip may pass through zero as the patch turns about it (the friction
    of each point along its own slip would flip there, where no switch sees it), so each
    carries mu_k f_n,i along the patch's slip, and the patch's spin is resisted while it
    sticks. The patch's slip is its first point's record's (:func:`patch_motion`)."""
    E, X = elements[i], estate[i]
    f = X.friction
    f[0] = f[1] = f[2] = 0.0
    if patch_sticks(E.patch, mode):
        return
    slip, ref = estate[E.patch].slip, mode[E.patch].reference
    t0 = slip[0] + SLIP_START * ref[0]
    t1 = slip[1] + SLIP_START * ref[1]
    t2 = slip[2] + SLIP_START * ref[2]
    s = np.sqrt(t0 * t0 + t1 * t1 + t2 * t2)
    mu_k = E.friction[1]
    if s > 0.0:
        f[0], f[1], f[2] = -mu_k * t0 / s, -mu_k * t1 / s, -mu_k * t2 / s


@njit()
def patch_motion(i, elements, estate, mode):
    """Patch i (its first point): its centre, mean normal and mean slip velocity over its
    points in contact into the first point's record (``patch_point``, ``patch_normal``,
    ``slip``), and its bodies' angular velocities (``w_a``, ``w_b``) from a point in contact:
    the first point's own measure may be left out by the broad phase (its pair of shapes
    far apart while another touches, the foot of a link whose leg is its first shape), and
    the hold's rows and power read them there. Returns how many points are in contact."""
    X = estate[i]
    c, nrm, slip = X.patch_point, X.patch_normal, X.slip
    for a in range(3):
        c[a] = nrm[a] = slip[a] = 0.0
    count = 0
    for j in range(i, i + elements[i].patch_size):
        if not in_contact(mode, j):
            continue
        Y = estate[j]
        if count == 0:
            for a in range(3):
                X.w_a[a], X.w_b[a] = Y.w_a[a], Y.w_b[a]
        count += 1
        for a in range(3):
            c[a] += Y.point_b[a]
            nrm[a] += Y.direction[a]
            slip[a] += Y.vel_b[a] - Y.vel_a[a]
    if count == 0:
        return 0
    norm = np.sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2])
    for a in range(3):
        c[a] /= count
        nrm[a] /= norm
        slip[a] /= count
    along = slip[0] * nrm[0] + slip[1] * nrm[1] + slip[2] * nrm[2]
    for a in range(3):
        slip[a] -= along * nrm[a]
    return count


@njit()
def patch_switching(elements, estate, mode, g):
    """The exact patches' switching functions into g[first point, PLACEMENT_SWITCH]: slipping,
    the mean slip velocity along its direction d0 (+ :data:`SLIP_FLOOR`); sticking, -1
    (held: :func:`hold_patches` writes |f_t| - mu_s sum(f_n) where the holding force is
    solved for)."""
    for i in range(elements.shape[0]):
        E = elements[i]
        if E.patch != i:
            continue
        patch_motion(i, elements, estate, mode)
        if mode[i].sides[PLACEMENT_SWITCH] < 0.0:
            g[i, PLACEMENT_SWITCH] = -1.0
        else:
            ref, slip = mode[i].reference, estate[i].slip
            g[i, PLACEMENT_SWITCH] = (slip[0] * ref[0] + slip[1] * ref[1] + slip[2] * ref[2]
                                      + SLIP_FLOOR)


@njit(inline="always")
def held_points(i, elements, mode):
    """How many points in contact the patch whose first point is element i holds: 0 where i
    is no patch's first point, or its patch slips, or none of its points touches (read from
    the mode alone; the points' records, :func:`patch_motion`, are the loads')."""
    E = elements[i]
    if E.patch != i or mode[i].sides[PLACEMENT_SWITCH] > 0.0:
        return 0
    count = 0
    for j in range(i, i + E.patch_size):
        count += 1 if in_contact(mode, j) else 0
    return count


#: a sticking patch's mode ``reference[0]`` while it pivots: its slip held, its spin free
#: (where no slip can start, but holding its spin takes a force past the cone:
#: :meth:`mbd.run.patches.Patches._breaks`); no component of a slip's unit direction
PIVOTS = 2.0


@njit(inline="always")
def _rows_of(i, count, mode):
    """Held patch i's rows: two tangents, and its spin where two or more points touch and
    it does not pivot."""
    return 2 if count == 1 or mode[i].reference[0] == PIVOTS else 3


@njit()
def any_stuck(elements, mode):
    """Whether any exact patch sticks with a point in contact."""
    for i in range(elements.shape[0]):
        if held_points(i, elements, mode) > 0:
            return True
    return False


@njit()
def _tangents(n, t1, t2):
    """t1, t2: unit vectors completing the unit n to a right-handed frame."""
    if abs(n[0]) < 0.9:
        a0, a1, a2 = 0.0, n[2], -n[1]          # (1, 0, 0) x n
    else:
        a0, a1, a2 = -n[2], 0.0, n[0]          # (0, 1, 0) x n
    norm = np.sqrt(a0 * a0 + a1 * a1 + a2 * a2)
    t1[0], t1[1], t1[2] = a0 / norm, a1 / norm, a2 / norm
    t2[0] = n[1] * t1[2] - n[2] * t1[1]
    t2[1] = n[2] * t1[0] - n[0] * t1[2]
    t2[2] = n[0] * t1[1] - n[1] * t1[0]


@njit(inline="always")
def hold_power(i, elements, estate, mode):
    """The power of the hold of the sticking patch whose first point is element i (W; 0 for
    any other point): lam . J v, its force on b times the patch's mean slip plus its moment
    about the normal times the spin (the rows' rates, held at zero but for their drift). Its
    points' shares of the hold (``friction``, :func:`_share`) are for the records: their
    dot products with each point's own slip are not the hold's work, for the points' slips
    differ by the bodies' tilting (a moment of a foot's spin hold spread over levers of
    millimetres, times the tilt's rate across them, booked kilowatts where the hold did
    none)."""
    if held_points(i, elements, mode) == 0:
        return 0.0
    X = estate[i]
    lock, slip, nrm = X.lock, X.slip, X.patch_normal
    spin = (nrm[0] * (X.w_b[0] - X.w_a[0]) + nrm[1] * (X.w_b[1] - X.w_a[1])
            + nrm[2] * (X.w_b[2] - X.w_a[2]))
    return lock[0] * slip[0] + lock[1] * slip[1] + lock[2] * slip[2] + lock[3] * spin


@njit()
def patch_rows(data, nv):
    """The rows of the sticking patches (on the kinematics of ``link_velocities`` and the
    points' records): (J (rows, nv), bias (rows,), axes (rows, 3)), each patch's slip along
    two tangents and, with two or more points in contact, its spin about the normal, J' v
    their velocity products (its point moving over the surfaces, below); none: 0 rows."""
    elements, estate, mode, links, tree = data.elements, data.estate, data.mode, data.links, \
        data.tree
    rows = 0
    for i in range(elements.shape[0]):
        count = held_points(i, elements, mode)
        rows += 0 if count == 0 else _rows_of(i, count, mode)
    if rows == 0:
        return np.zeros((0, nv)), np.zeros(0), np.zeros((0, 3))
    J = np.zeros((rows, nv))
    bias = np.zeros(rows)
    J6 = np.zeros((6, nv))
    wa, aa, wb, ab = np.zeros(3), np.zeros(3), np.zeros(3), np.zeros(3)
    t1, t2 = np.zeros(3), np.zeros(3)
    axes = np.zeros((rows, 3))           # each row's direction (world)
    kinematics_done = False
    r = 0
    for i in range(elements.shape[0]):
        count = held_points(i, elements, mode)
        if count == 0:
            continue
        E, X = elements[i], estate[i]
        if not kinematics_done:      # the velocity products' accelerations: the links' avp
            kinematics.velocity_products(tree, links)
            kinematics_done = True
        p, nrm = X.patch_point, X.patch_normal
        J6[:, :] = 0.0
        loopkernels.jacobian_add(tree, links, data.scratch, E.link_b, p, 1.0, J6, 0)
        loopkernels.jacobian_add(tree, links, data.scratch, E.link_a, p, -1.0, J6, 0)
        loopkernels.point_acceleration(links, E.link_a, p, wa, aa)
        loopkernels.point_acceleration(links, E.link_b, p, wb, ab)
        _tangents(nrm, t1, t2)
        # the centre moves over the surfaces, at the mean of the two bodies' velocities there
        # (their witnesses' midpoint): d/dt v_b(p(t)) = a_b(p) + w_b x (pdot - v_b(p)), and
        # so the slip's rate takes (w_a + w_b) x (v_a(p) - v_b(p)) / 2 besides the points'
        # accelerations (along the normal while it sticks: the penetration's rate)
        u0 = u1 = u2 = 0.0
        for j in range(i, i + E.patch_size):
            if in_contact(mode, j):
                Y = estate[j]
                u0 += (Y.vel_a[0] - Y.vel_b[0]) / count
                u1 += (Y.vel_a[1] - Y.vel_b[1]) / count
                u2 += (Y.vel_a[2] - Y.vel_b[2]) / count
        s0, s1, s2 = 0.5 * (X.w_a[0] + X.w_b[0]), 0.5 * (X.w_a[1] + X.w_b[1]), \
            0.5 * (X.w_a[2] + X.w_b[2])
        turn0, turn1, turn2 = s1 * u2 - s2 * u1, s2 * u0 - s0 * u2, s0 * u1 - s1 * u0
        for k in range(_rows_of(i, count, mode)):
            for a in range(3):
                axes[r + k, a] = t1[a] if k == 0 else (t2[a] if k == 1 else nrm[a])
            base = 3 if k < 2 else 0         # linear rows (slip), angular row (spin)
            for j in range(nv):
                J[r + k, j] = (axes[r + k, 0] * J6[base, j] + axes[r + k, 1] * J6[base + 1, j]
                               + axes[r + k, 2] * J6[base + 2, j])
            if k < 2:
                bias[r + k] = (axes[r + k, 0] * (ab[0] - aa[0] + turn0)
                               + axes[r + k, 1] * (ab[1] - aa[1] + turn1)
                               + axes[r + k, 2] * (ab[2] - aa[2] + turn2))
            else:
                bias[r + k] = (nrm[0] * (wb[0] - wa[0]) + nrm[1] * (wb[1] - wa[1])
                               + nrm[2] * (wb[2] - wa[2]))
        r += _rows_of(i, count, mode)
    return J, bias, axes


#: the relative size below which the singular values of a projection's rows count as zero
PROJECTION_RCOND = 1e-10


@njit()
def _mobility(data, J, nv):
    """(H^-1 J^T (nv, rows), J H^-1 J^T (rows, rows)) of the rows J, H the tree's mass matrix
    (CRBA) on the kinematics of ``link_velocities``: how the rows move under forces along
    them."""
    H = np.zeros((nv, nv))
    jointspace.crba(data.tree, data.links, data.scratch, H)
    HJ = np.linalg.solve(H, J.T.copy())
    return HJ, J @ HJ


@njit(inline="always")
def _add_along(x, HJ, lam):
    """x += H^-1 J^T lam: the rows' forces lam (or impulses) as accelerations (velocities)."""
    for j in range(x.shape[0]):
        for k in range(lam.shape[0]):
            x[j] += HJ[j, k] * lam[k]


@njit()
def hold_patches(v, data, acc, g):
    """The sticking patches held (the loads and the tree's accelerations ``acc`` (nv) done
    on the kinematics of ``link_velocities``): rows J (each patch's slip along two tangents
    and, with two or more points in contact, its spin about the normal) whose accelerations
    J acc + J' v must vanish; the holding forces lam = -(J H^-1 J^T)^-1 (J acc + J' v + J v /
    HOLD_TIME) added,
    acc += H^-1 J^T lam. Each patch's first point records its force and moment (``lock``),
    each of its points in contact its share of them (the least-squares one) as its
    ``friction`` (and in ``vector``); where ``g`` has rows, g[first point,
    PLACEMENT_SWITCH] = |f_t| - mu_s sum(f_n) (the breakaway). The rows' rates are held at
    zero against drift (:data:`HOLD_TIME`). Allocates its small work arrays."""
    elements, estate, mode = data.elements, data.estate, data.mode
    nv = acc.shape[0]
    J, bias, axes = patch_rows(data, nv)
    rows = J.shape[0]
    if rows == 0:
        return
    HJ, W = _mobility(data, J, nv)
    # J v: the rows' rates, zero but for the drift of terms left out of J' v (the point
    # moving over the surfaces at the penetration's rate): brought back to zero in HOLD_TIME
    rhs = -(J @ acc + bias) - (J @ v) / HOLD_TIME
    lam = np.linalg.solve(W, rhs)
    _add_along(acc, HJ, lam)
    r = 0
    for i in range(elements.shape[0]):
        count = held_points(i, elements, mode)
        if count == 0:
            continue
        E, X = elements[i], estate[i]
        lock = X.lock
        for a in range(3):
            lock[a] = lam[r] * axes[r, a] + lam[r + 1] * axes[r + 1, a]
        lock[3] = lam[r + 2] if _rows_of(i, count, mode) == 3 else 0.0
        _share(i, elements, estate, mode, count)
        if g.shape[0] > 0:
            normal = 0.0
            for j in range(i, i + E.patch_size):
                if in_contact(mode, j) and estate[j].value > 0.0:
                    normal += estate[j].value
            g[i, PLACEMENT_SWITCH] = (np.sqrt(lock[0] * lock[0] + lock[1] * lock[1]
                                              + lock[2] * lock[2])
                                      - E.friction[0] * (1.0 + CONE_EDGE) * normal)
        r += _rows_of(i, count, mode)


@njit()
def _share(i, elements, estate, mode, count):
    """Patch i's holding force and moment shared over its points in contact, the least-norm
    way (each the force over the count, plus the moment's part across its lever):
    f_j = F / N + M (n x r_j) / sum |r_j|^2, r_j its point from the centre in the tangent
    plane; into each point's ``friction`` and ``vector``."""
    X = estate[i]
    c, nrm, lock = X.patch_point, X.patch_normal, X.lock
    levers = 0.0
    for j in range(i, i + elements[i].patch_size):
        if in_contact(mode, j):
            P = estate[j].point_b
            r0, r1, r2 = P[0] - c[0], P[1] - c[1], P[2] - c[2]
            along = r0 * nrm[0] + r1 * nrm[1] + r2 * nrm[2]
            r0, r1, r2 = r0 - along * nrm[0], r1 - along * nrm[1], r2 - along * nrm[2]
            levers += r0 * r0 + r1 * r1 + r2 * r2
    for j in range(i, i + elements[i].patch_size):
        Y = estate[j]
        f = Y.friction
        if not in_contact(mode, j):
            continue
        P = Y.point_b
        r0, r1, r2 = P[0] - c[0], P[1] - c[1], P[2] - c[2]
        along = r0 * nrm[0] + r1 * nrm[1] + r2 * nrm[2]
        r0, r1, r2 = r0 - along * nrm[0], r1 - along * nrm[1], r2 - along * nrm[2]
        turn = lock[3] / levers if levers > 0.0 else 0.0
        f[0] = lock[0] / count + turn * (nrm[1] * r2 - nrm[2] * r1)
        f[1] = lock[1] / count + turn * (nrm[2] * r0 - nrm[0] * r2)
        f[2] = lock[2] / count + turn * (nrm[0] * r1 - nrm[1] * r0)
        for a in range(3):
            Y.vector[a] += f[a]


@njit()
def project_patches(v, data):
    """v (nv) moved onto the sticking patches' rows, J v = 0, by the least change in
    kinetic energy (v - H^-1 J^T (J H^-1 J^T)^+ J v: a plastic impact along the rows, which
    never adds energy), on the kinematics of ``link_velocities`` and the points' records: a
    patch sticks with its slip exactly zero, not the residual the hold's drift correction
    leaves (and a slip from a break starts from zero). The points' normal rates move with
    it as the bodies' motion makes them (kept as they were, the rows and the points' normal
    rates over-determine the motion on a foot of many points, whose least-squares answer
    can add energy)."""
    J = patch_rows(data, v.shape[0])[0]
    if J.shape[0] == 0:
        return
    HJ, W = _mobility(data, J, v.shape[0])
    # (rows of different patches on one body may depend on each other: their pseudo-inverse,
    # singular values below PROJECTION_RCOND of the largest taken as zero)
    _add_along(v, HJ, np.linalg.lstsq(W, -(J @ v), PROJECTION_RCOND)[0])
