"""The command line: ``mbd demo``, ``mbd run MODEL.py|ROBOT.urdf``, ``mbd check
MODEL.py|ROBOT.urdf``, ``mbd equilibrium MODEL.py``, ``mbd modes MODEL.py``, ``mbd sweep
MODEL.py``, ``mbd fmu MODEL.py``, ``mbd warmup`` (also ``python -m mbd ...``).

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
left as they were. A parameter holding a lookup table is changed one point at a time,
``--set NAME.PARAM.POINT=VALUE`` with POINT ``xK`` (breakpoint K) or ``yK`` (value K), or
``zI_J`` of a Table2D (``stop.table.y2=450``, ``spring.K.y0=4``, ``lookup.table.y1=2.5``): a
new table, checked as its constructor checks one.

A robot description is a model too: ``mbd run ROBOT.urdf`` and ``mbd check ROBOT.urdf`` (and
``mbd equilibrium``, ``mbd modes``) read a path ending in ``.urdf`` with :func:`mbd.from_urdf`
(gravity 9.81 m/s^2 along -z) instead of importing it, and run it at the defaults of a script
that sets nothing (T_END 5 s, OUTPUT_STEP 0.01 s, the Environment's tolerances); ``--set``
works on it as on a script's model (``--set elbow_joint.q0=0.5``, ``--set
elbow_joint_limit.k=1e6``). Its options: ``--package-dir DIR`` (repeatable) where the
``package://PACKAGE/...`` meshes are found (DIR/PACKAGE/...; the URDF's folder and its
parents are searched too), ``--floating`` (a free-floating base), ``--lock JOINT[=VALUE]``
(repeatable: a joint locked), ``--no-mimic`` (mimics read as free joints), ``--limits stops|ignore``
(limits as Bistop end stops, the default, or not modelled), ``--start checked|inside|anywhere``
(a joint starting outside its limits refused, naming it, the default; started at its nearest
limit; or left there on purpose). A mesh not found is named, with
its link and the ``--package-dir`` to give; ``mbd sweep`` and ``mbd fmu`` take a script only
(one whose ``build_model()`` returns ``mbd.from_urdf(...)``).

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
  ``mode, frequency_hz, damped_frequency_hz, damping_ratio, growth_rate, kind``, then the
  mode's shape with its signs: per joint coordinate ``hinge.q`` its real part, then
  ``hinge.q.imag`` its imaginary part (0 for an undamped mode), scaled so that the
  largest-magnitude coordinate is +1.
  ``--animate`` also writes ``DIR/<model>_mode<k>.gif`` per mode (:func:`viz.animate_mode`).

``mbd sweep MODEL.py --grid NAME.PARAM=VALUES ... --output COLUMN=SPEC ...`` runs the script
once per case (:func:`mbd.sweep`, SPEC §7): every combination of the ``--grid`` values
(``strap.k=50,100,200``: a list; ``hinge.q0=0:0.5:6``: 6 values from 0 to 0.5), or the rows of
``--cases FILE.csv`` (a header of names, one case per row); ``--set`` fixes a parameter for
every run (not one the grid or the cases sweep; no name is given twice).
``--output peak=absmax:force.stop.value`` names an output (REDUCTION:QUANTITY, see
:class:`mbd.study.sweeps.Output`). It prints the table and writes ``DIR/sweep.csv`` and
``DIR/runs/<run>.npz``; ``--scheduler tcp://host:8786`` runs on that Dask cluster,
``--workers N`` sets the local processes; the same command into the same ``--out`` resumes.
``--plot COLUMN`` also draws that output against the parameters (``DIR/sweep_COLUMN.png``).

``mbd fmu MODEL.py -o MODEL.fmu [--fmi 3|2] [--set ...]`` exports the script as an FMI
co-simulation FMU (:func:`mbd.exchange.export_fmu`): its Inputs, Sensors and the parameters
``--set`` changes become the FMU's inputs, outputs and parameters.

``--out DIR`` is the output folder, made if missing; a path that is a file, or a folder that
cannot be made or written into, is refused before the simulation (or analysis) starts. Every
file is written whole or not at all.

Exit status: 0 success; 2 bad input (missing file, a script without a model or that
raises, a malformed or unknown ``--set``, an output folder that is a file or not writable, a
model error), a failed simulation, a sweep's worker process that died, or an analysis
without an answer (an :class:`mbd.AnalysisError`: no equilibrium, naming the coordinates that
run away), with one message on stderr and no traceback (a failed run still writes the rows
computed); 130 when interrupted (Ctrl-C), after writing the rows computed so far.
"""
import argparse
import os
import signal
import sys

from numba.core import event as ev

from .. import _interrupted_while_starting
from ..model.errors import AnalysisError, InputError, ModelError, SimulationError

# the loading, --set and run-settings rules live in mbd.study.scripts (mbd.sweep uses them too);
# they are part of the command line's face (tests and scripts use them from here)
from ..study.scripts import apply_setting, load_script, model_of, run_settings
from . import analysis as analyses
from . import fmu as exporting
from . import run as running
from . import sweep as sweeping
from .run import INTERRUPTED

__all__ = ["main", "argument_parser", "apply_setting", "load_script", "model_of",
           "run_settings", "InputError"]

def warmup_command(args):
    from ..run import warmup
    jobs = 2 if (os.cpu_count() or 1) >= 2 and os.name != "nt" else 1
    targets = warmup.all_targets()
    print(f"mbd warmup: compiling the {len(targets)} compiled entry points of the run "
          f"stage into numba's cache ({jobs} process{'es' if jobs > 1 else ''}); later runs "
          "load them", flush=True)

    def report(name, seconds, done, total):
        print(f"  [{done:2d}/{total}] {name} ({seconds:.1f} s)", flush=True)

    seconds = warmup.everything(jobs, report)
    missing = [n for n in targets if not warmup.cached(n)]
    if missing:
        print(f"mbd warmup: not cached after {seconds:.1f} s: {missing}", file=sys.stderr)
        return 2
    print(f"mbd warmup: done in {seconds:.1f} s")
    return 0


