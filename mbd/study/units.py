"""The units of a sweep's columns: its parameters (as ``--set`` names them) and its outputs,
where the model knows them; an unknown unit is "" (left out, never guessed).

- a body's ``mass``: kg;
- a joint's ``q0`` / ``v0`` (a joint of one coordinate): m and m/s on a prismatic primitive,
  rad and rad/s on a revolute one;
- a force element's law parameter, or its own (a BodySpringDamper's ``k``): the unit its law
  or element declares (``units``, ``{F}``/``{L}`` read as N/m or N.m/rad by its coordinate);
  a point of a table it holds (``stop.table.y2``): the table's axis unit, or for a parameter
  given as a table of time (a K(t)), s for x and the parameter's unit for y;
- an :class:`mbd.Input`'s ``value``: the unit it was given; a controller's ``period``: s
  (gains have the units of their signals: left out);
- an output ``"REDUCTION:QUANTITY"``: the quantity's (joint.NAME.q m or rad, .v m/s or
  rad/s; force.NAME.value N or N.m; body.NAME.CS.x m; energy J); ``first:events.NAME`` s;
  ``count:events.NAME`` and a function of the Result none;
- ``t_reached``, ``wall_s``: s.

Units are written as the exchange writes them (``N.m``, ``N.s/m``, ``m/s^2``).

Examples
--------
>>> import mbd
>>> from forces import Bistop, JointForce
>>> from joints import Prismatic
>>> m = mbd.Model("slot")
>>> g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, -9.81)))
>>> b = m.add_body("block", mass=1.0, cg=(0, 0, 0), inertia=[1e-2] * 3)
>>> slide = m.add(Prismatic("slide", g, b["cg"], axis=(1, 0, 0)))
>>> _ = m.add(JointForce("stop", slide, Bistop(x1=-0.3, x2=0.3, k=1e4, e=1.5, cmax=5.0,
...                                            d=1e-3)))
>>> s = m.build()
>>> parameter_units(m, s, ["block.mass", "slide.q0", "stop.cmax", "stop.e"])
{'block.mass': 'kg', 'slide.q0': 'm', 'stop.cmax': 'N.s/m', 'stop.e': ''}
>>> from mbd.study.outputs import Output
>>> output_units(s, [Output("peak", "absmax:force.stop.value"), Output("n", "count:events.stop")])
{'peak': 'N', 'n': ''}
"""
from ..control import Input, Table, Table2D
from ..control.signals import coordinate_unit, element_units, force_units
from ..model.elements import Joint
from ..model.forceelements import ForceElement

__all__ = ["output_units", "parameter_units", "study_units"]

#: the units of the table's own trailing columns
TRAILING_UNITS = {"t_reached": "s", "wall_s": "s"}


def study_units(model, system, names, outputs):
    """The units of a sweep's table, as ``table.attrs["units"]`` holds them.

    Parameters
    ----------
    model : mbd.Model
        The model the sweep's cases override (one case's; units do not depend on values).
    system : mbd.System
        ``model.build()``.
    names : sequence of str
        The parameters, as ``--set`` names them ("arm.mass", "stop.k").
    outputs : sequence of mbd.study.outputs.Output
        The outputs, checked against ``system``.

    Returns
    -------
    dict
        {column: unit} of the parameters, the outputs, ``t_reached`` and ``wall_s`` (s);
        "" where the unit is not known. Units as the exchange writes them ("N.m", "N.s/m").
    """
    return {**parameter_units(model, system, names), **output_units(system, outputs),
            **TRAILING_UNITS}


def parameter_units(model, system, names):
    """{name: unit} of the override names ``names`` ("arm.mass", "hinge.q0", "stop.k",
    "stop.table.y2") of ``model`` (``system`` its build); "" where the unit is not known."""
    return {name: _unknown_if_unreadable(_parameter_unit, model, system, name)
            for name in names}


def _unknown_if_unreadable(find, *args):
    """``find(*args)``, or "" where an element of the user's own does not say its unit in a
    form read here (a unit is for the pictures: it never stops a sweep)."""
    try:
        return find(*args)
    except (AttributeError, IndexError, KeyError, TypeError, ValueError):
        return ""


def _parameter_unit(model, system, name):
    owner, _, param = name.rpartition(".")
    bodies = {b.name for b in model.bodies}
    elements = {getattr(e, "name", None): e for e in model.elements}
    if owner in bodies:
        return "kg" if param == "mass" else ""
    element = elements.get(owner)
    if isinstance(element, Joint):
        return joint_unit(system, owner, param)
    if isinstance(element, ForceElement):
        return force_units(system, element)[1].get(param, "")
    if isinstance(element, Input):
        return element.unit if param == "value" else ""
    if element is not None:               # a controller, a gear: only a period is known
        return "s" if param == "period" else ""
    # a table's point, "stop.table.y2": the owner is ELEMENT.PARAM
    table_owner, _, table_param = owner.rpartition(".")
    element = elements.get(table_owner)
    if isinstance(element, ForceElement):
        return table_point_unit(*force_units(system, element), table_param, param)
    return ""


def joint_unit(system, name, param):
    """q0 and v0 of a joint of one coordinate: its length (m or rad), per second for v0."""
    jm = system.joints.get(name)
    if jm is None or len(jm.q_index) != 1 or len(jm.v_index) != 1 or param not in ("q0",
                                                                                    "v0"):
        return ""
    length = coordinate_unit(system, int(jm.v_index[0]))
    return length if param == "q0" or not length else length + "/s"


def table_point_unit(owner, units, param, point):
    """The unit of point ``point`` ("x3", "y2", "z1_0") of the table ``param`` of ``owner``:
    the axis unit it declares ("table.x"), else, for a parameter given as a table of time,
    s (x) and the parameter's own unit (y, or z of a Table2D)."""
    table = getattr(owner, param, None)
    if not isinstance(table, (Table, Table2D)) or not point:
        return ""
    axis = point[0]
    if f"{param}.x" in units:
        return units.get(f"{param}.{axis}", "")
    value_axis = "z" if isinstance(table, Table2D) else "y"
    if param in units:
        return {"x": "s", value_axis: units[param]}.get(axis, "")
    return ""


def output_units(system, outputs):
    """{column: unit} of a sweep's outputs ([:class:`mbd.study.outputs.Output`], checked
    against ``system``); "" for a count and for a function of the Result."""
    return {o.column: _unknown_if_unreadable(_output_unit, system, o) for o in outputs}


def _output_unit(system, output):
    if output.function is not None:
        return ""
    kind, parts = output.parts[0], output.parts
    if kind == "events":
        return "s" if output.reduction == "first" else ""
    if kind == "energy":
        return "J"
    if kind == "body":
        return "m"
    if kind == "joint":
        jm = system.joints[parts[1]]
        k = int(parts[3]) if len(parts) == 4 else 0
        if parts[2] == "q" and len(jm.q_index) != len(jm.v_index):
            return ""           # a quaternion's component: no unit
        length = coordinate_unit(system, int(jm.v_index[k]))
        return length if parts[2] == "q" or not length else length + "/s"
    fe = system.force_elements[system.force_index[parts[1]]]
    if fe.vector_valued:
        return "N"             # a 3-D element's world force on B (or a component of it)
    return element_units(system, fe)[0]
