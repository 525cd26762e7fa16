"""Validation of a Model at build time: every rule of SPEC §1-§3, each problem named.

Each check appends to a list of problems (text naming the element, the rule and the value);
:func:`mbd.system.build` raises them together in one :class:`~mbd.ModelError`. Checks that
need the machines (the environment's assembly tolerance) run after the topology is known.
:func:`run_settings` checks the arguments of a run (``simulate``) in the same spirit.
"""
import numpy as np
from scipy import integrate

from . import values
from .builder import CS, Body, Ground
from .controls import ControlElement
from .drivers import GearConstraint, MotionDriver
from .elements import Joint
from .errors import ModelError
from .forceelements import ForceElement, Law


def element_label(el):
    label = getattr(el, "label", None)
    return label() if callable(label) else f"{type(el).__name__} {getattr(el, 'name', None)!r}"


def _owners_of_names(model):
    """{name: [who uses it]} over grounds, bodies and elements with a string name."""
    seen = {}
    for kind, items in (("ground", model.grounds), ("body", model.bodies)):
        for item in items:
            seen.setdefault(item.name, []).append(f"{kind} '{item.name}'")
    for el in model.elements:
        name = getattr(el, "name", None)
        if isinstance(name, str) and name:
            seen.setdefault(name, []).append(element_label(el))
    return seen


def duplicated_names(model):
    """The names used more than once in ``model`` (a frozenset). Checks that would only report
    a consequence of a duplicate (the duplicate body "not connected to any ground") skip
    them: the duplicate is the problem reported."""
    return frozenset(name for name, owners in _owners_of_names(model).items()
                     if len(owners) > 1)


def check_names(model, problems):
    for el in model.elements:
        name = getattr(el, "name", None)
        if not isinstance(name, str) or not name:
            # joints check this when made; a force element's name is only an attribute
            problems.append(f"{element_label(el)}: name must be a non-empty string, got {name!r}")
    for name, owners in _owners_of_names(model).items():
        if len(owners) > 1:
            problems.append(f"duplicate name '{name}': used by {', '.join(owners)}; "
                            "names must be unique within a model")


def check_body(body, problems):
    """A body's own values: a finite mass >= 0, a finite CG, a finite symmetric positive
    semidefinite inertia within the triangle inequality, and no inertia without mass (unless
    the body is made ``weightless``). A massless body without inertia, a point mass and a
    thin rod are allowed here: build() checks, once the tree is laid out, that every joint
    still moves some inertia (:func:`mbd.system.system.check_inertia`)."""
    label = f"body '{body.name}'"
    if not (np.isfinite(body.mass) and body.mass >= 0.0):
        problems.append(f"{label}: mass must be finite and >= 0, got {body.mass}")
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
            # comes back as (-1e-17, I, I) and must pass as the rod it is
            if moments[0] < -16.0 * np.finfo(float).eps * moments[2]:
                problems.append(f"{label}: inertia must be positive semidefinite, got "
                                f"principal moments {moments.tolist()}")
            elif moments[2] > (moments[0] + moments[1]) * (1.0 + 1e-9):
                problems.append(f"{label}: inertia violates the triangle inequality "
                                f"(largest principal moment {moments[2]:g} > sum of the other two "
                                f"{moments[0] + moments[1]:g}); no rigid body has it")
            elif body.mass == 0.0 and moments[2] > 0.0 and not body.weightless:
                # a rigid body's inertia is the spread of its mass: none without mass; taken
                # as given, the body would fall with no weight and move along with no inertia
                problems.append(f"{label}: mass is 0 but its inertia is not (principal moments "
                                f"{[float(f'{m:.6g}') for m in moments]} kg m^2): a body "
                                "without mass has no inertia; give its mass, or inertia 0 for "
                                "a massless frame, or add_body(..., weightless=True) where a "
                                "rotor's mass is carried by another body")
    for cs in body.frames.values():
        if cs.name == "cg" and np.array_equal(cs.position, body.cg, equal_nan=True):
            continue  # the CS made at the CG: already reported with the cg
        if not np.all(np.isfinite(cs.position)):
            problems.append(f"CS '{cs.full_name}': position must be finite, got {cs.position}")


