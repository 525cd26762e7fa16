"""What reading a result costs against the run that made it (issue 30: every view of a result
under 20 % of its run). Not a test: run it by hand, ``python benchmarks/views.py``; writes
benchmarks/VIEWS.md.

The runs: the demo's mechanism (four machines, five force elements of five law kinds, a
stiffness that is a Python function of time) for 4 s at output_step 5e-5 s (80 000 rows), and
a 10-body chain for 10 s at 1e-4 s (100 000 rows). For each, timed ROUNDS times on a warm numba
cache and the median reported:

- **run**: ``system.simulate(...)`` (the Result as the run returns it);
- **every view**: on a fresh Result of the same rows, every joint's q and v, every body's
  position, rotation, velocity and angular velocity, every force element's value, state and
  energy, every joint's reaction and the energy balance — all a user can read.

The views are listed one by one too (each on a fresh Result, so none profits from another's
cached work): which ones the ratio is made of.
"""
import os
import pathlib
import statistics
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests" / "viz"))

from test_web import chain  # noqa: E402

from mbd.cli import demo  # noqa: E402
from mbd.model.files import atomic_open  # noqa: E402
from mbd.run.result import Result  # noqa: E402

ROUNDS = 3


def cases():
    """(name, system, simulate keyword arguments) of the runs."""
    yield ("demo, 4 s at 5e-5 s (80 000 rows)", demo.build_model().build(),
           dict(t_end=4.0, output_step=5e-5, rtol=demo.RTOL, atol=demo.ATOL))
    yield "10-body chain, 10 s at 1e-4 s (100 000 rows)", chain(), \
        dict(t_end=10.0, output_step=1e-4)


def fresh(result):
    """A Result of the same rows with nothing worked out yet."""
    return Result(result.system, result.t, result.state_rows(), events=result.events,
                  stats=result.stats, sides=result.sides, controls=result.controls)


def views(result):
    """{view: function(result)} of everything a user reads."""
    s = result.system
    out = {
        "joints q, v": lambda r: [(r.joint(n).q, r.joint(n).v) for n in s.joints],
        "bodies: position, rotation, velocity, angular velocity": lambda r: [
            (b.position(), b.rotation, b.velocity(), b.angular_velocity)
            for b in (r.body(n) for n in s.bodies)],
        "force elements: value, state, energy": lambda r: [
            (f.value, f.state, f.energy) for f in (r.force(e.name)
                                                   for e in s.force_elements)],
        "reactions": lambda r: [r.reaction(n).force for n in s.joints],
        "energy balance": lambda r: r.energy_balance(),
    }
    return out


def median_time(function, rounds=ROUNDS):
    """The median wall time (s) of ``function()`` over ``rounds`` calls."""
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main():
    lines = ["# Reading a result against its run (issue 30)", "",
             "Command: `python benchmarks/views.py` (warm numba cache; median of "
             f"{ROUNDS}). Machine: {os.cpu_count()} cores.", ""]
    for name, system, kwargs in cases():
        result = system.simulate(**kwargs)         # compile and warm up
        run = median_time(lambda system=system, kwargs=kwargs: system.simulate(**kwargs))
        each = {view: median_time(lambda f=f, result=result: f(fresh(result)))
                for view, f in views(result).items()}
        every = median_time(lambda result=result: [f(r) for r in [fresh(result)]
                                                   for f in views(result).values()])
        lines += [f"## {name}", "",
                  f"run: {run * 1e3:.0f} ms; every view of its result: {every * 1e3:.0f} ms "
                  f"= **{every / run:.0%} of the run**", "",
                  "| view (alone, on a fresh result) | ms | of the run |", "|---|---|---|"]
        lines += [f"| {view} | {t * 1e3:.0f} | {t / run:.0%} |" for view, t in each.items()]
        lines.append("")
    text = "\n".join(lines)
    print(text)
    with atomic_open(HERE / "VIEWS.md") as fh:
        fh.write(text)


if __name__ == "__main__":
    main()
