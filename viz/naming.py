"""What a force element is, in words for pictures: its kind, its label, and whether its
value is a force or a torque (with the unit); a picture's default title; the folder a picture
is to be written into, named when it is missing. Shared by the 3-D scene, the plots and the
web page, and free of pyvista and matplotlib so that either imports it cheaply.

Examples
--------
>>> import mbd
>>> from forces import Bistop, JointForce
>>> from joints import Prismatic
>>> m = mbd.Model("slot")
>>> g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, -9.81)))
>>> b = m.add_body("block", mass=1.0, cg=(0, 0, 0), inertia=[1e-2] * 3)
>>> slide = m.add(Prismatic("slide", g, b["cg"], axis=(1, 0, 0)))
>>> stops = m.add(JointForce("stops", slide, Bistop(x1=-0.3, x2=0.3, k=1e4, e=1.5, cmax=5.0,
...                                                  d=1e-3)))
>>> element_kind(stops), element_label(stops), load_kind(stops)
('Bistop', "Bistop 'stops'", ('force', 'N'))
"""

import os

__all__ = ["default_title", "element_kind", "element_label", "load_kind", "existing_folder"]

#: labels longer than this go on two lines: the kind, then the name
LABEL_WIDTH = 26


def element_kind(fe):
    """What a force element is: its law's class name (``Bistop``), or the element's own
    class name where its law is internal to it (``BodySpringDamper``)."""
    law = getattr(fe, "law", None)
    kind = type(law).__name__ if law is not None else ""
    return type(fe).__name__ if not kind or kind.startswith("_") else kind


def element_label(fe):
    """A force element's label: ``Bistop 'stops'``; the kind and the name on two lines
    when longer than :data:`LABEL_WIDTH` characters."""
    text = f"{element_kind(fe)} '{fe.name}'"
    return text if len(text) <= LABEL_WIDTH else f"{element_kind(fe)}\n'{fe.name}'"


def load_kind(fe):
    """("torque", "N m") or ("force", "N"): what a force element's value is.

    A JointForce takes its primitive's kind (revolute: torque, prismatic: force); a
    rotational placement is a torque; line and axial placements and the BodySpringDamper
    are forces.
    """
    placement = getattr(fe, "placement", None)
    if placement == "joint":
        rotary = fe.joint.primitives[fe.primitive].kind == "R"
    else:
        rotary = placement == "rotational"
    return ("torque", "N m") if rotary else ("force", "N")


def default_title(system):
    """(title, subtitle) of a picture of ``system``: its name, and how many machines,
    bodies, joints and force elements it holds."""
    def count(items, one, many):
        return f"{len(items)} {one if len(items) == 1 else many}"
    return system.name, ", ".join([count(system.machines, "machine", "machines"),
                                   count(system.bodies, "body", "bodies"),
                                   count(system.joints, "joint", "joints"),
                                   count(system.force_elements, "force element",
                                         "force elements")])


def existing_folder(who, path):
    """The folder (absolute) that ``path`` is to be written into; ValueError naming it, and
    ``who`` (the function: "viz.html"), when it does not exist. Checked before anything is
    drawn: otherwise the first thing to fail is the temporary file beside the target, and the
    message names that instead.

    Examples
    --------
    >>> existing_folder("viz.animate", "/no/such/run.gif")
    Traceback (most recent call last):
    ...
    ValueError: viz.animate: the folder '/no/such' of '/no/such/run.gif' does not exist
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"{who}: the folder {folder!r} of {path!r} does not exist")
    return folder
