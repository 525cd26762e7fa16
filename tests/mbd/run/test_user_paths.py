"""The engine's user paths no other test walks (issue 31), each driven as a user would and
asserting what the user is told or given:

- equilibrium: a start whose Jacobian is singular, a tolerance below the forces' round-off, a
  mechanism that does not come to rest within the budget, motion drivers at rest or moving;
- closed-loop runs that fail: a loop that cannot stay closed, constraint equations that gain
  rank, a compiled loop that stops advancing, a state that stops being finite in the compiled
  loop (a user's law of NaN stiffness);
- ``--set`` on a JointStiction, a Bushing, a gear's ratio and a user's law that is not a
  dataclass;
- unknown names in a Result's lookups;
- linearize with outputs named by coordinate, rate and CS position, against the pendulum's
  closed form.
"""
import sys
from pathlib import Path

import numpy as np
import pytest

import mbd
from forces import Actuator, Bushing, JointForce, JointStiction, Spring, SpringDamper
from forces import linear as linear_kind
from joints import Prismatic, Revolute, SixDof
from mbd.analysis import equilibrium as equilibrium_module
from mbd.cli import InputError, apply_setting
from tests.mbd.run.test_loops import fourbar
from tests.mbd.run.test_run_failures import failure

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
from windows import windows_model  # noqa: E402

G = 9.81


def _model(name, gravity=(0.0, 0.0, -G)):
    m = mbd.Model(name)
    return m, m.add_ground("g", environment=mbd.Environment(gravity=gravity))


def pendulum(length=1.0, drawn_level=True, spring=None, name="pendulum"):
    """A 1 kg point mass on a massless link of ``length`` m about +y, drawn level along +x
    (or hanging along -z); a CS 'tip' at the mass; ``spring``: a torsional Spring (N m/rad)
    unstretched in the drawing. Returns (model, hinge)."""
    m, g = _model(name)
    tip = (length, 0, 0) if drawn_level else (0, 0, -length)
    bob = m.add_body("bob", mass=1.0, cg=tip, inertia=np.eye(3) * 1e-14,
                     cs={"o": (0, 0, 0), "tip": tip})
    hinge = m.add(Revolute("hinge", g, bob["o"], axis=(0, 1, 0)))
    if spring is not None:
        m.add(JointForce("spring", hinge, Spring(c=spring)))
    return m, hinge


# ----------------------------------------------------------------------------- equilibrium


def test_a_singular_jacobian_at_the_start_hands_over_to_the_damped_motion():
    """Drawn level, the pendulum's gravity torque m g L cos(theta) has a zero derivative: the
    Jacobian is singular, Newton cannot take a step, and the dynamic stage carries it to
    hanging (theta = pi/2: +x turns to -z), the closed form's rest, frequency sqrt(g/L)."""
    system = pendulum(length=1.0)[0].build()
    statics = equilibrium_module._Statics(system, system.initial_state())
    chart = statics.recentre(system.initial_state().q)
    assert np.linalg.matrix_rank(statics.jacobian(chart)) == 0       # singular, exactly
    eq = mbd.equilibrium(system)
    assert eq.method == "dynamic, then newton"
    assert eq.coordinates()["hinge"] == pytest.approx(np.pi / 2, abs=1e-10)
    assert eq.residual <= 1e-10 and eq.stable
    assert eq.linear.modes()[0].frequency == pytest.approx(np.sqrt(G) / (2 * np.pi), rel=1e-8)
    assert eq.table().splitlines()[0].startswith(
        "equilibrium of 'pendulum' at t = 0 s (dynamic, then newton, ")


def test_a_tolerance_below_the_forces_round_off_says_which_is_reachable():
    """tol = 1e-300: no iteration reaches it (the forces' round-off is some 1e-16 N m); the
    message gives the tolerance that is reachable, and that one is met."""
    system = pendulum(length=1.0)[0].build()
    with pytest.raises(mbd.AnalysisError) as info:
        mbd.equilibrium(system, tol=1e-300)
    message = str(info.value)
    assert message.startswith("equilibrium: system 'pendulum' is at rest to the forces' "
                              "round-off (")
    assert "N or N m), above tol = 1e-300: ask for tol >= " in message
    reachable = float(message.rsplit(">= ", 1)[1])
    assert 0.0 < reachable < 1e-9
    assert info.value.state.q[0] == pytest.approx(np.pi / 2, abs=1e-9)    # where it rests
    eq = mbd.equilibrium(system, tol=reachable)           # the tolerance it names works
    assert eq.coordinates()["hinge"] == pytest.approx(np.pi / 2, abs=1e-10)
    assert eq.residual <= reachable


