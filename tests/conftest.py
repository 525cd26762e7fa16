"""The suite's plugins and profiles.

- tests/perturb.py: ``--perturb`` (on when CI is set) runs each ``@pytest.mark.accuracy`` test
  a second time with its start state and tolerances perturbed as another machine's round-off
  would (see that module).
- Hypothesis: the profile "ci" (derandomized: the same examples on every run, the failing
  one's blob printed to reproduce it, no deadline: numba compiles on a first call), loaded
  when CI is set.
"""
import os
import textwrap

import pytest
from hypothesis import settings

from tests.perturb import (  # noqa: F401
    PerturbedModule,
    perturbation,
    pytest_addoption,
    pytest_collect_file,
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_fixture_setup,
    pytest_runtest_protocol,
)

settings.register_profile("ci", derandomize=True, print_blob=True, deadline=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


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
