"""Topology and layout at build time: machines, the spanning tree and the flat records.

:func:`find_machines` finds the machines and composite machines (SPEC §1); :func:`spanning_tree`
picks the tree from the grounds and the joints that close loops; :func:`lay_out` turns the tree
into ``LINK`` records (one per joint primitive, parents before children), the cut joints into
``CLOSURE`` records, and says where every joint and body lives; :func:`element_table` and
:func:`driver_table` lay out the force elements and motion drivers (:mod:`mbd.compiled.layout`).

Link frames: all links of one joint share one frame convention: origin at the joint's successor
CS, axes those of that CS, both in the reference configuration. Tree transforms therefore carry
only the constant offsets of the drawing; all motion is in the joint transforms.
"""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..compiled import broadphase, contactkernels, lawkernels, layout
from ..model.builder import Body, Ground
from ..model.validate import is_cs_of

if TYPE_CHECKING:     # (a hint only: the model stage is below)
    from ..model.builder import Environment

_PRIMITIVE_CODE = {"R": layout.REVOLUTE, "P": layout.PRISMATIC, "S": layout.SPHERICAL}
_PLACEMENT_CODE = {"joint": layout.JOINT, "line": layout.LINE, "axial": layout.AXIAL,
                   "rotational": layout.ROTATIONAL, "bushing": layout.BUSHING,
                   "contact": layout.CONTACT}


@dataclass(frozen=True)
class Machine:
    """A connected set of bodies and grounds (SPEC §1).

    ``composite`` is the index of the composite machine it belongs to (machines joined by force
    elements share one; a machine alone has its own).
    """

    index: int
    bodies: tuple[str, ...]
    grounds: tuple[str, ...]
    joints: tuple[str, ...]
    environment: Environment | None
    composite: int

    def __str__(self) -> str:
        return (f"machine {self.index} (composite {self.composite}): bodies {list(self.bodies)}, "
                f"grounds {list(self.grounds)}, joints {list(self.joints)}")


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


def find_machines(model, joints, forces, problems, unreported=frozenset()):
    """Machines (components with bodies), composite groups, and the environment of each.

    Bodies named in ``unreported`` (names already reported as duplicates) are not reported as
    unconnected: that would only be a consequence of the duplicate."""
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
        lost = [b for b in bodies if b not in unreported]
        if not gnodes and lost:
            problems.append(f"bodies {lost} are not connected to any ground by joints; connect "
                            "them (a free-flying body is a body on a SixDof joint to a ground)")
        raw.append((nodes, bodies, gnodes, jnames))
    # force elements (and gears) between machines make composite machines
    machine_of = {}
    for k, (nodes, *_rest) in enumerate(raw):
        for n in nodes:
            machine_of[id(n)] = k
    cuf = _UnionFind()
    for k in range(len(raw)):
        cuf.find(k)
    for fe in forces:
        ends = [machine_of.get(id(_node(cs))) for cs in fe.endpoints
                if is_cs_of(cs, model)]
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


def spanning_tree(model, joints):
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


#: what :func:`lay_out` returns
Layout = namedtuple("Layout", "tree closures joint_maps body_maps link_names cut_joints nq nv")


