"""Why a run failed, in words: the exceptions the run stage raises on the way, and the
messages its SimulationError carries.

The parts of a run (the steppers of :mod:`mbd.run.steppers`, the locks of :mod:`mbd.run.locks`,
the rows of :mod:`mbd.run.outputrows`) raise the exceptions below where they meet a failure; the
piece loop (:mod:`mbd.run.pieceloop`) turns each into one ``SimulationError`` with the rows
computed so far, its message written here. A cause that can be named is named: a singular
configuration, a stiff model and its fastest mode's element (:mod:`mbd.run.diagnosis`), a tolerance
too small for double precision, a state that blew up and the unstable mode behind it.
"""
from typing import Any

import numpy as np

from ..compiled import controlkernels, loopsolve, statekernels
from . import diagnosis, evaluator

#: a state entry past this (in SI units) has blown up, whatever made the integrator stop
HUGE = 1e100


class Failed(Exception):
    """The run fails with ``message`` at time t (s), as it stands."""

    def __init__(self, message, t):
        super().__init__(message)
        self.message, self.t = message, t


class IntegratorFailed(Exception):
    """The integrator gave up at (t, y), saying ``what`` (its own exception: __cause__)."""

    def __init__(self, t, y, what):
        super().__init__(what)
        self.t, self.y, self.what = t, y, what


class BlewUp(Exception):
    """The state stopped being finite at (t, y)."""

    def __init__(self, t, y):
        super().__init__(t)
        self.t, self.y = t, y


class Undefined(Exception):
    """An element's load direction is undefined at (t, y)."""

    def __init__(self, element, t, y):
        super().__init__(element)
        self.element, self.t, self.y = element, t, y


class Singular(Exception):
    """The rank rule's verdict (a code of :mod:`mbd.compiled.loopsolve`) at time t."""

    def __init__(self, code, t):
        super().__init__(code)
        self.code, self.t = code, t


class ControllerFailed(Exception):
    """A compiled controller returned what it must not at time t (s): the right-hand side's
    ``status`` says which and how (:func:`mbd.compiled.controlkernels.failed`)."""

    def __init__(self, status, t):
        super().__init__(status)
        self.status, self.t = status, t


def raise_status(status, t, y):
    """Raise what a compiled function's nonzero return says (:mod:`mbd.compiled.statekernels`)."""
    if controlkernels.failed(status) is not None:
        raise ControllerFailed(status, t)
    if status > 0:
        raise Undefined(status - 1, t, np.array(y, dtype=float))
    if status < 0:
        raise Singular(status, t)


def projected(ev, t, y):
    """y moved onto the constraints (a copy), with the rank rule's verdict raised."""
    y = np.array(y, dtype=float)
    if ev.constrained:
        ev.refresh(t, y)
        status = ev.call(statekernels.projection, y, ev.data)
        if status != 0:
            raise Singular(status, t)
    return y


def check_singular(ev, t, y):
    """Before failing for steps that shrank to nothing at (t, y): where the constraint
    equations are that close to dependent there (their weakest direction's strength below
    :data:`mbd.compiled.loopsolve.NEAR_SINGULAR`), the mechanism has met a singular configuration,
    and that is the failure (raised as :class:`Singular`)."""
    if not ev.constrained or not np.all(np.isfinite(y)):
        return
    ev.derivative(t, y)
    if ev.data.loop[0]["smallest"] < loopsolve.NEAR_SINGULAR:
        raise Singular(loopsolve.SINGULAR, t)


def duration(seconds):
    """A wall time in words: seconds, minutes, hours or days."""
    if not np.isfinite(seconds):
        return "forever"
    for unit, size in (("days", 86400.0), ("hours", 3600.0), ("minutes", 60.0)):
        if seconds >= 2 * size:
            return f"about {seconds / size:.3g} {unit}"
    return f"about {seconds:.3g} s"


