"""``mbd demo``, ``mbd run`` and ``mbd check``: simulate a model (a model script, or a robot
from its URDF), write its CSV, plot and animation, print the summary (a failed or interrupted
run writes the rows it computed)."""
import os
import shutil
import sys
import tempfile
import threading
import time

import numpy as np

from ..model.errors import SimulationError
from ..model.files import atomic_open
from ..study.scripts import output_folder, run_settings
from .common import is_urdf, load, written

#: exit status of an interrupted run (128 + SIGINT, as shells report it)
INTERRUPTED = 130
#: the most values (rows x columns) a run that stopped early still writes as a CSV: its text
#: costs ~0.4 s a million values (np.savetxt, measured), and Ctrl-C must end within a second;
#: a larger table goes to a .npz, written at disk speed
QUICK_CSV_VALUES = 500_000
#: the most rows the plot of a run that stopped early draws (evenly spaced, the last kept)
QUICK_PLOT_ROWS = 4000
#: the output rows from which a run's rows are written to disk as it goes (simulate's
#: ``rows_to``): copying and writing that many after a Ctrl-C would take longer than a second
#: (about 0.25 s a million rows, benchmarks/INTERRUPT.md)
SPILL_ROWS = 500_000


def _write_outputs(result, out, name, animate, lines, page=False, contacts=False,
                   collisions=False):
    """CSV and PNG (and the GIF, and the web page) into ``out``; appends the summary lines.
    ``contacts`` and ``collisions``: the GIF and the page draw the touching contact points
    and their forces, and the contact shapes not drawn otherwise (a robot's collision
    geometry).

    The CSV first (the results: a Ctrl-C after it leaves them whole); then the plot in a
    thread of its own while this one writes the web page and renders the GIF: matplotlib
    works on Python and VTK's renders let go of the GIL, so side by side they take about the
    GIF's time (the demo: 4.4 s against 5.5 s one after the other). The lines come in the
    files' order whichever ends first.
    """
    csv = written(result.to_csv, os.path.join(out, f"{name}.csv"))
    lines.append(f"  results: {csv} ({len(result.t)} rows)")
    plotting, png = None, os.path.join(out, f"{name}.png")
    if len(result.t) >= 2:
        from viz.plots import plot
        plotting = _Background(written, lambda path: plot(result, path), png)
    animation = web = None      # their summary lines
    # only the options asked for, the others left to the renderers' defaults
    drawing = {key: True for key, on in (("contacts", contacts), ("collisions", collisions))
               if on}
    try:
        if page:
            html = os.path.join(out, f"{name}.html")
            try:
                from viz.webpage import html as write_page
                write_page(result, html, **drawing)
            except Exception as err:   # as the GIF: the results written stay
                web = f"  web page: skipped, {type(err).__name__}: {err}"
            else:
                web = f"  web page: {html} (open it in a browser: turn, scrub, play)"
        if animate:
            gif = os.path.join(out, f"{name}.gif")
            try:
                from viz.render import animate as render
                render(result, gif, fps=15, size=(800, 600), progress=None, **drawing)
            except Exception as err:   # a missing renderer must not lose the results written
                animation = f"  animation: skipped, {type(err).__name__}: {err}"
            else:
                animation = f"  animation: {gif}"
    finally:     # the plot is waited for, a Ctrl-C above included (it takes about a second)
        if plotting is not None:
            plotting.wait()
            lines.append(f"  plot: {png}")
        lines += [line for line in (animation, web) if line is not None]


def _methods(stats):
    """The method of a run, and for method "auto" every change of method and where:
    'auto (DOP853; Radau from t = 0.143 s; DOP853 from t = 0.52 s)'."""
    method = stats["method"]
    switches = stats.get("switches")
    if method != "auto" or not stats.get("methods"):
        return method
    changes = "".join(f"; {to} from t = {t:.6g} s" for t, to in switches or ())
    return f"auto ({stats['methods'][0]}{changes})"


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
           f"  simulated {result.t[-1]:g} s in {spent} with {_methods(stats)}: "
           f"{stats['nsteps']} steps, {stats['nfev']} right-hand-side evaluations",
           f"  events: {len(result.events)}"]
    for e in result.events[:10]:
        out.append(f"    t = {e.t:.9g} s  {e.element}: {e.what}")
    if len(result.events) > 10:
        out.append(f"    ... and {len(result.events) - 10} more; by element (a contact's "
                   "points together), most first:")
        counts = result.event_counts()
        out += [f"      {name}: {count}" for name, count in counts[:10]]
        if len(counts) > 10:
            out.append(f"      ... and {len(counts) - 10} more elements")
    out += _controls(system)
    balance = result.energy_balance()
    # on a line of its own: dissipated (passive elements) and supplied (sources) apart
    out.append(f"  energy balance over the run (rtol {stats['rtol']:g}), each term its change "
               "since the start:")
    out += [f"    {line}" for line in (balance.summary(), *balance.lines())]
    return out + lines