def test_a_loop_that_does_not_come_to_rest_within_the_budget_says_so(monkeypatch):
    """The four-bar started with its crank at 1 rad, Newton allowed one iteration: the damped
    motion takes over, re-centring its chart as it goes; with a budget of 50 evaluations it
    cannot reach rest, and the message gives the budget and the residual."""
    monkeypatch.setattr(equilibrium_module, "RELAX_EVALUATIONS", 50)
    system = fourbar(forces=(lambda j: JointForce("spring", j["j1"], Spring(c=5.0)),))
    with pytest.raises(mbd.AnalysisError) as info:
        mbd.equilibrium(system, q0={"j1": 1.0}, max_iterations=1)
    message = str(info.value)
    assert message.startswith("equilibrium: system 'fourbar' did not come to rest within 50 "
                              "evaluations of the damped motion (residual ")
    assert message.endswith(" N or N m)")
    monkeypatch.setattr(equilibrium_module, "RELAX_EVALUATIONS", 20000)
    eq = mbd.equilibrium(system, q0={"j1": 1.0}, max_iterations=1)   # with its budget: rests
    assert eq.method == "dynamic, then newton" and eq.residual <= 1e-10 and eq.stable


@pytest.mark.parametrize("bad, text", [
    (dict(max_iterations=0), "equilibrium: max_iterations must be an integer >= 1, got 0"),
    (dict(max_iterations=True), "equilibrium: max_iterations must be an integer >= 1, got True"),
    (dict(q0={"nope": 0.1}), "nope"),
])
def test_equilibrium_arguments_are_checked(bad, text):
    system = pendulum()[0].build()
    with pytest.raises((ValueError, TypeError, mbd.ModelError)) as info:
        mbd.equilibrium(system, **bad)
    assert text in str(info.value)


def held_then_swung(t_hold=1.0, angle=0.5):
    """Two 1 kg point masses on massless 1 m links in a chain, drawn level along +x; the
    first hinge driven: held at ``angle`` until t_hold, then turned at 2 (t - t_hold) rad/s."""
    m, g = _model("driven")
    a = m.add_body("a", mass=1.0, cg=(1, 0, 0), inertia=np.eye(3) * 1e-14,
                   cs={"o": (0, 0, 0), "tip": (1, 0, 0)})
    b = m.add_body("b", mass=1.0, cg=(2, 0, 0), inertia=np.eye(3) * 1e-14,
                   cs={"o": (1, 0, 0)})
    shoulder = m.add(Revolute("shoulder", g, a["o"], axis=(0, 1, 0)))
    m.add(Revolute("elbow", a["tip"], b["o"], axis=(0, 1, 0)))
    m.add(mbd.MotionDriver(
        "servo", shoulder,
        position=lambda t: angle if t <= t_hold else angle + (t - t_hold) ** 2,
        velocity=lambda t: 0.0 if t <= t_hold else 2.0 * (t - t_hold),
        acceleration=lambda t: 0.0 if t <= t_hold else 2.0))
    return m.build()


def test_equilibrium_holds_a_motion_driver_at_rest_where_it_is():
    """Where the driver is at rest (t = 0.5), equilibrium holds the shoulder at its position
    and the free link hangs: its absolute angle pi/2, so the elbow's pi/2 - 0.5."""
    system = held_then_swung()
    eq = mbd.equilibrium(system, t=0.5)
    assert eq.state.t == 0.5
    assert eq.coordinates()["shoulder"] == pytest.approx(0.5, abs=1e-12)
    assert eq.coordinates()["elbow"] == pytest.approx(np.pi / 2 - 0.5, abs=1e-9)
    assert eq.residual <= 1e-10 and eq.stable


def test_equilibrium_with_a_moving_driver_is_refused_naming_it_and_its_motion():
    with pytest.raises(ValueError) as info:
        mbd.equilibrium(held_then_swung(), t=2.0)
    assert str(info.value) == ("equilibrium: MotionDriver 'servo' moves at t = 2 s (rate 2, "
                               "acceleration 2); a static equilibrium needs every motion "
                               "driver at rest: choose t where it is")


# ----------------------------------------------------------------------------- loop failures


