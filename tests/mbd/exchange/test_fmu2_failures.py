"""A failing FMI 2.0 FMU is not silent under FMPy's default ``simulate_fmu`` (issue 45).

pythonfmu's FMI 2.0 binary lets a Python step fail only as fmi2Discard with fmi2Terminated
(FMPy then ends the run at the last successful time and raises nothing) and passes log
messages to the master only with debug logging on; mbd gives the message also as a
RuntimeWarning in the process the FMU runs in. Walked as a user does: export, run with
FMPy's defaults; then the FMI 2 statuses through FMPy's instance API, the log with debug
logging, and a model that cannot start. FMI 3.0 raises by itself (the contrast is tested
last)."""
import re
import warnings

import numpy as np
import pytest
from fmpy import extract, read_model_description, simulate_fmu
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import FMU2Slave, fmi2LastSuccessfulTime, fmi2Terminated

import mbd

#: where the model's stiffness table ends, s: the run fails at the step whose integration
#: reaches past it
T_TABLE = 0.15
STEP, STOP = 0.01, 0.4

FAILING = f'''
import numpy as np, mbd
from forces import JointForce, VariableRotationalSpring
from joints import Revolute

def stiffness(t):
    if t > {T_TABLE!r}:
        raise RuntimeError("the stiffness table ends at {T_TABLE} s")
    return 5.0

def build_model():
    m = mbd.Model("midway")
    g = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    arm = m.add_body("arm", mass=1.0, cg=(0.5, 0, 0), inertia=np.diag([1e-3, .02, .02]),
                     cs={{"pivot": (0, 0, 0)}})
    hinge = m.add(Revolute("hinge", g, arm["pivot"], axis=(0, 1, 0), q0=0.3))
    m.add(JointForce("spring", hinge, VariableRotationalSpring(K=stiffness, K_min=1.0)))
    m.add(mbd.Sensor("angle", "hinge.q"))
    m.add(mbd.Input("torque", unit="N.m"))
    return m
'''

#: what the warning says the master was told (mbd.exchange.slave.FMI2_STATUS)
TOLD = "doStep returned fmi2Discard with fmi2Terminated"


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    """{FMI version: the midway model's FMU}."""
    folder = tmp_path_factory.mktemp("midway")
    script = folder / "midway.py"
    script.write_text(FAILING)
    return {fmi: mbd.export_fmu(script, folder / f"midway{fmi}.fmu", fmi=fmi) for fmi in (2, 3)}


def failed_step_start(text):
    """The start of the step the message says failed, s."""
    return float(re.search(r"the step from t = (\S+) s failed", text).group(1))


def test_fmpy_default_run_of_a_failing_fmi2_fmu_warns_with_mbds_message(fmus):
    """FMPy's defaults (no logger, no debug logging): the rows end early, and the user sees
    mbd's message, what failed and where, in a RuntimeWarning."""
    with pytest.warns(RuntimeWarning) as caught:
        rows = simulate_fmu(fmus[2], stop_time=STOP, output_interval=STEP, output=["angle"])
    texts = [str(w.message) for w in caught if "mbd model" in str(w.message)]
    assert len(texts) == 1, [str(w.message) for w in caught]
    text = texts[0]
    assert "mbd model 'midway': the step from t = " in text
    assert f"the stiffness table ends at {T_TABLE} s" in text    # the user function's words
    assert "JointForce 'spring'" in text                         # the element named
    assert TOLD in text
    # the rows end where the FMU said its last successful time was: the failed step's start,
    # mid-run (the failure is past T_TABLE, so before it steps went well)
    start = failed_step_start(text)
    assert 0.0 < start <= T_TABLE and rows["time"][-1] == pytest.approx(start, abs=1e-12)
    assert f"last successful time is t = {start!r} s" in text
    assert rows["time"][-1] < STOP


def test_the_fmi2_statuses_a_master_reads(fmus, tmp_path):
    """Through FMPy's instance API: the failing doStep is fmi2Discard (status 2),
    fmi2Terminated is true and fmi2LastSuccessfulTime the step's start; the steps before
    were fmi2OK."""
    path = fmus[2]
    description = read_model_description(path)
    unzipped = extract(path, unzipdir=str(tmp_path / "unzipped"))
    fmu = FMU2Slave(guid=description.guid, unzipDirectory=unzipped,
                    modelIdentifier=description.coSimulation.modelIdentifier,
                    instanceName="midway")
    fmu.instantiate()
    fmu.setupExperiment(startTime=0.0)
    fmu.enterInitializationMode()
    fmu.exitInitializationMode()
    t = 0.0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(FMICallException) as failed:
            while t < STOP:
                fmu.doStep(currentCommunicationPoint=t, communicationStepSize=STEP)
                t += STEP
    assert failed.value.status == 2                         # fmi2Discard
    assert fmu.getBooleanStatus(fmi2Terminated)
    assert fmu.getRealStatus(fmi2LastSuccessfulTime) == t   # the failed step's start
    assert 0.0 < t <= T_TABLE
    messages = [str(w.message) for w in caught if "mbd model" in str(w.message)]
    assert len(messages) == 1 and failed_step_start(messages[0]) == pytest.approx(t)
    fmu.terminate()
    fmu.freeInstance()


def test_with_debug_logging_the_message_is_in_the_fmus_log(fmus):
    """Debug logging on: the master's logger gets the message (error status), with the
    traceback's end; the warning is given as well."""
    logged = []

    def logger(component, instance, status, category, message):
        logged.append((status, message.decode()))

    with pytest.warns(RuntimeWarning, match="mbd model 'midway'"):
        simulate_fmu(fmus[2], stop_time=STOP, output_interval=STEP, output=["angle"],
                     debug_logging=True, logger=logger)
    errors = [text for status, text in logged if status == 3]       # fmi2Error
    assert any(f"the stiffness table ends at {T_TABLE} s" in text for text in errors)
    assert any("mbd model 'midway': the step from t = " in text for text in errors)


def test_a_model_that_cannot_start_says_so_at_its_first_step(fmus):
    """A start value the model refuses (a negative mass): the first step fails with the
    build's message, the rows hold the start alone."""
    with pytest.warns(RuntimeWarning) as caught:
        rows = simulate_fmu(fmus[2], stop_time=STOP, output_interval=STEP, output=["angle"],
                            start_values={"arm.mass": -2.0})
    texts = [str(w.message) for w in caught if "mbd model" in str(w.message)]
    assert len(texts) == 1
    assert "mbd model 'midway': the model could not start" in texts[0]
    assert "arm" in texts[0] and "-2" in texts[0]         # the body and the value named
    assert TOLD in texts[0] and "last successful time is t = 0.0 s" in texts[0]
    assert np.all(rows["time"] == 0.0)


def test_fmi3_raises_by_itself_and_prints_the_message(fmus, capfd):
    """FMI 3.0 has no such gap: fmi3Error, which FMPy's defaults raise, and FMPy's default
    logger prints mbd's message; no warning is added."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(FMICallException) as failed:
            simulate_fmu(fmus[3], stop_time=STOP, output_interval=STEP, output=["angle"])
    assert failed.value.status == 3                         # fmi3Error
    printed = capfd.readouterr().out
    assert "[ERROR] mbd model 'midway': the step from t = " in printed
    assert f"the stiffness table ends at {T_TABLE} s" in printed
    assert not [w for w in caught if "mbd model" in str(w.message)]
