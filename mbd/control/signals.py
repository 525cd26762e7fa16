"""Inputs, sensors and what a sensor can measure (SPEC §9).

A sensor names a measured quantity with the names the analyses use (SPEC §6, §7):

- ``"hinge.q"``, ``"hinge.v"``: a joint's coordinate (m or rad) and rate; ``"joint.q1"``,
  ``"joint.v1"``: the K-th of a joint of several revolute / prismatic primitives;
- ``"arm.tip.x"`` (``y``, ``z``): the world position of CS ``tip`` of body ``arm`` (m; CS
  ``cg``: the CG); ``"arm.tip.vx"`` ...: its world velocity (m/s); ``"arm.tip.wx"`` ...: the
  body's world angular velocity (rad/s);
- ``"arm.tip.ax"`` (``ay``, ``az``): the acceleration of the CS's origin in world axes (m/s^2);
  ``"arm.tip.alphax"`` (``alphay``, ``alphaz``): the body's angular acceleration (rad/s^2);
  both from the right-hand side at the state (they depend on the forces);
- ``"arm.tip.quaternion"``: the CS's orientation, (n, 4) [w, x, y, z] (scalar first), the
  rotation that turns the world axes into the CS's axes; over a result's rows its sign is
  continuous, with w >= 0 at the first row (read at one state, by a controller or
  ``sim.read``: w >= 0); ``"arm.tip.rotation_vector"``: the same rotation as a rotation
  vector (n, 3), rad, angle in [0, pi]; their components ``"arm.tip.qw"``, ``qx``, ``qy``,
  ``qz`` (1) and ``"arm.tip.rx"``, ``ry``, ``rz`` (rad);
- **relative to another CS**: any of the CS quantities above followed by ``@REF``, REF a
  body CS (``BODY.CS``) or a ground: ``"arm.tip.x@base.mount"``. As Adams measures (DX(i, j,
  k) with j = k): the difference of the two CSs' world quantities (position of ``tip`` minus
  position of ``mount``; velocities, accelerations, angular velocities and angular
  accelerations likewise, the derivatives taken in the world frame), expressed in REF's axes;
  an orientation relative to REF is the rotation of the CS relative to REF, R_REF^T R_CS
  (the CS's axes seen in REF's);
- ``"hinge.fx"`` (``fy``, ``fz``) and ``"hinge.tx"`` (``ty``, ``tz``): joint ``hinge``'s
  reaction, as :meth:`mbd.Result.reaction` gives it: the force (N) and torque (N.m, about the
  follower CS's origin) that the base side exerts on the follower through the joint, in the
  axes of the joint's base CS (the world's when the base CS is a ground's CS drawn with
  world axes); the follower exerts the opposite on the base; ``"drive.reaction"``: the force
  (N) or torque (N.m) motion driver or gear ``drive`` applies along its (output) coordinate;
- ``"stop.value"``, ``"stop.x"``, ``"stop.xdot"``: a 1-D force element's force or torque on
  its follower along +x (N or N m), what its law reads and its rate;
- ``"energy"``: the mechanism's kinetic + potential energy (J);
- ``"WHAT[k]"``: component k (from 0) of a vector quantity (``"arm.tip.quaternion[0]"`` is
  ``"arm.tip.qw"``) or of a vector sensor by its name (``"tip_q[0]"``; an FMU's outputs
  name a vector sensor's components so).

``result.sensor(name)`` gives (n,) for a scalar quantity and (n, k) for a vector one; a
controller's input is one number: a vector sensor is refused there (measure a component).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..compiled import layout
from ..model import values
from ..model.controls import ControlElement
from ..model.elements import Signal
from ..model.errors import renamed_link

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..model.builder import CS
    from ..model.forceelements import ForceElement, Law
    from ..system.system import System

#: the quantities of a CS: position, velocity and the body's angular velocity, world axes
CS_QUANTITIES = {"x": ("position", 0), "y": ("position", 1), "z": ("position", 2),
                 "vx": ("velocity", 0), "vy": ("velocity", 1), "vz": ("velocity", 2),
                 "wx": ("angular_velocity", 0), "wy": ("angular_velocity", 1),
                 "wz": ("angular_velocity", 2)}

#: the quantities of a 1-D force element
ELEMENT_QUANTITIES = ("value", "x", "xdot")
#: the quantities of a contact (mbd.Contact), with their units: the points' normal forces
#: summed, the smallest gap, the largest slip speed of a point in contact
CONTACT_QUANTITIES = {"fn": "N", "gap": "m", "slip": "m/s"}

#: the accelerations of a CS, world axes: its origin's and the body's angular one
ACCELERATION_QUANTITIES = {"ax": ("acceleration", 0), "ay": ("acceleration", 1),
                           "az": ("acceleration", 2), "alphax": ("angular_acceleration", 0),
                           "alphay": ("angular_acceleration", 1),
                           "alphaz": ("angular_acceleration", 2)}

#: the orientation of a CS: (form, component; None for the whole vector)
ORIENTATION_QUANTITIES = {"quaternion": ("quaternion", None), "qw": ("quaternion", 0),
                          "qx": ("quaternion", 1), "qy": ("quaternion", 2),
                          "qz": ("quaternion", 3), "rotation_vector": ("rotation_vector", None),
                          "rx": ("rotation_vector", 0), "ry": ("rotation_vector", 1),
                          "rz": ("rotation_vector", 2)}

#: the names of the components of a vector quantity, by form
COMPONENTS = {"quaternion": ("qw", "qx", "qy", "qz"), "rotation_vector": ("rx", "ry", "rz")}

#: a joint's reaction: (force or torque, world-or-base axis), see the module
REACTION_QUANTITIES = {"fx": ("force", 0), "fy": ("force", 1), "fz": ("force", 2),
                       "tx": ("torque", 0), "ty": ("torque", 1), "tz": ("torque", 2)}

#: what a motion driver or gear measures
DRIVER_QUANTITY = "reaction"

#: the kinds (first entry of :func:`quantity`'s tuple) a state alone gives: positions and
#: velocities, no force (what a continuous controller may read)
STATE_KINDS = ("joint", "cs", "orientation", "relative")

#: what :func:`quantity` accepts, for messages
FORMS = ("JOINT.q|v (JOINT.qK|vK of a joint of several)",
         "BODY.CS.x|y|z|vx|vy|vz|wx|wy|wz|ax|ay|az|alphax|alphay|alphaz",
         "BODY.CS.quaternion|rotation_vector|qw|qx|qy|qz|rx|ry|rz",
         "any BODY.CS quantity @BODY.CS or @GROUND (relative)",
         "JOINT.fx|fy|fz|tx|ty|tz (reaction)", "DRIVER.reaction",
         "ELEMENT.value|x|xdot", "CONTACT.fn|gap|slip", "energy",
         "WHAT[k] (a component of a vector)")


def quantity(system: System, what: str) -> tuple:
    """What ``what`` measures in ``system``.

    Parameters
    ----------
    system : System
    what : str
        A measured quantity's name (see :mod:`mbd.control.signals`).

    Returns
    -------
    tuple
        One of

        - ``("joint", "q" or "v", index into q or v)``;
        - ``("cs", body name, CS name, view, axis)``, view ``"position"``, ``"velocity"`` or
          ``"angular_velocity"`` (the :class:`mbd.run.views.BodyView` attribute), world axes;
        - ``("relative", body, CS, view, axis, reference)``: the same, relative to the CS
          named ``reference`` (``"BODY.CS"`` or a ground's name) and in its axes;
        - ``("cs_acceleration", body, CS, view, axis, reference)``, view ``"acceleration"``
          (m/s^2) or ``"angular_acceleration"`` (rad/s^2), reference None (world) or a CS
          name as above;
        - ``("orientation", body, CS, form, axis, reference)``, form ``"quaternion"`` or
          ``"rotation_vector"``, axis None for the whole vector (4 or 3 numbers) or the
          component, reference None or a CS name;
        - ``("reaction", joint name, "force" or "torque", axis)`` or ``("reaction", driver
          name, "value", None)``;
        - ``("element", index, field)``;
        - ``("contact", name, field)``, field one of :data:`CONTACT_QUANTITIES`;
        - ``("energy",)``.

        The kinds in :data:`STATE_KINDS` depend on the state alone; ``"cs_acceleration"``,
        ``"reaction"``, ``"element"``, ``"contact"`` and ``"energy"`` on the forces as well.

    Raises
    ------
    ValueError
        Saying what the name is not, with the names it could be.
    """
    if not isinstance(what, str) or not what:
        raise ValueError(f"a measured quantity is a name such as 'hinge.q', got {what!r}")
    if what.endswith("]") and "[" in what:
        return _component(system, what)
    if what == "energy":
        return ("energy",)
    measured, at, ref = what.partition("@")
    found = _measured(system, measured, what)
    if not at:
        return found
    if found[0] not in ("cs", "cs_acceleration", "orientation"):
        raise ValueError(f"'{what}': only a CS's quantity ('BODY.CS.x@BODY.CS') may be taken "
                         f"relative to another CS; '{measured}' is not one")
    reference = _reference(system, ref, what)
    if found[0] == "cs":
        return ("relative",) + found[1:] + (reference,)
    return found[:-1] + (reference,)


def _measured(system, what, full):
    """:func:`quantity` of ``what`` (no '@', no '[k]'), every CS quantity in world axes;
    ``full`` is the name given, for messages."""
    head, _, tail = what.rpartition(".")
    drivers = {d.name for d in system.drivers}
    if head in system.joints and tail[:1] in ("q", "v"):
        jm = system.joints[head]
        index = list(jm.q_index if tail[0] == "q" else jm.v_index)
        if len(index) != len(jm.v_index) or len(jm.q_index) != len(jm.v_index):
            raise ValueError(f"'{full}': joint '{head}' has a spherical or free primitive, "
                             "whose orientation is not one number; measure a CS of its "
                             "follower instead")
        k = tail[1:]
        if (k == "" and len(index) == 1) or (k.isdigit() and int(k) < len(index)):
            return ("joint", tail[0], int(index[int(k) if k else 0]))
        names = ([f"{head}.{tail[0]}"] if len(index) == 1
                 else [f"{head}.{tail[0]}{j}" for j in range(len(index))])
        raise ValueError(f"'{full}': joint '{head}' has {len(index)} coordinate(s): "
                         f"{', '.join(names)}")
    if head in system.joints:
        if tail in REACTION_QUANTITIES:
            return ("reaction", head) + REACTION_QUANTITIES[tail]
        raise ValueError(f"'{full}'{renamed_link(head, system)}: a joint measures its "
                         "coordinates and rates "
                         f"({head}.q, {head}.v, or {head}.qK, {head}.vK) and its reaction "
                         f"({', '.join(f'{head}.{r}' for r in REACTION_QUANTITIES)}), got "
                         f"'{tail}'")
    if head in drivers:
        if tail == DRIVER_QUANTITY:
            return ("reaction", head, "value", None)
        raise ValueError(f"'{full}': a motion driver or gear measures its reaction "
                         f"('{head}.{DRIVER_QUANTITY}'), got '{tail}'")
    if head in system.contacts:
        if tail not in CONTACT_QUANTITIES:
            raise ValueError(f"'{full}': a contact measures {', '.join(CONTACT_QUANTITIES)}, "
                             f"got '{tail}'")
        return ("contact", head, tail)
    if head in system.force_index:
        if tail not in ELEMENT_QUANTITIES:
            raise ValueError(f"'{full}': a force element measures "
                             f"{', '.join(ELEMENT_QUANTITIES)}, got '{tail}'")
        index = system.force_index[head]
        if system.force_elements[index].vector_valued:
            raise ValueError(f"'{full}': force element '{head}' is not 1-D (a bushing or a "
                             "body spring-damper); measure the CSs it joins")
        return ("element", index, tail)
    body, _, cs = head.rpartition(".")
    if body in system.bodies:
        _body_cs(system, body, cs, full)
        if tail in CS_QUANTITIES:
            return ("cs", body, cs) + CS_QUANTITIES[tail]
        if tail in ACCELERATION_QUANTITIES:
            return ("cs_acceleration", body, cs) + ACCELERATION_QUANTITIES[tail] + (None,)
        if tail in ORIENTATION_QUANTITIES:
            return ("orientation", body, cs) + ORIENTATION_QUANTITIES[tail] + (None,)
        known = [*CS_QUANTITIES, *ACCELERATION_QUANTITIES, *ORIENTATION_QUANTITIES]
        raise ValueError(f"'{full}': a CS measures {', '.join(known)}, got '{tail}'")
    raise ValueError(f"'{full}' names no joint, motion driver, force element or body CS"
                     f"{renamed_link(body or head, system)}; a "
                     f"measured quantity is one of: {'; '.join(FORMS)} (joints "
                     f"{sorted(system.joints)}, "
                     + (f"drivers and gears {sorted(drivers)}, " if drivers else "")
                     + f"force elements {sorted(system.force_index)}, bodies "
                     f"{sorted(system.bodies)})")


def _body_cs(system, body, cs, full):
    """Raise ValueError (naming ``full``) unless body ``body`` has a CS ``cs``."""
    frames = system.bodies[body].body.frames
    if cs not in frames and cs != "cg":
        raise ValueError(f"'{full}': body '{body}' has no CS '{cs}'; its CSs are "
                         f"{', '.join(sorted(set(frames) | {'cg'}))}")


def _reference(system, ref, full):
    """The reference CS's name ``ref`` (after '@' in ``full``) checked: a ground or a body
    CS."""
    if ref in system.grounds:
        return ref
    body, _, cs = ref.rpartition(".")
    if body in system.bodies:
        _body_cs(system, body, cs, full)
        return ref
    raise ValueError(f"'{full}': the reference CS '{ref}' after '@' is no ground nor body CS "
                     f"(BODY.CS){renamed_link(body or ref, system)}; the grounds are "
                     f"{sorted(system.grounds)}, the bodies {sorted(system.bodies)}")


def cs_of(system: System, name: str) -> CS:
    """The CS (a :class:`mbd.model.builder.CS`) a reference name of :func:`quantity` names:
    a ground's name or ``"BODY.CS"``."""
    if name in system.grounds:
        return system.grounds[name]
    body, _, cs = name.rpartition(".")
    return system.bodies[body].body[cs]


def size(found: tuple) -> int:
    """How many numbers a quantity (a tuple of :func:`quantity`) is: 1, or a vector's 4
    (quaternion) or 3 (rotation vector)."""
    if found[0] == "orientation" and found[4] is None:
        return len(COMPONENTS[found[3]])
    return 1


def components(what: str, found: tuple) -> list[str]:
    """The names of the scalar components of vector quantity ``what`` (its tuple ``found``):
    ``"arm.tip.quaternion@base.mount"`` -> ``["arm.tip.qw@base.mount", ...]``."""
    measured, at, ref = what.partition("@")
    head = measured.rpartition(".")[0]
    return [f"{head}.{c}{at}{ref}" for c in COMPONENTS[found[3]]]


def _component(system, what):
    """:func:`quantity` of ``"WHAT[k]"``: component k of a vector quantity or of a vector
    sensor's."""
    head, _, index = what[:-1].rpartition("[")
    sensors = {c.name: c for c in system.controls if isinstance(c, Sensor)}
    source = sensors[head].what if head in sensors else head
    if source.endswith("]"):        # a component of a component: never a vector
        found = ()
    else:
        found = quantity(system, source)
    if not found or size(found) == 1:
        raise ValueError(f"'{what}': '{head}' is no vector quantity or sensor, whose "
                         "components '[k]' could be taken")
    n = size(found)
    if not (index.isdigit() and int(index) < n):
        raise ValueError(f"'{what}': '{head}' measures {n} numbers: [0] to [{n - 1}]")
    return found[:4] + (int(index),) + found[5:]


def coordinate_unit(system: System, i: int) -> str:
    """The unit of joint velocity coordinate ``i`` of ``system``'s tree: "m" on a prismatic
    primitive, else "rad" (a coordinate's rate is in it per second)."""
    link = next(link for link in system.tree if link["vadr"] <= i < link["vadr"] + link["nd"])
    return "m" if link["jtype"] == layout.PRISMATIC else "rad"


def element_units(system: System, element: ForceElement) -> tuple[str, str]:
    """(force unit, coordinate unit) of a 1-D force element of ``system``: ("N", "m") on a
    translational coordinate or line, ("N.m", "rad") on a rotational one."""
    if element.placement == "joint":
        jm = system.joints[element.joint.name]
        length = coordinate_unit(system, int(jm.v_index[element.primitive]))
    else:
        length = "rad" if element.placement == "rotational" else "m"
    return ("N", "m") if length == "m" else ("N.m", "rad")


def force_units(system: System,
                element: ForceElement) -> tuple[ForceElement | Law, dict[str, str]]:
    """(owner, {parameter: unit}): what holds a force element's parameters (the element
    where it takes its own, else its law) and the units it declares (``units``), ``{F}`` and
    ``{L}`` read for the element's coordinate."""
    owner = element if callable(getattr(element, "with_parameters", None)) else element.law
    declared = getattr(owner, "units", None)
    if not isinstance(declared, dict):
        return owner, {}
    force, length = element_units(system, element)
    return owner, {param: unit.format(F=force, L=length) for param, unit in declared.items()}


def unit(system: System, what: str) -> str:
    """The unit of measured quantity ``what`` in ``system`` (see :func:`quantity`): "m",
    "rad", "m/s", "rad/s", "m/s^2", "rad/s^2", "1" (a quaternion), "N", "N.m" or "J"."""
    found = quantity(system, what)
    kind = found[0]
    if kind == "energy":
        return "J"
    if kind == "joint":
        i = found[2]
        if found[1] == "q":     # its rate's index: q and v differ past a quaternion (4 q, 3 v)
            jm = next(jm for jm in system.joints.values() if i in jm.q_index)
            i = int(jm.v_index[list(jm.q_index).index(i)])
        length = coordinate_unit(system, i)
        return length if found[1] == "q" else length + "/s"
    if kind in ("cs", "relative", "cs_acceleration"):
        return {"position": "m", "velocity": "m/s", "angular_velocity": "rad/s",
                "acceleration": "m/s^2", "angular_acceleration": "rad/s^2"}[found[3]]
    if kind == "orientation":
        return "1" if found[3] == "quaternion" else "rad"
    if kind == "reaction":
        if found[2] == "value":     # along the driven coordinate: a force on a length
            driver = next(d for d in system.drivers if d.name == found[1])
            return "N" if coordinate_unit(system, driver.v_index) == "m" else "N.m"
        return "N" if found[2] == "force" else "N.m"
    if kind == "contact":
        return CONTACT_QUANTITIES[found[2]]
    force, length = element_units(system, system.force_elements[found[1]])
    return {"value": force, "x": length, "xdot": length + "/s"}[found[2]]


class Sensor(ControlElement):
    """A named, measured quantity: usable as a controller's input during the run (a scalar
    one), and read from the result as ``result.sensor(name)``: (n,) for a scalar, (n, 4) or
    (n, 3) for a quaternion or rotation vector.

    Parameters
    ----------
    name : str
    what : str
        The quantity measured (see :mod:`mbd.control.signals`): ``"hinge.q"``,
        ``"arm.tip.z"``, ``"arm.tip.az"`` (m/s^2), ``"arm.tip.quaternion"``,
        ``"arm.tip.x@base.mount"`` (relative), ``"hinge.fz"`` (reaction, N),
        ``"drive.reaction"``, ``"stop.value"``, ``"energy"`` ...

    Examples
    --------
    >>> Sensor("angle", "hinge.q")
    Sensor('angle', 'hinge.q')
    >>> Sensor("tip_height", "arm.tip.z@base.mount")
    Sensor('tip_height', 'arm.tip.z@base.mount')
    """

    role = "sensor"

    def __init__(self, name: str, what: str) -> None:
        self.name, self.what = name, what

    def describe(self) -> str:
        return f"{self.label()}: measures {self.what}"

    def check(self, system: System, controls: Mapping[str, ControlElement]) -> list[str]:
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

    role = "input"

    settable = ("value",)

    def __init__(self, name: str, value: float = 0.0, unit: str = "",
                 description: str = "") -> None:
        self.name = name
        self.initial = values.real(value, f"Input '{name}': value", "finite",
                                   math.isfinite)
        self.unit, self.description = str(unit), str(description)

    @property
    def key(self) -> str:
        """The name of the held value it is (:mod:`mbd.run.controls`)."""
        return self.name

    def describe(self) -> str:
        unit = f" {self.unit}" if self.unit else ""
        return f"{self.label()}: starts at {self.initial!r}{unit}"

    def __repr__(self):
        return f"Input({self.name!r}, {self.initial!r}, unit={self.unit!r})"
