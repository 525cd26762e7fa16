"""A result's CSV says its units and writes times as an engineer reads them (issue 45: no units,
times as ``0.029999999999999999``).

The CSV stays a plain table (names, then rows: any reader takes it as it is); its units go to
the file beside it, ``NAME.units.csv`` (the names, then the units). The units are checked against each column's quantity, told from the model as the test
builds it (a joint's primitives: m, rad or a quaternion's pure number; a CG coordinate; an
energy or a work); the time column against the decimals k / 100 of an output step of 0.01 s
and the exact event times; the file read back by ``mbd.read_csv``, numpy and pandas, and
written by ``mbd run``."""
import os
import subprocess
import sys

import numpy as np
import pytest

import mbd
from forces import ElastoBacklash, JointForce
from joints import Cylindrical, Revolute, Spherical

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, os.pardir))
EARTH = mbd.Environment(gravity=(0.0, 0.0, -9.81))

#: each primitive's coordinates: (q units, v units)
PRIMITIVE_UNITS = {"P": (["m"], ["m/s"]), "R": (["rad"], ["rad/s"]),
                   "S": (["1"] * 4, ["rad/s"] * 3)}


def chain():
    """A carriage sliding and turning on a rod (Cylindrical), an arm hinged to it with a
    backlash stop (Revolute: events), a ball on a spherical joint at the arm's end."""
    model = mbd.Model("chain")
    ground = model.add_ground("ground", environment=EARTH)
    carriage = model.add_body("carriage", mass=2.0, cg=(0, 0, 0), inertia=[0.01, 0.02, 0.02],
                              cs={"o": (0, 0, 0)})
    arm = model.add_body("arm", mass=1.0, cg=(0.25, 0, 0), inertia=[1e-3, 0.02, 0.02],
                         cs={"pin": (0, 0, 0), "end": (0.5, 0, 0)})
    ball = model.add_body("ball", mass=0.5, cg=(0.5, 0, -0.2), inertia=[2e-3] * 3,
                          cs={"socket": (0.5, 0, 0)})
    model.add(Cylindrical("rod", ground, carriage["o"], axis=(1, 0, 0), v0=(0.3, 1.0)))
    hinge = model.add(Revolute("hinge", carriage["o"], arm["pin"], axis=(0, 1, 0), v0=2.0))
    model.add(JointForce("stop", hinge, ElastoBacklash(c=1e3, d=1.0, b=0.3)))
    model.add(Spherical("socket", arm["end"], ball["socket"], v0=(0.0, 0.5, 1.0)))
    return model


def expected_units(model):
    """{column: unit} told from the model: joints by their primitives, bodies' CGs, the
    energies, the force elements' work."""
    units = {"t": "s"}
    for joint in (e for e in model.elements if isinstance(e, mbd.Joint)):
        q, v = [], []
        for prim in joint.primitives:
            q += PRIMITIVE_UNITS[prim.kind][0]
            v += PRIMITIVE_UNITS[prim.kind][1]
        for label, entries in (("q", q), ("v", v)):
            for k, unit in enumerate(entries):
                units[f"{joint.name}.{label}" + (str(k) if len(entries) > 1 else "")] = unit
    for body in model.bodies:
        units.update({f"{body.name}.cg.{axis}": "m" for axis in "xyz"})
    units.update(kinetic_energy="J", potential_energy="J")
    units.update({f"{e.name}.work": "J" for e in model.elements
                  if isinstance(e, mbd.ForceElement)})
    return units


@pytest.fixture(scope="module")
def run():
    model = chain()
    return model, model.build().simulate(t_end=1.0, output_step=0.01)


def lines_of(path):
    return path.read_text().splitlines()


def test_the_units_file_names_every_columns_unit(run, tmp_path):
    model, r = run
    path = r.to_csv(tmp_path / "chain.csv")
    names = lines_of(path)[0].split(",")
    assert names == r.columns()[0]                       # the names as they were
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chain.csv", "chain.units.csv"]
    said, units = lines_of(tmp_path / "chain.units.csv")
    assert said.split(",") == names
    written = dict(zip(names, units.split(",")))
    expected = expected_units(model)
    assert set(written) == set(expected)
    for name, unit in expected.items():
        assert written[name] == unit, name
    assert written["rod.q0"] == "m" and written["rod.q1"] == "rad"      # a mixed joint
    assert written["socket.q3"] == "1" and written["socket.v2"] == "rad/s"
    assert r.column_units() == [expected[n] for n in names]