def is_cs_of(cs, model):
    if not isinstance(cs, CS):
        return False
    owner = cs.owner
    # identity, not equality: a CS of another model's body of the same name is foreign
    if isinstance(owner, Ground):
        return any(owner is g for g in model.grounds)
    return isinstance(owner, Body) and any(owner is b for b in model.bodies)


def describe_cs(cs):
    if isinstance(cs, CS):
        if not isinstance(cs.owner, (Body, Ground)):  # a CS made by hand, fixed to nothing
            return f"CS '{cs.name}' of no body or ground"
        return f"CS '{cs.full_name}' of model '{getattr(cs.model, 'name', None)}'"
    return f"{type(cs).__name__} {cs!r}"


def check_joint(joint, model, problems):
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
        if not is_cs_of(cs, model):
            problems.append(f"{label}: {role} must be a CS of model '{model.name}', got "
                            f"{describe_cs(cs)}")
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


def check_coincidence(joint, tolerance, problems):
    """The rule of SPEC §2: the joint's two CS origins coincide in the reference configuration,
    to the tolerance of its machine's environment. Not checked where a position is not finite:
    that is the problem, reported with its CS (or ground), not a gap of "nan m"."""
    b, f = joint.base, joint.follower
    if not (np.all(np.isfinite(b.position)) and np.all(np.isfinite(f.position))):
        return
    gap = np.linalg.norm(b.position - f.position)
    if not gap <= tolerance:
        problems.append(f"{joint.label()}: base CS '{b.full_name}' at {b.position.tolist()} and "
                        f"follower CS '{f.full_name}' at {f.position.tolist()} are {gap:.3g} m "
                        f"apart in the reference configuration; a joint's CS origins must "
                        f"coincide (tolerance {tolerance:g} m)")


_PLACEMENTS = ("joint", "line", "axial", "rotational", "bushing", "contact")


def check_joint_primitive(el, model, problems, joint=None, primitive=None, role="joint"):
    """An element that acts on one revolute/prismatic primitive of a joint of this model (its
    ``joint`` and ``primitive``, or the given ones, named ``role`` in messages). Returns
    whether it does."""
    label = element_label(el)
    j = el.joint if joint is None else joint
    if not (isinstance(j, Joint) and any(j is other for other in model.elements)):
        problems.append(f"{label}: {role} must be a joint added to model '{model.name}', got "
                        f"{element_label(j) if j is not None else None}")
        return False
    k = el.primitive if primitive is None else primitive
    what = "primitive" if role == "joint" else f"primitive_{role[-1]}"
    if not (isinstance(k, (int, np.integer)) and not isinstance(k, bool)
            and 0 <= k < len(j.primitives)):
        problems.append(f"{label}: {what} must be an index 0..{len(j.primitives) - 1} of "
                        f"{j.label()}, got {k!r}")
    elif j.primitives[k].kind == "S":
        problems.append(f"{label}: {what} {k} of {j.label()} is spherical; it must be a "
                        "revolute or prismatic primitive")
    else:
        return True
    return False


def check_gear(gear, model, problems):
    """A gear ties two different revolute/prismatic primitives of joints of this model."""
    ok = [check_joint_primitive(gear, model, problems, j, k, role)
          for (j, k), role in zip(gear.sides, ("joint_a", "joint_b"))]
    if all(ok) and gear.joint_a is gear.joint_b and gear.primitive_a == gear.primitive_b:
        problems.append(f"{gear.label()}: joint_a and joint_b are the same primitive "
                        f"({gear.joint_a.label()}, primitive {gear.primitive_a}); a gear ties "
                        "two different coordinates")


def check_force_element(fe, model, problems):
    label = element_label(fe)
    if not isinstance(fe.law, Law):
        problems.append(f"{label}: law must be a force law (forces.Spring, ElastoGap, ...), got "
                        f"{type(fe.law).__name__}")
    if fe.placement not in _PLACEMENTS:
        problems.append(f"{label}: placement must be one of {_PLACEMENTS}, got {fe.placement!r}")
        return
    if fe.placement == "joint":
        check_joint_primitive(fe, model, problems)
        return
    for role, cs in zip(("cs_a", "cs_b"), fe.endpoints):
        if not is_cs_of(cs, model):
            problems.append(f"{label}: {role} is {describe_cs(cs)}, which is not a CS "
                            f"of model '{model.name}'")
            return
    if fe.cs_a.owner is fe.cs_b.owner:
        problems.append(f"{label}: acts between two CSs of '{fe.cs_a.owner.name}'; a force "
                        "element needs two different bodies (or a body and a ground)")
    if fe.axis is not None:
        try:
            a = values.real_array(fe.axis, f"{label}: axis", shape=(3,))
        except ValueError:
            a = None
        if a is None or not np.all(np.isfinite(a)) or np.linalg.norm(a) < 1e-12:
            problems.append(f"{label}: axis must be 3 finite numbers, not all zero, got "
                            f"{fe.axis!r}")


