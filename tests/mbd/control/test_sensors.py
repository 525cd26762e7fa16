"""What a sensor measures (SPEC §9): accelerations, orientations, quantities relative to another
CS and joint reactions, each against something computed independently of the engine's own
path to it: closed forms of a pendulum (its equation of motion written here), finite
differences of the velocities the kinematics give, scipy's rotations composed by hand, the
statics and the string tension of a pendulum, a driven hinge's torque from its prescribed
motion; and every bad name refused naming its cause.
"""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import mbd
from forces import Actuator, JointForce
from joints import Prismatic, Revolute, Spherical
from mbd.control.signals import quantity, unit
from mbd.exchange.variables import variables

G = 9.81                        # m/s^2, gravity along -z
M, L, R_TIP = 1.5, 0.8, 1.2     # kg; the CG and the tip below the pivot, m
J_CG = 0.02                     # kg m^2, about the CG (isotropic)
J = J_CG + M * L ** 2           # kg m^2, about the hinge
TIGHT = dict(rtol=1e-11, atol=1e-12)


def pendulum(sensors=(), q0=0.6, v0=1.5, gravity=G):
    """A body hanging from a hinge about y at the origin (CG L below it, CS ``tip`` R_TIP
    below it, CS ``pivot`` at the hinge), q > 0 swinging the CG towards -x:
    J q'' = -M g L sin q. ``sensors`` (name, what) are added."""
    model = mbd.Model("pendulum")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -gravity)))
    arm = model.add_body("arm", mass=M, cg=(0, 0, -L), inertia=[J_CG] * 3,
                         cs={"pivot": (0, 0, 0), "tip": (0, 0, -R_TIP)})
    model.add(Revolute("hinge", ground, arm["pivot"], axis=(0, 1, 0), q0=q0, v0=v0))
    for name, what in sensors:
        model.add(mbd.Sensor(name, what))
    return model


def closed_form_qdd(q):
    """q'' of the pendulum from its equation of motion, rad/s^2."""
    return -M * G * L * np.sin(q) / J


def fd(f, t):
    """d f / d t at the rows 2 .. n-3 of equally spaced rows: fourth-order central
    differences (error h^4 f^(5) / 30)."""
    h = t[1] - t[0]
    return (-f[4:] + 8.0 * f[3:-1] - 8.0 * f[1:-3] + f[:-4]) / (12.0 * h)


# ------------------------------------------------------------------------ accelerations

def test_a_pendulums_tip_acceleration_is_centripetal_plus_tangential():
    """a_tip = -R q'' (cos q, 0, -sin q) + R q'^2 (sin q, 0, cos q) with q'' from the
    equation of motion, at every row of a swing (measured 4e-15 m/s^2 of 8 m/s^2), and the
    angular acceleration is (0, q'', 0)."""
    sensors = [(f"a{c}", f"arm.tip.a{c}") for c in "xyz"] + [
        (f"alpha{c}", f"arm.tip.alpha{c}") for c in "xyz"]
    r = pendulum(sensors).build().simulate(2.0, output_step=0.01, **TIGHT)
    q, qd = r.joint("hinge").q, r.joint("hinge").v
    qdd = closed_form_qdd(q)
    want = (-R_TIP * qdd[:, None] * np.column_stack([np.cos(q), 0 * q, -np.sin(q)])
            + R_TIP * qd[:, None] ** 2 * np.column_stack([np.sin(q), 0 * q, np.cos(q)]))
    got = np.column_stack([r.sensor(f"a{c}") for c in "xyz"])
    scale = np.abs(want).max()
    assert scale > 5.0
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * scale)
    alpha = np.column_stack([r.sensor(f"alpha{c}") for c in "xyz"])
    np.testing.assert_allclose(alpha, np.column_stack([0 * q, qdd, 0 * q]), rtol=0,
                               atol=1e-12 * np.abs(qdd).max())
    assert unit(r.system, "arm.tip.az") == "m/s^2"
    assert unit(r.system, "arm.tip.alphay") == "rad/s^2"


