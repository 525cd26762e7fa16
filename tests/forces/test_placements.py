"""Force-element placements (forces/placements.py, mbd/forcekernels.py) against mechanics
written out here.

* BodySpringDamper: the recorded world force on B equals F = -k(|r| - r0)u - b(v.u)u
  computed by hand from the joint coordinates at random states, and the right-hand side
  equals Newton-Euler for two free bodies loaded by F at B's CS and -F at A's CS;
* the singular cases of SPEC §3.1: driven through the anchor (velocity direction, no error),
  at rest on it with r0 != 0 (SimulationError naming element and time, partial result kept,
  both at t0 and after motion), settled on it with r0 = 0 (no force, no error);
* a conservative spring-mass on a SixDof joint, gravity on, conserves energy;
* LineForce, AxialForce, RotationalForce between two free bodies conserve total linear and
  angular momentum (Newton's third law, collinear forces) and, with a Spring, total energy
  (their loads are power-consistent with x and xdot);
* AxialForce's x and xdot against (pB - pA).a_w and its finite-difference rate while A
  rotates; RotationalForce's x against q_B - q_A of two revolutes about the same axis and the
  closed-form two-inertia oscillation; default axes follow the CS orientations; a ground at
  either end; the half-turn swing where the twist is undefined;
* JointForce: the same law gives the same motion on a prismatic and on a revolute of matching
  inertia, and on a joint written ground -> body or body -> ground; it acts on the primitive
  it names (Cylindrical closed form, Universal against ABA/CRBA with tau);
* force elements between machines make one composite machine that simulates;
* build-time errors and bad BodySpringDamper parameters name the element.

Tolerances are stated next to each check: kinematics and single right-hand-side evaluations
are exact up to round-off (1e-11 to 1e-14 relative); integrated quantities are held to about
100 times what the integration tolerances used (rtol = 1e-11 or tighter) leave; finite
differences to a few times their measured truncation error.
"""
import dataclasses
import warnings

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import mbd
from forces import (
    Actuator,
    AxialForce,
    Bistop,
    BodySpringDamper,
    ElastoBacklash,
    ElastoGap,
    JointForce,
    LineForce,
    RotationalForce,
    Spring,
    SpringDamper,
)
from joints import Cylindrical, Prismatic, Revolute, SixDof, Spherical, Universal
from mbd.compiled import dynamics, registry
from mbd.run.evaluator import Evaluator


def derivative(system, t, y):
    """dy/dt at (t, y) with every switching function on its + side (the run stage's state
    function on fresh data)."""
    dy, status = Evaluator(system).derivative(t, y)
    assert status == 0
    return dy

ZERO_G = mbd.Environment(gravity=(0.0, 0.0, 0.0))
G = np.array([0.0, 0.0, -9.81])
EARTH = mbd.Environment(gravity=tuple(G))
TIGHT = dict(rtol=1e-11, atol=1e-12)


# --------------------------------------------------------------------------- hand kinematics

def random_inertia(rng, scale=1.0):
    """A physical inertia tensor (world axes): principal moments obeying the triangle
    inequality, rotated at random."""
    m = rng.uniform(0.5, 1.0, 3) * scale
    R = Rotation.random(random_state=rng).as_matrix()
    return R @ np.diag(m) @ R.T


def add_free_body(model, name, rng, env, cs_offsets, cg=None, tilt=None, spin=1.5):
    """A random body on a SixDof joint from a ground at its CG (world-parallel axes), with CSs
    at ``cs_offsets`` from the CG (each an offset or (offset, orientation)). Its initial
    rotation is random (or a random rotation vector of size ~ ``tilt`` rad), its angular
    velocity ~ ``spin`` rad/s. Returns (body, joint, ground)."""
    cg = rng.uniform(-1, 1, 3) if cg is None else np.asarray(cg, dtype=float)
    cs = {}
    for k, o in enumerate(cs_offsets):
        oriented = isinstance(o, tuple) and len(o) == 2 and not np.isscalar(o[1])
        cs[f"c{k}"] = (cg + np.asarray(o[0]), o[1]) if oriented else cg + np.asarray(o)
    body = model.add_body(name, mass=rng.uniform(0.5, 2.0), cg=cg,
                          inertia=random_inertia(rng, 0.3), cs=cs)
    ground = model.add_ground(f"g_{name}", at=cg, environment=env)
    rot = (Rotation.random(random_state=rng) if tilt is None
           else Rotation.from_rotvec(rng.normal(0, tilt, 3)))
    q0 = [*rng.uniform(-0.5, 0.5, 3), rot]
    v0 = [*rng.normal(0, 1, 3), tuple(rng.normal(0, spin, 3))]
    joint = model.add(SixDof(f"free_{name}", ground, body["cg"], q0=q0, v0=v0))
    return body, joint, ground


class Pose:
    """The motion of a body on a SixDof joint from a world-parallel ground at its CG, from the
    joint coordinates only: q = (x, y, z, w, qx, qy, qz), v = (v_cg world, w body axes)."""

    def __init__(self, system, body, joint, q, v):
        jm = system.joints[joint.name]
        qj, vj = q[..., jm.q_index], v[..., jm.v_index]
        self.body = body
        self.cg = body.cg + qj[..., :3]
        quat = qj[..., 3:7] / np.linalg.norm(qj[..., 3:7], axis=-1, keepdims=True)
        self.R = Rotation.from_quat(np.roll(quat, -1, axis=-1)).as_matrix()
        self.v_cg = vj[..., :3]
        self.w_body = vj[..., 3:6]
        self.w = np.einsum("...ij,...j->...i", self.R, self.w_body)

    def point(self, cs):
        """World position and velocity of a CS origin of the body."""
        arm = np.einsum("...ij,j->...i", self.R, cs.position - self.body.cg)
        return self.cg + arm, self.v_cg + np.cross(self.w, arm)

    def momentum(self):
        """Linear momentum and angular momentum about the world origin."""
        m = self.body.mass
        I_w = self.R @ self.body.inertia @ np.swapaxes(self.R, -1, -2)
        p = m * self.v_cg
        return p, np.cross(self.cg, p) + np.einsum("...ij,...j->...i", I_w, self.w)

    def kinetic_energy(self):
        m = self.body.mass
        return (0.5 * m * np.sum(self.v_cg ** 2, axis=-1)
                + 0.5 * np.einsum("...i,ij,...j->...", self.w_body, self.body.inertia,
                                  self.w_body))


