"""The command line: ``mbd demo``, ``mbd run MODEL.py``, ``mbd check MODEL.py``,
``mbd equilibrium MODEL.py``, ``mbd modes MODEL.py``, ``mbd sweep MODEL.py``, ``mbd warmup`` (also
``python -m mbd ...``).

This is the composition root (DESIGN §1): the only part of ``mbd`` that may import ``joints``,
``forces`` and ``viz``.

A model script defines ``build_model()`` returning an :class:`mbd.Model` (as every script in
``examples/`` and the demo do; ``build()`` is accepted as well), or a module-level ``model``.
It is imported, not run: its ``if __name__ == "__main__":`` block does not execute. It may set
the run's settings as module-level numbers: ``T_END`` (s, default 5; ``--t-end`` overrides it),
``OUTPUT_STEP`` (s, default 0.01), ``RTOL`` and ``ATOL`` (default: the Environment's). The demo
sets them the same way. ``--set NAME.PARAM=VALUE`` changes a parameter by element name after
the script made the Model and before the build: a body's ``mass``, a joint's ``q0``/``v0``
(comma-separated for several coordinates), a force element's law parameter (``gap.c=20``,
``stop.x1=0.4``; a BodySpringDamper's ``k``, ``b``, ``r0``), validated as the constructor
validates it. Laws are frozen: a law parameter makes a new law (``dataclasses.replace``) in a
new force element that takes the old one's place in the model; the old law and element are
left as they were.

The analyses (SPEC §6) take the same script, ``--set`` and ``--out``, and ``--t T`` (the
analysis time, s, default 0):

- ``mbd equilibrium MODEL.py`` finds the static equilibrium from the joints' q0
  (:func:`mbd.equilibrium`), prints its table and writes ``DIR/<model>_equilibrium.csv``:
  rows ``quantity,value`` — every joint coordinate at rest (named as in a run's CSV,
  ``hinge.q``, ``ball.q0`` .. ``ball.q3``), then ``t``, ``residual`` (N or N m),
  ``iterations``, ``method``, ``stable`` (true/false) and each force element's branch at
  rest (``stop.contact,-1``).
- ``mbd modes MODEL.py`` linearizes about that equilibrium (``--at-start``: about the start
  state at rest instead, the joints' q0 with the loops closed), prints the equilibrium and the
  modes tables and writes ``DIR/<model>_modes.csv``: one row per mode (numbered from 1) with
  ``mode, frequency_hz, damped_frequency_hz, damping_ratio, growth_rate, kind`` and one column
  per joint coordinate holding the magnitude of the mode's shape there (largest 1).
  ``--animate`` also writes ``DIR/<model>_mode<k>.gif`` per mode (:func:`viz.animate_mode`).

``mbd sweep MODEL.py --grid NAME.PARAM=VALUES ... --output COLUMN=SPEC ...`` runs the script
once per case (:func:`mbd.sweep`, SPEC §7): every combination of the ``--grid`` values
(``strap.k=50,100,200``: a list; ``hinge.q0=0:0.5:6``: 6 values from 0 to 0.5), or the rows of
``--cases FILE.csv`` (a header of names, one case per row); ``--set`` fixes a parameter for
every run. ``--output peak=absmax:force.stop.value`` names an output (REDUCTION:QUANTITY, see
:class:`mbd.study.sweeps.Output`). It prints the table and writes ``DIR/sweep.csv`` and
``DIR/runs/<run>.npz``; ``--scheduler tcp://host:8786`` runs on that Dask cluster,
``--workers N`` sets the local processes; the same command into the same ``--out`` resumes.
``--plot COLUMN`` also draws that output against the parameters (``DIR/sweep_COLUMN.png``).

``--out DIR`` is the output folder, made if missing; a path that is a file, or a folder that
cannot be made or written into, is refused before the simulation (or analysis) starts. Every
file is written whole or not at all.

Exit status: 0 success; 2 bad input (missing file, a script without a model or that
raises, a malformed or unknown ``--set``, an output folder that is a file or not writable, a
model error), a failed simulation, or an analysis without an answer (an
:class:`mbd.AnalysisError`: no equilibrium, naming the coordinates that run away), with one
message on stderr and no traceback (a failed run still writes the rows computed); 130 when
interrupted (Ctrl-C), after writing the rows computed so far.
"""
import argparse
import csv
import os
import sys
import time

