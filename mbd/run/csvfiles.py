"""A result's CSV: the table written whole (its grid times as the decimals they are made of),
its units in the file beside it, and both read back (:func:`read_csv`, ``mbd.read_csv``).
:meth:`mbd.Result.to_csv` writes through :func:`write_csv`."""
from __future__ import annotations

import decimal
import os
from typing import TYPE_CHECKING

import numpy as np

from ..model.files import atomic_open

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike

__all__ = ["read_csv", "time_texts", "units_path", "write_csv"]


def units_path(path: str | os.PathLike) -> str:
    """The file beside a result's CSV that gives its columns' units: ``run.csv`` ->
    ``run.units.csv`` (a path not ending in ``.csv`` gets ``.units.csv`` added)."""
    path = os.fspath(path)
    root, ext = os.path.splitext(path)
    return (root if ext.lower() == ".csv" else path) + ".units.csv"


#: the rows a CSV is formatted by at a time (a long run's table is never held as text whole)
CSV_BLOCK = 10_000


def write_csv(path: str | os.PathLike, names: Sequence[str], units: Sequence[str],
              table: np.ndarray, event_times: ArrayLike = ()) -> str | os.PathLike:
    """Write ``table`` (rows, columns; the first column the time, s) under the column
    ``names`` to the CSV ``path``, then their ``units`` to :func:`units_path`, each whole or
    not at all (the units after the table: a CSV that cannot be written leaves no units
    file). Times are written by :func:`time_texts` (``event_times``: the rows at events,
    written exactly), values in the shortest form that reads back as the same double.
    Returns ``path``."""
    times = time_texts(table[:, 0], event_times)
    with atomic_open(path, "w") as fh:
        fh.write(",".join(names) + "\n")
        for start in range(0, len(table), CSV_BLOCK):
            # a list's repr is its floats' shortest reprs, formatted in one C loop
            lines = [times[start + k] + "," + repr(row)[1:-1].replace(", ", ",")
                     for k, row in enumerate(table[start:start + CSV_BLOCK, 1:].tolist())]
            np.savetxt(fh, np.array(lines, dtype=object), fmt="%s")
    with atomic_open(units_path(path), "w") as fh:
        fh.write(",".join(names) + "\n" + ",".join(units) + "\n")
    return path


def read_csv(path: str | os.PathLike) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """Read a CSV written by :meth:`Result.to_csv` (or by ``mbd run``), with its units.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    columns : dict
        {name: (n,) float array} in the file's order (``columns["t"]`` s,
        ``columns["hinge.q"]`` rad ...).
    units : dict
        {name: unit} as the units file beside it gives them (:func:`units_path`; "" for
        every column where there is none).

    Raises
    ------
    ValueError
        For a file whose rows do not have one value per named column, or a units file whose
        names are not the CSV's (the file named).

    Examples
    --------
    ::

        columns, units = mbd.read_csv("mbd-out/pendulum.csv")
        angle = columns["hinge.q"]              # (n,) in units["hinge.q"], rad
    """
    with open(path, newline="", encoding="utf-8") as fh:
        names = fh.readline().rstrip("\r\n").split(",")
        rows = [line for line in fh if line.strip()]
    units = dict.fromkeys(names, "")
    if os.path.isfile(units_path(path)):
        with open(units_path(path), newline="", encoding="utf-8") as fh:
            said, given = (fh.readline().rstrip("\r\n").split(",") for _ in range(2))
        if said != names or len(given) != len(names):
            raise ValueError(f"read_csv: {units_path(path)}: its names and units are not the "
                             f"{len(names)} columns of {os.fspath(path)}")
        units = dict(zip(names, given))
    table = np.empty((0, len(names)))
    if rows:
        try:
            table = np.loadtxt(rows, delimiter=",", ndmin=2)
        except ValueError as err:
            raise ValueError(f"read_csv: {path}: {err}") from None
        if table.shape[1] != len(names):
            raise ValueError(f"read_csv: {path}: rows of {table.shape[1]} values for "
                             f"{len(names)} named columns")
    return {name: table[:, k] for k, name in enumerate(names)}, units


def time_texts(t: ArrayLike, event_times: ArrayLike = ()) -> list[str]:
    """The texts of a time column (s): the times of the output grid as the decimals it is
    made of, every other time (an event's, t_end, where a run stopped) in the shortest form
    that reads back as the same double.

    The grid (t0 + k dt: :func:`mbd.run.simulate.output_times`) is found in the times that
    are no event's (:func:`_output_grid`), each time checked to be exactly the double
    ``k * dt + t0`` the run made; a grid that is not found (a step of 16 digits or more, a
    table of other times) leaves every time exact.

    Examples
    --------
    >>> t = np.append(np.arange(4) * 0.1, [0.34944123456789, 0.4])
    >>> time_texts(t, [0.34944123456789])
    ['0.0', '0.1', '0.2', '0.3', '0.34944123456789', '0.4']
    >>> repr(float(t[3]))
    '0.30000000000000004'
    """
    t = np.asarray(t, dtype=float)
    texts = [repr(x) for x in t.tolist()]
    grid = _output_grid(t, np.isin(t, np.asarray(event_times, dtype=float)))
    if grid is None:
        return texts
    t0, dt, rows, k = grid
    places = max(_decimal_places(dt), _decimal_places(t0))
    decimals = [f"{x:.{places}f}".rstrip("0") for x in t[rows].tolist()]
    decimals = [text + "0" if text.endswith(".") else text for text in decimals]
    # the text is the grid's decimal where the double lies within its rounding of it (k dt
    # and the sum each rounded, dt and t0 given as doubles): a few ulp
    close = (np.abs(np.array(decimals, dtype=float) - t[rows])
             <= 4 * np.spacing(abs(t0) + np.abs(k * dt)))
    for i, text, good in zip(rows.tolist(), decimals, close.tolist()):
        if good:
            texts[i] = text
    return texts


def _output_grid(t, at_events):
    """(t0, dt, rows, k) of the output grid in times ``t``: its step (s), the rows on it
    (indices) and their multiples; None where no step puts most of the rows that are no
    event's (``at_events`` False) on one.

    dt is the shortest decimal that makes those rows' doubles exactly, as the run made
    them (``k * dt + t0``); its estimate comes from a row half-way through, whose error
    (an ulp of t over k steps) is far below a step's last digit.
    """
    free = np.flatnonzero(~at_events)
    if len(free) < 3:
        return None
    t0 = float(t[0])
    rough = float(np.median(np.diff(t[free[:1000]])))
    middle = free[len(free) // 2]
    steps = round((t[middle] - t0) / rough) if rough > 0.0 else 0
    if steps < 1:
        return None
    estimate = (t[middle] - t0) / steps
    for digits in range(1, 16):
        dt = float(f"{estimate:.{digits}g}")
        k = np.rint((t[free] - t0) / dt)
        on = (k * dt + t0 == t[free]) & (k >= 0)
        if np.count_nonzero(on) >= max(3, len(free) // 2):
            return t0, dt, free[on], k[on]
    return None


def _decimal_places(x):
    """The decimal places of the shortest repr of x (0.01: 2, 2.5e-05: 6, 3.0: 1)."""
    exponent = decimal.Decimal(repr(x)).as_tuple().exponent
    return max(1, -exponent) if isinstance(exponent, int) else 17
