"""Random-tree checks of the compiled dynamics kernels (mass matrix, RNEA, ABA, energies).

Every check compares two things computed independently, or a quantity with a law of
mechanics, on random trees (``tests.mbd.random_models``) of 1 to 20 bodies:

* the mass matrix from CRBA equals the one built column by column from RNEA, which is
  symmetric, and it is positive definite;
* ABA and CRBA + Cholesky give the same accelerations; RNEA inverts ABA, also with external
  link forces, which enter as J^T f (virtual power);
* the integrator's right-hand side kernel is quaternion kinematics plus ABA;
* the mass matrix is the Hessian of the kinetic energy in v; for trees without quaternions the
  bias forces equal Lagrange's expression, by finite differences of the energies;
* total energy is conserved along the unforced flow;
* a free body on a SixDof joint obeys Newton-Euler written out here, and a floating tree obeys
  the momentum balances (total force = weight, torque about the origin from gravity only).

Finite-difference tolerances are derived next to each check from the truncation and rounding
errors of the difference formula.
"""
from functools import lru_cache

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import mbd
from joints import Revolute, SixDof
from mbd.compiled import dynamics
from mbd.run.evaluator import Evaluator
from tests.mbd.random_models import (
    quaternion_rates,
    quaternion_slots,
    random_inertia,
    random_state,
    random_tree,
)

EPS = np.finfo(float).eps

FAMILIES = {
    "revolute": ["Revolute"],
    "prismatic": ["Prismatic"],
    "spherical": ["Spherical"],
    "mixed": ["Revolute", "Prismatic", "Spherical", "Universal", "Cylindrical", "Gimbal",
              "SixDof", "Weld", "Custom"],
}
#: Families whose coordinates are all angles and displacements (qdot = v, no quaternions).
NO_QUATERNIONS = {
    "revolute": ["Revolute"],
    "prismatic": ["Prismatic"],
    "rp_mixed": ["Revolute", "Prismatic", "Universal", "Cylindrical", "Gimbal", "Weld",
                 "CustomRP"],
}
#: Families in which some joints are written child-to-parent, so build() must reverse them.
REVERSED = {"mixed", "rp_mixed"}
SIZES = (1, 2, 3, 5, 8, 13, 20)
SEEDS = (0, 1, 2)


def _cases(families):
    return [pytest.param(f, n, s, id=f"{f}-{n}-s{s}") for f in families for n in SIZES
            for s in SEEDS]


@lru_cache(maxsize=None)
def _tree(family, n_bodies, seed):
    """(system, q, v, tau) of one random case; cached so each test reuses the same trees."""
    kinds = {**FAMILIES, **NO_QUATERNIONS}[family]
    rng = np.random.default_rng([seed, n_bodies, sum(map(ord, family))])
    p_reversed = 0.3 if family in REVERSED else 0.0
    system = random_tree(rng, n_bodies, kinds, p_reversed=p_reversed).build()
    q, v = random_state(rng, system)
    tau = rng.normal(0.0, 5.0, system.nv)
    return system, q, v, tau


def _rnea_mass_matrix(system, q):
    """H column by column from inverse dynamics: H e_k = ID(q, 0, e_k) - ID(q, 0, 0).

    Independent of CRBA and fills both triangles, so its symmetry is a real check."""
    nv = system.nv
    zero = np.zeros(nv)
    g = dynamics.inverse_dynamics(system, q, zero, zero)
    return np.column_stack([dynamics.inverse_dynamics(system, q, zero, e) - g
                            for e in np.eye(nv)])


# ----------------------------------------------------------------------------- mass matrix

@pytest.mark.parametrize("family, n_bodies, seed", _cases(FAMILIES))
def test_mass_matrix_symmetric_positive_definite(family, n_bodies, seed):
    system, q, v, tau = _tree(family, n_bodies, seed)
    H = dynamics.mass_matrix(system, q)
    Hr = _rnea_mass_matrix(system, q)
    scale = np.abs(H).max()
    # CRBA computes one triangle and mirrors it, so its own symmetry proves nothing: the
    # RNEA columns fill both triangles. Both are sums of O(n) products of O(1) numbers, so
    # 1e-12 relative (~5000 eps) holds any rounding and no algebraic error.
    assert np.abs(Hr - Hr.T).max() <= 1e-12 * scale
    assert np.abs(H - Hr).max() <= 1e-12 * scale
    np.linalg.cholesky(H)  # raises LinAlgError unless positive definite
    assert np.linalg.eigvalsh(H).min() > 0.0