def test_a_four_bar_driven_from_its_rocker_past_its_reach_stops_at_the_dead_centre():
    """The rocker of the crank-rocker reaches at most 0.54 rad; driven on at 2 rad/s it meets
    the dead centre (the crank and coupler in line) at 0.27 s, where the loop cannot follow."""
    def servo(joints):
        return mbd.MotionDriver("push", joints["j4"], position=lambda t: 2.0 * t,
                                velocity=lambda t: 2.0, acceleration=lambda t: 0.0)
    err = failure(fourbar(forces=(servo,)), 1.0, output_step=0.01)
    message = str(err)
    assert message.startswith("singular configuration at t = ")
    assert 0.5 < 2.0 * err.t < 0.55            # the rocker at its limit, 0.5416 rad
    assert "(loop ['j3', 'j2', 'j1', 'j4']; drivers and gears ['push'])" in message
    assert message.endswith("the mechanism has reached a dead centre or locks up, where its "
                            "motion is not determined (a change point that the motion "
                            "crosses with a continuous velocity is passed)")
    assert err.result.joint("j4").q[-1] <= 0.5416


def test_a_window_released_at_rest_on_its_change_point_gains_rank():
    """One parallelogram window, every link on the x-axis at rest: it may fall as a
    parallelogram or fold, so the run says the motion is not determined there."""
    system = windows_model(1, theta0=0.0, tip_speed=0.0).build()
    err = failure(system, 0.5, output_step=0.01, rtol=1e-10, atol=1e-10)
    message = str(err)
    assert message.startswith("singular configuration at t = ")
    assert ("the constraint equations gained rank: the mechanism started where they have "
            "rank 1") in message
    assert "and here they have rank 2" in message
    assert "which branch it leaves on is not determined; start it off the change point, or " \
           "moving" in message


class NaNSpring(mbd.Law):
    """A user's law of the linear kind that is not a dataclass: its stiffness an attribute."""

    kind = linear_kind.KIND

    def __init__(self, c):
        self.c, self.d, self.x0 = c, 0.0, 0.0


def block_on_a_spring(law, q0=0.1):
    m, g = _model("block")
    block = m.add_body("block", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3) * 1e-2,
                       cs={"o": (0, 0, 0)})
    rail = m.add(Prismatic("rail", g, block["o"], axis=(0, 0, 1), q0=q0))
    m.add(JointForce("spring", rail, law))
    return m


@pytest.mark.parametrize("compiled", [None, False], ids=["compiled", "scipy"])
def test_a_law_of_nan_stiffness_stops_the_run_at_the_start_naming_the_element(compiled):
    """(The compiled loop's first step came out of NaN size and the run never ended.)"""
    err = failure(block_on_a_spring(NaNSpring(float("nan"))).build(), 0.1, output_step=0.01,
                  compiled=compiled)
    assert str(err) == ("the state's rates are not finite at the start, t = 0 s (joint 'rail' "
                        "v, work of 'spring'): the force of JointForce 'spring' is not finite "
                        "there (a parameter that is NaN or infinite?)")
    assert err.t == 0.0 and len(err.result.t) == 1 and err.result.q[0, 0] == 0.1


# ----------------------------------------------------------------------------- --set


STICTION = "stick"


def stiction_model():
    m, g = _model("stiction")
    block = m.add_body("block", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3) * 1e-2,
                       cs={"o": (0, 0, 0)})
    rail = m.add(Prismatic("rail", g, block["o"], axis=(1, 0, 0)))
    m.add(JointStiction(STICTION, rail, f_static=3.0, f_kinetic=2.0, d=0.1))
    m.add(JointForce("push", rail, Actuator(2.5)))
    return m


def _only(model, name):
    [element] = [e for e in model.elements if getattr(e, "name", None) == name]
    return element


def test_set_on_a_joint_stiction_makes_a_new_one_and_refuses_what_it_must():
    model = stiction_model()
    old = _only(model, STICTION)
    assert apply_setting(model, "stick.f_static=2.2") == "stick.f_static = 2.2"
    new = _only(model, STICTION)
    assert type(new) is JointStiction and new is not old and new.joint is old.joint
    assert (new.f_static, new.f_kinetic, new.d) == (2.2, 2.0, 0.1) and old.f_static == 3.0
    for text, words in [
            ("stick.mu=0.3", "--set 'stick.mu=0.3': JointStiction 'stick' has no parameter "
                             "'mu'; its parameters are: f_static, f_kinetic, d"),
            ("stick.f_kinetic=-1", "--set 'stick.f_kinetic=-1': JointStiction 'stick': "
                                   "f_kinetic"),
            ("stick.f_static=1,2", "--set 'stick.f_static=1,2': ")]:
        with pytest.raises(InputError) as info:
            apply_setting(model, text)
        assert str(info.value).startswith(words), str(info.value)
        if text.endswith("1,2"):
            assert str(info.value).endswith(" takes one number, got (1.0, 2.0)")
        assert _only(model, STICTION) is new
    # the new element acts: a push of 2.5 N below f_static = 3 N held it; above 2.2 it slips
    r = model.build().simulate(0.2, output_step=0.1)
    assert r.force(STICTION).state["mode"][-1] == "slipping"
    assert r.joint("rail").q[-1] > 0.0