def slow_message(ev, method, implicit, settings, span, nsteps, t, y, h, projected_steps,
                 seconds, switch=None):
    """The step budget's failure at (t, y) after ``nsteps`` steps of ``method`` (a scipy
    OdeSolver class; ``implicit`` if it is not a one-step explicit method) over the run's
    ``span`` (t0, t_end) in s: how far the run got, what finishing would take at step size
    h (s) (``projected_steps`` steps, ``seconds`` more), and why the steps are this short
    (``switch``: the :class:`mbd.Event` the piece began at, if any, for
    :func:`collapse_cause`)."""
    t0, t_end = span
    name = method.__name__
    done = nsteps >= settings.max_steps
    if t_end == np.inf:       # a live simulation without an end: one advance's budget
        head = (f"one advance took its max_steps = {settings.max_steps} steps and reached "
                f"only t = {t:.9g} s; the step size there is {h:.3g} s")
    else:
        head = (f"the run took its max_steps = {settings.max_steps} steps and reached only "
                f"t = {t:.9g} s of {t_end:g} s" if done else
                f"the run cannot finish within max_steps = {settings.max_steps}: at t = "
                f"{t:.9g} s of {t_end:g} s, after {nsteps} steps")
        head += (f"; at its present step size of {h:.3g} s it needs about "
                 f"{projected_steps:.3g} steps in all ({duration(seconds)} more)")
    if h >= 0.5 * settings.max_step:
        return (f"{head}. The step is held at max_step = {settings.max_step:g} s: raise it "
                "(the integrator chooses its steps by the tolerances).")
    mode = diagnosis.fastest_mode(ev, t, y)
    if mode is None:
        text = raise_budget(settings, projected_steps)
        return f"{head}. {text[0].upper()}{text[1:]}."
    h_lam = h * mode.rate
    faster = ("" if t_end == np.inf else
              f", {mode.rate * (t_end - t0):.2g} times faster than the run")
    boundary = None if implicit else diagnosis.stability_boundary(method)
    if h_lam < 0.05:
        why = (f"The step is far shorter (h |lambda| = {h_lam:.2g}) than the model's "
               f"fastest time scale, {mode.what}: the tolerances (rtol = "
               f"{settings.rtol:g}, atol = {settings.atol:g}) may be too tight for a state "
               "that passes through zero, or a force jumps where no switching function sees "
               "it.")
        cause = collapse_cause(ev, t, y, switch)
        if cause:
            why += f" {cause[0].upper()}{cause[1:]}."
    elif boundary is not None and h_lam >= diagnosis.STIFF_SHARE * boundary:
        advice = ("An implicit method steps over a fast mode: method='Radau'" +
                  (" (not 'BDF', unstable for lightly damped oscillations)"
                   if mode.oscillating else "") + ".")
        why = (f"The model is stiff: its fastest mode sets the step at {name}'s stability "
               f"limit (h |lambda| = {h_lam:.2g}; {name} is unstable past {boundary:.3g}), "
               f"{mode.what}{faster}; {mode.source}. {advice} If that fast motion matters, "
               "soften or damp the element, give the bodies it moves more mass, or "
               f"{raise_budget(settings, projected_steps)}.")
    else:
        # the step resolves the fastest mode for accuracy: a long run, not a stiff model
        if implicit:
            bdf = (" (BDF is unstable for lightly damped oscillations: use method='Radau')"
                   if name == "BDF" and mode.oscillating else "")
            held = (f"The implicit {name}, stable at any step, follows the model's fastest "
                    f"mode, {mode.what}{faster}, with h |lambda| = {h_lam:.2g}{bdf}")
        else:
            held = (f"The model is not stiff: the step resolves its fastest mode, "
                    f"{mode.what}{faster}, with h |lambda| = {h_lam:.2g}, well inside "
                    f"{name}'s stability limit of {boundary:.3g} (stiff from "
                    f"{diagnosis.STIFF_SHARE * boundary:.3g})")
        soften = (f" If that fast motion does not matter, soften or damp {mode.element} or "
                  "give the bodies it moves more mass." if mode.element is not None else "")
        why = (f"{held}; {mode.source}. The steps are those the "
               f"tolerances (rtol = {settings.rtol:g}, atol = {settings.atol:g}) ask for on "
               f"that motion, and the run needs more of them than max_steps allows: "
               f"{raise_budget(settings, projected_steps)}; or loosen rtol and atol, or "
               f"shorten the run.{soften}")
    return f"{head}. {why}"


