"""Why a run is slow or blew up: the linearized dynamics at a state, and the element behind
its fastest or unstable mode.

A run that must take far more steps than its budget, or whose state stops being finite, asks
this module for a cause it can name (:func:`fastest_mode`, :func:`unstable_mode`): the
eigenvalues of the Jacobian of dy/dt at the state (by central differences of the compiled
right-hand side), and for each force element how the mode changes when that element's force
is frozen at its present value (its stiffness and damping taken out, its load kept). The
element without which the mode slows the most is named.

Only the run stage's failure messages use it; it costs a few hundred right-hand-side calls,
paid once, when the run has already failed.
"""
import dataclasses
import functools
from dataclasses import dataclass

import numpy as np

from ..compiled import constant, lawkernels, layout
from ..control.signals import coordinate_unit, force_units
from . import evaluator
from .evaluator import Evaluator

#: a model is called stiff for an explicit method where its fastest mode's h |lambda| (h the
#: mean accepted step over the last batch) reaches this share of the method's stability
#: boundary (:func:`stability_boundary`; DOP853: 1.6 of 6.39). Held by stability, the steps
#: average 0.3 to 0.8 of the boundary (their control rejects a step past it and regrows the
#: next: a 1e9 rad/s mode at rest, 1.9 compiled and 4.9 with scipy's DOP853). Held by
#: accuracy on a mode the motion has in it, h |lambda| is about (rtol (p+1)!)^(1/(p+1)), the
#: local error of order p = 8 at rtol: 0.19 at rtol = 1e-12, 0.54 at 1e-8, 1.5 at 1e-4 (the
#: pendulum at rtol = 1e-12: 0.14): the two part at rtol <= 1e-4
STIFF_SHARE = 0.25


@dataclass
class Mode:
    """An eigenvalue of the linearized dynamics and the element that sets it.

    Attributes
    ----------
    eigenvalue : complex
        1/s.
    element : str or None
        The label of the force element whose frozen force changes the mode the most, when that
        changes it by at least a factor of two; None otherwise.
    without : complex or None
        The corresponding eigenvalue with that element's force frozen, 1/s.
    parameters : str or None
        That element's parameters (:meth:`mbd.ForceElement.parameters_text`).
    frozen : str
        What was taken away to get ``without`` ("that element's force frozen"; for a contact
        patch that slips, its kinetic friction).
    """

    eigenvalue: complex
    element: str = None
    without: complex = None
    parameters: str = None
    frozen: str = "that element's force frozen"

    @property
    def rate(self):
        """|eigenvalue|, 1/s."""
        return abs(self.eigenvalue)

    @property
    def oscillating(self):
        """Whether the mode oscillates more than it decays (|Im| > |Re|)."""
        return abs(self.eigenvalue.imag) > abs(self.eigenvalue.real)

    @property
    def what(self):
        """The mode in words: its frequency and period, or its rate and time constant."""
        lam = self.eigenvalue
        if self.oscillating:
            return (f"an oscillating mode of {abs(lam.imag):.3g} rad/s (period "
                    f"{2 * np.pi / abs(lam.imag):.3g} s)")
        if lam.real == 0.0:        # at rest on a neutral direction (a free coordinate)
            return "a mode of rate 0 1/s (no time constant: the model is not stiff here)"
        return f"a mode of rate {lam.real:+.3g} 1/s (time constant {1 / abs(lam.real):.3g} s)"

    @property
    def source(self):
        """Where the mode comes from, in words: its element, or the bodies."""
        if self.element is None:
            return "no single force element sets it (the bodies' masses and inertias do)"
        return (f"{self.element} ({self.parameters}) sets it: with {self.frozen} "
                f"the rate is {abs(self.without):.3g} 1/s")

    def describe(self):
        """The mode and its source in words."""
        return f"{self.what}; {self.source}"


