"""The six-component Bushing (Adams' BUSHING, SPEC §8; forces/placements.py Bushing,
mbd/forcekernels.py ``bushing``) against mechanics written out here.

* Stiffness and damping at zero deflection: in CS A's axes (exact single evaluations at
  states deflected by +-eps along and about each of A's axes, A rotated and offset from the
  CG) the wrench's derivatives are -diag(K) and -diag(C); in the free body's coordinates
  ``mbd.linearize`` gives K = J^T diag(K) J and Cd = J^T diag(C) J, J the map from the
  SixDof's translation and small rotation to [d; theta] derived here.
* Energy: without damping and preload a body on a bushing deflected in all six components
  (up to 0.5 rad, unequal rotational stiffnesses: a torque -K_r theta without the inverse
  Jacobian would drift the energy by ~3 %) conserves kinetic + gravity + bushing energy.
* Power: with damping and preload, the power the element delivers equals -dE/dt minus the
  damping's C-weighted rates squared plus the preload's power, row by row (E differentiated
  here), and the run's energy balance books the same dissipation as the quadrature of those
  rates.
* Newton's third law: between two free bodies the total linear and angular momentum stay
  constant; each body's momentum rate (differentiated here) is the reported wrench on B, and
  minus it on A (moments about the origin); the reported deflection, rates and wrench equal
  the SPEC formulas evaluated from the bodies' poses, the spring torque as the gradient of E
  mapped to the angular velocity by finite differences on SO(3).
* Modes: a body on one bushing at its CG, A along the principal axes (rotated), has the six
  frequencies sqrt(k/m)/2pi and sqrt(k_r/I)/2pi; four equal bushings at the corners of a
  rectangle in the CG's plane give the six closed forms of that symmetric mount.
* Equilibrium under gravity: static deflection (fz - m g)/kz, with A rotated so that the
  preload and stiffness of another axis of A carry the weight.
* Bad parameters name the element, the component and the value.

Tolerances are next to each check, with the figure measured when it was written.
"""
import numpy as np
import pytest
from scipy.integrate import cumulative_simpson
from scipy.spatial.transform import Rotation

import mbd
from forces import Bushing
from forces.bushing import _BushingLaw
from joints import SixDof

#: these tests assert accuracy bounds (closed forms, reference values, balances): run again
#: on a perturbed problem under --perturb (tests/perturb.py)
pytestmark = pytest.mark.accuracy

G = 9.81
TOL = 1e-10                     # rtol = atol of the runs below

#: distinct values in every component, so that a swapped axis or component shows
K6 = np.array([1.1e4, 2.3e4, 3.7e4, 41.0, 53.0, 67.0])          # N/m, N m/rad
C6 = np.array([7.0, 11.0, 13.0, 0.17, 0.19, 0.23])              # N s/m, N m s/rad
P6 = np.array([15.0, -9.0, 12.0, 0.8, -0.6, 0.5])               # N, N m
MASS = 2.5
INERTIA = np.diag([0.11, 0.17, 0.23])
#: CS A's axes, not aligned with the world, and where the bushing sits relative to the CG
R_A = Rotation.from_euler("xyz", [0.3, -0.5, 0.8]).as_matrix()
MOUNT = np.array([0.12, -0.07, 0.09])


#: defaults read, never written
ZERO3, ZERO6, IDENTITY = np.zeros(3), np.zeros(6), Rotation.identity()


def skew(r):
    return np.array([[0.0, -r[2], r[1]], [r[2], 0.0, -r[0]], [-r[1], r[0], 0.0]])


def one_body(name, stiffness=K6, damping=C6, preload=ZERO6, R=R_A, mount=MOUNT,
             gravity=0.0, inertia=INERTIA, q0=None, v0=None):
    """A body (CG at the origin) on a SixDof from a ground at the origin, held by a Bushing
    from a ground CS A at ``mount`` with axes R to the body's CS B drawn on A (undeflected)."""
    m = mbd.Model(name)
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0.0, 0.0, -gravity)))
    a = m.add_ground("a", at=mount, orientation=R)
    body = m.add_body("body", mass=MASS, cg=(0.0, 0.0, 0.0), inertia=inertia,
                      cs={"b": (mount, R)})
    m.add(SixDof("free", g, body["cg"], q0=q0, v0=v0))
    m.add(Bushing("bushing", a, body["b"], stiffness=list(stiffness), damping=list(damping),
                  preload=list(preload)))
    return m.build()