def raise_budget(settings, projected_steps):
    """How to give the run more steps, in words: max_steps, what the run needs
    (``projected_steps``, 20 % more, where it is known and beyond the budget) and how to set
    it."""
    wanted = (f" to about {_round_up(1.2 * projected_steps)}"
              if np.isfinite(projected_steps) and projected_steps > settings.max_steps else "")
    return (f"raise max_steps (now {settings.max_steps}){wanted}: simulate(..., "
            "max_steps=N), or mbd run --max-steps N")


def _round_up(n):
    """n rounded up to two significant digits, as an int."""
    digits = max(int(np.floor(np.log10(n))) - 1, 0)
    return int(np.ceil(n / 10 ** digits) * 10 ** digits)


def collapse_cause(ev, t, y, switch=None):
    """Why the steps may have collapsed at (t, y), in words, or "": the force element that
    dominates the acceleration there and the parameter that sets its force
    (:func:`mbd.run.diagnosis.dominant_force`), and the switch the piece began at when there
    was one (``switch``: its :class:`mbd.Event`)."""
    system = ev.system
    dominant = diagnosis.dominant_force(ev, t, y)
    after = ""
    if switch is not None:
        labels = {fe.name: fe.label() for fe in system.force_elements}
        after = (f"{t - switch.t:.3g} s after {labels.get(switch.element, switch.element)} "
                 f"switched ({switch.what})")
    if dominant is None:
        return (f"the steps collapsed {after}: its force may change there faster than any "
                "step can follow (a stiffness or an input orders of magnitude too large)"
                if after else "")
    fe = next(fe for fe in system.force_elements if fe.label() == dominant.element)
    setting = (f"its {dominant.parameter} ({fe.parameters_text()})" if dominant.parameter
               else fe.parameters_text())
    where = f"at t = {t:.9g} s, {after}," if after else f"at t = {t:.9g} s"
    return (f"{where} the force of {dominant.element} dominates the acceleration: it gives "
            f"{dominant.acceleration:.3g} of the {dominant.total:.3g} {dominant.unit} of "
            f"{dominant.rate}, set by {setting}; a value orders of magnitude too large (a "
            "stiffness, an input) makes the motion change faster than any step can follow")


def integrator_message(system, method, settings, t, y, what, cause=""):
    """The integrator ``method`` (a scipy OdeSolver class) gave up at (t, y), saying
    ``what``: a tolerance too small for double precision is named, else the ``cause``
    (:func:`collapse_cause`) where one was found."""
    rtol, atol = settings.rtol, settings.atol
    what = what.rstrip(".")
    message = f"the integrator {method.__name__} failed at t = {t:.9g} s: {what}"
    held = np.flatnonzero(rtol * np.abs(y) < atol)   # entries atol controls
    if atol < 1e-14 and len(held):
        labels = evaluator.state_labels(system)
        message += (f". With atol = {atol:g}, {labels[held[0]]} (= {y[held[0]]:.3g} "
                    f"here) must be computed to within about {atol:g}, finer than "
                    "double precision resolves as it changes: raise atol")
    elif cause:
        message += f" (rtol = {rtol:g}, atol = {atol:g}): {cause}"
    else:
        message += (f" (rtol = {rtol:g}, atol = {atol:g}): the solution may "
                    "change faster here than any step can follow (a force that jumps, a "
                    "singular mass matrix)")
    return message


