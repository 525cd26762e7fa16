"""The first run's compilation, ahead of time and on every core.

numba compiles a kernel the first time it runs and keeps the machine code in its disk cache;
a first run on a new machine therefore compiles the kernels its mechanism needs. This module
knows the compiled entry points of the run stage by name (:data:`TARGETS`) and their argument
types, which are the same for every mechanism (the record formats of :mod:`mbd.compiled.layout`),
so they can be compiled without a mechanism:

- :func:`compile_targets`: compile (or load) named targets in this process;
- :func:`prefetch`: compile, in a second process, the targets a run will need later whose
  cache is missing, while this process compiles the right-hand side (two cores, about half
  the wait); a warm cache starts no process;
- :func:`everything` (``mbd warmup`` on the command line): every target, in two processes,
  with progress.

Everything is only an acceleration: a target a child did not finish is compiled where it is
needed, as without this module.
"""
import os
import select
import subprocess
import sys
import time

import numpy as np
from numba import types
from numba.core import event as numba_event

from ..compiled import (
    articulated,
    events,
    forcekernels,
    kinematics,
    layout,
    loopkernels,
    loopstructure,
    registry,
    rowkernels,
    statekernels,
)
from ..compiled.jit import native
from .steppers import dop853, radau, steplocate, stepping


def _data():
    """A run-stage data of the types every System's has (read-only tree and closures)."""
    tree = layout.records(layout.LINK, 1)
    closures = layout.records(layout.CLOSURE, 0)
    for a in (tree, closures):
        a.setflags(write=False)
    return layout.make_data(tree, layout.records(layout.ELEMENT, 1), closures,
                            layout.records(layout.DRIVER, 0), 1, 1,
                            np.zeros(loopstructure.P_HEADER, dtype=np.int64), 8)


def _signatures():
    """{target name: (function, argument types)}."""
    data = _data()
    d = native.typeof(data)
    f8, i8 = types.float64, types.int64
    y, m = types.float64[::1], types.float64[:, ::1]
    mask = types.boolean[:, ::1]
    records = native.typeof
    tree, links, scratch = records(data.tree), records(data.links), records(data.scratch)
    out = {}
    for rhs in (statekernels.tree_free_world, statekernels.tree_free_link,
                statekernels.tree_forced_world, statekernels.tree_forced_link,
                statekernels.constrained_free, statekernels.constrained_forced,
                statekernels.controlled_tree_world, statekernels.controlled_tree_link,
                statekernels.controlled_constrained, statekernels.tree_patches):
        out[rhs.__name__] = (rhs, (f8, y, y, d))
    out["elements_at"] = (statekernels.elements_at, (y, m, d, i8))
    out["elements_and_locks"] = (statekernels.elements_and_locks, (y, m, d, i8))
    out["elements_and_patches"] = (statekernels.elements_and_patches, (y, m, d, i8))
    out["no_switching"] = (statekernels.no_switching, (y, m, d, i8))
    out["projection"] = (statekernels.projection, (y, d))
    out["no_projection"] = (statekernels.no_projection, (y, d))
    out["kinematics_rows"] = (statekernels.kinematics_rows, (m, d, types.float64[:, :, :, ::1],
                                                   types.float64[:, :, ::1],
                                                   types.float64[:, :, ::1], m))
    out["constraint_forces"] = (statekernels.constraint_forces, (d, y))
    out["near_constraints"] = (statekernels.near_constraints, (y, d, f8))
    # a result's rows (mbd.compiled.rowkernels)
    f3, f4 = types.float64[:, :, ::1], types.float64[:, :, :, ::1]
    index, b1 = types.int64[::1], types.boolean
    out["record_rows"] = (rowkernels.records, (i8, m, f3, f3, index, d, types.uint8[::1],
                                               types.uint8[:, ::1]))
    out["reaction_rows"] = (rowkernels.reactions, (index, y, m, f3, f3, index, f3, index, d,
                                                   index, f3, m, f3, f4, f3, b1, b1))
    out["rotate_rows"] = (rowkernels.rotate, (f3, m, b1, m))
    out["quaternion_rows"] = (rowkernels.quaternions, (f3, m))
    out["transmitted_loads"] = (statekernels.transmitted_loads, (y, y, d, y, y))
    functions = native.typeof(stepping.Functions(0, 0, 0, 0, False, data))
    piece = stepping.piece_arrays(1, np.zeros(1), 1)
    settings = records(layout.records(layout.SETTINGS, 1))
    out["advance"] = (dop853.advance, (functions, native.typeof(dop853.make_work(piece)),
                                        settings))
    out["radau_advance"] = (radau.advance, (functions, native.typeof(radau.make_work(piece)),
                                            settings))
    out["screen"] = (dop853.screen, (functions, native.typeof(dop853.make_work(piece)), i8))
    out["radau_screen"] = (radau.screen, (functions, native.typeof(radau.make_work(piece)), i8))
    context = types.Tuple((i8, i8, i8, f8, f8, y, m, y, m, i8, d))
    out["switching_on_step"] = (steplocate.switching_on_step, (f8, context))
    out["locate_on_step"] = (steplocate.locate_on_step, (i8, context, f8, f8, f8, f8))
    out["dense_value"] = (dop853.dense_value, (f8, f8, f8, y, m, y))
    out["radau_dense_value"] = (radau.dense_value, (f8, f8, f8, y, m, y))
    out["crossed_mask"] = (events.crossed_mask, (mask, m, records(data.mode), mask))
    out["armed"] = (forcekernels.armed, (records(data.elements), records(data.mode), mask))
    out["aba_world"] = (articulated.aba_world, (y, y, tree, links, scratch, y))
    out["aba"] = (articulated.aba, (y, y, tree, links, scratch, y))
    # the kernels Python calls directly (assembly, the laws called alone, mbd.compiled.dynamics)
    out["normalize_quaternions"] = (kinematics.normalize_quaternions, (y, tree, y))
    out["link_transforms"] = (kinematics.link_transforms, (y, tree, links, scratch))
    out["link_velocities"] = (kinematics.link_velocities, (y, y, tree, links, scratch))
    out["constraint_rows"] = (loopkernels.constraint_rows, (y, y, tree, links, scratch,
                                                           records(data.closures),
                                                           records(data.drivers), m, y, y))
    out["closure_rows"] = (loopkernels.closure_rows, (tree, links, scratch,
                                                     records(data.closures), m, y))
    out["retract"] = (loopkernels.retract, (y, y, tree))
    return out


