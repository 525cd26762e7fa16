"""build(): validate a Model, find its machines and spanning tree, lay it out in flat arrays.

The result is an immutable :class:`System`; the compiled kernels read only its arrays.

Link frames: every joint primitive becomes a *link* of the kinematic tree. All links of one
joint share one frame convention: origin at the joint's successor CS, axes those of that CS,
both in the reference configuration. Tree transforms therefore carry only the constant offsets
of the drawing; all motion is in the joint transforms.
"""
from dataclasses import dataclass, field

import numpy as np

from . import forcekernels, kernels, lawkernels
from .elements import ForceElement, Joint, Law, MotionDriver
from .errors import ModelError
from .model import CS, Body, Ground

_PRIMITIVE_CODE = {"R": kernels.REVOLUTE, "P": kernels.PRISMATIC, "S": kernels.SPHERICAL}


@dataclass(frozen=True)
class State:
    """A state of a System: time t (s), positions q (nq,), velocities v (nv,)."""

    t: float
    q: np.ndarray
    v: np.ndarray


@dataclass(frozen=True)
class Machine:
    """A connected set of bodies and grounds (SPEC §1).

    ``composite`` is the index of the composite machine it belongs to (machines joined by force
    elements share one; a machine alone has its own).
    """

    index: int
    bodies: tuple
    grounds: tuple
    joints: tuple
    environment: object
    composite: int

    def __str__(self):
        return (f"machine {self.index} (composite {self.composite}): bodies {list(self.bodies)}, "
                f"grounds {list(self.grounds)}, joints {list(self.joints)}")


@dataclass(frozen=True)
class JointMap:
    """Where a joint lives in the arrays: its links and q/v indices in joint order."""

    joint: Joint
    links: tuple
    q_index: np.ndarray
    v_index: np.ndarray
    reversed: bool


@dataclass(frozen=True)
class DriverMap:
    """A motion driver and the q/v indices of the primitive it drives."""

    driver: object
    q_index: int
    v_index: int

    @property
    def name(self):
        return self.driver.name

    def motion(self, t):
        return self.driver.motion(t)


@dataclass(frozen=True)
class BodyMap:
    """A body's link and its link frame in the reference configuration (origin, axes)."""

    body: Body
    link: int
    origin: np.ndarray
    rotation: np.ndarray

    def cs_local(self, cs):
        """(position, rotation) of a CS of this body in its link frame."""
        return self.rotation.T @ (cs.position - self.origin), self.rotation.T @ cs.rotation