@functools.cache
def stability_boundary(method):
    """Where the stability region of the explicit Runge-Kutta ``method`` (a scipy OdeSolver
    class with a Butcher tableau: RK23, RK45, DOP853) ends on the negative real axis: the
    smallest r > 0 with |R(-r)| > 1, R(z) = 1 + z b^T (I - z A)^-1 1 its stability function
    (to 1e-6; DOP853: 6.39, RK45: 3.31, RK23: 2.51). None for a method without a tableau (an
    implicit one: stable at any step on a decaying mode)."""
    if not hasattr(method, "A") or not hasattr(method, "B"):
        return None
    n = method.n_stages
    tableau = np.asarray(method.A, dtype=float)
    A = np.zeros((n, n))
    A[:, :min(n, tableau.shape[1])] = tableau[:n, :n]
    b = np.asarray(method.B, dtype=float)[:n]

    def unstable(r):
        return abs(1.0 - r * (b @ np.linalg.solve(np.eye(n) + r * A, np.ones(n)))) > 1.0
    low, high = 0.0, 1.0
    while not unstable(high):       # every explicit method's region is bounded
        low, high = high, 2.0 * high
    while high - low > 1e-6:        # the first crossing: the regions' ends are single
        mid = 0.5 * (low + high)
        low, high = (low, mid) if unstable(mid) else (mid, high)
    return high


def jacobian(ev, t, y):
    """d(dy/dt)/dy (n, n) over y = [q, v] at (t, y) in the current mode (central differences,
    steps scaled by each entry and the model's length scale)."""
    n = ev.system.nq + ev.system.nv
    y = np.array(y[:n], dtype=float)
    scale = np.maximum(np.abs(y), ev.system.length_scale)
    h = 1e-6 * scale
    J = np.empty((n, n))
    for k in range(n):
        up, down = y.copy(), y.copy()
        up[k] += h[k]
        down[k] -= h[k]
        J[:, k] = (ev.derivative(t, up)[0] - ev.derivative(t, down)[0]) / (2 * h[k])
    return J


def _eigenvalues(ev, t, y):
    J = jacobian(ev, t, y)
    if not np.all(np.isfinite(J)):
        return np.array([], dtype=complex)
    return np.linalg.eigvals(J)


def _frozen(ev, i, t, y, removed=False):
    """Run-stage data like ``ev``'s, in its mode, with element i's law replaced by a constant
    at its present force (a bushing's: its six loads, as a preload with no spring or damper);
    ``removed``: by a force of zero."""
    records = _records(ev, t, y)
    copy = _in_mode(ev, t, y)
    element = copy.data.elements[i]
    if element["kind"] == layout.BUSHING:   # its six loads held: all preload, no spring
        element["params"][:] = 0.0
        if not removed:
            element["params"][layout.PRELOAD:layout.PRELOAD + 6] = records[i]["wrench"]
    else:
        element["law"] = constant.KIND.code
        element["params"][:] = 0.0
        element["params"][0] = 0.0 if removed else records[i]["value"]
        element["signal"] = 0           # a compiled function of time no longer writes it
        # the record calls its law through its kind's entry: the constant's, not the old law's
        evaluator.install_laws(copy.data.elements[i:i + 1])
    copy.varying = [(k, law) for k, law in copy.varying if k != i]
    return copy


def _in_mode(ev, t, y):
    """Run-stage data of ``ev``'s system of its own, in ``ev``'s mode, at (t, y)."""
    copy = Evaluator(ev.system)
    copy.data.mode[:] = ev.data.mode
    copy.refresh(t, y)
    return copy


def _without_kinetic_friction(ev, lead, t, y):
    """:func:`_in_mode`'s data with mu_k = 0 on the points of the patch whose first point is
    element ``lead``."""
    copy = _in_mode(ev, t, y)
    points = slice(lead, lead + int(ev.system.elements[lead]["patch_size"]))
    copy.data.elements["friction"][points, 1] = 0.0
    return copy


def _records(ev, t, y):
    """The element records at (t, y) in ``ev``'s mode, the signals' values held (an input's,
    a controller's output), on data of their own (``ev``'s mode and lines stay as they
    are)."""
    copy = Evaluator(ev.system)
    copy.data.mode[:] = ev.data.mode
    copy.held = ev.held
    n = ev.system.nq + ev.system.nv
    return copy.records(t, np.asarray(y, dtype=float)[:n], ev.data.mode["sides"].copy())[0]


