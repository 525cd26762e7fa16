"""Property tests of ``Model.build()``: random models, valid and broken.

A strategy draws a random kinematic tree (1 to 6 bodies, joints of every kind, random masses,
inertias, CS orientations, axes and gravity, drawn so that every joint's two CS origins
coincide). Valid models must build and simulate briefly, and come out as drawn: the right
number of machines and degrees of freedom, every CS where it was drawn when all joint
coordinates are zero, kinetic and potential energy equal to those of the drawn masses and
inertias in the bodies' motion, and their sum conserved (nothing dissipates). Broken models
get one breakage from a catalogue and must raise :class:`mbd.ModelError` naming the culprit,
never another exception and never a silently wrong System.
"""
import numpy as np
import pytest
from hypothesis import event, given, note, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

import mbd
from forces import Spring
from joints import (
    Custom,
    Cylindrical,
    Gimbal,
    Planar,
    Prismatic,
    Revolute,
    SixDof,
    Spherical,
    Universal,
    Weld,
)

KINDS = ("Weld", "Revolute", "Prismatic", "Spherical", "Universal", "Cylindrical", "Planar",
         "Gimbal", "SixDof", "Custom")

#: Primitive kinds of each joint (Custom's are drawn per joint).
PRIMITIVES = {"Weld": "", "Revolute": "R", "Prismatic": "P", "Spherical": "S", "Universal": "RR",
              "Cylindrical": "PR", "Planar": "PPR", "Gimbal": "RRR", "SixDof": "PPPS"}
DOF = {"R": 1, "P": 1, "S": 3}

SETTINGS = dict(deadline=None, database=None)  # numba compiles on the first simulate


def floats(lo, hi):
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False)


def vectors(scale):
    return st.lists(floats(-scale, scale), min_size=3, max_size=3).map(np.array)


def rotations():
    """Rotation matrices from rotation vectors of any angle up to pi (and the identity)."""
    return vectors(np.pi).map(lambda r: Rotation.from_rotvec(r).as_matrix())


@st.composite
def inertias(draw, mass):
    """A solid ellipsoid's inertia about its CG (world axes): a real body's, so it is positive
    definite and meets the triangle inequality."""
    a, b, c = draw(st.lists(floats(0.05, 0.5), min_size=3, max_size=3))
    R = draw(rotations())
    return R @ np.diag(mass / 5.0 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])) @ R.T


@st.composite
def custom_primitives(draw):
    """Up to two prismatic primitives, then a spherical one or up to two revolute ones, on
    distinct axes of a rotation (so they are independent): a kind string like "PRR"."""
    n_p = draw(st.integers(0, 2))
    rot = draw(st.sampled_from(["", "R", "RR", "S"]))
    return "P" * n_p + rot


@st.composite
def initial_values(draw, prims):
    """(q0, v0) per primitive: small angles and offsets, so no joint starts near a lock."""
    q, v = [], []
    for p in prims:
        if p == "S":
            q.append(Rotation.from_rotvec(draw(vectors(0.3))))
            v.append(draw(vectors(1.0)))
        else:
            q.append(draw(floats(-0.3, 0.3)))
            v.append(draw(floats(-1.0, 1.0)))
    if len(prims) == 1:
        return q[0], v[0]
    return q, v