def test_a_pendulum_at_rest_has_no_acceleration():
    """Hanging still: gravity, taken into the dynamics as the base's acceleration, is not
    reported as the bob's."""
    r = pendulum([("az", "arm.cg.az"), ("ax", "arm.tip.ax")], q0=0.0, v0=0.0).simulate(
        0.5, output_step=0.1)
    np.testing.assert_allclose(r.sensor("az"), 0.0, atol=1e-12)
    np.testing.assert_allclose(r.sensor("ax"), 0.0, atol=1e-12)


def spatial_chain(sensors=()):
    """A heavy top on a spherical joint spinning about a tilted axis, with a second body on a
    skew hinge at its far end: every link in 3-D motion, CS ``end`` of the second body
    off its axis and turned."""
    model = mbd.Model("chain")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -G)))
    top = model.add_body("top", mass=2.0, cg=(0.1, 0.05, 0.4),
                         inertia=[[0.05, 0.002, 0.0], [0.002, 0.04, 0.001],
                                  [0.0, 0.001, 0.02]],
                         cs={"o": (0, 0, 0), "far": (0.2, 0.0, 0.7)})
    link = model.add_body("link", mass=0.7, cg=(0.35, 0.1, 0.7), inertia=[0.01, 0.02, 0.015],
                          cs={"joint": (0.2, 0.0, 0.7),
                              "end": ((0.5, 0.2, 0.65), Rotation.from_euler("xyz",
                                                                            [0.4, -0.2, 1.0]))})
    model.add(Spherical("ball", ground, top["o"], v0=(1.5, -2.0, 8.0)))
    model.add(Revolute("elbow", top["far"], link["joint"], axis=(0.3, 1.0, 0.2), v0=3.0))
    for name, what in sensors:
        model.add(mbd.Sensor(name, what))
    return model


def test_accelerations_in_3d_are_the_derivatives_of_the_velocities():
    """A CS on the second link of a spinning 3-D chain: its acceleration is the time
    derivative of its velocity (BodyView.velocity, from the kinematics alone) and the
    angular acceleration that of the angular velocity: fourth-order differences of 1 ms
    rows agree to 1e-6 of the largest (measured 3e-9: the run's error over 1 ms)."""
    sensors = ([(f"a{c}", f"link.end.a{c}") for c in "xyz"]
               + [(f"al{c}", f"link.end.alpha{c}") for c in "xyz"])
    r = spatial_chain(sensors).simulate(0.3, output_step=1e-3, **TIGHT)
    body = r.body("link")
    a = np.column_stack([r.sensor(f"a{c}") for c in "xyz"])
    alpha = np.column_stack([r.sensor(f"al{c}") for c in "xyz"])
    for got, velocity in ((a, body.velocity("end")), (alpha, body.angular_velocity)):
        want = fd(velocity, r.t)
        scale = np.abs(want).max()
        assert scale > 10.0
        np.testing.assert_allclose(got[2:-2], want, rtol=0, atol=1e-6 * scale)


# ------------------------------------------------------------------------ orientation

AXIS = np.array([1.0, 2.0, 2.0]) / 3.0


def spinner(sensors, gravity=0.0):
    """A body turning about the fixed axis AXIS at 5 rad/s (no gravity: q = 5 t, past 2 pi),
    CS ``plain`` with world axes in the reference configuration, CS ``turned`` with axes
    TURN; ground ``bench`` at (1, 0, 0.5) with axes BENCH."""
    model = mbd.Model("spinner")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -gravity)))
    model.add_ground("bench", at=(1.0, 0.0, 0.5), orientation=BENCH)
    wheel = model.add_body("wheel", mass=1.0, cg=(0, 0, 0), inertia=[0.1, 0.1, 0.1],
                           cs={"plain": (0.3, 0.1, 0.0), "turned": ((0.0, 0.2, 0.1), TURN)})
    model.add(Revolute("axle", ground, wheel["cg"], axis=AXIS, v0=5.0))
    for name, what in sensors:
        model.add(mbd.Sensor(name, what))
    return model


TURN = Rotation.from_euler("zyx", [0.7, -0.3, 0.2])
BENCH = Rotation.from_euler("xyz", [0.2, 0.5, -0.4])


def wxyz(rotation):
    """scipy's quaternions (x, y, z, w) as (w, x, y, z)."""
    return rotation.as_quat()[:, [3, 0, 1, 2]]


