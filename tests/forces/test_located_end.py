"""A crossing inside a step that is cut back to another function's located crossing.

When an armed switching function changes sign in a step, the piece ends at the located
crossing t, not at the step's end tb. Another armed function may have left its side inside
(ta, t) and be back on it at tb, its double crossing too narrow for the screen
(:func:`mbd.compiled.events.turning`): BISTOP's clamp c = k (x1 - x)^e - STEP(...) xdot,
clamped ("stop would pull: zero") late in a lower-stop contact, turns positive again in its
last microns (the spring ~pen^1.5 outlasts the ramped damping ~pen^2) and reaches 0 exactly
where the contact ends, negative past it. Judged by its sign at the contact's end, 0 +-
round-off, its crossing back ("stop pushes") was lost and the stop pulled 0 N where SPEC gives
0.012 N (the slider-crank at rtol = atol = 1.1e-10, round-off's choice); the piece loop judges
every other armed function by its sign just before t (:meth:`mbd.run.pieceloop.Run.locate`).
"""
import sys
from pathlib import Path

import numpy as np
import pytest

from ..test_examples import _bistop_spec

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def slider_crank_stop():
    sys.path.insert(0, str(EXAMPLES))
    try:
        import slider_crank_stop as module
    finally:
        sys.path.remove(str(EXAMPLES))
    return module


def test_the_stop_pushes_before_the_contact_ends_at_rtol_1_1e_10(slider_crank_stop):
    module = slider_crank_stop
    result = module.build_model().build().simulate(0.12, output_step=2e-4, rtol=1.1e-10,
                                                    atol=1.1e-10)
    log = [(e.t, e.what) for e in result.events if e.element == "stops" and 0.11 < e.t < 0.12]
    assert [what for _, what in log] == ["stop would pull: zero", "damping ramp",
                                         "stop pushes", "lower stop contact ends"]
    t_pushes, t_ends = log[2][0], log[3][0]
    assert t_pushes == pytest.approx(0.114992, abs=1e-6)
    assert t_ends == pytest.approx(0.115010, abs=1e-6)
    # the rows between (t = 0.115 s among them) carry the stop's push, SPEC's formula
    x = result.body("slider").position("I")[:, 0]
    xdot = result.body("slider").velocity("I")[:, 0]
    expected = np.array([_bistop_spec(a, b, **module.STOPS) for a, b in zip(x, xdot)])
    inside = (result.t > t_pushes) & (result.t < t_ends)
    assert inside.any() and np.all(expected[inside] > 0.01)
    np.testing.assert_allclose(result.force("stops").value, expected, rtol=1e-9, atol=1e-6)