@st.composite
def model_specs(draw):
    """A valid random model as plain data (``make`` turns it into an mbd.Model).

    Body i hangs on joint 'j{i}' from body ``parent`` or, when parent is -1, from its own
    ground 'g{i}' carrying its own environment: each ground child starts a machine. The joint
    point of body i is CS 'in' of body i and CS 'out{i}' of the parent (or the ground), so the
    origins coincide exactly.
    """
    n = draw(st.integers(1, 6))
    gravity = draw(rotations()) @ np.array([0.0, 0.0, -9.81])
    bodies, grounds, joints = [], [], []
    point = []
    for i in range(n):
        parent = -1 if i == 0 else draw(st.integers(-1, i - 1))
        if parent < 0:
            p = draw(vectors(2.0))
            grounds.append(dict(name=f"g{i}", at=p, R=draw(rotations()), env=True,
                                tolerance=1e-9))
            parent_ref = ("g", len(grounds) - 1, None)
        else:
            p = point[parent] + draw(vectors(1.0))
            bodies[parent]["cs"][f"out{i}"] = (p, draw(rotations()))
            parent_ref = ("b", parent, f"out{i}")
        point.append(p)
        mass = draw(floats(0.1, 10.0))
        bodies.append(dict(name=f"b{i}", mass=mass, cg=p + draw(vectors(0.5)),
                           inertia=draw(inertias(mass)),
                           cs={"in": (p, draw(rotations())),
                               "tip": (p + draw(vectors(1.0)), None)}))
        kind = draw(st.sampled_from(KINDS))
        prims = draw(custom_primitives()) if kind == "Custom" else PRIMITIVES[kind]
        joint = dict(name=f"j{i}", kind=kind, prims=prims, parent=parent, child=i,
                     parent_ref=parent_ref, child_ref=("b", i, "in"), axes=draw(rotations()),
                     scale=draw(floats(0.5, 3.0)), zero=None, parallel=False,
                     reversed="S" not in prims and draw(st.booleans()))
        joint["q0"], joint["v0"] = draw(initial_values(prims)) if prims else (None, None)
        joints.append(joint)
    if draw(st.booleans()):  # all joint coordinates zero: the model stays as drawn at t = 0
        for j in joints:
            j["q0"] = None
    return dict(gravity=gravity, bodies=bodies, grounds=grounds, joints=joints, extras=[],
                foreign=None)


def _make_joint(j, base, follower):
    name, kind, prims = j["name"], j["kind"], j["prims"]
    axes = [j["scale"] * j["axes"][:, k] for k in range(3)]
    if j["zero"] is not None:
        axes[j["zero"]] = np.zeros(3)
    if j["parallel"]:
        axes[1] = -2.0 * axes[0]
    kw = {}
    if j["q0"] is not None:
        kw["q0"] = j["q0"]
    if j["v0"] is not None:
        kw["v0"] = j["v0"]
    if kind == "Weld":
        return Weld(name, base, follower)
    if kind in ("Revolute", "Prismatic", "Cylindrical"):
        return {"Revolute": Revolute, "Prismatic": Prismatic,
                "Cylindrical": Cylindrical}[kind](name, base, follower, axis=axes[0], **kw)
    if kind == "Spherical":
        return Spherical(name, base, follower, **kw)
    if kind in ("Universal", "Planar"):
        return {"Universal": Universal, "Planar": Planar}[kind](name, base, follower,
                                                                axes=axes[:2], **kw)
    if kind == "Gimbal":
        return Gimbal(name, base, follower, axes=axes, **kw)
    if kind == "SixDof":
        return SixDof(name, base, follower, **kw)
    # Custom: primitive k on axis k mod 3, so the revolute ones never share an axis
    prim_list = [(p, None if p == "S" else axes[k % 3]) for k, p in enumerate(prims)]
    return Custom(name, base, follower, primitives=prim_list, **kw)


class Link(mbd.ForceElement):
    """A minimal force element: a name and the two CSs it acts between (build() reads no more)."""

    placement = "line"

    def __init__(self, name, a, b):
        self.name = name
        self.cs_a, self.cs_b = a, b
        self.law = Spring(c=1.0)


def make(spec):
    """The mbd.Model of a spec."""
    gravity = spec["gravity"]
    model = mbd.Model("random")
    grounds = []
    for g in spec["grounds"]:
        env = mbd.Environment(gravity, assembly_tolerance=g["tolerance"]) if g["env"] else None
        grounds.append(model.add_ground(g["name"], at=g["at"], orientation=g["R"],
                                        environment=env))
    bodies = [model.add_body(b["name"], mass=b["mass"], cg=b["cg"], inertia=b["inertia"],
                             cs=b["cs"])
              for b in spec["bodies"]]

    def cs(ref):
        kind, i, name = ref
        if kind == "foreign":
            return spec["foreign"]
        return grounds[i] if kind == "g" else bodies[i][name]

    for j in spec["joints"]:
        base, follower = cs(j["parent_ref"]), cs(j["child_ref"])
        if j["reversed"]:
            base, follower = follower, base
        model.add(_make_joint(j, base, follower))
    for extra in spec["extras"]:
        extra(model, grounds, bodies)
    return model


def joints_of_body(spec, i):
    """Names of the joints from body i up to its ground (the tree path)."""
    out = []
    while i >= 0:
        j = spec["joints"][i]
        out.append(j["name"])
        i = j["parent"]
    return out


