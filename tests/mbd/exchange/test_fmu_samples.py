"""An exported FMU with a digital controller inside, driven by FMPy with a communication step
that is a multiple of the controller's period (issue 44): each communication point is a
sample instant, and the outputs there are one ``simulate()`` run's rows at those times, bit
for bit (the sample due at the end of a step is taken in that step, not the next one); so
with a step of half a period.

FMPy computes its communication points as start + n h; with h = 2 T (2 T and T a power of two
apart) they are the very numbers k T of the sample instants, and the one run's rows n h."""
import numpy as np
import pytest
from fmpy import simulate_fmu

import mbd
from mbd.study.scripts import load_script, model_of

ARM = '''
import numpy as np, mbd
from forces import Actuator, JointForce
from joints import Revolute

RTOL, ATOL = 1e-9, 1e-11
PERIOD = 0.002

def build_model():
    m = mbd.Model("pd_arm")
    g = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    arm = m.add_body("arm", mass=1.0, cg=(0.5, 0, 0), inertia=np.diag([1e-3, .02, .02]),
                     cs={"pivot": (0, 0, 0), "tip": (1.0, 0, 0)})
    hinge = m.add(Revolute("hinge", g, arm["pivot"], axis=(0, 1, 0), q0=0.3))
    m.add(mbd.Sensor("angle", "hinge.q"))
    m.add(mbd.Sensor("rate", "hinge.v"))
    m.add(mbd.Sensor("tip_z", "arm.tip.z"))
    m.add(mbd.Sensor("torque", "motor.value"))
    pd = m.add(mbd.DiscretePID("pd", "angle", setpoint=-0.2, kp=60.0, kd=4.0, period=PERIOD,
                               rate="rate"))
    m.add(JointForce("motor", hinge, Actuator(pd)))
    m.add(JointForce("push", hinge, Actuator(m.add(mbd.Input("disturbance", unit="N.m")))))
    return m
'''

OUTPUTS = ["angle", "rate", "tip_z", "torque"]
STOP = 0.1      # s


@pytest.fixture(scope="module")
def arm_fmu(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pd_arm")
    script = folder / "pd_arm.py"
    script.write_text(ARM)
    return script, mbd.export_fmu(script, folder / "pd_arm.fmu")


@pytest.mark.parametrize("periods", [1, 2, 4, 0.5])
def test_fmu_outputs_at_each_communication_point_are_the_one_runs_rows(arm_fmu, periods):
    """Communication steps of 1, 2 and 4 periods (its last step a half one), and of half a
    period (every other step ends where the step before had reached past it): the outputs
    FMPy records at each point are simulate()'s rows there, exactly; the torque is the PD's
    output sampled at that instant (not the one held from the instant before)."""
    script, path = arm_fmu
    module = load_script(str(script))
    step = periods * module.PERIOD
    result = simulate_fmu(path, stop_time=STOP, output_interval=step, output=OUTPUTS)
    times = result["time"]
    one = model_of(module, str(script)).build().simulate(
        STOP, output_step=step, rtol=module.RTOL, atol=module.ATOL)
    # (4 periods: the last step is the half one to STOP, itself a sample instant)
    assert np.array_equal(times, one.t) and len(times) == int(np.ceil(STOP / step - 1e-9)) + 1
    pd = one.controller("pd")
    assert np.all(np.isin(times[::2] if periods < 1 else times, pd.t))   # sample instants
    for name in OUTPUTS:
        assert np.array_equal(result[name], one.sensor(name)), name
    # the torque at each point is the sample taken there (or last)
    assert np.array_equal(result["torque"],
                          pd.y[np.searchsorted(pd.t, times, side="right") - 1, 0])
    assert np.ptp(result["torque"]) > 1.0        # the PD acted