def twist(R, a):
    """The angle (rad) of the twist about unit ``a`` in the swing-twist split of rotation R,
    from scipy's quaternion taken with q_w >= 0: 2 atan2(q_vec . a, q_w), in (-pi, pi]."""
    quat = Rotation.from_matrix(R).as_quat()
    quat = np.where(quat[..., 3:] < 0.0, -quat, quat)
    x, y, z, w = np.moveaxis(quat, -1, 0)
    return 2.0 * np.arctan2(x * a[0] + y * a[1] + z * a[2], w)


def bsd_force(pA, vA, pB, vB, k, b, r0):
    """SPEC §3.1 written out: the force on B (rows)."""
    r, v = pB - pA, vB - vA
    n = np.linalg.norm(r, axis=-1, keepdims=True)
    u = r / n
    return -k * (n - r0) * u - b * np.sum(v * u, axis=-1, keepdims=True) * u


def close(a, b, rel=1e-12, scale=None):
    """|a - b| <= rel * scale elementwise, scale defaulting to the largest magnitude seen."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    scale = max(np.abs(a).max(), np.abs(b).max(), 1e-300) if scale is None else scale
    return np.abs(a - b).max() <= rel * scale


# --------------------------------------------------------------------------- BodySpringDamper

def two_bodies_with_bsd(seed, env=EARTH):
    rng = np.random.default_rng(seed)
    m = mbd.Model(f"bsd{seed}")
    offsets = [rng.uniform(-0.4, 0.4, 3) for _ in range(2)]
    A, jA, _ = add_free_body(m, "A", rng, env, offsets, cg=(-1.0, 0.2, 0.1))
    B, jB, _ = add_free_body(m, "B", rng, None, offsets, cg=(1.0, -0.1, 0.3))
    anchor = m.add_ground("anchor", at=rng.uniform(-1, 1, 3))
    k, b, r0 = rng.uniform(20, 80), rng.uniform(0.5, 3), rng.uniform(0.2, 1.0)
    elements = {  # name: (body or None for the anchor, CS A, body, CS B)
        "AB": (A, A["c0"], B, B["c1"]),
        "gB": (None, anchor, B, B["c0"]),
        "Ag": (A, A["c1"], None, anchor),
    }
    for name, (_, csa, _, csb) in elements.items():
        m.add(BodySpringDamper(name, csa, csb, k=k, b=b, r0=r0))
    return m.build(), (A, jA, B, jB), elements, (k, b, r0)


def _end_point(system, ends, body, cs, q, v):
    A, jA, B, jB = ends
    if body is None:
        return np.broadcast_to(cs.position, q.shape[:-1] + (3,)), np.zeros(q.shape[:-1] + (3,))
    return Pose(system, body, jA if body is A else jB, q, v).point(cs)


@pytest.mark.parametrize("seed", range(4))
def test_body_spring_damper_force_is_the_hand_formula(seed):
    """At random states (and the rows after a short run) the recorded force on B is
    -k(|r| - r0)u - b(v.u)u from positions and velocities computed here from q and v."""
    system, ends, elements, (k, b, r0) = two_bodies_with_bsd(seed)
    r = system.simulate(0.02, output_step=0.01, **TIGHT)
    assert len(r.t) == 3
    for name, (ba, csa, bb, csb) in elements.items():
        pA, vA = _end_point(system, ends, ba, csa, r.q, r.v)
        pB, vB = _end_point(system, ends, bb, csb, r.q, r.v)
        expected = bsd_force(pA, vA, pB, vB, k, b, r0)
        view = r.force(name)
        assert view.value.shape == (3, 3)
        assert close(view.value, expected, 1e-12), name
        assert close(view.x, np.linalg.norm(pB - pA, axis=1), 1e-12), name
        # the views of the result agree with the kinematics written here
        if bb is not None:
            assert close(r.body(bb.name).position(csb), pB, 1e-12)
            assert close(r.body(bb.name).velocity(csb), vB, 1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_body_spring_damper_loads_enter_newton_euler(seed):
    """dy/dt of two free bodies equals Newton-Euler with F at B's CS, -F at A's CS, gravity."""
    system, ends, elements, (k, b, r0) = two_bodies_with_bsd(seed)
    A, jA, B, jB = ends
    s = system.initial_state()
    y = np.concatenate([s.q, s.v])
    dy = derivative(system, 0.0, y)
    dv = dy[system.nq:]
    # every load (point, force) on each body
    loads = {"A": [], "B": []}
    for ba, csa, bb, csb in elements.values():
        pA, vA = _end_point(system, ends, ba, csa, s.q, s.v)
        pB, vB = _end_point(system, ends, bb, csb, s.q, s.v)
        F = bsd_force(pA, vA, pB, vB, k, b, r0)
        if bb is not None:
            loads[bb.name].append((pB, F))
        if ba is not None:
            loads[ba.name].append((pA, -F))
    for body, joint in ((A, jA), (B, jB)):
        pose = Pose(system, body, joint, s.q, s.v)
        F = sum(f for _, f in loads[body.name])
        M = sum(np.cross(p - pose.cg, f) for p, f in loads[body.name])
        a_cg = F / body.mass + G
        I, w = body.inertia, pose.w_body   # CG CS is world-parallel in the drawing
        w_dot = np.linalg.solve(I, pose.R.T @ M - np.cross(w, I @ w))
        jm = system.joints[joint.name]
        assert close(dv[jm.v_index[:3]], a_cg, 1e-11)
        assert close(dv[jm.v_index[3:]], w_dot, 1e-11)


def prismatic_through_anchor(q0, v0, k, b, r0, far=None, axis=(0.6, 0.8, 0.0)):
    """A 1 kg body on a prismatic joint along ``axis``; a BodySpringDamper from a ground at the
    joint's origin to the body's CS there: r = q axis. ``far``: a point of the body's (a CS)
    that makes the drawing, and so the model's length scale, that big."""
    m = mbd.Model("through")
    g = m.add_ground("g", at=(0.3, -0.2, 0.5), environment=ZERO_G)
    frames = {"tip": (0.3, -0.2, 0.5)}
    if far is not None:
        frames["far"] = far
    body = m.add_body("slider", mass=1.0, cg=(0.3, -0.2, 0.9), inertia=[0.1, 0.1, 0.1],
                      cs=frames)
    m.add(Prismatic("p", g, body["tip"], axis=axis, q0=q0, v0=v0))
    m.add(BodySpringDamper("strap", g, body["tip"], k=k, b=b, r0=r0))
    return m.build()