def bushing_model():
    m, g = _model("mount", gravity=(0.0, 0.0, 0.0))
    box = m.add_body("box", mass=2.0, cg=(0, 0, 0), inertia=[0.1] * 3, cs={"o": (0, 0, 0)})
    m.add(SixDof("free", g, box["o"]))
    m.add(Bushing("mount", g, box["o"], stiffness=[800.0] * 3 + [4.0] * 3,
                  damping=[1.0] * 6))
    return m


def test_set_on_a_bushing_changes_one_component_and_names_the_components():
    model = bushing_model()
    old = _only(model, "mount")
    apply_setting(model, "mount.kz=200")
    new = _only(model, "mount")
    assert type(new) is Bushing and new is not old
    assert list(new.stiffness) == [800.0, 800.0, 200.0, 4.0, 4.0, 4.0]
    assert list(old.stiffness) == [800.0] * 3 + [4.0] * 3
    with pytest.raises(InputError) as info:
        apply_setting(model, "mount.k=1")
    assert str(info.value) == (
        "--set 'mount.k=1': Bushing 'mount' has no parameter 'k'; its parameters are: "
        "stiffness, damping, preload, kx, ky, kz, kax, kay, kaz, cx, cy, cz, cax, cay, caz, "
        "fx, fy, fz, tx, ty, tz")
    with pytest.raises(InputError) as info:
        apply_setting(model, "mount.cx=-1")
    assert str(info.value).startswith("--set 'mount.cx=-1': Bushing 'mount': damping")
    # the new stiffness acts: the box's vertical mode sqrt(kz / m)
    system = model.build()
    freqs = sorted(md.frequency for md in mbd.linearize(system, system.initial_state()).modes())
    assert freqs[-1] == pytest.approx(np.sqrt(800.0 / 2.0) / (2 * np.pi), rel=1e-3)
    assert any(f == pytest.approx(np.sqrt(200.0 / 2.0) / (2 * np.pi), rel=1e-3) for f in freqs)


def geared_model(offset=0.0):
    m, g = _model("gears", gravity=(0.0, 0.0, 0.0))
    a = m.add_body("a", mass=1.0, cg=(0, 0, 0), inertia=[0.1] * 3, cs={"o": (0, 0, 0)})
    b = m.add_body("b", mass=1.0, cg=(1, 0, 0), inertia=[0.1] * 3, cs={"o": (1, 0, 0)})
    ground_b = m.add_ground("gb", at=(1, 0, 0))
    ja = m.add(Revolute("ja", g, a["o"], axis=(0, 0, 1), v0=1.0))
    jb = m.add(Revolute("jb", ground_b, b["o"], axis=(0, 0, 1)))
    m.add(mbd.GearConstraint("mesh", ja, jb, ratio=-2.0, offset=offset))
    return m


def test_set_on_a_gear_ratio_keeps_its_offset_and_refuses_other_names():
    """(The new gear lost its offset: q_b = ratio q_a, not + offset, after --set.)"""
    model = geared_model(offset=0.2)
    old = _only(model, "mesh")
    assert apply_setting(model, "mesh.ratio=3") == "mesh.ratio = 3.0"
    new = _only(model, "mesh")
    assert new is not old and (new.ratio, new.offset) == (3.0, 0.2) and old.ratio == -2.0
    r = model.build().simulate(0.5, output_step=0.1)
    np.testing.assert_allclose(r.joint("jb").q, 3.0 * r.joint("ja").q + 0.2, atol=1e-8)
    for text, message in [
            ("mesh.ratio=0", "--set 'mesh.ratio=0': GearConstraint 'mesh': ratio must be "
                             "finite and nonzero, got 0.0"),
            ("mesh.teeth=3", "--set 'mesh.teeth=3': GearConstraint 'mesh' has no parameter "
                             "'teeth'; its parameter is: ratio"),
            ("mesh.ratio=1,2", "--set 'mesh.ratio=1,2': GearConstraint 'mesh': ratio takes "
                               "one number, got (1.0, 2.0)")]:
        with pytest.raises(InputError) as info:
            apply_setting(model, text)
        assert str(info.value) == message
        assert _only(model, "mesh") is new