def root_ground(spec, i):
    while spec["joints"][i]["parent"] >= 0:
        i = spec["joints"][i]["parent"]
    return next(k for k, g in enumerate(spec["grounds"]) if g["name"] == f"g{i}")


# ----------------------------------------------------------------------------- breakages
# Each takes (draw, spec), breaks the spec in place and returns the names of which the error
# message must contain at least one.

def bad_mass(draw, spec):
    b = spec["bodies"][draw(st.integers(0, len(spec["bodies"]) - 1))]
    # (a mass of 0 is no error of its own: a massless body whose joint still moves some
    # inertia builds, tests/mbd/model/test_validation.py)
    b["mass"] = draw(st.sampled_from([-b["mass"], np.nan, np.inf]))
    return [b["name"]]


def nan_inertia(draw, spec):
    b = spec["bodies"][draw(st.integers(0, len(spec["bodies"]) - 1))]
    k, m = draw(st.integers(0, 2)), draw(st.integers(0, 2))
    b["inertia"] = b["inertia"].copy()
    b["inertia"][k, m] = b["inertia"][m, k] = draw(st.sampled_from([np.nan, np.inf]))
    return [b["name"]]


def triangle_inertia(draw, spec):
    b = spec["bodies"][draw(st.integers(0, len(spec["bodies"]) - 1))]
    a, c = draw(floats(0.01, 1.0)), draw(floats(0.01, 1.0))
    R = draw(rotations())
    b["inertia"] = R @ np.diag([a, c, (a + c) * draw(floats(1.05, 3.0))]) @ R.T
    return [b["name"]]


def nonsymmetric_inertia(draw, spec):
    b = spec["bodies"][draw(st.integers(0, len(spec["bodies"]) - 1))]
    k, m = draw(st.sampled_from([(0, 1), (0, 2), (1, 2), (2, 0)]))
    b["inertia"] = b["inertia"].copy()
    b["inertia"][k, m] += draw(floats(0.01, 0.5)) * np.trace(b["inertia"])
    return [b["name"]]


def indefinite_inertia(draw, spec):
    b = spec["bodies"][draw(st.integers(0, len(spec["bodies"]) - 1))]
    R = draw(rotations())
    # a negative moment (a zero one is a rod's, no error of its own)
    b["inertia"] = R @ np.diag([draw(floats(-1.0, -1e-3)), 0.2, 0.2]) @ R.T
    return [b["name"]]


def _joint(draw, spec):
    return spec["joints"][draw(st.integers(0, len(spec["joints"]) - 1))]


def _retype(j, kind, prims):
    j.update(kind=kind, prims=prims, q0=None, v0=None)
    if "S" in prims:
        j["reversed"] = False


def zero_axis(draw, spec):
    j = _joint(draw, spec)
    kind = draw(st.sampled_from(["Revolute", "Prismatic", "Universal", "Cylindrical", "Planar",
                                 "Gimbal", "Custom"]))
    _retype(j, kind, "PR" if kind == "Custom" else PRIMITIVES[kind])
    j["zero"] = draw(st.integers(0, len(j["prims"]) - 1)) if kind in ("Universal", "Gimbal",
                                                                       "Custom") else 0
    return [j["name"]]


def parallel_axes(draw, spec):
    j = _joint(draw, spec)
    _retype(j, "Universal", "RR")
    j["parallel"] = True
    return [j["name"]]


def displaced_cs(draw, spec):
    j = _joint(draw, spec)
    b = spec["bodies"][j["child"]]
    p, R = b["cs"]["in"]
    direction = draw(rotations())[:, 0]  # a unit vector
    b["cs"]["in"] = (p + direction * draw(floats(1e-6, 1.0)), R)
    return [j["name"]]


def duplicate_name(draw, spec):
    names = ([b["name"] for b in spec["bodies"]] + [j["name"] for j in spec["joints"]]
             + [g["name"] for g in spec["grounds"]])
    i = draw(st.integers(0, len(spec["bodies"]) - 1))
    name = draw(st.sampled_from([x for x in names if x != spec["bodies"][i]["name"]]))
    spec["bodies"][i]["name"] = name
    return [name]


def remove_environment(draw, spec):
    i = draw(st.integers(0, len(spec["bodies"]) - 1))
    spec["grounds"][root_ground(spec, i)]["env"] = False
    return [spec["bodies"][i]["name"]]


