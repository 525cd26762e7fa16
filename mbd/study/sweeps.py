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
(:meth:`mbd.Result.to_npz`); a second sweep into the same folder skips the runs it finds there
(keyed by their parameters), so an interrupted study resumes where it stopped.
"""
import concurrent.futures
import csv
import hashlib
import inspect
import io
import itertools
import json
import multiprocessing
import numbers
import os
import pickle
import tempfile
import threading
import time

import numpy as np

from ..run import progress as progressbar
from . import scripts
from ..model import validate
from ..run import warmup
from ..compiled import statefunction as sf
from ..model.errors import InputError, ModelError, SimulationError
from ..model.files import atomic_open
from ..model.builder import Model
from ..run.simulate import METHODS
from ..model.values import finite, real

#: the reductions of an output over a run's rows ("REDUCTION:QUANTITY")
REDUCTIONS = ("final", "max", "min", "mean", "absmax")

#: the outputs read off the event log ("count:events.NAME", "first:events.NAME")
EVENT_READINGS = ("count", "first")

#: the table's columns after the parameters and before the outputs, and after the outputs
LEADING, TRAILING = ("run", "status"), ("t_reached", "wall_s", "result")

#: the status of a run that finished
OK = "ok"

TABLE, MANIFEST, RUNS = "sweep.csv", "sweep.json", "runs"

#: the least wall time between two rewrites of the table on disk while runs finish, s
TABLE_INTERVAL = 0.5


# ----------------------------------------------------------------------------- the model

class Source:
    """Where a sweep's model comes from: a model script (shipped as its text, so that a
    worker on another machine needs no copy of the file) or a picklable function returning an
    :class:`mbd.Model`.

    Parameters
    ----------
    model_source : str, path-like or callable
    """

    def __init__(self, model_source):
        if isinstance(model_source, (str, os.PathLike)):
            self.path = os.path.abspath(os.fspath(model_source))
            if not os.path.isfile(self.path):
                raise InputError(f"sweep: no model script at {self.path}: the file does not "
                                 "exist (give a script defining build_model(), or a function "
                                 "returning an mbd.Model)")
            with open(self.path, encoding="utf-8") as fh:
                self.text = fh.read()
            self.function = None
            self.label = self.path
        elif callable(model_source):
            try:
                pickle.dumps(model_source)
            except Exception as err:
                raise TypeError(f"sweep: the model function {model_source!r} cannot be sent to "
                                f"worker processes ({type(err).__name__}: {err}): workers "
                                "import it by its module's name, so define it at the top "
                                "level of a module that can be imported by name, or give a "
                                "model script's path") from None
            self.path = self.text = None
            self.function = model_source
            self.label = (f"{getattr(model_source, '__module__', '?')}."
                          f"{getattr(model_source, '__qualname__', repr(model_source))}")
        else:
            raise TypeError("sweep: model_source must be a model script's path or a function "
                            f"returning an mbd.Model, got {type(model_source).__name__}")

    def module(self):
        """The model script imported in this process (once per process and text)."""
        return _script_module(self.path, self.text)

    def model(self):
        """A new Model, as the script's build_model() (or the function) makes it."""
        if self.function is None:
            return scripts.model_of(self.module(), self.path)
        model = self.function()
        if not isinstance(model, Model):
            raise InputError(f"sweep: the model function {self.label} returned "
                             f"{type(model).__name__}, not an mbd.Model")
        return model

    def settings(self):
        """(T_END, simulate options) a script sets (:func:`mbd.study.scripts.run_settings`); for a
        function: (None, {})."""
        if self.function is not None:
            return None, {}
        return scripts.run_settings(self.module())


_MODULES = {}   # (path, sha1 of the text) -> the imported script, per process


def _script_module(path, text):
    key = (path, hashlib.sha1(text.encode()).hexdigest())
    if key not in _MODULES:
        if not (os.path.isfile(path) and _read(path) == text):
            # another machine (or the file changed since the sweep started): this text, in a
            # folder of its own
            folder = tempfile.mkdtemp(prefix="mbd-sweep-")
            path = os.path.join(folder, os.path.basename(path))
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
        _MODULES[key] = scripts.load_script(path)
    return _MODULES[key]


def _read(path):
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except OSError:
        return None


# ----------------------------------------------------------------------------- the cases

