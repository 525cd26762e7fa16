"""A parameter study of the BISTOP slot (seed 003): the first impact of the block on the stop
x2 over the stop's stiffness k and exponent e.

Teaches: ``mbd.sweep`` — one model script (``bistop_slot.py``, unchanged) run once per case of
a grid of overrides (``slot.k`` x ``slot.e``, as ``--set`` names them), on this machine's cores
or on a Dask cluster (``scheduler="tcp://host:8786"``); outputs given as ``"REDUCTION:QUANTITY"``
strings (``"absmax:force.slot.value"``, ``"first:events.slot"``) and as top-level functions of
a Result (picklable, so that worker processes can run them); the table (a pandas DataFrame, also
``sweep.csv`` in the out folder beside every run's ``runs/<run>.npz``; a second run into the same
folder reuses them); and ``viz.plot_study``: a map of one output over k x e, and lines.

What the study measures. The block (1 kg) leaves x = 5 m at 6 m/s and flies freely until it
touches x2 = 9.5 m, so with exact event switching the first contact *begins* at the same time
for every stop, (9.5 - 5) / 6 = 0.75 s (the column ``first contact (s)`` says so, to 1e-15 s).
What the stop decides is the impact itself, and those are the outputs:

- ``peak force (N)``: the largest contact force (at the output rows, 0.1 ms apart);
- ``penetration (mm)``: the deepest point inside the stop;
- ``contact time (ms)``: how long the first contact lasts (exact: event times);
- ``restitution``: the speed out of the first contact over the speed in.

Without damping the impact has a closed form: the kinetic energy goes into the stop,
(1/2) m v^2 = k delta^(e+1) / (e+1), so::

    delta = ((e + 1) m v^2 / (2 k))^(1/(e+1)),   F_peak = k delta^e  ~  k^(1/(e+1))
    T = (2 delta / v) B(1/(e+1), 1/2) / (e + 1)      (the half-period of x'' = -k x^e / m)

The seed's stop is lightly damped (cmax = 1 N s/m against k delta^e of kilonewtons), so these
hold to 0.4 % at the seed's k and e and to 2 % on the softest stop of the grid, whose contact
is longest; ``main(cmax=0.0)`` sets the damping to zero, and the table then matches them to
the sampling of the output rows (peak force, penetration: < 1e-3) and to ~1e-10 (contact
time). Measured on the default 5 x 4 grid, with the seed's damping (the seed's cell, k = 1e7,
e = 2.1, is the first impact ``bistop_slot.py`` prints: 2752 N (2750 N at its own 0.25 ms rows),
20.16 mm, 9.37 ms, 6 -> 5.967 m/s):

- the peak force rises with k (at e = 2.1: 1304 N at k = 1e6 to 5793 N at 1e8, the slope
  1/(e+1) of the closed form on the log-log lines) and falls with e (at k = 1e7: 6185 N at
  e = 1.5 to 1374 N at e = 3.0): the penetration, 2.9 to 91.5 mm, is below 1 m, where a higher
  power of it is a smaller number, so a stop of the same k is softer at these depths: it lets
  the block in deeper and takes up the same energy at a lower force;
- the contact lasts longer on a softer stop (1.42 ms at k = 1e8, e = 1.5 to 40.5 ms at
  k = 1e6, e = 3.0), and the damping, acting over the whole contact, takes more: the
  restitution falls from 0.9994 (stiff) to 0.9757 (soft).

Run: ``python examples/slot_study.py [OUT]`` — runs the 20 cases into OUT (default
``slot_study_out``), writes ``peak_force_map.png`` and ``peak_force_lines.png`` there and
prints the table. A smaller sweep of the peak force from the command line: ``python -m mbd sweep
examples/bistop_slot.py --grid slot.k=1e6,1e7,1e8 --grid slot.e=1.5,3 --t-end 1
--output peak=absmax:force.slot.value --plot peak --out DIR``.
"""
import os
import sys

import numpy as np

import mbd
import viz

HERE = os.path.dirname(os.path.abspath(__file__))
#: the model script of the study: the seed's slot, as bistop_slot.py builds it
MODEL = os.path.join(HERE, "bistop_slot.py")
#: the grid: stiffness (N/m^e, log-spaced over two decades) x exponent (the seed's 2.1 in it)
K_VALUES = (1e6, 3e6, 1e7, 3e7, 1e8)
E_VALUES = (1.5, 2.1, 2.5, 3.0)
#: s simulated per run: the free flight to x2 (0.75 s) and the longest first contact (~40 ms)
T_END = 1.0
#: s: the rows the peak force is read off, 0.1 ms apart (finer than bistop_slot.py's own, which
#: only draws the motion): the peaks to < 1e-3 of the closed form
OUTPUT_STEP = 1e-4
#: the force element and the joint of the model script
SLOT, SLIDE = "slot", "slide"