import numpy as np

from ..model.errors import AnalysisError, InputError, ModelError, SimulationError
# the loading, --set and run-settings rules live in mbd.study.scripts (mbd.sweep uses them too)
from ..study.scripts import (apply_setting, load_script, model_of, os_reason, output_folder,
                             parse_setting, run_settings)
from ..model.files import atomic_open

#: exit status of an interrupted run (128 + SIGINT, as shells report it)
INTERRUPTED = 130




# ----------------------------------------------------------------------------- commands

def _load(args):
    """Script -> (module, model with the --set applied, settings applied)."""
    module = load_script(args.model)
    model = model_of(module, args.model)
    applied = [apply_setting(model, s) for s in getattr(args, "set", None) or []]
    return module, model, applied


def _written(write, path):
    """``write(path)`` (a results file); an OSError becomes an InputError naming the file."""
    try:
        return write(path)
    except OSError as err:
        raise InputError(f"cannot write the results file {path}: {os_reason(err)}") from None


def _write_outputs(result, out, name, animate, lines):
    """CSV and PNG (and the GIF) into ``out``; appends the summary lines."""
    csv = _written(result.to_csv, os.path.join(out, f"{name}.csv"))
    lines.append(f"  results: {csv} ({len(result.t)} rows)")
    if len(result.t) >= 2:
        from viz.plots import plot
        png = os.path.join(out, f"{name}.png")
        _written(lambda path: plot(result, path), png)
        lines.append(f"  plot: {png}")
    if animate:
        gif = os.path.join(out, f"{name}.gif")
        try:
            from viz.render import animate as render
            render(result, gif, fps=15, size=(480, 360), progress=None)
        except Exception as err:   # a missing renderer must not lose the results written
            lines.append(f"  animation: skipped, {type(err).__name__}: {err}")
        else:
            lines.append(f"  animation: {gif}")


def _summary(command, system, result, wall, lines):
    stats = result.stats
    compiling = stats.get("compile_time", 0.0)
    spent = (f"{wall:.2f} s wall time, {compiling:.1f} s of it compiling the numba kernels "
             "(once: later runs load them from the cache)" if compiling > 0.0 else
             f"{wall:.2f} s wall time")
    out = [f"mbd {command}: {system.name}",
           f"  machines: {len(system.machines)}, bodies: {len(system.bodies)}, "
           f"joints: {len(system.joints)}, force elements: {len(system.force_elements)}, "
           f"DOF: {system.dof}",
           f"  simulated {result.t[-1]:g} s in {spent} with {stats['method']}: "
           f"{stats['nsteps']} steps, {stats['nfev']} right-hand-side evaluations",
           f"  events: {len(result.events)}"]
    for e in result.events[:10]:
        out.append(f"    t = {e.t:.9g} s  {e.element}: {e.what}")
    if len(result.events) > 10:
        out.append(f"    ... and {len(result.events) - 10} more")
    balance = result.energy_balance()
    out.append(f"  energy balance over the run (rtol {stats['rtol']:g}): {balance.summary()}")
    out += [f"    {line}" for line in balance.lines()]
    return out + lines


