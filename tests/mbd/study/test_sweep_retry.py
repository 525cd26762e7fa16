"""``mbd sweep --retry-failed`` (SPEC §7, README "Studies"), walked as a user walks it: the
command run as a subprocess, a sweep in which some cases fail, the same command again (a
failed case counts as done), then ``--retry-failed``, which runs again the failed cases only
(and, as any resume does, a case whose result file is gone or unreadable).

The reference is a plain loop written here, in this process: the script's ``build_model()``,
the case's overrides (:func:`mbd.study.scripts.apply_override`, what ``--set`` applies),
``build()``, ``simulate`` with the script's settings. The README promises a sweep's numbers are
the loop's bit for bit on one machine, so the final table is compared with ``==``.

Models: a frictionless pendulum written into the test's folder (``flaky_arm.py``) whose run
fails while the environment variable ``MBD_FLAKY_ABOVE`` is set and its angle exceeds it (an
outside resource that was away during the first sweep: the failure is not the model's, so a
retry succeeds); and ``sweep_models/driven_strap.py``, whose run fails for a parameter value
(r0 != 0: a SimulationError naming the strap, SPEC §3.1), so a retry fails the same way.
"""
import csv
import functools
import math
import os
import pathlib
import subprocess
import sys

import numpy as np

import mbd
from mbd.study import scripts

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]
DRIVEN = str(HERE / "sweep_models" / "driven_strap.py")

FLAKY = '''"""A pendulum (1 kg, 0.4 m) released from rest at hinge.q0; a watch reads its angle and,
while MBD_FLAKY_ABOVE is set, fails the run once |angle| exceeds that value (rad). Its output,
0 N m, is the hinge's torque (a controller whose output drives nothing is not evaluated)."""
import os

import numpy as np

import mbd
from forces import Actuator, JointForce
from joints import Revolute

T_END, OUTPUT_STEP, RTOL, ATOL = 0.6, 0.02, 1e-9, 1e-11


def watch(t, x, u):
    limit = os.environ.get("MBD_FLAKY_ABOVE")
    if limit is not None and abs(u[0]) > float(limit):
        raise RuntimeError(f"the angle server is away (angle {u[0]:.3f} rad)")
    return np.zeros(0), np.zeros(1)


def build_model():
    model = mbd.Model("flaky_arm")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, -9.81)))
    arm = model.add_body("arm", mass=1.0, cg=(0.0, 0.0, -0.4), inertia=np.eye(3) * 1e-3,
                         cs={"pivot": (0.0, 0.0, 0.0)})
    hinge = model.add(Revolute("hinge", ground, arm["pivot"], axis=(0.0, 1.0, 0.0), q0=0.2))
    model.add(mbd.Sensor("angle", "hinge.q"))
    watched = model.add(mbd.ContinuousController("watch", watch, ["angle"]))
    model.add(JointForce("motor", hinge, Actuator(watched)))
    return model
'''

#: the flaky sweep: four start angles, two of them (0.6, 0.8 rad) above the limit at t = 0;
#: an undamped pendulum released from rest stays within +-q0, so 0.2 and 0.4 never reach it
FLAKY_GRID = "hinge.q0=0.2:0.8:4"
FLAKY_ABOVE = "0.5"
FLAKY_OUTPUTS = {"q_end": "final:joint.hinge.q", "swing": "absmax:joint.hinge.v"}


def mbd_sweep(script, *args, env=None):
    """``python -m mbd sweep SCRIPT ARGS`` in a child process, as a user types it; returns
    the CompletedProcess (stdout, stderr as text)."""
    environment = dict(os.environ, **(env or {}))
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    return subprocess.run([sys.executable, "-m", "mbd", "sweep", str(script), *args,
                           "--workers", "2"], capture_output=True, text=True,
                          env=environment, cwd=ROOT, timeout=600)