@dataclass(frozen=True)
class System:
    """A built mechanism: immutable flat arrays plus the maps from names to array slots.

    Attributes
    ----------
    nq, nv : int
        Sizes of the position and velocity vectors.
    dof : int
        Mobility (equal to nv for a tree).
    machines : list of Machine
    arrays : tuple
        The model tuple the kernels take (fields in :data:`mbd.kernels.MODEL_FIELDS`).
    """

    name: str
    arrays: tuple
    nq: int
    nv: int
    dof: int
    machines: list
    joints: dict
    bodies: dict
    grounds: dict
    force_elements: list
    rtol: float
    atol: float
    link_names: list = field(default_factory=list)
    force_arrays: tuple = ()
    cut_joints: list = field(default_factory=list)
    closure_arrays: tuple = ()
    length_scale: float = 1.0
    drivers: list = field(default_factory=list)
    redundant: list = field(default_factory=list)

    @property
    def redundant_rows(self):
        """Number of redundant closure equations (their reactions are not unique)."""
        return len(self.redundant)

    @property
    def joints_with_redundancy(self):
        """Names of the joints in loops that have redundant closure equations."""
        from .constraints import loop_joints
        cuts = {c for c in self.cut_joints if any(r.startswith(f"joint '{c}':")
                                                  for r in self.redundant)}
        return {name for c in cuts for name in loop_joints(self, c)}

    def cs_placement(self, cs):
        """(link, position, rotation) of a CS in its link's frame (see :func:`cs_placement`)."""
        return cs_placement(self.bodies, cs)

    @property
    def force_index(self):
        """Force element name -> its row in the force arrays."""
        return {fe.name: i for i, fe in enumerate(self.force_elements)}

    @property
    def n_links(self):
        return self.arrays[0].shape[0]

    def initial_state(self, q0=None, v0=None, t0=0.0):
        """The State from the joints' q0/v0, overridden by ``q0``/``v0`` dicts by joint name."""
        q0 = q0 or {}
        v0 = v0 or {}
        for given in (q0, v0):
            unknown = sorted(set(given) - set(self.joints))
            if unknown:
                raise ModelError(f"initial values name unknown joints {unknown}; "
                                 f"the joints are {sorted(self.joints)}")
        q = np.zeros(self.nq)
        v = np.zeros(self.nv)
        for name, jm in self.joints.items():
            q[jm.q_index] = jm.joint.initial_q(q0.get(name))
            v[jm.v_index] = jm.joint.initial_v(v0.get(name))
        return State(float(t0), q, v)

    def simulate(self, t_end, **options):
        """Integrate from the initial state to ``t_end`` (s); see :func:`mbd.simulate.simulate`."""
        from .simulate import simulate
        return simulate(self, t_end, **options)

    def report(self):
        """A text for people: machines, sizes, loops, redundant equations, drivers."""
        lines = [f"system '{self.name}': {len(self.machines)} machine(s), nq={self.nq}, "
                 f"nv={self.nv}, dof={self.dof}"]
        lines += [f"  {m}" for m in self.machines]
        if self.cut_joints:
            from .constraints import loop_joints
            lines.append(f"  {len(self.cut_joints)} closed loop(s):")
            lines += [f"    closed by '{c}': joints {loop_joints(self, c)}"
                      for c in self.cut_joints]
        if self.redundant:
            lines.append(f"  {len(self.redundant)} redundant constraint equation(s): "
                         "the reactions in their loops are not unique (reported: the ones with "
                         "the smallest constraint forces at the loop-closing joint):")
            lines += [f"    {r}" for r in self.redundant]
        if self.drivers:
            lines.append("  motion drivers: " + ", ".join(
                f"'{d.name}' on {d.driver.joint.label()}" for d in self.drivers)
                + f" (DOF left free: {self.dof - len(self.drivers)})")
        return "\n".join(lines)


def cs_placement(body_maps, cs):
    """(link, position, rotation) of a CS in the frame of the link that carries it; a ground's
    CS gives link -1 and its world position and axes."""
    if isinstance(cs.owner, Ground):
        return -1, cs.position.copy(), cs.rotation.copy()
    bm = body_maps[cs.owner.name]
    return (bm.link,) + bm.cs_local(cs)


# ----------------------------------------------------------------------------- validation

def _label(el):
    label = getattr(el, "label", None)
    return label() if callable(label) else f"{type(el).__name__} {getattr(el, 'name', None)!r}"


def _check_names(model, problems):
    seen = {}
    for kind, items in (("ground", model.grounds), ("body", model.bodies)):
        for item in items:
            seen.setdefault(item.name, []).append(f"{kind} '{item.name}'")
    for el in model.elements:
        name = getattr(el, "name", None)
        if not isinstance(name, str) or not name:
            # joints check this when made; a force element's name is only an attribute
            problems.append(f"{_label(el)}: name must be a non-empty string, got {name!r}")
            continue
        seen.setdefault(name, []).append(_label(el))
    for name, owners in seen.items():
        if len(owners) > 1:
            problems.append(f"duplicate name '{name}': used by {', '.join(owners)}; "
                            "names must be unique within a model")


def _check_body(body, problems):
    label = f"body '{body.name}'"
    if not (np.isfinite(body.mass) and body.mass > 0.0):
        problems.append(f"{label}: mass must be finite and > 0, got {body.mass}")
    if not np.all(np.isfinite(body.cg)):
        problems.append(f"{label}: cg must be finite, got {body.cg}")
    I = body.inertia
    if not np.all(np.isfinite(I)):
        problems.append(f"{label}: inertia must be finite, got {I.tolist()}")
    else:
        scale = max(np.abs(I).max(), 1e-300)
        if np.abs(I - I.T).max() > 1e-9 * scale:
            problems.append(f"{label}: inertia must be symmetric, got {I.tolist()}")
        else:
            moments = np.linalg.eigvalsh(0.5 * (I + I.T))
            # a moment within round-off of the largest is zero: a rotated rod's (0, I, I)
            # comes back as (1e-17, I, I) and must not pass as positive
            if moments[0] <= 16.0 * np.finfo(float).eps * moments[2]:
                problems.append(f"{label}: inertia must be positive definite, got principal "
                                f"moments {moments.tolist()}")
            elif moments[2] > (moments[0] + moments[1]) * (1.0 + 1e-9):
                problems.append(f"{label}: inertia violates the triangle inequality "
                                f"(largest principal moment {moments[2]:g} > sum of the other two "
                                f"{moments[0] + moments[1]:g}); no rigid body has it")
    for cs in body.frames.values():
        if cs.name == "cg" and np.array_equal(cs.position, body.cg, equal_nan=True):
            continue  # the CS made at the CG: already reported with the cg
        if not np.all(np.isfinite(cs.position)):
            problems.append(f"CS '{cs.full_name}': position must be finite, got {cs.position}")