def blow_up_message(ev, t, y, states):
    """The state stopped being finite, or grew past :data:`HUGE`, at t: name the entries and,
    from the earlier ``states`` [(t, y)] (the last rows, the last finite state), the unstable
    mode and its element."""
    labels = evaluator.state_labels(ev.system)
    finite = np.all(np.isfinite(y))
    bad = [labels[i] for i in np.flatnonzero(~(np.abs(y) < HUGE))]
    more = f" and {len(bad) - 4} more" if len(bad) > 4 else ""
    entries = f"{', '.join(bad[:4])}{more}"
    message = (f"the state grew past {HUGE:g} at t = {t:.9g} s ({entries})" if finite
               else f"the state became non-finite at t = {t:.9g} s ({entries})")
    found = [(t_f, diagnosis.unstable_mode(ev, t_f, y_f)) for t_f, y_f in states]
    found = [f for f in found if f[1] is not None]
    found.sort(key=lambda f: f[1].element is None)        # one with its element first
    t_f, mode = found[0] if found else (states[0][0], None)
    if mode is not None:
        message += (f": the motion grew without bound. At t = {t_f:.9g} s the linearized "
                    f"model has an unstable mode: {mode.what}; {mode.source}. A force "
                    "element that feeds energy in (negative damping or stiffness) does "
                    "this")
    else:
        message += (f"; the linearized model does not grow at t = {t_f:.9g} s: a mass "
                    "matrix that became singular (a body without mass or inertia where a "
                    "joint moves it) or a Python function of the model that returned a huge "
                    "value may be the cause")
    return message


def nonfinite_rates_message(ev, t, y, dy, sides, where="at the start"):
    """The rates dy at the state (t, y) are not finite (``where``: "at the start", or where
    the run stopped): name them and the force elements whose values are not finite there (a
    law's parameter of NaN, a stiffness K(t) that returned NaN from some time on, say)."""
    system = ev.system
    labels = evaluator.state_labels(system)
    bad = [labels[i] for i in np.flatnonzero(~np.isfinite(dy[:len(labels)]))]
    more = f" and {len(bad) - 4} more" if len(bad) > 4 else ""
    message = (f"the state's rates are not finite {where}, t = {t:.9g} s "
               f"({', '.join(bad[:4])}{more})")
    records, _ = ev.records(t, y, sides.copy())
    elements = [fe.label() for fe, value in zip(system.force_elements, records["value"])
                if not np.isfinite(value)]
    if elements:
        return (f"{message}: the force of {', '.join(elements)} is not finite there (a "
                "parameter that is NaN or infinite?)")
    return (f"{message}: a body without mass or inertia where a joint moves it, or a Python "
            "function of the model that returned NaN or inf, may be the cause")


def singular_message(system, loop, err):
    """The rank rule's verdict ``err`` (:class:`Singular`) with the solve's LOOP record
    ``loop``, in words."""
    loops = "; ".join(f"loop {system.loop_joints(c)}" for c in system.cut_joints)
    drivers = (f"; drivers and gears {[d.name for d in system.drivers]}" if system.drivers
               else "")
    if err.code == loopsolve.NOT_CLOSED:
        what = ("the projection onto the constraint equations did not converge: the "
                "mechanism cannot stay closed here")
    elif err.code == loopsolve.RANK_GREW:
        what = (f"the constraint equations gained rank: the mechanism started where "
                f"they have rank {loop['rank']} on the tree's coordinates (the cut "
                f"joints' own ones aside), a change point, and here they have rank "
                f"{loop['found']} (the new equation's strength {loop['smallest']:.2g}, "
                f"above {loopsolve.RANK_TOLERANCE:g}): which branch it leaves on is "
                "not determined; start it off the change point, or moving")
    elif loop['found'] < loop['rank']:
        what = (f"the constraint equations became dependent (rank {loop['found']} "
                f"instead of {loop['rank']} on the tree's coordinates, the cut joints' "
                f"own ones aside; the weakest equation's strength {loop['smallest']:.2g},"
                f" below {loopsolve.RANK_TOLERANCE:g})")
    else:
        what = (f"the constraint equations are about to become dependent (the weakest "
                f"of rank {loop['rank']} has strength {loop['smallest']:.2g}) and the "
                "motion demands rates they cannot give")
    cause = ("the mechanism has reached a dead centre or locks up, where its motion is not "
             "determined (a change point that the motion crosses with a continuous velocity "
             "is passed)")
    driven = [d.name for d in system.drivers if d.prescribed]
    if err.code == loopsolve.NOT_CLOSED and driven:
        # the closures cannot be met at all: a prescribed motion out of the loop's reach is
        # the likelier cause than a dead centre
        cause = (f"the motion of {', '.join(driven)} may ask for a position the loop "
                 f"cannot reach (a jump, or beyond a joint's range), or {cause}")
    return f"singular configuration at t = {err.t:.9g} s: {what} ({loops}{drivers}); {cause}"


