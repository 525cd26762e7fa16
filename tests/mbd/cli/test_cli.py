"""The command line as a user drives it: a subprocess, its output, its files, its exit code."""
import io
import json
import os
import select
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
from PIL import Image


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "mbd", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=600)


def test_demo_writes_results_and_summary(tmp_path):
    out = tmp_path / "out"
    proc = run("demo", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    # nothing on stderr: no renderer's warning either (VTK's default window, tried on X
    # first, printed "bad X server connection" on a machine without a display)
    assert proc.stderr == "", proc.stderr
    csv = out / "mbd_demo.csv"
    assert csv.exists()
    # four machines of one-DOF joints, every seed component switching during the run
    assert "machines: 4" in proc.stdout and "DOF: 4" in proc.stdout
    assert str(csv) in proc.stdout
    for element in ("backlash", "pad", "stops"):
        assert f"  {element}: " in proc.stdout
    n_events = int(proc.stdout.split("events: ")[1].split()[0])
    png = out / "mbd_demo.png"
    assert str(png) in proc.stdout
    with Image.open(png) as im:
        assert im.format == "PNG" and im.size[0] > 0 and im.size[1] > 0
    gif = out / "mbd_demo.gif"
    assert str(gif) in proc.stdout
    with Image.open(gif) as im:
        assert im.format == "GIF" and im.n_frames > 1
    # the web page beside them: the run's rows and events in it (tests/viz/test_web.py opens
    # such a page in a browser)
    page = out / "mbd_demo.html"
    assert f"web page: {page}" in proc.stdout
    text = page.read_text(encoding="utf-8")
    data = json.loads(text.split('<script type="application/json" id="mbd-data">')[1]
                      .split("</script>")[0])
    assert len(data["events"]) == n_events and [b["name"] for b in data["bodies"]] == [
        "swing", "sway", "slider", "block"]
    header = csv.read_text().splitlines()[0].split(",")
    table = np.loadtxt(csv, delimiter=",", skiprows=1)
    assert table.shape[1] == len(header) and np.all(np.isfinite(table))
    # rows: every multiple of the 0.01 s output step, plus rows at event times
    t = table[:, 0]
    grid = np.arange(501) * 0.01
    assert np.all(np.min(np.abs(t[:, None] - grid[None, :]), axis=0) < 1e-12)
    assert 501 < len(t) <= 501 + n_events and np.all(np.diff(t) >= 0)
    check_demo_table(header, table)


#: the demo's joints (mbd/cli/demo.py): their initial (q0, v0), rad or m, rad/s or m/s
DEMO_START = {"swing_hinge": (0.2, 3.0), "sway_hinge": (-0.3, 0.0), "guide": (0.6, 0.0),
              "slide": (0.0, 0.9)}


def check_demo_table(header, table):
    """The demo's CSV against what its drawing says, worked out here: the first row is the
    joints' initial state; at every row the CGs are where the joint columns put them (a
    pendulum's CG 0.4 m below its pivot, turned by q about +y; the slider 0.3 m + q up its
    guide; the block 0.9 m + q along its slot); the kinetic energy is (1/2) I_pivot w^2 of
    each 0.8 m rod (1 kg, radius 0.02 m) plus (1/2) m v^2 of each 0.5 kg slider; and the
    change of the kinetic and gravity's potential energy (m g z of the CG columns) is the
    work of the five force elements (their work columns)."""
    col = {name: table[:, k] for k, name in enumerate(header)}
    assert header[:9] == ["t"] + [f"{j}.{x}" for j in DEMO_START for x in "qv"]
    for joint, (q0, v0) in DEMO_START.items():
        assert (col[f"{joint}.q"][0], col[f"{joint}.v"][0]) == (q0, v0), joint
    for name, pivot_x in (("swing", 0.0), ("sway", 0.8)):
        q = col[f"{name}_hinge.q"]
        np.testing.assert_allclose(col[f"{name}.cg.x"], pivot_x - 0.4 * np.sin(q), atol=1e-12)
        np.testing.assert_allclose(col[f"{name}.cg.y"], 0.0, atol=1e-12)
        np.testing.assert_allclose(col[f"{name}.cg.z"], 1.2 - 0.4 * np.cos(q), atol=1e-12)
    np.testing.assert_allclose(col["slider.cg.z"], 0.3 + col["guide.q"], atol=1e-12)
    np.testing.assert_allclose(col["block.cg.x"], 0.9 + col["slide.q"], atol=1e-12)
    i_pivot = (3 * 0.02 ** 2 + 0.8 ** 2) / 12 + 0.4 ** 2      # kg m^2 (1 kg rod)
    kinetic = (0.5 * i_pivot * (col["swing_hinge.v"] ** 2 + col["sway_hinge.v"] ** 2)
               + 0.5 * 0.5 * (col["guide.v"] ** 2 + col["slide.v"] ** 2))
    np.testing.assert_allclose(col["kinetic_energy"], kinetic, rtol=1e-12, atol=1e-12)
    gravity = 9.81 * (col["swing.cg.z"] + col["sway.cg.z"]
                      + 0.5 * col["slider.cg.z"] + 0.5 * col["block.cg.z"])
    work = sum(col[f"{e}.work"] - col[f"{e}.work"][0]
               for e in ("backlash", "variable_spring", "coupling", "pad", "stops"))
    change = kinetic - kinetic[0] + gravity - gravity[0]
    assert np.abs(work).max() > 1.0                 # the elements do work: it is checked
    np.testing.assert_allclose(change, work, rtol=0, atol=1e-7 * np.abs(work).max())


def test_bad_command_is_refused_with_status_2():
    proc = run("fly")
    assert proc.returncode == 2
    assert "invalid choice" in proc.stderr


# ----------------------------------------------------------------------------- mbd run / check
# A point mass on a 1 m arm (I = 1 + 1e-3 kg m^2 about the hinge) turning at -1 rad/s without
# gravity into an ElastoGap stop at q = s_rel0: contact starts at t = -s_rel0 / 1 s and, with
# d = 0 and n = 1, lasts half a period of sqrt(c / I), leaving at +1 rad/s.
PENDULUM = """
import numpy as np, mbd
from joints import Revolute
from forces import JointForce, ElastoGap
T_END = 2.0
def build_model():
    m = mbd.Model("stop_pendulum")
    g = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    bob = m.add_body("bob", mass=1.0, cg=(1, 0, 0), inertia=np.eye(3) * 1e-3,
                     cs={"pivot": (0, 0, 0)})
    h = m.add(Revolute("hinge", g, bob["pivot"], axis=(0, 1, 0), q0=0.0, v0=-1.0))
    m.add(JointForce("gap", h, ElastoGap(c=20.0, d=0.0, s_rel0=-0.5)))
    return m
"""
INERTIA = 1.0 + 1e-3


def script(tmp_path, text, name="model.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def events(stdout):
    """(t, element, what) of the event lines of a run summary."""
    found = []
    for line in stdout.splitlines():
        line = line.strip()
        if line.startswith("t = ") and " s  " in line:
            t, rest = line[4:].split(" s  ", 1)
            element, what = rest.split(": ", 1)
            found.append((float(t), element, what))
    return found


def contact(stdout):
    ev = events(stdout)
    begin = [t for t, e, w in ev if e == "gap" and w == "contact begins"]
    end = [t for t, e, w in ev if e == "gap" and w == "contact ends"]
    assert len(begin) == 1 and len(end) == 1, stdout
    return begin[0], end[0]


def table(csv):
    header = csv.read_text().splitlines()[0].split(",")
    return header, np.loadtxt(csv, delimiter=",", skiprows=1)


@pytest.mark.parametrize("settings, c, s0", [((), 20.0, -0.5),
                                             (("gap.c=80", "gap.s_rel0=-0.8"), 80.0, -0.8)])
def test_run_with_set_changes_the_law(tmp_path, settings, c, s0):
    path = script(tmp_path, PENDULUM)
    out = tmp_path / "out"
    args = [a for s in settings for a in ("--set", s)]
    proc = run("run", str(path), "--out", str(out), *args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    begin, end = contact(proc.stdout)
    assert begin == pytest.approx(-s0, abs=1e-9)
    assert end - begin == pytest.approx(np.pi * np.sqrt(INERTIA / c), rel=1e-6)
    csv = out / "stop_pendulum.csv"
    assert str(csv) in proc.stdout and (out / "stop_pendulum.png").exists()
    assert not (out / "stop_pendulum.gif").exists()       # only with --animate
    header, data = table(csv)
    assert data[-1, 0] == pytest.approx(2.0)              # the script's T_END
    q = data[:, header.index("hinge.q")]
    # the deepest penetration: v / omega_n (all the kinetic energy in the spring)
    assert q.min() == pytest.approx(s0 - np.sqrt(INERTIA / c), abs=2e-3)
    # elastic contact: the energy is conserved
    energy = data[:, header.index("kinetic_energy")] + data[:, header.index("potential_energy")]
    assert np.ptp(energy) < 1e-5 * 0.5 * INERTIA


def test_run_t_end_option_and_module_level_model(tmp_path):
    path = script(tmp_path, PENDULUM + "\nmodel = build_model()\ndel build_model\n")
    out = tmp_path / "out"
    proc = run("run", str(path), "--out", str(out), "--t-end", "0.3", "--set", "hinge.v0=-2",
               "--set", "bob.mass=3")
    assert proc.returncode == 0, proc.stderr
    header, data = table(out / "stop_pendulum.csv")
    assert data[-1, 0] == pytest.approx(0.3)
    # no contact before 0.3 s at -2 rad/s from 0 (reaches -0.6 at 0.3 s, the stop is at -0.5:
    # contact at 0.25 s)
    begin = [t for t, e, w in events(proc.stdout) if w == "contact begins"]
    assert begin == [pytest.approx(0.25, abs=1e-9)]
    kinetic = data[0, header.index("kinetic_energy")]
    assert kinetic == pytest.approx(0.5 * (3.0 + 1e-3) * 4.0, rel=1e-9)


def test_check_reports_structure(tmp_path):
    path = script(tmp_path, PENDULUM)
    proc = run("check", str(path))
    assert proc.returncode == 0, proc.stderr
    assert "dof=1" in proc.stdout and "1 machine" in proc.stdout
    assert "JointForce 'gap'" in proc.stdout and "ElastoGap(c=20.0" in proc.stdout


BROKEN = """
import numpy as np, mbd
from joints import Revolute
def build_model():
    m = mbd.Model("broken")
    g = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    a = m.add_body("a", mass=1.0, cg=(1, 0, 0), inertia=np.eye(3), cs={"p": (0, 0, 0)})
    b = m.add_body("b", mass=1.0, cg=(2, 0, 0), inertia=np.eye(3), cs={"p": (0, 0, 0)})
    m.add(Revolute("h1", g, a["p"], axis=(0, 1, 0)))
    m.add(Revolute("h1", g, b["p"], axis=(0, 0, 0)))
    return m
"""


def test_check_lists_every_problem_of_a_broken_model(tmp_path):
    path = script(tmp_path, BROKEN)
    for command in ("check", "run"):
        proc = run(command, str(path), "--out", str(tmp_path)) if command == "run" else \
            run(command, str(path))
        assert proc.returncode == 2
        assert "Traceback" not in proc.stderr
        assert "does not build" in proc.stderr and "h1" in proc.stderr
        assert "problems:" in proc.stderr   # the duplicate name and the zero axis, both


BAD_INPUT = [
    # (script text or None for a missing file, --set arguments, words of the message)
    (None, [], ["does not exist"]),
    ("import numpy\nx = 1\n", [], ["defines no model", "a function build_model()"]),
    ("model = 42\n", [], ["int", "not an mbd.Model"]),
    ("def build_model():\n    return 1 / 0\n", [], [
        "build_model() in the model script", "raised ZeroDivisionError", "line 2"]),
    ("def build():\n    return 1 / 0\n", [], ["build() in the model script", "line 2"]),
    ("raise RuntimeError('boom')\n", [], ["raised RuntimeError: boom", "line 1"]),
    ("def f(:\n", [], ["SyntaxError"]),
    (PENDULUM, ["nothing.c=1"], ["no body, joint or force element named 'nothing'", "gap"]),
    (PENDULUM, ["gap.k=1"], ["no parameter 'k'", "s_rel0"]),
    (PENDULUM, ["gap.c=-1"], ["ElastoGap", "c must be >= 0"]),
    (PENDULUM, ["gap.c"], ["expected NAME.PARAM=VALUE"]),
    (PENDULUM, ["gapc=1"], ["expected NAME.PARAM=VALUE"]),
    (PENDULUM, ["gap.c=soft"], ["'soft' is not a number"]),
    (PENDULUM, ["bob.inertia=1"], ["body 'bob' has no settable parameter"]),
    (PENDULUM, ["hinge.q0=1,2"], ["hinge", "q0"]),
    (PENDULUM, ["ground.gravity=0"], ["is a ground"]),
]


@pytest.mark.parametrize("text, settings, words", BAD_INPUT)
def test_bad_input_is_one_message_and_status_2(tmp_path, text, settings, words):
    path = tmp_path / "missing.py" if text is None else script(tmp_path, text)
    args = [a for s in settings for a in ("--set", s)]
    proc = run("run", str(path), "--out", str(tmp_path / "out"), *args)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("mbd run: ")
    for word in words:
        assert word in proc.stderr
    assert not (tmp_path / "out" / "stop_pendulum.csv").exists()


# ----------------------------------------------------------------------------- Ctrl-C, progress

LONG = PENDULUM.replace("T_END = 2.0", "T_END = 1e6\nOUTPUT_STEP = 0.1")


#: simulated time (s) the run must have passed before the test interrupts it
PAST = 1.0


def _default_sigint():
    """In a child before it runs: SIGINT's default action (Python then installs its
    KeyboardInterrupt handler), not an ignore inherited from the parent."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _bar_time(err):
    """The largest simulated time the progress bar on ``err`` (bytes) has shown, s; -1 before
    it shows one."""
    import re
    times = re.findall(rb"t = ([-+0-9.e]+)/", err)
    return max((float(x) for x in times), default=-1.0)


def test_ctrl_c_writes_the_rows_computed(tmp_path):
    path = script(tmp_path, LONG)
    out = tmp_path / "out"
    # the child starts with Ctrl-C's default action whatever this process inherited (a
    # shell's background job ignores SIGINT, and so would the child: it would run to 1e6 s)
    proc = subprocess.Popen([sys.executable, "-m", "mbd", "run", str(path), "--out", str(out),
                             "--progress"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=_default_sigint)
    err = b""
    deadline = time.monotonic() + 300
    try:
        # the child says where it is: its bar's "t = T/1e+06 s". Interrupt it once the bar
        # has shown the integration past PAST s (its own report, no sleep). The rows it keeps
        # are those stored by then: a batch of steps interrupted before its rows were stored
        # keeps none of them (so the rows may end before PAST)
        while _bar_time(err) < PAST and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stderr], [], [], 1.0)
            if ready:
                chunk = os.read(proc.stderr.fileno(), 4096)
                if not chunk:
                    break
                err += chunk
        assert b"simulating" in err and _bar_time(err) >= PAST, err
        proc.send_signal(signal.SIGINT)
        try:
            stdout, rest = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            stdout, rest = proc.communicate()
            raise AssertionError("no exit within 60 s of Ctrl-C; stderr:\n"
                                 + (err + rest).decode(errors="replace")[-3000:]) from None
    finally:
        if proc.poll() is None:
            proc.kill()
    err = (err + rest).decode()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert "interrupted at t = " in err
    # the rows computed until the interrupt: a CSV when they are few, else the state as a
    # .npz (mbd.cli.run.QUICK_CSV_VALUES)
    csv, npz = out / "stop_pendulum.csv", out / "stop_pendulum.npz"
    if str(csv) in err:
        header, data = table(csv)
        assert data.ndim == 2
        t, q = data[:, 0], data[:, header.index("hinge.q")]
    else:
        assert str(npz) in err
        with np.load(npz) as data:
            t, q = data["t"], data["q"][:, 0]
    assert len(t) >= 1 and (out / "stop_pendulum.png").exists()
    # the message says where the run was stopped (past PAST: after the bar showed it) and
    # which rows it kept; the file holds exactly those
    reached = float(err.split("interrupted at t = ")[1].split()[0])
    n_rows, last = err.split("the result holds the ")[1].split(" rows up to t = ")
    assert reached >= PAST
    assert len(t) == int(n_rows) and t[-1] == pytest.approx(float(last.split()[0]), rel=1e-5)
    # the rows are a prefix of the run: from t = 0, increasing, on the 0.1 s grid (or at an
    # event), up to where it stopped; the bob turning freely at -1 rad/s until it meets the
    # stop at -0.5 rad
    assert t[0] == 0.0 and np.all(np.diff(t) > 0) and t[-1] <= reached
    on_grid = np.abs(t / 0.1 - np.round(t / 0.1)) < 1e-9
    assert on_grid[t < 0.5].all()
    free = t < 0.5
    assert np.allclose(q[free], -t[free], atol=1e-8)


@pytest.mark.parametrize("compiled", [True, False])
def test_interrupt_gives_simulation_error_with_partial_result(monkeypatch, compiled):
    """Ctrl-C between steps (scipy's loop) or between chunks of the compiled loop."""
    from scipy import integrate

    import mbd
    from mbd.run import pieceloop
    from mbd.run.steppers.compiled import CompiledStepper
    ns = {}
    exec(PENDULUM, ns)
    system = ns["build_model"]().build()
    calls = {"n": 0}
    step, advance = integrate.DOP853.step, CompiledStepper.advance

    def interrupt_on_sixth(real):
        def wrapped(*args, **kwargs):
            calls["n"] += 1
            if calls["n"] == 6:
                raise KeyboardInterrupt
            return real(*args, **kwargs)
        return wrapped

    monkeypatch.setattr(integrate.DOP853, "step", interrupt_on_sixth(step))
    monkeypatch.setattr(CompiledStepper, "advance", interrupt_on_sixth(advance))
    monkeypatch.setattr(pieceloop.Run, "BATCH", 1)
    with pytest.raises(mbd.SimulationError, match="interrupted at t = ") as info:
        system.simulate(2.0, output_step=0.01, compiled=compiled)
    err = info.value
    assert calls["n"] == 6
    assert isinstance(err.__cause__, KeyboardInterrupt)
    partial = err.result
    assert partial is not None and 1 <= len(partial.t) and partial.t[-1] <= err.t < 2.0
    assert len(partial.t) == partial.q.shape[0] == partial.v.shape[0]
    # before the contact the bob turns freely at -1 rad/s
    free = partial.t < 0.5
    assert np.allclose(partial.joint("hinge").q[free], -partial.t[free], atol=1e-8)


def test_progress_bar_only_when_asked():
    import contextlib
    ns = {}
    exec(PENDULUM, ns)
    system = ns["build_model"]().build()
    for progress, drawn in ((True, True), (None, False), (False, False)):
        buf = io.StringIO()   # not a terminal
        with contextlib.redirect_stderr(buf):
            system.simulate(1.0, output_step=0.1, progress=progress)
        text = buf.getvalue()
        assert bool(text) == drawn, (progress, text)
        if drawn:
            assert "100%" in text and "1/1 s" in text and text.endswith("\n")


# ----------------------------------------------------------------------------- --set makes new laws
import warnings

from forces import BodySpringDamper, ElastoGap, JointForce
from mbd.cli import InputError, apply_setting, main


def _model(text):
    ns = {}
    exec(textwrap.dedent(text), ns)
    return ns["build_model"]()


def _only(model, name):
    [element] = [e for e in model.elements if getattr(e, "name", None) == name]
    return element


def test_set_on_a_law_makes_a_new_law_in_a_new_element():
    """--set gap.c=80: the model's element list holds a new JointForce (same name, joint and
    primitive) with a new ElastoGap; the old element and its (frozen) law are untouched, and a
    second --set starts from the first."""
    model = _model(PENDULUM)
    old = _only(model, "gap")
    old_law = old.law
    index = next(i for i, e in enumerate(model.elements) if e is old)
    assert apply_setting(model, "gap.c=80") == "gap.c = 80.0"
    new = model.elements[index]
    assert new is not old and all(e is not old for e in model.elements)
    assert type(new) is JointForce and new.name == "gap"
    assert new.joint is old.joint and new.primitive == old.primitive
    assert type(new.law) is ElastoGap and new.law is not old_law
    assert new.law == ElastoGap(c=80.0, d=0.0, s_rel0=-0.5, n=1.0)
    assert old.law is old_law and old_law == ElastoGap(c=20.0, d=0.0, s_rel0=-0.5, n=1.0)
    apply_setting(model, "gap.s_rel0=-0.8")
    newer = model.elements[index]
    assert (newer.law.c, newer.law.s_rel0) == (80.0, -0.8) and new.law.s_rel0 == -0.5
    system = model.build()
    assert [fe.law for fe in system.force_elements] == [newer.law]


def test_a_refused_set_leaves_the_model_as_it_was():
    model = _model(PENDULUM)
    before = list(model.elements)
    law = _only(model, "gap").law
    for text, words in [("gap.c=-1", ["ElastoGap: c must be >= 0"]),
                        ("gap.n=0.5", ["ElastoGap: n must be >= 1"]),
                        ("gap.x1=1",
                         ["has no parameter 'x1'; its parameters are: c, d, s_rel0, n"])]:
        with pytest.raises(InputError) as info:
            apply_setting(model, text)
        assert all(w in str(info.value) for w in words), str(info.value)
        assert all(a is b for a, b in zip(model.elements, before))
        assert len(model.elements) == len(before) and _only(model, "gap").law is law


SPRINGS = """
import numpy as np, mbd
from joints import Revolute
from forces import BodySpringDamper, JointForce, VariableRotationalSpring
def stiffness(t):
    return 5.0 - t
def build_model():
    m = mbd.Model("springs")
    g = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    bob = m.add_body("bob", mass=1.0, cg=(1, 0, 0), inertia=np.eye(3) * 1e-3,
                     cs={"pivot": (0, 0, 0), "tip": (1, 0, 0)})
    h = m.add(Revolute("hinge", g, bob["pivot"], axis=(0, 1, 0)))
    m.add(JointForce("coil", h, VariableRotationalSpring(K=stiffness, K_min=2.0)))
    m.add(BodySpringDamper("strap", g, bob["tip"], k=10.0, b=0.5, r0=0.2))
    return m
"""


def test_set_on_a_body_spring_damper_makes_a_new_one():
    """strap.b=-0.25: a new BodySpringDamper (warned about once) between the same CSs; the old
    one keeps its k, b, r0 and law."""
    model = _model(SPRINGS)
    old = _only(model, "strap")
    old_law = old.law
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        apply_setting(model, "strap.b=-0.25")
    assert [str(w.message) for w in caught] == [
        "BodySpringDamper 'strap': damping b = -0.25 < 0 pumps energy into the system"]
    new = _only(model, "strap")
    assert type(new) is BodySpringDamper and new is not old
    assert (new.cs_a, new.cs_b) == (old.cs_a, old.cs_b)
    assert (new.k, new.b, new.r0) == (10.0, -0.25, 0.2) and new.law.d == -0.25
    assert (old.k, old.b, old.r0) == (10.0, 0.5, 0.2) and old.law is old_law
    assert old_law.d == 0.5
    with pytest.raises(InputError, match="BodySpringDamper 'strap': k must be >= 0"):
        apply_setting(model, "strap.k=-1")
    with pytest.raises(InputError, match="has no parameter 'c'; its parameters are: k, b, r0"):
        apply_setting(model, "strap.c=1")


def test_a_parameter_given_as_a_function_is_not_settable_but_others_are():
    """coil.K: K is a Python function, which a number from the command line cannot replace:
    said so; coil.K_min: a new law with the same function K, still called as K(t)."""
    model = _model(SPRINGS)
    old = _only(model, "coil")
    with pytest.raises(InputError) as info:
        apply_setting(model, "coil.K=3")
    text = str(info.value)
    assert "--set 'coil.K=3'" in text and "K given as a Python function (stiffness)" in text
    assert "cannot be set from the command line" in text
    assert _only(model, "coil") is old
    apply_setting(model, "coil.K_min=1.5")
    new = _only(model, "coil")
    assert new is not old and new.law.K is old.law.K and new.law.K_min == 1.5
    assert old.law.K_min == 2.0
    assert new.law.stiffness(1.0) == 4.0 and new.law(0.5, 0.0, 4.0) == -0.75


def test_check_with_set_describes_the_new_elements(tmp_path, capsys):
    """mbd check (in-process) lists the elements after the --set: a law by its fields, a
    BodySpringDamper by k, b, r0."""
    path = script(tmp_path, SPRINGS)
    assert main(["check", str(path), "--set", "strap.k=20", "--set", "coil.theta_init=0.1"]) == 0
    out = capsys.readouterr().out
    assert "settings: strap.k = 20.0, coil.theta_init = 0.1" in out
    assert "BodySpringDamper 'strap': k=20.0, b=0.5, r0=0.2" in out
    assert "JointForce 'coil': VariableRotationalSpring(K=<function stiffness" in out
    assert "K_min=2.0, theta_init=0.1)" in out
    assert main(["check", str(path), "--set", "coil.K=1"]) == 2
    assert "a function cannot be set from the command line" in capsys.readouterr().err


# ----------------------------------------------------------------------------- the model script

def test_build_model_is_the_entry_point_and_the_script_is_imported_not_run(tmp_path, capsys):
    """build_model() is called (before a build() of the same script); the script's __main__
    block does not run."""
    text = PENDULUM + textwrap.dedent("""
        def build():
            raise RuntimeError("build() called: build_model() should have been")
        if __name__ == "__main__":
            print("MAIN RAN")
        """)
    path = script(tmp_path, text)
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"mbd check: {path}: the model builds") and "MAIN RAN" not in out


def test_build_is_accepted_too(tmp_path, capsys):
    path = script(tmp_path, PENDULUM.replace("def build_model():", "def build():"))
    assert main(["check", str(path)]) == 0
    assert "JointForce 'gap'" in capsys.readouterr().out


@pytest.mark.parametrize("line, words", [
    ("T_END = -1.0", ["T_END must be finite and > 0, got -1.0"]),
    ("OUTPUT_STEP = 'fine'", ["OUTPUT_STEP must be a number, got 'fine'"]),
    ("RTOL = float('nan')", ["RTOL must be finite and > 0, got nan"]),
    ("ATOL = 0", ["ATOL must be finite and > 0, got 0"]),
])
def test_bad_run_settings_of_a_script_are_named(tmp_path, capsys, line, words):
    path = script(tmp_path, PENDULUM + line + "\n")
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"mbd run: the model script {path}: ")
    assert all(w in err for w in words), err
    assert not (tmp_path / "out").exists()


def test_t_end_option_is_checked(tmp_path, capsys):
    path = script(tmp_path, PENDULUM)
    assert main(["run", str(path), "--t-end", "-1", "--out", str(tmp_path / "out")]) == 2
    assert "--t-end must be finite and > 0, got -1.0" in capsys.readouterr().err


def test_run_settings_of_the_script_and_the_options():
    import types

    from mbd.cli import run_settings
    script_ = types.SimpleNamespace(T_END=3, OUTPUT_STEP=0.5, RTOL=1e-9, ATOL=1e-11)
    assert run_settings(script_) == (3.0, {"output_step": 0.5, "rtol": 1e-9, "atol": 1e-11})
    assert run_settings(script_, t_end=0.25)[0] == 0.25
    # nothing set: the defaults of mbd run, and the Environment's tolerances
    assert run_settings(types.SimpleNamespace()) == (5.0, {"output_step": 0.01})


# ----------------------------------------------------------------------------- --out

@pytest.mark.parametrize("command", ["run", "demo"])
def test_out_that_is_a_file_is_refused_before_the_run(tmp_path, capsys, command):
    path = script(tmp_path, PENDULUM)
    target = tmp_path / "results"
    target.write_text("not a folder")
    args = ["run", str(path)] if command == "run" else ["demo"]
    assert main([*args, "--out", str(target)]) == 2
    out, err = capsys.readouterr()
    assert err == (f"mbd {command}: --out {target}: {target} is a file, not a directory: "
                   "--out names the folder the results are written into (made if missing)\n")
    assert out == "" and target.read_text() == "not a folder"


def test_out_below_a_file_names_the_file(tmp_path, capsys):
    path = script(tmp_path, PENDULUM)
    blocker = tmp_path / "results"
    blocker.write_text("")
    out = blocker / "run1"
    assert main(["run", str(path), "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"mbd run: --out {out}: {blocker} is a file, not a directory, so the output folder "
        f"{out} cannot be made in it\n")


def test_out_that_cannot_be_made_or_written_is_named(tmp_path, capsys, monkeypatch):
    path = script(tmp_path, PENDULUM)
    out = tmp_path / "locked" / "out"

    def refuse(name, *args, **kwargs):
        raise PermissionError(13, "Permission denied", name)
    with monkeypatch.context() as m:
        m.setattr(os, "makedirs", refuse)
        assert main(["run", str(path), "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"mbd run: --out {out}: cannot make the output folder {out}: permission denied\n")
    out.mkdir(parents=True)
    monkeypatch.setattr(os, "access", lambda p, mode: False)
    assert main(["run", str(path), "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"mbd run: --out {out}: cannot write into the output folder {out}: permission denied\n")
    assert list(out.iterdir()) == []


#: ``mbd run SCRIPT --out OUT`` in a child process as user UID (-1: as the user running the
#: tests). The child loads what the command needs first (``mbd check``, as that user), then
#: drops to UID: root passes every permission check, so a root test run (CI) drops to an
#: ordinary user for the folder's permissions to apply.
RUN_AS = """
import os, sys
from mbd import cli
script, out, uid = sys.argv[1], sys.argv[2], int(sys.argv[3])
if cli.main(["check", script]) != 0:
    sys.exit(3)
if uid >= 0:
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
sys.exit(cli.main(["run", script, "--out", out]))
"""


def test_out_in_a_read_only_folder_is_named():
    """A real read-only folder (mode 0o500), the OS refusing the mkdir: the message names the
    folder and the system's reason, exit status 2, no traceback. As root (who may write
    anywhere) the command runs as the user 'nobody' (uid 65534) instead."""
    import pathlib
    import tempfile
    uid = 65534 if os.geteuid() == 0 else -1
    with tempfile.TemporaryDirectory() as top:      # not under pytest's 0o700 folders
        top = os.path.realpath(top)
        os.chmod(top, 0o755)                        # ... which 'nobody' could not pass
        path = script(pathlib.Path(top), PENDULUM)
        locked = os.path.join(top, "locked")
        os.mkdir(locked)
        os.chmod(locked, 0o500)
        # under `pytest --cov` the child would also write coverage data, into a folder
        # 'nobody' cannot write: it runs without coverage
        env = {k: v for k, v in os.environ.items() if not k.startswith(("COVERAGE_", "COV_"))}
        try:
            proc = subprocess.run([sys.executable, "-c", RUN_AS, str(path),
                                   os.path.join(locked, "out"), str(uid)],
                                  capture_output=True, text=True, timeout=600, env=env)
        finally:
            os.chmod(locked, 0o700)
        assert not os.path.exists(os.path.join(locked, "out"))
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr == (f"mbd run: --out {locked}/out: cannot make the output folder "
                           f"{locked}/out: permission denied\n")


def test_a_results_file_that_cannot_be_written_is_named(tmp_path, capsys):
    path = script(tmp_path, PENDULUM)
    out = tmp_path / "out"
    (out / "stop_pendulum.csv").mkdir(parents=True)       # a folder where the CSV goes
    assert main(["run", str(path), "--out", str(out), "--t-end", "0.01"]) == 2
    err = capsys.readouterr().err
    csv = out / "stop_pendulum.csv"
    assert err == f"mbd run: cannot write the results file {csv}: is a directory\n"
    assert sorted(p.name for p in out.iterdir()) == ["stop_pendulum.csv"]   # no temporary left
