"""mbd against peers on two more models of issue 7: a four-bar loop and a mass between BISTOP
stops (not a test: run it by hand).

**Four-bar loop.** Four revolute joints in the xz-plane, every axis along -y, so that a joint
angle grows from +x towards +z (the usual planar angle seen from -y). Ground pivots A = (0, 0,
0) and D = (2, 0, 0) m; crank A-B 1 m, coupler B-C 2 m, rocker C-D 1.5 m (a Grashof
crank-rocker: 1 + 2 < 2 + 1.5, the crank can turn round); uniform slender rods of 1 kg/m with
inertia m L^2/12 about both axes across the rod and 1e-6 kg m^2 along it; g = 9.81 m/s^2
along -z. The crank starts at phi = 1.0 rad from +x towards +z, everything at rest, with C on
the side of B-D that points up when the crank lies along +x. Scored: the crank angle phi at
t = 10 s (rad).

The reference is independent of mbd: the one-coordinate Lagrange equation in phi, from the
closed-form position analysis (C as the intersection of two circles), its velocity and
acceleration coefficients, the generalized mass M(phi) and the potential V(phi),
phi'' = -(V' + M' phi'^2 / 2) / M, under scipy's DOP853 at rtol = atol = 1e-13. The same
hand-derived ODE at looser tolerances is also a peer row: what an engineer would hand-write.
Pinocchio closes the loop with a RigidConstraintModel (CONTACT_3D, LOCAL) between the
coupler's end and the rocker's end, with Baumgarte gains, under scipy's DOP853; MuJoCo with an
equality ``connect`` (a soft constraint) and fixed-step RK4; Exudyn with planar rigid bodies,
four revolute joints (redundant coordinates, index-3 constraints) and its implicit
generalized-alpha at fixed steps.

**Wall.** A 1 kg body on a prismatic joint along x (gravity along -z, carried by the joint)
starts at x = 0 with 2 m/s between BISTOP stops at x1 = -0.5 m and x2 = 0.5 m (k = 1e7
N/m^2.1, e = 2.1, cmax = 10 N s/m at a penetration of d = 1 mm): it hits the upper stop, the
lower one and the upper one again, three contacts in 2 s. Scored: x at t = 2 s (m). The
reference is mbd at rtol = atol = 1e-13 (exact switching), checked against scipy's DOP853 on
m x'' = BISTOP(x, x') restarted at every switch of the law (contact begins/ends, the damping
ramp ends, the force would pull and is clamped to zero) at the same tolerance. Peers: that
piecewise integration, and the plain one with no events (the kinks inside the steps, left to
the error control). The BISTOP here is written from SPEC, not taken from mbd, and checked
against SPEC's worked values and mbd's law (asserted). MuJoCo's nearest model, a limited
slide joint, is a different (soft) law: it appears in a note only.

For each model and engine a setting (rtol = atol, or the time step of MuJoCo and Exudyn) is
swept from cheap to expensive with :func:`peers.sweep` over peers' TOLS and STEPS; the cheapest
setting whose |error| is below 1e-3 (and 1e-6) is timed again with :func:`peers.timed`
(the median of its repeats, the sweep's run having served as warm-up; the references run
first, so no row pays a JIT compilation). Every runner returns
``(final value (1,), wall seconds, RHS evaluations or steps, energy figure J)``; the energy
figure is the drift |E(t_end) - E(0)| for the four-bar and the mechanical energy lost to the
stops' damping, E(0) - E(t_end), for the wall.

Usage::

    python benchmarks/models.py            # both models, about 2 minutes on 2 cores
    python benchmarks/models.py fourbar    # one of them (fourbar, wall)

``main()`` returns the rows (for :func:`peers.table`, the model's name in the N column) and the
notes, for another script to print.
"""
import math
import os
import platform
import sys
import time

import numpy as np
from scipy.integrate import solve_ivp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers import REF_TOL, STEPS, TOLS, score, table  # noqa: E402

import mbd  # noqa: E402
from forces import AxialForce, Bistop  # noqa: E402
from joints import Prismatic, Revolute  # noqa: E402

GRAVITY = 9.81


# ============================================================================ four-bar

FB_GROUND = 2.0                  # m, A to D along +x
FB_LENGTHS = (1.0, 2.0, 1.5)     # m, crank, coupler, rocker
FB_DENSITY = 1.0                 # kg/m
FB_AXIAL = 1e-6                  # kg m^2, each rod's inertia about its own axis
FB_PHI0 = 1.0                    # rad, crank angle at t = 0 (from +x towards +z)
FB_T_END = 10.0                  # s
FB_AXIS = (0.0, -1.0, 0.0)       # every hinge: +angle carries +x towards +z
FB_STEPS = sorted(set(STEPS) | {1e-1, 5e-2, 2e-2, 1e-2}, reverse=True)   # s, MuJoCo, Exudyn


def _e(a):
    """Unit vector (x, z) at planar angle a (rad) from +x towards +z."""
    return math.cos(a), math.sin(a)


