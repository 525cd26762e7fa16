"""What other parts of mbd read from a bushing: the stiffness diagnosis freezes its six loads
(not a 1 N/m spring), and the plot and the sweep outputs take the magnitude of its world
force, never the norm of [F; T] in A's axes (newtons mixed with newton metres)."""
import numpy as np

from mbd.run import diagnosis
from mbd.run.evaluator import Evaluator
from mbd.study.outputs import Output
from viz.plots import _force_series

from .test_bushing import one_body


def rest_state(system, t=0.0):
    state = system.initial_state()
    y = np.concatenate([state.q, state.v])
    y[:3] = [0.01, -0.02, 0.015]          # deflected, so the loads are not zero
    return t, y


def test_the_diagnosis_freezes_a_bushing_at_its_present_loads():
    """A body on one bushing at its CG (no gravity): frozen at its present loads -- a constant
    force through the CG and a constant torque -- nothing holds it, so every eigenvalue left
    is zero; the fastest mode is the bushing's."""
    system = one_body("frozen", damping=np.zeros(6), mount=np.zeros(3))
    sd = Evaluator(system)
    t, y = rest_state(system)
    sd.natural_mode(t, y)
    mode = diagnosis.fastest_mode(sd, t, y)
    assert mode.element == "Bushing 'bushing'"
    assert abs(mode.eigenvalue) > 50.0           # sqrt(k / m) of the stiffest translation
    assert abs(mode.without) < 1e-6 * abs(mode.eigenvalue)
    frozen = diagnosis._frozen(sd, 0, t, y)       # it applies the same loads as before
    rec = sd.records(t, y, sd.data.mode["sides"].copy())[0][0]
    rec_frozen = frozen.records(t, y, frozen.data.mode["sides"].copy())[0][0]
    np.testing.assert_allclose(rec_frozen["wrench"], rec["wrench"], rtol=1e-12, atol=1e-12)


def test_plot_and_sweep_read_a_bushings_world_force():
    system = one_body("views", q0=[0.02, 0.01, -0.01, 1.0, 0.0, 0.0, 0.0])
    result = system.simulate(0.05, output_step=0.01)
    world = result.force("bushing").vector
    magnitude = np.linalg.norm(world, axis=1)
    wrench = result.force("bushing").value
    assert not np.allclose(np.linalg.norm(wrench, axis=1), magnitude)   # the old mix differs
    series = _force_series(result, ["bushing"])[0]
    np.testing.assert_allclose(series.y, magnitude)
    assert Output("peak", "max:force.bushing.value").of(result) == magnitude.max()
    assert Output("fz", "final:force.bushing.value.2").of(result) == world[-1, 2]
