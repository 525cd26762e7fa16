"""Model scripts: loading one, changing its parameters by name, reading its run settings.

A model script defines ``build_model()`` returning an :class:`mbd.Model` (``build()`` is
accepted as well), or a module-level ``model``; it may set ``T_END``, ``OUTPUT_STEP``,
``RTOL`` and ``ATOL``. An *override* ``NAME.PARAM = VALUE`` changes a parameter by element
name after the script made the Model and before the build: a body's ``mass``, a joint's
``q0``/``v0``, a force element's law parameter (``gap.c``) or its own (a BodySpringDamper's
``k``, ``b``, ``r0``: any element with ``with_parameters``). A parameter holding a lookup table
(a TableForce's ``table``, a K given as a Table, a Lookup's ``table``) is changed one point at a
time, ``NAME.PARAM.POINT = VALUE`` with POINT ``xK`` or ``yK`` (``zI_J`` of a Table2D): a new
table, checked by its constructor. The command line's ``--set``, :func:`mbd.sweep`'s grids and
an FMU's parameters use them.
"""
import copy
import dataclasses
import importlib.util
import os
import sys
import traceback

import numpy as np

from ..compiled import lawkernels
from ..control.tables import Table, Table2D
from ..model.builder import Model
from ..model.elements import Joint
from ..model.errors import InputError, ModelError, renamed_link
from ..model.forceelements import ForceElement

# ----------------------------------------------------------------------------- loading

def load_script(path):
    """Import the model script at ``path`` and return the module; InputError when it is
    missing or raises.

    Its folder is put first on sys.path, so that the script (and its ``build_model()``,
    called later) can import the modules beside it; once per folder: loading many scripts
    of one folder adds one entry, never a duplicate (a folder already on the path is moved
    to the front)."""
    path = os.path.abspath(os.fspath(path))
    if not os.path.isfile(path):
        raise InputError(f"no model script at {path}: the file does not exist "
                         "(give the path of a Python file defining build_model())")
    folder = os.path.dirname(path)
    name = "_mbd_model_" + "".join(c if c.isalnum() else "_"
                                   for c in os.path.splitext(os.path.basename(path))[0])
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise InputError(f"cannot load {path} as a Python module (is it a .py file?)")
    module = importlib.util.module_from_spec(spec)
    if sys.path[:1] != [folder]:   # first, and once: moved there if already on the path
        if folder in sys.path:
            sys.path.remove(folder)
        sys.path.insert(0, folder)
    sys.modules[name] = module   # dataclasses, pickling and the like look modules up here
    try:
        spec.loader.exec_module(module)
    except KeyboardInterrupt:
        raise
    except BaseException as err:   # SystemExit too: a script's exit() is a failed load here
        raise InputError(f"the model script {path} raised {_where(err, path)}") from None
    return module


def _where(err, path):
    """'TypeError: message (at line N: code)' with the innermost line of the script."""
    text = f"{type(err).__name__}: {err}"
    if isinstance(err, SyntaxError) and err.lineno is not None:
        return f"{text.split(' (', 1)[0]} (line {err.lineno})"
    frames = [f for f in traceback.extract_tb(err.__traceback__)
              if os.path.abspath(f.filename) == path]
    if frames:
        f = frames[-1]
        text += f" (at line {f.lineno}" + (f": {f.line.strip()})" if f.line else ")")
    return text


#: the functions a model script may define to make its Model, looked for in this order:
#: ``build_model`` (the name the examples and the demo use), then ``build``
BUILDERS = ("build_model", "build")


def model_of(module, path):
    """The Model a model script defines.

    Parameters
    ----------
    module : module
        The script, imported by :func:`load_script`.
    path : str
        The script's path, for the messages.

    Returns
    -------
    mbd.Model
        What its ``build_model()`` (else its ``build()``) returns, else its module-level
        ``model``.

    Raises
    ------
    InputError
        When the script defines none of them, the function raises, or the result is not an
        :class:`mbd.Model`.
    ModelError
        When the function raises one (its problems prefixed with the function and the script).
    """
    name = next((n for n in BUILDERS if callable(getattr(module, n, None))), None)
    if name is not None:
        try:
            model = getattr(module, name)()
        except KeyboardInterrupt:
            raise
        except ModelError as err:
            raise ModelError([f"in {name}() of {path}: {p}" for p in err.problems]) from None
        except Exception as err:
            raise InputError(f"{name}() in the model script {path} raised "
                             f"{_where(err, os.path.abspath(path))}") from None
        what = f"{name}() returned"
    elif hasattr(module, "model"):
        model, what = module.model, "its variable 'model' is"
    else:
        raise InputError(f"the model script {path} defines no model: give it a function "
                         "build_model() returning an mbd.Model (or a module-level variable "
                         "'model' holding one)")
    if not isinstance(model, Model):
        raise InputError(f"the model script {path}: {what} {type(model).__name__}, "
                         "not an mbd.Model")
    return model


