"""What a sweep runs: where its model comes from (a script's text or a function), the cases of
its grid, and the keys that name its runs."""
import hashlib
import inspect
import itertools
import json
import os
import pickle
import tempfile

import numpy as np

from ..model.builder import Model
from ..model.errors import InputError
from ..model.values import finite, real
from . import scripts


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