def test_driven_through_the_anchor_uses_the_velocity_direction():
    """Starting exactly on the anchor with v != 0: no error, and the force there is
    -k(0 - r0)u - b|v|u with u = v/|v|."""
    k, b, r0, v0 = 40.0, 1.5, 0.3, -2.0
    axis = np.array([0.6, 0.8, 0.0])
    r = prismatic_through_anchor(0.0, v0, k, b, r0).simulate(0.5, output_step=0.05, **TIGHT)
    f = r.force("strap")
    u = np.sign(v0) * axis
    assert f.x[0] == 0.0 and f.xdot[0] == pytest.approx(abs(v0), rel=1e-14)
    assert close(f.value[0], -k * (0.0 - r0) * u - b * abs(v0) * u, 1e-14)
    # it left the anchor the way it was going and the force followed r/|r| from then on
    q = r.joint("p").q
    assert np.all(np.sign(q[1:]) == np.sign(v0))
    qd = r.joint("p").v
    expected = bsd_force(np.zeros(3), np.zeros(3), q[1:, None] * axis, qd[1:, None] * axis,
                         k, b, r0)
    assert close(f.value[1:], expected, 1e-12)


def test_passes_through_the_anchor_conserving_energy():
    """Launched across the anchor (r0 != 0, no damping): the force flips direction there (a
    jump of 2 k r0), the body goes through and the energy 1/2 m v^2 + 1/2 k (|r| - r0)^2
    is conserved across the crossing (its potential is continuous)."""
    k, r0 = 40.0, 0.3
    r = prismatic_through_anchor(-0.5, 4.0, k, 0.0, r0).simulate(0.4, output_step=0.01,
                                                                  **TIGHT)
    q, v = r.joint("p").q, r.joint("p").v
    assert q[0] < 0 < q[-1]            # crossed
    E = 0.5 * v ** 2 + 0.5 * k * (np.abs(q) - r0) ** 2
    assert close(E, E[0], 1e-9, scale=E[0])
    assert close(r.energy(), E, 1e-12)  # the element's potential is the one written here


def test_at_rest_on_the_anchor_at_t0_stops_with_the_element_and_time():
    """|r| = 0, v = 0, r0 != 0 at t0: SimulationError naming the element and the time; the
    result holds the initial row."""
    system = prismatic_through_anchor(0.0, 0.0, 40.0, 1.0, 0.3)
    with pytest.raises(mbd.SimulationError) as info:
        system.simulate(1.0, t0=0.25, output_step=0.1)
    err = info.value
    assert "'strap'" in str(err) and "t = 0.25 s" in str(err)
    assert err.t == 0.25
    assert err.result is not None and np.array_equal(err.result.t, [0.25])
    assert err.result.joint("p").q[0] == 0.0 and err.result.joint("p").v[0] == 0.0


def test_arriving_at_rest_on_the_anchor_stops_with_the_partial_result():
    """A body launched at the anchor with exactly the speed to stop on it.

    On the side x < 0 where it starts, the spring (r0 != 0, no damping) pushes it back with
    x'' = -(k/m)(x + r0), so x(t) = -r0 + r0 cos(w (t - t*)) comes to rest at x = 0 at t*.
    Where |r| is within the singular tolerance eps (1e-12 times the model's size) but v is
    not, the velocity direction applies and pushes the body on through; it enters that band
    at a speed of about sqrt(2 a eps) for a deceleration a = k r0 / m, so it can be at rest in
    it only if a < eps / 2. Under any ordinary force and the 1e-12 m tolerance of a metre-sized
    drawing the singular state is therefore never reached after motion: it takes a weak spring
    (a = 1e-4 m/s^2) and a CS far out on the body that makes the drawing 1e9 m and eps 1e-3 m.
    The run must stop at the first evaluation inside the band, i.e. within max_step after
    x(t) = -eps.
    """
    k, r0, d, max_step = 1e-3, 0.1, 0.01, 0.05
    w = np.sqrt(k)
    t_star = np.arccos(1.0 - d / r0) / w
    v0 = r0 * w * np.sin(w * t_star)
    system = prismatic_through_anchor(-d, v0, k, 0.0, r0, far=(1e9, 0.0, 0.0))
    points = [g.position for g in system.grounds.values()]
    body = system.bodies["slider"].body
    points += [body.cg] + [cs.position for cs in body.frames.values()]
    eps = 1e-12 * np.linalg.norm(np.ptp(points, axis=0))
    t_band = t_star - np.arccos(1.0 - eps / r0) / w       # x(t_band) = -eps
    assert r0 * w * np.sin(w * (t_star - t_band)) < eps   # at rest there, as far as eps tells
    with pytest.raises(mbd.SimulationError) as info:
        system.simulate(20.0, output_step=0.5, max_step=max_step, **TIGHT)
    err = info.value
    assert t_band <= err.t <= t_band + max_step
    assert "'strap'" in str(err) and f"t = {err.t:.9g} s" in str(err)
    res = err.result
    # every output row before the failure, and nothing after it
    assert np.array_equal(res.t, 0.5 * np.arange(np.floor(err.t / 0.5) + 1))
    x = -r0 + r0 * np.cos(w * (res.t - t_star))
    assert close(res.joint("p").q, x, 1e-8, scale=d)


def test_r0_zero_settles_on_the_anchor_without_error():
    """r0 = 0, critically damped: the body settles on the anchor (|r|, |v| below the singular
    tolerance) where the force is zero (SPEC §3.1), not an undefined direction; x(t) =
    (x0 + (x0 w) t) e^{-w t}. (Before the fix in forcekernels.measure this stopped with a
    SimulationError: the law read the round-off |r| and returned a nonzero force.)"""
    k, m = 100.0, 1.0
    w = np.sqrt(k / m)
    r = prismatic_through_anchor(1.0, 0.0, k, 2.0 * w * m, 0.0).simulate(
        6.0, output_step=0.5, rtol=1e-10, atol=1e-14)
    q = r.joint("p").q
    assert close(q, (1.0 + w * r.t) * np.exp(-w * r.t), 1e-8, scale=1.0)
    f = r.force("strap")
    late = r.t >= 3.0
    # the singular branch was visited (|r| within tolerance reads x = 0 exactly) ...
    assert np.any(f.x[late] == 0.0)
    # ... and the force stays at round-off level there
    assert np.abs(f.value[late]).max() <= (k + 2.0 * w * m) * 1e-11


