"""`mbd run ROBOT.urdf` and `mbd check ROBOT.urdf` as a user drives them: the robot read by
mbd.from_urdf, simulated under gravity at the run defaults, its results written as a script's;
the URDF options, and the messages of what is wrong."""
import importlib.metadata
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

import mbd
from mbd import cli

pytest.importorskip("yourdfpy")
pytest.importorskip("trimesh")
try:
    SHARE = str(importlib.metadata.distribution("example-robot-data").locate_file(
        "cmeel.prefix/share"))
except importlib.metadata.PackageNotFoundError:
    pytest.skip("the robots of example-robot-data are not installed", allow_module_level=True)
UR5 = os.path.join(SHARE, "example-robot-data", "robots", "ur_description", "urdf",
                   "ur5_robot.urdf")
UR5_JOINTS = ["shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint",
              "wrist_2_joint", "wrist_3_joint"]
T_END = 0.2   # s: a short run


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "mbd", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=600)


def csv(path):
    header = path.read_text().splitlines()[0].split(",")
    return header, np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)


def test_run_writes_the_robots_results_equal_to_its_model_simulated(tmp_path):
    """A true subprocess: the CSV holds every joint of the UR5, rows at the default 0.01 s
    step, the values those of mbd.from_urdf(...).build().simulate(...) with the --set applied;
    the plot and the GIF (the robot drawn in its meshes) are written too."""
    out = tmp_path / "out"
    proc = run("run", UR5, "--t-end", str(T_END), "--out", str(out), "--animate",
               "--set", "elbow_joint.q0=0.5", "--package-dir", SHARE)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stdout.startswith("settings: elbow_joint.q0 = 0.5\nmbd run: ur5\n")
    assert "joints: 6" in proc.stdout and "DOF: 6" in proc.stdout
    header, data = csv(out / "ur5.csv")
    for joint in UR5_JOINTS:
        assert f"{joint}.q" in header and f"{joint}.v" in header
    assert f"results: {out / 'ur5.csv'} ({len(data)} rows)" in proc.stdout
    np.testing.assert_allclose(data[:, 0], np.arange(21) * 0.01, rtol=0, atol=1e-12)

    model = mbd.from_urdf(UR5, package_dirs=[SHARE])
    next(e for e in model.elements if getattr(e, "name", None) == "elbow_joint").q0 = 0.5
    result = model.build().simulate(T_END, output_step=0.01)
    for joint in UR5_JOINTS:
        np.testing.assert_allclose(data[:, header.index(f"{joint}.q")], result.joint(joint).q,
                                   rtol=0, atol=1e-12)
        np.testing.assert_allclose(data[:, header.index(f"{joint}.v")], result.joint(joint).v,
                                   rtol=0, atol=1e-12)
    # it moved: gravity swings the arm, starting from the --set elbow angle
    assert data[0, header.index("elbow_joint.q")] == 0.5
    assert abs(data[-1, header.index("shoulder_lift_joint.q")]) > 0.05

    assert (out / "ur5.png").is_file()
    with Image.open(out / "ur5.gif") as gif:
        assert gif.n_frames > 1
        gif.seek(gif.n_frames - 1)
        frame = np.asarray(gif.convert("RGB")).astype(int)
    # the robot's dark meshes are there, between the title and the legend (the rest is the
    # white background and the pale floor)
    assert (frame[60:-40].max(axis=2) < 120).sum() > 500


def test_check_lists_the_robots_joints_and_elements(capsys):
    assert cli.main(["check", UR5]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"mbd check: {UR5}: the model builds\n"), out
    assert "read from the URDF: a fixed base, limits: stops, 7 visual shapes (7 meshes)" in out
    assert "dof=6" in out and "force elements: 6" in out
    for joint in UR5_JOINTS:
        assert f"'{joint}'" in out                     # in the machine's list of joints
        assert f"JointForce '{joint}_limit': Bistop(" in out
    assert err == ""


def test_limits_ignore_and_floating_change_the_model(capsys):
    assert cli.main(["check", UR5, "--limits", "ignore", "--floating"]) == 0
    out = capsys.readouterr().out
    assert "read from the URDF: a floating base, limits: ignore" in out
    assert "force elements: 0" in out and "_limit" not in out
    assert "'root_joint'" in out and "dof=12" in out       # a SixDof to the root link


