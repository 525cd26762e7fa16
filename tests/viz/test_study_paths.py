"""viz.plot_study's paths the other tests do not walk (issue 31): a table read back as text (a
CSV read with ``dtype=str``: numbers in strings, a failed run's empty cell, a missing value
None), a map with a logarithmic colour scale and a logarithmic y axis, a map over a parameter
sampled at one value (its single cell as wide as the documented rule makes it), and the
refusals of a table with no runs and of units that are not a dict.
"""
import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import QuadMesh
from matplotlib.colors import LogNorm

from tests.viz.test_study import EMPTY, FAILED, PEAK, E, K, lines, peak, study
from viz.study import plot_study


def quadmesh(fig):
    mesh, = [c for c in fig.axes[0].collections if isinstance(c, QuadMesh)]
    return mesh


def cells(fig):
    """The map's cells: (their values as a masked array, the edges along x, along y)."""
    mesh = quadmesh(fig)
    coords = mesh.get_coordinates()
    return np.ma.masked_invalid(mesh.get_array()), coords[0, :, 0], coords[:, 0, 1]


def test_a_table_of_text_is_read_as_its_numbers(tmp_path):
    """Every cell a string (pd.read_csv(..., dtype=str, keep_default_na=False)): the lines are
    those of the numeric table; the failed run's empty output cell is no value."""
    study().to_csv(tmp_path / "sweep.csv", index=False, na_rep="")
    text = pd.read_csv(tmp_path / "sweep.csv", dtype=str, keep_default_na=False)
    assert isinstance(text["slot.k"].iloc[0], str) and (text[PEAK] == "").sum() == 1
    drawn = lines(plot_study(text, PEAK, "slot.k").axes[0])
    expected = lines(plot_study(study(), PEAK, "slot.k").axes[0])
    # the same lines in the same order; the legend gives the values as the file writes them
    assert list(drawn) == ["slot.e = 1.5", "slot.e = 2.0", "slot.e = 3.0",
                           "failed run (1 of 9)", "no value: nan (1)"]
    assert len(expected) == len(drawn)
    for (x, y), (x_text, y_text) in zip(expected.values(), drawn.values()):
        np.testing.assert_allclose(x_text, x, rtol=1e-15)
        np.testing.assert_allclose(y_text, y, rtol=1e-15)


def test_an_output_of_none_is_no_value_and_other_text_is_refused_by_column():
    table = study().astype({PEAK: object})
    table.loc[(table["slot.k"] == EMPTY[0]) & (table["slot.e"] == EMPTY[1]), PEAK] = None
    xs, ys = lines(plot_study(table, PEAK, "slot.k", y="slot.e").axes[0])["no value: nan (1)"]
    np.testing.assert_array_equal(np.c_[xs, ys], [EMPTY])
    # text that is no number: the column and the value named (an empty cell is no value only
    # in an output, never in a parameter)
    table.loc[0, PEAK] = "fast"
    with pytest.raises(ValueError, match=r"^plot_study: column 'peak force \(N\)' holds 'fast', "
                                         r"not a number"):
        plot_study(table, PEAK, "slot.k")
    blank = study().astype({"slot.k": object})
    blank.loc[0, "slot.k"] = ""
    with pytest.raises(ValueError, match=r"column 'slot.k' holds '', not a number"):
        plot_study(blank, PEAK, "slot.k")


def test_a_map_on_log_scales_colours_by_log_and_spaces_cells_in_decades():
    """log=[output, y]: the colour scale is a LogNorm over the finite values (the failed run's
    and the empty run's excluded), the y axis logarithmic with its cell edges halfway between
    the samples in log10."""
    table = study()
    table["slot.e"] = table["slot.e"] * 10.0           # 15, 20, 30
    fig = plot_study(table, PEAK, "slot.e", y="slot.k", log=[PEAK, "slot.k"])
    ax, colorbar = fig.axes
    assert (ax.get_xscale(), ax.get_yscale()) == ("linear", "log")
    norm = quadmesh(fig).norm
    assert isinstance(norm, LogNorm)
    ok = [peak(k, e) for k in K for e in E if (k, e) not in (FAILED, EMPTY)]
    assert (norm.vmin, norm.vmax) == (min(ok), max(ok))
    _, xe, ye = cells(fig)
    np.testing.assert_allclose(xe, [12.5, 17.5, 25.0, 35.0])
    np.testing.assert_allclose(np.log10(ye), [5.5, 6.5, 7.5, 8.5])
    assert colorbar.get_ylabel() == PEAK


@pytest.mark.parametrize("log", [False, True])
def test_a_map_over_a_parameter_at_one_value_has_one_cell_half_a_value_each_side(log):
    """slot.k at 1e7 only: one column of cells, from 0.5 k to 1.5 k on a linear axis, from
    k / sqrt(10) to k sqrt(10) (half a decade each side) on a log axis."""
    table = study()
    table = table[table["slot.k"] == 1e7]
    fig = plot_study(table, PEAK, "slot.k", y="slot.e", log=["slot.k"] if log else [])
    values, xe, _ = cells(fig)
    expected = [1e7 / np.sqrt(10.0), 1e7 * np.sqrt(10.0)] if log else [0.5e7, 1.5e7]
    np.testing.assert_allclose(xe, expected, rtol=1e-12)
    assert values.shape == (3, 1)         # rows: slot.e, one column: slot.k
    np.testing.assert_array_equal(values.compressed(), [peak(1e7, e) for e in (1.5, 3.0)])


def test_a_map_over_a_parameter_at_zero_has_a_cell_of_width_one():
    """A single sample at 0: no scale to take half of, the cell spans -0.5 to 0.5."""
    table = study()
    table = table[table["slot.e"] == 1.5].assign(**{"slot.e": 0.0})
    _, _, ye = cells(plot_study(table, PEAK, "slot.k", y="slot.e"))
    np.testing.assert_array_equal(ye, [-0.5, 0.5])


def test_a_table_with_no_runs_is_refused():
    with pytest.raises(ValueError, match=r"^plot_study: the table has no runs$"):
        plot_study(study().iloc[:0], PEAK, "slot.k")


@pytest.mark.parametrize("units, name", [([("slot.k", "N/m")], "list"), ("N/m", "str")])
def test_units_that_are_not_a_dict_are_refused(units, name):
    with pytest.raises(TypeError, match=r"^plot_study: units must be a dict \{column: unit\}, "
                                        rf"got {name}$"):
        plot_study(study(), PEAK, "slot.k", units=units)
