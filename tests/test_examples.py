"""Every example runs (shortened) and shows what it claims."""
import importlib.util
import pathlib
import re

import numpy as np
import pytest
from PIL import Image
from scipy.integrate import solve_ivp

#: these tests assert accuracy bounds (closed forms, reference values, balances): run again
#: on a perturbed problem under --perturb (tests/perturb.py)
pytestmark = pytest.mark.accuracy

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


def load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


COVERED = {"pendulum", "tumbling_handle", "elastogap", "backlash", "bistop_slot",
           "body_spring_damper", "variable_spring", "fourbar_backlash", "slider_crank_stop",
           "double_pendulum", "two_machines", "slot_at_rest", "suspension_modes", "panda_urdf"}
#: examples whose physical claims are checked in a test file of their own
COVERED_APART = {"engine_mount": "test_engine_mount.py",
                 "stick_slip": "test_stick_slip_example.py",
                 "gearbox": "test_gearbox_example.py",
                 "cart_pole_lqr": "test_control_examples.py",
                 "gearbox_pid": "test_control_examples.py",
                 "pd_pendulum": "test_control_examples.py",
                 "rubber_stop": "test_table_and_stepping_examples.py",
                 "external_controller": "test_table_and_stepping_examples.py",
                 "gearbox_fmu": "mbd/exchange/test_fmu.py",
                 "ur5_backlash_pid": "test_urdf_example.py",
                 "cam_follower": "test_contact_examples.py",
                 "bouncing_balls": "test_contact_examples.py",
                 "sliding_block": "test_contact_examples.py",
                 "quadruped": "mbd/exchange/test_urdf_contact.py"}
#: every example script (each with a gallery row and a picture)
ALL_EXAMPLES = COVERED | set(COVERED_APART)
TOOLS = {"make_stills"}     # scripts in examples/ that are not examples
#: scripts that study another example's model (mbd.sweep): not model scripts themselves; each
#: has its own gallery table row, its picture in images/NAME/
STUDIES = {"slot_study"}


def test_every_example_is_covered_here():
    assert {p.stem for p in EXAMPLES.glob("*.py")} == ALL_EXAMPLES | TOOLS | STUDIES
    for test_file in COVERED_APART.values():
        assert (pathlib.Path(__file__).parent / test_file).is_file(), test_file


# The command line: every example through `mbd check` and `mbd run` (README, examples/README.md)

#: every example script, found by glob so that a new one is run here too
EXAMPLE_SCRIPTS = sorted(p for p in EXAMPLES.glob("*.py") if p.stem not in TOOLS | STUDIES)
#: s simulated by the shortened `mbd run` of each example (the physics is checked below)
SHORT = 0.05
ROOT = EXAMPLES.parent


def _csv(path):
    header = path.read_text().splitlines()[0].split(",")
    return header, np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)


@pytest.mark.parametrize("path", EXAMPLE_SCRIPTS, ids=lambda p: p.stem)
def test_every_example_passes_mbd_check(path, capsys):
    from mbd import cli
    assert cli.main(["check", str(path)]) == 0
    out, err = capsys.readouterr()
    # the script is imported, not run: its main() prints before returning, nothing came first
    assert out.startswith(f"mbd check: {path}: the model builds\n"), out
    assert "dof=" in out and "force elements: " in out
    assert err == ""


@pytest.mark.parametrize("path", EXAMPLE_SCRIPTS, ids=lambda p: p.stem)
def test_every_example_runs_with_mbd_run_at_its_own_settings(path, tmp_path, capsys):
    """`mbd run EXAMPLE --t-end SHORT`: exit 0, the CSV and the plot written, the rows at the
    example's own OUTPUT_STEP (plus one per event) up to --t-end."""
    from mbd import cli
    module = load(path.stem)
    out_dir = tmp_path / "out"
    assert cli.main(["run", str(path), "--t-end", str(SHORT), "--out", str(out_dir)]) == 0
    out = capsys.readouterr().out
    name = out.splitlines()[0].removeprefix("mbd run: ")
    assert name == module.build_model().name
    csv = out_dir / f"{name}.csv"
    header, data = _csv(csv)
    assert f"results: {csv} ({len(data)} rows)" in out
    assert header[0] == "t" and data.shape[1] == len(header) and np.all(np.isfinite(data))
    assert (out_dir / f"{name}.png").is_file()
    t = data[:, 0]
    step = module.OUTPUT_STEP
    grid = np.arange(round(SHORT / step) + 1) * step
    assert t[0] == 0.0 and t[-1] == pytest.approx(SHORT, abs=1e-12) and np.all(np.diff(t) >= 0)
    assert np.all(np.min(np.abs(t[:, None] - grid[None, :]), axis=0) < 1e-12)
    n_events = int(out.split("  events: ")[1].split()[0])
    assert len(grid) <= len(t) <= len(grid) + n_events


def gallery_commands():
    """The command lines (split into words) of the text blocks of examples/README.md."""
    blocks = re.findall(r"```text\n(.*?)```", (EXAMPLES / "README.md").read_text(), re.S)
    return [line.split("  ")[0].split() for block in blocks for line in block.splitlines()]


def test_gallery_commands_name_examples_options_and_parameters_that_exist(capsys):
    """Each command of examples/README.md parses, names an example, and its --set (if any)
    applies to that example's model (`mbd check` with the same --set)."""
    from mbd import cli
    commands = gallery_commands()
    assert {c[3] for c in commands} == {"run", "check", "equilibrium", "modes"}
    for words in commands:
        assert words[:3] == ["python", "-m", "mbd"], words
        args = cli.argument_parser().parse_args(words[3:])
        assert (ROOT / args.model).is_file() and pathlib.Path(args.model).parent.name == "examples"
        sets = [a for s in args.set for a in ("--set", s)]
        assert cli.main(["check", str(ROOT / args.model), *sets]) == 0, capsys.readouterr().err
    capsys.readouterr()


def test_pendulum_runs_from_the_command_line_as_the_readme_says(tmp_path):
    """A true subprocess from the repository root: `python -m mbd run examples/pendulum.py`
    runs the example's T_END at its OUTPUT_STEP and tolerances (rtol = atol = 1e-12: the angle
    to ~1e-11 of the exact solution; the Environment's default 1e-8 is off by ~6e-9)."""
    import subprocess
    import sys
    module = load("pendulum")
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "mbd", "run", "examples/pendulum.py",
                           "--out", str(out)], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "theta = " not in proc.stdout          # imported, not run: main() did not print
    header, data = _csv(out / "pendulum.csv")
    t = data[:, 0]
    assert t[-1] == module.T_END
    np.testing.assert_allclose(np.diff(t), module.OUTPUT_STEP, rtol=0, atol=1e-12)
    theta = np.pi / 2 - data[:, header.index("hinge.q")]
    for time, exact in PENDULUM_EXACT.items():
        if time <= module.T_END:
            assert theta[_exact_row(t, time)] == pytest.approx(exact, abs=1e-10)
    assert (out / "pendulum.png").is_file()


