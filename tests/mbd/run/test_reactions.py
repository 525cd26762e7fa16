"""Joint and driver reactions (``result.reaction``) against Newton-Euler on every body, the
joints' free directions, and a power balance.

The reference is assembled here from other parts of the library and plain mechanics: each
body's momentum rates come from its velocity and angular velocity (``result.body``) differenced
along the state derivative of :mod:`mbd.run.evaluator` at the row (a 4th-order central
difference in the state space, so the rate is the exact one of the equations of motion, to
~1e-12); its weight from the environment; the loads of the force elements from
``result.force``. A joint acts on its follower with its reaction wrench (force, and moment
about the follower CS origin, given in the base CS's axes, turned to world here) and on its
base with minus that wrench at the same point.
"""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import mbd
from forces import AxialForce, JointForce, LineForce, Spring, SpringDamper
from joints import Cylindrical, Prismatic, Revolute, SixDof, Spherical, Universal, Weld
from mbd.run import evaluator
from mbd.run.evaluator import Evaluator
from mbd.run.result import Result

#: these tests assert accuracy bounds (closed forms, reference values, balances): run again
#: on a perturbed problem under --perturb (tests/perturb.py)
pytestmark = pytest.mark.accuracy

G = 9.81
EARTH = mbd.Environment(gravity=(0.0, 0.0, -G))


# ----------------------------------------------------------------------------- the reference

def _frame(result, cs):
    """(position (n, 3), rotation (n, 3, 3)) of a CS over the run, world."""
    owner = cs.owner
    n = len(result.t)
    if owner is cs:    # a ground
        return (np.broadcast_to(cs.position, (n, 3)), np.broadcast_to(cs.rotation, (n, 3, 3)))
    view = result.body(owner.name)
    return view.position(cs), view.cs_rotation(cs).as_matrix()


def _momentum_rates(result, i, h=1e-4):
    """{body: (m a_cg, dL/dt about the CG)} (world) at row i.

    The rates are the derivatives of the body's CG velocity and angular velocity along the
    state derivative f(t, y) at the row: a 4th-order central difference over y + k h f.
    """
    s = result.system
    sd = Evaluator(s)
    sd.data.mode["sides"] = result.sides[i]
    y = np.concatenate([result.q[i], result.v[i]])
    dy, status = sd.derivative(result.t[i], y)
    assert status == 0
    ks = np.array([-2.0, -1.0, 1.0, 2.0])
    ys = y + h * ks[:, None] * dy
    probe = Result(s, np.full(4, result.t[i]), ys)
    weights = np.array([1.0, -8.0, 8.0, -1.0]) / (12.0 * h)
    out = {}
    for name, bm in s.bodies.items():
        body = bm.body
        a = weights @ probe.body(name).velocity("cg")
        wdot = weights @ probe.body(name).angular_velocity
        w = result.body(name).angular_velocity[i]
        R = result.body(name).rotation.as_matrix()[i]
        I = R @ body.inertia @ R.T           # inertia about the CG, current world axes
        out[name] = (body.mass * a, I @ wdot + np.cross(w, I @ w))
    return out


def _gravity(system):
    return system.machines[0].environment.gravity


def newton_euler_residuals(result, rows):
    """Per body and row: (sum of forces - m a_cg, sum of moments about the CG - dL/dt), world.

    Loads: weight at the CG; every joint's reaction (+ on the follower, - on the base, both at
    the follower CS origin); line and axial force elements (the vector on B at B's origin,
    minus it on A at the same point). Joint force elements act through their joint's
    reaction, which includes them.
    """
    s = result.system
    gravity = _gravity(s)
    cg = {name: result.body(name).position("cg") for name in s.bodies}
    loads = {name: [] for name in s.bodies}     # (force, point of action, moment), (n, 3)
    for name, jm in s.joints.items():
        base, follower = jm.joint.base, jm.joint.follower
        reaction = result.reaction(name)
        _, R_base = _frame(result, base)
        point, _ = _frame(result, follower)
        F = np.einsum("nij,nj->ni", R_base, reaction.force)
        M = np.einsum("nij,nj->ni", R_base, reaction.torque)
        for cs, sign in ((follower, 1.0), (base, -1.0)):
            if cs.owner is not cs:
                loads[cs.owner.name].append((sign * F, point, sign * M))
    for fe in s.force_elements:
        if fe.placement == "joint":
            continue
        assert fe.placement in ("line", "axial"), fe.placement
        view = result.force(fe.name)
        point, _ = _frame(result, fe.cs_b)
        for cs, sign in ((fe.cs_b, 1.0), (fe.cs_a, -1.0)):
            if cs.owner is not cs:
                loads[cs.owner.name].append((sign * view.vector, point, 0.0 * view.vector))
    out = {name: (np.zeros((len(rows), 3)), np.zeros((len(rows), 3))) for name in s.bodies}
    for k, i in enumerate(rows):
        rates = _momentum_rates(result, i)
        for name, bm in s.bodies.items():
            m = bm.body.mass
            force = m * gravity - rates[name][0]
            moment = -rates[name][1]
            for F, point, M in loads[name]:
                force = force + F[i]
                moment = moment + M[i] + np.cross(point[i] - cg[name][i], F[i])
            out[name][0][k], out[name][1][k] = force, moment
    return out


