"""FMI co-simulation export (SPEC §10, issue 27), with FMPy as the independent master: the FMU
validates, runs with an input table as mbd's own stepping run does, takes parameters as
``--set`` does, rolls back through FMU states, closes a loop across its boundary, reports a
failing step as an error status with the message in its log; both FMI versions."""
import os
import subprocess
import sys

import numpy as np
import pytest

# the test extra installs FMPy and the packaging libraries: these tests run in CI
from fmpy import extract, read_model_description, simulate_fmu
from fmpy.validation import validate_fmu

import mbd
from mbd.model.errors import InputError
from mbd.study.scripts import apply_setting, load_script, model_of

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, os.pardir))
PLANT = os.path.join(ROOT, "examples", "gearbox_fmu.py")
STEP, STOP = 0.01, 0.3

#: a torque profile with jumps at communication points (N m): FMPy sets the value at each
#: step's start and the FMU holds it through the step
PROFILE = np.array([(0.0, 2.0), (0.1, 2.0), (0.1, -3.0), (0.2, -3.0), (0.2, 0.5), (STOP, 0.5)],
                   dtype=[("time", float), ("torque", float)])


def profile_at(t):
    """The torque FMPy sets at a step starting at t: after a jump, the new value."""
    k = np.flatnonzero(PROFILE["time"] <= t + 1e-12)[-1]
    return PROFILE["torque"][k]


def own_stepping(times, sets=(), t0=0.0, torque=profile_at):
    """mbd's own live simulation of the plant stepped at ``times`` with the profile held over
    each step: the load angle and motor speed after each step (the rows at ``times``)."""
    module = load_script(PLANT)
    model = model_of(module, PLANT)
    for text in sets:
        apply_setting(model, text)
    sim = model.build().start(t0=t0, rtol=module.RTOL, atol=module.ATOL)
    rows = [(sim.read("load_angle"), sim.read("motor_speed"))]
    for t, t_next in zip(times[:-1], times[1:]):
        sim.set_input("torque", torque(t))
        sim.advance_to(t + (t_next - t))       # the FMU's current time + step size
        rows.append((sim.read("load_angle"), sim.read("motor_speed")))
    return np.array(rows)


@pytest.fixture(scope="module", params=[3, 2])
def plant(request, tmp_path_factory):
    """(FMI version, the plant's FMU)."""
    path = tmp_path_factory.mktemp(f"fmi{request.param}") / "plant.fmu"
    return request.param, mbd.export_fmu(PLANT, path, fmi=request.param)


def test_fmpy_validates_the_fmu_and_its_variables_have_units(plant):
    fmi, path = plant
    assert validate_fmu(path) == []
    description = read_model_description(path)
    assert description.fmiVersion == f"{fmi}.0"
    variables = {v.name: v for v in description.modelVariables}
    assert variables["torque"].causality == "input"
    assert variables["torque"].unit == "N.m"
    assert variables["load_angle"].causality == "output"
    assert variables["load_angle"].unit == "rad"
    assert variables["motor_speed"].unit == "rad/s"
    assert variables["backlash.c"].causality == "parameter"
    assert float(variables["backlash.c"].start) == 2000.0
    assert variables["backlash.c"].unit == "N.m/rad"
    assert variables["load.mass"].unit == "kg"
    assert variables["load_shaft.q0"].unit == "rad"
    for v in description.modelVariables:
        if v.name != "time":
            assert v.description, v.name
    assert "mbd" in description.description and "Python" in description.description


def test_simulate_fmu_with_an_input_table_equals_mbds_own_stepping(plant):
    fmi, path = plant
    result = simulate_fmu(path, stop_time=STOP, output_interval=STEP, input=PROFILE,
                          output=["load_angle", "motor_speed"])
    times = result["time"]
    assert len(times) == round(STOP / STEP) + 1
    own = own_stepping(times)
    np.testing.assert_allclose(result["load_angle"], own[:, 0], rtol=0, atol=1e-9)
    np.testing.assert_allclose(result["motor_speed"], own[:, 1], rtol=0, atol=1e-9)
    assert np.ptp(own[:, 1]) > 1.0          # the motor did move under the profile