# The gallery: examples/README.md, examples/images, examples/make_stills.py

def gallery_rows():
    """(name, image, command) of every row of the gallery table in examples/README.md."""
    text = (EXAMPLES / "README.md").read_text()
    return re.findall(r"^\| !\[[^]]*\]\(([^)]+)\) \| (\w+) \|.*\| `([^`]+)` \|$", text, re.M)


def test_gallery_lists_every_example_with_its_picture_and_command():
    rows = [row for row in gallery_rows() if row[1] not in STUDIES]
    names = [name for _, name, _ in rows]
    assert sorted(names) == sorted(ALL_EXAMPLES)     # each example once, nothing else
    for image, name, command in rows:
        assert image == f"images/{name}.png"
        assert (EXAMPLES / image).is_file(), f"missing picture {image}: run make_stills.py"
        with Image.open(EXAMPLES / image) as picture:
            assert picture.size == (320, 240)
        assert command == f"python examples/{name}.py"
        assert (EXAMPLES / f"{name}.py").is_file()
    assert "python examples/make_stills.py" in (EXAMPLES / "README.md").read_text()


def test_make_stills_covers_every_example():
    stills = load("make_stills")
    assert set(stills.STILLS) == ALL_EXAMPLES
    assert set(stills.TRAILS) <= ALL_EXAMPLES
    assert set(stills.MODE_STILLS) <= ALL_EXAMPLES and set(stills.MODE_GIFS) <= set(stills.MODE_STILLS)
    for name in stills.MODE_GIFS:     # the gallery shows the GIF; keep it small
        gif = EXAMPLES / "images" / f"{name}_mode1.gif"
        assert f"images/{name}_mode1.gif" in (EXAMPLES / "README.md").read_text()
        assert gif.is_file() and gif.stat().st_size < 200_000
    assert stills.IMAGES == EXAMPLES / "images" and stills.SIZE == (320, 240)


def test_make_stills_renders_a_picture(tmp_path):
    """The pendulum's still (t = 0.5 s) read back: the bob is drawn where SPEC §5's exact
    angle puts it, theta(0.5) = 0.40177 rad (position (sin theta, 0, -cos theta), projected
    with the still's camera), the mirror place across the vertical is background, and the
    trail passes through theta = 0.8 rad, which the bob swung through before."""
    from viz.scene import Scene
    stills = load("make_stills")
    size = (320, 240)
    path = stills.still("pendulum", tmp_path / "pendulum.png", size=size)
    with Image.open(path) as picture:
        pixels = np.asarray(picture.convert("RGB")).astype(int)
    assert pixels.shape == (240, 320, 3)
    # the still's scene again (its camera and trail), for the projection only
    t_end, camera = stills.STILLS["pendulum"]
    result = load("pendulum").build_model().build().simulate(t_end, output_step=t_end / 50)
    scene = Scene(result.system, size=size, trails=stills.TRAILS["pendulum"])
    try:
        scene.update(result, t=t_end)
        scene.fit(result, stills.CAMERAS.get(camera, camera))
        theta = PENDULUM_EXACT[0.5]
        points = [(np.sin(a), 0.0, -np.cos(a)) for a in (theta, -theta, 0.8)]
        (bob, mirror, trail) = np.rint(scene.project(points)).astype(int)
    finally:
        scene.close()

    def near(pixel_cr, radius=1):
        c, r = pixel_cr
        return pixels[r - radius:r + radius + 1, c - radius:c + radius + 1].reshape(-1, 3)
    assert np.abs(bob - mirror).max() > 40                     # two places apart
    assert (near(bob)[:, 2] - near(bob)[:, 0] > 60).any()        # the blue bob
    assert (near(mirror, 2) > 250).all()                         # white background
    assert (near(trail).max(axis=1) < 100).any()                 # the dark trail


#: SPEC §5, the simple pendulum: the exact angle (rad) from the downward vertical, positive
#: towards the release side, at t (s); typed in here, not taken from the example under test
PENDULUM_EXACT = {0.5: 0.40177084980808275, 1.0: -1.4050273115247993,
                  2.0: 0.9166475896632469, 10.0: 0.2786806735699831}


def _exact_row(t, time):
    """The index of the one row at ``time`` exactly (the output step divides it)."""
    rows = np.flatnonzero(t == time)
    assert rows.size == 1, f"no row at t = {time} exactly"
    return rows[0]


def test_pendulum_matches_exact_solution(capsys):
    """The example at its own settings, run to 10 s: every SPEC §5 angle at its own row
    (the output step divides every reference time). The example's rtol = atol = 1e-12 give
    errors of <= 5e-12 rad up to 2 s and 2.2e-11 rad at 10 s (measured); held to 1e-10."""
    module = load("pendulum")
    assert 10.0 / module.OUTPUT_STEP == round(10.0 / module.OUTPUT_STEP)
    result = module.main(t_end=10.0)
    assert result.t[-1] == 10.0
    theta = np.pi / 2 - result.joint("hinge").q
    for t, exact in PENDULUM_EXACT.items():
        assert theta[_exact_row(result.t, t)] == pytest.approx(exact, abs=1e-10), t
    out = capsys.readouterr().out
    # the example prints the same SPEC values it compares against
    for t in (0.5, 1.0, 2.0):
        assert f"exact {PENDULUM_EXACT[t]:+.12f}" in out