@pytest.mark.parametrize("family, n_bodies, seed", _cases(FAMILIES))
def test_mass_matrix_is_hessian_of_kinetic_energy(family, n_bodies, seed):
    """H_ij = d2T/dv_i dv_j by the central difference

        (T(v + h e_i + h e_j) - T(v + h e_i - h e_j) - T(v - h e_i + h e_j)
         + T(v - h e_i - h e_j)) / (4 h^2)

    T is exactly quadratic in v, so the truncation error is zero for any h and only rounding
    is left: each T carries an error <= c eps T_max, so the estimate is off by at most
    4 c eps T_max / (4 h^2). A large step (h = 1, as large as v itself) keeps that at a few
    eps |H|; c = 100 covers the sums over up to ~70 links inside the kernel.
    """
    system, q, v, tau = _tree(family, n_bodies, seed)
    nv = system.nv
    h = 1.0
    E = np.eye(nv) * h

    def T(x):
        return dynamics.energy(system, q, x)[0]

    Hfd = np.zeros((nv, nv))
    t_max = 0.0
    for i in range(nv):
        for j in range(i, nv):
            vals = [T(v + E[i] + E[j]), T(v + E[i] - E[j]), T(v - E[i] + E[j]),
                    T(v - E[i] - E[j])]
            t_max = max(t_max, *vals)
            Hfd[i, j] = Hfd[j, i] = (vals[0] - vals[1] - vals[2] + vals[3]) / (4 * h * h)
    H = dynamics.mass_matrix(system, q)
    tol = 100 * EPS * t_max / h ** 2
    assert np.abs(H - Hfd).max() <= tol


# ----------------------------------------------------------------------------- accelerations

@pytest.mark.parametrize("family, n_bodies, seed", _cases(FAMILIES))
def test_aba_equals_crba(family, n_bodies, seed):
    """Two algorithms for qdd: ABA's recursions and H qdd = tau - C solved by Cholesky.

    Both are backward stable, so they differ by about cond(H) eps |qdd|; cond(H) of these
    trees stays below ~1e6 (worst seen 9e5, error 3e-12), so 1e-10 relative leaves a margin
    and catches any algebraic mistake, which shows at O(1)."""
    system, q, v, tau = _tree(family, n_bodies, seed)
    for t in (np.zeros(system.nv), tau):
        b = dynamics.accelerations(system, q, v, t, method="crba")
        for method in ("aba", "aba-world", "tree"):     # link and world coordinates
            a = dynamics.accelerations(system, q, v, t, method=method)
            assert np.all(np.isfinite(a))
            assert np.abs(a - b).max() <= 1e-10 * max(np.abs(a).max(), 1.0)


def test_world_frame_aba_far_from_the_world_origin():
    """aba_world works at each tree's root link origin, not at the world origin: a spatial
    pendulum chain hung from a ground 1e6 m away keeps its accelerations to 1e-12 relative of
    CRBA's (at the world origin, lever arms of 1e6 m would cost ~1e6 eps ~ 1e-10), and the
    same chain drawn at the origin gives the same accelerations."""
    def chain(at):
        m = mbd.Model("far")
        g = m.add_ground("g", at=at, environment=mbd.Environment(gravity=(0.0, 0.0, -9.81)))
        base = g
        for i in range(4):
            top = np.asarray(at) + (0.0, 0.0, -i)
            b = m.add_body(f"b{i}", mass=1.0 + i, cg=top + (0.1, 0.0, -0.5),
                           inertia=np.diag([0.1, 0.2, 0.15]),
                           cs={"top": top, "bottom": top - (0, 0, 1)})
            m.add(Revolute(f"j{i}", base, b["top"], axis=(1.0, 0.5 * i, 0.0), q0=0.3 + 0.1 * i))
            base = b["bottom"]
        return m.build()

    far, near = chain((1e6, -2e6, 3e5)), chain((0.0, 0.0, 0.0))
    q, v = np.array([0.3, -0.5, 1.1, 0.2]), np.array([1.0, -2.0, 0.5, 3.0])
    a_far = dynamics.accelerations(far, q, v, method="aba-world")
    b_far = dynamics.accelerations(far, q, v, method="crba")
    a_near = dynamics.accelerations(near, q, v, method="aba-world")
    assert np.abs(a_far - b_far).max() <= 1e-12 * np.abs(b_far).max()
    # the drawing itself is 1e6 m out: its local offsets are rounded to ~1e6 eps = 2e-10 m
    assert np.abs(a_far - a_near).max() <= 1e-8 * np.abs(a_near).max()