def assert_balanced(result, rows, length):
    """Every body's forces and moments balance to 1e-8 of the largest weight (and weight
    times ``length``, m)."""
    s = result.system
    weight = max(bm.body.mass for bm in s.bodies.values()) * np.linalg.norm(_gravity(s))
    residuals = newton_euler_residuals(result, rows)
    for name, (force, moment) in residuals.items():
        assert np.abs(force).max() <= 1e-8 * weight, (name, np.abs(force).max())
        assert np.abs(moment).max() <= 1e-8 * weight * length, (name, np.abs(moment).max())


def _in_base_axes(result, joint, vector_ref):
    """A direction fixed in the follower (3,) (world, reference configuration) over the run,
    resolved in the joint's base CS axes (n, 3)."""
    n = len(result.t)
    follower = joint.follower
    if follower.owner is follower:
        R_f = np.broadcast_to(np.eye(3), (n, 3, 3))
    else:
        R_f = result.body(follower.owner.name).rotation.as_matrix()   # relative to the drawing
    _, R_base = _frame(result, joint.base)
    world = np.einsum("nij,j->ni", R_f, vector_ref)
    return np.einsum("nji,nj->ni", R_base, world)


def _unit(v):
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)


# ----------------------------------------------------------------------------- a pendulum at rest

def resting_pendulum():
    """A body hanging at rest from a hinge whose axis is tilted out of the horizontal: the
    hinge carries the weight and a bending moment. The ground and the hinge CS are turned so
    that the base CS axes differ from the world's."""
    m = mbd.Model("resting")
    pivot = np.array([0.2, 0.1, 1.0])
    g = m.add_ground("g", at=pivot, environment=EARTH,
                     orientation=Rotation.from_euler("xyz", [0.3, -0.5, 1.1]))
    # the CG lies in the vertical plane through the axis, below the pivot: equilibrium
    bob = m.add_body("bob", 2.0, pivot + (0.0, 0.3, -0.8), [[0.10, 0.01, 0.0],
                                                             [0.01, 0.20, 0.02],
                                                             [0.0, 0.02, 0.15]],
                     cs={"pivot": (pivot, Rotation.from_euler("z", 0.7))})
    m.add(Revolute("hinge", g, bob["pivot"], axis=(0.0, 1.0, 0.5)))
    return m


def test_pendulum_at_rest_hinge_carries_the_weight_and_its_moment():
    result = resting_pendulum().build().simulate(1.0, output_step=0.25)
    assert np.abs(result.v).max() < 1e-12            # it stays at rest
    reaction = result.reaction("hinge")
    assert reaction.unique
    g = result.system.grounds["g"]
    m = 2.0
    # statics: F + m g = 0, M + (cg - pivot) x m g = 0 (world), seen in the ground's axes
    F = np.array([0.0, 0.0, m * G])
    M = np.cross([0.0, 0.3, -0.8], F)
    np.testing.assert_allclose(reaction.force, np.tile(g.rotation.T @ F, (5, 1)), rtol=0,
                               atol=1e-12 * m * G)
    np.testing.assert_allclose(reaction.torque, np.tile(g.rotation.T @ M, (5, 1)), rtol=0,
                               atol=1e-12 * m * G)
    assert abs(M[0]) > 1.0     # the bending moment is there to be got wrong
    assert_balanced(result, range(len(result.t)), length=1.0)


# ----------------------------------------------------------------------------- a spatial tree

def _inertia(moments, angles):
    R = Rotation.from_euler("xyz", angles).as_matrix()
    return R @ np.diag(moments) @ R.T


UNIVERSAL_AXES = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.2))
SLIDE_AXIS = (1.0, 0.2, -0.4)
SLIDE2_AXIS = (0.3, 1.0, 0.1)