def rows(system, states):
    """A Result whose rows are the given (q, v) states: the element evaluated there once
    each (no integration)."""
    y = [np.concatenate([q, v]) for q, v in states]
    return mbd.Result(system, np.zeros(len(y)), np.array(y))


def sixdof_state(translation, rotation=IDENTITY, velocity=ZERO3, omega=ZERO3):
    """SixDof (q, v) from the CG's translation and velocity (world = the base's axes), the
    body's orientation and its angular velocity (world; v takes it in the body's axes)."""
    w, x, y, z = np.roll(rotation.as_quat(), 1)
    q = np.concatenate([translation, [w, x, y, z]])
    return q, np.concatenate([velocity, rotation.inv().apply(omega)])


def deflection_jacobian(R, rho):
    """d[d; theta]/d[delta; phi] at the undeflected pose: the CG moved by delta and turned by
    the small angle phi (world axes) moves B's origin by delta + phi x rho; both are then
    resolved in A's axes."""
    J = np.zeros((6, 6))
    J[:3, :3] = R.T
    J[:3, 3:] = -R.T @ skew(rho)
    J[3:, 3:] = R.T
    return J


def assert_matrix_close(actual, expected, rel):
    """|a_ij - e_ij| <= rel sqrt(e_ii e_jj): each entry to ``rel`` of its own scale (the
    translational and rotational blocks differ by 3 orders of magnitude)."""
    d = np.sqrt(np.abs(np.diag(expected)))
    bound = rel * np.outer(d, d)
    assert np.all(np.abs(actual - expected) <= bound), np.abs(actual - expected) / bound


def stencil(f, h):
    """df/dt at rows 2..n-3 by the 5-point central difference (error (w h)^4 / 30)."""
    return (f[:-4] - 8.0 * f[1:-3] + 8.0 * f[3:-1] - f[4:]) / (12.0 * h)


# --------------------------------------------------------------------------- 1. K and C at 0

def test_wrench_derivatives_in_a_axes_are_minus_the_stiffness_and_damping_diagonals():
    """Deflect B by +-eps along and about each of A's axes (A rotated, B off the CG): the
    force and torque on B in A's axes change by -K_k eps (-C_k eps for rates) in component k
    only. Along an axis the deflection is exact (a rotation about B's origin, the CG moved to
    keep it there), and theta x K_r theta = 0, so the relation is exact: round-off only
    (measured 3e-13 relative; held to 1e-9)."""
    system = one_body("stiffness_rows")
    eps = 1e-4
    states = []
    for k in range(6):
        for sign in (1.0, -1.0):
            e = sign * eps * R_A[:, k % 3]            # A's axis k, world
            if k < 3:
                states.append(sixdof_state(e))
            else:
                turn = Rotation.from_rotvec(e)         # about B's origin: the CG moves
                states.append(sixdof_state(MOUNT - turn.apply(MOUNT), turn))
    for k in range(6):
        for sign in (1.0, -1.0):
            e = sign * eps * R_A[:, k % 3]
            if k < 3:
                states.append(sixdof_state(np.zeros(3), velocity=e))
            else:                                      # B's origin at rest: v_cg = -w x rho
                states.append(sixdof_state(np.zeros(3), velocity=-np.cross(e, MOUNT), omega=e))
    force = rows(system, states).force("bushing")
    W = force.value.reshape(2, 6, 2, 6)                # [position/rate, k, +/-, component]
    stiffness = (W[0, :, 0] - W[0, :, 1]) / (2.0 * eps)
    damping = (W[1, :, 0] - W[1, :, 1]) / (2.0 * eps)
    np.testing.assert_allclose(stiffness, -np.diag(K6), rtol=0, atol=1e-9 * K6.max())
    np.testing.assert_allclose(damping, -np.diag(C6), rtol=0, atol=1e-9 * C6.max())
    assert np.abs(np.diag(stiffness) / -K6 - 1.0).max() < 1e-9
    assert np.abs(np.diag(damping) / -C6 - 1.0).max() < 1e-9
    # the deflections read are the ones made: eps along/about A's axis k
    D = force.deflection.reshape(2, 6, 2, 6)
    np.testing.assert_allclose(D[0, :, 0], eps * np.eye(6), rtol=0, atol=1e-15)
    np.testing.assert_allclose(force.rate.reshape(2, 6, 2, 6)[1, :, 0], eps * np.eye(6),
                               rtol=0, atol=1e-15)


