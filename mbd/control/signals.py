"""Inputs, sensors and what a sensor can measure (SPEC §9).

A sensor names a measured quantity with the names the analyses use (SPEC §6, §7):

- ``"hinge.q"``, ``"hinge.v"``: a joint's coordinate (m or rad) and rate; ``"joint.q1"``,
  ``"joint.v1"``: the K-th of a joint of several revolute / prismatic primitives;
- ``"arm.tip.x"`` (``y``, ``z``): the world position of CS ``tip`` of body ``arm`` (m; CS
  ``cg``: the CG); ``"arm.tip.vx"`` ...: its world velocity (m/s); ``"arm.tip.wx"`` ...: the
  body's world angular velocity (rad/s);
- ``"stop.value"``, ``"stop.x"``, ``"stop.xdot"``: a 1-D force element's force or torque on
  its follower along +x (N or N m), what its law reads and its rate;
- ``"energy"``: the mechanism's kinetic + potential energy (J).
"""
import math

from ..compiled import layout
from ..model import values
from ..model.controls import ControlElement
from ..model.elements import Signal

#: the quantities of a CS: position, velocity and the body's angular velocity, world axes
CS_QUANTITIES = {"x": ("position", 0), "y": ("position", 1), "z": ("position", 2),
                 "vx": ("velocity", 0), "vy": ("velocity", 1), "vz": ("velocity", 2),
                 "wx": ("angular_velocity", 0), "wy": ("angular_velocity", 1),
                 "wz": ("angular_velocity", 2)}

#: the quantities of a 1-D force element
ELEMENT_QUANTITIES = ("value", "x", "xdot")

#: what :func:`quantity` accepts, for messages
FORMS = ("JOINT.q|v (JOINT.qK|vK of a joint of several)", "BODY.CS.x|y|z|vx|vy|vz|wx|wy|wz",
         "ELEMENT.value|x|xdot", "energy")


def quantity(system, what):
    """What ``what`` measures in ``system``: ("joint", "q" or "v", index into q or v),
    ("cs", body name, CS name, view attribute, axis), ("element", index, field) or
    ("energy",). Raises ValueError saying what the name is not, with the names it could be."""
    if not isinstance(what, str) or not what:
        raise ValueError(f"a measured quantity is a name such as 'hinge.q', got {what!r}")
    if what == "energy":
        return ("energy",)
    head, _, tail = what.rpartition(".")
    if head in system.joints and tail[:1] in ("q", "v"):
        jm = system.joints[head]
        index = list(jm.q_index if tail[0] == "q" else jm.v_index)
        if len(index) != len(jm.v_index) or len(jm.q_index) != len(jm.v_index):
            raise ValueError(f"'{what}': joint '{head}' has a spherical or free primitive, "
                             "whose orientation is not one number; measure a CS of its "
                             "follower instead")
        k = tail[1:]
        if (k == "" and len(index) == 1) or (k.isdigit() and int(k) < len(index)):
            return ("joint", tail[0], int(index[int(k) if k else 0]))
        names = ([f"{head}.{tail[0]}"] if len(index) == 1
                 else [f"{head}.{tail[0]}{j}" for j in range(len(index))])
        raise ValueError(f"'{what}': joint '{head}' has {len(index)} coordinate(s): "
                         f"{', '.join(names)}")
    if head in system.force_index:
        if tail not in ELEMENT_QUANTITIES:
            raise ValueError(f"'{what}': a force element measures "
                             f"{', '.join(ELEMENT_QUANTITIES)}, got '{tail}'")
        index = system.force_index[head]
        if system.force_elements[index].placement == "bushing" or getattr(
                system.force_elements[index], "vector_valued", False):
            raise ValueError(f"'{what}': force element '{head}' is not 1-D (a bushing or a "
                             "body spring-damper); measure the CSs it joins")
        return ("element", index, tail)
    body, _, cs = head.rpartition(".")
    if body in system.bodies:
        frames = system.bodies[body].body.frames
        if cs not in frames and cs != "cg":
            raise ValueError(f"'{what}': body '{body}' has no CS '{cs}'; its CSs are "
                             f"{', '.join(sorted(frames))}")
        if tail not in CS_QUANTITIES:
            raise ValueError(f"'{what}': a CS measures {', '.join(CS_QUANTITIES)}, got "
                             f"'{tail}'")
        return ("cs", body, cs) + CS_QUANTITIES[tail]
    raise ValueError(f"'{what}' names no joint, force element or body CS; a measured "
                     f"quantity is one of: {'; '.join(FORMS)} (joints "
                     f"{sorted(system.joints)}, force elements {sorted(system.force_index)}, "
                     f"bodies {sorted(system.bodies)})")