def test_the_orientation_of_a_body_turning_about_a_fixed_axis():
    """Turning by q about AXIS: the plain CS's quaternion is (cos q/2, sin q/2 AXIS) over two
    turns (its sign continuous, not folded back to w >= 0), its rotation vector q AXIS with q
    taken into (-pi, pi]; the turned CS's is the turn composed with TURN (scipy), and
    relative to the bench R_bench^T R_cs."""
    sensors = [("q", "wheel.plain.quaternion"), ("rv", "wheel.plain.rotation_vector"),
               ("qx", "wheel.plain.qx"), ("rz", "wheel.plain.rz"),
               ("tq", "wheel.turned.quaternion"), ("rel", "wheel.turned.quaternion@bench"),
               ("relrv", "wheel.turned.rotation_vector@bench")]
    r = spinner(sensors).simulate(2.6, output_step=0.01, **TIGHT)
    q = r.joint("axle").q
    assert q[-1] > 4 * np.pi
    half = q[:, None] / 2.0
    want = np.hstack([np.cos(half), np.sin(half) * AXIS])
    got = r.sensor("q")
    assert got.shape == (len(r.t), 4)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    wrapped = (q + np.pi) % (2 * np.pi) - np.pi
    np.testing.assert_allclose(r.sensor("rv"), wrapped[:, None] * AXIS, rtol=0, atol=1e-9)
    np.testing.assert_array_equal(r.sensor("qx"), got[:, 1])
    np.testing.assert_array_equal(r.sensor("rz"), r.sensor("rv")[:, 2])
    turn = Rotation.from_rotvec(q[:, None] * AXIS)
    for name, rotation in (("tq", turn * TURN), ("rel", BENCH.inv() * turn * TURN)):
        want = wxyz(rotation)
        got = r.sensor(name)
        # one sign for the run (continuous, w >= 0 first): compare up to it, row by row
        sign = np.sign(np.einsum("ni,ni->n", got, want))
        assert got[0, 0] >= 0.0 and np.all(np.einsum("ni,ni->n", got[1:], got[:-1]) > 0)
        np.testing.assert_allclose(got * sign[:, None], want, rtol=0, atol=1e-12)
    np.testing.assert_allclose(
        Rotation.from_rotvec(r.sensor("relrv")).as_matrix(),
        (BENCH.inv() * turn * TURN).as_matrix(), rtol=0, atol=1e-12)
    assert np.linalg.norm(r.sensor("relrv"), axis=1).max() <= np.pi + 1e-12
    assert unit(r.system, "wheel.plain.qw") == "1"
    assert unit(r.system, "wheel.plain.rotation_vector") == "rad"


# ------------------------------------------------------------------------ relative

MOUNT = Rotation.from_euler("z", 30, degrees=True)


def with_cart(sensors):
    """The pendulum and a cart sliding along x at 0.7 m/s from x = 0.2 (no force along x),
    its CS ``mount`` 0.3 m above its CG with axes MOUNT (turned 30 degrees about z)."""
    model = pendulum()
    ground = model.grounds[0]
    cart = model.add_body("cart", mass=3.0, cg=(0, 0, 0), inertia=[0.1] * 3,
                          cs={"mount": ((0.0, 0.0, 0.3), MOUNT)})
    model.add(Prismatic("rail", ground, cart["cg"], axis=(1, 0, 0), q0=0.2, v0=0.7))
    for name, what in sensors:
        model.add(mbd.Sensor(name, what))
    return model


