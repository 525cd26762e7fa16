"""Paths of :func:`mbd.sweep` no other test walks (issue 31): malformed grids and outputs,
worker counts, column clashes, resuming into a folder whose table or run files changed, a
case 0 that does not build, a run whose output fails, a worker process that dies, Dask
missing, a scheduler of the wrong kind or out of reach. Each asserts the exception and its
exact message, and what is (not) written into ``out``.

Model: ``examples/bistop_slot.py`` for 0.05 s of free flight (x_end = q0 + v0 t), and small
scripts written here."""
import math
import pathlib
import socket
import sys

import numpy as np
import pytest

import mbd
from mbd.study import cases as study_cases
from mbd.study import sweeps as study
from tests.mbd.cli.test_cli import script
from tests.mbd.cli.test_cli_paths import DYING

from .test_sweep import SLOT, rows_on_disk

T = 0.05
X_END = {"x_end": "final:joint.slide.q"}


def run(out, grid=None, outputs=None, **options):
    """mbd.sweep of SLOT for T s into ``out`` (one local worker unless a scheduler is
    given, no bar)."""
    local = {} if "scheduler" in options else dict(workers=1)
    return mbd.sweep(SLOT, {"slide.v0": [1.0, 2.0]} if grid is None else grid, T,
                     outputs=X_END if outputs is None else outputs, out=out,
                     **dict(dict(local, progress=False), **options))


# ----------------------------------------------------------------------------- the grid

GRIDS = [
    pytest.param({}, "sweep: the grid is empty: give {name: [values, ...]}", id="empty-dict"),
    pytest.param([], "sweep: the list of cases is empty", id="no-cases"),
    pytest.param([{}], "sweep: case 0 sets no parameter", id="an-empty-case"),
    pytest.param([{"slide.v0": 1.0}, 5], "sweep: a case must be a dict {name: value}, got 5",
                 id="a-case-not-a-dict"),
    pytest.param({"slide.v0": 5.0}, "sweep: grid 'slide.v0': give a list of values, got 5.0",
                 id="one-number"),
    pytest.param({"slide.v0": "12"}, "sweep: grid 'slide.v0': give a list of values, got '12'",
                 id="a-string"),
    pytest.param({"slide.v0": [()]}, "sweep: grid: slide.v0: an empty value", id="empty-tuple"),
    pytest.param({3: [1.0]}, "sweep: grid: a parameter name must be a string NAME.PARAM (e.g. "
                 "'strap.k'), got 3", id="name-not-a-string"),
    pytest.param("slide.v0=1,2", "sweep: grid must be a dict {name: [values]} or a list of "
                 "dicts (cases), got str", id="a-command-line-string"),
    pytest.param([{"slide.v0": 1.0}, {"slide.v0": math.inf}],
                 "sweep: case 1: slide.v0: a value must be finite, got inf", id="inf-in-a-case"),
]


@pytest.mark.parametrize("grid, message", GRIDS)
def test_a_malformed_grid_is_named_before_anything_is_written(tmp_path, grid, message):
    out = tmp_path / "study"
    with pytest.raises(mbd.InputError) as caught:
        run(out, grid)
    assert str(caught.value) == message
    assert not out.exists()


# ----------------------------------------------------------------------------- the outputs

def not_a_number(result):
    """A picklable output function that returns text."""
    return "abc"


def divides_by_zero(result):
    """A picklable output function that raises."""
    return 1 / 0


def speed(result):
    return float(abs(result.joint("slide").v[-1]))


