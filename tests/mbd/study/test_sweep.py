"""mbd.sweep (SPEC §7, issue 14): many runs of one model, on local worker processes or a Dask
cluster, tabulated, resumable.

The reference throughout is a plain loop written here, independent of :mod:`mbd.study.sweeps`: the
model from the script's ``build_model()``, the case's overrides applied with
:func:`mbd.study.scripts.apply_override`, ``build()``, ``simulate(t_end, **options)`` with the
script's settings (:func:`mbd.study.scripts.run_settings`) under the explicit options, and every
output computed from the Result by numpy here. A sweep must give the loop's numbers bit for bit
(``==``, not approx) — on a fork pool, a spawn pool and a 2-worker
``dask.distributed.LocalCluster`` — and its saved ``runs/<run>.npz`` must hold the loop's
t, q, v exactly. Models: ``examples/bistop_slot.py`` (runs of 1 s, a ~0.3 s each) and
``sweep_models/driven_strap.py`` (a cart driven onto a strap's anchor: a run that fails when
the strap's natural length is not zero, SPEC §3.1).
"""
import csv
import functools
import json
import logging
import math
import multiprocessing
import os
import pathlib
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import mbd
from mbd.study import scripts
from mbd.study import sweeps as study

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]
SLOT = str(ROOT / "examples" / "bistop_slot.py")
DRIVEN = str(HERE / "sweep_models" / "driven_strap.py")

#: the bistop runs: 1 s (one impact on x2 at t = 0.75 s), a 2 x 2 grid over the stop
T_END = 1.0
GRID = {"slot.k": [1e7, 2e7], "slot.e": [2.0, 2.1]}


def rebound_speed(result):
    """A picklable output function: the block's speed at the end of the run, m/s."""
    return abs(result.joint("slide").v[-1])


OUTPUTS = {"peak": "absmax:force.slot.value", "x_mean": "mean:joint.slide.q",
           "v_end": "final:joint.slide.v", "x_min": "min:body.block.cg.x",
           "e_max": "max:energy", "first": "first:events.slot",
           "switches": "count:events.slot", "speed": rebound_speed}


def expected_outputs(r):
    """The values of OUTPUTS for the Result ``r``, computed here from its arrays."""
    slot = [e.t for e in r.events if e.element == "slot"]
    q = r.joint("slide").q
    return {"peak": float(np.max(np.abs(r.force("slot").value))),
            "x_mean": float(np.trapezoid(q, r.t) / (r.t[-1] - r.t[0])),
            "v_end": float(r.joint("slide").v[-1]),
            "x_min": float(np.min(r.body("block").position("cg")[:, 0])),
            "e_max": float(np.max(r.energy())),
            "first": float(slot[0]) if slot else math.nan,
            "switches": float(len(slot)),
            "speed": float(abs(r.joint("slide").v[-1]))}


# ----------------------------------------------------------------------------- the plain loop

@functools.lru_cache(maxsize=None)
def script(path):
    return scripts.load_script(path)


def loop_run(path, case, t_end=None, **options):
    """One run of the plain loop: (result, error); error is the SimulationError of a run that
    failed (result then its partial result), else None."""
    module = script(path)
    script_t_end, settings = scripts.run_settings(module)
    model = module.build_model()
    for name, value in case.items():
        element, _, param = name.rpartition(".")
        scripts.apply_override(model, element, param, float(value), f"loop: {name}")
    system = model.build()
    try:
        return system.simulate(script_t_end if t_end is None else t_end,
                               **dict(settings, **options)), None
    except mbd.SimulationError as err:
        return err.result, err


@pytest.fixture(scope="module")
def grid_loop():
    """The loop's Result of every case of GRID, in full-factorial order (first name slowest)."""
    return [(dict(zip(GRID, pair)), loop_run(SLOT, dict(zip(GRID, pair)), T_END)[0])
            for pair in [(k, e) for k in GRID["slot.k"] for e in GRID["slot.e"]]]


def same(a, b):
    """a == b, nan == nan (an output of a run without events)."""
    return (math.isnan(a) and math.isnan(b)) or a == b