class FourBar:
    """The four-bar as a one-coordinate system in the crank angle phi, from the closed-form
    position analysis: engine-independent.

    Links are L_k e(alpha_k) in the (x, z) plane: alpha_1 = phi the crank (A to B), alpha_2
    the coupler (B to C), alpha_3 the rocker (D to C); closure a e(phi) + b e(alpha_2) =
    (D - A) + c e(alpha_3). Differentiating the closure once and twice gives the rates
    w_k = dalpha_k/dphi and their derivatives; the CG velocities follow, then the generalized
    mass M = sum m_k |dp_k/dphi|^2 + I_k w_k^2 and V = g sum m_k z_k.
    """

    def __init__(self):
        self.a, self.b, self.c = FB_LENGTHS
        self.mass = tuple(FB_DENSITY * L for L in FB_LENGTHS)
        self.inertia = tuple(m * L * L / 12.0 for m, L in zip(self.mass, FB_LENGTHS))
        self.drawing = self.angles(0.0)   # the pose every engine is drawn in: crank along +x

    def angles(self, phi):
        """(phi, alpha_2, alpha_3) in rad; C on the left of B->D (up when the crank is at 0)."""
        a, b, c = self.a, self.b, self.c
        bx, bz = a * math.cos(phi), a * math.sin(phi)
        ux, uz = FB_GROUND - bx, -bz
        dist = math.hypot(ux, uz)
        ux, uz = ux / dist, uz / dist
        along = (b * b - c * c + dist * dist) / (2.0 * dist)
        across = math.sqrt(b * b - along * along)
        cx, cz = bx + along * ux - across * uz, bz + along * uz + across * ux
        return phi, math.atan2(cz - bz, cx - bx), math.atan2(cz, cx - FB_GROUND)

    def points(self, phi):
        """B and C (x, z), m."""
        phi, a2, a3 = self.angles(phi)
        B = np.array([self.a * math.cos(phi), self.a * math.sin(phi)])
        return B, B + self.b * np.array(_e(a2))

    def rates(self, alpha):
        """(w2, w3), (w2', w3'): dalpha_k/dphi and d2alpha_k/dphi2 at the angles ``alpha``."""
        phi, a2, a3 = alpha
        a, b, c = self.a, self.b, self.c
        s1, c1, s2, c2, s3, c3 = (math.sin(phi), math.cos(phi), math.sin(a2), math.cos(a2),
                                  math.sin(a3), math.cos(a3))
        # [b e'(a2), -c e'(a3)] w = rhs, e'(a) = (-sin a, cos a)
        m11, m12, m21, m22 = -b * s2, c * s3, b * c2, -c * c3
        det = m11 * m22 - m12 * m21
        r1, r2 = a * s1, -a * c1
        w2, w3 = (r1 * m22 - m12 * r2) / det, (m11 * r2 - m21 * r1) / det
        r1 = a * c1 + b * c2 * w2 * w2 - c * c3 * w3 * w3
        r2 = a * s1 + b * s2 * w2 * w2 - c * s3 * w3 * w3
        return (w2, w3), ((r1 * m22 - m12 * r2) / det, (m11 * r2 - m21 * r1) / det)

    def terms(self, phi):
        """(M, dM/dphi, dV/dphi) at phi: kg m^2, kg m^2/rad, N m."""
        alpha = self.angles(phi)
        (w2, w3), (v2, v3) = self.rates(alpha)
        _, a2, a3 = alpha
        a, b, c = self.a, self.b, self.c
        s1, c1, s2, c2, s3, c3 = (math.sin(phi), math.cos(phi), math.sin(a2), math.cos(a2),
                                  math.sin(a3), math.cos(a3))
        # dp_k/dphi and d2p_k/dphi2 of the three CGs, (x, z)
        dp = ((-0.5 * a * s1, 0.5 * a * c1),
              (-a * s1 - 0.5 * b * s2 * w2, a * c1 + 0.5 * b * c2 * w2),
              (-0.5 * c * s3 * w3, 0.5 * c * c3 * w3))
        d2p = ((-0.5 * a * c1, -0.5 * a * s1),
               (-a * c1 - 0.5 * b * (c2 * w2 * w2 + s2 * v2),
                -a * s1 + 0.5 * b * (-s2 * w2 * w2 + c2 * v2)),
               (-0.5 * c * (c3 * w3 * w3 + s3 * v3), 0.5 * c * (-s3 * w3 * w3 + c3 * v3)))
        w, dw = (1.0, w2, w3), (0.0, v2, v3)
        M = dM = dV = 0.0
        for k in range(3):
            m, inertia = self.mass[k], self.inertia[k]
            M += m * (dp[k][0] ** 2 + dp[k][1] ** 2) + inertia * w[k] ** 2
            dM += 2.0 * (m * (dp[k][0] * d2p[k][0] + dp[k][1] * d2p[k][1])
                         + inertia * w[k] * dw[k])
            dV += GRAVITY * m * dp[k][1]
        return M, dM, dV

    def rhs(self, t, y):
        """d(phi, phi')/dt."""
        M, dM, dV = self.terms(y[0])
        return [y[1], -(dV + 0.5 * dM * y[1] * y[1]) / M]

    def energy(self, phi, omega):
        """Kinetic + gravity energy (zero at z = 0), J, at crank angle phi and rate omega."""
        _, a2, a3 = self.angles(phi)
        M = self.terms(phi)[0]
        z = (0.5 * self.a * math.sin(phi), self.a * math.sin(phi) + 0.5 * self.b * math.sin(a2),
             0.5 * self.c * math.sin(a3))
        return 0.5 * M * omega * omega + GRAVITY * sum(m * zk for m, zk in zip(self.mass, z))

    def joint_angles(self, phi):
        """Tree coordinates used by the peers: (crank, coupler relative to crank, rocker), rad,
        each from the drawing (crank along +x)."""
        alpha = self.angles(phi)
        d = self.drawing
        return np.array([alpha[0] - d[0], (alpha[1] - d[1]) - (alpha[0] - d[0]),
                         alpha[2] - d[2]])


def _rod_inertia(mass, p, q):
    """Inertia (3, 3) about the CG of a slender rod from p to q (world 3-vectors), kg m^2."""
    u = np.asarray(q, dtype=float) - np.asarray(p, dtype=float)
    length = np.linalg.norm(u)
    u /= length
    return mass * length ** 2 / 12.0 * (np.eye(3) - np.outer(u, u)) + FB_AXIAL * np.outer(u, u)


def fourbar_drawing():
    """The drawing's points A, B, C, D as 3-vectors (m), crank along +x."""
    B, C = FourBar().points(0.0)
    return (np.zeros(3), np.array([B[0], 0.0, B[1]]), np.array([C[0], 0.0, C[1]]),
            np.array([FB_GROUND, 0.0, 0.0]))