def _first_contact(result):
    """(row in, row out, side) of the first contact of the slot, or None when there is none
    or it has not ended by the end of the run (every event time is an output row)."""
    contacts = result.force(SLOT).contacts()
    if not contacts or not np.isfinite(contacts[0][1]):
        return None
    t_in, t_out, side = contacts[0]
    return (np.flatnonzero(result.t == t_in)[0], np.flatnonzero(result.t == t_out)[0], side)


def contact_time_ms(result):
    """How long the first contact lasts, ms (nan: none ended)."""
    first = _first_contact(result)
    return np.nan if first is None else 1e3 * (result.t[first[1]] - result.t[first[0]])


def penetration_mm(result):
    """The deepest point of the first contact inside its stop, mm (at the output rows)."""
    first = _first_contact(result)
    if first is None:
        return np.nan
    i_in, i_out, side = first
    slot = result.force(SLOT)
    law = slot.element.law          # the run's own stops, with its overrides
    x = slot.x[i_in:i_out + 1]
    depth = x - law.x2 if side > 0 else law.x1 - x
    return 1e3 * float(depth.max())


def restitution(result):
    """Speed out of the first contact over the speed into it (1: no energy lost)."""
    first = _first_contact(result)
    if first is None:
        return np.nan
    v = result.joint(SLIDE).v
    return float(abs(v[first[1]]) / abs(v[first[0]]))


#: the table's outputs: {column (its unit in brackets): what mbd.sweep reads off each run}
OUTPUTS = {"first contact (s)": "first:events.slot",
           "peak force (N)": "absmax:force.slot.value",
           "penetration (mm)": penetration_mm,
           "contact time (ms)": contact_time_ms,
           "restitution": restitution}
PEAK = "peak force (N)"


def main(out="slot_study_out", k_values=K_VALUES, e_values=E_VALUES, cmax=None,
         scheduler=None, progress=None):
    """Run the study into ``out``, draw its pictures there, print the table; return it.

    Parameters
    ----------
    out : str or path-like
        The study's folder: ``sweep.csv``, ``sweep.json``, ``runs/``, and the pictures
        ``peak_force_map.png`` (peak force over k x e) and ``peak_force_lines.png`` (peak
        force against k, a line per e).
    k_values, e_values : sequence of float
        The stops' stiffness (N/m^e) and exponent values of the grid.
    cmax : float, optional
        The stops' damping for every run, N s/m (default: the model's 1 N s/m; 0: none).
    scheduler : None, str or dask.distributed.Client
        Where the runs go (None: this machine's cores), as for ``mbd.sweep``.
    progress : bool or None
        A progress bar on stderr (None: when stderr is a terminal).

    Returns
    -------
    pandas.DataFrame
        The table of ``mbd.sweep``: one row per (k, e).
    """
    grid = {"slot.k": list(k_values), "slot.e": list(e_values)}
    if cmax is not None:
        grid["slot.cmax"] = [cmax]
    table = mbd.sweep(MODEL, grid, t_end=T_END, outputs=OUTPUTS, scheduler=scheduler, out=out,
                      progress=progress, output_step=OUTPUT_STEP)
    out = os.fspath(out)
    viz.plot_study(table, PEAK, "slot.k", y="slot.e", log=["slot.k"],
                   path=os.path.join(out, "peak_force_map.png"))
    # log-log: F_peak ~ k^(1/(e+1)), a straight line per exponent
    viz.plot_study(table, PEAK, "slot.k", log=["slot.k", PEAK],
                   path=os.path.join(out, "peak_force_lines.png"))
    shown = [c for c in table.columns if c not in ("run", "result", "wall_s")]
    print(f"BISTOP slot study: {len(table)} runs ({table.attrs['ran']} run now, "
          f"{table.attrs['reused']} found in {out}, {table.attrs['failed']} failed) in "
          f"{table.attrs['wall_s']:.1f} s")
    print(table[shown].to_string(index=False, float_format=lambda v: f"{v:.6g}"))
    print(f"table, runs and pictures in {out}")
    return table


if __name__ == "__main__":
    # worker processes may be spawned: they import this file, which must not sweep again
    main(*sys.argv[1:2])