def spatial_chain():
    """A moving open chain: ground -Revolute- b1 -Universal- b2 -Spherical- b3 -Weld- b4
    -Prismatic- b5 -Prismatic- b6, with skew axes, turned CSs and full inertia tensors; a
    spring-damper on the universal's second axis and on the second prismatic, a spring rope
    from a second ground point to b3 and an axial spring-damper from the ground to b4."""
    m = mbd.Model("chain")
    g = m.add_ground("g", environment=EARTH,
                     orientation=Rotation.from_euler("zyx", [0.4, 0.2, -0.3]))
    anchor = m.add_ground("anchor", at=(0.8, 0.6, 0.5))
    b1 = m.add_body("b1", 1.5, (0.3, 0.1, -0.05), _inertia((0.02, 0.05, 0.06), (0.1, 0.2, 0.3)),
                    cs={"o": ((0, 0, 0), Rotation.from_euler("y", 0.3)),
                        "end": ((0.6, 0.0, 0.0), Rotation.from_euler("x", 0.5))})
    b2 = m.add_body("b2", 0.8, (0.6, 0.0, -0.3), _inertia((0.03, 0.01, 0.035), (0.4, -0.2, 0.1)),
                    cs={"top": (0.6, 0.0, 0.0),
                        "bot": ((0.6, 0.1, -0.5), Rotation.from_euler("z", -0.6))})
    b3 = m.add_body("b3", 1.2, (0.9, 0.1, -0.6), _inertia((0.04, 0.02, 0.05), (-0.3, 0.5, 0.2)),
                    cs={"ball": (0.6, 0.1, -0.5),
                        "weld": ((1.0, 0.2, -0.7), Rotation.from_euler("x", 1.0)),
                        "hook": (0.9, 0.0, -0.5)})
    b4 = m.add_body("b4", 0.5, (1.2, 0.3, -0.8), _inertia((0.01, 0.012, 0.015), (0.0, 0.3, 0.0)),
                    cs={"weld": (1.0, 0.2, -0.7),
                        "rail": ((1.3, 0.3, -0.8), Rotation.from_euler("y", 0.4))})
    b5 = m.add_body("b5", 0.7, (1.4, 0.3, -0.9), _inertia((0.01, 0.02, 0.02), (0.2, 0.0, 0.7)),
                    cs={"rail": (1.3, 0.3, -0.8),
                        "rail2": ((1.5, 0.3, -0.9), Rotation.from_euler("z", 0.9))})
    b6 = m.add_body("b6", 0.4, (1.6, 0.35, -1.0), [0.005, 0.006, 0.008],
                    cs={"rail": (1.5, 0.3, -0.9)})
    m.add(Revolute("hinge", g, b1["o"], axis=(0.2, 0.3, 1.0), v0=2.0))
    u = m.add(Universal("cardan", b1["end"], b2["top"], axes=UNIVERSAL_AXES, q0=[0.3, -0.2],
                        v0=[1.0, -1.5]))
    m.add(Spherical("ball", b2["bot"], b3["ball"], q0=Rotation.from_rotvec([0.2, -0.4, 0.3]),
                    v0=(0.5, 1.0, -0.7)))
    m.add(Weld("weld", b3["weld"], b4["weld"]))
    m.add(Prismatic("slide", b4["rail"], b5["rail"], axis=SLIDE_AXIS, q0=0.05, v0=0.3))
    p2 = m.add(Prismatic("slide2", b5["rail2"], b6["rail"], axis=SLIDE2_AXIS, q0=-0.02,
                         v0=-0.2))
    m.add(JointForce("twist", u, SpringDamper(c=3.0, d=0.2), primitive=1))
    m.add(JointForce("push", p2, SpringDamper(c=40.0, d=0.5)))
    m.add(LineForce("rope", anchor, b3["hook"], Spring(c=30.0, x0=0.3)))
    m.add(AxialForce("guide", g, b4["weld"], SpringDamper(c=5.0, d=0.3)))
    return m


@pytest.fixture(scope="module")
def chain():
    return spatial_chain().build().simulate(1.0, output_step=0.1, rtol=1e-10, atol=1e-10)


def test_spatial_chain_reactions_balance_every_body(chain):
    assert np.ptp(chain.joint("hinge").q) > 1.0 and np.abs(chain.v).max() > 2.0   # it moves
    assert all(chain.reaction(name).unique for name in chain.system.joints)
    assert_balanced(chain, range(len(chain.t)), length=1.0)