@pytest.mark.parametrize("family, n_bodies, seed", _cases(FAMILIES))
def test_rnea_inverts_aba(family, n_bodies, seed):
    """ID(q, v, FD(q, v, tau)) = tau. RNEA's sum is of terms of size |H| |qdd| + |C|, so the
    residual is compared with that scale (1e-12 relative, ~5000 eps)."""
    system, q, v, tau = _tree(family, n_bodies, seed)
    qdd = dynamics.accelerations(system, q, v, tau, method="aba")
    back = dynamics.inverse_dynamics(system, q, v, qdd)
    H = dynamics.mass_matrix(system, q)
    C = dynamics.bias_forces(system, q, v)
    scale = np.abs(H).max() * np.abs(qdd).max() + np.abs(C).max() + np.abs(tau).max()
    assert np.abs(back - tau).max() <= 1e-12 * scale


@pytest.mark.parametrize("family, n_bodies, seed", _cases(FAMILIES))
def test_external_forces_by_virtual_power(family, n_bodies, seed):
    """Spatial forces fext[i] = [n; f] on the links (link axes, about the link origin) enter
    the kernels like the generalized force J^T fext: by virtual power, for every u,

        u . (ID(q, v, qdd, 0) - ID(q, v, qdd, fext)) = sum_i fext[i] . V_i(q, u)

    with V_i(q, u) the link velocities [w; v_origin] for joint velocities u (taken as the
    unit vectors, giving J^T fext column by column). Then ABA and CRBA must agree with fext
    too, and RNEA invert ABA. Tolerances as in the tests above (sums of O(n) products)."""
    system, q, v, tau = _tree(family, n_bodies, seed)
    rng = np.random.default_rng([seed, n_bodies, 9])
    nl, nv = system.n_links, system.nv
    fext = rng.normal(0.0, 5.0, (nl, 6))
    qdd = rng.normal(size=nv)
    with_f = dynamics.inverse_dynamics(system, q, v, qdd, fext)
    without = dynamics.inverse_dynamics(system, q, v, qdd)
    J = np.array([dynamics.link_velocities(system, q, e) for e in np.eye(nv)])  # (nv, nl, 6)
    power = np.einsum("kij,ij->k", J, fext)
    scale = np.abs(np.einsum("kij,ij->kij", J, fext)).sum(axis=(1, 2)).max()
    assert np.abs((without - with_f) - power).max() <= 1e-12 * scale

    a = dynamics.accelerations(system, q, v, tau, method="aba", fext=fext)
    b = dynamics.accelerations(system, q, v, tau, method="crba", fext=fext)
    assert np.abs(a - b).max() <= 1e-10 * max(np.abs(a).max(), 1.0)
    world = dynamics.accelerations(system, q, v, tau, method="aba-world", fext=fext)
    assert np.abs(world - b).max() <= 1e-10 * max(np.abs(a).max(), 1.0)
    back = dynamics.inverse_dynamics(system, q, v, a, fext)
    H = dynamics.mass_matrix(system, q)
    rhs = np.abs(H).max() * np.abs(a).max() + np.abs(without).max() + scale
    assert np.abs(back - tau).max() <= 1e-12 * rhs


@pytest.mark.parametrize("family, n_bodies, seed", _cases(FAMILIES))
def test_state_derivative_kernel(family, n_bodies, seed):
    """The integrator's right-hand side: quaternions scaled off unit length are normalized
    before use, dq/dt follows dQ/dt = 1/2 Q (x) (0, w) (written independently in
    random_models) and dv/dt is the qdd of the ABA the integrator picks for the tree (both of
    which the tests above check against CRBA) at the normalized q. Same arithmetic on both sides
    up to the order of operations: 1e-14 relative."""
    system, q, v, tau = _tree(family, n_bodies, seed)
    rng = np.random.default_rng([seed, n_bodies, 10])
    y = np.r_[q, v]
    for slot in quaternion_slots(system):
        y[slot] *= rng.uniform(0.5, 2.0)
    dy = np.zeros_like(y)
    sd = Evaluator(system)
    sd.data.tau[:] = tau        # a tree without force elements: tau is the applied force
    assert sd.rhs(0.0, y, dy, sd.data) == 0
    qdot = quaternion_rates(system, q, v)
    # the public door normalizes y's quaternions the same way, so qdd must match to the bit
    # pattern's rounding, not to cond(H) times the few-ulp difference between y/|y| and q
    qdd = dynamics.accelerations(system, y[:system.nq], v, tau, method="tree")
    assert np.abs(dy[:system.nq] - qdot).max() <= 1e-14 * max(np.abs(qdot).max(), 1.0)
    assert np.abs(dy[system.nq:] - qdd).max() <= 1e-14 * max(np.abs(qdd).max(), 1.0)


