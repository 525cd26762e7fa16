"""Pictures of a study: the table :func:`mbd.sweep` returns, one output against its parameters.

Two forms, both of one output column:

- **lines** (``y=None``): the output against one parameter ``x``, one line per combination of
  the other parameters that vary (a legend names each), the sample points marked;
- **map** (``y`` a second parameter): the output over ``x`` by ``y`` as filled cells of the
  grid (pcolormesh) with a colorbar, the sample points marked; a study whose cases are not a
  full grid (Monte-Carlo samples) is drawn as coloured points instead.

A failed run (``status`` other than "ok") has no value: it is drawn as a red x at its parameter
values (in the lines form, on the bottom edge of the axes at its ``x``), counted in the legend
and named with its error at the foot of the figure — never silently left out. A run that
finished but whose output is nan (e.g. "the first contact" of a run with none) is a hollow
grey circle.

Examples
--------
>>> import pandas as pd
>>> table = pd.DataFrame({"slot.k": [1e6, 1e6, 1e7, 1e7], "slot.e": [2.0, 3.0, 2.0, 3.0],
...                       "run": ["a", "b", "c", "d"],
...                       "status": ["ok", "ok", "ok", "SimulationError: step size"],
...                       "peak (N)": [1300.0, 780.0, 2760.0, float("nan")]})
>>> fig = plot_study(table, "peak (N)", "slot.k", log=["slot.k"])
>>> ax = fig.axes[0]
>>> ax.get_xlabel(), ax.get_ylabel(), ax.get_xscale()
('slot.k', 'peak (N)', 'log')
>>> [t.get_text() for t in ax.get_legend().get_texts()]
['slot.e = 2', 'slot.e = 3', 'failed run (1 of 4)']
>>> fig = plot_study(table, "peak (N)", "slot.k", y="slot.e", log=["slot.k"])
>>> fig.axes[1].get_ylabel()                  # the colorbar
'peak (N)'
"""
from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING

import numpy as np
from matplotlib import colormaps
from matplotlib.colors import LogNorm, Normalize
from matplotlib.ticker import FixedLocator, NullLocator
from matplotlib.transforms import blended_transform_factory

from mbd.study.table import LEADING, OK

from . import plots  # (its import also picks the Agg backend where there is no display)

if TYPE_CHECKING:
    import os
    from collections.abc import Mapping, Sequence

    import pandas
    from matplotlib.figure import Figure

__all__ = ["plot_study"]

#: the columns of a sweep's table that hold no number to plot ('t_reached' and 'wall_s' do)
NOT_VALUES = LEADING + ("result",)
#: figure size (inches) and resolution of the PNG: ~700 x 480 pixels
SIZE, DPI = (7.0, 4.8), 100
#: the map writes each cell's value in it up to this many cells
ANNOTATE_CELLS = 49
#: failed runs named (with their error, cut to MESSAGE characters) at the figure's foot; the
#: rest are counted
NAMED_FAILURES, MESSAGE = 3, 100
#: where the lines form draws failed runs: this fraction of the axes height from the bottom
FAILED_BAND = 0.04
#: a parameter axis has its ticks at the sampled values up to this many values
TICKED_VALUES = 12