# ----------------------------------------------------------------------------- --set

def parse_setting(text):
    """'NAME.PARAM=VALUE' -> (name, param, value); value a float or a tuple of floats."""
    left, eq, right = text.partition("=")
    name, dot, param = left.strip().rpartition(".")
    if not eq or not dot or not name or not param:
        raise InputError(f"--set {text!r}: expected NAME.PARAM=VALUE, e.g. gap.c=20 "
                         "(an element name, a dot, a parameter, '=', a number)")
    try:
        values = tuple(float(v) for v in right.split(","))
    except ValueError:
        raise InputError(f"--set {text!r}: the value {right.strip()!r} is not a number "
                         "(or comma-separated numbers)") from None
    if not all(np.isfinite(values)):
        raise InputError(f"--set {text!r}: the value must be finite, got {right.strip()!r}")
    return name, param.strip(), values[0] if len(values) == 1 else values


def apply_setting(model, text):
    """Apply one ``--set NAME.PARAM=VALUE`` to ``model`` (before the build); returns a
    description."""
    name, param, value = parse_setting(text)
    return apply_override(model, name, param, value, f"--set {text!r}")


def apply_override(model, name, param, value, where):
    """Set ``param`` of the body, joint or force element ``name`` of ``model`` to ``value``
    (a float, or a tuple of floats for a joint of several coordinates), validated as its
    constructor validates it; ``where`` starts every message. Returns a description.

    A ``name`` ``ELEMENT.PARAM`` that names no element but whose ELEMENT does sets point
    ``param`` (``xK``, ``yK``, ``zI_J``) of the table that ELEMENT's PARAM holds: ``--set
    stop.table.y2=450`` comes here as ("stop.table", "y2").

    Raises
    ------
    InputError
        An unknown name or parameter, or a value the element refuses (naming both).
    """
    bodies = {b.name: b for b in model.bodies}
    elements = {getattr(e, "name", None): e for e in model.elements}
    owner, dot, table_param = name.rpartition(".")
    if (name not in elements and dot and table_param in getattr(elements.get(owner), "parts", ())):
        # a part of an element: a contact's normal law or friction (NAME.normal.c)
        _replace_element(model, elements[owner], _set_force(elements[owner], param, value, where))
    elif name not in bodies and name not in elements and dot and (
            owner in bodies or owner in elements):
        _set_table_point(model, bodies, elements, owner, table_param, param, value, where)
    elif name in bodies:
        if param != "mass":
            raise InputError(f"{where}: body '{name}' has no settable parameter {param!r}; "
                             "a body's settable parameter is: mass")
        if not isinstance(value, float) or not value > 0:
            raise InputError(f"{where}: body '{name}': mass must be one number > 0, got {value!r}")
        bodies[name].mass = value
    elif isinstance(elements.get(name), Joint):
        joint = elements[name]
        if param not in ("q0", "v0"):
            raise InputError(f"{where}: joint '{name}' has no settable parameter {param!r}"
                             f"{renamed_link(name, model)}; a joint's settable parameters "
                             "are: q0, v0")
        old = getattr(joint, param)
        setattr(joint, param, list(value) if isinstance(value, tuple) else value)
        try:   # validated now, so the message names the override
            joint.initial_q() if param == "q0" else joint.initial_v()
        except ModelError as err:
            setattr(joint, param, old)
            raise InputError(f"{where}: {err}") from None
    elif isinstance(elements.get(name), ForceElement):
        _replace_element(model, elements[name], _set_force(elements[name], param, value, where))
    elif callable(getattr(elements.get(name), "with_parameters", None)):   # a gear's ratio
        if param in getattr(elements[name], "tables", ()):
            raise InputError(_table_whole(where, elements[name].label(), name, param,
                                          getattr(elements[name], param)))
        if not isinstance(value, float):
            raise InputError(f"{where}: {elements[name].label()}: {param} takes one number, "
                             f"got {value!r}")
        try:
            _replace_element(model, elements[name],
                             elements[name].with_parameters(**{param: value}))
        except (TypeError, ValueError) as err:
            raise InputError(f"{where}: {err}") from None
    else:
        grounds = [g.name for g in model.grounds]
        known = sorted(bodies) + sorted(n for n in elements if n is not None)
        extra = (f" ('{name}' is a ground: its environment cannot be changed by an override)"
                 if name in grounds else
                 f" (nor, for a table's point ELEMENT.PARAM.POINT, one named '{owner}')"
                 if dot else "")
        extra += renamed_link(name, model)
        raise InputError(f"{where}: no body, joint or force element named '{name}'{extra}; "
                         f"the model has: {', '.join(known) or 'nothing'}")
    return f"{name}.{param} = {value}"