def check_model(model, problems):
    """Check names, bodies, grounds and every element of ``model``; returns the elements by
    what they are: (joints, force elements, motion drivers, gears, control elements), the
    last checked against the built system (:meth:`mbd.model.controls.ControlElement.check`)."""
    check_names(model, problems)
    for body in model.bodies:
        check_body(body, problems)
    for g in model.grounds:
        if not np.all(np.isfinite(g.position)):
            problems.append(f"ground '{g.name}': position must be finite, got {g.position}")
    joints, forces, drivers, gears = [], [], [], []
    controls = []
    laid_out = 0
    for el in model.elements:
        if isinstance(el, Joint):
            if check_joint(el, model, problems):
                joints.append(el)
        elif isinstance(el, ForceElement) and callable(getattr(el, "laid_out", None)):
            for point in el.laid_out(model, problems):     # a contact: its points
                check_force_element(point, model, problems)
                forces.append(point)
                laid_out += 1
        elif isinstance(el, ForceElement):
            check_force_element(el, model, problems)
            forces.append(el)
        elif isinstance(el, MotionDriver):
            check_joint_primitive(el, model, problems)
            drivers.append(el)
        elif isinstance(el, GearConstraint):
            check_gear(el, model, problems)
            gears.append(el)
        elif isinstance(el, ControlElement):      # checked against the built system
            controls.append(el)
        else:
            problems.append(f"{element_label(el)} is neither a joint, a force element, a "
                            "motion driver, a gear nor a sensor, input or controller")
    if laid_out > MAX_CONTACT_POINTS:
        problems.append(f"the model's contacts have {laid_out} points, more than "
                        f"MAX_CONTACT_POINTS = {MAX_CONTACT_POINTS}: each is an element with "
                        "its own records, made at build, that the broad phase tests at every "
                        "evaluation, so the run would crawl; contact only the pairs that can "
                        "touch (contacts_among over fewer items, a Contact per neighbouring "
                        "pair), or thin the convex meshes (from_urdf's hull_vertices)")
    return joints, forces, drivers, gears, controls


#: the most contact points (a Contact's laid-out points, summed over the model) a model may
#: have: every one is an element (about 5 KB of records) that the broad phase tests at every
#: evaluation of the right-hand side, measuring it where its pair's bounding volumes are near
MAX_CONTACT_POINTS = 20000


def check_assembled_drawing(model, joints, machines, problems):
    """SPEC §2: every joint's CS origins coincide in the drawing, to the assembly tolerance of
    its machine's environment (the tightest of all where the machine has no single one,
    already reported)."""
    envs = [g.environment for g in model.grounds if g.environment is not None]
    default_tolerance = min((e.assembly_tolerance for e in envs), default=1e-9)
    env_of_body = {b: m.environment for m in machines for b in m.bodies}
    for j in joints:
        body = j.follower.owner if isinstance(j.follower.owner, Body) else j.base.owner
        env = env_of_body.get(body.name)
        check_coincidence(j, default_tolerance if env is None else env.assembly_tolerance,
                          problems)


#: the spacing of a run's output rows when ``simulate`` is not given one, s
DEFAULT_OUTPUT_STEP = 0.01