def lay_out(order, cuts, machines, joint_map, body_map):
    """The tree's ``LINK`` records for the tree joints ``order`` [(joint, forward)], then the
    massless chains of the cut joints ``cuts`` (each hangs from its base side and must meet
    its follower CS: a ``CLOSURE`` record); ``joint_map(joint, links, q_index, v_index,
    reversed)`` and ``body_map(body, link, origin, rotation)`` make the maps from names to
    records. Returns a :class:`Layout` (arrays read-only)."""
    gravity_of = {b: m.environment.gravity for m in machines for b in m.bodies}
    links = []
    body_maps, joint_maps = {}, {}
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
            code = layout.FIXED if prim is None else _PRIMITIVE_CODE[prim.kind]
            axis = np.zeros(3) if prim is None or prim.kind == "S" else sign * R_L.T @ prim.axis
            if k == 0:
                E_T, r_T = R_L.T @ R_lam, R_lam.T @ (p - o_lam)
            else:
                E_T, r_T, parent = np.eye(3), np.zeros(3), len(links) - 1
            nqk = 0 if prim is None else prim.nq
            nvk = 0 if prim is None else prim.nv
            qn, vn = counts
            links.append(dict(parent=parent, jtype=code, nd=nvk, qadr=qn, vadr=vn, axis=axis,
                              E_T=E_T, r_T=r_T, gravity=gravity, name=f"{j.name}[{k}]"))
            link_q.append(np.arange(qn, qn + nqk))
            link_v.append(np.arange(vn, vn + nvk))
            counts[0] += nqk
            counts[1] += nvk
        if not forward:
            link_q, link_v = link_q[::-1], link_v[::-1]
        joint_maps[j.name] = joint_map(j, tuple(range(first, len(links))),
                                       np.concatenate(link_q).astype(np.int64),
                                       np.concatenate(link_v).astype(np.int64), not forward)
        return len(links) - 1, p, R_L

    for j, forward in order:
        body = (j.follower if forward else j.base).owner
        last, p, R_L = add_chain(j, forward, gravity_of[body.name])
        c = R_L.T @ (body.cg - p)
        Ic = R_L.T @ (0.5 * (body.inertia + body.inertia.T)) @ R_L
        links[last].update(mass=body.mass, com=c, inertia=_spatial_inertia(body.mass, c, Ic))
        body_maps[body.name] = body_map(body, last, p.copy(), R_L.copy())
    closures = layout.records(layout.CLOSURE, len(cuts))
    for k, j in enumerate(cuts):
        owner = j.follower.owner if isinstance(j.follower.owner, Body) else j.base.owner
        end, _, _ = add_chain(j, True, gravity_of[owner.name])
        closures[k]["end"] = end
        closures[k]["base"], closures[k]["position"], closures[k]["rotation"] = \
            cs_placement(body_maps, j.follower)
    tree = layout.records(layout.LINK, len(links))
    for i, link in enumerate(links):
        for field in layout.LINK.names:
            if field in link:
                tree[i][field] = link[field]
    for a in (tree, closures):
        a.setflags(write=False)
    return Layout(tree, closures, joint_maps, body_maps, [link["name"] for link in links],
                  [j.name for j in cuts], counts[0], counts[1])


def cs_placement(body_maps, cs):
    """(link, position, rotation) of a CS in the frame of the link that carries it; a ground's
    CS gives link -1 and its world position and axes."""
    if isinstance(cs.owner, Ground):
        return -1, cs.position.copy(), cs.rotation.copy()
    bm = body_maps[cs.owner.name]
    return (bm.link,) + bm.cs_local(cs)


def primitive_slot(joint_maps, element):
    """(q index, v index) of the joint primitive an element acts on."""
    return _slot(joint_maps, element.joint, element.primitive)


def _slot(joint_maps, joint, primitive):
    """(q index, v index) of primitive ``primitive`` of ``joint``."""
    jm = joint_maps[joint.name]
    prims = joint.primitives
    return (int(jm.q_index[sum(p.nq for p in prims[:primitive])]),
            int(jm.v_index[sum(p.nv for p in prims[:primitive])]))


def _patches(forces, table):
    """The exact-friction patches: each contact's points (laid out one after another) point
    to their first, which holds how many they are."""
    first = {}
    for i, fe in enumerate(forces):
        friction = getattr(fe, "friction", None)
        if fe.placement == "contact" and friction is not None and friction.exact:
            lead = first.setdefault(fe.contact.name, i)
            table[i]["patch"] = lead
            table[lead]["patch_size"] += 1