def plot_study(table: pandas.DataFrame, output: str, x: str, y: str | None = None,
               path: str | os.PathLike | None = None, where: Mapping[str, float] | None = None,
               log: Sequence[str] = (), title: str | None = None, show: bool = False,
               units: Mapping[str, str] | None = None) -> Figure:
    """Plot one output of a study against one parameter (lines) or two (a filled map).

    Parameters
    ----------
    table : pandas.DataFrame
        As :func:`mbd.sweep` returns it (or read back from its ``sweep.csv``): the parameter
        columns, then ``run`` and ``status``, the outputs, ``t_reached``, ``wall_s``,
        ``result``. The parameters are the columns before ``run``.
    output : str
        The column to plot (an output, or ``wall_s`` / ``t_reached``); its values are the
        lines' heights or the map's colours, and its name the y label or the colorbar's label.
    x : str
        A parameter (e.g. ``"slot.k"``): the horizontal axis, labeled with its name.
    y : str, optional
        A second parameter: draw a map over ``x`` by ``y`` (vertical axis). Without it, one
        line per combination of the other parameters that vary.
    path : str or path-like, optional
        Write the figure there as PNG, whole or not at all.
    where : dict, optional
        ``{parameter: value}``: plot only the runs with these values (e.g. a map of a study
        over three parameters at one value of the third). Matched to 1e-12 relative.
    log : sequence of str
        Columns (``x``, ``y`` or ``output``) drawn on a logarithmic scale; their plotted
        values must be > 0.
    title : str, optional
        The figure's title (default: what is plotted over what, the fixed parameters, and
        how many runs and failures).
    show : bool
        Show the figure through pyplot (blocking, as ``pyplot.show`` does); otherwise the
        figure is a plain ``matplotlib.figure.Figure`` that pyplot does not track.
    units : dict, optional
        {column: unit} ("kg", "N.s/m"; "" or missing: none), over ``table.attrs["units"]``,
        which :func:`mbd.sweep` sets (a table read back from ``sweep.csv`` has none: give
        ``json.load(open("OUT/sweep.json"))["units"]``). Each axis, the colorbar and the
        values in the legend and the title carry their column's unit, "slot.k (N/m^e)";
        a column whose name already holds its unit ("peak (N)") is left as it is.

    Returns
    -------
    matplotlib.figure.Figure
        ``fig.axes[0]`` holds the plot; in the map form ``fig.axes[1]`` is the colorbar.

    Raises
    ------
    TypeError
        ``table`` is not a DataFrame, a ``where`` value is not a number.
    ValueError
        A column that is not in the table, ``x``/``y`` not parameters, ``output`` a parameter,
        non-numeric values, no runs left after ``where``, a map whose other parameters vary
        (give ``where``), two runs at one grid point, a log column with values <= 0. Each
        message names the column.
    """
    study = _Study(table, output, x, y, where, log, units)
    with plots.figure(show) as fig:
        fig.set_size_inches(*SIZE)
        fig.set_dpi(DPI)
        ax = fig.add_subplot()
        if y is None:
            _draw_lines(ax, study)
        else:
            _draw_map(fig, ax, study)
        if study.failed.any():
            # below everything, where constrained layout keeps room for it
            fig.supxlabel(_failure_note(study), x=0.01, ha="left", fontsize="x-small",
                          color="firebrick")
        fig.suptitle(study.title() if title is None else title, fontsize="medium")
        _unclutter(ax)
        if path is not None:
            plots.save_png(fig, path, dpi=DPI, who="viz.plot_study")
    return fig