_FB_SYSTEM = []
_FB_LAST = {}     # the last mbd run's Result


def fourbar_system():
    """The four-bar as an mbd System (built once): drawn with the crank along +x, crank joint
    j1 with the exact target q0 = FB_PHI0; the engine cuts a joint and assembles the others."""
    if _FB_SYSTEM:
        return _FB_SYSTEM[0]
    A, B, C, D = fourbar_drawing()
    model = mbd.Model("fourbar")
    ground = model.add_ground("ground",
                              environment=mbd.Environment(gravity=(0.0, 0.0, -GRAVITY)))
    pivot = model.add_ground("pivot", at=D)
    bodies = []
    for name, p, q, mass in zip(("crank", "coupler", "rocker"), (A, B, D), (B, C, C),
                                FourBar().mass):
        bodies.append(model.add_body(name, mass, (p + q) / 2, _rod_inertia(mass, p, q),
                                     cs={"p": p, "q": q}))
    crank, coupler, rocker = bodies
    model.add(Revolute("j1", ground, crank["p"], axis=FB_AXIS, q0=FB_PHI0, exact=True))
    model.add(Revolute("j2", crank["q"], coupler["p"], axis=FB_AXIS))
    model.add(Revolute("j3", coupler["q"], rocker["q"], axis=FB_AXIS))
    model.add(Revolute("j4", pivot, rocker["p"], axis=FB_AXIS))
    _FB_SYSTEM.append(model.build())
    return _FB_SYSTEM[0]


def run_fourbar_mbd(_, t_end, tol):
    """mbd, DOP853 at rtol = atol = tol: (crank angle (1,), wall s, nfev, energy drift J)."""
    system = fourbar_system()
    start = time.perf_counter()
    result = system.simulate(t_end, output_step=t_end, rtol=tol, atol=tol)
    wall = time.perf_counter() - start
    _FB_LAST["result"] = result
    e = result.energy()
    return (np.array([result.joint("j1").q[-1]]), wall, int(result.stats["nfev"]),
            abs(e[-1] - e[0]))


def run_fourbar_lagrange(_, t_end, tol):
    """The one-coordinate Lagrange equation under scipy's DOP853 at rtol = atol = tol."""
    fb = FourBar()
    y0 = [FB_PHI0, 0.0]
    start = time.perf_counter()
    sol = solve_ivp(fb.rhs, (0.0, t_end), y0, method="DOP853", rtol=tol, atol=tol,
                    t_eval=[t_end])
    wall = time.perf_counter() - start
    phi, omega = sol.y[:, -1]
    return (np.array([phi]), wall, int(sol.nfev),
            abs(fb.energy(phi, omega) - fb.energy(*y0)))


# ---------------------------------------------------------------- Pinocchio

FB_PIN_KP, FB_PIN_KD = 100.0, 20.0    # Baumgarte gains, 1/s^2 and 1/s (critically damped)


def pinocchio_fourbar():
    """(model, loop constraint): crank on the universe at A, coupler on the crank at B,
    rocker on the universe at D; the loop closed by a CONTACT_3D between the coupler's end
    and the rocker's end at C (LOCAL), with Baumgarte gains. Joint coordinates are the tree
    angles of :meth:`FourBar.joint_angles` (0 in the drawing)."""
    import pinocchio as pin
    A, B, C, D = fourbar_drawing()
    mass = FourBar().mass
    model = pin.Model()
    model.gravity.linear = np.array([0.0, 0.0, -GRAVITY])
    axis = np.array(FB_AXIS)

    def add(parent, at, p, q, m, name):
        jid = model.addJoint(parent, pin.JointModelRevoluteUnaligned(axis),
                             pin.SE3(np.eye(3), at), name)
        # joint frames keep the world's orientation in the drawing; the CG relative to the
        # joint, which sits at the rod's end p
        model.appendBodyToJoint(jid, pin.Inertia(m, (q - p) / 2, _rod_inertia(m, p, q)),
                                pin.SE3.Identity())
        return jid

    crank = add(0, A, A, B, mass[0], "j1")
    coupler = add(crank, B - A, B, C, mass[1], "j2")
    rocker = add(0, D, D, C, mass[2], "j4")
    loop = pin.RigidConstraintModel(pin.ContactType.CONTACT_3D, model, coupler,
                                    pin.SE3(np.eye(3), C - B), rocker,
                                    pin.SE3(np.eye(3), C - D), pin.ReferenceFrame.LOCAL)
    gains = loop.m_baumgarte_parameters
    gains.Kp, gains.Kd = FB_PIN_KP, FB_PIN_KD
    loop.setBaumgarteCorrectorParameters(gains)
    return model, loop


def run_fourbar_pinocchio(_, t_end, tol, prox=(1e-12, 1e-12, 1e-8, 10)):
    """Pinocchio's constraintDynamics (C++) as the right-hand side of scipy's DOP853 at
    rtol = atol = tol. ``prox``: the ProximalSettings (absolute and relative accuracy, mu,
    iterations) that solve the loop's redundant KKT system (the closure's y row is zero)."""
    import pinocchio as pin
    model, loop = pinocchio_fourbar()
    data = model.createData()
    models = pin.StdVec_RigidConstraintModel()
    models.append(loop)
    datas = pin.StdVec_RigidConstraintData()
    datas.append(loop.createData())
    pin.initConstraintDynamics(model, data, models, datas)
    settings = pin.ProximalSettings(*prox)
    tau = np.zeros(3)
    dynamics = pin.constraintDynamics

    def rhs(t, y):
        return np.concatenate([y[3:], dynamics(model, data, y[:3], y[3:], tau, models, datas,
                                               settings)])

    def energy(y):
        return (pin.computeKineticEnergy(model, data, y[:3], y[3:])
                + pin.computePotentialEnergy(model, data, y[:3]))

    fb = FourBar()
    y0 = np.concatenate([fb.joint_angles(FB_PHI0), np.zeros(3)])
    start = time.perf_counter()
    sol = solve_ivp(rhs, (0.0, t_end), y0, method="DOP853", rtol=tol, atol=tol, t_eval=[t_end])
    wall = time.perf_counter() - start
    y1 = sol.y[:, -1]
    return np.array([y1[0]]), wall, int(sol.nfev), abs(energy(y1) - energy(y0))