def _simulate_and_write(command, system, out, animate, progress, t_end, **options):
    """Simulate, write the files, print the summary; a failed or interrupted run writes its
    partial result and reports it."""
    out = output_folder(out)
    started = time.perf_counter()
    try:
        result = system.simulate(t_end, progress=progress, **options)
    except SimulationError as err:
        interrupted = isinstance(err.__cause__, KeyboardInterrupt)
        partial = err.result
        msg = f"mbd {command}: {'interrupted' if interrupted else 'the simulation failed'}: {err}"
        if partial is not None and len(partial.t):
            csv = _written(partial.to_csv, os.path.join(out, f"{system.name}.csv"))
            msg += f". The {len(partial.t)} rows computed were written to {csv}."
        print(msg, file=sys.stderr)
        return INTERRUPTED if interrupted else 2
    wall = time.perf_counter() - started
    lines = []
    _write_outputs(result, out, system.name, animate, lines)
    print("\n".join(_summary(command, system, result, wall, lines)))
    return 0


def _demo(args):
    from . import demo
    system = demo.build_model().build()
    t_end, options = run_settings(demo)
    return _simulate_and_write("demo", system, args.out, True, args.progress, t_end, **options)


def _run(args):
    module, model, applied = _load(args)
    system = model.build()
    t_end, options = run_settings(module, args.t_end)
    if applied:
        print("settings: " + ", ".join(applied))
        sys.stdout.flush()
    return _simulate_and_write("run", system, args.out, args.animate, args.progress, t_end,
                               **options)


def _check(args):
    _, model, applied = _load(args)
    system = model.build()
    lines = [f"mbd check: {args.model}: the model builds"]
    if applied:
        lines.append("settings: " + ", ".join(applied))
    lines.append(system.report())
    lines.append(f"  force elements: {len(system.force_elements)}")
    for fe in system.force_elements:
        lines.append(f"    {_describe(fe)}")
    print("\n".join(lines))
    return 0


def _describe(fe):
    return f"{fe.label()}: {fe.parameters_text()}"


def _analysis_header(command, system, applied):
    lines = [f"mbd {command}: {system.name}",
             f"  machines: {len(system.machines)}, bodies: {len(system.bodies)}, "
             f"joints: {len(system.joints)}, force elements: {len(system.force_elements)}, "
             f"DOF: {system.dof}"]
    if applied:
        lines.append("  settings: " + ", ".join(applied))
    return lines


def _csv_value(value):
    """A CSV cell: numbers in full precision (%.17g), booleans as true/false, text as is."""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.17g}"
    return str(value)


def equilibrium_rows(eq):
    """(name, value) rows of ``mbd equilibrium``'s CSV: every joint coordinate at rest (named
    as in a run's CSV: ``hinge.q``, ``ball.q0`` .. ``ball.q3`` for a quaternion), then ``t``,
    ``residual``, ``iterations``, ``method``, ``stable``, and per force element each entry of
    its branch at rest (``stop.contact``)."""
    rows = []
    for name, jm in eq.system.joints.items():
        idx = list(jm.q_index)
        for k, i in enumerate(idx):
            rows.append((f"{name}.q" if len(idx) == 1 else f"{name}.q{k}", float(eq.state.q[i])))
    rows += [("t", float(eq.state.t)), ("residual", eq.residual), ("iterations", eq.iterations),
             ("method", eq.method), ("stable", bool(eq.stable))]
    for element, state in eq.active.items():
        rows += [(f"{element}.{key}", value) for key, value in state.items()]
    return rows


def _write_equilibrium_csv(eq, path):
    def write(path):
        with atomic_open(path, "w") as fh:
            out = csv.writer(fh, lineterminator="\n")   # quotes "dynamic, then newton"
            out.writerow(["quantity", "value"])
            out.writerows((name, _csv_value(value)) for name, value in equilibrium_rows(eq))
        return path
    return _written(write, path)


#: the leading columns of ``mbd modes``' CSV (then one per joint coordinate: |shape|)
MODE_COLUMNS = ("mode", "frequency_hz", "damped_frequency_hz", "damping_ratio", "growth_rate",
                "kind")