def assert_npz_is(out, row, result):
    """The run's saved result holds exactly the loop's t, q, v, and every column of its CSV
    under the column's name (no column order to know)."""
    assert row["result"] == f"runs/{row['run']}.npz"
    names, table = result.columns()
    with np.load(out / row["result"]) as saved:      # every key but "events" without pickle
        assert np.array_equal(saved["t"], result.t)
        assert np.array_equal(saved["q"], result.q)
        assert np.array_equal(saved["v"], result.v)
        assert list(saved["columns"]) == names
        for k, name in enumerate(names):
            assert np.array_equal(saved[name], table[:, k]), name
        joint = next(iter(result.system.joints))
        assert np.array_equal(saved[f"{joint}.q"], result.joint(joint).q)
        assert list(saved["event_element"]) == [e.element for e in result.events]


def assert_table_is_the_loop(table, out, loop):
    """Row k of ``table`` is case k of ``loop`` [(case, result)]: its parameters, "ok", every
    output equal to the one computed here, t_reached = T_END, its npz the loop's arrays."""
    assert len(table) == len(loop)
    assert list(table.columns[:len(GRID)]) == list(GRID)
    for (_, row), (case, r) in zip(table.iterrows(), loop):
        assert {n: row[n] for n in case} == case
        assert row["status"] == "ok"
        expected = expected_outputs(r)
        for column in OUTPUTS:
            assert same(row[column], expected[column]), (case, column, row[column],
                                                         expected[column])
        assert row["t_reached"] == T_END == r.t[-1]
        assert_npz_is(out, row, r)


def rows_on_disk(out):
    path = out / "sweep.csv"
    if not path.is_file():
        return []
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def no_results(out):
    """Nothing of a run in ``out``: no table, no run file."""
    return not (out / "sweep.csv").exists() and not list(out.glob("runs/*.npz"))


# ----------------------------------------------------------------------------- 1. bit for bit

def start_method(name):
    return lambda: multiprocessing.get_context(name)


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_local_processes_give_the_plain_loop_bit_for_bit(tmp_path, monkeypatch, grid_loop,
                                                         method):
    """scheduler=None, workers=2, on a pool that forks (the kernels inherited) and one that
    spawns (the kernels loaded from numba's cache; what a process with threads gets): every
    output of every run == the plain loop's, and each runs/<run>.npz holds the loop's t, q, v
    exactly. Reference: the loop above."""
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} start method on this platform")
    monkeypatch.setattr(study, "_start_method", start_method(method))
    out = tmp_path / "study"
    table = mbd.sweep(SLOT, GRID, T_END, outputs=OUTPUTS, scheduler=None, out=out, workers=2,
                      progress=False)
    assert_table_is_the_loop(table, out, grid_loop)
    assert table.attrs["ran"] == 4 and table.attrs["failed"] == 0


# ----------------------------------------------------------------------------- 2. given cases

def test_given_cases_are_run_as_given_like_a_grid(tmp_path):
    """Monte-Carlo samples of the stop (a seeded numpy Generator) as a list of dicts: one row
    per case in the given order, each == the plain loop's run of that case (outputs and npz).
    Reference: the loop."""
    rng = np.random.default_rng(14)
    cases = [{"slot.k": float(k), "slot.e": float(e)}
             for k, e in zip(1e7 * (1.0 + 0.2 * rng.standard_normal(3)),
                             rng.uniform(1.9, 2.2, 3))]
    out = tmp_path / "mc"
    table = mbd.sweep(SLOT, cases, T_END, outputs=OUTPUTS, out=out, workers=2, progress=False)
    assert list(table.columns[:2]) == ["slot.k", "slot.e"]
    loop = [(case, loop_run(SLOT, case, T_END)[0]) for case in cases]
    assert_table_is_the_loop(table, out, loop)


def test_a_grid_is_full_factorial_the_first_name_varying_slowest(tmp_path):
    """{"slide.v0": [6, -3], "slide.q0": [5, 4, 6]} (neither name nor values sorted): six rows,
    v0 slowest, the values in the order given; each row's final x == the loop's, and is
    q0 + v0 t_end (no contact within 0.1 s) to 1e-12. Reference: the loop, and free sliding."""
    grid = {"slide.v0": [6.0, -3.0], "slide.q0": [5.0, 4.0, 6.0]}
    table = mbd.sweep(SLOT, grid, 0.1, outputs={"x_end": "final:joint.slide.q"}, workers=2,
                      progress=False)
    pairs = [(6.0, 5.0), (6.0, 4.0), (6.0, 6.0), (-3.0, 5.0), (-3.0, 4.0), (-3.0, 6.0)]
    assert list(table.columns[:2]) == ["slide.v0", "slide.q0"]
    assert list(zip(table["slide.v0"], table["slide.q0"])) == pairs
    for (v0, q0), x_end in zip(pairs, table["x_end"]):
        r, _ = loop_run(SLOT, {"slide.v0": v0, "slide.q0": q0}, 0.1)
        assert x_end == r.joint("slide").q[-1]
        assert abs(x_end - (q0 + 0.1 * v0)) < 1e-12


