"""What a model shows another tool (SPEC §10): its inputs, outputs and parameters as named
scalar variables, each with its start value, unit and description.

- inputs: the model's :class:`mbd.Input`\\ s (their unit as given);
- outputs: its :class:`mbd.Sensor`\\ s (the unit of what they measure); a vector sensor
  (a quaternion, a rotation vector) gives one output per component, ``name[k]`` (k from 0);
- parameters: what ``--set`` can change, one number each: a body's ``mass``, a joint's
  ``q0``/``v0`` (joints of one coordinate), a force element's law parameters (numbers, not
  functions or signals) or its own (``with_parameters``), a controller's ``settable`` gains;
  and every point of a parameter holding a lookup table (``stop.table.y2``: a law's, a
  Lookup's), as ``--set`` names them. A law or element declares its parameters' units
  (``units``; a table's points by axis, ``"table.x"``, else a table of time: x in s, y in its
  parameter's unit); a controller's gains have the units of its signals and are left without
  one.
"""
import dataclasses
import math
import re

from ..control import Controller, Input, Sensor, Table, Table2D
from ..control.signals import components, force_units, quantity, size
from ..control.signals import unit as quantity_unit
from ..model.elements import Joint
from ..model.forceelements import ForceElement
from ..study.scripts import law_parameters
from ..study.units import joint_unit, table_point_unit


@dataclasses.dataclass
class Variable:
    """One scalar variable of the exchange: ``name`` (``"torque"``, ``"arm.mass"``),
    ``causality`` ("input", "output" or "parameter"), ``start`` value, ``unit`` ("" when it
    has none) and ``description``."""

    name: str
    causality: str
    start: float
    unit: str
    description: str


def variables(model, system):
    """The variables of ``model`` (built as ``system``): its inputs, outputs and parameters
    (:class:`Variable`), in the model's order."""
    out = [Variable(c.name, "input", c.initial, c.unit, c.description or f"input {c.name}")
           for c in system.controls if isinstance(c, Input)]
    for c in system.controls:
        if isinstance(c, Sensor):
            out += _outputs(c, system)
    return out + parameters(model, system)


def _outputs(sensor, system):
    """The output variables of a sensor: itself, or one per component of a vector one
    (``name[k]``, k from 0, as :func:`mbd.control.quantity` reads them)."""
    unit = quantity_unit(system, sensor.what)
    found = quantity(system, sensor.what)
    if size(found) == 1:
        return [Variable(sensor.name, "output", 0.0, unit, f"sensor {sensor.name}: "
                         f"{sensor.what}")]
    return [Variable(f"{sensor.name}[{k}]", "output", 0.0, unit,
                     f"sensor {sensor.name}: {sensor.what}, component {k} ({name})")
            for k, name in enumerate(components(sensor.what, found))]


def parameters(model, system):
    """The parameters of ``model`` a master can set (:class:`Variable`), see the module."""
    out = [Variable(f"{b.name}.mass", "parameter", float(b.mass), "kg",
                    f"mass of body {b.name}") for b in model.bodies]
    for e in model.elements:
        if isinstance(e, Joint):
            out += _joint(e, system)
        elif isinstance(e, ForceElement):
            out += _force_element(e, system)
        elif isinstance(e, Controller):
            out += [Variable(f"{e.name}.{p}", "parameter", float(getattr(e, p)), "",
                             f"{p} of {e.label()}") for p in e.settable
                    if _number(getattr(e, p, None))]
            for p in getattr(e, "tables", ()):
                out += _table_points(e, p, {}, e.label())
    return out


def _joint(joint, system):
    """q0 and v0 of a joint of one coordinate."""
    jm = system.joints.get(joint.name)
    if jm is None or len(jm.v_index) != 1 or len(jm.q_index) != 1:
        return []
    q0, v0 = float(joint.initial_q()[0]), float(joint.initial_v()[0])
    return [Variable(f"{joint.name}.q0", "parameter", q0, joint_unit(system, joint.name, "q0"),
                     f"initial coordinate of joint {joint.name}"),
            Variable(f"{joint.name}.v0", "parameter", v0, joint_unit(system, joint.name, "v0"),
                     f"initial rate of joint {joint.name}")]


def _force_element(element, system):
    """The numbers ``--set`` changes on a force element: its own (``with_parameters``, those
    its ``units`` names) or its law's."""
    owner, units = force_units(system, element)
    if owner is element:         # its own parameters (with_parameters): those it names
        names = list(element.units)
    else:
        names = law_parameters(element.law)
        if names is None:        # a law of the user's own that is not a dataclass
            return []
    out = [Variable(f"{element.name}.{p}", "parameter", float(getattr(owner, p)),
                    units.get(p, ""), f"{p} of {element.label()}")
           for p in names if _number(getattr(owner, p, None))]
    for p in names:
        out += _table_points(element, p, units, element.label(), owner)
    return out


def _table_points(element, param, units, label, owner=None):
    """The points of the table ``param`` of ``owner`` (default ``element``) holds, as
    ``--set`` names them (``stop.table.y2``), with the units ``units`` gives by axis
    (``"table.x"``), else those of a table of time (x in s, y in the parameter's unit); none
    when it holds no table."""
    owner = element if owner is None else owner
    table = getattr(owner, param, None)
    if not isinstance(table, (Table, Table2D)):
        return []
    words = ({"x": "breakpoint of u", "y": "breakpoint of w", "z": "value"}
             if isinstance(table, Table2D) else {"x": "breakpoint", "y": "value"})
    return [Variable(f"{element.name}.{param}.{point}", "parameter", value,
                     table_point_unit(owner, units, param, point),
                     f"{words[point[0]]} {point[1:]} of {param} of {label}")
            for point, value in table.points().items()]


def _number(value):
    """Whether ``value`` is one finite number (not a function, a signal or a table)."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


# ----------------------------------------------------------------------------- units

#: the SI base units of the unit names mbd uses, as exponents (kg, m, s, rad)
_BASE = {"kg": {"kg": 1}, "m": {"m": 1}, "s": {"s": 1}, "rad": {"rad": 1},
         "N": {"kg": 1, "m": 1, "s": -2}, "J": {"kg": 1, "m": 2, "s": -2}}

_FACTOR = re.compile(r"^([A-Za-z]+)(?:\^(-?\d+))?$")


def base_units(name):
    """The SI base-unit exponents of a unit name such as "N.m/rad", "N.s/m" or "m/s^2"
    ({"kg": 1, "m": 2, ...}, zeros left out), or None when it is not made of kg, m, s, rad,
    N and J with integer powers (such as "N/m^n", whose power is a parameter)."""
    exponents = {}
    numerator, *denominators = name.split("/")
    parts = [(p, 1) for p in numerator.split(".")] + [
        (p, -1) for d in denominators for p in d.split(".")]
    for part, sign in parts:
        match = _FACTOR.match(part)
        if match is None or match.group(1) not in _BASE:
            return None
        power = sign * int(match.group(2) or 1)
        for base, k in _BASE[match.group(1)].items():
            exponents[base] = exponents.get(base, 0) + power * k
    return {k: v for k, v in exponents.items() if v}
