"""``--set ELEMENT.PARAM.POINT=VALUE`` (issue 26): a point of a parameter holding a table
(TableForce's ``table``, a K given as a Table, a Lookup's ``table``, a Table2DForce's grid)
changed by name, through the command line as a user runs it, in-process, in a sweep's grid and
in an FMU's parameter list; every wrong form refused by a message naming it."""
import os
import subprocess
import sys

import numpy as np
import pytest
from scipy.optimize import brentq

import mbd
from forces import Actuator, JointForce, Table2DForce, TableForce, VariableRotationalSpring
from joints import Prismatic, Revolute
from mbd.exchange.variables import parameters
from mbd.model.errors import InputError
from mbd.study.scripts import apply_setting, load_script, model_of

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, os.pardir))
RUBBER = os.path.join(ROOT, "examples", "rubber_stop.py")
rubber = load_script(RUBBER)


def resting(table):
    """Where ``table`` carries the block's weight (m): the rubber stop's rest, F(c) = m g."""
    return brentq(lambda c: table(c) - rubber.MASS * rubber.G, 1e-6, rubber.CURVE[0][-1])


def by_name(model, name):
    return next(e for e in model.elements if getattr(e, "name", None) == name)


def test_set_a_table_point_from_the_command_line(tmp_path):
    """mbd run examples/rubber_stop.py --set stop.table.y3=40 (the curve's 60 N at 5 mm
    lowered to 40 N): the block comes to rest where the NEW curve carries its weight (the
    stop's force at the last row, at rest, is the new table's value there: m g), 0.2 mm deeper
    than on the script's curve; every row equals a run of the model made with the new table
    in the first place."""
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "mbd", "run", RUBBER, "--set",
                           "stop.table.y3=40", "--t-end", "2", "--out", str(out)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "settings: stop.table.y3 = 40.0" in proc.stdout
    csv = out / "rubber_stop.csv"
    header = csv.read_text().splitlines()[0].split(",")
    data = np.loadtxt(csv, delimiter=",", skiprows=1)
    q, v = data[:, header.index("fall.q")], data[:, header.index("fall.v")]
    new = rubber.stop_table().with_point("y3", 40.0)
    assert new.y[3] == 40.0 and new.kind == "pchip" and new.name == "rubber"
    assert abs(v[-1]) < 1e-7 and q[-1] == pytest.approx(resting(new), abs=1e-8)
    assert new(q[-1]) == pytest.approx(rubber.MASS * rubber.G, abs=1e-4)
    assert resting(new) - resting(rubber.stop_table()) > 1.5e-4
    # the model made with the new table from the start: the same rows
    model = mbd.Model("rubber_stop")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -rubber.G)))
    block = model.add_body("block", mass=rubber.MASS, cg=(0, 0, 0), inertia=np.eye(3) * 1e-3,
                           cs={"bottom": (0, 0, -0.02)})
    slide = model.add(Prismatic("fall", ground, block["cg"], axis=(0, 0, -1),
                                q0=-rubber.DROP))
    curve = mbd.Table((-1.0,) + rubber.CURVE[0], (0.0, 0.0, 15.0, 40.0) + rubber.CURVE[1][3:],
                      kind="pchip", extrapolate="linear")
    model.add(JointForce("stop", slide, TableForce(curve, d=rubber.DAMPING)))
    direct = model.build().simulate(2.0, output_step=rubber.OUTPUT_STEP, rtol=rubber.RTOL,
                                    atol=rubber.ATOL)
    np.testing.assert_allclose(q, direct.joint("fall").q, rtol=0, atol=1e-12)


def test_a_breakpoint_that_breaks_the_increase_is_refused_by_the_command_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "mbd", "check", RUBBER, "--set",
                           "stop.table.x3=0.001"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=600)
    assert proc.returncode == 2
    assert ("--set 'stop.table.x3=0.001': the TableForce law of 'stop': Table 'rubber': the "
            "breakpoints must increase strictly, got x[2] = 0.002 then x[3] = 0.001"
            ) in proc.stderr


def test_a_set_point_makes_a_new_table_law_and_element():
    """The element is replaced by a new one (same class and name) holding a new law and a new
    table; the old ones are unchanged; a second --set starts from the first."""
    model = model_of(rubber, RUBBER)
    old = by_name(model, "stop")
    old_y = old.law.table.y.copy()
    assert apply_setting(model, "stop.table.y5=900") == "stop.table.y5 = 900.0"
    apply_setting(model, "stop.table.x7=0.03")
    new = by_name(model, "stop")
    assert new is not old and type(new) is type(old) and new.law.d == old.law.d
    np.testing.assert_array_equal(old.law.table.y, old_y)
    assert new.law.table.y[5] == 900.0 and new.law.table.x[7] == 0.03
    assert new.law.table.extrapolate == "linear" and new.law.table.kind == "pchip"