def table(out):
    with open(out / "sweep.csv", newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def summary(done):
    """The summary line of a sweep that ended well: 'mbd sweep: N runs (R run now on ...,
    F found in ...), K ok, X failed; ...'."""
    assert done.returncode == 0, done.stderr
    line = next(s for s in done.stdout.splitlines() if s.startswith("mbd sweep: "))
    return line


@functools.lru_cache(maxsize=None)
def script(path):
    return scripts.load_script(path)


def loop_run(path, case):
    """The plain loop's run of ``case`` {name: value}: (result, error), error the
    SimulationError of a run that failed (result its partial result), else None."""
    module = script(path)
    t_end, settings = scripts.run_settings(module)
    model = module.build_model()
    for name, value in case.items():
        element, _, param = name.rpartition(".")
        scripts.apply_override(model, element, param, value, f"loop: {name}")
    try:
        return model.build().simulate(t_end, **settings), None
    except mbd.SimulationError as err:
        return err.result, err


def assert_npz_is(out, row, result):
    """The row's saved result holds exactly the loop's t, q and v."""
    assert row["result"] == f"runs/{row['run']}.npz"
    with np.load(out / row["result"]) as saved:
        assert np.array_equal(saved["t"], result.t)
        assert np.array_equal(saved["q"], result.q)
        assert np.array_equal(saved["v"], result.v)


def test_retry_failed_runs_the_failed_cases_again_and_the_table_is_the_loops(tmp_path):
    """The first sweep (MBD_FLAKY_ABOVE = 0.5) fails the cases q0 = 0.6 and 0.8 with the
    watch's RuntimeError in their status, nan outputs; the same command without the variable
    runs nothing (a failed run is a run done); with --retry-failed it runs those two only
    (the ok runs' result files are not rewritten) and the table then holds all four, "ok",
    every output equal (==) to the loop's run of the case in this process."""
    path = tmp_path / "flaky_arm.py"
    path.write_text(FLAKY)
    out = tmp_path / "study"
    args = ["--grid", FLAKY_GRID, "--out", str(out)]
    for column, spec in FLAKY_OUTPUTS.items():
        args += ["--output", f"{column}={spec}"]

    first = mbd_sweep(path, *args, env={"MBD_FLAKY_ABOVE": FLAKY_ABOVE})
    assert "4 runs (4 run now on local worker processes, 0 found" in summary(first)
    assert "2 ok, 2 failed" in summary(first)
    rows = table(out)
    assert [float(r["hinge.q0"]) for r in rows] == list(np.linspace(0.2, 0.8, 4))
    for r in rows:
        if float(r["hinge.q0"]) > float(FLAKY_ABOVE):
            assert "RuntimeError" in r["status"] and "the angle server is away" in r["status"]
            assert all(math.isnan(float(r[c])) for c in FLAKY_OUTPUTS)
        else:
            assert r["status"] == "ok"
    kept = {r["run"]: (out / r["result"]).stat().st_mtime_ns for r in rows
            if r["status"] == "ok"}

    # the same command, the resource back: a failed run counts as done, nothing runs
    again = mbd_sweep(path, *args)
    assert "(0 run now on local worker processes, 4 found" in summary(again)
    assert "2 ok, 2 failed" in summary(again)
    assert [r["status"] for r in table(out)] == [r["status"] for r in rows]

    retried = mbd_sweep(path, *args, "--retry-failed")
    assert "4 runs (2 run now on local worker processes, 2 found" in summary(retried)
    assert "4 ok, 0 failed" in summary(retried)
    final = table(out)
    assert [r["run"] for r in final] == [r["run"] for r in rows]      # case order kept
    for r in final:
        q0 = float(r["hinge.q0"])
        result, err = loop_run(str(path), {"hinge.q0": q0})
        assert err is None and r["status"] == "ok"
        assert float(r["q_end"]) == float(result.joint("hinge").q[-1]), q0
        assert float(r["swing"]) == float(np.max(np.abs(result.joint("hinge").v))), q0
        assert float(r["t_reached"]) == result.t[-1] == 0.6
        assert_npz_is(out, r, result)
        if r["run"] in kept:     # not run again: its file is the first sweep's
            assert (out / r["result"]).stat().st_mtime_ns == kept[r["run"]]
    # the retried runs did swing past the limit (the failure was the resource's, not theirs)
    assert max(float(r["swing"]) for r in final) > max(float(r["swing"]) for r in rows
                                                       if r["status"] == "ok")


STRAP_CASES = "strap.k,strap.r0\n10,0\n10,0.1\n20,0\n"
STRAP_OUTPUTS = {"f_max": "max:force.strap.value", "x_end": "final:joint.rail.q"}


def strap_args(tmp_path, out):
    cases = tmp_path / "cases.csv"
    cases.write_text(STRAP_CASES)
    args = ["--cases", str(cases), "--out", str(out)]
    for column, spec in STRAP_OUTPUTS.items():
        args += ["--output", f"{column}={spec}"]
    return args


def assert_strap_row_is_the_loop(out, r):
    """A driven_strap row against the loop's run of its case: the failed one's status is the
    loop's error (naming the strap), its outputs nan, its partial result the loop's; an ok
    one's outputs the loop's (==)."""
    case = {"strap.k": float(r["strap.k"]), "strap.r0": float(r["strap.r0"])}
    result, err = loop_run(DRIVEN, case)
    assert_npz_is(out, r, result)
    if case["strap.r0"] != 0.0:
        assert err is not None
        assert r["status"] == f"SimulationError: {err}"
        assert "BodySpringDamper 'strap'" in r["status"]
        assert all(math.isnan(float(r[c])) for c in STRAP_OUTPUTS)
        assert float(r["t_reached"]) < 1.0
    else:
        assert err is None and r["status"] == "ok"
        assert float(r["f_max"]) == float(np.max(np.linalg.norm(result.force("strap").value,
                                                                axis=1)))
        assert float(r["x_end"]) == float(result.joint("rail").q[-1])


def test_retry_failed_fails_a_failing_model_the_same_way_and_reruns_a_lost_result(tmp_path):
    """driven_strap with r0 = 0.1 fails (the strap's direction undefined at the anchor); one
    ok run's result file is then deleted. --retry-failed runs the failed case and the lost
    one (2 run, 1 found): the failed case fails again with the loop's message and partial
    result, the lost one is the loop's run again, the third is untouched."""
    out = tmp_path / "study"
    args = strap_args(tmp_path, out)
    first = mbd_sweep(DRIVEN, *args)
    assert "3 runs (3 run now" in summary(first) and "2 ok, 1 failed" in summary(first)
    rows = table(out)
    lost, untouched = out / rows[0]["result"], out / rows[2]["result"]
    stamp = untouched.stat().st_mtime_ns
    lost.unlink()

    retried = mbd_sweep(DRIVEN, *args, "--retry-failed")
    assert "3 runs (2 run now on local worker processes, 1 found" in summary(retried)
    assert "2 ok, 1 failed" in summary(retried)
    assert lost.is_file() and untouched.stat().st_mtime_ns == stamp
    final = table(out)
    assert [r["run"] for r in final] == [r["run"] for r in rows]
    for r in final:
        assert_strap_row_is_the_loop(out, r)


def test_a_result_file_that_cannot_be_read_is_run_again(tmp_path):
    """A result file cut short (a disk that filled, a copy interrupted) is no result: the
    same sweep runs that case again (1 run, 2 found) and its file then reads as the loop's
    run; without --retry-failed the failed case stays as it was."""
    out = tmp_path / "study"
    args = strap_args(tmp_path, out)
    assert "3 runs (3 run now" in summary(mbd_sweep(DRIVEN, *args))
    rows = table(out)
    broken = out / rows[2]["result"]
    broken.write_bytes(broken.read_bytes()[:100])

    again = mbd_sweep(DRIVEN, *args)
    assert "3 runs (1 run now on local worker processes, 2 found" in summary(again)
    assert "2 ok, 1 failed" in summary(again)
    final = table(out)
    for r in final:
        assert_strap_row_is_the_loop(out, r)