# ---------------------------------------------------------------- MuJoCo

#: the loop's equality: solref = (FB_MJ_TIMECONST * dt, damping ratio 1), the stiffest MuJoCo
#: allows by default (refsafe raises any time constant below 2 dt to 2 dt; with refsafe
#: off, 1.5 dt and 1 dt were no more accurate and 0.7 dt less); solimp with dmin = dmax =
#: 0.9999, the largest impedance MuJoCo accepts (its default 0.9 .. 0.95 is ~100x softer)
FB_MJ_TIMECONST = 2.0
FB_MJ_SOLIMP = (0.9999, 0.9999, 0.001, 0.5, 2.0)


def _mj_inertia(mass, p, q):
    """MJCF fullinertia "ixx iyy izz ixy ixz iyz" of a rod from p to q, kg m^2."""
    inertia = _rod_inertia(mass, p, q)
    return " ".join(repr(float(inertia[i, j])) for i, j in
                    ((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)))


def mujoco_fourbar_xml(dt, solref=None, solimp=None):
    """The four-bar as MJCF, drawn with the crank along +x (qpos0 = 0 closes the loop): crank
    and rocker hinged to the world, coupler hinged to the crank, an equality ``connect``
    between the coupler's end and the rocker at C; no geoms (no contacts), RK4 at step dt."""
    A, B, C, D = fourbar_drawing()
    mass = FourBar().mass
    solref = (FB_MJ_TIMECONST * dt, 1.0) if solref is None else solref
    solimp = FB_MJ_SOLIMP if solimp is None else solimp
    axis = " ".join(str(a) for a in FB_AXIS)

    def vec(x):
        return " ".join(repr(float(a)) for a in x)

    def inertial(m, p, q):
        return (f'<inertial pos="{vec((q - p) / 2)}" mass="{m!r}" '
                f'fullinertia="{_mj_inertia(m, p, q)}"/>')

    return (f'<mujoco model="fourbar">'
            f'<compiler angle="radian" inertiafromgeom="false" balanceinertia="false" '
            f'boundmass="0" boundinertia="0"/>'
            f'<option timestep="{dt!r}" integrator="RK4" gravity="0 0 {-GRAVITY!r}" '
            f'tolerance="1e-15" iterations="100">'
            f'<flag contact="disable" energy="enable" refsafe="enable"/></option>'
            f'<worldbody>'
            f'<body name="crank" pos="{vec(A)}">'
            f'<joint name="j1" type="hinge" axis="{axis}"/>{inertial(mass[0], A, B)}'
            f'<body name="coupler" pos="{vec(B - A)}">'
            f'<joint name="j2" type="hinge" axis="{axis}"/>{inertial(mass[1], B, C)}'
            f'</body></body>'
            f'<body name="rocker" pos="{vec(D)}">'
            f'<joint name="j4" type="hinge" axis="{axis}"/>{inertial(mass[2], D, C)}'
            f'</body></worldbody>'
            f'<equality><connect body1="coupler" body2="rocker" anchor="{vec(C - B)}" '
            f'solref="{vec(solref)}" solimp="{vec(solimp)}"/></equality></mujoco>')


def run_fourbar_mujoco(_, t_end, dt, solref=None, solimp=None):
    """MuJoCo RK4 with a fixed step dt (s); the count is the number of steps."""
    import mujoco
    model = mujoco.MjModel.from_xml_string(mujoco_fourbar_xml(dt, solref, solimp))
    data = mujoco.MjData(model)
    data.qpos[:] = FourBar().joint_angles(FB_PHI0)
    data.qvel[:] = 0.0
    mujoco.mj_forward(model, data)
    e0 = data.energy.sum()
    nstep = int(round(t_end / dt))
    # an unstable step size shows as a huge error; keep MuJoCo from also writing its warning
    # to MUJOCO_LOG.TXT in the working directory
    previous = mujoco.get_mju_user_warning()
    mujoco.set_mju_user_warning(lambda message: None)
    try:
        start = time.perf_counter()
        mujoco.mj_step(model, data, nstep)
        wall = time.perf_counter() - start
    finally:
        mujoco.set_mju_user_warning(previous)
    mujoco.mj_forward(model, data)
    return np.array([data.qpos[0]]), wall, nstep, abs(data.energy.sum() - e0)


# ---------------------------------------------------------------- Exudyn

FB_EXU_RHO = 0.9   # generalized-alpha spectral radius (Exudyn's default; 0.99 and 1 diverged)