def _write_modes_csv(linear, path):
    modes = linear.modes()
    names = list(linear.coordinates)

    def write(path):
        with atomic_open(path, "w") as fh:
            out = csv.writer(fh, lineterminator="\n")
            out.writerow(MODE_COLUMNS + tuple(names))
            for k, m in enumerate(modes, 1):
                cells = [k, m.frequency, m.damped_frequency, m.damping_ratio, m.growth_rate,
                         m.kind] + [abs(m.shape[c]) for c in names]
                out.writerow([_csv_value(c) for c in cells])
        return path
    return _written(write, path), len(modes)


def _equilibrium(args):
    from .. import equilibrium
    _, model, applied = _load(args)
    system = model.build()
    out = output_folder(args.out)
    eq = equilibrium(system, t=args.t)
    csv = _write_equilibrium_csv(eq, os.path.join(out, f"{system.name}_equilibrium.csv"))
    lines = _analysis_header("equilibrium", system, applied) + [eq.table(),
                                                                 f"  results: {csv}"]
    print("\n".join(lines))
    return 0


def _start_at_rest(system, t):
    """The start state at rest: the joints' q0 (loops assembled, drivers at their positions
    at t), v = 0."""
    from ..compiled import assembly, statefunction
    from ..model.state import State
    start = system.initial_state(t0=t)
    q = assembly.normalized(system.tree, start.q)
    zero = np.zeros(system.nv)
    if system.cut_joints or system.drivers:
        q, _ = assembly.initial(system, statefunction.state_data(system).data,
                                State(t, q, zero), {}, {})
    return State(t, q, zero)


def _state_table(system, state):
    lines = [f"the start state at rest of '{system.name}' at t = {state.t:g} s (--at-start: "
             "linearized there, an equilibrium or not)",
             f"  {'joint':<20} {'coordinate(s)':<40}"]
    for name, jm in system.joints.items():
        q = state.q[jm.q_index]
        text = (f"{q[0]:+.10g}" if len(q) == 1
                else "[" + ", ".join(f"{x:+.6g}" for x in q) + "]")
        lines.append(f"  {name:<20} {text:<40}")
    return "\n".join(lines)


def _modes(args):
    from .. import equilibrium, linearize
    _, model, applied = _load(args)
    system = model.build()
    out = output_folder(args.out)
    lines = _analysis_header("modes", system, applied)
    if args.at_start:
        state = _start_at_rest(system, args.t)
        linear = linearize(system, state)
        lines.append(_state_table(system, state))
    else:
        eq = equilibrium(system, t=args.t)
        linear = eq.linear
        lines.append(eq.table())
    lines.append(f"linear model: {2 * linear.dof} states ({', '.join(linear.state_names)})"
                 if linear.dof else "linear model: no states (0 DOF)")
    lines.append(linear.table())
    csv, n = _write_modes_csv(linear, os.path.join(out, f"{system.name}_modes.csv"))
    lines.append(f"  modes: {csv} ({n} mode{'s' if n != 1 else ''})")
    if args.animate:
        for k in range(n):
            gif = os.path.join(out, f"{system.name}_mode{k + 1}.gif")
            try:
                from viz import animate_mode
                animate_mode(linear, k, gif, fps=15, size=(480, 360), progress=False)
            except Exception as err:   # a missing renderer must not lose the tables written
                lines.append(f"  animation of mode {k + 1}: skipped, {type(err).__name__}: {err}")
            else:
                lines.append(f"  animation of mode {k + 1}: {gif}")
    print("\n".join(lines))
    return 0


