"""Paths of the command line no other test walks (issue 31), driven as a user drives them
(``mbd.cli.main([...])`` in-process, a subprocess where the path leaves threads behind):
``mbd sweep --plot``, ``mbd warmup``, a run that fails, the ``--cases``, ``--grid``,
``--set``, ``--output``, ``--workers`` and ``--scheduler`` mistakes, a worker process that
dies. Each asserts the exit status and the message (its exact text where it is deterministic)
or the files written.

Models: ``examples/bistop_slot.py`` swept over the block's start (``slide.q0``, ``slide.v0``)
for 0.05 s, before it reaches a stop, so that x_end = q0 + v0 t exactly; small scripts written
here for the failures."""
import os
import re
import subprocess
import sys
import types
import zipfile

import numpy as np
import pytest
from PIL import Image

import viz
from mbd import cli
from mbd.run import warmup
from mbd.study import sweeps as study

from .test_cli import PENDULUM, script
from .test_cli_sweep import ROOT, SLOT, table

#: the free flight of the block (no stop is reached within it), s
FLIGHT = "0.05"
X_END = "x_end=final:joint.slide.q"


def sweep(tmp_path, *args, out="study"):
    """``mbd sweep SLOT ARGS`` into tmp_path/out for FLIGHT s; returns (status, out folder)."""
    folder = tmp_path / out
    return cli.main(["sweep", SLOT, "--t-end", FLIGHT, "--out", str(folder), *args]), folder


def nothing_written(folder):
    """Refused before any run: no table, no run file (the folder is not even made)."""
    return not folder.exists()


# ----------------------------------------------------------------------------- mbd run fails

#: the stop pendulum of test_cli.py with a motor whose drive raises from t = 0.3 s on
FAILING = PENDULUM.replace("    return m\n", """\
    from forces import Actuator
    m.add(JointForce("push", h, Actuator(push)))
    return m
""") + """
def push(t):
    if t >= 0.3:
        raise RuntimeError("the motor drive tripped")
    return 0.0
"""


def test_a_run_whose_user_function_raises_fails_naming_it_and_keeps_its_rows(tmp_path, capsys):
    """mbd run of a model whose actuator function raises from t = 0.3 s on: status 2, one
    message on stderr naming the element, its function, the exception, the time and the
    files written; nothing on stdout (no summary of a run that did not finish); the CSV holds
    the rows computed (from t = 0, its last row before the failure, every row finite) and the
    plot is a PNG."""
    path = script(tmp_path, FAILING)
    out = tmp_path / "out"
    assert cli.main(["run", str(path), "--out", str(out)]) == 2
    printed, err = capsys.readouterr()
    csv_path, png = out / "stop_pendulum.csv", out / "stop_pendulum.png"
    match = re.fullmatch(
        r"mbd run: the simulation failed: JointForce 'push': its function push\(\) raised "
        r"RuntimeError at t = (\S+) s: the motor drive tripped\. The (\d+) rows computed were "
        rf"written to {re.escape(str(csv_path))}; their plot to {re.escape(str(png))}\.\n", err)
    assert match, err
    assert printed == ""
    t_failed, rows = float(match[1]), int(match[2])
    assert 0.3 <= t_failed < 2.0
    data = np.loadtxt(csv_path, delimiter=",", skiprows=1)
    assert data.shape[0] == rows >= 2 and np.all(np.isfinite(data))
    assert data[0, 0] == 0.0 and data[-1, 0] <= t_failed
    assert csv_path.read_text().splitlines()[0].split(",")[-2:] == ["gap.work", "push.work"]
    with Image.open(png) as im:
        assert im.format == "PNG" and im.size[0] > 0