def test_tumbling_handle_flips_at_the_torque_free_tops_period():
    """The handle (principal moments 1, 2, 3 kg m^2 about x, y, z as drawn; body-axis
    angular velocity (0.01, 4, 0) rad/s at t = 0) against the torque-free top (Landau &
    Lifshitz, Mechanics §37; ``flip_period`` of tests/mbd/run/test_reference_cases.py): |L|^2 and
    2 T conserved in body axes; the intermediate component w_y goes as sn, starting at its
    extreme (w_z = 0), so it changes sign at T/4 and 3 T/4 of the flip period T (12.78 s
    here); the CG falls freely, z = v0 t - g t^2 / 2."""
    from scipy.interpolate import CubicSpline

    from tests.mbd.run.test_reference_cases import flip_period
    result = load("tumbling_handle").main(t_end=12.0)
    body = result.body("handle")
    w = body.rotation.inv().apply(body.angular_velocity)     # body axes
    moments, w0 = np.array([1.0, 2.0, 3.0]), np.array([0.01, 4.0, 0.0])
    M2, E2 = np.sum((moments * w0) ** 2), np.sum(moments * w0 ** 2)
    np.testing.assert_allclose(w[0], w0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(np.sum((moments * w) ** 2, axis=1), M2, rtol=1e-8)
    np.testing.assert_allclose(np.sum(moments * w ** 2, axis=1), E2, rtol=1e-8)
    period = flip_period(moments, M2, E2)
    roots = CubicSpline(result.t, w[:, 1]).roots(extrapolate=False)
    np.testing.assert_allclose(roots, [period / 4, 3 * period / 4], rtol=1e-6)
    y_axis = body.rotation.apply([0.0, 1.0, 0.0])
    assert y_axis[:, 1].min() < -0.9          # the spin axis turned over
    t = result.t
    np.testing.assert_allclose(body.position("cg"),
                               np.column_stack([0 * t, 0 * t, 5.0 * t - 9.81 / 2 * t ** 2]),
                               rtol=0, atol=1e-8)


# ElastoGap: SPEC §5, the Dymola reference

ELASTOGAP_SWITCHES = [(0.58337276, "elastoGap2", "contact ends"),
                      (0.87516038, "elastoGap1", "contact begins"),
                      (1.89620449, "elastoGap1", "contact ends"),
                      (2.40406921, "elastoGap2", "contact begins"),
                      (3.42511093, "elastoGap2", "contact ends"),
                      (4.30905899, "elastoGap1", "contact begins")]


def test_elastogap_switch_times_match_the_reference(capsys):
    module = load("elastogap")
    result = module.main(t_end=5.0)
    switches = module.contact_switches(result)
    assert [(ev.element, ev.what) for ev in switches] == [s[1:] for s in ELASTOGAP_SWITCHES]
    for ev, (t_ref, _, _) in zip(switches, ELASTOGAP_SWITCHES):
        assert ev.t == pytest.approx(t_ref, abs=1e-5)
    assert "contact ends" in capsys.readouterr().out


def test_elastogap_states_match_the_reference():
    module = load("elastogap")
    result = module.main(t_end=5.0)
    s1, v1 = result.joint("s1").q, result.joint("s1").v
    s2, v2 = result.joint("s2").q, result.joint("s2").v
    refs = {1.0: (-2.906790142027837, 2.9059535360274409, 1.8598327011289773, 2.3531746647959073),
            3.0: (-0.66882353333435285, 1.0610685640199591, -0.007676535626505377,
                  1.9772645295423064),
            5.0: (0.53752970968098934, 2.7078870235576407, -0.0041932374877375706,
                  2.0003503785615258)}
    for t, ref in refs.items():
        i = np.flatnonzero(result.t == t)[0]
        # SPEC: agreement to about 1e-4 is the reference's own accuracy
        np.testing.assert_allclose((v2[i], 2 - s2[i], v1[i], 2 - s1[i]), ref, atol=1e-4)
    # the gaps only push: the force on flange b (mass2 for gap1, the point s = 2 for gap2)
    # along +x is >= 0, and each gap does push for a while
    for name in ("elastoGap1", "elastoGap2"):
        assert result.force(name).value.min() >= 0.0
        assert result.force(name).value.max() > 1.0


# Backlash: SPEC §5, the Dymola reference

BACKLASH_REF = {  # elastoBacklash phi_rel, w_rel, springDamper phi_rel, w_rel
    0.25: (0.58080749639408835, 30.080732501720004, -0.45131731086698079, 1.5386052237795997),
    0.5: (-0.30993973272313774, -17.228305123684279, 0.12929145333280387, -0.88020690422431891),
    1.0: (-0.15557036723690312, -7.0229304031262032, 0.010518034816392985, -0.14370331391695884),
}


def test_backlash_matches_the_reference(capsys):
    result, result2 = load("backlash").main(t_end=1.0)
    for t, (phi_eb, w_eb, phi_sd, w_sd) in BACKLASH_REF.items():
        i = np.flatnonzero(result.t == t)[0]
        assert result.joint("elastoBacklash").q[i] == pytest.approx(phi_eb, abs=1e-4)
        assert result.joint("springDamper").q[i] == pytest.approx(phi_sd, abs=1e-4)
        # SPEC: rates to ~5e-3
        assert result.joint("elastoBacklash").v[i] == pytest.approx(w_eb, abs=5e-3)
        assert result.joint("springDamper").v[i] == pytest.approx(w_sd, abs=5e-3)
    assert "ElastoBacklash2" in capsys.readouterr().out


def test_backlash_torque_starts_from_zero_only_for_elastobacklash():
    module = load("backlash")
    result, result2 = module.main(t_end=1.0)
    c, d, b = module.C, module.D, module.B
    for res, name in ((result, "elastoBacklash"), (result2, "elastoBacklash2")):
        law = res.force(f"{name}_law")
        phi_diff = law.x
        # free play inside the backlash, and the torque never pulls the flywheel outwards
        inside = abs(phi_diff) < b / 2 - 1e-9
        assert np.all(law.value[inside] == 0.0)
        assert np.all(law.value * np.sign(phi_diff) <= 0.0)
        torques = module.contact_torques(res, name)
        assert len(torques) >= 8
        rows = [np.flatnonzero(res.t == ev.t)[0] for ev in res.events
                if ev.element == f"{name}_law" and ev.what.endswith("contact begins")]
        w = res.joint(name).v[rows]
        if name == "elastoBacklash":
            # Modelica: tau = tau_c + min(tau_c, d w) with tau_c = 0 at contact
            assert np.all(abs(torques) <= 1e-6 * c * b)
        else:
            # ElastoBacklash2: the full damping torque d w jumps in at contact
            np.testing.assert_allclose(torques, -d * w, rtol=1e-6)
            assert abs(torques).min() > 100.0


# BISTOP: the seed's slot example

def _bistop_spec(x, xdot, x1, x2, k, e, cmax, d):
    """BISTOP as SPEC §3.2 writes it (independent of forces.Bistop)."""
    def step(x, x0, h0, xe, he):
        if x <= x0:
            return h0
        if x >= xe:
            return he
        z = (x - x0) / (xe - x0)
        return h0 + (he - h0) * z * z * (3 - 2 * z)
    if x < x1:
        return max(k * (x1 - x) ** e - step(x, x1 - d, cmax, x1, 0.0) * xdot, 0.0)
    if x > x2:
        return min(-k * (x - x2) ** e - step(x, x2, 0.0, x2 + d, cmax) * xdot, 0.0)
    return 0.0


def _bounce(stops, mass, wall, speed):
    """Duration and speed out of one contact, entering the stop ``wall`` (-1: x1, +1: x2) at
    ``speed``: scipy's DOP853 with a small maximum step on m x'' = BISTOP(x, x')."""
    x0 = stops["x2"] if wall > 0 else stops["x1"]

    def leaves(t, y):
        return y[0] - x0 if t > 0 else wall
    leaves.terminal, leaves.direction = True, -wall
    sol = solve_ivp(lambda t, y: (y[1], _bistop_spec(y[0], y[1], **stops) / mass), (0.0, 0.1),
                    (x0, wall * speed), method="DOP853", rtol=1e-12, atol=1e-14, max_step=1e-5,
                    events=leaves)
    return sol.t_events[0][0], abs(sol.y_events[0][0][1])


@pytest.fixture(scope="module")
def bistop():
    module = load("bistop_slot")
    return module, module.main(t_end=4.0)


def test_bistop_block_stays_in_the_slot_and_bounces_between_the_walls(bistop):
    module, result = bistop
    stops = module.STOPS
    x = result.joint("slide").q
    # the penetration can't exceed what the initial kinetic energy can compress
    e0 = 0.5 * module.MASS * module.V0 ** 2
    depth = (e0 * (stops["e"] + 1) / stops["k"]) ** (1 / (stops["e"] + 1))
    assert depth < 0.021
    assert stops["x1"] - depth <= x.min() < stops["x1"] - 0.5 * depth
    assert stops["x2"] + 0.5 * depth < x.max() <= stops["x2"] + depth
    impacts = module.impacts(result)
    walls = [wall for _, _, wall in impacts]
    assert walls == [1, -1, 1]                     # x2 first (moving +x), then alternating
    # between impacts the block flies freely across the 9 m slot
    v = result.joint("slide").v
    for (_, t_out, _), (t_in, _, _) in zip(impacts, impacts[1:]):
        i = np.flatnonzero(result.t == t_out)[0]
        assert t_in - t_out == pytest.approx(9.0 / abs(v[i]), rel=1e-8)


def test_bistop_each_bounce_loses_kinetic_energy(bistop):
    module, result = bistop
    v = result.joint("slide").v
    for t_in, t_out, _ in module.impacts(result):
        v_in = v[np.flatnonzero(result.t == t_in)[0]]
        v_out = v[np.flatnonzero(result.t == t_out)[0]]
        assert v_in * v_out < 0                      # it bounced back
        assert 0.99 * abs(v_in) < abs(v_out) < abs(v_in)


def test_bistop_energy_never_increases(bistop):
    # dE/dt = -c(x) xdot^2 in contact, and -F_spring xdot <= 0 while the clamp holds the
    # force at zero on the way out; 1e-6 J is below the drift of the undamped run
    _, result = bistop
    assert np.diff(result.energy()).max() <= 1e-6


def test_bistop_without_damping_keeps_its_energy(capsys):
    module = load("bistop_slot")
    result = module.main(t_end=2.5, cmax=0.0)
    assert "peak contact force" in capsys.readouterr().out
    energy = result.energy()
    assert len(module.impacts(result)) == 2
    assert abs(energy - energy[0]).max() <= 1e-6 * energy[0]
    assert abs(result.joint("slide").v[-1]) == pytest.approx(module.V0, rel=1e-7)


@pytest.mark.parametrize("wall", [-1, 1])
def test_bistop_bounces_match_an_independent_integration(bistop, wall):
    module, result = bistop
    v = result.joint("slide").v
    checked = 0
    for t_in, t_out, w in module.impacts(result):
        if w != wall:
            continue
        v_in = abs(v[np.flatnonzero(result.t == t_in)[0]])
        v_out = abs(v[np.flatnonzero(result.t == t_out)[0]])
        contact_time, v_ref = _bounce(module.STOPS, module.MASS, wall, v_in)
        # the example claims ~1e-7 m/s and ~1e-10 s at its tolerances
        assert v_out == pytest.approx(v_ref, abs=1e-6)
        assert t_out - t_in == pytest.approx(contact_time, abs=1e-9)
        checked += 1
    assert checked >= 1


def test_bistop_peak_force_is_the_spring_force_at_the_deepest_point(bistop):
    module, result = bistop
    stops = module.STOPS
    slot = result.force("slot")
    i = np.argmax(abs(slot.value))
    depth = max(stops["x1"] - slot.x[i], slot.x[i] - stops["x2"])
    # at the turning point xdot = 0: no damping, |F| = k depth^e; the 0.1 ms rows sit within
    # 0.05 ms of it, where the damping force is ~cmax * 0.3 m/s
    assert abs(slot.xdot[i]) < 0.5
    assert abs(slot.value[i]) == pytest.approx(stops["k"] * depth ** stops["e"], abs=1.0)
    assert 2700.0 < abs(slot.value[i]) < 2800.0


# Body Spring & Damper

@pytest.fixture(scope="module")
def bsd():
    module = load("body_spring_damper")
    return module, module.main(t_end=2.0)


def test_body_spring_damper_energy_balance(bsd, capsys):
    module, result = bsd
    energy, lost = result.energy(), module.dissipated(result)
    assert lost[-1] > 0.1                    # the dampers do work...
    # ...and all of it: energy + dissipated is constant, up to the trapezoidal rule's
    # O(h^2) error (measured 9e-5 J at h = 10 ms, 9e-7 J at the example's 1 ms)
    assert abs(energy + lost - energy[0]).max() < 1e-5


def test_body_spring_damper_force_is_the_simscape_law(bsd):
    module, result = bsd
    ends = {"strap1": (None, ("upper", "top")), "strap2": (("upper", "bottom"), ("lower", "top"))}
    for name, (a, b) in ends.items():
        k, damping, r0 = module.STRAPS[name]
        pa = result.body(a[0]).position(a[1]) if a else np.zeros((len(result.t), 3))
        va = result.body(a[0]).velocity(a[1]) if a else np.zeros((len(result.t), 3))
        r = result.body(b[0]).position(b[1]) - pa
        v = result.body(b[0]).velocity(b[1]) - va
        length = np.linalg.norm(r, axis=1)
        u = r / length[:, None]
        rate = np.einsum("ij,ij->i", v, u)
        expected = -(k * (length - r0) + damping * rate)[:, None] * u
        np.testing.assert_allclose(result.force(name).value, expected, rtol=1e-9, atol=1e-9)
        assert abs(rate).max() > 0.1             # the damper term is exercised


# Variable rotational spring

def test_variable_spring_switches_where_k_crosses_k_min(capsys):
    module = load("variable_spring")
    result = module.main(t_end=2.0)
    events = result.events
    assert [ev.what for ev in events] == ["K below K_min: K_min in use", "K in use"] * 2
    np.testing.assert_allclose([ev.t for ev in events], module.crossings(2.0), atol=1e-9)
    # the torque: -K theta with K >= K_min, else -K_min theta (SPEC §3.2, follower = R)
    spring = result.force("spring")
    K = np.maximum(module.stiffness(result.t), module.K_MIN)
    np.testing.assert_allclose(spring.value, -K * result.joint("shaft").q, rtol=1e-12,
                               atol=1e-12)
    assert "K_min in use" in capsys.readouterr().out


def test_variable_spring_is_a_plain_oscillator_below_k_min():
    module = load("variable_spring")
    result = module.main(t_end=1.0)
    t_down, t_up = module.crossings(1.0)
    theta, omega = result.joint("shaft").q, result.joint("shaft").v
    i0 = np.flatnonzero(result.t == result.events[0].t)[0]
    inside = (result.t >= t_down) & (result.t <= t_up)
    # between the crossings: theta'' = -(K_min/J) theta from the state at the first crossing
    w = np.sqrt(module.K_MIN / module.J)
    dt = result.t[inside] - result.t[i0]
    exact = theta[i0] * np.cos(w * dt) + omega[i0] / w * np.sin(w * dt)
    np.testing.assert_allclose(theta[inside], exact, atol=1e-8)
    energy = result.energy()[inside]
    assert abs(energy - energy[0]).max() < 1e-8 * energy[0]
    # while K(t) varies the spring pumps energy in or out
    assert abs(result.energy()[-1] - result.energy()[0]) > 0.1


# Four-bar with backlash in its drive

OUT_OF_PLANE = {"rotation about world x", "rotation about world z", "translation along world y"}


@pytest.fixture(scope="module")
def fourbar_backlash():
    module = load("fourbar_backlash")
    return module, module.main(t_end=2.0)


def test_fourbar_backlash_reports_its_mobility_and_redundant_equations(capsys):
    module = load("fourbar_backlash")
    system = module.build_model().build()
    # shaft + crank in the play + the four-bar's one DOF: 5 coordinates, 3 of the 6 loop
    # equations repeat the others (planar loop), 2 DOF, one of them driven
    assert (system.nv, system.dof, system.redundant_rows) == (5, 2, 3)
    cut = system.cut_joints[0]
    assert {r.split(": ")[1] for r in system.redundant} == OUT_OF_PLANE
    assert all(r.startswith(f"joint '{cut}'") for r in system.redundant)
    module.main(t_end=0.3)
    out = capsys.readouterr().out
    assert "3 redundant constraint equation(s)" in out and "DOF left free: 1" in out
    assert "lower flank: contact from" in out and "upper flank: contact from" in out


def test_fourbar_backlash_linkage_keeps_its_energy_in_free_play(fourbar_backlash):
    module, result = fourbar_backlash
    law = result.force("backlash")
    energy = result.energy()
    contacts = module.contacts(result)
    assert len(contacts) >= 8
    free = 0
    for (_, ends, _), (begins, _, _) in zip(contacts, contacts[1:]):
        rows = (result.t >= ends) & (result.t < begins)
        # only gravity and the joints act on the linkage; the shaft turns steadily with its
        # CG on its axis: the total energy is constant (measured drift 7e-8 J of ~60 J)
        assert np.all(law.value[rows] == 0.0)
        assert np.all(abs(law.x[rows]) <= module.B / 2 + 1e-9)
        assert np.ptp(energy[rows]) <= 1e-8 * abs(energy).max()
        free += rows.sum()
    assert free > 500
    # ...while the contacts change it (the motor works, the damper dissipates)
    assert np.ptp(energy) > 10.0


def test_fourbar_backlash_torque_goes_through_coupling_and_motor(fourbar_backlash):
    _, result = fourbar_backlash
    torque = result.force("backlash").value
    assert abs(torque).max() > 50.0
    # the coupling's reaction about its axis (y) is the backlash torque on the crank; the
    # shaft keeps its speed and its CG is on its axis, so the motor supplies exactly that
    np.testing.assert_allclose(result.reaction("coupling").torque[:, 1], torque, rtol=0,
                               atol=1e-9 * abs(torque).max())
    np.testing.assert_allclose(result.reaction("motor").value, torque, rtol=0,
                               atol=1e-9 * abs(torque).max())


# Slider-crank against end stops

@pytest.fixture(scope="module")
def slider_crank_stop():
    module = load("slider_crank_stop")
    return module, module.main(t_end=2.0)


def test_slider_crank_stop_undamped_stops_give_back_the_energy(capsys):
    module = load("slider_crank_stop")
    result = module.main(t_end=1.0, cmax=0.0)
    assert "peak stop force" in capsys.readouterr().out
    energy = result.energy()
    # the example claims ~1e-8 at its tolerances
    assert abs(energy - energy[0]).max() <= 1e-7 * abs(energy[0])
    impacts = module.impacts(result)
    assert [stop for _, _, stop in impacts] == [-1, 1, -1, 1]
    speed = result.joint("slide").v
    for t_in, t_out, _ in impacts:
        i, j = (np.flatnonzero(result.t == t)[0] for t in (t_in, t_out))
        # in and out at the same stop position, so in the same configuration: with the same
        # energy the mechanism leaves at the speed it came
        assert speed[i] * speed[j] < 0
        assert abs(speed[j]) == pytest.approx(abs(speed[i]), rel=1e-6)


def test_slider_crank_stop_damping_dissipates_only_in_contact(slider_crank_stop):
    module, result = slider_crank_stop
    energy = result.energy()
    impacts = module.impacts(result)
    assert len(impacts) >= 5
    for (t_in, t_out, _), (t_next, _, _) in zip(impacts, impacts[1:]):
        i, j, k = (np.flatnonzero(result.t == t)[0] for t in (t_in, t_out, t_next))
        assert energy[j] < energy[i] - 0.1                       # each impact loses energy
        assert np.ptp(energy[j:k + 1]) <= 1e-7 * abs(energy).max()   # nothing lost between


def test_slider_crank_stop_pushes_whenever_the_slider_moves_into_a_stop(slider_crank_stop):
    module, result = slider_crank_stop
    stops = module.STOPS
    x = result.body("slider").position("I")[:, 0]     # J is at the origin with world axes
    xdot = result.body("slider").velocity("I")[:, 0]
    # k pen^e plus a damping force that also resists the motion: BISTOP pushes, > 0
    into_lower = (x < stops["x1"] - 1e-9) & (xdot < 0.0)
    into_upper = (x > stops["x2"] + 1e-9) & (xdot > 0.0)
    assert into_lower.sum() > 100 and into_upper.sum() > 100
    value = result.force("stops").value
    assert np.all(value[into_lower] > 0.0) and np.all(value[into_upper] < 0.0)


def test_slider_crank_stop_force_is_the_bistop_of_the_slider_motion(slider_crank_stop):
    """Also where a contact ends on the "would pull" branch: in its last ~24 um the raw force
    turns positive again (the spring ~pen^1.5 outlasts the ramp damping ~pen^2), for ~17 us,
    and negative past x1, within what would be one step: the steppers find that double
    crossing (mbd.compiled.events.turning), or, where the step holding it ends at the
    contact's end (the clamp 0 +- round-off there: rtol 1.1e-10), the piece loop does, judging
    the clamp by its sign just before that end (mbd.run.pieceloop.Run.locate), so the stop
    pushes there as SPEC says."""
    module, result = slider_crank_stop
    x = result.body("slider").position("I")[:, 0]
    xdot = result.body("slider").velocity("I")[:, 0]
    expected = np.array([_bistop_spec(a, b, **module.STOPS) for a, b in zip(x, xdot)])
    assert abs(expected).max() > 500.0
    np.testing.assert_allclose(result.force("stops").value, expected, rtol=1e-9, atol=1e-6)


def test_slider_crank_stop_force_at_the_deepest_point_is_the_spring_force(slider_crank_stop):
    module, result = slider_crank_stop
    stops = module.STOPS
    force = result.force("stops")
    depth = np.maximum(stops["x1"] - force.x, force.x - stops["x2"])
    i = np.argmax(depth)
    # the slider turns there: the damping force cmax * |xdot| nearly vanishes (the 0.2 ms rows
    # sit within 0.1 ms of the turning point)
    assert abs(force.xdot[i]) < 0.05
    spring = stops["k"] * depth[i] ** stops["e"]
    damping = stops["cmax"] * abs(force.xdot[i])
    assert abs(force.value[i]) == pytest.approx(spring, abs=damping + 1e-6)
    # the peak force comes a little earlier, the damper adding to a slightly smaller spring
    # force: never more than spring + cmax * (entry speed)
    entry = abs(result.joint("slide").v).max()
    assert spring - damping <= abs(force.value).max() <= spring + stops["cmax"] * entry
    assert 1000.0 < spring < 1500.0


# A robot from its URDF: the Panda held by a joint-space PD

def test_panda_urdf_rests_where_the_pd_torques_carry_pinocchios_gravity(capsys):
    """The Panda read by mbd.from_urdf comes to rest where kp (q_ref - q) = g(q), g from
    Pinocchio's reading of the same URDF (masses, centres, frames: an independent check of
    the import), the arm sagging from the target by g / kp; the run ends there, no limit
    touched."""
    pytest.importorskip("yourdfpy")
    pytest.importorskip("pinocchio")
    module = load("panda_urdf")
    result, rest, torques, gravity = module.main()
    np.testing.assert_allclose(torques, gravity, rtol=0, atol=1e-9)
    assert abs(gravity[1]) > 30.0 and abs(gravity[3]) > 15.0    # the shoulder and elbow
    sag = np.array(module.TARGET) - rest
    np.testing.assert_allclose(sag, gravity / np.array(module.KP), rtol=1e-9, atol=1e-12)
    final = np.array([result.joint(name).q[-1] for name in module.ARM])
    assert np.abs(final - rest).max() < 1e-3
    assert np.abs([result.joint(name).v[-1] for name in module.ARM]).max() < 5e-3
    # it swung over: joint 1 turned by 1 rad, the hand moved ~0.6 m
    # from READY, where joint 1 is at 0: the assembly of the fingers' mimic loop (a
    # least-squares solve over every coordinate) may move it by round-off, at most one
    # rounding of the largest coordinate (eps |q|max; measured 0 on one machine, 4.1e-28 rad
    # on another)
    assert abs(result.joint("panda_joint1").q[0]) <= (np.finfo(float).eps
                                                      * np.abs(module.READY).max())
    tcp = result.body("panda_link7").position("panda_hand_tcp")
    assert np.linalg.norm(tcp[-1] - tcp[0]) > 0.5
    # the URDF's limits are stops that never touched; the fingers stay geared, half open
    assert result.events == []
    for name in module.ARM:
        assert np.all(result.force(f"{name}_limit").value == 0.0)
    np.testing.assert_allclose(result.joint("panda_finger_joint1").q,
                               result.joint("panda_finger_joint2").q, atol=1e-8)
    out = capsys.readouterr().out
    assert "largest difference from Pinocchio's" in out and "panda_joint7" in out


def test_panda_urdf_is_drawn_in_its_meshes_and_animated_in_the_gallery():
    """Every link drawn by its COLLADA mesh (the base on the ground), and the run's GIF in
    the gallery, small."""
    pytest.importorskip("yourdfpy")
    module = load("panda_urdf")
    model = module.build_model()
    assert all(type(shape).__name__ == "Mesh" and shape.path.endswith(".dae")
               for body in model.bodies for shape, _ in body.shapes)
    base = {g.name: g for g in model.grounds}["panda_link0_visual0"]
    assert [s.path.endswith("link0.dae") for s in base.shapes] == [True]
    stills = load("make_stills")
    assert set(stills.ANIMATIONS) <= ALL_EXAMPLES and "panda_urdf" in stills.ANIMATIONS
    for name in stills.ANIMATIONS:
        gif = EXAMPLES / "images" / f"{name}.gif"
        assert f"(images/{name}.gif)" in (EXAMPLES / "README.md").read_text()
        assert gif.is_file() and gif.stat().st_size < 500_000
        with Image.open(gif) as picture:
            assert picture.size == stills.GIF_SIZE and picture.n_frames > 20


# 3-D double pendulum

def test_double_pendulum_keeps_its_energy_and_moves_in_3d(capsys):
    module = load("double_pendulum")
    result = module.main(t_end=5.0)
    assert "largest drift" in capsys.readouterr().out
    # gravity is the only force: kinetic + potential is constant (the example claims ~1e-10
    # of the largest kinetic energy at rtol = atol = 1e-10)
    energy = result.energy()
    assert abs(energy - energy[0]).max() <= 1e-8 * result.kinetic_energy().max()
    kinetic = result.kinetic_energy()
    assert np.ptp(kinetic) > 0.5 * kinetic.max()           # while energy changes form
    # the rods keep their length through the joints, and the tip leaves the drawing plane
    top, elbow = (result.body("upper").position(cs) for cs in ("top", "tip"))
    lower_top, tip = (result.body("lower").position(cs) for cs in ("top", "tip"))
    np.testing.assert_allclose(np.linalg.norm(top, axis=1), 0.0, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(elbow, axis=1), 1.0, atol=1e-9)
    np.testing.assert_allclose(lower_top, elbow, atol=1e-9)
    np.testing.assert_allclose(np.linalg.norm(tip - elbow, axis=1), 1.0, atol=1e-9)
    assert abs(tip[:, 1]).max() > 0.5


# Two machines coupled into one composite machine

def _angular_frequency(x, t):
    """Mean angular frequency of a signal from its zero crossings (linear interpolation)."""
    i = np.flatnonzero(np.sign(x[1:]) != np.sign(x[:-1]))
    crossings = t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i])
    assert len(crossings) >= 8
    return np.pi / np.diff(crossings).mean()


