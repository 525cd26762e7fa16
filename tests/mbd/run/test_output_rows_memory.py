"""A run whose output rows cannot fit in memory is refused before anything is allocated
(issue 30): ``simulate(t_end=1e6, output_step=1e-6)`` asked numpy for 7.3 TiB and died with a
raw MemoryError."""
import re
import tracemalloc

import numpy as np
import pytest

import mbd
from forces import JointForce, SpringDamper
from joints import Prismatic, Revolute
from mbd.run import evaluator
from mbd.run import simulate as sim

MASS, C, D, X0 = 2.0, 50.0, 0.4, 0.1


def oscillator():
    """A block on a slide (gravity across it) on a SpringDamper, released at X0 m: 3 columns
    (q, v, the spring-damper's work)."""
    model = mbd.Model("rows")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    block = model.add_body("block", mass=MASS, cg=(0, 0, 0), inertia=np.eye(3) * 1e-3,
                           cs={"o": (0, 0, 0)})
    slide = model.add(Prismatic("slide", ground, block["o"], axis=(1, 0, 0), q0=X0))
    model.add(JointForce("sd", slide, SpringDamper(c=C, d=D)))
    return model.build()


@pytest.fixture(scope="module")
def system():
    return oscillator()


def test_a_million_seconds_at_a_microsecond_is_refused_before_anything_is_allocated(system):
    tracemalloc.start()
    try:
        with pytest.raises(ValueError) as err:
            system.simulate(t_end=1e6, output_step=1e-6)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2 ** 20          # bytes: no grid (8 TB), no table, not even a stepper
    text = str(err.value)
    assert text.startswith("simulate: output_step = 1e-06 s")
    # 1e12 multiples of 1e-6 in 1e6 s, t0 and t_end: the count the grid itself would have
    rows = int(re.search(r" is ([\d,]+) output rows", text).group(1).replace(",", ""))
    assert 10 ** 12 <= rows <= 10 ** 12 + 2
    assert rows == sim.output_row_count(0.0, 1e6, 1e-6)
    columns = system.nq + system.nv + evaluator.work_size(system)
    assert columns == 3
    # the table: rows x columns x 8 bytes, 1e12 x 24 B = 21.8 TiB
    assert "table of 3 columns (nq + nv + work accumulators = 1 + 1 + 1) takes 21.8 TiB" in text
    assert sim._size(rows * columns * 8) == "21.8 TiB"
    assert "this machine's memory" in text
    assert "larger output_step" in text and "shorter t_end" in text


def test_the_suggested_output_step_and_t_end_fit(system):
    """What the message tells to change is enough: the rows at the suggested output_step, or
    up to the suggested t_end, fit within the limit (checked without running them)."""
    with pytest.raises(ValueError) as err:
        sim.check_output_rows(system, 0.0, 1e6, 1e-6)
    text = str(err.value)
    step = float(re.search(r"at least ([\d.e+-]+) s", text).group(1))
    t_end = float(re.search(r"at most t0 \+ ([\d.e+-]+) s", text).group(1))
    sim.check_output_rows(system, 0.0, 1e6, step)           # no error
    sim.check_output_rows(system, 0.0, t_end, 1e-6)
    _, per_row = sim.row_bytes(system)
    budget = sim.MEMORY_SHARE * sim.physical_memory()
    assert sim.output_row_count(0.0, 1e6, step) * per_row <= budget
    assert sim.output_row_count(0.0, t_end, 1e-6) * per_row <= budget


def test_the_limit_is_half_the_memory_to_the_row(system, monkeypatch):
    """With the machine's memory set to fit 101 rows exactly: 1 s at 0.01 s (101 rows) runs,
    one row more (1.005 s: the same 101 multiples, then t_end) is refused."""
    _, per_row = sim.row_bytes(system)
    monkeypatch.setattr(sim, "physical_memory", lambda: 101 * per_row / sim.MEMORY_SHARE)
    assert len(system.simulate(1.0, output_step=0.01).t) == 101
    assert sim.output_row_count(0.0, 1.005, 0.01) == 102
    with pytest.raises(ValueError, match=r"is 102 output rows"):
        system.simulate(1.005, output_step=0.01)


def test_an_ordinary_run_is_untouched(system):
    """2 s at 0.01 s: the rows at the grid, the motion the damped oscillator's closed form."""
    result = system.simulate(2.0, output_step=0.01, rtol=1e-10, atol=1e-12)
    t = result.t
    np.testing.assert_array_equal(t, sim.output_times(0.0, 2.0, 0.01))
    assert len(t) == 201 == sim.output_row_count(0.0, 2.0, 0.01)
    zeta = D / (2.0 * np.sqrt(C * MASS))
    wn = np.sqrt(C / MASS)
    wd = wn * np.sqrt(1.0 - zeta ** 2)
    x = X0 * np.exp(-zeta * wn * t) * (np.cos(wd * t) + zeta * wn / wd * np.sin(wd * t))
    np.testing.assert_allclose(result.joint("slide").q, x, rtol=0, atol=1e-8)


@pytest.mark.parametrize("t0, t_end, step", [
    (0.0, 1.0, 0.1), (0.0, 1.0, 0.3), (0.5, 2.0, 0.01), (0.0, 8.0, 1e-4), (0.0, 1.0, 1.0),
    (1e5, 1e5 + 1.0, 1e-7 * 3), (0.0, 1.0, 1.0 - 1e-13), (-3.0, 7.0, 1.0 + 1e-13),
    (0.0, 1e3, 1e-3 * (1 - 1e-13))])
def test_the_row_count_is_the_grids_length(t0, t_end, step):
    assert sim.output_row_count(t0, t_end, step) == len(sim.output_times(t0, t_end, step))


def test_no_step_spans_more_than_rows_per_step_output_rows(monkeypatch):
    """A free flight (a bob turning at a constant rate: DOP853's error is nil and its step
    would grow without end) is taken in steps of at most ROWS_PER_STEP output steps, so that
    Ctrl-C and the progress bar are never held up by one step's millions of rows; the rows
    are the closed form's all the same."""
    from mbd.run import simulate as run_simulate
    monkeypatch.setattr(run_simulate, "ROWS_PER_STEP", 50)
    model = mbd.Model("flight")
    g = model.add_ground("g", environment=mbd.Environment(gravity=(0, 0, 0)))
    bob = model.add_body("bob", mass=1.0, cg=(1, 0, 0), inertia=[1e-3] * 3,
                         cs={"pivot": (0, 0, 0)})
    model.add(Revolute("hinge", g, bob["pivot"], axis=(0, 1, 0), v0=-1.0))
    result = model.build().simulate(20.0, output_step=0.01)
    # 20 s in steps of at most 50 x 0.01 s
    assert result.stats["nsteps"] >= 20.0 / (50 * 0.01)
    np.testing.assert_allclose(result.joint("hinge").q, -result.t, atol=1e-9)
    monkeypatch.setattr(run_simulate, "ROWS_PER_STEP", 10_000)
    free = model.build().simulate(20.0, output_step=0.01)
    assert free.stats["nsteps"] < result.stats["nsteps"]