# ----------------------------------------------------------------------------- 3. a failed run

FAILING = [{"strap.k": 10.0, "strap.r0": 0.0}, {"strap.k": 10.0, "strap.r0": 0.1},
           {"strap.k": 20.0, "strap.r0": 0.0}]
STRAP = {"f_max": "max:force.strap.value", "x_end": "final:joint.rail.q"}


def test_a_failed_run_is_recorded_with_its_error_and_partial_result(tmp_path):
    """The cart is driven onto the strap's anchor and held there at rest (driven_strap.py):
    with r0 = 0.1 the strap's direction is undefined there (SPEC §3.1) and that run stops with
    a SimulationError; the other two (r0 = 0) finish. The failed row's status is the loop's
    error message (it names the strap and the time), its outputs are nan, its partial result
    is saved and holds the loop's partial t, q, v exactly, and it reached less than T_END; the
    others are "ok" with the loop's outputs; attrs["failed"] == 1. t_end is the script's
    T_END. Reference: the loop (err.result) and the script's settings."""
    out = tmp_path / "fails"
    table = mbd.sweep(DRIVEN, FAILING, outputs=STRAP, out=out, workers=2, progress=False)
    t_end, _ = scripts.run_settings(script(DRIVEN))
    assert table.attrs["failed"] == 1 and table.attrs["ran"] == 3
    for (_, row), case in zip(table.iterrows(), FAILING):
        r, err = loop_run(DRIVEN, case)
        assert {n: row[n] for n in case} == case
        assert_npz_is(out, row, r)
        if case["strap.r0"] == 0.1:
            assert err is not None
            assert row["status"] == f"SimulationError: {err}"
            assert "BodySpringDamper 'strap'" in row["status"]
            assert f"the direction of its load is undefined at t = {err.t:.9g} s" in row["status"]
            assert all(math.isnan(row[c]) for c in STRAP)
            assert r.t[-1] <= row["t_reached"] <= err.t < t_end
        else:
            assert err is None and row["status"] == "ok"
            assert row["f_max"] == float(np.max(np.linalg.norm(r.force("strap").value, axis=1)))
            assert row["x_end"] == float(r.joint("rail").q[-1])
            assert row["t_reached"] == t_end == r.t[-1]
    # the failed run is a run done: the same sweep again runs nothing
    again = mbd.sweep(DRIVEN, FAILING, outputs=STRAP, out=out, workers=2, progress=False)
    assert (again.attrs["ran"], again.attrs["reused"], again.attrs["failed"]) == (0, 3, 1)
    assert list(again["status"]) == list(table["status"])
    # retry_failed: only the failed case runs again, and fails the same way
    retried = mbd.sweep(DRIVEN, FAILING, outputs=STRAP, out=out, workers=2, progress=False,
                        retry_failed=True)
    assert (retried.attrs["ran"], retried.attrs["reused"], retried.attrs["failed"]) == (1, 2, 1)
    assert list(retried["status"]) == list(table["status"])


# ----------------------------------------------------------------------------- 4. resume

#: 8 runs of 1.5 s of the bistop slot, one at a time (each ~0.5 s of wall time)
SLOW_GRID = {"slot.k": [1e7, 1.5e7, 2e7, 3e7], "slot.e": [2.0, 2.1]}
SLOW_T_END = 1.5
SLOW_OUTPUTS = {"peak": "absmax:force.slot.value", "first": "first:events.slot",
                "x_mean": "mean:joint.slide.q"}
