"""Random kinematic trees for property tests of the dynamics kernels.

``random_tree`` draws a model whose every number is random: masses, CGs, inertia tensors,
joint points, CS orientations, joint axes and gravity. Tests use it with checks that hold for
every mechanism (symmetry, two algorithms agreeing, conservation laws), never with recorded
numbers.

Examples
--------
>>> import numpy as np
>>> from tests.mbd.random_models import random_tree, random_state
>>> rng = np.random.default_rng(1)
>>> system = random_tree(rng, 3, ["Revolute", "Spherical"]).build()
>>> q, v = random_state(rng, system)
>>> q.shape == (system.nq,) and v.shape == (system.nv,)
True
"""
import numpy as np
from scipy.spatial.transform import Rotation

import mbd
from joints import (
    Custom,
    Cylindrical,
    Gimbal,
    Prismatic,
    Revolute,
    SixDof,
    Spherical,
    Universal,
    Weld,
)

#: The joint kinds random_tree can draw, by name.
KINDS = ("Revolute", "Prismatic", "Spherical", "Universal", "Cylindrical", "Gimbal", "SixDof",
         "Weld", "Custom", "CustomRP")


def random_rotation(rng):
    """A uniformly random rotation matrix (3x3)."""
    return Rotation.random(random_state=rng).as_matrix()


def random_inertia(rng, mass):
    """A random inertia tensor about the CG (3x3, world axes), kg m^2.

    The principal moments are those of a solid ellipsoid with random semi-axes a, b, c::

        I1 = m (b^2 + c^2) / 5,  I2 = m (a^2 + c^2) / 5,  I3 = m (a^2 + b^2) / 5

    so they are positive and obey the triangle inequality as a real body's must; the principal
    axes are a random rotation.
    """
    a, b, c = rng.uniform(0.05, 0.5, 3)
    moments = mass / 5.0 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])
    R = random_rotation(rng)
    return R @ np.diag(moments) @ R.T


def _unit(rng):
    x = rng.normal(size=3)
    return x / np.linalg.norm(x)


def random_primitives(rng, spherical=True):
    """1 to 4 random primitives whose motions are independent: at most 3 rotational DOF (a
    spherical one only before any revolute, since S then R about the same point repeats a
    rotation; none unless ``spherical``) and at most 3 prismatic ones, in random order, with
    random axes."""
    prims = []
    rot = trans = 0
    for _ in range(rng.integers(1, 5)):
        options = []
        if rot == 0 and spherical:
            options.append("S")
        if rot < 3:
            options.append("R")
        if trans < 3:
            options.append("P")
        if not options:
            break
        kind = options[rng.integers(len(options))]
        if kind == "S":
            prims.append(("S", None))
            rot = 3
        else:
            prims.append((kind, _unit(rng)))
            rot += kind == "R"
            trans += kind == "P"
    return prims


def _joint(kind, name, base, follower, rng):
    if kind == "Revolute":
        return Revolute(name, base, follower, axis=_unit(rng))
    if kind == "Prismatic":
        return Prismatic(name, base, follower, axis=_unit(rng))
    if kind == "Spherical":
        return Spherical(name, base, follower)
    if kind == "Universal":
        return Universal(name, base, follower, axes=(_unit(rng), _unit(rng)))
    if kind == "Cylindrical":
        return Cylindrical(name, base, follower, axis=_unit(rng))
    if kind == "Gimbal":
        return Gimbal(name, base, follower, axes=(_unit(rng), _unit(rng), _unit(rng)))
    if kind == "SixDof":
        return SixDof(name, base, follower)
    if kind == "Weld":
        return Weld(name, base, follower)
    if kind == "Custom":
        return Custom(name, base, follower, primitives=random_primitives(rng))
    if kind == "CustomRP":
        return Custom(name, base, follower, primitives=random_primitives(rng, spherical=False))
    raise ValueError(f"random_tree: unknown joint kind {kind!r}; the kinds are {KINDS}")


