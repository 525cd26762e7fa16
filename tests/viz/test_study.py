"""viz.plot_study: the lines and the map are the table's numbers at the table's parameters, a
failed run is marked where it failed and counted, bad column names are refused by name, the
PNG whole or absent."""
import os

import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PathCollection, QuadMesh
from matplotlib.figure import Figure
from PIL import Image

import viz
from viz.study import plot_study

K, E = (1e6, 1e7, 1e8), (1.5, 2.0, 3.0)
PEAK = "peak force (N)"
#: the failed run and the run that finished without a value
FAILED, EMPTY = (1e7, 2.0), (1e8, 3.0)
ERROR = "SimulationError: step size too small at t = 0.7512 s"


def peak(k, e):
    """The undamped stop's peak force for a 1 kg block at 6 m/s (any smooth function would do:
    the plot must show exactly these numbers)."""
    n = e + 1
    return k * (n * 18.0 / k) ** (e / n)


def study(extra=None):
    """A table as mbd.sweep returns it, over slot.k x slot.e (slot.cmax fixed), by hand."""
    rows = []
    for k in K:
        for e in E:
            row = {"slot.k": k, "slot.e": e, "slot.cmax": 1.0, "run": f"{k:g}-{e:g}",
                   "status": "ok", PEAK: peak(k, e), "t_reached": 1.0, "wall_s": 0.2,
                   "result": ""}
            if (k, e) == FAILED:
                row.update(status=ERROR, t_reached=0.7512)
                row[PEAK] = 12345.0          # whatever a failed row holds, it is not drawn
            if (k, e) == EMPTY:
                row[PEAK] = np.nan
            rows.append(row)
    return pd.DataFrame(rows + (extra or []))


def lines(ax):
    """{label: (x, y)} of the labeled Line2D artists of an axes."""
    return {ln.get_label(): (np.asarray(ln.get_xdata(), float), np.asarray(ln.get_ydata(), float))
            for ln in ax.get_lines() if not ln.get_label().startswith("_")}


def legend(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_lines_one_per_value_of_the_other_parameter(tmp_path):
    path = tmp_path / "lines.png"
    fig = plot_study(study(), PEAK, "slot.k", path=path, log=["slot.k"])
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_xscale()) == ("slot.k", PEAK, "log")
    drawn = lines(ax)
    for e in E:
        x, y = drawn[f"slot.e = {e:g}"]
        np.testing.assert_array_equal(x, K)
        expected = [np.nan if (k, e) in (FAILED, EMPTY) else peak(k, e) for k in K]
        # the failed run's value (12345 in its row) is a gap, not a point
        np.testing.assert_array_equal(y, expected)
    assert legend(ax) == ["slot.e = 1.5", "slot.e = 2", "slot.e = 3", "failed run (1 of 9)",
                          "no value: nan (1)"]
    # the fixed parameter is named in the title, with the counts
    assert fig._suptitle.get_text() == (f"{PEAK} over slot.k (slot.cmax = 1): 9 runs, "
                                        "1 failed")
    with Image.open(path) as picture:
        assert picture.format == "PNG" and picture.size[0] > 300


def test_lines_mark_the_failed_run_at_its_parameter_and_name_it():
    fig = plot_study(study(), PEAK, "slot.k")
    ax = fig.axes[0]
    failed, = [ln for ln in ax.get_lines() if ln.get_label().startswith("failed run")]
    assert failed.get_marker() == "x" and failed.get_color() == "red"
    # at the failed run's k, on the bottom edge of the axes (its y is in axes fractions)
    np.testing.assert_array_equal(failed.get_xdata(), [FAILED[0]])
    x_pixels, y_pixels = failed.get_transform().transform([[FAILED[0], 0.04]])[0]
    assert x_pixels == pytest.approx(ax.transData.transform([[FAILED[0], 1.0]])[0][0])
    assert y_pixels == pytest.approx(ax.transAxes.transform([[0.0, 0.04]])[0][1])
    empty, = [ln for ln in ax.get_lines() if ln.get_label().startswith("no value")]
    np.testing.assert_array_equal(empty.get_xdata(), [EMPTY[0]])
    # its parameters and its error, at the foot of the figure
    note = fig._supxlabel.get_text()
    assert note == f"failed: slot.k = 1e+07, slot.e = 2: {ERROR}"
    # a long message is cut, the rest of the failures counted
    table = study()
    table["status"] = "ValueError: " + "x" * 200
    note = plot_study(table, PEAK, "slot.k")._supxlabel.get_text().splitlines()
    assert note[0] == "failed: slot.k = 1e+06, slot.e = 1.5: ValueError: " + "x" * 85 + "..."
    assert len(note) == 4 and note[3].startswith("... and 6 more failed runs")


