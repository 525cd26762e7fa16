"""The analyses on the command line (SPEC §6): ``mbd equilibrium`` and ``mbd modes`` print the
tables mbd.equilibrium and mbd.linearize give in-process, write the same numbers as CSV (and a
GIF per mode), and a mechanism without an equilibrium is one clean message, exit 2."""
import csv
import pathlib
import textwrap

import numpy as np
import pytest
from PIL import Image

import mbd
from mbd import cli

ROOT = pathlib.Path(__file__).resolve().parents[3]
SLOT = ROOT / "examples" / "slot_at_rest.py"

# Two machines: an arm held out by a torsional spring-damper against gravity, and
# a block resting on an ElastoGap pad (in contact at rest): two DOF, two modes.
MODEL = '''
import numpy as np
import mbd
from forces import ElastoGap, JointForce, SpringDamper
from joints import Prismatic, Revolute


def build_model():
    model = mbd.Model("rest")
    env = mbd.Environment(gravity=(0.0, 0.0, -9.81))
    ground = model.add_ground("ground", environment=env)
    arm = model.add_body("arm", mass=2.0, cg=(0.5, 0.0, 0.0), inertia=np.diag([1e-3, 0.17, 0.17]),
                         cs={"pivot": (0.0, 0.0, 0.0)})
    hinge = model.add(Revolute("hinge", ground, arm["pivot"], axis=(0, 1, 0)))
    model.add(JointForce("spring", hinge, SpringDamper(c=60.0, d=0.5)))
    post = model.add_ground("post", at=(2.0, 0.0, 0.0), environment=env)   # a 2nd machine
    slider = model.add_body("block", mass=1.0, cg=(2.0, 0.0, 0.0), inertia=[0.01] * 3)
    lift = model.add(Prismatic("lift", post, slider["cg"], axis=(0, 0, 1), q0=0.01))
    model.add(JointForce("pad", lift, ElastoGap(c=1e3, d=5.0, s_rel0=0.0)))
    return model
'''

FREE_BODY = '''
import mbd
from joints import Prismatic


def build_model():
    model = mbd.Model("free_fall")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, -9.81)))
    body = model.add_body("body", mass=1.0, cg=(0.0, 0.0, 0.0), inertia=[0.1, 0.1, 0.1])
    model.add(Prismatic("drop", ground, body["cg"], axis=(0.0, 0.0, 1.0)))
    return model
'''


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "rest_model.py"
    path.write_text(textwrap.dedent(MODEL))
    return path


def system_of(path, *settings):
    module = cli.load_script(path)
    model = cli.model_of(module, str(path))
    for s in settings:
        cli.apply_setting(model, s)
    return model.build()


def read_rows(path):
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    return rows[0], rows[1:]


def test_equilibrium_prints_the_table_and_writes_the_rest_state(script, tmp_path, capsys):
    out = tmp_path / "out"
    assert cli.main(["equilibrium", str(script), "--out", str(out)]) == 0
    stdout, stderr = capsys.readouterr()
    assert stderr == ""
    eq = mbd.equilibrium(system_of(script))
    assert stdout.startswith("mbd equilibrium: rest\n")
    assert eq.table() in stdout
    path = out / "rest_equilibrium.csv"
    assert f"results: {path}" in stdout
    header, rows = read_rows(path)
    assert header == ["quantity", "value"]
    table = dict(rows)
    assert len(table) == len(rows)                     # every name once
    assert list(table)[:2] == ["hinge.q", "lift.q"]
    for name, q in eq.coordinates().items():
        assert float(table[f"{name}.q"]) == pytest.approx(q, rel=1e-12, abs=1e-15)
    # the arm held out by the spring: c theta = m g l cos(theta) (theta about +y: down is +)
    theta = float(table["hinge.q"])
    assert 60.0 * theta == pytest.approx(2.0 * 9.81 * 0.5 * np.cos(theta), rel=1e-9)
    # the block on the pad: c (-x) = m g
    assert float(table["lift.q"]) == pytest.approx(-9.81 / 1e3, rel=1e-9)
    assert float(table["residual"]) == pytest.approx(eq.residual, rel=1e-9, abs=1e-14)
    assert float(table["residual"]) <= 1e-10
    assert table["method"] == eq.method and table["stable"] == "true"
    assert float(table["t"]) == 0.0 and int(table["iterations"]) == eq.iterations
    assert table["pad.contact"] == "true"              # resting in contact
    assert "spring.contact" not in table               # a smooth law has no branch