@pytest.fixture(scope="module")
def two_machines():
    module = load("two_machines")
    return module, module.main(t_end=12.0)


def test_two_machines_are_one_composite_machine_with_one_environment(two_machines, capsys):
    module, _ = two_machines
    system = module.build_model().build()
    assert [m.bodies for m in system.machines] == [("pendulum1",), ("pendulum2",)]
    assert [m.grounds for m in system.machines] == [("left_pivot",), ("right_pivot",)]
    assert system.machines[0].composite == system.machines[1].composite
    assert system.machines[0].environment is system.machines[1].environment is not None
    module.main(t_end=0.5)
    assert "(composite 0)" in capsys.readouterr().out


def test_two_machines_swing_in_the_two_coupled_modes(two_machines):
    module, result = two_machines
    th1, th2 = result.joint("hinge1").q, result.joint("hinge2").q
    w1, w2 = module.mode_frequencies()
    # linear theory; the swings of <= 0.15 rad lower a pendulum's frequency by <= 0.15^2/16
    assert _angular_frequency(th1 + th2, result.t) == pytest.approx(w1, rel=5e-3)
    assert _angular_frequency(th1 - th2, result.t) == pytest.approx(w2, rel=5e-3)


def test_two_machines_exchange_their_energy_through_the_strap(two_machines):
    module, result = two_machines
    total = result.energy()
    assert abs(total - total[0]).max() <= 1e-9 * abs(total[0])      # an undamped strap
    e1 = module.machine_energy(result, "pendulum1")
    e2 = module.machine_energy(result, "pendulum2")
    strap = result.force("strap").energy
    # the machine energies and the strap's add up to the total (gravity zero at rest)
    offset = 2 * module.M * module.G * -module.L
    np.testing.assert_allclose(e1 + e2 + strap + offset, total, atol=1e-9)
    assert e2[0] == 0.0
    near = abs(result.t - module.transfer_time()) < 0.5
    # at t* machine 1 has (nearly) stopped and machine 2 carries all the energy
    assert e1[near].min() < 0.02 * e1[0]
    assert e2[near].max() > 0.95 * (e1[0] + strap[0])
    # ... and it comes back by 2 t*
    back = abs(result.t - 2 * module.transfer_time()) < 0.5
    assert e2[back].min() < 0.02 * e1[0]


