"""Failures of a run that the other failure tests do not reach (issue 31):

- a four-bar driven from its rocker into its dead centre with tight tolerances: its steps
  shrink to nothing as it nears the fold, the step budget runs out there, and the failure is
  named as the singular configuration met (the weakest constraint direction below
  ``NEAR_SINGULAR``), not as a slow run; a closed loop that runs out of steps far from any
  such point is a slow run;
- a point mass on a Universal joint's first axis: the mass matrix is singular at the start
  (build warns), no force element is to blame, and the run says what may cause it;
- the words of two branches no model reaches (defensive): a wall time that is not finite,
  and constraint equations that lost rank (the run's dead-centre checks fire while the
  weakest direction is still above the rank rule's tolerance).
"""
import re
import warnings

import numpy as np
import pytest

import mbd
from joints import Universal
from mbd.compiled import loopsolve
from mbd.run import failures
from tests.forces.test_run_events import fourbar_dead_centre
from tests.mbd.run.test_loops import fourbar
from tests.mbd.run.test_run_failures import failure

#: every test here asserts where and how a run fails: run again on a perturbed problem under
#: --perturb (tests/perturb.py)
pytestmark = pytest.mark.accuracy

RATE = 2.0          # rad/s: the rocker's prescribed angle j4 = 2 t


def push(joints):
    return mbd.MotionDriver("push", joints["j4"], position=lambda t: RATE * t,
                            velocity=lambda t: RATE, acceleration=lambda t: 0.0)


LOOP = "(loop ['j3', 'j2', 'j1', 'j4']; drivers and gears ['push'])"


def test_steps_that_shrink_into_a_dead_centre_fail_as_the_singular_configuration():
    """The rocker reaches its limit psi_max at t* = psi_max / 2; at rtol = atol = 1e-11 the
    steps shrink as it nears it and the run stops within 1e-6 s of t*, where the weakest
    constraint direction is below NEAR_SINGULAR: the singular configuration is the failure,
    whether the steps became too small or the 1000 steps ran out first (how many steps that
    takes is round-off's to decide: 1000, 711 and 196 on three machines and versions)."""
    psi_max = fourbar_dead_centre()[0]
    t_star = psi_max / RATE
    err = failure(fourbar(forces=(push,)), 0.5, output_step=0.01, rtol=1e-11, atol=1e-11,
                  max_steps=1000)
    message = str(err)
    assert 0 < err.result.stats["nsteps"] <= 1000
    assert message.startswith("singular configuration at t = ")
    assert "max_steps" not in message
    strength = float(re.search(r"the weakest of rank 3 has strength ([0-9.e+-]+)\) and the "
                               r"motion demands rates they cannot give", message).group(1))
    assert 0.0 < strength < loopsolve.NEAR_SINGULAR
    assert f"{LOOP}; the mechanism has reached a dead centre or locks up" in message
    assert t_star - 1e-6 < err.t <= t_star
    assert err.result.joint("j4").q[-1] <= psi_max


def test_a_closed_loop_out_of_steps_away_from_any_dead_centre_is_a_slow_run():
    err = failure(fourbar(crank=dict(q0=0.0, v0=3.0)), 10.0, output_step=0.01, max_steps=50)
    message = str(err)
    assert message.startswith("the run took its max_steps = 50 steps and reached only t = ")
    assert "singular" not in message
    assert err.result.stats["nsteps"] == 50 and 0.0 < err.t < 10.0


def test_a_point_mass_on_a_universal_joint_s_first_axis_has_no_defined_start():
    """A 1 kg point mass 1 m below a Universal joint whose first axis is z: turning about z
    moves nothing at the start (build warns, naming the joint); its rates there are not
    finite, and no force element is to blame (there is none)."""
    m = mbd.Model("pole")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    bob = m.add_body("bob", mass=1.0, cg=(0, 0, -1.0), inertia=np.zeros((3, 3)),
                     cs={"o": (0, 0, 0)})
    m.add(Universal("u", g, bob["o"], axes=[(0, 0, 1), (1, 0, 0)]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        system = m.build()
    assert [str(w.message).split(":")[0] for w in caught] == [
        "joint 'u' moves no inertia at the initial position"]
    err = failure(system, 0.1, output_step=0.01)
    assert str(err) == ("the state's rates are not finite at the start, t = 0 s (joint 'u' v0, "
                        "joint 'u' v1): a body without mass or inertia where a joint moves it, "
                        "or a Python function of the model that returned NaN or inf, may be "
                        "the cause")
    assert err.t == 0.0 and len(err.result.t) == 1


# ----------------------------------------------------------------------------- defensive


@pytest.mark.parametrize("seconds, words", [(np.inf, "forever"), (np.nan, "forever"),
                                            (90.0, "about 90 s"), (150.0, "about 2.5 minutes"),
                                            (3 * 86400.0, "about 3 days")])
def test_a_wall_time_in_words(seconds, words):
    """(A projected wall time is finite in every run: the step size of a batch is > 0.)"""
    assert failures.duration(seconds) == words


def test_constraint_equations_that_lost_rank_are_named_with_their_ranks():
    """The rank found below the run's (the weakest direction under RANK_TOLERANCE): no run
    reaches it before the dead-centre checks stop it, at strengths near 1e-5."""
    system = fourbar(forces=(push,))
    loop = {"rank": 3, "found": 2, "smallest": 3.2e-7}
    message = failures.singular_message(system, loop,
                                        failures.Singular(loopsolve.SINGULAR, 0.27))
    assert message == (
        "singular configuration at t = 0.27 s: the constraint equations became dependent "
        "(rank 2 instead of 3 on the tree's coordinates, the cut joints' own ones aside; the "
        f"weakest equation's strength 3.2e-07, below 1e-06) {LOOP}; the mechanism has reached "
        "a dead centre or locks up, where its motion is not determined (a change point that "
        "the motion crosses with a continuous velocity is passed)")