_CACHE = {}

#: the prefixes of a law kind's two targets (``law:elastogap``, ``energies:elastogap``): its
#: kernel entry, which a run's data needs (:func:`mbd.compiled.evaluator.install_laws`),
#: and its energies over rows, which only its results read
LAW, ENERGIES = "law:", "energies:"


def law_targets(system, prefix=LAW):
    """The law kinds' targets (``prefix`` :data:`LAW` or :data:`ENERGIES`) of ``system``'s
    force elements (seals the registry)."""
    return [prefix + registry.kind(c).name for c in sorted({int(c) for c in
                                                             system.elements["law"]})]


def all_targets():
    """Every target: :data:`TARGETS` and every registered law kind's two (seals the
    registry)."""
    return (*TARGETS, *(prefix + k.name for k in registry.kinds() for prefix in (LAW, ENERGIES)))


def functions(name):
    """[(function, argument types)] that target ``name`` compiles."""
    prefix = next((p for p in (LAW, ENERGIES) if name.startswith(p)), None)
    if prefix is None:
        return [signatures()[name]]
    kind = registry.kind(registry.code(name[len(prefix):]))
    if prefix == LAW:
        return [(kind.compiled.element_law, registry.entry_type().args)]
    y, m = types.float64[::1], types.float64[:, ::1]
    return [(kind.compiled.energies, (m, y, m, y))]


def signatures():
    """{target name: (function, argument types)} (worked out once)."""
    if not _CACHE:
        _CACHE.update(_signatures())
    return _CACHE


#: every target, by name
TARGETS = ("tree_free_world", "tree_free_link", "tree_forced_world", "tree_forced_link",
           "constrained_free", "constrained_forced", "controlled_tree_world",
           "controlled_tree_link", "controlled_constrained", "tree_patches", "elements_at",
           "elements_and_locks", "elements_and_patches",
           "no_switching",
           "projection", "no_projection", "kinematics_rows", "constraint_forces",
           "transmitted_loads", "advance", "switching_on_step", "locate_on_step",
           "dense_value", "radau_advance", "radau_dense_value", "screen", "radau_screen",
           "crossed_mask", "armed",
           "normalize_quaternions", "link_transforms",
           "link_velocities", "constraint_rows", "closure_rows", "retract",
           "record_rows", "reaction_rows", "rotate_rows", "quaternion_rows",
           "near_constraints", "aba_world", "aba")