def test_bsd_spring_mass_on_sixdof_conserves_energy():
    """A body hung from a ground by an undamped BodySpringDamper with r0 != 0 attached away
    from its CG (so rotation and translation couple), gravity on: kinetic + gravity + spring
    energy is constant to 1e-8 of the energy exchanged."""
    rng = np.random.default_rng(7)
    m = mbd.Model("hung")
    body, joint, _ = add_free_body(m, "bob", rng, EARTH, [(0.15, -0.1, 0.25)], cg=(0, 0, -1))
    anchor = m.add_ground("anchor", at=(0.2, 0.1, 0.3))
    m.add(BodySpringDamper("spring", anchor, body["c0"], k=60.0, b=0.0, r0=0.6))
    r = m.build().simulate(3.0, output_step=0.01, rtol=1e-12, atol=1e-13)
    T, V = r.kinetic_energy(), r.potential_energy()
    scale = np.ptp(T) + np.ptp(V)
    assert np.ptp(T) > 1.0 and np.ptp(r.body("bob").angular_velocity, axis=0).max() > 1.0
    assert np.abs(r.energy() - r.energy()[0]).max() <= 1e-8 * scale


# --------------------------------------------------------------------------- third law, energy

def _coupled_pair(placement, seed):
    """Two free bodies on SixDof joints, no gravity, coupled only by one element with a
    Spring: LineForce, AxialForce (default axis: CS A's x, CS A turned) or RotationalForce
    (default axis: CS A's z). Returns (system, poses(q, v) -> (PA, PB), hand_x(PA, PB), law)."""
    rng = np.random.default_rng(seed)
    m = mbd.Model(f"{placement}{seed}")
    turn = Rotation.random(random_state=rng)
    small = placement == "rotational"   # keep the twist away from +-pi, where it wraps
    A, jA, _ = add_free_body(m, "A", rng, ZERO_G, [(rng.uniform(-0.4, 0.4, 3), turn)],
                             cg=(-0.6, 0.1, 0.0), tilt=0.3 if small else None,
                             spin=0.6 if small else 1.5)
    B, jB, _ = add_free_body(m, "B", rng, None,
                             [(rng.uniform(-0.4, 0.4, 3), Rotation.random(random_state=rng))],
                             cg=(0.7, -0.2, 0.2), tilt=0.3 if small else None,
                             spin=0.6 if small else 1.5)
    if placement == "line":
        law = Spring(c=25.0, x0=1.1)
        m.add(LineForce("el", A["c0"], B["c0"], law))
    elif placement == "axial":
        law = Spring(c=25.0, x0=0.4)
        m.add(AxialForce("el", A["c0"], B["c0"], law))
    else:
        law = Spring(c=3.0, x0=0.15)
        m.add(RotationalForce("el", A["c0"], B["c0"], law))
    system = m.build()

    def poses(q, v):
        return Pose(system, A, jA, q, v), Pose(system, B, jB, q, v)

    a_x, a_z = A["c0"].rotation[:, 0], A["c0"].rotation[:, 2]

    def hand_x(PA, PB):
        if placement == "line":
            return np.linalg.norm(PB.point(B["c0"])[0] - PA.point(A["c0"])[0], axis=-1)
        if placement == "axial":
            r = PB.point(B["c0"])[0] - PA.point(A["c0"])[0]
            return np.einsum("ni,ni->n", r, PA.R @ a_x)
        return twist(np.swapaxes(PA.R, -1, -2) @ PB.R, a_z)

    return system, poses, hand_x, law


@pytest.mark.parametrize("placement", ["line", "axial", "rotational"])
@pytest.mark.parametrize("seed", [0, 1])
def test_two_free_bodies_conserve_momentum_and_energy(placement, seed):
    """Coupled only by the element: total linear momentum and angular momentum about the
    origin are constant (equal, opposite and collinear loads), and kinetic energy plus the
    Spring's 1/2 c (x - x0)^2 with x computed here is constant (the loads do work F xdot).
    Tolerances (rtol 1e-11): momenta to 1e-9 of body A's, energy to 1e-10 of the total (the
    integrator's own error is ~1e-11 of it; the energy exchanged is >= 1e-3 of it)."""
    system, poses, hand_x, law = _coupled_pair(placement, seed)
    r = system.simulate(1.5, output_step=0.01, **TIGHT)
    PA, PB = poses(r.q, r.v)
    f = r.force("el")
    x = hand_x(PA, PB)
    assert close(f.x, x, 1e-11, scale=1.0)
    (pA, LA), (pB, LB) = PA.momentum(), PB.momentum()
    p, L = pA + pB, LA + LB
    # the element does act: it changes body A's angular momentum by 1e7 times the tolerance
    assert np.ptp(f.value) > 0.1 and np.abs(LA - LA[0]).max() > 0.02
    assert close(p, p[0], 1e-9, scale=np.abs(pA).max())
    assert close(L, L[0], 1e-9, scale=np.abs(LA).max())
    T = PA.kinetic_energy() + PB.kinetic_energy()
    E = T + 0.5 * law.c * (x - law.x0) ** 2
    assert np.ptp(T) > 1e-3 * E[0]
    assert close(E, E[0], 1e-10, scale=E[0])
    assert close(r.energy(), E, 1e-11, scale=E[0])


# --------------------------------------------------------------------------- axial, rotational

def fd_rate(x, h):
    """4th-order central difference of rows x spaced h apart (interior rows 2..n-3)."""
    return (x[:-4] - 8.0 * x[1:-3] + 8.0 * x[3:-1] - x[4:]) / (12.0 * h)


def test_axial_force_on_a_rotating_body_reads_x_and_xdot():
    """A spins on a revolute about z, B flies free: x = (pB - pA) . a_w with a_w the axis
    turned with A (default: CS A's x axis, CS A oriented in add_body; or an explicit axis),
    computed here from the joint coordinates; xdot equals the rate of the recorded x by
    4th-order central differences over rows h = 2.5 ms apart, held to 3e-8 of max |xdot|
    (the h^4 truncation error is ~7e-9 of it, falling 16x per halving of h; dense-output
    rounding ~1e-11 / h; leaving out the turning of the axis, r . (w_A x a), would be ~1)."""
    rng = np.random.default_rng(3)
    m = mbd.Model("axial")
    g = m.add_ground("g", environment=ZERO_G)
    turn = Rotation.from_euler("zyx", [0.4, 0.3, -0.2])
    A = m.add_body("A", mass=1.5, cg=(0.3, 0.1, 0.0), inertia=random_inertia(rng, 0.2),
                   cs={"pivot": (0, 0, 0), "a": ((0.5, -0.2, 0.1), turn)})
    m.add(Revolute("spin", g, A["pivot"], axis=(0, 0, 1), q0=0.3, v0=2.5))
    B, jB, _ = add_free_body(m, "B", rng, None, [(0.1, -0.2, 0.15)], cg=(1.2, 0.3, 0.2))
    explicit = np.array([1.0, 1.0, 0.5])
    m.add(AxialForce("default", A["a"], B["c0"], Spring(c=3.0, x0=0.5)))
    m.add(AxialForce("explicit", A["a"], B["c0"], SpringDamper(c=2.0, d=0.3, x0=0.0),
                     axis=explicit))
    post = m.add_ground("post", at=(0.8, -0.6, 0.4))      # B a ground: it reads A's motion
    m.add(AxialForce("to_post", A["a"], post, Spring(c=1.0, x0=0.3)))
    system = m.build()
    h = 2.5e-3
    r = system.simulate(0.6, output_step=h, **TIGHT)
    R_A = Rotation.from_rotvec(np.outer(r.joint("spin").q, [0, 0, 1])).as_matrix()
    pA = R_A @ A["a"].position
    pB, _ = Pose(system, B, jB, r.q, r.v).point(B["c0"])
    for name, a in (("default", turn.as_matrix()[:, 0]),
                    ("explicit", explicit / np.linalg.norm(explicit))):
        f = r.force(name)
        x = np.einsum("ni,ni->n", pB - pA, R_A @ a)
        assert np.ptp(x) > 0.5
        assert close(f.x, x, 1e-12, scale=1.0), name
        assert close(fd_rate(f.x, h), f.xdot[2:-2], 3e-8), name
        # the load on B is the law's value along the turned axis
        assert close(f.vector, f.value[:, None] * (R_A @ a), 1e-13), name
    f = r.force("to_post")
    a = turn.as_matrix()[:, 0]
    assert close(f.x, np.einsum("ni,ni->n", post.position - pA, R_A @ a), 1e-12, scale=1.0)
    assert close(fd_rate(f.x, h), f.xdot[2:-2], 3e-8)


