"""The sweep plot's tick labels can be read (issue 45): ``mbd sweep ... --grid
slot.k=5e6:2e7:8 --plot peak`` labelled its x ticks "7.14286e+06", one over the next. Now each
label is short (engineering form, 3 significant digits: "7.14e6") and labels that would still
touch are thinned; checked on the figure as drawn: no two visible tick labels' rendered
bounding boxes (matplotlib's ``get_window_extent`` after a draw) overlap."""
import pathlib

import numpy as np
import pandas as pd
import pytest

import viz
from mbd import cli
from viz.study import plot_study

ROOT = pathlib.Path(__file__).resolve().parents[2]
SLOT = str(ROOT / "examples" / "bistop_slot.py")
#: the README's grid: slot.k from 5e6 to 2e7 N/m^e, 8 values (numpy's linspace)
K = np.linspace(5e6, 2e7, 8)


def tick_boxes(ax):
    """{'x': [(text, tick value, bbox)], 'y': [...]}: the visible tick labels of ``ax``, where
    their ticks are, and their bounding boxes (pixels) in the figure as drawn."""
    fig = ax.figure
    fig.draw_without_rendering()
    renderer = fig._get_renderer()
    out = {}
    for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
        ticks = axis.get_major_ticks(len(axis.get_majorticklocs()))
        out[name] = [(t.label1.get_text(), t.get_loc(), t.label1.get_window_extent(renderer))
                     for t in ticks if t.label1.get_visible() and t.label1.get_text()]
    return out


def assert_readable(ax, values=None):
    """No two visible tick labels of ``ax`` overlap; the x labels (when ``values``, the
    sampled x values) sit at sampled values, the first one labelled, each label at most
    7 characters (3 digits, a point, 'e' and a 2-digit exponent, or a sign) and the value
    at its tick to its 3 significant digits."""
    for name, labels in tick_boxes(ax).items():
        boxes = [box for _, _, box in labels]
        assert len(boxes) >= 2, (name, labels)
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                assert not a.overlaps(b), (name, labels)
    if values is not None:
        shown = tick_boxes(ax)["x"]
        assert shown[0][0] == "5e6"
        for text, at, _ in shown:
            assert len(text) <= 7
            assert float(text) == pytest.approx(at, rel=5e-3)
            assert np.min(np.abs(values - at)) < 1e-9 * values.max()


def test_the_readme_sweep_over_k_and_e_has_readable_labels(tmp_path, monkeypatch):
    """The README's command (slot.k=5e6:2e7:8 x slot.e=1.5,2.1, --plot peak): the map the
    command writes has no overlapping tick labels."""
    drawn = []

    def keep(*args, **kwargs):
        drawn.append(plot_study(*args, **kwargs))
        return drawn[-1]
    monkeypatch.setattr(viz, "plot_study", keep)
    out = tmp_path / "study"
    assert cli.main(["sweep", SLOT, "--grid", "slot.k=5e6:2e7:8", "--grid", "slot.e=1.5,2.1",
                     "--output", "peak=absmax:force.slot.value", "--t-end", "1",
                     "--out", str(out), "--plot", "peak", "--workers", "2"]) == 0
    assert (out / "sweep_peak.png").is_file()
    fig, = drawn
    ax = fig.axes[0]
    assert ax.get_xlabel().startswith("slot.k")
    assert_readable(ax, K)


def table(k, e=None):
    """A sweep's table by hand over ``k`` (and ``e``): the output is the run's number (the
    labels are what is checked, any output will do)."""
    e = [2.1] if e is None else e
    kk, ee = (a.ravel() for a in np.meshgrid(k, e, indexing="ij"))
    n = len(kk)
    return pd.DataFrame({"slot.k": kk, "slot.e": ee, "run": [str(i) for i in range(n)],
                         "status": ["ok"] * n, "peak (N)": np.arange(n, dtype=float),
                         "t_reached": 1.0, "wall_s": 0.1, "result": ""})


def test_the_lines_over_the_readme_grid_label_every_sample():
    """One parameter (slot.k=5e6:2e7:8): the lines' axis has room for all 8 short labels."""
    ax = plot_study(table(K), "peak (N)", "slot.k").axes[0]
    assert_readable(ax, K)
    assert [t for t, _, _ in tick_boxes(ax)["x"]] == ["5e6", "7.14e6", "9.29e6", "11.4e6",
                                                   "13.6e6", "15.7e6", "17.9e6", "20e6"]


def test_a_dense_map_thins_its_labels_but_keeps_every_tick():
    """A map 12 x 12: its axes, narrowed by the colour bar, are under 600 pixels wide, less
    than 12 labels of 6 characters (about 49 pixels each) need; labels are left out, every
    other or every third from the first, and each sample keeps its tick mark."""
    n = 12
    k, e = np.linspace(5e6, 2e7, n), np.linspace(1.5, 3.0, n)
    ax = plot_study(table(k, e), "peak (N)", "slot.k", y="slot.e").axes[0]
    assert_readable(ax, k)
    np.testing.assert_array_equal(ax.get_xticks(), k)
    np.testing.assert_array_equal(ax.get_yticks(), e)
    assert ax.get_window_extent().width < 600
    shown = [t for t, _, _ in tick_boxes(ax)["x"]]
    assert n // 3 <= len(shown) < n


@pytest.mark.parametrize("values, texts", [
    (np.linspace(5e6, 2e7, 8), ["5e6", "7.14e6", "9.29e6", "11.4e6", "13.6e6", "15.7e6",
                                "17.9e6", "20e6"]),
    (np.array([1e6, 1e7, 1e8]), ["1e6", "10e6", "100e6"]),
    (np.array([1.5, 2.1, 3.0]), ["1.5", "2.1", "3"]),
    (np.array([-2e-5, 0.0, 999.96e3]), ["-20e-6", "0", "1e6"]),
    # three digits would make two labels alike: as many more as tell them apart
    (np.array([1.0001e6, 1.0002e6]), ["1.0001e6", "1.0002e6"]),
])
def test_labels_are_short_and_tell_the_samples_apart(values, texts):
    """Each sample's label (shown or thinned out: -20e-6 and 0 are a pixel apart)."""
    axis = plot_study(table(values), "peak (N)", "slot.k").axes[0].xaxis
    ticks = axis.get_major_ticks(len(axis.get_majorticklocs()))
    assert [t.label1.get_text() for t in ticks] == texts
