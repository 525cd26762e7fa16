"""URDF import (SPEC §10): a robot description becomes an editable :class:`mbd.Model`.

What a URDF holds becomes mbd's own elements, with the URDF's names:

- **links** are bodies (mass, the inertia at the inertial origin, turned into world axes). A
  link fixed to its parent (a ``fixed`` joint: a flange, a tool frame, a sensor) is part of
  its parent's body: their masses and inertias add up (Pinocchio and MuJoCo merge them the
  same way; a massless link's rotational inertia counts, as in Pinocchio), and its frame is a
  CS of that body named after the link. Each ``<inertial>`` must be a mass >= 0 and a
  positive semidefinite inertia; the sum, the body mbd moves, must be one a rigid body has
  (within the triangle inequality), whatever a fixed link's own made-up inertia is. A massless
  link or a point mass is a body like any other, as long as each joint moves some inertia
  (``build()`` names a joint that moves none: lock it, ``lock=``). A link named as a joint is
  the body (or ground) ``LINK_link``: an mbd model names bodies and joints in one namespace, a
  URDF in two; the joint keeps its name, and a "no body 'LINK'" error says where the link went
  (:func:`mbd.model.builder.renamed_link`). With a fixed base the
  root link and everything fixed to it are the ground: the root link's frame is the ground
  ``ROOT`` (it carries the environment, gravity -z by default), and every joint leaving it
  starts at a ground ``JOINT_base`` of its own (with the same environment).
- **joints** ``revolute``, ``continuous`` (:class:`joints.Revolute`), ``prismatic``
  (:class:`joints.Prismatic`), ``floating`` (:class:`joints.SixDof`) and ``planar``
  (:class:`joints.Planar`) join the CS named after the joint on the parent's body to the CS
  of that name on the child's (the joint frame at q = 0, the child link's frame; on a body
  that has a link of the joint's name, the CS ``JOINT_joint``), about or along the URDF axis
  (``planar``: q = (x, y, phi), along the joint frame's x and y and about the axis z; for
  another axis, along the joint frame's axis least aligned with it, projected on the plane,
  and the axis times that); ``floating=True`` adds a ``SixDof`` ``root_joint`` from the ground
  ``world`` to the root link. Every coordinate is the URDF's: 0 at the URDF's zero
  configuration, where each joint starts (``q0=`` gives other starts).
- **starts outside the limits**: a joint whose start lies outside its ``<limit>`` (the zero
  pose of the Kinova, of the Panda's fourth joint, of many quadrupeds' knees) would start
  pressed into its end stop, which would release its energy at once (53 kJ for the Kinova).
  ``from_urdf`` warns (:class:`StartOutsideLimits`) and ``build()`` refuses it, naming each
  joint, its limits and its start, unless ``start="inside"`` (each such joint starts at its
  nearest limit, where its stop's force is zero) or ``start="anywhere"`` (as given, on
  purpose).
- ``<limit lower upper>`` of a revolute or prismatic joint is an end stop (``limits="stops"``,
  a :class:`forces.Bistop` ``JOINT_limit`` on the joint, of the parameters ``stop``; none on a
  mimic joint, which its leader's stop bounds), or nothing (``limits="ignore"``); effort and
  velocity limits are not modelled.
- ``<dynamics damping friction>`` is a :class:`forces.Damper` ``JOINT_damping`` (torque or
  force -damping q') and a :class:`forces.JointStiction` ``JOINT_friction`` (static = kinetic
  = friction: -friction sign(q') while the joint slips, up to friction holding it at rest).
- ``<mimic joint multiplier offset>`` is a :class:`mbd.GearConstraint` ``JOINT_mimic`` (q =
  multiplier q_joint + offset; with an offset, assembly brings q0 onto it), or nothing
  (``mimic=False``: the joint moves on its own, as Pinocchio reads it).
- ``lock=`` fixes named joints at a position (Pinocchio's ``buildReducedModel``): their
  child links join their parents' bodies, and the joints that mimic them are locked too.
- **visuals** (box, cylinder, sphere; STL, OBJ, PLY and DAE meshes, ``package://`` paths
  found under ``package_dirs``; ``package:///PACKAGE/...`` too) are shapes at CSs
  ``LINK_visualK`` of the body (those of the fixed base at grounds ``LINK_visualK``, drawn
  fixed in the world): plain geometry (:mod:`mbd.model.shapes`) that :mod:`viz` draws; a mesh
  file is found here and read only when drawn.

Units are SI, as URDF's. The URDF is read by yourdfpy (the optional extra ``mbd[urdf]``).
"""
from __future__ import annotations