@pytest.mark.parametrize("aligned", [True, False], ids=["aligned_at_cg", "rotated_offset"])
def test_linearized_stiffness_and_damping_are_the_diagonals_mapped_to_the_coordinates(aligned):
    """mbd.linearize about the undeflected state: K = J^T diag(K) J, Cd = J^T diag(C) J
    (diag(K), diag(C) themselves for A aligned at the CG). Measured 1e-14 of each entry's
    scale; held to 1e-6."""
    R, mount = (np.eye(3), np.zeros(3)) if aligned else (R_A, MOUNT)
    system = one_body("linear", R=R, mount=mount)
    lin = mbd.linearize(system, system.initial_state())
    J = deflection_jacobian(R, mount)
    assert_matrix_close(lin.K, J.T @ np.diag(K6) @ J, 1e-6)
    assert_matrix_close(lin.Cd, J.T @ np.diag(C6) @ J, 1e-6)
    np.testing.assert_allclose(lin.M, np.block([[MASS * np.eye(3), np.zeros((3, 3))],
                                                [np.zeros((3, 3)), INERTIA]]), atol=1e-12)
    if aligned:
        assert_matrix_close(lin.K, np.diag(K6), 1e-6)


# --------------------------------------------------------------------------- 2. energy

#: a deflection in all six components (up to 0.5 rad during the run) and a velocity
Q_START = [0.012, -0.02, 0.015, Rotation.from_rotvec([0.3, -0.2, 0.4])]
V_START = [0.1, 0.2, -0.1, 1.0, -0.5, 0.7]


@pytest.mark.parametrize("gravity", [0.0, G], ids=["no_gravity", "gravity"])
def test_undamped_bushing_conserves_energy(gravity):
    """Kinetic + gravity + bushing energy stays constant over 2 s (5 to 45 periods of the
    modes, 2.3 to 22 Hz) at rtol = atol = 1e-10: measured 2.6e-10 of the largest term; held
    to 1e-7."""
    system = one_body("conservative", damping=np.zeros(6), gravity=gravity, q0=Q_START,
                      v0=V_START)
    r = system.simulate(2.0, output_step=0.01, rtol=TOL, atol=TOL)
    b = r.force("bushing")
    # large, anisotropic rotations: the inverse Jacobian in the torque matters here
    assert np.abs(b.deflection[:, 3:]).max() > 0.4
    # the bushing's energy is 1/2 sum k_i D_i^2 of the deflection it reports
    np.testing.assert_allclose(b.energy, 0.5 * (b.deflection ** 2) @ K6, rtol=1e-13, atol=0)
    E = r.energy()
    scale = max(np.abs(r.kinetic_energy()).max(), np.abs(b.energy).max())
    assert scale > 1.0
    assert np.abs(E - E[0]).max() < 1e-7 * scale
    # and the same as the run's balance: nothing dissipated
    eb = r.energy_balance()
    assert np.abs(eb.dissipated["bushing"]).max() < 1e-8 * scale


# --------------------------------------------------------------------------- 3. power