def element_table(forces, joint_maps, body_maps, length_scale):
    """The force elements' ``ELEMENT`` records (read-only); the parameters of laws given as
    Python functions are written before every evaluation."""
    table = layout.records(layout.ELEMENT, len(forces))
    for i, fe in enumerate(forces):
        E = table[i]
        E["kind"] = _PLACEMENT_CODE[fe.placement]
        E["law"] = fe.law.code
        E["link_a"] = E["link_b"] = E["patch"] = -1
        E["eps"] = 1e-12 * length_scale
        if not fe.law.time_varying:
            E["params"] = lawkernels.parameter_row(fe.law)
        if fe.placement == "joint":
            E["q_index"], E["v_index"] = primitive_slot(joint_maps, fe)
            continue
        frames = []
        for end, cs in (("a", fe.cs_a), ("b", fe.cs_b)):
            if isinstance(cs.owner, Ground):
                E["pos_" + end], R = cs.position, np.eye(3)
                E["frame_" + end] = cs.rotation
            else:
                bm = body_maps[cs.owner.name]
                E["pos_" + end], E["frame_" + end] = bm.cs_local(cs)
                E["link_" + end], R = bm.link, bm.rotation
            frames.append(R)
        R_A, R_B = frames
        E["R0"] = R_A.T @ R_B
        if fe.placement == "contact":
            _contact_row(E, fe)
        if fe.placement in ("axial", "rotational"):
            default = fe.cs_a.rotation[:, 0 if fe.placement == "axial" else 2]
            a = default if fe.axis is None else np.asarray(fe.axis, dtype=float)
            E["axis"] = R_A.T @ (a / np.linalg.norm(a))
    _patches(forces, table)
    return table


def broad_tables(forces, table):
    """The broad phase's tables of the contact points among ``forces`` (their ``ELEMENT``
    records ``table``): (``BROAD_SHAPE`` records, one per shape at a CS; ``BROAD_PAIR``
    records, one per pair of them in a contact; ``BROAD_POINT`` records, one per element:
    its pair and patch). A pair is left unmeasured while its bounding volumes are apart by
    more than its law's reach (the parameter a law names as its ``reach_slot``: an ElastoGap's s_rel0, an Impact's
    x1); a law without one, one whose parameters vary in a run (a function of time, a
    signal), or a shape without a bound (:func:`mbd.compiled.broadphase.bounding_radius`)
    keeps its pair always measured."""
    shapes, pairs, shape_rows, pair_rows = {}, {}, [], []
    points = layout.no_points(len(forces))
    for i, fe in enumerate(forces):
        if fe.placement != "contact":
            continue
        E = table[i]
        ends = []
        for end, shape, cs in (("a", fe.shape_a, fe.cs_a), ("b", fe.shape_b, fe.cs_b)):
            key = (id(shape), id(cs))
            if key not in shapes:
                shapes[key] = len(shape_rows)
                radius = broadphase.bounding_radius(shape)
                shape_rows.append((int(E["link_" + end]), np.array(E["pos_" + end]),
                                   np.array(E["frame_" + end][:, 2]), radius))
            ends.append(shapes[key])
        key = tuple(ends)
        if key not in pairs:
            pairs[key] = len(pair_rows)
            slot = getattr(fe.law, "reach_slot", None)
            bounded = all(shape_rows[k][3] is not None for k in ends)
            fixed = not fe.law.time_varying and not list(fe.law.signals())
            slot = slot if slot is not None and bounded and fixed else -1
            pair_rows.append((ends[0], ends[1], slot,
                              float(E["params"][slot]) if slot >= 0 else np.inf))
        points[i]["pair"] = pairs[key]
    shape_table = layout.records(layout.BROAD_SHAPE, len(shape_rows))
    for k, (link, position, normal, radius) in enumerate(shape_rows):
        S = shape_table[k]
        S["link"], S["position"], S["normal"] = link, position, normal
        S["radius"] = 0.0 if radius is None else radius     # (its pairs always measured)
    pair_table = layout.records(layout.BROAD_PAIR, len(pair_rows))
    for k, (a, b, slot, reach) in enumerate(pair_rows):
        P = pair_table[k]
        P["shape_a"], P["shape_b"], P["reach_slot"], P["reach"] = a, b, slot, reach
    points["patch"] = table["patch"]
    for t in (shape_table, pair_table, points):
        t.setflags(write=False)
    return shape_table, pair_table, points


def _contact_row(E, point):
    """A contact point's pair, feature, shape sizes and axes, and friction into its record."""
    E["pair"] = contactkernels.pair_code(*(k.__name__ for k in point.pair))
    vertex = E["pair"] == contactkernels.PLANE_VERTEX
    # a pair of one point per hull vertex computes that one point (its vertex in the sizes)
    E["feature"] = 0 if vertex else point.feature
    E["flip"] = int(point.flip)
    for k, (end, shape) in enumerate((("a", point.shape_a), ("b", point.shape_b))):
        sizes, axes = contactkernels.shape_row(shape, point.feature if vertex else None)
        E["size_" + end] = sizes
        E["frame_" + end] = E["frame_" + end] @ axes
        E["kinds"][k] = contactkernels.CONVEX_KINDS.get(type(shape).__name__, -1)
        hull = getattr(shape, "vertices", None)
        if hull is not None and not vertex:
            E["hull_" + end][:len(hull)] = hull
            E["hull_count"][k] = len(hull)
    if point.friction is not None:
        E["friction"] = point.friction.row()