def test_set_on_a_users_law_that_is_not_a_dataclass():
    """A copy of the law with the attribute set (the original unchanged); a name it does not
    have, or a method, is refused naming the law and the element."""
    law = NaNSpring(10.0)
    model = block_on_a_spring(law)
    old = _only(model, "spring")
    assert apply_setting(model, "spring.c=40") == "spring.c = 40.0"
    new = _only(model, "spring")
    assert new is not old and type(new.law) is NaNSpring and new.law is not law
    assert (new.law.c, law.c) == (40.0, 10.0)
    assert new.joint is old.joint
    for text in ("spring.k=1", "spring.parameters=1"):
        with pytest.raises(InputError) as info:
            apply_setting(model, text)
        param = text.split(".")[1].split("=")[0]
        assert str(info.value) == (f"--set {text!r}: the NaNSpring law of 'spring' has no "
                                   f"parameter {param!r}")
    # the copy acts: the block oscillates at sqrt(c / m) about the sag -m g / c
    system = model.build()
    eq = mbd.equilibrium(system)
    assert eq.coordinates()["rail"] == pytest.approx(-G / 40.0, rel=1e-9)
    assert eq.linear.modes()[0].frequency == pytest.approx(np.sqrt(40.0) / (2 * np.pi),
                                                            rel=1e-8)


# ----------------------------------------------------------------------------- Result lookups


@pytest.fixture(scope="module")
def spring_run():
    model, hinge = pendulum(spring=5.0)
    model.add(JointForce("damper", hinge, SpringDamper(c=0.0, d=0.1)))
    return model.build().simulate(0.1, output_step=0.05)


@pytest.mark.parametrize("lookup, message", [
    ("joint", "no joint 'nope'; the joints are ['hinge']"),
    ("body", "no body 'nope'; the bodies are ['bob']"),
    ("force", "no force element 'nope'; the force elements are ['damper', 'spring']"),
    ("reaction", "no joint, motion driver or gear 'nope'; the joints are ['hinge']"),
    ("sensor", "no sensor 'nope'; the sensors are none"),
    ("input", "no input 'nope'; the inputs are none"),
    ("controller", "no controller 'nope'; the controllers are none"),
])
def test_an_unknown_name_in_a_result_lookup_names_it_and_what_exists(spring_run, lookup,
                                                                      message):
    with pytest.raises(KeyError) as info:
        getattr(spring_run, lookup)("nope")
    assert info.value.args[0] == message


def test_an_unknown_cs_of_a_body_and_a_contact_query_of_a_spring_are_named(spring_run):
    with pytest.raises(KeyError) as info:
        spring_run.body("bob").position("nope")
    assert info.value.args[0] == "body 'bob' has no CS 'nope'; it has ['cg', 'o', 'tip']"
    with pytest.raises(ValueError) as info:
        spring_run.force("spring").contacts()
    assert str(info.value) == "force element 'spring' has no contact state"


def test_the_names_that_do_exist_are_found(spring_run):
    assert spring_run.joint("hinge").q.shape == (3,)
    assert spring_run.force("damper").value.shape == (3,)
    assert spring_run.reaction("hinge").force.shape == (3, 3)


# ----------------------------------------------------------------------------- linearize