@pytest.mark.parametrize("text, words", [
    ("stop.table.y8=1", "Table 'rubber' has no point 'y8': it has 8 points, xK (breakpoint K) "
                        "or yK (value K), K = 0 to 7"),
    ("stop.table.q1=1", "Table 'rubber' has no point 'q1': a point of a table is xK "
                        "(breakpoint K) or yK (value K), K = 0 to 7"),
    ("stop.table.z1_1=1", "Table 'rubber' has no point 'z1_1'"),
    ("stop.d.y1=2", "the TableForce law of 'stop' has d = 40.0, not a table: stop.d.POINT "
                    "sets a point of a parameter holding a Table or Table2D; set a number as "
                    "stop.d=VALUE"),
    ("stop.tab.y1=2", "the TableForce law of 'stop' has no parameter 'tab'; its parameters "
                      "are: table, d"),
    ("stop.table=3", "the TableForce law of 'stop' has table given as Table('rubber': 8 "
                     "points, pchip, extrapolate='linear'): a table is changed one point at a "
                     "time, stop.table.POINT=VALUE with POINT xK or yK (K = 0 to 7)"),
    ("stop.table.y1=1,2", "a table's point takes one number, got (1.0, 2.0)"),
    ("block.mass.y1=2", "body 'block' holds no table"),
    ("fall.q0.y1=2", "Prismatic 'fall' holds no table"),
    ("nothing.table.y1=2", "no body, joint or force element named 'nothing.table' (nor, for a "
                           "table's point ELEMENT.PARAM.POINT, one named 'nothing')"),
], ids=["index", "form", "2-D form of a 1-D table", "not a table", "no parameter",
        "a whole table", "not one number", "a body", "a joint", "no element"])
def test_wrong_table_points_are_named(text, words):
    model = model_of(rubber, RUBBER)
    before = list(model.elements)
    with pytest.raises(InputError) as err:
        apply_setting(model, text)
    assert f"--set {text!r}: " in str(err.value) and words in str(err.value)
    assert model.elements == before                  # a refused --set changes nothing


def pendulum(k=None, lookup=None, sets=()):
    """A hinged arm (no gravity) from 0.2 rad, with a VariableRotationalSpring of K ``k`` (a
    Table of time) or a Lookup of its angle driving a torque; the ``sets`` applied; its run."""
    model = mbd.Model("p")
    g = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    b = model.add_body("arm", mass=1.0, cg=(0.5, 0, 0), inertia=np.diag([1e-3, .02, .02]),
                       cs={"pivot": (0, 0, 0)})
    hinge = model.add(Revolute("hinge", g, b["pivot"], axis=(0, 1, 0), q0=0.2))
    if k is not None:
        model.add(JointForce("spring", hinge, VariableRotationalSpring(K=k, K_min=0.5)))
    if lookup is not None:
        model.add(mbd.Sensor("angle", "hinge.q"))
        law = model.add(mbd.Lookup("lookup", lookup, "angle"))
        model.add(JointForce("torque", hinge, Actuator(law)))
    for text in sets:
        apply_setting(model, text)
    return model, model.build().simulate(1.0, output_step=0.01, rtol=1e-10, atol=1e-12)


def test_a_stiffness_table_of_time_and_a_lookups_table_take_a_set_point():
    """spring.K.y0=4 and lookup.table.y1=-2.5 run as the models made with those tables (the
    same rows), and differ from the models without the change."""
    times, ks = [0.0, 0.5, 1.0], [2.0, 8.0, 4.0]
    model, a = pendulum(k=mbd.Table(times, ks), sets=["spring.K.y0=4"])
    assert by_name(model, "spring").law.K.y.tolist() == [4.0, 8.0, 4.0]
    _, b = pendulum(k=mbd.Table(times, [4.0, 8.0, 4.0]))
    _, c = pendulum(k=mbd.Table(times, ks))
    np.testing.assert_array_equal(a.joint("hinge").q, b.joint("hinge").q)
    assert np.abs(a.joint("hinge").q - c.joint("hinge").q).max() > 1e-3
    curve = mbd.Table([-1.0, 1.0], [3.0, -3.0], extrapolate="linear", name="k")
    model, d = pendulum(lookup=curve, sets=["lookup.table.y1=-2.5"])
    assert by_name(model, "lookup").table.y.tolist() == [3.0, -2.5]
    _, e = pendulum(lookup=mbd.Table([-1.0, 1.0], [3.0, -2.5], extrapolate="linear"))
    _, f = pendulum(lookup=curve)
    np.testing.assert_array_equal(d.joint("hinge").q, e.joint("hinge").q)
    assert np.abs(d.joint("hinge").q - f.joint("hinge").q).max() > 1e-3
    with pytest.raises(InputError, match=r"Lookup 'lookup' has table given as Table\('k'"):
        pendulum(lookup=curve, sets=["lookup.table=1"])
    with pytest.raises(InputError, match="Lookup 'lookup': Table 'k' has no point 'y2': it has "
                                         "2 points"):
        pendulum(lookup=curve, sets=["lookup.table.y2=1"])
    with pytest.raises(InputError, match="Lookup 'lookup' has no parameter 'gain'; its "
                                         "settable parameters are: table"):
        pendulum(lookup=curve, sets=["lookup.gain.y0=1"])


