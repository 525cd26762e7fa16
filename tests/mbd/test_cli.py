"""The command line as a user drives it: a subprocess, its output, its files, its exit code."""
import importlib.util
import subprocess
import sys

import numpy as np
from PIL import Image


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "mbd", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=600)


def test_demo_writes_results_and_summary(tmp_path):
    out = tmp_path / "out"
    proc = run("demo", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    csv = out / "double_pendulum_3d.csv"
    assert csv.exists()
    assert "DOF: 5" in proc.stdout and str(csv) in proc.stdout
    png = out / "double_pendulum_3d.png"
    assert str(png) in proc.stdout
    with Image.open(png) as im:
        assert im.format == "PNG" and im.size[0] > 0 and im.size[1] > 0
    gif = out / "double_pendulum_3d.gif"
    if importlib.util.find_spec("viz.render") is not None:
        assert str(gif) in proc.stdout
        with Image.open(gif) as im:
            assert im.format == "GIF" and im.n_frames > 1
    else:
        assert "animation: skipped" in proc.stdout and not gif.exists()
    header = csv.read_text().splitlines()[0].split(",")
    table = np.loadtxt(csv, delimiter=",", skiprows=1)
    assert table.shape[1] == len(header)
    assert np.allclose(table[:, 0], np.arange(table.shape[0]) * 0.01, atol=1e-12)
    # the demo conserves energy (no dissipation): a physics check, not a recorded number
    energy = table[:, header.index("kinetic_energy")] + table[:, header.index("potential_energy")]
    assert np.ptp(energy) < 1e-6 * np.abs(energy).max()


def test_bad_command_is_refused_with_status_2():
    proc = run("fly")
    assert proc.returncode == 2
    assert "invalid choice" in proc.stderr