def test_rotational_force_between_revolutes_is_the_angle_difference():
    """Two bodies on revolutes about the same axis a (through different points): the twist
    about a (default: CS A's z axis, CS A turned so that it is a) is q_B - q_A, its rate
    v_B - v_A, about -a the opposite, from a ground q_B wrapped into (-pi, pi]; CS B's
    orientation does not matter.
    With a Spring the
    relative angle follows the two-inertia oscillator theta'' = -c (1/I_A + 1/I_B)(theta - x0)
    in closed form (to 1e-9 rad)."""
    rng = np.random.default_rng(5)
    a = np.array([1.0, 1.0, 1.0]) / np.sqrt(3.0)
    m = mbd.Model("twist")
    g = m.add_ground("g", environment=ZERO_G)
    g2 = m.add_ground("g2", at=(0.5, -0.5, 0.0))
    z_to_a = Rotation.align_vectors([a], [[0.0, 0.0, 1.0]])[0]
    A = m.add_body("A", mass=1.2, cg=(0.2, -0.1, 0.3), inertia=random_inertia(rng, 0.2),
                   cs={"pivot": (0, 0, 0), "a": ((0.1, 0.2, 0.0), z_to_a)})
    B = m.add_body("B", mass=0.8, cg=(0.6, -0.3, 0.1), inertia=random_inertia(rng, 0.2),
                   cs={"pivot": (0.5, -0.5, 0.0),
                       "b": ((0.7, -0.4, 0.2), Rotation.random(random_state=rng))})
    m.add(Revolute("rA", g, A["pivot"], axis=a, q0=0.2, v0=0.5))
    m.add(Revolute("rB", g2, B["pivot"], axis=a, q0=-0.3, v0=1.7))
    c, x0 = 4.0, 0.2
    m.add(RotationalForce("tw", A["a"], B["b"], Spring(c=c, x0=x0)))
    m.add(RotationalForce("neg", A["a"], B["b"], Spring(c=0.0), axis=-a))
    m.add(RotationalForce("fixed", g2, B["b"], Spring(c=0.0), axis=a))   # A a ground
    r = m.build().simulate(3.0, output_step=0.01, **TIGHT)
    qA, qB = r.joint("rA").q, r.joint("rB").q
    vA, vB = r.joint("rA").v, r.joint("rB").v
    f = r.force("tw")
    assert np.abs(qB - qA).max() < 3.0    # no wrap at +-pi in this run
    assert close(f.x, qB - qA, 1e-12, scale=1.0)
    assert close(f.xdot, vB - vA, 1e-12, scale=1.0)
    assert close(r.force("neg").x, qA - qB, 1e-12, scale=1.0)
    # q_B goes past pi in this run: the twist is q_B wrapped into (-pi, pi]
    fixed = r.force("fixed")
    assert np.abs(qB).max() > np.pi and np.all(np.abs(fixed.x) <= np.pi)
    assert close(np.angle(np.exp(1j * (fixed.x - qB))), 0.0, 1e-12, scale=1.0)
    assert close(fixed.xdot, vB, 1e-12, scale=1.0)
    assert close(f.vector, f.value[:, None] * a, 1e-12, scale=1.0)

    def axial_inertia(body, pivot):
        d = body.cg - pivot
        return a @ body.inertia @ a + body.mass * (d @ d - (d @ a) ** 2)

    Om = np.sqrt(c * (1.0 / axial_inertia(A, A["pivot"].position)
                      + 1.0 / axial_inertia(B, B["pivot"].position)))
    th0, thd0 = -0.5, 1.2
    theta = x0 + (th0 - x0) * np.cos(Om * r.t) + thd0 / Om * np.sin(Om * r.t)
    assert np.ptp(theta) > 0.5
    assert close(qB - qA, theta, 1e-9, scale=1.0)


# --------------------------------------------------------------------------- joint placement

def one_dof(kind, law, q0, v0):
    """A prismatic body of mass 2 kg (along y) or a revolute body of 2 kg m^2 about z (its CG
    on the axis, mass 5 kg); gravity along -z moves neither."""
    m = mbd.Model(kind)
    g = m.add_ground("g", environment=EARTH)
    if kind == "prismatic":
        body = m.add_body("b", mass=2.0, cg=(0, 0, 0), inertia=[0.3, 0.4, 0.5])
        j = m.add(Prismatic("j", g, body["cg"], axis=(0, 1, 0), q0=q0, v0=v0))
    else:
        body = m.add_body("b", mass=5.0, cg=(0, 0, 0), inertia=[1.5, 1.5, 2.0])
        j = m.add(Revolute("j", g, body["cg"], axis=(0, 0, 1), q0=q0, v0=v0))
    m.add(JointForce("law", j, law))
    return m.build()