def law_parameters(law):
    """The parameters of a law: the fields its constructor takes (a dataclass law, as every
    law in ``forces`` is), or None for a law that is not a dataclass."""
    if not dataclasses.is_dataclass(law) or isinstance(law, type):
        return None
    return [f.name for f in dataclasses.fields(law) if f.init]


def _with_law(fe, law):
    """A new force element like ``fe`` (same class, name and placement) with ``law``: the
    element's own ``with_law`` (the ``forces`` placements rebuild through their constructor),
    else a shallow copy of it holding ``law``."""
    make = getattr(fe, "with_law", None)
    if callable(make):
        return make(law)
    new = copy.copy(fe)
    new.law = law
    return new


def _replace_element(model, old, new):
    """Put the element ``new`` in the place of ``old`` (the very object) in ``model``."""
    for i, e in enumerate(model.elements):
        if e is old:
            model.elements[i] = new
            return
    raise ValueError(f"{old!r} is not an element of {model!r}")   # not reached from --set


def _set_force(fe, param, value, where):
    """The force element that ``--set NAME.PARAM=VALUE`` makes of ``fe``: a new one (with a
    new law); ``fe`` and its law are not changed."""
    if not isinstance(value, float):
        raise InputError(f"{where}: {fe.label()}: {param} takes one number, got {value!r}")
    if callable(getattr(fe, "with_parameters", None)):
        # an element with parameters of its own (a BodySpringDamper's k, b, r0): its
        # constructor validates them and names the element
        try:
            return fe.with_parameters(**{param: value})
        except (TypeError, ValueError) as err:
            raise InputError(f"{where}: {err}") from None
    law = fe.law
    what = f"the {type(law).__name__} law of '{fe.name}'"
    names = law_parameters(law)
    if names is not None:
        if param not in names:
            raise InputError(f"{where}: {what} has no parameter {param!r}; "
                             f"its parameters are: {', '.join(names)}")
        current = getattr(law, param)
        if isinstance(current, (Table, Table2D)):
            raise InputError(_table_whole(where, what, fe.name, param, current))
        if callable(current):
            fn = getattr(current, "__qualname__", type(current).__name__)
            raise InputError(f"{where}: {what} has {param} given as a Python function ({fn}); "
                             "a function cannot be set from the command line: change it in "
                             "the model script")
        try:   # a new law: its __post_init__ checks the new value
            return _with_law(fe, dataclasses.replace(law, **{param: value}))
        except ValueError as err:
            raise InputError(f"{where}: {err}") from None
    # a law of the user's own that is not a dataclass: a copy with the attribute set
    if not hasattr(law, param) or callable(getattr(law, param)):
        raise InputError(f"{where}: {what} has no parameter {param!r}")
    new = copy.copy(law)
    try:
        setattr(new, param, value)
        row = lawkernels.parameter_row(new)
        if not np.all(np.isfinite(row)):
            raise ValueError("its parameters are no longer finite")
        return _with_law(fe, new)
    except Exception as err:
        raise InputError(f"{where}: {what} rejects {param} = {value}: {err}") from None


def _point_forms(table):
    """The points of ``table`` as a phrase: 'xK or yK (K = 0 to 7)'."""
    if isinstance(table, Table2D):
        return (f"xI, yJ or zI_J (I = 0 to {len(table.x) - 1}, J = 0 to "
                f"{len(table.y) - 1})")
    return f"xK or yK (K = 0 to {len(table.x) - 1})"


def _table_whole(where, what, name, param, table):
    """The message refusing one number for the table parameter ``param``."""
    return (f"{where}: {what} has {param} given as {table!r}: a table is changed one point at "
            f"a time, {name}.{param}.POINT=VALUE with POINT {_point_forms(table)}")