def test_power_with_damping_and_preload_closes_the_energy_balance():
    """With damping, preload and gravity: the element's power P (``xdot``) equals
    -dE/dt - rate^T C rate + P0 . rate at every row (dE/dt by the 5-point stencil of the
    reported energy at h = 0.25 ms: measured 7e-7 of the largest power, the stencil's
    truncation for modes up to 140 rad/s; held to 1e-5), and the run's balance books as the
    bushing's dissipation the Simpson quadrature of rate^T C rate - P0 . rate (measured 3e-8
    of the largest term, held to 1e-6), its stored energy 1/2 sum k D^2, and closes
    (measured 7e-11, held to 1e-9)."""
    h = 2.5e-4
    C = C6 * 5.0
    system = one_body("power", damping=C, preload=P6, gravity=G, q0=Q_START, v0=V_START)
    r = system.simulate(0.6, output_step=h, rtol=TOL, atol=TOL)
    b = r.force("bushing")
    damping = (b.rate ** 2) @ C                       # W taken out by the dampers
    preload = b.rate @ P6                             # W put in by the preload
    power = b.xdot
    assert np.abs(damping).max() > 10.0 and np.abs(preload).max() > 10.0
    np.testing.assert_allclose(power[2:-2], -stencil(b.energy, h) - damping[2:-2]
                               + preload[2:-2], rtol=0, atol=1e-5 * np.abs(power).max())
    eb = r.energy_balance()
    lost = cumulative_simpson(damping - preload, x=r.t, initial=0.0)
    np.testing.assert_allclose(eb.dissipated["bushing"], lost, rtol=0, atol=1e-6 * eb.scale)
    stored = 0.5 * (b.deflection ** 2) @ K6
    np.testing.assert_allclose(eb.stored["bushing"], stored - stored[0], rtol=0,
                               atol=1e-12 * eb.scale)
    assert eb.relative_residual < 10.0 * TOL
    assert lost[-1] > 0.1 * eb.scale                  # the damping matters in this run


# --------------------------------------------------------------------------- 4. third law

MASS_A, MASS_B = 3.0, 1.2
INERTIA_A = Rotation.from_rotvec([0.2, 0.1, -0.3]).as_matrix() @ np.diag([0.05, 0.08, 0.11]) \
    @ Rotation.from_rotvec([0.2, 0.1, -0.3]).as_matrix().T
INERTIA_B = Rotation.from_rotvec([-0.1, 0.4, 0.2]).as_matrix() @ np.diag([0.02, 0.03, 0.04]) \
    @ Rotation.from_rotvec([-0.1, 0.4, 0.2]).as_matrix().T
CG_B = np.array([0.3, 0.1, -0.05])
PIN = np.array([0.15, 0.05, -0.1])            # the bushing, off both CGs
K2 = np.array([2e3, 3e3, 4e3, 20.0, 30.0, 40.0])
C2 = np.array([2.0, 3.0, 4.0, 0.02, 0.03, 0.04])
P2 = np.array([5.0, -3.0, 2.0, 0.5, -0.4, 0.3])
H2 = 5e-4                                     # output step of the two-body run, s


def two_bodies():
    """Body A (CG at the origin) and body B, each free on a SixDof from a ground at its CG to
    a CS "float" at the CG with turned axes (so that the bodies' link frames are not the
    world's), joined by a Bushing from A's CS "sleeve" to B's CS "pin" (both at PIN, axes
    R_A), no gravity; both start turned and moving, the bushing deflected in all six
    components."""
    m = mbd.Model("two_bodies")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0.0, 0.0, 0.0)))
    gb = m.add_ground("gb", at=CG_B)
    a = m.add_body("A", mass=MASS_A, cg=(0.0, 0.0, 0.0), inertia=INERTIA_A,
                   cs={"sleeve": (PIN, R_A),
                       "float": ((0.0, 0.0, 0.0), Rotation.from_rotvec([0.4, -0.7, 0.2]))})
    b = m.add_body("B", mass=MASS_B, cg=CG_B, inertia=INERTIA_B,
                   cs={"pin": (PIN, R_A), "float": (CG_B, Rotation.from_rotvec([-0.5, 0.3, 0.9]))})
    m.add(SixDof("free_a", g, a["float"],
                 q0=[0.0, 0.0, 0.0, Rotation.from_rotvec([0.05, 0.1, -0.08])],
                 v0=[0.1, -0.2, 0.05, 0.6, -0.3, 0.9]))
    m.add(SixDof("free_b", gb, b["float"],
                 q0=[0.01, -0.008, 0.012, Rotation.from_rotvec([0.15, -0.1, 0.2])],
                 v0=[-0.2, 0.1, 0.3, -0.4, 0.8, 0.2]))
    m.add(Bushing("mount", a["sleeve"], b["pin"], stiffness=list(K2), damping=list(C2),
                  preload=list(P2)))
    return m.build()