@pytest.mark.parametrize("make, q0, v0", [
    (lambda: ElastoGap(c=100.0, d=1.5, s_rel0=0.2, n=1.5), 0.5, -3.0),
    (lambda: Bistop(x1=-0.2, x2=0.3, k=500.0, e=1.5, cmax=5.0, d=0.05), 0.0, 2.0),
    (lambda: ElastoBacklash(c=200.0, d=2.0, b=0.4), 0.0, -3.0),
], ids=["ElastoGap", "Bistop", "ElastoBacklash"])
def test_joint_force_same_motion_on_prismatic_and_revolute(make, q0, v0):
    """The same law on a prismatic joint and on a revolute of matching inertia (2 kg vs
    2 kg m^2): the same q(t), v(t) to 1e-9 and the same switches, and they happen."""
    runs = [one_dof(kind, make(), q0, v0).simulate(2.0, output_step=0.01, **TIGHT)
            for kind in ("prismatic", "revolute")]
    P, R = runs
    assert len(P.events) >= 2
    assert [e.what for e in P.events] == [e.what for e in R.events]
    assert close([e.t for e in P.events], [e.t for e in R.events], 1e-9, scale=1.0)
    assert np.array_equal(P.t, R.t)
    assert close(P.joint("j").q, R.joint("j").q, 1e-9, scale=1.0)
    assert close(P.joint("j").v, R.joint("j").v, 1e-9, scale=abs(v0))
    assert close(P.force("law").value, R.force("law").value, 1e-8)


@pytest.mark.parametrize("kind", [Revolute, Prismatic])
def test_joint_force_on_a_reversed_joint(kind):
    """A joint written body -> ground (so build() reverses it in the tree) keeps its own
    coordinate, the follower (here the ground) relative to the base: the law acts on that
    coordinate, and q(t) equals that of the same joint written ground -> body (the kinetic
    energy 1/2 I qdot^2 is the same), events included."""
    runs = []
    for reverse in (False, True):
        m = mbd.Model("reversed")
        g = m.add_ground("g", environment=ZERO_G)
        b = m.add_body("b", mass=2.0, cg=(0.3, 0.2, 0.0), inertia=[0.5, 0.6, 0.7],
                       cs={"p": (0, 0, 0)})
        base, follower = (b["p"], g) if reverse else (g, b["p"])
        j = m.add(kind("j", base, follower, axis=(0, 0, 1), q0=0.5, v0=-1.0))
        m.add(JointForce("gap", j, ElastoGap(c=30.0, d=0.5, s_rel0=0.2)))
        system = m.build()
        assert system.joints["j"].reversed == reverse
        runs.append(system.simulate(2.0, output_step=0.05, **TIGHT))
    fwd, rev = runs
    assert len(fwd.events) >= 2 and [e.what for e in fwd.events] == [e.what for e in rev.events]
    assert close(fwd.joint("j").q, rev.joint("j").q, 1e-9, scale=1.0)
    assert close(fwd.force("gap").value, rev.force("gap").value, 1e-8)


@pytest.mark.parametrize("primitive", [0, 1])
def test_joint_force_on_a_cylindrical_primitive(primitive):
    """A cylindrical joint along z (P then R), CG on the axis, gravity -z: an Actuator on
    primitive 0 adds F/m to the slide's acceleration, on primitive 1 spins the body at T/I;
    the other coordinate does not feel it (closed forms, to 1e-10)."""
    m = mbd.Model("cyl")
    g = m.add_ground("g", environment=EARTH)
    body = m.add_body("b", mass=2.0, cg=(0, 0, 0), inertia=[0.3, 0.3, 0.4])
    j = m.add(Cylindrical("c", g, body["cg"], axis=(0, 0, 1)))
    load = 0.7
    m.add(JointForce("push", j, Actuator(load), primitive=primitive))
    r = m.build().simulate(1.0, output_step=0.1, **TIGHT)
    s, phi = r.joint("c").q[:, 0], r.joint("c").q[:, 1]
    t2 = 0.5 * r.t ** 2
    assert close(s, (-9.81 + (load / 2.0 if primitive == 0 else 0.0)) * t2, 1e-10, scale=1.0)
    assert close(phi, (load / 0.4 if primitive == 1 else 0.0) * t2, 1e-10, scale=1.0)


def test_joint_force_on_a_universal_primitive_is_a_generalized_force():
    """On primitive 1 of a universal joint (whose axis turns with primitive 0) the element's
    value enters as the generalized force on that coordinate only: the right-hand side equals
    ABA and CRBA with tau = (0, F), at a random state."""
    rng = np.random.default_rng(11)
    m = mbd.Model("u")
    g = m.add_ground("g", environment=EARTH)
    body = m.add_body("b", mass=1.3, cg=(0.1, 0.2, -0.6), inertia=random_inertia(rng, 0.1),
                      cs={"top": (0, 0, 0)})
    j = m.add(Universal("u", g, body["top"], axes=((1, 0, 0), (0, 1, 0)),
                        q0=[0.4, -0.7], v0=[1.1, -0.3]))
    law = SpringDamper(c=3.0, d=0.4, x0=0.2)
    m.add(JointForce("sd", j, law, primitive=1))
    system = m.build()
    s = system.initial_state()
    dy = derivative(system, 0.0, np.concatenate([s.q, s.v]))
    F = law(-0.7, -0.3)
    assert F == pytest.approx(-3.0 * (-0.9) + 0.4 * 0.3)
    for method in ("aba", "crba"):
        expected = dynamics.accelerations(system, s.q, s.v, tau=[0.0, F], method=method)
        assert close(dy[system.nq:], expected, 1e-12)
    assert not close(dy[system.nq:], dynamics.accelerations(system, s.q, s.v), 1e-3)


# --------------------------------------------------------------------------- composite machines

def test_force_element_joins_two_machines_into_a_composite():
    """A pendulum (ground with the environment) and a vertical slider (its own ground, no
    environment) coupled only by a BodySpringDamper: one composite machine, gravity acting
    on both, the slider's initial acceleration is g + F_z / m, and energy (undamped) is
    conserved to 1e-9 of the energy exchanged."""
    m = mbd.Model("composite")
    g1 = m.add_ground("g1", environment=EARTH)
    g2 = m.add_ground("g2", at=(1.0, 0.3, -0.2))
    arm = m.add_body("arm", mass=1.0, cg=(0.5, 0, 0), inertia=[1e-3, 0.08, 0.08],
                     cs={"pivot": (0, 0, 0), "tip": (1.0, 0, 0)})
    slider = m.add_body("slider", mass=0.7, cg=(1.0, 0.3, -0.2), inertia=[0.01] * 3,
                        cs={"hook": (1.0, 0.3, 0.1)})
    m.add(Revolute("hinge", g1, arm["pivot"], axis=(0, 1, 0), q0=-0.3))
    m.add(Prismatic("rail", g2, slider["cg"], axis=(0, 0, 1), v0=0.5))
    k, r0 = 30.0, 0.2
    m.add(BodySpringDamper("link", arm["tip"], slider["hook"], k=k, b=0.0, r0=r0))
    system = m.build()
    assert len(system.machines) == 2
    assert len({mc.composite for mc in system.machines}) == 1
    assert all(mc.environment is EARTH for mc in system.machines)
    # initial acceleration of the slider from the hand force at the drawn state
    s = system.initial_state()
    dy = derivative(system, 0.0, np.concatenate([s.q, s.v]))
    tip = Rotation.from_rotvec([0, -0.3, 0]).apply([1.0, 0, 0])
    F = bsd_force(tip, np.zeros(3), slider["hook"].position, np.array([0, 0, 0.5]), k, 0.0, r0)
    rail = system.joints["rail"].v_index[0]
    assert dy[system.nq + rail] == pytest.approx(-9.81 + F[2] / 0.7, rel=1e-12)
    r = system.simulate(2.0, output_step=0.01, **TIGHT)
    T = r.kinetic_energy()
    assert np.ptp(T) > 0.5
    assert close(r.energy(), r.energy()[0], 1e-9, scale=np.ptp(T))


