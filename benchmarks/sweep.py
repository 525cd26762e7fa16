"""Throughput of :func:`mbd.sweep` (issue 14): a 64-run study on this machine's processes and
on a 2-worker Dask ``LocalCluster``, against a plain serial loop (not a test: run it by hand).

The study: ``examples/bistop_slot.py`` (a 1 kg block bouncing between two BISTOP stops) to
t = 8 s, the script's own ``T_END``, with its ``OUTPUT_STEP`` = 1e-4 s and ``RTOL`` = ``ATOL``
= 1e-9 (80 000 output rows, ~240 steps, 5 contacts, 0.15-0.2 s a run), over an 8 x 8 grid of
the stops' stiffness ``slot.k`` = 1e6 ... 1e8 N/m^e (log-spaced) and exponent ``slot.e`` =
1.5 ... 2.5. Outputs: the final position and speed, the number of law switches and the time of
the first, all read off the joint and the event log (a force output would cost more than the
run: see the notes).

Three ways, the same 64 cases, in one process:

1. **serial**: a plain Python loop here: ``build_model()`` of the script, the overrides with
   :func:`mbd.study.scripts.apply_override`, ``build()``, ``simulate()``, the outputs by hand;
   after one warm-up run (so no JIT compilation is counted);
2. **local**: ``mbd.sweep(..., scheduler=None, workers=2)``, the wall time of the whole call
   (checking the grid, preparing the kernels in this process, starting the 2 worker processes,
   the runs, the table); ``attrs["prepare_s"]`` reported apart as well;
3. **dask**: ``mbd.sweep(..., scheduler=client)`` on ``LocalCluster(n_workers=2,
   threads_per_worker=1, processes=True)``: the cluster's start-up is reported apart and not
   counted (a cluster is started once for many studies); the sweep's own preparation of the
   workers (importing mbd and loading the kernels from numba's cache, on a fresh cluster) is.

Every parallel repeat follows a serial loop of its own: serial and local alternate before the
cluster starts (the local sweep forks its workers only while this process runs one thread; a
Dask client runs threads), then serial and Dask. Throughput = 64 runs / wall s (median),
speed-up = the serial loop's wall / the parallel repeat's wall (the median of these paired
ratios: the machine's speed drifts between repeats), scaling efficiency = speed-up / 2
workers. Every timed piece waits for a quiet machine and records the cores other processes
used meanwhile. The three tables of outputs are checked equal (==, bit for bit; asserted). A
last, single local sweep runs while the client is open, so with spawned workers: what a sweep
in a process with threads (a Jupyter kernel) pays.

Usage::

    pip install -e '.[cluster]'
    python benchmarks/sweep.py [--repeats 5] [--out FILE]     # about 4 minutes on 2 cores

The markdown goes to stdout and, whole or not at all, to ``benchmarks/SWEEP.md`` (a different
file with ``--out``; ``benchmarks/run.py`` owns ``RESULTS.md``); progress to stderr.
"""
import argparse
import itertools
import os
import platform
import statistics
import sys
import time

import numpy as np

import mbd
from mbd.model.files import atomic_open
from mbd.study import cases as study_cases
from mbd.study import scripts
from mbd.study import sweeps as study

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(os.path.dirname(HERE), "examples", "bistop_slot.py")
T_END = 8.0                      # s, the script's T_END
WORKERS = 2
GRID = {"slot.k": [float(k) for k in np.logspace(6.0, 8.0, 8)],
        "slot.e": [float(e) for e in np.linspace(1.5, 2.5, 8)]}
OUTPUTS = {"x_end": "final:joint.slide.q", "v_end": "final:joint.slide.v",
           "switches": "count:events.slot", "first_switch": "first:events.slot"}
COMPARED = list(OUTPUTS) + ["t_reached"]


