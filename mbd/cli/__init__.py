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
import os
import sys

from ..model.errors import AnalysisError, InputError, ModelError, SimulationError
# the loading, --set and run-settings rules live in mbd.study.scripts (mbd.sweep uses them too);
# they are part of the command line's face (tests and scripts use them from here)
from ..study.scripts import apply_setting, load_script, model_of, run_settings
from . import analysis as analyses, run as running, sweep as sweeping
from .run import INTERRUPTED

__all__ = ["main", "argument_parser", "apply_setting", "load_script", "model_of",
           "run_settings", "InputError"]

def warmup_command(args):
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
    demo.set_defaults(run=running.demo_command)

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
    run.set_defaults(run=running.run_command)

    check = sub.add_parser("check", help="build a model script and report its structure "
                           "(machines, DOF, loops, redundant constraints, force elements)")
    check.add_argument("model", help="Python file defining build_model() -> mbd.Model")
    check.add_argument("--set", **setting)
    check.set_defaults(run=running.check_command)

    analysis_time = dict(type=float, default=0.0, metavar="T",
                         help="time of the analysis, s (time-dependent laws and motion "
                         "drivers are taken there; default 0)")
    eq = sub.add_parser("equilibrium", help="find where a model script's mechanism rests "
                        "(static equilibrium): print it and write it as CSV")
    eq.add_argument("model", help="Python file defining build_model() -> mbd.Model")
    eq.add_argument("--out", default="mbd-out", help="output folder (default: mbd-out)")
    eq.add_argument("--set", **setting)
    eq.add_argument("--t", **analysis_time)
    eq.set_defaults(run=analyses.equilibrium_command)

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
    modes.set_defaults(run=analyses.modes_command)

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
    study.set_defaults(run=sweeping.sweep_command)

    warm = sub.add_parser("warmup", help="compile the kernels into numba's cache now (the first "
                          "run of any model then starts in seconds)")
    warm.set_defaults(run=warmup_command)
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