def parameter_name(name, who="sweep: grid"):
    """(element, parameter) of an override name "strap.k"; InputError when malformed."""
    if not isinstance(name, str):
        raise InputError(f"{who}: a parameter name must be a string NAME.PARAM (e.g. "
                         f"'strap.k'), got {name!r}")
    element, dot, param = name.strip().rpartition(".")
    if not dot or not element or not param:
        raise InputError(f"{who}: {name!r} is not NAME.PARAM (an element name, a dot, a "
                         "parameter: 'strap.k', 'hinge.q0', 'arm.mass')")
    return element, param


def _value(name, value, who):
    """A case's value: a float, or a tuple of floats (a joint of several coordinates)."""
    def number(x):
        return real(x, f"{who}: {name}: a value", "finite", finite, error=InputError)
    if isinstance(value, (tuple, list, np.ndarray)):
        if len(value) == 0:
            raise InputError(f"{who}: {name}: an empty value")
        return tuple(number(x) for x in value)
    return number(value)


def cases(grid):
    """The cases of ``grid``: (names, [tuple of values per case]).

    Parameters
    ----------
    grid : dict or list of dict
        {name: values} for a full factorial (the first name varies slowest), or a list of
        {name: value} dicts (given cases, every one with the same names).

    Examples
    --------
    >>> cases({"a.k": [1, 2], "b.q0": [0.5]})
    (['a.k', 'b.q0'], [(1.0, 0.5), (2.0, 0.5)])
    """
    if isinstance(grid, dict):
        if not grid:
            raise InputError("sweep: the grid is empty: give {name: [values, ...]}")
        names = list(grid)
        columns = []
        for name in names:
            parameter_name(name)
            values = grid[name]
            if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
                raise InputError(f"sweep: grid {name!r}: give a list of values, got {values!r}")
            values = [_value(name, v, "sweep: grid") for v in values]
            if not values:
                raise InputError(f"sweep: grid {name!r}: no values")
            columns.append(values)
        return names, [tuple(c) for c in itertools.product(*columns)]
    if isinstance(grid, (list, tuple)):
        if not grid:
            raise InputError("sweep: the list of cases is empty")
        if not all(isinstance(c, dict) for c in grid):
            bad = next(c for c in grid if not isinstance(c, dict))
            raise InputError(f"sweep: a case must be a dict {{name: value}}, got {bad!r}")
        names = list(grid[0])
        if not names:
            raise InputError("sweep: case 0 sets no parameter")
        for name in names:
            parameter_name(name)
        rows = []
        for k, case in enumerate(grid):
            if set(case) != set(names):
                differ = sorted(set(case) ^ set(names))
                raise InputError(f"sweep: case {k} sets {sorted(case)}, case 0 sets "
                                 f"{sorted(names)}: every case must set the same parameters "
                                 f"(differing: {', '.join(differ)})")
            rows.append(tuple(_value(n, case[n], f"sweep: case {k}") for n in names))
        return names, rows
    raise InputError("sweep: grid must be a dict {name: [values]} or a list of dicts "
                     f"(cases), got {type(grid).__name__}")


def run_key(names, values):
    """The run's key: 12 hex digits of a hash of its parameters (names and exact values)."""
    text = json.dumps([[n, v] for n, v in zip(names, values)])
    return hashlib.sha1(text.encode()).hexdigest()[:12]


# ----------------------------------------------------------------------------- the outputs