@pytest.mark.parametrize("family, n_bodies, seed", _cases(NO_QUATERNIONS))
def test_bias_forces_match_lagrange(family, n_bodies, seed):
    """C(q, v) = Hdot v - dT/dq + dV/dq (Lagrange's equations with qdot = v).

    Hdot = sum_k dH/dq_k v_k is the derivative of H along q + s v, so one central difference
    in s with step h / |v|_1 (no sum of angles along a path moves by more than h) gives
    Hdot v; dT/dq and dV/dq are central differences with step h in each coordinate (rad or
    m). The error of a central difference is

        h^2 / 6 |f'''| + c eps |f| / h.

    The coordinates enter through sines and cosines (revolute) or polynomials (prismatic), so
    |f'''| is of the size of the first derivatives S (seen: <= 1.4 S): allow h^2 S. Rounding:
    c = 100 as elsewhere, |f| the largest of |T|, |V| and |H| |v|_1^2 (the size of the
    Hdot v sum). h = 1e-5 balances the two.
    """
    system, q, v, tau = _tree(family, n_bodies, seed)
    nv = system.nv
    h = 1e-5
    s = h / np.abs(v).sum()
    H = dynamics.mass_matrix(system, q)
    dH = dynamics.mass_matrix(system, q + s * v) - dynamics.mass_matrix(system, q - s * v)
    Hdot_v = dH / (2 * s) @ v
    dT = np.zeros(nv)
    dV = np.zeros(nv)
    f_max = np.abs(H).max() * np.abs(v).sum() ** 2
    for k in range(nv):
        e = np.zeros(system.nq)
        e[k] = h
        Tp, Vp = dynamics.energy(system, q + e, v)
        Tm, Vm = dynamics.energy(system, q - e, v)
        dT[k] = (Tp - Tm) / (2 * h)
        dV[k] = (Vp - Vm) / (2 * h)
        f_max = max(f_max, abs(Tp), abs(Tm), abs(Vp), abs(Vm))
    lagrange = Hdot_v - dT + dV
    C = dynamics.bias_forces(system, q, v)
    S = max(np.abs(Hdot_v).max(), np.abs(dT).max(), np.abs(dV).max())
    tol = h ** 2 * S + 100 * EPS * f_max / h
    assert np.abs(C - lagrange).max() <= tol


@pytest.mark.parametrize("family, n_bodies, seed", _cases(FAMILIES))
def test_energy_conserved_along_flow(family, n_bodies, seed):
    """d(T + V)/dt = 0 with tau = 0 and no dissipation, whatever the tree.

    The derivative along the flow is the central difference of E over the state step
    y +- dt (qdot, qdd), with qdot from the quaternion kinematics written in random_models
    (the kernels renormalize the quaternions, which moves them by O(dt^2), symmetric in
    +-dt). Error: dt^2 / 6 |E'''| + c eps |E| / dt. The power terms dT/dt and dV/dt, each
    found the same way, set the scale P; the third derivative along the flow is bounded by
    P times (rate of change)^2, taken as |ydot|_inf^2. dt = 1e-4 / |ydot|_inf keeps the state
    step at 1e-4: rounding dominates below it, because |V| (measured from the world origin)
    is far larger than the power.
    """
    system, q, v, tau = _tree(family, n_bodies, seed)
    qdd = dynamics.accelerations(system, q, v)
    qdot = quaternion_rates(system, q, v)
    rate = max(np.abs(qdot).max(), np.abs(qdd).max())
    dt = 1e-4 / rate
    Tp, Vp = dynamics.energy(system, q + dt * qdot, v + dt * qdd)
    Tm, Vm = dynamics.energy(system, q - dt * qdot, v - dt * qdd)
    dT = (Tp - Tm) / (2 * dt)
    dV = (Vp - Vm) / (2 * dt)
    P = max(abs(dT), abs(dV))
    tol = (dt * rate) ** 2 * P + 100 * EPS * max(abs(Tp), abs(Tm), abs(Vp), abs(Vm)) / dt
    assert P > 0.0
    assert abs(dT + dV) <= tol


