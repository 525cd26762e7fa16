"""examples/rubber_stop.py and examples/external_controller.py show what they claim."""
import numpy as np
import pytest

from tests.test_examples import load

#: these tests assert accuracy bounds (closed forms, reference values, balances): run again
#: on a perturbed problem under --perturb (tests/perturb.py)
pytestmark = pytest.mark.accuracy

rubber = load("rubber_stop")
external = load("external_controller")


def test_the_rubber_stop_takes_the_drop_energy_and_carries_the_weight(capsys):
    """Undamped, the deepest compression is where the curve's integral equals m g (h + c)
    (brentq on Table.integral): 1e-9 m (2e-10 m measured, the parabola through the rows
    around the peak); damped, the block rests where the curve equals m g: 1e-9 m after 2 s
    (the decay e^-20 of a 12 mm bounce)."""
    bounce, settle = rubber.main()
    deepest = rubber.peak(bounce.t, bounce.sensor("compression"))
    assert deepest == pytest.approx(rubber.deepest_compression(), abs=1e-9)
    assert settle.sensor("compression")[-1] == pytest.approx(rubber.resting_compression(),
                                                             abs=1e-9)
    # the stop's energy is the curve's integral: the undamped run keeps kinetic + gravity +
    # stop constant (3e-9 of the drop energy measured)
    energy = bounce.energy()
    assert np.ptp(energy) < 1e-7 * rubber.MASS * rubber.G * rubber.DROP
    assert "energy balance" in capsys.readouterr().out


def test_a_pid_outside_the_model_is_the_one_inside(capsys):
    """The Python loop over the live simulation (read, set_input, advance_to every 1 ms) and
    the DiscretePID of the model end their pieces at the same instants with the same torque:
    the angles agree to 1e-12 rad (8e-16 measured); the arm reaches its setpoint."""
    outside, inside = external.main(t_end=0.6)
    np.testing.assert_allclose(outside.sensor("angle"), inside.sensor("angle"), atol=1e-12)
    np.testing.assert_array_equal(outside.t, inside.t)
    # the torque held at every row but the last (the model's controller samples at t_end
    # too; the loop outside stops before setting one there)
    np.testing.assert_allclose(outside.input("torque")[:-1],
                               inside.force("motor").value[:-1], atol=1e-9)
    assert abs(outside.sensor("angle")[-1] - external.SETPOINT) < 0.01
    assert "largest difference" in capsys.readouterr().out
