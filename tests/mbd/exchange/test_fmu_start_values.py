"""An FMU's parameters set by the master to values other than the script's (SPEC §10): a
body's mass and a joint's q0, through FMPy's ``start_values``, in FMI 3.0 and 2.0.

The reference is the same script run in this process with the same overrides applied as
``--set arm.mass=... --set hinge.q0=...`` applies them (:func:`mbd.study.scripts.apply_setting`)
and simulated with the script's tolerances and a row at every communication point. The FMU
steps its live simulation to each communication point; the run makes one pass. Both are
DOP853 at the script's rtol on the same model, so they agree within the integrators' global
error: BOUND = 100 (RTOL |q| + ATOL) -- each run's error at most its steps' local errors
summed (a damped pendulum: no growth), the factor 100 for the ~50 steps and the two runs.
Each override must also change the run by far more than the bound (so that an FMU that
ignored it would fail), and the FMU without start values is the script as written.

The model: a pendulum (cg l = 0.4 m below a hinge about y, J_cg = 0.05 kg m^2, gravity -z)
with a damper (0.05 N m s/rad) and a constant motor torque (an Input, 0.4 N m): its mass sets
both the gravity torque and the inertia about the hinge, J_cg + m l^2.
"""
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest
from fmpy import read_model_description, simulate_fmu

import mbd
from mbd.study.scripts import apply_setting, load_script, model_of

ROOT = pathlib.Path(__file__).resolve().parents[3]

SCRIPT = '''"""A damped pendulum driven by a constant motor torque (an Input)."""
import numpy as np

import mbd
from forces import Actuator, Damper, JointForce
from joints import Revolute

T_END, OUTPUT_STEP, RTOL, ATOL = 1.0, 0.02, 1e-9, 1e-11


def build_model():
    model = mbd.Model("start_values")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, -9.81)))
    arm = model.add_body("arm", mass=1.0, cg=(0.0, 0.0, -0.4),
                         inertia=np.diag([0.05, 0.05, 0.05]), cs={"pivot": (0.0, 0.0, 0.0)})
    hinge = model.add(Revolute("hinge", ground, arm["pivot"], axis=(0.0, 1.0, 0.0), q0=0.2))
    torque = model.add(mbd.Input("torque", 0.4, unit="N.m", description="motor torque"))
    model.add(JointForce("motor", hinge, Actuator(torque)))
    model.add(JointForce("friction", hinge, Damper(d=0.05)))
    model.add(mbd.Sensor("angle", "hinge.q"))
    model.add(mbd.Sensor("rate", "hinge.v"))
    return model
'''

STOP, STEP = 1.0, 0.02
RTOL, ATOL = 1e-9, 1e-11            # the script's
#: FMU against the in-process run (see the module): 100 (rtol |q| + atol), |q| <= 1 rad
BOUND = 100.0 * (RTOL * 1.0 + ATOL)
MASS, Q0 = 2.5, 0.7                 # kg, rad: the script has 1.0 kg, 0.2 rad


@pytest.fixture(scope="module")
def script(tmp_path_factory):
    path = tmp_path_factory.mktemp("script") / "start_values.py"
    path.write_text(SCRIPT)
    return str(path)


@pytest.fixture(scope="module", params=[3, 2], ids=["FMI 3", "FMI 2"])
def fmu(request, script, tmp_path_factory):
    """(FMI version, the script's FMU), one per version for the module."""
    path = tmp_path_factory.mktemp(f"fmi{request.param}") / "start_values.fmu"
    return request.param, mbd.export_fmu(script, path, fmi=request.param)


def in_process(script, sets):
    """The script's run in this process with ``--set`` texts ``sets`` applied: its angle and
    rate at the communication points (a row every STEP)."""
    model = model_of(load_script(script), script)
    for text in sets:
        apply_setting(model, text)
    result = model.build().simulate(STOP, output_step=STEP, rtol=RTOL, atol=ATOL)
    return result.t, result.sensor("angle"), result.sensor("rate")


def over_fmpy(path, start_values):
    result = simulate_fmu(path, stop_time=STOP, output_interval=STEP,
                          start_values=start_values, output=["angle", "rate"])
    return result["time"], result["angle"], result["rate"]


CASES = {"mass": ({"arm.mass": MASS}, [f"arm.mass={MASS}"]),
         "q0": ({"hinge.q0": Q0}, [f"hinge.q0={Q0}"]),
         "mass and q0": ({"arm.mass": MASS, "hinge.q0": Q0},
                         [f"arm.mass={MASS}", f"hinge.q0={Q0}"])}