SWEEP_IN_A_CHILD = """
import json, pathlib, sys, time
import mbd
from mbd.study import sweeps
a = json.loads(sys.argv[1])
collect = sweeps._Collector.__call__


def collect_then_hold(self, report):
    # the test's hook: after the second finished run, the table on disk, a mark that says so,
    # and no further run until the test kills the process
    collect(self, report)
    if self.done == 2:
        self.table.write(self.keys)
        pathlib.Path(a["ready"]).write_text("2")
        time.sleep(600)


sweeps._Collector.__call__ = collect_then_hold
mbd.sweep(a["model"], a["grid"], a["t_end"], outputs=a["outputs"], out=a["out"], workers=1,
          progress=False)
"""


def test_an_interrupted_sweep_resumes_running_only_the_missing_runs(tmp_path):
    """A sweep of 8 runs in a child process (workers=1), killed (SIGKILL to its process group)
    once sweep.csv holds 2 of them (the child says so, then waits: no race with its runs); the
    same sweep again into the same out reuses exactly the rows that were on disk
    (attrs["reused"]), runs the rest (attrs["ran"]), leaves the earlier runs' npz files
    untouched (st_mtime_ns), and its table == a fresh sweep into another folder in every
    parameter and output column. Reference: the fresh sweep."""
    out = tmp_path / "interrupted"
    ready = tmp_path / "two runs on disk"
    args = dict(model=SLOT, grid=SLOW_GRID, t_end=SLOW_T_END, outputs=SLOW_OUTPUTS, out=str(out),
                ready=str(ready))
    child = subprocess.Popen([sys.executable, "-c", SWEEP_IN_A_CHILD, json.dumps(args)],
                             cwd=ROOT, start_new_session=True, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
    total = len(SLOW_GRID["slot.k"]) * len(SLOW_GRID["slot.e"])
    deadline = time.monotonic() + 300.0
    try:
        while not ready.exists():
            if child.poll() is not None:
                pytest.fail(f"the sweep in the child process ended (status {child.returncode}) "
                            "before its second run was on disk; stderr: "
                            f"{child.stderr.read().decode()[-2000:]}")
            if time.monotonic() > deadline:
                pytest.fail(f"no 2 rows in {out / 'sweep.csv'} after 300 s")
            time.sleep(0.01)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()
        child.stderr.close()
    assert child.returncode == -signal.SIGKILL, "the child finished before it was killed"
    before = rows_on_disk(out)         # as the kill left it
    assert len(before) == 2 < total
    mtimes = {row["run"]: (out / row["result"]).stat().st_mtime_ns for row in before}

    resumed = mbd.sweep(SLOT, SLOW_GRID, SLOW_T_END, outputs=SLOW_OUTPUTS, out=out, workers=2,
                        progress=False)
    assert resumed.attrs["reused"] == len(before)
    assert resumed.attrs["ran"] == total - len(before)
    assert {row["run"]: (out / row["result"]).stat().st_mtime_ns for row in before} == mtimes
    fresh = mbd.sweep(SLOT, SLOW_GRID, SLOW_T_END, outputs=SLOW_OUTPUTS, out=tmp_path / "fresh",
                      workers=2, progress=False)
    assert (fresh.attrs["ran"], fresh.attrs["reused"]) == (total, 0)
    for column in [*SLOW_GRID, "run", "status", *SLOW_OUTPUTS, "t_reached", "result"]:
        assert list(resumed[column]) == list(fresh[column]), column
    assert len(rows_on_disk(out)) == total


# ----------------------------------------------------------------------------- 5. bad input

BAD = [
    pytest.param({"nothing.k": [1e7]}, None,
                 ["nothing.k", "no body, joint or force element named 'nothing'",
                  "block, slide, slot"], id="unknown-element"),
    pytest.param({"slot.kk": [1e7]}, None,
                 ["slot.kk", "the Bistop law of 'slot' has no parameter 'kk'",
                  "x1, x2, k, e, cmax, d"], id="unknown-law-parameter"),
    pytest.param({"slide.x0": [1.0]}, None,
                 ["slide.x0", "joint 'slide' has no settable parameter 'x0'", "q0, v0"],
                 id="unknown-joint-parameter"),
    pytest.param({"slotk": [1e7]}, None, ["'slotk' is not NAME.PARAM"], id="no-dot"),
    pytest.param({"slot.k": [1e7, "abc"]}, None,
                 ["slot.k", "a value must be a real number, got 'abc'"], id="not-a-number"),
    pytest.param({"slot.k": [1e7, True]}, None,
                 ["slot.k", "a value must be a real number, got True"], id="bool"),
    pytest.param({"slot.k": [1e7, float("nan")]}, None,
                 ["slot.k", "a value must be finite, got nan"], id="nan"),
    pytest.param({"slot.k": [1e7, -1.0]}, None,
                 ["slot.k = -1.0", "k must be >= 0", "-1.0"], id="negative-stiffness"),
    pytest.param({"block.mass": [1.0, -2.0]}, None,
                 ["block.mass = -2.0", "mass must be one number > 0"], id="negative-mass"),
    pytest.param({"slot.k": []}, None, ["'slot.k'", "no values"], id="empty-values"),
    pytest.param({"slot.k": [1e7, 1e7]}, None, ["two cases have the same parameters"],
                 id="repeated-value"),
    pytest.param([{"slot.k": 1e7}, {"slot.e": 2.0}], None,
                 ["case 1", "every case must set the same parameters", "slot.e, slot.k"],
                 id="cases-with-different-keys"),
    pytest.param({"slot.k": [1e7]}, {"peak": "top:force.slot.value"},
                 ["'peak'", "unknown reduction 'top'"], id="unknown-reduction"),
    pytest.param({"slot.k": [1e7]}, {"peak": "max:torque.slot"},
                 ["'peak'", "unknown quantity 'torque.slot'"], id="unknown-quantity"),
    pytest.param({"slot.k": [1e7]}, {"peak": "max:force.gap.value"},
                 ["'peak'", "no force element 'gap'", "slot"], id="unknown-force-element"),
    pytest.param({"slot.k": [1e7]}, {"x": "final:joint.hinge.q"},
                 ["'x'", "no joint 'hinge'", "slide"], id="unknown-joint"),
    pytest.param({"slot.k": [1e7]}, {"n": "count:events.gap"},
                 ["'n'", "no element 'gap'"], id="unknown-event-element"),
    pytest.param({"slot.k": [1e7]}, {"n": "max:events.slot"},
                 ["'n'", "'count:' or 'first:'"], id="events-without-count-or-first"),
]


@pytest.mark.parametrize("grid, outputs, words", BAD)
def test_bad_grids_and_outputs_are_named_before_any_run(tmp_path, grid, outputs, words):
    """Each bad grid or output is an mbd.InputError whose message names the offender (and,
    where there is a list to choose from, the valid names), raised before any run: the out
    folder holds no table and no run file. Reference: the grid and the model's names."""
    out = tmp_path / "study"
    with pytest.raises(mbd.InputError) as caught:
        mbd.sweep(SLOT, grid, T_END, outputs=outputs or {"peak": "absmax:force.slot.value"},
                  out=out, workers=2, progress=False)
    for word in words:
        assert word in str(caught.value)
    assert no_results(out)


def test_body_cs_outputs_read_the_cs_and_an_unknown_cs_is_named(tmp_path):
    """"max:body.block.I.x" (a CS of the body, SPEC §7) == the loop's
    max(body("block").position("I")[:, 0]); "max:body.block.K.x" names the missing CS 'K' in
    an InputError before any run. Reference: the loop."""
    r, _ = loop_run(SLOT, {"slot.k": 1e7}, 0.2)
    table = mbd.sweep(SLOT, {"slot.k": [1e7]}, 0.2, outputs={"x": "max:body.block.I.x"},
                      workers=1, progress=False)
    assert table["x"][0] == float(np.max(r.body("block").position("I")[:, 0]))
    out = tmp_path / "study"
    with pytest.raises(mbd.InputError, match="body 'block' has no CS 'K'"):
        mbd.sweep(SLOT, {"slot.k": [1e7]}, 0.2, outputs={"x": "max:body.block.K.x"}, out=out,
                  workers=1, progress=False)
    assert no_results(out)


def test_a_model_function_that_cannot_be_pickled_is_refused_before_any_run(tmp_path):
    """A lambda cannot reach a worker process: TypeError naming it, before any run."""
    out = tmp_path / "study"
    with pytest.raises(TypeError, match="cannot be sent to worker processes"):
        mbd.sweep(lambda: script(SLOT).build_model(), {"slot.k": [1e7]}, 0.1, out=out)
    assert not out.exists()


# ----------------------------------------------------------------------------- 6. another study

@pytest.mark.parametrize("change, differs", [
    (dict(t_end=0.2), "t_end"),
    (dict(outputs={"v_end": "final:joint.slide.v"}), "outputs"),
    (dict(grid={"slot.e": [2.0]}), "parameters"),
    (dict(rtol=1e-8), "options"),
])
def test_an_out_folder_holding_another_study_is_refused(tmp_path, change, differs):
    """A sweep into a folder that holds a study of another t_end, other outputs, other
    parameters or other options is an InputError naming the folder and what differs, and
    leaves that study's table and run files as they were. Reference: the first study."""
    out = tmp_path / "study"
    first = dict(grid={"slot.k": [1e7]}, t_end=0.1, outputs={"peak": "absmax:force.slot.value"})
    mbd.sweep(SLOT, out=out, workers=1, progress=False, **first)
    files = sorted(p for p in out.rglob("*") if p.is_file())
    stamps = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in files}
    with pytest.raises(mbd.InputError) as caught:
        mbd.sweep(SLOT, out=out, workers=1, progress=False, **dict(first, **change))
    message = str(caught.value)
    assert str(out) in message and "holds another study" in message
    assert f"differs in: {differs})" in message
    assert sorted(p for p in out.rglob("*") if p.is_file()) == files
    assert {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in files} == stamps