import os
import warnings
from typing import TYPE_CHECKING

import numpy as np

from forces import Bistop, Damper, JointForce, JointStiction
from joints import Planar, Prismatic, Revolute, SixDof

from ..model.builder import Environment
from ..model.drivers import GearConstraint
from ..model.errors import ModelError
from ..model.shapes import Box, Cylinder, Mesh, Sphere
from .urdfcontact import FRICTION, HULL_VERTICES, add_floor, check_contact_options, collision_shape
from .urdfstarts import STARTS, Robot, StartOutsideLimits, outside_limits, outside_text
from .urdftree import UrdfTree, origin_matrix, unit_axis

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from ..model.builder import Model
    from ..model.contacts import Coulomb
    from ..model.forceelements import Law

#: the default end stop of a limited joint (:class:`forces.Bistop`'s parameters: stiffness
#: N/m or N m/rad, exponent, the most damping N s/m or N m s/rad, the penetration where it is
#: reached m or rad): stiff enough to hold a robot arm's links within ~1 mrad under gravity
STOP = {"k": 1e5, "e": 1.0, "cmax": 1e3, "d": 1e-3}

def from_urdf(path: str | os.PathLike, package_dirs: Sequence[str] = (), floating: bool = False,
              limits: str = "stops", name: str | None = None,
              environment: Environment | None = None, stop: Mapping[str, float] | None = None,
              dynamics: bool = True, lock: Sequence[str] | Mapping[str, float] = (),
              mimic: bool = True, q0: Mapping[str, float] | None = None,
              start: str = "checked", contact: bool | Sequence[str] = False,
              floor: float = 0.0, contact_law: Law | None = None,
              contact_friction: Coulomb | None = FRICTION,
              hull_vertices: int = HULL_VERTICES) -> Model:
    """The :class:`mbd.Model` of the robot described by the URDF file ``path``.

    Parameters
    ----------
    path : str or os.PathLike
        The URDF file.
    package_dirs : sequence of str
        Folders holding the packages that ``package://PACKAGE/...`` mesh paths name (the
        folder in which ``PACKAGE`` is a subfolder); the URDF's own folder and its parents
        are searched too.
    floating : bool
        A floating base: a ``SixDof`` ``root_joint`` from the ground to the root link
        (q = position (m) and unit quaternion (w, x, y, z) of the root link's frame; v = its
        world velocity, m/s, and its angular velocity in its own axes, rad/s). Otherwise the
        root link is the ground.
    limits : {"stops", "ignore"}
        Position limits as end stops (a ``Bistop`` per limited joint), or not modelled.
    name : str, optional
        The model's name (default: the URDF's robot name).
    environment : mbd.Environment, optional
        The ground's environment (default: gravity 9.81 m/s^2 along -z).
    stop : dict, optional
        Parameters of the end stops, overriding :data:`STOP`.
    dynamics : bool
        ``<dynamics damping friction>`` as a damper and a stiction element (True), or not.
    lock : sequence of str or dict, optional
        Joints to lock, as Pinocchio's ``buildReducedModel`` does: each named revolute,
        continuous or prismatic joint becomes fixed at 0 (a sequence of names) or at the given
        position (a dict ``{name: rad or m}``), its child merged into its parent's body. A
        joint that mimics a locked joint is locked where the mimic puts it. Use it for a hand
        whose links have no mass (which build() refuses: nothing gives those joints an
        acceleration) or for joints a study holds still.
    mimic : bool
        ``<mimic>`` as a gear constraint (True), or ignored, the joint then moving on its own
        (False; as Pinocchio reads a URDF).
    q0 : dict, optional
        Start positions ``{joint name: rad or m}`` of revolute, continuous and prismatic
        joints (each joint's ``q0``); the others start at the URDF's zero.
    start : {"checked", "inside", "anywhere"}
        What becomes of a joint whose start (0, or its ``q0``) lies outside its ``<limit>``
        (with ``limits="stops"``; a start exactly at a limit is inside). Its end stop would
        start pressed in by the difference and push it back at once with stiffness times
        that (1e5 N m/rad by default: 53 kJ released at the Kinova's zero pose).
        ``"checked"``: a :class:`StartOutsideLimits` warning names each such joint, its
        limits and its start, and ``build()`` refuses the model while any joint starts outside
        (a joint's ``q0`` edited in between counts). ``"inside"``: each such joint starts at
        its nearest limit, where its stop's force is zero. ``"anywhere"``: the starts as
        given, unchecked (to start in the stops on purpose).
    contact : bool or sequence of str
        The robot's ``<collision>`` geometry as contact with a floor
        (:mod:`mbd.exchange.urdfcontact`): True for every link that has some, a list of link
        names for those, False for none (default). Each body with collision geometry touches
        the floor through a :class:`mbd.Contact` ``BODY_floor`` (``LINK_floor`` where one
        link of the body touches: a foot fixed to its lower leg); a mesh is its convex hull.
        Links do not touch each other.
    floor : float
        The floor's height, m (world z; a plane on the ground ``floor``).
    contact_law : mbd.Law, optional
        The floor's normal law at each point (default
        :func:`mbd.exchange.urdfcontact.floor_law`: the whole weight on one point presses it
        1 mm in).
    contact_friction : mbd.Coulomb or None
        The floor's friction (default :data:`mbd.exchange.urdfcontact.FRICTION`: mu_s 0.8,
        mu_k 0.7, exact stick-slip; None: none).
    hull_vertices : int
        The most vertices (each a contact point against the floor) a collision mesh's hull
        keeps (4 to 64, default 24): a hull with more is thinned (the model's
        ``urdf_hulls`` says how far each moved in).

    Returns
    -------
    mbd.Model
        Editable: add force elements, sensors and controllers, then ``build()`` it (which
        first checks that each limited joint starts within its limits, see ``start``).

    Raises
    ------
    ModelError
        Naming the link or joint and the value: a file that is no ``<robot name>`` with
        links, a joint type mbd lacks, a mesh file that is not there, an inertia that no
        rigid body has, a link that two joints move (a kinematic loop, which URDF cannot
        express), a fixed base that no joint moves anything on, a ``q0`` for no movable joint
        of one coordinate or of no number, a collision mesh that cannot be made convex (its
        points in one plane), a ``contact`` link with no ``<collision>``.
    ImportError
        Without the optional extra (``pip install 'mbd[urdf]'``).
    """
    try:
        import yourdfpy
    except ImportError as err:
        raise ImportError("mbd.from_urdf reads URDF with yourdfpy, an optional extra: pip "
                          "install 'mbd[urdf]'") from err
    if limits not in ("stops", "ignore"):
        raise ValueError(f"from_urdf: limits must be 'stops' or 'ignore', got {limits!r}")
    if start not in STARTS:
        raise ValueError(f"from_urdf: start must be one of {STARTS}, got {start!r}")
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ModelError(f"from_urdf: no URDF file {path!r}")
    stop = dict(STOP, **(stop or {}))
    _check_robot_element(path)
    try:
        robot = yourdfpy.URDF.load(path, build_scene_graph=False, load_meshes=False,
                                   build_collision_scene_graph=False,
                                   load_collision_meshes=False).robot
    except Exception as err:
        raise ModelError(f"from_urdf: {path} is not a URDF yourdfpy can read: "
                         f"{type(err).__name__}: {err}") from err
    touching = check_contact_options(
        contact, [link.name for link in robot.links if link.collisions], hull_vertices,
        contact_friction, contact_law)
    importer = _Importer(robot, path, package_dirs, floating, limits, stop, dynamics, lock,
                         mimic, q0, start)
    importer.contact = (touching, floor, contact_law, contact_friction, hull_vertices)
    return importer.model(name, environment)