def argument_parser():
    """The argument parser of the ``mbd`` command: each command module declares its own
    subcommands (and the function that runs each, as ``run``)."""
    parser = argparse.ArgumentParser(prog="mbd", description="3-D multibody dynamics with "
                                     "force elements.", epilog="Exit status: 0 success, 2 bad "
                                     "input, a model error, a failed run or analysis, 130 "
                                     "interrupted.")
    sub = parser.add_subparsers(dest="command", required=True)
    progress = argparse.ArgumentParser(add_help=False)
    progress.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                          help="draw a progress bar on stderr (default: when it is a terminal)")
    setting = dict(action="append", default=[], metavar="NAME.PARAM=VALUE",
                   help="change a parameter by element name before the build: a body's mass, "
                   "a joint's q0/v0, a force law's parameter (gap.c=20), a point of a "
                   "table (stop.table.y2=450); repeatable")
    robot = argparse.ArgumentParser(add_help=False)
    urdf = robot.add_argument_group("a URDF robot (MODEL ending in .urdf)")
    urdf.add_argument("--floating", action="store_true", default=False,
                      help="a free-floating base (a SixDof from the world to the root link) "
                      "instead of the root link fixed as the ground")
    urdf.add_argument("--ground", action="store_true", default=False,
                      help="with --floating: the robot's <collision> geometry touches a floor "
                      "(a plane at z = 0; the default Hertz law, exact friction), its lowest "
                      "point put on the floor at the start")
    urdf.add_argument("--package-dir", action="append", default=[], metavar="DIR",
                      help="a folder holding the package a package://PACKAGE/... mesh path "
                      "names (DIR/PACKAGE/...; the URDF's folder and its parents are searched "
                      "too); repeatable")
    urdf.add_argument("--limits", choices=("stops", "ignore"), default=None,
                      help="joint position limits as end stops (a Bistop per limited joint: "
                      "the default) or not modelled")
    urdf.add_argument("--lock", action="append", default=[], metavar="JOINT[=VALUE]",
                      help="lock a revolute or prismatic joint at VALUE (rad or m; default 0), "
                      "its mimics with it: a massless hand, joints a study holds; repeatable")
    urdf.add_argument("--start", choices=("checked", "inside", "anywhere"), default=None,
                      help="a joint whose start lies outside its <limit>: refused, naming it "
                      "(checked, the default), started at its nearest limit (inside), or "
                      "started there, in its stop, on purpose (anywhere)")
    urdf.add_argument("--no-mimic", action="store_true", default=False,
                      help="read <mimic> joints as joints that move on their own (as "
                      "Pinocchio does) instead of gears")
    running.add_parsers(sub, progress, setting, [robot])
    analyses.add_parsers(sub, setting, [robot])
    sweeping.add_parsers(sub, progress, setting)
    exporting.add_parsers(sub, setting)
    warm = sub.add_parser("warmup", help="compile the kernels into numba's cache now (the first "
                          "run of any model then starts in seconds)")
    warm.set_defaults(run=warmup_command)
    return parser


def entry():
    """The ``mbd`` command and ``python -m mbd``: :func:`main` on the command line's arguments;
    returns its exit status. After Ctrl-C, with the rows and the plot written and closed, the
    process ends at once (``os._exit``): the interpreter's teardown (numba's and VTK's
    libraries, hundreds of MB of rows) would add a second to the answer."""
    code = main()
    if code == INTERRUPTED:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


def main(argv=None):
    """Entry point of the ``mbd`` command; returns the exit status."""
    # from here on Ctrl-C is a KeyboardInterrupt that each command handles (mbd/__init__.py
    # made it a clean exit while the imports ran)
    if signal.getsignal(signal.SIGINT) is _interrupted_while_starting:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    args = argument_parser().parse_args(argv)
    name = f"mbd {args.command}"
    notice = None
    from ..run import progress, warmup
    # like the progress bar: for a person at a terminal (or asked for with --progress)
    if progress.enabled(getattr(args, "progress", None)):
        notice = warmup.tell_first_compile(lambda text: print(text, file=sys.stderr,
                                                              flush=True),
                                           f"{name}: {FIRST_COMPILE}")
    made = _missing_folders(getattr(args, "out", None))
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
    finally:        # a run stopped before it wrote anything leaves no empty folder behind
        if notice is not None:
            ev.unregister("numba:compile", notice)
        for folder in made:
            try:
                os.rmdir(folder)
            except OSError:     # not empty (or gone): kept, and so are its parents
                break


#: what a command says when it starts compiling mbd's kernels (a first run on a machine), where
#: it draws a progress bar (at a terminal, or with --progress)
FIRST_COMPILE = ("compiling the numba kernels this run needs, once on this machine (the demo's "
                 "take about 7 s on 2 idle cores); later runs load them from the cache in a "
                 "second. `mbd warmup` compiles them all ahead of time.")


def _missing_folders(out):
    """The folders of the output path ``out`` that do not exist yet, innermost first (the
    ones a command will make, and remove again if it ends having written nothing)."""
    if out is None:
        return []
    missing, path = [], os.path.abspath(os.fspath(out))
    while not os.path.exists(path) and os.path.dirname(path) != path:
        missing.append(path)
        path = os.path.dirname(path)
    return missing