def run_targets(ev, compiled, method="DOP853"):
    """The targets a run of ``ev``'s mechanism needs besides its right-hand side, in the
    compiled loop of ``method`` ("DOP853" or "Radau"; ``compiled``) or in scipy's."""
    elements = bool(ev.system.force_elements)
    loop = "radau_" if method == "Radau" else ""
    names = [loop + "advance", loop + "dense_value"] if compiled else []
    if elements:
        names += ["elements_at", "armed", "crossed_mask"]
        names += ["elements_and_locks"] if ev.system.locks else []
        names += ["elements_and_patches"] if ev.system.patches else []
        names += ["switching_on_step", "locate_on_step", loop + "screen"] if compiled else []
    elif compiled:
        names += ["no_switching"]
    if ev.constrained:
        names += ["projection"] + (["near_constraints"] if compiled else [])
    elif compiled:
        names += ["no_projection"]
    return names


#: the (right-hand side, loop) pairs this process has prepared
_STARTED = set()

#: the tree dynamics each right-hand side variant is made of, compiled first (see below)
_DYNAMICS = {"tree_free_world": "aba_world", "tree_forced_world": "aba_world",
             "controlled_tree_world": "aba_world", "tree_free_link": "aba",
             "tree_forced_link": "aba", "controlled_tree_link": "aba", "tree_patches": "aba"}


def first_right_hand_side(ev, compiled, method="DOP853"):
    """Compile ``ev``'s right-hand side here while a second process compiles the other
    targets of the run (:func:`run_targets`, those missing from the cache), then wait for it:
    a run's first compilation on two cores.

    The work is split so that no kernel is compiled twice (:func:`_plan`): both processes need
    the kinematics and the force elements, which take most of the time; the second process
    starts with them, while this one compiles what only it needs (the articulated-body
    algorithm, the integration loop), then waits for them before it compiles the right-hand
    side, which then loads them from the cache.

    Returns
    -------
    float
        The wall time spent, s, when something had to be compiled; 0.0 when everything came
        from the cache (or this process had prepared such a run before).
    """
    if (ev.rhs, compiled, method) in _STARTED:   # this process has run such a one before
        ev.install_laws()
        return 0.0
    started = time.perf_counter()
    _STARTED.add((ev.rhs, compiled, method))
    targets = run_targets(ev, compiled, method)
    # the law kinds, when the data waits for them: compiled first, by the process with the
    # shorter share (_plan)
    laws = [] if ev.laws_installed else law_targets(ev.system)
    compiling = not all(cached(n) for n in [ev.rhs.__name__, *targets, *laws])
    here, shared, rest = _plan(ev, targets, laws)
    child = prefetch(shared, rest, [n for n in later_targets(ev) if n not in laws])
    if child.process is not None:
        compile_targets(here)
        child.wait(SHARED)
    ev.install_laws()       # loaded from the cache where the second process compiled them
    y = np.zeros(ev.system.nq + ev.system.nv)
    native.entry(ev.rhs, (0.0, y, y, ev.data))
    child.wait(READY)
    return time.perf_counter() - started if compiling else 0.0


def _plan(ev, targets, laws=()):
    """How a first run's compilation is split, from the run's targets besides its right-hand
    side and the law kinds its data waits for (``laws``): (compiled here first, compiled by
    the second process first (this process waits for them before its right-hand side),
    compiled by the second process then).

    Without force elements the processes share only the kinematics (small): this one compiles
    the tree dynamics, the other everything else. With force elements, the force elements'
    kernels (``elements_at``: the measures and the loads, about half the work) are shared
    with the right-hand side: the other process compiles them first, and this one meanwhile
    the tree dynamics and, for the compiled loop, the integration loop, which nothing else
    calls. The law kinds (each in its own functions, called through their addresses:
    :func:`mbd.compiled.evaluator.install_laws`) go where they even the two out: with
    the loop here (the longer share: ~9 s of CPU against ~7 s for ``elements_at``), the
    other process starts with them; on scipy's path (no loop: the tree dynamics, ~4 s, is
    the shorter share) this process compiles them after the tree dynamics.
    """
    dynamics = _DYNAMICS.get(ev.rhs.__name__)
    here = [dynamics] if dynamics else []
    if not ev.system.force_elements:
        return here, list(laws), targets
    loop = [n for n in targets if n.endswith(("advance", "dense_value"))]
    shared = [n for n in targets if n == "elements_at"]
    rest = [n for n in targets if n not in loop and n not in shared]
    if loop:
        return here + loop, list(laws) + shared, rest
    return here + list(laws), shared, rest


def cached(name):
    """Whether target ``name``'s machine code is in numba's disk cache (or already loaded).
    Relies on numba's cache internals; on any doubt it answers True (nothing to prefetch)."""
    return all(_cached(function, args) for function, args in functions(name))