def test_a_missing_mesh_is_named_with_its_link_and_the_option_to_give(tmp_path, capsys):
    """The URDF copied away from its package: its package:// meshes are not found; the
    message names the first mesh, its link and --package-dir; given it, the robot loads."""
    copy = tmp_path / "ur5.urdf"
    shutil.copy(UR5, copy)
    assert cli.main(["check", str(copy)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    mesh = "package://example-robot-data/robots/ur_description/meshes/ur5/visual/base.dae"
    assert f"link 'base_link': its mesh '{mesh}' is not found" in err
    assert "give --package-dir DIR, the folder that holds the package 'example-robot-data'" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    # a folder that does not hold it is named too
    assert cli.main(["check", str(copy), "--package-dir", str(tmp_path)]) == 2
    assert f"the folders given, {tmp_path}, do not hold it" in capsys.readouterr().err
    assert cli.main(["check", str(copy), "--package-dir", SHARE]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("argv, words", [
    (["run", UR5, "--limits", "soft"], ["argument --limits: invalid choice: 'soft'",
                                         "'stops'", "'ignore'"]),
])
def test_a_bad_limits_value_is_named(argv, words, capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    for word in words:
        assert word in err


def test_bad_urdf_input_is_one_message_and_status_2(tmp_path, capsys):
    # no file there
    assert cli.main(["run", str(tmp_path / "robot.urdf"), "--out", str(tmp_path)]) == 2
    assert "mbd run: no URDF file at" in capsys.readouterr().err
    # a package folder that does not exist
    assert cli.main(["check", UR5, "--package-dir", str(tmp_path / "nowhere")]) == 2
    assert f"--package-dir {tmp_path / 'nowhere'}: no such folder" in capsys.readouterr().err
    # the URDF options with a model script
    script = tmp_path / "model.py"
    script.write_text("import mbd\nmodel = mbd.Model('m')\n")
    assert cli.main(["check", str(script), "--floating", "--limits", "ignore"]) == 2
    err = capsys.readouterr().err
    assert "--floating, --limits apply to a URDF robot description (a .urdf file) only" in err
    # an unknown --set name lists the robot's elements
    assert cli.main(["check", UR5, "--set", "elbow.q0=0.5"]) == 2
    err = capsys.readouterr().err
    assert "no body, joint or force element named 'elbow'" in err and "elbow_joint" in err
    # commands that take a model script only say how to make one of the URDF
    for argv in (["sweep", UR5, "--grid", "elbow_joint.q0=0,1"], ["fmu", UR5]):
        assert cli.main(argv) == 2
        err = capsys.readouterr().err
        assert f"takes a model script, not a URDF ({UR5})" in err and "mbd.from_urdf" in err


ROMEO = os.path.join(SHARE, "example-robot-data", "robots", "romeo_description", "urdf",
                     "romeo.urdf")


def test_a_massless_hand_is_named_and_locked_with_lock(capsys):
    """Romeo's hands have no mass: check names the joints and says --lock; locking the two
    hand joints (their mimicking fingers with them) makes a robot that builds."""
    assert cli.main(["check", ROMEO, "--package-dir", SHARE]) == 2
    err = capsys.readouterr().err
    assert "'LHand'" in err and "move no inertia in any position" in err and "--lock" in err
    assert cli.main(["check", ROMEO, "--package-dir", SHARE, "--lock", "LHand",
                     "--lock", "RHand=0.1"]) == 0
    out = capsys.readouterr().out
    assert "joints locked: LHand, RHand=0.1" in out and "dof=31" in out
    assert "'LFinger12'" not in out                    # locked with its leader


def test_no_mimic_reads_mimics_as_joints_and_a_bad_lock_is_named(capsys):
    # the Panda's second finger mimics the first: a gear, or (--no-mimic) a joint of its own
    panda = os.path.join(SHARE, "example-robot-data", "robots", "panda_description", "urdf",
                         "panda.urdf")
    # (--start inside: its fourth joint's limits leave out 0)
    assert cli.main(["check", panda, "--package-dir", SHARE, "--start", "inside"]) == 0
    geared = capsys.readouterr().out
    assert cli.main(["check", panda, "--package-dir", SHARE, "--no-mimic", "--start",
                     "inside"]) == 0
    free = capsys.readouterr().out
    assert "dof=8" in geared and "dof=9" in free and "mimics as free joints" in free
    assert cli.main(["check", UR5, "--lock", "elbow_joint=half"]) == 2
    assert "--lock elbow_joint=half: VALUE must be a number" in capsys.readouterr().err
    assert cli.main(["check", UR5, "--lock", "elbow"]) == 2
    err = capsys.readouterr().err
    assert "lock names ['elbow'], which are no revolute" in err and "'elbow_joint'" in err