# The BISTOP slot stood on end: at rest on the lower stop, and its mode there

def mbd_equilibrium(module):
    import mbd
    return mbd.equilibrium(module.build_model().build())


def test_slot_at_rest_rests_on_the_lower_stop_at_the_closed_form_penetration(capsys):
    module = load("slot_at_rest")
    eq = module.main()
    exact = module.closed_form()
    stops = module.STOPS
    # k pen^e = m g: pen = (m g / k)^(1/e), past the damping ramp (pen > d)
    assert module.penetration(eq) == pytest.approx(exact["pen"], rel=1e-9)
    assert exact["pen"] > stops["d"]
    assert eq.active["slot"] == {"contact": -1}          # against x1, the lower stop
    assert eq.residual <= 1e-10 and eq.stable
    # the drawn pose floats mid-slot: Newton alone has nothing to hold, the damped motion
    # brings the block down first
    assert eq.method == "dynamic, then newton"
    out = capsys.readouterr().out
    assert "penetration into the lower stop" in out and "contact = -1" in out


def test_slot_at_rest_mode_is_the_linearized_contact():
    module = load("slot_at_rest")
    eq = mbd_equilibrium(module)
    exact = module.closed_form()
    mode, = eq.linear.modes()
    # k_lin = k e pen^(e-1), damping cmax: f = sqrt(k_lin/m)/(2 pi), zeta = cmax/(2 sqrt(k_lin m))
    assert mode.frequency == pytest.approx(exact["f"], rel=1e-8)
    assert mode.damping_ratio == pytest.approx(exact["zeta"], rel=1e-8)
    assert mode.kind == "oscillating" and mode.stable
    np.testing.assert_allclose(eq.linear.K, [[exact["k_lin"]]], rtol=1e-8)
    np.testing.assert_allclose(eq.linear.Cd, [[module.STOPS["cmax"]]], rtol=1e-8)