class _Study:
    """The checked columns of a plot: the rows kept, their parameters, output and status."""

    def __init__(self, table, output, x, y, where, log, units=None):
        self.parameters = _parameters(table, output, x, y)
        self.units = _units(table, units)
        self.output, self.x, self.y = output, x, y
        self.where = dict(where or {})
        self.rows = rows = self._select(table)
        self.n = len(rows)
        self.log = [log] if isinstance(log, str) else list(log)
        for name in self.log:
            if name not in (x, y, output):
                raise ValueError(f"plot_study: log: {name!r} is not plotted here (x {x!r}, "
                                 f"y {y!r}, output {output!r})")
        self._read_values()
        self.others = [p for p in self.parameters if p not in (x, y)
                       and rows[p].astype(str).nunique() > 1]
        self.fixed = {p: rows[p].iloc[0] for p in self.parameters
                      if p not in (x, y) and p not in self.others}
        if y is not None:
            self._check_map()

    def _select(self, table):
        """The rows of ``table`` with the parameter values of ``where`` (1e-12 relative)."""
        rows = table
        for name, value in self.where.items():
            if name not in self.parameters:
                raise ValueError(f"plot_study: where: {name!r} is not a parameter of the "
                                 f"study; its parameters are {_listed(self.parameters)}")
            values = _numbers(rows[name], name)
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
                raise TypeError(f"plot_study: where: {name}: give a number, got {value!r}")
            keep = np.isclose(values, float(value), rtol=1e-12, atol=0.0)
            if not keep.any():
                have = ", ".join(f"{v:g}" for v in sorted(set(values)))
                raise ValueError(f"plot_study: where: no run has {name} = {value:g}; its "
                                 f"values are {have}")
            rows = rows[keep]
        if len(rows) == 0:
            raise ValueError("plot_study: the table has no runs")
        return rows

    def _read_values(self):
        """The rows' status and their x, y and output values as floats (nan: no value, as
        for every failed run); a log axis must hold only values > 0."""
        x, y, output, rows = self.x, self.y, self.output, self.rows
        self.status = rows["status"].astype(str).to_numpy()
        self.failed = self.status != OK
        self.xv = _numbers(rows[x], x)
        self.yv = None if y is None else _numbers(rows[y], y)
        self.zv = _numbers(rows[output], output, missing=True)
        self.zv[self.failed] = np.nan          # a failed run has no value, whatever it holds
        self.empty = ~self.failed & np.isnan(self.zv)
        for name, values in ((x, self.xv), (y, self.yv), (output, self.zv)):
            if name in self.log and values is not None and (values[np.isfinite(values)]
                                                              <= 0).any():
                raise ValueError(f"plot_study: log: {name!r} has values <= 0 "
                                 f"(min {np.nanmin(values):g})")

    def _check_map(self):
        """A map needs one run per (x, y): no other parameter varying, no point twice."""
        if self.others:
            values = {p: sorted(set(self.rows[p].astype(str))) for p in self.others}
            raise ValueError(f"plot_study: a map of {self.output!r} over {self.x} x {self.y}, "
                             "but " + "; ".join(f"{p} varies too ({', '.join(v)})"
                                                for p, v in values.items())
                             + f": pick one value with where={{{self.others[0]!r}: ...}}")
        pairs = list(zip(self.xv, self.yv))
        if len(set(pairs)) != len(pairs):
            twice = next(p for p in pairs if pairs.count(p) > 1)
            raise ValueError(f"plot_study: two runs at {self.x} = {twice[0]:g}, {self.y} = "
                             f"{twice[1]:g}")

    def title(self):
        """'peak (N) over slot.k x slot.e (slot.cmax = 0): 20 runs, 1 failed'."""
        over = self.x if self.y is None else f"{self.x} x {self.y}"
        fixed = ", ".join(f"{p} = {self.value(p, v)}" for p, v in self.fixed.items())
        failed = int(self.failed.sum())
        return (f"{self.output} over {over}" + (f" ({fixed})" if fixed else "")
                + f": {self.n} run{'s' * (self.n != 1)}"
                + (f", {failed} failed" if failed else ""))

    def label(self, k):
        """The parameters of row k that are not on an axis: 'slot.e = 2.1, slot.cmax = 0'."""
        return ", ".join(f"{p} = {self.value(p, self.rows[p].iloc[k])}" for p in self.others)

    def unit(self, name):
        """The unit of column ``name`` as drawn ("N.m" as "N m"), "" when not known."""
        return _shown(self.units.get(name, ""))

    def axis_label(self, name):
        """'slot.k (N/m^e)'; the name alone without a known unit, or where it names it."""
        unit = self.unit(name)
        if not unit or f"({unit})" in name or f"[{unit}]" in name or \
                f"({self.units.get(name)})" in name:
            return name
        return f"{name} ({unit})"

    def value(self, name, value):
        """'1e+07 N/m', '2.1': a value of column ``name`` with its unit."""
        unit = self.unit(name)
        return f"{_fmt(value)} {unit}" if unit else _fmt(value)

    def point(self, k):
        """Row k's parameters: 'slot.k = 1e+07, slot.e = 2.1'."""
        names = [self.x] + ([self.y] if self.y else []) + self.others
        return ", ".join(f"{p} = {_fmt(self.rows[p].iloc[k])}" for p in names)