OUTPUTS = [
    pytest.param(["x_end"], mbd.InputError, "sweep: outputs must be a dict {column: "
                 "'REDUCTION:QUANTITY' or a function of a Result}, got list", id="a-list"),
    pytest.param({"": "final:joint.slide.q"}, mbd.InputError, "sweep: an output's column name "
                 "must be a non-empty string, got ''", id="empty-column"),
    pytest.param({"x": 3}, mbd.InputError, "sweep: output 'x': 3 is not 'REDUCTION:QUANTITY' "
                 "(e.g. 'max:force.stop.value') or a function of a Result", id="a-number"),
    pytest.param({"x": "count:joint.slide"}, mbd.InputError, "sweep: output 'x': count: reads "
                 "the event log: 'count:events.NAME', got 'count:joint.slide'",
                 id="count-of-a-joint"),
    pytest.param({"x": "final:joint.slide"}, mbd.InputError, "sweep: output 'x': "
                 "'joint.slide' is not joint.NAME.q|v[.K]", id="joint-without-q-or-v"),
    pytest.param({"x": "final:joint.slide.q.a"}, mbd.InputError, "sweep: output 'x': "
                 "'joint.slide.q.a' is not joint.NAME.q|v[.K]", id="coordinate-not-a-number"),
    pytest.param({"x": "final:body.block.cg"}, mbd.InputError, "sweep: output 'x': "
                 "'body.block.cg' is not body.NAME.CS.x|y|z", id="body-without-axis"),
    pytest.param({"x": "final:energy.kinetic"}, mbd.InputError, "sweep: output 'x': "
                 "'energy.kinetic' is not energy", id="energy-with-a-part"),
    pytest.param({"x": "final:force.slot.value.0"}, mbd.InputError, "sweep: output 'x' "
                 "(final:force.slot.value.0): 'slot' has one value", id="component-of-a-scalar"),
    pytest.param({"x": "final:body.lid.cg.x"}, mbd.InputError, "sweep: output 'x' "
                 "(final:body.lid.cg.x): no body 'lid'; the bodies are: block", id="no-such-body"),
    pytest.param({"x": "final:joint.slide.v.3"}, mbd.InputError, "sweep: output 'x' "
                 "(final:joint.slide.v.3): joint 'slide' has 1 v coordinate(s), 0 to 0",
                 id="coordinate-out-of-range"),
    pytest.param({"slide.v0": "final:joint.slide.v"}, mbd.InputError, "sweep: the column "
                 "name(s) ['slide.v0'] are taken (parameters, run, status, t_reached, wall_s, "
                 "result, outputs must differ)", id="column-of-a-parameter"),
    pytest.param({"wall_s": "final:joint.slide.v", "run": "max:energy"}, mbd.InputError,
                 "sweep: the column name(s) ['run', 'wall_s'] are taken (parameters, run, "
                 "status, t_reached, wall_s, result, outputs must differ)",
                 id="columns-of-the-table"),
]


@pytest.mark.parametrize("outputs, error, message", OUTPUTS)
def test_a_bad_output_is_named_before_anything_is_written(tmp_path, outputs, error, message):
    out = tmp_path / "study"
    with pytest.raises(error) as caught:
        run(out, outputs=outputs)
    assert str(caught.value) == message
    assert not out.exists()


def test_an_output_function_that_cannot_reach_the_workers_is_refused(tmp_path):
    out = tmp_path / "study"
    with pytest.raises(TypeError) as caught:
        run(out, outputs={"v": lambda result: 0.0})
    assert str(caught.value).startswith("sweep: output 'v': the function cannot be sent to "
                                        "workers (")
    assert "define it at the top level of a module that can be imported by name" in str(
        caught.value)
    assert not out.exists()


def test_an_output_function_that_fails_fails_its_run_only(tmp_path):
    """An output function that raises, or returns no number: each run's status is that error,
    its outputs nan (the others too: the run's row is a failed one), its result kept; a
    working function beside them is as the loop computes it (|v| = v0, free flight)."""
    out = tmp_path / "study"
    table = run(out, outputs={"speed": speed, "bad": not_a_number})
    assert list(table["status"]) == ["ValueError: output 'bad': the function returned 'abc', "
                                     "not a number"] * 2
    assert table.attrs["failed"] == 2
    assert all(math.isnan(x) for x in table["speed"]) and all(math.isnan(x) for x in table["bad"])
    assert [(out / r).is_file() for r in table["result"]] == [True, True]
    assert list(table["t_reached"]) == [T, T]
    table = run(tmp_path / "other", outputs={"speed": speed, "zero": divides_by_zero})
    assert list(table["status"]) == ["ZeroDivisionError: division by zero"] * 2
    table = run(tmp_path / "good", outputs={"speed": speed})
    assert list(table["speed"]) == [1.0, 2.0] and list(table["status"]) == ["ok", "ok"]


# ----------------------------------------------------------------------------- where it runs

@pytest.mark.parametrize("workers", [0, -1, 1.5, True, "2"])
def test_a_bad_worker_count_is_named_before_anything_is_written(tmp_path, workers):
    out = tmp_path / "study"
    with pytest.raises(mbd.InputError) as caught:
        run(out, workers=workers)
    assert str(caught.value) == f"sweep: workers must be an integer >= 1, got {workers!r}"
    assert not out.exists()