class _Importer(UrdfTree):
    """One URDF's links, joints and visuals, made into a Model (the tree they hang on:
    :class:`mbd.exchange.urdftree.UrdfTree`)."""

    def __init__(self, robot, path, package_dirs, floating, limits, stop, dynamics, lock,
                 mimic, q0=None, start="checked"):
        self.limits, self.stop, self.dynamics, self.start = limits, stop, dynamics, start
        self.package_dirs = [os.fspath(d) for d in package_dirs]
        self.problems = []
        self.contact = (set(), 0.0, None, None, HULL_VERTICES)
        super().__init__(robot, path, floating, lock, mimic, q0)

    # --------------------------------------------------------------------------- the model

    def model(self, name, environment):
        model = Robot(name or self.robot.name or "robot")
        model.urdf_start = self.start
        environment = environment or Environment(gravity=(0.0, 0.0, -9.81))
        # a fixed base: the root link is the ground; a floating one: the world frame is
        ground_name = self.body_name[self.root] if not self.floating else next(
            n for n in ("world", "world_ground", "urdf_world")
            if n not in self.links and n not in self.joints)
        ground = model.add_ground(ground_name, environment=environment)
        if not self.floating and ground_name != self.root:
            ground.urdf_link = self.root
        self.ground_links = {link for link, owner in self.owner.items()
                             if owner == self.root} if not self.floating else set()
        bodies = {}
        for link, owner in self.owner.items():
            if owner == link and link not in self.ground_links:
                bodies[link] = self._body(model, link)
        if self.problems:
            raise ModelError(self.problems)
        if not bodies:
            raise ModelError(f"URDF robot '{self.robot.name}' ({self.path}): no joint moves a "
                             "link of it and its base is fixed, so nothing moves; "
                             "floating=True makes its root link a free body")
        for link, owner in self.owner.items():      # every link's frame, a CS of its body
            if owner in bodies:
                _cs(bodies[owner], link, self.pose[link])
                self._visuals(bodies[owner], link)
            elif link in self.ground_links:          # the fixed base: drawn in the world
                self._visuals(None, link, model)
        self._contact(model, bodies, environment)
        made = {}
        if self.floating:
            made["root_joint"] = model.add(SixDof("root_joint", ground,
                                                  bodies[self.root][self.root]))
        for joint in self.robot.joints:
            if self._fixed(joint):
                continue
            frame = self.pose[joint.child]
            follower = self._joint_cs(bodies, joint.child, joint.name, frame)
            if self.owner[joint.parent] in bodies:
                base = self._joint_cs(bodies, joint.parent, joint.name, frame)
            else:             # from the ground: a ground CS of its own
                base = model.add_ground(f"{joint.name}_base", at=frame[:3, 3],
                                        orientation=frame[:3, :3], environment=environment)
            made[joint.name] = model.add(self._joint(joint, base, follower, frame))
        for joint in self.robot.joints:
            if joint.name in made and joint.type != "floating":
                stop = self._joint_elements(model, joint, made)
                if stop is not None:
                    model.urdf_stops.append((joint.name, stop.name))
        outside = outside_limits(model)
        if outside and self.start == "inside":
            for joint, q, x1, x2, _ in outside:     # the nearest limit: in the stop's gap
                joint.q0 = x1 if q < x1 else x2
                model.urdf_moved.append((joint.name, q, joint.q0))
        elif outside and self.start == "checked":
            # stacklevel: the user's call of mbd.from_urdf (through mbd.exchange's)
            warnings.warn(outside_text(model, outside, "; build() will refuse the model "
                                        "while they start there"),
                          StartOutsideLimits, stacklevel=4)
        return model

    def _body(self, model, link):
        """The body of ``link`` and the links fixed to it: their masses, CG and inertia
        (about the CG, world axes) summed, as Pinocchio and MuJoCo merge them.

        Each link's ``<inertial>`` must be a mass >= 0 and a positive semidefinite inertia
        (round-off below zero counts as zero); a massless link's rotational inertia counts,
        as Pinocchio counts it. The sum, the body mbd moves, must be one a rigid body has
        (within the triangle inequality); a fixed link's own inertia need not be (a sensor
        frame's made-up one often is not). A massless body or a point mass is allowed: build()
        refuses a joint that moves no inertia.
        """
        members = [name for name, owner in self.owner.items() if owner == link]
        mass, moment, parts, given = 0.0, np.zeros(3), [], []
        for name in members:
            inertial = self.links[name].inertial
            if inertial is None:
                continue
            m = float(inertial.mass or 0.0)
            T = self.pose[name] @ origin_matrix(inertial.origin)
            I_local = np.array(inertial.inertia, dtype=float)
            problem = _inertia_problem(m, I_local)
            if problem:
                self.problems.append(f"URDF link '{name}': {problem}")
                given = None                 # refused already: no second message below
                continue
            if given is not None:
                given.append((name, m, I_local))
            R = T[:3, :3]
            parts.append((m, T[:3, 3], R @ I_local @ R.T))
            mass += m
            moment += m * T[:3, 3]
        if given is None:
            return None
        others = [name for name in members if name != link]
        links = (f"URDF link '{link}'" if not others
                 else f"URDF link '{link}' (with the links fixed to it: {others})")
        # a massless link (a "virtual" link between the revolutes of a ball joint) is a
        # massless body at its frame; build() sees that every joint still moves some inertia
        cg = moment / mass if mass > 0.0 else self.pose[link][:3, 3].copy()
        inertia = np.zeros((3, 3))
        for m, p, I in parts:           # the parallel-axis theorem, about the common CG
            d = p - cg
            inertia += I + m * (np.dot(d, d) * np.eye(3) - np.outer(d, d))
        moments, axes = np.linalg.eigh(0.5 * (inertia + inertia.T))
        if moments[2] <= 1e-12 * mass:  # exported zeros (1e-20): a point mass
            inertia = np.zeros((3, 3))
        elif moments[0] < 0.0:          # exported zeros (-5e-20), which _inertia_problem let by
            inertia = (axes * np.clip(moments, 0.0, None)) @ axes.T
        problem = _body_inertia_problem(mass, inertia)
        if problem:
            if len(given) == 1:         # one <inertial>: its own values, as the file has them
                _, m, I_local = given[0]
                what = f"mass {m!r} kg, inertia {I_local.tolist()} kg m^2"
            else:
                what = (f"mass {mass!r} kg, inertia {inertia.tolist()} kg m^2 about the "
                        "common CG, world axes")
            self.problems.append(f"{links}: {what}: {problem}")
            return None
        # a URDF link of mass 0 with an inertia is the file's own statement (Pinocchio takes it
        # as written): the body is weightless on purpose, not by a slip
        body = model.add_body(self.body_name[link], mass=mass, cg=cg, inertia=inertia,
                              weightless=mass == 0.0)
        if self.body_name[link] != link:       # what a "no body 'LINK'" error points to
            body.urdf_link = link
        return body

    def _joint_cs(self, bodies, link, joint, frame):
        """The CS of joint ``joint`` at ``frame`` on the body of ``link``: named after the
        joint, or JOINT_joint on a body that has a CS of the joint's name (a link's frame, or
        ``cg``, the body's CG)."""
        body = bodies[self.owner[link]]
        return _cs(body, joint if joint not in body.frames else f"{joint}_joint", frame)

    def _joint(self, joint, base, follower, frame):
        """The mbd joint of a movable URDF joint."""
        axis = frame[:3, :3] @ unit_axis(joint)
        q0 = self.starts.get(joint.name, 0.0)
        if joint.type in ("revolute", "continuous"):
            return Revolute(joint.name, base, follower, axis=axis, q0=q0)
        if joint.type == "prismatic":
            return Prismatic(joint.name, base, follower, axis=axis, q0=q0)
        if joint.type == "planar":
            # in the joint frame: the axis least aligned with the URDF axis, on the plane (x
            # for the usual axis z: q = (x, y, phi) in the joint frame, as Pinocchio's)
            local = unit_axis(joint)
            e = np.eye(3)[int(np.argmin(np.abs(local)))]
            a0 = e - np.dot(e, local) * local
            a0 = frame[:3, :3] @ (a0 / np.linalg.norm(a0))
            return Planar(joint.name, base, follower, axes=(a0, np.cross(axis, a0)))
        return SixDof(joint.name, base, follower)

    def _joint_elements(self, model, joint, made):
        """The end stop, damper, stiction element and mimic gear of a movable joint; returns
        the end stop (a JointForce), or None."""
        limit, dyn, mimic = joint.limit, joint.dynamics, joint.mimic
        one_coordinate = joint.type in ("revolute", "prismatic", "continuous")
        # (a mimic joint has no stop of its own: its leader's bounds it through the gear, and
        # two stops on one gear-tied motion would touch at once, at round-off, and chatter)
        if (self.limits == "stops" and one_coordinate and joint.type != "continuous"
                and (mimic is None or not self.mimic) and limit is not None and limit.lower is not None
                and limit.upper is not None and float(limit.lower) < float(limit.upper)):
            stop = model.add(JointForce(f"{joint.name}_limit", made[joint.name],
                                        Bistop(x1=float(limit.lower), x2=float(limit.upper),
                                               **self.stop)))
        else:
            stop = None
        if self.dynamics and dyn is not None and one_coordinate:
            damping = float(dyn.damping or 0.0)
            friction = float(dyn.friction or 0.0)
            if damping > 0.0:
                model.add(JointForce(f"{joint.name}_damping", made[joint.name],
                                     Damper(d=damping)))
            if friction > 0.0:
                model.add(JointStiction(f"{joint.name}_friction", made[joint.name],
                                        f_static=friction, f_kinetic=friction))
        if mimic is not None and self.mimic:
            offset = float(mimic.offset or 0.0)
            if mimic.joint not in made:
                raise ModelError(f"URDF joint '{joint.name}' mimics '{mimic.joint}', which is "
                                 "no movable joint of the robot (mimic=False reads the joint "
                                 "as one that moves on its own, as Pinocchio does)")
            model.add(GearConstraint(f"{joint.name}_mimic", made[mimic.joint],
                                     made[joint.name],
                                     ratio=float(1.0 if mimic.multiplier is None
                                                 else mimic.multiplier), offset=offset))
        return stop

    # --------------------------------------------------------------------------- contact

    def _contact(self, model, bodies, environment):
        """The collision geometry of the links that touch as contact shapes (at CSs
        LINK_collisionK, drawn only as contact shapes) and the floor they touch
        (:mod:`mbd.exchange.urdfcontact`); a link of the fixed base touches nothing (the
        floor is a ground too)."""
        touching, floor, law, friction, most = self.contact
        model.urdf_hulls = []
        if not touching:
            return
        shapes = {}
        for link, owner in self.owner.items():
            if link not in touching or owner not in bodies:
                continue
            body = bodies[owner]
            for k, collision in enumerate(self.links[link].collisions):
                shape = collision_shape(collision.geometry, link, k, self._mesh_file, _scale,
                                        most, model.urdf_hulls)
                frame = self.pose[link] @ origin_matrix(collision.origin)
                cs = _cs(body, f"{link}_collision{k}", frame)
                body.add_shape(shape, cs=cs.name, contact=True, drawn=False)
                shapes.setdefault(body.name, ([], set()))[0].append(shape)
                shapes[body.name][1].add(link)
        if shapes:
            mass = sum(body.mass for body in bodies.values() if body is not None)
            # a contact is named after its link where one link of the body touches (a foot
            # fixed to its lower leg: FOOT_floor), else after the body
            named = {(next(iter(links)) if len(links) == 1 else body): found
                     for body, (found, links) in shapes.items()}
            # the floor drawn about three times the robot's reach across (its links' frames)
            origins = np.array([T[:3, 3] for T in self.pose.values()])
            size = max(0.5, 3.0 * float(np.ptp(origins[:, :2], axis=0).max()))
            add_floor(model, named, floor, environment, law, friction, mass, size)

    # --------------------------------------------------------------------------- visuals

    def _visuals(self, body, link, model=None):
        """The link's visual geometry as shapes (:mod:`mbd.model.shapes`) at CSs LINK_visualK of ``body`` (with
        ``body`` None, a link of the fixed base: at grounds LINK_visualK of ``model``)."""
        for k, visual in enumerate(self.links[link].visuals):
            geometry = visual.geometry
            color = _color(visual.material, self.robot)
            if geometry.box is not None:
                shape = Box(tuple(float(s) for s in geometry.box.size), color=color)
            elif geometry.cylinder is not None:
                shape = Cylinder(float(geometry.cylinder.radius),
                                 float(geometry.cylinder.length), color=color)
            elif geometry.sphere is not None:
                shape = Sphere(float(geometry.sphere.radius), color=color)
            else:                       # a mesh: yourdfpy reads no other geometry
                shape = Mesh(self._mesh_file(link, geometry.mesh.filename),
                             scale=_scale(geometry.mesh.scale), color=color)
            frame = self.pose[link] @ origin_matrix(visual.origin)
            if body is None:
                model.add_ground(f"{link}_visual{k}", at=frame[:3, 3],
                                 orientation=frame[:3, :3]).add_shape(shape)
                continue
            cs = _cs(body, f"{link}_visual{k}", frame)
            body.add_shape(shape, cs=cs.name)

    def _mesh_file(self, link, filename):
        """The file a mesh ``filename`` (a path relative to the URDF, absolute, file:// or
        package://PACKAGE/...) names; ModelError naming the link and the places looked in."""
        folder = os.path.dirname(os.path.abspath(self.path))
        if filename.startswith("file://"):
            candidates = [filename[len("file://"):]]
        elif filename.startswith("package://"):
            # "package:///PACKAGE/..." (an empty host, as some files write it) is the same
            rest = filename[len("package://"):].lstrip("/")
            places = list(self.package_dirs)
            up = folder
            while True:        # the URDF's folder and its parents may hold the package
                places.append(up)
                if os.path.dirname(up) == up:
                    break
                up = os.path.dirname(up)
            package, _, inside = rest.partition("/")
            candidates = [os.path.join(p, rest) for p in places]
            candidates += [os.path.join(p, inside) for p in places
                           if os.path.basename(p) == package]
        else:
            candidates = [filename if os.path.isabs(filename)
                          else os.path.join(folder, filename)]
        for candidate in candidates:
            if os.path.isfile(candidate):
                return candidate
        hint = ("; give the folder holding its package in package_dirs"
                if filename.startswith("package://") else "")
        err = ModelError(f"URDF link '{link}': mesh file {filename!r} not found (looked in "
                         f"{candidates[:4]}{' ...' if len(candidates) > 4 else ''}){hint}")
        # what a caller needs to say it its own way (the command line's --package-dir)
        err.link, err.mesh, err.looked_in = link, filename, candidates
        raise err