def test_the_drawn_pose_is_undeflected_whatever_the_link_frames():
    """Every joint coordinate zero (the drawing): the CSs coincide with the same axes, so the
    bushing reads no deflection and gives its preload alone, though the bodies' link frames
    are turned (exact: measured 1e-16)."""
    system = two_bodies()
    q = np.zeros(system.nq)
    q[[3, 10]] = 1.0                                   # the two quaternions' w
    f = rows(system, [(q, np.zeros(system.nv))]).force("mount")
    np.testing.assert_allclose(f.deflection[0], 0.0, rtol=0, atol=1e-15)
    np.testing.assert_allclose(f.value[0], P2, rtol=0, atol=1e-13)


def momenta(r, name, mass, inertia):
    """(n, 3) linear momentum and (n, 3) angular momentum about the world origin of a body."""
    body = r.body(name)
    c, v, w = body.position("cg"), body.velocity("cg"), body.angular_velocity
    R = body.rotation.as_matrix()
    spin = np.einsum("nij,jk,nlk,nl->ni", R, inertia, R, w)      # R I R^T w
    return mass * v, np.cross(c, mass * v) + spin


@pytest.fixture(scope="module")
def two_body_run():
    return two_bodies().simulate(1.0, output_step=H2, rtol=TOL, atol=TOL)


def test_momentum_of_two_free_bodies_on_a_bushing_is_conserved(two_body_run):
    """Total linear and angular momentum (about the origin) constant over 1 s: measured 5e-15
    (linear) and 1.3e-11 (angular) of the largest body momentum; held to 1e-8."""
    r = two_body_run
    pa, la = momenta(r, "A", MASS_A, INERTIA_A)
    pb, lb = momenta(r, "B", MASS_B, INERTIA_B)
    for total, part in ((pa + pb, pb), (la + lb, lb)):
        scale = np.abs(part).max()
        assert scale > 0.1
        np.testing.assert_allclose(total, np.broadcast_to(total[0], total.shape), rtol=0,
                                   atol=1e-8 * scale)


def test_each_body_feels_the_reported_wrench_and_its_opposite(two_body_run):
    """Each body's momentum rate (5-point stencil, h = 0.5 ms: measured 2e-7 of the largest
    load, held to 1e-5) is the wrench it feels: on B the reported world force F at the pin and
    the torque R_A T; on A minus both (moments about the world origin)."""
    r, h = two_body_run, H2
    pa, la = momenta(r, "A", MASS_A, INERTIA_A)
    pb, lb = momenta(r, "B", MASS_B, INERTIA_B)
    f = r.force("mount")
    R_a = r.body("A").cs_rotation("sleeve").as_matrix()
    F = f.vector
    np.testing.assert_allclose(F, np.einsum("nij,nj->ni", R_a, f.value[:, :3]), atol=1e-12)
    T = np.einsum("nij,nj->ni", R_a, f.value[:, 3:])
    pin = r.body("B").position("pin")
    wrench_b = np.hstack([F, np.cross(pin, F) + T])[2:-2]
    rate_a = np.hstack([stencil(pa, h), stencil(la, h)])
    rate_b = np.hstack([stencil(pb, h), stencil(lb, h)])
    for got, want in ((rate_b, wrench_b), (rate_a, -wrench_b), (rate_a, -rate_b)):
        for block in (slice(0, 3), slice(3, 6)):
            scale = np.abs(want[:, block]).max()
            assert scale > 1.0
            np.testing.assert_allclose(got[:, block], want[:, block], rtol=0,
                                       atol=1e-5 * scale)


def spring_torque(M, k_r):
    """The torque on B (A's axes) of E = 1/2 theta^T K_r theta, theta = log(M): T . w =
    -dE/dt for every relative angular velocity w (dM/dt = [w] M), so T = -(dtheta/dw)^T
    K_r theta, dtheta/dw by central differences of scipy's log of exp(delta) M."""
    theta = Rotation.from_matrix(M).as_rotvec()
    eps = 1e-6
    J = np.zeros((3, 3))
    for k in range(3):
        delta = np.zeros(3)
        delta[k] = eps
        up = (Rotation.from_rotvec(delta) * Rotation.from_matrix(M)).as_rotvec()
        down = (Rotation.from_rotvec(-delta) * Rotation.from_matrix(M)).as_rotvec()
        J[:, k] = (up - down) / (2.0 * eps)
    return -J.T @ (k_r * theta)