def log(message):
    print(message, file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------- the machine

CLOCK = os.sysconf("SC_CLK_TCK")


def machine_busy():
    """(CPU seconds every process on the machine has used since boot: user, nice, system,
    irq, softirq of /proc/stat; CPU seconds the hypervisor took from this VM: steal)."""
    with open("/proc/stat") as fh:
        fields = [int(x) for x in fh.readline().split()[1:9]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields
    return (user + nice + system + irq + softirq) / CLOCK, steal / CLOCK


def ours():
    """CPU seconds used by this process and its children (reaped ones and live ones: the
    local pool's workers, the Dask nannies' workers)."""
    import psutil
    t = os.times()
    total = t.user + t.system + t.children_user + t.children_system
    for child in psutil.Process().children(recursive=True):
        try:
            c = child.cpu_times()
        except psutil.Error:
            continue
        total += c.user + c.system + c.children_user + c.children_system
    return total


class Others:
    """The mean number of cores other processes kept busy between start() and stop(), and
    the mean number the hypervisor stole (cores)."""

    def start(self):
        (self.busy, self.steal), self.ours = machine_busy(), ours()
        self.t = time.perf_counter()
        return self

    def stop(self):
        span = time.perf_counter() - self.t
        (busy, steal), mine = machine_busy(), ours()
        return (max(0.0, (busy - self.busy) - (mine - self.ours)) / span,
                (steal - self.steal) / span)


QUIET, QUIET_WAIT = 0.1, 180.0     # cores, s


def wait_quiet():
    """Wait (at most QUIET_WAIT s) until other processes use less than QUIET cores over a
    second; returns the seconds waited."""
    started = time.perf_counter()
    while True:
        meter = Others().start()
        time.sleep(1.0)
        load = sum(meter.stop())
        waited = time.perf_counter() - started
        if load < QUIET:
            return waited
        if waited > QUIET_WAIT:
            log(f"  the machine is not quiet ({load:.2f} cores used by others); going on")
            return waited


# ----------------------------------------------------------------------------- the serial loop

def by_hand(result):
    """The outputs of OUTPUTS, read off a Result as a user's loop would."""
    slide = result.joint("slide")
    switches = [e.t for e in result.events if e.element == "slot"]
    return {"x_end": float(slide.q[-1]), "v_end": float(slide.v[-1]),
            "switches": float(len(switches)),
            "first_switch": float(switches[0]) if switches else float("nan"),
            "t_reached": float(result.t[-1])}


def serial(module, cases, options):
    """The cases in a plain loop here: (wall s, [outputs per case], [wall s per run])."""
    names = [study_cases.parameter_name(n) for n in GRID]
    rows, walls = [], []
    started = time.perf_counter()
    for values in cases:
        t0 = time.perf_counter()
        model = module.build_model()
        for (element, param), value in zip(names, values):
            scripts.apply_override(model, element, param, value, f"{element}.{param}")
        result = model.build().simulate(T_END, **options)
        rows.append(by_hand(result))
        walls.append(time.perf_counter() - t0)
    return time.perf_counter() - started, rows, walls


# ----------------------------------------------------------------------------- the sweeps

def timed_sweep(scheduler, workers=None):
    """(wall s of the call, the DataFrame)."""
    started = time.perf_counter()
    frame = mbd.sweep(MODEL, GRID, t_end=T_END, outputs=OUTPUTS, scheduler=scheduler,
                      workers=workers, progress=False)
    wall = time.perf_counter() - started
    if frame.attrs["failed"] or frame.attrs["ran"] != len(frame):
        raise RuntimeError(f"sweep: {frame.attrs}; statuses {sorted(set(frame['status']))}")
    return wall, frame


def same(frame, reference, cases):
    """Assert the frame's parameters are the cases and its outputs equal ``reference``
    ([dict] per case) exactly (nan equal to nan)."""
    params = [tuple(frame[n].iloc[i] for n in GRID) for i in range(len(frame))]
    assert params == list(cases), "the sweep's cases are not the loop's, or not in its order"
    for column in COMPARED:
        mine = np.array([r[column] for r in reference])
        theirs = frame[column].to_numpy(dtype=float)
        assert np.array_equal(mine, theirs, equal_nan=True), \
            f"{column}: {np.count_nonzero(mine != theirs)} runs differ from the serial loop"


class Way:
    """The repeats of one way of running the study."""

    def __init__(self, label):
        self.label = label
        self.walls, self.prepares, self.run_walls = [], [], []   # per repeat
        self.others, self.paired = [], []    # and the serial loop's wall just before

    def add(self, wall, prepare, run_walls, others, paired=None):
        self.others.append(others)
        self.paired.append(wall if paired is None else paired)
        self.walls.append(wall)
        self.prepares.append(prepare)
        self.run_walls.append(list(run_walls))

    @property
    def wall(self):
        return statistics.median(self.walls)

    def speedup(self):
        """The median over repeats of the serial loop's wall (the run just before) over this
        way's wall."""
        return statistics.median(p / w for p, w in zip(self.paired, self.walls))

    def per_run(self):
        """Median of every run's own wall s, over all repeats."""
        return statistics.median(w for ws in self.run_walls for w in ws)

    def overhead(self, workers):
        """The median over repeats of (workers x wall - sum of the runs' walls) / runs: the
        time per run that the workers' capacity is not spent inside runs, s."""
        return statistics.median((workers * w - sum(ws)) / len(ws)
                                 for w, ws in zip(self.walls, self.run_walls))


# ----------------------------------------------------------------------------- the benchmark

def main(repeats=5):
    """Run everything; returns the markdown section."""
    t_start = time.perf_counter()
    module = scripts.load_script(MODEL)
    script_t_end, options = scripts.run_settings(module)
    names, cases = study_cases.cases(GRID)
    assert list(cases) == list(itertools.product(*GRID.values()))
    runs = len(cases)

    log("warm-up run (compiles or loads the kernels)")
    t0 = time.perf_counter()
    serial(module, cases[:1], options)
    warmup_s = time.perf_counter() - t0

    # a force output, for the notes: Result.force recomputes the element row by row
    result = module.build_model().build().simulate(T_END, **options)
    t0 = time.perf_counter()
    _ = result.force("slot").value
    force_s = time.perf_counter() - t0
    rows_out = len(result.t)

    loop, local, dask = Way("serial loop, this process"), \
        Way(f"mbd.sweep, {WORKERS} local worker processes"), \
        Way(f"mbd.sweep, Dask LocalCluster, {WORKERS} workers")
    reference = []
    methods = set()
    waited = 0.0

    def time_serial(r):
        """One serial loop, added to ``loop``; returns its wall s."""
        nonlocal waited
        log(f"serial loop {r + 1}/{2 * repeats}")
        waited += wait_quiet()
        meter = Others().start()
        wall, rows, walls = serial(module, cases, options)
        loop.add(wall, 0.0, walls, meter.stop())
        if not reference:
            reference[:] = rows
        for c in COMPARED:
            assert np.array_equal([a[c] for a in rows], [b[c] for b in reference],
                                  equal_nan=True), "the serial loop is not repeatable"
        return wall

    for r in range(repeats):
        paired = time_serial(r)
        methods.add(study._start_method().get_start_method())
        log(f"repeat {r + 1}/{repeats}: local sweep ({', '.join(methods)} workers)")
        waited += wait_quiet()
        meter = Others().start()
        wall, frame = timed_sweep(None, WORKERS)
        local.add(wall, frame.attrs["prepare_s"], frame["wall_s"], meter.stop(), paired)
        same(frame, reference, cases)

    from dask import distributed
    log("starting the LocalCluster")
    waited += wait_quiet()
    t0 = time.perf_counter()
    cluster = distributed.LocalCluster(n_workers=WORKERS, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    client = distributed.Client(cluster)
    client.wait_for_workers(WORKERS)
    cluster_s = time.perf_counter() - t0
    try:
        for r in range(repeats):
            paired = time_serial(repeats + r)
            log(f"repeat {r + 1}/{repeats}: Dask sweep")
            waited += wait_quiet()
            meter = Others().start()
            wall, frame = timed_sweep(client)
            dask.add(wall, frame.attrs["prepare_s"], frame["wall_s"], meter.stop(), paired)
            same(frame, reference, cases)
        spawn_method = study._start_method().get_start_method()
        log(f"one local sweep with the client open ({spawn_method} workers)")
        waited += wait_quiet()
        meter = Others().start()
        spawn_wall, frame = timed_sweep(None, WORKERS)
        spawn_others = meter.stop()
        same(frame, reference, cases)
        spawn_runs = frame["wall_s"].to_numpy()
        spawn_prepare = frame.attrs["prepare_s"]
    finally:
        client.close()
        cluster.close()

    # ------------------------------------------------------------------- the section
    out = []
    w = out.append
    w("# Parameter sweeps: throughput of mbd.sweep (issue 14)")
    w("")
    w(f"Not part of `benchmarks/run.py`'s run: `python benchmarks/sweep.py` "
      f"(--repeats {repeats}), {time.strftime('%Y-%m-%d')}; {platform.machine()}, "
      f"{os.cpu_count()} cores, Python {platform.python_version()}, numba "
      f"{_version('numba')}, dask {_version('dask')}, distributed {_version('distributed')}, "
      f"pandas {_version('pandas')}.")
    w("")
    w(f"The study: `examples/bistop_slot.py` to t = {T_END:g} s (the script's T_END; its "
      f"output step {options.get('output_step'):g} s, rtol = atol = {options.get('rtol'):g}: "
      f"{rows_out} output rows a run), {len(GRID['slot.k'])} x {len(GRID['slot.e'])} grid of "
      f"slot.k = {GRID['slot.k'][0]:.0e} ... {GRID['slot.k'][-1]:.0e} (log-spaced) x slot.e = "
      f"{GRID['slot.e'][0]:g} ... {GRID['slot.e'][-1]:g}, {runs} runs; outputs "
      f"{', '.join(f'`{s}`' for s in OUTPUTS.values())}.")
    w("")
    w("| way | wall s (median) | runs / s | speed-up | efficiency | prepare s | "
      "start-up s, not counted | run wall_s (median) | overhead / run | walls of the repeats | "
      "others' load / steal, cores |")
    w("|---|---|---|---|---|---|---|---|---|---|---|")
    for way, workers, start in ((loop, 1, ""), (local, WORKERS, ""),
                                (dask, WORKERS, f"{cluster_s:.2f} (the cluster)")):
        speedup = way.speedup()
        prep = "" if way is loop else \
            f"{statistics.median(way.prepares):.2f} (first {way.prepares[0]:.2f})"
        w(f"| {way.label} | {way.wall:.2f} | {runs / way.wall:.1f} | {speedup:.2f} | "
          f"{speedup / workers:.2f} | {prep} | {start} | {1e3 * way.per_run():.0f} ms | "
          f"{1e3 * way.overhead(workers):.0f} ms | "
          f"{', '.join(f'{x:.2f}' for x in way.walls)} | "
          f"{', '.join(f'{x:.2f}/{y:.2f}' for x, y in way.others)} |")
    w("")
    w("- Wall: the whole 64-run study, median of the repeats (listed in the last column). "
      "Serial: the loop of build_model(), apply_override, build(), simulate() and the outputs "
      f"by hand, after one warm-up run ({warmup_s:.1f} s: compiling the kernels or loading them "
      "from numba's cache; no compilation is counted). Local: the whole `mbd.sweep` call, with "
      f"{'/'.join(sorted(methods))}ed workers (this process runs one thread then). "
      "Dask: the whole `mbd.sweep` call on a client of a LocalCluster started before "
      "(its start-up in its own column).")
    spread = (max(loop.walls) - min(loop.walls)) / min(loop.walls)
    w(f"- Speed-up: the median over the repeats of the serial loop's wall, timed just before "
      f"(each parallel repeat has its own: {2 * repeats} serial loops in all, the first "
      f"{repeats} before the cluster starts, the others with it idle), over the repeat's "
      f"wall; efficiency = speed-up / {WORKERS} workers (1: perfect). Paired because the "
      f"machine's speed drifts: the serial loop's wall varied by {100 * spread:.0f}% over "
      f"its repeats with no other load and no steal. Runs / s = {runs} / median wall.")
    w("- Prepare: `attrs[\"prepare_s\"]`, inside the wall. Local: the kernels made ready in "
      "this process before the workers start (already loaded by the serial loop here). Dask: "
      "both workers made ready one after the other (client.run); on a fresh cluster this is "
      "importing mbd and loading the kernels from the cache (the first repeat), later a "
      "re-check in workers that have them.")
    w(f"- Run wall_s: the median of every run's own `wall_s` column (build and simulate in "
      f"the worker; for the loop, each iteration), all repeats. Overhead / run = "
      f"(workers x wall - sum of the runs' wall_s) / {runs}: the worker time per run not "
      "spent inside a run (dispatch, start-up, preparation, results coming back, the idle "
      "tail of the last runs).")
    w(f"- The machine has {os.cpu_count()} cores in all: the {WORKERS} workers share them with "
      "this process (which gathers the results; for Dask it also runs the scheduler and the "
      "nannies, which exchange heartbeats with the workers), so the efficiency cannot quite "
      f"reach 1. A run's own wall_s (median): {1e3 * loop.per_run():.0f} ms in the loop, "
      f"{1e3 * local.per_run():.0f} ms in a local worker ({local.per_run() / loop.per_run():.2f}x), "
      f"{1e3 * dask.per_run():.0f} ms in a Dask worker ({dask.per_run() / loop.per_run():.2f}x).")
    worst = max(sum(o) for way in (loop, local, dask) for o in way.others)
    w(f"- Others' load / steal: the mean number of cores that processes other than this "
      f"benchmark's kept busy during each repeat (/proc/stat less this process tree's CPU "
      f"time), and that the hypervisor stole from this VM (/proc/stat steal). Every timed "
      f"piece waits first for a quiet machine (both together below {QUIET:g} core over 1 s, "
      f"at most {QUIET_WAIT:.0f} s; {waited:.0f} s waited in all); the worst repeat had "
      f"{worst:.2f} cores used by others or stolen"
      + (" (the numbers are clean)." if worst < 0.1 else
         ": the walls of those repeats are inflated, trust the medians less."))
    w(f"- Outputs: the local and the Dask tables equal the serial loop's outputs "
      f"({', '.join(COMPARED)}) exactly (==, bit for bit), in every repeat (asserted).")
    w(f"- A local sweep in a process with threads (here: with the Dask client open; also a "
      f"Jupyter kernel) gets {spawn_method}ed workers: one such sweep took "
      f"{spawn_wall:.2f} s ({runs / spawn_wall:.1f} runs/s, prepare {spawn_prepare:.2f} s, "
      f"others' load / steal {spawn_others[0]:.2f}/{spawn_others[1]:.2f} cores; against "
      f"{local.wall:.2f} s with forked workers); "
      f"each fresh worker loads mbd and the kernels in its first run (the slowest run "
      f"{spawn_runs.max():.2f} s, median {1e3 * np.median(spawn_runs):.0f} ms).")
    w(f"- A force output (e.g. `absmax:force.slot.value`) is not used: `Result.force` "
      f"recomputes the element's force row by row in Python, {force_s:.2f} s for this run's "
      f"{rows_out} rows, several times the run itself.")
    w("")
    w(f"Total run time {time.perf_counter() - t_start:.0f} s.")
    return "\n".join(out) + "\n"


def _version(name):
    import importlib.metadata
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "(not installed)"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                      "SWEEP.md"))
    args = parser.parse_args()
    text = main(args.repeats)
    print(text)
    with atomic_open(args.out) as fh:
        fh.write(text)
