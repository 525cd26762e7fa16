"""Studies: many runs of one model (SPEC §7), on this machine's cores or on a Dask cluster.

:func:`sweep` runs a model script (or a function returning a Model) once per case of a grid —
a full-factorial grid of override values, or a given list of cases — and gathers named scalar
outputs of every run into one table. The runs are independent and each is exactly the run a
plain loop would make::

    model = build_model(); apply the case's overrides; system = model.build()
    result = system.simulate(t_end, **options)

so a sweep's numbers are those of the loop, bit for bit on one machine. Where they run:

- ``scheduler=None``: a pool of worker processes on this machine (as many as cores);
- ``scheduler="tcp://host:8786"`` or a ``dask.distributed.Client``: that Dask cluster (the
  optional extra ``pip install 'mbd[cluster]'``; nothing of Dask is imported otherwise).

Workers build the model themselves from the script's text (or the pickled function) and the
case's overrides; no System is shipped. The compiled kernels are made ready once: in this
process before local workers start (they then load them from numba's disk cache), and on a
cluster once per host before the runs, so N runs do not pay N compilations.

Nothing is lost. A run that fails is a row whose ``status`` is its error message (its partial
result is kept); the others go on. With ``out``, the table (``sweep.csv``) is rewritten whole
after every finished run, and each run's full result is ``runs/<run>.npz`` beside it
(:meth:`mbd.Result.to_npz`: every CSV column under its own name, ``q``, ``v`` and the events);
a second sweep into the same folder skips the runs it finds there
(keyed by their parameters), so an interrupted study resumes where it stopped.
"""
from __future__ import annotations

import concurrent.futures
import io
import multiprocessing
import numbers
import os
import pickle
import threading
import time
from typing import TYPE_CHECKING

from ..model import validate
from ..model.errors import InputError, ModelError, SimulationError
from ..model.files import atomic_open
from ..run import progress as progressbar
from ..run import warmup
from ..run.evaluator import Evaluator
from ..run.simulate import METHODS
from . import scripts
from .cases import Source, cases, fingerprint, parameter_name, run_key
from .outputs import outputs_of
from .table import LEADING, OK, RUNS, TRAILING, Table, cell, manifest
from .units import study_units

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any

    import pandas
    from dask.distributed import Client

    from ..model.builder import Model
    from ..run.result import Result

#: the least wall time between two rewrites of the table on disk while runs finish, s
TABLE_INTERVAL = 0.5
#: how long connecting to a Dask scheduler given by its address may take
CONNECT_TIMEOUT = "10s"


class WorkerDied(RuntimeError):
    """A local worker process ended without reporting (killed, out of memory, ``os._exit``
    in a model, or it could not start); the runs finished before are in the table."""


# ----------------------------------------------------------------------------- one run

def run_case(job):
    """One run of a sweep, where it is executed (a worker).

    Parameters
    ----------
    job : dict
        ``source`` (:class:`Source`), ``names``, ``values``, ``t_end``, ``options`` (for
        ``simulate``), ``outputs`` ([:class:`Output`]), ``keep`` (return the result as .npz
        bytes), ``run`` (its key).

    Returns
    -------
    dict
        ``run``, ``status`` ("ok" or the error's message), ``outputs`` {column: float; nan
        for a failed run}, ``t_reached`` (s: the end, or the time a failure names; nan when
        it never started), ``wall_s`` (building and simulating, s) and ``npz`` (bytes or
        None).
    """
    started = time.perf_counter()
    outputs = {o.column: float("nan") for o in job["outputs"]}
    result, status, reached = None, OK, None
    try:
        model = job["source"].model()
        for name, value in zip(job["names"], job["values"]):
            element, param = parameter_name(name)
            scripts.apply_override(model, element, param, value, f"sweep: {name} = {value}")
        system = model.build()
        result = system.simulate(job["t_end"], **job["options"])
        # all or none: a failed run's outputs are nan, even those worked out before the failure
        outputs.update({o.column: o.of(result) for o in job["outputs"]})
    except SimulationError as err:
        status, result, reached = _message(err), err.result, err.t
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as err:       # a model that cannot be built, an output that fails
        status = _message(err)
    wall = time.perf_counter() - started
    npz = None
    # a run that failed before its first row has nothing to keep (and an empty Result has no
    # columns to work out)
    if job["keep"] and result is not None and len(result.t):
        buffer = io.BytesIO()
        result.to_npz(buffer)
        npz = buffer.getvalue()
    if reached is None:      # a finished run, or a failure that names no time: its last row
        reached = result.t[-1] if result is not None and len(result.t) else float("nan")
    t_reached = float(reached)
    return {"run": job["run"], "status": status, "outputs": outputs, "t_reached": t_reached,
            "wall_s": wall, "npz": npz}