class Output:
    """A named scalar of a run: ``"REDUCTION:QUANTITY"`` or a function of a Result.

    QUANTITY is ``joint.NAME.q`` / ``joint.NAME.v`` (then ``.K``: the K-th coordinate of a
    joint of several), ``force.NAME.value`` (a 3-D element's -- a BodySpringDamper, a
    bushing -- the magnitude of its world force on B; ``.0``-``.2`` a world component),
    ``body.NAME.CS.x|y|z`` (world, m; CS ``cg`` for the CG) or ``energy`` (J); REDUCTION one of :data:`REDUCTIONS` over the output rows (``mean``: the time average,
    trapezoidal over the rows). ``count:events.NAME`` is the number of switches of element
    NAME, ``first:events.NAME`` the time of its first switch of any kind (nan: none; for
    an element that starts in contact that is its first *release*: use a function of the
    Result, e.g. of ``result.force(NAME).contacts()``, for the first contact itself).
    """

    def __init__(self, column, spec):
        self.column, self.spec = column, spec
        self.function = spec if callable(spec) else None
        if self.function is not None:
            return
        where = f"sweep: output {column!r}"
        if not isinstance(spec, str) or ":" not in spec:
            raise InputError(f"{where}: {spec!r} is not 'REDUCTION:QUANTITY' (e.g. "
                             "'max:force.stop.value') or a function of a Result")
        self.reduction, _, quantity = (s.strip() for s in spec.partition(":"))
        self.parts = quantity.split(".")
        kind = self.parts[0]
        if self.reduction in EVENT_READINGS:
            if kind != "events" or len(self.parts) < 2:
                raise InputError(f"{where}: {self.reduction}: reads the event log: "
                                 f"'{self.reduction}:events.NAME', got {spec!r}")
            self.parts = ["events", ".".join(self.parts[1:])]
        elif self.reduction not in REDUCTIONS:
            raise InputError(f"{where}: unknown reduction {self.reduction!r} in {spec!r}; "
                             f"the reductions are: {', '.join(REDUCTIONS + EVENT_READINGS)}")
        elif kind == "events":
            raise InputError(f"{where}: the event log is read by 'count:' or 'first:', got "
                             f"{spec!r}")
        shapes = {"joint": "joint.NAME.q|v[.K]", "force": "force.NAME.value[.K]",
                  "body": "body.NAME.CS.x|y|z", "energy": "energy"}
        if kind not in shapes and kind != "events":
            raise InputError(f"{where}: unknown quantity {quantity!r}; the quantities are: "
                             f"{', '.join(shapes.values())}")
        ok = {"joint": len(self.parts) in (3, 4) and self.parts[2] in ("q", "v"),
              "force": len(self.parts) in (3, 4) and self.parts[2] == "value",
              "body": len(self.parts) == 4 and self.parts[3] in ("x", "y", "z"),
              "energy": len(self.parts) == 1, "events": True}[kind]
        if ok and len(self.parts) == 4 and kind in ("joint", "force"):
            ok = self.parts[3].isdigit()
        if not ok:
            raise InputError(f"{where}: {quantity!r} is not {shapes[kind]}")

    def check(self, system):
        """Raise InputError when the quantity names nothing in ``system``."""
        if self.function is not None:
            return
        where = f"sweep: output {self.column!r} ({self.spec})"
        kind = self.parts[0]
        if kind == "joint":
            name = self.parts[1]
            if name not in system.joints:
                raise InputError(f"{where}: no joint '{name}'; the joints are: "
                                 f"{', '.join(system.joints)}")
            jm = system.joints[name]
            size = len(jm.q_index if self.parts[2] == "q" else jm.v_index)
            if len(self.parts) == 4 and int(self.parts[3]) >= size:
                raise InputError(f"{where}: joint '{name}' has {size} {self.parts[2]} "
                                 f"coordinate(s), 0 to {size - 1}")
            if len(self.parts) == 3 and size > 1:
                raise InputError(f"{where}: joint '{name}' has {size} {self.parts[2]} "
                                 f"coordinates: say which, e.g. joint.{name}.{self.parts[2]}.0")
        elif kind == "force":
            name = self.parts[1]
            if name not in system.force_index:
                raise InputError(f"{where}: no force element '{name}'; the force elements "
                                 f"are: {', '.join(system.force_index) or 'none'}")
            fe = system.force_elements[system.force_index[name]]
            if len(self.parts) == 4 and (not getattr(fe, "vector_valued", False)
                                         or int(self.parts[3]) > 2):
                raise InputError(f"{where}: '{name}' has one value" if not
                                 getattr(fe, "vector_valued", False) else
                                 f"{where}: a world component is 0, 1 or 2")
        elif kind == "body":
            name, cs = self.parts[1], self.parts[2]
            if name not in system.bodies:
                raise InputError(f"{where}: no body '{name}'; the bodies are: "
                                 f"{', '.join(system.bodies)}")
            body = system.bodies[name].body
            if cs not in body.frames:
                raise InputError(f"{where}: body '{name}' has no CS '{cs}'; its CSs are: "
                                 f"{', '.join(body.frames)}")
        elif kind == "events":
            names = set(system.joints) | set(system.force_index) | {d.name for d in
                                                                   system.drivers}
            if self.parts[1] not in names:
                raise InputError(f"{where}: no element '{self.parts[1]}' in the model")

    def of(self, result):
        """The output's value for ``result`` (a float)."""
        if self.function is not None:
            return _number(self.function(result), self.column)
        kind = self.parts[0]
        if kind == "events":
            times = [e.t for e in result.events if e.element == self.parts[1]]
            if self.reduction == "count":
                return float(len(times))
            return float(times[0]) if times else float("nan")
        if kind == "joint":
            view = result.joint(self.parts[1])
            x = view.q if self.parts[2] == "q" else view.v
            if len(self.parts) == 4:
                x = x[:, int(self.parts[3])]
        elif kind == "force":
            view = result.force(self.parts[1])
            x = view.vector if view.element.placement == "bushing" else view.value
            if x.ndim == 2:
                x = x[:, int(self.parts[3])] if len(self.parts) == 4 else np.linalg.norm(x, axis=1)
        elif kind == "body":
            x = result.body(self.parts[1]).position(self.parts[2])[:, "xyz".index(self.parts[3])]
        else:
            x = result.energy()
        return _reduce(self.reduction, result.t, np.asarray(x, dtype=float))