def test_linearize_outputs_by_coordinate_rate_and_position_match_the_pendulum():
    """A point mass m = 1 kg on a link L = 0.8 m hanging at rest: x = [theta, omega],
    A = [[0, 1], [-g/L, 0]]; the input 'hinge' (a torque) B = [0, 1/(m L^2)], the actuator
    'motor' the same; outputs 'hinge.q' -> [1, 0], 'hinge.v' -> [0, 1], 'bob.tip.x' (the
    mass at (-L sin theta, 0, -L cos theta): d/d theta at 0) -> [-L, 0], 'bob.tip.z' ->
    [0, 0]."""
    length = 0.8
    model, hinge = pendulum(length=length, drawn_level=False)
    model.add(JointForce("motor", hinge, Actuator(0.0)))
    system = model.build()
    lin = mbd.linearize(system, system.initial_state(), inputs=("hinge", "motor"),
                        outputs=("hinge.q", "hinge.v", "bob.tip.x", "bob.tip.z"))
    assert lin.state_names == ["hinge.q", "hinge.v"]
    assert lin.output_names == ["hinge.q", "hinge.v", "bob.tip.x", "bob.tip.z"]
    np.testing.assert_allclose(lin.A, [[0.0, 1.0], [-G / length, 0.0]], rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(lin.B, [[0.0, 0.0], [1 / length ** 2, 1 / length ** 2]],
                               rtol=1e-10)
    np.testing.assert_allclose(lin.C, [[1, 0], [0, 1], [-length, 0], [0, 0]], atol=1e-8)
    np.testing.assert_array_equal(lin.D, np.zeros((4, 2)))
    ss = lin.to_scipy()
    np.testing.assert_allclose(ss.A, lin.A)
    np.testing.assert_allclose(ss.C, lin.C)


def test_linearize_refuses_an_output_that_is_not_a_string_and_names_the_unknown():
    system = pendulum()[0].build()
    with pytest.raises(TypeError) as info:
        mbd.linearize(system, system.initial_state(), outputs=(3,))
    assert str(info.value) == "linearize: an output name must be a string, got 3"
    with pytest.raises(ValueError) as info:
        mbd.linearize(system, system.initial_state(), outputs=("hinge.w",))
    assert str(info.value).startswith("linearize: output 'hinge.w' is not a sensor ([]), a "
                                      "joint coordinate (['hinge.q']), a rate (['hinge.v'])")


def test_a_compiled_loop_that_stops_advancing_fails_saying_where(monkeypatch):
    """The compiled loop returning PAUSED without moving on (only a NaN time does it: no
    input reaches it, so the loop's second batch is made to here) ends the run with the
    time reached and the step size, and keeps the rows of the first batch."""
    from mbd.run import pieceloop
    from mbd.run.evaluator import Evaluator
    from mbd.run.steppers import dop853, stepping
    monkeypatch.setattr(pieceloop.Run, "BATCH", 5)
    calls = []
    real_call = Evaluator.call

    def call(self, function, *args):
        if function is dop853.advance:
            calls.append(1)
            if len(calls) > 1:
                return stepping.PAUSED          # no step taken, t as it was
        return real_call(self, function, *args)
    monkeypatch.setattr(Evaluator, "call", call)
    system = pendulum()[0].build()
    err = failure(system, 1.0, output_step=1e-4)
    message = str(err)
    assert message.startswith("the compiled integrator stopped advancing at t = ")
    assert message.endswith(" s)") and "(step size " in message
    t_stuck = float(message.split("at t = ")[1].split(" s")[0])
    assert 0.0 < t_stuck == pytest.approx(err.t, rel=1e-8)
    assert err.result.stats["nsteps"] == 5


GEARED_SCRIPT = '''
import numpy as np, mbd
from joints import Prismatic, Revolute
from forces import JointStiction
def build_model():
    m = mbd.Model("geared")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, 0)))
    a = m.add_body("a", mass=1.0, cg=(0, 0, 0), inertia=[0.1] * 3, cs={"o": (0, 0, 0)})
    b = m.add_body("b", mass=1.0, cg=(1, 0, 0), inertia=[0.1] * 3, cs={"o": (1, 0, 0)})
    gb = m.add_ground("gb", at=(1, 0, 0))
    ja = m.add(Revolute("ja", g, a["o"], axis=(0, 0, 1), v0=1.0))
    jb = m.add(Revolute("jb", gb, b["o"], axis=(0, 0, 1)))
    m.add(mbd.GearConstraint("mesh", ja, jb, ratio=-2.0, offset=0.2))
    m.add(JointStiction("stick", ja, f_static=0.3, f_kinetic=0.2))
    return m
'''


def test_set_from_the_command_line_on_a_gear_and_a_stiction(tmp_path, capsys):
    """``mbd check MODEL --set ...`` (in-process): the settings applied are listed, the new
    gear keeps its offset; a refused one is one message on stderr and exit status 2."""
    from mbd.cli import main
    path = tmp_path / "geared.py"
    path.write_text(GEARED_SCRIPT)
    assert main(["check", str(path), "--set", "mesh.ratio=3", "--set",
                 "stick.f_kinetic=0.1"]) == 0
    out = capsys.readouterr().out
    assert "settings: mesh.ratio = 3.0, stick.f_kinetic = 0.1" in out
    assert "f_static=0.3, f_kinetic=0.1, d=0.0" in out
    assert main(["check", str(path), "--set", "stick.f_static=0.05"]) == 2
    assert capsys.readouterr().err == (
        "mbd check: --set 'stick.f_static=0.05': JointStiction 'stick': f_kinetic must be <= "
        "f_static, got f_kinetic = 0.2 > f_static = 0.05\n")


# ----------------------------------------------------------------------------- more run failures


def test_a_driver_that_jumps_where_the_loop_cannot_reach_cannot_stay_closed():
    """The rocker's driver jumps at 0.05 s to 1 rad, beyond the rocker's reach (0.54 rad):
    the projection onto the closures cannot converge, and the run stops there saying so,
    naming the driver as the likely cause before a dead centre."""
    def jump(joints):
        return mbd.MotionDriver("push", joints["j4"],
                                position=lambda t: 0.0 if t < 0.05 else 1.0,
                                velocity=lambda t: 0.0, acceleration=lambda t: 0.0)
    err = failure(fourbar(forces=(jump,)), 0.2, output_step=0.01)
    assert str(err).startswith(
        "singular configuration at t = 0.05 s: the projection onto the constraint equations did "
        "not converge: the mechanism cannot stay closed here (loop ['j3', 'j2', 'j1', 'j4']; "
        "drivers and gears ['push']); the motion of push may ask for a position the loop "
        "cannot reach (a jump, or beyond a joint's range), or the mechanism has reached a "
        "dead centre")
    assert err.t == pytest.approx(0.05, abs=1e-12)
    assert np.all(err.result.t < 0.05 + 1e-12) and err.result.joint("j4").q[-1] < 1e-6


def test_a_spring_of_nonzero_length_at_rest_on_its_anchor_has_no_direction():
    """SPEC 3.1: |r| = 0, v = 0 and r0 != 0: the run stops naming the element, the time and
    the state, and keeps the rows up to there."""
    from forces import BodySpringDamper
    m, g = _model("pin", gravity=(0.0, 0.0, 0.0))
    bob = m.add_body("bob", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3) * 1e-2,
                     cs={"o": (0, 0, 0)})
    m.add(Prismatic("rail", g, bob["o"], axis=(1, 0, 0)))
    m.add(BodySpringDamper("sd", g, bob["o"], k=10.0, b=0.0, r0=0.5))
    err = failure(m.build(), 0.1, output_step=0.01)
    assert str(err) == ("BodySpringDamper 'sd': the direction of its load is undefined at t = "
                        "0 s: its CSs coincide (|r| = 0) at zero relative velocity while the "
                        "law's force there is not zero (q = [0.0], v = [0.0])")