def run_fourbar_exudyn(_, t_end, dt):
    """Exudyn, redundant coordinates: three NodeRigidBody2D / ObjectRigidBody2D in Exudyn's
    xy-plane (our z is its y, so its angles are ours), four ObjectJointRevolute2D, gravity as
    a force at each CG; its implicit generalized-alpha (index 3) with the fixed step dt (s).
    The count is the number of steps; the energy is the closed form's at the crank's state."""
    import exudyn as exu
    import exudyn.utilities as eu  # noqa: F401  (registers the item interfaces)
    fb = FourBar()
    phi, a2, a3 = fb.angles(FB_PHI0)
    B, _ = fb.points(FB_PHI0)
    starts = (np.zeros(2), B, np.array([FB_GROUND, 0.0]))
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    ground = mbs.AddObject(eu.ObjectGround())
    nodes, ends = [], []
    for p, angle, L, m, inertia in zip(starts, (phi, a2, a3), FB_LENGTHS, fb.mass, fb.inertia):
        cg = p + 0.5 * L * np.array(_e(angle))
        node = mbs.AddNode(eu.NodeRigidBody2D(referenceCoordinates=[cg[0], cg[1], angle],
                                              initialCoordinates=[0.0] * 3,
                                              initialVelocities=[0.0] * 3))
        body = mbs.AddObject(eu.ObjectRigidBody2D(mass=m, inertia=inertia, nodeNumber=node))
        at_cg = mbs.AddMarker(eu.MarkerBodyPosition(bodyNumber=body, localPosition=[0.0] * 3))
        mbs.AddLoad(eu.LoadForceVector(markerNumber=at_cg, loadVector=[0.0, -GRAVITY * m, 0.0]))
        nodes.append(node)
        # markers at the rod's start and end, along its local x axis
        ends.append([mbs.AddMarker(eu.MarkerBodyPosition(bodyNumber=body,
                                                         localPosition=[sign * 0.5 * L, 0, 0]))
                     for sign in (-1.0, 1.0)])
    at_a = mbs.AddMarker(eu.MarkerBodyPosition(bodyNumber=ground, localPosition=[0.0] * 3))
    at_d = mbs.AddMarker(eu.MarkerBodyPosition(bodyNumber=ground,
                                               localPosition=[FB_GROUND, 0.0, 0.0]))
    (crank_a, crank_b), (coupler_b, coupler_c), (rocker_d, rocker_c) = ends
    for pair in ((at_a, crank_a), (crank_b, coupler_b), (coupler_c, rocker_c), (at_d, rocker_d)):
        mbs.AddObject(eu.ObjectJointRevolute2D(markerNumbers=list(pair)))
    mbs.Assemble()
    ss = exu.SimulationSettings()
    ti = ss.timeIntegration
    ti.endTime = t_end
    ti.numberOfSteps = int(round(t_end / dt))
    ti.verboseMode = 0
    ti.generalizedAlpha.spectralRadius = FB_EXU_RHO
    ti.newton.relativeTolerance = ti.newton.absoluteTolerance = 1e-10
    ss.solution.file.write = False
    ss.show.computationTime = ss.show.statistics = False
    start = time.perf_counter()
    mbs.SolveDynamic(ss, showHints=False)
    wall = time.perf_counter() - start
    q = mbs.GetNodeOutput(nodes[0], exu.OutputVariableType.Coordinates)
    v = mbs.GetNodeOutput(nodes[0], exu.OutputVariableType.Coordinates_t)
    phi1, omega = FB_PHI0 + q[2], v[2]
    return (np.array([phi1]), wall, int(ti.numberOfSteps),
            abs(fb.energy(phi1, omega) - fb.energy(FB_PHI0, 0.0)))


# ============================================================================ wall

#: BISTOP(x, xdot, x1, x2, k, e, cmax, d): m, m, N/m^e, -, N s/m, m
WALL = dict(x1=-0.5, x2=0.5, k=1e7, e=2.1, cmax=10.0, d=1e-3)
WALL_MASS, WALL_V0 = 1.0, 2.0      # kg, m/s (x0 = 0)
WALL_T_END = 2.0                   # s


def adams_step(x, x0, h0, x1, h1):
    """Adams' STEP: h0 for x <= x0, h1 for x >= x1, the cubic h0 + (h1 - h0) z^2 (3 - 2 z)
    with z = (x - x0) / (x1 - x0) between."""
    if x <= x0:
        return h0
    if x >= x1:
        return h1
    z = (x - x0) / (x1 - x0)
    return h0 + (h1 - h0) * z * z * (3.0 - 2.0 * z)


def bistop(x, v, x1, x2, k, e, cmax, d):
    """Adams' BISTOP force (N) on the moving body along +x at position x (m), speed v (m/s),
    written from SPEC section 3, independently of mbd."""
    if x < x1:
        return max(k * (x1 - x) ** e - adams_step(x, x1 - d, cmax, x1, 0.0) * v, 0.0)
    if x > x2:
        return min(-k * (x - x2) ** e - adams_step(x, x2, 0.0, x2 + d, cmax) * v, 0.0)
    return 0.0


def check_bistop():
    """Assert that :func:`bistop` gives SPEC's worked values and mbd's law value at points
    of every branch (gap, ramp, full damping, clamp) of the benchmark's stops."""
    spec = dict(x1=0.0, x2=1.0, k=1000.0, e=1.5, cmax=10.0, d=0.1)
    for (x, v), f in (((0.5, 3.0), 0.0), ((-0.05, -2.0), 21.180339887498953),
                      ((-0.05, 2.0), 1.1803398874989508), ((-0.05, 50.0), 0.0),
                      ((-0.2, -1.0), 99.4427190999916), ((1.05, 2.0), -21.180339887498967),
                      ((1.05, -2.0), -1.180339887498965), ((1.2, 1.0), -99.44271909999156),
                      ((1.05, -100.0), 0.0)):
        assert abs(bistop(x, v, **spec) - f) < 1e-12 * max(1.0, abs(f)), (x, v, f)
    law = Bistop(**WALL)
    x1, x2, d = WALL["x1"], WALL["x2"], WALL["d"]
    for x in (0.0, x1 - 0.3 * d, x1 - 2 * d, x1 - 1e-2, x2 + 0.7 * d, x2 + 5 * d, x2 + 1e-2):
        for v in (-2.0, -0.3, 0.0, 0.4, 2.0, 1e3, -1e3):
            ours, theirs = bistop(x, v, **WALL), float(law(x, v))
            assert abs(ours - theirs) <= 1e-9 * max(1.0, abs(ours)), (x, v, ours, theirs)