def driven_slot(joint_maps, row):
    """(q index, v index) of the coordinate a motion driver drives, or of a gear's output
    (``joint_b``'s primitive)."""
    if hasattr(row, "joint_b"):
        return _slot(joint_maps, row.joint_b, row.primitive_b)
    return primitive_slot(joint_maps, row)


def driver_table(rows, joint_maps, locks=()):
    """The ``DRIVER`` records of the rows on joint coordinates: motion drivers (ratio 0; their
    motions are written at every evaluation) and gears (q_b - ratio q_a = offset), then the
    locks of the stiction elements ``locks`` ((element index, element) pairs: their rates held
    at zero while they stick, inactive until a run says so)."""
    table = layout.records(layout.DRIVER, len(rows) + len(locks))
    table["active"] = 1.0
    table["element"] = -1
    for k, (i, fe) in enumerate(locks, start=len(rows)):
        table[k]["q_index"], table[k]["v_index"] = primitive_slot(joint_maps, fe)
        table[k]["coupled_q"], table[k]["coupled_v"] = table[k]["q_index"], table[k]["v_index"]
        table[k]["active"] = 0.0
        table[k]["element"] = i
    for k, d in enumerate(rows):
        table[k]["q_index"], table[k]["v_index"] = driven_slot(joint_maps, d)
        table[k]["coupled_q"], table[k]["coupled_v"] = table[k]["q_index"], table[k]["v_index"]
        if hasattr(d, "joint_a"):
            table[k]["coupled_q"], table[k]["coupled_v"] = _slot(joint_maps, d.joint_a,
                                                                 d.primitive_a)
            table[k]["ratio"] = d.ratio
            table[k]["position"] = d.offset        # held: a gear's row is never refreshed
    table.setflags(write=False)
    return table


def length_scale(model, machines, forces=()):
    """The size of the drawing (m): the largest, over the composite machines, of the diagonal
    of the box around its bodies' CGs and CSs, its grounds and the CSs of the force elements on
    it. A ground nothing joins (a robot base's picture) or a machine far away does not count:
    two 1 m pendulums 100 m apart are a 1 m drawing, whose tolerances are a 1 m mechanism's.
    1 m when no box has a size."""
    bodies = {b.name: b for b in model.bodies}
    grounds = {g.name: g for g in model.grounds}
    points, composite_of = {}, {}
    for m in machines:
        found = points.setdefault(m.composite, [])
        for name in m.bodies:
            body = bodies[name]
            found += [body.cg] + [cs.position for cs in body.frames.values()]
            composite_of[name] = m.composite
        found += [grounds[g].position for g in m.grounds]
    for fe in forces:     # a spring to a ground of its own spans the drawing too
        ends = [cs for cs in fe.endpoints if hasattr(cs, "position")]
        for c in {composite_of.get(getattr(cs.owner, "name", None)) for cs in ends} - {None}:
            points[c] += [cs.position for cs in ends]
    size = max((float(np.linalg.norm(np.ptp(np.array(p), axis=0))) for p in points.values()
                if p), default=0.0)
    return size if size > 0.0 else 1.0


def stranded(model, order, cuts):
    """Problems of bodies the spanning tree does not reach (a joint whose spherical primitive
    would be walked backwards), or none."""
    reached = {j.follower.owner.name if fwd else j.base.owner.name for j, fwd in order}
    left = [b.name for b in model.bodies if b.name not in reached]
    if not left:
        return []
    return ([f"{j.label()}: its base CS '{j.base.full_name}' is farther from the ground than "
             f"its follower '{j.follower.full_name}'; swap base and follower (a spherical "
             "primitive cannot be walked backwards)"
             for j in cuts if any(p.kind == "S" for p in j.primitives)]
            or [f"bodies {left} are not reached by the spanning tree"])