def test_deflection_rates_and_wrench_follow_the_spec_from_the_poses(two_body_run):
    """From the bodies' poses alone: d = R_A^T (p_B - p_A), theta = log(R_A^T R_B) (scipy),
    ddot = d(d)/dt (stencil: measured 2.3e-7 of the largest rate, held to 1e-5), w = R_A^T
    (w_B - w_A); F = -K d - C ddot + F0, T = -(dtheta/dw)^T K_r theta - C w + T0 (measured
    8e-11 N m of a 5 N m torque with the finite-difference Jacobian, held to 1e-7 N m)."""
    r, h = two_body_run, H2
    f = r.force("mount")
    R_a = r.body("A").cs_rotation("sleeve").as_matrix()
    R_b = r.body("B").cs_rotation("pin").as_matrix()
    d = np.einsum("nji,nj->ni", R_a, r.body("B").position("pin") - r.body("A").position("sleeve"))
    M = np.einsum("nji,njk->nik", R_a, R_b)
    theta = Rotation.from_matrix(M).as_rotvec()
    w = np.einsum("nji,nj->ni", R_a, r.body("B").angular_velocity - r.body("A").angular_velocity)
    np.testing.assert_allclose(f.deflection, np.hstack([d, theta]), rtol=0, atol=1e-13)
    np.testing.assert_allclose(f.rate[:, 3:], w, rtol=0, atol=1e-12)
    np.testing.assert_allclose(f.rate[2:-2, :3], stencil(d, h), rtol=0,
                               atol=1e-5 * np.abs(f.rate[:, :3]).max())
    assert np.abs(theta).max() > 0.1 and np.abs(d).max() > 0.01
    force = -K2[:3] * d - C2[:3] * f.rate[:, :3] + P2[:3]
    np.testing.assert_allclose(f.value[:, :3], force, rtol=0, atol=1e-9 * np.abs(force).max())
    for i in range(0, len(r.t), 50):
        torque = spring_torque(M[i], K2[3:]) - C2[3:] * w[i] + P2[3:]
        np.testing.assert_allclose(f.value[i, 3:], torque, rtol=0, atol=1e-7)
    np.testing.assert_allclose(f.energy, 0.5 * (f.deflection ** 2) @ K2, rtol=1e-13)


# --------------------------------------------------------------------------- 5. modes

def test_six_frequencies_of_a_body_on_one_bushing_at_its_cg_along_principal_axes():
    """A along the body's principal axes (turned from the world): the modes decouple into
    sqrt(k_i/m)/2pi and sqrt(k_ri/I_i)/2pi; measured 1e-15 relative, held to 1e-6."""
    R = Rotation.from_euler("zyx", [0.7, -0.4, 0.25]).as_matrix()
    principal = np.array([0.11, 0.17, 0.23])
    k = np.array([1.1e4, 2.3e4, 3.7e4, 41.0, 53.0, 67.0])
    system = one_body("principal", stiffness=k, damping=np.zeros(6), R=R,
                      mount=np.zeros(3), inertia=R @ np.diag(principal) @ R.T)
    modes = mbd.linearize(system, system.initial_state()).modes()
    expected = np.sort(np.concatenate([np.sqrt(k[:3] / MASS), np.sqrt(k[3:] / principal)])
                       / (2.0 * np.pi))
    np.testing.assert_allclose([m.frequency for m in modes], expected, rtol=1e-6)
    assert all(m.kind == "oscillating" and abs(m.damping_ratio) < 1e-6 for m in modes)