def test_equilibrium_takes_set_and_t(script, tmp_path, capsys):
    out = tmp_path / "out"
    assert cli.main(["equilibrium", str(script), "--out", str(out), "--set", "block.mass=3",
                     "--t", "0.5"]) == 0
    stdout = capsys.readouterr().out
    assert "settings: block.mass = 3.0" in stdout
    table = dict(read_rows(out / "rest_equilibrium.csv")[1])
    assert float(table["lift.q"]) == pytest.approx(-3 * 9.81 / 1e3, rel=1e-9)
    assert float(table["t"]) == 0.5


def test_modes_with_animate_writes_the_modes_and_a_gif_per_mode(script, tmp_path, capsys):
    out = tmp_path / "out"
    assert cli.main(["modes", str(script), "--out", str(out), "--animate"]) == 0
    stdout, stderr = capsys.readouterr()
    assert stderr == ""
    eq = mbd.equilibrium(system_of(script))
    linear = eq.linear
    modes = linear.modes()
    assert len(modes) == 2
    assert eq.table() in stdout and linear.table() in stdout
    assert "linear model: 4 states (hinge.q, lift.q, hinge.v, lift.v)" in stdout
    header, rows = read_rows(out / "rest_modes.csv")
    assert header == ["mode", "frequency_hz", "damped_frequency_hz", "damping_ratio",
                      "growth_rate", "kind", "hinge.q", "lift.q", "hinge.q.imag",
                      "lift.q.imag"]
    assert len(rows) == 2
    for k, (row, mode) in enumerate(zip(rows, modes), 1):
        assert int(row[0]) == k
        np.testing.assert_allclose([float(x) for x in row[1:5]],
                                   [mode.frequency, mode.damped_frequency, mode.damping_ratio,
                                    mode.growth_rate], rtol=1e-9)
        assert row[5] == mode.kind == "oscillating"
        shape = [float(a) + 1j * float(b) for a, b in zip(row[6:8], row[8:])]
        np.testing.assert_allclose(shape, [mode.shape[c] for c in ("hinge.q", "lift.q")],
                                   rtol=1e-9, atol=1e-12)
        assert max(float(x) for x in row[6:8]) == pytest.approx(1.0)
    # CI renders (EGL): an animation skipped for want of a renderer is a failure here
    assert "skipped" not in stdout, stdout
    for k in (1, 2):
        gif = out / f"rest_mode{k}.gif"
        assert f"animation of mode {k}: {gif}" in stdout
        with Image.open(gif) as im:
            assert im.format == "GIF" and im.n_frames == 30       # 2 cycles at 15 fps
            assert im.size == (800, 600)              # viz.render.GIF_SIZE
    assert not list(out.glob(".tmp-*"))                # nothing half-written left behind


# A double pendulum hanging at rest, damped at its first hinge only (not proportionally):
# its second mode swings the links against each other (opposite signs), and both modes'
# shapes are complex (a phase lag between the hinges).
DOUBLE = '''
import numpy as np
import mbd
from forces import Damper, JointForce
from joints import Revolute


def build_model():
    model = mbd.Model("double")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    upper = model.add_body("upper", mass=1.0, cg=(0, 0, -0.5), inertia=[0.02, 0.02, 1e-3],
                           cs={"top": (0, 0, 0), "bottom": (0, 0, -1)})
    lower = model.add_body("lower", mass=0.5, cg=(0, 0, -1.4), inertia=[0.01, 0.01, 1e-3],
                           cs={"top": (0, 0, -1)})
    shoulder = model.add(Revolute("shoulder", ground, upper["top"], axis=(0, 1, 0)))
    model.add(Revolute("elbow", upper["bottom"], lower["top"], axis=(0, 1, 0)))
    model.add(JointForce("drag", shoulder, Damper(d=0.3)))
    return model
'''