def test_an_out_folder_of_the_same_script_path_with_other_text_is_refused(tmp_path):
    """The study's model is its script's text, not only its path: the same path edited
    between two sweeps into one out is an InputError naming model_text, and the first
    study's table is left as it was. Reference: the first study."""
    path = tmp_path / "slot.py"
    path.write_text(pathlib.Path(SLOT).read_text())
    out = tmp_path / "study"
    args = dict(grid={"slot.k": [1e7]}, t_end=0.1, outputs={"peak": "absmax:force.slot.value"},
                out=out, workers=1, progress=False)
    mbd.sweep(str(path), **args)
    table = (out / "sweep.csv").read_bytes()
    edited = pathlib.Path(SLOT).read_text().replace("MASS, X0, V0 = 1.0, 5.0, 6.0",
                                                    "MASS, X0, V0 = 2.0, 5.0, 6.0")
    assert edited != path.read_text()
    path.write_text(edited)
    with pytest.raises(mbd.InputError, match=r"holds another study \(it differs in: "
                                             r"model_text\)"):
        mbd.sweep(str(path), **args)
    assert (out / "sweep.csv").read_bytes() == table


# ----------------------------------------------------------------------------- git ignores it

def git_status(repo):
    """``git status --porcelain --untracked-files=all`` of ``repo``: one line per path git
    would show."""
    done = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=repo,
                          capture_output=True, text=True, check=True)
    return done.stdout.splitlines()