def test_spatial_chain_joints_transmit_nothing_along_their_free_directions(chain):
    s = chain.system
    scale = 1e-10 * 6.0 * G        # of the total weight
    # revolute: no torque about its axis (fixed in the base: constant in base axes)
    hinge = s.joints["hinge"].joint
    axis = hinge.base.rotation.T @ _unit((0.2, 0.3, 1.0))
    assert np.abs(chain.reaction("hinge").torque @ axis).max() <= scale
    # universal: none about the first axis (fixed in the base); about the second (fixed in the
    # follower) exactly the spring-damper's torque
    cardan = s.joints["cardan"].joint
    r = chain.reaction("cardan")
    a1 = cardan.base.rotation.T @ _unit(UNIVERSAL_AXES[0])
    a2 = _in_base_axes(chain, cardan, _unit(UNIVERSAL_AXES[1]))
    assert np.abs(r.torque @ a1).max() <= scale
    twist = chain.force("twist").value
    assert np.abs(twist).max() > 0.1
    np.testing.assert_allclose(np.einsum("ni,ni->n", r.torque, a2), twist, rtol=0, atol=scale)
    # spherical: no torque at all about its centre
    assert np.abs(chain.reaction("ball").torque).max() <= scale
    # the weld transmits a full wrench
    assert np.abs(chain.reaction("weld").torque).max() > 0.1
    # prismatic: no force along its axis; with the spring-damper, exactly its force
    slide = s.joints["slide"].joint
    assert np.abs(chain.reaction("slide").force
                  @ (slide.base.rotation.T @ _unit(SLIDE_AXIS))).max() <= scale
    slide2 = s.joints["slide2"].joint
    push = chain.force("push").value
    assert np.abs(push).max() > 0.1
    along = chain.reaction("slide2").force @ (slide2.base.rotation.T @ _unit(SLIDE2_AXIS))
    np.testing.assert_allclose(along, push, rtol=0, atol=scale)


def reversed_chain():
    """Tree joints walked backwards (each base CS on the body farther from the ground): a
    Revolute from b1 to the ground, a Universal from b2 to b1 and a Cylindrical from b3 to b2
    with a spring-damper on its slide; and a free body on a SixDof in a machine of its own."""
    m = mbd.Model("reversed")
    g = m.add_ground("g", environment=EARTH, orientation=Rotation.from_euler("x", 0.5))
    b1 = m.add_body("b1", 1.0, (0.4, 0.1, 0.0), _inertia((0.02, 0.03, 0.04), (0.1, 0.2, 0.3)),
                    cs={"o": ((0, 0, 0), Rotation.from_euler("z", 0.3)),
                        "e": ((0.8, 0, 0), Rotation.from_euler("y", -0.4))})
    b2 = m.add_body("b2", 2.0, (1.0, 0.2, -0.3), _inertia((0.03, 0.02, 0.04), (0.3, -0.2, 0.1)),
                    cs={"s": ((0.8, 0, 0), Rotation.from_euler("x", 0.9)),
                        "e": ((1.2, 0.1, -0.5), Rotation.from_euler("z", 1.2))})
    b3 = m.add_body("b3", 0.5, (1.3, 0.2, -0.7), [0.01, 0.02, 0.015],
                    cs={"s": ((1.2, 0.1, -0.5), Rotation.from_euler("y", 0.7))})
    m.add(Revolute("r", b1["o"], g, axis=REVERSED_AXES["r"], v0=1.5))
    m.add(Universal("u", b2["s"], b1["e"], axes=REVERSED_AXES["u"], q0=[0.2, 0.1],
                    v0=[1.0, -0.5]))
    c = m.add(Cylindrical("c", b3["s"], b2["e"], axis=REVERSED_AXES["c"], q0=[0.05, 0.3],
                          v0=[0.2, 0.8]))
    m.add(JointForce("cs", c, SpringDamper(c=50.0, d=0.4), primitive=0))
    g4 = m.add_ground("g4", at=(1.3, 0.2, 0.7), orientation=Rotation.from_euler("z", 0.4),
                      environment=EARTH)
    b4 = m.add_body("b4", 0.7, (1.3, 0.2, 0.7), [0.01, 0.02, 0.015],
                    cs={"o": ((1.3, 0.2, 0.7), Rotation.from_euler("x", 0.2))})
    m.add(SixDof("free", g4, b4["o"], q0=[0.1, 0, 0, Rotation.from_rotvec([0.1, 0.2, 0.3])],
                 v0=[0.5, 0, 1, (1, 2, 3)]))
    return m


REVERSED_AXES = {"r": (0.1, 0.2, 1.0), "u": ((1, 0, 0.3), (0, 1, 0)), "c": (0.2, 1.0, 0.4)}