def _simulate_and_write(command, system, out, animate, progress, t_end, page=False,
                        contacts=False, collisions=False, **options):
    """Simulate, write the files, print the summary; a failed or interrupted run writes its
    partial result and reports it."""
    out = output_folder(out)
    # the plot is drawn after any run, whole or stopped: matplotlib is loaded now, not after
    # a Ctrl-C, which must be answered within a second (loading it takes most of one)
    import viz.plots  # noqa: F401
    # a long run's rows go to disk as the run makes them: a Ctrl-C far in then only names
    # them, where copying and writing them would take seconds
    rows_to = (tempfile.mkdtemp(prefix=f".{system.name}.rows-", dir=out)
               if t_end / options["output_step"] >= SPILL_ROWS else None)
    started = time.perf_counter()
    try:
        result = system.simulate(t_end, progress=progress, rows_to=rows_to, **options)
    except SimulationError as err:
        interrupted = isinstance(err.__cause__, KeyboardInterrupt)
        partial = err.result
        msg = f"mbd {command}: {'interrupted' if interrupted else 'the simulation failed'}: {err}"
        if partial is not None and len(partial.t):
            # one full stop between the failure's sentences and what was written
            msg = f"{msg.rstrip('.')}. {_write_partial(partial, out, system.name, rows_to)}"
        _drop(rows_to)
        print(msg, file=sys.stderr)
        return INTERRUPTED if interrupted else 2
    wall = time.perf_counter() - started
    lines = []
    try:
        _write_outputs(result, out, system.name, animate, lines, page, contacts, collisions)
    except KeyboardInterrupt:
        # Ctrl-C while the files are written (a long run's CSV takes seconds): what is
        # written stays, and the rows are still saved, quickly, when they were not
        done = "; ".join(line.strip() for line in lines)
        rest = ("The rest was not written." if any("results:" in line for line in lines)
                else _write_partial(result, out, system.name, rows_to))
        print(f"mbd {command}: interrupted while writing the results"
              + (f" ({done})" if done else "") + f". {rest}", file=sys.stderr)
        return INTERRUPTED
    finally:
        _drop(rows_to)
    print("\n".join(_summary(command, system, result, wall, lines)))
    return 0


def _drop(folder):
    """Remove a run's rows folder (simulate's ``rows_to``) where it is still there (kept as
    the rows of a stopped run, it was renamed). A Result still reading its files keeps them
    until it is gone (on Windows, where they cannot be removed while open, they stay)."""
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def _holds_rows(folder, rows):
    """Whether simulate's ``rows_to`` folder holds the run's ``rows`` (its writing did not
    fail)."""
    try:
        return np.load(os.path.join(folder, "t.npy"), mmap_mode="r").shape == (rows,)
    except (OSError, ValueError):
        return False


def _keep_rows(partial, folder, out, name):
    """A stopped run's rows, written to ``folder`` as it ran (simulate's ``rows_to``), kept
    as ``<out>/<name>.rows``, with the event log beside them (``events.npz``, as
    :meth:`mbd.Result.to_npz` writes it); an earlier folder of that name is replaced.
    Returns its path."""
    with atomic_open(os.path.join(folder, "events.npz"), "wb") as fh:
        np.savez(fh, **partial.event_arrays())
    kept = os.path.join(out, f"{name}.rows")
    if os.path.isdir(kept):
        shutil.rmtree(kept)
    os.replace(folder, kept)
    mask = os.umask(0)          # mkdtemp's folder is the owner's alone: as any new folder
    os.umask(mask)
    os.chmod(kept, 0o777 & ~mask)
    return kept