def test_six_frequencies_of_a_body_on_four_corner_bushings():
    """Four equal bushings at (+-a, +-b, 0) from the CG (in its plane), principal axes along
    the world's: translations sqrt(4 k/m); roll (4 kz b^2 + 4 kax)/Ix, pitch (4 kz a^2 +
    4 kay)/Iy, yaw (4 (kx b^2 + ky a^2) + 4 kaz)/Iz under the square root. Measured 1e-11
    relative, held to 1e-6."""
    a, b = 0.4, 0.25
    kx, ky, kz, kax, kay, kaz = 3e4, 4e4, 9e4, 150.0, 210.0, 260.0
    mass, I = 60.0, np.array([2.1, 3.4, 4.6])
    m = mbd.Model("four_mounts")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0.0, 0.0, 0.0)))
    corners = [(sx * a, sy * b, 0.0) for sx in (1, -1) for sy in (1, -1)]
    body = m.add_body("block", mass=mass, cg=(0.0, 0.0, 0.0), inertia=I,
                      cs={f"m{k}": c for k, c in enumerate(corners)})
    m.add(SixDof("free", g, body["cg"]))
    for k, c in enumerate(corners):
        mount = m.add_ground(f"base{k}", at=c)
        m.add(Bushing(f"mount{k}", mount, body[f"m{k}"],
                      stiffness=[kx, ky, kz, kax, kay, kaz], damping=[0.0] * 6))
    system = m.build()
    modes = mbd.linearize(system, system.initial_state()).modes()
    stiff = np.array([4 * kx, 4 * ky, 4 * kz, 4 * kz * b * b + 4 * kax,
                      4 * kz * a * a + 4 * kay, 4 * (kx * b * b + ky * a * a) + 4 * kaz])
    inertia = np.array([mass, mass, mass, *I])
    expected = np.sort(np.sqrt(stiff / inertia)) / (2.0 * np.pi)
    np.testing.assert_allclose([md.frequency for md in modes], expected, rtol=1e-6)
    # the bounce is sqrt(4 kz / m) and moves only z
    bounce = min(modes, key=lambda md: abs(md.frequency - np.sqrt(4 * kz / mass) / (2 * np.pi)))
    assert max(bounce.shape, key=lambda c: abs(bounce.shape[c])) == "free.q2"


# --------------------------------------------------------------------------- 6. equilibrium

@pytest.mark.parametrize("fz", [0.0, 7.5])
def test_static_deflection_under_gravity_is_preload_minus_weight_over_kz(fz):
    """A body hanging on a bushing at its CG (A aligned): kz d_z + m g = fz at rest, so
    d_z = (fz - m g) / kz (measured: exact to 1e-17 m, Newton's residual 5e-13 N); x, y and
    the orientation stay put."""
    k = np.array([1.1e4, 2.3e4, 3.7e4, 41.0, 53.0, 67.0])
    preload = np.array([0.0, 0.0, fz, 0.0, 0.0, 0.0])
    system = one_body("hanging", stiffness=k, preload=preload, R=np.eye(3), mount=np.zeros(3),
                      gravity=G)
    eq = mbd.equilibrium(system)
    q = eq.coordinates()["free"]
    np.testing.assert_allclose(q[:3], [0.0, 0.0, (fz - MASS * G) / k[2]], rtol=0, atol=1e-12)
    np.testing.assert_allclose(q[3:], [1.0, 0.0, 0.0, 0.0], rtol=0, atol=1e-12)
    assert eq.stable


def test_static_deflection_through_a_rotated_a_uses_that_axis_stiffness_and_preload():
    """A turned +90 deg about x: A's y is the world's +z. The weight is carried by ky and the
    preload's fy: the CG sinks (fy - m g) / ky along the world z, and the bushing reads that
    deflection along its own y."""
    k = np.array([1.1e4, 2.3e4, 3.7e4, 41.0, 53.0, 67.0])
    fy = 6.0
    R = Rotation.from_rotvec([np.pi / 2, 0.0, 0.0]).as_matrix()
    system = one_body("hanging_turned", stiffness=k, preload=[0.0, fy, 0.0, 0.0, 0.0, 0.0],
                      R=R, mount=np.zeros(3), gravity=G)
    eq = mbd.equilibrium(system)
    q = eq.coordinates()["free"]
    sag = (fy - MASS * G) / k[1]
    np.testing.assert_allclose(q[:3], [0.0, 0.0, sag], rtol=0, atol=1e-12)
    r = rows(system, [(eq.state.q, eq.state.v)])
    np.testing.assert_allclose(r.force("bushing").deflection[0], [0.0, sag, 0.0, 0.0, 0.0, 0.0],
                               atol=1e-12)
    # the bushing holds the weight: the force on B is m g up, along A's y
    np.testing.assert_allclose(r.force("bushing").value[0, :3], [0.0, MASS * G, 0.0],
                               atol=1e-8)