def test_composite_machine_with_two_environments_is_refused():
    m = mbd.Model("two_envs")
    g1 = m.add_ground("g1", environment=EARTH)
    g2 = m.add_ground("g2", at=(1, 0, 0), environment=mbd.Environment(gravity=(0, 0, -9.81)))
    a = m.add_body("a", mass=1.0, cg=(0, 0, 0), inertia=[0.1] * 3)
    b = m.add_body("b", mass=1.0, cg=(1, 0, 0), inertia=[0.1] * 3)
    m.add(Prismatic("pa", g1, a["cg"], axis=(1, 0, 0)))
    m.add(Prismatic("pb", g2, b["cg"], axis=(1, 0, 0)))
    m.add(LineForce("tie", a["cg"], b["cg"], Spring(c=1.0, x0=1.0)))
    with pytest.raises(mbd.ModelError, match="2 environments"):
        m.build()


# --------------------------------------------------------------------------- build-time errors

def _free_body_model(name, environment):
    """A body with CSs p and q on a SixDof to a ground: (model, ground, body, joint)."""
    m = mbd.Model(name)
    g = m.add_ground("g", environment=environment)
    body = m.add_body("b", mass=1.0, cg=(0, 0, 0), inertia=[0.1] * 3,
                      cs={"p": (0.1, 0, 0), "q": (0, 0.1, 0)})
    free = m.add(SixDof("free", g, body["cg"]))
    return m, g, body, free


def _error_model():
    return _free_body_model("errors", EARTH)


@pytest.mark.parametrize("make, words", [
    (lambda g, b, free: JointForce("jf", free, Spring(1.0), primitive=3),
     ["JointForce 'jf'", "primitive 3", "spherical"]),
    (lambda g, b, free: JointForce("jf", free, Spring(1.0), primitive=4),
     ["JointForce 'jf'", "primitive must be an index 0..3", "4"]),
    (lambda g, b, free: JointForce("jf", free, Spring(1.0), primitive=-1),
     ["JointForce 'jf'", "primitive must be an index", "-1"]),
    (lambda g, b, free: JointForce("jf", Revolute("loose", g, b["cg"], axis=(0, 0, 1)),
                                   Spring(1.0)),
     ["JointForce 'jf'", "joint must be a joint added to model 'errors'", "loose"]),
    (lambda g, b, free: LineForce("lf", b["p"], b["q"], Spring(1.0)),
     ["LineForce 'lf'", "two CSs of 'b'"]),
    (lambda g, b, free: BodySpringDamper("bsd", b["p"], b["cg"], k=1.0, b=0.0),
     ["BodySpringDamper 'bsd'", "two CSs of 'b'"]),
    (lambda g, b, free: AxialForce("ax", g, b["p"], Spring(1.0), axis=(0, 0, 0)),
     ["AxialForce 'ax'", "axis", "not all zero"]),
    (lambda g, b, free: RotationalForce("rf", g, b["p"], Spring(1.0), axis=(0.0, 0.0)),
     ["RotationalForce 'rf'", "axis must be 3 finite numbers"]),
], ids=["spherical", "index-high", "index-negative", "foreign-joint", "same-body-line",
        "same-body-bsd", "zero-axis", "short-axis"])
def test_build_errors_name_the_element(make, words):
    m, g, body, free = _error_model()
    m.add(make(g, body, free))
    with pytest.raises(mbd.ModelError) as info:
        m.build()
    text = str(info.value)
    for w in words:
        assert w in text, (w, text)


def test_build_lists_every_bad_element():
    m, g, body, free = _error_model()
    m.add(LineForce("one", body["p"], body["q"], Spring(1.0)))
    m.add(AxialForce("two", g, body["p"], Spring(1.0), axis=(0, 0, 0)))
    with pytest.raises(mbd.ModelError) as info:
        m.build()
    problems = info.value.problems
    assert len(problems) == 2
    assert "LineForce 'one'" in problems[0] and "AxialForce 'two'" in problems[1]


@pytest.mark.parametrize("cls, args", [
    (JointForce, ("jf", None)), (LineForce, ("lf", None, None)),
    (AxialForce, ("af", None, None)), (RotationalForce, ("rf", None, None)),
])
@pytest.mark.parametrize("law", [3.0, "spring", Spring])
def test_a_law_that_is_not_a_law_is_refused(cls, args, law):
    with pytest.raises(mbd.ModelError, match=f"{cls.__name__} '{args[0]}': law must be"):
        cls(*args, law)


@pytest.mark.parametrize("kwargs, words", [
    (dict(k=-1.0, b=0.0), ["BodySpringDamper 'bsd'", "k", "-1"]),
    (dict(k=1.0, b=0.0, r0=-0.1), ["BodySpringDamper 'bsd'", "r0", "-0.1"]),
    (dict(k=float("nan"), b=0.0), ["BodySpringDamper 'bsd'", "k"]),
    (dict(k=1.0, b="x"), ["BodySpringDamper 'bsd'", "b must be a real number", "'x'"]),
    (dict(k=1.0, b=-np.inf), ["BodySpringDamper 'bsd'", "b must be finite", "-inf"]),
    (dict(k=1.0, b=0.0, r0=np.inf), ["BodySpringDamper 'bsd'", "r0", "inf"]),
], ids=["k-negative", "r0-negative", "k-nan", "b-text", "b-minus-inf", "r0-inf"])
def test_body_spring_damper_parameters_are_checked(kwargs, words):
    """Each bad parameter: a ModelError naming the element, the parameter and the value."""
    m, g, body, free = _error_model()
    with pytest.raises(mbd.ModelError) as info:
        BodySpringDamper("bsd", g, body["p"], **kwargs)
    for w in words:
        assert w in str(info.value), (w, str(info.value))