def _write_partial(partial, out, name, rows_to=None):
    """Write the rows of a run that stopped early, quickly (Ctrl-C must end within a second):
    the CSV when it is small (:data:`QUICK_CSV_VALUES`); else, where the run wrote them to
    ``rows_to`` as it went (a long run), that folder kept as ``<name>.rows`` with the event
    log beside them; else the state rows (t, q, v, work) and the event log as a .npz (the
    CSV of a long run takes seconds), written in a thread while the plot of at most
    :data:`QUICK_PLOT_ROWS` of the rows is drawn. A second Ctrl-C
    stops the plot and the CSV; a .npz begun is finished (a fraction of a second). The files
    written are whole (each is written to a temporary file and renamed). Returns what to tell
    the user."""
    done, saving = [], None
    s = partial.system
    # the CSV's columns, counted (working them out is what takes long): time, q and v, the
    # CGs, the energies, the works
    count = (1 + s.nq + s.nv + 3 * len(s.bodies) + 2
             + (partial.work.shape[1] if partial.work is not None else 0))
    rows = len(partial.t)
    interrupted = False
    try:
        if rows * count <= QUICK_CSV_VALUES:
            path = written(partial.to_csv, os.path.join(out, f"{name}.csv"))
            done.append(f"The {rows} rows computed were written to {path}")
        elif rows_to is not None and _holds_rows(rows_to, rows):
            path = written(lambda p: _keep_rows(partial, rows_to, out, name), rows_to)
            done.append(f"The {rows} rows computed were written to {path}{os.sep} (t.npy, "
                        f"q.npy, v.npy, work.npy: the state as the run wrote it, and "
                        f"events.npz, the event log; a CSV of {rows} x {count} values takes "
                        f"seconds to work out and write)")
        else:
            # the .npz mostly waits on the disk (numpy's copies, zlib's CRC and the writes
            # let go of the GIL), the plot on Python: side by side they take the longer's time
            npz = os.path.join(out, f"{name}.npz")
            saving = _Background(written, lambda p: partial.to_npz(p, columns=False), npz)
        if rows >= 2:
            from viz.plots import plot
            png = os.path.join(out, f"{name}.png")
            written(lambda path: plot(_thinned(partial, QUICK_PLOT_ROWS), path), png)
            done.append(f"their plot to {png}")
    except KeyboardInterrupt:
        interrupted = True
    finally:     # the rows first, even where the plot failed
        if saving is not None:
            path = saving.wait()
            done.insert(0, f"The {rows} rows computed were written to {path} (the state: t, "
                           f"q, v, work, and the event log; a CSV of {rows} x {count} values "
                           "takes seconds to work out and write)")
    if interrupted:
        done.append("interrupted again while writing: the rest was not written")
    text = "; ".join(done) + "."
    return text[0].upper() + text[1:]      # a sentence of its own, after the failure's


class _Background:
    """``work(*args)`` in a thread of its own, begun at once; :meth:`wait` returns what it
    returned, or raises what it raised."""

    def __init__(self, work, *args):
        self.outcome = None

        def run():
            try:
                self.outcome = (True, work(*args))
            except BaseException as err:      # handed to the waiting thread
                self.outcome = (False, err)
        self.thread = threading.Thread(target=run, name="mbd-save", daemon=True)
        self.thread.start()

    def wait(self):
        self.thread.join()
        ok, value = self.outcome
        if not ok:
            raise value
        return value


def _thinned(result, most):
    """``result`` with at most ``most`` of its rows, evenly spaced, the first and last kept (a
    Result of the same run: its events, stats and branches)."""
    if len(result.t) <= most:
        return result
    keep = np.unique(np.linspace(0, len(result.t) - 1, most).round().astype(int))
    # those rows alone are copied (and their branches looked up), not the whole table
    return type(result).of_parts(
        result.system, result.t[keep], result.q[keep], result.v[keep],
        None if result.work is None else result.work[keep], result.controller_states[keep],
        events=result.events, stats=result.stats, sides=result.sides_of(keep),
        controls=result.controls)


def demo_command(args):
    from . import demo
    system = demo.build_model().build()
    t_end, options = run_settings(demo)
    return _simulate_and_write("demo", system, args.out, True, args.progress, t_end, page=True,
                               **options)


def run_command(args):
    module, model, applied = load(args)
    system = model.build()
    t_end, options = run_settings(module, args.t_end)
    if args.max_steps is not None:
        options["max_steps"] = args.max_steps
    if applied:
        print("settings: " + ", ".join(applied))
        sys.stdout.flush()
    return _simulate_and_write("run", system, args.out, args.animate, args.progress, t_end,
                               page=args.html, contacts=args.contacts,
                               collisions=args.collisions, **options)