def _cached(function, args):
    if tuple(args) in function.overloads:
        return True
    try:
        cache = function._cache
        key = cache._index_key(tuple(args), function.targetctx.codegen())
        return key in cache._cache_file._load_index()
    except Exception:       # numba's internals moved: behave as without prefetching
        return True


def compile_targets(names, report=None):
    """Compile (or load from the cache) the targets ``names`` in this process; ``report(name,
    seconds)`` after each."""
    for name in names:
        started = time.perf_counter()
        for function, args in functions(name):
            function.compile(tuple(args))
        if report:
            report(name, time.perf_counter() - started)


def later_targets(ev):
    """What a first run's second process compiles after the run's own targets: the kernels
    of ``ev``'s results (its bodies' motion, rotated rows; its force elements' records and
    their kinds' energies)."""
    elements = (["record_rows", *law_targets(ev.system), *law_targets(ev.system, ENERGIES)]
                if ev.system.force_elements else [])
    return ["kinematics_rows", "rotate_rows", *elements]

#: the lines a child prints when the targets its parent's right-hand side shares are compiled
#: (SHARED), then when the run's own targets are (READY)
SHARED, READY = "shared", "ready"


#: the compiling children still at work after their parent stopped listening (they go on
#: with the later targets by themselves): held here until they end, so that none is
#: dropped while it runs (Python would warn, and could not collect its exit status)
_RUNNING = []


class Prefetch:
    """A child process compiling targets (see :func:`prefetch`)."""

    def __init__(self, process):
        self.process = process
        self.seen = set()
        _RUNNING[:] = [p for p in _RUNNING if p.poll() is None]
        if process is not None:
            _RUNNING.append(process)

    def wait(self, line=READY, timeout=300.0):
        """Wait until the child has printed ``line`` (:data:`SHARED` or :data:`READY`; at most
        ``timeout`` s; after READY it goes on with the later targets by itself); whatever it did
        not finish is compiled where it is needed."""
        deadline = time.perf_counter() + timeout
        while self.process is not None and line not in self.seen:
            ready, _, _ = select.select([self.process.stdout], [], [],
                                        max(0.0, deadline - time.perf_counter()))
            said = self.process.stdout.readline().strip() if ready else ""
            self.seen.add(said)
            if said in ("", READY):      # done, gone or too slow: stop listening
                self.seen.update((SHARED, READY))
                self.process.stdout.close()


#: the folder holding the mbd package this process imported (this file is
#: mbd/run/warmup.py)
PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _child_environment():
    """The environment of a compiling child: the same law kinds as this process (hence the
    same generated modules and cache keys)."""
    return dict(os.environ, MBD_PREFETCH="0",
                **{registry.MODULES: ",".join(registry.modules())})


def child_command(*args):
    """The command of a compiling child: it runs :func:`main` of this very mbd, wherever it
    was imported from. Not ``python -m mbd.run.warmup``: ``-m`` puts the working folder first
    on the path, so a child started in a clone's root would import the clone's copy while
    this process imported the installed one (and runpy would warn that the module was
    imported before it ran)."""
    # Ctrl-C at the terminal reaches the children too: they end quietly (numba writes a
    # cache file whole or not at all)
    code = (f"import signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
            f"sys.path.insert(0, {PACKAGE_ROOT!r}); "
            "from mbd.run.warmup import main; sys.exit(main())")
    return [sys.executable, "-c", code, *args]


def prefetch(shared, rest=(), later=()):
    """Start compiling, in a second process, the targets ``shared`` whose cache is missing,
    then (after printing :data:`SHARED`) those of ``rest``, then (after :data:`READY`)
    those of ``later``, and return a :class:`Prefetch` to wait for (nothing starts when all
    are cached, on a machine with one core, on Windows, where a pipe cannot be waited on with
    a timeout, or with ``MBD_PREFETCH=0``)."""
    if (os.environ.get("MBD_PREFETCH", "1") == "0" or (os.cpu_count() or 1) < 2
            or os.name == "nt"):
        return Prefetch(None)
    first, then, later = ([n for n in group if not cached(n)]
                          for group in (shared, rest, later))
    if not first and not then and not later:
        return Prefetch(None)
    env = _child_environment()
    try:
        process = subprocess.Popen(child_command(*first, "--then", *then, "--later", *later),
                                   env=env,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, text=True)
    except OSError:
        return Prefetch(None)
    return Prefetch(process)