def _mode(ev, t, y, pick):
    """The mode ``pick(eigenvalues)`` selects, with the element whose frozen force changes it
    the most (by ``pick``'s measure: the returned eigenvalue's key), or else the slipping
    contact patch whose kinetic friction does."""
    lams = _eigenvalues(ev, t, y)
    if not len(lams):
        return None
    lam, measure = pick(lams)
    found = _slower_without(((fe, _frozen(ev, i, t, y))
                             for i, fe in enumerate(ev.system.force_elements)),
                            t, y, pick, measure)
    if found is not None:
        fe, lam_i, _ = found
        return Mode(complex(lam), fe.label(), complex(lam_i), fe.parameters_text())
    # a patch slipping with exact friction: its kinetic friction, mu_k f_n against its
    # slip's direction, turns with a slip that passes near zero at mu_k f_n / (m |v|), which
    # no one point's normal force sets (frozen, each point keeps its friction)
    s = ev.system
    slipping = [lead for lead in s.patches
                if ev.data.mode[lead]["sides"][layout.PLACEMENT_SWITCH] > 0.0]
    found = _slower_without(((lead, _without_kinetic_friction(ev, lead, t, y))
                             for lead in slipping), t, y, pick, measure)
    if found is None:
        return Mode(complex(lam))
    lead, lam_i, copy = found
    copy.switching(t, y)           # (its slip, which friction does not change)
    speed = float(np.linalg.norm(copy.data.estate[lead]["slip"]))
    contact = s.force_elements[lead].contact
    return Mode(complex(lam), f"contact '{contact.name}' slipping at {speed:.3g} m/s",
                complex(lam_i), repr(contact.friction),
                "its kinetic friction taken away (its direction turns with a slip that "
                "slow, at mu_k f_n / (m |v|))")


def _slower_without(candidates, t, y, pick, measure):
    """(key, eigenvalue, data) of the candidate (key, data) whose mode by ``pick`` is the
    slowest, where at most half ``measure`` (its key and data changed it by a factor of two
    or more); None where none is."""
    best = None
    for key, copy in candidates:
        others = _eigenvalues(copy, t, y)
        if not len(others):
            continue
        lam_i, measure_i = pick(others)
        if measure_i <= 0.5 * measure and (best is None or measure_i < best[1]):
            best = (key, measure_i, lam_i, copy)
    return None if best is None else (best[0], best[2], best[3])


def _fastest(lams):
    k = int(np.argmax(np.abs(lams)))
    return lams[k], abs(lams[k])


def _most_unstable(lams):
    k = int(np.argmax(lams.real))
    return lams[k], max(lams[k].real, 0.0)


def fastest_mode(ev, t, y):
    """The mode of largest |eigenvalue| at (t, y) and its element (a :class:`Mode`), or None
    when the Jacobian there is not finite."""
    return _mode(ev, t, y, _fastest)


def unstable_mode(ev, t, y):
    """The mode of largest growth rate (real part > 0) at (t, y) and its element, or None when
    the linearized dynamics there do not grow (or the Jacobian is not finite)."""
    found = _mode(ev, t, y, _most_unstable)
    if found is None or found.eigenvalue.real <= 0.0:
        return None
    return found



#: a force element dominates the acceleration at a state where its own part of it is at
#: least this share of the largest entry of the whole
DOMINANT_SHARE = 0.5


@dataclass
class Dominant:
    """A force element whose load dominates the acceleration at a state.

    Attributes
    ----------
    element : str
        Its label.
    rate : str
        The label of the velocity entry it accelerates the most.
    acceleration : float
        Its part of that entry's rate (m/s^2 or rad/s^2).
    total : float
        That entry's whole rate there (m/s^2 or rad/s^2).
    unit : str
        Their unit, "m/s^2" or "rad/s^2".
    parameter : str or None
        The parameter of its law that sets its force there the most, with its value and
        unit ("c = 1e+20 N.m/rad"), or None where none can be told.
    """

    element: str
    rate: str
    acceleration: float
    total: float
    unit: str
    parameter: str = None