def _reduce(reduction, t, x):
    if reduction == "final":
        return float(x[-1])
    if reduction == "max":
        return float(np.max(x))
    if reduction == "min":
        return float(np.min(x))
    if reduction == "absmax":
        return float(np.max(np.abs(x)))
    span = t[-1] - t[0]       # mean: the time average over the run
    return float(np.trapezoid(x, t) / span) if span > 0 else float(x[-1])


def _number(value, column):
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"output {column!r}: the function returned {value!r}, not a "
                         "number") from None
    return number


def outputs_of(outputs):
    """[Output] of the ``outputs`` mapping {column: spec}."""
    if outputs is None:
        return []
    if not isinstance(outputs, dict):
        raise InputError("sweep: outputs must be a dict {column: 'REDUCTION:QUANTITY' or a "
                         f"function of a Result}}, got {type(outputs).__name__}")
    found = []
    for column, spec in outputs.items():
        if not isinstance(column, str) or not column:
            raise InputError(f"sweep: an output's column name must be a non-empty string, "
                             f"got {column!r}")
        found.append(Output(column, spec))
    return found


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
        for o in job["outputs"]:
            outputs[o.column] = o.of(result)
    except SimulationError as err:
        status, result, reached = _message(err), err.result, err.t
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as err:       # a model that cannot be built, an output that fails
        status = _message(err)
    wall = time.perf_counter() - started
    npz = None
    if job["keep"] and result is not None:
        buffer = io.BytesIO()
        result.to_npz(buffer)
        npz = buffer.getvalue()
    if reached is None:      # a finished run, or a failure that names no time: its last row
        reached = result.t[-1] if result is not None and len(result.t) else float("nan")
    t_reached = float(reached)
    return {"run": job["run"], "status": status, "outputs": outputs, "t_reached": t_reached,
            "wall_s": wall, "npz": npz}


def fingerprint(thing):
    """12 hex digits of a hash of a script's text or a function's source (its bytecode and
    constants where the source cannot be read)."""
    if not isinstance(thing, str):
        try:
            thing = inspect.getsource(thing)
        except (OSError, TypeError):
            code = getattr(thing, "__code__", None)
            thing = repr((code.co_code, code.co_consts)) if code is not None else repr(thing)
    return hashlib.sha1(thing.encode()).hexdigest()[:12]


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
    sd = sf.state_data(system)
    warmup.first_right_hand_side(sd, compiled=bool(compiled), method=method)
    # load what the helper process compiled here too, so that forked workers inherit it
    # rather than each loading it from the cache in its first run
    warmup.compile_targets([*warmup.run_targets(sd, bool(compiled), method), *warmup.LATER])
    return time.perf_counter() - started


# ----------------------------------------------------------------------------- the table

def _cell(value):
    """A value as the CSV holds it: floats exactly (repr), tuples comma-joined."""
    if isinstance(value, tuple):
        return ",".join(repr(v) for v in value)
    if isinstance(value, float):
        return repr(value)
    return "" if value is None else str(value)


def _parse_cell(text):
    try:
        return float(text)
    except ValueError:
        pass
    try:
        return tuple(float(v) for v in text.split(","))
    except ValueError:
        return text