def _is_cs_of(cs, model):
    if not isinstance(cs, CS):
        return False
    owner = cs.owner
    # identity, not equality: a CS of another model's body of the same name is foreign
    if isinstance(owner, Ground):
        return any(owner is g for g in model.grounds)
    return isinstance(owner, Body) and any(owner is b for b in model.bodies)


def _describe_cs(cs):
    if isinstance(cs, CS):
        if not isinstance(cs.owner, (Body, Ground)):  # a CS made by hand, fixed to nothing
            return f"CS '{cs.name}' of no body or ground"
        return f"CS '{cs.full_name}' of model '{getattr(cs.model, 'name', None)}'"
    return f"{type(cs).__name__} {cs!r}"


def _check_joint(joint, model, problems):
    """Check a joint's CSs, axes and initial values (coincidence is checked once the machines
    and so the environment's tolerance are known).

    Returns True when the joint joins two different owners of this model, so that it takes
    part in the topology even if something else about it is wrong: one bad axis should not
    also report its bodies as unconnected.
    """
    label = joint.label()
    connects = True
    for role in ("base", "follower"):
        cs = getattr(joint, role)
        if not _is_cs_of(cs, model):
            problems.append(f"{label}: {role} must be a CS of model '{model.name}', got "
                            f"{_describe_cs(cs)}")
            connects = False
    if connects:
        b, f = joint.base, joint.follower
        if b.owner is f.owner and isinstance(b.owner, Body):
            problems.append(f"{label}: connects body '{b.owner.name}' to itself; a joint needs "
                            "two different bodies")
            connects = False
        elif isinstance(b.owner, Ground) and isinstance(f.owner, Ground):
            problems.append(f"{label}: connects two grounds ('{b.name}', '{f.name}'); grounds "
                            "cannot move, a joint needs a body")
            connects = False
    columns = []
    axes_ok = True
    for k, p in enumerate(joint.primitives):
        if p.kind == "S":
            columns += [np.r_[e, 0, 0, 0] for e in np.eye(3)]
            continue
        n = np.linalg.norm(p.raw_axis)
        if not (np.isfinite(n) and n > 1e-12):
            problems.append(f"{label}: primitive {k} ({p.kind}) has a zero-length or non-finite "
                            f"axis {p.raw_axis.tolist()}")
            axes_ok = False
            continue
        a = p.raw_axis / n
        columns.append(np.r_[a, 0, 0, 0] if p.kind == "R" else np.r_[0, 0, 0, a])
    if axes_ok and columns and np.linalg.matrix_rank(np.array(columns), tol=1e-9) < len(columns):
        problems.append(f"{label}: its primitives' axes are not independent (e.g. parallel "
                        "axes of two revolute primitives); each DOF needs its own direction")
    for getter in (joint.initial_q, joint.initial_v):
        try:
            getter()
        except ModelError as err:
            problems.extend(err.problems)
    return connects


def _check_coincidence(joint, tolerance, problems):
    """The rule of SPEC §2: the joint's two CS origins coincide in the reference configuration,
    to the tolerance of its machine's environment."""
    b, f = joint.base, joint.follower
    gap = np.linalg.norm(b.position - f.position)
    if not gap <= tolerance:
        problems.append(f"{joint.label()}: base CS '{b.full_name}' at {b.position.tolist()} and "
                        f"follower CS '{f.full_name}' at {f.position.tolist()} are {gap:.3g} m "
                        f"apart in the reference configuration; a joint's CS origins must "
                        f"coincide (tolerance {tolerance:g} m)")


_PLACEMENTS = ("joint", "line", "axial", "rotational")