def _parameters(table, output, x, y):
    """The parameters of a sweep's ``table`` (its columns before ``run``), having checked
    that it is one and that ``output``, ``x`` and ``y`` are columns fit for their roles."""
    try:
        import pandas
    except ImportError:        # pragma: no cover - pandas is a dependency of mbd
        raise TypeError("plot_study: needs pandas (the table is a pandas.DataFrame)") from None
    if not isinstance(table, pandas.DataFrame):
        raise TypeError("plot_study: table must be the pandas.DataFrame mbd.sweep returns, "
                        f"got {type(table).__name__}")
    columns = [str(c) for c in table.columns]
    for what, name in (("column", output), ("column", x), ("column", y)):
        if name is not None and name not in columns:
            raise ValueError(f"plot_study: no {what} {name!r} in the table; its columns "
                             f"are {', '.join(map(repr, columns))}")
    for name in LEADING:
        if name not in columns:
            raise ValueError(f"plot_study: no column {name!r} in the table (the parameters "
                             f"are the columns before 'run'): give the table mbd.sweep "
                             f"returns; its columns are {', '.join(map(repr, columns))}")
    parameters = columns[:columns.index("run")]
    for axis, name in (("x", x), ("y", y)):
        if name is not None and name not in parameters:
            raise ValueError(f"plot_study: {axis} {name!r} is not a parameter of the "
                             f"study; its parameters are {_listed(parameters)}")
    if y is not None and y == x:
        raise ValueError(f"plot_study: x and y are both {x!r}; give two parameters")
    if output in parameters or output in NOT_VALUES:
        raise ValueError(f"plot_study: output {output!r} is "
                         f"{'a parameter' if output in parameters else 'not a value'}"
                         "; give an output column (or 'wall_s', 't_reached')")
    return parameters


def _units(table, units):
    """{column: unit}: the table's own (``attrs["units"]``, as mbd.sweep sets them) under
    those given; a unit that is not a string is refused."""
    found = dict(getattr(table, "attrs", {}).get("units") or {})
    if units is not None:
        if not isinstance(units, dict):
            raise TypeError(f"plot_study: units must be a dict {{column: unit}}, got "
                            f"{type(units).__name__}")
        found.update(units)
    for name, unit in found.items():
        if not isinstance(unit, str):
            raise TypeError(f"plot_study: units: {name!r}: a unit is a string, got {unit!r}")
    return found


def _shown(unit):
    """A unit as a picture shows it: "N.m" -> "N m", "N.s/m" -> "N s/m" (mbd writes
    products with a dot, as the FMI does)."""
    return unit.replace(".", " ")


def _listed(parameters):
    """The parameters' names for a message: "'slot.k', 'slot.e'", or "none"."""
    return ", ".join(map(repr, parameters)) or "none"


def _numbers(column, name, missing=False):
    """The column as floats; ValueError naming it when a value is not a number (``missing``:
    empty cells, as a CSV holds a failed run's output, are nan)."""
    values = []
    for value in column:
        if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
            values.append(float(value))
            continue
        if isinstance(value, str):
            try:
                values.append(float(value))
                continue
            except ValueError:
                if missing and value.strip() == "":
                    values.append(math.nan)
                    continue
        if missing and value is None:
            values.append(math.nan)
            continue
        raise ValueError(f"plot_study: column {name!r} holds {value!r}, not a number (a joint "
                         "of several coordinates cannot be an axis)")
    return np.array(values, dtype=float)


def _fmt(value):
    return f"{value:g}" if isinstance(value, numbers.Real) else str(value)


def _draw_lines(ax, study):
    """The output against x, one line per combination of the other varying parameters."""
    labels = [study.label(k) for k in range(study.n)]
    groups = list(dict.fromkeys(labels))           # in table order: the grid's own order
    # ordered groups (one parameter's values) read best along an ordered colour map
    cmap = colormaps["viridis"]
    colors = (["C0"] if len(groups) == 1 else
              [cmap(0.9 * i / (len(groups) - 1)) for i in range(len(groups))])
    for group, color in zip(groups, colors):
        members = np.array([k for k in range(study.n) if labels[k] == group])
        order = members[np.argsort(study.xv[members], kind="stable")]
        # a failed run's nan breaks the line: the gap sits where it failed
        ax.plot(study.xv[order], study.zv[order], "o-", color=color, markersize=4,
                linewidth=1.4, label=group or study.output)
    band = blended_transform_factory(ax.transData, ax.transAxes)
    _mark_missing(ax, study, study.xv, np.full(study.n, FAILED_BAND), transform=band)
    ax.set_xlabel(study.axis_label(study.x))
    ax.set_ylabel(study.axis_label(study.output))
    for name, scale in ((study.x, ax.set_xscale), (study.output, ax.set_yscale)):
        if name in study.log:
            scale("log")
    _tick_samples(ax.xaxis, study.xv)
    ax.grid(True, which="both", linewidth=0.3, alpha=0.5)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
              fontsize="small", frameon=False)


