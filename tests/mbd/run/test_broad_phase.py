"""The broad phase (:func:`mbd.compiled.broadphase.broad_phase`): a contact's pair of
shapes whose bounding volumes are farther apart than its law's reach is left unmeasured, and
the run is the one that measures every point: the same events at the same instants, the
same motion to the run's tolerance, records measured exactly.

The reference is the same run with the broad phase off (every pair measured, as before it
existed), and closed forms where a law acts at a positive gap.
"""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import mbd
from forces import ElastoGap, TableForce
from joints import SixDof
from mbd.control import Table
from mbd.run import evaluator as evaluator_module
from mbd.run.evaluator import Evaluator, work_size

G = 9.81
MASS, RADIUS = 0.1, 0.04
C = MASS * G / 1e-3 ** 1.5          # 1 mm under its own weight, N/m^1.5
D = 0.2 * 2.0 * np.sqrt(1.5 * MASS * G / 1e-3 * MASS)
RTOL = ATOL = 1e-9
#: the two runs step differently only where the screen for a contact begun and ended within
#: one step reads a bound's rate instead of a gap's: their positions then differ by the
#: runs' own error, which over a few bounces is within this many times their tolerance
AGREE = 1e4


def measured_everywhere(monkeypatch):
    """Every run's and evaluator's data with the broad phase off (every pair measured)."""
    make = evaluator_module.layout.make_data

    def exact(*args, **kwargs):
        data = make(*args, **kwargs)
        data.broad["exact"] = 1
        return data

    monkeypatch.setattr(evaluator_module.layout, "make_data", exact)


def balls_in_a_box(n=6, box=None):
    """n balls dropped into a 0.4 m box of planes (every pair a contact), and a ground box
    (``box``: its size, m) on the floor they fall onto where given."""
    model = mbd.Model("balls")
    floor = model.add_ground("floor", environment=mbd.Environment(gravity=(0.0, 0.0, -G)))
    floor.add_shape(mbd.Plane(), contact=True)
    grounds = [floor]
    for k, (at, turn) in enumerate((((0.2, 0, 0.2), (0, -90, 0)), ((-0.2, 0, 0.2), (0, 90, 0)),
                                    ((0, 0.2, 0.2), (90, 0, 0)), ((0, -0.2, 0.2), (-90, 0, 0)))):
        wall = model.add_ground(f"wall{k}", at=at,
                                orientation=Rotation.from_euler("xyz", turn, degrees=True))
        wall.add_shape(mbd.Plane(), contact=True)
        grounds.append(wall)
    if box is not None:
        block = model.add_ground("block", at=(0.0, 0.0, box[2] / 2))
        block.add_shape(mbd.Box(box), contact=True)
        grounds.append(block)
    rng = np.random.default_rng(3)
    balls = []
    for k in range(n):
        ball = model.add_body(f"ball{k}", MASS, (0, 0, 0), np.eye(3) * 0.4 * MASS * RADIUS ** 2)
        ball.add_shape(mbd.Sphere(RADIUS), contact=True)
        start = (rng.uniform(-0.12, 0.12), rng.uniform(-0.12, 0.12), 0.15 + 0.1 * k)
        model.add(SixDof(f"free{k}", floor, ball["cg"], q0=(*start, 1.0, 0.0, 0.0, 0.0),
                         v0=(rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5), 0.0,
                             0.0, 0.0, 0.0)))
        balls.append(ball)
    for contact in mbd.contacts_among(balls + grounds, ElastoGap(c=C, d=D, n=1.5),
                                      mbd.Coulomb(0.5, 0.4, v_crit=0.01), jointed=True):
        model.add(contact)
    return model


def _events(result):
    return [(e.element, e.what) for e in result.events], np.array([e.t for e in result.events])


@pytest.mark.parametrize("n, box", [(6, None), (2, (0.12, 0.12, 0.08))],
                         ids=["spheres", "spheres_and_box"])