def test_reversed_tree_joints_reactions_balance_and_leave_free_directions_free():
    result = reversed_chain().build().simulate(1.0, output_step=0.1, rtol=1e-10, atol=1e-10)
    s = result.system
    assert [name for name, jm in s.joints.items() if jm.reversed] == ["r", "u", "c"]
    assert_balanced(result, range(len(result.t)), length=1.0)
    scale = 1e-10 * 4.2 * G
    joint = {name: jm.joint for name, jm in s.joints.items()}
    r_axis = joint["r"].base.rotation.T @ _unit(REVERSED_AXES["r"])
    assert np.abs(result.reaction("r").torque @ r_axis).max() <= scale
    u = result.reaction("u")
    a1 = joint["u"].base.rotation.T @ _unit(REVERSED_AXES["u"][0])
    a2 = _in_base_axes(result, joint["u"], _unit(REVERSED_AXES["u"][1]))
    assert np.abs(u.torque @ a1).max() <= scale
    assert np.abs(np.einsum("ni,ni->n", u.torque, a2)).max() <= scale
    c = result.reaction("c")
    c_axis = joint["c"].base.rotation.T @ _unit(REVERSED_AXES["c"])
    assert np.abs(c.torque @ c_axis).max() <= scale
    slide = result.force("cs").value
    assert np.abs(slide).max() > 1.0
    np.testing.assert_allclose(c.force @ c_axis, slide, rtol=0, atol=scale)
    # a free joint transmits nothing
    free = result.reaction("free")
    assert np.abs(free.force).max() <= scale and np.abs(free.torque).max() <= scale
    assert np.abs(result.reaction("r").force).max() > 10.0


# ----------------------------------------------------------------------------- a planar four-bar

def fourbar():
    """The Grashof crank-rocker of four revolutes about y in the xz-plane (ground pivots at
    the origin and at x = 4 m); spring-dampers on the tree joint j2 and on the joint j3 that
    closes the loop."""
    m = mbd.Model("fourbar")
    g = m.add_ground("g", environment=EARTH)
    g2 = m.add_ground("g2", at=(4.0, 0.0, 0.0))
    B, C, D = np.array([0.0, 0.0, 1.0]), np.array([4.0, 0.0, 3.5]), np.array([4.0, 0.0, 0.0])
    L2 = np.linalg.norm(C - B)
    crank = m.add_body("crank", 1.0, B / 2, [1 / 12, 1 / 12, 1e-3], cs={"a": (0, 0, 0), "b": B})
    coupler = m.add_body("coupler", 2.0, (B + C) / 2, [1e-3, 2 * L2**2 / 12, 2 * L2**2 / 12],
                         cs={"a": B, "b": C})
    rocker = m.add_body("rocker", 1.5, (C + D) / 2, [1.5 * 3.5**2 / 12] * 2 + [1e-3],
                        cs={"a": C, "b": D})
    m.add(Revolute("j1", g, crank["a"], axis=(0, 1, 0), q0=0.0, v0=3.0))
    j2 = m.add(Revolute("j2", crank["b"], coupler["a"], axis=(0, 1, 0)))
    j3 = m.add(Revolute("j3", coupler["b"], rocker["a"], axis=(0, 1, 0)))
    m.add(Revolute("j4", rocker["b"], g2, axis=(0, 1, 0)))
    m.add(JointForce("k2", j2, SpringDamper(c=5.0, d=0.5)))
    m.add(JointForce("k3", j3, SpringDamper(c=8.0, d=0.3)))
    return m


@pytest.fixture(scope="module")
def four():
    return fourbar().build().simulate(2.0, output_step=0.1, rtol=1e-10, atol=1e-10)


def test_fourbar_minimum_norm_reactions_balance_every_body(four):
    s = four.system
    # j3 closes the loop (so k3 acts on its massless chain)
    assert s.cut_joints == ["j3"] and s.redundant_rows == 3
    assert not any(four.reaction(name).unique for name in s.joints)
    assert np.ptp(four.joint("j1").q) > 3.0            # the crank turns
    assert_balanced(four, range(len(four.t)), length=4.0)


def test_fourbar_revolutes_transmit_only_their_spring_torques(four):
    scale = 1e-10 * 4.5 * G * 4.0
    springs = {"j2": four.force("k2").value, "j3": four.force("k3").value}
    for name in ("j1", "j2", "j3", "j4"):
        torque_y = four.reaction(name).torque[:, 1]   # every base CS turns about y only
        expected = springs.get(name, np.zeros(len(four.t)))
        np.testing.assert_allclose(torque_y, expected, rtol=0, atol=scale, err_msg=name)
    assert min(np.abs(v).max() for v in springs.values()) > 1.0


