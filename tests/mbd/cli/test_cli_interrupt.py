"""What ``mbd run`` writes when a run stops early (Ctrl-C, or a failure): the rows computed
(a CSV when the table is small, else the state rows in a .npz: a CSV of a long run takes
seconds, Ctrl-C must end within one) and their plot (of at most QUICK_PLOT_ROWS rows); a
second Ctrl-C while writing leaves what was written whole. Driven deterministically: the
run is interrupted at a chosen integrator step (monkeypatched), as test_cli.py's
interrupt test does."""
import numpy as np
from PIL import Image

import mbd
import viz.plots
from mbd.cli import run as cli_run
from mbd.run.simulate import output_times

from .test_cli import PENDULUM


def system():
    ns = {}
    exec(PENDULUM, ns)
    return ns["build_model"]().build()


def test_a_small_table_is_a_csv_with_its_plot(tmp_path, interrupted_at_step, capsys):
    code = cli_run._simulate_and_write("run", system(), str(tmp_path), False, False, 2.0,
                                       output_step=0.001)
    err = capsys.readouterr().err
    assert code == cli_run.INTERRUPTED and "interrupted at t = " in err
    csv, png = tmp_path / "stop_pendulum.csv", tmp_path / "stop_pendulum.png"
    assert f"were written to {csv}; their plot to {png}." in err
    data = np.loadtxt(csv, delimiter=",", skiprows=1)
    assert data.shape[0] >= 2 and data[0, 0] == 0.0
    with Image.open(png) as im:
        assert im.format == "PNG"
    assert not (tmp_path / "stop_pendulum.npz").exists()


def test_a_large_table_is_a_npz_of_named_columns_and_a_thinned_plot(tmp_path, monkeypatch,
                                                                      interrupted_at_step,
                                                                      capsys):
    monkeypatch.setattr(cli_run, "QUICK_CSV_VALUES", 100)
    monkeypatch.setattr(cli_run, "QUICK_PLOT_ROWS", 7)
    drawn = {}
    real_plot = viz.plots.plot

    def plot(result, path):
        drawn["t"] = result.t.copy()
        return real_plot(result, path)
    monkeypatch.setattr(viz.plots, "plot", plot)
    code = cli_run._simulate_and_write("run", system(), str(tmp_path), False, False, 2.0,
                                       output_step=0.001)
    err = capsys.readouterr().err
    assert code == cli_run.INTERRUPTED
    npz = tmp_path / "stop_pendulum.npz"
    assert f"were written to {npz} (the state: t, q, v, work, and the event log" in err
    assert not (tmp_path / "stop_pendulum.csv").exists()
    with np.load(npz) as data:
        t = data["t"]
        assert len(t) > 7 and t[0] == 0.0
        assert data["q"].shape == (len(t), 1) and data["work"].shape == (len(t), 1)
        # before the stop at -0.5 rad the bob turns freely at -1 rad/s
        free = t < 0.5
        np.testing.assert_allclose(data["q"][free, 0], -t[free], atol=1e-8)
    # the plot drew 7 of the rows, the first and the last among them
    assert len(drawn["t"]) == 7 and drawn["t"][0] == t[0] and drawn["t"][-1] == t[-1]
    assert (tmp_path / "stop_pendulum.png").exists()


def test_a_second_ctrl_c_while_writing_leaves_the_rows_whole(tmp_path, monkeypatch,
                                                             interrupted_at_step, capsys):
    def interrupted_plot(result, path):
        raise KeyboardInterrupt
    monkeypatch.setattr(viz.plots, "plot", interrupted_plot)
    code = cli_run._simulate_and_write("run", system(), str(tmp_path), False, False, 2.0,
                                       output_step=0.001)
    err = capsys.readouterr().err
    csv = tmp_path / "stop_pendulum.csv"
    assert code == cli_run.INTERRUPTED
    assert f"were written to {csv}; interrupted again while writing: the rest was not" in err
    assert np.loadtxt(csv, delimiter=",", skiprows=1).shape[0] >= 2
    assert not (tmp_path / "stop_pendulum.png").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["stop_pendulum.csv",
                                                         "stop_pendulum.units.csv"]