def test_a_scheduler_of_the_wrong_kind_is_named_before_anything_is_written(tmp_path):
    pytest.importorskip("dask.distributed")
    out = tmp_path / "study"
    with pytest.raises(TypeError) as caught:
        run(out, scheduler=8786)
    assert str(caught.value) == ("sweep: scheduler must be None, an address "
                                 "('tcp://host:8786') or a dask.distributed.Client, got int")
    assert not out.exists()


def test_workers_with_a_scheduler_are_refused_not_ignored(tmp_path):
    """Local worker processes and a Dask cluster exclude each other: --workers beside
    --scheduler was silently dropped; now it is named, before anything is written."""
    out = tmp_path / "study"
    with pytest.raises(mbd.InputError) as caught:
        run(out, scheduler="tcp://127.0.0.1:8786", workers=4)
    assert str(caught.value) == (
        "sweep: workers=4 sets the local worker processes; with "
        "scheduler='tcp://127.0.0.1:8786' the runs go to that Dask cluster's workers (start "
        "more there): give one or the other")
    assert not out.exists()


def test_a_scheduler_without_dask_installed_is_named_before_anything_is_written(tmp_path,
                                                                               monkeypatch):
    monkeypatch.setitem(sys.modules, "dask", None)
    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    out = tmp_path / "study"
    with pytest.raises(mbd.InputError) as caught:
        run(out, scheduler="tcp://127.0.0.1:8786")
    assert str(caught.value) == ("sweep: a Dask scheduler was given but dask.distributed is "
                                 "not installed: pip install 'mbd[cluster]'")
    assert not out.exists()


# ----------------------------------------------------------------------------- the model

def not_a_model():
    return 42


@pytest.mark.parametrize("source, error, message", [
    (3, TypeError, "sweep: model_source must be a model script's path or a function returning "
                   "an mbd.Model, got int"),
    (not_a_model, mbd.InputError, f"sweep: the model function {__name__}.not_a_model returned "
                                  "int, not an mbd.Model"),
])
def test_a_model_source_that_is_no_model_is_named(tmp_path, source, error, message):
    out = tmp_path / "study"
    with pytest.raises(error) as caught:
        mbd.sweep(source, {"slide.v0": [1.0]}, T, outputs=X_END, out=out, workers=1)
    assert str(caught.value) == message
    assert not out.exists()


BROKEN = """
import numpy as np
import mbd
from joints import Prismatic, Revolute
T_END = 0.05


def build_model():
    m = mbd.Model("broken")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    b = m.add_body("block", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3) * 1e-3)
    m.add(Prismatic("slide", g, b["cg"], axis=(0, 0, 1)))
    m.add(Revolute("slide", g, b["cg"], axis=(0, 0, 0)))
    return m
"""


def test_a_case_0_that_does_not_build_is_named_with_every_problem(tmp_path):
    """A model that does not build: an InputError before anything is written, listing the
    build's problems (the repeated name and the zero axis, each naming its element)."""
    path = script(tmp_path, BROKEN)
    out = tmp_path / "study"
    with pytest.raises(mbd.InputError) as caught:
        mbd.sweep(str(path), {"block.mass": [1.0, 2.0]}, outputs={"z": "final:joint.slide.q"},
                  out=out, workers=1)
    assert str(caught.value) == (
        "sweep: the model of case 0 cannot be built: 2 problems:\n"
        "  - duplicate name 'slide': used by Prismatic 'slide', Revolute 'slide'; names must "
        "be unique within a model\n"
        "  - Revolute 'slide': primitive 0 (R) has a zero-length or non-finite axis "
        "[0.0, 0.0, 0.0]")
    assert not out.exists()


#: a model whose build refuses the case of mass 13 kg (in a worker: case 0 builds)
UNLUCKY = """
import numpy as np
import mbd
from joints import Prismatic
T_END = 0.05


class UnluckyModel(mbd.Model):
    def build(self):
        if self.bodies[0].mass == 13.0:
            raise mbd.ModelError(["body 'block': a mass of 13 kg is refused by this model"])
        return super().build()


def build_model():
    m = UnluckyModel("unlucky")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    b = m.add_body("block", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3) * 1e-3)
    m.add(Prismatic("slide", g, b["cg"], axis=(0, 0, 1)))
    return m
"""


