"""A run's rows written to disk as the run makes them (``simulate(..., rows_to=folder)``,
:mod:`mbd.run.rowfiles`), and ``mbd run``'s use of it for a long run stopped by Ctrl-C.

Each case is checked against the same run kept in memory (the default): the files, read
back with ``np.load``, and the Result over them hold the very same numbers."""
import os

import numpy as np
import pytest

import mbd
from mbd.cli import run as cli_run
from mbd.run import outputrows, rowfiles
from tests.mbd.cli.test_cli import PENDULUM
from tests.mbd.control.test_control import slider


def pendulum():
    ns = {}
    exec(PENDULUM, ns)
    return ns["build_model"]().build()


def same_rows(memory, disk, folder, controllers=False):
    """The in-memory Result and the one over ``folder``'s files hold the same rows, and the
    files, loaded on their own, are those rows."""
    names = ["t", "q", "v", "work"] + (["controller_states"] if controllers else [])
    assert sorted(os.listdir(folder)) == sorted(f"{name}.npy" for name in names)
    for name in names:
        np.testing.assert_array_equal(getattr(disk, name), getattr(memory, name))
        np.testing.assert_array_equal(np.load(os.path.join(folder, f"{name}.npy")),
                                      getattr(memory, name))
        # the Result reads the file itself, not a copy of it
        assert isinstance(getattr(disk, name).base, np.memmap), name


def test_npy_header_is_read_by_numpy_with_any_shape(tmp_path):
    for shape in [(0,), (7,), (0, 3), (123456789, 12)]:
        header = rowfiles.npy_header(shape)
        assert len(header) == rowfiles.HEADER_BYTES
        path = tmp_path / "a.npy"
        n = int(np.prod(shape))
        path.write_bytes(header + np.arange(min(n, 21), dtype=float).tobytes())
        if n <= 21:
            np.testing.assert_array_equal(np.load(path), np.arange(n, dtype=float)
                                          .reshape(shape))
        else:       # the header alone: numpy's own reader of it agrees
            with open(path, "rb") as fh:
                assert np.lib.format.read_magic(fh) == (1, 0)
                assert np.lib.format.read_array_header_1_0(fh) == (shape, False,
                                                                   np.dtype(float))


def test_a_run_with_events_over_many_blocks_writes_the_same_rows(tmp_path, monkeypatch):
    # small blocks: the thread writes many of them while the run goes (compiled loop, a
    # contact law switching), then the last part of one at the end
    monkeypatch.setattr(outputrows, "BLOCK_ROWS", 64)
    system = pendulum()
    memory = system.simulate(3.0, output_step=1e-3)
    disk = system.simulate(3.0, output_step=1e-3, rows_to=tmp_path / "rows")
    assert len(memory.events) > 0 and len(memory.t) > 20 * 64
    same_rows(memory, disk, tmp_path / "rows")
    # and everything read from the rows agrees: the energy balance, a force
    np.testing.assert_array_equal(disk.force("gap").value, memory.force("gap").value)
    assert disk.energy_balance().summary() == memory.energy_balance().summary()


def test_a_run_from_python_with_controllers_writes_their_states_too(tmp_path, monkeypatch):
    # scipy's stepper (a Python controller), the controllers' states a part of their own
    monkeypatch.setattr(outputrows, "BLOCK_ROWS", 32)

    def derivative(t, x, u):
        return [(u[0] - x[0]) / 0.05], [-25.0 * (u[0] - 0.4) - 5.0 * u[1] + 2.0 * x[0]]
    controller = mbd.ContinuousController("u", derivative, ["pos", "vel"], x0=[0.0])
    system = slider(controller)
    memory = system.simulate(0.5, output_step=1e-3)
    disk = system.simulate(0.5, output_step=1e-3, rows_to=str(tmp_path))
    assert memory.stats["stepper"] == "scipy" and memory.controller_states.shape[1] == 1
    same_rows(memory, disk, tmp_path, controllers=True)