def test_a_study_folder_the_sweep_makes_is_ignored_by_git(tmp_path):
    """A sweep into a folder it makes (two levels down, inside a git checkout) writes
    ``.gitignore`` = ``*`` there, and ``git status`` stays clean; a sweep into a folder the user
    made is left without one (theirs to track) and shows. Reference: git itself (CI has it:
    no skip). The runs' outputs are the free flight's x = X0 + v0 t (no stop reached)."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    out = tmp_path / "made" / "study"
    table = mbd.sweep(SLOT, {"slide.v0": [1.0]}, 0.05, outputs={"x": "final:joint.slide.q"},
                      out=out, workers=1, progress=False)
    assert list(table["status"]) == ["ok"]
    assert table["x"].iloc[0] == pytest.approx(5.0 + 1.0 * 0.05, abs=1e-9)    # X0 = 5 m
    assert (out / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (out / "sweep.csv").is_file() and len(list(out.glob("runs/*.npz"))) == 1
    assert git_status(tmp_path) == []
    # resumed into the same folder: the file is kept as it is
    table = mbd.sweep(SLOT, {"slide.v0": [1.0, 2.0]}, 0.05,
                      outputs={"x": "final:joint.slide.q"}, out=out, workers=1, progress=False)
    np.testing.assert_allclose(table["x"], 5.0 + np.array([1.0, 2.0]) * 0.05, rtol=0, atol=1e-9)
    assert (out / ".gitignore").read_text().splitlines()[-1] == "*"
    assert git_status(tmp_path) == []
    mine = tmp_path / "mine"
    mine.mkdir()
    mbd.sweep(SLOT, {"slide.v0": [1.0]}, 0.05, outputs={"x": "final:joint.slide.q"},
              out=mine, workers=1, progress=False)
    assert not (mine / ".gitignore").exists()
    assert "?? mine/sweep.csv" in git_status(tmp_path)


def test_the_table_knows_its_columns_units_and_the_heat_map_shows_them(tmp_path):
    """attrs["units"] and sweep.json's "units": the block's mass kg, the slide's q0 m, the
    Bistop's cmax in the unit it declares on a slide (N.s/m), its e none (dimensionless);
    the peak force N, the first contact s, a count none, the timing columns s. The map of the
    table carries them: axes "block.mass (kg)", "slot.cmax (N s/m)", colorbar "peak (N)".
    Reference: the Bistop's parameter docs (cmax N s/m on a translational coordinate)."""
    import viz
    out = tmp_path / "study"
    grid = {"block.mass": [1.0, 2.0], "slot.cmax": [0.0, 5.0], "slot.e": [2.1],
            "slide.q0": [9.0]}
    outputs = {"peak": "absmax:force.slot.value", "first": "first:events.slot",
               "n": "count:events.slot"}
    table = mbd.sweep(SLOT, grid, 0.05, outputs=outputs, out=out, workers=2, progress=False)
    expected = {"block.mass": "kg", "slot.cmax": "N.s/m", "slot.e": "", "slide.q0": "m",
                "peak": "N", "first": "s", "n": "", "t_reached": "s", "wall_s": "s"}
    assert table.attrs["units"] == expected
    assert json.loads((out / "sweep.json").read_text())["units"] == expected
    fig = viz.plot_study(table, "peak", "block.mass", y="slot.cmax")
    assert fig.axes[0].get_xlabel() == "block.mass (kg)"
    assert fig.axes[0].get_ylabel() == "slot.cmax (N s/m)"
    assert fig.axes[1].get_ylabel() == "peak (N)"
    assert "(slot.e = 2.1, slide.q0 = 9 m)" in fig._suptitle.get_text()
    fig = viz.plot_study(table, "n", "block.mass", y="slot.cmax")
    assert fig.axes[1].get_ylabel() == "n"                  # a count: no unit
    # resumed into the folder of a study described before units were: the same study
    description = json.loads((out / "sweep.json").read_text())
    del description["units"]
    (out / "sweep.json").write_text(json.dumps(description))
    again = mbd.sweep(SLOT, grid, 0.05, outputs=outputs, out=out, workers=2, progress=False)
    assert again.attrs["reused"] == 4 and again.attrs["units"] == expected