def _message(err):
    text = f"{type(err).__name__}: {err}".strip()
    return text or type(err).__name__


def prepare(source, t_end, options):
    """Load the model and compile (or load from the cache) the kernels its runs need, in this
    process; returns the seconds it took. Run once per worker before its first case."""
    started = time.perf_counter()
    system = source.model().build()
    method = options.get("method", "DOP853")
    method = method if isinstance(method, str) else getattr(method, "__name__", "")
    compiled = options.get("compiled")
    compiled = (method in ("DOP853", "Radau")) if compiled is None else compiled
    ev = Evaluator(system)
    warmup.first_right_hand_side(ev, compiled=bool(compiled), method=method)
    # load what the helper process compiled here too, so that forked workers inherit it
    # rather than each loading it from the cache in its first run
    warmup.compile_targets([*warmup.run_targets(ev, bool(compiled), method),
                             *warmup.later_targets(ev)])
    return time.perf_counter() - started


# ----------------------------------------------------------------------------- the sweep

def sweep(model_source: str | os.PathLike | Callable[[], Model],
          grid: Mapping[str, Sequence] | Sequence[Mapping[str, object]],
          t_end: float | None = None,
          outputs: Mapping[str, str | Callable[[Result], float]] | None = None,
          scheduler: str | Client | None = None, out: str | os.PathLike | None = None,
          workers: int | None = None, progress: bool | None = None, retry_failed: bool = False,
          **options: Any) -> pandas.DataFrame:
    """Run a model once per case of ``grid`` and tabulate named outputs (SPEC §7).

    Parameters
    ----------
    model_source : str, path-like or callable
        A model script (as for ``mbd run``: ``build_model()``, ``T_END`` ...), or a picklable
        function returning an :class:`mbd.Model` (defined at a module's top level).
    grid : dict or list of dict
        ``{"strap.k": [50, 100], "hinge.q0": [0, 0.2]}``: every combination (full factorial,
        the first name varying slowest); or ``[{"strap.k": 50.3, ...}, ...]``: given cases
        (e.g. Monte-Carlo samples). Names are overrides as for ``--set``: a body's ``mass``,
        a joint's ``q0``/``v0`` (a tuple for several coordinates), a force element's law
        parameter or its own (``strap.k``), a point of a table (``stop.table.y2``).
    t_end : float, optional
        End time of every run, s (default: the script's ``T_END``; required for a function).
    outputs : dict, optional
        {column: "REDUCTION:QUANTITY" or function(result) -> float}: see :class:`Output`.
    scheduler : None, str or dask.distributed.Client
        None: worker processes on this machine; an address ("tcp://host:8786") or a Client:
        that Dask cluster.
    out : str, optional
        A folder: ``sweep.csv`` (updated as runs finish), ``sweep.json`` (what the study is:
        the model with a hash of its script's text or its function's source, t_end, the
        options, the outputs, and the columns' units) and ``runs/<run>.npz`` (each run's
        result, a failed one's partial result: every CSV column under its own name, e.g.
        ``data["hinge.q"]``, see :meth:`mbd.Result.to_npz`). A folder the sweep makes gets a
        ``.gitignore`` of ``*``: a study run inside a git checkout does not show in ``git
        status``. A sweep into a folder holding the same study runs only the cases not done
        there; a folder holding another study is refused. (Edits of modules the script
        imports are not seen: empty the folder after such an edit.)
    workers : int, optional
        Local worker processes (default: the number of cores; never more than the runs);
        refused with a ``scheduler``, whose cluster has its own workers.
    progress : bool or None
        A bar counting runs on stderr (None: when stderr is a terminal).
    retry_failed : bool
        Run again the cases that failed in an earlier sweep into ``out`` (by default a
        failed run is done: the same model fails the same way).
    **options
        ``simulate`` options for every run (``rtol``, ``atol``, ``output_step``, ``method``
        ...), over the script's ``OUTPUT_STEP``/``RTOL``/``ATOL``.

    Returns
    -------
    pandas.DataFrame
        One row per case, in case order: the parameters (columns named as in ``grid``),
        ``run`` (its key), ``status`` ("ok" or the error's message), the outputs (nan for a
        failed run), ``t_reached`` (s), ``wall_s`` (the run's own build and simulation, s)
        and ``result`` (its .npz file in ``out``, relative; "" without ``out``).
        ``.attrs``: ``ran`` (runs made by this call), ``reused`` (found in ``out``),
        ``failed``, ``wall_s`` (the whole sweep), ``prepare_s`` (compiling or loading the
        kernels in this process before the runs; spawned workers load them again from the
        cache before their first case, which no run's ``wall_s`` counts), ``units``
        ({column: unit} of the parameters, outputs and timing columns, "" where unknown:
        see :mod:`mbd.study.units`; ``sweep.json`` in ``out`` holds them too), which
        :func:`viz.plot_study` puts on its axes.

    Raises
    ------
    InputError
        Before any run: ``workers`` with a ``scheduler``, a malformed grid, a name that is
        not an element's parameter, a value the element refuses, an output that names
        nothing, an ``out`` holding another study.
    TypeError, ValueError
        Before any run: ``simulate`` options it refuses (as ``simulate`` words them).
    WorkerDied
        A local worker process ended without reporting (killed, out of memory, a model that
        ends its process): the runs finished before are in the table on disk; the same
        sweep into the same ``out`` resumes.

    Examples
    --------
    A full-factorial grid over a script's spring and start angle, on this machine::

        table = mbd.sweep("examples/pendulum.py", {"hinge.q0": [0.1, 0.5]}, t_end=2.0,
                          outputs={"swing": "absmax:joint.hinge.v"}, out="study")
    """
    started = time.perf_counter()
    if scheduler is None:       # where the runs go, checked before anything is written
        workers = _workers(workers)
    elif workers is not None:   # a cluster's workers are its own: say so, not ignore it
        raise InputError(f"sweep: workers={workers!r} sets the local worker processes; with "
                         f"scheduler={scheduler!r} the runs go to that Dask cluster's workers "
                         "(start more there): give one or the other")
    else:
        _distributed(scheduler)
    source = Source(model_source)
    names, values = cases(grid)
    t_end, options = _settings(source, t_end, options)
    found = _outputs(outputs, names)
    keys = [run_key(names, v) for v in values]
    if len(set(keys)) != len(keys):
        raise InputError("sweep: two cases have the same parameters (a repeated value in the "
                         "grid or a repeated case)")
    model, system = _check(source, names, values, found, t_end, options)
    units = study_units(model, system, names, found)
    if out is not None:
        out = _open_folder(out, source, names, t_end, options, found, units)
    table = Table(names, found, out)
    if out is not None:
        table.load(retry_failed)
    pending = [(k, v) for k, v in zip(keys, values) if k not in table.rows]
    reused = len(keys) - len(pending)
    jobs = [{"source": source, "names": names, "values": v, "t_end": t_end,
             "options": options, "outputs": found, "keep": out is not None, "run": k}
            for k, v in pending]
    collect = _Collector(table, keys, values, out, reused, progressbar.ProgressBar(
        0, len(keys), enabled=progressbar.enabled(progress), label=f"sweep {system.name}",
        unit="runs"))
    prepare_s = 0.0
    try:
        if jobs and scheduler is None:
            prepare_s = _run_local(jobs, source, t_end, options, workers, collect)
        elif jobs:
            prepare_s = _run_dask(jobs, source, t_end, options, scheduler, collect)
    finally:
        collect.close()        # also after a failure or Ctrl-C: every finished run is kept
    frame = table.frame(keys)
    frame.attrs.update(ran=len(jobs), reused=reused,
                       failed=int((frame["status"] != OK).sum()),
                       wall_s=time.perf_counter() - started, prepare_s=prepare_s,
                       units=units)
    return frame


