"""The command line as a user drives it: a subprocess, its output, its files, its exit code."""
import subprocess
import sys

import numpy as np


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