def test_fourbar_minimum_norm_reactions_are_the_planar_ones(four):
    # The redundant equations (rotation about x and z, translation along y at j3) have
    # identically zero Jacobian rows: any out-of-plane wrench in the loop balances itself.
    # Planar loads then make the minimum-norm choice the one with no out-of-plane parts.
    scale = 1e-10 * 4.5 * G
    for name in ("j1", "j2", "j3", "j4"):
        r = four.reaction(name)
        assert np.abs(r.force[:, 1]).max() <= scale, name
        assert np.abs(r.torque[:, [0, 2]]).max() <= scale * 4.0, name
        assert np.abs(r.force[:, [0, 2]]).max() > 1.0


def test_fourbar_report_names_the_out_of_plane_equations(four):
    s = four.system
    expected = {"joint 'j3': rotation about world x", "joint 'j3': rotation about world z",
                "joint 'j3': translation along world y"}
    assert set(s.redundant) == expected and s.dof == 1
    report = s.report()
    assert all(line in report for line in expected)


# ----------------------------------------------------------------------------- a spatial loop

CROSS_AXES = ((0.0, 1.0, 0.0), (1.0, 0.0, 0.3))


def spatial_loop():
    """An RSUR linkage: a crank on a vertical revolute, a ball joint to a coupler, a universal
    joint to a rocker on a horizontal revolute. 1 DOF, no redundant equations: the reactions
    are unique."""
    m = mbd.Model("rsur")
    g = m.add_ground("g", environment=EARTH)
    O, A, B, D = map(np.array, ([0.0, 0, 0], [0.5, 0, 0], [1.5, 0.3, 1.2], [1.5, 1.0, 1.0]))
    gd = m.add_ground("gd", at=D, orientation=Rotation.from_euler("y", 0.8))
    L = np.linalg.norm(B - A)
    crank = m.add_body("crank", 1.0, A / 2, [1e-3, 0.03, 0.03], cs={"o": O, "a": A})
    coupler = m.add_body("coupler", 1.5, (A + B) / 2, (1.5 * L**2 / 12 + 1e-3) * np.eye(3),
                         cs={"a": A, "b": ((B), Rotation.from_euler("z", 0.4))})
    rocker = m.add_body("rocker", 1.0, (B + D) / 2, _inertia((0.05, 0.04, 0.04), (0.3, 0, 0)),
                        cs={"b": B, "d": D})
    m.add(Revolute("crankpin", g, crank["o"], axis=(0, 0, 1), v0=4.0))
    m.add(Spherical("ball", crank["a"], coupler["a"]))
    m.add(Universal("cross", coupler["b"], rocker["b"], axes=CROSS_AXES))
    m.add(Revolute("rockerpin", gd, rocker["d"], axis=(1, 0, 0)))
    return m


@pytest.fixture(scope="module")
def rsur():
    return spatial_loop().build().simulate(1.5, output_step=0.1, rtol=1e-10, atol=1e-10)


def test_spatial_loop_unique_reactions_balance_every_body(rsur):
    s = rsur.system
    assert s.cut_joints and s.redundant == [] and s.dof == 1
    assert "redundant" not in s.report()
    assert all(rsur.reaction(name).unique for name in s.joints)
    assert np.ptp(rsur.joint("crankpin").q) > 1.0
    assert_balanced(rsur, range(len(rsur.t)), length=2.0)


def test_spatial_loop_joints_transmit_nothing_along_their_free_directions(rsur):
    s = rsur.system
    scale = 1e-10 * 3.5 * G * 2.0
    for name, axis in (("crankpin", (0, 0, 1)), ("rockerpin", (1, 0, 0))):
        joint = s.joints[name].joint
        torque = rsur.reaction(name).torque @ (joint.base.rotation.T @ _unit(axis))
        assert np.abs(torque).max() <= scale, name
    assert np.abs(rsur.reaction("ball").torque).max() <= scale
    cross = s.joints["cross"].joint
    r = rsur.reaction("cross")
    a1 = cross.base.rotation.T @ _unit(CROSS_AXES[0])
    a2 = _in_base_axes(rsur, cross, _unit(CROSS_AXES[1]))
    assert np.abs(r.torque @ a1).max() <= scale
    assert np.abs(np.einsum("ni,ni->n", r.torque, a2)).max() <= scale
    # ...while the universal does carry a moment about its third direction
    assert np.abs(r.torque).max() > 1.0


# ------------------------------------------------------------------------ a driven slider-crank

CRANK, ROD, OFFSET = 0.3, 1.0, 0.1      # m: crank, connecting rod, slider axis above the crank
OMEGA = 2.0 * np.pi                     # rad/s