# ----------------------------------------------------------------------------- free bodies

def _quat_matrix(Q):
    """Rotation matrix of the unit quaternion (w, x, y, z), written out here."""
    w, x, y, z = Q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _free_body_qdd(body, follower, ground, gravity, q, v):
    """SixDof accelerations of a free body under gravity from the Newton-Euler equations.

    Coordinates (SPEC §2): p_o = p_o0 + R_G (x, y, z) is the follower CS origin (R_G the base
    CS axes), so its velocity is R_G (vx, vy, vz); the follower axes turn as A = R_F0 R(Q)
    (R_F0 their reference orientation), and w is the angular velocity in those axes. In
    follower axes the CG offset c and the inertia about the CG I_f are constant:

        c = R_F0^T (cg - p_o0),   I_f = R_F0^T I R_F0.

    Euler (follower axes, about the CG):   I_f wdot + w x I_f w = 0.
    Newton (world):   m a_cg = m g,   a_cg = a_o + A (wdot x c + w x (w x c)),
    so (ax, ay, az) = R_G^T (g - A (wdot x c + w x (w x c))), using d(A w)/dt = A wdot.
    """
    R_G, R_F0 = ground.rotation, follower.rotation
    c = R_F0.T @ (body.cg - follower.position)
    I_f = R_F0.T @ body.inertia @ R_F0
    A = R_F0 @ _quat_matrix(q[3:7])
    w = v[3:6]
    wdot = np.linalg.solve(I_f, -np.cross(w, I_f @ w))
    a_o = gravity - A @ (np.cross(wdot, c) + np.cross(w, np.cross(w, c)))
    return np.r_[R_G.T @ a_o, wdot]


def _add_free_body(rng, model, env, name):
    """A random body on a SixDof joint from a new ground with random axes; follower CS away
    from the CG with its own random axes. Returns (body, follower CS, ground)."""
    point = rng.uniform(-1.0, 1.0, 3)
    ground = model.add_ground(f"{name}_ground", at=point, environment=env,
                              orientation=Rotation.random(random_state=rng))
    mass = rng.uniform(0.5, 3.0)
    body = model.add_body(name, mass=mass, cg=point + rng.uniform(-0.5, 0.5, 3),
                          inertia=random_inertia(rng, mass),
                          cs={"f": (point, Rotation.random(random_state=rng))})
    model.add(SixDof(f"{name}_joint", ground, body["f"]))
    return body, body["f"], ground


def _random_free_state(rng):
    Q = rng.normal(size=4)
    return (np.r_[rng.uniform(-1, 1, 3), Q / np.linalg.norm(Q)],
            np.r_[rng.uniform(-1, 1, 3), rng.uniform(-3, 3, 3)])


@pytest.mark.parametrize("seed", range(6))
def test_sixdof_free_body_matches_newton_euler(seed):
    """A single free body: ABA and CRBA against the free-body equations. Both sides are a few
    dozen flops on O(1) numbers; 1e-12 relative to |qdd| + |g| is ~5000 eps."""
    rng = np.random.default_rng([seed, 6])
    g = rng.normal(size=3)
    env = mbd.Environment(gravity=g)
    model = mbd.Model("free")
    body, follower, ground = _add_free_body(rng, model, env, "b")
    system = model.build()
    for _ in range(3):
        q, v = _random_free_state(rng)
        expected = _free_body_qdd(body, follower, ground, g, q, v)
        scale = np.abs(expected).max() + np.linalg.norm(g)
        for method in ("aba", "crba"):
            qdd = dynamics.accelerations(system, q, v, method=method)
            assert np.abs(qdd - expected).max() <= 1e-12 * scale
    # at rest the body falls freely without turning, whatever its CG offset
    q, _ = _random_free_state(rng)
    qdd = dynamics.accelerations(system, q, np.zeros(6))
    assert np.abs(qdd - np.r_[ground.rotation.T @ g, 0, 0, 0]).max() <= 1e-12 * np.linalg.norm(g)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("n_bodies", (3, 12))