def wall_system():
    """The body between the stops as an mbd System: a Prismatic along x from the ground's
    marker J to the body's marker I (q0 = 0, v0 = WALL_V0), and ``AxialForce(J, I,
    Bistop(...))``, Adams' BISTOP(DX(I,J,J), VX(I,J,J), ...)."""
    model = mbd.Model("wall")
    J = model.add_ground("J", environment=mbd.Environment(gravity=(0.0, 0.0, -GRAVITY)))
    body = model.add_body("block", mass=WALL_MASS, cg=(0.0, 0.0, 0.0),
                          inertia=np.diag([1e-3, 2e-3, 2e-3]), cs={"I": (0.0, 0.0, 0.0)})
    model.add(Prismatic("slide", J, body["I"], axis=(1.0, 0.0, 0.0), q0=0.0, v0=WALL_V0))
    model.add(AxialForce("stops", J, body["I"], Bistop(**WALL)))
    return model.build()


_WALL_SYSTEM = []
_WALL_LAST = {}   # the last mbd run's Result, for its event log


def run_wall_mbd(_, t_end, tol):
    """mbd, DOP853 at rtol = atol = tol with exact switching: (x (1,), wall s, nfev, energy
    lost J)."""
    if not _WALL_SYSTEM:
        _WALL_SYSTEM.append(wall_system())
    start = time.perf_counter()
    result = _WALL_SYSTEM[0].simulate(t_end, output_step=t_end, rtol=tol, atol=tol)
    wall = time.perf_counter() - start
    _WALL_LAST["result"] = result
    e = result.energy()
    return np.array([result.joint("slide").q[-1]]), wall, int(result.stats["nfev"]), e[0] - e[-1]


def wall_energy(x, v):
    """Kinetic + stop energy (J) of the body at x (m), v (m/s)."""
    x1, x2, k, e = WALL["x1"], WALL["x2"], WALL["k"], WALL["e"]
    pen = max(x1 - x, 0.0) + max(x - x2, 0.0)
    return 0.5 * WALL_MASS * v * v + k * pen ** (e + 1.0) / (e + 1.0)


def run_wall_smooth(_, t_end, tol):
    """m x'' = BISTOP(x, x') as one plain ODE under scipy's DOP853 (the kinks inside steps)."""
    def rhs(t, y):
        return [y[1], bistop(y[0], y[1], **WALL) / WALL_MASS]

    start = time.perf_counter()
    with np.errstate(over="ignore", invalid="ignore"):       # rejected trial steps
        sol = solve_ivp(rhs, (0.0, t_end), [0.0, WALL_V0], method="DOP853", rtol=tol,
                        atol=tol, t_eval=[t_end])
    wall = time.perf_counter() - start
    x, v = sol.y[:, -1]
    return np.array([x]), wall, int(sol.nfev), wall_energy(0.0, WALL_V0) - wall_energy(x, v)


def _spow(a, n):
    """sign(a) |a|^n: the power continued oddly through 0."""
    return a ** n if a >= 0.0 else -((-a) ** n)


def _ramp(x, x0, h0, x1, h1):
    """STEP's cubic, continued past its ends (a piece's formula used slightly outside it)."""
    z = (x - x0) / (x1 - x0)
    return h0 + (h1 - h0) * z * z * (3.0 - 2.0 * z)


def _wall_raw(x, v, side, full):
    """BISTOP before the clamp in contact with the upper (side +1) or lower (-1) stop, with the
    damping at cmax (full) or on its ramp: one smooth formula per piece."""
    x1, x2, k, e, cmax, d = (WALL[n] for n in ("x1", "x2", "k", "e", "cmax", "d"))
    if side > 0:
        damp = cmax if full else _ramp(x, x2, 0.0, x2 + d, cmax)
        return -k * _spow(x - x2, e) - damp * v
    damp = cmax if full else _ramp(x, x1 - d, cmax, x1, 0.0)
    return k * _spow(x1 - x, e) - damp * v


def _wall_piece(mode):
    """(rhs, [(event function, direction, next mode)]) of the piece ``mode`` = (side, full,
    clamped): side 0 free, +1 / -1 in contact with the upper / lower stop; full: beyond the
    damping ramp; clamped: the stop would pull, the force is zero."""
    side, full, clamped = mode
    x1, x2, d = WALL["x1"], WALL["x2"], WALL["d"]
    if side == 0:
        def rhs(t, y):
            return [y[1], 0.0]
        return rhs, [(lambda t, y: y[0] - x1, -1, (-1, False, False)),
                     (lambda t, y: y[0] - x2, 1, (1, False, False))]
    edge, deep = (x2, x2 + d) if side > 0 else (x1, x1 - d)

    def rhs(t, y):
        return [y[1], 0.0 if clamped else _wall_raw(y[0], y[1], side, full) / WALL_MASS]

    return rhs, [(lambda t, y: y[0] - edge, -side, (0, False, False)),
                 (lambda t, y: y[0] - deep, -side if full else side, (side, not full, clamped)),
                 (lambda t, y: _wall_raw(y[0], y[1], side, full), -side if clamped else side,
                  (side, full, not clamped))]


def _armed_after(g, direction, t0):
    """The event function g, reporting the side it must leave (-direction) at the piece's
    start t0: a piece starts on the switching surface that began it (g = 0 up to round-off),
    which solve_ivp would otherwise take for a crossing at t0, or miss when the first step
    both enters and leaves."""
    def event(t, y):
        return -float(direction) if t <= t0 else g(t, y)
    event.terminal, event.direction = True, direction
    return event


def run_wall_events(_, t_end, tol):
    """m x'' = BISTOP(x, x') under scipy's DOP853, one smooth piece at a time: terminal events
    where contact begins or ends, the damping ramp ends and the clamp engages or releases;
    solve_ivp restarted at each. The count is the total of RHS evaluations."""
    t, y, mode, nfev = 0.0, np.array([0.0, WALL_V0]), (0, False, False), 0
    start = time.perf_counter()
    while t < t_end:
        rhs, events = _wall_piece(mode)
        functions = [_armed_after(g, direction, t) for g, direction, _next in events]
        with np.errstate(over="ignore", invalid="ignore"):   # rejected trial steps
            sol = solve_ivp(rhs, (t, t_end), y, method="DOP853", rtol=tol, atol=tol,
                            events=functions)
        nfev += sol.nfev
        if sol.status != 1:
            y = sol.y[:, -1]
            break
        fired = min((te[0], i) for i, te in enumerate(sol.t_events) if len(te))[1]
        t, y, mode = sol.t_events[fired][0], sol.y_events[fired][0], events[fired][2]
    wall = time.perf_counter() - start
    x, v = y
    return np.array([x]), wall, nfev, wall_energy(0.0, WALL_V0) - wall_energy(x, v)