def _check_joint_primitive(el, model, problems):
    """An element that acts on one revolute/prismatic primitive of a joint of this model."""
    label = _label(el)
    j = el.joint
    if not (isinstance(j, Joint) and any(j is other for other in model.elements)):
        problems.append(f"{label}: joint must be a joint added to model '{model.name}', got "
                        f"{_label(j) if j is not None else None}")
        return
    k = el.primitive
    if not (isinstance(k, (int, np.integer)) and 0 <= k < len(j.primitives)):
        problems.append(f"{label}: primitive must be an index 0..{len(j.primitives) - 1} of "
                        f"{j.label()}, got {k!r}")
    elif j.primitives[k].kind == "S":
        problems.append(f"{label}: primitive {k} of {j.label()} is spherical; it must be a "
                        "revolute or prismatic primitive")


def _primitive_slot(joint_maps, el):
    """(q index, v index) of the primitive an element acts on."""
    jm = joint_maps[el.joint.name]
    prims = el.joint.primitives
    return (int(jm.q_index[sum(p.nq for p in prims[:el.primitive])]),
            int(jm.v_index[sum(p.nv for p in prims[:el.primitive])]))


def _check_force_element(fe, model, problems):
    label = _label(fe)
    if not isinstance(fe.law, Law):
        problems.append(f"{label}: law must be a force law (forces.Spring, ElastoGap, ...), got "
                        f"{type(fe.law).__name__}")
    if fe.placement not in _PLACEMENTS:
        problems.append(f"{label}: placement must be one of {_PLACEMENTS}, got {fe.placement!r}")
        return
    if fe.placement == "joint":
        _check_joint_primitive(fe, model, problems)
        return
    for cs in fe.endpoints:
        if not _is_cs_of(cs, model):
            problems.append(f"{label}: acts on {_describe_cs(cs)}, which is not a CS "
                            f"of model '{model.name}'")
            return
    if fe.cs_a.owner is fe.cs_b.owner:
        problems.append(f"{label}: acts between two CSs of '{fe.cs_a.owner.name}'; a force "
                        "element needs two different bodies (or a body and a ground)")
    if fe.axis is not None:
        a = np.asarray(fe.axis, dtype=float)
        if a.shape != (3,) or not np.all(np.isfinite(a)) or np.linalg.norm(a) < 1e-12:
            problems.append(f"{label}: axis must be 3 finite numbers, not all zero, got "
                            f"{fe.axis!r}")


def _force_arrays(forces, joint_maps, body_maps, length_scale):
    """The compiled force-element arrays (see :mod:`mbd.forcekernels`)."""
    nf = len(forces)
    kind = np.zeros(nf, dtype=np.int64)
    law = np.zeros(nf, dtype=np.int64)
    params = np.zeros((nf, lawkernels.MAX_PARAMS))
    qv = np.zeros((nf, 2), dtype=np.int64)
    links = np.full((nf, 2), -1, dtype=np.int64)
    pos = np.zeros((nf, 2, 3))
    axis = np.zeros((nf, 3))
    R0 = np.zeros((nf, 3, 3))
    codes = {"joint": forcekernels.JOINT, "line": forcekernels.LINE,
             "axial": forcekernels.AXIAL, "rotational": forcekernels.ROTATIONAL}
    for i, fe in enumerate(forces):
        kind[i] = codes[fe.placement]
        law[i] = fe.law.code
        if not fe.law.time_varying:   # the others are written before every evaluation
            params[i] = fe.law._row()
        if fe.placement == "joint":
            qv[i] = _primitive_slot(joint_maps, fe)
            continue
        frames = []
        for end, cs in enumerate((fe.cs_a, fe.cs_b)):
            if isinstance(cs.owner, Ground):
                pos[i, end], R = cs.position, np.eye(3)
            else:
                bm = body_maps[cs.owner.name]
                links[i, end], pos[i, end], R = bm.link, bm.cs_local(cs)[0], bm.rotation
            frames.append(R)
        R_A, R_B = frames
        R0[i] = R_A.T @ R_B
        if fe.placement in ("axial", "rotational"):
            default = fe.cs_a.rotation[:, 0 if fe.placement == "axial" else 2]
            a = default if fe.axis is None else np.asarray(fe.axis, dtype=float)
            axis[i] = R_A.T @ (a / np.linalg.norm(a))
    eps = np.array([1e-12 * length_scale])
    fel = (kind, law, params, qv, links, pos, axis, R0, eps)
    for a in fel:
        a.setflags(write=False)
    return fel