def slider_crank(spring):
    """An offset slider-crank in the xz-plane, its crank turned at a constant OMEGA by a
    MotionDriver; with ``spring``, a spring (no damper) on the slider's prismatic joint."""
    m = mbd.Model("slider_crank")
    g = m.add_ground("g", environment=EARTH)
    B = np.array([CRANK, 0.0, 0.0])
    C = np.array([CRANK + np.sqrt(ROD**2 - OFFSET**2), 0.0, OFFSET])
    rail = m.add_ground("rail", at=C)
    crank = m.add_body("crank", 2.0, B / 2 + (0, 0, 0.02), [0.002, 0.02, 0.02],
                       cs={"o": (0, 0, 0), "b": B})
    rod = m.add_body("rod", 1.0, (B + C) / 2, [1e-3, 1 / 12, 1 / 12], cs={"b": B, "c": C})
    slider = m.add_body("slider", 3.0, C, [0.01, 0.01, 0.01], cs={"c": C})
    shaft = m.add(Revolute("crankshaft", g, crank["o"], axis=(0, 1, 0), v0=OMEGA))
    m.add(Revolute("pin", crank["b"], rod["b"], axis=(0, 1, 0)))
    m.add(Revolute("wrist", rod["c"], slider["c"], axis=(0, 1, 0)))
    guide = m.add(Prismatic("guide", rail, slider["c"], axis=(1, 0, 0)))
    if spring:
        m.add(JointForce("spring", guide, Spring(c=300.0, x0=-0.1)))
    m.add(mbd.MotionDriver("motor", shaft, position=lambda t: OMEGA * t,
                           velocity=lambda t: OMEGA, acceleration=lambda t: 0.0))
    return m


@pytest.mark.parametrize("spring", [False, True])
def test_slider_crank_driving_torque_is_the_power_balance(spring):
    h = 1e-3
    result = slider_crank(spring).build().simulate(1.0, output_step=h, rtol=1e-10, atol=1e-10)
    assert np.abs(result.joint("crankshaft").v - OMEGA).max() < 1e-12
    torque = result.reaction("motor").value
    # no dissipation: torque * omega = d(T + V)/dt, V with gravity and the spring; the
    # derivative by 4th-order central differences on the 1 ms rows (truncation ~h^4 E^(5)
    # ~1e-9 of the peak power here)
    energy = result.energy()
    rate = (energy[:-4] - 8 * energy[1:-3] + 8 * energy[3:-1] - energy[4:]) / (12 * h)
    power = torque[2:-2] * OMEGA
    assert np.abs(power).max() > 50.0
    np.testing.assert_allclose(power, rate, rtol=0, atol=1e-7 * np.abs(power).max())
    # the driven revolute transmits the driving torque about its axis (world y)
    np.testing.assert_allclose(result.reaction("crankshaft").torque[:, 1], torque, rtol=0,
                               atol=1e-10 * np.abs(torque).max())
    # the prismatic transmits nothing along its axis but its spring's force
    along = result.reaction("guide").force[:, 0]
    expected = result.force("spring").value if spring else np.zeros(len(result.t))
    np.testing.assert_allclose(along, expected, rtol=0, atol=1e-10 * 6.0 * G)
    assert_balanced(result, range(0, len(result.t), 100), length=1.0)


# ------------------------------------------------------------------------- a door on two hinges

DOOR_AXIS = _unit((0.1, 0.05, 1.0))


def door():
    """A 10 kg door on two coaxial hinges (the axis tilted off the vertical, so gravity turns
    it), each on its own ground. The lower hinge closes the loop, its follower a ground; it
    carries a spring and a MotionDriver that swings the door."""
    m = mbd.Model("door")
    top = np.array([0.0, 0.0, 2.0])
    bottom = top - 2.0 * DOOR_AXIS
    g = m.add_ground("g", at=top, environment=EARTH, orientation=Rotation.from_euler("z", 0.3))
    g2 = m.add_ground("g2", at=bottom, orientation=Rotation.from_euler("x", 0.2))
    leaf = m.add_body("leaf", 10.0, (0.5, 0.02, 1.0), _inertia((1.5, 2.0, 0.6), (0, 0, 0.1)),
                      cs={"top": (top, Rotation.from_euler("y", 0.5)),
                          "bottom": (bottom, Rotation.from_euler("z", -0.5))})
    m.add(Revolute("upper", g, leaf["top"], axis=DOOR_AXIS, v0=1.0))
    lower = m.add(Revolute("lower", leaf["bottom"], g2, axis=DOOR_AXIS))
    m.add(JointForce("closer", lower, Spring(c=20.0)))
    # the lower hinge's angle is the ground's relative to the door: minus the door's
    m.add(mbd.MotionDriver("swing", lower, position=lambda t: -0.5 * np.sin(2 * t),
                           velocity=lambda t: -np.cos(2 * t),
                           acceleration=lambda t: 2 * np.sin(2 * t)))
    return m