def test_a_run_that_fails_at_its_start_says_so_and_writes_nothing(tmp_path, capsys):
    """The actuator raises at t = 0: status 2, the message names the cause at t = 0 s and
    tells of no file; the output folder it made is removed again, empty (issue 45: a stopped
    run leaves no empty folder behind)."""
    path = script(tmp_path, FAILING.replace("if t >= 0.3:", "if t >= 0.0:"))
    out = tmp_path / "out"
    assert cli.main(["run", str(path), "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        "mbd run: the simulation failed: JointForce 'push': its function push() raised "
        "RuntimeError at t = 0 s: the motor drive tripped\n")
    assert not out.exists()


# ----------------------------------------------------------------------------- mbd warmup

class _NoLawKinds:
    """The law registry as mbd.run.warmup sees it, with no law kind (their kernels are not
    warmed in these tests: each would take seconds)."""

    def __init__(self, registry):
        self._registry = registry

    def kinds(self):
        return ()

    def __getattr__(self, name):
        return getattr(self._registry, name)


@pytest.fixture
def two_targets(monkeypatch):
    """mbd warmup over two small targets, one per process."""
    targets = ("rotate_rows", "quaternion_rows")
    monkeypatch.setattr(warmup, "TARGETS", targets)
    monkeypatch.setattr(warmup, "GROUPS", (targets[:1], targets[1:]))
    monkeypatch.setattr(warmup, "registry", _NoLawKinds(warmup.registry))
    return targets


@pytest.mark.parametrize("cores, processes", [(2, "2 processes"), (1, "1 process")])
def test_warmup_compiles_every_target_once_and_says_so(two_targets, monkeypatch, capsys, cores,
                                                      processes):
    """mbd warmup (over two targets) on two cores (two compiling child processes) and on one
    (compiled in this process): the heading names the count and the processes, one line per
    target (each once, counted 1/2 and 2/2, with its seconds), then "done"; status 0, and
    each target is in numba's cache after it."""
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    assert cli.main(["warmup"]) == 0
    printed, err = capsys.readouterr()
    lines = printed.splitlines()
    assert lines[0] == ("mbd warmup: compiling the 2 compiled entry points of the run stage "
                        f"into numba's cache ({processes}); later runs load them")
    done = [re.fullmatch(r"  \[ (\d)/2\] (\w+) \((\d+\.\d) s\)", line) for line in lines[1:3]]
    assert all(done), lines
    assert [m[1] for m in done] == ["1", "2"]
    assert sorted(m[2] for m in done) == sorted(two_targets)
    assert re.fullmatch(r"mbd warmup: done in \d+\.\d s", lines[3]) and len(lines) == 4
    assert err == ""
    assert all(warmup.cached(name) for name in two_targets)


def test_warmup_names_what_is_not_cached_and_fails(two_targets, monkeypatch, capsys):
    """A target that is not in the cache after the compilation (a child that died, a cache
    numba cannot write) is named on stderr, status 2."""
    def everything(jobs, report):
        report("rotate_rows", 0.25, 1, 2)
        return 1.25
    monkeypatch.setattr(warmup, "everything", everything)
    monkeypatch.setattr(warmup, "cached", lambda name: name != "quaternion_rows")
    assert cli.main(["warmup"]) == 2
    printed, err = capsys.readouterr()
    assert printed.splitlines()[1] == "  [ 1/2] rotate_rows (0.2 s)"
    assert "done" not in printed
    assert err == "mbd warmup: not cached after 1.2 s: ['quaternion_rows']\n"


# ----------------------------------------------------------------------------- sweep --plot

@pytest.fixture
def figures(monkeypatch):
    """The figures mbd sweep --plot draws (viz.plot_study wrapped: the real one draws them)."""
    drawn = []
    real = viz.plot_study

    def keep(*args, **kwargs):
        fig = real(*args, **kwargs)
        drawn.append((args, kwargs, fig))
        return fig
    monkeypatch.setattr(viz, "plot_study", keep)
    return drawn


def test_sweep_plot_writes_a_map_whose_axes_carry_units(tmp_path, capsys, figures):
    """--plot x_end over a 2 x 2 grid of the block's start: sweep_x_end.png in --out, of the
    map's size (7 x 4.8 in at 100 dpi), the line naming it and what it shows; the map's axes
    are the two parameters with their units (slide.v0 m/s, slide.q0 m), the colorbar the
    output's (x_end m); the table's x_end is q0 + v0 t (free flight)."""
    status, out = sweep(tmp_path, "--grid", "slide.v0=1,2", "--grid", "slide.q0=3,4",
                        "--output", X_END, "--plot", "x_end", "--workers", "2")
    assert status == 0
    png = out / "sweep_x_end.png"
    assert f"  plot: {png} (x_end over slide.v0, slide.q0)\n" in capsys.readouterr().out
    with Image.open(png) as im:
        assert im.format == "PNG" and im.size == (700, 480)
    (args, kwargs, fig), = figures
    assert args[1:] == ("x_end", "slide.v0", "slide.q0") and kwargs["path"] == str(png)
    assert fig.axes[0].get_xlabel() == "slide.v0 (m/s)"
    assert fig.axes[0].get_ylabel() == "slide.q0 (m)"
    assert fig.axes[1].get_ylabel() == "x_end (m)"
    for row in table(out):
        assert float(row["x_end"]) == pytest.approx(
            float(row["slide.q0"]) + float(row["slide.v0"]) * float(FLIGHT), abs=1e-12)


def test_sweep_plot_of_one_parameter_draws_lines_and_holds_a_third(tmp_path, capsys, figures):
    """Three varying parameters: the map is over the first two and the third is held at its
    first value (said on the plot line and in the figure's title); one varying parameter (a
    --set one does not vary): a line plot over it, its unit on the x axis, the output's on
    the y axis."""
    status, out = sweep(tmp_path, "--grid", "slide.v0=1,2", "--grid", "slide.q0=3,4",
                        "--grid", "block.mass=1,2", "--output", X_END, "--plot", "x_end",
                        "--workers", "2")
    assert status == 0
    png = out / "sweep_x_end.png"
    assert (f"  plot: {png} (x_end over slide.v0, slide.q0, block.mass = 1)\n"
            in capsys.readouterr().out)
    _, kwargs, fig = figures[-1]
    assert kwargs["where"] == {"block.mass": 1.0}
    assert "block.mass = 1 kg" in fig._suptitle.get_text()
    status, out = sweep(tmp_path, "--grid", "slide.v0=1,2,3", "--set", "slide.q0=3",
                        "--output", X_END, "--plot", "x_end", "--workers", "2", out="lines")
    assert status == 0
    png = out / "sweep_x_end.png"
    assert f"  plot: {png} (x_end over slide.v0)\n" in capsys.readouterr().out
    args, _, fig = figures[-1]
    assert args[1:] == ("x_end", "slide.v0", None)
    assert fig.axes[0].get_xlabel() == "slide.v0 (m/s)"
    assert fig.axes[0].get_ylabel() == "x_end (m)"
    with Image.open(png) as im:
        assert im.format == "PNG" and im.size == (700, 480)


def test_sweep_plot_is_skipped_when_nothing_varies_or_no_run_has_a_value(tmp_path, capsys,
                                                                        figures):
    """One case: "plot: skipped, no parameter varies", no PNG, status 0. Every run failed
    (an actuator raising at t = 0, before any row): the table is written, each row's status
    the run's error, the plot skipped saying why, status 0 (the failures are rows of the
    table), no PNG."""
    status, out = sweep(tmp_path, "--grid", "slide.v0=1", "--output", X_END, "--plot", "x_end",
                        "--workers", "1")
    assert status == 0
    assert "  plot: skipped, no parameter varies\n" in capsys.readouterr().out
    assert not (out / "sweep_x_end.png").exists() and figures == []
    path = script(tmp_path, FAILING.replace("if t >= 0.3:", "if t >= 0.0:"))
    out = tmp_path / "failing"
    assert cli.main(["sweep", str(path), "--grid", "bob.mass=1,2", "--output",
                     "q_end=final:joint.hinge.q", "--plot", "q_end", "--out", str(out),
                     "--workers", "1"]) == 0
    printed = capsys.readouterr().out
    assert "2 runs (2 run now on local worker processes, 0 found" in printed
    assert "0 ok, 2 failed" in printed
    assert ("  plot: skipped, no run has a value of q_end (every run failed: see the status "
            "column)\n") in printed
    assert not (out / "sweep_q_end.png").exists() and figures == []
    assert [r["status"] for r in table(out)] == [
        "SimulationError: JointForce 'push': its function push() raised RuntimeError at "
        "t = 0 s: the motor drive tripped"] * 2
    # no row was computed: nothing to keep (the sweep goes on), and none reached past 0
    assert [(r["result"], r["t_reached"]) for r in table(out)] == [("", "0.0")] * 2
    assert not list(out.glob("runs/*.npz"))


def test_sweep_plot_of_a_column_that_is_not_an_output_is_refused(tmp_path, capsys):
    status, out = sweep(tmp_path, "--grid", "slide.v0=1,2", "--output", X_END, "--plot", "peak")
    assert status == 2
    assert capsys.readouterr().err == ("mbd sweep: --plot 'peak': not an --output column (the "
                                       "outputs are: x_end)\n")
    assert nothing_written(out)


# ----------------------------------------------------------------------------- --cases

CASES = [
    pytest.param(None, "{path}: cannot read it: no such file or directory", id="missing"),
    pytest.param("", "{path}: needs a header of parameter names and at least one row of "
                 "values", id="empty"),
    pytest.param("slide.v0,slide.q0\n\n", "{path}: needs a header of parameter names and at "
                 "least one row of values", id="header-only"),
    pytest.param("slide.v0,slide.q0\n\n1,3\n2\n", "{path}, line 4: 1 values for the 2 names "
                 "of the header (slide.v0, slide.q0)", id="too-few-values-after-a-blank-line"),
    pytest.param("slide.v0,slide.q0\n1,3,4\n", "{path}, line 2: 3 values for the 2 names of "
                 "the header (slide.v0, slide.q0)", id="too-many-values"),
    pytest.param("slide.v0,slide.q0\n1,3\n2,fast\n", "{path}, line 3: slide.q0 = 'fast' is not "
                 "a finite number", id="not-a-number"),
    pytest.param("slide.v0,slide.v0\n1,2\n", "{path}, line 1: the header names slide.v0 more "
                 "than once: one column per parameter", id="a-name-twice"),
    pytest.param(b"slide.v0\n\xff\n", "{path}: cannot read it: not UTF-8 text (invalid start "
                 "byte at byte 9)", id="not-text"),
    pytest.param("slide.v0,slide.q0\n1,3\n2, inf\n", "{path}, line 3: slide.q0 = 'inf' is not a "
                 "finite number", id="not-finite"),
    pytest.param("slide.v0,slidev0\n1,2\n", "{path}, line 1: 'slidev0' is not NAME.PARAM (an "
                 "element name, a dot, a parameter: 'strap.k', 'hinge.q0', 'arm.mass')",
                 id="no-dot"),
]


@pytest.mark.parametrize("text, message", CASES)
def test_a_bad_cases_file_is_named_before_any_run(tmp_path, capsys, text, message):
    """Each mistake in a --cases file is status 2 and one message naming the file, the line
    and the value where there is one; no folder is made."""
    path = tmp_path / "cases.csv"
    if isinstance(text, bytes):
        path.write_bytes(text)
    elif text is not None:
        path.write_text(text)
    status, out = sweep(tmp_path, "--cases", str(path), "--output", X_END)
    assert status == 2
    err = capsys.readouterr().err
    assert err == "mbd sweep: --cases " + message.format(path=path) + "\n"
    assert nothing_written(out)


def test_a_cases_file_that_is_a_folder_is_named(tmp_path, capsys):
    status, out = sweep(tmp_path, "--cases", str(tmp_path), "--output", X_END)
    assert status == 2
    assert capsys.readouterr().err == (f"mbd sweep: --cases {tmp_path}: cannot read it: is a "
                                       "directory\n")
    assert nothing_written(out)


def test_a_cases_file_from_a_spreadsheet_is_read(tmp_path):
    """A UTF-8 byte-order mark before the header (a spreadsheet's "CSV UTF-8") is not part of
    the first name: the cases run, x_end = q0 + v0 t."""
    path = tmp_path / "cases.csv"
    path.write_bytes("slide.v0,slide.q0\r\n1,3\r\n2,4\r\n".encode("utf-8-sig"))
    status, out = sweep(tmp_path, "--cases", str(path), "--output", X_END, "--workers", "1")
    assert status == 0
    rows = table(out)
    assert [(float(r["slide.v0"]), float(r["slide.q0"])) for r in rows] == [(1, 3), (2, 4)]
    assert [float(r["x_end"]) for r in rows] == pytest.approx([3.05, 4.1], abs=1e-12)


# ----------------------------------------------------------------------------- the other options

OPTIONS = [
    pytest.param(["--grid", "slide.v0=1,2", "--cases", "cases.csv"],
                 "give either --grid or --cases, not both", id="grid-and-cases"),
    pytest.param(["--grid", "slide.v0=1,2", "--grid", "slide.v0=3"],
                 "--grid 'slide.v0=3': slide.v0 is given by a --grid before: give all its "
                 "values in one --grid slide.v0=VALUES", id="a-grid-name-twice"),
    pytest.param(["--grid", "slide.v0=1,2", "--set", "slide.v0=3"],
                 "--set slide.v0: --grid sweeps slide.v0 already: a parameter is either fixed "
                 "by --set or swept, not both", id="set-of-a-grid-parameter"),
    pytest.param(["--cases", "cases.csv", "--set", "slide.q0=3"],
                 "--set slide.q0: --cases {cases} sweeps slide.q0 already: a parameter is "
                 "either fixed by --set or swept, not both", id="set-of-a-cases-column"),
    pytest.param(["--grid", "slide.v0=1,2", "--output", "x_end"],
                 "--output 'x_end': expected COLUMN=REDUCTION:QUANTITY, e.g. "
                 "peak=absmax:force.stop.value", id="output-without-a-column"),
    pytest.param(["--grid", "slide.v0=1,2", "--output", "=final:joint.slide.q"],
                 "--output '=final:joint.slide.q': expected COLUMN=REDUCTION:QUANTITY, e.g. "
                 "peak=absmax:force.stop.value", id="output-empty-column"),
    pytest.param(["--grid", "slide.v0=1,2", "--output", "x_end="],
                 "output 'x_end': '' is not 'REDUCTION:QUANTITY' (e.g. "
                 "'max:force.stop.value') or a function of a Result", id="output-empty-spec"),
    pytest.param(["--grid", "slide.v0=1,2", "--output", X_END, "--output",
                  "x_end=final:joint.slide.v"],
                 "--output 'x_end=final:joint.slide.v': the column 'x_end' is named by an "
                 "--output before: each output needs a column of its own",
                 id="an-output-column-twice"),
    pytest.param(["--grid", "slide.v0=1,2", "--output", "status=final:joint.slide.q"],
                 "the column name(s) ['status'] are taken (parameters, run, status, t_reached, "
                 "wall_s, result, outputs must differ)", id="output-named-status"),
    pytest.param(["--grid", "slide.v0=1,2", "--output", "slide.v0=final:joint.slide.v"],
                 "the column name(s) ['slide.v0'] are taken (parameters, run, status, "
                 "t_reached, wall_s, result, outputs must differ)", id="output-named-as-a-grid"),
    pytest.param(["--grid", "slide.v0=1,2", "--output", "x=final:joint.slide.q.1"],
                 "output 'x' (final:joint.slide.q.1): joint 'slide' has 1 q coordinate(s), 0 "
                 "to 0", id="output-coordinate-out-of-range"),
    pytest.param(["--grid", "slide.v0=1,2", "--output", X_END, "--t-end", "-1"],
                 "--t-end must be finite and > 0, got -1.0", id="negative-t-end"),
    pytest.param(["--grid", "slide.v0=1,2", "--output", X_END, "--t-end", "nan"],
                 "--t-end must be finite and > 0, got nan", id="nan-t-end"),
    pytest.param(["--grid", "slide.v0=1,2", "--output", X_END, "--workers", "0"],
                 "workers must be an integer >= 1, got 0", id="no-workers"),
    pytest.param(["--grid", "slide.v0=1,2", "--output", X_END, "--workers", "-2"],
                 "workers must be an integer >= 1, got -2", id="negative-workers"),
]


@pytest.mark.parametrize("args, message", OPTIONS)
def test_a_bad_option_is_named_before_any_run(tmp_path, capsys, args, message):
    """Each mistake is status 2 and one message naming the option and its value, before any
    folder is made; none is silently dropped (a name given twice, a --set of a swept
    parameter)."""
    cases = tmp_path / "cases.csv"
    cases.write_text("slide.v0,slide.q0\n1,3\n2,4\n")
    args = [str(cases) if a == "cases.csv" else a for a in args]
    status, out = sweep(tmp_path, *args)
    assert status == 2
    assert capsys.readouterr().err == "mbd sweep: " + message.format(cases=cases) + "\n"
    assert nothing_written(out)


def test_a_script_given_to_sweep_must_be_a_script(tmp_path, capsys):
    """A URDF is refused by mbd sweep (it imports the script again in each worker), saying
    how to wrap it; a missing script is named."""
    robot = tmp_path / "arm.urdf"
    robot.write_text("<robot name='arm'/>")
    assert cli.main(["sweep", str(robot), "--grid", "a.q0=1", "--out", str(tmp_path / "s")]) == 2
    assert capsys.readouterr().err == (
        f"mbd sweep: mbd sweep takes a model script, not a URDF ({robot}): write a script whose "
        "build_model() returns mbd.from_urdf(PATH, package_dirs=[...]) and give that\n")
    missing = tmp_path / "missing.py"
    assert cli.main(["sweep", str(missing), "--grid", "a.q0=1", "--out",
                     str(tmp_path / "s")]) == 2
    assert capsys.readouterr().err == (
        f"mbd sweep: no model script at {missing}: the file does not exist (give a script "
        "defining build_model(), or a function returning an mbd.Model)\n")
    assert not (tmp_path / "s").exists()


# ----------------------------------------------------------------------------- where it runs

#: a model that ends its worker process (os._exit) in the build of the case of mass 13 kg
DYING = """
import multiprocessing, os
import numpy as np
import mbd
from joints import Prismatic
T_END = 0.05


class DyingModel(mbd.Model):
    def build(self):
        if self.bodies[0].mass == 13.0 and multiprocessing.parent_process() is not None:
            os._exit(7)
        return super().build()


def build_model():
    m = DyingModel("dying")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    b = m.add_body("block", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3) * 1e-3)
    m.add(Prismatic("slide", g, b["cg"], axis=(0, 0, 1)))
    return m
"""

DIED = ("mbd sweep: a worker process died (killed, out of memory, or it could not start: a "
        "script that calls mbd.sweep on a machine that spawns workers must call it under 'if "
        "__name__ == \"__main__\":'); the runs finished so far are in the table on disk, and "
        "the same sweep into the same out resumes\n")


def test_a_worker_that_dies_is_one_message_and_the_runs_before_it_are_kept(tmp_path, capsys):
    """One worker runs the cases in order; the second ends its process: status 2, one
    message (no traceback) saying what happened and that the sweep resumes; the first run's
    row is in sweep.csv with its .npz (it fell 0.5 g t^2 = 12.26 mm); the same command without
    the deadly case then finds it and runs the rest."""
    path = script(tmp_path, DYING)
    out = tmp_path / "study"
    args = ["sweep", str(path), "--output", "z=final:joint.slide.q", "--out", str(out),
            "--workers", "1"]
    assert cli.main([*args, "--grid", "block.mass=1,13,2"]) == 2
    printed, err = capsys.readouterr()
    assert err == DIED and printed == ""
    rows = table(out)
    assert [(r["block.mass"], r["status"]) for r in rows] == [("1.0", "ok")]
    assert float(rows[0]["z"]) == pytest.approx(-0.5 * 9.81 * 0.05 ** 2, rel=1e-9)
    assert (out / rows[0]["result"]).is_file()
    assert cli.main([*args, "--grid", "block.mass=1,2"]) == 0
    assert "2 runs (1 run now on local worker processes, 1 found in" in capsys.readouterr().out
    assert [r["status"] for r in table(out)] == ["ok", "ok"]


def test_a_scheduler_without_dask_is_named_before_any_run(tmp_path, capsys, monkeypatch):
    """Dask not installed (its import made to fail): status 2 and the extra to install,
    before any folder is made."""
    monkeypatch.setitem(sys.modules, "dask", None)
    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    status, out = sweep(tmp_path, "--grid", "slide.v0=1,2", "--output", X_END, "--scheduler",
                        "tcp://127.0.0.1:8786")
    assert status == 2
    assert capsys.readouterr().err == ("mbd sweep: a Dask scheduler was given but "
                                       "dask.distributed is not installed: pip install "
                                       "'mbd[cluster]'\n")
    assert nothing_written(out)


def test_a_scheduler_address_that_is_not_one_is_named(tmp_path):
    """--scheduler not-an-address (in a process of its own: a Dask client leaves threads
    behind): status 2, one message naming the option's value and the form to give."""
    pytest.importorskip("dask.distributed")
    out = tmp_path / "study"
    proc = subprocess.run([sys.executable, "-m", "mbd", "sweep", SLOT, "--grid", "slide.v0=1",
                           "--output", X_END, "--t-end", FLIGHT, "--out", str(out),
                           "--scheduler", "not-an-address"], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == ("mbd sweep: the scheduler 'not-an-address' is not a Dask scheduler's "
                           "address (missing port number in address 'not-an-address'): give "
                           "tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786\n")
    assert not list(out.glob("runs/*.npz"))


# ----------------------------------------------------------------------------- Ctrl-C in a sweep

def test_ctrl_c_during_a_sweep_keeps_the_runs_finished(tmp_path, capsys, monkeypatch):
    """Ctrl-C once the first of three runs is in (one worker): status 130, "interrupted" on
    stderr, no traceback; sweep.csv holds that run (x_end = q0 + v0 t); the same command then
    finds it and runs the other two."""
    collect = study._Collector.__call__

    def then_ctrl_c(self, report):
        collect(self, report)
        raise KeyboardInterrupt
    args = ["--grid", "slide.v0=1,2,3", "--output", X_END, "--workers", "1"]
    with monkeypatch.context() as m:
        m.setattr(study._Collector, "__call__", then_ctrl_c)
        status, out = sweep(tmp_path, *args)
    assert status == 130
    assert capsys.readouterr().err == "mbd sweep: interrupted\n"
    rows = table(out)
    assert [(r["slide.v0"], r["status"]) for r in rows] == [("1.0", "ok")]
    assert float(rows[0]["x_end"]) == pytest.approx(5.0 + 1.0 * float(FLIGHT), abs=1e-12)
    assert sweep(tmp_path, *args)[0] == 0
    assert "3 runs (2 run now on local worker processes, 1 found in" in capsys.readouterr().out


# ----------------------------------------------------------------------------- run's extras

def test_a_missing_renderer_skips_the_animation_and_the_page_not_the_results(tmp_path, capsys,
                                                                            monkeypatch):
    """mbd run --animate --html where the renderer and the page writer fail (no display, a
    broken VTK): status 0, the CSV and the plot written, the summary says which was skipped
    and why."""
    def no_display(*args, **kwargs):
        raise RuntimeError("no display to render on")
    monkeypatch.setitem(sys.modules, "viz.render", types.SimpleNamespace(animate=no_display))
    monkeypatch.setitem(sys.modules, "viz.webpage", types.SimpleNamespace(html=no_display))
    path = script(tmp_path, PENDULUM)
    out = tmp_path / "out"
    assert cli.main(["run", str(path), "--out", str(out), "--t-end", "0.1", "--animate",
                     "--html"]) == 0
    printed = capsys.readouterr().out
    assert "  animation: skipped, RuntimeError: no display to render on\n" in printed
    assert "  web page: skipped, RuntimeError: no display to render on\n" in printed
    assert f"  results: {out / 'stop_pendulum.csv'} (11 rows)\n" in printed
    assert sorted(p.name for p in out.iterdir()) == ["stop_pendulum.csv", "stop_pendulum.png",
                                                     "stop_pendulum.units.csv"]


def test_check_shows_the_description_line_by_line(tmp_path, capsys):
    path = script(tmp_path, PENDULUM.replace('mbd.Model("stop_pendulum")',
                                             'mbd.Model("stop_pendulum", description="a bob on '
                                             'a hinge\\nstopped by a gap")'))
    assert cli.main(["check", str(path)]) == 0
    assert "\ndescription: a bob on a hinge\n  stopped by a gap\n" in capsys.readouterr().out


RUBBER = str(ROOT / "examples" / "rubber_stop.py")


@pytest.mark.parametrize("setting, message", [
    ("stop.table.y99=450", "--set 'stop.table.y99=450': the TableForce law of 'stop': Table "
     "'rubber' has no point 'y99': it has 8 points, xK (breakpoint K) or yK (value K), K = 0 to "
     "7"),
    ("block.table.y1=4", "--set 'block.table.y1=4': body 'block' holds no table: "
     "NAME.PARAM.POINT sets a point of a parameter holding a Table or Table2D (a TableForce's "
     "table, a K given as a Table, a Lookup's table)"),
    ("stop.d.y1=4", "--set 'stop.d.y1=4': the TableForce law of 'stop' has d = 40.0, not a "
     "table: stop.d.POINT sets a point of a parameter holding a Table or Table2D; set a number "
     "as stop.d=VALUE"),
    ("stop.curve.y1=4", "--set 'stop.curve.y1=4': the TableForce law of 'stop' has no "
     "parameter 'curve'; its parameters are: table, d"),
    ("stop.table.y1=1,2", "--set 'stop.table.y1=1,2': a table's point takes one number, got "
     "(1.0, 2.0)"),
    ("stop.table=5", "--set 'stop.table=5': the TableForce law of 'stop' has table given as "
     "Table('rubber': 8 points, pchip, extrapolate='linear'): a table is changed one point at a "
     "time, stop.table.POINT=VALUE with POINT xK or yK (K = 0 to 7)"),
    ("stop.d=1,2", "--set 'stop.d=1,2': JointForce 'stop': d takes one number, got (1.0, 2.0)"),
    ("stop.d=inf", "--set 'stop.d=inf': the value must be finite, got 'inf'"),
])
def test_a_bad_table_point_setting_is_named(capsys, setting, message):
    """--set of a table's point (examples/rubber_stop.py: a TableForce 'stop' of 8 points):
    a point the table has not, an element or parameter that holds no table, two numbers:
    status 2 and one message naming the setting, the element and what to give."""
    assert cli.main(["check", RUBBER, "--set", setting]) == 2
    assert capsys.readouterr().err == f"mbd check: {message}\n"


def test_a_table_point_setting_makes_a_new_table(capsys):
    """--set stop.table.y2=450 on examples/rubber_stop.py: the check reports the setting and
    the stop's new table (a new law: the script's own is left as it was)."""
    assert cli.main(["check", RUBBER, "--set", "stop.table.y2=450"]) == 0
    printed = capsys.readouterr().out
    assert "settings: stop.table.y2 = 450.0\n" in printed
    assert ("JointForce 'stop': TableForce(table=Table('rubber': 8 points, pchip, "
            "extrapolate='linear'), d=40.0)") in printed


# ----------------------------------------------------------------------------- mbd fmu

def test_fmu_writes_the_archive_and_says_what_it_lacks(tmp_path, capsys, monkeypatch):
    """mbd fmu of examples/rubber_stop.py (no Input) without -o: MODEL.fmu in the working
    folder, a zip holding the model description that names the model and its sensor; the
    warning that it has no inputs is one line on stderr (not Python's warning with its
    source line); with -o, that file."""
    monkeypatch.chdir(tmp_path)
    assert cli.main(["fmu", RUBBER]) == 0
    printed, err = capsys.readouterr()
    fmu = tmp_path / "rubber_stop.fmu"
    assert printed == (f"mbd fmu: wrote {fmu} (FMI 3.0 co-simulation; it runs with mbd "
                       "installed where it runs)\n")
    assert err.startswith("mbd fmu: warning: export_fmu: model 'rubber_stop' (") and \
        err.endswith(") declares no Input: its FMU has no inputs, a master can only read it (add "
                     "mbd.Input(name) where a law takes a value, e.g. "
                     "Actuator(mbd.Input('torque')))\n") and err.count("\n") == 1
    with zipfile.ZipFile(fmu) as archive:
        description = archive.read("modelDescription.xml").decode()
    assert 'modelName="rubber_stop"' in description and '"compression"' in description
    other = tmp_path / "other.fmu"
    assert cli.main(["fmu", RUBBER, "-o", str(other), "--fmi", "2"]) == 0
    assert f"mbd fmu: wrote {other} (FMI 2.0 co-simulation" in capsys.readouterr().out
    assert zipfile.is_zipfile(other)


GEARBOX = str(ROOT / "examples" / "gearbox_pid.py")


def test_set_changes_a_gear_ratio_and_a_controllers_parameters(capsys):
    """examples/gearbox_pid.py: --set mesh.ratio, pid.kp, pid.period: the check reports them and
    the new gear and controller."""
    assert cli.main(["check", GEARBOX, "--set", "mesh.ratio=0.25", "--set", "pid.kp=90",
                     "--set", "pid.period=0.002"]) == 0
    printed = capsys.readouterr().out
    assert "settings: mesh.ratio = 0.25, pid.kp = 90.0, pid.period = 0.002\n" in printed
    assert "gears: 'mesh' (Revolute 'load_shaft' = 0.25 x Revolute 'pinion_shaft')" in printed
    assert "DiscretePID 'pid': sampled every 0.002 s," in printed and "kp=90.0," in printed


@pytest.mark.parametrize("setting, message", [
    ("mesh.ratio=1,2", "GearConstraint 'mesh': ratio takes one number, got (1.0, 2.0)"),
    ("mesh.ratio=0", "GearConstraint 'mesh': ratio must be finite and nonzero, got 0.0"),
    ("mesh.teeth=3", "GearConstraint 'mesh' has no parameter 'teeth'; its parameter is: ratio"),
    ("pid.gain=1", "DiscretePID 'pid' has no settable parameter 'gain'; its settable "
     "parameters are: kp, ki, kd, tf, period, setpoint"),
    ("pid.kp=1,2", "DiscretePID 'pid': kp takes one number, got (1.0, 2.0)"),
    ("pid.setpoint.y1=2", "DiscretePID 'pid' has setpoint = 0.1, not a table: "
     "pid.setpoint.POINT sets a point of a parameter holding a Table or Table2D; set a number "
     "as pid.setpoint=VALUE"),
])
def test_a_bad_gear_or_controller_setting_is_named(capsys, setting, message):
    assert cli.main(["check", GEARBOX, "--set", setting]) == 2
    assert capsys.readouterr().err == f"mbd check: --set {setting!r}: {message}\n"


@pytest.mark.parametrize("text, name, message", [
    ("import sys\nsys.exit(3)\n", "model.py",
     "the model script {path} raised SystemExit: 3 (at line 2: sys.exit(3))"),
    (PENDULUM, "model.txt", "cannot load {path} as a Python module (is it a .py file?)"),
    (PENDULUM.replace("    return m\n", "    m.add(JointForce('gap', h, ElastoGap(c=1.0, d=0.0)))\n"
                      "    m.build()\n    return m\n"), "model.py",
     "the model does not build: in build_model() of {path}: duplicate name 'gap': used by "
     "JointForce 'gap', JointForce 'gap'; names must be unique within a model"),
])
def test_a_script_that_cannot_give_its_model_is_named(tmp_path, capsys, text, name, message):
    """A script that exits while imported, a file that is not Python, a build_model() whose own
    build fails: status 2 and one message naming the script (and the function) and the cause."""
    path = script(tmp_path, text, name=name)
    assert cli.main(["check", str(path)]) == 2
    assert capsys.readouterr().err == "mbd check: " + message.format(path=path) + "\n"


#: a hinged arm whose torque a Lookup of its angle gives (a table of two points)
LOOKUP = """
import numpy as np, mbd
from joints import Revolute
from forces import JointForce, Actuator


def build_model():
    m = mbd.Model("looked_up")
    g = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    b = m.add_body("arm", mass=1.0, cg=(0.5, 0, 0), inertia=np.diag([1e-3, .02, .02]),
                   cs={"pivot": (0, 0, 0)})
    hinge = m.add(Revolute("hinge", g, b["pivot"], axis=(0, 1, 0), q0=0.2))
    m.add(mbd.Sensor("angle", "hinge.q"))
    law = m.add(mbd.Lookup("lookup", mbd.Table([-1.0, 1.0], [3.0, -3.0], name="k"), "angle"))
    m.add(JointForce("torque", hinge, Actuator(law)))
    return m
"""


def test_set_changes_a_point_of_a_controllers_table(tmp_path, capsys):
    """--set lookup.table.y1=-2.5 on a Lookup: the check reports it; a point the table has not
    and a parameter the Lookup has not are named (status 2)."""
    path = script(tmp_path, LOOKUP)
    assert cli.main(["check", str(path), "--set", "lookup.table.y1=-2.5"]) == 0
    assert "settings: lookup.table.y1 = -2.5\n" in capsys.readouterr().out
    assert cli.main(["check", str(path), "--set", "lookup.table.y2=1"]) == 2
    assert capsys.readouterr().err == (
        "mbd check: --set 'lookup.table.y2=1': Lookup 'lookup': Table 'k' has no point 'y2': it "
        "has 2 points, xK (breakpoint K) or yK (value K), K = 0 to 1\n")
    assert cli.main(["check", str(path), "--set", "lookup.gain.y0=1"]) == 2
    assert capsys.readouterr().err.startswith(
        "mbd check: --set 'lookup.gain.y0=1': Lookup 'lookup' has no parameter 'gain'; its "
        "settable parameters are: ")