def random_tree(rng, n_bodies, kinds, gravity=None, p_ground=0.2, root_kind=None,
                p_reversed=0.0):
    """A Model of ``n_bodies`` bodies joined into a random tree.

    Body k is attached by a joint to a random earlier body, or (with probability ``p_ground``,
    and always for the first body) to a ground at a random point with random axes. The joint's
    base CS sits at a random point of the parent with random axes; the follower CS is a CS of
    the new body at the same point with other random axes. Bodies get a mass of 0.5..3 kg, a
    CG 0.1..0.6 m from their joint point, and a random inertia (:func:`random_inertia`).

    Parameters
    ----------
    rng : numpy.random.Generator
    n_bodies : int
        At least 1.
    kinds : sequence of str
        Joint kinds to draw from (names in :data:`KINDS`; "Custom" is a random list of
        primitives, "CustomRP" one without a spherical primitive). A Weld is drawn only once some
        earlier joint has given the tree a DOF, so the system always has nv >= 1.
    gravity : sequence of 3 float, optional
        Gravity (m/s^2, world); default a random direction with magnitude 9.81.
    p_ground : float
        Probability that a body after the first hangs from a ground rather than a body.
    root_kind : str, optional
        Kind of the first body's joint (to the ground); default drawn from ``kinds``. With
        ``root_kind="SixDof"`` and ``p_ground=0`` the whole tree floats.
    p_reversed : float
        Probability that a joint without a spherical primitive is written the other way
        round (base CS on the new body, follower CS on the parent), which build() must
        reverse when it lays out the tree.

    Returns
    -------
    mbd.Model
        Unbuilt; every ground carries the same Environment so each machine has exactly one.
    """
    kinds = list(kinds)
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown or not kinds:
        raise ValueError(f"random_tree: kinds must be a non-empty subset of {KINDS}, got {kinds}")
    if not [k for k in kinds if k != "Weld"]:
        raise ValueError("random_tree: kinds must include a joint with a DOF, not only Weld")
    g = _unit(rng) * 9.81 if gravity is None else np.asarray(gravity, dtype=float)
    env = mbd.Environment(gravity=g)
    model = mbd.Model(f"random_tree_{n_bodies}")
    bodies = []
    has_dof = False
    for k in range(n_bodies):
        point_from_ground = k == 0 or rng.random() < p_ground
        if point_from_ground:
            point = rng.uniform(-1.0, 1.0, 3)
            base = model.add_ground(f"g{k}", at=point, environment=env,
                                    orientation=random_rotation(rng))
        else:
            parent = bodies[rng.integers(len(bodies))]
            point = parent.cg + rng.uniform(-0.5, 0.5, 3)
            base = parent.add_cs(f"to{k}", point, random_rotation(rng))
        mass = rng.uniform(0.5, 3.0)
        cg = point + _unit(rng) * rng.uniform(0.1, 0.6)
        body = model.add_body(f"b{k}", mass=mass, cg=cg, inertia=random_inertia(rng, mass),
                              cs={"joint": (point, random_rotation(rng))})
        choices = kinds if has_dof else [x for x in kinds if x != "Weld"]
        kind = choices[rng.integers(len(choices))]
        if k == 0 and root_kind is not None:
            kind = root_kind
        has_dof = has_dof or kind != "Weld"
        follower = body["joint"]
        joint = _joint(kind, f"j{k}", base, follower, rng)
        # reversal is drawn after the primitives, which decide whether it is allowed
        if (p_reversed > 0 and all(p.kind != "S" for p in joint.primitives)
                and rng.random() < p_reversed):
            joint.base, joint.follower = follower, base
        model.add(joint)
        bodies.append(body)
    return model


def quaternion_slots(system):
    """The q indices (4 each, w x y z) of every spherical primitive, as a list of arrays."""
    slots = []
    for jm in system.joints.values():
        offset = 0
        for prim in jm.joint.primitives:
            if prim.kind == "S":
                slots.append(np.asarray(jm.q_index[offset:offset + 4]))
            offset += prim.nq
    return slots


def random_state(rng, system, angle=np.pi, displacement=0.3, speed=1.0):
    """A random (q, v) of ``system``.

    Revolute coordinates are uniform in [-angle, angle] rad, prismatic ones in
    [-displacement, displacement] m, spherical primitives get uniformly random unit quaternions,
    and every velocity component is uniform in [-speed, speed] (rad/s or m/s).
    """
    q = np.zeros(system.nq)
    for jm in system.joints.values():
        offset = 0
        for prim in jm.joint.primitives:
            idx = jm.q_index[offset:offset + prim.nq]
            if prim.kind == "R":
                q[idx] = rng.uniform(-angle, angle)
            elif prim.kind == "P":
                q[idx] = rng.uniform(-displacement, displacement)
            else:
                quat = rng.normal(size=4)
                q[idx] = quat / np.linalg.norm(quat)
            offset += prim.nq
    v = rng.uniform(-speed, speed, system.nv)
    return q, v


def quaternion_rates(system, q, v):
    """dq/dt (nq,) for velocities v: v itself for R/P coordinates and, for each spherical
    primitive with quaternion Q and angular velocity w in the follower's axes::

        dQ/dt = 1/2 Q (x) (0, w)

    (written here from the quaternion product, independently of the kernels)."""
    qdot = np.zeros(system.nq)
    for jm in system.joints.values():
        qoff = voff = 0
        for prim in jm.joint.primitives:
            qi = jm.q_index[qoff:qoff + prim.nq]
            vi = jm.v_index[voff:voff + prim.nv]
            if prim.kind == "S":
                w0, x0, y0, z0 = q[qi]
                wx, wy, wz = v[vi]
                # Hamilton product (w0, u) (x) (0, w) = (-u.w, w0 w + u x w)
                u = np.array([x0, y0, z0])
                wv = np.array([wx, wy, wz])
                qdot[qi] = 0.5 * np.r_[-u @ wv, w0 * wv + np.cross(u, wv)]
            else:
                qdot[qi] = v[vi]
            qoff += prim.nq
            voff += prim.nv
    return qdot