def test_grid_times_print_as_their_decimals_and_event_times_exactly(run, tmp_path):
    _, r = run
    path = r.to_csv(tmp_path / "chain.csv")
    texts = [line.split(",", 1)[0] for line in lines_of(path)[1:]]
    assert len(texts) == len(r.t)
    event_times = {e.t for e in r.events}
    assert len(event_times) > 0
    grid = [i for i, t in enumerate(r.t) if t not in event_times]
    assert len(grid) == 101
    # the doubles the run made are k * 0.01, some a digit string longer than k / 100's
    made = [repr(float(r.t[i])) for i in grid]
    decimals = [repr(k / 100) for k in range(101)]
    assert sum(a != b for a, b in zip(made, decimals)) > 0
    assert [texts[i] for i in grid] == decimals
    assert texts[grid[3]] == "0.03" and texts[grid[35]] == "0.35"
    for i, t in enumerate(r.t):
        if t in event_times:
            assert texts[i] == repr(float(t))           # an event's instant: exact
    # values: a double's shortest repr, never 17 forced digits
    row = lines_of(path)[1 + grid[35]].split(",")[1:]
    assert row == [repr(float(x)) for x in r.columns()[1][grid[35], 1:]]


def test_read_csv_gives_back_every_column_and_unit(run, tmp_path):
    model, r = run
    path = r.to_csv(tmp_path / "chain.csv")
    columns, units = mbd.read_csv(path)
    names, table = r.columns()
    assert list(columns) == names and units == expected_units(model)
    assert list(units) == names
    for k, name in enumerate(names[1:], 1):
        np.testing.assert_array_equal(columns[name], table[:, k], err_msg=name)
    # times: the grid's decimals (within an ulp of the run's doubles), events exact
    assert np.all(np.abs(columns["t"] - r.t) <= np.spacing(r.t))
    events = np.isin(r.t, [e.t for e in r.events])
    np.testing.assert_array_equal(columns["t"][events], r.t[events])
    np.testing.assert_array_equal(columns["t"][~events], np.arange(101) / 100)
    # numpy's and pandas' readers, as README says
    np.testing.assert_array_equal(np.loadtxt(path, delimiter=",", skiprows=1),
                                  np.column_stack(list(columns.values())))
    import pandas
    frame = pandas.read_csv(path)                        # as it is: a plain table
    assert list(frame.columns) == names and len(frame) == len(r.t)
    np.testing.assert_array_equal(frame.to_numpy(), np.column_stack(list(columns.values())))


def test_a_start_off_zero_and_a_step_of_many_digits(tmp_path):
    """t0 = 0.1: the grid's decimals 0.1 + k / 100; a step of 1/30 s is no short decimal:
    every time is written exactly."""
    system = chain().build()
    r = system.simulate(t_end=0.3, output_step=0.01, t0=0.1)
    columns, _ = mbd.read_csv(r.to_csv(tmp_path / "late.csv"))
    events = np.isin(r.t, [e.t for e in r.events])
    np.testing.assert_array_equal(columns["t"][~events],
                                  (10 + np.arange(len(r.t) - events.sum())) / 100)
    r = system.simulate(t_end=0.3, output_step=1 / 30)
    columns, _ = mbd.read_csv(r.to_csv(tmp_path / "thirds.csv"))
    np.testing.assert_array_equal(columns["t"], r.t)


def test_read_csv_names_a_file_it_cannot_read(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("t,x\n0.0,1.0\n")
    (tmp_path / "bad.units.csv").write_text("t\ns\n")
    with pytest.raises(ValueError, match=r"read_csv: .*bad.units.csv: its names and units are "
                                         r"not the 2 columns of .*bad.csv$"):
        mbd.read_csv(path)
    (tmp_path / "bad.units.csv").unlink()
    path.write_text("t,x\n0.0,1.0,2.0\n")
    with pytest.raises(ValueError, match=r"read_csv: .*bad.csv: rows of 3 values for 2 named"):
        mbd.read_csv(path)
    path.write_text("t,x\n0.0,1.0\n0.5,2.0\n")             # no units file: units unknown
    columns, units = mbd.read_csv(path)
    assert units == {"t": "", "x": ""}
    np.testing.assert_array_equal(columns["x"], [1.0, 2.0])


def test_mbd_run_writes_the_units_and_the_decimal_times(tmp_path):
    """The command line's CSV, as a user opens it."""
    out = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-m", "mbd", "run",
                           os.path.join(ROOT, "examples", "pendulum.py"), "--t-end", "0.5",
                           "--out", str(out)], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=1200)
    assert done.returncode == 0, done.stderr
    lines = (out / "pendulum.csv").read_text().splitlines()
    assert lines[0].startswith("t,hinge.q,hinge.v,")
    assert (out / "pendulum.units.csv").read_text().splitlines()[1].startswith("s,rad,rad/s,")
    assert [line.split(",", 1)[0] for line in lines[1:5]] == ["0.0", "0.01", "0.02", "0.03"]
    columns, units = mbd.read_csv(out / "pendulum.csv")
    assert units["kinetic_energy"] == "J" and columns["t"][-1] == 0.5