def _length_scale(model):
    """The size of the drawing (m): the diagonal of the box around every CS, CG and ground."""
    points = [g.position for g in model.grounds] + [b.cg for b in model.bodies]
    points += [cs.position for b in model.bodies for cs in b.frames.values()]
    size = float(np.linalg.norm(np.ptp(np.array(points), axis=0))) if points else 0.0
    return size if size > 0.0 else 1.0


# ----------------------------------------------------------------------------- topology

class _UnionFind:
    def __init__(self):
        self.parent = {}

    def find(self, x):
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a, b):
        self.parent[self.find(a)] = self.find(b)


def _node(cs):
    """The graph node of a CS: its owner, a Body or a Ground, by identity (duplicate names,
    already reported, must not merge two bodies)."""
    return cs.owner


def _find_machines(model, joints, forces, problems):
    """Machines (components with bodies), composite groups, and the environment of each."""
    uf = _UnionFind()
    for g in model.grounds:
        uf.find(g)
    for b in model.bodies:
        uf.find(b)
    for j in joints:
        uf.union(_node(j.base), _node(j.follower))
    groups = {}
    for node in list(uf.parent):
        groups.setdefault(uf.find(node), []).append(node)
    raw = []
    for nodes in groups.values():
        bodies = sorted(n.name for n in nodes if isinstance(n, Body))
        if not bodies:
            continue  # a lone ground is just a fixed CS in the world
        gnodes = [n for n in model.grounds if any(n is x for x in nodes)]
        members = set(map(id, nodes))
        jnames = [j.name for j in joints if id(_node(j.base)) in members]
        if not gnodes:
            problems.append(f"bodies {bodies} are not connected to any ground by joints; connect "
                            "them (a free-flying body is a body on a SixDof joint to a ground)")
        raw.append((nodes, bodies, gnodes, jnames))
    # force elements between machines make composite machines
    machine_of = {}
    for k, (nodes, *_rest) in enumerate(raw):
        for n in nodes:
            machine_of[id(n)] = k
    cuf = _UnionFind()
    for k in range(len(raw)):
        cuf.find(k)
    for fe in forces:
        ends = [machine_of.get(id(_node(cs))) for cs in fe.endpoints
                if _is_cs_of(cs, model)]
        ends = [e for e in ends if e is not None]
        for a, b in zip(ends, ends[1:]):
            cuf.union(a, b)
    composite_index = {}
    for k in range(len(raw)):
        composite_index.setdefault(cuf.find(k), len(composite_index))
    composite_of = [composite_index[cuf.find(k)] for k in range(len(raw))]
    env_of = {}
    for c in set(composite_of):
        members = [raw[k] for k in range(len(raw)) if composite_of[k] == c]
        envs = []
        for _, _, gnodes, _ in members:
            for g in gnodes:
                if g.environment is not None and all(g.environment is not e for _, e in envs):
                    envs.append((g.name, g.environment))
        bodies = sorted(b for m in members for b in m[1])
        what = (f"machine of bodies {bodies}" if len(members) == 1 else
                f"composite machine of bodies {bodies}")
        # an ungrounded machine is already reported; a composite is checked as a whole
        if any(m[2] for m in members):
            if not envs:
                problems.append(f"{what} has no environment: attach one to a ground with "
                                "add_ground(..., environment=mbd.Environment(gravity=...))")
            elif len(envs) > 1:
                problems.append(f"{what} has {len(envs)} environments (on grounds "
                                f"{[g for g, _ in envs]}); a machine has exactly one")
        env_of[c] = envs[0][1] if len(envs) == 1 else None
    return [Machine(k, tuple(bodies), tuple(sorted(g.name for g in gnodes)), tuple(jnames),
                    env_of[composite_of[k]], composite_of[k])
            for k, (nodes, bodies, gnodes, jnames) in enumerate(raw)]