# A double-wishbone corner: its rest state and its bounce

@pytest.fixture(scope="module")
def suspension():
    module = load("suspension_modes")
    return module, module.main()


def test_suspension_rests_in_balance_and_has_one_mode(suspension, capsys):
    module, eq = suspension
    system = eq.system
    assert system.dof == 1 and system.cut_joints and system.redundant_rows == 3
    assert eq.residual <= 1e-10 and eq.stable
    linear = eq.linear
    assert linear.A.shape == (2, 2) and len(linear.state_names) == 2 * system.dof
    assert len(linear.modes()) == 1
    # an independent check of the balance: released at rest there, nothing moves
    rest = eq.coordinates()
    run = system.simulate(0.5, q0=rest, output_step=0.05, rtol=1e-10, atol=1e-12)
    assert np.abs(run.q - eq.state.q).max() < 1e-10 and np.abs(run.v).max() < 1e-9
    module.main()
    out = capsys.readouterr().out
    assert "A is 2 x 2: 2 x dof = 2 x 1 states" in out and "oscillating" in out


def test_suspension_bounce_is_the_free_oscillation_about_the_rest_state(suspension):
    """A small free oscillation about the equilibrium, simulated: its period from the zero
    crossings and its decay from the envelope are the mode's damped frequency and growth rate
    (measured 1.5e-7 and 1.2e-6; the nonlinearity at 1e-4 rad is below that)."""
    from scipy.interpolate import CubicSpline
    _, eq = suspension
    bounce, = eq.linear.modes()
    period = 1.0 / bounce.damped_frequency
    rest = eq.coordinates()["lower_inner"]
    run = eq.system.simulate(8 * period, q0={"lower_inner": rest + 1e-4},
                             output_step=period / 100, rtol=1e-11, atol=1e-13)
    x = CubicSpline(run.t, run.joint("lower_inner").q - rest)
    roots = x.roots(extrapolate=False)
    down = roots[x(roots, 1) < 0]                       # one crossing per cycle
    assert len(down) >= 7
    measured = np.diff(down).mean()
    assert 1.0 / measured == pytest.approx(bounce.damped_frequency, rel=1e-4)
    # a quarter period after a crossing the sine is at its extreme: the envelope's ratio per
    # cycle is exp(Re lambda T)
    envelope = np.abs(x(down + 0.25 * measured))
    decay = np.log(envelope[1:] / envelope[:-1]).mean() / measured
    assert decay == pytest.approx(bounce.growth_rate, rel=1e-4)


