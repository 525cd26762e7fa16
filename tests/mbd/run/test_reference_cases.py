"""Reference cases with answers no one here computed: the exact simple pendulum of SPEC §5
(Jacobi elliptic functions), energy conservation of a 3-D chain, and the torque-free
asymmetric top (conserved angular momentum and energy, Landau & Lifshitz's flip period, and
free fall of the centre of gravity)."""
import numpy as np
import pytest
from scipy.interpolate import CubicHermiteSpline
from scipy.spatial.transform import Rotation
from scipy.special import ellipk

import mbd
from joints import Revolute, SixDof, Spherical, Universal

#: these tests assert accuracy bounds (closed forms, reference values, balances): run again
#: on a perturbed problem under --perturb (tests/perturb.py)
pytestmark = pytest.mark.accuracy

G = 9.81

# --------------------------------------------------------------------------- simple pendulum

#: SPEC §5: exact angle from the downward vertical, positive towards the release side.
PENDULUM_THETA = {0.5: 0.40177084980808275, 1.0: -1.4050273115247993,
                  2.0: 0.9166475896632469, 10.0: 0.2786806735699831}
PENDULUM_PERIOD = 2.3678419475762373

#: Inertia of the "point" mass about its CG. mbd needs a positive definite tensor; with
#: J = EPS * 1 the hinge equation is (m L^2 + EPS) q'' = m g L cos q, i.e. the exact motion
#: with time scaled by 1/sqrt(1 + EPS): theta_EPS(t) = theta(t / sqrt(1 + EPS)). Hence
#: |theta_EPS(t) - theta(t)| <= max|theta'| * t * EPS / 2 = sqrt(2 g) * 10 s * 1e-12 / 2
#: ~ 2.2e-11 rad at t = 10 s, far below the 1e-6 rad tolerance (and the period grows by
#: T * EPS / 2 ~ 1e-12 s).
EPS = 1e-12


def pendulum_system():
    """Hinge axis +y at the origin, bob at +x (horizontal), gravity -z.

    A positive rotation q about +y carries +x towards -z, so the bob hangs below the hinge at
    q = pi/2 and the angle from the downward vertical, positive towards +x (the release
    side), is theta = pi/2 - q.
    """
    m = mbd.Model("pendulum")
    ground = m.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, -G)))
    bob = m.add_body("bob", mass=1.0, cg=(1.0, 0.0, 0.0), inertia=EPS * np.eye(3),
                     cs={"pivot": (0.0, 0.0, 0.0)})
    m.add(Revolute("hinge", ground, bob["pivot"], axis=(0, 1, 0), q0=0.0, v0=0.0))
    return m.build()


#: every reference case runs with the explicit and the implicit compiled loop (issue 16)
METHODS = ("DOP853", "Radau")


@pytest.fixture(scope="module", params=METHODS)
def pendulum_run(request):
    return pendulum_system().simulate(10.0, output_step=0.01, rtol=1e-12, atol=1e-12,
                                      method=request.param)


def _row(result, t):
    k = np.flatnonzero(np.abs(result.t - t) < 1e-12)
    assert k.size == 1, f"no output row at t = {t}"
    return k[0]