def test_lines_of_a_study_over_one_parameter():
    table = study()
    table = table[table["slot.e"] == 1.5]
    fig = plot_study(table, PEAK, "slot.k", log=["slot.k", PEAK])
    ax = fig.axes[0]
    assert ax.get_yscale() == "log"
    # one line, named after the output; the constant slot.e is in the title
    assert list(lines(ax)) == [PEAK]
    assert "(slot.e = 1.5, slot.cmax = 1): 3 runs" in fig._suptitle.get_text()
    assert fig._supxlabel is None                      # nothing failed, no note


def test_map_cells_are_the_table_and_failed_runs_are_marked(tmp_path):
    path = tmp_path / "map.png"
    fig = plot_study(study(), PEAK, "slot.k", y="slot.e", path=path, log=["slot.k"])
    ax, colorbar = fig.axes
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("slot.k", "slot.e")
    assert colorbar.get_ylabel() == PEAK
    mesh, = [c for c in ax.collections if isinstance(c, QuadMesh)]
    cells = np.ma.masked_invalid(mesh.get_array()).reshape(len(E), len(K))   # rows: e
    for i, k in enumerate(K):
        for j, e in enumerate(E):
            if (k, e) in (FAILED, EMPTY):
                assert cells.mask[j, i]                # a gap, not a colour
            else:
                assert cells[j, i] == peak(k, e)
    # cells centred on the samples: on the log axis, edges halfway in log10
    edges = mesh.get_coordinates()[0, :, 0]
    np.testing.assert_allclose(np.log10(edges), [5.5, 6.5, 7.5, 8.5])
    drawn = lines(ax)
    xs, ys = drawn["failed run (1 of 9)"]
    np.testing.assert_array_equal(np.c_[xs, ys], [FAILED])         # at its (k, e)
    xs, ys = drawn["no value: nan (1)"]
    np.testing.assert_array_equal(np.c_[xs, ys], [EMPTY])
    xs, ys = drawn["run (7)"]                                       # the sample points
    ok = {(k, e) for k in K for e in E} - {FAILED, EMPTY}
    assert set(zip(xs, ys)) == ok
    assert legend(ax) == ["run (7)", "failed run (1 of 9)", "no value: nan (1)"]
    assert ERROR in fig._supxlabel.get_text()
    with Image.open(path) as picture:
        assert picture.format == "PNG"


def test_map_of_scattered_cases_colours_each_point():
    rng = np.random.default_rng(3)
    k, e = 10 ** rng.uniform(6, 8, 12), rng.uniform(1.5, 3.0, 12)
    table = pd.DataFrame({"slot.k": k, "slot.e": e, "run": [f"r{i}" for i in range(12)],
                          "status": ["ok"] * 11 + [ERROR], PEAK: peak(k, e)})
    fig = plot_study(table, PEAK, "slot.k", y="slot.e", log=["slot.k"])
    ax = fig.axes[0]
    assert not [c for c in ax.collections if isinstance(c, QuadMesh)]
    points, = [c for c in ax.collections if isinstance(c, PathCollection)]
    np.testing.assert_array_equal(points.get_offsets(), np.c_[k[:11], e[:11]])
    np.testing.assert_array_equal(points.get_array(), peak(k[:11], e[:11]))
    xs, ys = lines(ax)["failed run (1 of 12)"]
    np.testing.assert_array_equal(np.c_[xs, ys], [[k[11], e[11]]])