def test_a_later_case_that_does_not_build_is_a_failed_row(tmp_path):
    """Case 0 builds, case 1 does not: case 1's row holds the ModelError, no result and t_reached
    nan; the others run (a fall of 0.5 g t^2)."""
    path = script(tmp_path, UNLUCKY)
    out = tmp_path / "study"
    table = mbd.sweep(str(path), {"block.mass": [1.0, 13.0, 2.0]},
                      outputs={"z": "final:joint.slide.q"}, out=out, workers=1, progress=False)
    assert list(table["status"]) == [
        "ok", "ModelError: body 'block': a mass of 13 kg is refused by this model", "ok"]
    assert table["result"][1] == "" and math.isnan(table["t_reached"][1])
    assert math.isnan(table["z"][1])
    fall = -0.5 * 9.81 * T ** 2
    assert [table["z"][0], table["z"][2]] == pytest.approx([fall, fall], rel=1e-9)
    assert table.attrs["failed"] == 1


def test_a_worker_that_dies_raises_worker_died_and_the_table_keeps_the_runs_before(tmp_path):
    """One worker; the second case ends its process (os._exit): WorkerDied (a RuntimeError)
    saying so; the first case's row and .npz are on disk, the others are not; the same sweep
    without that case resumes, running only the third."""
    path = script(tmp_path, DYING)
    out = tmp_path / "study"
    args = dict(outputs={"z": "final:joint.slide.q"}, out=out, workers=1, progress=False)
    with pytest.raises(study.WorkerDied) as caught:
        mbd.sweep(str(path), {"block.mass": [1.0, 13.0, 2.0]}, **args)
    assert isinstance(caught.value, RuntimeError)
    assert str(caught.value) == (
        "sweep: a worker process died (killed, out of memory, or it could not start: a script "
        "that calls mbd.sweep on a machine that spawns workers must call it under 'if __name__ "
        "== \"__main__\":'); the runs finished so far are in the table on disk, and the same "
        "sweep into the same out resumes")
    rows = rows_on_disk(out)
    assert [(r["block.mass"], r["status"]) for r in rows] == [("1.0", "ok")]
    assert len(list(out.glob("runs/*.npz"))) == 1
    again = mbd.sweep(str(path), {"block.mass": [1.0, 2.0]}, **args)
    assert (again.attrs["ran"], again.attrs["reused"], again.attrs["failed"]) == (1, 1, 0)


# ----------------------------------------------------------------------------- resuming

def test_a_lost_run_file_is_run_again_and_the_others_are_kept(tmp_path):
    """One .npz of two deleted: the same sweep runs that case again (ran 1, reused 1), writes
    its file back, and its outputs are those of the first sweep; the other file is not
    rewritten."""
    out = tmp_path / "study"
    first = run(out)
    lost, kept = out / first["result"][0], out / first["result"][1]
    stamp = kept.stat().st_mtime_ns
    lost.unlink()
    again = run(out)
    assert (again.attrs["ran"], again.attrs["reused"]) == (1, 1)
    assert lost.is_file() and kept.stat().st_mtime_ns == stamp
    assert list(again["x_end"]) == list(first["x_end"])
    with np.load(lost) as data:
        assert data["slide.q"][-1] == first["x_end"][0]


def test_a_table_of_other_columns_is_another_study(tmp_path):
    """A folder whose sweep.json is gone but whose sweep.csv has other columns (other outputs):
    the sweep is refused, naming the file and both column lists; the table is left as it
    was."""
    out = tmp_path / "study"
    run(out)
    (out / "sweep.json").unlink()
    before = (out / "sweep.csv").read_bytes()
    with pytest.raises(mbd.InputError) as caught:
        run(out, outputs={"v_end": "final:joint.slide.v"})
    assert str(caught.value) == (
        f"sweep: {out / 'sweep.csv'} has the columns ['slide.v0', 'run', 'status', 'x_end', "
        "'t_reached', 'wall_s', 'result'], this sweep makes ['slide.v0', 'run', 'status', "
        "'v_end', 't_reached', 'wall_s', 'result']: it is another study; give another out "
        "folder")
    assert (out / "sweep.csv").read_bytes() == before


def test_a_study_description_that_is_not_json_is_another_study(tmp_path):
    out = tmp_path / "study"
    run(out)
    (out / "sweep.json").write_text("{not json")
    with pytest.raises(mbd.InputError) as caught:
        run(out)
    assert str(caught.value) == (f"sweep: the folder {out} holds another study (it differs in: "
                                 "everything); give another out folder, or empty it")


def test_an_out_that_is_a_file_is_named(tmp_path):
    out = tmp_path / "study"
    out.write_text("mine")
    with pytest.raises(mbd.InputError) as caught:
        run(out)
    assert str(caught.value) == (f"sweep: out {str(out)!r}: {out} is a file, not a directory: "
                                 "--out names the folder the results are written into (made if "
                                 "missing)")
    assert out.read_text() == "mine"