class Table:
    """The rows of a sweep, in case order, and their CSV in ``out`` (rewritten whole)."""

    def __init__(self, names, outputs, out):
        self.names, self.outputs, self.out = names, [o.column for o in outputs], out
        self.columns = list(names) + list(LEADING) + self.outputs + list(TRAILING)
        self.rows = {}           # run key -> {column: value}

    def add(self, values, report):
        row = dict(zip(self.names, values))
        row.update(run=report["run"], status=report["status"], t_reached=report["t_reached"],
                   wall_s=report["wall_s"], result=report.get("result", ""))
        row.update(report["outputs"])
        self.rows[report["run"]] = row

    def load(self, retry_failed=False):
        """The rows of an earlier sweep into the same folder (those whose run kept its
        result file, or failed before it had one; ``retry_failed``: the finished ones only)."""
        path = os.path.join(self.out, TABLE)
        if not os.path.isfile(path):
            return
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            if reader.fieldnames != self.columns:
                raise InputError(f"sweep: {path} has the columns {reader.fieldnames}, this "
                                 f"sweep makes {self.columns}: it is another study; give "
                                 "another out folder")
            for raw in reader:
                row = {c: (raw[c] if c in ("run", "status", "result") else _parse_cell(raw[c]))
                       for c in self.columns}
                if row["result"] and not os.path.isfile(os.path.join(self.out, row["result"])):
                    continue        # its result file is gone: run it again
                if retry_failed and row["status"] != OK:
                    continue
                self.rows[row["run"]] = row

    def write(self, order):
        """Write the CSV (the rows in ``order`` that are done), whole or not at all."""
        if self.out is None:
            return
        with atomic_open(os.path.join(self.out, TABLE), "w") as fh:
            writer = csv.writer(fh, lineterminator="\n")
            writer.writerow(self.columns)
            for key in order:
                if key in self.rows:
                    writer.writerow([_cell(self.rows[key][c]) for c in self.columns])

    def frame(self, order):
        """The pandas DataFrame of the rows in ``order``."""
        import pandas
        return pandas.DataFrame([self.rows[k] for k in order if k in self.rows],
                                columns=self.columns)


def _manifest(out, description):
    """Write the study's description into ``out`` or check it against the one there."""
    path = os.path.join(out, MANIFEST)
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as fh:
            try:
                old = json.load(fh)
            except ValueError:
                old = None
        if old != description:
            differ = (sorted(k for k in description if (old or {}).get(k) != description[k])
                      if isinstance(old, dict) else ["everything"])
            raise InputError(f"sweep: the folder {out} holds another study (it differs in: "
                             f"{', '.join(differ)}); give another out folder, or empty it")
        return
    with atomic_open(path, "w") as fh:
        json.dump(description, fh, indent=1)


# ----------------------------------------------------------------------------- the sweep

