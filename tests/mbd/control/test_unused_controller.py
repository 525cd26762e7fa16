"""A continuous controller whose output drives nothing and which has no state is not called
by the run; reading it afterwards calls it, and an error it raises then is a SimulationError
naming the controller, the cause and the time (it was mbd's internal ``Failed``)."""
import numpy as np
import pytest

import mbd
from joints import Revolute


def test_reading_an_unused_controller_that_raises_names_it_and_the_time():
    m = mbd.Model("p")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0.0, 0.0, -9.81)))
    b = m.add_body("b", mass=1.0, cg=(1.0, 0.0, 0.0), inertia=np.eye(3) * 1e-3,
                   cs={"p": (0.0, 0.0, 0.0)})
    m.add(Revolute("h", g, b["p"], axis=(0.0, 1.0, 0.0)))
    angle = m.add(mbd.Sensor("angle", "h.q"))
    calls = []

    def watch(t, x, u):
        calls.append(t)
        if t > 0.05:
            raise RuntimeError("watchdog tripped")
        return np.zeros(0), np.array([2.0 * u[0]])

    m.add(mbd.ContinuousController("watch", watch, inputs=[angle]))
    result = m.build().simulate(0.2, output_step=0.1)
    assert result.t[-1] == pytest.approx(0.2) and calls == []     # the run never called it
    with pytest.raises(mbd.SimulationError, match=r"^reading controller 'watch' from the rows: "
                       r"ContinuousController 'watch' raised RuntimeError at t = 0\.1 s: "
                       r"watchdog tripped$") as err:
        result.controller("watch")
    assert err.value.t == pytest.approx(0.1)
