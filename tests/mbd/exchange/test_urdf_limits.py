"""A robot whose URDF zero pose lies outside its joints' limits, walked as a user meets it
(issue 45): the Kinova of example-robot-data starts three joints outside their <limit>.
``mbd.from_urdf`` warns, ``build()`` and ``mbd check ROBOT.urdf`` refuse it, each naming the
joints, their limits and starts and the ways out; ``start="inside"`` (``--start inside``)
starts them at their nearest limit, where a run begins with no stop force and no stop energy;
``q0=`` and a joint's edited q0 give starts of one's own. And a link named as a joint (the
body ``LINK_link``): every "no body" error for LINK says where it went."""
import importlib.metadata
import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import mbd
from forces import Bistop
from mbd.exchange.urdf import STOP, StartOutsideLimits

from .urdf_text import _joint, _link, _urdf

pytest.importorskip("yourdfpy")
SHARE = str(importlib.metadata.distribution("example-robot-data").locate_file(
    "cmeel.prefix/share"))
KINOVA = os.path.join(SHARE, "example-robot-data", "robots", "kinova_description", "robots",
                      "kinova.urdf")
#: the Kinova's joints whose <limit> excludes 0, and those limits (rad), as kinova.urdf has them
OUTSIDE = {"j2s6s200_joint_2": (0.820304748437, 5.46288055874),
           "j2s6s200_joint_3": (0.331612557879, 5.9515727493),
           "j2s6s200_joint_5": (0.523598775598, 5.75958653158)}


def named_each(text):
    """Assert that ``text`` names each of OUTSIDE's joints with its limits (6 digits, as the
    message prints them) and its start, 0 rad."""
    for name, (lower, upper) in OUTSIDE.items():
        assert (f"'{name}' starts at 0 rad, outside its limits [{lower:.6g}, {upper:.6g}] rad"
                in text), text


def stop_energy():
    """What the three stops hold at q = 0, J: k pen^(e+1) / (e+1) (Bistop's documented
    potential), pen the distance from 0 to the lower limit, at the default stop (e = 1)."""
    assert STOP["e"] == 1.0
    return sum(0.5 * STOP["k"] * lower ** 2 for lower, _ in OUTSIDE.values())


def cli(*args):
    return subprocess.run([sys.executable, "-m", "mbd", *args], capture_output=True, text=True,
                          timeout=900)


def test_the_file_has_the_limits_named_here():
    """The joints and limits this test names are kinova.urdf's (a changed package must not
    make the test pass unseen): read with the standard library, not with mbd."""
    import xml.etree.ElementTree as ET
    limits = {}
    for joint in ET.parse(KINOVA).getroot().iter("joint"):
        limit = joint.find("limit")
        if joint.get("type") == "revolute" and limit is not None:
            lower, upper = float(limit.get("lower")), float(limit.get("upper"))
            if not lower <= 0.0 <= upper:
                limits[joint.get("name")] = (lower, upper)
    assert limits == OUTSIDE


def test_from_urdf_warns_and_build_refuses_naming_the_joints():
    """The user's walk: from_urdf warns (StartOutsideLimits), naming the three joints, their
    limits and their start; build() refuses with a ModelError that names them as well, the
    energy the stops would release (53 kJ, from the stop's stiffness) and the ways out."""
    with pytest.warns(StartOutsideLimits) as caught:
        model = mbd.from_urdf(KINOVA, package_dirs=[SHARE])
    assert len(caught) == 1
    warning = str(caught[0].message)
    named_each(warning)
    assert "j2s6s200_joint_1" not in warning          # continuous: no stop, not outside
    assert "build() will refuse the model" in warning
    assert caught[0].filename == __file__              # pointed at the user's line
    with pytest.raises(mbd.ModelError) as err:
        model.build()
    text = str(err.value)
    named_each(text)
    assert text.startswith("URDF robot 'kinova': 3 joints start outside their <limit>")
    released = float(re.search(r"release ([0-9.e+]+) J", text).group(1))
    assert abs(released - stop_energy()) <= 5e-3 * stop_energy()     # printed to 3 digits
    assert 50e3 < released < 56e3                     # the 53 kJ
    for way_out in ("start='inside'", "--start inside", "q0={'j2s6s200_joint_2': 0.820305",
                    "--set j2s6s200_joint_2.q0=0.820305", "limits='ignore'",
                    "start='anywhere'"):
        assert way_out in text, way_out