def test_the_repository_ignores_the_default_output_folders():
    """The checkout's own .gitignore names the folders mbd writes by default: ``mbd-out``
    (run, demo, modes), ``mbd-sweep`` (mbd sweep), ``slot_study_out`` (examples/slot_study.py)
    and ``slot-study`` (the README's study)."""
    lines = (ROOT / ".gitignore").read_text().splitlines()
    for folder in ("mbd-out/", "mbd-sweep/", "slot_study_out/", "slot-study/"):
        assert folder in lines, folder


# ----------------------------------------------------------------------------- events, attrs

def test_count_and_first_events_read_the_event_log(tmp_path):
    """count:events.slot and first:events.slot == the number and first time of the loop's
    events of 'slot'; the run that never reaches a stop has count 0 and first nan, and a
    block sliding freely at 6 m/s from x = 5 meets x2 = 9.5 at 0.75 s (to 1e-9 s).
    Reference: the loop's r.events, and free sliding."""
    grid = {"slide.v0": [6.0, 1.0, 20.0]}
    outputs = {"n": "count:events.slot", "first": "first:events.slot"}
    table = mbd.sweep(SLOT, grid, T_END, outputs=outputs, workers=2, progress=False)
    for v0, n, first in zip(grid["slide.v0"], table["n"], table["first"]):
        r, _ = loop_run(SLOT, {"slide.v0": v0}, T_END)
        times = [e.t for e in r.events if e.element == "slot"]
        assert n == len(times)
        assert same(first, times[0] if times else math.nan)
    n = dict(zip(grid["slide.v0"], table["n"]))
    first = dict(zip(grid["slide.v0"], table["first"]))
    assert n[1.0] == 0 and math.isnan(first[1.0])
    assert n[20.0] > n[6.0] > 0             # at 20 m/s it hits x2, then x1 (at ~0.7 s)
    assert abs(first[6.0] - 0.75) < 1e-9