def test_a_run_from_a_later_start_time_starts_the_model_there(plant):
    """The joints' q0/v0 hold at the master's start time (FMI 3.0: the first step's)."""
    fmi, path = plant
    # a constant torque: no input event cuts a step off the grid 0.1 + k STEP
    constant = np.array([(0.0, 1.5), (STOP, 1.5)], dtype=PROFILE.dtype)
    result = simulate_fmu(path, start_time=0.1, stop_time=STOP, output_interval=STEP,
                          input=constant, output=["load_angle", "motor_speed"])
    assert result["time"][0] == pytest.approx(0.1)
    own = own_stepping(result["time"], t0=0.1, torque=lambda t: 1.5)
    assert own[-1, 1] > 0.1          # it moved
    np.testing.assert_allclose(result["motor_speed"], own[:, 1], rtol=0, atol=1e-9)


def test_a_parameter_set_through_start_values_acts_as_set_does(plant):
    fmi, path = plant
    result = simulate_fmu(path, stop_time=STOP, output_interval=STEP, input=PROFILE,
                          output=["load_angle", "motor_speed"],
                          start_values={"backlash.c": 500.0, "load.mass": 3.0})
    own = own_stepping(result["time"], sets=["backlash.c=500"])
    default = own_stepping(result["time"])
    np.testing.assert_allclose(result["load_angle"], own[:, 0], rtol=0, atol=1e-9)
    assert np.abs(own[:, 0] - default[:, 0]).max() > 1e-4    # the parameter changed the run


def _instance(path, name="plant"):
    description = read_model_description(path)
    ref = {v.name: v.valueReference for v in description.modelVariables}
    if description.fmiVersion == "3.0":
        from fmpy.fmi3 import FMU3Slave
        instance = FMU3Slave(guid=description.guid, unzipDirectory=extract(path),
                             modelIdentifier=description.coSimulation.modelIdentifier,
                             instanceName=name)
        instance.instantiate()
        instance.enterInitializationMode(startTime=0.0)
        instance.exitInitializationMode()
        get, set_ = instance.getFloat64, instance.setFloat64
    else:
        from fmpy.fmi2 import FMU2Slave
        instance = FMU2Slave(guid=description.guid, unzipDirectory=extract(path),
                             modelIdentifier=description.coSimulation.modelIdentifier,
                             instanceName=name)
        instance.instantiate()
        instance.setupExperiment(startTime=0.0)
        instance.enterInitializationMode()
        instance.exitInitializationMode()
        get, set_ = instance.getReal, instance.setReal
    return instance, ref, get, set_


def test_get_and_set_fmu_state_roll_back_and_repeat_exactly(plant):
    fmi, path = plant
    instance, ref, get, set_ = _instance(path)

    def steps(k0, n):
        out = []
        for k in range(k0, k0 + n):
            set_([ref["torque"]], [np.sin(40.0 * k * 1e-3)])
            instance.doStep(k * 1e-3, 1e-3)
            out.append(get([ref["load_angle"], ref["motor_speed"]]))
        return np.array(out)

    steps(0, 40)
    state = instance.getFMUState()
    first = steps(40, 60)
    instance.setFMUState(state)
    again = steps(40, 60)
    instance.setFMUState(state)
    third = steps(40, 60)
    assert np.array_equal(first, again) and np.array_equal(first, third)
    assert np.ptp(first[:, 1]) > 0.0
    instance.freeFMUState(state)
    instance.terminate()
    instance.freeInstance()


def test_a_pi_loop_across_the_fmu_boundary_equals_the_discrete_pid_inside(tmp_path):
    """The gearbox plant as an FMU, its PI at 1 ms in a Python loop over FMPy's instance API,
    against mbd's own DiscretePID run of the same loop (examples/gearbox_fmu.py)."""
    sys.path.insert(0, os.path.dirname(PLANT))
    try:
        import gearbox_fmu
    finally:
        sys.path.remove(os.path.dirname(PLANT))
    times, angles, inside = gearbox_fmu.main(t_end=0.3, folder=str(tmp_path))
    assert len(times) == 301 and times[-1] == pytest.approx(0.3)
    np.testing.assert_allclose(angles, inside, rtol=0, atol=1e-9)
    assert angles[-1] > 0.01      # the PI moved the load toward its setpoint


