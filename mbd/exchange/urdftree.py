"""A URDF's kinematic tree as :func:`mbd.exchange.urdf.from_urdf` reads it (:class:`UrdfTree`):
the root link, each link's parent joint and child joints, the locked joints and where they
are locked, the joints' starts, each link's pose at the URDF's zero configuration, the body
(or ground) each link belongs to and that body's name. Refuses, by name, what is no tree (a
link moved by two joints, several roots), a joint type mbd lacks, and a malformed ``lock``
or ``q0``.
"""
import numpy as np

from ..model.errors import ModelError

#: the URDF joint types mbd reads (``fixed`` merges the child into the parent's body)
JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar")


class UrdfTree:
    """The kinematic tree of the URDF robot ``robot`` (a yourdfpy ``Robot``) read from
    ``path``, with a floating base or not, the joints ``lock`` names locked, mimics read or
    not (``mimic``) and the starts ``q0``, all as :func:`mbd.exchange.urdf.from_urdf` takes
    them.

    Attributes
    ----------
    links, joints : dict
        The URDF's links and joints by name.
    body_name : dict
        Each link's body (or ground) name: the link's, or ``LINK_link`` for a link named as a
        joint.
    root : str
        The root link.
    parent_joint, children : dict
        Each link's parent joint (the root has none) and its child joints.
    locked : dict
        {joint name: position (rad or m)} of the locked joints.
    starts : dict
        {joint name: start (rad or m)} of the joints ``q0`` names.
    pose : dict
        Each link's frame in the world at the URDF's zero configuration (4x4).
    owner : dict
        Each link's body: the topmost link fixed to it (the root's group is the ground).
    """

    def __init__(self, robot, path, floating, lock=(), mimic=True, q0=None):
        self.robot, self.path, self.floating, self.mimic = robot, path, floating, mimic
        self.links = {link.name: link for link in robot.links}
        self.joints = {joint.name: joint for joint in robot.joints}
        # an mbd model names bodies, grounds and joints in one namespace, a URDF its links and
        # its joints in two: a link named as a joint is body (or ground) LINK_link
        taken = set(self.links) | set(self.joints) | {"root_joint"}
        self.body_name = {}
        for link in self.links:
            name = link
            if link in self.joints or (floating and link == "root_joint"):
                name = f"{link}_link"
                while name in taken:
                    name += "_"
                taken.add(name)
            self.body_name[link] = name
        self.root = self._tree()
        self.locked = self._locks(lock)
        self.starts = self._starts(q0)
        self.pose = self._poses()
        # each link's body: the topmost link fixed to it (the root's group is the ground)
        self.owner = {}
        for link in self._order():
            joint = self.parent_joint.get(link)
            self.owner[link] = (self.owner[joint.parent] if joint is not None
                                and self._fixed(joint) else link)

    def _tree(self):
        """The root link; refuses a link moved by two joints and unknown joint types."""
        self.parent_joint, self.children = {}, {name: [] for name in self.links}
        for joint in self.robot.joints:
            if joint.type not in JOINT_TYPES:
                raise ModelError(f"URDF joint '{joint.name}': type '{joint.type}' is not one "
                                 f"mbd reads ({', '.join(JOINT_TYPES)})")
            for end in (joint.parent, joint.child):
                if end not in self.links:
                    raise ModelError(f"URDF joint '{joint.name}': no link '{end}'")
            if joint.child in self.parent_joint:
                other = self.parent_joint[joint.child].name
                raise ModelError(f"URDF link '{joint.child}' is the child of two joints, "
                                 f"'{other}' and '{joint.name}': a kinematic loop, which URDF "
                                 "cannot express (a URDF is a tree); close it in mbd with a "
                                 "joint added to the model")
            self.parent_joint[joint.child] = joint
            self.children[joint.parent].append(joint)
        roots = [name for name in self.links if name not in self.parent_joint]
        if not roots:
            raise ModelError(f"URDF {self.path}: every link is the child of a joint, so the "
                             "joints close a kinematic loop, which URDF cannot express (a URDF "
                             "is a tree with one root link); close it in mbd with a joint "
                             "added to the model")
        if len(roots) != 1:
            raise ModelError(f"URDF {self.path}: {len(roots)} root links {roots} (links no "
                             "joint moves); a URDF is one tree")
        return roots[0]

    def _locks(self, lock):
        """{joint name: position} of the locked joints: those ``lock`` names and, with
        mimics read, the joints that mimic a locked one (where the mimic puts them)."""
        given = dict(lock) if isinstance(lock, dict) else {name: 0.0 for name in lock}
        movable = [j.name for j in self.robot.joints
                   if j.type in ("revolute", "continuous", "prismatic")]
        unknown = [name for name in given if name not in movable]
        if unknown:
            raise ModelError(f"from_urdf: lock names {unknown}, which are no revolute, "
                             f"continuous or prismatic joints of the robot; those are {movable}")
        locked = {}
        for name, value in given.items():
            try:
                locked[name] = float(value)
            except (TypeError, ValueError):
                raise ModelError(f"from_urdf: lock['{name}'] must be a number (rad or m), got "
                                 f"{value!r}") from None
        while self.mimic:          # a mimic of a locked joint (of a mimic of one, ...) is locked
            more = {j.name: float(1.0 if j.mimic.multiplier is None else j.mimic.multiplier)
                    * locked[j.mimic.joint] + float(j.mimic.offset or 0.0)
                    for j in self.robot.joints if j.mimic is not None and j.name in movable
                    and j.mimic.joint in locked and j.name not in locked}
            if not more:
                break
            locked.update(more)
        return locked

    def _starts(self, q0):
        """{joint name: start (rad or m)} from ``q0``: revolute, continuous and prismatic
        joints that are not locked, each a real number."""
        given = {} if q0 is None else q0
        if not isinstance(given, dict):
            raise ModelError(f"from_urdf: q0 must be a dict {{joint name: rad or m}}, got "
                             f"{q0!r}")
        movable = [j.name for j in self.robot.joints
                   if j.type in ("revolute", "continuous", "prismatic")
                   and j.name not in self.locked]
        unknown = [name for name in given if name not in movable]
        if unknown:
            raise ModelError(f"from_urdf: q0 names {unknown}, which are no unlocked revolute, "
                             f"continuous or prismatic joints of the robot; those are "
                             f"{movable}")
        starts = {}
        for name, value in given.items():
            if isinstance(value, (bool, np.bool_)) or not np.isfinite(
                    _number_or_nan(value)):
                raise ModelError(f"from_urdf: q0['{name}'] must be a finite number (rad or "
                                 f"m), got {value!r}")
            starts[name] = float(value)
        return starts

    def _fixed(self, joint):
        """True for a joint that joins its links rigidly: a fixed or a locked one."""
        return joint.type == "fixed" or joint.name in self.locked

    def _order(self):
        """The links, parents before children."""
        order, stack = [], [self.root]
        while stack:
            link = stack.pop()
            order.append(link)
            stack.extend(joint.child for joint in reversed(self.children[link]))
        if len(order) != len(self.links):
            loose = sorted(set(self.links) - set(order))
            raise ModelError(f"URDF links {loose} are not reached from the root "
                             f"'{self.root}': a kinematic loop, which URDF cannot express")
        return order

    def _poses(self):
        """Each link's frame in the world at q = 0 (4x4), the root's at the origin."""
        pose = {self.root: np.eye(4)}
        for link in self._order()[1:]:
            joint = self.parent_joint[link]
            pose[link] = pose[joint.parent] @ origin_matrix(joint.origin)
            if joint.name in self.locked:      # turned or slid to where it is locked
                pose[link] = pose[link] @ _motion(joint, self.locked[joint.name])
        return pose


def _number_or_nan(value):
    """``value`` as a float, or nan when it is no real number."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def origin_matrix(origin):
    """A URDF origin (a 4x4 matrix, or None) as a 4x4 matrix."""
    return np.eye(4) if origin is None else np.asarray(origin, dtype=float)


def _motion(joint, value):
    """The 4x4 motion of a revolute, continuous or prismatic ``joint`` at ``value`` (rad or
    m), in its frame."""
    axis = unit_axis(joint)
    T = np.eye(4)
    if joint.type == "prismatic":
        T[:3, 3] = value * axis
    else:                               # Rodrigues' formula
        K = np.array([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]],
                      [-axis[1], axis[0], 0.0]])
        T[:3, :3] = np.eye(3) + np.sin(value) * K + (1.0 - np.cos(value)) * K @ K
    return T


def unit_axis(joint):
    """The unit vector of ``joint``'s URDF axis (x where it gives none); ModelError naming the
    joint for an axis of no direction."""
    axis = np.array([1.0, 0.0, 0.0] if joint.axis is None else joint.axis, dtype=float)
    norm = np.linalg.norm(axis)
    if not norm > 0.0:
        raise ModelError(f"URDF joint '{joint.name}': axis {axis.tolist()} has no direction")
    return axis / norm