def test_relative_quantities_are_world_differences_in_the_reference_axes():
    """Tip relative to the cart's mount, by hand: R_mount^T (p_tip - p_mount), the same for
    the velocities (the cart's 0.7 m/s along x subtracted), the angular velocity (0, q', 0)
    and the acceleration (the cart's is zero); relative to the pendulum's own pivot the
    position is the tip's offset in the turning body's axes."""
    parts = {"x": "x", "v": "vx", "w": "wx", "a": "ax"}
    sensors = []
    for key, first in parts.items():
        for axis in "xyz":
            tail = first[:-1] + axis
            sensors.append((f"{key}{axis}", f"arm.tip.{tail}@cart.mount"))
    sensors += [("own", "arm.tip.z@arm.pivot"), ("ownx", "arm.tip.x@arm.pivot")]
    r = with_cart(sensors).build().simulate(1.0, output_step=0.01, **TIGHT)
    q, qd = r.joint("hinge").q, r.joint("hinge").v
    s, sd = r.joint("rail").q, r.joint("rail").v
    zero = 0 * q
    Rt = MOUNT.as_matrix().T
    p_tip = -R_TIP * np.column_stack([np.sin(q), zero, np.cos(q)])
    v_tip = -R_TIP * qd[:, None] * np.column_stack([np.cos(q), zero, -np.sin(q)])
    qdd = closed_form_qdd(q)
    a_tip = (-R_TIP * qdd[:, None] * np.column_stack([np.cos(q), zero, -np.sin(q)])
             + R_TIP * qd[:, None] ** 2 * np.column_stack([np.sin(q), zero, np.cos(q)]))
    p_mount = np.column_stack([s, zero, zero + 0.3])
    v_mount = np.column_stack([sd, zero, zero])
    want = {"x": (p_tip - p_mount) @ Rt.T, "v": (v_tip - v_mount) @ Rt.T,
            "w": np.column_stack([zero, qd, zero]) @ Rt.T, "a": a_tip @ Rt.T}
    np.testing.assert_allclose(sd, 0.7, rtol=1e-12)
    for key, value in want.items():
        got = np.column_stack([r.sensor(f"{key}{axis}") for axis in "xyz"])
        np.testing.assert_allclose(got, value, rtol=0, atol=1e-11 * np.abs(value).max(),
                                   err_msg=key)
    # in the arm's own axes the tip stays where it was drawn
    np.testing.assert_allclose(r.sensor("own"), -R_TIP, rtol=1e-14)
    np.testing.assert_allclose(r.sensor("ownx"), 0.0, atol=1e-14)
    assert unit(r.system, "arm.tip.ax@cart.mount") == "m/s^2"
    assert quantity(r.system, "arm.tip.x@cart.mount") == ("relative", "arm", "tip", "position",
                                                           0, "cart.mount")


def test_relative_to_a_ground():
    """A ground is a CS: the spinner's CS relative to the bench, R_bench^T (p - p_bench)."""
    r = spinner([("x", "wheel.plain.x@bench"), ("vz", "wheel.plain.vz@bench")]).simulate(
        0.5, output_step=0.05, **TIGHT)
    body = r.body("wheel")
    Rb = BENCH.as_matrix()
    want = (body.position("plain") - (1.0, 0.0, 0.5)) @ Rb
    np.testing.assert_allclose(r.sensor("x"), want[:, 0], rtol=0, atol=1e-14)
    np.testing.assert_allclose(r.sensor("vz"), (body.velocity("plain") @ Rb)[:, 2], rtol=0,
                               atol=1e-14)


# ------------------------------------------------------------------------ reactions

def test_a_hanging_pendulums_hinge_carries_its_weight():
    r = pendulum([(f"f{c}", f"hinge.f{c}") for c in "xyz"] + [("ty", "hinge.ty")], q0=0.0,
                 v0=0.0).simulate(0.5, output_step=0.1)
    np.testing.assert_allclose(r.sensor("fz"), M * G, rtol=1e-14)
    np.testing.assert_allclose(r.sensor("fx"), 0.0, atol=1e-12)
    np.testing.assert_allclose(r.sensor("ty"), 0.0, atol=1e-12)
    assert unit(r.system, "hinge.fz") == "N" and unit(r.system, "hinge.tx") == "N.m"