def mujoco_wall_note(dt=1e-4):
    """x(t_end) of MuJoCo's nearest model, a slide joint with range [x1, x2] (a soft limit
    with MuJoCo's default solref/solimp, not BISTOP's law), RK4 at step dt: a labelled aside."""
    import mujoco
    xml = (f'<mujoco><option timestep="{dt!r}" integrator="RK4" gravity="0 0 {-GRAVITY!r}">'
           f'<flag contact="disable"/></option><worldbody><body name="block">'
           f'<joint name="slide" type="slide" axis="1 0 0" limited="true" '
           f'range="{WALL["x1"]!r} {WALL["x2"]!r}"/>'
           f'<inertial pos="0 0 0" mass="{WALL_MASS!r}" diaginertia="1e-3 2e-3 2e-3"/>'
           f'</body></worldbody></mujoco>')
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    data.qvel[0] = WALL_V0
    mujoco.mj_step(model, data, int(round(WALL_T_END / dt)))
    return float(data.qpos[0]), float(data.qvel[0])


# ============================================================================ the run

MODELS = {
    "four-bar": dict(
        t_end=FB_T_END,
        engines={  # name: (runner, settings from cheap to expensive, setting label)
            "mbd (compiled DOP853)": (run_fourbar_mbd, TOLS, "tol"),
            "one-coordinate Lagrange + scipy DOP853": (run_fourbar_lagrange, TOLS, "tol"),
            "Pinocchio constraintDynamics + scipy DOP853": (run_fourbar_pinocchio, TOLS, "tol"),
            "MuJoCo RK4 (equality connect)": (run_fourbar_mujoco, FB_STEPS, "dt"),
            "Exudyn 2-D bodies + generalized-alpha": (run_fourbar_exudyn, FB_STEPS, "dt"),
        }),
    "wall": dict(
        t_end=WALL_T_END,
        engines={
            "mbd (compiled DOP853, exact switching)": (run_wall_mbd, TOLS, "tol"),
            "scipy DOP853, smooth RHS": (run_wall_smooth, TOLS, "tol"),
            "scipy DOP853 + events": (run_wall_events, TOLS, "tol"),
        }),
}


def _fourbar_reference():
    """(reference crank angle (1,), notes): the Lagrange equation at 1e-13, checked against
    mbd at 1e-13."""
    ref, ref_wall, ref_nfev, ref_drift = run_fourbar_lagrange(None, FB_T_END, REF_TOL)
    q, _, nfev, drift = run_fourbar_mbd(None, FB_T_END, REF_TOL)
    stepper = _FB_LAST["result"].stats.get("stepper", "scipy")
    notes = [f"four-bar: reference phi(10 s) = {ref[0]:.12f} rad from the one-coordinate "
             f"Lagrange equation under scipy DOP853 at 1e-13 ({ref_nfev} RHS evaluations, "
             f"{ref_wall:.2f} s, energy drift {ref_drift:.1e} J); mbd at 1e-13 agrees to "
             f"{abs(q[0] - ref[0]):.1e} rad ({nfev} RHS evaluations, energy drift "
             f"{drift:.1e} J)",
             f"four-bar: mbd runs the loop with its {stepper} DOP853 stepper (the closed "
             f"loop's constrained right-hand side and the projection onto the closure in one "
             f"numba call; a step's end is projected, at the cost of one more evaluation, "
             f"where it drifted from the closure by more than a tenth of atol)",
             f"four-bar: Pinocchio's loop is a CONTACT_3D (LOCAL) between the coupler's and "
             f"the rocker's ends at C with Baumgarte Kp = {FB_PIN_KP:g} 1/s^2, Kd = "
             f"{FB_PIN_KD:g} 1/s (critical damping), solved with ProximalSettings(mu = 1e-8, "
             f"10 iterations): the closure's y row is identically zero, and with mu = 0 the "
             f"KKT system is singular (a run did not finish in 60 s); Kp = Kd = 0 gave 3-4x "
             f"the error at 1e-6 and 1e-9, Kp = 1e4 made the ODE stiff (4-9x the evaluations)",
             f"four-bar: MuJoCo's loop is an equality connect with solref = ({FB_MJ_TIMECONST:g} "
             f"dt, 1) and solimp = {FB_MJ_SOLIMP[:3]}, a soft constraint whose error shrinks "
             f"with dt. 2 dt is the stiffest refsafe allows; with refsafe off, 1 dt and 1.5 dt "
             f"were better at some dt and worse at others, 0.7 dt worse throughout; MuJoCo's "
             f"default solimp (0.9, 0.95) was 100-300x less accurate",
             f"four-bar: Exudyn's generalized-alpha at spectral radius {FB_EXU_RHO:g} (its "
             f"default; 0.99 diverged at dt = 0.01, 1 failed), Newton tolerances 1e-10; its "
             f"error falls as dt^2; the count is steps (each a Newton solve)"]
    return ref, notes


#: a tolerance finer than the references', to check that they converged
CHECK_TOL = 3e-14