def _draw_map(fig, ax, study):
    """The output over x by y: grid cells (or coloured points), a colorbar, the samples."""
    pairs = list(zip(study.xv, study.yv))
    xs, ys = np.unique(study.xv), np.unique(study.yv)
    finite = study.zv[np.isfinite(study.zv)]
    if study.output in study.log:
        norm = LogNorm(*(finite.min(), finite.max()) if finite.size else (1.0, 10.0))
    else:
        norm = Normalize(*(finite.min(), finite.max()) if finite.size else (0.0, 1.0))
    cmap = colormaps["viridis"]
    if len(pairs) == len(xs) * len(ys):            # every combination once: a full grid
        grid = np.full((len(ys), len(xs)), np.nan)
        grid[np.searchsorted(ys, study.yv), np.searchsorted(xs, study.xv)] = study.zv
        mesh = ax.pcolormesh(_edges(xs, study.x in study.log), _edges(ys, study.y in study.log),
                             np.ma.masked_invalid(grid), cmap=cmap, norm=norm)
        if len(pairs) <= ANNOTATE_CELLS:
            for xk, yk, zk in zip(study.xv, study.yv, study.zv):
                if np.isfinite(zk):
                    r, g, b, _ = cmap(norm(zk))
                    ink = "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"
                    ax.annotate(_cell_text(zk), (xk, yk), xytext=(0, 5), textcoords="offset points",
                                ha="center", va="bottom", fontsize="x-small", color=ink)
    else:                                          # scattered cases: each its own colour
        ok = np.isfinite(study.zv)
        mesh = ax.scatter(study.xv[ok], study.yv[ok], c=study.zv[ok], cmap=cmap, norm=norm,
                          s=60, edgecolors="black", linewidths=0.5, zorder=2)
    colorbar = fig.colorbar(mesh, ax=ax)
    colorbar.set_label(study.axis_label(study.output))
    ok = ~study.failed & ~study.empty
    ax.plot(study.xv[ok], study.yv[ok], ".", color="black", markersize=4, zorder=3,
            label=f"run ({int(ok.sum())})")
    _mark_missing(ax, study, study.xv, study.yv)
    ax.set_xlabel(study.axis_label(study.x))
    ax.set_ylabel(study.axis_label(study.y))
    if study.x in study.log:
        ax.set_xscale("log")
    if study.y in study.log:
        ax.set_yscale("log")
    _tick_samples(ax.xaxis, study.xv)
    _tick_samples(ax.yaxis, study.yv)
    ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=3, borderaxespad=0.3,
              fontsize="small", frameon=False)


def _mark_missing(ax, study, xs, ys, transform=None):
    """Red x at each failed run, a hollow grey circle at each run without a value; each a
    legend entry with its count."""
    kwargs = {} if transform is None else {"transform": transform}
    if study.failed.any():
        ax.plot(xs[study.failed], ys[study.failed], "x", color="red", markersize=9,
                markeredgewidth=2.0, linestyle="none", zorder=4, clip_on=False,
                label=f"failed run ({int(study.failed.sum())} of {study.n})", **kwargs)
    if study.empty.any():
        ax.plot(xs[study.empty], ys[study.empty], "o", markerfacecolor="none",
                markeredgecolor="0.4", markersize=7, linestyle="none", zorder=4,
                clip_on=False, label=f"no value: nan ({int(study.empty.sum())})", **kwargs)


def _tick_samples(axis, values):
    """Ticks at the sampled values of a parameter, when they are few: a grid study reads its
    cases off the axis, each labeled in engineering form (:func:`_tick_texts`); labels that
    would still overlap are thinned once the figure is laid out (:func:`_unclutter`)."""
    values = np.unique(values[np.isfinite(values)])
    if 0 < len(values) <= TICKED_VALUES:
        axis.set_ticks(values, labels=_tick_texts(values))
        axis.set_minor_locator(NullLocator())