# ----------------------------------------------------------------------------- energy, modes


def test_the_energy_balance_books_every_element_and_closes():
    """A pendulum with a torsional spring, a damper and a constant torque tau: the actuator's
    work is tau times the angle turned (closed form), the damper's is dissipated, the spring's
    stored; the balance's own lines and table say so."""
    tau = 0.7
    model, hinge = pendulum(spring=5.0)
    model.add(JointForce("damper", hinge, SpringDamper(c=0.0, d=0.3)))
    model.add(JointForce("motor", hinge, Actuator(tau)))
    r = model.build().simulate(1.0, output_step=0.1, rtol=1e-10, atol=1e-12)
    balance = r.energy_balance()
    turned = r.joint("hinge").q[-1] - r.joint("hinge").q[0]
    assert balance.work["motor"][-1] == pytest.approx(tau * turned, rel=1e-8)
    assert balance.role == {"spring": "passive", "damper": "passive", "motor": "actuator"}
    assert balance.relative_residual < 1e-7
    kinetic, gravity, stored, lost, fed, residual = balance.totals()
    assert fed == pytest.approx(tau * turned, rel=1e-8) and lost > 0.0
    assert stored == pytest.approx(0.5 * 5.0 * (r.joint("hinge").q[-1] ** 2 - 0.0), rel=1e-8)
    lines = balance.lines()
    assert lines[0].startswith("spring: work ") and "= -(stored " in lines[0]
    assert lines[2].startswith("motor: work ") and lines[2].endswith("(an actuator)")
    assert balance.summary().startswith("kinetic ")
    text = repr(balance)
    assert text.startswith("EnergyBalance at t = 1 s, each term its change since t = 0 s (J):")
    assert "supplied" in text and "relative residual" in text