# A study of the BISTOP slot: mbd.sweep over the stops' k x e (examples/slot_study.py)

STUDY_K, STUDY_E = (1e6, 1e8), (1.5, 3.0)


def _slot_study(out, **options):
    """slot_study.main on the 2 x 2 grid into ``out``; the example is importable by its name
    meanwhile, as worker processes need it to unpickle its output functions."""
    import sys
    module = load("slot_study")
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(sys.modules, "slot_study", module)
        mp.syspath_prepend(str(EXAMPLES))
        table = module.main(out=out, k_values=STUDY_K, e_values=STUDY_E, progress=False,
                            **options)
    return module, table


@pytest.fixture(scope="module")
def undamped_study(tmp_path_factory):
    out = tmp_path_factory.mktemp("slot_study_undamped")
    module, table = _slot_study(out, cmax=0.0)
    return module, table, out


def _undamped_impact(stops, mass, v, k, e):
    """The impact on an undamped power-law stop, from energy conservation alone:
    (1/2) m v^2 = k delta^(e+1) / (e+1) at the deepest point delta (m), where the force is
    k delta^e (N); the contact lasts twice the time to get there,
    T = 2 int_0^delta dx / sqrt(v^2 - 2 k x^(e+1) / ((e+1) m)) = (2 delta / v) B(1/n, 1/2) / n
    with n = e + 1 (s)."""
    from scipy.special import beta
    n = e + 1.0
    delta = (n * mass * v ** 2 / (2.0 * k)) ** (1.0 / n)
    return delta, k * delta ** e, 2.0 * delta / v * beta(1.0 / n, 0.5) / n