def undefined_message(system, err):
    """An element's undefined load direction (:class:`Undefined`), in words."""
    fe = system.force_elements[err.element]
    why = ("its CSs coincide (|r| = 0) at zero relative velocity while the law's force "
           "there is not zero" if fe.placement == "line" else
           "B is turned half a turn relative to A about an axis perpendicular to the "
           "element's axis, where the twist angle is undefined")
    s = system
    return (f"{fe.label()}: the direction of its load is undefined at t = "
            f"{err.t:.9g} s: {why} (q = {np.round(err.y[:s.nq], 9).tolist()}, "
            f"v = {np.round(err.y[s.nq:s.nq + s.nv], 9).tolist()})")


def contact_depth_limit(point: Any) -> float:
    """The deepest penetration (m) a contact point may start at: its contact's
    ``deepest_start`` where given, else half the smaller shape's smallest extent (a sphere's
    or capsule's radius, a box's smallest half size, a convex mesh's smallest half extent
    along its CS axes; a plane has none). Deeper, the closest features (and so the normal)
    are no longer the ones of a touching pair, and the law would push the wrong way or from
    the wrong face."""
    given = getattr(point.contact, "deepest_start", None)
    if given is not None:
        return float(given)

    def reach(shape):
        if hasattr(shape, "radius"):
            return float(shape.radius)
        if hasattr(shape, "size") and np.ndim(shape.size) == 1:
            return 0.5 * float(min(shape.size))
        if hasattr(shape, "vertices"):
            return float(np.ptp(shape.vertices, axis=0).min())
        return np.inf
    return 0.5 * min(reach(point.shape_a), reach(point.shape_b))


def deep_contact_message(system: Any, estate: np.ndarray, t: float) -> str | None:
    """The message for contact points that start deeper in penetration than
    :func:`contact_depth_limit` allows (the records ``estate`` at the start), or None."""
    bad = []
    for indices in system.contacts.values():
        deep = []
        for i in indices:
            point = system.force_elements[i]
            depth, limit = -float(estate[i]["x"]), contact_depth_limit(point)
            if depth > limit:
                deep.append((depth, limit, point))
        if not deep:
            continue
        depth, limit, point = max(deep, key=lambda found: found[0])
        why = ("its contact's deepest_start" if getattr(point.contact, "deepest_start", None)
               is not None else "half the smaller shape's smallest radius or half size")
        # a contact's points named one by one only while few: a robot's foot has dozens
        more = "" if len(deep) == 1 else f" (the deepest of {len(deep)} of its points)"
        bad.append(f"'{point.name}' {depth:.6g} m deep{more} (at most {limit:.6g} m: {why})")
    if not bad:
        return None
    return (f"at t = {t:.9g} s the contact points start too deep in penetration for their law "
            f"to push them apart along a meaningful normal: {'; '.join(bad)}; start the "
            "bodies apart or touching (a robot from a URDF: mbd.exchange.urdfcontact."
            "stand_on_floor(model) puts its lowest point on the floor)")