def _wall_reference():
    """(reference x (1,), notes): mbd at 1e-13, checked against scipy's piecewise DOP853."""
    check_bistop()
    ref, _, nfev, lost = run_wall_mbd(None, WALL_T_END, REF_TOL)
    result = _WALL_LAST["result"]
    contacts = result.force("stops").contacts()
    q, _, ev_nfev, ev_lost = run_wall_events(None, WALL_T_END, REF_TOL)
    finer = run_wall_mbd(None, WALL_T_END, CHECK_TOL)[0]
    notes = ["wall: BISTOP written here from SPEC matches SPEC's worked values and mbd's "
             "Bistop at 49 points of every branch (asserted)",
             f"wall: reference x(2 s) = {ref[0]:.12f} m from mbd at 1e-13 ({nfev} RHS "
             f"evaluations, {len(result.events)} law switches logged, "
             f"{len(contacts)} contacts starting at "
             f"{', '.join(f'{c[0]:.4f}' for c in contacts)} s, energy lost {lost:.6f} J); "
             f"scipy DOP853 + events at 1e-13 agrees to {abs(q[0] - ref[0]):.1e} m "
             f"({ev_nfev} RHS evaluations, energy lost {ev_lost:.6f} J)",
             f"wall: mbd runs with its {result.stats.get('stepper', 'scipy')} DOP853 stepper; "
             f"the events variant restarts solve_ivp at the same switches mbd logs; the "
             f"smooth variant lets the error control find the kinks",
             f"wall: mbd at {CHECK_TOL:g} agrees with its 1e-13 reference to "
             f"{abs(finer[0] - ref[0]):.1e} m; the events variant starts every piece with "
             f"scipy's initial step, mbd a piece after a switch with sqrt(rtol) times the "
             f"step that crossed it (issue 12: the usual initial step misjudges a contact's "
             f"onset), hence their {abs(q[0] - ref[0]):.1e} m at 1e-13"]
    return ref, notes


REFERENCES = {"four-bar": _fourbar_reference, "wall": _wall_reference}


def main(models=None, log=None):
    """Run the sweeps. ``models``: names in MODELS (default all); ``log``: a callable for
    progress lines (default stderr). Returns (rows, notes): rows as :func:`peers.table`
    takes them, with the model name in place of N."""
    log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    rows, notes = [], []
    for name in models or list(MODELS):
        spec = MODELS[name]
        t_end = spec["t_end"]
        log(f"{name}: reference")
        ref, ref_notes = REFERENCES[name]()
        notes += ref_notes
        for note in ref_notes:
            log(note)
        for engine, spec_engine in spec["engines"].items():
            engine_rows, note = score(name, engine, spec_engine, t_end, ref, log)
            rows += engine_rows
            if note:
                notes.append(f"{name}, {engine}: {note}")
            if spec_engine[0] is run_wall_mbd:
                for _, th, _, figures in engine_rows:
                    if figures is not None:      # the event log of that setting's run
                        run_wall_mbd(name, t_end, figures[1])
                        r = _WALL_LAST["result"]
                        notes.append(f"wall, mbd at tol = {figures[1]:.1e} (error < {th:g}): "
                                     f"{len(r.force('stops').contacts())} contacts, "
                                     f"{len(r.events)} law switches logged")
        if name == "wall":
            try:
                x, v = mujoco_wall_note()
                notes.append(f"wall, aside (not a row): MuJoCo's nearest model, a slide joint "
                             f"limited to [{WALL['x1']:g}, {WALL['x2']:g}] (a soft limit with "
                             f"the default solref/solimp, not BISTOP), RK4 dt = 1e-4: x(2 s) = "
                             f"{x:.4f} m, v = {v:.4f} m/s against BISTOP's {ref[0]:.4f} m")
            except ImportError:
                notes.append("wall: MuJoCo not installed, its aside skipped")
        notes.append(_per_evaluation(name, rows))
    notes += READING
    return rows, notes


def _per_evaluation(name, rows):
    """A note: wall time per RHS evaluation (or step) of every engine of model ``name``, from
    its timed row at the tightest threshold it reached, us."""
    costs = []
    for engine in MODELS[name]["engines"]:
        timed_rows = [(th, res) for model, th, eng, res in rows
                      if model == name and eng == engine and res is not None]
        if not timed_rows:
            continue
        th, (label, _, _, wall, count, _) = min(timed_rows, key=lambda r: r[0])
        unit = "evaluation" if label == "tol" else "step"
        costs.append(f"{engine} {1e6 * wall / count:.1f} us per {unit} (error < {th:g})")
    return f"{name}: cost per count, from the timed rows: " + "; ".join(costs)


READING = [
    "reading: error is |final value - reference| in rad (four-bar, crank angle at 10 s) or m "
    "(wall, x at 2 s); the count is RHS evaluations for mbd and the scipy-driven rows, steps "
    "for MuJoCo (RK4: 4 evaluations each) and Exudyn; the energy column is the drift "
    "|E(t_end) - E(0)| for the four-bar and the energy lost to the stops' damping for the "
    "wall (physical, the same for every row that is accurate); mbd / fastest peer below 1 "
    "means mbd is fastest",
    "reading: the error is erratic in the setting (a contact or a step landing differently "
    "moves the final value), so the cheapest setting meeting 1e-3 may be a lucky one: e.g. "
    "the smooth wall RHS has 2.5e-4 at tol 1e-3 but 1.8e-2 at 1e-4",
]


def render(rows):
    """The markdown table of :func:`peers.table`, its first column headed "model"."""
    return table(rows).replace("| N |", "| model |", 1)


if __name__ == "__main__":
    chosen = [m for m in MODELS
              if any(a.lower().replace("-", "") in m.replace("-", "") for a in sys.argv[1:])]
    chosen = chosen or None
    t0 = time.perf_counter()
    rows, notes = main(chosen)
    print(f"Models of issue 7, {time.strftime('%Y-%m-%d')}, {platform.machine()} "
          f"{os.cpu_count()} cores, Python {platform.python_version()}")
    print()
    print(render(rows))
    print()
    for note in notes:
        print(f"- {note}")
    print(f"- total run time {time.perf_counter() - t0:.0f} s")