def test_a_script_edited_after_the_sweep_started_is_run_as_it_was(tmp_path):
    """The sweep ships the script's text: a worker (or this process) whose copy of the file
    changed imports the text the sweep read, from a folder of its own."""
    with open(SLOT, encoding="utf-8") as fh:
        path = script(tmp_path, fh.read(), name="slot.py")
    source = study_cases.Source(str(path))
    path.write_text(path.read_text().replace("MASS, X0, V0 = 1.0, 5.0, 6.0",
                                             "MASS, X0, V0 = 2.0, 5.0, 6.0"))
    module = source.module()
    assert module.__file__ != str(path) and module.MASS == 1.0
    assert source.model().bodies[0].mass == 1.0


SCREW = """
import numpy as np
import mbd
from joints import Cylindrical
T_END = 0.05


def build_model():
    m = mbd.Model("screw")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, 0)))
    b = m.add_body("nut", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3) * 1e-3)
    m.add(Cylindrical("cyl", g, b["cg"], axis=(0, 0, 1)))
    return m
"""


def test_a_joint_of_two_coordinates_is_swept_by_pairs_and_resumed(tmp_path):
    """A Cylindrical joint's q0 = (s, phi) swept as pairs: each run holds its start (nothing
    moves: no gravity, no speed), the table's cells are the pairs (sweep.csv "0.1,0.2"), and
    the same sweep again reads them back as the same pairs and finds every run."""
    path = script(tmp_path, SCREW)
    out = tmp_path / "study"
    grid = {"cyl.q0": [(0.1, 0.2), (0.3, -0.4)]}
    outputs = {"s": "final:joint.cyl.q.0", "phi": "final:joint.cyl.q.1"}
    first = mbd.sweep(str(path), grid, outputs=outputs, out=out, workers=1, progress=False)
    assert list(first["cyl.q0"]) == grid["cyl.q0"]
    assert list(zip(first["s"], first["phi"])) == grid["cyl.q0"]
    assert [r["cyl.q0"] for r in rows_on_disk(out)] == ["0.1,0.2", "0.3,-0.4"]
    assert first.attrs["units"] == {"cyl.q0": "", "s": "m", "phi": "rad", "t_reached": "s",
                                    "wall_s": "s"}
    again = mbd.sweep(str(path), grid, outputs=outputs, out=out, workers=1, progress=False)
    assert (again.attrs["ran"], again.attrs["reused"]) == (0, 2)
    assert list(again["cyl.q0"]) == grid["cyl.q0"] and list(again["run"]) == list(first["run"])


RUBBER = str(pathlib.Path(SLOT).parent / "rubber_stop.py")


def test_the_units_of_a_table_points_columns(tmp_path):
    """examples/rubber_stop.py's TableForce on a slider: a point of its table is in m (x) or N
    (y), its damping d in N.s/m, the slider's travel m, the stop's force N (the units the law
    declares, read on a translational coordinate)."""
    from mbd.study import scripts
    table = scripts.load_script(RUBBER).stop_table()
    grid = {"stop.table.x3": [float(table.x[3])], "stop.table.y2": [float(table.y[2])],
            "stop.d": [40.0]}
    swept = mbd.sweep(RUBBER, grid, 0.01, outputs={"c": "max:joint.fall.q",
                                                   "f": "max:force.stop.value"},
                      workers=1, progress=False)
    assert swept.attrs["units"] == {"stop.table.x3": "m", "stop.table.y2": "N", "stop.d": "N.s/m",
                                    "c": "m", "f": "N", "t_reached": "s", "wall_s": "s"}
    assert list(swept["status"]) == ["ok"]


EXTERNAL = str(pathlib.Path(SLOT).parent / "external_controller.py")


def arm_on_an_input():
    """examples/external_controller.py's arm driven by its Input 'torque' (N.m)."""
    from mbd.study import scripts
    return scripts.load_script(EXTERNAL).build_model(internal=False)