def _settings(source, t_end, options):
    """(t_end, simulate options) of a sweep: the call's over the script's."""
    script_t_end, script_options = source.settings()
    t_end = script_t_end if t_end is None else t_end
    if t_end is None:
        raise InputError("sweep: t_end is required for a model function (a script may set "
                         "T_END)")
    return t_end, dict(script_options, **options)


def _outputs(outputs, names):
    """The sweep's [Output]: their columns distinct from the parameters' and the table's own,
    their functions picklable (workers import them by name)."""
    found = outputs_of(outputs)
    used = set(names) & set(LEADING + TRAILING)
    clash = used | ({o.column for o in found} & (set(names) | set(LEADING + TRAILING)))
    if clash:
        raise InputError(f"sweep: the column name(s) {sorted(clash)} are taken (parameters, "
                         f"{', '.join(LEADING + TRAILING)}, outputs must differ)")
    for o in found:
        if o.function is not None:
            try:
                pickle.dumps(o.function)
            except Exception as err:
                raise TypeError(f"sweep: output {o.column!r}: the function cannot be sent to "
                                f"workers ({type(err).__name__}: {err}): workers import it "
                                "by its module's name, so define it at the top level of a "
                                "module that can be imported by name (not in a script "
                                "loaded by path)") from None
    return found