def _spanning_tree(model, joints):
    """Tree joints in breadth-first order from the grounds, each with its direction, and the
    joints that close loops (cut joints; DESIGN §3)."""
    incident = {}
    for j in joints:
        incident.setdefault(id(_node(j.base)), []).append(j)
        incident.setdefault(id(_node(j.follower)), []).append(j)
    visited = {id(g) for g in model.grounds}
    queue = list(model.grounds)
    used = set()
    order, cuts = [], []
    while queue:
        u = queue.pop(0)
        for j in incident.get(id(u), []):
            if id(j) in used:
                continue
            used.add(id(j))
            forward = _node(j.base) is u
            other = _node(j.follower) if forward else _node(j.base)
            # a joint that reaches a visited body closes a loop; one whose spherical primitive
            # would be walked backwards is cut too (its chain always hangs from the base side)
            if id(other) in visited or (not forward and any(p.kind == "S" for p in j.primitives)):
                cuts.append(j)
                continue
            visited.add(id(other))
            queue.append(other)
            order.append((j, forward))
    return order, cuts


def _spatial_inertia(m, c, Ic):
    """Featherstone's 6x6 spatial inertia [Ic + m cx cx^T, m cx; m cx^T, m 1] about the origin."""
    cx = np.array([[0.0, -c[2], c[1]], [c[2], 0.0, -c[0]], [-c[1], c[0], 0.0]])
    out = np.zeros((6, 6))
    out[:3, :3] = Ic + m * cx @ cx.T
    out[:3, 3:] = m * cx
    out[3:, :3] = m * cx.T
    out[3:, 3:] = m * np.eye(3)
    return out