def coordinate_unit(system, i):
    """The unit of joint velocity coordinate ``i`` of ``system``'s tree: "m" on a prismatic
    primitive, else "rad" (a coordinate's rate is in it per second)."""
    for link in system.tree:
        if link["vadr"] <= i < link["vadr"] + link["nd"]:
            return "m" if link["jtype"] == layout.PRISMATIC else "rad"
    return ""


def element_units(system, element):
    """(force unit, coordinate unit) of a 1-D force element of ``system``: ("N", "m") on a
    translational coordinate or line, ("N.m", "rad") on a rotational one."""
    if element.placement == "joint":
        jm = system.joints[element.joint.name]
        length = coordinate_unit(system, int(jm.v_index[element.primitive]))
    else:
        length = "rad" if element.placement == "rotational" else "m"
    return ("N", "m") if length == "m" else ("N.m", "rad")


def unit(system, what):
    """The unit of measured quantity ``what`` in ``system`` (see :func:`quantity`): "m",
    "rad", "m/s", "rad/s", "N", "N.m" or "J"."""
    found = quantity(system, what)
    if found[0] == "energy":
        return "J"
    if found[0] == "joint":
        length = coordinate_unit(system, found[2])
        return length if found[1] == "q" else length + "/s"
    if found[0] == "cs":
        return {"position": "m", "velocity": "m/s", "angular_velocity": "rad/s"}[found[3]]
    force, length = element_units(system, system.force_elements[found[1]])
    return {"value": force, "x": length, "xdot": length + "/s"}[found[2]]


class Sensor(ControlElement):
    """A named, measured quantity: usable as a controller's input during the run, and read
    from the result as ``result.sensor(name)`` (n,).

    Parameters
    ----------
    name : str
    what : str
        The quantity measured (see :mod:`mbd.control.signals`): ``"hinge.q"``,
        ``"arm.tip.z"``, ``"stop.value"``, ``"energy"`` ...

    Examples
    --------
    >>> Sensor("angle", "hinge.q")
    Sensor('angle', 'hinge.q')
    """

    def __init__(self, name, what):
        self.name, self.what = name, what

    def describe(self):
        return f"{self.label()}: measures {self.what}"

    def check(self, system, controls):
        try:
            quantity(system, self.what)
        except ValueError as err:
            return [f"{self.label()}: {err}"]
        return []

    def __repr__(self):
        return f"Sensor({self.name!r}, {self.what!r})"


class Input(ControlElement, Signal):
    """A named value set from outside the model and held until set again: by a live
    simulation (``sim.set_input(name, value)``), by an FMU's master, or fixed for a run.
    Give it where a law takes a value (``Actuator(value=the_input)``) or as a controller's
    input.

    Parameters
    ----------
    name : str
    value : float
        Its value until one is set (its start value), in ``unit``.
    unit : str
        Its unit, for exchange (``"N"``, ``"N.m"``, ``"rad"``); free text.
    description : str

    Examples
    --------
    >>> Input("torque", 0.5, unit="N.m")
    Input('torque', 0.5, unit='N.m')
    """

    settable = ("value",)

    def __init__(self, name, value=0.0, unit="", description=""):
        self.name = name
        self.initial = values.real(value, f"Input '{name}': value", "finite",
                                   math.isfinite)
        self.unit, self.description = str(unit), str(description)

    @property
    def key(self):
        """The name of the held value it is (:mod:`mbd.run.controls`)."""
        return self.name

    def describe(self):
        unit = f" {self.unit}" if self.unit else ""
        return f"{self.label()}: starts at {self.initial!r}{unit}"

    def __repr__(self):
        return f"Input({self.name!r}, {self.initial!r}, unit={self.unit!r})"


def signal_key(item):
    """The held value a law parameter reads from ``item`` (an Input or a controller's
    output): its key."""
    return item.key