def test_the_fmu_declares_the_scripts_values_as_start_values(fmu):
    """arm.mass and hinge.q0 are parameters whose start values are the script's."""
    _, path = fmu
    variables = {v.name: v for v in read_model_description(path).modelVariables}
    for name, start, unit in (("arm.mass", 1.0, "kg"), ("hinge.q0", 0.2, "rad")):
        assert variables[name].causality == "parameter"
        assert float(variables[name].start) == start
        assert variables[name].unit == unit


@pytest.mark.parametrize("case", list(CASES))
def test_start_values_act_as_the_same_set_does_in_process(fmu, script, case):
    """At every communication point the FMU's angle and rate equal the in-process run with
    the same --set within BOUND (rate: BOUND / STEP, a derivative's error); the override
    changed the run by far more than that; the FMU without start values is the script."""
    _, path = fmu
    start_values, sets = CASES[case]
    t, angle, rate = over_fmpy(path, start_values)
    t_ref, angle_ref, rate_ref = in_process(script, sets)
    assert len(t) == len(t_ref) == round(STOP / STEP) + 1
    np.testing.assert_allclose(t, t_ref, rtol=0, atol=1e-12)
    np.testing.assert_allclose(angle, angle_ref, rtol=0, atol=BOUND)
    np.testing.assert_allclose(rate, rate_ref, rtol=0, atol=BOUND / STEP)
    if "hinge.q0" in start_values:
        assert angle[0] == Q0
    _, angle_default, _ = in_process(script, [])
    assert np.max(np.abs(angle_ref - angle_default)) > 1e4 * BOUND


def test_no_start_values_run_the_script_as_written(fmu, script):
    _, path = fmu
    t, angle, rate = over_fmpy(path, {})
    _, angle_ref, rate_ref = in_process(script, [])
    assert angle[0] == 0.2
    np.testing.assert_allclose(angle, angle_ref, rtol=0, atol=BOUND)
    np.testing.assert_allclose(rate, rate_ref, rtol=0, atol=BOUND / STEP)


def test_the_mass_alone_changes_the_swing_as_the_closed_form_of_its_start_says(fmu):
    """An independent check that the mass reached the dynamics: from rest at q0 the angular
    acceleration is (tau - m g l sin q0) / (J_cg + m l^2); over the first step the angle
    moves by that times STEP^2 / 2, to a relative O(STEP): the damper's c STEP / (3 J)
    and gravity's change m g l cos q0 STEP^2 / (12 J), together 1.5e-3 (J = J_cg + m l^2 =
    0.45 kg m^2): the FMU's first step with mass 2.5 kg against that number to 1 %."""
    _, path = fmu
    t, angle, _ = over_fmpy(path, {"arm.mass": MASS})
    tau, g, l, j_cg, q0 = 0.4, 9.81, 0.4, 0.05, 0.2
    accel = (tau - MASS * g * l * np.sin(q0)) / (j_cg + MASS * l ** 2)
    move = accel * STEP ** 2 / 2.0
    assert angle[1] - angle[0] == pytest.approx(move, rel=0.01)
    light = (tau - 1.0 * g * l * np.sin(q0)) / (j_cg + 1.0 * l ** 2) * STEP ** 2 / 2.0
    assert abs(light - move) > 0.2 * abs(move)       # the script's mass would not pass


def test_an_fmu_exported_by_code_piped_into_python_in_the_scripts_folder(script, tmp_path):
    """``python -`` (code on stdin) run in the script's folder: its ``__main__`` claims the
    file "<stdin>" there, which the export's search for the modules beside the script must
    not try to pack (it raised FileNotFoundError); the FMU is written and runs with start
    values as the one the fixture built."""
    folder = os.path.dirname(script)
    target = tmp_path / "piped.fmu"
    code = f"import mbd\nmbd.export_fmu('start_values.py', {str(target)!r})\n"
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    done = subprocess.run([sys.executable, "-"], input=code, capture_output=True, text=True,
                          cwd=folder, env=environment, timeout=600)
    assert done.returncode == 0, done.stderr
    _, angle, _ = over_fmpy(str(target), {"hinge.q0": Q0})
    _, angle_ref, _ = in_process(script, [f"hinge.q0={Q0}"])
    np.testing.assert_allclose(angle, angle_ref, rtol=0, atol=BOUND)