def test_a_failed_run_keeps_its_rows_in_the_files(tmp_path, monkeypatch):
    monkeypatch.setattr(outputrows, "BLOCK_ROWS", 16)
    ns = {}
    exec(PENDULUM.replace(
        "    return m", "    from forces import Actuator\n"
        "    m.add(JointForce('push', h, Actuator(lambda t: 0.0 if t < 0.3 else 1 / 0)))\n"
        "    return m"), ns)
    system = ns["build_model"]().build()
    failures = []
    for rows_to in (None, tmp_path):
        with pytest.raises(mbd.SimulationError, match="ZeroDivisionError") as info:
            system.simulate(2.0, output_step=1e-3, rows_to=rows_to)
        failures.append(info.value.result)
    memory, disk = failures
    assert memory.t[-1] <= 0.3 and len(memory.t) > 4 * 16      # several blocks, one part
    same_rows(memory, disk, tmp_path)


def test_ctrl_c_keeps_the_rows_in_the_files(tmp_path, monkeypatch, interrupted_at_step):
    monkeypatch.setattr(outputrows, "BLOCK_ROWS", 16)
    interrupted_at_step["at"] = 4
    with pytest.raises(mbd.SimulationError, match="interrupted") as info:
        pendulum().simulate(2.0, output_step=1e-3, rows_to=tmp_path)
    disk = info.value.result
    assert isinstance(info.value.__cause__, KeyboardInterrupt) and len(disk.t) > 16
    np.testing.assert_array_equal(np.load(tmp_path / "t.npy"), disk.t)
    np.testing.assert_array_equal(np.load(tmp_path / "q.npy"), disk.q)
    # the same rows as the run in memory, up to where it was stopped
    memory = pendulum().simulate(2.0, output_step=1e-3)
    n = len(disk.t)
    np.testing.assert_array_equal(disk.t, memory.t[:n])
    np.testing.assert_allclose(disk.q, memory.q[:n], rtol=0, atol=0)


def test_a_disk_that_fails_fails_the_run_with_the_rows_in_memory(tmp_path, monkeypatch):
    monkeypatch.setattr(outputrows, "BLOCK_ROWS", 16)
    real = rowfiles.RowFiles._write

    def full_disk(self, times, states, m):
        if self.rows >= 48:
            raise OSError(28, "No space left on device")
        return real(self, times, states, m)
    monkeypatch.setattr(rowfiles.RowFiles, "_write", full_disk)
    with pytest.raises(mbd.SimulationError) as info:
        pendulum().simulate(2.0, output_step=1e-3, rows_to=tmp_path)
    message = str(info.value)
    assert message.startswith(f"the rows could not be written to {tmp_path} (No space left on "
                              "device); the result holds them in memory")
    partial = info.value.result
    memory = pendulum().simulate(2.0, output_step=1e-3)
    n = len(partial.t)
    assert n >= 48 and not isinstance(partial.t.base, np.memmap)
    np.testing.assert_array_equal(partial.q, memory.q[:n])


def test_a_bad_folder_is_refused_before_the_run(tmp_path):
    system = pendulum()
    with pytest.raises(TypeError, match=r"simulate: rows_to is a folder's path \(str or "
                                        r"path-like\), got int"):
        system.simulate(1.0, rows_to=3)
    a_file = tmp_path / "taken"
    a_file.write_text("not a folder")
    with pytest.raises(ValueError, match="simulate: rows_to .*taken.* cannot be made: File "
                                         "exists"):
        system.simulate(1.0, rows_to=a_file)


# ------------------------------------------------------------------------------ mbd run