def _check_robot_element(path):
    """Refuse, by name, a file whose XML is no ``<robot name=...>`` with links (yourdfpy
    would fail with a bare ``KeyError: 'name'`` or read an empty robot)."""
    import xml.etree.ElementTree as ET
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as err:
        raise ModelError(f"from_urdf: {path} is not XML: {err}") from err
    if root.tag != "robot":
        raise ModelError(f"from_urdf: {path}: the root element is <{root.tag}>; a URDF's is "
                         "<robot>")
    if not root.get("name"):
        links = "" if root.find("link") is not None else " and no <link>"
        raise ModelError(f"from_urdf: {path}: <robot> has no name attribute{links}; a URDF "
                         "names its robot (a file left by an unexpanded xacro?)")
    if root.find("link") is None:
        raise ModelError(f"from_urdf: {path}: robot '{root.get('name')}' has no <link>")



def _cs(body, name, frame):
    """Body ``body``'s new CS ``name`` at the world pose ``frame`` (4x4); a link named
    ``cg`` is the body's CS ``cg`` (as a user's CS of that name is)."""
    return body.add_cs(name, frame[:3, 3], frame[:3, :3])


def _inertia_problem(mass, I):
    """What makes one link's ``<inertial>`` (kg, kg m^2 about the inertial origin) no part of
    a rigid body, or "": a mass < 0, an inertia that is not finite, symmetric and positive
    semidefinite. A negative principal moment within round-off of zero (1e-12 of the largest
    moment, or of the mass times 1 mm^2: exported zeros such as -5e-20) counts as zero."""
    if not (np.isfinite(mass) and mass >= 0.0):
        return f"mass {mass!r} kg must be >= 0 and finite"
    if not np.all(np.isfinite(I)) or not np.allclose(I, I.T):
        return f"inertia {I.tolist()} kg m^2 must be a finite symmetric matrix"
    moments = np.linalg.eigvalsh(I)
    if moments[0] < -1e-12 * max(abs(moments).max(), mass * 1e-6):
        return (f"inertia {I.tolist()} kg m^2 is not positive semidefinite (principal "
                f"moments {moments.tolist()})")
    return ""