def test_slot_study_undamped_impacts_are_the_energy_balance(undamped_study):
    """With cmax = 0 every run's first impact is the closed form of _undamped_impact. The
    contact time comes from exact event times (bistop_slot's tolerances give ~1e-10 s: 1e-9 s
    here); the peak force and penetration are read at output rows h = OUTPUT_STEP apart, at
    most h/2 from the turning point, where x = delta - a t^2 / 2 (a = F/m): they lie below
    the exact values by at most a (h/2)^2 / 2 (penetration) and e times that over delta
    (relative, force)."""
    _, table, out = undamped_study
    slot = load("bistop_slot")
    stops, h = slot.STOPS, slot.OUTPUT_STEP
    assert list(table["status"]) == ["ok"] * 4
    assert [tuple(r) for r in table[["slot.k", "slot.e"]].to_numpy()] == \
        [(k, e) for k in STUDY_K for e in STUDY_E]            # k slowest, as the grid says
    assert (table["slot.cmax"] == 0.0).all()
    for _, row in table.iterrows():
        delta, peak, duration = _undamped_impact(stops, slot.MASS, slot.V0, row["slot.k"],
                                                 row["slot.e"])
        # free flight from X0 to x2 at V0, whatever the stop: the event's root on a straight
        # line, found to round-off
        assert row["first contact (s)"] == pytest.approx((stops["x2"] - slot.X0) / slot.V0,
                                                         abs=1e-12)
        assert row["contact time (ms)"] == pytest.approx(1e3 * duration, abs=1e-6)
        drop = (peak / slot.MASS) * (h / 2) ** 2 / 2          # m, at the nearest row
        assert delta - drop <= 1e-3 * row["penetration (mm)"] <= delta * (1 + 1e-9)
        assert (peak * (1 - row["slot.e"] * drop / delta) <= row["peak force (N)"]
                <= peak * (1 + 1e-9))
        # nothing lost: the block leaves at the speed it came
        assert row["restitution"] == pytest.approx(1.0, abs=1e-7)
    # everything on disk: the table, a result per run, the two pictures
    csv = (out / "sweep.csv").read_text().splitlines()
    assert len(csv) == 5 and "peak force (N)" in csv[0]
    assert len(list((out / "runs").glob("*.npz"))) == 4
    for name in ("peak_force_map.png", "peak_force_lines.png"):
        with Image.open(out / name) as picture:
            assert picture.format == "PNG"


def test_slot_study_with_the_seeds_damping_follows_the_stop(tmp_path, undamped_study,
                                                           capsys):
    """The seed's light damping (cmax = 1 N s/m): each impact loses energy and cannot go
    deeper than the undamped stop lets it; the peak force rises with k and falls with e, the
    contact is shorter on a stiffer stop and longer at a higher exponent (the closed form's
    trends, which light damping keeps), and the study into the same folder again runs
    nothing."""
    _, table = _slot_study(tmp_path)
    _, undamped, _ = undamped_study
    assert list(table["status"]) == ["ok"] * 4 and table.attrs["ran"] == 4
    printed = capsys.readouterr().out
    assert "BISTOP slot study: 4 runs (4 run now" in printed and "contact time (ms)" in printed
    assert (table["restitution"] < 1.0).all() and (table["restitution"] > 0.9).all()
    assert (table["penetration (mm)"] < undamped["penetration (mm)"]).all()
    grid = {name: table.pivot(index="slot.k", columns="slot.e", values=name).to_numpy()
            for name in ("peak force (N)", "contact time (ms)")}
    # rows: k 1e6, 1e8; columns: e 1.5, 3
    assert (grid["peak force (N)"][1] > grid["peak force (N)"][0]).all()
    assert (grid["peak force (N)"][:, 1] < grid["peak force (N)"][:, 0]).all()
    assert (grid["contact time (ms)"][1] < grid["contact time (ms)"][0]).all()
    assert (grid["contact time (ms)"][:, 1] > grid["contact time (ms)"][:, 0]).all()
    _, again = _slot_study(tmp_path)
    assert again.attrs["ran"] == 0 and again.attrs["reused"] == 4
    np.testing.assert_array_equal(again["peak force (N)"], table["peak force (N)"])


def test_gallery_shows_each_study_with_its_map():
    rows = [row for row in gallery_rows() if row[1] in STUDIES]
    assert sorted(name for _, name, _ in rows) == sorted(STUDIES)
    for image, name, command in rows:
        assert image.startswith(f"images/{name}/") and image.endswith(".png")
        assert (EXAMPLES / image).is_file()
        assert (EXAMPLES / image).stat().st_size < 150_000       # small, it is committed
        assert command == f"python examples/{name}.py"