def test_where_picks_one_value_of_a_third_parameter():
    undamped = study()
    undamped["slot.cmax"] = 0.0
    undamped[PEAK] *= 1.01
    undamped["run"] += "-0"
    table = pd.concat([study(), undamped], ignore_index=True)
    with pytest.raises(ValueError, match=r"slot\.cmax varies too \(0\.0, 1\.0\): pick one "
                                         r"value with where=\{'slot\.cmax': \.\.\.\}"):
        plot_study(table, PEAK, "slot.k", y="slot.e")
    fig = plot_study(table, PEAK, "slot.k", y="slot.e", where={"slot.cmax": 0.0})
    mesh, = [c for c in fig.axes[0].collections if isinstance(c, QuadMesh)]
    assert np.nanmax(mesh.get_array()) == pytest.approx(1.01 * peak(1e8, 1.5))
    # the lines form draws a line per (e, cmax)
    fig = plot_study(table, PEAK, "slot.k")
    assert "slot.e = 1.5, slot.cmax = 0" in lines(fig.axes[0])
    with pytest.raises(ValueError, match=r"where: no run has slot.cmax = 0.5; its values are "
                                         r"0, 1"):
        plot_study(table, PEAK, "slot.k", where={"slot.cmax": 0.5})


def test_a_table_read_back_from_its_csv(tmp_path):
    # a failed run's output is an empty cell in sweep.csv
    study().to_csv(tmp_path / "sweep.csv", index=False, na_rep="")
    table = pd.read_csv(tmp_path / "sweep.csv")
    fig = plot_study(table, PEAK, "slot.k", y="slot.e")
    xs, ys = lines(fig.axes[0])["failed run (1 of 9)"]
    np.testing.assert_array_equal(np.c_[xs, ys], [FAILED])


#: the units mbd.sweep gives this study's columns (Bistop on a slide: k in N/m^e, cmax N.s/m)
UNITS = {"slot.k": "N/m^e", "slot.e": "", "slot.cmax": "N.s/m", PEAK: "N", "t_reached": "s",
         "wall_s": "s"}


def test_axes_colorbar_legend_and_title_carry_the_units_of_the_table():
    """Units from table.attrs (as mbd.sweep sets them): each axis and the colorbar as
    "NAME (UNIT)", products with a space (N.s/m -> N s/m); the legend's and the title's values
    with their unit; no unit where it is "" (slot.e); a name that holds its unit already
    ("peak force (N)") as it is."""
    table = study()
    table.attrs["units"] = UNITS
    fig = plot_study(table, PEAK, "slot.k", y="slot.e")
    ax, colorbar = fig.axes
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("slot.k (N/m^e)", "slot.e")
    assert colorbar.get_ylabel() == PEAK
    assert "(slot.cmax = 1 N s/m)" in fig._suptitle.get_text()
    fig = plot_study(table, "t_reached", "slot.k")
    ax = fig.axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("slot.k (N/m^e)", "t_reached (s)")
    assert legend(ax)[:3] == ["slot.e = 1.5", "slot.e = 2", "slot.e = 3"]
    # given units go over the table's; an output named without its unit gets it
    renamed = table.rename(columns={PEAK: "peak"})
    fig = plot_study(renamed, "peak", "slot.e", units={"peak": "N", "slot.k": "N/m^1"})
    ax = fig.axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("slot.e", "peak (N)")
    assert legend(ax)[:3] == ["slot.k = 1e+06 N/m^1", "slot.k = 1e+07 N/m^1",
                              "slot.k = 1e+08 N/m^1"]
    # a table without units (read back from its CSV) is drawn without them
    fig = plot_study(study(), PEAK, "slot.k")
    assert fig.axes[0].get_xlabel() == "slot.k"
    with pytest.raises(TypeError, match=r"units: 'slot.k': a unit is a string, got 3"):
        plot_study(study(), PEAK, "slot.k", units={"slot.k": 3})