def test_attrs_count_the_runs_made_and_found(tmp_path):
    """attrs: ran + reused == rows, failed, wall_s > 0, prepare_s >= 0 (0 when nothing ran).
    A grid extended by one value into the same out runs only the new case and keeps the old
    run's file; the same sweep a third time runs nothing."""
    out = tmp_path / "study"
    outputs = {"peak": "absmax:force.slot.value"}
    one = mbd.sweep(SLOT, {"slot.k": [1e7]}, T_END, outputs=outputs, out=out, workers=1,
                    progress=False)
    assert {"ran", "reused", "failed", "wall_s", "prepare_s"} <= set(one.attrs)
    assert (one.attrs["ran"], one.attrs["reused"], one.attrs["failed"]) == (1, 0, 0)
    assert one.attrs["wall_s"] > 0 and one.attrs["prepare_s"] >= 0
    assert one.attrs["wall_s"] >= one["wall_s"][0]
    stamp = (out / one["result"][0]).stat().st_mtime_ns
    two = mbd.sweep(SLOT, {"slot.k": [1e7, 2e7]}, T_END, outputs=outputs, out=out, workers=1,
                    progress=False)
    assert (two.attrs["ran"], two.attrs["reused"], len(two)) == (1, 1, 2)
    assert two["peak"][0] == one["peak"][0] and two["run"][0] == one["run"][0]
    assert (out / one["result"][0]).stat().st_mtime_ns == stamp
    three = mbd.sweep(SLOT, {"slot.k": [1e7, 2e7]}, T_END, outputs=outputs, out=out,
                      workers=1, progress=False)
    assert (three.attrs["ran"], three.attrs["reused"], three.attrs["prepare_s"]) == (0, 2, 0.0)
    assert list(three["peak"]) == list(two["peak"])


# ----------------------------------------------------------------------------- a model function

def strap_model():
    """A model function (picklable by reference): the driven strap script's model."""
    return script(DRIVEN).build_model()


def test_a_model_function_gives_the_plain_loop(tmp_path):
    """A function returning a Model in place of a script: t_end is required (InputError), and
    with it every row == the loop's run with the same explicit options (a function brings no
    script settings). Reference: the loop."""
    with pytest.raises(mbd.InputError, match="t_end is required for a model function"):
        mbd.sweep(strap_model, {"strap.k": [10.0]}, outputs=STRAP)
    cases = [c for c in FAILING if c["strap.r0"] == 0.0]
    table = mbd.sweep(strap_model, cases, 0.8, outputs=STRAP, workers=2, progress=False,
                      output_step=0.02)
    for (_, row), case in zip(table.iterrows(), cases):
        model = strap_model()
        for name, value in case.items():
            element, _, param = name.rpartition(".")
            scripts.apply_override(model, element, param, value, name)
        r = model.build().simulate(0.8, output_step=0.02)
        assert row["status"] == "ok"
        assert row["f_max"] == float(np.max(np.linalg.norm(r.force("strap").value, axis=1)))
        assert row["x_end"] == float(r.joint("rail").q[-1])


# ----------------------------------------------------------------------------- 1. on a cluster
# (last in the file: a LocalCluster leaves threads in this process, after which forking it is
# unsafe; the tests above fork)

@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address=None, silence_logs=logging.ERROR) as c:
        with distributed.Client(c) as client:
            yield c, client


@pytest.mark.parametrize("how", ["client", "address"])
def test_a_dask_cluster_gives_the_plain_loop_bit_for_bit(tmp_path, cluster, grid_loop, how):
    """A 2-worker LocalCluster (processes, one thread each), given as a Client or by its
    scheduler address: every output == the plain loop's, and each npz holds the loop's t, q, v
    exactly. Reference: the loop."""
    local_cluster, client = cluster
    scheduler = client if how == "client" else local_cluster.scheduler_address
    out = tmp_path / "study"
    table = mbd.sweep(SLOT, GRID, T_END, outputs=OUTPUTS, scheduler=scheduler, out=out,
                      progress=False)
    assert_table_is_the_loop(table, out, grid_loop)
    assert table.attrs["ran"] == 4 and table.attrs["failed"] == 0
    if how == "client":
        assert client.status == "running"     # a Client given is the caller's: left open
