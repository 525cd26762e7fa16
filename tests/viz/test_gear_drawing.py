"""A GearConstraint is drawn as two discs on its geared bodies: radii in the ratio, touching
where the axes are parallel and apart, each turning with its body."""
import importlib.util
import pathlib

import numpy as np

from viz.scene import Scene

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "gearbox.py"


def gearbox():
    spec = importlib.util.spec_from_file_location("gearbox", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gear_discs_have_the_ratio_touch_and_turn():
    gb = gearbox()
    system = gb.build_model().build()
    scene = Scene(system, size=(160, 120), annotations=False)
    try:
        (owner_a, disc_a, r_a), (owner_b, disc_b, r_b) = scene.gear_discs["mesh"]
        assert (owner_a, owner_b) == ("pinion", "load")
        assert np.isclose(r_a / r_b, abs(gb.RATIO))
        assert np.isclose(r_a + r_b, 0.3)             # the axes 0.3 m apart: pitch circles touch
        q = np.zeros(system.nq)
        q[system.joints["pinion_shaft"].q_index[0]] = 1.0
        q[system.joints["load_shaft"].q_index[0]] = gb.RATIO
        scene.set_state(q)
        # each disc turns with its body: its actor's matrix is the body's pose, about z
        for actor, angle in ((disc_a, 1.0), (disc_b, gb.RATIO)):
            T = np.asarray(actor.user_matrix)
            np.testing.assert_allclose(T[:3, :3], [[np.cos(angle), -np.sin(angle), 0.0],
                                                   [np.sin(angle), np.cos(angle), 0.0],
                                                   [0.0, 0.0, 1.0]], atol=1e-12)
    finally:
        scene.close()