def test_bad_columns_are_refused_by_name(tmp_path):
    table = study()
    path = tmp_path / "x.png"
    with pytest.raises(ValueError, match=r"^plot_study: no column 'slot\.q' in the table; its "
                                         r"columns are 'slot\.k', 'slot\.e', 'slot\.cmax', "
                                         r"'run', 'status', 'peak force \(N\)'"):
        plot_study(table, PEAK, "slot.q", path=path)
    with pytest.raises(ValueError, match="no column 'peak' in the table"):
        plot_study(table, "peak", "slot.k", path=path)
    with pytest.raises(ValueError, match="no column 'slot.E' in the table"):
        plot_study(table, PEAK, "slot.k", y="slot.E", path=path)
    with pytest.raises(ValueError, match=r"x 'wall_s' is not a parameter of the study; its "
                                         r"parameters are 'slot.k', 'slot.e', 'slot.cmax'"):
        plot_study(table, PEAK, "wall_s", path=path)
    with pytest.raises(ValueError, match="output 'slot.e' is a parameter"):
        plot_study(table, "slot.e", "slot.k", path=path)
    with pytest.raises(ValueError, match="output 'status' is not a value"):
        plot_study(table, "status", "slot.k", path=path)
    with pytest.raises(ValueError, match="x and y are both 'slot.k'"):
        plot_study(table, PEAK, "slot.k", y="slot.k", path=path)
    with pytest.raises(ValueError, match="log: 'slot.cmax' is not plotted here"):
        plot_study(table, PEAK, "slot.k", log=["slot.cmax"], path=path)
    with pytest.raises(ValueError, match="where: 'slot.q' is not a parameter"):
        plot_study(table, PEAK, "slot.k", where={"slot.q": 1.0}, path=path)
    with pytest.raises(TypeError, match="where: slot.cmax: give a number, got 'one'"):
        plot_study(table, PEAK, "slot.k", where={"slot.cmax": "one"}, path=path)
    with pytest.raises(ValueError, match="no column 'run' in the table"):
        plot_study(table.drop(columns=["run"]), PEAK, "slot.k", path=path)
    with pytest.raises(TypeError, match="pandas.DataFrame"):
        plot_study(table.to_dict(), PEAK, "slot.k", path=path)
    negative = table.assign(**{"slot.e": -table["slot.e"]})
    with pytest.raises(ValueError, match="log: 'slot.e' has values <= 0"):
        plot_study(negative, PEAK, "slot.k", y="slot.e", log=["slot.e"], path=path)
    # a joint of several coordinates: its values are tuples, not an axis
    tuples = table.assign(**{"slot.k": [(0.1, 0.2)] * len(table)})
    with pytest.raises(ValueError, match=r"column 'slot.k' holds \(0.1, 0.2\), not a number"):
        plot_study(tuples, PEAK, "slot.k", path=path)
    twice = pd.concat([table, table.iloc[:1]], ignore_index=True)
    with pytest.raises(ValueError, match="two runs at slot.k = 1e[+]06, slot.e = 1.5"):
        plot_study(twice, PEAK, "slot.k", y="slot.e", path=path)
    assert os.listdir(tmp_path) == []


def test_failed_save_leaves_no_file(tmp_path, monkeypatch):
    def broken(self, fh, **kwargs):
        fh.write(b"\x89PNG half a picture")
        raise OSError("disk full")

    monkeypatch.setattr(Figure, "savefig", broken)
    (tmp_path / "map.png").write_bytes(b"old")
    with pytest.raises(OSError, match="disk full"):
        plot_study(study(), PEAK, "slot.k", y="slot.e", path=tmp_path / "map.png")
    assert os.listdir(tmp_path) == ["map.png"]
    assert (tmp_path / "map.png").read_bytes() == b"old"


def test_exported_from_viz():
    assert viz.plot_study is plot_study and "plot_study" in viz.__all__


def test_show_goes_through_pyplot(monkeypatch):
    from matplotlib import pyplot
    shown = []
    monkeypatch.setattr(pyplot, "show", lambda *a, **k: shown.append(True))
    fig = plot_study(study(), PEAK, "slot.k", show=True)
    try:
        assert shown == [True] and fig.number in pyplot.get_fignums()
    finally:
        pyplot.close(fig)
