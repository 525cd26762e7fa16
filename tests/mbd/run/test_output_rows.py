"""A run's rows are kept in blocks (mbd.run.outputrows, issue 30): assembling the Result is one
copy, whatever the number of rows. The blocks must not show: the rows across block
boundaries, a live simulation's snapshots and restores, and the partial Result of an
interrupted run (Ctrl-C) are the rows a run computes, exactly. And one compiled call writes at
most ROWS_PER_CALL rows, so that Ctrl-C is answered soon whatever the steps grow to."""
import numpy as np
import pytest

import mbd
from mbd.run import outputrows, pieceloop
from mbd.run.evaluator import Evaluator
from mbd.run.simulate import output_times
from mbd.run.steppers import compiled as compiled_loop
from mbd.run.steppers import dop853
from tests.mbd.cli.test_cli import PENDULUM
from tests.mbd.control.test_control import gap_slider


def stop_pendulum():
    """The bob turning at -1 rad/s into an ElastoGap at -0.5 rad (test_cli's PENDULUM): free
    flight, then contacts (events and sides that change)."""
    ns = {}
    exec(PENDULUM, ns)
    return ns["build_model"]().build()


def assert_same_rows(a, b):
    np.testing.assert_array_equal(a.t, b.t)
    np.testing.assert_array_equal(a.q, b.q)
    np.testing.assert_array_equal(a.v, b.v)
    np.testing.assert_array_equal(a.work, b.work)
    np.testing.assert_array_equal(a.sides, b.sides)
    assert [tuple(e) for e in a.events] == [tuple(e) for e in b.events]


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("block", [1, 7])
def test_tiny_blocks_give_the_rows_of_the_default_ones(monkeypatch, compiled, block):
    """2 s at 1 ms (2001 rows and the contacts' event rows) with blocks of 1 and 7 rows: the
    rows, their branches and the events are those of the default blocks, bit for bit, from
    the compiled stepper (rows handed over a call at a time) and from scipy's (a row at a
    time)."""
    system = stop_pendulum()
    default = system.simulate(2.0, output_step=1e-3, compiled=compiled)
    monkeypatch.setattr(outputrows, "BLOCK_ROWS", block)
    tiny = system.simulate(2.0, output_step=1e-3, compiled=compiled)
    assert len(tiny.t) > 2001 and len(tiny.events) >= 2
    # the branches change along the run: the contacts' sides are not the free flight's
    assert len(np.unique(tiny.sides.reshape(len(tiny.t), -1), axis=0)) >= 2
    assert_same_rows(tiny, default)
    # the sides of some rows, looked up without the whole array, are those rows'
    rows = np.array([0, 1, len(tiny.t) // 2, len(tiny.t) - 1])
    np.testing.assert_array_equal(tiny.sides_of(rows), default.sides[rows])


@pytest.mark.parametrize("block", [4, 7])
def test_a_snapshot_restored_across_blocks_repeats_the_rows(monkeypatch, block):
    """test_control's save and restore with blocks of 4 and 7 rows (the snapshot at t = 0.2 s
    holds 21 rows: inside a block of 4, at the end of one of 7): restored twice, the run goes
    on to the rows of the run that was never restored, and of the default blocks."""
    def live(system):
        sim = system.start(t_end=1.0, output_step=0.01)
        sim.advance_to(0.2)
        snap = sim.save()
        sim.set_input("u", 3.0)
        sim.advance_to(0.9)
        return sim, snap, sim.result()
    _, _, default = live(gap_slider())
    monkeypatch.setattr(outputrows, "BLOCK_ROWS", block)
    sim, snap, first = live(gap_slider())
    assert_same_rows(first, default)
    for _ in range(2):
        sim.restore(snap)
        assert len(sim.run.rows) == 21
        sim.set_input("u", 3.0)
        sim.advance_to(0.9)
        assert_same_rows(sim.result(), default)
    sim.restore(snap)       # no new input from the snapshot: the rows differ after it only
    sim.advance_to(0.9)
    other = sim.result()
    for got, expected in ((other.t, default.t), (other.q, default.q), (other.v, default.v),
                          (other.sides, default.sides)):
        np.testing.assert_array_equal(got[:21], expected[:21])
    assert not np.array_equal(other.q, default.q)


@pytest.fixture
def compiled_calls(monkeypatch):
    """Every call of the compiled DOP853 loop, counted: (next output row before, after); with
    ``calls["interrupt"] = (k, when)`` the k-th call raises KeyboardInterrupt, "before" it
    runs or "after" it returned (a Ctrl-C that arrived while it ran is raised then)."""
    calls = {"rows": [], "interrupt": None}
    real = Evaluator.call

    def call(sd, function, *args):
        if function is not dop853.advance:
            return real(sd, function, *args)
        S = args[1].st[0]
        before = int(S["next_row"])
        k, when = calls["interrupt"] or (0, None)
        if len(calls["rows"]) + 1 == k and when == "before":
            calls["rows"].append((before, before))
            raise KeyboardInterrupt
        out = real(sd, function, *args)
        calls["rows"].append((before, int(S["next_row"])))
        if len(calls["rows"]) == k and when == "after":
            raise KeyboardInterrupt
        return out
    monkeypatch.setattr(Evaluator, "call", call)
    return calls


@pytest.mark.parametrize("when", ["before", "after"])
def test_an_interrupted_run_holds_exactly_the_rows_computed(monkeypatch, compiled_calls,
                                                           when):
    """Ctrl-C at the 6th call of the compiled loop, one step of at most 10 ms a call, in the
    free flight (no event: row k is output time k): the partial Result holds every row the
    calls before wrote, and those of the 6th when Ctrl-C came while it ran ("after": it is
    raised as the call returns); they are the rows of the whole run, bit for bit."""
    system = stop_pendulum()
    whole = system.simulate(0.4, output_step=1e-3, max_step=0.01)
    monkeypatch.setattr(pieceloop.Run, "BATCH", 1)
    compiled_calls["interrupt"] = (6, when)
    with pytest.raises(mbd.SimulationError, match="interrupted at t = ") as err:
        system.simulate(0.4, output_step=1e-3, max_step=0.01)
    partial = err.value.result
    assert isinstance(err.value.__cause__, KeyboardInterrupt)
    assert len(compiled_calls["rows"]) == 6
    before, written = compiled_calls["rows"][-1]      # the rows written when Ctrl-C came
    assert written > before if when == "after" else written == before
    assert len(partial.t) == written
    np.testing.assert_array_equal(partial.t, output_times(0.0, 0.4, 1e-3)[:written])
    np.testing.assert_array_equal(partial.q, whole.q[:written])
    np.testing.assert_array_equal(partial.v, whole.v[:written])
    np.testing.assert_array_equal(partial.work, whole.work[:written])
    assert f"holds the {written} rows up to t = {partial.t[-1]:.9g} s" in str(err.value)


def test_one_compiled_call_writes_at_most_rows_per_call(monkeypatch, compiled_calls):
    """A free flight (DOP853's error nil: the step grows tenfold a step, up to 20 output
    steps) with ROWS_PER_CALL = 50: no call writes more than 50 rows, and the rows are those
    of the run with the default, bit for bit (the calls end elsewhere, the steps are the
    same)."""
    from mbd.run import simulate as run_simulate
    monkeypatch.setattr(run_simulate, "ROWS_PER_STEP", 20)
    model = mbd.Model("flight")
    g = model.add_ground("g", environment=mbd.Environment(gravity=(0, 0, 0)))
    from joints import Revolute
    bob = model.add_body("bob", mass=1.0, cg=(1, 0, 0), inertia=[1e-3] * 3,
                         cs={"pivot": (0, 0, 0)})
    model.add(Revolute("hinge", g, bob["pivot"], axis=(0, 1, 0), v0=-1.0))
    system = model.build()
    default = system.simulate(20.0, output_step=0.01)
    compiled_calls["rows"].clear()
    monkeypatch.setattr(compiled_loop, "ROWS_PER_CALL", 50)
    capped = system.simulate(20.0, output_step=0.01)
    written = [after - before for before, after in compiled_calls["rows"]]
    assert sum(written) == 2000 and max(written) <= 50 and len(written) >= 40
    assert_same_rows(capped, default)


@pytest.mark.parametrize("h, h_max, spacing", [
    (1e-9, 1.0, 0.01), (0.01, 1.0, 0.01), (0.5, 0.2, 0.01), (np.inf, 0.2, 0.01),
    (3e-4, np.inf, 1e-3), (2.0, 2.0, 0.5)])
def test_steps_within_bounds_the_rows_of_the_fastest_growing_steps(h, h_max, spacing):
    """k = steps_within(...) steps of sizes h GROWTH^j (at most h_max) span at most ``rows``
    output rows (h_j / spacing + 1 each); one step more would span more (or k is the cap)."""
    rows, cap = 200, 2000

    def worst(k):
        total, size = 0.0, h
        for _ in range(k):
            total += min(size, h_max) / spacing + 1.0
            size = min(size * compiled_loop.GROWTH, 1e300)
        return total
    k = compiled_loop.steps_within(rows, spacing, h, h_max, cap)
    assert 1 <= k <= cap
    assert k == 1 or worst(k) <= rows
    assert k == cap or worst(k + 1) > rows


def test_the_output_grid_is_the_multiples_before_t_end_then_t_end():
    """output_times (made in place, one array): t0 + k output_step for k = 0, 1, ... while
    below t_end (less 1e-12 of it), then t_end; the next multiple is not below it (or lies past
    the floor of the span's count)."""
    rng = np.random.default_rng(30)
    for _ in range(300):
        t0 = rng.uniform(-10.0, 10.0)
        span = 10.0 ** rng.uniform(-3.0, 3.0)
        step = span / rng.integers(1, 5000) * rng.choice([1.0, 1.0 - 1e-13, 1.0 + 1e-13, 0.7])
        t_end = t0 + span
        t = output_times(t0, t_end, step)
        k = np.arange(len(t) - 1)
        np.testing.assert_array_equal(t[:-1], t0 + step * k)
        assert t[-1] == t_end
        limit = t_end - 1e-12 * max(1.0, abs(t_end))
        assert np.all(t[1:-1] < limit)
        n = int(np.floor((t_end - t0) / step * (1.0 + 1e-12)))
        assert t0 + step * len(k) >= limit or len(k) > n