def test_negative_damping_warns_and_pumps_energy():
    """b < 0 is allowed with a warning naming the element, and is used as given: the energy
    of a body on a line spring grows."""
    with pytest.warns(UserWarning, match="BodySpringDamper 'pump'.*pumps energy"):
        m = mbd.Model("pump")
        g = m.add_ground("g", environment=ZERO_G)
        body = m.add_body("b", mass=1.0, cg=(0, 0, 0), inertia=[0.1] * 3)
        m.add(Prismatic("p", g, body["cg"], axis=(1, 0, 0), q0=0.5))
        bsd = m.add(BodySpringDamper("pump", g, body["cg"], k=10.0, b=-0.5, r0=0.2))
    assert bsd.b == -0.5
    r = m.simulate(2.0, output_step=0.5, **TIGHT)
    assert np.all(np.diff(r.energy()) > 0)


def test_negative_damping_warns_once_and_the_frozen_law_takes_b_as_given():
    """b < 0: one warning, from BodySpringDamper; its law is the LINEAR law with d = b (made so,
    not changed afterwards: it is frozen) and the element keeps k, b, r0. b >= 0: no warning."""
    m, g, body, free = _error_model()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bsd = BodySpringDamper("pump", g, body["p"], k=10.0, b=-0.5, r0=0.2)
    assert [str(w.message) for w in caught] == [
        "BodySpringDamper 'pump': damping b = -0.5 < 0 pumps energy into the system"]
    law = bsd.law
    assert isinstance(law, mbd.Law) and law.code == registry.code("linear")
    assert (law.c, law.d, law.x0) == (10.0, -0.5, 0.2) == (bsd.k, bsd.b, bsd.r0)
    assert law.parameters() == (10.0, -0.5, 0.2)
    assert law(0.7, 2.0) == pytest.approx(-10.0 * 0.5 + 0.5 * 2.0, rel=1e-15)
    with pytest.raises(dataclasses.FrozenInstanceError):
        law.d = 0.0
    assert law.d == -0.5
    with pytest.raises(ValueError, match="d must be finite"):
        dataclasses.replace(law, d=np.nan)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        calm = BodySpringDamper("calm", g, body["p"], k=10.0, b=0.5, r0=0.2)
    assert not caught and calm.law.d == 0.5


def _placements():
    """One element of every placement, in a model, and a law to put in its place."""
    m, g, body, free = _free_body_model("placements", ZERO_G)
    return [JointForce("jf", free, Spring(c=1.0), primitive=2),
            LineForce("lf", g, body["p"], Spring(c=2.0, x0=0.1)),
            AxialForce("af", g, body["p"], ElastoGap(c=3.0, d=0.0), axis=(0, 1, 0)),
            RotationalForce("rf", g, body["q"], SpringDamper(c=4.0, d=0.1), axis=(0, 0, 1))]


@pytest.mark.parametrize("index", range(4), ids=["joint", "line", "axial", "rotational"])
def test_with_law_is_a_new_element_in_the_same_place(index):
    """with_law: a new element of the same class, name and placement holding the new law; the
    old element keeps its law (a bad law is refused as the constructor refuses it)."""
    old = _placements()[index]
    old_law = old.law
    law = dataclasses.replace(old_law, c=old_law.c * 10.0)
    new = old.with_law(law)
    assert type(new) is type(old) and new is not old and new.name == old.name
    assert new.law is law and old.law is old_law and old.law.c == law.c / 10.0
    for attr in ("placement", "joint", "primitive", "cs_a", "cs_b", "axis"):
        assert getattr(new, attr) is getattr(old, attr), attr
    with pytest.raises(mbd.ModelError, match=f"{type(old).__name__} '{old.name}': law must be"):
        old.with_law(3.0)


def test_body_spring_damper_with_parameters_is_a_new_element():
    """with_parameters changes some of k, b, r0 in a new element between the same CSs (checked
    and warned about as on construction); with_law reads k, b, r0 from a linear law."""
    m, g, body, free = _error_model()
    old = BodySpringDamper("strap", g, body["p"], k=10.0, b=0.5, r0=0.2)
    old_law = old.law
    new = old.with_parameters(k=20.0)
    assert type(new) is BodySpringDamper and new is not old and new.name == "strap"
    assert (new.cs_a, new.cs_b) == (old.cs_a, old.cs_b)
    assert (new.k, new.b, new.r0) == (20.0, 0.5, 0.2) and new.law.c == 20.0
    assert (old.k, old.b, old.r0) == (10.0, 0.5, 0.2) and old.law is old_law
    assert old_law.c == 10.0
    with pytest.warns(UserWarning, match="BodySpringDamper 'strap'.*pumps energy"):
        pump = old.with_parameters(b=-1.0)
    assert pump.b == pump.law.d == -1.0
    with pytest.raises(mbd.ModelError, match="BodySpringDamper 'strap': r0 must be >= 0"):
        old.with_parameters(r0=-1.0)
    with pytest.raises(TypeError, match="no parameter 'c'"):
        old.with_parameters(c=1.0)
    other = old.with_law(SpringDamper(c=3.0, d=0.1, x0=0.5))
    assert (other.k, other.b, other.r0) == (3.0, 0.1, 0.5)
    assert old.with_law(dataclasses.replace(old.law, x0=0.4)).r0 == 0.4
    with pytest.raises(mbd.ModelError, match="BodySpringDamper 'strap': law must be linear"):
        old.with_law(ElastoGap(c=1.0, d=0.0))


def test_rotational_force_at_a_half_turn_swing_stops_naming_the_element():
    """B turned by pi about an axis normal to a: the twist about a is undefined (the swing-twist
    split is singular). With a law whose torque at x = 0 is not zero the run stops at once with
    a SimulationError naming the element and the time; the initial row is kept."""
    m = mbd.Model("swing")
    g = m.add_ground("g", environment=ZERO_G)
    b = m.add_body("b", mass=2.0, cg=(0, 0, 0), inertia=[0.5, 0.6, 0.7])
    m.add(Spherical("s", g, b["cg"], q0=Rotation.from_rotvec([np.pi, 0, 0])))
    m.add(RotationalForce("tw", g, b["cg"], Spring(c=1.0, x0=0.1)))
    with pytest.raises(mbd.SimulationError) as info:
        m.simulate(1.0)
    assert "RotationalForce 'tw'" in str(info.value) and "t = 0 s" in str(info.value)
    assert np.array_equal(info.value.result.t, [0.0])