def sweep(model_source, grid, t_end=None, outputs=None, scheduler=None, out=None,
          workers=None, progress=None, retry_failed=False, **options):
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
        parameter or its own (``strap.k``).
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
        options, the outputs) and ``runs/<run>.npz`` (each run's result, a failed one's
        partial result). A sweep into a folder holding the same study runs only the cases not
        done there; a folder holding another study is refused. (Edits of modules the script
        imports are not seen: empty the folder after such an edit.)
    workers : int, optional
        Local worker processes (default: the number of cores; never more than the runs).
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
        cache before their first case, which no run's ``wall_s`` counts).

    Raises
    ------
    InputError
        Before any run: a malformed grid, a name that is not an element's parameter, a value
        the element refuses, an output that names nothing, an ``out`` holding another study.
    TypeError, ValueError
        Before any run: ``simulate`` options it refuses (as ``simulate`` words them).

    Examples
    --------
    A full-factorial grid over a script's spring and start angle, on this machine::

        table = mbd.sweep("examples/pendulum.py", {"hinge.q0": [0.1, 0.5]}, t_end=2.0,
                          outputs={"swing": "absmax:joint.hinge.v"}, out="study")
    """
    started = time.perf_counter()
    source = Source(model_source)
    names, values = cases(grid)
    script_t_end, script_options = source.settings()
    t_end = script_t_end if t_end is None else t_end
    if t_end is None:
        raise InputError("sweep: t_end is required for a model function (a script may set "
                         "T_END)")
    options = dict(script_options, **options)
    found = outputs_of(outputs)
    used = set(names) & set(LEADING + TRAILING)
    clash = used | ({o.column for o in found} & (set(names) | set(LEADING + TRAILING)))
    if clash:
        raise InputError(f"sweep: the column name(s) {sorted(clash)} are taken (parameters, "
                         f"{', '.join(LEADING + TRAILING)}, outputs must differ)")
    keys = [run_key(names, v) for v in values]
    if len(set(keys)) != len(keys):
        raise InputError("sweep: two cases have the same parameters (a repeated value in the "
                         "grid or a repeated case)")
    system = _check(source, names, values, found, t_end, options)
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
    if out is not None:
        out = scripts.output_folder(out, f"sweep: out {os.fspath(out)!r}")
        os.makedirs(os.path.join(out, RUNS), exist_ok=True)
        _manifest(out, {"model": source.label,
                        "model_text": fingerprint(source.text if source.function is None
                                                  else source.function),
                        "parameters": names, "t_end": float(t_end),
                        "options": {k: repr(v) for k, v in sorted(options.items())},
                        "outputs": {o.column: (o.spec if isinstance(o.spec, str) else
                                               f"{getattr(o.spec, '__qualname__', o.spec)} "
                                               f"{fingerprint(o.spec)}") for o in found}})
    table = Table(names, found, out)
    if out is not None:
        table.load(retry_failed)
    pending = [(k, v) for k, v in zip(keys, values) if k not in table.rows]
    reused = len(keys) - len(pending)
    jobs = [{"source": source, "names": names, "values": v, "t_end": t_end,
             "options": options, "outputs": found, "keep": out is not None, "run": k}
            for k, v in pending]
    by_key = dict(zip(keys, values))
    bar = progressbar.ProgressBar(0, len(keys), enabled=progressbar.enabled(progress),
                                  label=f"sweep {system.name}", unit="runs")
    bar.update(reused, force=True)
    done = [reused]

    written = [0.0]

    def finished(report):
        if report["npz"] is not None:
            name = f"{RUNS}/{report['run']}.npz"
            with atomic_open(os.path.join(out, name), "wb") as fh:
                fh.write(report["npz"])
            report["result"] = name
        table.add(by_key[report["run"]], report)
        # the table on disk follows the runs, rewritten whole at most every TABLE_INTERVAL
        # (a long study's table would otherwise cost more to write than its runs)
        now = time.perf_counter()
        if now - written[0] >= TABLE_INTERVAL:
            table.write(keys)
            written[0] = now
        done[0] += 1
        bar.update(done[0])

    prepare_s = 0.0
    try:
        if jobs:
            if scheduler is None:
                prepare_s = _run_local(jobs, source, t_end, options, workers, finished)
            else:
                prepare_s = _run_dask(jobs, source, t_end, options, scheduler, finished)
    finally:
        table.write(keys)       # also after a failure or Ctrl-C: every finished run is kept
        bar.close()
    frame = table.frame(keys)
    frame.attrs.update(ran=len(jobs), reused=reused,
                       failed=int((frame["status"] != OK).sum()),
                       wall_s=time.perf_counter() - started, prepare_s=prepare_s)
    return frame


def _check(source, names, values, found, t_end, options):
    """Everything that can be checked before a run: every (name, value) on a fresh model,
    the first case's System, the outputs' names and the simulate options."""
    model = source.model()
    for k, name in enumerate(names):
        element, param = parameter_name(name)
        for value in dict.fromkeys(v[k] for v in values):
            scripts.apply_override(source.model(), element, param, value,
                                   f"sweep: {name} = {_cell(value)}")
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
    return system


def _run_local(jobs, source, t_end, options, workers, finished):
    """The jobs on a pool of worker processes; returns the seconds spent preparing."""
    workers = (os.cpu_count() or 1) if workers is None else workers
    if isinstance(workers, bool) or not isinstance(workers, numbers.Integral) or workers < 1:
        raise InputError(f"sweep: workers must be an integer >= 1, got {workers!r}")
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
        raise RuntimeError("sweep: a worker process died (killed, out of memory, or it could "
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


def _run_dask(jobs, source, t_end, options, scheduler, finished):
    """The jobs on a Dask cluster; returns the seconds spent preparing the workers."""
    try:
        from dask import distributed
    except ImportError:
        raise InputError("sweep: a Dask scheduler was given but dask.distributed is not "
                         "installed: pip install 'mbd[cluster]'") from None
    own = not isinstance(scheduler, distributed.Client)
    if own:
        if not isinstance(scheduler, str):
            raise TypeError("sweep: scheduler must be None, an address ('tcp://host:8786') "
                            f"or a dask.distributed.Client, got {type(scheduler).__name__}")
        try:
            client = distributed.Client(scheduler, timeout="10s")
        except (OSError, TimeoutError) as err:
            raise InputError(f"sweep: cannot reach the Dask scheduler at {scheduler}: "
                             f"{err}") from None
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