def _tick_texts(values):
    """Short labels of sorted distinct ``values``: engineering form (an exponent that is a
    multiple of 3) outside 0.001 .. 9999, the fewest significant digits from 3 up that tell
    every value from its neighbours.

    Examples
    --------
    >>> _tick_texts(np.linspace(5e6, 2e7, 8))
    ['5e6', '7.14e6', '9.29e6', '11.4e6', '13.6e6', '15.7e6', '17.9e6', '20e6']
    >>> _tick_texts(np.array([0.0, 0.25, 1.5, 1000.0, 1e-4]))
    ['0', '0.25', '1.5', '1000', '100e-6']
    """
    for digits in range(3, 16):
        texts = [_engineering(float(v), digits) for v in values]
        if len(set(texts)) == len(texts):
            return texts
    return [f"{v:g}" for v in values]         # pragma: no cover - distinct floats differ by 16


def _engineering(value, digits):
    """``value`` to ``digits`` significant digits: plain between 0.001 and 9999, else
    mantissa (1 <= |m| < 1000) and an exponent that is a multiple of 3: '7.14e6', '250e-6'."""
    if value == 0.0 or not math.isfinite(value):
        return f"{value:g}"
    rounded = float(f"{value:.{digits - 1}e}")   # rounding first: 999.96e3 is 1e6, not 1000e3
    power = math.floor(math.log10(abs(rounded)))
    if -3 <= power < 4:
        return np.format_float_positional(rounded, trim="-")
    power3 = 3 * (power // 3)
    return f"{rounded / 10.0 ** power3:.{digits}g}e{power3}"


def _unclutter(ax, gap=2.0):
    """Thin the labels of the sampled-value ticks (:func:`_tick_samples`) of ``ax`` that still
    overlap as the figure is laid out: label every s-th tick from the first, the smallest
    stride s that leaves ``gap`` pixels between neighbouring labels; every tick keeps its
    mark."""
    fig = ax.figure
    fig.draw_without_rendering()            # lays the figure out (constrained layout)
    renderer = fig._get_renderer()
    for axis in (ax.xaxis, ax.yaxis):
        if not isinstance(axis.get_major_locator(), FixedLocator):
            continue                         # not labeled by _tick_samples
        ticks = axis.get_major_ticks(len(axis.get_majorticklocs()))
        boxes = [tick.label1.get_window_extent(renderer) for tick in ticks]
        stride = next(s for s in range(1, len(ticks) + 1)
                      if not _overlapping(boxes[::s], gap))
        for i, tick in enumerate(ticks):
            tick.label1.set_visible(i % stride == 0)


def _overlapping(boxes, gap):
    """True when two of the bounding boxes (pixels) come closer than ``gap``."""
    return any(a.padded(gap / 2).overlaps(b.padded(gap / 2))
               for k, a in enumerate(boxes) for b in boxes[k + 1:])


def _cell_text(value):
    """A cell's value in four digits, without an exponent below a million (15546, not
    1.555e+04)."""
    text = f"{value:.4g}"
    return f"{value:.0f}" if "e+" in text and abs(value) < 1e6 else text


def _failure_note(study):
    """The failed runs, one a line: their parameters and error (shortened)."""
    lines = []
    failed = np.flatnonzero(study.failed)
    for k in failed[:NAMED_FAILURES]:
        message = study.status[k].splitlines()[0]
        message = message if len(message) <= MESSAGE else message[:MESSAGE - 3] + "..."
        lines.append(f"failed: {study.point(k)}: {message}")
    if len(failed) > NAMED_FAILURES:
        lines.append(f"... and {len(failed) - NAMED_FAILURES} more failed runs (see the "
                     "table's status column)")
    return "\n".join(lines)


def _edges(values, log):
    """Cell edges around sorted ``values``: midway between neighbours (in log10 when
    ``log``, so cells look even on a log axis), as far again beyond the ends."""
    t = np.log10(values) if log else np.asarray(values, dtype=float)
    if len(t) == 1:
        half = 0.5 if log or t[0] == 0 else 0.5 * abs(t[0])
        edges = np.array([t[0] - half, t[0] + half])
    else:
        mid = 0.5 * (t[:-1] + t[1:])
        edges = np.concatenate([[2 * t[0] - mid[0]], mid, [2 * t[-1] - mid[-1]]])
    return 10.0 ** edges if log else edges