def _open_folder(out, source, names, t_end, options, found, units):
    """The out folder, made ready: its runs/ folder, a ``.gitignore`` of ``*`` when the sweep
    makes the folder, and the study's description written there or checked against the one
    there (InputError: another study)."""
    made = not os.path.isdir(os.fspath(out))
    out = scripts.output_folder(out, f"sweep: out {os.fspath(out)!r}")
    if made:
        ignore_folder(out)
    os.makedirs(os.path.join(out, RUNS), exist_ok=True)
    manifest(out, {"model": source.label,
                   "model_text": fingerprint(source.text if source.function is None
                                             else source.function),
                   "parameters": names, "t_end": float(t_end),
                   "options": {k: repr(v) for k, v in sorted(options.items())},
                   "outputs": {o.column: (o.spec if isinstance(o.spec, str) else
                                          f"{getattr(o.spec, '__qualname__', o.spec)} "
                                          f"{fingerprint(o.spec)}") for o in found},
                   "units": units})
    return out


def ignore_folder(path):
    """Write ``path/.gitignore`` holding ``*``, so that git ignores the folder and all in it
    (as pytest does for ``.pytest_cache``): a study run inside a checkout leaves ``git
    status`` clean. Called only for a folder the sweep made: a folder the user made is theirs
    to track or not. An existing ``.gitignore`` is left alone."""
    target = os.path.join(path, ".gitignore")
    if os.path.exists(target):
        return
    with atomic_open(target, "w") as fh:
        fh.write("# made by mbd.sweep: ignore this study folder and everything in it\n*\n")


class _Collector:
    """Takes each finished run's report (called as ``collect(report)``): writes its result
    file, adds its row, rewrites the table on disk at most every TABLE_INTERVAL (a long
    study's table would otherwise cost more to write than its runs) and moves the bar."""

    def __init__(self, table, keys, values, out, reused, bar):
        self.table, self.keys, self.out, self.bar = table, keys, out, bar
        self.by_key = dict(zip(keys, values))
        self.done, self.written = reused, 0.0
        bar.update(reused, force=True)

    def __call__(self, report):
        if report["npz"] is not None:
            name = f"{RUNS}/{report['run']}.npz"
            with atomic_open(os.path.join(self.out, name), "wb") as fh:
                fh.write(report["npz"])
            report["result"] = name
        self.table.add(self.by_key[report["run"]], report)
        now = time.perf_counter()
        if now - self.written >= TABLE_INTERVAL:
            self.table.write(self.keys)
            self.written = now
        self.done += 1
        self.bar.update(self.done)

    def close(self):
        """The table written whole with every finished run, and the bar closed."""
        self.table.write(self.keys)
        self.bar.close()


def _check(source, names, values, found, t_end, options):
    """Everything that can be checked before a run: every (name, value) on a fresh model,
    the first case's System, the outputs' names and the simulate options. Returns the first
    case's (model, system)."""
    model = source.model()
    for k, name in enumerate(names):
        element, param = parameter_name(name)
        for value in dict.fromkeys(v[k] for v in values):
            scripts.apply_override(source.model(), element, param, value,
                                   f"sweep: {name} = {cell(value)}")
    for name, value in zip(names, values[0]):
        element, param = parameter_name(name)
        scripts.apply_override(model, element, param, value, f"sweep: {name}")
    try:
        system = model.build()
    except ModelError as err:
        raise InputError(f"sweep: the model of case 0 cannot be built: {err}") from None
    for o in found:
        o.check(system)
    checked = dict(options)
    checked.pop("progress", None)
    validate.run_settings(system, METHODS, t_end, **checked)
    return model, system