def self_joint(draw, spec):
    j = _joint(draw, spec)
    j["parent_ref"] = ("b", j["child"], "cg")
    return [j["name"]]


def foreign_cs(draw, spec):
    j = _joint(draw, spec)
    p = spec["bodies"][j["child"]]["cs"]["in"][0]
    other = mbd.Model("other")
    if draw(st.booleans()):
        spec["foreign"] = other.add_ground("g0", at=p)
    else:  # a body named like one of ours, at the same place: only identity tells them apart
        spec["foreign"] = other.add_body(spec["bodies"][0]["name"], mass=1.0, cg=p,
                                         inertia=[1.0, 1.0, 1.0], cs={"in": p})["in"]
    j["parent_ref"] = ("foreign", None, None)
    return [j["name"]]


def detach_body(draw, spec):
    j = _joint(draw, spec)
    spec["joints"].remove(j)
    return [spec["bodies"][j["child"]]["name"]]


def malformed_initial_value(draw, spec):
    j = _joint(draw, spec)
    if not j["prims"]:
        _retype(j, "Revolute", "R")
    which = draw(st.sampled_from(["q0", "v0"]))
    size = sum(4 if p == "S" and which == "q0" else DOF[p] for p in j["prims"])
    bad = [np.full(size, np.nan), np.ones(size + 1), "up", {"q": 1}]
    if size == 1:
        bad.append(np.nan)
    j[which] = draw(st.sampled_from(bad))
    return [j["name"]]


def zero_quaternion(draw, spec):
    """q0 of a joint with a spherical primitive whose quaternion is zero (no rotation at all),
    given per primitive or as one flat array."""
    j = _joint(draw, spec)
    kind = draw(st.sampled_from(["Spherical", "SixDof", "Custom"]))
    _retype(j, kind, "PS" if kind == "Custom" else PRIMITIVES[kind])
    per_primitive = [np.zeros(4) if p == "S" else 0.1 for p in j["prims"]]
    if draw(st.booleans()):
        j["q0"] = np.concatenate([np.atleast_1d(x) for x in per_primitive])
    else:
        j["q0"] = per_primitive[0] if len(per_primitive) == 1 else per_primitive
    return [j["name"]]


def bad_body_argument(draw, spec):
    """A value add_body cannot store (a construction-time ModelError)."""
    b = spec["bodies"][draw(st.integers(0, len(spec["bodies"]) - 1))]
    key, value = draw(st.sampled_from([
        ("mass", "heavy"), ("mass", None), ("mass", [1.0, 2.0]), ("cg", (0.0, 1.0)),
        ("cg", "middle"), ("inertia", np.eye(2)), ("inertia", "big"), ("cs", ["in"]),
        ("tip", (1.0, 2.0)), ("tip", ((0.0, 0.0, 0.0), np.ones((3, 3))))]))
    if key == "tip":
        b["cs"]["tip"] = value
    else:
        b[key] = value
    return [b["name"]]


def bad_ground_argument(draw, spec):
    g = spec["grounds"][draw(st.integers(0, len(spec["grounds"]) - 1))]
    key, value = draw(st.sampled_from([("at", (1.0, 2.0)), ("at", None),
                                       ("R", np.diag([1.0, 1.0, -1.0]))]))
    g[key] = value
    return [g["name"]]


def reversed_spherical(draw, spec):
    j = _joint(draw, spec)
    j.update(kind="Spherical", prims="S", q0=None, v0=None, reversed=True)
    return [j["name"]]


def composite_with_two_environments(draw, spec):
    i = draw(st.integers(0, len(spec["bodies"]) - 1))

    def extra(model, grounds, bodies):
        gx = model.add_ground("gx", at=(9.0, 0.0, 0.0),
                              environment=mbd.Environment(spec["gravity"]))
        bx = model.add_body("bx", mass=1.0, cg=(9.5, 0.0, 0.0), inertia=[0.1, 0.1, 0.1],
                            cs={"pivot": (9.0, 0.0, 0.0)})
        model.add(Revolute("jx", gx, bx["pivot"], axis=(0, 1, 0)))
        model.add(Link("fx", bx["cg"], bodies[i]["tip"]))
    spec["extras"].append(extra)
    return ["bx"]


def floating_body(draw, spec):
    def extra(model, grounds, bodies):
        model.add_body("bf", mass=1.0, cg=(0.0, 0.0, 5.0), inertia=[0.1, 0.1, 0.1])
    spec["extras"].append(extra)
    return ["bf"]