def check_command(args):
    _, model, applied = load(args)
    system = model.build()
    lines = [f"mbd check: {args.model}: the model builds"]
    if system.description.strip():   # free text: its further lines indented under the first
        lines.append("description: " + system.description.strip().replace("\n", "\n  "))
    if applied:
        lines.append("settings: " + ", ".join(applied))
    if is_urdf(args.model):
        lines.append(_urdf_line(args, model))
    lines.append(system.report())
    lines.append(f"  force elements: {len(system.force_elements)}")
    for fe in system.force_elements:
        lines.append(f"    {_describe(fe)}")
    lines += _controls(system)
    print("\n".join(lines))
    return 0


def _urdf_line(args, model):
    """The report's line on a robot read from a URDF: its base, limits and picture shapes."""
    shapes = [shape for body in model.bodies for shape, _ in body.shapes]
    shapes += [shape for ground in model.grounds for shape in getattr(ground, "shapes", ())]
    meshes = sum(type(shape).__name__ == "Mesh" for shape in shapes)
    locked = (f", joints locked: {', '.join(args.lock)}" if getattr(args, "lock", None)
              else "")
    mimic = ", mimics as free joints" if getattr(args, "no_mimic", False) else ""
    start = f", start: {args.start}" if getattr(args, "start", None) else ""
    moved = getattr(model, "urdf_moved", [])
    moved = ("; outside their limits at the URDF's start, started at the nearest limit: "
             + ", ".join(f"{name} from {q:.6g} to {limit:.6g}" for name, q, limit in moved)
             if moved else "")
    return (f"  read from the URDF: {'a floating' if args.floating else 'a fixed'} base, "
            f"limits: {args.limits or 'stops'}{locked}{mimic}{start}, {len(shapes)} visual "
            f"shapes ({meshes} meshes) for the pictures{moved}")


def _controls(system):
    """The report's lines on the sensors, inputs and controllers (none without them)."""
    if not system.controls:
        return []
    return ([f"  sensors, inputs and controllers: {len(system.controls)}"]
            + [f"    {c.describe()}" for c in system.controls])


def _describe(fe):
    return f"{fe.label()}: {fe.parameters_text()}"


#: the help of the model argument of the commands that take a model script or a URDF
MODEL_HELP = ("Python file defining build_model() -> mbd.Model (an example: "
              "examples/pendulum.py), or a robot description NAME.urdf (read by mbd.from_urdf)")


def add_parsers(sub, progress, setting, robot=()):
    """The ``demo``, ``run`` and ``check`` subcommands of ``sub`` (``progress``: the parent
    parser of ``--progress``; ``setting``: the arguments of ``--set``; ``robot``: the parent
    parsers of the URDF options)."""
    demo = sub.add_parser("demo", parents=[progress],
                          help="simulate the built-in demo mechanism and write its results "
                          "(CSV, PNG, GIF and a web page)")
    demo.add_argument("--out", default="mbd-out", help="output folder (default: mbd-out)")
    demo.set_defaults(run=demo_command)

    run = sub.add_parser("run", parents=[progress, *robot], help="simulate a model script "
                         "or a URDF robot and write its results (CSV, PNG, optionally a GIF)")
    run.add_argument("model", help=MODEL_HELP)
    run.add_argument("--t-end", type=float, default=None,
                     help="end time, s (default: the script's T_END, else 5)")
    run.add_argument("--out", default="mbd-out", help="output folder (default: mbd-out)")
    run.add_argument("--max-steps", type=int, default=None, metavar="N",
                     help="the run's step budget (simulate's max_steps; default 1000000): "
                     "a long run that needs more fails early, saying how many")
    run.add_argument("--animate", action="store_true", help="also write an animated GIF")
    run.add_argument("--contacts", action="store_true",
                     help="with --animate or --html: draw the contact points touching and "
                     "their forces")
    run.add_argument("--collisions", action="store_true",
                     help="with --animate or --html: also draw the contact shapes not drawn "
                     "otherwise (a robot's collision geometry), see-through orange")
    run.add_argument("--html", action="store_true",
                     help="also write a web page of the run (one HTML file: turn it around, "
                     "scrub, play; any browser, no network)")
    run.add_argument("--set", **setting)
    run.set_defaults(run=run_command)

    check = sub.add_parser("check", parents=[*robot], help="build a model script or a URDF "
                           "robot and report its structure (machines, DOF, loops, redundant "
                           "constraints, force elements)")
    check.add_argument("model", help=MODEL_HELP)
    check.add_argument("--set", **setting)
    check.set_defaults(run=check_command)
