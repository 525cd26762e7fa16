"""A JointStiction is drawn with its stick-slip state: blue while it sticks, orange while it
slips, grey without a Result; the picture shows the colour and the legend names both."""
import numpy as np

import mbd
from forces import AxialForce, JointStiction, Spring
from joints import Prismatic
from viz.colors import SLIP_COLOR, STUCK_COLOR, UNKNOWN_COLOR
from viz.scene import Scene

SIZE = (160, 120)


def pulled_block():
    """A block held by friction, pulled through a spring whose far end moves at 0.5 m/s: it
    sticks until the spring's force reaches f_static (t = 0.04 s), then slips and sticks
    again."""
    m = mbd.Model("pulled")
    g = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    puller = m.add_body("puller", mass=1.0, cg=(0, 0, 0.3), inertia=[1e-2] * 3)
    block = m.add_body("block", mass=1.0, cg=(0, 0, 0), inertia=[1e-2] * 3)
    rail = m.add_ground("rail", at=(0, 0, 0.3))
    pull = m.add(Prismatic("pull", rail, puller["cg"], axis=(1, 0, 0)))
    m.add(mbd.MotionDriver("drive", pull, position=lambda t: 0.5 * t,
                           velocity=lambda t: 0.5, acceleration=lambda t: 0.0))
    slide = m.add(Prismatic("slide", g, block["cg"], axis=(1, 0, 0)))
    m.add(JointStiction("friction", slide, f_static=2.0, f_kinetic=1.0))
    m.add(AxialForce("spring", puller["cg"], block["cg"], Spring(c=100.0), axis=(1, 0, 0)))
    return m.build().simulate(0.5, output_step=0.01)


def test_stiction_colour_follows_stick_and_slip():
    result = pulled_block()
    stuck = result.force("friction").state["stuck"]
    assert stuck[0] and not stuck.all()          # it sticks, and it slips
    scene = Scene(result.system, size=SIZE, lighting=False)
    try:
        actor = scene.stiction_actors["friction"]
        assert np.allclose(actor.prop.color.float_rgb, UNKNOWN_COLOR, atol=1 / 255)
        for row in range(len(result.t)):
            scene.update(result, row=row)
            want = STUCK_COLOR if stuck[row] else SLIP_COLOR
            assert np.allclose(actor.prop.color.float_rgb, want, atol=1 / 255), row
        texts = [a.GetInput() for a in scene.overlay.legend if hasattr(a, "GetInput")]
        # the stick-slip colours, and the dark grey frame of the spring's label (no state)
        assert texts[-3:] == ["stuck", "slipping", "no contact state"]
    finally:
        scene.close()
