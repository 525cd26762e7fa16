"""Fixtures the tests of mbd share."""
import textwrap

import pytest
from scipy import integrate

from mbd.run import pieceloop
from mbd.run.steppers.compiled import CompiledStepper


@pytest.fixture
def interrupted_at_step(monkeypatch):
    """Make the run raise KeyboardInterrupt at integrator step ``n`` (set the returned dict's
    "at")."""
    calls = {"n": 0, "at": 6}
    step, advance = integrate.DOP853.step, CompiledStepper.advance

    def interrupt(real):
        def wrapped(*args, **kwargs):
            calls["n"] += 1
            if calls["n"] == calls["at"]:
                raise KeyboardInterrupt
            return real(*args, **kwargs)
        return wrapped
    monkeypatch.setattr(integrate.DOP853, "step", interrupt(step))
    monkeypatch.setattr(CompiledStepper, "advance", interrupt(advance))
    monkeypatch.setattr(pieceloop.Run, "BATCH", 1)
    return calls


#: a model script of a ball dropped 0.3 m onto a floor (a contact with friction), its height
#: and its support as sensors
DROP_SCRIPT = textwrap.dedent('''
    import numpy as np
    import mbd
    from forces import ElastoGap
    from joints import SixDof

    T_END, OUTPUT_STEP, RTOL, ATOL = 0.5, 0.01, 1e-10, 1e-12

    def build_model():
        model = mbd.Model("drop")
        floor = model.add_ground("floor", environment=mbd.Environment(gravity=(0, 0, -9.81)))
        floor.add_shape(mbd.Plane(), contact=True)
        ball = model.add_body("ball", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3) * 4e-3)
        ball.add_shape(mbd.Sphere(0.1), contact=True)
        model.add(SixDof("free", floor, ball["cg"], q0=(0, 0, 0.4, 1, 0, 0, 0)))
        model.add(mbd.Contact("bounce", floor, ball, ElastoGap(c=1e5, d=50.0, n=1.5),
                              mbd.Coulomb(0.5, 0.4)))
        model.add(mbd.Sensor("height", "ball.cg.z"))
        model.add(mbd.Sensor("support", "bounce.fn"))
        return model
''')


@pytest.fixture
def drop_script(tmp_path):
    """The path of :data:`DROP_SCRIPT` written into a file."""
    path = tmp_path / "drop.py"
    path.write_text(DROP_SCRIPT)
    return path