def test_balls_in_a_box_run_as_if_every_pair_were_measured(n, box, monkeypatch):
    # sphere-sphere and sphere-plane: the bound is the gap itself; sphere-box: a bound below
    # the gap (the box's bounding sphere), so these pairs are measured only when close, and
    # the runs' steps may differ (the screen of a contact within a step reads the bound's
    # rate while far): two balls, whose few impacts do not amplify that difference as six
    # balls' many do
    model = balls_in_a_box(n, box=box)
    culled = model.build().simulate(0.8, output_step=0.01, rtol=RTOL, atol=ATOL)
    measured_everywhere(monkeypatch)
    every = model.build().simulate(0.8, output_step=0.01, rtol=RTOL, atol=ATOL)
    names, times = _events(culled)
    assert len(names) > 10 * n // 3              # they land, bounce and touch each other
    assert names == _events(every)[0]
    # the instants each run locates to its time tolerance
    np.testing.assert_allclose(times, _events(every)[1], rtol=0, atol=1e-7)
    np.testing.assert_allclose(culled.q, every.q, rtol=0, atol=AGREE * ATOL)
    # the records are measured exactly in both (a far pair's gap, not its bound)
    np.testing.assert_allclose(culled.contact("contact ball0-floor").gap,
                               every.contact("contact ball0-floor").gap, rtol=0,
                               atol=AGREE * ATOL)


def test_an_evaluation_leaves_far_pairs_unmeasured_with_their_switches_on_the_same_side():
    model = balls_in_a_box(box=(0.12, 0.12, 0.08))
    system = model.build()
    start = system.initial_state()
    y = np.concatenate((start.q, start.v, np.zeros(work_size(system))))
    ev = Evaluator(system)
    g_exact = ev.switching(0.0, y, exact=True).copy()
    gaps = ev.data.estate["x"].copy()
    before = int(ev.data.broad["culled"][0])
    g = ev.switching(0.0, y)
    left = int(ev.data.broad["culled"][0]) - before
    pairs = len(system.broad_pairs)
    # the balls start in the air, apart and off the walls: every pair is left out, once
    assert left == pairs == 6 * 5 // 2 + 6 * 6
    assert np.array_equal(g[:, 0] > 0, g_exact[:, 0] > 0)
    # an unmeasured point's record reads a bound on its gap (the gap itself for two spheres
    # or a sphere and a plane, to round-off), above the law's reach (0: s_rel0), no load
    bounds = ev.data.estate["x"]
    assert not ev.data.points["written"].any() and not ev.data.estate["value"].any()
    assert np.all(bounds <= gaps + 1e-12) and np.all(bounds > 0.0)
    boxed = [i for i, fe in enumerate(system.force_elements) if "block" in fe.name]
    assert len(boxed) == 6 and np.all(bounds[boxed] < gaps[boxed] - 1e-3)
    # the right-hand side is the one that measures every point
    dy = ev.derivative(0.0, y)[0].copy()
    ev.data.broad["exact"] = 1
    np.testing.assert_array_equal(ev.derivative(0.0, y)[0], dy)


def cushion(law, z):
    """A ball above a floor on a law that acts from a distance (its reach above zero)."""
    model = mbd.Model("cushion")
    floor = model.add_ground("floor", environment=mbd.Environment(gravity=(0.0, 0.0, -G)))
    floor.add_shape(mbd.Plane(), contact=True)
    ball = model.add_body("ball", MASS, (0, 0, 0), np.eye(3) * 0.4 * MASS * RADIUS ** 2)
    ball.add_shape(mbd.Sphere(RADIUS), contact=True)
    model.add(SixDof("free", floor, ball["cg"], q0=(0.0, 0.0, z, 1.0, 0.0, 0.0, 0.0)))
    model.add(mbd.Contact("cushion", floor, ball, law))
    return model


def test_a_law_that_acts_at_a_positive_gap_keeps_its_pair_measured_within_its_reach():
    # ElastoGap with s_rel0 = 20 mm pushes at gaps below 20 mm: the ball rests on the
    # cushion at the gap where c (s_rel0 - x)^n = m g (closed form), above the floor
    s_rel0, c = 0.02, 2e3
    rest = s_rel0 - (MASS * G / c) ** (1.0 / 1.5)
    assert rest > 0.0
    model = cushion(ElastoGap(c=c, d=3.0, s_rel0=s_rel0, n=1.5), RADIUS + 0.05)
    system = model.build()
    assert system.broad_pairs["reach_slot"][0] >= 0     # it can be left out: 50 mm > 20 mm
    result = system.simulate(3.0, output_step=0.01, rtol=1e-10, atol=1e-12)
    assert [e.what for e in result.events][:1] == ["contact begins"]
    gap = result.contact("cushion").gap[:, 0]
    assert gap[0] == pytest.approx(0.05, abs=1e-12)
    assert gap[-1] == pytest.approx(rest, abs=1e-6)