def _body_inertia_problem(mass, I):
    """What makes the summed inertia of a body (``mass`` kg; ``I`` kg m^2 about its CG) one
    that no rigid body has (:func:`mbd.model.validate.check_body`'s rule), or "". A point
    mass, a rod and a massless link pass: build() checks that each joint moves some
    inertia."""
    moments = np.linalg.eigvalsh(0.5 * (I + I.T))
    if moments[2] > (moments[0] + moments[1]) * (1.0 + 1e-9):
        return (f"its inertia violates the triangle inequality (principal moments "
                f"{moments.tolist()}: the largest exceeds the sum of the other two): no rigid "
                "body has it")
    return ""


def _scale(scale):
    """A mesh's scale: one number, or one per axis."""
    if scale is None:
        return 1.0
    s = np.atleast_1d(np.asarray(scale, dtype=float))
    return float(s[0]) if s.size == 1 or (np.allclose(s, s[0]) and s[0] > 0) else tuple(s)


def _color(material, robot):
    """The rgba of a visual's material (a named material of the robot), or None."""
    if material is None:
        return None
    if material.color is None and material.name:
        for named in robot.materials:
            if named.name == material.name and named.color is not None:
                material = named
                break
    if material.color is None or material.color.rgba is None:
        return None
    rgba = np.asarray(material.color.rgba, dtype=float)
    return tuple(float(c) for c in rgba[:3])