def test_mbd_run_keeps_a_long_runs_rows_where_the_run_wrote_them(tmp_path, monkeypatch,
                                                                 capsys, interrupted_at_step):
    # a "long" run (SPILL_ROWS lowered) stopped by Ctrl-C: its rows folder is kept as
    # stop_pendulum.rows, with the event log beside the rows, and the plot is drawn; no
    # .npz is written and nothing else is left
    monkeypatch.setattr(cli_run, "SPILL_ROWS", 100)
    monkeypatch.setattr(cli_run, "QUICK_CSV_VALUES", 100)
    monkeypatch.setattr(outputrows, "BLOCK_ROWS", 16)
    interrupted_at_step["at"] = 4
    code = cli_run._simulate_and_write("run", pendulum(), str(tmp_path), False, False, 2.0,
                                       output_step=1e-3)
    err = capsys.readouterr().err
    rows, png = tmp_path / "stop_pendulum.rows", tmp_path / "stop_pendulum.png"
    assert code == cli_run.INTERRUPTED
    t = np.load(rows / "t.npy")
    assert f"The {len(t)} rows computed were written to {rows}{os.sep} (t.npy, q.npy" in err
    assert f"their plot to {png}." in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["stop_pendulum.png",
                                                         "stop_pendulum.rows"]
    assert sorted(p.name for p in rows.iterdir()) == ["events.npz", "q.npy", "t.npy",
                                                      "v.npy", "work.npy"]
    mask = os.umask(0)          # the folder's mode is any new folder's (not mkdtemp's 0o700)
    os.umask(mask)
    assert rows.stat().st_mode & 0o777 == 0o777 & ~mask
    memory = pendulum().simulate(2.0, output_step=1e-3)
    np.testing.assert_array_equal(t, memory.t[:len(t)])
    np.testing.assert_array_equal(np.load(rows / "v.npy"), memory.v[:len(t)])
    with np.load(rows / "events.npz") as events:
        kept = [e for e in memory.events if e.t <= t[-1]]
        np.testing.assert_array_equal(events["event_t"], [e.t for e in kept])
        assert list(events["event_what"]) == [e.what for e in kept]


def test_mbd_run_of_a_long_run_that_ends_leaves_no_rows_folder(tmp_path, monkeypatch,
                                                               capsys):
    monkeypatch.setattr(cli_run, "SPILL_ROWS", 100)
    code = cli_run._simulate_and_write("run", pendulum(), str(tmp_path), False, False, 1.0,
                                       output_step=1e-3)
    assert code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["stop_pendulum.csv",
                                                         "stop_pendulum.png",
                                                         "stop_pendulum.units.csv"]
    table = np.loadtxt(tmp_path / "stop_pendulum.csv", delimiter=",", skiprows=1)
    memory = pendulum().simulate(1.0, output_step=1e-3)
    np.testing.assert_allclose(table[:, 0], memory.t, rtol=1e-15)
    np.testing.assert_allclose(table[:, 1], memory.q[:, 0], rtol=1e-12)


def test_files_that_cannot_be_closed_leave_the_result_the_rows_in_memory(
        tmp_path, monkeypatch, capsys, interrupted_at_step):
    # the last rows cannot be written when the run ends (the disk filled then): the Result is
    # the rows in memory, and mbd run, finding no rows in the folder, writes its .npz as for
    # a run without the folder
    monkeypatch.setattr(outputrows, "BLOCK_ROWS", 16)

    def failing_close(self, n):
        self.abandon()
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(rowfiles.RowFiles, "close", failing_close)
    interrupted_at_step["at"] = -1           # no Ctrl-C in these two runs
    disk = pendulum().simulate(1.0, output_step=1e-3, rows_to=tmp_path / "rows")
    memory = pendulum().simulate(1.0, output_step=1e-3)
    assert not isinstance(disk.t.base, np.memmap)
    np.testing.assert_array_equal(disk.q, memory.q)
    np.testing.assert_array_equal(disk.work, memory.work)

    monkeypatch.setattr(cli_run, "SPILL_ROWS", 100)
    monkeypatch.setattr(cli_run, "QUICK_CSV_VALUES", 100)
    interrupted_at_step["at"] = interrupted_at_step["n"] + 4
    out = tmp_path / "out"
    code = cli_run._simulate_and_write("run", pendulum(), str(out), False, False, 2.0,
                                       output_step=1e-3)
    err = capsys.readouterr().err
    npz = out / "stop_pendulum.npz"
    assert code == cli_run.INTERRUPTED and f"rows computed were written to {npz}" in err
    assert sorted(p.name for p in out.iterdir()) == ["stop_pendulum.npz", "stop_pendulum.png"]
    with np.load(npz) as data:
        np.testing.assert_array_equal(data["t"], memory.t[:len(data["t"])])