def joint_between_grounds(draw, spec):
    def extra(model, grounds, bodies):
        model.add(Weld("wgg", grounds[0], model.add_ground("gw", at=grounds[0].position)))
    spec["extras"].append(extra)
    return ["wgg"]


BREAKAGES = (bad_mass, nan_inertia, triangle_inertia, nonsymmetric_inertia, indefinite_inertia,
             zero_axis, parallel_axes, displaced_cs, duplicate_name, remove_environment,
             self_joint, foreign_cs, detach_body, malformed_initial_value, zero_quaternion,
             reversed_spherical, composite_with_two_environments, floating_body, joint_between_grounds,
             bad_body_argument, bad_ground_argument)


@st.composite
def broken_specs(draw, breakage):
    spec = draw(model_specs())
    culprits = breakage(draw, spec)
    return spec, culprits


# ----------------------------------------------------------------------------- tests

def drawn_position(cs_spec):
    return np.asarray(cs_spec[0] if isinstance(cs_spec, tuple) else cs_spec, dtype=float)


@given(spec=model_specs())
@settings(max_examples=40, **SETTINGS)
def test_valid_random_models_build_and_simulate(spec):
    system = make(spec).build()
    event(f"{len(spec['bodies'])} bodies")
    for j in spec["joints"]:
        event(f"joint {j['kind']}{' reversed' if j['reversed'] else ''}")
    # as drawn: one machine per ground child, one DOF per primitive DOF
    assert len(system.machines) == len(spec["grounds"])
    assert system.nv == sum(DOF[p] for j in spec["joints"] for p in j["prims"])
    result = system.simulate(0.02, output_step=0.01)
    np.testing.assert_allclose(result.t, [0.0, 0.01, 0.02], rtol=0, atol=1e-15)
    assert np.all(np.isfinite(result.q)) and np.all(np.isfinite(result.v))
    if all(j["q0"] is None for j in spec["joints"]):
        for b in spec["bodies"]:
            view = result.body(b["name"])
            for name, cs_spec in list(b["cs"].items()) + [("cg", (b["cg"], None))]:
                np.testing.assert_allclose(view.position(name)[0], drawn_position(cs_spec),
                                           rtol=0, atol=1e-12, err_msg=f"{b['name']}.{name}")
    # the masses and inertias in the System are the drawn ones: T and V from the bodies'
    # motion and the drawn values, T = sum m v.v/2 + w.(R I R^T) w/2, V = -sum m g.c
    T, V = result.kinetic_energy(), result.potential_energy()
    T_drawn, V_drawn = np.zeros_like(T), np.zeros_like(V)
    for b in spec["bodies"]:
        view = result.body(b["name"])
        vel, w, R = view.velocity("cg"), view.angular_velocity, view.rotation.as_matrix()
        Iw = np.einsum("nij,jk,nlk->nil", R, b["inertia"], R)
        T_drawn += 0.5 * b["mass"] * np.einsum("ni,ni->n", vel, vel)
        T_drawn += 0.5 * np.einsum("ni,nij,nj->n", w, Iw, w)
        V_drawn -= b["mass"] * view.position("cg") @ spec["gravity"]
    scale = 1.0 + np.abs(T).max() + np.abs(V).max()
    note(f"T={T}, V={V}")
    np.testing.assert_allclose(T, T_drawn, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(V, V_drawn, rtol=0, atol=1e-12 * scale)
    # and nothing dissipates: T + V is constant to the integrator's tolerance (rtol 1e-8)
    assert np.abs((T + V) - (T[0] + V[0])).max() < 1e-8 * scale


@pytest.mark.parametrize("breakage", BREAKAGES, ids=[b.__name__ for b in BREAKAGES])
def test_broken_random_models_raise_model_error_naming_the_culprit(breakage):
    @given(case=broken_specs(breakage))
    @settings(max_examples=15, **SETTINGS)
    def check(case):
        spec, culprits = case
        note(f"culprits {culprits}")
        with pytest.raises(mbd.ModelError) as info:
            make(spec).build()
        text = str(info.value)
        note(text)
        assert info.value.problems
        # named as itself ('b3') or as the owner of a CS ('b3.tip')
        assert any(f"'{name}'" in text or f"'{name}." in text for name in culprits), \
            (culprits, text)

    check()