def test_the_modes_table_of_a_damped_pendulum_is_the_closed_form():
    """Hanging, L = 1 m, m = 1 kg, hinge damper d: omega = sqrt(g/L), zeta = d / (2 m L^2
    omega); one oscillating mode, named by its joint coordinate."""
    d = 0.4
    model, hinge = pendulum(drawn_level=False)
    model.add(JointForce("damper", hinge, SpringDamper(c=0.0, d=d)))
    system = model.build()
    lin = mbd.linearize(system, system.initial_state())
    [mode] = lin.modes()
    omega = np.sqrt(G)
    assert mode.damping_ratio == pytest.approx(d / (2 * omega), rel=1e-7)
    assert mode.frequency == pytest.approx(omega / (2 * np.pi), rel=1e-8)
    header, row = lin.table().splitlines()
    assert header.split() == ["mode", "f", "(Hz)", "f", "damped", "(Hz)", "damping", "Re",
                              "(1/s)", "kind", "largest", "coordinate"]
    assert row.split()[0] == "1" and row.split()[-2:] == ["oscillating", "hinge.q"]
    assert float(row.split()[3]) == pytest.approx(d / (2 * omega), rel=1e-3)


# ----------------------------------------------------------------------------- orientations, views


@pytest.mark.parametrize("orientation, text", [
    ("R", "orientation must be a Rotation, a 3x3 matrix or a quaternion (w, x, y, z), got 'R'"),
    (np.diag([1.0, 1.0, -1.0]), "orientation: the 3x3 matrix is not a proper rotation "
                                "(R R^T != I or det < 0)"),
    (np.full((3, 3), np.inf), "orientation: expected a Rotation, a 3x3 matrix or a quaternion "
                              "(w, x, y, z), got array("),
    ("pair", "orientation: expected one rotation, got 2"),
])
def test_a_cs_orientation_that_is_no_rotation_is_refused_naming_the_cs(orientation, text):
    from scipy.spatial.transform import Rotation
    if isinstance(orientation, str) and orientation == "pair":
        orientation = Rotation.from_rotvec([[0, 0, 0.1], [0, 0, 0.2]])
    m, g = _model("turned")
    with pytest.raises(mbd.ModelError) as info:
        m.add_body("arm", mass=1.0, cg=(0, 0, 0), inertia=[0.1] * 3,
                   cs={"side": ((1, 0, 0), orientation)})
    assert str(info.value).startswith(f"CS 'arm.side': {text}"), str(info.value)


def test_a_body_view_turns_its_cs_with_the_joint(spring_run):
    """The pendulum turns about +y by its hinge angle: the CS 'tip' (world-parallel axes in
    the drawing) turns with it."""
    from scipy.spatial.transform import Rotation
    theta = spring_run.joint("hinge").q
    turned = spring_run.body("bob").cs_rotation("tip")
    expected = Rotation.from_rotvec(np.outer(theta, [0.0, 1.0, 0.0]))
    np.testing.assert_allclose(turned.as_matrix(), expected.as_matrix(), atol=1e-12)


def test_a_run_with_progress_draws_its_bar_on_stderr_and_ends_the_line(capsys):
    system = pendulum()[0].build()
    system.simulate(0.2, output_step=0.1, progress=True)
    err = capsys.readouterr().err
    assert err.endswith("\n") and "\r" in err
    last = err.rstrip("\n").split("\r")[-1]
    assert last.startswith(f"simulating [{'#' * 30}] 100%  t = 0.2/0.2 s  0 events  ")
    assert last.endswith(" s wall\x1b[K")


def test_equilibrium_of_a_free_body_on_a_bushing_gives_its_six_dof_coordinates():
    """A 2 kg box on a SixDof held by a Bushing under gravity sags m g / k_z; its coordinates
    at rest are the SixDof's x, y, z and its quaternion (w, x, y, z): unturned."""
    m, g = _model("hung")
    box = m.add_body("box", mass=2.0, cg=(0, 0, 0), inertia=[0.1] * 3, cs={"o": (0, 0, 0)})
    m.add(SixDof("free", g, box["o"]))
    m.add(Bushing("mount", g, box["o"], stiffness=[800.0] * 3 + [4.0] * 3, damping=[1.0] * 6))
    eq = mbd.equilibrium(m.build())
    rest = eq.coordinates()["free"]
    assert rest.shape == (7,)
    np.testing.assert_allclose(rest, [0.0, 0.0, -2.0 * G / 800.0, 1.0, 0.0, 0.0, 0.0],
                               atol=1e-12)
    assert eq.stable and eq.residual <= 1e-10
