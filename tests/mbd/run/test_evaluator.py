"""One evaluator (DESIGN §10): the run's right-hand side, a Result's views and a sampled
sensor all evaluate the mechanism through :class:`mbd.run.evaluator.Evaluator`; a sample reads
its sensors from an :class:`mbd.run.evaluation.Evaluation` of the one state, never from a
Result made for it; the laws say how a picture shows them."""
import numpy as np
import pytest

import mbd
from forces import Actuator, Bistop, ElastoBacklash, ElastoGap, Impact, JointForce
from forces.stiction import _StictionLaw
from joints import Revolute
from mbd.run import result as result_module
from mbd.run.evaluation import Evaluation
from mbd.run.evaluator import Evaluator
from tests.mbd.control.test_sensors import TIGHT, G, pendulum


def sampled_model(period):
    """The pendulum of test_sensors with a DiscretePID at ``period`` reading the hinge's
    vertical reaction and driving a second, separate pendulum."""
    model = pendulum([("fz", "hinge.fz")])
    other = model.add_ground("other", at=(5.0, 0, 0),
                             environment=mbd.Environment(gravity=(0, 0, -G)))
    bob = model.add_body("bob", mass=1.0, cg=(5.0, 0, -0.5), inertia=[0.01] * 3,
                         cs={"pivot": (5.0, 0, 0)})
    swing = model.add(Revolute("swing", other, bob["pivot"], axis=(0, 1, 0)))
    pid = model.add(mbd.DiscretePID("pid", "fz", setpoint=0.0, kp=0.01, period=period))
    model.add(JointForce("push", swing, Actuator(pid)))
    return model


def test_a_sample_reads_its_sensors_without_making_a_result(monkeypatch):
    """The walk of a DiscretePID's kp from the model to its held output: sampling reads the
    reaction sensor through an Evaluation of the state; the run makes one Result, its own."""
    made = []
    real = result_module.Result._hold

    def counting(self, *args, **kwargs):
        made.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(result_module.Result, "_hold", counting)
    r = sampled_model(0.05).simulate(1.0, output_step=0.05, **TIGHT)
    assert len(r.controller("pid").t) == 21
    assert len(made) == 1
    # each sample's input is the reaction the result reports at that instant
    c = r.controller("pid")
    rows = np.searchsorted(r.t, c.t)
    np.testing.assert_allclose(c.u[:, 1], r.reaction("hinge").force[rows, 2], rtol=1e-12)
    np.testing.assert_allclose(c.y[:, 0], -0.01 * c.u[:, 1], rtol=1e-12)


def test_a_results_views_are_its_evaluations():
    """A Result's views are those of the Evaluation of its rows, and an Evaluation of one of
    its rows made apart gives that row's values (the pendulum's hinge force against
    m (g + centripetal) along the string, the closed form)."""
    r = pendulum(q0=0.6, v0=1.5).simulate(0.5, output_step=0.1, **TIGHT)
    ev = r.evaluation
    assert isinstance(ev, Evaluation)
    np.testing.assert_array_equal(r.body("arm").position("tip"), ev.body("arm").position("tip"))
    k = 3
    one = Evaluation(Evaluator(r.system), r.t[k:k + 1], r.state_rows()[k:k + 1])
    np.testing.assert_allclose(one.reaction("hinge").force[0],
                               r.reaction("hinge").force[k], rtol=1e-13, atol=1e-12)
    np.testing.assert_allclose(one.cs_motion(r.system.bodies["arm"].body["tip"],
                                             "acceleration")[0],
                               ev.cs_motion(r.system.bodies["arm"].body["tip"],
                                            "acceleration")[k], rtol=1e-13, atol=1e-12)


def test_the_evaluator_residuals_of_a_tree_are_zero_and_its_labels_name_the_state():
    s = pendulum().build()
    ev = Evaluator(s)
    state = s.initial_state()
    assert ev.residuals(0.0, state.q, state.v) == (0.0, 0.0)
    dy, status = ev.derivative(0.0, np.concatenate([state.q, state.v]))
    assert status == 0 and np.isfinite(dy).all()


@pytest.mark.parametrize("law, key", [
    (ElastoGap(c=1e4, d=10.0, s_rel0=0.1), "contact"),
    (ElastoBacklash(c=1e4, d=10.0, b=0.1), "contact"),
    (Bistop(x1=-0.3, x2=0.3, k=1e4, e=1.5, cmax=5.0, d=1e-3), "contact"),
    (Impact(x1=0.3, k=1e4, e=1.5, cmax=5.0, d=1e-3), "contact"),
    (_StictionLaw(f_static=5.0, f_kinetic=3.0, d=0.5), "stuck"),
])
def test_a_law_declares_the_state_a_picture_shows(law, key):
    """viz colours an element by its law's declared state (no list of class names): the
    declared key is one of the law's states."""
    assert law.drawn_state == key
    n = 3
    states = law.states(np.zeros(n), np.zeros(n), np.zeros(n), np.ones((n, 4)),
                        np.tile(law.parameters(), (n, 1)))
    assert key in states


def test_a_laws_stops_are_what_a_picture_marks():
    assert Bistop(x1=-0.3, x2=0.3, k=1e4, e=1.5, cmax=5.0, d=1e-3).stops() == (-0.3, 0.3)
    assert Impact(x1=0.3, k=1e4, e=1.5, cmax=5.0, d=1e-3).stops() == (0.3,)
    assert ElastoGap(c=1e4, d=10.0, s_rel0=0.1).stops() == () and ElastoGap(c=1e4, d=10.0, s_rel0=0.1).drawn_state \
        == "contact"
    assert mbd.Law.drawn_state is None