def test_pendulum_matches_the_exact_angles(pendulum_run):
    theta = np.pi / 2 - pendulum_run.joint("hinge").q
    for t, expected in PENDULUM_THETA.items():
        assert abs(theta[_row(pendulum_run, t)] - expected) < 1e-6, t
    # the bob stays on its circle of radius 1 about the hinge
    p = pendulum_run.body("bob").position("cg")
    np.testing.assert_allclose(np.linalg.norm(p, axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(p[:, 1], 0.0, atol=1e-15)


def test_pendulum_turning_points_are_half_periods_apart(pendulum_run):
    # v(t) between output rows: cubic Hermite with the exact acceleration from the equation of
    # motion, (1 + EPS) q'' = g cos q, as its derivative; its roots are the turning times.
    q, v = pendulum_run.joint("hinge").q, pendulum_run.joint("hinge").v
    spline = CubicHermiteSpline(pendulum_run.t, v, G * np.cos(q) / (1.0 + EPS))
    roots = spline.roots(extrapolate=False)
    roots = roots[roots > 0.1]  # the release at t = 0 is a turning point too
    k = np.arange(1, len(roots) + 1)
    assert len(roots) == int(10.0 // (PENDULUM_PERIOD / 2))  # 8 turning points in 10 s
    np.testing.assert_allclose(roots, k * PENDULUM_PERIOD / 2, rtol=0, atol=1e-8)
    # at odd half periods the bob is at the other side, horizontal: theta = -pi/2
    theta_at = CubicHermiteSpline(pendulum_run.t, np.pi / 2 - q, -v)(roots)
    np.testing.assert_allclose(theta_at[::2], -np.pi / 2, rtol=0, atol=1e-7)
    np.testing.assert_allclose(theta_at[1::2], np.pi / 2, rtol=0, atol=1e-7)


def test_pendulum_returns_to_rest_after_one_period():
    # the last row is at t_end exactly; v(T) = 0 pins T to |v| / |q''| = |v| / g
    r = pendulum_system().simulate(PENDULUM_PERIOD, output_step=0.1, rtol=1e-12, atol=1e-12)
    assert r.t[-1] == PENDULUM_PERIOD
    assert abs(r.joint("hinge").v[-1]) < 1e-8
    assert abs(r.joint("hinge").q[-1]) < 1e-8


# --------------------------------------------------------------------------- 3-D chain


def _inertia(rng, scale):
    """An asymmetric inertia tensor (kg m^2) about a random set of axes."""
    moments = scale * np.array([1.0, 1.4, 2.1]) * (1.0 + 0.1 * rng.random(3))
    R = Rotation.random(random_state=rng).as_matrix()
    return R @ np.diag(moments) @ R.T


def chain_system(n=5, seed=20240611):
    """A chain ground - S - b0 - U - b1 - S - b2 - U - b3 - S - b4 with CGs off the line of
    the joints, asymmetric inertias, rotated joint CSs, random initial quaternions, angles and
    rates, in gravity."""
    rng = np.random.default_rng(seed)
    m = mbd.Model("chain")
    parent = m.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, -G)))
    point = np.zeros(3)
    for k in range(n):
        tip = point + np.array([0.4, 0.1 * (-1) ** k, -0.15]) + 0.05 * rng.standard_normal(3)
        cg = 0.5 * (point + tip) + 0.08 * rng.standard_normal(3)
        body = m.add_body(f"b{k}", mass=0.5 + rng.random(), cg=cg, inertia=_inertia(rng, 0.02),
                          cs={"pivot": (point, Rotation.random(random_state=rng)), "tip": tip})
        if k % 2 == 0:
            m.add(Spherical(f"j{k}", parent, body["pivot"],
                            q0=Rotation.random(random_state=rng), v0=rng.standard_normal(3)))
        else:
            m.add(Universal(f"j{k}", parent, body["pivot"], axes=rng.standard_normal((2, 3)),
                            q0=rng.standard_normal(2), v0=rng.standard_normal(2)))
        parent, point = body["tip"], tip
    return m.build()


@pytest.fixture(scope="module", params=METHODS)
def chain_run(request):
    return chain_system().simulate(5.0, output_step=0.02, rtol=1e-11, atol=1e-11,
                                   method=request.param)


