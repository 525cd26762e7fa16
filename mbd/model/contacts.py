"""Bodies that touch (SPEC §12): the :class:`Contact` element, its friction, and the helpers
that give a contact law its numbers.

A contact is a force element like the others: a 1-D law along the contact normal whose
deflection is the gap. ``Contact(name, a, b, normal=LAW, friction=None)`` names the shapes on
each side (shapes attached with ``add_shape(..., contact=True)``, or the bodies and grounds
carrying them, or lists of them); :meth:`Contact.laid_out` makes it one
:class:`ContactPoint` per point each pair of shapes can have (a box on a plane: one per
vertex, a capsule on a plane: one per end sphere, two spheres: one), each a force element of
the ``contact`` placement with its own copy of the law and its own switches
(:mod:`mbd.compiled.contactkernels`), named ``"NAME: FEATURE"`` (``"floor: box corner 3"``)
in the event log and the result.

Examples
--------
>>> f"{hertz(210e9, 0.3, 210e9, 0.3, 0.01):.4e}"   # a steel ball of radius 10 mm on steel
'1.5385e+10'
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from itertools import product
from typing import TYPE_CHECKING, Any

from . import values
from .builder import CS, Body, Ground
from .errors import ModelError
from .forceelements import ForceElement, Law
from .shapes import Box, Capsule, ConvexMesh, Cylinder, Plane, Shape, Sphere

if TYPE_CHECKING:
    from collections.abc import Sequence


#: the order a pair puts its shapes in (a pair's first shape is the lower)
_ORDER = (Plane, Sphere, Capsule, Box, Cylinder, ConvexMesh)

#: the pairs of shapes that touch (shape classes in pair order) and the names of their
#: points, in the order :mod:`mbd.compiled.geometry` writes them (a closed form's)
FEATURES = {
    (Plane, Sphere): ("point",),
    (Plane, Capsule): ("capsule end a", "capsule end b"),
    (Plane, Box): tuple(f"box corner {k}" for k in range(8)),
    (Plane, Cylinder): ("cylinder rim a", "cylinder rim b"),
    (Plane, ConvexMesh): None,      # one point per hull vertex: features()
    (Sphere, Sphere): ("point",),
    (Sphere, Box): ("point",),
    (Sphere, Capsule): ("point",),
    (Capsule, Capsule): ("point",),
}
#: every other pair of solids: one point, by GJK/EPA (mbd.compiled.convex)
FEATURES.update({(a, b): ("point",) for i, a in enumerate(_ORDER[1:], 1) for b in _ORDER[i:]
                 if (a, b) not in FEATURES})


@dataclass(frozen=True)
class Coulomb:
    """Coulomb friction at a contact's points (SPEC §12).

    Regularized (the default): with s = |v_t| the slip speed of a point, the friction force
    on b is ``-mu(s) f_n v_t / s`` with::

        mu(s) = mu_s s / v_crit                                      (s <= v_crit)
              = mu_k + (mu_s - mu_k) exp(-(s - v_crit) / v_crit)     (s > v_crit)

    continuous, zero at rest and mu_s at s = v_crit. A point creeps at speeds up to about
    v_crit under a tangential load below mu_s f_n (the smaller v_crit, the stiffer the run).

    ``exact=True``: true stick-slip of the contact's points as one patch. While it sticks,
    the patch's tangential velocity (and, with two or more points in contact, its spin about
    the normal) is held at zero by the force that needs, which stays in the cone |f_t| <
    mu_s f_n (f_n the points' normal forces summed); it breaks free exactly where |f_t|
    reaches mu_s f_n, slipping the way that force pushes it; slipping, each point carries
    mu_k f_n,i against the patch's slip (its points' mean slip velocity v_t: ``-mu_k f_n,i
    v_t / |v_t|``; a point's own slip may pass through zero as the patch turns about it,
    where its own friction would flip where no switch sees it), and the patch sticks again
    exactly where its mean slip velocity along the slip's direction reaches zero, if the
    force needed to hold it is inside the cone; its spin is resisted while it sticks. A
    patch breaks free the way its slip then accelerates under kinetic friction (against the
    holding force for a point); where no slip can start (kinetic friction would stop any at
    once: the force past the cone is what holds its spin, which no slip resists) it pivots:
    its slip held, its spin free, until a point it did not pivot on touches. A stick is a plastic
    impact along the patch's slip (and spin): the least change in kinetic energy that
    zeroes them. Each stick, slip and pivot is an event. (A mechanism without loops or motion
    drivers, and an ElastoGap normal law: a patch is in contact where its points' gaps are.)

    Parameters
    ----------
    mu_s : float
        Static coefficient, >= 0 (0: no friction).
    mu_k : float, optional
        Kinetic coefficient, 0 <= mu_k <= mu_s (default mu_s).
    v_crit : float
        The slip speed at which the coefficient peaks, m/s, > 0 (default 1e-3; not used
        with ``exact``).
    exact : bool
        True for true stick-slip (above).

    Examples
    --------
    >>> Coulomb(0.5, 0.3).coefficient(1e-3), Coulomb(0.5, 0.3).coefficient(0.5e-3)
    (0.5, 0.25)
    """

    mu_s: float
    mu_k: float | None = None
    v_crit: float = 1e-3
    exact: bool = False

    def __post_init__(self):
        mu_s = values.real(self.mu_s, "Coulomb: mu_s", ">= 0 and finite", values.nonnegative,
                           ValueError)
        mu_k = mu_s if self.mu_k is None else values.real(
            self.mu_k, "Coulomb: mu_k", ">= 0 and finite", values.nonnegative, ValueError)
        if mu_k > mu_s:
            raise ValueError(f"Coulomb: mu_k must be <= mu_s (kinetic friction is not above "
                             f"static), got mu_k = {mu_k} > mu_s = {mu_s}")
        v_crit = values.real(self.v_crit, "Coulomb: v_crit", "> 0 and finite", values.positive,
                             ValueError)
        object.__setattr__(self, "mu_s", mu_s)
        object.__setattr__(self, "mu_k", mu_k)
        object.__setattr__(self, "v_crit", v_crit)
        if not isinstance(self.exact, bool):
            raise ValueError(f"Coulomb: exact must be True or False, got {self.exact!r}")

    def row(self) -> tuple[float, float, float, float]:
        """(mu_s, mu_k, v_crit, exact): the element record's ``friction``."""
        return (self.mu_s, self.mu_k, self.v_crit, float(self.exact))

    def coefficient(self, s: float) -> float:
        """mu(s) at the slip speed s (m/s, >= 0)."""
        if s <= self.v_crit:
            return self.mu_s * s / self.v_crit
        return self.mu_k + (self.mu_s - self.mu_k) * math.exp(-(s - self.v_crit) / self.v_crit)


#: what a Contact's a and b may be: a contact shape, a body or a ground, or a list of them
Side = Any


class Contact(ForceElement):
    """Contact between the shapes of two sides (SPEC §12): a 1-D law along each contact
    point's normal, with the point's gap as its deflection, and friction in the tangent
    plane.

    Parameters
    ----------
    name : str
    a, b : shape, Body, Ground, or a list of them
        The contact shapes on each side: a shape attached with ``add_shape(..., contact=True)``,
        or every contact shape of a body or ground. b is pushed along +n, the normal from a
        into b; a takes the reaction.
    normal : mbd.Law
        A gap law read with x = g (the gap, m; negative: penetration) and v = dg/dt: an
        ``ElastoGap`` (contact where g < s_rel0 = 0; n = 1.5 and :func:`hertz` for Hertz's
        law), an ``Impact`` (x1 = 0), a ``TableForce``. Every point has its own copy of it: a
        box on four corners is four times as stiff as on one.
    friction : Coulomb, optional
        Friction at every point; None for none.
    deepest_start : float, optional
        The deepest penetration (m, > 0) a point may start the run at; a start deeper fails
        the run at t0, naming each point and its depth. Default: half the smaller shape's
        smallest radius or half size (deeper, the closest features, and so the normal, are
        no longer those of a touching pair). A robot's feet on a floor
        (:func:`mbd.from_urdf`) take the depth its whole weight presses one point in.

    Attributes
    ----------
    law : mbd.Law
        ``normal``.

    ``result.contact(name)`` reads its points; ``result.force("NAME: FEATURE")`` one point as
    a force element (``x`` its gap, ``xdot`` its rate, ``value`` its normal force,
    ``vector`` the world force on b with friction). Sensors read ``"NAME.fn"`` (the points'
    normal forces summed, N), ``"NAME.gap"`` (the smallest gap, m) and ``"NAME.slip"`` (the
    largest slip speed of a point in contact, m/s); ``"NAME: FEATURE.value"`` one point's.
    """

    placement = "contact"
    vector_valued = True

    def __init__(self, name: str, a: Side, b: Side, normal: Law,
                 friction: Coulomb | None = None, deepest_start: float | None = None) -> None:
        if not isinstance(name, str) or not name:
            raise ModelError(f"Contact: name must be a non-empty string, got {name!r}")
        self.name = name
        if not isinstance(normal, Law):
            raise ModelError(f"Contact '{name}': normal must be a force law (ElastoGap, Impact, "
                             f"TableForce, ...), got {type(normal).__name__}")
        if friction is not None and not isinstance(friction, Coulomb):
            raise ModelError(f"Contact '{name}': friction must be an mbd.Coulomb or None, got "
                             f"{type(friction).__name__}")
        self.a, self.b, self.law, self.friction = a, b, normal, friction
        self.deepest_start = None if deepest_start is None else values.real(
            deepest_start, f"Contact '{name}': deepest_start", "> 0 and finite (m)",
            values.positive)

    @property
    def normal(self) -> Law:
        """The normal law."""
        return self.law

    @property
    def endpoints(self) -> tuple[Any, Any]:
        return (None, None)

    def with_law(self, law: Law) -> Contact:
        """A new Contact between the same sides, with the same name and friction, and
        ``law``."""
        return Contact(self.name, self.a, self.b, law, self.friction, self.deepest_start)

    def with_friction(self, friction: Coulomb | None) -> Contact:
        """A new Contact like this one with ``friction``."""
        return Contact(self.name, self.a, self.b, self.law, friction, self.deepest_start)

    #: the parts whose parameters ``--set NAME.PART.PARAM=VALUE`` changes
    parts = ("normal", "friction")

    def with_parameters(self, **changes: float) -> Contact:
        """A new Contact like this one with parameters of its normal law (``c``, ``d``, ...)
        or of its friction (``mu_s``, ``mu_k``, ``v_crit``) changed, each validated as its
        constructor validates it (ValueError, TypeError naming the contact)."""
        law_names = [f.name for f in dataclasses.fields(self.law) if f.init] \
            if dataclasses.is_dataclass(self.law) else []
        friction_names = ["mu_s", "mu_k", "v_crit"]
        unknown = sorted(set(changes) - set(law_names) - set(friction_names))
        if unknown:
            raise TypeError(f"{self.label()} has no parameter {unknown[0]!r}; its normal law's "
                            f"are: {', '.join(law_names)}; its friction's: "
                            f"{', '.join(friction_names)}")
        law, friction = self.law, self.friction
        on_law = {k: v for k, v in changes.items() if k in law_names}
        on_friction = {k: v for k, v in changes.items() if k in friction_names}
        if on_law:
            law = dataclasses.replace(law, **on_law)
        if on_friction:
            if friction is None:
                raise ValueError(f"{self.label()} has no friction to change; give it one "
                                 "(friction=mbd.Coulomb(mu_s, ...))")
            friction = dataclasses.replace(friction, **on_friction)
        return Contact(self.name, self.a, self.b, law, friction, self.deepest_start)

    def parameters_text(self) -> str:
        return f"normal={self.law!r}, friction={self.friction!r}"

    def laid_out(self, model: Any, problems: list[str]) -> list[ForceElement]:
        """Its points in ``model``: a :class:`ContactPoint` per point of every pair of a
        shape of a and a shape of b (problems named into ``problems``)."""
        label, known_problems = self.label(), len(problems)
        side_a = _shapes_of(model, self.a, label, "a", problems)
        side_b = _shapes_of(model, self.b, label, "b", problems)
        pairs = []
        for (sa, csa), (sb, csb) in product(side_a, side_b):
            oa, ob = csa.owner, csb.owner
            if oa is ob:
                problems.append(f"{label}: a and b both name a shape of '{oa.name}': a body "
                                "does not touch itself")
            elif isinstance(oa, Ground) and isinstance(ob, Ground):
                problems.append(f"{label}: a shape of ground '{oa.name}' and one of ground "
                                f"'{ob.name}': two grounds never move, so they cannot touch")
            elif features(sa, sb) is None:
                known = ", ".join(f"{p.__name__}-{q.__name__}" for p, q in FEATURES)
                problems.append(f"{label}: no contact geometry for a {type(sa).__name__} "
                                f"against a {type(sb).__name__} (of '{oa.name}' and "
                                f"'{ob.name}'); the pairs with one are: {known}")
            else:
                pairs.append((sa, csa, sb, csb))
        points = []
        for sa, csa, sb, csb in pairs:
            where = "" if len(pairs) == 1 else (
                f"{_shape_label(sa, csa, side_a)}/{_shape_label(sb, csb, side_b)} ")
            for k, feature in enumerate(features(sa, sb)):
                points.append(ContactPoint(f"{self.name}: {where}{feature}", self, sa, csa,
                                           sb, csb, k))
        if not points and len(problems) == known_problems:
            problems.append(f"{label}: no pair of contact shapes between a and b")
        return points


class ContactPoint(ForceElement):
    """One point of a :class:`Contact`'s pair of shapes, as the core lays it out: the normal
    law at that point (x its gap, m; v its rate), friction in the tangent plane
    (:mod:`mbd.compiled.contactkernels`). Made by :meth:`Contact.laid_out`, not by hand.

    Attributes
    ----------
    contact : Contact
        The element it is a point of.
    shape_a, shape_b : Shape
        The pair's shapes on a's side and on b's.
    cs_a, cs_b : CS
        The CSs they are attached to.
    feature : int
        Which of the pair's points it is (:data:`FEATURES`).
    flip : bool
        Whether the pair's first shape (in :data:`FEATURES`' order) is b's.
    """

    placement = "contact"

    def __init__(self, name: str, contact: Contact, shape_a: Shape, cs_a: CS, shape_b: Shape,
                 cs_b: CS, feature: int) -> None:
        self.name, self.contact = name, contact
        self.law, self.friction = contact.law, contact.friction
        self.shape_a, self.cs_a, self.shape_b, self.cs_b = shape_a, cs_a, shape_b, cs_b
        self.feature = feature
        self.flip = _ORDER.index(type(shape_a)) > _ORDER.index(type(shape_b))

    @property
    def pair(self) -> tuple[type, type]:
        """The pair's shape classes in pair order."""
        return _pair_key(self.shape_a, self.shape_b)

    def label(self) -> str:
        return f"contact point '{self.name}'"

    def parameters_text(self) -> str:
        return self.contact.parameters_text()


def features(shape_a: Shape, shape_b: Shape) -> tuple[str, ...] | None:
    """The names of the points a pair of shapes can touch at (:data:`FEATURES`; a plane
    and a convex mesh: one per hull vertex), or None for a pair without contact geometry."""
    key = _pair_key(shape_a, shape_b)
    if key not in FEATURES:
        return None
    if key == (Plane, ConvexMesh):
        hull = shape_b if isinstance(shape_b, ConvexMesh) else shape_a
        return tuple(f"vertex {k}" for k in range(len(hull.vertices)))
    return FEATURES[key]


def _pair_key(sa, sb):
    a, b = type(sa), type(sb)
    if a not in _ORDER or b not in _ORDER:
        return (a, b)
    return (a, b) if _ORDER.index(a) <= _ORDER.index(b) else (b, a)


def _shapes_of(model, side, label, which, problems):
    """[(shape, CS)] of one side of a contact in ``model``: its shapes, or its bodies' and
    grounds' contact shapes."""
    items = side if isinstance(side, (list, tuple)) else [side]
    attached = {}
    for owner in (*model.bodies, *model.grounds):
        for shape, cs in owner.contact_shapes:
            attached.setdefault(id(shape), []).append((shape, cs))
    found = []
    for item in items:
        if isinstance(item, (Body, Ground)):
            if not item.contact_shapes:
                problems.append(f"{label}: {which} names '{item.name}', which has no contact "
                                "shape (add_shape(shape, ..., contact=True))")
            found += item.contact_shapes
        elif isinstance(item, Shape):
            places = attached.get(id(item), [])
            if len(places) != 1:
                problems.append(f"{label}: {which} names a {type(item).__name__} that is "
                                + ("not attached for contact (add_shape(shape, ..., "
                                   "contact=True))" if not places else
                                   f"attached for contact {len(places)} times (to "
                                   f"{', '.join(cs.full_name for _, cs in places)}); name "
                                   "the body instead, or attach a shape once"))
            else:
                found += places
        else:
            problems.append(f"{label}: {which} must be contact shapes, bodies or grounds, got "
                            f"{type(item).__name__}")
    return found


def _shape_label(shape, cs, side):
    """A shape's name in a point's name: its owner's; where the owner has several of the
    side's shapes, the name of its CS (a robot's ``LINK_collisionK``) where each is at a CS
    of its own, else the owner's with the shape's place among them."""
    same = [(s, c) for s, c in side if c.owner is cs.owner]
    owner = cs.owner.name
    if len(same) == 1:
        return owner
    names = [c.name for _, c in same]
    if len(set(names)) == len(names) and isinstance(cs, CS) and cs.name != "cg":
        return cs.name
    return f"{owner}[{[s for s, _ in same].index(shape)}]"


def contacts_among(items: Sequence[Body | Ground], normal: Law,
                   friction: Coulomb | None = None, name: str = "contact",
                   jointed: bool = False) -> list[Contact]:
    """The contacts between every two of ``items`` (bodies and grounds with contact shapes):
    one :class:`Contact` per pair, named ``"NAME a-b"``, with the law ``normal`` and
    ``friction``. Two grounds make no pair; two bodies joined by a joint make none either
    unless ``jointed`` (the parts a joint holds together usually overlap where it holds
    them; a free joint, of 6 coordinates, holds nothing). Add them with ``model.add``.
    """
    items = list(items)
    joined = set()
    if not jointed and items:
        model = items[0].model
        for el in model.elements:
            base, follower = getattr(el, "base", None), getattr(el, "follower", None)
            primitives = getattr(el, "primitives", None)
            # a free joint (6 coordinates) holds nothing together: its parts may touch
            if (base is not None and follower is not None and primitives is not None
                    and sum(p.nv for p in primitives) < 6):
                joined.add(frozenset((base.owner.name, follower.owner.name)))
    out = []
    for i, a in enumerate(items):
        for b in items[i + 1:]:
            if isinstance(a, Ground) and isinstance(b, Ground):
                continue
            if frozenset((a.name, b.name)) in joined:
                continue
            out.append(Contact(f"{name} {a.name}-{b.name}", a, b, normal, friction))
    return out


def hertz(E1: float, nu1: float, E2: float, nu2: float, R1: float,
          R2: float = math.inf) -> float:
    """The stiffness c (N/m^1.5) of Hertz's law F = c delta^1.5 for two elastic spheres
    (a sphere on a flat: R2 = inf)::

        c = 4/3 E* sqrt(R),   1/E* = (1 - nu1^2)/E1 + (1 - nu2^2)/E2,   R = R1 R2 / (R1 + R2)

    Parameters
    ----------
    E1, E2 : float
        Young's moduli, Pa, > 0.
    nu1, nu2 : float
        Poisson's ratios, in [0, 0.5].
    R1, R2 : float
        Radii of curvature at the contact, m, > 0 (R2 = inf: a flat).
    """
    for what, value in (("E1", E1), ("E2", E2), ("R1", R1)):
        values.real(value, f"hertz: {what}", "> 0 and finite", values.positive, ValueError)
    for what, value in (("nu1", nu1), ("nu2", nu2)):
        if not 0.0 <= values.real(value, f"hertz: {what}", error=ValueError) <= 0.5:
            raise ValueError(f"hertz: {what} must be in [0, 0.5], got {value}")
    if not (R2 > 0.0):
        raise ValueError(f"hertz: R2 must be > 0 (inf for a flat), got {R2}")
    effective_modulus = 1.0 / ((1.0 - nu1 * nu1) / E1 + (1.0 - nu2 * nu2) / E2)
    radius = R1 if math.isinf(R2) else R1 * R2 / (R1 + R2)
    return 4.0 / 3.0 * effective_modulus * math.sqrt(radius)


def damping_for_restitution(e: float, c: float, mass: float, speed: float,
                            n: float = 1.5) -> float:
    """The damping d (N s/m) of an ``ElastoGap(c, d, n=n)`` contact that sends a mass
    ``mass`` (kg) hitting it at ``speed`` (m/s) back with the coefficient of restitution e.

    Found by solving the impact of the 1-D law alone (m x'' = F(x, x'), from x = 0 at
    x' = -speed until x = 0 again) for d with a bracketing root finder. The law's damping is
    clamped so that the contact never pulls (SPEC §3.2), so d depends on the speed for
    n != 1: give the speed of the impacts that matter.

    Parameters
    ----------
    e : float
        Coefficient of restitution, in (0, 1].
    c : float
        Stiffness, N/m^n, > 0.
    mass : float
        The effective mass of the impact, kg, > 0 (m1 m2 / (m1 + m2) for two free bodies).
    speed : float
        The approach speed, m/s, > 0.
    n : float
        The law's exponent (1.5: Hertz).
    """
    from scipy.integrate import solve_ivp  # (imported on use: a second of import)
    from scipy.optimize import brentq

    if not 0.0 < values.real(e, "damping_for_restitution: e", error=ValueError) <= 1.0:
        raise ValueError(f"damping_for_restitution: e must be in (0, 1], got {e}")
    for what, value in (("c", c), ("mass", mass), ("speed", speed)):
        values.real(value, f"damping_for_restitution: {what}", "> 0 and finite",
                    values.positive, ValueError)
    if not (values.real(n, "damping_for_restitution: n", error=ValueError) >= 1.0):
        raise ValueError(f"damping_for_restitution: n must be >= 1 (as ElastoGap's), got {n}")
    if e == 1.0:
        return 0.0
    # the impact's time scale (the undamped half period of the linearized contact) and
    # depth, to set the integration's scale
    depth = (0.5 * (n + 1.0) * mass * speed * speed / c) ** (1.0 / (n + 1.0))
    duration = 4.0 * depth / speed

    def rebound(d):
        def rates(t, y):
            pen = max(-y[0], 0.0)
            spring = c * pen ** n
            damping = min(max(-d * y[1], -spring), spring)   # clamped: it never pulls
            return (y[1], (spring + damping) / mass)

        def leaves(t, y):
            return y[0]
        leaves.terminal, leaves.direction = True, 1.0
        run = solve_ivp(rates, (0.0, 1e3 * duration), (-1e-300, -speed), events=leaves,
                        rtol=1e-11, atol=(1e-13 * depth, 1e-13 * speed), method="DOP853",
                        max_step=duration / 20.0)
        if not run.t_events[0].size:
            return 0.0                     # so slow to leave that it never does: e -> 0
        return run.y_events[0][0][1] / speed

    high = mass / duration
    while rebound(high) > e:
        high *= 4.0
        if high > 1e12 * mass / duration:
            raise ValueError(f"damping_for_restitution: no damping gives e = {e} at "
                             f"{speed} m/s")
    return brentq(lambda d: rebound(d) - e, 0.0, high, xtol=1e-14 * high, rtol=1e-12)


__all__ = ["Coulomb", "Contact", "ContactPoint", "contacts_among", "hertz",
           "damping_for_restitution", "FEATURES"]