def test_a_swinging_pendulums_hinge_pulls_with_the_string_tension():
    """Along the arm, towards the pivot: M L q'^2 + M g cos q (centripetal plus weight);
    across it the tangential M (L q'' + g sin q) with q'' from the equation of motion; and
    the sensors are result.reaction's numbers."""
    r = pendulum([(f"f{c}", f"hinge.f{c}") for c in "xyz"] + [("ty", "hinge.ty")]).simulate(
        2.0, output_step=0.01, **TIGHT)
    q, qd = r.joint("hinge").q, r.joint("hinge").v
    F = np.column_stack([r.sensor(f"f{c}") for c in "xyz"])
    np.testing.assert_array_equal(F, r.reaction("hinge").force)
    np.testing.assert_array_equal(r.sensor("ty"), r.reaction("hinge").torque[:, 1])
    along = np.column_stack([np.sin(q), 0 * q, np.cos(q)])      # from the CG to the pivot
    forward = np.column_stack([-np.cos(q), 0 * q, np.sin(q)])   # the CG's motion for q' > 0
    tension = M * L * qd ** 2 + M * G * np.cos(q)
    np.testing.assert_allclose(np.einsum("ni,ni->n", F, along), tension, rtol=0,
                               atol=1e-12 * tension.max())
    # M (a - g) . forward; nonzero only through the bob's own inertia J_CG
    tangential = M * (L * closed_form_qdd(q) + G * np.sin(q))
    assert np.abs(tangential).max() > 0.1
    np.testing.assert_allclose(np.einsum("ni,ni->n", F, forward), tangential, rtol=0,
                               atol=1e-12 * tension.max())
    assert np.ptp(qd ** 2) > 1.0      # the centripetal term is there to be got wrong


def test_a_motion_drivers_reaction_is_the_torque_its_motion_needs():
    """The hinge driven along q = A sin(w t): the driver applies J q'' + M g L sin q."""
    A, W = 0.5, 3.0
    model = pendulum([("drive", "motor.reaction")], q0=0.0, v0=A * W)
    hinge = next(e for e in model.elements if getattr(e, "name", "") == "hinge")
    model.add(mbd.MotionDriver("motor", hinge, position=lambda t: A * np.sin(W * t),
                               velocity=lambda t: A * W * np.cos(W * t),
                               acceleration=lambda t: -A * W * W * np.sin(W * t)))
    r = model.simulate(2.0, output_step=0.02, **TIGHT)
    q = A * np.sin(W * r.t)
    want = J * (-A * W * W * np.sin(W * r.t)) + M * G * L * np.sin(q)
    np.testing.assert_allclose(r.sensor("drive"), want, rtol=0, atol=1e-9 * np.abs(want).max())
    np.testing.assert_array_equal(r.sensor("drive"), r.reaction("motor").value)
    assert unit(r.system, "motor.reaction") == "N.m"
    assert quantity(r.system, "motor.reaction") == ("reaction", "motor", "value", None)


# ------------------------------------------------------------------------ in the loop

