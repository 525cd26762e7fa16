"""``mbd sweep``: a model script run once per case of a grid (``--grid``) or a cases file
(``--cases``), the table printed and written, one output plotted."""
import csv
import math
import os
import sys

import numpy as np

from ..model.errors import InputError
from ..study.cases import parameter_name
from ..study.scripts import os_reason, parse_setting
from .common import script_only


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
    """The cases of ``--cases FILE.csv``: a header of parameter names, a row per case (a
    spreadsheet's byte-order mark before the header is skipped)."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            rows = list(csv.reader(fh))
    except OSError as err:
        raise InputError(f"--cases {path}: cannot read it: {os_reason(err)}") from None
    except UnicodeDecodeError as err:
        raise InputError(f"--cases {path}: cannot read it: not UTF-8 text ({err.reason} at "
                         f"byte {err.start})") from None
    # (line number, cells) of the lines that are not blank: the numbers are the file's
    rows = [(k, r) for k, r in enumerate(rows, 1) if any(c.strip() for c in r)]
    if len(rows) < 2:
        raise InputError(f"--cases {path}: needs a header of parameter names and at least one "
                         "row of values")
    line, names = rows[0][0], [c.strip() for c in rows[0][1]]
    for name in names:
        parameter_name(name, f"--cases {path}, line {line}")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise InputError(f"--cases {path}, line {line}: the header names {', '.join(twice)} more "
                         "than once: one column per parameter")
    cases = []
    for k, row in rows[1:]:
        if len(row) != len(names):
            raise InputError(f"--cases {path}, line {k}: {len(row)} values for the "
                             f"{len(names)} names of the header ({', '.join(names)})")
        case = {}
        for name, text in zip(names, row):
            try:
                case[name] = float(text)
            except ValueError:
                case[name] = None
            if case[name] is None or not math.isfinite(case[name]):
                raise InputError(f"--cases {path}, line {k}: {name} = {text.strip()!r} is not "
                                 "a finite number")
        cases.append(case)
    return cases


def _unprefixed(err):
    """The message of a sweep's error without its "sweep: " (the command names itself)."""
    text = str(err)
    return text[len("sweep: "):] if text.startswith("sweep: ") else text


def _not_swept(fixed, swept, where):
    """Refuse a ``--set`` of a parameter that ``where`` (the grid or the cases) sweeps: one
    would silently take the other's place."""
    both = [name for name in fixed if name in swept]
    if both:
        raise InputError(f"--set {both[0]}: {where} sweeps {both[0]} already: a parameter is "
                         "either fixed by --set or swept, not both")


def sweep_command(args):
    from ..study.sweeps import WorkerDied, sweep
    script_only("sweep", args.model)
    if args.t_end is not None and not (math.isfinite(args.t_end) and args.t_end > 0):
        raise InputError(f"--t-end must be finite and > 0, got {args.t_end}")    # as mbd run
    outputs = {}
    for text in args.output:
        column, eq, spec = text.partition("=")
        if not eq or not column.strip():
            raise InputError(f"--output {text!r}: expected COLUMN=REDUCTION:QUANTITY, e.g. "
                             "peak=absmax:force.stop.value")
        if column.strip() in outputs:
            raise InputError(f"--output {text!r}: the column {column.strip()!r} is named by "
                             "an --output before: each output needs a column of its own")
        outputs[column.strip()] = spec.strip()
    fixed = {}
    for text in args.set:
        name, param, value = parse_setting(text)
        fixed[f"{name}.{param}"] = value
    if args.cases and args.grid:
        raise InputError("give either --grid or --cases, not both")
    if args.cases:
        grid = _cases_file(args.cases)
        _not_swept(fixed, grid[0], f"--cases {args.cases}")
        grid = [dict(case, **fixed) for case in grid]
    elif args.grid:
        grid = {}
        for text in args.grid:
            name, values = grid_values(text)
            if name in grid:
                raise InputError(f"--grid {text!r}: {name} is given by a --grid before: give "
                                 f"all its values in one --grid {name}=VALUES")
            grid[name] = values
        _not_swept(fixed, grid, "--grid")
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
        raise InputError(_unprefixed(err)) from None
    except WorkerDied as err:        # not bad input, but one message and status 2 all the same
        print(f"mbd sweep: {_unprefixed(err)}", file=sys.stderr)
        return 2
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
        values = pandas.to_numeric(table[args.plot], errors="coerce")
        if not varying:
            print("  plot: skipped, no parameter varies")
        elif not values.notna().any():
            print(f"  plot: skipped, no run has a value of {args.plot} (every run failed: "
                  "see the status column)")
        else:
            png = os.path.join(out, f"sweep_{args.plot}.png")
            # the first two varying parameters; a third is held at its first value
            where = {n: table[n].iloc[0] for n in varying[2:]}
            plot_study(table, args.plot, varying[0], varying[1] if len(varying) > 1 else None,
                       path=png, where=where or None)
            held = "".join(f", {n} = {v:g}" for n, v in where.items())
            print(f"  plot: {png} ({args.plot} over {', '.join(varying[:2])}{held})")
    return 0


def add_parsers(sub, progress, setting):
    """The ``sweep`` subcommand of ``sub`` (``progress``: the parent parser of ``--progress``;
    ``setting``: the arguments of ``--set``)."""
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
    study.set_defaults(run=sweep_command)