def _set_table_point(model, bodies, elements, name, param, point, value, where):
    """Put in ``model`` the element ``name`` with point ``point`` of the table its parameter
    ``param`` holds set to ``value`` (a new table, law and element; the old ones unchanged);
    InputError naming what is wrong."""
    if not isinstance(value, float):
        raise InputError(f"{where}: a table's point takes one number, got {value!r}")
    element = elements.get(name)
    if isinstance(element, ForceElement) and not callable(getattr(element, "with_parameters",
                                                                  None)):
        law = element.law
        what = f"the {type(law).__name__} law of '{name}'"
        names = law_parameters(law)
        if names is None or param not in names:
            raise InputError(f"{where}: {what} has no parameter {param!r}"
                             + (f"; its parameters are: {', '.join(names)}" if names else ""))
        table = getattr(law, param)
    elif getattr(element, "tables", None) is not None and callable(
            getattr(element, "with_parameters", None)):       # a controller
        what = element.label()
        names = tuple(element.settable) + tuple(element.tables)
        if param not in names:
            raise InputError(f"{where}: {what} has no parameter {param!r}; its settable "
                             f"parameters are: {', '.join(names) or 'none'}")
        table = getattr(element, param, None)
    else:
        what = f"body '{name}'" if name in bodies else element.label()
        raise InputError(f"{where}: {what} holds no table: NAME.PARAM.POINT sets a point of a "
                         "parameter holding a Table or Table2D (a TableForce's table, a K "
                         "given as a Table, a Lookup's table)")
    if not isinstance(table, (Table, Table2D)):
        raise InputError(f"{where}: {what} has {param} = {table!r}, not a table: "
                         f"{name}.{param}.POINT sets a point of a parameter holding a Table or "
                         f"Table2D; set a number as {name}.{param}=VALUE")
    try:
        new_table = table.with_point(point, value)
        if isinstance(element, ForceElement):
            new = _with_law(element, dataclasses.replace(element.law, **{param: new_table}))
        else:
            new = element.with_parameters(**{param: new_table})
    except (TypeError, ValueError) as err:
        raise InputError(f"{where}: {what}: {err}") from None
    _replace_element(model, element, new)


#: the run settings a model script may set as module-level numbers, with the defaults of
#: ``mbd run`` (None: the Environment's tolerance); ``mbd demo`` reads its module's the same way
RUN_SETTINGS = (("T_END", 5.0), ("OUTPUT_STEP", 0.01), ("RTOL", None), ("ATOL", None))


def run_settings(module, t_end=None):
    """The end time and the ``simulate`` options of a run of a model script.

    Parameters
    ----------
    module : module
        The model script (or the demo module); its ``T_END``, ``OUTPUT_STEP``, ``RTOL`` and
        ``ATOL`` are read where it sets them, else the defaults of :data:`RUN_SETTINGS` hold.
    t_end : float, optional
        ``--t-end``, s: replaces the script's ``T_END``.

    Returns
    -------
    t_end : float
        s.
    options : dict
        ``output_step`` and, where set, ``rtol`` and ``atol``, for ``System.simulate``.

    Raises
    ------
    InputError
        When a setting is not a finite number > 0 (naming the setting, the script and the value).

    Examples
    --------
    >>> import types
    >>> run_settings(types.SimpleNamespace(T_END=2.0, RTOL=1e-9))
    (2.0, {'output_step': 0.01, 'rtol': 1e-09})
    >>> run_settings(types.SimpleNamespace(T_END=2.0), t_end=0.5)
    (0.5, {'output_step': 0.01})
    """
    values = {}
    for name, default in RUN_SETTINGS:
        value = getattr(module, name, None)
        if value is None:
            values[name] = default
            continue
        where = f"the model script {getattr(module, '__file__', None) or module}: {name}"
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise InputError(f"{where} must be a number, got {value!r}") from None
        if not (np.isfinite(number) and number > 0):
            raise InputError(f"{where} must be finite and > 0, got {value!r}")
        values[name] = number
    if t_end is not None:
        if not (np.isfinite(t_end) and t_end > 0):
            raise InputError(f"--t-end must be finite and > 0, got {t_end}")
        values["T_END"] = float(t_end)
    options = {"output_step": values["OUTPUT_STEP"]}
    options.update({name.lower(): values[name] for name in ("RTOL", "ATOL")
                    if values[name] is not None})
    return values["T_END"], options


def output_folder(out, where=None):
    """The output folder ``--out``, made if missing, checked before a run starts.

    Parameters
    ----------
    out : str
        The folder as given (relative to the working directory, or absolute).
    where : str, optional
        What starts the messages (default ``--out OUT``).

    Returns
    -------
    str
        Its absolute path, an existing folder this process may write into.

    Raises
    ------
    InputError
        When the path, or a folder on the way to it, is a file; when the folder cannot be
        made (the reason from the system) or cannot be written into.
    """
    path = os.path.abspath(os.fspath(out))
    where = f"--out {os.fspath(out)}" if where is None else where
    existing = path
    while not os.path.exists(existing) and os.path.dirname(existing) != existing:
        existing = os.path.dirname(existing)
    if os.path.exists(existing) and not os.path.isdir(existing):
        if existing == path:
            raise InputError(f"{where}: {path} is a file, not a directory: --out names the "
                             "folder the results are written into (made if missing)")
        raise InputError(f"{where}: {existing} is a file, not a directory, so the output "
                         f"folder {path} cannot be made in it")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as err:
        raise InputError(f"{where}: cannot make the output folder {path}: {os_reason(err)}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise InputError(f"{where}: cannot write into the output folder {path}: "
                         "permission denied")
    return path


def os_reason(err):
    """The system's reason for an OSError, as a clause: 'permission denied'."""
    text = err.strerror or str(err)
    return text[:1].lower() + text[1:]