def test_a_failed_run_writes_its_rows_the_same_way(tmp_path, capsys):
    # a failure, not Ctrl-C (an actuator's torque, a Python function of time, raises at
    # 0.3 s): status 2, the rows and their plot all the same
    ns = {}
    exec(PENDULUM.replace(
        "    return m", "    from forces import Actuator\n"
        "    m.add(JointForce('push', h, Actuator(lambda t: 0.0 if t < 0.3 else 1 / 0)))\n"
        "    return m"), ns)
    code = cli_run._simulate_and_write("run", ns["build_model"]().build(), str(tmp_path), False,
                                       False, 2.0, output_step=0.01)
    err = capsys.readouterr().err
    assert code == 2 and "the simulation failed" in err and "ZeroDivisionError" in err
    csv, png = tmp_path / "stop_pendulum.csv", tmp_path / "stop_pendulum.png"
    assert f"were written to {csv}; their plot to {png}." in err
    data = np.loadtxt(csv, delimiter=",", skiprows=1)
    assert data[0, 0] == 0.0 and data[-1, 0] <= 0.3 and png.exists()


def test_ctrl_c_while_the_results_are_written_still_saves_the_rows(tmp_path, monkeypatch,
                                                                  capsys):
    # the run ended; Ctrl-C lands in the (slow) CSV: the rows go to the quick path instead
    monkeypatch.setattr(cli_run, "QUICK_CSV_VALUES", 100)
    real = mbd.Result.to_csv

    def interrupted_csv(self, path):
        raise KeyboardInterrupt
    monkeypatch.setattr(mbd.Result, "to_csv", interrupted_csv)
    code = cli_run._simulate_and_write("run", system(), str(tmp_path), False, False, 0.3,
                                       output_step=0.001)
    err = capsys.readouterr().err
    npz, png = tmp_path / "stop_pendulum.npz", tmp_path / "stop_pendulum.png"
    assert code == cli_run.INTERRUPTED
    assert err.startswith("mbd run: interrupted while writing the results. The 301 rows "
                          f"computed were written to {npz}")
    assert npz.exists() and png.exists()
    with np.load(npz) as data:
        np.testing.assert_array_equal(data["t"], output_times(0.0, 0.3, 0.001))
    monkeypatch.setattr(mbd.Result, "to_csv", real)


def test_ctrl_c_in_the_animation_keeps_the_csv_and_the_plot_drawn_beside_it(tmp_path,
                                                                          monkeypatch, capsys):
    # the run ended and its CSV is written; the plot is drawn in a thread while the GIF is
    # rendered, and Ctrl-C lands in the GIF: the plot is waited for and reported, the GIF
    # and the page are not written, and the exit status is Ctrl-C's
    import viz.render

    def interrupted_gif(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(viz.render, "animate", interrupted_gif)
    code = cli_run._simulate_and_write("run", system(), str(tmp_path), True, False, 0.3,
                                       page=True, output_step=0.01)
    err = capsys.readouterr().err
    csv, png = tmp_path / "stop_pendulum.csv", tmp_path / "stop_pendulum.png"
    html = tmp_path / "stop_pendulum.html"
    assert code == cli_run.INTERRUPTED
    assert err == (f"mbd run: interrupted while writing the results (results: {csv} (31 rows); "
                   f"plot: {png}; web page: {html} (open it in a browser: turn, scrub, play))."
                   " The rest was not written.\n")
    assert np.loadtxt(csv, delimiter=",", skiprows=1).shape[0] == 31
    with Image.open(png) as im:
        assert im.format == "PNG" and im.size[0] > 0
    # the page came before the GIF; no GIF, and no temporary file left
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "stop_pendulum.csv", "stop_pendulum.html", "stop_pendulum.png",
        "stop_pendulum.units.csv"]