def test_door_driven_through_the_loop_closing_hinge():
    h = 1e-3
    result = door().build().simulate(1.0, output_step=h, rtol=1e-10, atol=1e-10)
    s = result.system
    # the loop is closed at the lower hinge, against a ground; coaxial hinges repeat 5 of its
    # 6 equations
    assert s.cut_joints == ["lower"] and s.redundant_rows == 5 and s.dof == 1
    np.testing.assert_allclose(result.joint("upper").q, 0.5 * np.sin(2 * result.t), atol=1e-10)
    assert_balanced(result, range(0, len(result.t), 100), length=2.0)
    drive = result.reaction("swing").value
    spring = result.force("closer").value
    # the hinges turn freely but for the spring and the driver on the lower one
    for name, expected in (("upper", 0.0), ("lower", drive + spring)):
        base = s.joints[name].joint.base
        about_axis = result.reaction(name).torque @ (base.rotation.T @ DOOR_AXIS)
        np.testing.assert_allclose(about_axis, expected, rtol=0, atol=1e-10 * 10 * G)
    assert np.abs(drive).max() > 1.0 and np.abs(spring).max() > 1.0
    # power: drive * dq/dt = d(T + V_gravity + V_spring)/dt
    energy = result.energy()
    rate = (energy[:-4] - 8 * energy[1:-3] + 8 * energy[3:-1] - energy[4:]) / (12 * h)
    power = (drive * result.joint("lower").v)[2:-2]
    np.testing.assert_allclose(power, rate, rtol=0, atol=1e-7 * np.abs(power).max())


def test_reactions_at_a_state_balance_every_body_of_the_driven_slider_crank():
    """mbd.compiled.dynamics.reactions at one state, checked without result.reaction: with
    its wrenches (world, at each joint's follower CS origin; + on the follower, - on the
    base) and the weights, every body's forces are its m a_cg and its moments about the CG
    its I w' + w x I w, the rates differenced along the state derivative
    (:func:`_momentum_rates`); and the driver's torque times the crank's rate is the rate of
    the energy T + V (no spring, no damper: power balance), differenced along the same
    derivative. The branches are those the function picks at the state (sides=None)."""

    from tests.mbd.run.test_loops import SC_OMEGA, slider_crank
    system = slider_crank()[0]
    result = system.simulate(0.2, output_step=0.05)
    gravity = _gravity(system)
    weight = max(bm.body.mass for bm in system.bodies.values()) * np.linalg.norm(gravity)
    sd = Evaluator(system)
    for i in (0, 2, 4):
        state = mbd.State(result.t[i], result.q[i], result.v[i])
        wrenches, drivers = evaluator.reactions_at(system, state)
        rates = _momentum_rates(result, i)
        force = {name: bm.body.mass * np.asarray(gravity) - rates[name][0]
                 for name, bm in system.bodies.items()}
        moment = {name: -rates[name][1] for name in system.bodies}
        cg = {name: result.body(name).position("cg")[i] for name in system.bodies}
        for name, jm in system.joints.items():
            F, M = (np.asarray(x, dtype=float) for x in wrenches[name])
            point = _frame(result, jm.joint.follower)[0][i]
            for cs, sign in ((jm.joint.follower, 1.0), (jm.joint.base, -1.0)):
                if cs.owner is not cs:
                    body = cs.owner.name
                    force[body] = force[body] + sign * F
                    moment[body] = moment[body] + sign * M + np.cross(point - cg[body],
                                                                      sign * F)
        for name in system.bodies:
            assert np.abs(force[name]).max() <= 1e-8 * weight, (i, name, force[name])
            assert np.abs(moment[name]).max() <= 1e-8 * weight * 1.0, (i, name, moment[name])
        # the joints do carry loads here (the balance is not of zeros)
        assert max(np.linalg.norm(w[0]) for w in wrenches.values()) > 0.5 * weight
        # power: the driver's torque times the crank's rate = dE/dt along the motion
        sd.data.mode["sides"] = result.sides[i]
        y = np.concatenate([result.q[i], result.v[i]])
        dy, status = sd.derivative(result.t[i], y)
        assert status == 0
        h = 1e-4
        ks = np.array([-2.0, -1.0, 1.0, 2.0])
        probe = Result(system, np.full(4, result.t[i]), y + h * ks[:, None] * dy)
        rate = np.array([1.0, -8.0, 8.0, -1.0]) / (12.0 * h) @ probe.energy()
        torque, = drivers.values()
        assert abs(torque * SC_OMEGA - rate) <= 1e-7 * max(1.0, abs(rate)), (i, torque, rate)