def _workers(workers):
    """The number of local worker processes (None: the number of cores); InputError when it
    is not an integer >= 1."""
    workers = (os.cpu_count() or 1) if workers is None else workers
    if isinstance(workers, bool) or not isinstance(workers, numbers.Integral) or workers < 1:
        raise InputError(f"sweep: workers must be an integer >= 1, got {workers!r}")
    return workers


def _run_local(jobs, source, t_end, options, workers, finished):
    """The jobs on a pool of worker processes; returns the seconds spent preparing."""
    workers = _workers(workers)
    # compiled here, once: forked workers inherit the kernels; spawned ones load them from
    # numba's disk cache before their first case, so no run's wall_s counts the loading
    prepared = prepare(source, t_end, options)
    context = _start_method()
    spawned = context.get_start_method() != "fork"
    pool = concurrent.futures.ProcessPoolExecutor(
        max_workers=min(workers, len(jobs)), mp_context=context,
        initializer=prepare if spawned else None,
        initargs=(source, t_end, options) if spawned else ())
    futures = []
    try:
        futures = [pool.submit(run_case, job) for job in jobs]
        for future in concurrent.futures.as_completed(futures):
            finished(future.result())
    except concurrent.futures.process.BrokenProcessPool:
        pool.shutdown(wait=False, cancel_futures=True)
        raise WorkerDied("sweep: a worker process died (killed, out of memory, or it could "
                         "not start: a script that calls mbd.sweep on a machine that "
                         "spawns workers must call it under "
                         "'if __name__ == \"__main__\":'); the runs finished so far are in "
                         "the table on disk, and the same sweep into the same out resumes") \
            from None
    except BaseException:
        for future in futures:
            future.cancel()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    return prepared


def _start_method():
    """fork where the platform has it and this process runs one thread (the workers start at
    once, with the kernels already loaded, and a script need not guard its sweep call);
    spawn otherwise (forking a process with threads can deadlock the child)."""
    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _distributed(scheduler):
    """``dask.distributed``; InputError when it is not installed, TypeError when
    ``scheduler`` is neither an address nor a Client."""
    try:
        from dask import distributed
    except ImportError:
        raise InputError("sweep: a Dask scheduler was given but dask.distributed is not "
                         "installed: pip install 'mbd[cluster]'") from None
    if not isinstance(scheduler, (str, distributed.Client)):
        raise TypeError("sweep: scheduler must be None, an address ('tcp://host:8786') "
                        f"or a dask.distributed.Client, got {type(scheduler).__name__}")
    return distributed


def _run_dask(jobs, source, t_end, options, scheduler, finished):
    """The jobs on a Dask cluster; returns the seconds spent preparing the workers."""
    distributed = _distributed(scheduler)
    own = not isinstance(scheduler, distributed.Client)
    if own:
        try:
            client = distributed.Client(scheduler, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as err:
            raise InputError(f"sweep: cannot reach the Dask scheduler at {scheduler}: "
                             f"{err}") from None
        except ValueError as err:
            raise InputError(f"sweep: the scheduler {scheduler!r} is not a Dask scheduler's "
                             f"address ({err}): give tcp://HOST:PORT, e.g. "
                             "tcp://127.0.0.1:8786") from None
    else:
        client = scheduler
    try:
        started = time.perf_counter()
        _prepare_cluster(client, source, t_end, options)
        prepared = time.perf_counter() - started
        futures = client.map(run_case, jobs, pure=False)
        try:
            for future in distributed.as_completed(futures):
                finished(future.result())
        except BaseException:
            client.cancel(futures)
            raise
        return prepared
    finally:
        if own:
            client.close()


def _prepare_cluster(client, source, t_end, options):
    """Compile the kernels on one worker per host (into that host's cache), then load them
    on the others, before any run."""
    workers = client.scheduler_info(n_workers=-1)["workers"]
    by_host = {}
    for address, info in workers.items():
        by_host.setdefault(info.get("host", address.rsplit(":", 1)[0]), []).append(address)
    first = [group[0] for group in by_host.values()]
    rest = [a for group in by_host.values() for a in group[1:]]
    if first:
        client.run(prepare, source, t_end, options, workers=first)
    if rest:
        client.run(prepare, source, t_end, options, workers=rest)