def test_a_law_without_a_reach_is_measured_always():
    # a table law has no gap beyond which it is sure to exert nothing: never left out
    law = TableForce(Table([-0.01, 0.0, 0.01], [100.0, 0.0, 0.0]))
    system = cushion(law, RADIUS + 0.05).build()
    assert list(system.broad_pairs["reach_slot"]) == [-1]
    start = system.initial_state()
    ev = Evaluator(system)
    ev.switching(0.0, np.concatenate((start.q, start.v, np.zeros(work_size(system)))))
    assert ev.data.broad["culled"][0] == 0
    assert ev.data.estate["x"][0] == pytest.approx(0.05, abs=1e-12)


def test_one_element_s_switches_alone_are_those_every_element_s_evaluation_gives():
    # locating a crossing evaluates the crossing element alone (switching_on_step, the task
    # ONE_ELEMENT + i): its law's
    # functions equal the full evaluation's where that measured it, and have its signs where
    # the broad phase read a bound (a pair in the air)
    from mbd.compiled import layout, statekernels
    model = balls_in_a_box(box=(0.12, 0.12, 0.08))
    system = model.build()
    start = system.initial_state()
    y = np.concatenate((start.q, start.v, np.zeros(work_size(system))))
    y[2] = RADIUS - 1e-4                       # ball 0 pressed into the floor: in contact
    ev = Evaluator(system)
    ev.natural_mode(0.0, y)
    full = ev.switching(0.0, y).copy()
    exact = ev.switching(0.0, y, exact=True).copy()
    law = slice(0, layout.LAW_SWITCHES)
    touching = [i for i in range(len(system.force_elements)) if full[i, 0] < 0.0]
    assert touching                            # the ball on the floor
    for i in range(len(system.force_elements)):
        g = np.zeros_like(full)
        ev.call(statekernels.elements_at, y, g, ev.data, layout.ONE_ELEMENT + i)
        np.testing.assert_array_equal(g[i, law], exact[i, law])
        assert (g[i, 0] > 0.0) == (full[i, 0] > 0.0)


def test_a_patch_whose_first_shape_is_far_reads_its_bodies_spin_from_a_point_in_contact():
    # a block whose first contact shape is a knob 0.3 m above it, sliding and turning on the
    # floor with exact friction: the knob's pair is left out, and with it the measure of the
    # patch's first point, whose record the hold's rows and its power read the bodies'
    # angular velocities from (once the zeros the broad phase leaves there)
    half, mass = 0.05, 1.0
    model = mbd.Model("knob")
    floor = model.add_ground("floor", environment=mbd.Environment(gravity=(0.0, 0.0, -G)))
    floor.add_shape(mbd.Plane(), contact=True)
    block = model.add_body("block", mass, (0, 0, 0), np.eye(3) * mass * (2 * half) ** 2 / 6,
                           cs={"knob": (0.0, 0.0, 0.3)})
    block.add_shape(mbd.Sphere(0.02), cs="knob", contact=True)
    block.add_shape(mbd.Box((2 * half,) * 3), contact=True)
    depth = (mass * G / 4 / 1e6) ** (1 / 1.5)
    model.add(SixDof("free", floor, block["cg"], q0=(0.0, 0.0, half - depth, 1.0, 0.0, 0.0, 0.0),
                     v0=[0.5, 0.0, 0.0, (0.0, 0.0, 3.0)]))
    model.add(mbd.Contact("patch", floor, block, ElastoGap(c=1e6, d=50.0, n=1.5),
                          mbd.Coulomb(0.5, 0.4, exact=True)))
    system = model.build()
    lead = system.patches[0]
    pairs = system.broad_points["pair"]
    assert pairs[lead] != pairs[lead + 1]         # the knob's point first, the box's after
    sim = system.start(t_end=0.2, output_step=0.01, rtol=1e-8, atol=1e-10)
    state = sim.advance_to(0.05)           # sliding and turning
    ev = sim.run.ev
    ev.derivative(sim.t, sim.y)
    points, estate, mode = ev.data.points, ev.data.estate, ev.data.mode
    touching = [j for j in range(lead, lead + int(system.elements[lead]["patch_size"]))
                if mode[j]["sides"][0] < 0.0]
    assert points["written"][lead] == 0 and touching and lead not in touching
    spin = estate[touching[0]]["w_b"]
    assert abs(spin[2]) > 0.1                                  # it turns
    np.testing.assert_array_equal(estate[lead]["w_b"], spin)
    assert state.t == 0.05
    sim.advance_to(0.2)
    result = sim.result()
    assert any(e.what == "sticks" for e in result.events)
    assert result.energy_balance().relative_residual < 1e-5