def run_settings(system, methods, t_end, output_step=None, t0=0.0, q0=None, v0=None,
                 rtol=None, atol=None, method="DOP853", max_step=np.inf, exact_switching=True,
                 progress=False, compiled=None, max_steps=1):
    """Check the arguments of :func:`mbd.run.simulate.simulate` (its parameters, and ``methods``:
    its table of method names), before anything is compiled or run.

    Every number must be real (not a bool, a string or a complex), and::

        t0 finite,  t0 < t_end < inf,  0 < output_step <= t_end - t0 (None: 0.01 s, or
        t_end - t0 when shorter),
        100 eps <= rtol < 1,  0 < atol < inf  (mbd.model.values.tolerances, as the Environment's),
        0 < max_step <= inf,  max_steps an integer >= 1

    ``q0``/``v0`` are dicts from joint names of ``system`` to values its joints take;
    ``exact_switching`` is True or False, ``progress`` and ``compiled`` True, False or None.
    A value of the wrong kind raises ``TypeError``, a value that breaks a rule
    ``ValueError``; each message starts ``simulate: <argument>`` and gives the rule and the
    value.

    Returns
    -------
    t_end, output_step, t0 : float
    method_class : scipy OdeSolver subclass
    rtol, atol, max_step : float
        rtol and atol the environments' (tightest) where not given.
    max_steps : int

    Examples
    --------
    >>> run_settings(None, {}, t_end="1")
    Traceback (most recent call last):
        ...
    TypeError: simulate: t_end must be a real number, got '1'
    """
    def number(value, name, rule, ok):
        return values.real(value, f"simulate: {name}", rule, ok, ValueError, TypeError)

    t0 = number(t0, "t0", "finite", values.finite)
    t_end = number(t_end, "t_end", f"finite and > t0 = {t0!r}",
                   lambda x: values.finite(x) and x > t0)
    span = t_end - t0
    if output_step is None:
        output_step = min(DEFAULT_OUTPUT_STEP, span)
    output_step = number(output_step, "output_step", "finite and > 0", values.positive)
    if output_step > span * (1.0 + 1e-12):
        raise ValueError(f"simulate: output_step must be at most t_end - t0 = {span!r} s (the "
                         f"span of the run: the rows are t0, t0 + output_step, ..., t_end), "
                         f"got {output_step!r}")
    rtol, atol = values.tolerances(system.rtol if rtol is None else rtol,
                                   system.atol if atol is None else atol, "simulate",
                                   ValueError, TypeError)
    max_step = number(max_step, "max_step", "> 0 (inf: no limit)", lambda x: x > 0.0)
    if isinstance(method, str) and method == "auto":     # DOP853 first (see simulate)
        method = "DOP853"
    method_class = methods.get(method, method) if isinstance(method, str) else method
    if not (isinstance(method_class, type) and issubclass(method_class, integrate.OdeSolver)):
        raise ValueError(f"simulate: method must be one of {sorted(methods) + ['auto']} or an "
                         f"OdeSolver class, got {method!r}")
    values.flag(exact_switching, "simulate: exact_switching")
    if not exact_switching and system.locks:
        names = [system.force_elements[i].name for i in system.locks]
        raise ValueError(f"simulate: exact_switching=False, but the stiction elements {names} "
                         "stick and slip only at located events (their rate crossing zero, "
                         "their force reaching f_static): run with exact switching")
    values.flag(progress, "simulate: progress", allow_none=True)
    values.flag(compiled, "simulate: compiled", allow_none=True)
    if isinstance(max_steps, (bool, np.bool_)) or not isinstance(max_steps,
                                                                  (int, np.integer)):
        raise TypeError(f"simulate: max_steps must be an integer, got {max_steps!r}")
    if max_steps < 1:
        raise ValueError(f"simulate: max_steps must be >= 1, got {max_steps!r}")
    for name, given in (("q0", q0), ("v0", v0)):
        check_initial_values(system, name, given)
    return t_end, output_step, t0, method_class, rtol, atol, max_step, int(max_steps)


def check_initial_values(system, name, given, who="simulate"):
    """``simulate``'s ``q0`` or ``v0`` (``name``): None or a dict from joint names of
    ``system`` to values the joints take (:meth:`mbd.Joint.initial_q`); ``TypeError`` or
    ``ValueError`` starting ``simulate: q0`` (``who``) otherwise."""
    if given is None:
        return
    if not isinstance(given, dict):
        raise TypeError(f"{who}: {name} must be a dict {{joint name: value}}, got {given!r}")
    for joint_name, value in given.items():
        jm = system.joints.get(joint_name) if isinstance(joint_name, str) else None
        if jm is None:
            raise ValueError(f"{who}: {name} names unknown joint {joint_name!r}; the joints "
                             f"are {sorted(system.joints)}")
        try:
            (jm.joint.initial_q if name == "q0" else jm.joint.initial_v)(value)
        except ModelError as err:
            raise ValueError(f"{who}: {name}[{joint_name!r}]: {err}") from None