FAILING = '''
import numpy as np, mbd
from forces import JointForce, VariableRotationalSpring
from joints import Revolute

def stiffness(t):
    if t > 0.05:
        raise RuntimeError("the stiffness table ends at 0.05 s")
    return 5.0

def build_model():
    m = mbd.Model("failing")
    g = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    arm = m.add_body("arm", mass=1.0, cg=(0.5, 0, 0), inertia=np.diag([1e-3, .02, .02]),
                     cs={"pivot": (0, 0, 0)})
    hinge = m.add(Revolute("hinge", g, arm["pivot"], axis=(0, 1, 0), q0=0.3))
    m.add(JointForce("spring", hinge, VariableRotationalSpring(K=stiffness, K_min=1.0)))
    m.add(mbd.Sensor("angle", "hinge.q"))
    return m
'''


def test_a_failure_inside_a_step_is_an_error_status_with_the_message_in_the_log(tmp_path):
    from fmpy.fmi1 import FMICallException

    script = tmp_path / "failing.py"
    script.write_text(FAILING)
    with pytest.warns(UserWarning, match=r"model 'failing' .* declares no Input: its FMU has no "
                      "inputs"):
        path = mbd.export_fmu(script, tmp_path / "failing.fmu")
    messages = []

    def logger(environment, status, category, message):
        messages.append(message.decode() if isinstance(message, bytes) else str(message))

    with pytest.raises(FMICallException) as caught:
        simulate_fmu(path, stop_time=0.2, output_interval=0.01, output=["angle"],
                     logger=logger)
    assert caught.value.status == 3          # fmi3Error, not fmi3Fatal
    text = "\n".join(messages)
    assert "the stiffness table ends at 0.05 s" in text
    assert "mbd model 'failing'" in text


def test_bad_input_is_named(tmp_path):
    no_outputs = tmp_path / "no_outputs.py"
    no_outputs.write_text(FAILING.replace('    m.add(mbd.Sensor("angle", "hinge.q"))\n', ""))
    with pytest.raises(InputError, match=r"model 'failing' .* declares no Sensor: its FMU "
                       r"would have no outputs \(inputs: none\)"):
        mbd.export_fmu(no_outputs, tmp_path / "x.fmu")
    with pytest.raises(InputError, match=r"no body, joint or force element named 'nothing'"):
        mbd.export_fmu(PLANT, tmp_path / "x.fmu", sets=["nothing.c=3"])
    with pytest.raises(InputError, match=r"folder of .* does not exist"):
        mbd.export_fmu(PLANT, tmp_path / "missing" / "x.fmu")
    assert not (tmp_path / "x.fmu").exists()


def test_the_command_line_writes_the_fmu_and_names_a_bad_set(tmp_path):
    out = tmp_path / "plant.fmu"
    done = subprocess.run([sys.executable, "-m", "mbd", "fmu", PLANT, "-o", str(out), "--fmi",
                           "2", "--set", "backlash.d=2"], capture_output=True, text=True,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "wrote" in done.stdout and out.is_file()
    variables = {v.name: v for v in read_model_description(str(out)).modelVariables}
    assert float(variables["backlash.d"].start) == 2.0
    assert read_model_description(str(out)).fmiVersion == "2.0"
    bad = subprocess.run([sys.executable, "-m", "mbd", "fmu", PLANT, "-o", str(tmp_path / "b.fmu"),
                          "--set", "backlash.q=1"], capture_output=True, text=True, cwd=tmp_path)
    assert bad.returncode == 2
    assert "has no parameter 'q'" in bad.stderr
    assert not (tmp_path / "b.fmu").exists()


def test_an_fmu_with_a_contact_inside_steps_as_mbd_does(tmp_path, drop_script):
    # FMPy as the master, 10 ms communication steps across a bounce: the FMU's outputs are
    # mbd's own live stepping at the same instants (the same code and tolerances: to 1e-9)
    script = drop_script
    with pytest.warns(UserWarning, match="declares no Input"):     # (a master only reads)
        path = mbd.export_fmu(str(script), tmp_path / "drop.fmu")
    result = simulate_fmu(path, stop_time=0.5, output_interval=0.01,
                          output=["height", "support"])
    module = load_script(str(script))
    sim = model_of(module, str(script)).build().start(rtol=module.RTOL, atol=module.ATOL)
    own = [(sim.read("height"), sim.read("support"))]
    for t in result["time"][1:]:
        sim.advance_to(t)
        own.append((sim.read("height"), sim.read("support")))
    own = np.array(own)
    np.testing.assert_allclose(result["height"], own[:, 0], rtol=0, atol=1e-9)
    np.testing.assert_allclose(result["support"], own[:, 1], rtol=0, atol=1e-6)
    assert own[:, 1].max() > 10.0 and own[0, 1] == 0.0      # it did land