def test_a_digital_controller_samples_reactions_and_accelerations_at_the_state():
    """A digital controller reads the hinge's vertical reaction and the tip's acceleration
    and drives a second, separate pendulum (so its output does not change what it reads):
    each sampled input is the result's value at that instant."""
    T = 0.05
    model = pendulum([("fz", "hinge.fz"), ("az", "arm.tip.az"), ("tilt", "arm.tip.qy")])
    other_ground = model.add_ground("other", at=(5.0, 0, 0),
                                    environment=mbd.Environment(gravity=(0, 0, -G)))
    bob = model.add_body("bob", mass=1.0, cg=(5.0, 0, -0.5), inertia=[0.01] * 3,
                         cs={"pivot": (5.0, 0, 0)})
    swing = model.add(Revolute("swing", other_ground, bob["pivot"], axis=(0, 1, 0)))

    def law(t, x, u):
        return x, [0.01 * u[0] + 0.1 * u[1] + u[2]]
    ctrl = model.add(mbd.DiscreteController("c", law, ["fz", "az", "tilt"], period=T))
    model.add(JointForce("push", swing, Actuator(ctrl)))
    r = model.simulate(1.0, output_step=T, **TIGHT)
    c = r.controller("c")
    rows = np.searchsorted(r.t, c.t)
    np.testing.assert_allclose(r.t[rows], c.t, rtol=0, atol=1e-15)
    assert len(c.t) == 21 and np.abs(c.y).max() > 0.1
    np.testing.assert_allclose(c.u[:, 0], r.reaction("hinge").force[rows, 2], rtol=1e-12)
    np.testing.assert_allclose(c.u[:, 1], r.sensor("az")[rows], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(c.u[:, 2], r.sensor("tilt")[rows], rtol=1e-12, atol=1e-15)
    assert np.ptp(c.u[:, 0]) > 1.0 and np.ptp(c.u[:, 1]) > 1.0


def test_a_live_simulation_reads_vector_sensors_and_their_components():
    """sim.read of a vector sensor gives its numbers, of 'name[k]' one of them (as an FMU's
    outputs read them); the exchange makes one output per component."""
    model = pendulum([("tq", "arm.tip.quaternion"), ("rv", "arm.tip.rotation_vector"),
                      ("fz", "hinge.fz")])
    system = model.build()
    sim = system.start(**TIGHT)
    sim.advance_to(0.3)
    r = sim.result()
    np.testing.assert_allclose(sim.read("tq"), r.sensor("tq")[-1], rtol=0, atol=1e-15)
    assert sim.read("tq[2]") == pytest.approx(r.sensor("tq")[-1, 2], abs=1e-15)
    assert sim.read("rv[1]") == pytest.approx(r.joint("hinge").q[-1], abs=1e-14)
    assert sim.read("fz") == pytest.approx(r.sensor("fz")[-1], rel=1e-14)
    outputs = [v for v in variables(model, system) if v.causality == "output"]
    assert [v.name for v in outputs] == ["tq[0]", "tq[1]", "tq[2]", "tq[3]", "rv[0]",
                                         "rv[1]", "rv[2]", "fz"]
    assert [v.unit for v in outputs] == ["1"] * 4 + ["rad"] * 3 + ["N"]
    assert "component 1 (arm.tip.qx)" in outputs[1].description


PLANT = """
import mbd
from forces import Actuator, JointForce
from joints import Revolute

RTOL, ATOL = 1e-9, 1e-11


def build_model():
    m = mbd.Model("swing")
    g = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    arm = m.add_body("arm", mass=1.0, cg=(0, 0, -0.5), inertia=[0.01] * 3,
                     cs={"pivot": (0, 0, 0), "tip": (0, 0, -1.0)})
    hinge = m.add(Revolute("hinge", g, arm["pivot"], axis=(0, 1, 0), q0=0.4))
    m.add(JointForce("motor", hinge, Actuator(m.add(mbd.Input("torque", 0.0, unit="N.m")))))
    m.add(mbd.Sensor("tq", "arm.tip.quaternion"))
    m.add(mbd.Sensor("fz", "hinge.fz"))
    m.add(mbd.Sensor("az", "arm.tip.az"))
    return m
"""


def test_an_fmu_outputs_a_vector_sensors_components_reactions_and_accelerations(tmp_path):
    """FMPy validates the FMU (its output names 'tq[k]' structured) and runs it: the outputs
    are mbd's own run's sensors."""
    fmpy = pytest.importorskip("fmpy")
    from fmpy.validation import validate_fmu
    script = tmp_path / "swing.py"
    script.write_text(PLANT)
    path = mbd.export_fmu(script, tmp_path / "swing.fmu")
    assert validate_fmu(path) == []
    units = {v.name: v.unit for v in fmpy.read_model_description(path).modelVariables
             if v.causality == "output"}
    assert units == {"tq[0]": "1", "tq[1]": "1", "tq[2]": "1", "tq[3]": "1", "fz": "N",
                     "az": "m/s^2"}
    rows = fmpy.simulate_fmu(path, stop_time=0.3, output_interval=0.1)
    from mbd.study.scripts import load_script, model_of
    r = model_of(load_script(script), script).build().simulate(0.3, output_step=0.1,
                                                                rtol=1e-9, atol=1e-11)
    for k in range(4):
        np.testing.assert_allclose(rows[f"tq[{k}]"], r.sensor("tq")[:, k], rtol=0, atol=1e-9)
    np.testing.assert_allclose(rows["fz"], r.sensor("fz"), rtol=1e-8)
    np.testing.assert_allclose(rows["az"], r.sensor("az"), rtol=0, atol=1e-7)


# ------------------------------------------------------------------------ bad names

@pytest.mark.parametrize("what, message", [
    ("arm.nose.ax", r"body 'arm' has no CS 'nose'; its CSs are cg, pivot, tip"),
    ("arm.tip.jerk", r"a CS measures x, y, z, .*alphax.*quaternion.*got 'jerk'"),
    ("arm.tip.x@arm.nose", r"'arm.tip.x@arm.nose': body 'arm' has no CS 'nose'"),
    ("arm.tip.x@nowhere", r"the reference CS 'nowhere' after '@' is no ground nor body CS "
                          r".*grounds are \['ground'\]"),
    ("arm.tip.x@", r"the reference CS '' after '@'"),
    ("hinge.q@arm.pivot", r"only a CS's quantity .* may be taken relative"),
    ("hinge.fw", r"a joint measures its coordinates .* and its reaction \(hinge.fx, "),
    ("hinge.reaction", r"a joint measures .*reaction \(hinge.fx"),
    ("arm.tip.quaternion[4]", r"measures 4 numbers: \[0\] to \[3\]"),
    ("arm.tip.qw[0]", r"'arm.tip.qw' is no vector quantity or sensor"),
    ("ghost.fx", r"names no joint, motion driver, force element or body CS"),
])
def test_bad_names_are_refused_naming_why(what, message):
    with pytest.raises(mbd.ModelError, match=message):
        pendulum([("s", what)]).build()


def test_a_drivers_bad_quantity_is_named():
    model = pendulum([("s", "motor.torque")])
    hinge = next(e for e in model.elements if getattr(e, "name", "") == "hinge")
    model.add(mbd.MotionDriver("motor", hinge, position=0.0))
    with pytest.raises(mbd.ModelError, match=r"a motion driver or gear measures its reaction "
                                             r"\('motor.reaction'\), got 'torque'"):
        model.build()


def test_a_vector_sensor_is_no_controller_input():
    model = pendulum([("tq", "arm.tip.quaternion@ground")])
    model.add(mbd.DiscreteController("c", lambda t, x, u: (x, [0.0]), ["tq"], period=0.1))
    with pytest.raises(mbd.ModelError, match=r"DiscreteController 'c': its input Sensor\('tq'"
                                             r".* measures a vector of 4 numbers.*one number: "
                                             r"give a Sensor of one of its components "
                                             r"\('arm.tip.qw@ground', 'arm.tip.qx@ground'"):
        model.build()


@pytest.mark.parametrize("what", ["arm.tip.az", "arm.tip.alphay@arm.pivot", "hinge.fz"])
def test_a_continuous_controller_cannot_read_accelerations_or_reactions(what):
    """They depend on the forces, which may depend on the controller's own output."""
    model = pendulum([("s", what)])
    hinge = next(e for e in model.elements if getattr(e, "name", "") == "hinge")
    gain = model.add(mbd.Gain("k", [1.0], ["s"]))
    model.add(JointForce("motor", hinge, Actuator(gain)))
    with pytest.raises(mbd.ModelError, match=r"Gain 'k': its input Sensor\('s'.* measures a "
                                             r"force.*sample it with a discrete controller"):
        model.build()


def test_a_continuous_controller_reads_an_orientation_as_the_joint_angle():
    """The pendulum's tip turns about y by the hinge angle: a Gain on the rotation vector's y
    component (evaluated from Python: the compiled records measure joints and CS positions,
    velocities, angular velocities) is the Gain on the hinge angle (compiled), run for run."""
    from .test_compiled_controls import pendulum
    by_angle = pendulum(mbd.Gain("u", [-4.0], ["s"]), {"s": "hinge.q"}).simulate(
        1.0, output_step=0.01, rtol=1e-11, atol=1e-12)
    by_orientation = pendulum(mbd.Gain("u", [-4.0], ["s"]), {"s": "arm.tip.ry"}).simulate(
        1.0, output_step=0.01, rtol=1e-11, atol=1e-12)
    assert (by_angle.stats["stepper"], by_orientation.stats["stepper"]) == ("compiled", "scipy")
    np.testing.assert_allclose(by_orientation.joint("hinge").q, by_angle.joint("hinge").q,
                               atol=1e-9)


def test_linearize_names_a_vector_sensor_given_as_one_output():
    from .test_compiled_controls import pendulum
    system = pendulum(mbd.Gain("u", [-4.0], ["s"]), {"s": "hinge.q",
                                                     "turn": "arm.tip.quaternion"})
    with pytest.raises(ValueError, match=r"linearize: output 'turn' is a sensor of 4 numbers "
                                         r"\(arm\.tip\.quaternion\)"):
        mbd.linearize(system, system.initial_state(), outputs=["turn"])