def grid_values(text):
    """'NAME.PARAM=VALUES' of ``--grid`` -> (name, [float]): VALUES is ``a,b,c`` or
    ``start:stop:count`` (count >= 2 values from start to stop, both included).

    Examples
    --------
    >>> grid_values("strap.k=50,100")
    ('strap.k', [50.0, 100.0])
    >>> grid_values("hinge.q0=0:0.5:3")
    ('hinge.q0', [0.0, 0.25, 0.5])
    """
    where = f"--grid {text!r}"
    name, eq, right = text.partition("=")
    if not eq or "." not in name.strip():
        raise InputError(f"{where}: expected NAME.PARAM=VALUES, e.g. strap.k=50,100,200 or "
                         "hinge.q0=0:0.5:6")
    try:
        if ":" in right:
            parts = right.split(":")
            if len(parts) != 3:
                raise ValueError
            start, stop, count = float(parts[0]), float(parts[1]), parts[2].strip()
            if not count.isdigit() or int(count) < 2:
                raise InputError(f"{where}: start:stop:count needs an integer count >= 2, "
                                 f"got {count!r}")
            values = list(np.linspace(start, stop, int(count)))
        else:
            values = [float(v) for v in right.split(",")]
    except ValueError:
        raise InputError(f"{where}: {right.strip()!r} is not a list of numbers (a,b,c) or a "
                         "range start:stop:count") from None
    return name.strip(), [float(v) for v in values]


def _cases_file(path):
    """The cases of ``--cases FILE.csv``: a header of parameter names, a row per case."""
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh))
    except OSError as err:
        raise InputError(f"--cases {path}: cannot read it: {os_reason(err)}") from None
    rows = [r for r in rows if any(c.strip() for c in r)]
    if len(rows) < 2:
        raise InputError(f"--cases {path}: needs a header of parameter names and at least one "
                         "row of values")
    names = [c.strip() for c in rows[0]]
    cases = []
    for k, row in enumerate(rows[1:], 2):
        if len(row) != len(names):
            raise InputError(f"--cases {path}, line {k}: {len(row)} values for {len(names)} "
                             "names")
        try:
            cases.append({n: float(v) for n, v in zip(names, row)})
        except ValueError:
            raise InputError(f"--cases {path}, line {k}: {row} are not all numbers") from None
    return cases


def _sweep(args):
    from ..study.sweeps import sweep
    outputs = {}
    for text in args.output:
        column, eq, spec = text.partition("=")
        if not eq or not column.strip():
            raise InputError(f"--output {text!r}: expected COLUMN=REDUCTION:QUANTITY, e.g. "
                             "peak=absmax:force.stop.value")
        outputs[column.strip()] = spec.strip()
    fixed = {}
    for text in args.set:
        name, param, value = parse_setting(text)
        fixed[f"{name}.{param}"] = value
    if args.cases and args.grid:
        raise InputError("give either --grid or --cases, not both")
    if args.cases:
        grid = [dict(case, **fixed) for case in _cases_file(args.cases)]
    elif args.grid:
        grid = dict(grid_values(text) for text in args.grid)
        grid.update({name: [value] for name, value in fixed.items()})
    else:
        raise InputError("nothing to sweep: give --grid NAME.PARAM=VALUES (repeatable) or "
                         "--cases FILE.csv")
    if args.plot and args.plot not in outputs:
        raise InputError(f"--plot {args.plot!r}: not an --output column (the outputs are: "
                         f"{', '.join(outputs) or 'none'})")
    scheduler = args.scheduler
    try:
        table = sweep(args.model, grid, t_end=args.t_end, outputs=outputs, scheduler=scheduler,
                      out=args.out, workers=args.workers, progress=args.progress,
                      retry_failed=args.retry_failed)
    except InputError as err:        # "mbd sweep: ...", not "mbd sweep: sweep: ..."
        text = str(err)
        raise InputError(text[len("sweep: "):] if text.startswith("sweep: ") else text) \
            from None
    import pandas
    with pandas.option_context("display.max_columns", None, "display.width", 160,
                               "display.max_colwidth", 60):
        shown = table.drop(columns=["result"])
        print(shown.to_string(index=False))
    a = table.attrs
    out = os.path.abspath(args.out)
    where = f"Dask cluster {scheduler}" if scheduler else "local worker processes"
    print(f"mbd sweep: {len(table)} runs ({a['ran']} run now on {where}, {a['reused']} found "
          f"in {out}), {len(table) - a['failed']} ok, {a['failed']} failed; "
          f"{a['wall_s']:.1f} s wall")
    print(f"  table: {os.path.join(out, 'sweep.csv')}")
    print(f"  results: {os.path.join(out, 'runs')} (one .npz per run)")
    if args.plot:
        from viz import plot_study
        varying = [n for n in (table.columns[:list(table.columns).index("run")])
                   if table[n].nunique() > 1]
        if not varying:
            print("  plot: skipped, no parameter varies")
        else:
            png = os.path.join(out, f"sweep_{args.plot}.png")
            # the first two varying parameters; a third is held at its first value
            where = {n: table[n].iloc[0] for n in varying[2:]}
            plot_study(table, args.plot, varying[0], varying[1] if len(varying) > 1 else None,
                       path=png, where=where or None)
            held = "".join(f", {n} = {v:g}" for n, v in where.items())
            print(f"  plot: {png} ({args.plot} over {', '.join(varying[:2])}{held})")
    return 0