def test_a_table2d_force_takes_grid_points():
    model = mbd.Model("m")
    g = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    b = model.add_body("block", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3))
    slide = model.add(Prismatic("slide", g, b["cg"], axis=(1, 0, 0)))
    grid = mbd.Table2D([0.0, 1.0, 2.0], [-1.0, 1.0], [[0, 1], [2, 3], [4, 5]], name="map")
    model.add(JointForce("damper", slide, Table2DForce(grid)))
    apply_setting(model, "damper.table.z1_0=7")
    apply_setting(model, "damper.table.y1=2")
    table = by_name(model, "damper").law.table
    assert table.z.tolist() == [[0, 1], [7, 3], [4, 5]] and table.y.tolist() == [-1.0, 2.0]
    for text, words in [
            ("damper.table.z3_0=1", "Table2D 'map' has no point 'z3_0': it is a 3 x 2 grid, its "
                                    "points are xI (breakpoint I of u, I = 0 to 2), yJ "
                                    "(breakpoint J of w, J = 0 to 1) or zI_J"),
            ("damper.table.w1=1", "Table2D 'map' has no point 'w1': a point of a 2-D table is "
                                  "xI"),
            ("damper.table.x1=3", "Table2D 'map': the breakpoints x must increase strictly, got "
                                  "x[1] = 3.0 then x[2] = 2.0"),
            ("damper.table=1", "with POINT xI, yJ or zI_J (I = 0 to 2, J = 0 to 1)")]:
        with pytest.raises(InputError) as err:
            apply_setting(model, text)
        assert words in str(err.value), str(err.value)


def test_a_sweep_over_table_points():
    """A grid over a value and a breakpoint of the stop's curve: every run rests where its
    own curve carries the weight; a grid value that breaks the curve is refused before any
    run, naming the table."""
    grid = {"stop.table.y3": [40.0, 80.0], "stop.table.x3": [0.004, 0.005]}
    table = mbd.sweep(RUBBER, grid, 2.0, outputs={"rest": "final:joint.fall.q"}, workers=1,
                      progress=False)
    assert list(table["status"]) == ["ok"] * 4
    for _, row in table.iterrows():
        curve = rubber.stop_table().with_point("y3", row["stop.table.y3"]).with_point(
            "x3", row["stop.table.x3"])
        assert row["rest"] == pytest.approx(resting(curve), abs=1e-8)
    assert table["rest"].nunique() == 4
    with pytest.raises(InputError, match=r"sweep: stop.table.x3 = 0.001: the TableForce law "
                                         r"of 'stop': Table 'rubber': the breakpoints must "
                                         r"increase strictly"):
        mbd.sweep(RUBBER, {"stop.table.x3": [0.001]}, 2.0, outputs={"rest":
                  "final:joint.fall.q"}, workers=1, progress=False)


def test_the_fmu_parameters_list_the_table_points_as_set_names_them():
    """The FMU's parameter list (what --set can change) holds every point of the stop's curve,
    with its unit; a point set through its name acts as --set does."""
    model = model_of(rubber, RUBBER)
    found = {v.name: v for v in parameters(model, model.build())}
    assert found["stop.d"].unit == "N.s/m"
    for k, (x, y) in enumerate(zip(rubber.stop_table().x, rubber.stop_table().y)):
        assert (found[f"stop.table.x{k}"].start, found[f"stop.table.x{k}"].unit) == (x, "m")
        assert (found[f"stop.table.y{k}"].start, found[f"stop.table.y{k}"].unit) == (y, "N")
    assert "stop.table.x8" not in found and "stop.table" not in found
    # a K(t) table: x in s, y in K's unit; a Lookup's: no unit
    model, _ = pendulum(k=mbd.Table([0.0, 1.0], [2.0, 3.0]))
    found = {v.name: v for v in parameters(model, model.build())}
    assert (found["spring.K.x1"].unit, found["spring.K.y1"].unit) == ("s", "N.m/rad")
    model, _ = pendulum(lookup=mbd.Table([-1.0, 1.0], [3.0, -3.0]))
    found = {v.name: v for v in parameters(model, model.build())}
    assert (found["lookup.table.y0"].start, found["lookup.table.y0"].unit) == (3.0, "")


def test_an_fmu_takes_a_table_point_as_a_parameter(tmp_path):
    """The rubber stop's FMU run by FMPy with the start value stop.table.y3 = 40: the block
    rests where the new curve carries its weight, as with --set."""
    from fmpy import simulate_fmu
    with pytest.warns(UserWarning, match="declares no Input"):
        path = mbd.export_fmu(RUBBER, tmp_path / "rubber.fmu")
    result = simulate_fmu(path, stop_time=2.0, output_interval=0.1, output=["compression"],
                          start_values={"stop.table.y3": 40.0})
    new = rubber.stop_table().with_point("y3", 40.0)
    assert result["compression"][-1] == pytest.approx(resting(new), abs=1e-8)
