"""Points of the links: where a point fixed on a link is and how it moves, and the loads a world
force or torque puts on a link (what the force placements and the contacts share).

A link index below 0 is a ground: its points are given in world coordinates and never move.
Every function reads the kinematics :func:`mbd.compiled.kinematics.link_velocities` left in
the ``LINK_STATE`` records.
"""
from .jit.jitcache import njit


@njit()
def point(links, link, pl, p_out, v_out, w_out):
    """World position, velocity of a point fixed on ``link`` (local ``pl``) and the link's
    world angular velocity; a ground (link < 0) holds ``pl`` in world coordinates."""
    if link < 0:
        for a in range(3):
            p_out[a] = pl[a]
            v_out[a] = 0.0
            w_out[a] = 0.0
        return
    S = links[link]
    E0, p0, w, vo = S.E0, S.p0, S.vel[:3], S.vel[3:]
    c0 = w[1] * pl[2] - w[2] * pl[1] + vo[0]
    c1 = w[2] * pl[0] - w[0] * pl[2] + vo[1]
    c2 = w[0] * pl[1] - w[1] * pl[0] + vo[2]
    for a in range(3):     # world = E0^T local
        p_out[a] = p0[a] + E0[0, a] * pl[0] + E0[1, a] * pl[1] + E0[2, a] * pl[2]
        v_out[a] = E0[0, a] * c0 + E0[1, a] * c1 + E0[2, a] * c2
        w_out[a] = E0[0, a] * w[0] + E0[1, a] * w[1] + E0[2, a] * w[2]


@njit()
def to_world(links, link, local, out):
    """out = R_link local (identity for a ground)."""
    for a in range(3):
        if link < 0:
            out[a] = local[a]
        else:
            E0 = links[link].E0
            out[a] = E0[0, a] * local[0] + E0[1, a] * local[1] + E0[2, a] * local[2]


@njit()
def world_axes(links, link, R):
    """R = the link's axes as columns in world coordinates (E0^T; identity for a ground)."""
    for a in range(3):
        for b in range(3):
            R[a, b] = (1.0 if a == b else 0.0) if link < 0 else links[link].E0[b, a]


@njit()
def add_force(links, link, F, point):
    """fext[link] += the world force F acting at the world point, in link coordinates."""
    if link < 0:
        return
    S = links[link]
    r0, r1, r2 = point[0] - S.p0[0], point[1] - S.p0[1], point[2] - S.p0[2]
    m0 = r1 * F[2] - r2 * F[1]
    m1 = r2 * F[0] - r0 * F[2]
    m2 = r0 * F[1] - r1 * F[0]
    E0 = S.E0
    for a in range(3):
        S.fext[a] += E0[a, 0] * m0 + E0[a, 1] * m1 + E0[a, 2] * m2
        S.fext[3 + a] += E0[a, 0] * F[0] + E0[a, 1] * F[1] + E0[a, 2] * F[2]


@njit()
def add_torque(links, link, T, sign):
    """fext[link] += sign * the world torque T, in link coordinates."""
    if link < 0:
        return
    S = links[link]
    for a in range(3):
        S.fext[a] += sign * (S.E0[a, 0] * T[0] + S.E0[a, 1] * T[1] + S.E0[a, 2] * T[2])


@njit(inline="always")
def cs_axes(links, link, frame, L, out):
    """out = a CS's axes (columns) in world: its link's axes (into L) times ``frame``, the
    CS's axes in the link frame (world for a ground)."""
    world_axes(links, link, L)
    for a in range(3):
        for b in range(3):
            out[a, b] = L[a, 0] * frame[0, b] + L[a, 1] * frame[1, b] + L[a, 2] * frame[2, b]


@njit()
def world_point(links, link, pl, out):
    """out = the world position of the point fixed on ``link`` at ``pl`` (link coordinates;
    world for a ground)."""
    if link < 0:
        for a in range(3):
            out[a] = pl[a]
        return
    S = links[link]
    E0, p0 = S.E0, S.p0
    for a in range(3):
        out[a] = p0[a] + E0[0, a] * pl[0] + E0[1, a] * pl[1] + E0[2, a] * pl[2]


@njit()
def material_velocity(links, link, p, v_out, w_out):
    """v_out = the world velocity of the material point of ``link`` now at the world point
    ``p``, w_out = the link's world angular velocity (both zero for a ground)."""
    if link < 0:
        for a in range(3):
            v_out[a] = 0.0
            w_out[a] = 0.0
        return
    S = links[link]
    E0, p0, w, vo = S.E0, S.p0, S.vel[:3], S.vel[3:]
    for a in range(3):     # world = E0^T local
        w_out[a] = E0[0, a] * w[0] + E0[1, a] * w[1] + E0[2, a] * w[2]
        v_out[a] = E0[0, a] * vo[0] + E0[1, a] * vo[1] + E0[2, a] * vo[2]
    r0, r1, r2 = p[0] - p0[0], p[1] - p0[1], p[2] - p0[2]
    v_out[0] += w_out[1] * r2 - w_out[2] * r1
    v_out[1] += w_out[2] * r0 - w_out[0] * r2
    v_out[2] += w_out[0] * r1 - w_out[1] * r0