def build(model):
    """Validate ``model`` and compile it into a :class:`System` (raises ModelError)."""
    problems = []
    _check_names(model, problems)
    for body in model.bodies:
        _check_body(body, problems)
    for g in model.grounds:
        if not np.all(np.isfinite(g.position)):
            problems.append(f"ground '{g.name}': position must be finite, got {g.position}")
    envs = [g.environment for g in model.grounds if g.environment is not None]
    joints, forces, drivers = [], [], []
    for el in model.elements:
        if isinstance(el, Joint):
            if _check_joint(el, model, problems):
                joints.append(el)
        elif isinstance(el, ForceElement):
            _check_force_element(el, model, problems)
            forces.append(el)
        elif isinstance(el, MotionDriver):
            _check_joint_primitive(el, model, problems)
            drivers.append(el)
        else:
            problems.append(f"{_label(el)}: is neither a joint nor a force element")
    machines = _find_machines(model, joints, forces, problems)
    # each joint is checked to its own machine's assembly tolerance; the tightest of all when
    # its machine has no single environment (already reported)
    default_tolerance = min((e.assembly_tolerance for e in envs), default=1e-9)
    env_of_body = {b: m.environment for m in machines for b in m.bodies}
    for j in joints:
        body = j.follower.owner if isinstance(j.follower.owner, Body) else j.base.owner
        env = env_of_body.get(body.name)
        _check_coincidence(j, default_tolerance if env is None else env.assembly_tolerance,
                           problems)
    tree, cuts = _spanning_tree(model, joints)
    if problems:
        raise ModelError(problems)
    if not model.bodies:
        raise ModelError(f"model '{model.name}' has no bodies")

    reached = {j.follower.owner.name if fwd else j.base.owner.name for j, fwd in tree}
    stranded = [b.name for b in model.bodies if b.name not in reached]
    if stranded:
        raise ModelError([f"{j.label()}: its base CS '{j.base.full_name}' is farther from the "
                          f"ground than its follower '{j.follower.full_name}'; swap base and "
                          "follower (a spherical primitive cannot be walked backwards)"
                          for j in cuts if any(p.kind == "S" for p in j.primitives)]
                         or [f"bodies {stranded} are not reached by the spanning tree"])
    gravity_of = {}
    for m in machines:
        for b in m.bodies:
            gravity_of[b] = m.environment.gravity
    links = []  # dicts with parent, code, axis, E_T, r_T, inertia, mass, com, gravity
    body_maps = {}
    joint_maps = {}
    counts = [0, 0]  # nq, nv so far

    def add_chain(j, forward, gravity):
        """Links for joint j's primitives, from its predecessor side; returns the last link,
        its origin and axes (the successor CS in the reference configuration)."""
        succ, pred = (j.follower, j.base) if forward else (j.base, j.follower)
        p, R_L = succ.position, succ.rotation
        if isinstance(pred.owner, Ground):
            parent, o_lam, R_lam = -1, np.zeros(3), np.eye(3)
        else:
            pm = body_maps[pred.owner.name]
            parent, o_lam, R_lam = pm.link, pm.origin, pm.rotation
        prims = list(j.primitives) if forward else list(reversed(j.primitives))
        sign = 1.0 if forward else -1.0
        first = len(links)
        link_q, link_v = [], []
        for k, prim in enumerate(prims or [None]):
            code = kernels.FIXED if prim is None else _PRIMITIVE_CODE[prim.kind]
            axis = np.zeros(3) if prim is None or prim.kind == "S" else sign * R_L.T @ prim.axis
            if k == 0:
                E_T, r_T = R_L.T @ R_lam, R_lam.T @ (p - o_lam)
            else:
                E_T, r_T, parent = np.eye(3), np.zeros(3), len(links) - 1
            nqk = 0 if prim is None else prim.nq
            nvk = 0 if prim is None else prim.nv
            qn, vn = counts
            links.append(dict(parent=parent, code=code, nd=nvk, qadr=qn, vadr=vn, axis=axis,
                              E_T=E_T, r_T=r_T, gravity=gravity, name=f"{j.name}[{k}]"))
            link_q.append(np.arange(qn, qn + nqk))
            link_v.append(np.arange(vn, vn + nvk))
            counts[0] += nqk
            counts[1] += nvk
        if not forward:
            link_q, link_v = link_q[::-1], link_v[::-1]
        joint_maps[j.name] = JointMap(j, tuple(range(first, len(links))),
                                      np.concatenate(link_q).astype(np.int64),
                                      np.concatenate(link_v).astype(np.int64), not forward)
        return len(links) - 1, p, R_L

    for j, forward in tree:
        body = (j.follower if forward else j.base).owner
        last, p, R_L = add_chain(j, forward, gravity_of[body.name])
        c = R_L.T @ (body.cg - p)
        Ic = R_L.T @ (0.5 * (body.inertia + body.inertia.T)) @ R_L
        links[last].update(mass=body.mass, com=c, inertia=_spatial_inertia(body.mass, c, Ic))
        body_maps[body.name] = BodyMap(body, last, p.copy(), R_L.copy())
    # a cut joint: a massless chain from its base side whose end must meet the follower CS
    closures = []
    for j in cuts:
        owner = j.follower.owner if isinstance(j.follower.owner, Body) else j.base.owner
        end, p, R_L = add_chain(j, True, gravity_of[owner.name])
        closures.append((j, end) + cs_placement(body_maps, j.follower))
    qn, vn = counts
    for link in links:
        link.setdefault("mass", 0.0)
        link.setdefault("com", np.zeros(3))
        link.setdefault("inertia", np.zeros((6, 6)))

    def stack(key, dtype=float):
        return np.ascontiguousarray(np.array([link[key] for link in links], dtype=dtype))

    arrays = (stack("parent", np.int64), stack("code", np.int64), stack("nd", np.int64),
              stack("qadr", np.int64), stack("vadr", np.int64), stack("axis"), stack("E_T"),
              stack("r_T"), stack("inertia"), stack("mass"), stack("com"), stack("gravity"))
    for a in arrays:
        a.setflags(write=False)
    rtol = min((e.rtol for e in envs), default=1e-8)
    atol = min((e.atol for e in envs), default=1e-10)
    closure_arrays = (np.array([c[1] for c in closures], dtype=np.int64),
                      np.array([c[2] for c in closures], dtype=np.int64),
                      np.array([c[3] for c in closures], dtype=float).reshape(-1, 3),
                      np.array([c[4] for c in closures], dtype=float).reshape(-1, 3, 3))
    for a in closure_arrays:
        a.setflags(write=False)
    system = System(name=model.name, arrays=arrays, nq=qn, nv=vn, dof=vn, machines=machines,
                  joints=joint_maps, bodies=body_maps, grounds={g.name: g for g in model.grounds},
                  force_elements=forces, rtol=rtol, atol=atol,
                  link_names=[link["name"] for link in links],
                  force_arrays=_force_arrays(forces, joint_maps, body_maps, _length_scale(model)),
                  cut_joints=[c[0].name for c in closures], closure_arrays=closure_arrays,
                  length_scale=_length_scale(model),
                  drivers=[DriverMap(d, *_primitive_slot(joint_maps, d)) for d in drivers])
    if closures:
        from .constraints import mobility
        dof, redundant = mobility(system)
        object.__setattr__(system, "dof", dof)
        object.__setattr__(system, "redundant", redundant)
    return system