def test_the_units_of_an_inputs_a_controllers_and_a_joints_columns(tmp_path):
    """The arm of examples/external_controller.py: an Input's value has the unit it was given
    (N.m), a controller's period s (its gains none: they have the units of their signals), a
    hinge's v0 rad/s and its angle rad. 20 N.m held over 0.01 s lifts the arm (1 kg, its CG
    0.5 m out, I = 0.08 + 0.5^2 kg m^2 about the hinge) from rest against its weight's 4.905
    N.m: q = (20 - 4.905) t^2 / (2 I) (the angle stays small: the weight's torque constant)."""
    swept = mbd.sweep(arm_on_an_input, {"torque.value": [20.0], "hinge.v0": [0.0]}, 0.01,
                      outputs={"a": "final:joint.hinge.q"}, workers=1, progress=False)
    assert swept.attrs["units"] == {"torque.value": "N.m", "hinge.v0": "rad/s", "a": "rad",
                                    "t_reached": "s", "wall_s": "s"}
    assert list(swept["status"]) == ["ok"]
    assert swept["a"][0] == pytest.approx((20.0 - 9.81 * 0.5) * 0.01 ** 2 / (2 * 0.33),
                                          rel=1e-4)
    swept = mbd.sweep(EXTERNAL, {"pid.period": [2e-3], "pid.kp": [5.0]}, 0.01,
                      outputs={"a": "final:joint.hinge.q"}, workers=1, progress=False)
    assert swept.attrs["units"] == {"pid.period": "s", "pid.kp": "", "a": "rad",
                                    "t_reached": "s", "wall_s": "s"}
    assert list(swept["status"]) == ["ok"]


#: a hinged arm on a torsion spring whose stiffness is a Table of time
SPRING_OF_TIME = """
import numpy as np, mbd
from joints import Revolute
from forces import JointForce, VariableRotationalSpring
T_END = 0.01


def build_model():
    m = mbd.Model("stiffening")
    g = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    b = m.add_body("arm", mass=1.0, cg=(0.5, 0, 0), inertia=np.diag([1e-3, .02, .02]),
                   cs={"pivot": (0, 0, 0)})
    hinge = m.add(Revolute("hinge", g, b["pivot"], axis=(0, 1, 0), q0=0.2))
    m.add(JointForce("spring", hinge, VariableRotationalSpring(
        K=mbd.Table([0.0, 0.5, 1.0], [2.0, 8.0, 4.0]), K_min=0.5)))
    return m
"""


def test_the_units_of_a_point_of_a_table_of_time(tmp_path):
    """A stiffness given as a Table of time K(t): its breakpoints are in s, its values in the
    stiffness's unit on a hinge (N.m/rad), the spring's own K_min too."""
    path = script(tmp_path, SPRING_OF_TIME)
    swept = mbd.sweep(str(path), {"spring.K.x1": [0.4], "spring.K.y1": [6.0],
                                  "spring.K_min": [1.0]},
                      outputs={"a": "final:joint.hinge.q"}, workers=1, progress=False)
    assert swept.attrs["units"] == {"spring.K.x1": "s", "spring.K.y1": "N.m/rad",
                                    "spring.K_min": "N.m/rad", "a": "rad", "t_reached": "s",
                                    "wall_s": "s"}
    assert list(swept["status"]) == ["ok"]


# ----------------------------------------------------------------------------- out of reach
# (last: a Dask client leaves threads in this process, after which local sweeps spawn)

def test_a_scheduler_out_of_reach_is_named(tmp_path, monkeypatch):
    """A scheduler address where nothing listens (a port just freed): an InputError naming
    the address and Dask's reason after the connect timeout (1 s here); no run is made."""
    pytest.importorskip("dask.distributed")
    monkeypatch.setattr(study, "CONNECT_TIMEOUT", "1s")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    out = tmp_path / "study"
    with pytest.raises(mbd.InputError) as caught:
        run(out, scheduler=address)
    assert str(caught.value) == (f"sweep: cannot reach the Dask scheduler at {address}: Timed "
                                 f"out trying to connect to {address} after 1 s")
    assert rows_on_disk(out) == [] and not list(out.glob("runs/*.npz"))


def test_a_scheduler_address_that_is_not_one_is_named(tmp_path):
    pytest.importorskip("dask.distributed")
    out = tmp_path / "study"
    with pytest.raises(mbd.InputError) as caught:
        run(out, scheduler="tcp://127.0.0.1:port")
    assert str(caught.value) == (
        "sweep: the scheduler 'tcp://127.0.0.1:port' is not a Dask scheduler's address "
        "(invalid literal for int() with base 10: 'port'): give tcp://HOST:PORT, e.g. "
        "tcp://127.0.0.1:8786")
    assert rows_on_disk(out) == [] and not list(out.glob("runs/*.npz"))