# --------------------------------------------------------------------------- 7. bad input

@pytest.mark.parametrize("kwargs, text", [
    (dict(stiffness=[1e3] * 5, damping=[0.0] * 6),
     "Bushing 'mnt': stiffness must be 6 real numbers, got [1000.0, 1000.0, 1000.0, 1000.0, "
     "1000.0]"),
    (dict(stiffness=[1e3] * 6, damping=[0.0, 0.0, -2.5, 0.0, 0.0, 0.0]),
     "Bushing 'mnt': damping cz must be >= 0 and finite, got -2.5"),
    (dict(stiffness=[1e3] * 6, damping=[0.0] * 6, preload=[0.0, 0.0, 0.0, float("nan"), 0, 0]),
     "Bushing 'mnt': preload tx must be finite, got nan"),
    (dict(stiffness=[1e3] * 5 + [float("inf")], damping=[0.0] * 6),
     "Bushing 'mnt': stiffness kaz must be >= 0 and finite, got inf"),
])
def test_bad_parameters_name_the_element_component_and_value(kwargs, text):
    with pytest.raises(mbd.ModelError) as err:
        Bushing("mnt", None, None, **kwargs)
    assert text in str(err.value)


def test_with_parameters_changes_one_component_and_validates():
    m = mbd.Model("w")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0.0, 0.0, 0.0)))
    body = m.add_body("body", mass=1.0, cg=(0.0, 0.0, 0.0), inertia=[0.1, 0.1, 0.1])
    b = Bushing("mnt", g, body["cg"], stiffness=list(K6), damping=list(C6), preload=list(P6))
    changed = b.with_parameters(kz=5.0, caz=0.5, preload=[0.0] * 6)
    assert changed.stiffness == (K6[0], K6[1], 5.0, K6[3], K6[4], K6[5])
    assert changed.damping[5] == 0.5 and changed.damping[:5] == tuple(C6[:5])
    assert changed.preload == (0.0,) * 6 and changed.law.stiffness == changed.stiffness
    with pytest.raises(mbd.ModelError, match=r"Bushing 'mnt': stiffness ky must be >= 0"):
        b.with_parameters(ky=-1.0)
    with pytest.raises(TypeError, match="has no parameter 'k'"):
        b.with_parameters(k=1.0)
    with pytest.raises(ValueError, match="Bushing law: damping cx must be >= 0"):
        _BushingLaw(stiffness=K6, damping=[-1.0, 0, 0, 0, 0, 0])


def test_a_bushing_on_one_body_is_refused_at_build():
    m = mbd.Model("same")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0.0, 0.0, 0.0)))
    body = m.add_body("body", mass=1.0, cg=(0.0, 0.0, 0.0), inertia=[0.1, 0.1, 0.1],
                      cs={"p": (0.1, 0.0, 0.0)})
    m.add(SixDof("free", g, body["cg"]))
    m.add(Bushing("mnt", body["cg"], body["p"], stiffness=[1.0] * 6, damping=[0.0] * 6))
    with pytest.raises(mbd.ModelError, match="Bushing 'mnt': acts between two CSs of 'body'"):
        m.build()


def test_the_record_is_where_the_placement_reads_it():
    """The law's parameter record puts each vector where the core's bushing placement reads
    it (mbd.compiled.layout), component by component."""
    from forces.bushing import BUSHING_COMPONENTS, PARAMETERS
    from mbd.compiled import layout
    for vector, start in (("stiffness", layout.STIFFNESS), ("damping", layout.DAMPING),
                          ("preload", layout.PRELOAD)):
        assert [PARAMETERS.index(c) for c in BUSHING_COMPONENTS[vector]] == \
            list(range(start, start + 6))
    law = _BushingLaw(K6, C6, tuple(range(6)))
    row = np.asarray(law.parameters())
    assert np.array_equal(row[layout.STIFFNESS:layout.STIFFNESS + 6], K6)
    assert np.array_equal(row[layout.PRELOAD:layout.PRELOAD + 6], np.arange(6.0))