def test_the_modes_csv_keeps_the_shapes_signs_and_phases(tmp_path, capsys):
    """Read back, each row's shape == linear.modes()'s (real part in COORD, imaginary in
    COORD.imag) to the last bit; the largest-magnitude coordinate is +1; the second mode's
    hinges move against each other (elbow < 0 relative to a shoulder of +1, or the other way
    round), which |shape| hid; the convention is printed. Reference: mbd.linearize at
    mbd.equilibrium of the same script."""
    path = tmp_path / "double.py"
    path.write_text(textwrap.dedent(DOUBLE))
    out = tmp_path / "out"
    assert cli.main(["modes", str(path), "--out", str(out)]) == 0
    stdout = capsys.readouterr().out
    assert "largest-magnitude coordinate is +1" in stdout
    linear = mbd.equilibrium(system_of(path)).linear
    modes = linear.modes()
    header, rows = read_rows(out / "double_modes.csv")
    names = ["shoulder.q", "elbow.q"]
    assert header[6:] == names + [f"{c}.imag" for c in names]
    assert len(rows) == len(modes) == 2
    for row, mode in zip(rows, modes):
        real = [float(x) for x in row[6:8]]
        imag = [float(x) for x in row[8:10]]
        assert real == [mode.shape[c].real for c in names]          # %.17g: bit for bit
        assert imag == [mode.shape[c].imag + 0.0 for c in names]
        big = int(np.argmax(np.abs(np.array(real) + 1j * np.array(imag))))
        assert real[big] == pytest.approx(1.0, abs=1e-15) and abs(imag[big]) < 1e-15
        assert any(abs(x) > 1e-6 for x in imag)     # damped at one hinge: a phase lag
    # the in-phase mode first (lower frequency), then the one whose hinges swing opposite
    assert rows[0][6:8] == [f"{mode.shape[c].real:.17g}" for mode in modes[:1] for c in names]
    assert float(rows[0][6]) > 0 and float(rows[0][7]) > 0
    assert float(rows[1][6]) * float(rows[1][7]) < 0


def test_modes_at_start_linearizes_about_the_start_state(script, tmp_path, capsys):
    out = tmp_path / "out"
    assert cli.main(["modes", str(script), "--out", str(out), "--at-start"]) == 0
    stdout = capsys.readouterr().out
    system = system_of(script)
    start = system.initial_state()
    linear = mbd.linearize(system, mbd.State(0.0, start.q, np.zeros(system.nv)))
    assert "the start state at rest of 'rest'" in stdout
    assert "equilibrium of" not in stdout
    assert linear.table() in stdout
    rows = read_rows(out / "rest_modes.csv")[1]
    # at the start the block sits 1 cm above the pad (free): its mode is neutral
    np.testing.assert_allclose([float(r[1]) for r in rows],
                               [m.frequency for m in linear.modes()], rtol=1e-9, atol=1e-12)
    assert "neutral" in [r[5] for r in rows]


def test_the_slot_example_rests_on_its_stop_from_the_command_line(tmp_path, capsys):
    module = cli.load_script(SLOT)
    exact = module.closed_form()
    out = tmp_path / "out"
    assert cli.main(["equilibrium", str(SLOT), "--out", str(out)]) == 0
    table = dict(read_rows(out / "slot_at_rest_equilibrium.csv")[1])
    pen = module.STOPS["x1"] - (module.MID + float(table["slide.q"]))
    assert pen == pytest.approx(exact["pen"], rel=1e-9)
    assert table["slot.contact"] == "-1"
    assert cli.main(["modes", str(SLOT), "--out", str(out)]) == 0
    stdout = capsys.readouterr().out
    assert "contact = -1" in stdout and "oscillating" in stdout
    header, rows = read_rows(out / "slot_at_rest_modes.csv")
    assert len(rows) == 1 and header[-2:] == ["slide.q", "slide.q.imag"]
    assert float(rows[0][6]) == 1.0 and float(rows[0][7]) == 0.0     # one coordinate: +1
    assert float(rows[0][1]) == pytest.approx(exact["f"], rel=1e-8)
    assert float(rows[0][3]) == pytest.approx(exact["zeta"], rel=1e-8)


@pytest.mark.parametrize("command", ["equilibrium", "modes"])
def test_no_equilibrium_is_one_message_and_exit_2(command, tmp_path, capsys):
    path = tmp_path / "free.py"
    path.write_text(textwrap.dedent(FREE_BODY))
    out = tmp_path / "out"
    assert cli.main([command, str(path), "--out", str(out)]) == 2
    stdout, stderr = capsys.readouterr()
    assert stdout == ""
    assert stderr.endswith("\n") and stderr.count("\n") == 1 and "Traceback" not in stderr
    assert stderr.startswith(f"mbd {command}: the analysis failed: ")
    assert "joint 'drop' q" in stderr and "no static equilibrium" in stderr
    assert not out.exists()          # nothing written: no (empty) folder left behind


def test_a_file_as_output_folder_is_refused_before_the_analysis(script, tmp_path, capsys):
    blocker = tmp_path / "taken"
    blocker.write_text("")
    assert cli.main(["equilibrium", str(script), "--out", str(blocker)]) == 2
    assert "is a file, not a directory" in capsys.readouterr().err