def test_start_inside_begins_at_the_nearest_limit_with_no_stop_force():
    """start="inside": each of the three joints starts at its nearest limit (0 is below each
    lower limit), the others at 0; no warning, the model builds, and a run begins with every
    stop's force and energy zero (where start="anywhere" begins with the 53 kJ the message
    names) and their stored energy stays far below that over the first 20 ms."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", StartOutsideLimits)
        model = mbd.from_urdf(KINOVA, package_dirs=[SHARE], start="inside")
    joints = {e.name: e for e in model.elements if isinstance(e, mbd.Joint)}
    for name, joint in joints.items():
        assert joint.q0 == (OUTSIDE[name][0] if name in OUTSIDE else 0.0), name
    assert model.urdf_moved == [(name, 0.0, lower) for name, (lower, _) in OUTSIDE.items()]
    result = model.build().simulate(0.02, output_step=0.005)
    stops = [fe.name for fe in result.system.force_elements if isinstance(fe.law, Bistop)]
    assert {f"{name}_limit" for name in OUTSIDE} <= set(stops)
    for name in stops:
        view = result.force(name)
        assert view.value[0] == 0.0 and view.energy[0] == 0.0, name
    for name in OUTSIDE:
        np.testing.assert_allclose(result.joint(name).q[0], OUTSIDE[name][0], rtol=0, atol=0)
    # gravity pushes some joints into their stops after t = 0: what they hold is of the
    # arm's weight times a penetration of ~1e-3 rad, not the 53 kJ of the zero pose
    held = sum(result.force(name).energy.max() for name in stops)
    assert held < 1e-3 * stop_energy(), held
    # the same model started where the URDF's zero puts it, on purpose: 53 kJ at t = 0
    anywhere = mbd.from_urdf(KINOVA, package_dirs=[SHARE], start="anywhere")
    system = anywhere.build()                               # no error: asked for
    law = next(fe.law for fe in system.force_elements if fe.name == "j2s6s200_joint_2_limit")
    assert law(0.0) == pytest.approx(STOP["k"] * OUTSIDE["j2s6s200_joint_2"][0], rel=1e-12)


def test_starts_of_ones_own_q0_and_edited_joints():
    """q0= sets starts (inside: no warning, builds); an edited joint q0 is checked at build
    (a warned model builds once its joints are moved inside; one moved back out is refused,
    naming that joint alone); bad q0 and start values are named."""
    inside = {name: 0.5 * (lower + upper) for name, (lower, upper) in OUTSIDE.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("error", StartOutsideLimits)
        model = mbd.from_urdf(KINOVA, package_dirs=[SHARE], q0=inside)
    joints = {e.name: e for e in model.elements if isinstance(e, mbd.Joint)}
    assert {name: joints[name].q0 for name in OUTSIDE} == inside
    model.build()
    joints["j2s6s200_joint_3"].q0 = 6.0                     # above its upper limit 5.95
    with pytest.raises(mbd.ModelError, match=r"a joint starts outside its <limit> \("
                       r"'j2s6s200_joint_3' starts at 6 rad, outside its limits "
                       r"\[0.331613, 5.95157\] rad\)") as err:
        model.build()
    assert "j2s6s200_joint_2'" not in str(err.value)
    assert "--set j2s6s200_joint_3.q0=5.95157" in str(err.value)   # the nearest limit

    with pytest.warns(StartOutsideLimits):
        warned = mbd.from_urdf(KINOVA, package_dirs=[SHARE])
    for name, joint in ((e.name, e) for e in warned.elements if e.name in OUTSIDE):
        joint.q0 = inside[name]
    warned.build()                                       # moved inside: it builds

    with pytest.raises(mbd.ModelError, match=r"from_urdf: q0 names \['j2s6s200_joint_9'\], "
                       r"which are no unlocked revolute, continuous or prismatic joints"):
        mbd.from_urdf(KINOVA, package_dirs=[SHARE], q0={"j2s6s200_joint_9": 1.0})
    with pytest.raises(mbd.ModelError, match=r"from_urdf: q0\['j2s6s200_joint_2'\] must be a "
                       r"finite number \(rad or m\), got 'up'"):
        mbd.from_urdf(KINOVA, package_dirs=[SHARE], q0={"j2s6s200_joint_2": "up"})
    with pytest.raises(ValueError, match=r"from_urdf: start must be one of \('checked', "
                       r"'inside', 'anywhere'\), got 'clamp'"):
        mbd.from_urdf(KINOVA, package_dirs=[SHARE], start="clamp")


def test_a_prismatic_joint_outside_is_named_in_metres(tmp_path):
    """A slide whose limits [0.1, 0.3] m exclude its zero, and a revolute whose [-1, 1] rad
    hold it: only the slide is named, in metres; start="inside" starts it at 0.1 m, and the
    stop that a --set moved (a JOINT_limit parameter replaced by name) is the one checked."""
    path = _urdf(tmp_path, _link("base") + _link("a") + _link("b")
                 + _joint("hinge", "revolute", "base", "a", extra='<limit lower="-1" '
                          'upper="1" effort="1" velocity="1"/>')
                 + _joint("slide", "prismatic", "a", "b", axis="1 0 0",
                          extra='<limit lower="0.1" upper="0.3" effort="1" velocity="1"/>'))
    with pytest.warns(StartOutsideLimits, match=r"a joint starts outside its <limit> \("
                      r"'slide' starts at 0 m, outside its limits \[0.1, 0.3\] m\)"):
        model = mbd.from_urdf(path)
    with pytest.raises(mbd.ModelError, match=r"'slide' starts at 0 m"):
        model.build()
    # --set slide_limit.x1=-0.1 replaces the stop by one whose gap holds 0: it builds
    from mbd.study.scripts import apply_setting
    apply_setting(model, "slide_limit.x1=-0.1")
    model.build()
    moved = mbd.from_urdf(path, start="inside")
    assert next(e for e in moved.elements if e.name == "slide").q0 == 0.1
    assert next(e for e in moved.elements if e.name == "hinge").q0 == 0.0


def test_mbd_check_refuses_the_kinova_and_builds_it_with_start_inside():
    """`mbd check ROBOT.urdf` as the user typed it: exit status 2 and a message naming the
    three joints, their limits and `--start inside` (not "the model builds", no traceback, no
    second copy from the reader's warning); with `--start inside` it builds and reports the
    joints it moved; `--set` moving the three inside builds too."""
    proc = cli("check", KINOVA, "--package-dir", SHARE)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "the model builds" not in proc.stdout and "Traceback" not in proc.stderr
    named_each(proc.stderr)
    assert "--start inside" in proc.stderr
    assert proc.stderr.count("j2s6s200_joint_3' starts at 0 rad") == 1     # said once

    proc = cli("check", KINOVA, "--package-dir", SHARE, "--start", "inside")
    assert proc.returncode == 0, proc.stderr
    assert "mbd check: " in proc.stdout and "the model builds" in proc.stdout
    assert "start: inside" in proc.stdout
    for name, (lower, _) in OUTSIDE.items():
        assert f"{name} from 0 to {lower:.6g}" in proc.stdout

    sets = [arg for name, (lower, upper) in OUTSIDE.items()
            for arg in ("--set", f"{name}.q0={0.5 * (lower + upper)}")]
    proc = cli("check", KINOVA, "--package-dir", SHARE, *sets)
    assert proc.returncode == 0, proc.stderr
    assert "the model builds" in proc.stdout and "StartOutsideLimits" not in proc.stderr


def test_mbd_run_with_start_inside_releases_nothing_from_the_stops(tmp_path):
    """`mbd run ROBOT.urdf --start inside`: the run the issue saw release 53 kJ from the stops
    in its first millisecond now starts with them open: every stop's work is 0 at the first
    row, and what the stops store over 0.1 s (their share of the energy balance) stays far
    below the 53 kJ (gravity settles two joints onto their stops by ~1 mrad)."""
    out = tmp_path / "out"
    proc = cli("run", KINOVA, "--package-dir", SHARE, "--start", "inside", "--t-end", "0.1",
               "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    stored = float(re.search(r"stored in springs ([-+0-9.e]+)", proc.stdout).group(1))
    assert abs(stored) < 1e-6 * stop_energy(), proc.stdout
    header = (out / "kinova.csv").read_text().splitlines()[0].split(",")
    data = np.loadtxt(out / "kinova.csv", delimiter=",", skiprows=1, ndmin=2)
    for name, (lower, _) in OUTSIDE.items():
        assert data[0, header.index(f"{name}.q")] == pytest.approx(lower, abs=1e-12)
        assert data[0, header.index(f"{name}_limit.work")] == 0.0


# ------------------------------------------------- a link named as a joint: "no body" errors

def gripper(tmp_path):
    """so_arm's pattern: a link and a joint both named 'gripper' (the body 'gripper_link')."""
    return _urdf(tmp_path, _link("base") + _link("gripper") + _link("jaw")
                 + _joint("wrist", "continuous", "base", "gripper")
                 + _joint("gripper", "continuous", "gripper", "jaw", axis="1 0 0"))


HINT = ("the URDF link 'gripper' is the body 'gripper_link' because a joint has the same "
        "name")


def test_no_body_errors_say_where_a_link_named_as_a_joint_went(tmp_path):
    """Each place that looks a body up by name says, for 'gripper', where the link went:
    result.body, a sensor of a CS, a sensor's reference CS, a sweep output, --set, a
    linearization output; a name that is no renamed link gets no such hint."""
    path = gripper(tmp_path)
    model = mbd.from_urdf(path)
    assert [b.name for b in model.bodies] == ["gripper_link", "jaw"]
    result = model.build().simulate(0.01, output_step=0.01)
    with pytest.raises(KeyError, match=re.escape(f"no body 'gripper' ({HINT})")):
        result.body("gripper")
    with pytest.raises(KeyError) as err:
        result.body("claw")
    assert "URDF link" not in str(err.value)
    assert result.body("gripper_link").position("gripper").shape == (2, 3)

    bad = mbd.from_urdf(path)
    bad.add(mbd.Sensor("s", "gripper.cg.x"))
    with pytest.raises(mbd.ModelError, match=re.escape(HINT)):
        bad.build()
    bad = mbd.from_urdf(path)
    bad.add(mbd.Sensor("s", "gripper.x"))               # the joint's name: which link?
    with pytest.raises(mbd.ModelError, match=re.escape(HINT)):
        bad.build()
    bad = mbd.from_urdf(path)
    bad.add(mbd.Sensor("s", "jaw.cg.x@gripper.cg"))
    with pytest.raises(mbd.ModelError, match=re.escape(HINT)):
        bad.build()

    from mbd.study.outputs import Output
    from mbd.study.scripts import apply_setting
    with pytest.raises(mbd.InputError, match=re.escape(f"no body 'gripper' ({HINT})")):
        Output("tip", "final:body.gripper.cg.x").check(result.system)
    with pytest.raises(mbd.InputError, match=re.escape(f"joint 'gripper' has no settable "
                                                        f"parameter 'mass' ({HINT})")):
        apply_setting(mbd.from_urdf(path), "gripper.mass=2")
    with pytest.raises(ValueError, match=re.escape(HINT)):
        mbd.linearize(result.system, result.system.initial_state(), outputs=["gripper.cg.x"])


def test_a_root_link_named_as_a_joint_is_the_ground_and_says_so(tmp_path):
    """The fixed base's root link 'base' and a joint 'base': the ground 'base_link', and
    result.body('base') says so."""
    path = _urdf(tmp_path, _link("base") + _link("arm")
                 + _joint("base", "continuous", "base", "arm"))
    model = mbd.from_urdf(path)
    assert [g.name for g in model.grounds][0] == "base_link"
    result = model.build().simulate(0.01, output_step=0.01)
    with pytest.raises(KeyError, match=re.escape(
            "no body 'base' (the URDF link 'base' is the ground 'base_link' because a joint "
            "has the same name)")):
        result.body("base")


def test_the_command_lines_set_says_where_the_link_went(tmp_path):
    """`mbd check ROBOT.urdf --set gripper.mass=2` (the link's mass, as the URDF names it):
    exit status 2 and the message says that link is the body 'gripper_link'."""
    proc = cli("check", str(gripper(tmp_path)), "--set", "gripper.mass=2")
    assert proc.returncode == 2
    assert HINT in proc.stderr and "Traceback" not in proc.stderr
    proc = cli("check", str(gripper(tmp_path)), "--set", "gripper_link.mass=2")
    assert proc.returncode == 0, proc.stderr