#: the targets of ``mbd warmup`` in two groups of about equal work, for two processes (each
#: starts with what the other does not need, so their shared kernels are compiled once); the
#: law kinds' targets go with the second
GROUPS = (("aba_world", "tree_free_world", "tree_forced_world", "constrained_free",
           "constrained_forced", "controlled_tree_world", "controlled_constrained", "projection",
           "no_projection", "advance", "dense_value",
           "switching_on_step", "locate_on_step", "screen", "constraint_forces",
           "transmitted_loads", "near_constraints", "reaction_rows", "rotate_rows",
           "quaternion_rows"),
          ("aba", "tree_free_link", "elements_at", "elements_and_locks", "tree_forced_link",
           "controlled_tree_link", "tree_patches", "elements_and_patches",
           "radau_advance", "radau_dense_value", "radau_screen", "no_switching", "armed",
           "crossed_mask", "kinematics_rows", "normalize_quaternions", "link_transforms",
           "link_velocities", "constraint_rows", "closure_rows", "retract", "record_rows"))


def everything(jobs=2, report=None):
    """Compile every target in ``jobs`` (1 or 2) processes; ``report(name, seconds, done,
    total)`` after each. Returns the seconds it took."""
    started = time.perf_counter()
    laws = [prefix + k.name for k in registry.kinds() for prefix in (LAW, ENERGIES)]
    total = len(TARGETS) + len(laws)
    count = [0]

    def tell(name, seconds):
        count[0] += 1
        if report:
            report(name, seconds, count[0], total)

    if jobs < 2:
        compile_targets(all_targets(), tell)
        return time.perf_counter() - started
    env = _child_environment()
    children = [subprocess.Popen(child_command("--report", *group), env=env,
                                 stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 text=True) for group in (GROUPS[0], GROUPS[1] + tuple(laws))]
    open_ = {c.stdout: c for c in children}
    while open_:
        ready, _, _ = select.select(list(open_), [], [])
        for stream in ready:
            line = stream.readline()
            if not line:
                open_.pop(stream).wait()
            elif line.startswith("compiled "):
                _, name, seconds = line.split()
                tell(name, float(seconds))
    return time.perf_counter() - started


def main(argv=None):
    """A compiling child (:func:`child_command`; ``python -m mbd.run.warmup`` too):
    ``[--report] NAME ... [--then NAME ...] [--later NAME ...]``:
    compile the named targets (``--report``: a line ``compiled NAME SECONDS`` after each),
    print SHARED and compile those after ``--then``, print READY, then compile the later
    ones (every target without names)."""
    argv = sys.argv[1:] if argv is None else argv
    report = None
    if argv[:1] == ["--report"]:
        argv = argv[1:]

        def report(name, seconds):
            print(f"compiled {name} {seconds:.3f}", flush=True)
    argv, later = _split(argv, "--later")
    first, then = _split(argv, "--then")
    ordered = all_targets()
    known = set(ordered)
    if not (first or then or later):
        first = list(ordered)
    for names, line in ((first, SHARED), (then, READY)):
        compile_targets([n for n in names if n in known], report)
        try:
            print(line, flush=True)
        except (BrokenPipeError, OSError):    # the parent stopped listening: compile on
            pass
    compile_targets([n for n in later if n in known])
    return 0


#: the top-level packages and generated modules whose compilation :func:`tell_first_compile`
#: reports (a user's own numba functions are not mbd's first run)
OWN_MODULES = ("mbd", "forces", "joints", "viz", "mbd_kind_")


class _FirstCompile(numba_event.Listener):
    """numba's ``numba:compile`` events (a compilation, not a load from the cache): the first
    of one of mbd's kernels calls ``write(text)``, once."""

    def __init__(self, write, text):
        self.write, self.text, self.told = write, text, False

    def on_start(self, event):
        if self.told:
            return
        module = getattr(getattr(event.data.get("dispatcher"), "py_func", None), "__module__",
                         "") or ""
        if module.split(".")[0] in OWN_MODULES or module.startswith(OWN_MODULES[-1]):
            self.told = True
            self.write(self.text)

    def on_end(self, event):
        pass


def tell_first_compile(write, text):
    """From now on, the first time this process compiles one of mbd's kernels (its cache does
    not hold them: a machine's first run, or the first after mbd changed), call
    ``write(text)`` once; loads from the cache say nothing. The command line says at once that
    the wait is the compilation (a cold ``mbd demo`` would otherwise print nothing for its
    first seconds). Returns the listener (``numba.core.event.unregister("numba:compile",
    listener)`` removes it)."""
    listener = _FirstCompile(write, text)
    numba_event.register("numba:compile", listener)
    return listener


def _split(argv, option):
    """(names before ``option``, names after it)."""
    if option in argv:
        k = argv.index(option)
        return argv[:k], argv[k + 1:]
    return argv, []


if __name__ == "__main__":
    sys.exit(main())
