"""build(): validate a Model, find its machines and spanning tree, lay it out in records.

The result is an immutable :class:`System`: the records the compiled kernels read
(:mod:`mbd.compiled.layout`) and the maps from names to them. The stages of the build are in their
own modules: :mod:`mbd.model.validate` (every rule, each problem named), :mod:`mbd.system.topology`
(machines, spanning tree, layout) and :mod:`mbd.compiled.assembly` (the mobility of closed loops).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from ..compiled import assembly, dynamics, loopstructure, registry
from ..model import validate
from ..model.builder import Body
from ..model.drivers import GearConstraint
from ..model.elements import Joint
from ..model.errors import ModelError
from ..model.state import State
from . import topology
from .topology import Machine, cs_placement

if TYPE_CHECKING:     # (hints only: the model stage is below)
    from ..model.builder import CS, Ground, Model
    from ..model.controls import ControlElement
    from ..model.drivers import MotionDriver
    from ..model.elements import JointTarget
    from ..model.forceelements import ForceElement

__all__ = ["State", "Machine", "JointMap", "DriverMap", "BodyMap", "System", "build"]


@dataclass(frozen=True)
class JointMap:
    """Where a joint lives in the arrays: its links and q/v indices in joint order."""

    joint: Joint
    links: tuple[int, ...]
    q_index: np.ndarray
    v_index: np.ndarray
    reversed: bool


@dataclass(frozen=True)
class DriverMap:
    """A row on joint coordinates and the q/v indices of its primitive: a motion driver (the
    primitive it drives) or a gear (its output primitive, b)."""

    driver: MotionDriver | GearConstraint
    q_index: int
    v_index: int

    @property
    def name(self) -> str:
        return self.driver.name

    @property
    def prescribed(self) -> bool:
        """True for a motion driver (its motion is a Python function of time), False for a
        gear (its row's motion is zero)."""
        return not isinstance(self.driver, GearConstraint)

    def motion(self, t: float) -> tuple[float, float, float]:
        return self.driver.motion(t)


@dataclass(frozen=True)
class BodyMap:
    """A body's link and its link frame in the reference configuration (origin, axes)."""

    body: Body
    link: int
    origin: np.ndarray
    rotation: np.ndarray

    def cs_local(self, cs: CS) -> tuple[np.ndarray, np.ndarray]:
        """(position, rotation) of a CS of this body in its link frame."""
        return self.rotation.T @ (cs.position - self.origin), self.rotation.T @ cs.rotation


@dataclass(frozen=True, repr=False)
class System:
    """A built mechanism: immutable records plus the maps from names to them.

    Attributes
    ----------
    nq, nv : int
        Sizes of the position and velocity vectors.
    dof : int
        Mobility (equal to nv for a tree).
    machines : list of Machine
    tree : ndarray of mbd.compiled.layout.LINK
        One record per joint primitive, parents before children (read-only).
    elements, closures, driver_table : ndarray
        The force elements' ``ELEMENT``, the cut joints' ``CLOSURE`` and the motion drivers'
        ``DRIVER`` records (read-only).
    redundant : list of str
        The redundant constraint equations, by cut joint and row, or by gear.
    drivers : list of DriverMap
        The rows on joint coordinates, in the order of ``driver_table``: the motion drivers,
        then the gears (``DriverMap.prescribed`` tells them apart).
    locks : list of int
        The force elements (indices) that stick (``forces.JointStiction``): each has a row
        after the drivers' in ``driver_table``, its rate held at zero while it sticks.
    controls : tuple
        The sensors, inputs and controllers (``mbd.control``), in the order they were added.
    description : str
        The model's free text (:attr:`mbd.Model.description`), "" for none.
    """

    name: str
    tree: np.ndarray
    nq: int
    nv: int
    dof: int
    machines: list[Machine]
    joints: dict[str, JointMap]
    bodies: dict[str, BodyMap]
    grounds: dict[str, Ground]
    force_elements: list[ForceElement]
    rtol: float
    atol: float
    elements: np.ndarray
    closures: np.ndarray
    driver_table: np.ndarray
    link_names: list[str] = field(default_factory=list)
    cut_joints: list[str] = field(default_factory=list)
    length_scale: float = 1.0
    drivers: list[DriverMap] = field(default_factory=list)
    redundant: list[str] = field(default_factory=list)
    locks: list[int] = field(default_factory=list)
    controls: tuple[ControlElement, ...] = ()
    description: str = ""
    #: the broad phase's contact shapes, pairs and points (``BROAD_SHAPE``, ``BROAD_PAIR``,
    #: ``BROAD_POINT`` records, :func:`mbd.system.topology.broad_tables`)
    broad_shapes: np.ndarray | None = None
    broad_pairs: np.ndarray | None = None
    broad_points: np.ndarray | None = None

    @cached_property
    def loop_pattern(self) -> np.ndarray:
        """The structure of the constrained solve (int64,
        :func:`mbd.compiled.loopstructure.pattern`), worked out once per system (a small
        model's run spent a third of its time on it): copy it before writing."""
        return loopstructure.pattern(self.tree, self.closures, self.driver_table, self.nv)

    @property
    def n_rows(self) -> int:
        """Constraint rows of a constrained evaluation: six per cut joint, then one per motion
        driver, gear and stiction lock (the ``driver_table``)."""
        return 6 * len(self.cut_joints) + len(self.driver_table)

    @property
    def constrained(self) -> bool:
        """Whether the dynamics solve constraint rows (loops, drivers, gears or locks)."""
        return self.n_rows > 0

    @property
    def redundant_rows(self) -> int:
        """Number of redundant closure equations (their reactions are not unique)."""
        return len(self.redundant)

    @property
    def joints_with_redundancy(self) -> set[str]:
        """Names of the joints in loops that have redundant closure equations."""
        cuts = {c for c in self.cut_joints if any(r.startswith(f"joint '{c}':")
                                                  for r in self.redundant)}
        return {name for c in cuts for name in self.loop_joints(c)}

    def loop_joints(self, cut: str) -> list[str]:
        """Names of the joints in the loop the cut joint ``cut`` closes: the cut joint, then
        the tree joints from its two sides up to their common ancestor."""
        parent = self.tree["parent"]
        closure = self.closures[self.cut_joints.index(cut)]

        def chain(link):
            out = []
            while link >= 0:
                out.append(link)
                link = parent[link]
            return out

        a, b = chain(closure["end"]), chain(closure["base"])
        common = set(a) & set(b)
        names = []
        for link in [x for x in a if x not in common] + [x for x in b if x not in common]:
            name = self.link_names[link].rsplit("[", 1)[0]
            if name not in names:
                names.append(name)
        return names

    def cs_placement(self, cs: CS) -> tuple[int, np.ndarray, np.ndarray]:
        """(link, position, rotation) of a CS in its link's frame
        (:func:`mbd.system.topology.cs_placement`)."""
        return cs_placement(self.bodies, cs)

    @property
    def force_index(self) -> dict[str, int]:
        """Force element name -> its row in the element records."""
        return {fe.name: i for i, fe in enumerate(self.force_elements)}

    @cached_property
    def contacts(self) -> dict[str, list[int]]:
        """{contact name: the indices of its points among ``force_elements``}
        (:class:`mbd.Contact`, laid out as one element per point)."""
        out = {}
        for i, fe in enumerate(self.force_elements):
            contact = getattr(fe, "contact", None)
            if contact is not None:
                out.setdefault(contact.name, []).append(i)
        return out

    @cached_property
    def patches(self) -> list[int]:
        """The contacts with exact friction (``Coulomb(exact=True)``): the index of each one's
        first point among ``force_elements`` (the patch's mode is that point's)."""
        return [i for i in range(len(self.elements)) if self.elements[i]["patch"] == i]

    @property
    def n_links(self) -> int:
        return self.tree.shape[0]

    def initial_state(self, q0: dict[str, JointTarget] | None = None,
                      v0: dict[str, JointTarget] | None = None, t0: float = 0.0) -> State:
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

    # simulate() is the run stage's: bound by the package face (mbd/__init__.py), DESIGN §9

    def __repr__(self):
        """One line: the name and what the system holds, counted (its records are for the
        kernels, not for reading; :meth:`report` details the machines and loops)."""
        sensors = sum(c.role == "sensor" for c in self.controls)
        inputs = sum(c.role == "input" for c in self.controls)
        driven = sum(d.prescribed for d in self.drivers)
        parts = [_count(len(self.bodies), "body", "bodies"), _count(len(self.joints), "joint"),
                 f"{self.dof} DOF", _count(len(self.cut_joints), "loop"),
                 _count(len(self.force_elements), "force element"),
                 _count(len(self.controls) - sensors - inputs, "controller")]
        # the rest only where the model has them
        parts += [_count(n, what) for n, what in ((driven, "motion driver"),
                                                  (len(self.drivers) - driven, "gear"),
                                                  (sensors, "sensor"), (inputs, "input")) if n]
        return f"<mbd.System '{self.name}': {', '.join(parts)}>"

    def report(self) -> str:
        """A text for people: machines, sizes, loops, redundant equations, drivers."""
        lines = [f"system '{self.name}': {len(self.machines)} machine(s), nq={self.nq}, "
                 f"nv={self.nv}, dof={self.dof}"]
        lines += [f"  {m}" for m in self.machines]
        if self.cut_joints:
            lines.append(f"  {len(self.cut_joints)} closed loop(s):")
            lines += [f"    closed by '{c}': joints {self.loop_joints(c)}"
                      for c in self.cut_joints]
        if self.redundant:
            lines.append(f"  {len(self.redundant)} redundant constraint equation(s): "
                         "the reactions in their loops are not unique (reported: the ones with "
                         "the smallest constraint forces at the loop-closing joint):")
            lines += [f"    {r}" for r in self.redundant]
        gears = [d.driver for d in self.drivers if not d.prescribed]
        if gears:
            lines.append("  gears: " + ", ".join(
                f"'{g.name}' ({g.joint_b.label()} = {g.ratio:g} x {g.joint_a.label()}"
                + (f" {'+' if g.offset > 0 else '-'} {abs(g.offset):g}" if g.offset else "")
                + ")" for g in gears))
        if self.contacts:
            lines.append(f"  {len(self.contacts)} contact(s):")
            for name, indices in self.contacts.items():
                points = [self.force_elements[i] for i in indices]
                pairs = sorted({f"{p.cs_a.owner.name} {type(p.shape_a).__name__} / "
                                f"{p.cs_b.owner.name} {type(p.shape_b).__name__}"
                                for p in points})
                law = points[0].contact
                lines.append(f"    '{name}': {', '.join(pairs)}; {len(points)} point(s); "
                             f"{law.parameters_text()}")
        driven = [d for d in self.drivers if d.prescribed]
        if driven:
            lines.append("  motion drivers: " + ", ".join(
                f"'{d.name}' on {d.driver.joint.label()}" for d in driven)
                + f" (DOF left free: {self.dof - len(driven)})")
        if self.locks:
            lines.append("  stick-slip (locked while they stick, not counted in dof): " +
                         ", ".join(f"'{fe.name}' on {fe.joint.label()}" for fe in
                                   (self.force_elements[i] for i in self.locks)))
        return "\n".join(lines)


def _count(n, singular, plural=None):
    """"1 joint", "3 joints", "no loops"."""
    word = singular if n == 1 else plural or singular + "s"
    return f"{n or 'no'} {word}"


def _check_locks(stictions, joint_maps):
    """Refuse two stiction elements on one primitive: how they would share its holding force
    is not determined (one element with the summed forces is the same friction)."""
    seen = {}
    for fe in stictions:
        slot = topology.primitive_slot(joint_maps, fe)
        if slot in seen:
            raise ModelError(f"{fe.label()} and {seen[slot].label()} act on the same primitive "
                             f"({fe.primitive}) of {fe.joint.label()}: how they share its "
                             "holding force is not determined; use one JointStiction with "
                             "f_static and f_kinetic summed")
        seen[slot] = fe


def build(model: Model) -> System:
    """Validate ``model`` and compile it into a :class:`System` (raises ModelError listing
    every problem found)."""
    problems = []
    joints, forces, drivers, gears, controls = validate.check_model(model, problems)
    machines = topology.find_machines(model, joints, forces + gears, problems,
                                      unreported=validate.duplicated_names(model))
    validate.check_assembled_drawing(model, joints, machines, problems)
    order, cuts = topology.spanning_tree(model, joints)
    if problems:
        raise ModelError(problems)
    if not model.bodies:
        raise ModelError(f"model '{model.name}' has no bodies")
    stuck = topology.stranded(model, order, cuts)
    if stuck:
        raise ModelError(stuck)
    laid = topology.lay_out(order, cuts, machines, JointMap, BodyMap)
    scale = topology.length_scale(model, machines, forces + gears)
    envs = [g.environment for g in model.grounds if g.environment is not None]
    gear_table = topology.driver_table(gears, laid.joint_maps)
    dof, redundant = assembly.mobility(laid.tree, laid.closures, laid.nq, laid.nv,
                                       laid.cut_joints, gear_table, [g.name for g in gears])
    rows = drivers + gears     # the rows on joint coordinates, in the order of driver_table
    locking = registry.locking()
    locks = [i for i, fe in enumerate(forces) if getattr(fe.law, "code", None) in locking]
    _check_locks([forces[i] for i in locks], laid.joint_maps)
    elements = topology.element_table(forces, laid.joint_maps, laid.body_maps, scale)
    broad_shapes, broad_pairs, broad_points = topology.broad_tables(forces, elements)
    elements.setflags(write=False)
    system = System(name=model.name, tree=laid.tree, nq=laid.nq, nv=laid.nv, dof=dof,
                  machines=machines, joints=laid.joint_maps, bodies=laid.body_maps,
                  grounds={g.name: g for g in model.grounds}, force_elements=forces,
                  rtol=min((e.rtol for e in envs), default=1e-8),
                  atol=min((e.atol for e in envs), default=1e-10),
                  elements=elements, broad_shapes=broad_shapes, broad_pairs=broad_pairs,
                  broad_points=broad_points,
                  closures=laid.closures,
                  driver_table=topology.driver_table(rows, laid.joint_maps,
                                                     [(i, forces[i]) for i in locks]),
                  link_names=laid.link_names, cut_joints=laid.cut_joints, length_scale=scale,
                  drivers=[DriverMap(d, *topology.driven_slot(laid.joint_maps, d))
                           for d in rows],
                  redundant=redundant, locks=locks, controls=tuple(controls),
                  description=getattr(model, "description", ""))
    _check_controls(system)
    check_inertia(system)
    _check_patches(system)
    return system


def _check_patches(system: System) -> None:
    """Exact contact friction (``Coulomb(exact=True)``) is built for trees with ElastoGap
    normal laws: refuse it elsewhere, by name."""
    if not system.patches:
        return
    names = sorted({system.force_elements[i].contact.name for i in system.patches})
    problems = []
    if system.constrained or any(c.continuous for c in system.controls):
        problems.append(f"contacts {names}: exact friction (Coulomb(exact=True)) is built for "
                        "mechanisms without loops, motion drivers, gears and continuous "
                        "controllers yet; use the regularized Coulomb here")
    for i in system.patches:
        law = system.force_elements[i].law
        if getattr(getattr(law, "kind", None), "name", None) != "elastogap":
            problems.append(f"contact '{system.force_elements[i].contact.name}': exact "
                            f"friction needs an ElastoGap normal law (its contact switch), "
                            f"got {type(law).__name__}")
    if problems:
        raise ModelError(problems)


def _degenerate(body):
    """True for a body without mass or with a zero principal moment (a point mass, a rod)."""
    moments = np.linalg.eigvalsh(0.5 * (body.inertia + body.inertia.T))
    return body.mass == 0.0 or moments[0] <= 16.0 * np.finfo(float).eps * moments[2]


def check_inertia(system: System) -> None:
    """Every joint must move some inertia. With a massless body, a point mass or a thin rod in
    the model, the tree's mass matrix (the cut joints' own coordinates, massless by design, left
    out) must be positive definite at a generic position: raises ModelError naming the joints
    whose motion moves nothing anywhere and the bodies they carry that have no mass or
    inertia. Where it is singular only at the initial position (a point mass on two joint
    axes at once), a warning names the joints: a run from there starts with undefined
    accelerations. Models whose bodies all have a mass and a positive definite inertia skip
    this: their mass matrix is positive definite everywhere."""
    odd = [bm for bm in system.bodies.values() if _degenerate(bm.body)]
    if not odd:
        return
    q0 = system.initial_state().q
    # a generic position: the joints' initial ones turned by up to 0.5 rad or m (seeded, so
    # a build is repeatable); the door normalizes quaternions
    generic = q0 + np.random.default_rng(20261206).uniform(-0.5, 0.5, system.nq)
    problems = _singular_joints(system, odd, generic)
    if problems:
        raise ModelError([p.replace("{where}", "in any position") for p in problems])
    problems = _singular_joints(system, odd, q0)
    if problems:
        warnings.warn("; ".join(p.replace("{where}", "at the initial position")
                                for p in problems), stacklevel=4)


def _singular_joints(system, odd, q):
    """The problems (each with a ``{where}`` to fill) of the joints that move no inertia at
    position ``q``: one naming the coordinates that move nothing at all or else one per
    combination of them that moves nothing; [] when the mass matrix is positive definite."""
    cut = {int(i) for name in system.cut_joints for i in system.joints[name].v_index}
    keep = np.array([i for i in range(system.nv) if i not in cut], dtype=np.int64)
    H = dynamics.mass_matrix(system, q)[np.ix_(keep, keep)]
    owner = {}
    for name, jm in system.joints.items():
        for i in jm.v_index:
            owner[int(i)] = name
    d = np.diag(H).copy()
    zero = d <= 1e-14 * max(d.max(), 1e-300)
    if zero.any():   # coordinates that move nothing at all
        groups = [sorted({owner[int(keep[i])] for i in np.flatnonzero(zero)})]
    else:            # combinations of coordinates that move nothing
        # unit diagonal: the test is then scale-free (a finger's 1e-8 kg m^2 beside a
        # trunk's 10)
        s = 1.0 / np.sqrt(d)
        w, V = np.linalg.eigh(H * np.outer(s, s))
        groups = [sorted({owner[int(keep[i])] for i in np.flatnonzero(np.abs(V[:, k]) > 0.1)})
                  for k in np.flatnonzero(w <= 1e-10 * w.max())]
    parent = system.tree["parent"]

    def carried(names):
        starts = {system.joints[n].links[0] for n in names}
        out = []
        for bm in odd:
            k = bm.link
            while k >= 0 and k not in starts:
                k = int(parent[k])
            if k >= 0:
                out.append(bm.body.name)
        return out

    problems = []
    for names in groups:
        who = (f"joint '{names[0]}' moves" if len(names) == 1
               else f"joints {names} {'together ' if not zero.any() else ''}move")
        problems.append(
            f"{who} no inertia {{where}}: the bodies carried that have no mass or a zero "
            f"principal moment ({carried(names)}) give none, so the mass matrix is singular "
            "and the acceleration undefined; give them a mass and inertia, or weld the joint "
            "(a URDF's: from_urdf(lock=[...]), mbd run --lock)")
    return problems


def _check_controls(system):
    """Every sensor, input and controller checked against the built ``system`` (their names,
    what they measure, what they read); ModelError listing every problem."""
    named = {c.name: c for c in system.controls}
    problems = [p for c in system.controls for p in c.check(system, named)]
    for fe in system.force_elements:      # the signals the laws read are the model's
        for _, name, signal in fe.law.signals():
            owner = getattr(signal, "controller", signal)
            if getattr(owner, "name", None) not in named:
                problems.append(f"{fe.label()}: its {name} reads {signal!r}, which is not "
                                "added to the model (model.add it)")
    if problems:
        raise ModelError(problems)