def _warmup(args):
    from ..run import warmup
    jobs = 2 if (os.cpu_count() or 1) >= 2 and os.name != "nt" else 1
    print(f"mbd warmup: compiling the {len(warmup.TARGETS)} compiled entry points of the run "
          f"stage into numba's cache ({jobs} process{'es' if jobs > 1 else ''}); later runs "
          "load them", flush=True)

    def report(name, seconds, done, total):
        print(f"  [{done:2d}/{total}] {name} ({seconds:.1f} s)", flush=True)

    seconds = warmup.everything(jobs, report)
    missing = [n for n in warmup.TARGETS if not warmup.cached(n)]
    if missing:
        print(f"mbd warmup: not cached after {seconds:.1f} s: {missing}", file=sys.stderr)
        return 2
    print(f"mbd warmup: done in {seconds:.1f} s")
    return 0


def argument_parser():
    """The argument parser of the ``mbd`` command (each subcommand's function in ``run``)."""
    parser = argparse.ArgumentParser(prog="mbd", description="3-D multibody dynamics with "
                                     "force elements.", epilog="Exit status: 0 success, 2 bad "
                                     "input, a model error, a failed run or analysis, 130 "
                                     "interrupted.")
    sub = parser.add_subparsers(dest="command", required=True)
    progress = argparse.ArgumentParser(add_help=False)
    progress.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                          help="draw a progress bar on stderr (default: when it is a terminal)")

    demo = sub.add_parser("demo", parents=[progress],
                          help="simulate the built-in demo mechanism and write its results")
    demo.add_argument("--out", default="mbd-out", help="output folder (default: mbd-out)")
    demo.set_defaults(run=_demo)

    setting = dict(action="append", default=[], metavar="NAME.PARAM=VALUE",
                   help="change a parameter by element name before the build: a body's mass, "
                   "a joint's q0/v0, a force law's parameter (gap.c=20); repeatable")
    run = sub.add_parser("run", parents=[progress], help="simulate a model script and write "
                         "its results (CSV, PNG, optionally a GIF)")
    run.add_argument("model", help="Python file defining build_model() -> mbd.Model (an "
                     "example: examples/pendulum.py)")
    run.add_argument("--t-end", type=float, default=None,
                     help="end time, s (default: the script's T_END, else 5)")
    run.add_argument("--out", default="mbd-out", help="output folder (default: mbd-out)")
    run.add_argument("--animate", action="store_true", help="also write an animated GIF")
    run.add_argument("--set", **setting)
    run.set_defaults(run=_run)

    check = sub.add_parser("check", help="build a model script and report its structure "
                           "(machines, DOF, loops, redundant constraints, force elements)")
    check.add_argument("model", help="Python file defining build_model() -> mbd.Model")
    check.add_argument("--set", **setting)
    check.set_defaults(run=_check)

    analysis_time = dict(type=float, default=0.0, metavar="T",
                         help="time of the analysis, s (time-dependent laws and motion "
                         "drivers are taken there; default 0)")
    eq = sub.add_parser("equilibrium", help="find where a model script's mechanism rests "
                        "(static equilibrium): print it and write it as CSV")
    eq.add_argument("model", help="Python file defining build_model() -> mbd.Model")
    eq.add_argument("--out", default="mbd-out", help="output folder (default: mbd-out)")
    eq.add_argument("--set", **setting)
    eq.add_argument("--t", **analysis_time)
    eq.set_defaults(run=_equilibrium)

    modes = sub.add_parser("modes", help="linearize a model script's mechanism about its "
                           "equilibrium and write its modes (frequency, damping, shape)")
    modes.add_argument("model", help="Python file defining build_model() -> mbd.Model")
    modes.add_argument("--out", default="mbd-out", help="output folder (default: mbd-out)")
    modes.add_argument("--set", **setting)
    modes.add_argument("--t", **analysis_time)
    modes.add_argument("--animate", action="store_true",
                       help="also write an animated GIF of every mode")
    modes.add_argument("--at-start", action="store_true",
                       help="linearize about the start state at rest (the joints' q0, loops "
                       "closed) instead of the equilibrium")
    modes.set_defaults(run=_modes)

    study = sub.add_parser("sweep", parents=[progress], help="run a model script once per "
                           "case of a parameter grid (locally or on a Dask cluster) and "
                           "tabulate named outputs")
    study.add_argument("model", help="Python file defining build_model() -> mbd.Model")
    study.add_argument("--grid", action="append", default=[], metavar="NAME.PARAM=VALUES",
                       help="a parameter's values: a,b,c or start:stop:count; repeatable "
                       "(every combination is run)")
    study.add_argument("--cases", default=None, metavar="FILE.csv",
                       help="given cases instead of a grid: a header of parameter names, a "
                       "row of values per run")
    study.add_argument("--set", **dict(setting, help="fix a parameter for every run; "
                                       "repeatable"))
    study.add_argument("--output", action="append", default=[], metavar="COLUMN=SPEC",
                       help="a named output, REDUCTION:QUANTITY (max:force.stop.value, "
                       "final:joint.hinge.q, first:events.stop); repeatable")
    study.add_argument("--t-end", type=float, default=None,
                       help="end time of every run, s (default: the script's T_END, else 5)")
    study.add_argument("--out", default="mbd-sweep", help="output folder (default: mbd-sweep); "
                       "the same command into the same folder resumes")
    study.add_argument("--scheduler", default=None, metavar="tcp://HOST:8786",
                       help="run on this Dask scheduler (pip install 'mbd[cluster]')")
    study.add_argument("--workers", type=int, default=None,
                       help="local worker processes (default: the number of cores)")
    study.add_argument("--retry-failed", action="store_true",
                       help="resuming: run again the cases that failed before")
    study.add_argument("--plot", default=None, metavar="COLUMN",
                       help="also plot this output against the parameters (PNG in --out)")
    study.set_defaults(run=_sweep)

    warm = sub.add_parser("warmup", help="compile the kernels into numba's cache now (the first "
                          "run of any model then starts in seconds)")
    warm.set_defaults(run=_warmup)
    return parser


def main(argv=None):
    """Entry point of the ``mbd`` command; returns the exit status."""
    args = argument_parser().parse_args(argv)
    name = f"mbd {args.command}"
    try:
        return args.run(args)
    except ModelError as err:
        problems = err.problems
        head = (f"{name}: the model does not build: " if len(problems) == 1 else
                f"{name}: the model does not build, {len(problems)} problems:\n")
        body = problems[0] if len(problems) == 1 else "\n".join(f"  - {p}" for p in problems)
        print(head + body, file=sys.stderr)
        return 2
    except InputError as err:
        print(f"{name}: {err}", file=sys.stderr)
        return 2
    except SimulationError as err:
        print(f"{name}: the simulation failed: {err}", file=sys.stderr)
        return 2
    except AnalysisError as err:
        print(f"{name}: the analysis failed: {err}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as err:
        print(f"{name}: {type(err).__name__}: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return INTERRUPTED