def test_chain_conserves_energy(chain_run):
    E = chain_run.energy()
    T = chain_run.kinetic_energy()
    # the denominator is a fair scale: the total energy is not small against the kinetic
    # energy exchanged with gravity during the run
    assert abs(E[0]) > 0.05 * T.max()
    assert np.abs(E - E[0]).max() / abs(E[0]) < 1e-8
    # the energies the result reports are the mechanics' ones, computed here body by body
    # from the body views (no force elements: the potential is gravity's alone)
    T_bodies, V_bodies = bodies_energy(chain_run)
    scale = np.abs(E).max()
    np.testing.assert_allclose(T, T_bodies, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(chain_run.potential_energy(), V_bodies, rtol=0,
                               atol=1e-12 * scale)
    assert np.ptp(V_bodies) > 0.1 * scale     # gravity's share changes: it is checked
    # ... and so computed, their sum is conserved too
    E_bodies = T_bodies + V_bodies
    assert np.abs(E_bodies - E_bodies[0]).max() / abs(E_bodies[0]) < 1e-8


def bodies_energy(result):
    """(kinetic, potential) (n,) J of every body of ``result`` added up, from its CG velocity
    v, angular velocity w and CG height: T = 1/2 m v.v + 1/2 w.(R I R^T) w, with I the
    inertia about the CG in the drawing's axes and R the body's rotation from its drawing
    pose; V = -m g.p_cg (zero at the world origin)."""
    system = result.system
    gravity = system.machines[0].environment.gravity
    T = np.zeros(len(result.t))
    V = np.zeros(len(result.t))
    for name, bm in system.bodies.items():
        body, view = bm.body, result.body(name)
        v, w = view.velocity("cg"), view.angular_velocity
        R = view.rotation.as_matrix()
        I = R @ body.inertia @ np.swapaxes(R, 1, 2)
        T += 0.5 * body.mass * np.einsum("ni,ni->n", v, v)
        T += 0.5 * np.einsum("ni,nij,nj->n", w, I, w)
        V -= body.mass * view.position("cg") @ np.asarray(gravity, dtype=float)
    return T, V


def test_chain_body_velocities_are_the_derivatives_of_their_poses():
    """The body views bodies_energy reads, against the poses they come with: each CG's
    velocity is the time derivative of its position, each angular velocity w the axial
    vector of R' R^T, R' from the rotation matrices, both differentiated here with cubic
    splines through 0.5 ms rows (spline error ~h^4: measured <= 2.5e-8 of the largest
    speed)."""
    from scipy.interpolate import CubicSpline
    r = chain_system().simulate(1.0, output_step=5e-4, rtol=1e-11, atol=1e-11)
    inner = slice(5, -5)        # the spline's end conditions spoil its ends
    for name in r.system.bodies:
        view = r.body(name)
        v, w = view.velocity("cg"), view.angular_velocity
        v_fd = CubicSpline(r.t, view.position("cg"))(r.t, 1)
        R = view.rotation.as_matrix()
        W = np.einsum("nij,nkj->nik", CubicSpline(r.t, R)(r.t, 1), R)       # R' R^T
        w_fd = 0.5 * np.stack([W[:, 2, 1] - W[:, 1, 2], W[:, 0, 2] - W[:, 2, 0],
                               W[:, 1, 0] - W[:, 0, 1]], axis=1)
        np.testing.assert_allclose(v[inner], v_fd[inner], rtol=0,
                                   atol=1e-6 * np.abs(v).max())
        np.testing.assert_allclose(w[inner], w_fd[inner], rtol=0,
                                   atol=1e-6 * np.abs(w).max())


def test_chain_motion_is_three_dimensional(chain_run):
    # no plane holds the motion: the last CG's path and angular velocity span 3-D
    p = chain_run.body("b4").position("cg")
    w = chain_run.body("b4").angular_velocity
    for x in (p, w):
        s = np.linalg.svd(x - x.mean(axis=0), compute_uv=False)
        assert s[-1] > 1e-2 * s[0]


def test_chain_quaternions_stay_unit(chain_run):
    system = chain_run.system
    for name in ("j0", "j2", "j4"):
        quat = chain_run.q[:, system.joints[name].q_index]
        assert quat.shape == (len(chain_run), 4)
        np.testing.assert_allclose(np.linalg.norm(quat, axis=1), 1.0, rtol=0, atol=1e-14)
        np.testing.assert_array_equal(chain_run.joint(name).q, quat)
    # the quaternions turned far from their starting values: the check is not vacuous
    q0 = chain_run.q[0, system.joints["j0"].q_index]
    assert np.abs(chain_run.q[:, system.joints["j0"].q_index] @ q0).min() < 0.9


# --------------------------------------------------------------------------- free rigid body

#: Principal moments (kg m^2); the middle one is the unstable axis.
MOMENTS = np.array([1.0, 2.0, 3.0])
GRAVITY = np.array([0.0, 0.0, -G])
SPIN = 3.0     # rad/s about the intermediate axis
TILT = 1e-2    # relative perturbation of the spin about the smallest axis
T_END = 15.0


def flip_period(I, M2, E2):
    """Period (s) of the body-axis angular velocity of a torque-free top with principal moments
    I1 < I2 < I3, squared angular momentum M2 and twice the kinetic energy E2 (Landau &
    Lifshitz, Mechanics §37): 4 K(k^2) / rate. The intermediate component goes as sn(rate t),
    so it changes sign every half period."""
    I1, I2, I3 = I
    if M2 > E2 * I2:
        rate = np.sqrt((I3 - I2) * (M2 - E2 * I1) / (I1 * I2 * I3))
        k2 = (I2 - I1) * (E2 * I3 - M2) / ((I3 - I2) * (M2 - E2 * I1))
    else:  # the same with I1 and I3 exchanged
        rate = np.sqrt((I2 - I1) * (E2 * I3 - M2) / (I1 * I2 * I3))
        k2 = (I3 - I2) * (M2 - E2 * I1) / ((I2 - I1) * (E2 * I3 - M2))
    return 4.0 * ellipk(k2) / rate


@pytest.fixture(scope="module", params=METHODS)
def top(request):
    """A body with principal moments 1, 2, 3 about axes drawn at a random rotation A, on a
    SixDof whose follower CS is 0.4 m from the CG, released in a random orientation Q0 with a
    spin about its intermediate axis; gravity acts, but exerts no torque about the CG."""
    rng = np.random.default_rng(11)
    A = Rotation.random(random_state=rng).as_matrix()  # columns: principal axes as drawn
    inertia = A @ np.diag(MOMENTS) @ A.T
    joint_at = np.array([0.2, -0.1, 0.5])
    cg = joint_at + np.array([0.3, -0.2, 0.15])
    m = mbd.Model("top")
    ground = m.add_ground("ground", at=joint_at, environment=mbd.Environment(gravity=GRAVITY))
    body = m.add_body("top", mass=2.5, cg=cg, inertia=inertia, cs={"o": joint_at})
    Q0 = Rotation.random(random_state=rng)
    # world angular velocity at t = 0: mostly about the intermediate axis, as turned by Q0
    w0 = Q0.apply(SPIN * (A[:, 1] + TILT * A[:, 0]))
    x0 = np.array([0.1, 0.2, -0.3])  # displacement of the follower CS origin
    vo = np.array([0.4, -0.3, 2.0])   # velocity of the follower CS origin (base axes = world)
    # the follower CS has world axes in the drawing, so its axes at t = 0 are Q0's columns
    m.add(SixDof("free", ground, body["o"], q0=[*x0, Q0], v0=[*vo, tuple(Q0.inv().apply(w0))]))
    result = m.build().simulate(T_END, output_step=0.02, rtol=1e-12, atol=1e-12,
                                method=request.param)
    arm = Q0.apply(cg - joint_at)  # from the follower CS origin to the CG at t = 0
    return dict(result=result, A=A, inertia=inertia, Q0=Q0, w0=w0,
                p0=joint_at + x0 + arm, v0=vo + np.cross(w0, arm))


def _momentum(top):
    view = top["result"].body("top")
    R = view.rotation.as_matrix()
    w = view.angular_velocity
    L = np.einsum("nij,jk,nlk,nl->ni", R, top["inertia"], R, w)  # R I R^T w
    return R, w, L


def test_top_initial_state(top):
    R, w, _ = _momentum(top)
    np.testing.assert_allclose(R[0], top["Q0"].as_matrix(), atol=1e-14)
    np.testing.assert_allclose(w[0], top["w0"], atol=1e-13)


def test_top_conserves_angular_momentum_and_energy(top):
    _, w, L = _momentum(top)
    assert np.abs(L - L[0]).max() / np.linalg.norm(L[0]) < 1e-9
    T = 0.5 * np.einsum("ni,ni->n", w, L)
    assert np.abs(T - T[0]).max() / T[0] < 1e-9


def test_top_flips_about_its_intermediate_axis(top):
    R, w, L = _momentum(top)
    t = top["result"].t
    axis = np.einsum("nij,j->ni", R, top["A"][:, 1])  # the intermediate axis in the world
    d = axis @ axis[0]
    flipped = np.flatnonzero(d < -0.9)
    assert flipped.size, "the intermediate axis never reversed"
    assert (d[flipped[0]:] > 0.9).any(), "the intermediate axis did not come back"
    # the sign changes of axis . L (L is constant) are half a Landau-Lifshitz period apart;
    # interpolate with a cubic Hermite whose slope is d(axis)/dt . L = (w x axis) . L
    Lhat = L[0] / np.linalg.norm(L[0])
    s = axis @ Lhat
    ds = np.cross(w, axis) @ Lhat
    roots = CubicHermiteSpline(t, s, ds).roots(extrapolate=False)
    M2 = L[0] @ L[0]
    period = flip_period(MOMENTS, M2, w[0] @ L[0])
    assert period < T_END  # T_END covers the flip and the way back
    assert len(roots) >= 2
    np.testing.assert_allclose(np.diff(roots), period / 2, rtol=0, atol=1e-6)


def test_top_centre_of_gravity_falls_on_a_parabola(top):
    r = top["result"]
    p = r.body("top").position("cg")
    t = r.t[:, None]
    exact = top["p0"] + top["v0"] * t + 0.5 * GRAVITY * t ** 2
    assert np.abs(p - exact).max() < 1e-9
    v = r.body("top").velocity("cg")
    np.testing.assert_allclose(v, top["v0"] + GRAVITY * t, rtol=0, atol=1e-9)