def dominant_force(ev, t, y):
    """The force element whose load dominates the acceleration at (t, y) in the current mode
    (its part of the largest velocity rate at least :data:`DOMINANT_SHARE` of the whole, its
    part found by taking its force away), with the parameter that sets that force; None
    where no element does (gravity, the bodies' motion, or rates that are not finite)."""
    s = ev.system
    n = s.nq + s.nv
    y = np.array(y[:n], dtype=float)
    rates = ev.derivative(t, y)[0][s.nq:n].copy()
    if not len(rates) or not np.all(np.isfinite(rates)):
        return None
    k = int(np.argmax(np.abs(rates)))
    best = None
    for i in range(len(s.force_elements)):
        # the acceleration is affine in each force: its part, the difference between the
        # element's present force held and none (the other forces alike in both)
        held = _frozen(ev, i, t, y).derivative(t, y)[0][s.nq:n]
        without = _frozen(ev, i, t, y, removed=True).derivative(t, y)[0][s.nq:n]
        part = held[k] - without[k]
        if np.isfinite(part) and abs(part) >= DOMINANT_SHARE * abs(rates[k]) and (
                best is None or abs(part) > abs(best[1])):
            best = (i, part)
    if best is None or rates[k] == 0.0:
        return None
    i, part = best
    fe = s.force_elements[i]
    labels = evaluator.state_labels(s)
    return Dominant(fe.label(), labels[s.nq + k], float(part), float(rates[k]),
                    coordinate_unit(s, k) + "/s^2", _deciding_parameter(ev, i, t, y))


#: a parameter sets an element's fast mode where doubling it changes the fastest |lambda| by at
#: least this share (a stiffness doubled: 41 %, sqrt(2) - 1; a damping that sets the mode: 100 %)
SETS_MODE = 0.1


def _deciding_parameter(ev, i, t, y):
    """The numeric parameter of force element i's law that matters most at (t, y), as "name =
    value unit": the one that sets the fastest mode (doubled, it changes |lambda| by
    :data:`SETS_MODE` or more, the most), else the one its force depends on the most (doubled,
    the force changes the most: an input). None for a law whose parameters are not numbers
    of a dataclass (a function of time, a table, a user's law)."""
    s = ev.system
    fe = s.force_elements[i]
    law = fe.law
    if not dataclasses.is_dataclass(law) or ev.data.elements[i]["kind"] == layout.BUSHING:
        return None
    records = _records(ev, t, y)
    x, v = float(records[i]["x"]), float(records[i]["xdot"])
    sides = ev.data.mode["sides"][i][:layout.LAW_SWITCHES].copy()
    lams = _eigenvalues(ev, t, y)
    rate = float(np.max(np.abs(lams))) if len(lams) else 0.0
    try:
        force = float(law(x, v, t, sides=sides))
    except Exception:       # a law that is not called so (a user's own kind)
        return None
    by_mode, by_force = None, None
    for field in dataclasses.fields(law):
        value = getattr(law, field.name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value == 0.0:
            continue
        try:
            doubled = dataclasses.replace(law, **{field.name: 2.0 * value})
            change = abs(float(doubled(x, v, t, sides=sides)) - force)
            row = lawkernels.parameter_row(doubled, t)
        except Exception:   # a doubled value its law refuses (a bound), or overflow
            continue
        if np.isfinite(change) and change > 0.0 and (by_force is None or change > by_force[1]):
            by_force = (field.name, change, value)
        if rate > 0.0:
            others = _eigenvalues(_with_row(ev, i, t, y, row), t, y)
            moved = abs(float(np.max(np.abs(others))) - rate) / rate if len(others) else 0.0
            if moved >= SETS_MODE and (by_mode is None or moved > by_mode[1]):
                by_mode = (field.name, moved, value)
    best = by_mode or by_force
    if best is None:
        return None
    name, _, value = best
    unit = force_units(s, fe)[1].get(name, "")
    return f"{name} = {value:.3g}{' ' + unit if unit else ''}"


def _with_row(ev, i, t, y, row):
    """Run-stage data like ``ev``'s, in its mode, with element i's parameter row ``row``."""
    copy = Evaluator(ev.system)
    copy.data.mode[:] = ev.data.mode
    copy.refresh(t, y)
    element = copy.data.elements[i]
    element["params"][:] = row
    element["signal"] = 0
    copy.varying = [(k, law) for k, law in copy.varying if k != i]
    return copy