def test_free_body_beside_a_tree(n_bodies, seed):
    """A free body in the same model as a random mixed tree (a separate machine under the
    same environment) still follows the free-body equations; the tree's own DOFs don't leak
    into it. Tolerance as in the single-body test."""
    rng = np.random.default_rng([seed, n_bodies, 7])
    model = random_tree(rng, n_bodies, FAMILIES["mixed"])
    env = model.grounds[0].environment
    body, follower, ground = _add_free_body(rng, model, env, "free")
    system = model.build()
    q, v = random_state(rng, system)
    jm = system.joints["free_joint"]
    qf, vf = _random_free_state(rng)
    q[jm.q_index], v[jm.v_index] = qf, vf
    tau = rng.normal(0.0, 5.0, system.nv)
    tau[jm.v_index] = 0.0
    expected = _free_body_qdd(body, follower, ground, env.gravity, qf, vf)
    scale = np.abs(expected).max() + np.linalg.norm(env.gravity)
    for method in ("aba", "crba"):
        qdd = dynamics.accelerations(system, q, v, tau, method=method)
        assert np.abs(qdd[jm.v_index] - expected).max() <= 1e-12 * scale


def _momenta(system, q, v):
    """Per-body linear momentum m v_cg and angular momentum about the world origin
    I w + p_cg x m v_cg (world axes), from the link poses and spatial velocities, and the
    CG positions; arrays (n_bodies, 3)."""
    R, p = dynamics.link_poses(system, q)
    V = dynamics.link_velocities(system, q, v)
    lin, ang, cgs, masses = [], [], [], []
    for bm in system.bodies.values():
        body, i = bm.body, bm.link
        c = bm.rotation.T @ (body.cg - bm.origin)          # CG in link axes
        I_link = bm.rotation.T @ body.inertia @ bm.rotation
        w, v_o = V[i, :3], V[i, 3:]                        # Featherstone [w; v_origin]
        v_cg = R[i] @ (v_o + np.cross(w, c))
        p_cg = p[i] + R[i] @ c
        lin.append(body.mass * v_cg)
        ang.append(R[i] @ I_link @ w + np.cross(p_cg, body.mass * v_cg))
        cgs.append(p_cg)
        masses.append(body.mass)
    return np.array(lin), np.array(ang), np.array(cgs), np.array(masses)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("n_bodies", (2, 5, 12, 20))
def test_floating_tree_momentum_balance(n_bodies, seed):
    """A random mixed tree hanging from one SixDof joint, with random torques in its internal
    joints: only gravity acts from outside, so (Newton-Euler for the whole system)

        dP/dt = M g,     dL_O/dt = sum_i p_cg,i x m_i g     (O the world origin).

    The rates are central differences along the flow with state step 1e-4 (as in the energy
    test): truncation <= step^2 x the per-body rate scale, rounding 100 eps |P or L| / dt.
    """
    rng = np.random.default_rng([seed, n_bodies, 8])
    model = random_tree(rng, n_bodies, FAMILIES["mixed"], p_ground=0.0, root_kind="SixDof")
    system = model.build()
    g = model.grounds[0].environment.gravity
    q, v = random_state(rng, system)
    tau = rng.normal(0.0, 5.0, system.nv)
    tau[system.joints["j0"].v_index] = 0.0        # the only joint to the ground stays free
    qdd = dynamics.accelerations(system, q, v, tau)
    qdot = quaternion_rates(system, q, v)
    rate = max(np.abs(qdot).max(), np.abs(qdd).max())
    dt = 1e-4 / rate
    lp, ap, _, _ = _momenta(system, q + dt * qdot, v + dt * qdd)
    lm, am, _, _ = _momenta(system, q - dt * qdot, v - dt * qdd)
    _, _, cgs, masses = _momenta(system, q, v)
    dlin = (lp - lm) / (2 * dt)
    dang = (ap - am) / (2 * dt)
    force = masses.sum() * g
    torque = np.cross(cgs, masses[:, None] * g).sum(axis=0)
    for rates, total, values in ((dlin, force, (lp, lm)), (dang, torque, (ap, am))):
        scale = np.abs(rates).sum(axis=0).max() + np.abs(total).max()
        tol = (dt * rate) ** 2 * scale + 100 * EPS * max(np.abs(x).sum() for x in values) / dt
        assert np.abs(rates.sum(axis=0) - total).max() <= tol
